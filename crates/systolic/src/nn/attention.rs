//! `flax.linen.MultiHeadDotProductAttention`, with grouped-query attention as an extension.
//!
//! The computation is flax's `dot_product_attention` (which differs in rounding from
//! `jax.nn.dot_product_attention`): the query is divided by `√head_dim` (computed in f32, cast
//! to the computation dtype) before `QKᵀ`, the bias is added, masked logits become the
//! dtype's most negative finite value, the softmax is taken in the computation dtype, dropout
//! (if any) multiplies the weights by `keep / (1 − rate)`, and the weights multiply `V`.

use super::dense::{DenseGeneral, DenseParams};
use super::dtypes::{or_failed, promote};
use super::initializers::{self, Initializer};
use super::norm::{LayerNorm, LayerNormParams};
use crate::array::{describe, Array};
use crate::error::{Error, Result};
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::{convert, weak_int};
use crate::random;
use crate::Tree;
use systolic_ir::{DType, DotDimensionNumbers};

/// [`MultiHeadDotProductAttention`]'s parameters: four [`DenseGeneral`] layers, named as flax
/// names them.
#[derive(Tree, Clone, Debug)]
pub struct AttentionParams {
    /// `[in_q, heads, head_dim]` (+ bias `[heads, head_dim]`).
    pub query: DenseParams,
    /// `[in_k, kv_heads, head_dim]`.
    pub key: DenseParams,
    /// `[in_v, kv_heads, head_dim]`.
    pub value: DenseParams,
    /// `[heads, head_dim, out_features]`.
    pub out: DenseParams,
    /// With `normalize_qk`: the query's LayerNorm (a `[head_dim]` scale, no bias).
    pub query_ln: Option<LayerNormParams>,
    /// With `normalize_qk`: the key's LayerNorm.
    pub key_ln: Option<LayerNormParams>,
}

/// `flax.linen.MultiHeadDotProductAttention(num_heads)`.
///
/// Queries come from `inputs_q` (`[..., T, Dq]`), keys from `inputs_k` (`[..., S, Dk]`,
/// default `inputs_q`), values from `inputs_v` (default `inputs_k`). `mask` (bool, or float
/// with nonzero = attend, as [`make_causal_mask`](super::make_causal_mask) makes) broadcasts to
/// `[..., heads, T, S]`. `num_kv_heads` (not in flax) gives grouped-query attention: key and
/// value have that many heads, each shared by `num_heads / num_kv_heads` consecutive query
/// heads (what `jnp.repeat(k, G, axis=-2)` before flax's attention computes); `None` is
/// flax's layer. `init` draws query, key, value, out (and with `normalize_qk` query_ln and
/// key_ln) from `random::split(key, 6)` in that order.
///
/// ```
/// use systolic::{nn::{self, MultiHeadDotProductAttention}, random, Array};
/// let attn = MultiHeadDotProductAttention::new(4);
/// let p = attn.init(&random::key(0), &[2, 5, 8], None).unwrap();
/// assert_eq!(p.query.kernel.shape(), &[8, 4, 2]);
/// assert_eq!(p.out.kernel.shape(), &[4, 2, 8]);
/// let x = random::normal(&random::key(1), &[2, 5, 8], systolic_ir::DType::F32);
/// let mask = nn::make_causal_mask(&Array::from_vec(vec![0i32; 10], &[2, 5]), 0, systolic_ir::DType::F32);
/// assert_eq!(mask.shape(), &[2, 1, 5, 5]);
/// let y = attn.apply(&p, &x, None, None, Some(&mask), None);
/// assert_eq!(y.shape(), &[2, 5, 8]);
/// // Grouped-query attention: 4 query heads share 2 key/value heads.
/// let gqa = MultiHeadDotProductAttention { num_kv_heads: Some(2), ..attn.clone() };
/// let pg = gqa.init(&random::key(0), &[2, 5, 8], None).unwrap();
/// assert_eq!(pg.key.kernel.shape(), &[8, 2, 2]);
/// assert_eq!(gqa.apply(&pg, &x, None, None, Some(&mask), None).shape(), &[2, 5, 8]);
/// ```
#[derive(Clone, Debug)]
pub struct MultiHeadDotProductAttention {
    /// The number of query heads.
    pub num_heads: i64,
    /// The number of key/value heads (`None`: `num_heads`); must divide `num_heads`.
    pub num_kv_heads: Option<i64>,
    /// The total size of the query (and key/value per head) projections (`None`: the query
    /// input's size); divided evenly among the heads.
    pub qkv_features: Option<i64>,
    /// The output size (`None`: the query input's size).
    pub out_features: Option<i64>,
    /// Whether the four projections have biases.
    pub use_bias: bool,
    /// Dropout on the attention weights (applied only when `apply` gets a key).
    pub dropout_rate: f64,
    /// Whether one dropout mask is shared over the batch and head axes (flax's default).
    pub broadcast_dropout: bool,
    /// The computation dtype (`None`: promoted).
    pub dtype: Option<DType>,
    /// The parameters' dtype.
    pub param_dtype: DType,
    /// The projections' kernel initializer (`lecun_normal`).
    pub kernel_init: Initializer,
    /// The output kernel's initializer (`None`: `kernel_init`).
    pub out_kernel_init: Option<Initializer>,
    /// The biases' initializer (`zeros`).
    pub bias_init: Initializer,
    /// The output bias's initializer (`None`: `bias_init`).
    pub out_bias_init: Option<Initializer>,
    /// QK normalisation (arXiv 2302.05442): a bias-free LayerNorm over the head dimension of
    /// the projected queries and keys (flax's `query_ln`/`key_ln`).
    pub normalize_qk: bool,
}

const OP: &str = "nn.MultiHeadDotProductAttention";

impl MultiHeadDotProductAttention {
    /// Attention with `num_heads` heads and flax's defaults.
    pub fn new(num_heads: i64) -> Self {
        MultiHeadDotProductAttention {
            num_heads,
            num_kv_heads: None,
            qkv_features: None,
            out_features: None,
            use_bias: true,
            dropout_rate: 0.0,
            broadcast_dropout: true,
            dtype: None,
            param_dtype: DType::F32,
            kernel_init: initializers::lecun_normal(),
            out_kernel_init: None,
            bias_init: initializers::zeros(),
            out_bias_init: None,
            normalize_qk: false,
        }
    }

    /// `(head_dim, kv_heads, out_features)` for a query input of `q_features`.
    fn sizes(&self, q_features: i64) -> Result<(i64, i64, i64)> {
        let qkv = self.qkv_features.unwrap_or(q_features);
        let kv = self.num_kv_heads.unwrap_or(self.num_heads);
        if self.num_heads < 1 || qkv % self.num_heads != 0 {
            return Err(Error::op(
                OP,
                format!(
                    "qkv_features ({qkv}) must be divisible by the number of heads ({})",
                    self.num_heads
                ),
            ));
        }
        if kv < 1 || self.num_heads % kv != 0 {
            return Err(Error::op(
                OP,
                format!(
                    "num_kv_heads ({kv}) must divide the number of heads ({})",
                    self.num_heads
                ),
            ));
        }
        Ok((
            qkv / self.num_heads,
            kv,
            self.out_features.unwrap_or(q_features),
        ))
    }

    fn projection(&self, heads: i64, head_dim: i64) -> DenseGeneral {
        DenseGeneral {
            features: vec![heads, head_dim],
            axis: vec![-1],
            use_bias: self.use_bias,
            dtype: self.dtype,
            param_dtype: self.param_dtype,
            kernel_init: self.kernel_init.clone(),
            bias_init: self.bias_init.clone(),
        }
    }

    /// The QK-normalisation LayerNorm (flax's `LayerNorm(use_bias=False)` in the layer's
    /// dtypes).
    fn qk_norm(&self) -> LayerNorm {
        LayerNorm {
            use_bias: false,
            dtype: self.dtype,
            param_dtype: self.param_dtype,
            ..LayerNorm::new()
        }
    }

    fn output(&self, features: i64) -> DenseGeneral {
        DenseGeneral {
            features: vec![features],
            axis: vec![-2, -1],
            use_bias: self.use_bias,
            dtype: self.dtype,
            param_dtype: self.param_dtype,
            kernel_init: self
                .out_kernel_init
                .clone()
                .unwrap_or(self.kernel_init.clone()),
            bias_init: self.out_bias_init.clone().unwrap_or(self.bias_init.clone()),
        }
    }

    /// Parameters for queries of `inputs_q_shape` and keys/values of `inputs_kv_shape`
    /// (`None`: self-attention, the query's shape).
    pub fn init(
        &self,
        key: &Array,
        inputs_q_shape: &[i64],
        inputs_kv_shape: Option<&[i64]>,
    ) -> Result<AttentionParams> {
        let Some(&dq) = inputs_q_shape.last() else {
            return Err(Error::op(
                OP,
                "the query input has no feature axis".to_string(),
            ));
        };
        let kv_shape = inputs_kv_shape.unwrap_or(inputs_q_shape);
        let (hd, kv, out) = self.sizes(dq)?;
        let keys = random::split(key, 6);
        let mut out_shape = inputs_q_shape[..inputs_q_shape.len() - 1].to_vec();
        out_shape.extend([self.num_heads, hd]);
        let (query_ln, key_ln) = if self.normalize_qk {
            (
                Some(self.qk_norm().init(&keys[4], &out_shape)?),
                Some(self.qk_norm().init(&keys[5], &out_shape)?),
            )
        } else {
            (None, None)
        };
        Ok(AttentionParams {
            query_ln,
            key_ln,
            query: self
                .projection(self.num_heads, hd)
                .init(&keys[0], inputs_q_shape)?,
            key: self.projection(kv, hd).init(&keys[1], kv_shape)?,
            value: self.projection(kv, hd).init(&keys[2], kv_shape)?,
            out: self.output(out).init(&keys[3], &out_shape)?,
        })
    }

    /// Attention of `inputs_q` over `inputs_k`/`inputs_v` (see the type's documentation).
    /// `dropout_rng` `None` is flax's `deterministic=True`; with a key and `dropout_rate > 0`
    /// the weights are dropped out from it.
    pub fn apply(
        &self,
        params: &AttentionParams,
        inputs_q: &Array,
        inputs_k: Option<&Array>,
        inputs_v: Option<&Array>,
        mask: Option<&Array>,
        dropout_rng: Option<&Array>,
    ) -> Array {
        or_failed(self.forward(params, inputs_q, inputs_k, inputs_v, mask, dropout_rng))
    }

    fn forward(
        &self,
        p: &AttentionParams,
        inputs_q: &Array,
        inputs_k: Option<&Array>,
        inputs_v: Option<&Array>,
        mask: Option<&Array>,
        dropout_rng: Option<&Array>,
    ) -> Result<Array> {
        inputs_q.check()?;
        if inputs_q.rank() < 2 {
            return Err(Error::op(
                OP,
                format!(
                    "the query input must be [..., T, D], got {}",
                    describe(inputs_q.aval())
                ),
            ));
        }
        let inputs_k = inputs_k.unwrap_or(inputs_q);
        let inputs_v = inputs_v.unwrap_or(inputs_k);
        let dq = inputs_q.dims()[inputs_q.rank() - 1];
        let (hd, kv, out) = self.sizes(dq)?;
        let q = self
            .projection(self.num_heads, hd)
            .apply(&p.query, inputs_q);
        let k = self.projection(kv, hd).apply(&p.key, inputs_k);
        let v = self.projection(kv, hd).apply(&p.value, inputs_v);
        let (q, k) = if self.normalize_qk {
            let (Some(qp), Some(kp)) = (&p.query_ln, &p.key_ln) else {
                return Err(Error::op(
                    OP,
                    "normalize_qk needs the query_ln and key_ln parameters".to_string(),
                ));
            };
            (self.qk_norm().apply(qp, &q), self.qk_norm().apply(kp, &k))
        } else {
            (q, k)
        };
        let g = self.num_heads / kv;
        let (k, v) = (repeat_heads(&k, g)?, repeat_heads(&v, g)?);
        let dropout = match dropout_rng {
            Some(rng) if self.dropout_rate > 0.0 => Some((rng, self.dropout_rate)),
            _ => None,
        };
        let x = attention(
            &q,
            &k,
            &v,
            mask,
            dropout,
            self.broadcast_dropout,
            self.dtype,
        )?;
        Ok(self.output(out).apply(&p.out, &x))
    }
}

/// `[..., S, K, D]` → `[..., S, K·g, D]`, each head repeated `g` times in place
/// (`jnp.repeat(x, g, axis=-2)`).
fn repeat_heads(x: &Array, g: i64) -> Result<Array> {
    x.check()?;
    if g == 1 {
        return Ok(x.clone());
    }
    let s = x.dims();
    let n = s.len();
    let with = |mid: &[i64]| -> Vec<i64> {
        let mut v = s[..n - 2].to_vec();
        v.extend_from_slice(mid);
        v.push(s[n - 1]);
        v
    };
    let one = np::reshape(x, &with(&[s[n - 2], 1]));
    let wide = np::broadcast_to(&one, &with(&[s[n - 2], g]));
    Ok(np::reshape(&wide, &with(&[s[n - 2] * g])))
}

/// The most negative finite value of a float dtype (`jnp.finfo(dtype).min`).
fn finfo_min(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => f64::MIN,
        DType::F16 => f64::from(half::f16::MIN),
        DType::BF16 => f64::from(half::bf16::MIN),
        _ => f64::from(f32::MIN),
    }
}

/// flax's `dot_product_attention` on `[..., T, H, D]` queries and `[..., S, H, D]` keys and
/// values: see the module documentation.
pub(crate) fn attention(
    query: &Array,
    key: &Array,
    value: &Array,
    mask: Option<&Array>,
    dropout: Option<(&Array, f64)>,
    broadcast_dropout: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    let v = promote(OP, &[query, key, value], dtype)?;
    let (q, k, val) = (&v[0], &v[1], &v[2]);
    let dtype = q.element_type();
    let n = q.rank();
    if n < 3 || k.rank() != n || val.rank() != n {
        return Err(Error::op(
            OP,
            format!(
                "query, key and value must be [..., length, heads, depth] of one rank, got {}",
                crate::core::bind::describe_all(&[q, k, val])
            ),
        ));
    }
    let (qs, ks, vs) = (q.dims(), k.dims(), val.dims());
    if qs[..n - 3] != ks[..n - 3] || ks != vs || qs[n - 2] != ks[n - 2] || qs[n - 1] != ks[n - 1] {
        return Err(Error::op(
            OP,
            format!(
                "query {}, key {} and value {} must share batch axes, heads and depth (and key \
                 and value their length)",
                describe(q.aval()),
                describe(k.aval()),
                describe(val.aval())
            ),
        ));
    }
    let depth = qs[n - 1];
    let root = convert(
        OP,
        &np::sqrt(&np::full(&[], depth as f64, DType::F32)),
        dtype,
        false,
    );
    let q = np::divide(q, &root);
    let nb = (n - 3) as i64;
    let batch: Vec<i64> = (0..nb).collect();
    // '...qhd,...khd->...hqk'.
    let mut lb = batch.clone();
    lb.push(nb + 1);
    let logits_dims = DotDimensionNumbers {
        lhs_batching_dimensions: lb.clone(),
        rhs_batching_dimensions: lb.clone(),
        lhs_contracting_dimensions: vec![nb + 2],
        rhs_contracting_dimensions: vec![nb + 2],
    };
    let mut w = lax::dot_general(&q, k, logits_dims, None);
    if let Some(m) = mask {
        m.check()?;
        let keep = if m.element_type() == DType::Bool {
            m.clone()
        } else {
            np::not_equal(m, &weak_int(0))
        };
        let neg = np::full(&[], finfo_min(dtype), dtype);
        w = np::where_(&keep, &w, &neg);
    }
    let mut w = convert(OP, &crate::nn::softmax(&w, -1), dtype, false);
    if let Some((rng, rate)) = dropout {
        let keep_prob = 1.0 - rate;
        let shape: Vec<i64> = if broadcast_dropout {
            let mut s = vec![1; k.rank() - 2];
            s.extend_from_slice(&w.dims()[w.rank() - 2..]);
            s
        } else {
            w.dims().to_vec()
        };
        let keep = random::bernoulli(rng, keep_prob, Some(&shape));
        let denom = np::full(&[], keep_prob, dtype);
        let multiplier = np::divide(&convert(OP, &keep, dtype, false), &denom);
        w = &w * &multiplier;
    }
    // '...hqk,...khd->...qhd': batch (..., h), contract k; the result is [..., h, q, d].
    let mut wb = batch.clone();
    wb.push(nb);
    let mut rb = batch.clone();
    rb.push(nb + 1);
    let out_dims = DotDimensionNumbers {
        lhs_batching_dimensions: wb,
        rhs_batching_dimensions: rb,
        lhs_contracting_dimensions: vec![nb + 2],
        rhs_contracting_dimensions: vec![nb],
    };
    let o = lax::dot_general(&w, val, out_dims, None);
    let mut perm: Vec<i64> = batch;
    perm.extend([nb + 1, nb, nb + 2]);
    Ok(np::transpose(&o, Some(&perm)))
}
