//! Complex arithmetic on native kernels (`fusion/elementwise/complex.rs`, the reduction
//! kernels' slots mode, `gemm`'s complex products): every op on random inputs (edge values
//! included: ±0, ±inf, NaN, the largest finite values) of both complex dtypes must run natively
//! (`Expect::Native`) and give the interpreter's results — bit for bit for elementwise ops and
//! reductions (the kernels call the interpreter's functions and fold in its tree order), within
//! a stated tolerance for products (`gemm` reorders and fuses the sums).

use crate::complex::{conversion_case, each_op_native_exact, part, t, COMPLEX};
use crate::support;

use support::compare::Tolerance::{self, Close, Exact};
use support::harness::{check, check_many, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{Complex64, DType, Tensor, TensorType};

const CASES: u64 = 4;

/// The CHLO ops JAX emits on complex values (`jnp.square`, `jnp.sinh`, `jnp.arcsin`, …) stay
/// CHLO through the pipeline and run natively; `conj` moves the parts unrounded.
#[test]
fn chlo_ops_are_native_and_exact() {
    let ops = [
        "square", "sinh", "cosh", "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh", "conj",
    ];
    each_op_native_exact(
        1000,
        CASES,
        &ops,
        1,
        |_| 2,
        |op, ty| format!("  %r0 = chlo.{op} %a0 : {ty} -> {ty}"),
    );
}

/// Comparisons in every direction, IEEE and total order; select and clamp (the spec's
/// lexicographic maximum and minimum) on complex values.
#[test]
fn compare_select_and_clamp_are_native_and_exact() {
    let dirs = ["EQ", "NE", "LT", "LE", "GT", "GE"];
    check_many(1100, 3 * CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let shape = random::shape(rng, 2);
        let (c, b, s) = (t(&shape, dtype), t(&shape, DType::Bool), t(&[], dtype));
        let (d0, d1) = (*rng.pick(&dirs), *rng.pick(&dirs));
        let mut inputs = vec![
            random::tensor(rng, &c),
            random::tensor(rng, &c),
            random::tensor(rng, &s),
        ];
        // Equal elements too, so EQ/LE/GE meet equality.
        inputs.push(inputs[0].clone());
        Case::with_inputs(
            inputs,
            &format!(
                "  %r0 = stablehlo.compare {d0}, %a0, %a1, FLOAT : ({c}, {c}) -> {b}
  %r1 = stablehlo.compare {d1}, %a0, %a3, TOTALORDER : ({c}, {c}) -> {b}
  %r2 = stablehlo.select %r0, %a0, %a1 : {b}, {c}
  %r3 = stablehlo.clamp %a2, %a0, %a1 : ({s}, {c}, {c}) -> {c}"
            ),
            &[b.clone(), b, c.clone(), c],
        )
    });
}

/// Fusions mixing real and complex values: `abs(z) * x`, `complex(a, b) * z`, real and
/// imaginary parts of complex results, conversions in both directions inside one fusion,
/// complex constants (a splat and a dense one) and an iota, with broadcasts and a transpose.
#[test]
fn mixed_real_and_complex_fusions_are_native_and_exact() {
    check_many(1200, 3 * CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let p = part(dtype);
        let (m, n) = (1 + rng.below(4) as i64, 1 + rng.below(5) as i64);
        let (c, f, ct, row) = (
            t(&[m, n], dtype),
            t(&[m, n], p),
            t(&[n, m], dtype),
            t(&[n], dtype),
        );
        let i32s = t(&[m, n], DType::I32);
        let dense: Vec<String> = (0..n)
            .map(|j| format!("({}.5, -{}.25)", j, j + 1))
            .collect();
        Case::new(
            rng,
            &[c.clone(), c.clone(), f.clone(), f.clone(), i32s.clone()],
            &format!(
                "  %k = stablehlo.constant dense<(2.000000e+00,-1.000000e+00)> : {c}
  %d = stablehlo.constant dense<[{}]> : {row}
  %db = stablehlo.broadcast_in_dim %d, dims = [1] : ({row}) -> {c}
  %io = stablehlo.iota dim = 1 : {c}
  %ab = stablehlo.abs %a0 : ({c}) -> {f}
  %r0 = stablehlo.multiply %ab, %a2 : {f}
  %z = stablehlo.complex %a2, %a3 : {c}
  %zw = stablehlo.multiply %z, %a1 : {c}
  %s = stablehlo.add %zw, %k : {c}
  %s2 = stablehlo.subtract %s, %db : {c}
  %r1 = stablehlo.add %s2, %io : {c}
  %r2 = stablehlo.real %r1 : ({c}) -> {f}
  %im = stablehlo.imag %zw : ({c}) -> {f}
  %ci = stablehlo.convert %a4 : ({i32s}) -> {c}
  %q = stablehlo.divide %a0, %ci : {c}
  %r3 = stablehlo.convert %q : ({c}) -> {i32s}
  %e = stablehlo.exponential %q : {c}
  %r4 = stablehlo.transpose %e, dims = [1, 0] : ({c}) -> {ct}
  %r5 = stablehlo.add %im, %r2 : {f}",
                dense.join(", ")
            ),
            &[f.clone(), c, f.clone(), i32s, ct, f],
        )
    });
}

/// Conversions between the complex dtypes and from/to every other kind, one op per kernel and
/// chained inside a fusion.
#[test]
fn conversions_are_native_and_exact() {
    let others = [
        DType::F32,
        DType::F64,
        DType::BF16,
        DType::F16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::Bool,
        DType::C64,
        DType::C128,
    ];
    check_many(1300, 4 * CASES, Exact, Expect::Native, |rng| {
        conversion_case(rng, &others, true)
    });
}

/// `bitcast_convert` between `complex<f32>` and the other 64-bit types runs on the loop
/// kernels (real part in the low half).
#[test]
fn complex64_bitcasts_are_native() {
    check_many(1350, CASES, Exact, Expect::Native, |rng| {
        let shape = random::shape(rng, 2);
        let (c, i, f) = (
            t(&shape, DType::C64),
            t(&shape, DType::I64),
            t(&shape, DType::F64),
        );
        Case::new(
            rng,
            &[c.clone(), f.clone()],
            &format!(
                "  %r0 = stablehlo.bitcast_convert %a0 : ({c}) -> {i}
  %r1 = stablehlo.bitcast_convert %a1 : ({f}) -> {c}"
            ),
            &[i, c],
        )
    });
}

/// Sums and products over each dimension and over all, of parameters and of elementwise
/// fusions (`sum(abs(z)**2)`, `sum(z * w)`), with both reducer operand orders; lengths past the
/// tree's window of 32 so the interpreter's tree order is what makes them exact.
#[test]
fn reductions_are_native_and_exact() {
    check_many(1400, 3 * CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&COMPLEX);
        let p = part(dtype);
        let (m, n) = (1 + rng.below(70) as i64, 1 + rng.below(40) as i64);
        let (c, f, s, fs) = (t(&[m, n], dtype), t(&[m, n], p), t(&[], dtype), t(&[], p));
        let (col, row) = (t(&[n], dtype), t(&[m], dtype));
        let inputs = vec![
            random::tensor_no_huge(rng, &c),
            random::tensor_no_huge(rng, &c),
            Tensor::from_complex(vec![], dtype, vec![Complex64::new(0.0, 0.0)]).unwrap(),
            Tensor::from_complex(vec![], dtype, vec![Complex64::new(1.0, 0.0)]).unwrap(),
        ];
        Case::with_inputs(
            inputs,
            &format!(
                "  %r0 = stablehlo.reduce(%a0 init: %a2) applies stablehlo.add across dimensions = [0] : ({c}, {s}) -> {col}
  %r1 = stablehlo.reduce(%a0 init: %a2) applies stablehlo.add across dimensions = [1] : ({c}, {s}) -> {row}
  %r2 = stablehlo.reduce(%a0 init: %a3) applies stablehlo.multiply across dimensions = [0] : ({c}, {s}) -> {col}
  %ab = stablehlo.abs %a0 : ({c}) -> {f}
  %sq = stablehlo.multiply %ab, %ab : {f}
  %z = stablehlo.constant dense<0.0> : {fs}
  %r3 = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0, 1] : ({f}, {fs}) -> {fs}
  %zw = stablehlo.multiply %a0, %a1 : {c}
  %r4 = stablehlo.reduce(%zw init: %a2) applies stablehlo.add across dimensions = [1] : ({c}, {s}) -> {row}
  %r5 = \"stablehlo.reduce\"(%zw, %a2) ({{
  ^bb0(%acc: {s}, %x: {s}):
    %y = stablehlo.add %x, %acc : {s}
    stablehlo.return %y : {s}
  }}) {{dimensions = array<i64: 0>}} : ({c}, {s}) -> {col}"
            ),
            &[col.clone(), row.clone(), col.clone(), fs, row, col],
        )
    });
}

/// A reduction over all of a large complex array (the threaded slots path: 2^17 elements in
/// one slot, its top windows folded in parallel) and one with many kept slots.
#[test]
fn large_reductions_are_native_and_exact() {
    for (k, dtype) in COMPLEX.into_iter().enumerate() {
        let mut rng = Rng::new(1450 + k as u64);
        for shape in [vec![1 << 17], vec![96, 1024]] {
            let c = t(&shape, dtype);
            let rank = shape.len() as i64;
            let dims: Vec<String> = (0..rank).map(|d| d.to_string()).collect();
            let kept = t(&shape[1..], dtype);
            let (s, x) = (t(&[], dtype), random::tensor_no_huge(&mut rng, &c));
            let zero = Tensor::from_complex(vec![], dtype, vec![Complex64::new(0.0, 0.0)]).unwrap();
            let case = Case::with_inputs(
                vec![x, zero],
                &format!(
                    "  %r0 = stablehlo.reduce(%a0 init: %a1) applies stablehlo.add across dimensions = [{}] : ({c}, {s}) -> {s}
  %w = stablehlo.multiply %a0, %a0 : {c}
  %r1 = stablehlo.reduce(%w init: %a1) applies stablehlo.add across dimensions = [0] : ({c}, {s}) -> {kept}",
                    dims.join(", ")
                ),
                &[s.clone(), kept],
            );
            check(&case, Exact, Expect::Native);
        }
    }
}

/// Elementwise fusions over large arrays take the threaded path (≥ 2^16 elements per stage).
#[test]
fn large_elementwise_fusions_are_native_and_exact() {
    for (k, dtype) in COMPLEX.into_iter().enumerate() {
        let mut rng = Rng::new(1500 + k as u64);
        let c = t(&[3, 70_001], dtype);
        let f = t(&[3, 70_001], part(dtype));
        let case = Case::new(
            &mut rng,
            &[c.clone(), c.clone()],
            &format!(
                "  %m = stablehlo.multiply %a0, %a1 : {c}
  %r0 = stablehlo.add %m, %a0 : {c}
  %d = stablehlo.divide %a0, %a1 : {c}
  %e = stablehlo.exponential %d : {c}
  %r1 = stablehlo.abs %e : ({c}) -> {f}"
            ),
            &[c, f],
        );
        check(&case, Exact, Expect::Native);
    }
}

/// `exp`, `sin` and `cos` of `complex<f32>` (vectorised f64 polynomials, the library near f32
/// midpoints and outside their ranges) over large arrays on the threaded path: parts from
/// underflow to overflow, up to 1e6 and 1e30, edge values mixed in; bit for bit the
/// interpreter's.
#[test]
fn exp_sin_cos_of_complex64_over_wide_ranges_are_exact() {
    let mut rng = Rng::new(1550);
    let n = 70_001usize;
    let edges = [
        0.0,
        -0.0,
        1e-40,
        88.72,
        -103.9,
        1e30,
        -1e30,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * rng.unit();
    let values: Vec<Complex64> = (0..3 * n)
        .map(|i| match i % 5 {
            0 => Complex64::new(uniform(-5.0, 5.0), uniform(-10.0, 10.0)),
            1 => Complex64::new(uniform(-120.0, 90.0), uniform(-1e6, 1e6)),
            2 => Complex64::new(uniform(-1e-3, 1e-3), uniform(-1e-3, 1e-3)),
            3 => Complex64::new(edges[i / 5 % edges.len()], uniform(-4.0, 4.0)),
            _ => Complex64::new(uniform(-2.0, 2.0), edges[i / 5 % edges.len()]),
        })
        .collect();
    let c = t(&[3, n as i64], DType::C64);
    let x = Tensor::from_complex(vec![3, n as i64], DType::C64, values).unwrap();
    let case = Case::with_inputs(
        vec![x],
        &format!(
            "  %r0 = stablehlo.exponential %a0 : {c}
  %r1 = stablehlo.sine %a0 : {c}
  %r2 = stablehlo.cosine %a0 : {c}"
        ),
        &[c.clone(), c.clone(), c.clone()],
    );
    check(&case, Exact, Expect::Native);
}

/// Complex values with parts in [-2, 2) (products of infinities and huge values overflow
/// differently in f32 sums than in the interpreter's f64 ones).
fn plain(rng: &mut Rng, ty: &TensorType) -> Tensor {
    let n = ty.num_elements();
    let z = (0..n)
        .map(|_| Complex64::new(rng.unit() * 4.0 - 2.0, rng.unit() * 4.0 - 2.0))
        .collect();
    Tensor::from_complex(ty.shape.clone(), ty.dtype, z).unwrap()
}

/// Products within `gemm`'s rounding: each part of a result is a sum of `2K` terms of
/// magnitude at most `scale` (parts in [-2, 2): 4 per product of parts), summed in the parts'
/// precision (f32 for `complex<f32>`) in another order and with fused multiply-adds: within
/// `2K · eps · scale` of the interpreter's once-rounded f64 sum, doubled for margin.
fn product_tolerance(dtype: DType, k: i64, scale: f64) -> Tolerance {
    let eps = if dtype == DType::C64 { 1.2e-7 } else { 2.3e-16 };
    Close {
        rtol: 2.0 * eps,
        atol: 4.0 * eps * 2.0 * (k.max(1) as f64) * scale,
    }
}

/// `dot_general` on `gemm`'s complex kernels: plain matrix products, batch dimensions,
/// contracting dimensions in either position (transposes folded into strides), both operand
/// orders, and a product fusion with a complex epilogue.
#[test]
fn dots_are_native() {
    for (k, dtype) in COMPLEX.into_iter().enumerate() {
        for case in 0..6u64 {
            let mut rng = Rng::new(1600 + 10 * k as u64 + case);
            let (b, m, kk, n) = (
                1 + rng.below(3) as i64,
                1 + rng.below(9) as i64,
                rng.below(40) as i64,
                1 + rng.below(9) as i64,
            );
            // lhs [B, K, M] (contracting before the free dimension), rhs [B, N, K].
            let (l, r) = (t(&[b, kk, m], dtype), t(&[b, n, kk], dtype));
            let (o, ot) = (t(&[b, m, n], dtype), t(&[b, n, m], dtype));
            let (p, q) = (t(&[m, kk], dtype), t(&[kk, n], dtype));
            let mn = t(&[m, n], dtype);
            let inputs = [&l, &r, &p, &q, &mn].map(|ty| plain(&mut rng, ty)).to_vec();
            let text = format!(
                "  %r0 = stablehlo.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [1] x [2] : ({l}, {r}) -> {o}
  %r1 = stablehlo.dot_general %a1, %a0, batching_dims = [0] x [0], contracting_dims = [2] x [1] : ({r}, {l}) -> {ot}
  %d = stablehlo.dot_general %a2, %a3, contracting_dims = [1] x [0] : ({p}, {q}) -> {mn}
  %e = stablehlo.multiply %d, %a4 : {mn}
  %r2 = stablehlo.add %e, %d : {mn}"
            );
            let case = Case::with_inputs(inputs, &text, &[o, ot, mn]);
            // The epilogue multiplies the product by parts below 2 (and adds it): its
            // error grows by at most a factor 2·2 + 1.
            check(
                &case,
                product_tolerance(dtype, kk, 4.0 * 5.0),
                Expect::Native,
            );
        }
    }
}

/// A product large enough for `gemm`'s threads and packing (256 × 256 × 256).
#[test]
fn large_dots_are_native() {
    for (k, dtype) in COMPLEX.into_iter().enumerate() {
        let mut rng = Rng::new(1700 + k as u64);
        let a = t(&[256, 256], dtype);
        let inputs = vec![plain(&mut rng, &a), plain(&mut rng, &a)];
        let case = Case::with_inputs(
            inputs,
            &format!("  %r0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : ({a}, {a}) -> {a}"),
            std::slice::from_ref(&a),
        );
        check(&case, product_tolerance(dtype, 256, 4.0), Expect::Native);
    }
}

/// The ops made native stay native: one program holding every op the complex loop, reduction
/// and product kernels cover compiles with no fallback, optimised (fused) and op by op. If a
/// change sends one back to the interpreter, this names it.
#[test]
fn no_listed_complex_op_falls_back() {
    let c = "tensor<4x3xcomplex<f32>>";
    let w = "tensor<4x3xcomplex<f64>>";
    let f = "tensor<4x3xf32>";
    let b = "tensor<4x3xi1>";
    let s = "tensor<complex<f32>>";
    let row = "tensor<3xcomplex<f32>>";
    let unary = [
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
    let binary = [
        "add", "subtract", "multiply", "divide", "power", "atan2", "maximum", "minimum",
    ];
    let chlo = [
        "square", "sinh", "cosh", "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh", "conj",
    ];
    let mut body = String::new();
    let mut results: Vec<(String, &str)> = vec![];
    let mut v = 0;
    let mut push = |body: &mut String, line: String, ty: &'static str| {
        body.push_str(&format!("  %v{v} = {line}\n"));
        results.push((format!("%v{v}"), ty));
        v += 1;
    };
    for op in unary {
        push(&mut body, format!("stablehlo.{op} %z : {c}"), c);
    }
    for op in binary {
        push(&mut body, format!("stablehlo.{op} %z, %y : {c}"), c);
    }
    for op in chlo {
        push(&mut body, format!("chlo.{op} %z : {c} -> {c}"), c);
    }
    for (op, ty) in [("abs", f), ("real", f), ("imag", f)] {
        push(&mut body, format!("stablehlo.{op} %z : ({c}) -> {ty}"), ty);
    }
    push(&mut body, format!("stablehlo.complex %x, %x : {c}"), c);
    push(
        &mut body,
        format!("stablehlo.compare EQ, %z, %y, FLOAT : ({c}, {c}) -> {b}"),
        b,
    );
    push(
        &mut body,
        format!("stablehlo.compare NE, %z, %y, TOTALORDER : ({c}, {c}) -> {b}"),
        b,
    );
    push(
        &mut body,
        format!("stablehlo.select %p, %z, %y : {b}, {c}"),
        c,
    );
    push(&mut body, format!("stablehlo.convert %z : ({c}) -> {w}"), w);
    push(&mut body, format!("stablehlo.convert %z : ({c}) -> {f}"), f);
    push(&mut body, format!("stablehlo.convert %x : ({f}) -> {c}"), c);
    push(&mut body, format!("stablehlo.iota dim = 0 : {c}"), c);
    push(
        &mut body,
        format!("stablehlo.constant dense<(1.0,2.0)> : {c}"),
        c,
    );
    push(
        &mut body,
        format!("stablehlo.reduce(%z init: %i) applies stablehlo.add across dimensions = [0] : ({c}, {s}) -> {row}"),
        row,
    );
    push(
        &mut body,
        format!("stablehlo.reduce(%z init: %i) applies stablehlo.multiply across dimensions = [0] : ({c}, {s}) -> {row}"),
        row,
    );
    push(
        &mut body,
        format!("stablehlo.dot_general %z, %y, contracting_dims = [0] x [0] : ({c}, {c}) -> tensor<3x3xcomplex<f32>>"),
        "tensor<3x3xcomplex<f32>>",
    );
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    let types: Vec<&str> = results.iter().map(|(_, t)| *t).collect();
    let text = format!(
        "func.func @main(%z: {c}, %y: {c}, %x: {f}, %p: {b}, %i: {s}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        types.join(", "),
        names.join(", "),
        types.join(", ")
    );
    let module = support::parse(&text);
    for optimize in [false, true] {
        let exe = support::compile_main_with(&module, optimize);
        let fell_back: Vec<String> = exe.fallback_ops().iter().map(|f| f.op.clone()).collect();
        assert!(
            fell_back.is_empty(),
            "complex ops on the fallback (optimize {optimize}): {fell_back:?}"
        );
    }
}
