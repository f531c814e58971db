//! Row programs (reduces over the innermost dimensions whose results feed later work over the
//! same rows: softmax, log-softmax, layer norm, cross-entropy) against the interpreter, on
//! random inputs: shapes with 0, 1 and odd sizes, rows shorter and longer than a block, f32,
//! f64 and bf16/f16 inputs computed in f32 (as JAX writes them).
//!
//! Sums are reassociated (blocks of 64 partial sums), so float results are compared within a
//! relative tolerance; maxima and everything elementwise are exact or within an ulp or two.

use crate::fusion_support;

use fusion_support::{run_block, Rng};
use systolic_cpu::kernels::fusion::rows::plan_row_block;
use systolic_ir::{DType, Data, Tensor, TensorType};

fn ty(shape: &[i64], dtype: DType) -> String {
    if shape.is_empty() {
        format!("tensor<{dtype}>")
    } else {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        format!("tensor<{}x{dtype}>", dims.join("x"))
    }
}

/// Softmax over the last dimension of `shape` (a block as the fusion pass makes it).
fn softmax(shape: &[i64], dtype: DType) -> String {
    let n = shape.len();
    let outer = &shape[..n - 1];
    let (t, k) = (ty(shape, dtype), ty(outer, dtype));
    let bdims: Vec<String> = (0..n - 1).map(|d| d.to_string()).collect();
    let bdims = bdims.join(", ");
    format!(
        "func.func @main(%x: {t}) -> {t} {{
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<{dtype}>
  %zero = stablehlo.constant dense<0.0> : tensor<{dtype}>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [{last}] : ({t}, tensor<{dtype}>) -> {k}
  %mb = stablehlo.broadcast_in_dim %m, dims = [{bdims}] : ({k}) -> {t}
  %d = stablehlo.subtract %x, %mb : {t}
  %e = stablehlo.exponential %d : {t}
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [{last}] : ({t}, tensor<{dtype}>) -> {k}
  %sb = stablehlo.broadcast_in_dim %s, dims = [{bdims}] : ({k}) -> {t}
  %y = stablehlo.divide %e, %sb : {t}
  return %y : {t}
}}",
        last = n - 1
    )
}

/// JAX's layer norm over the last dimension, inputs of `dtype` computed in f32, with the
/// per-row mean and reciprocal deviation as extra outputs (a multi-output row fusion).
fn layer_norm(shape: &[i64], dtype: DType) -> String {
    let n = shape.len();
    let d = shape[n - 1];
    let outer = &shape[..n - 1];
    let mut kept1 = outer.to_vec();
    kept1.push(1);
    let (t, t32, k, k1) = (
        ty(shape, dtype),
        ty(shape, DType::F32),
        ty(outer, DType::F32),
        ty(&kept1, DType::F32),
    );
    let g = ty(&[d], DType::F32);
    let bdims: Vec<String> = (0..n - 1).map(|d| d.to_string()).collect();
    let bdims = bdims.join(", ");
    let all: Vec<String> = (0..n).map(|d| d.to_string()).collect();
    let all = all.join(", ");
    format!(
        "func.func @main(%x0: {t}, %g: {g}, %b: {g}) -> ({t}, {k1}, {k1}) {{
  %x = stablehlo.convert %x0 : ({t}) -> {t32}
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %cnt = stablehlo.constant dense<{d}.0> : tensor<f32>
  %eps = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [{last}] : ({t32}, tensor<f32>) -> {k}
  %s1 = stablehlo.broadcast_in_dim %s, dims = [{bdims}] : ({k}) -> {k1}
  %cntb = stablehlo.broadcast_in_dim %cnt, dims = [] : (tensor<f32>) -> {k1}
  %mu = stablehlo.divide %s1, %cntb : {k1}
  %mub = stablehlo.broadcast_in_dim %mu, dims = [{all}] : ({k1}) -> {t32}
  %c = stablehlo.subtract %x, %mub : {t32}
  %sq = stablehlo.multiply %c, %c : {t32}
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [{last}] : ({t32}, tensor<f32>) -> {k}
  %v1 = stablehlo.broadcast_in_dim %v, dims = [{bdims}] : ({k}) -> {k1}
  %var = stablehlo.divide %v1, %cntb : {k1}
  %epsb = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) -> {k1}
  %ve = stablehlo.add %var, %epsb : {k1}
  %r = stablehlo.rsqrt %ve : {k1}
  %rb = stablehlo.broadcast_in_dim %r, dims = [{all}] : ({k1}) -> {t32}
  %nrm = stablehlo.multiply %c, %rb : {t32}
  %gb = stablehlo.broadcast_in_dim %g, dims = [{last}] : ({g}) -> {t32}
  %bb = stablehlo.broadcast_in_dim %b, dims = [{last}] : ({g}) -> {t32}
  %y0 = stablehlo.multiply %nrm, %gb : {t32}
  %y1 = stablehlo.add %y0, %bb : {t32}
  %y = stablehlo.convert %y1 : ({t32}) -> {t}
  return %y, %mu, %r : {t}, {k1}, {k1}
}}",
        last = n - 1
    )
}

/// JAX's mean softmax cross-entropy's row part: log-softmax, one-hot of integer labels, the
/// per-row sum of their product (the block `fusion` makes of `xent` minus the final mean).
fn xent_rows(rows: i64, classes: i64) -> String {
    let t = ty(&[rows, classes], DType::F32);
    let k = ty(&[rows], DType::F32);
    let k1 = ty(&[rows, 1], DType::F32);
    let l = ty(&[rows], DType::I32);
    let ti = ty(&[rows, classes], DType::I32);
    let tb = ty(&[rows, classes], DType::Bool);
    format!(
        "func.func @main(%x: {t}, %labels: {l}) -> {k} {{
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({t}, tensor<f32>) -> {k}
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({k}) -> {t}
  %d = stablehlo.subtract %x, %mb : {t}
  %e = stablehlo.exponential %d : {t}
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : ({t}, tensor<f32>) -> {k}
  %s1 = stablehlo.broadcast_in_dim %s, dims = [0] : ({k}) -> {k1}
  %ls = stablehlo.log %s1 : {k1}
  %lsb = stablehlo.broadcast_in_dim %ls, dims = [0, 1] : ({k1}) -> {t}
  %lp = stablehlo.subtract %d, %lsb : {t}
  %io = stablehlo.iota dim = 1 : tensor<1x{classes}xi32>
  %lb = stablehlo.broadcast_in_dim %labels, dims = [0] : ({l}) -> {ti}
  %iob = stablehlo.broadcast_in_dim %io, dims = [0, 1] : (tensor<1x{classes}xi32>) -> {ti}
  %eq = stablehlo.compare EQ, %lb, %iob, SIGNED : ({ti}, {ti}) -> {tb}
  %oh = stablehlo.convert %eq : ({tb}) -> {t}
  %p = stablehlo.multiply %oh, %lp : {t}
  %r = stablehlo.reduce(%p init: %zero) applies stablehlo.add across dimensions = [1] : ({t}, tensor<f32>) -> {k}
  return %r : {k}
}}"
    )
}

/// Moderate random values (normal-ish, scale 3) of `ty`.
fn moderate(ty: &TensorType, rng: &mut Rng) -> Tensor {
    let v: Vec<f64> = (0..ty.num_elements())
        .map(|_| {
            let u: f64 = (0..4)
                .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64)
                .sum();
            (u - 2.0) * 3.0
        })
        .collect();
    Tensor::from_f64(ty.shape.clone(), ty.dtype, v).unwrap()
}

fn inputs_of(text: &str, seed: u64) -> Vec<Tensor> {
    let module = systolic_ir::text::parse_module(text, "t").unwrap();
    let func = module.func("main").unwrap();
    let mut rng = Rng(seed);
    func.param_types()
        .iter()
        .map(|t| {
            let ty = t.as_tensor().unwrap();
            if ty.dtype.is_float() {
                moderate(ty, &mut rng)
            } else {
                // Labels: in range mostly, sometimes out of it (a zero one-hot row).
                let n = ty.shape.last().copied().unwrap_or(1).max(1) as u64;
                let classes = 1000.max(n);
                let v: Vec<u64> = (0..ty.num_elements())
                    .map(|_| rng.below(classes + 2))
                    .collect();
                Tensor::from_bits(ty.clone(), &v).unwrap()
            }
        })
        .collect()
}

/// True when `text`'s body plans as a row program.
fn is_row_program(text: &str) -> bool {
    match row_plan_error(text) {
        None => true,
        Some(e) => {
            eprintln!("not a row program: {e}");
            false
        }
    }
}

/// Why `text`'s body does not plan as a row program.
fn row_plan_error(text: &str) -> Option<String> {
    fusion_support::with_main_block(text, |spec, ctx| {
        plan_row_block(spec, &|v| ctx.tensor_type(v).ok().cloned())
            .err()
            .map(|e| e.0)
    })
}

/// Compares within `rel` of each row's largest magnitude (NaNs equal, exact zeros of empty
/// sums included).
fn assert_close(ours: &[Tensor], want: &[Tensor], rel: f64, what: &str) {
    assert_eq!(ours.len(), want.len(), "{what}: result count");
    for (k, (o, w)) in ours.iter().zip(want).enumerate() {
        assert_eq!(o.ty(), w.ty(), "{what}: result {k} type");
        let (Data::Float(a), Data::Float(b)) = (o.data(), w.data()) else {
            assert_eq!(o, w, "{what}: result {k}");
            continue;
        };
        let eps = match o.dtype() {
            DType::BF16 => 1.0 / 128.0,
            DType::F16 => 1.0 / 1024.0,
            _ => 0.0,
        };
        for i in 0..a.len() {
            if a[i].is_nan() && b[i].is_nan() {
                continue;
            }
            let tol = (rel + eps) * b[i].abs().max(1.0);
            assert!(
                (a[i] - b[i]).abs() <= tol,
                "{what}: result {k} element {i}: ours {}, interpreter {}",
                a[i],
                b[i]
            );
        }
    }
}

const SHAPES: &[&[i64]] = &[
    &[1, 1],
    &[3, 1],
    &[1, 7],
    &[5, 33],
    &[0, 9],
    &[4, 0],
    &[37, 1000],
    &[2, 3, 129],
    &[3, 1300],
    &[70, 513],
    &[300, 64],
    &[257, 300],
    &[7],
    // Around the one-block-per-row widths (rows of 513 to 2048 elements are one block).
    &[9, 511],
    &[6, 512],
    &[3, 2047],
    &[5, 2048],
    &[2, 2049],
];

#[test]
fn softmax_rows_match_the_interpreter() {
    let mut seed = 1;
    for shape in SHAPES {
        for dtype in [DType::F32, DType::F64] {
            let text = softmax(shape, dtype);
            assert!(is_row_program(&text), "not a row program:\n{text}");
            let inputs = inputs_of(&text, seed);
            let (ours, want, _) = run_block(&text, seed, Some(inputs), true);
            let rel = if dtype == DType::F64 { 1e-12 } else { 2e-6 };
            assert_close(&ours, &want, rel, &format!("softmax {shape:?} {dtype}"));
            seed += 1;
        }
    }
}

#[test]
fn layer_norm_rows_match_the_interpreter() {
    let mut seed = 100;
    for shape in SHAPES {
        for dtype in [DType::F32, DType::BF16, DType::F16] {
            let text = layer_norm(shape, dtype);
            assert!(is_row_program(&text), "not a row program:\n{text}");
            let inputs = inputs_of(&text, seed);
            let (ours, want, _) = run_block(&text, seed, Some(inputs), true);
            assert_close(&ours, &want, 2e-5, &format!("layer norm {shape:?} {dtype}"));
            seed += 1;
        }
    }
}

#[test]
fn cross_entropy_rows_match_the_interpreter() {
    for (seed, (rows, classes)) in [
        (1, 1),
        (3, 1),
        (0, 10),
        (5, 0),
        (17, 1000),
        (64, 2049),
        (33, 1501),
        (4, 2048),
    ]
    .into_iter()
    .enumerate()
    {
        let text = xent_rows(rows, classes);
        assert!(is_row_program(&text), "not a row program:\n{text}");
        let inputs = inputs_of(&text, seed as u64);
        let (ours, want, _) = run_block(&text, seed as u64, Some(inputs), true);
        assert_close(&ours, &want, 1e-5, &format!("xent {rows}x{classes}"));
    }
}

#[test]
fn special_values_propagate_like_the_interpreter() {
    // NaN, ±inf, -0 and huge values in rows: maxima are exact, NaN rows stay NaN.
    for shape in [&[6, 50][..], &[12, 1000], &[3, 2500]] {
        let text = softmax(shape, DType::F32);
        for seed in 0..4 {
            let (ours, want, _) = run_block(&text, seed, None, true);
            assert_close(
                &ours,
                &want,
                2e-6,
                &format!("softmax {shape:?} with special values"),
            );
        }
    }
}

#[test]
fn blocks_that_are_not_row_programs_are_refused() {
    // A reduce over the outer dimension, and a row value read transposed.
    let outer = "func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %y = stablehlo.divide %x, %sb : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}";
    assert!(!is_row_program(outer));
    let crossed = "func.func @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
  %y = stablehlo.divide %x, %sb : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}";
    assert!(!is_row_program(crossed));
}

/// A row program over integer and float operands that reads both in place (their rows are
/// not copied into registers), returns an operand as it is (a store of a register viewing
/// it), reuses the register of a viewed operand for an op's result, and folds integers
/// (wrapping sums, maxima) next to floats.
fn in_place_rows(rows: i64, cols: i64) -> String {
    let (ti, tf) = (ty(&[rows, cols], DType::I32), ty(&[rows, cols], DType::F32));
    let (ki, kf) = (ty(&[rows], DType::I32), ty(&[rows], DType::F32));
    format!(
        "func.func @main(%x: {ti}, %y: {tf}) -> ({ti}, {ki}, {tf}, {kf}) {{
  %zi = stablehlo.constant dense<0> : tensor<i32>
  %mi = stablehlo.constant dense<-2147483648> : tensor<i32>
  %zf = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %mi) applies stablehlo.maximum across dimensions = [1] : ({ti}, tensor<i32>) -> {ki}
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({ki}) -> {ti}
  %d = stablehlo.subtract %x, %mb : {ti}
  %dd = stablehlo.multiply %d, %x : {ti}
  %t = stablehlo.reduce(%dd init: %zi) applies stablehlo.add across dimensions = [1] : ({ti}, tensor<i32>) -> {ki}
  %sq = stablehlo.multiply %y, %y : {tf}
  %s = stablehlo.reduce(%sq init: %zf) applies stablehlo.add across dimensions = [1] : ({tf}, tensor<f32>) -> {kf}
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : ({kf}) -> {tf}
  %q = stablehlo.divide %y, %sb : {tf}
  %n = stablehlo.negate %q : {tf}
  %u = stablehlo.reduce(%n init: %zf) applies stablehlo.add across dimensions = [1] : ({tf}, tensor<f32>) -> {kf}
  return %x, %t, %n, %u : {ti}, {ki}, {tf}, {kf}
}}"
    )
}

#[test]
fn operands_read_in_place_match_the_interpreter() {
    let shapes = [
        (1, 1),
        (3, 1),
        (1, 7),
        (0, 5),
        (6, 0),
        (5, 33),
        (17, 1000),
        (40, 513),
        (300, 64),
        (3, 2049),
    ];
    for (seed, (rows, cols)) in shapes.into_iter().enumerate() {
        let text = in_place_rows(rows, cols);
        assert!(is_row_program(&text), "not a row program:\n{text}");
        let inputs = inputs_of(&text, seed as u64 + 500);
        let (ours, want, _) = run_block(&text, seed as u64, Some(inputs), true);
        assert_close(&ours, &want, 1e-5, &format!("in place {rows}x{cols}"));
    }
}

/// Full-row temporaries of the row plan of `text` (values carried from a stage to a later one).
fn full_row_temps(text: &str) -> usize {
    fusion_support::with_main_block(text, |spec, ctx| {
        let plan = plan_row_block(spec, &|v| ctx.tensor_type(v).ok().cloned()).unwrap();
        let (rows, len) = plan.rows();
        plan.program()
            .temp_types
            .iter()
            .filter(|t| t.num_elements() == rows * len && len > 1)
            .count()
    })
}

/// Cheap values computed from operands (a mask from labels, a select on it, a convert and a
/// negate of the mask) recomputed in the later stages that need them instead of stored;
/// `masked` is also read in its own stage and is two ops from the operands, so it is carried.
fn recomputed_rows(rows: i64, cols: i64, dtype: DType) -> String {
    let t = ty(&[rows, cols], dtype);
    let t32 = ty(&[rows, cols], DType::F32);
    let k = ty(&[rows], DType::F32);
    let ti = ty(&[rows, cols], DType::I32);
    let tb = ty(&[rows, cols], DType::Bool);
    let l = ty(&[rows], DType::I32);
    format!(
        "func.func @main(%x0: {t}, %labels: {l}) -> ({k}, {t}, {k}) {{
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %x = stablehlo.convert %x0 : ({t}) -> {t32}
  %io = stablehlo.iota dim = 1 : {ti}
  %lb = stablehlo.broadcast_in_dim %labels, dims = [0] : ({l}) -> {ti}
  %ge = stablehlo.compare GE, %io, %lb, SIGNED : ({ti}, {ti}) -> {tb}
  %zb = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> {t32}
  %masked = stablehlo.select %ge, %x, %zb : {tb}, {t32}
  %m = stablehlo.reduce(%masked init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({t32}, tensor<f32>) -> {k}
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({k}) -> {t32}
  %d = stablehlo.subtract %masked, %mb : {t32}
  %s = stablehlo.reduce(%d init: %zero) applies stablehlo.add across dimensions = [1] : ({t32}, tensor<f32>) -> {k}
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : ({k}) -> {t32}
  %gef = stablehlo.convert %ge : ({tb}) -> {t32}
  %neg = stablehlo.negate %gef : {t32}
  %w = stablehlo.multiply %neg, %sb : {t32}
  %y = stablehlo.add %w, %x : {t32}
  %y0 = stablehlo.convert %y : ({t32}) -> {t}
  %r = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [1] : ({t32}, tensor<f32>) -> {k}
  return %s, %y0, %r : {k}, {t}, {k}
}}"
    )
}

/// Elementwise work with a per-row operand `%v` on either side (add, subtract, multiply,
/// compare) in `dtype`, and a row sum in f32 that makes the block a row program: the row
/// values are splat operands in blocks within one row.
fn per_row_operands(rows: i64, cols: i64, dtype: DType) -> String {
    let (t, k) = (ty(&[rows, cols], dtype), ty(&[rows], dtype));
    let (t32, k32) = (ty(&[rows, cols], DType::F32), ty(&[rows], DType::F32));
    let tb = ty(&[rows, cols], DType::Bool);
    format!(
        "func.func @main(%x: {t}, %v: {k}) -> ({t}, {t}, {t}, {tb}, {k32}) {{
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %vb = stablehlo.broadcast_in_dim %v, dims = [0] : ({k}) -> {t}
  %a = stablehlo.add %x, %vb : {t}
  %s = stablehlo.subtract %vb, %x : {t}
  %p = stablehlo.multiply %x, %vb : {t}
  %c = stablehlo.compare LT, %vb, %x, FLOAT : ({t}, {t}) -> {tb}
  %x32 = stablehlo.convert %x : ({t}) -> {t32}
  %r = stablehlo.reduce(%x32 init: %zero) applies stablehlo.add across dimensions = [1] : ({t32}, tensor<f32>) -> {k32}
  return %a, %s, %p, %c, %r : {t}, {t}, {t}, {tb}, {k32}
}}"
    )
}

/// The iotas the row plan of `text` fills once per worker.
fn invariant_iotas(text: &str) -> usize {
    fusion_support::with_main_block(text, |spec, ctx| {
        plan_row_block(spec, &|v| ctx.tensor_type(v).ok().cloned())
            .unwrap()
            .invariant_iotas()
    })
}

/// The splat loads of the row plan of `text`.
fn splat_loads(text: &str) -> usize {
    fusion_support::with_main_block(text, |spec, ctx| {
        plan_row_block(spec, &|v| ctx.tensor_type(v).ok().cloned())
            .unwrap()
            .splat_loads()
    })
}

/// Exactly equal results (floats bit for bit, NaNs as NaNs of any payload).
fn assert_exact(ours: &[Tensor], want: &[Tensor], what: &str) {
    assert_eq!(ours.len(), want.len(), "{what}: result count");
    for (k, (o, w)) in ours.iter().zip(want).enumerate() {
        let (Data::Float(a), Data::Float(b)) = (o.data(), w.data()) else {
            assert_eq!(o, w, "{what}: result {k}");
            continue;
        };
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let same = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
            assert!(
                same,
                "{what}: result {k} element {i}: ours {x}, interpreter {y}"
            );
        }
    }
}

#[test]
fn per_row_operands_match_the_interpreter() {
    // The row max (twice: x − max is recomputed in the last stage), the log of the row sum
    // and the label are splats in the cross-entropy.
    assert_eq!(splat_loads(&xent_rows(8, 1000)), 4);
    assert_eq!(splat_loads(&per_row_operands(8, 1000, DType::BF16)), 1);
    let mut seed = 900;
    for (rows, cols) in [
        (1, 1),
        (3, 1),
        (0, 5),
        (4, 0),
        (1, 7),
        (5, 33),
        (3, 600),
        (2, 2049),
        (2, 3001),
    ] {
        for dtype in [DType::F32, DType::F64, DType::BF16, DType::F16] {
            let text = per_row_operands(rows, cols, dtype);
            assert!(is_row_program(&text), "not a row program:\n{text}");
            for special in [false, true] {
                let inputs = (!special).then(|| inputs_of(&text, seed));
                let (ours, want, _) = run_block(&text, seed, inputs, true);
                let what = format!("per-row operands {rows}x{cols} {dtype}");
                // The elementwise results are exact; the f32 row sums are reassociated (and
                // compared on moderate inputs only: `assert_close` takes inf − inf as a miss).
                let n = ours.len() - 1;
                assert_exact(&ours[..n], &want[..n], &what);
                if !special {
                    assert_close(&ours[n..], &want[n..], 1e-5, &what);
                }
                seed += 1;
            }
        }
    }
}

#[test]
fn values_recomputed_in_later_stages_match_the_interpreter() {
    // The cross-entropy's one-hot is recomputed in its last stage, and so is x − max (one
    // op of an operand and a per-row value, though its own stage reads it too): nothing is
    // carried through a full-row temporary. Its class indices are filled once per worker
    // (rows split into blocks, one row per block, several rows per block: all among the
    // shapes below).
    assert_eq!(full_row_temps(&xent_rows(8, 100)), 0);
    assert_eq!(invariant_iotas(&xent_rows(8, 100)), 1);
    assert!(invariant_iotas(&recomputed_rows(64, 2049, DType::F32)) >= 1);
    assert!(invariant_iotas(&recomputed_rows(300, 64, DType::F32)) >= 1);
    let shapes = [
        (1, 1),
        (3, 1),
        (1, 7),
        (0, 4),
        (5, 0),
        (5, 33),
        (17, 1000),
        (300, 64),
        (700, 24),
        (9, 2049),
    ];
    let mut seed = 700;
    for (rows, cols) in shapes {
        for dtype in [DType::F32, DType::BF16, DType::F16] {
            let text = recomputed_rows(rows, cols, dtype);
            assert!(is_row_program(&text), "not a row program:\n{text}");
            if rows > 0 && cols > 1 {
                // Only `masked` (read in its own stage, and made from the mask, itself
                // computed); the mask, its convert and negate, and x (one convert of an
                // operand, read by the last stage's add) are recomputed.
                assert_eq!(full_row_temps(&text), 1, "{rows}x{cols} {dtype}");
            }
            let inputs = inputs_of(&text, seed);
            let (ours, want, _) = run_block(&text, seed, Some(inputs), true);
            // The interpreter sums a row left to right in f32: for terms of one sign its
            // error grows with the row, up to about cols · eps / 2 relative (2.3e-5 seen at
            // 2049); ours reassociates in blocks of 64 and is the closer of the two. A wrong
            // element still moves a sum by about 1/cols, far above either.
            let rel = 2e-5f64.max(cols as f64 * f64::from(f32::EPSILON) / 2.0);
            assert_close(
                &ours,
                &want,
                rel,
                &format!("recomputed {rows}x{cols} {dtype}"),
            );
            seed += 1;
        }
    }
}
