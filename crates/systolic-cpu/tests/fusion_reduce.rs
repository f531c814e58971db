//! Reduction kernels against the interpreter: row (innermost), column (outer), middle and
//! several dimensions; add, multiply, maximum, minimum, and, or; JAX's argmax (a variadic
//! reducer region); fused producers and epilogues; bf16 accumulators; empty dimensions; the
//! pieces of a softmax.
//!
//! Results are exact wherever the order of folding cannot matter (integers, booleans, max/min,
//! sums of values whose partial sums are exact in f32, and the slots mode, which folds in the
//! interpreter's order); reassociated float sums are checked against n·eps·Σ|x|.

use crate::fusion_support;

use fusion_support::{assert_results, random_tensor, run_block, Rng};
use systolic_ir::{DType, Tensor, TensorType};

fn reduce_module(shape: &str, dtype: DType, dims: &str, out_shape: &str, op: &str) -> String {
    let t = if shape.is_empty() {
        format!("tensor<{dtype}>")
    } else {
        format!("tensor<{shape}x{dtype}>")
    };
    let r = if out_shape.is_empty() {
        format!("tensor<{dtype}>")
    } else {
        format!("tensor<{out_shape}x{dtype}>")
    };
    let s = format!("tensor<{dtype}>");
    format!(
        "func.func @main(%x: {t}, %init: {s}) -> {r} {{
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.{op} across dimensions = [{dims}] : ({t}, {s}) -> {r}
  return %0 : {r}
}}"
    )
}

/// Random inputs except for float dtypes, whose elements are multiples of 1/4 in [-8, 8]: every
/// partial sum is then exact in f32, so any summation order gives the interpreter's result.
fn exact_sum_inputs(text: &str, seed: u64) -> Vec<Tensor> {
    let module = systolic_ir::text::parse_module(text, "t").unwrap();
    let func = module.func("main").unwrap();
    let mut rng = Rng(seed);
    func.param_types()
        .iter()
        .map(|t| {
            let ty: &TensorType = t.as_tensor().unwrap();
            if ty.dtype.is_float() {
                let v: Vec<f64> = (0..ty.num_elements())
                    .map(|_| (rng.below(65) as f64 - 32.0) / 4.0)
                    .collect();
                Tensor::from_f64(ty.shape.clone(), ty.dtype, v).unwrap()
            } else {
                random_tensor(ty, &mut rng)
            }
        })
        .collect()
}

#[test]
fn every_simple_reducer_rows_columns_and_middle_dims_exact() {
    let cases = [
        ("37x1000", "1", "37"),
        ("1000x37", "0", "37"),
        ("4x50x6", "1", "4x6"),
        ("4x50x6", "0, 2", "50"),
        ("3x5x700", "1, 2", "3"),
        ("70001", "0", ""),
        ("2x0x3", "1", "2x3"),
        ("300x400", "1", "300"),
        ("100x2000", "0", "2000"),
    ];
    let mut seed = 1;
    for dtype in [
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I32,
        DType::U64,
        DType::I4,
        DType::Bool,
    ] {
        let ops: &[&str] = match dtype {
            DType::Bool => &["and", "or", "add", "maximum"],
            d if d.is_float() => &["add", "maximum", "minimum"],
            _ => &["add", "multiply", "maximum", "minimum", "and", "or"],
        };
        for op in ops {
            for (shape, dims, out) in cases {
                let text = reduce_module(shape, dtype, dims, out, op);
                let inputs = exact_sum_inputs(&text, seed);
                let (ours, want, inputs) = run_block(&text, seed, Some(inputs), true);
                seed += 1;
                assert_results(&ours, &want, &inputs, 0, &text);
            }
        }
    }
}

#[test]
fn max_min_with_nans_and_signed_zeros_exact() {
    for op in ["maximum", "minimum"] {
        for (shape, dims, out) in [("37x1000", "1", "37"), ("1000x37", "0", "37")] {
            let text = reduce_module(shape, DType::F32, dims, out, op);
            let (ours, want, inputs) = run_block(&text, 7, None, true);
            assert_results(&ours, &want, &inputs, 0, &text);
        }
    }
}

#[test]
fn column_sums_of_random_floats_fold_in_the_interpreters_order() {
    let text = reduce_module("1000x37", DType::F32, "0", "37", "add");
    let (ours, want, inputs) = run_block(&text, 11, None, true);
    assert_results(&ours, &want, &inputs, 0, &text);
}

#[test]
fn row_sums_of_random_floats_within_n_eps_of_magnitudes() {
    let (rows, cols) = (64usize, 5000usize);
    let text = reduce_module(
        &format!("{rows}x{cols}"),
        DType::F32,
        "1",
        &rows.to_string(),
        "add",
    );
    let mut rng = Rng(5);
    let x: Vec<f32> = (0..rows * cols)
        .map(|_| ((rng.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.3) * 100.0)
        .collect();
    let inputs = vec![
        Tensor::from_f32(vec![rows as i64, cols as i64], x.clone()),
        Tensor::scalar_f32(0.5),
    ];
    let (ours, want, _) = run_block(&text, 0, Some(inputs), true);
    let (o, w) = (ours[0].to_f64_vec(), want[0].to_f64_vec());
    for r in 0..rows {
        let magnitude: f64 = x[r * cols..(r + 1) * cols]
            .iter()
            .map(|v| v.abs() as f64)
            .sum::<f64>()
            + 0.5;
        let bound = cols as f64 * f32::EPSILON as f64 * magnitude;
        assert!(
            (o[r] - w[r]).abs() <= bound,
            "row {r}: ours {}, interpreter {}, bound {bound}",
            o[r],
            w[r]
        );
    }
}

#[test]
fn bf16_accumulator_rounds_every_step_as_the_interpreter() {
    for (shape, dims, out) in [("9x300", "1", "9"), ("300x9", "0", "9")] {
        let text = reduce_module(shape, DType::BF16, dims, out, "add");
        let (ours, want, inputs) = run_block(&text, 3, None, true);
        assert_results(&ours, &want, &inputs, 0, &text);
    }
}

const ARGMAX: &str = "func.func @main(%arg0: tensor<50x301xf32>) -> (tensor<50xf32>, tensor<50xi32>) {
  %0 = stablehlo.iota dim = 1 : tensor<50x301xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<50x301xf32>, tensor<50x301xi32>, tensor<f32>, tensor<i32>) -> (tensor<50xf32>, tensor<50xi32>)
   reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
    %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.or %2, %3 : tensor<i1>
    %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %5, %6 : tensor<i1>
    %8 = stablehlo.or %4, %7 : tensor<i1>
    %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }
  return %1#0, %1#1 : tensor<50xf32>, tensor<50xi32>
}";

/// A column reduce (slots mode) whose region is one op that is not symmetric in its
/// arguments: `%acc - %x` and `%x - %acc` fold differently, and either order must be the
/// interpreter's (region argument 0 is the accumulator).
#[test]
fn one_op_regions_keep_the_accumulator_argument_order() {
    for (lhs, rhs) in [("%acc", "%x"), ("%x", "%acc")] {
        for dtype in [DType::I32, DType::F32] {
            let t = format!("tensor<{dtype}>");
            let text = format!(
                "func.func @main(%a: tensor<300x7x{dtype}>, %init: {t}) -> tensor<7x{dtype}> {{
  %0 = stablehlo.reduce(%a init: %init) across dimensions = [0] : (tensor<300x7x{dtype}>, {t}) -> tensor<7x{dtype}>
   reducer(%acc: {t}, %x: {t})  {{
    %1 = stablehlo.subtract {lhs}, {rhs} : {t}
    stablehlo.return %1 : {t}
  }}
  return %0 : tensor<7x{dtype}>
}}"
            );
            let (ours, want, inputs) = run_block(&text, 5, None, true);
            assert_results(&ours, &want, &inputs, 0, &text);
        }
    }
}

#[test]
fn jax_argmax_variadic_reducer_exact() {
    for seed in 0..4 {
        let (ours, want, inputs) = run_block(ARGMAX, seed, None, true);
        assert_results(&ours, &want, &inputs, 0, "argmax");
    }
}

#[test]
fn fused_producer_and_epilogue() {
    // sum over rows of exp(x - m) with m broadcast, then log of the sums plus m (logsumexp).
    let text = "func.func @main(%x: tensor<40x777xf32>, %m: tensor<40xf32>) -> tensor<40xf32> {
  %0 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<40xf32>) -> tensor<40x777xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<40x777xf32>
  %2 = stablehlo.exponential %1 : tensor<40x777xf32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<40x777xf32>, tensor<f32>) -> tensor<40xf32>
  %4 = stablehlo.log %3 : tensor<40xf32>
  %5 = stablehlo.add %4, %m : tensor<40xf32>
  return %5 : tensor<40xf32>
}";
    let mut rng = Rng(9);
    let x: Vec<f32> = (0..40 * 777)
        .map(|_| ((rng.next() >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0)
        .collect();
    let m: Vec<f32> = (0..40).map(|i| i as f32 * 0.1).collect();
    let inputs = vec![
        Tensor::from_f32(vec![40, 777], x),
        Tensor::from_f32(vec![40], m),
    ];
    let (ours, want, _) = run_block(text, 0, Some(inputs), true);
    for (o, w) in ours[0].to_f64_vec().iter().zip(want[0].to_f64_vec()) {
        assert!(
            (o - w).abs() <= 1e-5 * w.abs().max(1.0),
            "ours {o}, interpreter {w}"
        );
    }
}

#[test]
fn sibling_reduces_share_one_pass() {
    let text = "func.func @main(%x: tensor<30x200xf32>) -> (tensor<30xf32>, tensor<30xf32>) {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.multiply %x, %x : tensor<30x200xf32>
  %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<30x200xf32>, tensor<f32>) -> tensor<30xf32>
  %2 = stablehlo.reduce(%x init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<30x200xf32>, tensor<f32>) -> tensor<30xf32>
  return %1, %2 : tensor<30xf32>, tensor<30xf32>
}";
    let (ours, want, inputs) = run_block(text, 21, None, true);
    assert_results(&ours, &want, &inputs, 0, text);
}

#[test]
fn softmax_from_three_kernels_matches_the_interpreter() {
    let max_text = "func.func @main(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}";
    let sum_text = "func.func @main(%x: tensor<64x1000xf32>, %m: tensor<64xf32>) -> tensor<64xf32> {
  %0 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<64x1000xf32>
  %2 = stablehlo.exponential %1 : tensor<64x1000xf32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
  return %3 : tensor<64xf32>
}";
    let div_text = "func.func @main(%x: tensor<64x1000xf32>, %m: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<64x1000xf32> {
  %0 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<64x1000xf32>
  %2 = stablehlo.exponential %1 : tensor<64x1000xf32>
  %3 = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
  %4 = stablehlo.divide %2, %3 : tensor<64x1000xf32>
  return %4 : tensor<64x1000xf32>
}";
    let mut rng = Rng(13);
    let x: Vec<f32> = (0..64_000)
        .map(|_| ((rng.next() >> 40) as f32 / (1u64 << 24) as f32) * 20.0 - 10.0)
        .collect();
    let x = Tensor::from_f32(vec![64, 1000], x);
    let (m, m_want, _) = run_block(max_text, 0, Some(vec![x.clone()]), true);
    assert_eq!(m, m_want, "row maxima");
    let (s, s_want, _) = run_block(sum_text, 0, Some(vec![x.clone(), m[0].clone()]), true);
    for (o, w) in s[0].to_f64_vec().iter().zip(s_want[0].to_f64_vec()) {
        assert!(
            (o - w).abs() <= 1e-5 * w,
            "row sums: ours {o}, interpreter {w}"
        );
    }
    let (y, y_want, _) = run_block(
        div_text,
        0,
        Some(vec![x, m[0].clone(), s_want[0].clone()]),
        false,
    );
    // exp is within 1 ulp; the division after it can double that.
    assert_results(&y, &y_want, &[], 2, "softmax");
    let rows: Vec<f64> = y[0]
        .to_f64_vec()
        .chunks(1000)
        .map(|r| r.iter().sum())
        .collect();
    assert!(
        rows.iter().all(|&t| (t - 1.0).abs() < 1e-4),
        "rows sum to one: {rows:?}"
    );
}

#[test]
fn standalone_reduce_lowers_through_the_family_entry_point() {
    let text = reduce_module("8x9", DType::F32, "1", "8", "add");
    let module = systolic_ir::text::parse_module(&text, "t").unwrap();
    let func = module.func("main").unwrap();
    let ctx = systolic_cpu::LowerCtx::new(&module, func);
    let op = &func.body.entry().unwrap().ops[0];
    let kernel = systolic_cpu::kernels::fusion::lower(op, &ctx)
        .unwrap()
        .expect("a reduce kernel");
    let x = systolic_cpu::CpuBuffer::from_f32(vec![8, 9], (0..72).map(|i| i as f32).collect());
    let init = systolic_cpu::CpuBuffer::from_f32(vec![], vec![1.0]);
    let out = kernel
        .run(vec![
            systolic_cpu::Arg::Borrowed(&x),
            systolic_cpu::Arg::Borrowed(&init),
        ])
        .unwrap();
    // Row r sums 9r..9r+8: 81r + 36, plus the init value 1.
    let want: Vec<f32> = (0..8).map(|r| 81.0 * r as f32 + 37.0).collect();
    assert_eq!(out[0].as_f32().unwrap(), want.as_slice());
}

#[test]
fn simple_row_reductions_take_the_rows_mode_and_others_the_slots_mode() {
    use systolic_cpu::kernels::fusion::reduce::plan::{plan_reduction, scalar_constant, Mode};
    let mode_of = |text: &str| -> &'static str {
        fusion_support::with_main_block(text, |spec, ctx| {
            let plan = plan_reduction(spec, &|v| ctx.tensor_type(v).ok().cloned(), &|v| {
                ctx.constant(v).and_then(scalar_constant)
            })
            .unwrap();
            match plan.mode {
                Mode::Rows(_) => "rows",
                Mode::Slots(_) => "slots",
            }
        })
    };
    let max_rows = "func.func @main(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}";
    assert_eq!(mode_of(max_rows), "rows");
    assert_eq!(
        mode_of(&reduce_module("64x1000", DType::F32, "1", "64", "add")),
        "rows"
    );
    assert_eq!(
        mode_of(&reduce_module("1000x64", DType::F32, "0", "64", "add")),
        "slots"
    );
    assert_eq!(
        mode_of(&reduce_module("64x1000", DType::BF16, "1", "64", "add")),
        "slots"
    );
    assert_eq!(mode_of(ARGMAX), "slots");
}

/// Sibling reduces fused into one kernel (a LayerNorm's scale and bias gradients) fold in the
/// interpreter's tree order, bit for bit, like a lone reduce: in bf16 a left fold over 2048
/// positions is off by tens of percent (lm_train_step_bf16's LayerNorm gradients were).
#[test]
fn sibling_sums_fold_in_the_interpreters_tree_exactly() {
    for (n, dtype) in [
        (2048, DType::BF16),
        (3000, DType::BF16),
        (1000, DType::F16),
        (5000, DType::F32),
        (20, DType::BF16),
    ] {
        let t = format!("tensor<{n}x8x{dtype}>");
        let r = format!("tensor<8x{dtype}>");
        let s = format!("tensor<{dtype}>");
        let text = format!(
            "func.func @main(%x: {t}, %y: {t}) -> ({r}, {r}) {{
  %z = stablehlo.constant dense<0.0> : {s}
  %p = stablehlo.multiply %x, %y : {t}
  %a = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [0] : ({t}, {s}) -> {r}
  %b = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : ({t}, {s}) -> {r}
  return %a, %b : {r}, {r}
}}"
        );
        // Finite values of one sign mostly, so the sums grow and bf16 drops low bits.
        let mut rng = Rng(n as u64);
        let inputs: Vec<Tensor> = (0..2)
            .map(|_| {
                let values = (0..n * 8)
                    .map(|_| 0.5 + rng.below(1000) as f64 / 1000.0)
                    .collect();
                Tensor::from_f64(vec![n as i64, 8], dtype, values).unwrap()
            })
            .collect();
        let (ours, want, inputs) = run_block(&text, n as u64, Some(inputs), true);
        assert_results(&ours, &want, &inputs, 0, &text);
    }
}

#[test]
fn per_channel_sums_over_outer_dimensions_fold_rows_in_the_interpreters_order() {
    // BatchNorm's statistics of an NHWC tensor: sums over N, H, W of a fused per-channel
    // producer. Few channels (24) and many positions (240): the slots mode computes 21
    // positions per producer run (512 lanes), the last run short; the fold order, and so every
    // bit, stays the interpreter's. Three sibling sums take the general slots path (one sum
    // alone, the one-op path: `column_sums_of_random_floats_fold_in_the_interpreters_order`).
    let t = "tensor<6x5x8x24xf32>";
    let text = format!(
        "func.func @main(%x: {t}, %m: tensor<24xf32>) -> (tensor<24xf32>, tensor<24xf32>, tensor<24xf32>) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %m, dims = [3] : (tensor<24xf32>) -> {t}
  %d = stablehlo.subtract %x, %b : {t}
  %q = stablehlo.multiply %d, %d : {t}
  %s = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [0, 1, 2] : ({t}, tensor<f32>) -> tensor<24xf32>
  %e = stablehlo.exponential %d : {t}
  %u = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0, 1, 2] : ({t}, tensor<f32>) -> tensor<24xf32>
  %v = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [0, 1, 2] : ({t}, tensor<f32>) -> tensor<24xf32>
  return %s, %u, %v : tensor<24xf32>, tensor<24xf32>, tensor<24xf32>
}}"
    );
    let (ours, want, inputs) = run_block(&text, 33, None, true);
    assert_results(&ours, &want, &inputs, 0, &text);
}
