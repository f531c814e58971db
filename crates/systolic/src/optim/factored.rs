//! Adafactor's factored second moments (`optax.scale_by_factored_rms`).
//!
//! For a param of rank ≥ 2 whose second-largest dimension has at least
//! `min_dim_size_to_factor` elements, the moving average of `g^2` is kept as a row vector and
//! a column vector over its two largest dimensions (memory `m + n` instead of `m * n`); smaller
//! params keep the full average. The decay rate grows with the step: `1 - (t + 1)^-decay_rate`.

use super::state::{like_params, named, per_param, safe_increment, scalar, zero_count};
use super::{Flat, GradientTransformation};
use crate::array::Array;
use crate::numpy as np;
use crate::ops::elementwise::{weak_float, weak_int};
use crate::tree::DynTree;
use systolic_ir::DType;

/// The two dimensions to factor over, `(d1, d0)`: the second largest and the largest (ties
/// keep the earlier dimension first, as numpy's `argsort` on small arrays), or `None`.
fn factored_dims(
    shape: &[i64],
    factored: bool,
    min_dim_size_to_factor: i64,
) -> Option<(usize, usize)> {
    if !factored || shape.len() < 2 {
        return None;
    }
    let mut sorted: Vec<usize> = (0..shape.len()).collect();
    sorted.sort_by_key(|&d| shape[d]);
    let (d1, d0) = (sorted[sorted.len() - 2], sorted[sorted.len() - 1]);
    (shape[d1] >= min_dim_size_to_factor).then_some((d1, d0))
}

fn without(shape: &[i64], axis: usize) -> Vec<i64> {
    let mut s = shape.to_vec();
    s.remove(axis);
    s
}

/// Scales updates by a factored estimate of their root mean square (`optax.
/// scale_by_factored_rms`), Adafactor's core. State `FactoredState{count,v_row,v_col,v}`, each
/// a tree of the params' structure (a `[1]` zero where a leaf does not use that part).
pub fn scale_by_factored_rms(
    factored: bool,
    decay_rate: f64,
    step_offset: i64,
    min_dim_size_to_factor: i64,
    epsilon: f64,
) -> GradientTransformation {
    let dims = move |x: &Array| factored_dims(x.dims(), factored, min_dim_size_to_factor);
    GradientTransformation::new(
        move |p: &Flat| {
            let one = |x: &Array| np::zeros(&[1], x.element_type());
            let (mut rows, mut cols, mut full) = (vec![], vec![], vec![]);
            for x in p.leaves {
                match dims(x) {
                    Some((d1, d0)) => {
                        rows.push(np::zeros(&without(x.dims(), d0), x.element_type()));
                        cols.push(np::zeros(&without(x.dims(), d1), x.element_type()));
                        full.push(one(x));
                    }
                    None => {
                        rows.push(one(x));
                        cols.push(one(x));
                        full.push(np::zeros_like(x));
                    }
                }
            }
            Ok(state(
                zero_count(),
                like_params(p, rows)?,
                like_params(p, cols)?,
                like_params(p, full)?,
            ))
        },
        move |u, s, p| {
            let op = "scale_by_factored_rms";
            let rows = per_param(op, s, "v_row", p)?;
            let cols = per_param(op, s, "v_col", p)?;
            let full = per_param(op, s, "v", p)?;
            let count = scalar(op, s, "count")?;
            let t = np::astype(&(&(&count - &weak_int(step_offset)) + 1), DType::F32);
            let decay_t = 1.0 - np::power(&t, &weak_float(-decay_rate));
            let rest = 1.0 - &decay_t;
            let (mut out, mut new_rows, mut new_cols, mut new_full) =
                (vec![], vec![], vec![], vec![]);
            for (i, (g, x)) in u.iter().zip(p.leaves).enumerate() {
                let dtype = x.element_type();
                let zero1 = np::zeros(&[1], dtype);
                let g_sqr = &(g * g) + epsilon;
                match dims(x) {
                    Some((d1, d0)) => {
                        let mean = |a: usize| np::mean(&g_sqr, Some(&[a as i64]), false);
                        let v_row =
                            np::astype(&(&(&decay_t * &rows[i]) + &(&rest * &mean(d0))), dtype);
                        let v_col =
                            np::astype(&(&(&decay_t * &cols[i]) + &(&rest * &mean(d1))), dtype);
                        let reduced_d1 = if d1 > d0 { d1 - 1 } else { d1 };
                        let row_col_mean = np::mean(&v_row, Some(&[reduced_d1 as i64]), true);
                        let row_factor = np::power(&(&v_row / &row_col_mean), &weak_float(-0.5));
                        let col_factor = np::power(&v_col, &weak_float(-0.5));
                        let update = &(g * &np::expand_dims(&row_factor, d0 as i64))
                            * &np::expand_dims(&col_factor, d1 as i64);
                        out.push(update);
                        new_rows.push(v_row);
                        new_cols.push(v_col);
                        new_full.push(zero1);
                    }
                    None => {
                        let v = np::astype(&(&(&decay_t * &full[i]) + &(&rest * &g_sqr)), dtype);
                        out.push(g * &np::power(&v, &weak_float(-0.5)));
                        new_rows.push(zero1.clone());
                        new_cols.push(zero1);
                        new_full.push(v);
                    }
                }
            }
            let new = state(
                DynTree::Leaf(safe_increment(&count)),
                like_params(p, new_rows)?,
                like_params(p, new_cols)?,
                like_params(p, new_full)?,
            );
            Ok((out, new))
        },
    )
}

fn state(count: DynTree, v_row: DynTree, v_col: DynTree, v: DynTree) -> DynTree {
    named(
        "FactoredState",
        vec![
            ("count", count),
            ("v_row", v_row),
            ("v_col", v_col),
            ("v", v),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::factored_dims;

    #[test]
    fn factors_the_two_largest_dims_when_both_are_large() {
        assert_eq!(factored_dims(&[256, 130], true, 128), Some((1, 0)));
        assert_eq!(factored_dims(&[130, 3, 256], true, 128), Some((0, 2)));
        assert_eq!(factored_dims(&[256, 64], true, 128), None);
        assert_eq!(factored_dims(&[256], true, 128), None);
        assert_eq!(factored_dims(&[256, 256], false, 128), None);
    }
}
