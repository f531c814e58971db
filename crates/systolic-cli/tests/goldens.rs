//! Every JAX golden program (exported by `scripts/export_goldens.py`) runs through the CLI and
//! matches JAX's outputs within the tolerance its meta.json gives and explains, compiled for
//! the CPU (the default backend) and on the reference interpreter.

use crate::common;

macro_rules! goldens {
    ($($name:ident),* $(,)?) => {
        /// On the default backend: compiled for the CPU.
        mod cpu {
            $(
                #[test]
                fn $name() {
                    super::common::check_golden(stringify!($name));
                }
            )*
        }
        /// On the reference interpreter.
        mod interp {
            $(
                #[test]
                fn $name() {
                    super::common::check_golden_on(stringify!($name), &["--backend", "interp"]);
                }
            )*
        }
    };
}

goldens!(
    mlp_forward,
    mlp_grad,
    softmax_xent,
    scan,
    while_loop,
    cond_switch,
    prng,
    conv,
    maxpool,
    sort,
    gather_scatter,
    cumsum,
    argmax,
    special,
    layer_norm,
    attention,
    bf16_matmul,
    int8_dot,
    int_corners,
    linalg,
    conv_grad,
    prng_more,
    float_convert,
);

/// Every folder under tests/data with a meta.json and outputs is listed above, so a new golden
/// cannot be forgotten.
#[test]
fn every_golden_is_tested() {
    let listed = [
        "mlp_forward",
        "mlp_grad",
        "softmax_xent",
        "scan",
        "while_loop",
        "cond_switch",
        "prng",
        "conv",
        "maxpool",
        "sort",
        "gather_scatter",
        "cumsum",
        "argmax",
        "special",
        "layer_norm",
        "attention",
        "bf16_matmul",
        "int8_dot",
        "int_corners",
        "linalg",
        "conv_grad",
        "prng_more",
        "float_convert",
    ];
    let mut on_disk: Vec<String> = std::fs::read_dir(common::data_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("out0.npy").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}
