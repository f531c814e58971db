//! The implementation of [`crate::random`], JAX's threefry2x32 PRNG and its samplers: keys
//! (`key`, `split`, `fold_in`) and the base draws (`bits`, `uniform`, `normal`) here, the
//! threefry hash and the samplers by family in the submodules. The public documentation (what
//! matches JAX bit for bit, and how) is on the `random` façade.

mod binomial;
mod continuous;
mod discrete;
mod gamma;
mod helpers;
mod keys;
mod orthogonal;
mod param;
mod poisson;
mod threefry;

pub use binomial::{binomial, multinomial};
pub use continuous::{
    cauchy, double_sided_maxwell, exponential, gumbel, laplace, logistic, lognormal, maxwell,
    pareto, rayleigh, triangular, truncated_normal, wald, weibull_min,
};
pub use discrete::{
    bernoulli, categorical, categorical_without_replacement, choice, geometric, permutation,
    permutation_array, rademacher, randint,
};
pub use gamma::{beta, chisquare, dirichlet, f, gamma, generalized_normal, loggamma, student_t};
pub use orthogonal::orthogonal;
pub use param::Param;
pub use poisson::poisson;

use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::{binary, chlo_unary, convert, weak_float, weak_int};
use helpers::check_param_shapes;
use systolic_ir::{BinaryOp, ChloUnaryOp, DType};
use threefry::threefry2x32;

/// `jax.random.PRNGKey(seed)`: `[0, seed & 0xFFFFFFFF]` (keys without x64).
pub fn key(seed: i64) -> Array {
    Array::from_vec(vec![0u32, seed as u32], &[2])
}

/// The two key words as rank-0 arrays, or an error naming `op`.
fn key_words(op: &str, key: &Array) -> Result<(Array, Array), Error> {
    key.check()?;
    if key.element_type() != DType::U32 || key.dims() != [2] {
        return Err(Error::op(
            op,
            format!("a key must be uint32[2], got {}", describe(key.aval())),
        ));
    }
    let k0 = lax::reshape(&lax::slice(key, &[0], &[1], None), &[]);
    let k1 = lax::reshape(&lax::slice(key, &[1], &[2], None), &[]);
    Ok((k0, k1))
}

/// The hash of counters `0..n` (hi word zero: fine below 2³² elements).
fn counters_hash(op: &str, key: &Array, n: i64) -> Result<(Array, Array), Error> {
    if n >= 1 << 32 {
        return Err(Error::op(
            op,
            format!("{n} elements: more than 2^32 is not supported yet"),
        ));
    }
    let (k0, k1) = key_words(op, key)?;
    let lo = lax::iota(DType::U32, &[n], 0);
    let hi = np::zeros(&[n], DType::U32);
    Ok(threefry2x32(&k0, &k1, &hi, &lo))
}

/// `jax.random.split(key, n)` as one `uint32[n, 2]` array.
pub fn split_array(key: &Array, n: i64) -> Array {
    match counters_hash("random.split", key, n) {
        Ok((b1, b2)) => np::stack(&[&b1, &b2], 1),
        Err(e) => Array::failed(e),
    }
}

/// `jax.random.split(key, n)` as `n` keys.
pub fn split(key: &Array, n: i64) -> Vec<Array> {
    let all = split_array(key, n);
    (0..n.max(0))
        .map(|i| lax::reshape(&lax::slice(&all, &[i, 0], &[i + 1, 2], None), &[2]))
        .collect()
}

/// The `data` of [`fold_in`]: a Rust integer or a traced integer scalar (a loop counter, a
/// step number), as JAX's `fold_in` takes either. JAX folds in `uint32(data)`: the low 32 bits
/// (a negative or 64-bit integer wraps).
#[derive(Clone, Debug)]
pub enum FoldInData {
    /// A concrete integer's low 32 bits.
    Int(u32),
    /// An integer scalar array, possibly traced.
    Array(Array),
}

macro_rules! fold_in_ints {
    ($($t:ty),*) => {$(
        impl From<$t> for FoldInData {
            fn from(v: $t) -> Self {
                FoldInData::Int(v as u32)
            }
        }
    )*};
}

fold_in_ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl From<&Array> for FoldInData {
    fn from(a: &Array) -> Self {
        FoldInData::Array(a.clone())
    }
}

impl From<Array> for FoldInData {
    fn from(a: Array) -> Self {
        FoldInData::Array(a)
    }
}

/// `jax.random.fold_in(key, data)`: a new key from `key` and an integer, concrete or traced.
///
/// ```
/// use systolic::{jit, random, Array};
/// let k = random::fold_in(&random::key(0), 7);
/// assert_eq!(k.to_vec::<u32>().unwrap(), vec![2716826189, 292468403]);
/// // A traced step counter, as in a training loop under `jit`.
/// let f = jit(|(key, step): &(Array, Array)| random::fold_in(key, step));
/// let traced = f.call(&(random::key(0), Array::scalar(7i32))).unwrap();
/// assert_eq!(traced.to_vec::<u32>().unwrap(), k.to_vec::<u32>().unwrap());
/// ```
pub fn fold_in(key: &Array, data: impl Into<FoldInData>) -> Array {
    let op = "random.fold_in";
    let lo = match data.into() {
        FoldInData::Int(v) => Ok(Array::from_vec(vec![v], &[1])),
        FoldInData::Array(d) => fold_in_word(op, &d),
    };
    match lo.and_then(|lo| key_words(op, key).map(|k| (k, lo))) {
        Ok(((k0, k1), lo)) => {
            let hi = np::zeros(&[1], DType::U32);
            let (b1, b2) = threefry2x32(&k0, &k1, &hi, &lo);
            np::concatenate(&[&b1, &b2], 0)
        }
        Err(e) => Array::failed(e),
    }
}

/// An integer scalar array as the `uint32[1]` word `fold_in` hashes.
fn fold_in_word(op: &str, d: &Array) -> Result<Array, Error> {
    d.check()?;
    let integer = matches!(
        d.element_type().kind(),
        systolic_ir::DTypeKind::Signed | systolic_ir::DTypeKind::Unsigned
    );
    if d.rank() != 0 || !integer {
        return Err(Error::op(
            op,
            format!("data must be an integer scalar, got {}", describe(d.aval())),
        ));
    }
    Ok(lax::reshape(&convert(op, d, DType::U32, false), &[1]))
}

/// `jax.random.bits(key, shape, dtype)` for `uint8`, `uint16` or `uint32`.
///
/// ```
/// let b = systolic::random::bits(&systolic::random::key(0), &[2], systolic_ir::DType::U8);
/// assert_eq!(b.to_vec::<u8>().unwrap(), vec![167, 146]);
/// ```
pub fn bits(key: &Array, shape: &[i64], dtype: DType) -> Array {
    if !matches!(dtype, DType::U8 | DType::U16 | DType::U32) {
        return Array::failed(Error::op(
            "random.bits",
            format!(
                "dtype must be uint8, uint16 or uint32, got {}",
                dtype.numpy_name()
            ),
        ));
    }
    let n: i64 = shape.iter().product();
    match counters_hash("random.bits", key, n) {
        Ok((b1, b2)) => {
            let x = lax::bitwise_xor(&b1, &b2);
            np::reshape(&convert("random.bits", &x, dtype, false), shape)
        }
        Err(e) => Array::failed(e),
    }
}

/// `jax.random.uniform(key, shape, dtype, minval, maxval)` for f32, bf16 and f16: random
/// mantissa bits under the exponent of 1.0, minus 1, scaled to `[minval, maxval)`.
///
/// `minval` and `maxval` are [`Param`]s: Rust numbers (weakly typed, as Python scalars) or
/// arrays that broadcast to `shape`; they are converted to `dtype` first, as JAX does.
///
/// ```
/// use systolic::{random, Array};
/// use systolic_ir::DType;
/// let key = random::key(0);
/// let u = random::uniform(&key, &[3], DType::F32, -2.0, 3.0);
/// assert_eq!(u.to_vec::<f32>().unwrap(), vec![2.738335132598877, 2.892899513244629, -0.3385425806045532]);
/// // Per-element bounds broadcast against the shape.
/// let lo = Array::from_vec(vec![0.0f32, 10.0], &[2]);
/// let v = random::uniform(&key, &[3, 2], DType::F32, &lo, 11.0).to_vec::<f32>().unwrap();
/// assert!(v.chunks(2).all(|r| (0.0..11.0).contains(&r[0]) && (10.0..11.0).contains(&r[1])));
/// ```
pub fn uniform(
    key: &Array,
    shape: &[i64],
    dtype: DType,
    minval: impl Param,
    maxval: impl Param,
) -> Array {
    uniform_from(&Source::Key(key), shape, dtype, minval, maxval)
}

/// Where a draw's random bits come from.
pub(crate) enum Source<'a> {
    /// Counters `0..n` hashed with one key (every public sampler).
    Key(&'a Array),
    /// Already hashed 32-bit words (`b1 ^ b2`), one per element, in the draw's shape: draws
    /// with one key per element, as JAX's vmapped gamma sampler makes.
    Words(Array),
}

impl Source<'_> {
    /// `_random_bits` of `shape` as `dtype` (uint8/16/32).
    fn bits(&self, shape: &[i64], dtype: DType) -> Array {
        match self {
            Source::Key(key) => bits(key, shape, dtype),
            Source::Words(w) => np::reshape(&convert("random.bits", w, dtype, false), shape),
        }
    }
}

/// [`uniform`] from any [`Source`].
pub(crate) fn uniform_from(
    src: &Source,
    shape: &[i64],
    dtype: DType,
    minval: impl Param,
    maxval: impl Param,
) -> Array {
    const OP: &str = "random.uniform";
    let (uint, nbits, nmant, one_bits): (DType, i64, i64, i64) = match dtype {
        DType::F32 => (DType::U32, 32, 23, 0x3F80_0000),
        DType::BF16 => (DType::U16, 16, 7, 0x3F80),
        DType::F16 => (DType::U16, 16, 10, 0x3C00),
        d => {
            return Array::failed(Error::op(
                OP,
                format!(
                    "dtype must be float32, bfloat16 or float16, got {}",
                    d.numpy_name()
                ),
            ))
        }
    };
    let lo = convert(OP, &minval.to_param(), dtype, false);
    let hi = convert(OP, &maxval.to_param(), dtype, false);
    if let Err(e) = check_param_shapes(OP, shape, &[&lo, &hi]) {
        return Array::failed(e);
    }
    // Fewer than 8 mantissa bits (bf16) draw 8 random bits, widened, as JAX does.
    let rng_bits = if nmant < 8 { 8 } else { nbits };
    let r = if rng_bits == nbits {
        src.bits(shape, uint)
    } else {
        convert(OP, &src.bits(shape, DType::U8), uint, false)
    };
    let shifted = binary(
        OP,
        BinaryOp::ShiftRightLogical,
        &r,
        &weak_int(rng_bits - nmant),
    );
    let one = convert(OP, &weak_int(one_bits), uint, false);
    let fb = binary(OP, BinaryOp::Or, &shifted, &one);
    let floats = lax::bitcast_convert_type(&fb, dtype) - 1.0;
    let span = &hi - &lo;
    // What XLA:CPU does with `floats * span + lo`, measured against JAX: in f32 and f16 it is
    // one rounding (f32: a fused multiply-add; f16: computed in f32, rounded once to f16); in
    // bf16 each op is computed in f32 and rounded to bf16, the product and the sum apart.
    // One rounding is reproduced by computing in the next wider float, where the product of
    // two values of `dtype` is exact (barring a double-rounding tie, vanishingly rare).
    let scaled = match dtype {
        DType::BF16 => &(&floats * &span) + &lo,
        _ => {
            let wide = if dtype == DType::F32 {
                DType::F64
            } else {
                DType::F32
            };
            let w = |x: &Array| convert(OP, x, wide, false);
            convert(OP, &(&(&w(&floats) * &w(&span)) + &w(&lo)), dtype, false)
        }
    };
    np::maximum(&lo, &scaled)
}

/// `jax.random.normal(key, shape, dtype)`: `sqrt(2)·erf_inv(u)` with `u` uniform in
/// `(-1, 1)` (the open lower bound is the float just above -1), as JAX draws it.
///
/// ```
/// use systolic::random;
/// let n = random::normal(&random::key(0), &[2], systolic_ir::DType::F32);
/// let v = n.to_vec::<f32>().unwrap();
/// assert!((v[0] - 1.6226422).abs() < 1e-6 && (v[1] - 2.0252647).abs() < 1e-6);
/// ```
pub fn normal(key: &Array, shape: &[i64], dtype: DType) -> Array {
    normal_from(&Source::Key(key), shape, dtype)
}

/// [`normal`] from any [`Source`].
pub(crate) fn normal_from(src: &Source, shape: &[i64], dtype: DType) -> Array {
    let lo = match dtype {
        DType::F32 => f64::from(f32::from_bits((-1.0f32).to_bits() - 1)),
        DType::BF16 => f64::from(half::bf16::from_bits(half::bf16::NEG_ONE.to_bits() - 1)),
        DType::F16 => f64::from(half::f16::from_bits(half::f16::NEG_ONE.to_bits() - 1)),
        d => {
            return Array::failed(Error::op(
                "random.normal",
                format!(
                    "dtype must be float32, bfloat16 or float16, got {}",
                    d.numpy_name()
                ),
            ))
        }
    };
    let u = uniform_from(src, shape, dtype, lo, 1.0);
    let e = chlo_unary("random.normal", ChloUnaryOp::ErfInv, &u);
    let sqrt2 = convert(
        "random.normal",
        &weak_float(std::f64::consts::SQRT_2),
        dtype,
        false,
    );
    &sqrt2 * &e
}
