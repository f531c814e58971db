//! `flax.linen.Embed`: a table of `num_embeddings` vectors looked up by integer ids, and
//! `attend`, the product of queries with the table (tied output embeddings).

use super::dtypes::{canonical_dtype, check_param, or_failed, promote};
use super::initializers::{self, Distribution, FanMode, Initializer};
use crate::array::{describe, Array};
use crate::error::{Error, Result};
use crate::lax;
use crate::numpy as np;
use crate::numpy::TakeMode;
use crate::ops::elementwise::convert;
use crate::Tree;
use systolic_ir::{DType, DotDimensionNumbers};

/// [`Embed`]'s parameter.
#[derive(Tree, Clone, Debug)]
pub struct EmbedParams {
    /// `[num_embeddings, features]`.
    pub embedding: Array,
}

/// `flax.linen.Embed(num_embeddings, features)`.
///
/// `apply` is `jnp.take(embedding, ids, axis=0)` in JAX's default `fill` mode: a negative id
/// counts from the end, an id out of range gives NaN rows. `init` draws the table from `key`
/// itself with flax's default `variance_scaling(1, fan_in, normal, out_axis=0)`.
///
/// ```
/// use systolic::{nn::Embed, random, Array};
/// let embed = Embed::new(10, 4);
/// let p = embed.init(&random::key(0)).unwrap();
/// let ids = Array::from_vec(vec![3i32, 0, 3], &[3]);
/// let e = embed.apply(&p, &ids);
/// assert_eq!(e.shape(), &[3, 4]);
/// let v = e.to_vec::<f32>().unwrap();
/// assert_eq!(v[0..4], v[8..12]);
/// // Tied output: logits over the vocabulary.
/// assert_eq!(embed.attend(&p, &e).shape(), &[3, 10]);
/// // Float ids are refused.
/// let bad = Array::from_vec(vec![1.0f32], &[1]);
/// assert!(embed.apply(&p, &bad).check().unwrap_err().to_string().contains("integer"));
/// ```
#[derive(Clone, Debug)]
pub struct Embed {
    /// The vocabulary size.
    pub num_embeddings: i64,
    /// The embedding size.
    pub features: i64,
    /// The dtype the table is cast to before the lookup (`None`: its own).
    pub dtype: Option<DType>,
    /// The table's dtype.
    pub param_dtype: DType,
    /// The table's initializer.
    pub embedding_init: Initializer,
}

impl Embed {
    /// An embedding table with flax's defaults.
    pub fn new(num_embeddings: i64, features: i64) -> Embed {
        Embed {
            num_embeddings,
            features,
            dtype: None,
            param_dtype: DType::F32,
            embedding_init: initializers::variance_scaling(
                1.0,
                FanMode::FanIn,
                Distribution::Normal,
            )
            .with_axes(&[-2], &[0], &[]),
        }
    }

    /// The table, drawn from `key`.
    pub fn init(&self, key: &Array) -> Result<EmbedParams> {
        let embedding =
            self.embedding_init
                .init(key, &[self.num_embeddings, self.features], self.param_dtype);
        embedding.check()?;
        Ok(EmbedParams { embedding })
    }

    /// The rows of the table at `ids` (any shape of integers): `ids.shape + [features]`.
    pub fn apply(&self, params: &EmbedParams, ids: &Array) -> Array {
        or_failed(self.lookup(params, ids))
    }

    fn lookup(&self, p: &EmbedParams, ids: &Array) -> Result<Array> {
        const OP: &str = "nn.Embed";
        ids.check()?;
        if !matches!(
            ids.element_type().kind(),
            systolic_ir::DTypeKind::Signed | systolic_ir::DTypeKind::Unsigned
        ) {
            return Err(Error::op(
                OP,
                format!(
                    "ids must have an integer dtype, got {}",
                    describe(ids.aval())
                ),
            ));
        }
        let shape = [self.num_embeddings, self.features];
        check_param(OP, "embedding", &p.embedding, &shape)?;
        let d = canonical_dtype(OP, &[&p.embedding], self.dtype, false)?;
        let table = convert(OP, &p.embedding, d, false);
        if self.num_embeddings == 1 {
            let mut s = ids.dims().to_vec();
            s.push(self.features);
            return Ok(np::broadcast_to(&table, &s));
        }
        Ok(np::take(&table, ids, Some(0), TakeMode::Fill))
    }

    /// `query @ embedding.T`: the similarity of `query` (`[..., features]`) with every row.
    pub fn attend(&self, params: &EmbedParams, query: &Array) -> Array {
        or_failed(self.attend_impl(params, query))
    }

    fn attend_impl(&self, p: &EmbedParams, query: &Array) -> Result<Array> {
        const OP: &str = "nn.Embed.attend";
        query.check()?;
        check_param(
            OP,
            "embedding",
            &p.embedding,
            &[self.num_embeddings, self.features],
        )?;
        if query.rank() == 0 || query.dims()[query.rank() - 1] != self.features {
            return Err(Error::op(
                OP,
                format!(
                    "the query {} must end with the {} features",
                    describe(query.aval()),
                    self.features
                ),
            ));
        }
        let v = promote(OP, &[query, &p.embedding], self.dtype)?;
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: vec![],
            rhs_batching_dimensions: vec![],
            lhs_contracting_dimensions: vec![query.rank() as i64 - 1],
            rhs_contracting_dimensions: vec![1],
        };
        Ok(lax::dot_general(&v[0], &v[1], dims, None))
    }
}
