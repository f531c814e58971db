//! `flax.linen.Dropout`: zeroes each element with probability `rate` and scales the rest by
//! `1 / (1 - rate)`, from an explicit key (flax's `dropout` rng stream).

use super::dtypes::or_failed;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::weak_float;
use crate::random;

/// `flax.linen.Dropout(rate, broadcast_dims)`.
///
/// `apply(x, deterministic, key)`: with `deterministic` (or `rate == 0`) it is the identity;
/// with `rate == 1` zeros; otherwise the keep mask is `random.bernoulli(key, 1 - rate, shape)`
/// (`shape` is `x`'s with the `broadcast_dims` set to 1, so one mask entry covers them) and
/// the result `select(mask, x / (1 - rate), 0)`: the same values as flax given the same key.
///
/// ```
/// use systolic::{nn::Dropout, random, Array};
/// let drop = Dropout::new(0.5);
/// let x = Array::from_vec(vec![1.0f32; 8], &[8]);
/// let y = drop.apply(&x, false, Some(&random::key(0))).to_vec::<f32>().unwrap();
/// assert!(y.iter().all(|v| *v == 0.0 || *v == 2.0));
/// // Deterministic: the identity, no key needed.
/// assert_eq!(drop.apply(&x, true, None).to_vec::<f32>().unwrap(), vec![1.0; 8]);
/// assert!(drop.apply(&x, false, None).check().is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Dropout {
    /// The probability of zeroing an element.
    pub rate: f64,
    /// Axes along which one mask value is shared.
    pub broadcast_dims: Vec<i64>,
}

impl Dropout {
    /// Dropout with probability `rate`, no broadcast dimensions.
    pub fn new(rate: f64) -> Dropout {
        Dropout {
            rate,
            broadcast_dims: vec![],
        }
    }

    /// Applies dropout (see the type's documentation); `key` is needed unless
    /// `deterministic` or `rate == 0`.
    pub fn apply(&self, x: &Array, deterministic: bool, key: Option<&Array>) -> Array {
        or_failed(self.forward(x, deterministic, key))
    }

    fn forward(&self, x: &Array, deterministic: bool, key: Option<&Array>) -> Result<Array> {
        const OP: &str = "nn.Dropout";
        x.check()?;
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(Error::op(
                OP,
                format!("rate must be in [0, 1], got {}", self.rate),
            ));
        }
        if self.rate == 0.0 || deterministic {
            return Ok(x.clone());
        }
        if self.rate == 1.0 {
            return Ok(np::zeros_like(x));
        }
        let Some(key) = key else {
            return Err(Error::op(
                OP,
                "a key is needed when not deterministic (rate > 0)".to_string(),
            ));
        };
        let keep = 1.0 - self.rate;
        let mut shape = x.dims().to_vec();
        for &d in &self.broadcast_dims {
            let n = shape.len() as i64;
            let r = if d < 0 { d + n } else { d };
            if !(0..n).contains(&r) {
                return Err(Error::op(
                    OP,
                    format!(
                        "broadcast dim {d} is out of range for an input of shape {:?}",
                        x.dims()
                    ),
                ));
            }
            shape[r as usize] = 1;
        }
        let mask = random::bernoulli(key, keep, Some(&shape));
        let mask = np::broadcast_to(&mask, x.dims());
        let scaled = np::divide(x, &weak_float(keep));
        Ok(lax::select(&mask, &scaled, &np::zeros_like(x)))
    }
}
