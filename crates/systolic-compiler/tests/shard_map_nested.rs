//! shard_map where JAX users put it: in `fori_loop`, `scan`, `cond` and `switch`, and nested
//! (over "y" inside a shard_map over "x"). JAX's exports and outputs on 8 host devices
//! (`scripts/shard_map_nested_goldens.py`), made per device by `per_device_program` (the
//! all-manual lowering for the control flow; the partitioner, or the all-manual lowering where
//! it cannot, for the nested ones, whose outer shard_map leaves "y" free) and, for the nested
//! ones, by `lower_manual_computations` itself; run one interpreter process per device. The
//! forms JAX rejects are errors.

use crate::spmd_partitioner_check::{check_jax_golden, run_spmd};
use systolic_compiler::passes::lower_manual_computations;
use systolic_ir::text::parse_module;
use systolic_ir::walk::walk_ops;
use systolic_ir::{Op, OpKind, Tensor};

fn check(name: &str) -> systolic_compiler::passes::SpmdModule {
    check_jax_golden("shard_map_nested", name, 1e-5).0
}

/// The golden `name` lowered by `lower_manual_computations` itself (whichever pass
/// `per_device_program` picks), run on 8 interpreter processes against JAX's outputs.
fn check_lowered(name: &str) -> systolic_compiler::passes::SpmdModule {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shard_map_nested")
        .join(name);
    let text = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
    let module = parse_module(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let read = |prefix: &str| -> Vec<Tensor> {
        (0..)
            .map(|i| dir.join(format!("{prefix}{i}.npy")))
            .take_while(|p| p.exists())
            .map(|p| systolic_npy::read(&p, None).unwrap())
            .collect()
    };
    let spmd = lower_manual_computations(&module, "main").unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = run_spmd(&spmd, &read("in"));
    let want = read("out");
    assert_eq!(got.len(), want.len(), "{name}");
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

/// Per op kind name, how many the per-device entry holds (every region).
fn count(spmd: &systolic_compiler::passes::SpmdModule, pred: fn(&Op) -> bool) -> usize {
    let mut n = 0;
    walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        n += usize::from(pred(op))
    });
    n
}

fn no_shardy_left(spmd: &systolic_compiler::passes::SpmdModule) {
    let left = count(spmd, |o| {
        matches!(
            o.kind,
            OpKind::ManualComputation(_) | OpKind::ShardingConstraint(_) | OpKind::Call { .. }
        )
    });
    assert_eq!(left, 0);
}

/// The `while` of the per-device entry.
fn the_while(spmd: &systolic_compiler::passes::SpmdModule) -> Op {
    let mut found = None;
    walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        if matches!(op.kind, OpKind::While) && found.is_none() {
            found = Some(op.clone());
        }
    });
    found.expect("a while loop")
}

/// The types the program's loop carries.
fn carried_types(spmd: &systolic_compiler::passes::SpmdModule) -> Vec<String> {
    let w = the_while(spmd);
    let f = spmd.module.func("main").unwrap();
    w.results
        .iter()
        .map(|&r| f.value_type(r).to_string())
        .collect()
}

#[test]
fn a_fori_loop_over_a_shard_map_step_carries_the_pieces() {
    let spmd = check("fori_loop");
    no_shardy_left(&spmd);
    // The loop carries the step's 4x2 pieces; the only gather is of the result, after it.
    let carried = carried_types(&spmd);
    assert!(
        carried.contains(&"tensor<4x2xf32>".to_string()),
        "{carried:?}"
    );
    let w = the_while(&spmd);
    let mut gathers_in_loop = 0;
    for r in &w.regions {
        walk_ops(r, &mut |o, _| {
            gathers_in_loop += usize::from(matches!(o.kind, OpKind::AllGather { .. }))
        });
    }
    assert_eq!(gathers_in_loop, 0);
    assert!(count(&spmd, |o| matches!(o.kind, OpKind::AllReduce { .. })) >= 1);
}

#[test]
fn a_fori_loop_under_jit_shardings_starts_from_the_split_argument() {
    let spmd = check("fori_loop_sharded");
    no_shardy_left(&spmd);
    let f = spmd.module.func("main").unwrap();
    assert_eq!(f.param_types()[0].to_string(), "tensor<4x8xf32>");
    assert_eq!(f.result_types[0].to_string(), "tensor<8x2xf32>");
}

#[test]
fn a_scan_over_a_shard_map_step() {
    let spmd = check("scan");
    no_shardy_left(&spmd);
    let carried = carried_types(&spmd);
    assert!(
        carried.contains(&"tensor<4x2xf32>".to_string()),
        "{carried:?}"
    );
}

#[test]
fn cond_and_switch_branches_with_shard_maps() {
    for name in [
        "cond_true",
        "cond_false",
        "switch_0",
        "switch_1",
        "switch_2",
    ] {
        let spmd = check(name);
        no_shardy_left(&spmd);
        assert_eq!(
            count(&spmd, |o| matches!(o.kind, OpKind::Case | OpKind::If)),
            1,
            "{name}"
        );
    }
}

#[test]
fn a_shard_map_over_y_nested_in_one_over_x() {
    no_shardy_left(&check("nested"));
    let spmd = check_lowered("nested");
    no_shardy_left(&spmd);
    // Both psums stay, one over each axis's groups.
    let mut groups = vec![];
    walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        if let OpKind::AllReduce { collective } = &op.kind {
            groups.push(collective.replica_groups.clone());
        }
    });
    assert!(
        groups.contains(&vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]),
        "{groups:?}"
    );
    assert!(
        groups.contains(&vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]),
        "{groups:?}"
    );
}

#[test]
fn nested_shard_maps_under_jit_shardings_and_in_a_loop() {
    for name in ["nested_under_jit", "nested_in_loop"] {
        no_shardy_left(&check(name));
        no_shardy_left(&check_lowered(name));
    }
}

/// A nested manual computation over an axis the outer one already made manual (JAX refuses
/// to trace it; a hand-written module gets an error, not a panic).
const AXIS_TWICE: &str = r#"module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<4x8xf32>) {
      %1 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%b: tensor<4x4xf32>) {
        sdy.return %b : tensor<4x4xf32>
      } : (tensor<4x8xf32>) -> tensor<4x8xf32>
      sdy.return %1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}"#;

#[test]
fn an_inner_shard_map_over_an_outer_manual_axis_is_an_error() {
    let m = parse_module(AXIS_TWICE, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
    // (Partly manual at the top, so `per_device_program` hands it to the partitioner.)
    let e = lower_manual_computations(&m, "main").unwrap_err();
    assert!(
        e.contains("\"x\"") && e.contains("already made manual"),
        "{e}"
    );
}

/// A manual computation in a reducer's region: not a place JAX puts one; an error naming the
/// op.
#[test]
fn a_manual_computation_in_a_reducer_is_an_error() {
    let text = r#"module {
  sdy.mesh @mesh = <["x"=8]>
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<f32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %z) across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %1 = sdy.manual_computation(%a) in_shardings=[<@mesh, []>] out_shardings=[<@mesh, []>] manual_axes={"x"} (%c: tensor<f32>) {
        sdy.return %c : tensor<f32>
      } : (tensor<f32>) -> tensor<f32>
      %2 = stablehlo.add %1, %b : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }
    return %0 : tensor<f32>
  }
}"#;
    let m = parse_module(text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
    let e = lower_manual_computations(&m, "main").unwrap_err();
    assert!(e.contains("stablehlo.reduce"), "{e}");
}
