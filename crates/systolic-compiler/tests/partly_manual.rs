//! shard_map programs that leave mesh axes free (`sdy.manual_computation` manual over some
//! axes), under jit with shardings: JAX's exports and JAX's outputs on 8 host devices
//! (`scripts/partly_manual_goldens.py`), partitioned by `per_device_program` and run one
//! interpreter process per device.

use crate::gspmd_import::run_spmd;
use std::path::PathBuf;
use systolic_compiler::passes::per_device_program;
use systolic_interp::Value;
use systolic_ir::text::parse_module;
use systolic_ir::OpKind;

fn case(name: &str) -> (systolic_ir::Module, Vec<Value>, Vec<systolic_ir::Tensor>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/partly_manual")
        .join(name);
    let text = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
    let module = parse_module(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let read = |prefix: &str| -> Vec<systolic_ir::Tensor> {
        (0..)
            .map(|i| dir.join(format!("{prefix}{i}.npy")))
            .take_while(|p| p.exists())
            .map(|p| systolic_npy::read(&p, None).unwrap())
            .collect()
    };
    let inputs = read("in").into_iter().map(Value::Tensor).collect();
    (module, inputs, read("out"))
}

fn check(name: &str) -> systolic_compiler::passes::SpmdModule {
    let (module, inputs, want) = case(name);
    let spmd = per_device_program(&module, "main")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .expect("an 8-device program");
    assert_eq!(spmd.num_devices, 8);
    let got = run_spmd(&spmd, &inputs);
    assert_eq!(got.len(), want.len());
    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "{name} result {j}");
        for (a, b) in g.to_f64_vec().iter().zip(w.to_f64_vec()) {
            assert!(
                (a - b).abs() <= 1e-5 + 1e-5 * b.abs(),
                "{name} result {j}: {g:?}\nwant {w:?}"
            );
        }
    }
    spmd
}

#[test]
fn a_row_parallel_matmul_manual_over_one_axis_of_two() {
    let spmd = check("row_parallel");
    // The body's psum over "x" stays; no manual computation is left.
    let mut kinds = vec![];
    systolic_ir::walk::walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        kinds.push(op.kind.name())
    });
    assert!(
        kinds.iter().any(|k| k == "stablehlo.all_reduce"),
        "{kinds:?}"
    );
    assert!(
        !kinds.iter().any(|k| k.contains("manual_computation")),
        "{kinds:?}"
    );
    assert!(
        !kinds.iter().any(|k| k.contains("sharding_constraint")),
        "{kinds:?}"
    );
}

#[test]
fn a_ring_permute_manual_over_the_minor_axis_keeps_the_batch_split() {
    let spmd = check("ring_y");
    // The argument arrives split over both axes (4x8 over x=2, y=4: 2x2 pieces).
    let f = spmd.module.func("main").unwrap();
    let ty = &f.param_types()[0];
    assert_eq!(ty.to_string(), "tensor<2x2xf32>");
    let mut permutes = 0;
    systolic_ir::walk::walk_ops(&f.body, &mut |op, _| {
        permutes += usize::from(matches!(op.kind, OpKind::CollectivePermute { .. }))
    });
    assert_eq!(permutes, 1);
}
