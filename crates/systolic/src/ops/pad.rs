//! `jnp.pad` with numpy's modes: `constant` (a `lax.pad`), and `edge`, `reflect`,
//! `symmetric`, `wrap` (per axis, a gather of statically computed source positions, which
//! moves exactly the elements JAX's slice-and-concatenate lowering moves); and `lax.pad`
//! itself ([`lax_pad`], with interior padding and negative (cropping) edges).

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::{Error, Result};
use crate::ops::elementwise::convert;
use crate::ops::indexing::{take, TakeMode};
use systolic_ir::OpKind;

/// numpy's padding modes.
#[derive(Clone, Debug, PartialEq)]
pub enum PadMode {
    /// Pads with a constant (converted to the array's dtype).
    Constant(f64),
    /// Repeats the edge values.
    Edge,
    /// Mirrors without repeating the edge: `[1,2,3]` → `3 2 | 1 2 3 | 2 1`.
    Reflect,
    /// Mirrors repeating the edge: `[1,2,3]` → `2 1 | 1 2 3 | 3 2`.
    Symmetric,
    /// Wraps around: `[1,2,3]` → `2 3 | 1 2 3 | 1 2`.
    Wrap,
}

/// `jnp.pad(x, pad_width, mode)`: `pad_width` holds `(before, after)` per dimension (one
/// pair for all dimensions also works).
///
/// ```
/// use systolic::{numpy as np, numpy::PadMode, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3], &[3]);
/// let r = np::pad(&x, &[(2, 1)], PadMode::Reflect);
/// assert_eq!(r.to_vec::<i32>().unwrap(), vec![3, 2, 1, 2, 3, 2]);
/// let c = np::pad(&x, &[(1, 1)], PadMode::Constant(9.0));
/// assert_eq!(c.to_vec::<i32>().unwrap(), vec![9, 1, 2, 3, 9]);
/// assert_eq!(np::pad(&x, &[(1, 2)], PadMode::Wrap).to_vec::<i32>().unwrap(), vec![3, 1, 2, 3, 1, 2]);
/// ```
pub fn pad(x: &Array, pad_width: &[(i64, i64)], mode: PadMode) -> Array {
    pad_impl(x, pad_width, mode).unwrap_or_else(Array::failed)
}

fn pad_impl(x: &Array, pad_width: &[(i64, i64)], mode: PadMode) -> Result<Array> {
    x.check()?;
    let widths: Vec<(i64, i64)> = if pad_width.len() == 1 && x.rank() != 1 {
        vec![pad_width[0]; x.rank()]
    } else {
        pad_width.to_vec()
    };
    if widths.len() != x.rank() || widths.iter().any(|&(a, b)| a < 0 || b < 0) {
        return Err(Error::op(
            "pad",
            format!(
                "pad_width {pad_width:?} must give non-negative (before, after) pairs for each \
                 dimension of {}",
                describe(x.aval())
            ),
        ));
    }
    if let PadMode::Constant(v) = mode {
        let value = crate::ops::creation::full(&[], v, x.element_type());
        let value = convert("pad", &value, x.element_type(), x.weak_type());
        return Ok(crate::core::bind::bind1(
            "pad",
            OpKind::Pad {
                edge_padding_low: widths.iter().map(|w| w.0).collect(),
                edge_padding_high: widths.iter().map(|w| w.1).collect(),
                interior_padding: vec![0; x.rank()],
            },
            &[x, &value],
            None,
            x.weak_type(),
        ));
    }
    let mut y = x.clone();
    for (axis, &(lo, hi)) in widths.iter().enumerate() {
        if lo == 0 && hi == 0 {
            continue;
        }
        let n = x.dims()[axis];
        if n == 0 {
            return Err(Error::op(
                "pad",
                format!(
                    "can't extend empty axis {axis} of {} using modes other than 'constant'",
                    describe(x.aval())
                ),
            ));
        }
        let src: Vec<i32> = (-lo..n + hi).map(|i| source(&mode, i, n) as i32).collect();
        let len = src.len() as i64;
        y = take(
            &y,
            &Array::from_vec(src, &[len]),
            Some(axis as i64),
            TakeMode::Clip,
        );
    }
    Ok(y)
}

/// The position along an axis of length `n` that padded position `i` (0 = first original
/// element) copies.
fn source(mode: &PadMode, i: i64, n: i64) -> i64 {
    match mode {
        PadMode::Edge | PadMode::Constant(_) => i.clamp(0, n - 1),
        PadMode::Wrap => i.rem_euclid(n),
        PadMode::Reflect => {
            if n == 1 {
                return 0;
            }
            let p = 2 * (n - 1);
            let m = i.rem_euclid(p);
            if m >= n {
                p - m
            } else {
                m
            }
        }
        PadMode::Symmetric => {
            let p = 2 * n;
            let m = i.rem_euclid(p);
            if m >= n {
                p - 1 - m
            } else {
                m
            }
        }
    }
}

/// `lax.pad(x, padding_value, [(low, high, interior), …])` (negative low/high crop).
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![1i32, 2], &[2]);
/// let p = lax::pad(&x, &Array::scalar(0i32), &[(1, 2, 1)]);
/// assert_eq!(p.to_vec::<i32>().unwrap(), vec![0, 1, 0, 2, 0, 0]);
/// ```
pub fn lax_pad(x: &Array, padding_value: &Array, config: &[(i64, i64, i64)]) -> Array {
    bind1(
        "pad",
        OpKind::Pad {
            edge_padding_low: config.iter().map(|c| c.0).collect(),
            edge_padding_high: config.iter().map(|c| c.1).collect(),
            interior_padding: config.iter().map(|c| c.2).collect(),
        },
        &[x, padding_value],
        None,
        x.weak_type(),
    )
}
