//! Continuous distributions, each as JAX 0.10 computes it from `uniform`/`normal` draws.

use super::helpers::{check_param_shapes, cst, finfo, nextafter, params_shape};
use super::{normal, uniform, Param};
use crate::array::Array;
use crate::error::Error;
use crate::numpy as np;
use crate::ops::elementwise::{chlo_unary, convert, unary, weak_float};
use systolic_ir::{ChloUnaryOp, DType, UnaryOp};

/// Fails unless `dtype` is a float dtype the samplers draw (f32, bf16, f16).
pub(crate) fn float_dtype(op: &str, dtype: DType) -> Result<(), Error> {
    if matches!(dtype, DType::F32 | DType::BF16 | DType::F16) {
        Ok(())
    } else {
        Err(Error::op(
            op,
            format!(
                "dtype must be float32, bfloat16 or float16, got {}",
                dtype.numpy_name()
            ),
        ))
    }
}

/// The draw shape: `shape` if given (parameters must broadcast to it), else the parameters'
/// broadcast shape (JAX's `_check_broadcast_shapes`).
pub(crate) fn draw_shape(
    op: &str,
    shape: Option<&[i64]>,
    params: &[&Array],
) -> Result<Vec<i64>, Error> {
    match shape {
        Some(s) => check_param_shapes(op, s, params).map(|_| s.to_vec()),
        None => params_shape(op, params),
    }
}

macro_rules! try_array {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Array::failed(e),
        }
    };
}
pub(crate) use try_array;

/// `jax.random.truncated_normal(key, lower, upper, shape, dtype)`: normal values in the open
/// interval `(lower, upper)`, by inverting the normal CDF on a uniform draw between
/// `erf(lower/√2)` and `erf(upper/√2)`, then clamping to the floats just inside the bounds.
/// `shape = None` takes the broadcast shape of `lower` and `upper`.
///
/// ```
/// use systolic::random;
/// use systolic_ir::DType;
/// let t = random::truncated_normal(&random::key(0), -1.0, 1.0, Some(&[4]), DType::F32);
/// let v = t.to_vec::<f32>().unwrap();
/// assert!(v.iter().all(|x| -1.0 < *x && *x < 1.0));
/// ```
pub fn truncated_normal(
    key: &Array,
    lower: impl Param,
    upper: impl Param,
    shape: Option<&[i64]>,
    dtype: DType,
) -> Array {
    const OP: &str = "random.truncated_normal";
    try_array!(float_dtype(OP, dtype));
    let lower = convert(OP, &lower.to_param(), dtype, false);
    let upper = convert(OP, &upper.to_param(), dtype, false);
    let shape = try_array!(draw_shape(OP, shape, &[&lower, &upper]));
    let sqrt2 = cst(std::f64::consts::SQRT_2, dtype);
    let a = chlo_unary(OP, ChloUnaryOp::Erf, &np::divide(&lower, &sqrt2));
    let b = chlo_unary(OP, ChloUnaryOp::Erf, &np::divide(&upper, &sqrt2));
    let u = uniform(key, &shape, dtype, &a, &b);
    let out = np::multiply(&sqrt2, &chlo_unary(OP, ChloUnaryOp::ErfInv, &u));
    let lo = nextafter(OP, &lower, true);
    let hi = nextafter(OP, &upper, false);
    np::minimum(&np::maximum(&lo, &out), &hi)
}

/// `jax.random.gumbel(key, shape, dtype)` (JAX's default "low" mode):
/// `-log(-log(u))` with `u` uniform in `[tiny, 1)`.
///
/// ```
/// use systolic::random;
/// let g = random::gumbel(&random::key(0), &[3], systolic_ir::DType::F32);
/// assert_eq!(g.shape(), &[3]);
/// ```
pub fn gumbel(key: &Array, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.gumbel", dtype));
    let (tiny, _, _) = finfo(dtype);
    let u = uniform(key, shape, dtype, tiny, 1.0);
    np::negative(&np::log(&np::negative(&np::log(&u))))
}

/// `jax.random.exponential(key, shape, dtype)`: `-log1p(-u)` with `u` uniform in `[0, 1)`.
///
/// ```
/// use systolic::random;
/// let e = random::exponential(&random::key(0), &[3], systolic_ir::DType::F32);
/// assert!(e.to_vec::<f32>().unwrap().iter().all(|x| *x >= 0.0));
/// ```
pub fn exponential(key: &Array, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.exponential", dtype));
    let u = uniform(key, shape, dtype, 0.0, 1.0);
    np::negative(&np::log1p(&np::negative(&u)))
}

/// `jax.random.laplace(key, shape, dtype)`: `sign(u)·log1p(-|u|)` with `u` uniform in
/// `[-1 + epsneg, 1)`.
///
/// ```
/// use systolic::random;
/// let l = random::laplace(&random::key(0), &[3], systolic_ir::DType::F32);
/// assert_eq!(l.shape(), &[3]);
/// ```
pub fn laplace(key: &Array, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.laplace", dtype));
    let (_, _, epsneg) = finfo(dtype);
    let u = uniform(key, shape, dtype, -1.0 + epsneg, 1.0);
    np::multiply(&np::sign(&u), &np::log1p(&np::negative(&np::abs(&u))))
}

/// `jax.random.logistic(key, shape, dtype)`: `log(u) - log1p(-u)` with `u` uniform in
/// `[tiny, 1)`.
///
/// ```
/// use systolic::random;
/// let l = random::logistic(&random::key(0), &[3], systolic_ir::DType::F32);
/// assert_eq!(l.shape(), &[3]);
/// ```
pub fn logistic(key: &Array, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.logistic", dtype));
    let (tiny, _, _) = finfo(dtype);
    let u = uniform(key, shape, dtype, tiny, 1.0);
    np::subtract(&np::log(&u), &np::log1p(&np::negative(&u)))
}

/// `jax.random.cauchy(key, shape, dtype)`: `tan(π·(u - 0.5))` with `u` uniform in `[eps, 1)`.
///
/// ```
/// use systolic::random;
/// let c = random::cauchy(&random::key(0), &[3], systolic_ir::DType::F32);
/// assert_eq!(c.shape(), &[3]);
/// ```
pub fn cauchy(key: &Array, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.cauchy", dtype));
    let (_, eps, _) = finfo(dtype);
    let u = uniform(key, shape, dtype, eps, 1.0);
    let pi = cst(std::f64::consts::PI, dtype);
    unary(
        "random.cauchy",
        UnaryOp::Tan,
        &np::multiply(&pi, &np::subtract(&u, &cst(0.5, dtype))),
    )
}

/// `jax.random.pareto(key, b, shape, dtype)`: `exp(e / b)` with `e` exponential.
/// `shape = None` takes `b`'s shape.
///
/// ```
/// use systolic::random;
/// let p = random::pareto(&random::key(0), 3.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(p.to_vec::<f32>().unwrap().iter().all(|x| *x >= 1.0));
/// ```
pub fn pareto(key: &Array, b: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.pareto";
    try_array!(float_dtype(OP, dtype));
    let b = b.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&b]));
    let b = convert(OP, &b, dtype, false);
    let e = exponential(key, &shape, dtype);
    np::exp(&np::divide(&e, &b))
}

/// `jax.random.rayleigh(key, scale, shape, dtype)`: `scale·sqrt(-2·log(u))`.
/// `shape = None` takes `scale`'s shape.
///
/// ```
/// use systolic::random;
/// let r = random::rayleigh(&random::key(0), 2.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(r.to_vec::<f32>().unwrap().iter().all(|x| *x >= 0.0));
/// ```
pub fn rayleigh(key: &Array, scale: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.rayleigh";
    try_array!(float_dtype(OP, dtype));
    let scale = scale.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&scale]));
    let u = uniform(key, &shape, dtype, 0.0, 1.0);
    let scale = np::broadcast_to(&convert(OP, &scale, dtype, false), &shape);
    let sq = np::sqrt(&np::multiply(&np::log(&u), &cst(-2.0, dtype)));
    np::multiply(&scale, &sq)
}

/// `jax.random.weibull_min(key, scale, concentration, shape, dtype)`:
/// `(-log1p(-u))^(1/concentration) · scale`.
///
/// ```
/// use systolic::random;
/// let w = random::weibull_min(&random::key(0), 2.0, 1.5, &[3], systolic_ir::DType::F32);
/// assert!(w.to_vec::<f32>().unwrap().iter().all(|x| *x >= 0.0));
/// ```
pub fn weibull_min(
    key: &Array,
    scale: impl Param,
    concentration: impl Param,
    shape: &[i64],
    dtype: DType,
) -> Array {
    try_array!(float_dtype("random.weibull_min", dtype));
    let u = uniform(key, shape, dtype, 0.0, 1.0);
    // `1.0 / concentration` is a Python-float division for a number, an array op otherwise.
    let inv = match concentration.as_f64() {
        Some(c) => weak_float(1.0 / c),
        None => np::divide(&weak_float(1.0), &concentration.to_param()),
    };
    let base = np::negative(&np::log1p(&np::negative(&u)));
    np::multiply(&np::power(&base, &inv), &scale.to_param())
}

/// `jax.random.lognormal(key, sigma, shape, dtype)`: `exp(sigma · normal)`.
/// `shape = None` takes `sigma`'s shape.
///
/// ```
/// use systolic::random;
/// let l = random::lognormal(&random::key(0), 0.5, Some(&[3]), systolic_ir::DType::F32);
/// assert!(l.to_vec::<f32>().unwrap().iter().all(|x| *x > 0.0));
/// ```
pub fn lognormal(key: &Array, sigma: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.lognormal";
    try_array!(float_dtype(OP, dtype));
    let sigma = sigma.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&sigma]));
    let sigma = convert(OP, &sigma, dtype, false);
    np::exp(&np::multiply(&normal(key, &shape, dtype), &sigma))
}

/// `jax.random.maxwell(key, shape, dtype)`: the length of a standard normal 3-vector
/// (`sqrt(sum(x²))` over a trailing axis of 3 normal draws).
///
/// ```
/// use systolic::random;
/// let m = random::maxwell(&random::key(0), &[3], systolic_ir::DType::F32);
/// assert!(m.to_vec::<f32>().unwrap().iter().all(|x| *x >= 0.0));
/// ```
pub fn maxwell(key: &Array, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.maxwell", dtype));
    let mut s = shape.to_vec();
    s.push(3);
    let n = normal(key, &s, dtype);
    let axis = [s.len() as i64 - 1];
    np::sqrt(&np::sum(&np::multiply(&n, &n), Some(&axis), false))
}

/// `jax.random.triangular(key, left, mode, right, shape, dtype)`: inverse-CDF sampling of
/// the triangular distribution. `shape = None` broadcasts the three parameters.
///
/// ```
/// use systolic::random;
/// let t = random::triangular(&random::key(0), -1.0, 0.5, 2.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(t.to_vec::<f32>().unwrap().iter().all(|x| (-1.0..=2.0).contains(x)));
/// ```
pub fn triangular(
    key: &Array,
    left: impl Param,
    mode: impl Param,
    right: impl Param,
    shape: Option<&[i64]>,
    dtype: DType,
) -> Array {
    const OP: &str = "random.triangular";
    try_array!(float_dtype(OP, dtype));
    let (l, m, r) = (left.to_param(), mode.to_param(), right.to_param());
    let shape = try_array!(draw_shape(OP, shape, &[&l, &m, &r]));
    let prep = |x: &Array| np::broadcast_to(&convert(OP, x, dtype, false), &shape);
    let (l, m, r) = (prep(&l), prep(&m), prep(&r));
    let fc = np::divide(&np::subtract(&m, &l), &np::subtract(&r, &l));
    let u = uniform(key, &shape, dtype, 0.0, 1.0);
    let out1 = np::add(
        &l,
        &np::sqrt(&np::multiply(
            &np::multiply(&u, &np::subtract(&r, &l)),
            &np::subtract(&m, &l),
        )),
    );
    let one_minus_u = np::subtract(&weak_float(1.0), &u);
    let out2 = np::subtract(
        &r,
        &np::sqrt(&np::multiply(
            &np::multiply(&one_minus_u, &np::subtract(&r, &l)),
            &np::subtract(&r, &m),
        )),
    );
    np::where_(&np::less(&u, &fc), &out1, &out2)
}

/// `jax.random.double_sided_maxwell(key, loc, scale, shape, dtype)`: a Maxwell draw with a
/// random sign, `sign · maxwell · scale + loc`. As in JAX the draw shape is
/// `shape + broadcast(loc, scale).shape` (`shape` defaults to the parameters' shape when
/// empty).
///
/// ```
/// use systolic::random;
/// let d = random::double_sided_maxwell(&random::key(0), 1.0, 2.0, &[4], systolic_ir::DType::F32);
/// assert_eq!(d.shape(), &[4]);
/// ```
pub fn double_sided_maxwell(
    key: &Array,
    loc: impl Param,
    scale: impl Param,
    shape: &[i64],
    dtype: DType,
) -> Array {
    const OP: &str = "random.double_sided_maxwell";
    try_array!(float_dtype(OP, dtype));
    let (loc, scale) = (loc.to_param(), scale.to_param());
    let params = try_array!(params_shape(OP, &[&loc, &scale]));
    let mut s = if shape.is_empty() {
        params.clone()
    } else {
        shape.to_vec()
    };
    s.extend_from_slice(&params);
    let ks = super::split(key, 2);
    let m = maxwell(&ks[0], &s, dtype);
    let sign = super::rademacher(&ks[1], &s, dtype);
    np::add(&np::multiply(&np::multiply(&sign, &m), &scale), &loc)
}

/// `jax.random.wald(key, mean, shape, dtype)` (inverse Gaussian): Michael, Schucany and
/// Haas's transform of a normal and a uniform draw (keys split from `key`). `shape = None`
/// takes `mean`'s shape.
///
/// ```
/// use systolic::random;
/// let w = random::wald(&random::key(0), 1.5, Some(&[3]), systolic_ir::DType::F32);
/// assert!(w.to_vec::<f32>().unwrap().iter().all(|x| *x > 0.0));
/// ```
pub fn wald(key: &Array, mean: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.wald";
    try_array!(float_dtype(OP, dtype));
    let mean = mean.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&mean]));
    let ks = super::split(key, 2);
    let mean = np::broadcast_to(&convert(OP, &mean, dtype, false), &shape);
    let v = normal(&ks[0], &shape, dtype);
    let z = uniform(&ks[1], &shape, dtype, 0.0, 1.0);
    let y = np::multiply(&v, &v);
    let y_sq = np::multiply(&y, &y);
    let mean_sq = np::multiply(&mean, &mean);
    let four = crate::ops::elementwise::weak_int(4);
    let two = crate::ops::elementwise::weak_int(2);
    let sqrt_term = np::sqrt(&np::add(
        &np::multiply(&np::multiply(&four, &mean), &y),
        &np::multiply(&mean_sq, &y_sq),
    ));
    let x = np::subtract(
        &np::add(&mean, &np::divide(&np::multiply(&mean_sq, &y), &two)),
        &np::multiply(&np::divide(&mean, &two), &sqrt_term),
    );
    let pick_x = np::less_equal(&z, &np::divide(&mean, &np::add(&mean, &x)));
    np::where_(&pick_x, &x, &np::divide(&mean_sq, &x))
}
