//! `partition` on control flow: a scan over layers (stacked weights carried through a
//! `while`, each layer's weights taken by `dynamic_slice` on the layer dimension, per-layer
//! outputs stacked by `dynamic_update_slice`) under FSDP/TP and random shardings on 1-D and
//! 2-D meshes; `if` and `case` with sharded branches; all against the one-device interpreter.

use super::spmd_partitioner_check::{check, count, data, module, random_sharding, Rng};
use systolic_ir::OpKind;

const MESH_2D: &str = r#""data"=4, "model"=2"#;
const MESH_1D: &str = r#""x"=8"#;

/// A 3-layer scan: x[16,8] through tanh(x·W1[l])·W2[l] + x, with the stacked weights
/// W1[3,8,16] and W2[3,16,8] carried (as JAX's scan carries its `xs`), and every layer's
/// output stacked into ys[3,16,8]. `sx`, `s1`, `s2`, `sy`: shardings of x (and the final
/// x), W1, W2, ys.
fn scan(mesh: &str, sx: &str, s1: &str, s2: &str, sy: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}, %w1: tensor<3x8x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {s1}>}}, %w2: tensor<3x16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {s2}>}}) -> (tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}, tensor<3x16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sy}>}}) {{
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ys0 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<3x16x8xf32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:5 = stablehlo.while(%a = %w1, %b = %w2, %i = %i0, %h = %x, %ys = %ys0) : tensor<3x8x16xf32>, tensor<3x16x8xf32>, tensor<i32>, tensor<16x8xf32>, tensor<3x16x8xf32>
    cond {{
      %n = stablehlo.constant dense<3> : tensor<i32>
      %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }} do {{
      %z = stablehlo.constant dense<0> : tensor<i32>
      %a1 = stablehlo.dynamic_slice %a, %i, %z, %z, sizes = [1, 8, 16] : (tensor<3x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
      %wa = stablehlo.reshape %a1 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %b1 = stablehlo.dynamic_slice %b, %i, %z, %z, sizes = [1, 16, 8] : (tensor<3x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x8xf32>
      %wb = stablehlo.reshape %b1 : (tensor<1x16x8xf32>) -> tensor<16x8xf32>
      %p = stablehlo.dot_general %h, %wa, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
      %t = stablehlo.tanh %p : tensor<16x16xf32>
      %q = stablehlo.dot_general %t, %wb, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
      %h2 = stablehlo.add %q, %h : tensor<16x8xf32>
      %u = stablehlo.reshape %h2 : (tensor<16x8xf32>) -> tensor<1x16x8xf32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %u, %i, %z, %z : (tensor<3x16x8xf32>, tensor<1x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x16x8xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %a, %b, %i2, %h2, %ys2 : tensor<3x8x16xf32>, tensor<3x16x8xf32>, tensor<i32>, tensor<16x8xf32>, tensor<3x16x8xf32>
    }}
    return %r#3, %r#4 : tensor<16x8xf32>, tensor<3x16x8xf32>
  }}"#
        ),
    )
}

fn scan_inputs(seed: u32) -> Vec<systolic_ir::Tensor> {
    vec![
        data(vec![16, 8], seed),
        data(vec![3, 8, 16], seed + 1),
        data(vec![3, 16, 8], seed + 2),
    ]
}

#[test]
fn a_scan_over_fsdp_and_tp_sharded_stacked_weights() {
    // Batch over "data"; weights FSDP over "data" on D and TP over "model" on the hidden
    // dimension (the layer dimension whole).
    let text = scan(
        MESH_2D,
        r#"[{"data"}, {}]"#,
        r#"[{}, {"data"}, {"model"}]"#,
        r#"[{}, {"model"}, {"data"}]"#,
        r#"[{}, {"data"}, {}]"#,
    );
    let printed = check(&text, &scan_inputs(1));
    // The loop stays a loop, and the weights stay split in its carry: the per-device
    // program's while carries pieces of the stacked weights.
    assert_eq!(count(&text, |k| matches!(k, OpKind::While)), 1);
    assert!(printed.contains("tensor<3x2x8xf32>"), "{printed}");
    // The second product sums over "model" inside the body.
    assert!(count(&text, |k| matches!(k, OpKind::AllReduce { .. })) >= 1);
}

#[test]
fn scans_under_random_shardings() {
    let mut rng = Rng::new(16);
    for (mesh, axes) in [(MESH_2D, &["data", "model"][..]), (MESH_1D, &["x"][..])] {
        for case in 0..8 {
            let sx = random_sharding(&mut rng, 2, axes);
            // The layer dimension (3) divides by no axis: it stays whole.
            let mut stacked = || format!("[{{}}, {}", &random_sharding(&mut rng, 2, axes)[1..]);
            let (s1, s2, sy) = (stacked(), stacked(), stacked());
            let text = scan(mesh, &sx, &s1, &s2, &sy);
            check(&text, &scan_inputs(10 + case));
        }
    }
}

/// `if` on the sign of the sum of x: one branch a product with a sharded weight, the other
/// elementwise; a `case` on an index argument with three branches.
fn branches(mesh: &str, sx: &str, sw: &str, so: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}, %w: tensor<8x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sw}>}}, %k: tensor<i32>) -> (tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {so}>}}, tensor<16x8xf32>) {{
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    %pos = stablehlo.compare GT, %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %y = "stablehlo.if"(%pos) ({{
      %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
      stablehlo.return %p : tensor<16x8xf32>
    }}, {{
      %n = stablehlo.negate %x : tensor<16x8xf32>
      stablehlo.return %n : tensor<16x8xf32>
    }}) : (tensor<i1>) -> tensor<16x8xf32>
    %z = "stablehlo.case"(%k) ({{
      %e = stablehlo.exponential %y : tensor<16x8xf32>
      stablehlo.return %e : tensor<16x8xf32>
    }}, {{
      %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %p = stablehlo.dot_general %y, %t, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
      stablehlo.return %p : tensor<16x8xf32>
    }}, {{
      stablehlo.return %x : tensor<16x8xf32>
    }}) : (tensor<i32>) -> tensor<16x8xf32>
    return %y, %z : tensor<16x8xf32>, tensor<16x8xf32>
  }}"#
        ),
    )
}

#[test]
fn if_and_case_run_their_branches_on_pieces() {
    let x_pos = data(vec![16, 8], 3);
    let x_neg = {
        let v: Vec<f32> = x_pos
            .to_f64_vec()
            .iter()
            .map(|&v| (-v.abs()) as f32)
            .collect();
        systolic_ir::Tensor::from_f32(vec![16, 8], v)
    };
    let x_pos = {
        let v: Vec<f32> = x_pos.to_f64_vec().iter().map(|&v| v.abs() as f32).collect();
        systolic_ir::Tensor::from_f32(vec![16, 8], v)
    };
    let w = data(vec![8, 8], 4);
    let text = branches(
        MESH_2D,
        r#"[{"data"}, {"model"}]"#,
        r#"[{"model"}, {}]"#,
        r#"[{"data"}, {}]"#,
    );
    for x in [&x_pos, &x_neg] {
        for k in [0, 1, 2, 7] {
            let k =
                systolic_ir::Tensor::from_i64(vec![], systolic_ir::DType::I32, vec![k]).unwrap();
            check(&text, &[x.clone(), w.clone(), k]);
        }
    }
    assert_eq!(count(&text, |k| matches!(k, OpKind::If)), 1);
    assert_eq!(count(&text, |k| matches!(k, OpKind::Case)), 1);
}

#[test]
fn branches_under_random_shardings() {
    let mut rng = Rng::new(17);
    let w = data(vec![8, 8], 6);
    for (mesh, axes) in [(MESH_2D, &["data", "model"][..]), (MESH_1D, &["x"][..])] {
        for case in 0..6 {
            let text = branches(
                mesh,
                &random_sharding(&mut rng, 2, axes),
                &random_sharding(&mut rng, 2, axes),
                &random_sharding(&mut rng, 2, axes),
            );
            let k = systolic_ir::Tensor::from_i64(
                vec![],
                systolic_ir::DType::I32,
                vec![case as i64 % 3],
            )
            .unwrap();
            check(&text, &[data(vec![16, 8], 20 + case), w.clone(), k]);
        }
    }
}
