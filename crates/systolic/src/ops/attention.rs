//! `jax.nn.dot_product_attention` on JAX's XLA path: logits `QKᵀ · scale` in at least f32
//! (bf16/f16 products accumulate in f32), plus `bias`, masked positions replaced by a large
//! finite negative, softmax in f32, probabilities cast to the value dtype, then `PV`. Grouped
//! query attention (`N` query heads sharing `K` key/value heads, `N % K == 0`) is a reshape of
//! the query heads into `[K, G]` groups, as JAX does instead of repeating keys.

use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::convert;
use systolic_ir::{DType, DotDimensionNumbers};

const OP: &str = "dot_product_attention";

fn err(message: String) -> Error {
    Error::op(OP, message)
}

/// Checks the ranks, shapes and dtypes of the inputs as JAX's wrapper does.
fn check(
    q: &Array,
    k: &Array,
    v: &Array,
    bias: Option<&Array>,
    mask: Option<&Array>,
) -> Result<(), Error> {
    for a in [q, k, v].into_iter().chain(bias).chain(mask) {
        a.check()?;
    }
    for (name, a) in [("query", q), ("key", k), ("value", v)]
        .into_iter()
        .chain(bias.map(|b| ("bias", b)))
        .chain(mask.map(|m| ("mask", m)))
    {
        if a.rank() != 4 {
            return Err(err(format!(
                "{name} must have rank 4 ([B, T, N, H] for query/key/value, broadcastable to \
                 [B, N, T, S] for bias/mask), got {}",
                describe(a.aval())
            )));
        }
    }
    if !k.element_type().is_float() {
        return Err(err(format!(
            "key must be floating point, got {}",
            describe(k.aval())
        )));
    }
    let (b, s, kh, h) = (k.dims()[0], k.dims()[1], k.dims()[2], k.dims()[3]);
    if v.dims() != k.dims() || v.element_type() != k.element_type() {
        return Err(err(format!(
            "value {} must match key {}",
            describe(v.aval()),
            describe(k.aval())
        )));
    }
    if q.dims()[0] != b || q.dims()[3] != h || q.element_type() != k.element_type() {
        return Err(err(format!(
            "query {} must have key {}'s batch, head size and dtype",
            describe(q.aval()),
            describe(k.aval())
        )));
    }
    if kh == 0 || q.dims()[2] % kh != 0 {
        return Err(err(format!(
            "the number of query heads must be a multiple of the key/value heads: query {} vs key {}",
            describe(q.aval()),
            describe(k.aval())
        )));
    }
    if let Some(m) = mask
        && m.element_type() != DType::Bool
    {
        return Err(err(format!(
            "mask must be bool, got {}",
            describe(m.aval())
        )));
    }
    let logits = [b, q.dims()[2], q.dims()[1], s];
    for (name, a) in bias
        .map(|x| ("bias", x))
        .into_iter()
        .chain(mask.map(|x| ("mask", x)))
    {
        let ok = a.dims().iter().zip(logits).all(|(&d, l)| d == 1 || d == l);
        if !ok {
            return Err(err(format!(
                "{name} {} does not broadcast to the logits shape [B, N, T, S] = {logits:?}",
                describe(a.aval())
            )));
        }
    }
    Ok(())
}

/// A `[B, N, T, S]`-broadcastable bias or mask as `[B, K, G, T, S]` groups (a size-1 head
/// dimension stays size 1 and broadcasts over both).
fn grouped(t: &Array, kh: i64, g: i64) -> Array {
    let s = t.dims();
    if s[1] == 1 {
        np::reshape(t, &[s[0], 1, 1, s[2], s[3]])
    } else {
        np::reshape(t, &[s[0], kh, g, s[2], s[3]])
    }
}

/// `jax.nn.dot_product_attention(query, key, value, bias, mask, scale=scale,
/// is_causal=is_causal)`, XLA implementation. `query` is `[B, T, N, H]`, `key` and `value`
/// `[B, S, K, H]` with `N % K == 0` (or all three without `B`: `[T, N, H]`); `bias` (added to
/// the logits) and `mask` (bool, true = attend) broadcast to `[B, N, T, S]` (missing leading
/// dimensions are size 1); `scale` defaults to `1/√H`. Masked logits become
/// `-0.7 ·` the largest finite value of the logits dtype (capped at f32's), so a fully masked
/// row averages the values uniformly rather than giving NaN.
///
/// ```
/// use systolic::{nn, Array};
/// let q = Array::from_vec(vec![1.0f32, 0.0], &[1, 1, 1, 2]);
/// let k = Array::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], &[1, 2, 1, 2]);
/// let v = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[1, 2, 1, 2]);
/// let o = nn::dot_product_attention(&q, &k, &v, None, None, Some(1.0), false);
/// let w = 1.0 / (1.0 + (-1.0f32).exp()); // softmax([1, 0])[0]
/// let got = o.to_vec::<f32>().unwrap();
/// assert!((got[0] - (w * 1.0 + (1.0 - w) * 3.0)).abs() < 1e-6);
/// let causal = nn::dot_product_attention(&q, &k, &v, None, None, None, true);
/// assert_eq!(causal.to_vec::<f32>().unwrap(), vec![1.0, 2.0]); // only key 0 is visible
/// let unbatched = |x: &Array| systolic::numpy::squeeze(x, 0);
/// let o3 = nn::dot_product_attention(&unbatched(&q), &unbatched(&k), &unbatched(&v), None, None, None, true);
/// assert_eq!(o3.shape(), &[1, 1, 2]);
/// ```
pub fn dot_product_attention(
    query: &Array,
    key: &Array,
    value: &Array,
    bias: Option<&Array>,
    mask: Option<&Array>,
    scale: Option<f64>,
    is_causal: bool,
) -> Array {
    // Lower-rank inputs ([T, N, H] without a batch, bias/mask with fewer leading dims) get
    // leading size-1 dimensions, and the result takes the query's shape back, as in JAX.
    for a in [query, key, value].into_iter().chain(bias).chain(mask) {
        if let Err(e) = a.check() {
            return Array::failed(e);
        }
    }
    let qkv_rank = [query, key, value].iter().all(|a| a.rank() == query.rank())
        && (query.rank() == 3 || query.rank() == 4);
    let extra_rank = bias.into_iter().chain(mask).all(|a| a.rank() <= 4);
    if !qkv_rank || !extra_rank {
        return Array::failed(err(format!(
            "query, key and value must all have rank 3 ([T, N, H]) or 4 ([B, T, N, H]) and \
             bias/mask at most rank 4, got {}",
            crate::core::bind::describe_all(
                &[query, key, value]
                    .into_iter()
                    .chain(bias)
                    .chain(mask)
                    .collect::<Vec<_>>()
            )
        )));
    }
    let to4 = |x: &Array| {
        if x.error().is_some() || x.rank() >= 4 {
            return x.clone();
        }
        let mut s = vec![1; 4 - x.rank()];
        s.extend_from_slice(x.dims());
        np::reshape(x, &s)
    };
    let (q4, k4, v4) = (to4(query), to4(key), to4(value));
    let (b4, m4) = (bias.map(to4), mask.map(to4));
    let out = attention4(&q4, &k4, &v4, b4.as_ref(), m4.as_ref(), scale, is_causal);
    if out.error().is_some() || query.rank() == 4 {
        return out;
    }
    np::reshape(&out, query.dims())
}

fn attention4(
    query: &Array,
    key: &Array,
    value: &Array,
    bias: Option<&Array>,
    mask: Option<&Array>,
    scale: Option<f64>,
    is_causal: bool,
) -> Array {
    if let Err(e) = check(query, key, value, bias, mask) {
        return Array::failed(e);
    }
    let (b, t, n, h) = (
        query.dims()[0],
        query.dims()[1],
        query.dims()[2],
        query.dims()[3],
    );
    let (s, kh) = (key.dims()[1], key.dims()[2]);
    let g = n / kh;
    let scale = scale.unwrap_or(1.0 / (h as f64).sqrt());
    let logits_dtype = if query.element_type() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    // [B, T, K, G, H] · [B, S, K, H] → [B, K, T, G, S] → [B, K, G, T, S].
    let q5 = np::reshape(query, &[b, t, kh, g, h]);
    let dims = DotDimensionNumbers {
        lhs_batching_dimensions: vec![0, 2],
        rhs_batching_dimensions: vec![0, 2],
        lhs_contracting_dimensions: vec![4],
        rhs_contracting_dimensions: vec![3],
    };
    let logits = lax::dot_general(&q5, key, dims, Some(logits_dtype));
    let logits = np::transpose(&logits, Some(&[0, 1, 3, 2, 4]));
    let scale_arr = convert(OP, &crate::weak_float(scale), logits_dtype, false);
    let mut logits = &logits * &scale_arr;
    if let Some(bias) = bias {
        logits = convert(OP, &(&logits + &grouped(bias, kh, g)), logits_dtype, false);
    }
    let mut keep: Option<Array> = mask.map(|m| grouped(m, kh, g));
    if is_causal {
        let causal = np::greater_equal(
            &lax::iota(DType::I32, &[t, s], 0),
            &lax::iota(DType::I32, &[t, s], 1),
        );
        keep = Some(match keep {
            Some(m) => np::logical_and(&m, &causal),
            None => causal,
        });
    }
    if let Some(keep) = keep {
        // Both logits dtypes (f32, f64) have a largest value at least f32's.
        let neg = np::full(&[], -0.7 * f64::from(f32::MAX), logits_dtype);
        logits = np::where_(&keep, &logits, &neg);
    }
    let probs = crate::nn::softmax(&convert(OP, &logits, DType::F32, false), -1);
    let probs = convert(OP, &probs, key.element_type(), false);
    // [B, K, G, T, S] · [B, S, K, H] → [B, K, G, T, H] → [B, T, K, G, H].
    let dims = DotDimensionNumbers {
        lhs_batching_dimensions: vec![0, 1],
        rhs_batching_dimensions: vec![0, 2],
        lhs_contracting_dimensions: vec![4],
        rhs_contracting_dimensions: vec![1],
    };
    let out = lax::dot_general(&probs, value, dims, None);
    let out = np::transpose(&out, Some(&[0, 3, 1, 2, 4]));
    np::reshape(&out, &[b, t, n, h])
}
