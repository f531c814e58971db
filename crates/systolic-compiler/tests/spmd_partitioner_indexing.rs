//! `partition` on gather and scatter: an embedding lookup with the table split by vocabulary
//! (a masked local gather and a sum), by its feature dimension and by the ids' batch; the
//! embedding gradient's scatter-add mirrored; indices out of range; random shardings on 1-D
//! and 2-D meshes; all against the one-device interpreter.

use super::spmd_partitioner_check::{check, count, data, module, random_sharding, Rng};
use systolic_ir::{DType, OpKind, Tensor};

const MESH_2D: &str = r#""data"=4, "model"=2"#;
const MESH_1D: &str = r#""x"=8"#;

/// Ids in [-3, 67): a few out of the table's 64 rows on either side (the gather clamps
/// them, the scatter drops them).
fn ids(shape: Vec<i64>, seed: i64) -> Tensor {
    let n: i64 = shape.iter().product();
    let v = (0..n).map(|i| (i * 37 + seed * 11) % 70 - 3).collect();
    Tensor::from_i64(shape, DType::I32, v).unwrap()
}

/// table[64, 16] looked up by ids[16, 1] (the form of `jnp.take(table, ids, axis=0)`), then
/// scaled, so the lookup's result feeds an elementwise op.
fn lookup(mesh: &str, st: &str, si: &str, so: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%t: tensor<64x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {st}>}}, %i: tensor<16x1xi32> {{sdy.sharding = #sdy.sharding<@mesh, {si}>}}) -> (tensor<16x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {so}>}}) {{
    %g = "stablehlo.gather"(%t, %i) {{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}} : (tensor<64x16xf32>, tensor<16x1xi32>) -> tensor<16x16xf32>
    %two = stablehlo.constant dense<2.0> : tensor<16x16xf32>
    %y = stablehlo.multiply %g, %two : tensor<16x16xf32>
    return %y : tensor<16x16xf32>
  }}"#
        ),
    )
}

#[test]
fn a_vocabulary_sharded_lookup_gathers_locally_and_sums() {
    let text = lookup(
        MESH_2D,
        r#"[{"model"}, {}]"#,
        r#"[{"data"}, {}]"#,
        r#"[{"data"}, {}]"#,
    );
    check(&text, &[data(vec![64, 16], 1), ids(vec![16, 1], 1)]);
    // The table is never gathered: each device reads its rows, one all-reduce sums.
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 0);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllReduce { .. })), 1);
    // Vocabulary over both axes, ids whole.
    let both = lookup(
        MESH_2D,
        r#"[{"data", "model"}, {}]"#,
        "[{}, {}]",
        "[{}, {}]",
    );
    check(&both, &[data(vec![64, 16], 2), ids(vec![16, 1], 2)]);
    assert_eq!(count(&both, |k| matches!(k, OpKind::AllGather { .. })), 0);
}

#[test]
fn a_feature_sharded_lookup_runs_on_pieces() {
    // The features pass through the gather: no collective at all.
    let text = lookup(
        MESH_2D,
        r#"[{}, {"model"}]"#,
        r#"[{"data"}, {}]"#,
        r#"[{"data"}, {"model"}]"#,
    );
    check(&text, &[data(vec![64, 16], 3), ids(vec![16, 1], 3)]);
    let collective = |k: &OpKind| {
        matches!(
            k,
            OpKind::AllGather { .. } | OpKind::AllReduce { .. } | OpKind::AllToAll { .. }
        )
    };
    assert_eq!(count(&text, collective), 0);
}

#[test]
fn lookups_under_random_shardings() {
    let mut rng = Rng::new(2);
    for (mesh, axes) in [(MESH_2D, &["data", "model"][..]), (MESH_1D, &["x"][..])] {
        for case in 0..12 {
            let st = random_sharding(&mut rng, 2, axes);
            // The index vector dimension (size 1) stays whole.
            let si = format!(
                "{}, {{}}]",
                random_sharding(&mut rng, 1, axes).trim_end_matches(']')
            );
            let so = random_sharding(&mut rng, 2, axes);
            let text = lookup(mesh, &st, &si, &so);
            check(
                &text,
                &[data(vec![64, 16], 10 + case), ids(vec![16, 1], case as i64)],
            );
        }
    }
}

#[test]
fn an_implicit_index_vector_and_two_indexed_dimensions() {
    // ids[16] with the index vector dimension implicit; and a point lookup t[i, j] of a 2-D
    // table split over both of its indexed dimensions.
    let text = module(
        MESH_2D,
        r#"func.func public @main(%t: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %i: tensor<16xi32>, %p: tensor<16x2xi32>) -> (tensor<16x16xf32>, tensor<16xf32>) {
    %g = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>} : (tensor<64x16xf32>, tensor<16xi32>) -> tensor<16x16xf32>
    %q = "stablehlo.gather"(%t, %p) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<64x16xf32>, tensor<16x2xi32>) -> tensor<16xf32>
    return %g, %q : tensor<16x16xf32>, tensor<16xf32>
  }"#,
    );
    let points = {
        let n = 32;
        let v = (0..n).map(|i| (i * 13) % 80 - 5).collect();
        Tensor::from_i64(vec![16, 2], DType::I32, v).unwrap()
    };
    check(&text, &[data(vec![64, 16], 4), ids(vec![16], 4), points]);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 0);
}

/// The embedding gradient: updates[16, 16] added into zeros[64, 16] at ids[16, 1] (with
/// repeats and ids out of range), then added to the table.
fn scatter_add(mesh: &str, st: &str, si: &str, su: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%t: tensor<64x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {st}>}}, %i: tensor<16x1xi32> {{sdy.sharding = #sdy.sharding<@mesh, {si}>}}, %u: tensor<16x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {su}>}}) -> (tensor<64x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {st}>}}) {{
    %z = stablehlo.constant dense<0.0> : tensor<64x16xf32>
    %s = "stablehlo.scatter"(%z, %i, %u) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }}) : (tensor<64x16xf32>, tensor<16x1xi32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %y = stablehlo.add %t, %s : tensor<64x16xf32>
    return %y : tensor<64x16xf32>
  }}"#
        ),
    )
}

/// Ids with repeats: two updates land on each of a few rows.
fn repeated_ids() -> Tensor {
    let v = (0..16)
        .map(|i| [5, 70, 33, -1, 5, 63, 0, 33][i % 8])
        .collect();
    Tensor::from_i64(vec![16, 1], DType::I32, v).unwrap()
}

#[test]
fn the_embedding_gradient_scatters_into_each_devices_rows() {
    // Table by vocabulary over "model", the batch of updates over "data": each device adds
    // its updates that land in its rows (ids shifted), then one sum over "data".
    let text = scatter_add(
        MESH_2D,
        r#"[{"model"}, {}]"#,
        r#"[{"data"}, {}]"#,
        r#"[{"data"}, {}]"#,
    );
    let inputs = [data(vec![64, 16], 5), repeated_ids(), data(vec![16, 16], 6)];
    check(&text, &inputs);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 0);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllReduce { .. })), 1);
    // Features split alike in the table and the updates: no collective at all.
    let features = scatter_add(
        MESH_2D,
        r#"[{}, {"model"}]"#,
        "[{}, {}]",
        r#"[{}, {"model"}]"#,
    );
    check(&features, &inputs);
    assert_eq!(
        count(&features, |k| matches!(k, OpKind::AllReduce { .. })),
        0
    );
    assert_eq!(
        count(&features, |k| matches!(k, OpKind::AllGather { .. })),
        0
    );
}

#[test]
fn scatters_under_random_shardings() {
    let mut rng = Rng::new(3);
    for (mesh, axes) in [(MESH_2D, &["data", "model"][..]), (MESH_1D, &["x"][..])] {
        for case in 0..12 {
            let st = random_sharding(&mut rng, 2, axes);
            let si = format!(
                "{}, {{}}]",
                random_sharding(&mut rng, 1, axes).trim_end_matches(']')
            );
            let su = random_sharding(&mut rng, 2, axes);
            let text = scatter_add(mesh, &st, &si, &su);
            let inputs = [
                data(vec![64, 16], 20 + case),
                ids(vec![16, 1], case as i64),
                data(vec![16, 16], 40 + case),
            ];
            check(&text, &inputs);
        }
    }
}

#[test]
fn an_fsdp_embedding_gradient_is_reduce_scattered_not_gathered() {
    // A 16-row table with its features split over "data" (FSDP), 64 updates with their batch
    // over "data" too (more update rows than the table has): each device scatters its
    // updates into the identity, a reduce-scatter over "data" leaves it its feature columns,
    // and the table is added there — nothing gathered.
    let text = module(
        MESH_2D,
        r#"func.func public @main(%t: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}, %i: tensor<64x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %u: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}) {
    %z = stablehlo.constant dense<0.0> : tensor<16x16xf32>
    %s = "stablehlo.scatter"(%z, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) : (tensor<16x16xf32>, tensor<64x1xi32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    %y = stablehlo.add %t, %s : tensor<16x16xf32>
    return %y : tensor<16x16xf32>
  }"#,
    );
    let inputs = [
        data(vec![16, 16], 7),
        ids(vec![64, 1], 7),
        data(vec![64, 16], 8),
    ];
    let printed = check(&text, &inputs);
    assert_eq!(
        count(&text, |k| matches!(k, OpKind::AllGather { .. })),
        0,
        "{printed}"
    );
    assert_eq!(
        count(&text, |k| matches!(k, OpKind::ReduceScatter { .. })),
        1
    );
}

#[test]
fn an_fsdp_table_is_looked_up_where_it_lies() {
    // The table's features split over "data" (FSDP) and the ids' batch over "data": the
    // lookup runs on the feature columns each device holds (the small ids gathered) and the
    // result moves to batch rows by one all-to-all — the table is never gathered.
    let text = lookup(
        MESH_2D,
        r#"[{}, {"data"}]"#,
        r#"[{"data"}, {}]"#,
        r#"[{"data"}, {}]"#,
    );
    let printed = check(&text, &[data(vec![64, 16], 9), ids(vec![16, 1], 9)]);
    let table_gathered = |k: &OpKind| {
        matches!(
            k,
            OpKind::AllGather {
                all_gather_dim: 1,
                ..
            }
        )
    };
    assert_eq!(count(&text, table_gathered), 0, "{printed}");
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllToAll { .. })), 1);
}
