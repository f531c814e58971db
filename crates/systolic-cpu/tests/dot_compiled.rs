//! Products through the whole compiler: dot_general, the legacy dot and convolution, alone and
//! in product fusions with bias and activation epilogues, compiled and compared with the
//! interpreter on random inputs; none may fall back to the interpreter.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, Tensor, TensorType};

/// f32 sums of at most a few hundred products of values in [-1, 1]: a few ulps of the sum's
/// magnitude.
const CLOSE: Tolerance = Tolerance::Close {
    rtol: 1e-4,
    atol: 1e-4,
};

/// A case with random inputs without the largest finite floats: f32 accumulation and the
/// interpreter's f64 sums legitimately disagree on whether sums of those overflow.
fn case(rng: &mut Rng, params: &[TensorType], ops: &str, results: &[TensorType]) -> Case {
    let inputs = params
        .iter()
        .map(|t| random::tensor_no_huge(rng, t))
        .collect();
    Case::with_inputs(inputs, ops, results)
}

/// A case with finite random floats in [-2, 2). Convolutions need them: XLA multiplies the
/// zero padding by the weights (0·inf = NaN) but skips lhs-dilation holes, while the
/// interpreter skips both and im2col multiplies both, so non-finite weights legitimately
/// disagree at the borders.
fn finite_case(rng: &mut Rng, params: &[TensorType], ops: &str, results: &[TensorType]) -> Case {
    let inputs = params
        .iter()
        .map(|t| {
            let values = (0..t.num_elements())
                .map(|_| 4.0 * rng.unit() - 2.0)
                .collect();
            Tensor::from_f64(t.shape.clone(), t.dtype, values).expect("float tensor")
        })
        .collect();
    Case::with_inputs(inputs, ops, results)
}

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

#[test]
fn dot_general_with_bias_and_relu_epilogue() {
    let mut rng = Rng::new(11);
    let (a, b, bias) = (
        ty(&[37, 64], DType::F32),
        ty(&[64, 20], DType::F32),
        ty(&[20], DType::F32),
    );
    let r = ty(&[37, 20], DType::F32);
    let ops = format!(
        "  %d = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({a}, {b}) -> {r}
  %bb = stablehlo.broadcast_in_dim %a2, dims = [1] : ({bias}) -> {r}
  %s = stablehlo.add %d, %bb : {r}
  %z = stablehlo.constant dense<0.0> : {r}
  %r0 = stablehlo.maximum %s, %z : {r}"
    );
    let case = case(&mut rng, &[a, b, bias], &ops, &[r]);
    check(&case, CLOSE, Expect::Native);
    // The epilogue was fused with the product and runs on the product-fusion kernel.
    let exe = support::compile_main(&support::parse(&case.text));
    let names: Vec<String> = exe
        .program()
        .steps()
        .iter()
        .map(|s| s.kernel_name())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.contains("(product)") && n.contains("dot_general")),
        "{names:?}"
    );
}

#[test]
fn batched_bf16_dot_with_convert_epilogue() {
    let mut rng = Rng::new(12);
    let (a, b) = (ty(&[3, 40, 48], DType::BF16), ty(&[3, 48, 33], DType::BF16));
    let (acc, r) = (ty(&[3, 40, 33], DType::F32), ty(&[3, 40, 33], DType::BF16));
    let ops = format!(
        "  %d = stablehlo.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : ({a}, {b}) -> {acc}
  %t = stablehlo.tanh %d : {acc}
  %r0 = stablehlo.convert %t : ({acc}) -> {r}"
    );
    let case = case(&mut rng, &[a, b], &ops, &[r]);
    check(
        &case,
        Tolerance::Close {
            rtol: 1e-2,
            atol: 1e-2,
        },
        Expect::Native,
    );
}

#[test]
fn int8_dot_to_i32_and_legacy_dot() {
    let mut rng = Rng::new(13);
    let (a, b, r) = (
        ty(&[50, 70], DType::I8),
        ty(&[70, 40], DType::I8),
        ty(&[50, 40], DType::I32),
    );
    let ops = format!(
        "  %r0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({a}, {b}) -> {r}"
    );
    check(
        &case(&mut rng, &[a, b], &ops, &[r]),
        Tolerance::Exact,
        Expect::Native,
    );
    let (a, b, r) = (
        ty(&[9, 5], DType::F32),
        ty(&[5], DType::F32),
        ty(&[9], DType::F32),
    );
    let ops = format!("  %r0 = stablehlo.dot %a0, %a1 : ({a}, {b}) -> {r}");
    check(&case(&mut rng, &[a, b], &ops, &[r]), CLOSE, Expect::Native);
}

#[test]
fn convolution_with_bias_and_relu_epilogue() {
    let mut rng = Rng::new(14);
    let (x, w, bias) = (
        ty(&[2, 9, 9, 4], DType::F32),
        ty(&[3, 3, 2, 6], DType::F32),
        ty(&[6], DType::F32),
    );
    let r = ty(&[2, 5, 7, 6], DType::F32);
    let ops = format!(
        "  %c = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [2, 1], pad = [[1, 1], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 2], reverse = [false, false]}} {{batch_group_count = 1 : i64, feature_group_count = 2 : i64}} : ({x}, {w}) -> {r}
  %bb = stablehlo.broadcast_in_dim %a2, dims = [3] : ({bias}) -> {r}
  %s = stablehlo.add %c, %bb : {r}
  %z = stablehlo.constant dense<0.0> : {r}
  %r0 = stablehlo.maximum %s, %z : {r}"
    );
    let case = finite_case(&mut rng, &[x, w, bias], &ops, &[r]);
    check(&case, CLOSE, Expect::Native);
}
