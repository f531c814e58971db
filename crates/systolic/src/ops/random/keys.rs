//! One key per element: what JAX's gamma sampler gets from `split(key, n)` and then uses,
//! vmapped, as `n` independent scalar keys. Held as two uint32 word arrays so that every
//! per-element `split` and rank-0 draw is one batched threefry hash.

use super::threefry::threefry2x32;
use super::{split_array, Source};
use crate::array::Array;
use crate::lax;
use crate::numpy as np;
use systolic_ir::DType;

/// Per-element keys: the two words of element `i`'s key are `k0[i]`, `k1[i]`.
#[derive(Clone)]
pub(crate) struct Keys {
    pub(crate) k0: Array,
    pub(crate) k1: Array,
}

impl Keys {
    /// `split(key, n)` as `n` per-element keys.
    pub(crate) fn from_split(key: &Array, n: i64) -> Keys {
        let all = split_array(key, n);
        Keys {
            k0: lax::reshape(&lax::slice(&all, &[0, 0], &[n, 1], None), &[n]),
            k1: lax::reshape(&lax::slice(&all, &[0, 1], &[n, 2], None), &[n]),
        }
    }

    /// Each element's key hashed with the counter `(0, counter)`.
    fn hash(&self, counter: i64) -> (Array, Array) {
        let n = self.k0.dims().to_vec();
        let hi = np::zeros(&n, DType::U32);
        let lo = np::full(&n, counter as f64, DType::U32);
        threefry2x32(&self.k0, &self.k1, &hi, &lo)
    }

    /// Each element's `split(key, m)`, as `m` sets of per-element keys.
    pub(crate) fn split(&self, m: i64) -> Vec<Keys> {
        (0..m)
            .map(|j| {
                let (k0, k1) = self.hash(j);
                Keys { k0, k1 }
            })
            .collect()
    }

    /// The random words of a rank-0 draw from each element's key.
    pub(crate) fn words(&self) -> Source<'static> {
        let (b1, b2) = self.hash(0);
        Source::Words(lax::bitwise_xor(&b1, &b2))
    }

    /// `self` where `pred` holds, else `other`, element by element.
    pub(crate) fn select(&self, pred: &Array, other: &Keys) -> Keys {
        Keys {
            k0: np::where_(pred, &self.k0, &other.k0),
            k1: np::where_(pred, &self.k1, &other.k1),
        }
    }
}
