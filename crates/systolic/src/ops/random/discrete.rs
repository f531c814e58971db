//! Discrete draws: integers, booleans, permutations, choices and categories, as JAX 0.10
//! computes them (randint's two-draw modulus, sort-based shuffles, Gumbel-max categories).

use super::continuous::{draw_shape, try_array};
use super::helpers::{
    axis_to_last, check_param_shapes, cst, cumsum, last_to_axis, norm_axis, take, take_along_last,
    top_k,
};
use super::{bits, gumbel, split, uniform, Param};
use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::{binary, broadcast_shapes, convert, weak_int};
use systolic_ir::{BinaryOp, DType};

/// Smallest and largest value of an integer dtype of at most 32 bits.
fn int_range(dtype: DType) -> (i64, i64) {
    match (dtype.signed_range(), dtype.unsigned_max()) {
        (Some(r), _) => r,
        (None, Some(m)) => (0, m as i64),
        _ => (0, 1),
    }
}

/// JAX's `_convert_and_clip_integer`: `val` clipped to what both its dtype and `dtype` hold,
/// then converted (so out-of-range bounds saturate instead of wrapping).
fn convert_and_clip(op: &str, val: &Array, dtype: DType) -> Array {
    let (dmin, dmax) = int_range(dtype);
    let (vmin, vmax) = int_range(val.element_type());
    let lo = cst(dmin.max(vmin) as f64, val.element_type());
    let hi = cst(dmax.min(vmax) as f64, val.element_type());
    convert(op, &np::minimum(&np::maximum(val, &lo), &hi), dtype, false)
}

/// A non-integer parameter becomes int32 (`astype(int)`); integers stay.
fn as_int(op: &str, x: Array) -> Array {
    if x.element_type().is_integer() {
        x
    } else {
        convert(op, &x, DType::I32, false)
    }
}

/// `jax.random.randint(key, shape, minval, maxval, dtype)`: integers in `[minval, maxval)`.
///
/// JAX's algorithm: two draws of `nbits` random bits `hi`, `lo` (from the two halves of a
/// split key); `span = maxval - minval` as unsigned (1 when `maxval <= minval`, so `minval`
/// is returned); `offset = ((hi mod span)·(2^nbits mod span) + lo mod span) mod span`, with
/// `2^nbits mod span` computed as `((2^(nbits/2) mod span)²) mod span` in wrapping unsigned
/// arithmetic. 8- and 16-bit dtypes sample in int32 with the bounds clipped to the dtype
/// (`maxval` to one past its maximum, so `randint(k, s, 0, 256, uint8)` covers 0..=255);
/// bounds beyond the dtype saturate. Integer bounds are weak int32 (x64 off), arrays
/// broadcast against `shape`.
///
/// ```
/// use systolic::random;
/// use systolic_ir::DType;
/// let key = random::key(0);
/// let r = random::randint(&key, &[6], 0, 10, DType::I32);
/// assert_eq!(r.to_vec::<i32>().unwrap(), vec![9, 0, 2, 3, 1, 7]);
/// let b = random::randint(&key, &[6], 0, 256, DType::U8);
/// assert_eq!(b.to_vec::<u8>().unwrap(), vec![101, 80, 200, 61, 3, 211]);
/// ```
pub fn randint(
    key: &Array,
    shape: &[i64],
    minval: impl Param,
    maxval: impl Param,
    dtype: DType,
) -> Array {
    const OP: &str = "random.randint";
    let nbits = dtype.bit_width();
    if !dtype.is_integer() || !matches!(nbits, 8 | 16 | 32) {
        return Array::failed(Error::op(
            OP,
            format!(
                "dtype must be an integer dtype of 8, 16 or 32 bits, got {}",
                dtype.numpy_name()
            ),
        ));
    }
    let mut minval = minval.to_param();
    let mut maxval = maxval.to_param();
    let mut sample = dtype;
    if nbits < 32 {
        // Sample in 32 bits to avoid bias; clip the bounds to the dtype (maxval one past).
        sample = DType::I32;
        let (lo, hi) = int_range(dtype);
        let clip = |x: &Array, lo: i64, hi: i64| {
            let x = convert(OP, x, DType::I32, false);
            np::minimum(
                &np::maximum(&x, &cst(lo as f64, DType::I32)),
                &cst(hi as f64, DType::I32),
            )
        };
        minval = clip(&minval, lo, hi);
        maxval = clip(&maxval, lo, hi + 1);
    }
    convert(
        OP,
        &randint_in(key, shape, minval, maxval, sample),
        dtype,
        false,
    )
}

/// JAX's `_randint` for a 32-bit `dtype`.
fn randint_in(key: &Array, shape: &[i64], minval: Array, maxval: Array, dtype: DType) -> Array {
    const OP: &str = "random.randint";
    try_array!(check_param_shapes(OP, shape, &[&minval, &maxval]));
    let minval = as_int(OP, minval);
    let maxval = as_int(OP, maxval);
    let (_, dmax) = int_range(dtype);
    let (mmin, mmax) = int_range(maxval.element_type());
    let dmax_in_max = dmax.clamp(mmin, mmax);
    let maxval_out_of_range = np::greater(&maxval, &cst(dmax_in_max as f64, maxval.element_type()));
    let minval = convert_and_clip(OP, &minval, dtype);
    let maxval = convert_and_clip(OP, &maxval, dtype);
    let unsigned = DType::U32;
    let keys = split(key, 2);
    let higher = bits(&keys[0], shape, unsigned);
    let lower = bits(&keys[1], shape, unsigned);
    let span = convert(OP, &np::subtract(&maxval, &minval), unsigned, false);
    let one = cst(1.0, unsigned);
    let span = np::where_(&np::less_equal(&maxval, &minval), &one, &span);
    let span = np::where_(
        &binary(
            OP,
            BinaryOp::And,
            &maxval_out_of_range,
            &np::greater(&maxval, &minval),
        ),
        &np::add(&span, &one),
        &span,
    );
    let rem = |a: &Array, b: &Array| binary(OP, BinaryOp::Remainder, a, b);
    let m = rem(&cst(65536.0, unsigned), &span);
    let multiplier = rem(&np::multiply(&m, &m), &span);
    let offset = rem(
        &np::add(
            &np::multiply(&rem(&higher, &span), &multiplier),
            &rem(&lower, &span),
        ),
        &span,
    );
    let out = np::add(&minval, &convert(OP, &offset, dtype, false));
    np::broadcast_to(&out, shape)
}

/// `jax.random.bernoulli(key, p, shape)` (JAX's default "low" mode): `uniform < p`, drawn in
/// `p`'s float dtype (`float32` for a number). `shape = None` takes `p`'s shape.
///
/// ```
/// use systolic::random;
/// let b = random::bernoulli(&random::key(0), 0.3, Some(&[6]));
/// assert_eq!(b.to_vec::<bool>().unwrap(), vec![false, false, false, false, false, true]);
/// ```
pub fn bernoulli(key: &Array, p: impl Param, shape: Option<&[i64]>) -> Array {
    const OP: &str = "random.bernoulli";
    let p = p.to_param();
    try_array!(p.check());
    if !p.element_type().is_float() {
        return Array::failed(Error::op(
            OP,
            format!("p must have a float dtype, got {}", describe(p.aval())),
        ));
    }
    let shape = try_array!(draw_shape(OP, shape, &[&p]));
    let p = convert(OP, &p, p.element_type(), false);
    np::less(&uniform(key, &shape, p.element_type(), 0.0, 1.0), &p)
}

/// `jax.random.rademacher(key, shape, dtype)`: -1 or 1 with equal odds
/// (`2·bernoulli(0.5) - 1`), in an integer or float dtype.
///
/// ```
/// use systolic::random;
/// let r = random::rademacher(&random::key(0), &[5], systolic_ir::DType::I32);
/// assert!(r.to_vec::<i32>().unwrap().iter().all(|x| *x == 1 || *x == -1));
/// ```
pub fn rademacher(key: &Array, shape: &[i64], dtype: DType) -> Array {
    const OP: &str = "random.rademacher";
    let b = convert(OP, &bernoulli(key, 0.5, Some(shape)), dtype, false);
    let two_b = binary(OP, BinaryOp::Multiply, &weak_int(2), &b);
    convert(
        OP,
        &binary(OP, BinaryOp::Subtract, &two_b, &weak_int(1)),
        dtype,
        false,
    )
}

/// `jax.random.geometric(key, p, shape, dtype)`: the number of Bernoulli(`p`) trials up to
/// the first success, `floor(log(u) / log1p(-p)) + 1` (`u = 0` counted as 1).
///
/// ```
/// use systolic::random;
/// let g = random::geometric(&random::key(0), 0.3, Some(&[4]), systolic_ir::DType::I32);
/// assert!(g.to_vec::<i32>().unwrap().iter().all(|x| *x >= 1));
/// ```
pub fn geometric(key: &Array, p: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.geometric";
    if !dtype.is_integer() {
        return Array::failed(Error::op(
            OP,
            format!("dtype must be an integer dtype, got {}", dtype.numpy_name()),
        ));
    }
    let p = p.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&p]));
    let p = if p.element_type().is_float() {
        p
    } else {
        convert(OP, &p, DType::F32, p.weak_type())
    };
    let u = uniform(key, &shape, p.element_type(), 0.0, 1.0);
    let u = np::where_(&np::equal(&u, &weak_int(0)), &weak_int(1), &u);
    let log_u = np::log(&u);
    let log_q = np::broadcast_to(&np::log1p(&np::negative(&p)), &shape);
    let g = np::add(&np::floor(&np::divide(&log_u, &log_q)), &weak_int(1));
    convert(OP, &g, dtype, false)
}

/// The number of sort rounds JAX's shuffle uses for `size` elements:
/// `ceil(3·ln(size) / ln(2³² - 1))`.
fn shuffle_rounds(size: usize) -> usize {
    let size = size.max(1) as f64;
    (3.0 * size.ln() / (u32::MAX as f64).ln()).ceil() as usize
}

/// JAX's `_shuffle(key, x, axis)`: rounds of a stable sort of `x` along `axis` by fresh random
/// 32-bit keys (one per element, drawn in `x`'s shape).
fn shuffle(op: &str, key: &Array, x: &Array, axis: usize) -> Array {
    let mut key = key.clone();
    let mut x = x.clone();
    let n = x.dims()[axis];
    for _ in 0..shuffle_rounds(x.num_elements()) {
        let ks = split(&key, 2);
        key = ks[0].clone();
        let sort_keys = bits(&ks[1], x.dims(), DType::U32);
        let (kt, inv) = axis_to_last(&sort_keys, axis);
        let (xt, _) = axis_to_last(&x, axis);
        // A stable ascending sort by key is top-k of the smallest, ties lower index first.
        let (_, order) = top_k(op, &kt, n, false);
        x = last_to_axis(&take_along_last(op, &xt, &order), &inv);
    }
    x
}

/// `jax.random.permutation(key, n)`: a random ordering of `0..n` (int32).
///
/// JAX shuffles by sorting with random keys; `ceil(3·ln n / ln(2³²-1))` rounds (one up to
/// n = 1625, two up to about 2.6 million) make colliding keys harmless.
///
/// ```
/// use systolic::random;
/// let p = random::permutation(&random::key(0), 8);
/// assert_eq!(p.to_vec::<i32>().unwrap(), vec![0, 1, 5, 6, 4, 3, 2, 7]);
/// ```
pub fn permutation(key: &Array, n: i64) -> Array {
    if n < 0 {
        return Array::failed(Error::op(
            "random.permutation",
            format!("n must be >= 0, got {n}"),
        ));
    }
    shuffle("random.permutation", key, &np::arange(n), 0)
}

/// `jax.random.permutation(key, x, axis, independent)`: `x` shuffled along `axis`. With
/// `independent`, each slice along `axis` is shuffled on its own; otherwise one permutation
/// of the `axis` positions is applied to all (`jnp.take` of a shuffled `arange`).
///
/// ```
/// use systolic::{random, Array};
/// let x = Array::from_vec((0..6).collect::<Vec<i32>>(), &[3, 2]);
/// let p = random::permutation_array(&random::key(0), &x, 0, false);
/// let rows: Vec<Vec<i32>> = p.to_vec::<i32>().unwrap().chunks(2).map(|r| r.to_vec()).collect();
/// assert!(rows.iter().all(|r| r[1] == r[0] + 1)); // whole rows move
/// ```
pub fn permutation_array(key: &Array, x: &Array, axis: i64, independent: bool) -> Array {
    const OP: &str = "random.permutation";
    try_array!(x.check());
    if x.rank() == 0 {
        return Array::failed(Error::op(
            OP,
            "x must be at least 1-dimensional (use permutation for an integer)",
        ));
    }
    let axis = try_array!(norm_axis(OP, axis, x.rank()));
    if independent || x.rank() == 1 {
        return shuffle(OP, key, x, axis);
    }
    let ind = shuffle(OP, key, &np::arange(x.dims()[axis]), 0);
    take(OP, x, &ind, axis)
}

/// `jax.random.choice(key, a, shape, replace, p, axis)`: draws from `a` (an integer `n`
/// meaning `arange(n)`, or an array, along `axis`).
///
/// As JAX: with replacement and no `p`, `randint(0, n)` indices; without replacement, the
/// first draws of a `permutation`; with `p` and replacement, inverse-CDF sampling on
/// `cumsum(p)` (`searchsorted` of `cumsum(p)[-1]·(1 - uniform)`); with `p` and without
/// replacement, the top `prod(shape)` of `gumbel + log(p)`. The result has `shape` in
/// place of `a`'s `axis`.
///
/// ```
/// use systolic::{random, Array};
/// let key = random::key(0);
/// let c = random::choice(&key, 10, &[4], false, None, 0).to_vec::<i32>().unwrap();
/// let mut sorted = c.clone();
/// sorted.sort();
/// sorted.dedup();
/// assert_eq!(sorted.len(), 4); // no repeats
/// let p = Array::from_vec(vec![0.0f32, 1.0, 0.0], &[3]);
/// let d = random::choice(&key, 3, &[5], true, Some(&p), 0);
/// assert_eq!(d.to_vec::<i32>().unwrap(), vec![1; 5]);
/// ```
pub fn choice(
    key: &Array,
    a: impl Param,
    shape: &[i64],
    replace: bool,
    p: Option<&Array>,
    axis: i64,
) -> Array {
    const OP: &str = "random.choice";
    let arr = a.to_param();
    try_array!(arr.check());
    let scalar = arr.rank() == 0;
    let (n_inputs, axis) = if scalar {
        match a.as_f64() {
            Some(v) if v.fract() == 0.0 => (v as i64, 0),
            _ => {
                return Array::failed(Error::op(
                    OP,
                    "a must be an integer or an array of rank >= 1",
                ))
            }
        }
    } else {
        let ax = try_array!(norm_axis(OP, axis, arr.rank()));
        (arr.dims()[ax], ax)
    };
    let n_draws: i64 = shape.iter().product();
    let out_shape: Vec<i64> = if scalar {
        shape.to_vec()
    } else {
        let s = arr.dims();
        s[..axis]
            .iter()
            .chain(shape)
            .chain(&s[axis + 1..])
            .copied()
            .collect()
    };
    let out_dtype = if scalar {
        DType::I32
    } else {
        arr.element_type()
    };
    if n_draws == 0 {
        return np::zeros(&out_shape, out_dtype);
    }
    if n_inputs <= 0 {
        return Array::failed(Error::op(
            OP,
            "a must be greater than 0 unless no samples are taken",
        ));
    }
    if !replace && n_draws > n_inputs {
        return Array::failed(Error::op(
            OP,
            format!(
                "cannot take a larger sample (size {n_draws}) than population (size \
                 {n_inputs}) when replace=false"
            ),
        ));
    }
    let pick = |ind: &Array| {
        if scalar {
            ind.clone()
        } else {
            take(OP, &arr, &np::reshape(ind, &[n_draws]), axis)
        }
    };
    let result = match p {
        None if replace => pick(&randint(key, shape, 0, n_inputs, DType::I32)),
        None => {
            let perm = if scalar {
                permutation(key, n_inputs)
            } else {
                permutation_array(key, &arr, axis as i64, false)
            };
            let mut start = vec![0; perm.rank()];
            let mut limit = perm.dims().to_vec();
            start[axis] = 0;
            limit[axis] = n_draws;
            lax::slice(&perm, &start, &limit, None)
        }
        Some(p) => {
            try_array!(p.check());
            let p = if p.element_type().is_float() {
                p.clone()
            } else {
                convert(OP, p, DType::F32, p.weak_type())
            };
            if p.dims() != [n_inputs] {
                return Array::failed(Error::op(
                    OP,
                    format!(
                        "p must be None or a 1D vector with the same size as a.shape[axis] \
                         ({n_inputs}), got {}",
                        describe(p.aval())
                    ),
                ));
            }
            let ind = if replace {
                let p_cuml = cumsum(OP, &p);
                let total = lax::reshape(
                    &lax::slice(&p_cuml, &[n_inputs - 1], &[n_inputs], None),
                    &[],
                );
                let u = uniform(key, shape, p.element_type(), 0.0, 1.0);
                let r = np::multiply(&total, &np::subtract(&weak_int(1), &u));
                // searchsorted(p_cuml, r, side='left') = how many cumulative sums are < r.
                let rf = np::reshape(&r, &[n_draws, 1]);
                let below = np::less(&np::reshape(&p_cuml, &[1, n_inputs]), &rf);
                np::sum(&below, Some(&[1]), false)
            } else {
                let g = np::add(&gumbel(key, &[n_inputs], p.element_type()), &np::log(&p));
                top_k(OP, &g, n_draws, true).1
            };
            pick(&ind)
        }
    };
    np::reshape(&result, &out_shape)
}

/// The batch shape and the draw prefix of a categorical draw.
fn categorical_shapes(
    op: &str,
    logits: &Array,
    axis: i64,
    shape: Option<&[i64]>,
) -> Result<(usize, Vec<i64>, Vec<i64>), Error> {
    logits.check()?;
    if !logits.element_type().is_float() {
        return Err(Error::op(
            op,
            format!("logits must be floats, got {}", describe(logits.aval())),
        ));
    }
    let axis = norm_axis(op, axis, logits.rank())?;
    let mut batch = logits.dims().to_vec();
    batch.remove(axis);
    let shape = shape.map_or_else(|| batch.clone(), <[i64]>::to_vec);
    if shape.len() < batch.len() || broadcast_shapes(&shape, &batch).as_deref() != Some(&shape[..])
    {
        return Err(Error::op(
            op,
            format!("shape {shape:?} does not end in the batch shape {batch:?} of the logits"),
        ));
    }
    Ok((axis, batch, shape))
}

/// `jax.random.categorical(key, logits, axis, shape)`: category indices (int32) drawn with
/// probabilities `softmax(logits)` along `axis`, by the Gumbel-max trick
/// (`argmax(logits + gumbel)`). The result shape is `shape`, which must end in the logits'
/// batch shape (their shape without `axis`, the default); leading dimensions draw more
/// samples per batch element.
///
/// ```
/// use systolic::{random, Array};
/// let logits = Array::from_vec(vec![0.0f32, 0.0, -1e30, 0.0, -1e30, 0.0], &[2, 3]);
/// let c = random::categorical(&random::key(0), &logits, -1, Some(&[4, 2]));
/// let v = c.to_vec::<i32>().unwrap();
/// assert!(v.chunks(2).all(|r| r[0] != 2 && r[1] != 1));
/// ```
pub fn categorical(key: &Array, logits: &Array, axis: i64, shape: Option<&[i64]>) -> Array {
    const OP: &str = "random.categorical";
    let (axis, batch, shape) = try_array!(categorical_shapes(OP, logits, axis, shape));
    let prefix = shape.len() - batch.len();
    let mut draw: Vec<i64> = shape.clone();
    draw.insert(prefix + axis, logits.dims()[axis]);
    let g = gumbel(key, &draw, logits.element_type());
    let mut lshape = vec![1; prefix];
    lshape.extend_from_slice(logits.dims());
    np::argmax(
        &np::add(&g, &np::reshape(logits, &lshape)),
        (prefix + axis) as i64,
        false,
    )
}

/// `jax.random.categorical(key, logits, axis, shape, replace=False)`: distinct categories
/// per batch element, the top `k = prod(shape[..prefix])` of `logits + gumbel` (`k` must not
/// exceed the number of categories). `shape` must be the draw prefix followed by the exact
/// batch shape.
///
/// ```
/// use systolic::{random, Array};
/// let logits = Array::from_vec(vec![0.0f32; 4], &[4]);
/// let c = random::categorical_without_replacement(&random::key(0), &logits, 0, &[4]);
/// let mut v = c.to_vec::<i32>().unwrap();
/// v.sort();
/// assert_eq!(v, vec![0, 1, 2, 3]);
/// ```
pub fn categorical_without_replacement(
    key: &Array,
    logits: &Array,
    axis: i64,
    shape: &[i64],
) -> Array {
    const OP: &str = "random.categorical";
    let (axis, batch, shape) = try_array!(categorical_shapes(OP, logits, axis, Some(shape)));
    let prefix = shape.len() - batch.len();
    if shape[prefix..] != batch[..] {
        return Array::failed(Error::op(
            OP,
            format!("without replacement, shape {shape:?} must end in the batch shape {batch:?}"),
        ));
    }
    let k: i64 = shape[..prefix].iter().product();
    if k > logits.dims()[axis] {
        return Array::failed(Error::op(
            OP,
            format!(
                "number of samples without replacement ({k}) cannot exceed number of \
                 categories ({})",
                logits.dims()[axis]
            ),
        ));
    }
    let l = np::add(logits, &gumbel(key, logits.dims(), logits.element_type()));
    let (lt, _) = axis_to_last(&l, axis);
    let (_, idx) = top_k(OP, &lt, k, true);
    // indices: batch + [k] -> [k] + batch -> shape.
    let r = idx.rank() as i64;
    let mut perm = vec![r - 1];
    perm.extend(0..r - 1);
    np::reshape(&np::transpose(&idx, Some(&perm)), &shape)
}
