//! `partition` of windows along split dimensions: convolutions with the image split over its
//! spatial dimensions (SAME, strided, dilated; 1-D and 2-D meshes, uneven pieces) and
//! poolings exchange halos with `collective_permute` instead of gathering the image;
//! cumulative windows (cumsum, cumprod, cummax, forward and reverse) run on pieces plus the
//! earlier pieces' totals; windows whose pieces do not line up (VALID, halos wider than a
//! piece, transposed convolutions) are gathered. All against the program run whole.

use super::spmd_partitioner_check::{check, check_jax_golden, data, module, sharding_text};
use systolic_ir::Tensor;

const MESH_1D: &str = r#""x"=4"#;
const MESH_2D: &str = r#""data"=4, "model"=2"#;

fn sdy(s: &str) -> String {
    format!("{{sdy.sharding = #sdy.sharding<@mesh, {s}>}}")
}

fn ty(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("tensor<{}xf32>", dims.join("x"))
}

/// One NHWC convolution of `x` (held as `sx`) by a replicated `k`, its result held as `so`.
struct Conv<'a> {
    x: &'a [i64],
    k: &'a [i64],
    out: &'a [i64],
    stride: [i64; 2],
    pad: [(i64, i64); 2],
    lhs_dilate: [i64; 2],
    rhs_dilate: [i64; 2],
    /// The image and the convolution's result constrained to `sx` and `so` (propagation
    /// makes no uneven pieces: they come from shardings a user writes).
    constrained: bool,
}

impl Conv<'_> {
    fn program(&self, mesh: &str, sx: &str, so: &str) -> String {
        let [(a, b), (c, d)] = self.pad;
        // Constrained: the image is exp(x), held as `sx` (its pieces' padding then 1, not
        // the 0 the split leaves, so only masking it gets the last real rows right).
        let image = if self.constrained {
            format!(
                "%e = stablehlo.exponential %x : {tx}\n    %xc = sdy.sharding_constraint %e <@mesh, {sx}> : {tx}",
                tx = ty(self.x)
            )
        } else {
            format!("%xc = stablehlo.abs %x : {}", ty(self.x))
        };
        let constraint = if self.constrained {
            format!(
                "sdy.sharding_constraint %c <@mesh, {so}> : {}",
                ty(self.out)
            )
        } else {
            format!("stablehlo.abs %c : {}", ty(self.out))
        };
        module(
            mesh,
            &format!(
                r#"func.func public @main(%x: {tx} {sx}, %k: {tk}) -> ({to} {so}) {{
    {image}
    %c = stablehlo.convolution(%xc, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{s0}, {s1}], pad = [[{a}, {b}], [{c}, {d}]], lhs_dilate = [{l0}, {l1}], rhs_dilate = [{r0}, {r1}]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({tx}, {tk}) -> {to}
    %0 = {constraint}
    %1 = stablehlo.tanh %0 : {to}
    return %1 : {to}
  }}"#,
                tx = ty(self.x),
                tk = ty(self.k),
                to = ty(self.out),
                sx = sdy(sx),
                so = sdy(so),
                constraint = constraint,
                image = image,
                s0 = self.stride[0],
                s1 = self.stride[1],
                l0 = self.lhs_dilate[0],
                l1 = self.lhs_dilate[1],
                r0 = self.rhs_dilate[0],
                r1 = self.rhs_dilate[1],
            ),
        )
    }

    /// Checked against the whole program; the per-device module.
    fn check(&self, mesh: &str, sx: &str, so: &str) -> String {
        let inputs = [data(self.x.to_vec(), 1), data(self.k.to_vec(), 2)];
        check(&self.program(mesh, sx, so), &inputs)
    }
}

const SAME_3X3: Conv = Conv {
    x: &[2, 16, 12, 3],
    k: &[3, 3, 3, 4],
    out: &[2, 16, 12, 4],
    stride: [1, 1],
    pad: [(1, 1), (1, 1)],
    lhs_dilate: [1, 1],
    rhs_dilate: [1, 1],
    constrained: false,
};

/// Halo cases must neither gather the image nor fall back to computing it whole.
fn assert_halo(printed: &str) {
    assert!(printed.contains("collective_permute"), "{printed}");
    assert!(!printed.contains("all_gather"), "{printed}");
}

#[test]
fn same_convolutions_exchange_halos_along_a_split_height() {
    let h = r#"[{}, {"x"}, {}, {}]"#;
    assert_halo(&SAME_3X3.check(MESH_1D, h, h));
    // Height and width split over two axes: the second exchange carries the first's rows,
    // so corners arrive too.
    let hw = r#"[{}, {"data"}, {"model"}, {}]"#;
    assert_halo(&SAME_3X3.check(MESH_2D, hw, hw));
    // The height over both axes (8 tiles of 2 rows), the batch replicated.
    let both = r#"[{}, {"data", "model"}, {}, {}]"#;
    assert_halo(&SAME_3X3.check(MESH_2D, both, both));
    // Batch over one axis, height over the other.
    let bh = r#"[{"model"}, {"data"}, {}, {}]"#;
    assert_halo(&SAME_3X3.check(MESH_2D, bh, bh));
}

#[test]
fn uneven_heights_exchange_halos_of_padded_pieces() {
    // 10 rows over 4 devices: pieces of 3, 3, 3 and 1 padded to 3 (tanh makes the padding
    // of the result's pieces arbitrary, and the input's padding is made zero before the
    // exchange, or the last real row would read it).
    let conv = Conv {
        x: &[2, 10, 6, 3],
        out: &[2, 10, 6, 4],
        constrained: true,
        ..SAME_3X3
    };
    // The tanh after it runs whole (propagation passes no uneven split to it), so only the
    // input (3 channels) must not be gathered.
    let input_gathered = |printed: &str| {
        printed
            .lines()
            .any(|l| l.contains("all_gather") && l.contains("x3xf32>) ->"))
    };
    let h = r#"[{}, {"x"}, {}, {}]"#;
    let printed = conv.check(MESH_1D, h, h);
    assert!(printed.contains("collective_permute"), "{printed}");
    assert!(!input_gathered(&printed), "{printed}");
    let hw = r#"[{}, {"data"}, {"model"}, {}]"#;
    let printed = conv.check(MESH_2D, hw, hw);
    assert!(printed.contains("collective_permute"), "{printed}");
    assert!(!input_gathered(&printed), "{printed}");
}

#[test]
fn strided_and_dilated_convolutions_exchange_what_their_windows_read() {
    // 3x3 stride 2, SAME (padding (0, 1)): pieces of 4 rows give 2 outputs each, reading one
    // row of the next piece.
    let strided = Conv {
        out: &[2, 8, 6, 4],
        stride: [2, 2],
        pad: [(0, 1), (0, 1)],
        ..SAME_3X3
    };
    let h = r#"[{}, {"x"}, {}, {}]"#;
    assert_halo(&strided.check(MESH_1D, h, h));
    let hw = r#"[{}, {"data"}, {"model"}, {}]"#;
    assert_halo(&strided.check(MESH_2D, hw, hw));
    // A 3x3 kernel dilated by 2, SAME: two rows from each side.
    let dilated = Conv {
        pad: [(2, 2), (2, 2)],
        rhs_dilate: [2, 2],
        ..SAME_3X3
    };
    assert_halo(&dilated.check(MESH_1D, h, h));
    // A 1x1 kernel with stride 2: no halo at all.
    let pointwise = Conv {
        k: &[1, 1, 3, 4],
        out: &[2, 8, 6, 4],
        stride: [2, 2],
        pad: [(0, 0), (0, 0)],
        ..SAME_3X3
    };
    let printed = pointwise.check(MESH_1D, h, h);
    assert!(!printed.contains("all_gather"), "{printed}");
    assert!(!printed.contains("collective_permute"), "{printed}");
}

#[test]
fn windows_whose_pieces_do_not_line_up_are_gathered() {
    let h = r#"[{}, {"x"}, {}, {}]"#;
    // VALID: 16 rows give 14.
    let valid = Conv {
        out: &[2, 14, 10, 4],
        pad: [(0, 0), (0, 0)],
        ..SAME_3X3
    };
    valid.check(MESH_1D, h, r#"[{}, {}, {}, {}]"#);
    // A 5x5 window over pieces of 2 rows: halos of 2 from each side reach past the
    // neighbours.
    let wide = Conv {
        x: &[2, 8, 6, 3],
        k: &[5, 5, 3, 4],
        out: &[2, 8, 6, 4],
        pad: [(2, 2), (2, 2)],
        ..SAME_3X3
    };
    let both = r#"[{}, {"data", "model"}, {}, {}]"#;
    wide.check(MESH_2D, both, both);
    // What the input gradient of a strided convolution looks like: a base-dilated window.
    let transposed = Conv {
        x: &[2, 8, 6, 3],
        out: &[2, 16, 12, 4],
        pad: [(1, 2), (1, 2)],
        lhs_dilate: [2, 2],
        ..SAME_3X3
    };
    transposed.check(MESH_1D, h, h);
    // Strided windows over uneven pieces (7 rows over 4 devices, 4 outputs).
    let odd = Conv {
        x: &[2, 7, 6, 3],
        out: &[2, 4, 3, 4],
        stride: [2, 2],
        pad: [(1, 1), (1, 1)],
        ..SAME_3X3
    };
    odd.check(MESH_1D, h, h);
}

/// A `reduce_window` of `x` (held as `sx`) with `reducer`, init `init`, window `window`,
/// strides and padding (all rank 4); the result held as `so` (and constrained to it where
/// `constrain`: propagation makes no uneven pieces, they come from shardings a user writes).
#[allow(clippy::too_many_arguments)]
fn pool(
    mesh: &str,
    x: &[i64],
    out: &[i64],
    reducer: &str,
    init: &str,
    window: [i64; 4],
    stride: [i64; 4],
    pad: [(i64, i64); 4],
    sx: &str,
    so: &str,
    constrain: bool,
) -> String {
    let result = if constrain { "%r" } else { "%0" };
    let list = |v: [i64; 4]| {
        v.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pads: Vec<String> = pad.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: {tx} {sx}) -> ({to} {so}) {{
    %init = stablehlo.constant dense<{init}> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) <{{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[{pads}]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: {w}>, window_strides = array<i64: {s}>}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = {reducer} %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }}) : ({tx}, tensor<f32>) -> {to}
    %r = sdy.sharding_constraint %0 <@mesh, {so_raw}> : {to}
    return {result} : {to}
  }}"#,
            so_raw = so,
            tx = ty(x),
            to = ty(out),
            sx = sdy(sx),
            so = sdy(so),
            pads = pads.join(", "),
            w = list(window),
            s = list(stride),
        ),
    )
}

const NINF: &str = "0xFF800000";

#[test]
fn poolings_exchange_halos_with_the_init_value_at_the_edges() {
    let x = [2, 16, 8, 3];
    let input = [data(x.to_vec(), 3)];
    let h = r#"[{}, {"x"}, {}, {}]"#;
    // 3x3 max pooling, stride 1, SAME: the edges' halos must be -inf, not the permute's
    // zeros (the inputs are negative in places, so a zero would win).
    let max3 = |mesh: &str, s: &str, x: &[i64], reducer: &str, init: &str| {
        let uneven = x[1] % 4 != 0;
        pool(
            mesh,
            x,
            x,
            reducer,
            init,
            [1, 3, 3, 1],
            [1; 4],
            [(0, 0), (1, 1), (1, 1), (0, 0)],
            s,
            s,
            uneven,
        )
    };
    assert_halo(&check(
        &max3(MESH_1D, h, &x, "stablehlo.maximum", NINF),
        &input,
    ));
    let hw = r#"[{}, {"data"}, {"model"}, {}]"#;
    assert_halo(&check(
        &max3(MESH_2D, hw, &x, "stablehlo.maximum", NINF),
        &input,
    ));
    // Sum pooling: zero padding, which the permute's zeros already are.
    assert_halo(&check(
        &max3(MESH_1D, h, &x, "stablehlo.add", "0.0"),
        &input,
    ));
    // Uneven: 10 rows over 4 devices.
    let xu = [2, 10, 8, 3];
    let printed = check(
        &max3(MESH_1D, h, &xu, "stablehlo.maximum", NINF),
        &[data(xu.to_vec(), 4)],
    );
    assert_halo(&printed);
    // 2x2 pooling with stride 2: the pieces line up, nothing to exchange.
    let printed = check(
        &pool(
            MESH_2D,
            &x,
            &[2, 8, 4, 3],
            "stablehlo.maximum",
            NINF,
            [1, 2, 2, 1],
            [1, 2, 2, 1],
            [(0, 0); 4],
            hw,
            hw,
            false,
        ),
        &input,
    );
    assert!(!printed.contains("all_gather"), "{printed}");
    assert!(!printed.contains("collective_permute"), "{printed}");
}

/// A cumulative `reduce_window` along dimension 0 of `x` (`n` rows), as JAX lowers
/// `cumsum` & co. for TPU (the init through a broadcast, as JAX writes it); the result
/// constrained to `s` (uneven pieces come from shardings a user writes).
fn cumulative(mesh: &str, x: &[i64], reducer: &str, init: &str, reverse: bool, s: &str) -> String {
    let n = x[0];
    let pad = if reverse {
        format!("[0, {}]", n - 1)
    } else {
        format!("[{}, 0]", n - 1)
    };
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: {tx} {s}) -> ({tx} {s}) {{
    %c = stablehlo.constant dense<{init}> : tensor<f32>
    %init = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) <{{base_dilations = array<i64: 1, 1>, padding = dense<[{pad}, [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: {n}, 1>, window_strides = array<i64: 1, 1>}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = {reducer} %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }}) : ({tx}, tensor<f32>) -> {tx}
    %r = sdy.sharding_constraint %0 <@mesh, {s_raw}> : {tx}
    return %r : {tx}
  }}"#,
            tx = ty(x),
            s = sdy(s),
            s_raw = s,
        ),
    )
}

#[test]
fn cumulative_windows_combine_the_earlier_pieces_totals() {
    let cases = [
        ("stablehlo.add", "0.0"),
        ("stablehlo.multiply", "1.0"),
        ("stablehlo.maximum", NINF),
        ("stablehlo.minimum", "0x7F800000"),
    ];
    for (mesh, rows, s) in [
        (MESH_1D, 16, sharding_text(&[vec!["x"], vec![]])),
        (MESH_2D, 16, sharding_text(&[vec!["data", "model"], vec![]])),
        (MESH_2D, 16, sharding_text(&[vec!["model"], vec!["data"]])),
        // Uneven: 10 rows over 4 devices, 5 over 4 (the last piece all padding).
        (MESH_1D, 10, sharding_text(&[vec!["x"], vec![]])),
        (MESH_2D, 10, sharding_text(&[vec!["data"], vec!["model"]])),
        (MESH_1D, 5, sharding_text(&[vec!["x"], vec![]])),
    ] {
        let x = [rows, 4];
        // Values near 1 keep the products finite.
        let v: Vec<f32> = data(x.to_vec(), 5)
            .to_f64_vec()
            .iter()
            .map(|v| 1.0 + *v as f32 / 8.0)
            .collect();
        let input = [Tensor::from_f32(x.to_vec(), v)];
        for (reducer, init) in cases {
            for reverse in [false, true] {
                let text = cumulative(mesh, &x, reducer, init, reverse, &s);
                let printed = check(&text, &input);
                // Only the pieces' totals cross devices: the rows are never gathered.
                let whole = format!("tensor<{rows}x");
                assert!(!printed.contains(&whole), "{printed}");
                assert!(printed.contains("all_gather"), "{printed}");
            }
        }
    }
}

#[test]
fn cumulative_windows_with_a_non_identity_init_are_gathered() {
    // An init of 1 for a sum counts once per padded window position: only the whole
    // dimension gives the right answer.
    let s = sharding_text(&[vec!["x"], vec![]]);
    let text = cumulative(MESH_1D, &[8, 4], "stablehlo.add", "1.0", false, &s);
    check(&text, &[data(vec![8, 4], 6)]);
}

/// The ranks of the operands of the `all_gather`s in a printed per-device module.
fn gathered_ranks(printed: &str) -> Vec<usize> {
    printed
        .lines()
        .filter(|l| l.contains("\"stablehlo.all_gather\""))
        .filter_map(|l| {
            let ty = l.rsplit_once(": (tensor<")?.1;
            let dims = ty.split_once('>')?.0;
            Some(dims.split('x').count() - 1)
        })
        .collect()
}

/// A JAX golden of `scripts/window_goldens.py` (8 host devices, mesh data=4 × model=2),
/// partitioned by `per_device_program` and run on 8 interpreter processes; the per-device
/// module's text.
fn golden(name: &str) -> String {
    check_jax_golden("windows", name, 1e-4).1
}

#[test]
fn a_jax_cnn_with_the_image_split_over_its_height() {
    // 3x3 SAME convolutions and 2x2 max pooling, the height over all 8 devices (pieces of 4
    // rows, then 2) or over "data" with the batch over "model": halos, never the image
    // gathered.
    for name in ["cnn_height", "cnn_batch_height"] {
        let printed = golden(name);
        assert!(printed.contains("collective_permute"), "{printed}");
        // Only the logits (split over "model" by the batch) are gathered.
        assert!(
            gathered_ranks(&printed).iter().all(|&r| r == 2),
            "{printed}"
        );
    }
    // Its gradient: the image's gradient by transposed (window-reversed) convolutions with
    // halos, max pooling's by select_and_scatter on the pieces, the weights' by partial sums
    // over each device's rows (with halos) added up — nothing gathered.
    let printed = golden("cnn_height_grad");
    assert!(gathered_ranks(&printed).is_empty(), "{printed}");
    assert!(printed.contains("collective_permute"), "{printed}");
}

#[test]
fn jax_cumulative_reductions_along_split_rows() {
    // cumsum, reverse cumsum, cummax and cumprod of 32 rows over 8 devices, as JAX lowers
    // them for TPU: only the pieces' totals cross devices.
    let printed = golden("cumulative_rows");
    assert!(!printed.contains("tensor<32x"), "{printed}");
    assert!(printed.contains("all_gather"), "{printed}");
}

/// Max pooling's gradient: `select_and_scatter` of `g` (one value per window) into `x`'s
/// shape, windows `window` with strides `stride` and padding `pad` over height and width;
/// `x`, `g` and the result held as `sx`, `sg`, `sx` (constrained: uneven pieces come from
/// shardings a user writes).
fn pool_grad(
    x: &[i64],
    g: &[i64],
    window: i64,
    stride: i64,
    pad: i64,
    sx: &str,
    sg: &str,
) -> String {
    let (tx, tg) = (ty(x), ty(g));
    module(
        MESH_2D,
        &format!(
            r#"func.func public @main(%x: {tx} {sdx}, %g: {tg} {sdg}) -> ({tx} {sdx}) {{
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %e = stablehlo.exponential %x : {tx}
    %xc = sdy.sharding_constraint %e <@mesh, {sx}> : {tx}
    %gc = sdy.sharding_constraint %g <@mesh, {sg}> : {tg}
    %0 = "stablehlo.select_and_scatter"(%xc, %gc, %zero) <{{padding = dense<[[0, 0], [{pad}, {pad}], [{pad}, {pad}], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, {window}, {window}, 1>, window_strides = array<i64: 1, {stride}, {stride}, 1>}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }}, {{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}) : ({tx}, {tg}, tensor<f32>) -> {tx}
    %r = sdy.sharding_constraint %0 <@mesh, {sx}> : {tx}
    return %r : {tx}
  }}"#,
            sdx = sdy(sx),
            sdg = sdy(sg),
        ),
    )
}

#[test]
fn max_pooling_gradients_scatter_into_their_own_pieces() {
    // 2x2 windows with stride 2 never cross a piece of an even number of rows: the
    // gradient runs where the pieces lie, height over "data" and width over "model".
    let (x, g) = ([2, 16, 8, 3], [2, 8, 4, 3]);
    let hw = r#"[{}, {"data"}, {"model"}, {}]"#;
    let inputs = [data(x.to_vec(), 7), data(g.to_vec(), 8)];
    let printed = check(&pool_grad(&x, &g, 2, 2, 0, hw, hw), &inputs);
    assert!(!printed.contains("all_gather"), "{printed}");
    assert!(!printed.contains("collective_permute"), "{printed}");
    // Uneven: 14 rows (7 windows) over 4 devices: pieces of 4 rows and 2 windows, the last
    // with 2 rows and 1 window.
    let (x, g) = ([2, 14, 4, 3], [2, 7, 2, 3]);
    let rows = r#"[{}, {"data"}, {}, {}]"#;
    let inputs = [data(x.to_vec(), 9), data(g.to_vec(), 10)];
    let printed = check(&pool_grad(&x, &g, 2, 2, 0, rows, rows), &inputs);
    assert!(gathered_ranks(&printed).is_empty(), "{printed}");
    // Overlapping 3x3 windows with stride 1 would scatter into the neighbours' rows: the
    // height is gathered (and the answer still right).
    let (x, g) = ([2, 16, 8, 3], [2, 16, 8, 3]);
    let inputs = [data(x.to_vec(), 11), data(g.to_vec(), 12)];
    check(&pool_grad(&x, &g, 3, 1, 1, hw, hw), &inputs);
}

/// The weight gradient of a 3x3 SAME convolution (as JAX writes it: the activations `x` as
/// the input with the batch as its feature, the output gradient `g` as the kernel, the
/// weights' shape out), `x` and `g` held as `s`.
fn weight_gradient(mesh: &str, x: &[i64], g: &[i64], s: &str) -> String {
    let (tx, tg) = (ty(x), ty(g));
    let tw = ty(&[3, 3, x[3], g[3]]);
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: {tx} {sd}, %g: {tg} {sd}) -> ({tw}) {{
    %0 = stablehlo.convolution(%x, %g) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {{stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({tx}, {tg}) -> {tw}
    return %0 : {tw}
  }}"#,
            sd = sdy(s),
        ),
    )
}

#[test]
fn weight_gradients_sum_over_split_heights_with_halos() {
    // Each device sums over its rows (the activations with a row from each neighbour, the
    // output gradient's own rows), then the partial weights are added.
    let (x, g) = ([2, 16, 8, 3], [2, 16, 8, 4]);
    let inputs = [data(x.to_vec(), 13), data(g.to_vec(), 14)];
    let h = r#"[{}, {"x"}, {}, {}]"#;
    let printed = check(&weight_gradient(MESH_1D, &x, &g, h), &inputs);
    assert_halo(&printed);
    assert!(printed.contains("all_reduce"), "{printed}");
    // Height and width split over the two axes of a 2-D mesh, the batch over neither.
    let hw = r#"[{}, {"data"}, {"model"}, {}]"#;
    let printed = check(&weight_gradient(MESH_2D, &x, &g, hw), &inputs);
    assert_halo(&printed);
    // Rows the tiles do not divide: gathered, and the sum not completed twice.
    let (x, g) = ([2, 10, 8, 3], [2, 10, 8, 4]);
    let inputs = [data(x.to_vec(), 15), data(g.to_vec(), 16)];
    check(&weight_gradient(MESH_1D, &x, &g, h), &inputs);
}

#[test]
fn the_front_ends_integer_cumsum_over_split_rows() {
    // What Systolic's `np::cumsum` emits: every window attribute written out, the init a
    // plain constant; on integers (exact), 12 rows over 4 devices and columns over 2.
    let text = module(
        MESH_2D,
        r#"func.func public @main(%x: tensor<12x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<12x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %init = stablehlo.constant dense<0> : tensor<i32>
    %0 = "stablehlo.reduce_window"(%x, %init) <{base_dilations = array<i64: 1, 1>, padding = dense<[[11, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 12, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<12x4xi32>, tensor<i32>) -> tensor<12x4xi32>
    return %0 : tensor<12x4xi32>
  }"#,
    );
    let values: Vec<i64> = (0..48).map(|i| (i * 37 % 11) - 5).collect();
    let x = Tensor::from_i64(vec![12, 4], systolic_ir::DType::I32, values).unwrap();
    let printed = check(&text, &[x]);
    assert!(!printed.contains("tensor<12x"), "{printed}");
}
