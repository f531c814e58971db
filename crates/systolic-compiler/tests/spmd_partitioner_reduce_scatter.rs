//! `partition` completing partial results by `reduce_scatter`: a row-parallel product whose
//! result is split (sequence parallelism), a product whose result claims the contraction's
//! axis, reductions held split over their reduced axis; the collective is checked to appear
//! (and the all-reduce, all-gather it replaces not to), numerics against the one-device
//! interpreter; an FSDP weight is still gathered instead; random shardings of a product
//! and a reduction on 1-D and 2-D meshes.

use super::spmd_partitioner_check::{check, count, data, module, random_sharding, Rng};
use systolic_ir::OpKind;

const MESH_2D: &str = r#""data"=4, "model"=2"#;
const MESH_1D: &str = r#""x"=8"#;

fn is_rs(k: &OpKind) -> bool {
    matches!(k, OpKind::ReduceScatter { .. })
}
fn is_ar(k: &OpKind) -> bool {
    matches!(k, OpKind::AllReduce { .. })
}
fn is_ag(k: &OpKind) -> bool {
    matches!(k, OpKind::AllGather { .. })
}

fn product(mesh: &str, sx: &str, sw: &str, so: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<16x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}, %w: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sw}>}}) -> (tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {so}>}}) {{
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.tanh %0 : tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }}"#
        ),
    )
}

#[test]
fn a_row_parallel_product_with_a_split_result_reduce_scatters() {
    let inputs = [data(vec![16, 16], 1), data(vec![16, 8], 2)];
    // Rows of the result over "model", the contraction over "model".
    let text = product(
        MESH_2D,
        r#"[{}, {"model"}]"#,
        r#"[{"model"}, {}]"#,
        r#"[{"model"}, {}]"#,
    );
    check(&text, &inputs);
    assert_eq!(count(&text, is_rs), 1);
    assert_eq!(count(&text, is_ar), 0);
    assert_eq!(count(&text, is_ag), 0);
    // Rows over "data" then "model": only "model" is scattered.
    let both = product(
        MESH_2D,
        r#"[{"data"}, {"model"}]"#,
        r#"[{"model"}, {}]"#,
        r#"[{"data", "model"}, {}]"#,
    );
    check(&both, &inputs);
    assert_eq!(count(&both, is_rs), 1);
    assert_eq!(count(&both, is_ar), 0);
    assert_eq!(count(&both, is_ag), 0);
    // The result's columns claim the contraction's axis: partial sums scattered onto them
    // rather than both operands gathered.
    let columns = product(
        MESH_2D,
        r#"[{"data"}, {"model"}]"#,
        r#"[{"model"}, {}]"#,
        r#"[{"data"}, {"model"}]"#,
    );
    check(&columns, &inputs);
    assert_eq!(count(&columns, is_rs), 1);
    assert_eq!(count(&columns, is_ag), 0);
}

#[test]
fn an_fsdp_weight_is_gathered_not_the_activations() {
    // x[B@data, D] · w[D@data, H@model]: scattering over "data" would need x gathered along
    // B, larger than the weight: the weight is gathered.
    let text = module(
        MESH_2D,
        r#"func.func public @main(%x: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %w: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x8xf32>, tensor<8x16xf32>) -> tensor<64x16xf32>
    return %0 : tensor<64x16xf32>
  }"#,
    );
    check(&text, &[data(vec![64, 8], 3), data(vec![8, 16], 4)]);
    assert_eq!(count(&text, is_rs), 0);
    assert_eq!(count(&text, is_ag), 1);
}

fn reduction(mesh: &str, sx: &str, so: &str, reducer: &str, init: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}) -> (tensor<8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {so}>}}) {{
    %i = stablehlo.constant dense<{init}> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{reducer} across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }}"#
        ),
    )
}

#[test]
fn reductions_held_split_over_their_reduced_axis_reduce_scatter() {
    let inputs = [data(vec![16, 8], 5)];
    for (reducer, init) in [("add", "0.0"), ("maximum", "0xFF800000")] {
        let text = reduction(MESH_2D, r#"[{"data"}, {}]"#, r#"[{"data"}]"#, reducer, init);
        check(&text, &inputs);
        assert_eq!(count(&text, is_rs), 1, "{reducer}");
        assert_eq!(count(&text, is_ar), 0, "{reducer}");
        // Rows over both axes, the result over "model" only: "model" is scattered,
        // "data" summed by an all-reduce.
        let text = reduction(
            MESH_2D,
            r#"[{"data", "model"}, {}]"#,
            r#"[{"model"}]"#,
            reducer,
            init,
        );
        check(&text, &inputs);
        assert_eq!(count(&text, is_rs), 1, "{reducer}");
        assert_eq!(count(&text, is_ar), 1, "{reducer}");
    }
}

#[test]
fn products_and_reductions_under_random_shardings() {
    let mut rng = Rng::new(4);
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
                &[data(vec![16, 16], 10 + case), data(vec![16, 8], 30 + case)],
            );
            let text = reduction(
                mesh,
                &random_sharding(&mut rng, 2, axes),
                &random_sharding(&mut rng, 1, axes),
                "add",
                "0.0",
            );
            check(&text, &[data(vec![16, 8], 50 + case)]);
        }
    }
}

/// FSDP over two axes: the weight gradient `xᵀ·dy` (the batch contracted) held split like
/// the weight, over both axes of one dimension, contracts locally and reduce-scatters both
/// axes at once, instead of gathering the activations whole onto every device.
#[test]
fn an_fsdp_weight_gradient_over_two_axes_reduce_scatters_both() {
    let text = module(
        MESH_2D,
        r#"func.func public @main(%x: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}, %dy: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}) -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}) {
    %0 = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<64x16xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }"#,
    );
    check(&text, &[data(vec![64, 16], 11), data(vec![64, 8], 12)]);
    assert_eq!(count(&text, is_ag), 0, "the activations are not gathered");
    assert_eq!(count(&text, is_rs), 1);
    assert_eq!(count(&text, is_ar), 0);
}
