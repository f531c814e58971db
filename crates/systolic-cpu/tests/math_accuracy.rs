//! Accuracy of the vectorised f32 math (kernels/math) against the reference interpreter, over
//! millions of random inputs (uniform bit patterns, and uniform values in each function's busy
//! range) plus edge cases. The interpreter computes in f64 and rounds once, so it is (nearly)
//! the correctly rounded value; the bound asserted per function is the one stated in the
//! module docs.

use systolic_cpu::kernels::math::{ulp::ulp_diff_f32, F32Binary, F32Unary};
use systolic_interp::ops::{chlo, elementwise};
use systolic_ir::{numerics, ChloUnaryOp, DType, Tensor, TensorType, UnaryOp};

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Any f32 that is not subnormal (the interpreter reads those as zero).
    fn any_f32(&mut self) -> f32 {
        let x = f32::from_bits(self.next() as u32);
        if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
            0.0
        } else {
            x
        }
    }

    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
}

const EDGES: [f32; 24] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    f32::EPSILON,
    88.72,
    88.73,
    -87.34,
    -103.9,
    0.29,
    -0.29,
    0.35,
    std::f32::consts::FRAC_PI_2,
    std::f32::consts::PI,
];

/// Inputs: edge cases, random bit patterns and random values in `busy`.
fn inputs(seed: u64, count: usize, busy: (f32, f32)) -> Vec<f32> {
    let mut rng = Rng(seed);
    let mut v: Vec<f32> = EDGES.to_vec();
    for i in 0..count {
        v.push(if i % 2 == 0 {
            rng.any_f32()
        } else {
            rng.uniform(busy.0, busy.1)
        });
    }
    v
}

fn f32_tensor(values: &[f32]) -> Tensor {
    Tensor::from_f32(vec![values.len() as i64], values.to_vec())
}

fn tensor_f32s(t: &Tensor) -> Vec<f32> {
    t.to_f64_vec().iter().map(|&x| x as f32).collect()
}

/// Largest ulp distance between `ours` (flushed as XLA:CPU does, unless `keeps_denormals`) and
/// the interpreter's values; the worst input is named in the panic message of callers.
fn worst(xs: &[f32], ours: &[f32], reference: &[f32], keeps_denormals: bool) -> (u64, f32) {
    let mut worst = (0, 0.0);
    for ((&x, &o), &r) in xs.iter().zip(ours).zip(reference) {
        let o = if keeps_denormals {
            o
        } else {
            numerics::flush_denormal(DType::F32, o as f64) as f32
        };
        let d = ulp_diff_f32(o, r);
        if d > worst.0 {
            worst = (d, x);
        }
    }
    worst
}

fn check_unary(f: F32Unary, reference: impl Fn(&Tensor, &TensorType) -> Tensor, bound: u64) {
    let busy = match f {
        F32Unary::Exp | F32Unary::Expm1 | F32Unary::Logistic => (-110.0, 90.0),
        F32Unary::Tanh => (-12.0, 12.0),
        F32Unary::Sin | F32Unary::Cos | F32Unary::Tan => (-2000.0, 2000.0),
        F32Unary::Erf => (-5.0, 5.0),
        F32Unary::ErfInv => (-1.0, 1.0),
        F32Unary::Log1p => (-1.0, 4.0),
        _ => (0.0, 100.0),
    };
    let xs = inputs(f as u64 + 1, 2_000_000, busy);
    let mut ours = vec![0.0f32; xs.len()];
    f.apply(&xs, &mut ours);
    let t = f32_tensor(&xs);
    let want = tensor_f32s(&reference(&t, t.ty()));
    let (d, x) = worst(&xs, &ours, &want, f == F32Unary::Tanh);
    assert!(
        d <= bound,
        "{f:?}: {d} ulp at x = {x:e} (bits {:#x}): ours {:e}, interpreter {:e}",
        x.to_bits(),
        f.eval(x),
        want[xs.iter().position(|v| v.to_bits() == x.to_bits()).unwrap()]
    );
    eprintln!("{f:?}: max {d} ulp over {} inputs", xs.len());
}

fn stablehlo(op: UnaryOp) -> impl Fn(&Tensor, &TensorType) -> Tensor {
    move |t, ty| elementwise::unary(op, t, ty).expect("interpreter")
}

fn chlo_op(op: ChloUnaryOp) -> impl Fn(&Tensor, &TensorType) -> Tensor {
    move |t, ty| chlo::unary(op, t, ty).expect("interpreter")
}

#[test]
fn exp_within_2_ulp() {
    check_unary(F32Unary::Exp, stablehlo(UnaryOp::Exponential), 2);
}

#[test]
fn expm1_within_1_ulp() {
    check_unary(F32Unary::Expm1, stablehlo(UnaryOp::ExponentialMinusOne), 1);
}

#[test]
fn log_within_1_ulp() {
    check_unary(F32Unary::Log, stablehlo(UnaryOp::Log), 1);
}

#[test]
fn log1p_within_1_ulp() {
    check_unary(F32Unary::Log1p, stablehlo(UnaryOp::LogPlusOne), 1);
}

#[test]
fn tanh_within_1_ulp() {
    check_unary(F32Unary::Tanh, stablehlo(UnaryOp::Tanh), 1);
}

#[test]
fn logistic_within_1_ulp() {
    check_unary(F32Unary::Logistic, stablehlo(UnaryOp::Logistic), 1);
}

#[test]
fn sin_cos_tan_within_1_ulp() {
    check_unary(F32Unary::Sin, stablehlo(UnaryOp::Sine), 1);
    check_unary(F32Unary::Cos, stablehlo(UnaryOp::Cosine), 1);
    check_unary(F32Unary::Tan, stablehlo(UnaryOp::Tan), 1);
}

#[test]
fn cbrt_within_1_ulp() {
    check_unary(F32Unary::Cbrt, stablehlo(UnaryOp::Cbrt), 1);
}

#[test]
fn sqrt_and_rsqrt_exact() {
    check_unary(F32Unary::Sqrt, stablehlo(UnaryOp::Sqrt), 0);
    check_unary(F32Unary::Rsqrt, stablehlo(UnaryOp::Rsqrt), 0);
}

#[test]
fn erf_within_1_ulp() {
    check_unary(F32Unary::Erf, chlo_op(ChloUnaryOp::Erf), 1);
}

#[test]
fn erf_inv_within_2_ulp() {
    check_unary(F32Unary::ErfInv, chlo_op(ChloUnaryOp::ErfInv), 2);
}

#[test]
fn pow_and_atan2_within_1_ulp() {
    use systolic_ir::BinaryOp;
    let mut rng = Rng(99);
    let n = 1_000_000;
    let mut a: Vec<f32> = Vec::with_capacity(n);
    let mut b: Vec<f32> = Vec::with_capacity(n);
    for &x in &EDGES {
        for &y in &EDGES {
            a.push(x);
            b.push(y);
        }
    }
    for i in 0..n {
        if i % 2 == 0 {
            a.push(rng.any_f32());
            b.push(rng.any_f32());
        } else {
            a.push(rng.uniform(0.0, 10.0));
            b.push(rng.uniform(-30.0, 30.0));
        }
    }
    let (ta, tb) = (f32_tensor(&a), f32_tensor(&b));
    for (f, op) in [
        (F32Binary::Pow, BinaryOp::Power),
        (F32Binary::Atan2, BinaryOp::Atan2),
    ] {
        let mut ours = vec![0.0f32; a.len()];
        f.apply(&a, &b, &mut ours);
        let want = tensor_f32s(&elementwise::binary(op, &ta, &tb, ta.ty()).unwrap());
        let (d, x) = worst(&a, &ours, &want, false);
        assert!(d <= 1, "{f:?}: {d} ulp at a = {x:e}");
        eprintln!("{f:?}: max {d} ulp over {} inputs", a.len());
    }
}

/// Largest ulp distance between our f32 tanh and f64 tanh rounded once over `xs`, with the
/// input where it occurs.
fn tanh_worst(xs: &[f32]) -> (u64, f32) {
    let mut ours = vec![0.0f32; xs.len()];
    F32Unary::Tanh.apply(xs, &mut ours);
    let mut worst = (0, 0.0);
    for (&x, &o) in xs.iter().zip(&ours) {
        let d = ulp_diff_f32(o, (x as f64).tanh() as f32);
        if d > worst.0 {
            worst = (d, x);
        }
    }
    worst
}

/// [`tanh_worst`] over every `stride`-th f32 in [0, 10.5] (both signs, subnormals included:
/// tanh keeps them), taken a million at a time, and the edge values.
fn tanh_sweep(stride: u32) -> (u64, f32) {
    let mut edges: Vec<f32> = EDGES.to_vec();
    edges.extend([
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        0.875,
        0.875f32.next_down(),
        9.0,
        9.01,
        10.0,
        1e30,
        -1e30,
    ]);
    let mut worst = tanh_worst(&edges);
    let end = 10.5f32.to_bits();
    let mut start = 0u32;
    while start <= end {
        let xs: Vec<f32> = (start..=end)
            .step_by(stride as usize)
            .take(1 << 20)
            .map(f32::from_bits)
            .flat_map(|x| [x, -x])
            .collect();
        let w = tanh_worst(&xs);
        if w.0 > worst.0 {
            worst = w;
        }
        start = match start.checked_add(stride << 20) {
            Some(s) => s,
            None => break,
        };
    }
    worst
}

/// tanh runs in f32 (not through f64 as the other functions): its bound is measured over a
/// dense sweep, every 61st f32 of [−10.5, 10.5] (36M inputs, all binades and mantissa
/// residues) plus ±0, subnormals, ±inf, NaN and the saturation region around 9.
#[test]
fn tanh_dense_sweep_within_1_ulp() {
    let (d, x) = tanh_sweep(61);
    assert!(
        d <= 1,
        "tanh: {d} ulp at x = {x:e} (bits {:#x})",
        x.to_bits()
    );
    eprintln!("Tanh: max {d} ulp over the dense sweep");
}

/// Every f32 (about 2.2e9 inputs, minutes in a release build): run with `--ignored` after
/// changing tanh.
#[test]
#[ignore]
fn tanh_every_f32_within_1_ulp() {
    let (d, x) = tanh_sweep(1);
    assert!(
        d <= 1,
        "tanh: {d} ulp at x = {x:e} (bits {:#x})",
        x.to_bits()
    );
}

/// A few inputs beyond the fast paths' range among many ordinary ones (one chunk of the patch
/// pass in many, at chunk edges and in the tail) are still recomputed by the library, and the
/// ordinary ones keep the vector result.
#[test]
fn sparse_rare_inputs_still_take_the_library_path() {
    use systolic_ir::BinaryOp;
    let mut rng = Rng(7);
    let n = 5000;
    let rare_at = [0, 255, 256, 511, 3000, 4999];
    let rare = [1e7f32, f32::NAN, f32::NEG_INFINITY, 3e9, 1.0e6, -2e7];
    let mut xs: Vec<f32> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
    for (&i, &v) in rare_at.iter().zip(&rare) {
        xs[i] = v;
    }
    let t = f32_tensor(&xs);
    for (f, op) in [
        (F32Unary::Sin, UnaryOp::Sine),
        (F32Unary::Cos, UnaryOp::Cosine),
        (F32Unary::Tan, UnaryOp::Tan),
    ] {
        let mut ours = vec![0.0f32; n];
        f.apply(&xs, &mut ours);
        let want = tensor_f32s(&stablehlo(op)(&t, t.ty()));
        let (d, x) = worst(&xs, &ours, &want, false);
        assert!(d <= 1, "{f:?}: {d} ulp at x = {x:e}");
        // The same through a compiled loop (the fusion's lane functions).
        let text = format!(
            "func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %0 = stablehlo.{} %x : tensor<{n}xf32>\n  return %0 : tensor<{n}xf32>\n}}",
            op.name()
        );
        let exe = crate::support::compile_main(&crate::support::parse(&text));
        let got = crate::support::run_compiled(&exe, std::slice::from_ref(&t)).unwrap();
        let (d, x) = worst(&xs, &tensor_f32s(&got[0]), &want, false);
        assert!(d <= 1, "compiled {f:?}: {d} ulp at x = {x:e}");
    }
    // pow: negative bases, zero and infinite exponents go to the library.
    let mut a: Vec<f32> = (0..n).map(|_| rng.uniform(0.5, 4.0)).collect();
    let mut b: Vec<f32> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
    for (k, &i) in rare_at.iter().enumerate() {
        a[i] = [-2.0, 0.0, -0.0, -8.0, f32::INFINITY, 1.0][k];
        b[i] = [0.5, -1.0, 3.0, 1.0 / 3.0, -2.0, f32::NAN][k];
    }
    let (ta, tb) = (f32_tensor(&a), f32_tensor(&b));
    let mut ours = vec![0.0f32; n];
    F32Binary::Pow.apply(&a, &b, &mut ours);
    let want = tensor_f32s(&elementwise::binary(BinaryOp::Power, &ta, &tb, ta.ty()).unwrap());
    let (d, x) = worst(&a, &ours, &want, false);
    assert!(d <= 1, "pow: {d} ulp at a = {x:e}");
}

/// Distance in f64 ulps between two f64 values of the same sign (`u64::MAX` otherwise; two
/// zeros are 0 apart).
fn ulps_f64(a: f64, b: f64) -> u64 {
    if a == b {
        0
    } else if a.is_sign_negative() != b.is_sign_negative() || a.is_nan() || b.is_nan() {
        u64::MAX
    } else {
        a.to_bits().abs_diff(b.to_bits())
    }
}

/// `kernels::math::wide` (f64 exp, sin, cos, sinh and cosh for the exactness checks of `exp`,
/// `sin` and `cos` on `complex<f32>`) against the f64 library the interpreter calls, over 16 million f32 inputs:
/// random in each function's range and in the busy ranges, plus edges. e^x, sin y, cos y,
/// sinh x, cosh x and the products `Complex64`'s exp, sin and cos form (e^x·cos y,
/// sin y·cosh x, …) must stay within
/// `wide::ERROR_ULPS` f64 ulps of the library's — the bound the complex kernel's midpoint
/// margin is built on. Inputs `sin_cos` declines (near a nonzero multiple of π/2) are
/// counted, and must be rare.
#[test]
fn wide_exp_sin_cos_within_their_bound_of_libm() {
    use systolic_cpu::kernels::math::wide;
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let (mut worst_exp, mut worst_trig, mut worst_product) = (0u64, 0u64, 0u64);
    let mut worst_hyperbolic = 0u64;
    let mut declined = 0usize;
    let count = 1 << 23;
    let edges = [
        0.0f32, -0.0, 1e-30, -1e-30, 1.0, -1.0, 88.72, -87.3, -103.9, -600.0, 700.0,
    ];
    for i in 0..count + edges.len() {
        let (x, y) = if i < edges.len() {
            (edges[i], edges[edges.len() - 1 - i].clamp(-1e5, 1e5))
        } else {
            match i % 4 {
                0 => (rng.uniform(-600.0, 700.0), rng.uniform(-9.99e5, 9.99e5)),
                1 => (rng.uniform(-100.0, 89.0), rng.uniform(-8.0, 8.0)),
                2 => (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)),
                // Any f32 bit pattern whose magnitude is in range (tiny ones included).
                _ => {
                    let a = f32::from_bits(rng.next() as u32 & 0xc3ff_ffff);
                    let b = f32::from_bits(rng.next() as u32 & 0xc8ff_ffff);
                    (a, b)
                }
            }
        };
        let (x, y) = (x as f64, y as f64);
        assert!(
            x.is_finite() && y.is_finite() && wide::in_trig_range(y),
            "{x} {y}"
        );
        let e = wide::exp(x);
        let (s, c, usable) = wide::sin_cos(y);
        worst_exp = worst_exp.max(ulps_f64(e, x.exp()));
        if !usable {
            declined += 1;
            continue;
        }
        let (ls, lc) = (y.sin(), y.cos());
        worst_trig = worst_trig.max(ulps_f64(s, ls)).max(ulps_f64(c, lc));
        let le = x.exp();
        worst_product = worst_product
            .max(ulps_f64(e * c, le * lc))
            .max(ulps_f64(e * s, le * ls));
        // sin and cos of x + iy as `Complex64` forms them: the trigonometric part is y here.
        let (sh, ch) = wide::sinh_cosh(x);
        let (lsh, lch) = (x.sinh(), x.cosh());
        worst_hyperbolic = worst_hyperbolic
            .max(ulps_f64(sh, lsh))
            .max(ulps_f64(ch, lch));
        worst_product = worst_product
            .max(ulps_f64(s * ch, ls * lch))
            .max(ulps_f64(c * sh, lc * lsh))
            .max(ulps_f64(c * ch, lc * lch))
            .max(ulps_f64(-s * sh, -ls * lsh));
    }
    eprintln!(
        "wide: exp {worst_exp} ulps, sin/cos {worst_trig}, sinh/cosh {worst_hyperbolic}, \
         products {worst_product}; {declined} declined of {count}"
    );
    for (what, worst) in [
        ("exp", worst_exp),
        ("sin/cos", worst_trig),
        ("sinh/cosh", worst_hyperbolic),
        ("product", worst_product),
    ] {
        assert!(
            worst <= wide::ERROR_ULPS,
            "{what}: {worst} f64 ulps from libm (bound {})",
            wide::ERROR_ULPS
        );
    }
    assert!(declined < 16, "{declined} inputs declined");
}
