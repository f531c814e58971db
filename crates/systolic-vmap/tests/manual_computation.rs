//! `sdy.manual_computation` (JAX's shard_map) batched: global programs over a 1D mesh of 4
//! and a 2 × 2 mesh whose bodies hold psums, a pvary, all_gathers and collective_permutes,
//! batched with operands mapped at different dimensions (or not at all), lowered with
//! `lower_manual_computations` and run on one interpreter process per device, equal the
//! per-example program run (lowered the same way) on each example and stacked.

use crate::common::{check_module, parse};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Func, OpKind};

fn over(groups: &str, shape: &str, channel: i64) -> String {
    format!(
        "replica_groups = dense<{groups}> : tensor<{shape}xi64>, \
         channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>, \
         use_global_device_ids"
    )
}

const SUM: &str =
    "({\n  ^bb0(%lhs: tensor<f32>, %rhs: tensor<f32>):\n    %sum = stablehlo.add %lhs, \
                   %rhs : tensor<f32>\n    stablehlo.return %sum : tensor<f32>\n  })";

/// Rows of `x` split over "x" (4 devices), `w` replicated and made varying by a pvary, a ring
/// permute, an all_gather, a psum, and global ops around the manual computation.
fn mesh_4() -> String {
    let all = "[[0, 1, 2, 3]]";
    format!(
        r#"module @m4 attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<8x3xf32>, %w: tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>) {{
    %w2 = stablehlo.multiply %w, %w : tensor<3xf32>
    %0:2 = sdy.manual_computation(%x, %w2) in_shardings=[<@mesh, [{{"x"}}, {{}}]>, <@mesh, [{{}}]>] out_shardings=[<@mesh, [{{"x"}}, {{}}]>, <@mesh, [{{}}]>] manual_axes={{"x"}} (%a: tensor<2x3xf32>, %b: tensor<3xf32>) {{
      %bv = stablehlo.custom_call @systolic.pvary(%b) {{api_version = 4 : i32, backend_config = {{replica_groups = dense<{all}> : tensor<1x4xi64>, use_global_device_ids = true}}}} : (tensor<3xf32>) -> tensor<3xf32>
      %bb = stablehlo.broadcast_in_dim %bv, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
      %m = stablehlo.multiply %a, %bb : tensor<2x3xf32>
      %p = "stablehlo.collective_permute"(%m) {{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %g = "stablehlo.all_gather"(%p) {{all_gather_dim = 0 : i64, {ag}}} : (tensor<2x3xf32>) -> tensor<8x3xf32>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %r = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x3xf32>, tensor<f32>) -> tensor<3xf32>
      %q = "stablehlo.all_reduce"(%r) {SUM} {{{ar}}} : (tensor<3xf32>) -> tensor<3xf32>
      %u = stablehlo.subtract %p, %a : tensor<2x3xf32>
      sdy.return %u, %q : tensor<2x3xf32>, tensor<3xf32>
    }} : (tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>)
    %y = stablehlo.add %0#1, %w : tensor<3xf32>
    return %0#0, %y : tensor<8x3xf32>, tensor<3xf32>
  }}
}}"#,
        ag = over(all, "1x4", 2),
        ar = over(all, "1x4", 3),
    )
}

/// A 2 × 2 mesh (device 2a + b): `x` split over both axes, `v` over "b"; a psum over "b", an
/// all_gather over "a", a permute within "b", a psum over the whole mesh.
fn mesh_2x2() -> String {
    let over_a = "[[0, 2], [1, 3]]";
    let over_b = "[[0, 1], [2, 3]]";
    format!(
        r#"module @m22 attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%x: tensor<4x4xf32>, %v: tensor<4xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<4x4xf32>) {{
    %0:3 = sdy.manual_computation(%x, %v) in_shardings=[<@mesh, [{{"a"}}, {{"b"}}]>, <@mesh, [{{"b"}}]>] out_shardings=[<@mesh, [{{"a"}}, {{}}]>, <@mesh, [{{}}]>, <@mesh, [{{"a"}}, {{"b"}}]>] manual_axes={{"a", "b"}} (%xp: tensor<2x2xf32>, %vp: tensor<2xf32>) {{
      %vb = stablehlo.broadcast_in_dim %vp, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
      %m = stablehlo.multiply %xp, %vb : tensor<2x2xf32>
      %s1 = "stablehlo.all_reduce"(%m) {SUM} {{{psum_b}}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
      %g = "stablehlo.all_gather"(%m) {{all_gather_dim = 1 : i64, {gather_a}}} : (tensor<2x2xf32>) -> tensor<2x4xf32>
      %p = "stablehlo.collective_permute"(%g) {{source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %p2 = stablehlo.multiply %p, %g : tensor<2x4xf32>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %r = stablehlo.reduce(%p2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
      %t = "stablehlo.all_reduce"(%r) {SUM} {{{psum_ab}}} : (tensor<2xf32>) -> tensor<2xf32>
      %ee = stablehlo.add %m, %xp : tensor<2x2xf32>
      sdy.return %s1, %t, %ee : tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf32>
    }} : (tensor<4x4xf32>, tensor<4xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<4x4xf32>)
    return %0#0, %0#1, %0#2 : tensor<4x2xf32>, tensor<2xf32>, tensor<4x4xf32>
  }}
}}"#,
        psum_b = over(over_b, "2x2", 1),
        gather_a = over(over_a, "2x2", 2),
        psum_ab = over("[[0, 1, 2, 3]]", "1x4", 4),
    )
}

/// The in- and out-shardings of the manual computation of `f`, printed.
fn shardings(f: &Func) -> Vec<String> {
    let mut out = vec![];
    walk_ops(&f.body, &mut |op, _| {
        if let OpKind::ManualComputation(a) = &op.kind {
            for s in a.in_shardings.iter().chain(&a.out_shardings) {
                let dims: Vec<String> = s
                    .dims
                    .iter()
                    .map(|d| {
                        let axes: Vec<&str> = d.axes.iter().map(|a| a.name.as_str()).collect();
                        format!("{{{}}}", axes.join(","))
                    })
                    .collect();
                out.push(dims.join(""));
            }
        }
    });
    out
}

#[test]
fn a_batched_manual_computation_on_a_mesh_of_4_equals_per_example_runs() {
    let m = parse(&mesh_4());
    let f = check_module(&m, "main", &[Some(0), Some(0)], 3, &[Some(0)], 1);
    // The batch dimension enters and leaves unsharded.
    assert_eq!(shardings(&f), ["{}{x}{}", "{}{}", "{}{x}{}", "{}{}"]);
    let f = check_module(&m, "main", &[Some(2), None], 2, &[Some(1)], 2);
    // x batched at its last dimension, w not: the permute's rule moves the batch dimension
    // first, so both results leave batched at 0 (the psum'd one reads the permuted value).
    assert_eq!(shardings(&f), ["{x}{}{}", "{}", "{}{x}{}", "{}{}"]);
    check_module(&m, "main", &[None, Some(1)], 3, &[Some(0)], 3);
}

#[test]
fn a_batched_manual_computation_on_a_2x2_mesh_equals_per_example_runs() {
    let m = parse(&mesh_2x2());
    for (seed, axes) in [
        [Some(0), Some(0)],
        [Some(1), Some(1)],
        [Some(2), None],
        [None, Some(0)],
    ]
    .into_iter()
    .enumerate()
    {
        check_module(&m, "main", &axes, 2, &[Some(0)], seed as u64 + 10);
    }
    check_module(&m, "main", &[Some(0), Some(0)], 1, &[Some(1)], 20);
}
