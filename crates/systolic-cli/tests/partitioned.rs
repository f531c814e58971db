//! JAX's jit-with-shardings programs (exported by `scripts/jit_sharding_goldens.py`: global
//! functions under `jax.jit(f, in_shardings=…, out_shardings=…)` and
//! `with_sharding_constraint` on 1D, 2D and 3D meshes of 8 host devices) run through
//! `systolic run`: the compiler propagates the shardings and partitions the program, every
//! device runs its piece, compiled and on the interpreter, and the global outputs match JAX's
//! within the tolerance each meta.json gives; so does the GSPMD export of each program
//! (`module_gspmd.mlir`). Each device holds only its shards: the most memory one device needs
//! is well below what the same program needs unsharded on one device
//! (`module_unsharded.mlir`, JAX's export of the program without shardings).

use crate::common;
use std::path::Path;

macro_rules! partitioned_goldens {
    ($($(#[$attr:meta])* $name:ident),* $(,)?) => {
        /// Compiled for the CPU, one program per device.
        mod cpu {
            $(
                $(#[$attr])*
                #[test]
                fn $name() {
                    super::common::check_golden(concat!("partitioned/", stringify!($name)));
                }
            )*
        }
        /// On the reference interpreter, one interpreter per device.
        mod interp {
            $(
                $(#[$attr])*
                #[test]
                fn $name() {
                    super::common::check_golden_on(
                        concat!("partitioned/", stringify!($name)),
                        &["--backend", "interp"],
                    );
                }
            )*
        }
        /// The same program exported in the GSPMD form (`mhlo.sharding`, `custom_call
        /// @Sharding`), imported as Shardy's by the compiler, compiled.
        mod gspmd {
            $(
                $(#[$attr])*
                #[test]
                fn $name() {
                    super::common::check_golden_module(
                        concat!("partitioned/", stringify!($name)),
                        "module_gspmd.mlir",
                        &[],
                    );
                }
            )*
        }
        /// Every folder under tests/data/partitioned is listed here.
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

partitioned_goldens!(
    elementwise_1d,
    reductions_1d,
    softmax_1d,
    scans_1d,
    argmax_1d,
    uneven_4x2,
    matmul_batch_4x2,
    matmul_both_free_4x2,
    matmul_contract_allreduce_4x2,
    matmul_contract_scatter_4x2,
    matmul_contract_scatter_cols_4x2,
    matmul_gather_other_4x2,
    matmul_result_moved_4x2,
    matmul_replicated_in_4x2,
    matmul_both_free_2x4,
    matmul_contract_allreduce_2x4,
    matmul_contract_scatter_2x4,
    matmul_result_moved_2x4,
    batched_einsum_2x4,
    reductions_2x4,
    bf16_matmul_4x2,
    fori_loop_4x2,
    conv_4x2,
    embedding_vocab_4x2,
    constraint_2x4,
    mesh_2x2x2,
    mlp_fsdp_tp,
    mlp_open_weight_4x2,
    train_step_fsdp_tp,
    transformer_block_fsdp_tp,
    transformer_train_step_fsdp_tp,
);

/// A shard_map manual over `model` only, inside a jit whose arguments are split over both
/// axes (the free `data` axis left to the partitioner). Its GSPMD export crosses into the
/// shard_map through `@SPMDFullToShardShape` on computed values, which the GSPMD import does
/// not read.
mod partly_manual {
    const NAME: &str = "partitioned/partly_manual_4x2";

    #[test]
    fn cpu() {
        super::common::check_golden(NAME);
    }

    #[test]
    fn interp() {
        super::common::check_golden_on(NAME, &["--backend", "interp"]);
    }

    #[test]
    #[ignore = "GSPMD import: shard_map markers (@SPMDFullToShardShape) inside a global program"]
    fn gspmd() {
        super::common::check_golden_module(NAME, "module_gspmd.mlir", &[]);
    }
}

/// Goldens tested by hand above, Shardy form only.
const SHARDY_ONLY: &[&str] = &["partly_manual_4x2"];

#[test]
fn every_partitioned_golden_is_tested() {
    let mut listed: Vec<String> = LISTED
        .iter()
        .chain(SHARDY_ONLY)
        .map(|s| s.to_string())
        .collect();
    listed.sort();
    let mut on_disk: Vec<String> = std::fs::read_dir(common::data_dir().join("partitioned"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, listed);
}

/// Every golden, in both forms, runs on as many devices as its mesh has (outputs equal to
/// JAX's alone would not tell a partitioned run from a one-device one).
#[test]
fn every_golden_runs_on_its_mesh() {
    for name in LISTED.iter().chain(SHARDY_ONLY) {
        let dir = common::data_dir().join("partitioned").join(name);
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        let devices: u64 = meta["mesh"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .product();
        let modules: &[&str] = if SHARDY_ONLY.contains(name) {
            &["module.mlir"]
        } else {
            &["module.mlir", "module_gspmd.mlir"]
        };
        for module in modules {
            let report = json_report(&dir, module, &[]);
            assert_eq!(report["devices"], devices, "{name}/{module}: {report}");
        }
    }
}

/// `systolic run <dir>/<module> --json` with the golden's inputs (and `extra`); the report.
fn json_report(dir: &Path, module: &str, extra: &[&str]) -> serde_json::Value {
    let g = common::golden(&format!(
        "partitioned/{}",
        dir.file_name().unwrap().to_string_lossy()
    ));
    let mut args = vec!["run".to_string(), dir.join(module).display().to_string()];
    for input in &g.inputs {
        args.push("--input".into());
        args.push(input.display().to_string());
    }
    args.push("--json".into());
    args.extend(extra.iter().map(|s| s.to_string()));
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = common::systolic(&arg_refs);
    let (stdout, stderr) = common::texts(&out);
    assert!(out.status.success(), "{module}: {stderr}");
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

/// Bytes of the golden's global inputs.
fn input_bytes(dir: &Path) -> u64 {
    let g = common::golden(&format!(
        "partitioned/{}",
        dir.file_name().unwrap().to_string_lossy()
    ));
    g.inputs
        .iter()
        .map(|f| {
            let t = systolic_npy::read(f, None).unwrap();
            (t.num_elements() * t.dtype().byte_size()) as u64
        })
        .sum()
}

/// Each device holds only its shards: the most bytes one of the 8 devices holds (its argument
/// pieces plus its planned temporaries and results) against the unsharded program on one
/// device (all its arguments plus its planned temporaries and results).
#[test]
fn devices_hold_only_their_shards() {
    // (golden, the most a device may hold as a share of the unsharded program): parameters
    // and activations split 8 ways (1/8), with gathered weights (FSDP) and partial sums on
    // top; measured 0.20 to 0.26.
    for (name, share) in [
        ("matmul_both_free_4x2", 0.35),
        ("mlp_fsdp_tp", 0.35),
        ("train_step_fsdp_tp", 0.35),
        ("transformer_block_fsdp_tp", 0.3),
        ("transformer_train_step_fsdp_tp", 0.3),
    ] {
        let dir = common::data_dir().join("partitioned").join(name);
        let sharded = json_report(&dir, "module.mlir", &[]);
        assert_eq!(sharded["devices"], 8, "{name}: {sharded}");
        let device = sharded["device_memory_bytes"].as_u64().unwrap();
        let whole = json_report(&dir, "module_unsharded.mlir", &[]);
        assert!(whole.get("devices").is_none(), "{name}: {whole}");
        let unsharded = input_bytes(&dir) + whole["peak_memory_bytes"].as_u64().unwrap();
        println!("{name}: {device} bytes per device, {unsharded} unsharded");
        assert!(
            (device as f64) <= share * unsharded as f64,
            "{name}: a device holds {device} bytes, the unsharded program {unsharded} \
             (more than {share} of it)"
        );
    }
}

/// `--dump-dir` shows the propagated shardings (the global program annotated as Shardy
/// writes them) and the per-device program: for the FSDP + TP MLP, the hidden activations
/// split by batch and features, the weights gathered over `data` (FSDP) and the second
/// product's partial sums completed over `model` (TP).
#[test]
fn dump_dir_shows_propagated_shardings_and_the_per_device_program() {
    let dir = common::data_dir().join("partitioned").join("mlp_fsdp_tp");
    let dump = tempfile::tempdir().unwrap();
    let dump_arg = dump.path().display().to_string();
    json_report(&dir, "module.mlir", &["--dump-dir", &dump_arg]);
    let read = |f: &str| {
        std::fs::read_to_string(dump.path().join(f)).unwrap_or_else(|e| panic!("{f}: {e}"))
    };
    let propagated = read("spmd-propagated.mlir");
    let hidden = propagated
        .lines()
        .find(|l| l.contains("stablehlo.tanh"))
        .unwrap_or_else(|| panic!("no tanh in\n{propagated}"));
    assert!(
        hidden.contains(r#"sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>"#)
            && hidden.contains("tensor<16x16xf32>"),
        "{hidden}"
    );
    let per_device = read("spmd-per-device.mlir");
    let tanh = per_device
        .lines()
        .find(|l| l.contains("stablehlo.tanh"))
        .unwrap_or_else(|| panic!("no tanh in\n{per_device}"));
    assert!(tanh.contains("tensor<4x8xf32>"), "{tanh}");
    assert_eq!(
        per_device.matches("stablehlo.all_gather").count(),
        2,
        "{per_device}"
    );
    assert_eq!(
        per_device.matches("stablehlo.all_reduce").count(),
        1,
        "{per_device}"
    );
    // The compiler's pass dumps are still written next to them.
    assert!(dump.path().join("00-input.mlir").exists());
}

/// An argument JAX leaves unannotated (`in_shardings` None) is held as propagation chooses:
/// the second weight of the FSDP + TP MLP takes the sharding its product needs (rows over
/// `model`), and each device is given that piece of the global input.
#[test]
fn an_unannotated_argument_is_split_as_propagated() {
    let dir = common::data_dir()
        .join("partitioned")
        .join("mlp_open_weight_4x2");
    let module = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
    assert!(module.contains("%arg2: tensor<16x8xf32>, "), "{module}");
    let dump = tempfile::tempdir().unwrap();
    let dump_arg = dump.path().display().to_string();
    json_report(&dir, "module.mlir", &["--dump-dir", &dump_arg]);
    let propagated = std::fs::read_to_string(dump.path().join("spmd-propagated.mlir")).unwrap();
    assert!(
        propagated
            .contains(r#"%arg2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}"#),
        "{propagated}"
    );
    let per_device = std::fs::read_to_string(dump.path().join("spmd-per-device.mlir")).unwrap();
    assert!(per_device.contains("%arg2: tensor<8x"), "{per_device}");
}

/// A value that must be gathered whole to proceed (here 2 MiB sorted along its only
/// dimension, split over `data`: no other dimension can take the split) makes `systolic
/// run` warn, naming the op and where it is (XLA's "involuntary full rematerialization",
/// with the source location).
#[test]
fn a_large_array_gathered_whole_is_warned_of_with_its_op() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("sort.mlir");
    std::fs::write(
        &file,
        r#"module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func public @main(%x: tensor<524288xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> (tensor<524288xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) {
    %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %1 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<524288xf32>) -> tensor<524288xf32>
    return %0 : tensor<524288xf32>
  }
}"#,
    )
    .unwrap();
    let input = tmp.path().join("x.npy");
    let x: Vec<f32> = (0..524288).map(|i| i as f32).collect();
    systolic_npy::write(
        &input,
        &systolic_ir::Tensor::from_f32(vec![524288], x.clone()),
    )
    .unwrap();
    let out_dir = tmp.path().join("out");
    let out = common::systolic(&[
        "run",
        &file.display().to_string(),
        "--input",
        &input.display().to_string(),
        "--out-dir",
        &out_dir.display().to_string(),
    ]);
    let (_, stderr) = common::texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: ")
            && stderr.contains("involuntary full rematerialization")
            && stderr.contains("stablehlo.sort at 4:"),
        "{stderr}"
    );
    // And the values come out sorted, largest first, all the same.
    let got = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
    let want: Vec<f32> = x.iter().rev().copied().collect();
    assert_eq!(got, systolic_ir::Tensor::from_f32(vec![524288], want));
}
