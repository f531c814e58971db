//! Compiled vs interpreter on complex values (`complex<f32>`, `complex<f64>`): every op the
//! spec defines on them, on random shapes and random parts (edge values included), through the
//! optimising pipeline and without it.
//!
//! Elementwise ops, conversions and reductions on complex values run natively (the loop and
//! reduction kernels' complex lanes, see `complex_native.rs`) and must give the interpreter's
//! results bit for bit; these tests also check everything around the computation: complex
//! buffers and constants, the passes (simplification, fusion, constant folding) keeping
//! complex programs' meaning, and mixed programs of real and complex ops.

use crate::support;

use support::compare::Tolerance::{Close, Exact};
use support::harness::{check, check_many, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{Complex64, DType, Tensor, TensorType};

const CASES: u64 = 6;
/// The complex dtypes (shared with `complex_native`).
pub(crate) const COMPLEX: [DType; 2] = [DType::C64, DType::C128];

pub(crate) fn t(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

/// The dtype of a complex dtype's parts.
pub(crate) fn part(dtype: DType) -> DType {
    dtype.component().expect("complex")
}

#[test]
fn unary_ops() {
    let ops = [
        "negate",
        "sign",
        "exponential",
        "exponential_minus_one",
        "log",
        "log_plus_one",
        "sqrt",
        "rsqrt",
        "cbrt",
        "sine",
        "cosine",
        "tan",
        "tanh",
        "logistic",
    ];
    each_op_native_exact(
        0,
        CASES,
        &ops,
        1,
        |rng| rng.below(3) as usize,
        |op, ty| format!("  %r0 = stablehlo.{op} %a0 : {ty}"),
    );
}

/// Each of `ops` (seeds from `seed`, one per op) on `cases` random complex operands of one
/// type (`arity` of them, rank from `rank`), the line computing `%r0` written by `line`: native
/// and bit for bit the interpreter's.
pub(crate) fn each_op_native_exact(
    seed: u64,
    cases: u64,
    ops: &[&str],
    arity: usize,
    rank: impl Fn(&mut Rng) -> usize,
    line: impl Fn(&str, &TensorType) -> String,
) {
    for (k, op) in ops.iter().enumerate() {
        check_many(seed + k as u64, cases, Exact, Expect::Native, |rng| {
            let dtype = *rng.pick(&COMPLEX);
            let r = rank(rng);
            let ty = t(&random::shape(rng, r), dtype);
            Case::new(
                rng,
                &vec![ty.clone(); arity],
                &line(op, &ty),
                std::slice::from_ref(&ty),
            )
        });
    }
}

#[test]
fn parts_and_construction() {
    check_many(100, CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let shape = random::shape(rng, 2);
        let (c, f) = (t(&shape, dtype), t(&shape, part(dtype)));
        Case::new(
            rng,
            &[c.clone(), f.clone(), f.clone()],
            &format!(
                "  %r0 = stablehlo.real %a0 : ({c}) -> {f}\n  %r1 = stablehlo.imag %a0 : ({c}) -> {f}\n  \
                 %r2 = stablehlo.abs %a0 : ({c}) -> {f}\n  %r3 = stablehlo.complex %a1, %a2 : {c}"
            ),
            &[f.clone(), f.clone(), f, c],
        )
    });
}

#[test]
fn binary_ops_and_compare() {
    let ops = [
        "add", "subtract", "multiply", "divide", "power", "atan2", "maximum", "minimum",
    ];
    each_op_native_exact(
        200,
        CASES,
        &ops,
        2,
        |_| 2,
        |op, ty| format!("  %r0 = stablehlo.{op} %a0, %a1 : {ty}"),
    );
    check_many(300, CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let shape = random::shape(rng, 2);
        let (ty, b) = (t(&shape, dtype), t(&shape, DType::Bool));
        let dir = *rng.pick(&["EQ", "NE", "LT", "GE"]);
        Case::new(
            rng,
            &[ty.clone(), ty.clone()],
            &format!("  %r0 = stablehlo.compare {dir}, %a0, %a1, FLOAT : ({ty}, {ty}) -> {b}"),
            &[b],
        )
    });
}

#[test]
fn conversions() {
    let others = [
        DType::F32,
        DType::F64,
        DType::BF16,
        DType::I32,
        DType::U8,
        DType::Bool,
        DType::C64,
        DType::C128,
    ];
    check_many(400, 2 * CASES, Exact, Expect::Native, |rng| {
        conversion_case(rng, &others, false)
    });
}

/// Conversions between a random complex dtype and one of `others`, both ways, on random
/// inputs; when `chained`, also a negated complex value converted there and back inside one
/// fusion.
pub(crate) fn conversion_case(rng: &mut Rng, others: &[DType], chained: bool) -> Case {
    let dtype = *rng.pick(&COMPLEX);
    let other = *rng.pick(others);
    let shape = random::shape(rng, 2);
    let (c, o) = (t(&shape, dtype), t(&shape, other));
    let mut text = format!(
        "  %r0 = stablehlo.convert %a0 : ({c}) -> {o}\n  %r1 = stablehlo.convert %a1 : ({o}) -> {c}"
    );
    let mut results = vec![o.clone(), c.clone()];
    if chained {
        text += &format!(
            "\n  %x = stablehlo.negate %a0 : {c}
  %y = stablehlo.convert %x : ({c}) -> {o}
  %r2 = stablehlo.convert %y : ({o}) -> {c}"
        );
        results.push(c.clone());
    }
    Case::new(rng, &[c, o], &text, &results)
}

/// Real ops beside complex ones, fused and simplified around them; a complex constant (a
/// splat, which the simplifier turns into a broadcast) and data movement. The real `exp` runs
/// natively (within an ulp or two of the interpreter's), hence the tolerance.
#[test]
fn mixed_programs() {
    let tol = Close {
        rtol: 1e-5,
        atol: 1e-6,
    };
    check_many(500, CASES, tol, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let p = part(dtype);
        let (c, f, ct) = (t(&[3, 4], dtype), t(&[3, 4], p), t(&[4, 3], dtype));
        let one = if dtype == DType::C64 {
            "dense<(1.000000e+00,-2.000000e+00)>"
        } else {
            "dense<(1.500000e+00,0.000000e+00)>"
        };
        Case::new(
            rng,
            &[c.clone(), f.clone()],
            &format!(
                "  %k = stablehlo.constant {one} : {c}
  %x = stablehlo.multiply %a1, %a1 : {f}
  %y = stablehlo.exponential %x : {f}
  %z = stablehlo.complex %x, %y : {c}
  %w = stablehlo.add %z, %a0 : {c}
  %v = stablehlo.multiply %w, %k : {c}
  %r0 = stablehlo.transpose %v, dims = [1, 0] : ({c}) -> {ct}
  %r1 = stablehlo.abs %v : ({c}) -> {f}"
            ),
            &[ct, f],
        )
    });
}

/// A product (not bit for bit: `gemm` sums in another order, see `complex_native::dots_*`)
/// feeding a reduction and data movement. With an infinity or a NaN among the operands the
/// product runs the interpreter's loops, exactly; else within `gemm`'s rounding.
#[test]
fn products_reductions_and_movement() {
    let tol = Close {
        rtol: 1e-5,
        atol: 1e-3,
    };
    check_many(600, CASES, tol, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let (m, k, n) = (
            1 + rng.below(4) as i64,
            rng.below(5) as i64,
            1 + rng.below(4) as i64,
        );
        let (a, b, r) = (t(&[m, k], dtype), t(&[k, n], dtype), t(&[m, n], dtype));
        let (s, row) = (t(&[], dtype), t(&[n], dtype));
        let (cat, sl) = (t(&[2 * m, n], dtype), t(&[1, n], dtype));
        Case::new(
            rng,
            &[a, b, s.clone()],
            &format!(
                "  %r0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({}, {}) -> {r}
  %r1 = stablehlo.reduce(%r0 init: %a2) applies stablehlo.add across dimensions = [0] : ({r}, {s}) -> {row}
  %r2 = stablehlo.concatenate %r0, %r0, dim = 0 : ({r}, {r}) -> {cat}
  %r3 = stablehlo.slice %r2 [0:1, 0:{n}] : ({cat}) -> {sl}",
                t(&[m, k], dtype),
                t(&[k, n], dtype)
            ),
            &[r, row, cat, sl],
        )
    });
}

/// Plain values in [-2, 2) (no infinities or huge values, whose overflow differs between
/// the f32 kernel and the f64 interpreter).
fn plain(rng: &mut Rng, ty: &TensorType) -> Tensor {
    let n = ty.num_elements();
    let mut draw = || rng.unit() * 4.0 - 2.0;
    match ty.dtype.component().filter(|_| ty.dtype.is_complex()) {
        Some(_) => {
            let z = (0..n).map(|_| Complex64::new(draw(), draw())).collect();
            Tensor::from_complex(ty.shape.clone(), ty.dtype, z).unwrap()
        }
        None => {
            Tensor::from_f64(ty.shape.clone(), ty.dtype, (0..n).map(|_| draw()).collect()).unwrap()
        }
    }
}

/// The native FFT kernel (f32 data transformed in f32, as XLA:CPU does) against the
/// interpreter's f64 transforms: within a few f32 roundings of the largest magnitudes.
#[test]
fn fft_of_every_type() {
    for dtype in COMPLEX {
        let tol = if dtype == DType::C64 {
            Close {
                rtol: 1e-5,
                atol: 1e-4,
            }
        } else {
            Close {
                rtol: 1e-12,
                atol: 1e-11,
            }
        };
        check_many(700 + dtype as u64, CASES, tol, Expect::Native, |rng| {
            let axes = 1 + rng.below(3) as usize;
            let shape: Vec<i64> = (0..axes + rng.below(2) as usize)
                .map(|_| 1 + rng.below(9) as i64)
                .collect();
            fft_case(rng, &shape, axes, dtype)
        });
    }
}

/// The splat complex constant is not mistaken for a splat of its real part: a `complex<f64>`
/// splat whose imaginary part matters survives the simplifier.
#[test]
fn complex_splats_keep_both_parts() {
    for (dtype, value) in [
        (DType::C128, "(0.000000e+00,5.000000e+00)"),
        (DType::C64, "(0.000000e+00,5.000000e+00)"),
    ] {
        let ty = t(&[3], dtype);
        let case = Case::with_inputs(
            vec![random::tensor(&mut Rng::new(1), &ty)],
            &format!(
                "  %k = stablehlo.constant dense<{value}> : {ty}\n  %r0 = stablehlo.multiply %a0, %k : {ty}"
            ),
            std::slice::from_ref(&ty),
        );
        check(&case, Exact, Expect::Native);
    }
}

/// FFT and IFFT of a complex operand, RFFT of a real one and IRFFT of a half spectrum, over
/// the last `axes` dimensions of `shape`, on random inputs.
fn fft_case(rng: &mut Rng, shape: &[i64], axes: usize, dtype: DType) -> Case {
    let lengths = &shape[shape.len() - axes..];
    let mut half = shape.to_vec();
    *half.last_mut().unwrap() = shape[shape.len() - 1] / 2 + 1;
    let (c, f, h) = (t(shape, dtype), t(shape, part(dtype)), t(&half, dtype));
    let inputs = vec![plain(rng, &c), plain(rng, &f), plain(rng, &h)];
    Case::with_inputs(
        inputs,
        &format!(
            "  %r0 = stablehlo.fft %a0, type = FFT, length = {lengths:?} : ({c}) -> {c}
  %r1 = stablehlo.fft %a0, type = IFFT, length = {lengths:?} : ({c}) -> {c}
  %r2 = stablehlo.fft %a1, type = RFFT, length = {lengths:?} : ({f}) -> {h}
  %r3 = stablehlo.fft %a2, type = IRFFT, length = {lengths:?} : ({h}) -> {f}"
        ),
        &[c.clone(), c, h, f],
    )
}

/// Long and prime lengths (rustfft's Bluestein and Rader plans, with scratch larger than the
/// transform), batches with many rows per task, and last dimensions long enough for the
/// four-step method (a power of two and an odd length, alone, batched and under a leading
/// transformed dimension), against the interpreter.
#[test]
fn fft_of_long_and_prime_lengths() {
    let mut rng = Rng::new(811);
    for (shape, axes) in [
        (vec![3, 1031], 1),
        (vec![2, 17, 263], 2),
        (vec![40, 2048], 1),
        (vec![1 << 16], 1),
        (vec![2, 3 * 5 * 7 * 11 * 13 * 7], 1),
        (vec![3, 1 << 16], 2),
    ] {
        check(
            &fft_case(&mut rng, &shape, axes, DType::C64),
            Close {
                rtol: 1e-5,
                atol: 1e-3,
            },
            Expect::Native,
        );
    }
    // The four-step method in f64: its twiddles and passes lose nothing at f64's precision.
    for shape in [vec![1 << 16], vec![2, 3 * 5 * 7 * 11 * 13 * 7]] {
        check(
            &fft_case(&mut rng, &shape, 1, DType::C128),
            Close {
                rtol: 1e-12,
                atol: 1e-9,
            },
            Expect::Native,
        );
    }
}

/// Data movement on complex values runs natively (`dispatch_movable!`): every shape op on
/// random shapes, equal to the interpreter bit for bit.
#[test]
fn data_movement_is_native() {
    check_many(601, CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let (m, n) = (1 + rng.below(5) as i64, 1 + rng.below(6) as i64);
        let a = t(&[m, n], dtype);
        let s = t(&[], dtype);
        let (tr, bc) = (t(&[n, m], dtype), t(&[3, m, n], dtype));
        let (cat, padded) = (t(&[m, 2 * n], dtype), t(&[m + 3, n + 2 * n - 1], dtype));
        let (flat, col) = (t(&[m * n], dtype), t(&[m, 1], dtype));
        let row = t(&[1, n], dtype);
        Case::new(
            rng,
            &[a.clone(), s.clone(), t(&[], DType::I32)],
            &format!(
                "  %r0 = stablehlo.transpose %a0, dims = [1, 0] : ({a}) -> {tr}
  %r1 = stablehlo.broadcast_in_dim %a0, dims = [1, 2] : ({a}) -> {bc}
  %r2 = stablehlo.reverse %a0, dims = [0, 1] : {a}
  %r3 = stablehlo.concatenate %a0, %r2, dim = 1 : ({a}, {a}) -> {cat}
  %r4 = stablehlo.pad %a0, %a1, low = [1, 0], high = [2, {n}], interior = [0, 1] : ({a}, {s}) -> {padded}
  %r5 = stablehlo.reshape %a0 : ({a}) -> {flat}
  %r6 = stablehlo.dynamic_slice %a0, %a2, %a2, sizes = [{m}, 1] : ({a}, tensor<i32>, tensor<i32>) -> {col}
  %r7 = stablehlo.dynamic_update_slice %a0, %r6, %a2, %a2 : ({a}, {col}, tensor<i32>, tensor<i32>) -> {a}
  %r8 = stablehlo.broadcast_in_dim %a1, dims = [] : ({s}) -> {a}
  %i = stablehlo.reshape %a2 : (tensor<i32>) -> tensor<1x1xi32>
  %r9 = \"stablehlo.gather\"(%a0, %i) <{{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, {n}>}}> : ({a}, tensor<1x1xi32>) -> {row}"
            ),
            &[tr, bc, a.clone(), cat, padded, flat, col, a.clone(), a, row],
        )
    });
}
