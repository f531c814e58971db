//! Product fusions whose epilogue runs as one fused loop (`kernels/dot/epilogue.rs`): the
//! epilogues JAX emits (scalar constants broadcast, bias through a broadcast, relu, tanh-gelu,
//! residual adds, scaling of batched products, converts), compiled and compared with the
//! interpreter on random inputs of odd sizes, size 0 and 1, in f32, f64 and bf16; each must run
//! on the fused-epilogue kernel, never on the interpreter fallback.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, TensorType};

/// Sums of at most a few hundred products of values of about ±400: f32 accumulation against
/// the interpreter's f64 sums.
const F32_CLOSE: Tolerance = Tolerance::Close {
    rtol: 1e-4,
    atol: 1e-3,
};

/// bf16 results are rounded to 8 bits of mantissa (after each epilogue op, as XLA:CPU does).
const BF16_CLOSE: Tolerance = Tolerance::Close {
    rtol: 2e-2,
    atol: 2e-2,
};

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

fn tolerance(dtype: DType) -> Tolerance {
    match dtype {
        DType::BF16 => BF16_CLOSE,
        DType::F64 => Tolerance::Close {
            rtol: 1e-12,
            atol: 1e-10,
        },
        _ => F32_CLOSE,
    }
}

/// A case with random inputs without the largest finite floats.
fn case(rng: &mut Rng, params: &[TensorType], ops: &str, results: &[TensorType]) -> Case {
    let inputs = params
        .iter()
        .map(|t| random::tensor_no_huge(rng, t))
        .collect();
    Case::with_inputs(inputs, ops, results)
}

/// Checks `case` against the interpreter and that, optimised, it runs a fused-epilogue
/// product kernel (unless an input is empty: the simplifier then folds the product away).
fn check_fused(case: &Case, tol: Tolerance) {
    check(case, tol, Expect::Native);
    if case.inputs.iter().any(|t| t.num_elements() == 0) {
        return;
    }
    let exe = support::compile_main(&support::parse(&case.text));
    let names: Vec<String> = exe
        .program()
        .steps()
        .iter()
        .map(|s| s.kernel_name())
        .collect();
    assert!(
        names.iter().any(|n| n.contains("fused epilogue")),
        "no fused-epilogue kernel: {names:?}\n{}",
        case.text
    );
}

/// Sizes with the edge cases: 1, odd, a few blocks of the loop compiler (512 lanes), 0 rarely.
fn size(rng: &mut Rng) -> i64 {
    *rng.pick(&[1, 2, 3, 7, 17, 33, 64, 129, 0])
}

/// `relu(x @ w + b)` as JAX writes it: a scalar zero broadcast, the bias broadcast over rows.
fn dense_relu(m: i64, k: i64, n: i64, dtype: DType) -> (Vec<TensorType>, String, TensorType) {
    let (x, w, b, r) = (
        ty(&[m, k], dtype),
        ty(&[k, n], dtype),
        ty(&[n], dtype),
        ty(&[m, n], dtype),
    );
    let ops = format!(
        "  %d = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({x}, {w}) -> {r}
  %bb = stablehlo.broadcast_in_dim %a2, dims = [1] : ({b}) -> {r}
  %s = stablehlo.add %d, %bb : {r}
  %z = stablehlo.constant dense<0.0> : tensor<{dtype}>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<{dtype}>) -> {r}
  %r0 = stablehlo.maximum %s, %zb : {r}"
    );
    (vec![x, w, b], ops, r)
}

#[test]
fn bias_and_relu_with_scalar_constants_every_float_dtype() {
    let mut rng = Rng::new(301);
    for dtype in [DType::F32, DType::F64, DType::BF16] {
        for _ in 0..6 {
            let (m, k, n) = (size(&mut rng), size(&mut rng), size(&mut rng));
            let (params, ops, r) = dense_relu(m, k, n, dtype);
            let case = case(&mut rng, &params, &ops, &[r]);
            check_fused(&case, tolerance(dtype));
        }
    }
}

#[test]
fn large_bias_and_relu_runs_over_both_cores() {
    // More than the loop compiler's parallel threshold (65536 elements) of results.
    let mut rng = Rng::new(302);
    let (params, ops, r) = dense_relu(300, 40, 257, DType::F32);
    let case = case(&mut rng, &params, &ops, &[r]);
    check_fused(&case, F32_CLOSE);
}

/// JAX's `gelu(approximate=True)` of `x @ w + c`.
fn dense_gelu(m: i64, k: i64, n: i64, dtype: DType) -> (Vec<TensorType>, String, TensorType) {
    let (x, w, c, r) = (
        ty(&[m, k], dtype),
        ty(&[k, n], dtype),
        ty(&[n], dtype),
        ty(&[m, n], dtype),
    );
    let s = format!("tensor<{dtype}>");
    let scalar = |name: &str, v: &str| {
        format!(
            "  %{name}0 = stablehlo.constant dense<{v}> : {s}
  %{name} = stablehlo.broadcast_in_dim %{name}0, dims = [] : ({s}) -> {r}\n"
        )
    };
    let ops = format!(
        "  %d = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({x}, {w}) -> {r}
  %cb = stablehlo.broadcast_in_dim %a2, dims = [1] : ({c}) -> {r}
  %h = stablehlo.add %d, %cb : {r}
  %h2 = stablehlo.multiply %h, %h : {r}
  %h3 = stablehlo.multiply %h2, %h : {r}
{}  %t0 = stablehlo.multiply %h3, %k1 : {r}
  %t1 = stablehlo.add %h, %t0 : {r}
{}  %t2 = stablehlo.multiply %t1, %k2 : {r}
  %t3 = stablehlo.tanh %t2 : {r}
{}  %t4 = stablehlo.add %t3, %one : {r}
{}  %t5 = stablehlo.multiply %t4, %half : {r}
  %r0 = stablehlo.multiply %h, %t5 : {r}",
        scalar("k1", "4.471500e-02"),
        scalar("k2", "0.797884583"),
        scalar("one", "1.0"),
        scalar("half", "0.5"),
    );
    (vec![x, w, c], ops, r)
}

#[test]
fn tanh_gelu_epilogue_every_float_dtype() {
    let mut rng = Rng::new(303);
    for dtype in [DType::F32, DType::F64, DType::BF16] {
        for (m, k, n) in [(1, 1, 1), (5, 3, 7), (33, 17, 129), (0, 4, 3), (3, 0, 5)] {
            let (params, ops, r) = dense_gelu(m, k, n, dtype);
            let case = case(&mut rng, &params, &ops, &[r]);
            // tanh is within a few ulps of the interpreter's; the products dominate anyway.
            check_fused(&case, tolerance(dtype));
        }
    }
}

#[test]
fn residual_adds_around_a_batched_dense_layer() {
    // The transformer's second MLP matmul: x + y + h @ w2 + c2 over [B, S, D].
    let mut rng = Rng::new(304);
    for (b, s, f, d) in [(2, 3, 5, 4), (1, 1, 1, 1), (3, 7, 17, 9)] {
        let (h, w, xin, c, r) = (
            ty(&[b, s, f], DType::F32),
            ty(&[f, d], DType::F32),
            ty(&[b, s, d], DType::F32),
            ty(&[d], DType::F32),
            ty(&[b, s, d], DType::F32),
        );
        let ops = format!(
            "  %p = stablehlo.dot_general %a0, %a1, contracting_dims = [2] x [0] : ({h}, {w}) -> {r}
  %xy = stablehlo.add %a2, %a3 : {r}
  %s = stablehlo.add %xy, %p : {r}
  %cb = stablehlo.broadcast_in_dim %a4, dims = [2] : ({c}) -> {r}
  %r0 = stablehlo.add %s, %cb : {r}"
        );
        let case = case(&mut rng, &[h, w, xin.clone(), xin, c], &ops, &[r]);
        check_fused(&case, F32_CLOSE);
    }
}

#[test]
fn scaled_batched_attention_scores() {
    // q·kᵀ over batch and head dimensions, divided by a scalar, as JAX's einsum gives it.
    let mut rng = Rng::new(305);
    for (b, s, h, d) in [(2, 5, 3, 4), (1, 1, 1, 1), (2, 9, 2, 8)] {
        let (q, r) = (ty(&[b, s, h, d], DType::F32), ty(&[b, h, s, s], DType::F32));
        let ops = format!(
            "  %p = stablehlo.dot_general %a0, %a1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : ({q}, {q}) -> {r}
  %c = stablehlo.constant dense<8.0> : tensor<f32>
  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> {r}
  %r0 = stablehlo.divide %p, %cb : {r}"
        );
        let case = case(&mut rng, &[q.clone(), q], &ops, &[r]);
        check_fused(&case, F32_CLOSE);
    }
}

#[test]
fn bf16_product_with_f32_accumulation_and_convert_epilogue() {
    let mut rng = Rng::new(306);
    for (m, k, n) in [(40, 48, 33), (1, 2, 1), (64, 64, 64)] {
        let (a, b) = (ty(&[m, k], DType::BF16), ty(&[k, n], DType::BF16));
        let (acc, r) = (ty(&[m, n], DType::F32), ty(&[m, n], DType::BF16));
        let ops = format!(
            "  %d = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({a}, {b}) -> {acc}
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> {acc}
  %m = stablehlo.maximum %d, %zb : {acc}
  %r0 = stablehlo.convert %m : ({acc}) -> {r}"
        );
        let case = case(&mut rng, &[a, b], &ops, &[r]);
        check_fused(&case, BF16_CLOSE);
    }
}

#[test]
fn product_and_its_activation_both_returned() {
    // The product's result is read outside the fusion too: a second result of the fusion.
    let mut rng = Rng::new(307);
    let (x, w, r) = (
        ty(&[9, 6], DType::F32),
        ty(&[6, 11], DType::F32),
        ty(&[9, 11], DType::F32),
    );
    let ops = format!(
        "  %r0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({x}, {w}) -> {r}
  %t = stablehlo.tanh %r0 : {r}
  %r1 = stablehlo.add %t, %r0 : {r}"
    );
    let case = case(&mut rng, &[x, w], &ops, &[r.clone(), r]);
    check(&case, F32_CLOSE, Expect::Native);
}

#[test]
fn convolution_with_jax_style_relu() {
    let mut rng = Rng::new(308);
    let (x, w, bias) = (
        ty(&[2, 9, 9, 4], DType::F32),
        ty(&[3, 3, 4, 6], DType::F32),
        ty(&[6], DType::F32),
    );
    let r = ty(&[2, 7, 7, 6], DType::F32);
    let ops = format!(
        "  %c = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({x}, {w}) -> {r}
  %bb = stablehlo.broadcast_in_dim %a2, dims = [3] : ({bias}) -> {r}
  %s = stablehlo.add %c, %bb : {r}
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> {r}
  %r0 = stablehlo.maximum %s, %zb : {r}"
    );
    // Finite inputs: XLA multiplies convolution padding by the weights (see dot_compiled.rs).
    let inputs = [x, w, bias]
        .iter()
        .map(|t| {
            let values = (0..t.num_elements())
                .map(|_| 4.0 * rng.unit() - 2.0)
                .collect();
            systolic_ir::Tensor::from_f64(t.shape.clone(), t.dtype, values).unwrap()
        })
        .collect();
    let case = Case::with_inputs(inputs, &ops, &[r]);
    check_fused(&case, F32_CLOSE);
}

#[test]
fn an_epilogue_reading_the_product_through_a_view_runs_after_it() {
    // Not a shape the fusion pass makes (it does not pass computed values through views), but
    // a valid fusion: the epilogue reads the product transposed, so it cannot run in ranges.
    let text = r#"func.func @main(%a: tensor<5x3xf32>, %b: tensor<3x5xf32>, %c: tensor<5x5xf32>) -> tensor<5x5xf32> {
  %0 = "systolic.fusion"(%a, %b, %c) ({
  ^bb0(%x: tensor<5x3xf32>, %y: tensor<3x5xf32>, %z: tensor<5x5xf32>):
    %1 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<5x3xf32>, tensor<3x5xf32>) -> tensor<5x5xf32>
    %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %3 = stablehlo.add %2, %z : tensor<5x5xf32>
    stablehlo.return %3 : tensor<5x5xf32>
  }) {kind = "product", name = "fusion.0"} : (tensor<5x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}"#;
    let mut rng = Rng::new(309);
    let module = support::parse(text);
    let inputs: Vec<systolic_ir::Tensor> = module
        .func("main")
        .unwrap()
        .param_types()
        .iter()
        .map(|t| random::tensor_no_huge(&mut rng, t.as_tensor().unwrap()))
        .collect();
    let case = Case {
        text: text.to_string(),
        inputs,
    };
    check_fused(&case, F32_CLOSE);
}

/// A power-of-two scale of a product (`/ 8`, `* 0.125` either side, `* -2`) runs inside the
/// f32/f64 product itself and gives the very bits of the product followed by the scaling op
/// (the unoptimised program, op by op); other scales (`/ 3`) keep the loop epilogue.
#[test]
fn power_of_two_scales_run_inside_the_product() {
    let mut rng = Rng::new(310);
    for dtype in [DType::F32, DType::F64] {
        let e = if dtype == DType::F32 { "f32" } else { "f64" };
        for (b, s, h, d) in [(2, 5, 3, 4), (1, 1, 1, 1), (2, 33, 4, 8)] {
            let (q, r) = (ty(&[b, s, h, d], dtype), ty(&[b, h, s, s], dtype));
            for (scale, expr, inside) in [
                ("8.0", "stablehlo.divide %p, %cb", true),
                ("0.125", "stablehlo.multiply %p, %cb", true),
                ("0.125", "stablehlo.multiply %cb, %p", true),
                ("-2.0", "stablehlo.multiply %p, %cb", true),
                ("3.0", "stablehlo.divide %p, %cb", false),
            ] {
                let ops = format!(
                    "  %p = stablehlo.dot_general %a0, %a1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : ({q}, {q}) -> {r}
  %c = stablehlo.constant dense<{scale}> : tensor<{e}>
  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<{e}>) -> {r}
  %r0 = {expr} : {r}"
                );
                let case = case(
                    &mut rng,
                    &[q.clone(), q.clone()],
                    &ops,
                    std::slice::from_ref(&r),
                );
                check_fused(&case, tolerance(dtype));
                let module = support::parse(&case.text);
                let fused = support::compile_main(&module);
                let names: Vec<String> = fused
                    .program()
                    .steps()
                    .iter()
                    .map(|s| s.kernel_name())
                    .collect();
                let scaled = names.iter().any(|n| n.contains("inside the product"));
                assert_eq!(scaled, inside, "{scale} {expr}: {names:?}");
                let args: Vec<systolic_cpu::CpuBuffer> = case
                    .inputs
                    .iter()
                    .map(systolic_cpu::CpuBuffer::from_tensor)
                    .collect();
                let refs: Vec<&systolic_cpu::CpuBuffer> = args.iter().collect();
                let op_by_op = support::compile_main_with(&module, false);
                let want = op_by_op.execute_borrowed(&refs).unwrap()[0].to_tensor();
                let got = fused.execute_borrowed(&refs).unwrap()[0].to_tensor();
                if inside {
                    // The same numbers, NaN where the op-by-op program has NaN (the random
                    // inputs include infinities).
                    let same = got
                        .to_f64_vec()
                        .iter()
                        .zip(want.to_f64_vec())
                        .all(|(g, w)| *g == w || (g.is_nan() && w.is_nan()));
                    assert!(same, "{scale} {expr} {dtype}: {got:?} vs {want:?}");
                }
            }
        }
    }
}
