//! shard_map programs that leave mesh axes free (`sdy.manual_computation` manual over some
//! axes), under jit with shardings: JAX's exports and JAX's outputs on 8 host devices
//! (`scripts/partly_manual_goldens.py`), partitioned by `per_device_program` and run one
//! interpreter process per device.

use crate::spmd_partitioner_check::check_jax_golden;
use systolic_ir::OpKind;

fn check(name: &str) -> systolic_compiler::passes::SpmdModule {
    check_jax_golden("partly_manual", name, 1e-5).0
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

/// The shapes of every `stablehlo.dot_general` result in the per-device entry.
fn dot_shapes(spmd: &systolic_compiler::passes::SpmdModule) -> Vec<String> {
    let f = spmd.module.func("main").unwrap();
    let mut shapes = vec![];
    systolic_ir::walk::walk_ops(&f.body, &mut |op, _| {
        if matches!(op.kind, OpKind::DotGeneral { .. }) {
            shapes.push(f.value_type(op.results[0]).to_string());
        }
    });
    shapes
}

#[test]
fn a_tensor_parallel_block_is_split_over_the_free_batch_axis_too() {
    let spmd = check("tp_mlp_free_batch");
    // x: 16x8 split "x" (2) outside; w1 8x32, w2 32x8 split "y" (4) by the body's specs.
    // The body, manual over "y", runs on 8 of the 16 rows per device (the free "x" split),
    // not on all 16: its dots are 8x8 · 8x8 and 8x8 · 8x8.
    assert_eq!(
        dot_shapes(&spmd),
        ["tensor<8x8xf32>", "tensor<8x8xf32>"],
        "{}",
        systolic_ir::text::print_module(&spmd.module)
    );
    assert!(spmd.warnings.is_empty(), "{:?}", spmd.warnings);
}

#[test]
fn axis_index_and_a_gather_over_the_manual_axis_in_a_body_split_over_the_free_one() {
    // JAX writes axis_index("y") as a nested manual computation over the remaining axis
    // "x" reading partition_id; the body's all_gather over "y" meets row pieces.
    let spmd = check("gather_index_free_rows");
    let f = spmd.module.func("main").unwrap();
    let mut gathers = vec![];
    systolic_ir::walk::walk_ops(&f.body, &mut |op, _| {
        if matches!(op.kind, OpKind::AllGather { .. }) {
            gathers.push(f.value_type(op.results[0]).to_string());
        }
    });
    // 8x8 split x (rows, 2) and y (columns, 4): a 4x2 piece gathered over y to 4x8.
    assert_eq!(
        gathers,
        ["tensor<4x8xf32>"],
        "{}",
        systolic_ir::text::print_module(&spmd.module)
    );
    assert!(spmd.warnings.is_empty(), "{:?}", spmd.warnings);
}

/// A nested manual computation over an axis the outer one already made manual is an error
/// of the partitioner too (JAX refuses to trace it), naming the axis.
#[test]
fn an_inner_manual_computation_over_an_outer_manual_axis_is_an_error() {
    let text = r#"module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<4x8xf32>) {
      %1 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%b: tensor<4x4xf32>) {
        sdy.return %b : tensor<4x4xf32>
      } : (tensor<4x8xf32>) -> tensor<4x8xf32>
      sdy.return %1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}"#;
    let m = systolic_ir::text::parse_module(text, "t.mlir").unwrap();
    let e = match systolic_compiler::passes::partition(&m, "main") {
        Ok(_) => panic!("partitioned a shard_map nested over its parent's axis"),
        Err(e) => e,
    };
    assert!(e.contains("\"x\"") && e.contains("already"), "{e}");
}
