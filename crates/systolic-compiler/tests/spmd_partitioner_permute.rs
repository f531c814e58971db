//! Reshards that move pieces instead of gathering them: layouts that cut every dimension into
//! as many tiles but give them to devices differently become one `collective_permute`; a
//! reverse along a split dimension reverses each piece and permutes it to the mirrored tile;
//! ops that need a dimension whole (sort, top_k, cholesky, fft) move its split onto another
//! dimension by `all_to_all` instead of gathering it. Each against the one-device
//! interpreter, with the per-device program checked for the collectives it should (and
//! should not) have, so a fallback to gathering fails the test.

use super::spmd_partitioner_check::{
    check, check_jax_golden, count, data, module, random_sharding, sharding_text, Rng,
};
use systolic_ir::OpKind;

fn permutes(k: &OpKind) -> bool {
    matches!(k, OpKind::CollectivePermute { .. })
}
fn gathers(k: &OpKind) -> bool {
    matches!(k, OpKind::AllGather { .. })
}
fn all_to_alls(k: &OpKind) -> bool {
    matches!(k, OpKind::AllToAll { .. })
}

/// `x` (of `ty`) held as `from`, constrained to `to` and returned as `to`.
fn reshard(mesh: &str, ty: &str, from: &str, to: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: {ty} {{sdy.sharding = #sdy.sharding<@mesh, {from}>}}) -> ({ty} {{sdy.sharding = #sdy.sharding<@mesh, {to}>}}) {{
    %c = sdy.sharding_constraint %x <@mesh, {to}> : {ty}
    return %c : {ty}
  }}"#
        ),
    )
}

/// The conversion is right and is exactly permutes: no gather, no all-to-all.
fn check_permute_only(text: &str, shape: Vec<i64>, seed: u32) {
    let printed = check(text, &[data(shape, seed)]);
    assert!(count(text, permutes) >= 1, "{printed}");
    assert_eq!(count(text, gathers), 0, "{printed}");
    assert_eq!(count(text, all_to_alls), 0, "{printed}");
}

#[test]
fn swapped_reordered_and_traded_axes_are_one_permute() {
    let ty = "tensor<8x12xf32>";
    let cases = [
        // An axis swapped for another of the same size.
        (r#""x"=2, "y"=2"#, r#"[{"x"}, {}]"#, r#"[{"y"}, {}]"#),
        // The axes of a dimension reordered.
        (
            r#""x"=2, "y"=4"#,
            r#"[{"x", "y"}, {}]"#,
            r#"[{"y", "x"}, {}]"#,
        ),
        // Two dimensions trading axes of equal size.
        (r#""x"=2, "y"=2"#, r#"[{"x"}, {"y"}]"#, r#"[{"y"}, {"x"}]"#),
        // Sub-axes of one axis trading places (a 1-D mesh).
        (
            r#""x"=4"#,
            r#"[{"x":(1)2}, {"x":(2)2}]"#,
            r#"[{"x":(2)2}, {"x":(1)2}]"#,
        ),
        // One axis for another on a 16-device mesh.
        (r#""x"=4, "y"=4"#, r#"[{}, {"x"}]"#, r#"[{}, {"y"}]"#),
    ];
    for (i, (mesh, from, to)) in cases.into_iter().enumerate() {
        check_permute_only(&reshard(mesh, ty, from, to), vec![8, 12], i as u32);
    }
}

#[test]
fn uneven_pieces_of_one_size_are_permuted_too() {
    // 10 rows over 4 tiles: pieces of 3 padded, tile for tile the same under both.
    let text = reshard(
        r#""x"=4, "y"=4"#,
        "tensor<10x4xf32>",
        r#"[{"x"}, {}]"#,
        r#"[{"y"}, {}]"#,
    );
    check_permute_only(&text, vec![10, 4], 3);
}

#[test]
fn a_swap_next_to_a_slice_is_a_slice_and_a_permute() {
    // Rows trade "x" for "y" while the columns gain "z": the columns are sliced locally,
    // then one permute.
    let text = reshard(
        r#""x"=2, "y"=2, "z"=2"#,
        "tensor<8x12xf32>",
        r#"[{"x"}, {}]"#,
        r#"[{"y"}, {"z"}]"#,
    );
    check_permute_only(&text, vec![8, 12], 5);
}

#[test]
fn a_finer_target_is_a_local_slice_and_a_permute() {
    // Rows over "x" (2 tiles) → over "y" (4): each piece halved locally, then permuted;
    // → over "y", "x" (8): quartered, then permuted.
    for (from, to) in [
        (r#"[{"x"}, {}]"#, r#"[{"y"}, {}]"#),
        (r#"[{"x"}, {}]"#, r#"[{"y", "x"}, {}]"#),
    ] {
        let text = reshard(r#""x"=2, "y"=4"#, "tensor<16x8xf32>", from, to);
        check_permute_only(&text, vec![16, 8], 8);
    }
}

#[test]
fn dropping_a_major_axis_permutes_then_gathers_the_minor_end() {
    // {"x", "y"} → {"y"}: "y" put first by a permute, then only "x" gathered (not the
    // whole dimension).
    let text = reshard(
        r#""x"=2, "y"=4"#,
        "tensor<16x4xf32>",
        r#"[{"x", "y"}, {}]"#,
        r#"[{"y"}, {}]"#,
    );
    let printed = check(&text, &[data(vec![16, 4], 6)]);
    assert_eq!(count(&text, permutes), 1, "{printed}");
    assert_eq!(count(&text, gathers), 1, "{printed}");
    assert!(printed.contains("tensor<4x4xf32>"), "{printed}");
    assert!(!printed.contains("tensor<16x4xf32>"), "{printed}");
}

/// Random pairs of layouts whose conversion is a permutation: a random sharding over axes
/// of equal size, its axes renamed by a random permutation of the mesh's axes and reordered
/// within each dimension.
#[test]
fn random_permutations_of_layouts_on_1d_2d_and_3d_meshes() {
    let mut rng = Rng::new(11);
    let shape = [8i64, 4, 8];
    let ty = "tensor<8x4x8xf32>";
    let mut checked = 0;
    for (mesh, axes, size) in [
        (r#""a"=2, "b"=2"#, &["a", "b"][..], 2),
        (r#""a"=2, "b"=2, "c"=2"#, &["a", "b", "c"][..], 2),
        (r#""a"=4, "b"=4"#, &["a", "b"][..], 4),
    ] {
        for case in 0..12 {
            let mut dims: Vec<Vec<&str>> = vec![vec![]; shape.len()];
            for &a in axes {
                let k = rng.below(shape.len() + 1);
                if k < shape.len() {
                    dims[k].push(a);
                }
            }
            // Each dimension's tiles must divide it (evenly here; uneven is tested above).
            let tiles = |d: &Vec<&str>| -> i64 { d.iter().map(|_| size).product() };
            if dims.iter().zip(shape).any(|(d, n)| n % tiles(d) != 0) {
                continue;
            }
            let mut renamed: Vec<&str> = axes.to_vec();
            for i in (1..renamed.len()).rev() {
                renamed.swap(i, rng.below(i + 1));
            }
            let rename = |a: &str| renamed[axes.iter().position(|b| *b == a).unwrap()];
            let mut target: Vec<Vec<&str>> = dims
                .iter()
                .map(|d| d.iter().map(|a| rename(a)).collect())
                .collect();
            for d in &mut target {
                if d.len() > 1 && rng.below(2) == 0 {
                    d.reverse();
                }
            }
            if target == dims {
                continue;
            }
            let text = reshard(mesh, ty, &sharding_text(&dims), &sharding_text(&target));
            check_permute_only(&text, shape.to_vec(), case);
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} cases were permutations");
}

/// Any pair of layouts, even or not: the conversion (all-to-all, slices, permutes, gathers
/// in whatever mix) gives the value back exactly.
#[test]
fn random_pairs_of_layouts_convert_exactly() {
    let mut rng = Rng::new(23);
    for (mesh, axes) in [
        (r#""x"=2, "y"=4"#, &["x", "y"][..]),
        (r#""a"=2, "b"=2, "c"=2"#, &["a", "b", "c"][..]),
    ] {
        for case in 0..30 {
            let from = random_sharding(&mut rng, 3, axes);
            let to = random_sharding(&mut rng, 3, axes);
            let text = reshard(mesh, "tensor<8x12x6xf32>", &from, &to);
            check(&text, &[data(vec![8, 12, 6], 40 + case)]);
        }
    }
}

#[test]
fn sub_axes_convert_exactly() {
    // A part of "x" on one dimension, all of "x" wanted on another (and the like): no axis
    // may be taken twice on the way.
    for (from, to) in [
        (r#"[{}, {"x":(2)2}]"#, r#"[{"x"}, {}]"#),
        (r#"[{}, {"x":(1)2}]"#, r#"[{"x"}, {}]"#),
        (r#"[{"x":(1)2}, {"x":(2)2}]"#, r#"[{"x"}, {}]"#),
        (r#"[{"x"}, {}]"#, r#"[{"x":(2)2}, {"x":(1)2}]"#),
        (r#"[{"x":(2)2}, {"y"}]"#, r#"[{"y"}, {"x"}]"#),
    ] {
        let text = reshard(r#""x"=4, "y"=2"#, "tensor<8x8xf32>", from, to);
        check(&text, &[data(vec![8, 8], 21)]);
    }
    // Random pairs where "x" is whole or in halves placed independently.
    let mut rng = Rng::new(31);
    let random = |rng: &mut Rng| {
        let halves = [r#""x":(1)2"#, r#""x":(2)2"#];
        let mut atoms = vec![r#""y""#];
        if rng.below(2) == 0 {
            atoms.push(r#""x""#);
        } else {
            atoms.extend(halves);
        }
        let mut dims: Vec<Vec<&str>> = vec![vec![]; 3];
        for a in atoms {
            let k = rng.below(4);
            if k < 3 {
                dims[k].push(a);
            }
        }
        let dims: Vec<String> = dims
            .iter()
            .map(|d| format!("{{{}}}", d.join(", ")))
            .collect();
        format!("[{}]", dims.join(", "))
    };
    for case in 0..40 {
        let (from, to) = (random(&mut rng), random(&mut rng));
        let text = reshard(r#""x"=4, "y"=2"#, "tensor<8x8x6xf32>", &from, &to);
        check(&text, &[data(vec![8, 8, 6], 50 + case)]);
    }
}

#[test]
fn a_reverse_along_a_split_dimension_permutes_mirrored_pieces() {
    for (mesh, held) in [
        (r#""x"=4"#, r#"[{"x"}, {}]"#),
        (r#""x"=2, "y"=4"#, r#"[{"x", "y"}, {}]"#),
        (r#""x"=2, "y"=4"#, r#"[{"y"}, {"x"}]"#),
    ] {
        let text = module(
            mesh,
            &format!(
                r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {held}>}}) -> (tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {held}>}}) {{
    %0 = stablehlo.reverse %x, dims = [0, 1] : tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }}"#
            ),
        );
        let printed = check(&text, &[data(vec![16, 8], 9)]);
        assert_eq!(count(&text, permutes), 1, "{printed}");
        assert_eq!(count(&text, gathers), 0, "{printed}");
    }
    // Uneven rows (10 over 4) do not mirror tile onto tile: gathered, still right.
    let uneven = module(
        r#""x"=4"#,
        r#"func.func public @main(%x: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.reverse %x, dims = [0] : tensor<10x8xf32>
    return %0 : tensor<10x8xf32>
  }"#,
    );
    check(&uneven, &[data(vec![10, 8], 10)]);
}

fn sort_program(mesh: &str, held: &str) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<8x64xf32> {{sdy.sharding = #sdy.sharding<@mesh, {held}>}}) -> (tensor<8x64xf32> {{sdy.sharding = #sdy.sharding<@mesh, {held}>}}) {{
    %0 = "stablehlo.sort"(%x) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }}) {{dimension = 1 : i64}} : (tensor<8x64xf32>) -> tensor<8x64xf32>
    return %0 : tensor<8x64xf32>
  }}"#
        ),
    )
}

#[test]
fn a_sort_along_a_split_dimension_moves_the_split_aside() {
    // [8, 64] split along the sorted dimension on 8 devices: to the rows and back by
    // all-to-all, each device holding 1/8 throughout.
    let text = sort_program(r#""x"=8"#, r#"[{}, {"x"}]"#);
    let printed = check(&text, &[data(vec![8, 64], 12)]);
    assert_eq!(count(&text, all_to_alls), 2, "{printed}");
    assert_eq!(count(&text, gathers), 0, "{printed}");
    assert!(!printed.contains("tensor<8x64xf32>"), "{printed}");
    // Two axes, the rows (8) divisible by their 8 tiles.
    let text = sort_program(r#""x"=2, "y"=4"#, r#"[{}, {"y", "x"}]"#);
    check(&text, &[data(vec![8, 64], 13)]);
    assert_eq!(count(&text, gathers), 0);
    // Rows already split over another axis: the sorted split joins its minor end (one
    // all-to-all there, one back).
    let text = sort_program(r#""x"=2, "y"=4"#, r#"[{"x"}, {"y"}]"#);
    let printed = check(&text, &[data(vec![8, 64], 14)]);
    assert_eq!(count(&text, all_to_alls), 2, "{printed}");
    assert_eq!(count(&text, gathers), 0, "{printed}");
    // Rows their tiles would not divide (8 rows, 2 x 8 tiles): the sorted dimension is
    // gathered, still right.
    let text = sort_program(r#""x"=2, "y"=8"#, r#"[{"x"}, {"y"}]"#);
    check(&text, &[data(vec![8, 64], 17)]);
}

#[test]
fn top_k_and_batched_cholesky_move_their_split_aside() {
    let text = module(
        r#""x"=4"#,
        r#"func.func public @main(%a: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %m: tensor<4x4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<8x2xi32>, tensor<4x4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) {
    %v, %i = chlo.top_k(%a, k = 2) : tensor<8x16xf32> -> (tensor<8x2xf32>, tensor<8x2xi32>)
    %t = stablehlo.transpose %m, dims = [0, 2, 1] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %p = stablehlo.dot_general %m, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %e = stablehlo.constant dense<4.000000e+00> : tensor<4x4x4xf32>
    %q = stablehlo.add %p, %e : tensor<4x4x4xf32>
    %s = sdy.sharding_constraint %q <@mesh, [{}, {"x"}, {}]> : tensor<4x4x4xf32>
    %c = "stablehlo.cholesky"(%s) {lower = true} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    return %v, %i, %c : tensor<8x2xf32>, tensor<8x2xi32>, tensor<4x4x4xf32>
  }"#,
    );
    let inputs = [data(vec![8, 16], 15), data(vec![4, 4, 4], 16)];
    let printed = check(&text, &inputs);
    // top_k's operand to the rows (one all-to-all), the result already held there;
    // cholesky's operand to the batch and back (two).
    assert!(count(&text, all_to_alls) >= 3, "{printed}");
    let cholesky_whole = printed
        .lines()
        .any(|l| l.contains("stablehlo.cholesky") && l.contains("tensor<4x4x4xf32>"));
    assert!(!cholesky_whole, "{printed}");
    let top_k_whole = printed
        .lines()
        .any(|l| l.contains("top_k") && l.contains("tensor<8x16xf32>"));
    assert!(!top_k_whole, "{printed}");
}

#[test]
fn a_batched_triangular_solve_moves_its_split_aside() {
    // L (batched, lower) and the right-hand sides split along their rows, which the solve
    // needs whole: both to the batch by all-to-all, the solution back.
    let text = module(
        r#""x"=4"#,
        r#"func.func public @main(%m: tensor<4x4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}, %b: tensor<4x4x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<4x4x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) {
    %t = stablehlo.transpose %m, dims = [0, 2, 1] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %p = stablehlo.dot_general %m, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %e = stablehlo.constant dense<4.000000e+00> : tensor<4x4x4xf32>
    %q = stablehlo.add %p, %e : tensor<4x4x4xf32>
    %l = "stablehlo.cholesky"(%q) {lower = true} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %s = sdy.sharding_constraint %l <@mesh, [{}, {"x"}, {}]> : tensor<4x4x4xf32>
    %x = "stablehlo.triangular_solve"(%s, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4x4xf32>, tensor<4x4x3xf32>) -> tensor<4x4x3xf32>
    return %x : tensor<4x4x3xf32>
  }"#,
    );
    let inputs = [data(vec![4, 4, 4], 18), data(vec![4, 4, 3], 19)];
    let printed = check(&text, &inputs);
    let solve_whole = printed
        .lines()
        .any(|l| l.contains("triangular_solve") && l.contains("tensor<4x4x3xf32>"));
    assert!(!solve_whole, "{printed}");
    assert!(printed.contains("all_to_all"), "{printed}");
}

#[test]
fn jax_sort_along_a_sharded_axis() {
    let (_, printed) = check_jax_golden("permute", "sort_sharded_axis", 1e-6);
    assert!(printed.contains("all_to_all"), "{printed}");
    assert!(!printed.contains("all_gather"), "{printed}");
}

#[test]
fn jax_constraints_that_reassign_tiles() {
    // P(("x", "y"), None) → P(("y", "x"), None) on a 2x4 mesh: one permute.
    let (_, printed) = check_jax_golden("permute", "constraint_reorder", 1e-6);
    assert!(printed.contains("collective_permute"), "{printed}");
    assert!(!printed.contains("all_gather"), "{printed}");
    // P("x", None) → P("y", None) on a 2x4 mesh (tiles of 2 and of 4): each piece halved
    // locally, then one permute (as XLA does it).
    let (_, printed) = check_jax_golden("permute", "constraint_x_to_y", 1e-6);
    assert!(printed.contains("collective_permute"), "{printed}");
    assert!(!printed.contains("all_gather"), "{printed}");
}
