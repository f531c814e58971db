//! Ops the partitioner runs on pieces because their sharding rules keep what they work along
//! whole: convolutions (batch and output features pass; split input features are summed),
//! windows (pooling, and its gradient `select_and_scatter`), `optimization_barrier` (what
//! `checkpoint` stages), `top_k`, batched `cholesky`, batch norms. Each under random shardings
//! of its operands and result on the 4×2 mesh, against the program run whole.

use crate::spmd_partitioner_check::{check, data, module, sharding_text, Rng};

const MESH: &str = r#""data"=4, "model"=2"#;
const AXES: &[(&str, i64)] = &[("data", 4), ("model", 2)];

/// A random sharding of `shape` on the mesh: each axis on a dimension it divides (with the
/// axes already there), or on none.
fn random_even_sharding(rng: &mut Rng, shape: &[i64]) -> String {
    let mut dims: Vec<Vec<&str>> = vec![vec![]; shape.len()];
    let mut tiles = vec![1; shape.len()];
    for &(axis, size) in AXES {
        let fits: Vec<usize> = (0..shape.len())
            .filter(|&d| shape[d] % (tiles[d] * size) == 0)
            .collect();
        let k = rng.below(fits.len() + 1);
        if let Some(&d) = fits.get(k) {
            dims[d].push(axis);
            tiles[d] *= size;
        }
    }
    sharding_text(&dims)
}

/// `program(shardings)` for `rounds` random shardings of each of `shapes`, checked.
fn under_random_shardings(
    shapes: &[&[i64]],
    inputs: &[systolic_ir::Tensor],
    rounds: u64,
    program: impl Fn(&[String]) -> String,
) {
    for seed in 0..rounds {
        let mut rng = Rng::new(seed + 1);
        let shardings: Vec<String> = shapes
            .iter()
            .map(|s| random_even_sharding(&mut rng, s))
            .collect();
        check(&module(MESH, &program(&shardings)), inputs);
    }
}

fn sdy(s: &str) -> String {
    format!("{{sdy.sharding = #sdy.sharding<@mesh, {s}>}}")
}

#[test]
fn convolutions_split_over_batch_and_features() {
    let program = |s: &[String]| {
        format!(
            r#"func.func public @main(%x: tensor<8x6x6x4xf32> {}, %k: tensor<3x3x4x8xf32> {}) -> (tensor<8x4x4x8xf32> {}) {{
    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<8x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<8x4x4x8xf32>
    return %0 : tensor<8x4x4x8xf32>
  }}"#,
            sdy(&s[0]),
            sdy(&s[1]),
            sdy(&s[2])
        )
    };
    let inputs = [data(vec![8, 6, 6, 4], 1), data(vec![3, 3, 4, 8], 2)];
    under_random_shardings(
        &[&[8, 6, 6, 4], &[3, 3, 4, 8], &[8, 4, 4, 8]],
        &inputs,
        12,
        program,
    );
    // Input features split: each device's partial products are summed.
    let split_features = program(&[
        r#"[{}, {}, {}, {"data"}]"#.into(),
        r#"[{}, {}, {"data"}, {}]"#.into(),
        r#"[{}, {}, {}, {}]"#.into(),
    ]);
    let printed = check(&module(MESH, &split_features), &inputs);
    assert!(printed.contains("all_reduce"), "{printed}");
}

#[test]
fn pooling_and_its_gradient_split_over_batch_and_channels() {
    let program = |s: &[String]| {
        format!(
            r#"func.func public @main(%x: tensor<8x8x8x8xf32> {}, %g: tensor<8x4x4x8xf32> {}) -> (tensor<8x4x4x8xf32> {}, tensor<8x8x8x8xf32> {}) {{
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %ninf) <{{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }}) : (tensor<8x8x8x8xf32>, tensor<f32>) -> tensor<8x4x4x8xf32>
    %1 = "stablehlo.select_and_scatter"(%x, %g, %zero) <{{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }}, {{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}) : (tensor<8x8x8x8xf32>, tensor<8x4x4x8xf32>, tensor<f32>) -> tensor<8x8x8x8xf32>
    return %0, %1 : tensor<8x4x4x8xf32>, tensor<8x8x8x8xf32>
  }}"#,
            sdy(&s[0]),
            sdy(&s[1]),
            sdy(&s[2]),
            sdy(&s[3])
        )
    };
    let inputs = [data(vec![8, 8, 8, 8], 3), data(vec![8, 4, 4, 8], 4)];
    under_random_shardings(
        &[&[8, 8, 8, 8], &[8, 4, 4, 8], &[8, 4, 4, 8], &[8, 8, 8, 8]],
        &inputs,
        12,
        program,
    );
}

#[test]
fn optimization_barriers_keep_their_operands_pieces() {
    let program = |s: &[String]| {
        format!(
            r#"func.func public @main(%x: tensor<8x6xf32> {}, %y: tensor<8x6xf32> {}) -> (tensor<8x6xf32> {}) {{
    %0:2 = stablehlo.optimization_barrier %x, %y : tensor<8x6xf32>, tensor<8x6xf32>
    %1 = stablehlo.multiply %0#0, %0#1 : tensor<8x6xf32>
    return %1 : tensor<8x6xf32>
  }}"#,
            sdy(&s[0]),
            sdy(&s[1]),
            sdy(&s[2])
        )
    };
    let inputs = [data(vec![8, 6], 5), data(vec![8, 6], 6)];
    under_random_shardings(&[&[8, 6], &[8, 6], &[8, 6]], &inputs, 10, program);
}

#[test]
fn top_k_and_batched_cholesky_split_over_batch_dimensions() {
    let program = |s: &[String]| {
        format!(
            r#"func.func public @main(%a: tensor<8x6xf32> {}, %m: tensor<4x3x3xf32> {}) -> (tensor<8x2xf32> {}, tensor<8x2xi32>, tensor<4x3x3xf32> {}) {{
    %v, %i = chlo.top_k(%a, k = 2) : tensor<8x6xf32> -> (tensor<8x2xf32>, tensor<8x2xi32>)
    %t = stablehlo.transpose %m, dims = [0, 2, 1] : (tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %p = stablehlo.dot_general %m, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x3x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %e = stablehlo.constant dense<3.000000e+00> : tensor<4x3x3xf32>
    %q = stablehlo.add %p, %e : tensor<4x3x3xf32>
    %c = "stablehlo.cholesky"(%q) {{lower = true}} : (tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    return %v, %i, %c : tensor<8x2xf32>, tensor<8x2xi32>, tensor<4x3x3xf32>
  }}"#,
            sdy(&s[0]),
            sdy(&s[1]),
            sdy(&s[2]),
            sdy(&s[3])
        )
    };
    let inputs = [data(vec![8, 6], 7), data(vec![4, 3, 3], 8)];
    under_random_shardings(
        &[&[8, 6], &[4, 3, 3], &[8, 2], &[4, 3, 3]],
        &inputs,
        10,
        program,
    );
}

#[test]
fn batch_norm_training_splits_over_features() {
    let program = |s: &[String]| {
        format!(
            r#"func.func public @main(%x: tensor<4x6x8xf32> {}, %s: tensor<8xf32>, %o: tensor<8xf32>) -> (tensor<4x6x8xf32> {}, tensor<8xf32>, tensor<8xf32>) {{
    %t:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {{epsilon = 1.000000e-03 : f32, feature_index = 2 : i64}} : (tensor<4x6x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x6x8xf32>, tensor<8xf32>, tensor<8xf32>)
    return %t#0, %t#1, %t#2 : tensor<4x6x8xf32>, tensor<8xf32>, tensor<8xf32>
  }}"#,
            sdy(&s[0]),
            sdy(&s[1])
        )
    };
    let inputs = [data(vec![4, 6, 8], 9), data(vec![8], 10), data(vec![8], 11)];
    under_random_shardings(&[&[4, 6, 8], &[4, 6, 8]], &inputs, 10, program);
}

#[test]
fn bitcasts_keep_their_common_dimensions_split() {
    let program = |s: &[String]| {
        format!(
            r#"func.func public @main(%x: tensor<8x4xf32> {}) -> (tensor<8x4xf32> {}, tensor<8x4x2xf16> {}) {{
    %0 = stablehlo.bitcast_convert %x : (tensor<8x4xf32>) -> tensor<8x4xi32>
    %1 = stablehlo.bitcast_convert %0 : (tensor<8x4xi32>) -> tensor<8x4xf32>
    %2 = stablehlo.bitcast_convert %x : (tensor<8x4xf32>) -> tensor<8x4x2xf16>
    return %1, %2 : tensor<8x4xf32>, tensor<8x4x2xf16>
  }}"#,
            sdy(&s[0]),
            sdy(&s[1]),
            sdy(&s[2])
        )
    };
    let inputs = [data(vec![8, 4], 12)];
    under_random_shardings(&[&[8, 4], &[8, 4], &[8, 4, 2]], &inputs, 10, program);
}
