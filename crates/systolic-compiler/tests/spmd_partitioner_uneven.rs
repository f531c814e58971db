//! `partition` with dimensions their tiles do not divide (10 rows over 4 devices: pieces of
//! 3, 3, 3 and 1, padded to 3): elementwise chains, reductions and products over padded
//! dimensions (the padding made non-zero first, so only masking gets them right), conversions
//! between uneven and even layouts, iotas, reshapes, a vocabulary-sharded lookup, a loop;
//! random shardings of odd shapes on 1-D and 2-D meshes; all against the one-device
//! interpreter, inputs split and outputs assembled by the `SpmdModule`'s (padded) layouts.

use super::spmd_partitioner_check::{check, data, module, random_sharding, Rng};
use systolic_ir::{DType, Tensor};

const MESH_2D: &str = r#""data"=4, "model"=2"#;
const MESH_1D: &str = r#""x"=8"#;

/// exp(-x) (padding becomes 1) held as `sx` by a constraint (propagation itself makes no
/// uneven pieces: they come from shardings a user writes), then sums and maxima over each
/// dimension and a scaled copy.
fn reductions(mesh: &str, sx: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<10x6xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}) -> (tensor<6xf32>, tensor<10xf32>, tensor<f32>, tensor<6xf32>, tensor<10x6xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}) {{
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %n = stablehlo.negate %x : tensor<10x6xf32>
    %x1 = stablehlo.exponential %n : tensor<10x6xf32>
    %e = sdy.sharding_constraint %x1 <@mesh, {sx}> : tensor<10x6xf32>
    %s0 = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<10x6xf32>, tensor<f32>) -> tensor<6xf32>
    %s1 = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<10x6xf32>, tensor<f32>) -> tensor<10xf32>
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<10x6xf32>, tensor<f32>) -> tensor<f32>
    %m0 = stablehlo.reduce(%e init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10x6xf32>, tensor<f32>) -> tensor<6xf32>
    %two = stablehlo.constant dense<2.0> : tensor<10x6xf32>
    %y = stablehlo.multiply %e, %two : tensor<10x6xf32>
    return %s0, %s1, %s, %m0, %y : tensor<6xf32>, tensor<10xf32>, tensor<f32>, tensor<6xf32>, tensor<10x6xf32>
  }}"#
        ),
    )
}

#[test]
fn reductions_over_uneven_pieces_mask_their_padding() {
    for sx in [
        r#"[{"data"}, {}]"#,
        r#"[{"data"}, {"model"}]"#,
        r#"[{"model"}, {"data"}]"#,
        r#"[{"data", "model"}, {}]"#,
        r#"[{}, {"data", "model"}]"#,
    ] {
        // Only the padding of exp(-x) (1, not 0) makes a sum or maximum wrong: the inputs
        // are positive, so their exp(-x) are below 1.
        let x = data(vec![10, 6], 1);
        let v: Vec<f32> = x
            .to_f64_vec()
            .iter()
            .map(|v| v.abs() as f32 + 0.1)
            .collect();
        check(
            &reductions(MESH_2D, sx),
            &[Tensor::from_f32(vec![10, 6], v)],
        );
    }
}

/// exp(x) · exp(w), the factors held as `sx` and `sw` by constraints (their padding, 1,
/// must not enter the contraction).
fn product(mesh: &str, sx: &str, sw: &str, so: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<10x6xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}, %w: tensor<6x7xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sw}>}}) -> (tensor<10x7xf32> {{sdy.sharding = #sdy.sharding<@mesh, {so}>}}) {{
    %ex1 = stablehlo.exponential %x : tensor<10x6xf32>
    %ew1 = stablehlo.exponential %w : tensor<6x7xf32>
    %ex = sdy.sharding_constraint %ex1 <@mesh, {sx}> : tensor<10x6xf32>
    %ew = sdy.sharding_constraint %ew1 <@mesh, {sw}> : tensor<6x7xf32>
    %0 = stablehlo.dot_general %ex, %ew, contracting_dims = [1] x [0] : (tensor<10x6xf32>, tensor<6x7xf32>) -> tensor<10x7xf32>
    %1 = stablehlo.tanh %0 : tensor<10x7xf32>
    return %1 : tensor<10x7xf32>
  }}"#
        ),
    )
}

#[test]
fn a_product_contracting_over_uneven_pieces() {
    let inputs = [data(vec![10, 6], 2), data(vec![6, 7], 3)];
    // The contraction (6) over "data" (4): pieces of 2, 2, 2, 0.
    check(
        &product(
            MESH_2D,
            r#"[{}, {"data"}]"#,
            r#"[{"data"}, {}]"#,
            "[{}, {}]",
        ),
        &inputs,
    );
    check(
        &product(
            MESH_2D,
            r#"[{"data"}, {"model"}]"#,
            r#"[{"model"}, {"data"}]"#,
            r#"[{"data"}, {"model"}]"#,
        ),
        &inputs,
    );
}

#[test]
fn uneven_values_move_between_layouts() {
    let text = module(
        MESH_2D,
        r#"func.func public @main(%x: tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}, tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}, tensor<10x6xf32>, tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {"data"}]>}) {
    %0 = stablehlo.negate %x : tensor<10x6xf32>
    %1 = stablehlo.reverse %x, dims = [0] : tensor<10x6xf32>
    %i = stablehlo.iota dim = 0 : tensor<10x6xf32>
    %2 = stablehlo.add %0, %i : tensor<10x6xf32>
    return %0, %2, %1, %2 : tensor<10x6xf32>, tensor<10x6xf32>, tensor<10x6xf32>, tensor<10x6xf32>
  }"#,
    );
    check(&text, &[data(vec![10, 6], 4)]);
}

#[test]
fn reshapes_of_uneven_pieces_run_whole() {
    let text = module(
        MESH_2D,
        r#"func.func public @main(%x: tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<60xf32>, tensor<5x2x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}) {
    %0 = stablehlo.reshape %x : (tensor<10x6xf32>) -> tensor<60xf32>
    %1 = stablehlo.reshape %x : (tensor<10x6xf32>) -> tensor<5x2x6xf32>
    return %0, %1 : tensor<60xf32>, tensor<5x2x6xf32>
  }"#,
    );
    check(&text, &[data(vec![10, 6], 5)]);
}

#[test]
fn a_lookup_into_an_uneven_vocabulary() {
    // 50 rows over "data": pieces of 13, 13, 13 and 11.
    let text = module(
        MESH_2D,
        r#"func.func public @main(%t: tensor<50x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %i: tensor<12x1xi32>) -> tensor<12x8xf32> {
    %g = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>} : (tensor<50x8xf32>, tensor<12x1xi32>) -> tensor<12x8xf32>
    return %g : tensor<12x8xf32>
  }"#,
    );
    let ids = Tensor::from_i64(
        vec![12, 1],
        DType::I32,
        vec![0, 12, 13, 25, 26, 38, 39, 49, 50, 77, -4, 40],
    )
    .unwrap();
    check(&text, &[data(vec![50, 8], 6), ids]);
}

#[test]
fn a_loop_carrying_uneven_pieces() {
    let text = module(
        MESH_2D,
        r#"func.func public @main(%x: tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %w: tensor<6x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %i0, %h = %x) : tensor<i32>, tensor<10x6xf32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %e = stablehlo.exponential %h : tensor<10x6xf32>
      %p = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] : (tensor<10x6xf32>, tensor<6x6xf32>) -> tensor<10x6xf32>
      %t = stablehlo.tanh %p : tensor<10x6xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %t : tensor<i32>, tensor<10x6xf32>
    }
    %o = sdy.sharding_constraint %r#1 <@mesh, [{"data"}, {"model"}]> : tensor<10x6xf32>
    return %o : tensor<10x6xf32>
  }"#,
    );
    let printed = check(&text, &[data(vec![10, 6], 7), data(vec![6, 6], 8)]);
    // The loop carries padded pieces (10 rows over 4: 3 each).
    assert!(
        printed.contains("tensor<i32>, tensor<3x3xf32>"),
        "{printed}"
    );
}

#[test]
fn odd_shapes_under_random_shardings() {
    let mut rng = Rng::new(5);
    for (mesh, axes) in [(MESH_2D, &["data", "model"][..]), (MESH_1D, &["x"][..])] {
        for case in 0..16 {
            let text = product(
                mesh,
                &random_sharding(&mut rng, 2, axes),
                &random_sharding(&mut rng, 2, axes),
                &random_sharding(&mut rng, 2, axes),
            );
            check(
                &text,
                &[data(vec![10, 6], 10 + case), data(vec![6, 7], 30 + case)],
            );
            let text = reductions(mesh, &random_sharding(&mut rng, 2, axes));
            check(&text, &[data(vec![10, 6], 50 + case)]);
        }
    }
}
