//! `chlo.ragged_dot`: a `dot_general` whose lhs is cut into groups along one dimension.
//!
//! Each mode is computed from whole `dot_general`s, so the products and their accumulation
//! are exactly the dot's: the free mode computes one product per rhs group and takes each
//! result row from its group's product; the contracting mode computes one product per group
//! with both operands' other contraction positions replaced by zeros; the batch mode is the
//! plain product (the groups only partition batches that are independent anyway, and JAX's
//! `ragged_dot_general` keeps the batches in no group too). In the other two modes the
//! elements in no group are zero, as in JAX.

use super::dot::dot_general;
use crate::bail;
use crate::error::Result;
use crate::index::MultiIndex;
use crate::operands::{integer_at, make};
use crate::ops::shape::{concatenate, copy_element, reshape};
use systolic_ir::verify::{ragged_dot_shape, RaggedMode};
use systolic_ir::{row_major_strides, RaggedDotDimensionNumbers, Tensor, TensorType};

/// Evaluates a ragged dot into `out`.
pub fn ragged_dot(
    lhs: &Tensor,
    rhs: &Tensor,
    group_sizes: &Tensor,
    dn: &RaggedDotDimensionNumbers,
    out: &TensorType,
) -> Result<Tensor> {
    let shape = ragged_dot_shape(dn, lhs.ty(), rhs.ty(), group_sizes.ty())
        .map_err(crate::error::InterpError::new)?;
    let groups = Groups::read(group_sizes)?;
    let dn = &shape.dot;
    let lhs_batch: Vec<usize> = dn
        .lhs_batching_dimensions
        .iter()
        .map(|&d| d as usize)
        .collect();
    let lhs_contracting: Vec<usize> = dn
        .lhs_contracting_dimensions
        .iter()
        .map(|&d| d as usize)
        .collect();
    // Where each lhs batch or free dimension sits in the dot's result: batch dimensions
    // first (in lhs_batching order), then lhs's free dimensions in order.
    let in_result = |x: usize| -> usize {
        match lhs_batch.iter().position(|&b| b == x) {
            Some(i) => i,
            None => {
                lhs_batch.len()
                    + (0..x)
                        .filter(|d| !lhs_batch.contains(d) && !lhs_contracting.contains(d))
                        .count()
            }
        }
    };
    let prefix_of = |index: &[i64], place: &dyn Fn(usize) -> usize| -> Vec<i64> {
        shape.prefix.iter().map(|&x| index[place(x)]).collect()
    };
    match shape.mode {
        RaggedMode::Free => {
            let g_dim = shape.group.expect("the free mode has a group dimension");
            let per_group = (0..shape.groups)
                .map(|j| {
                    let rhs_j = index_out(rhs, g_dim, j)?;
                    dot_general(lhs, &rhs_j, dn, out)
                })
                .collect::<Result<Vec<_>>>()?;
            let row_at = in_result(shape.ragged);
            pick(out, |index| {
                let prefix = prefix_of(index, &in_result);
                let j = groups.group_of(&prefix, index[row_at])?;
                Some(&per_group[j])
            })
        }
        RaggedMode::Contracting => {
            // The rhs dimension paired with each lhs batch or contracting dimension.
            let rhs_of = |x: usize| -> usize {
                let pairs = lhs_batch
                    .iter()
                    .zip(&dn.rhs_batching_dimensions)
                    .chain(lhs_contracting.iter().zip(&dn.rhs_contracting_dimensions));
                pairs
                    .into_iter()
                    .find(|(&l, _)| l == x)
                    .map(|(_, &r)| r as usize)
                    .expect("the prefix holds batch and contracting dimensions")
            };
            let rhs_k = rhs_of(shape.ragged);
            let mut one = out.clone();
            one.shape.remove(0);
            let mut parts = Vec::with_capacity(shape.groups as usize);
            for j in 0..shape.groups as usize {
                let lhs_j = keep(lhs, |index| {
                    let prefix = prefix_of(index, &|x| x);
                    groups.group_of(&prefix, index[shape.ragged]) == Some(j)
                })?;
                let rhs_j = keep(rhs, |index| {
                    let prefix = prefix_of(index, &rhs_of);
                    groups.group_of(&prefix, index[rhs_k]) == Some(j)
                })?;
                let part = dot_general(&lhs_j, &rhs_j, dn, &one)?;
                let mut stacked = one.shape.clone();
                stacked.insert(0, 1);
                parts.push(reshape(&part, &TensorType::new(stacked, out.dtype))?);
            }
            if parts.is_empty() {
                return Ok(Tensor::zeros(out.clone()));
            }
            concatenate(&parts, 0, out)
        }
        // Each batch multiplies its own operands whatever group it is in, so the groups do
        // not change the product (JAX computes the same, batches in no group included).
        RaggedMode::Batch => dot_general(lhs, rhs, dn, out),
    }
}

/// The group sizes: one row of `g` sizes per position of the leading dimensions (row-major),
/// each turned into group boundaries.
struct Groups {
    /// Sizes of the leading dimensions of `group_sizes` (none for one row `[g]`).
    batch_shape: Vec<i64>,
    /// Per row, the end (exclusive) of each group; group `j` starts where `j - 1` ends.
    ends: Vec<Vec<i64>>,
}

impl Groups {
    fn read(sizes: &Tensor) -> Result<Groups> {
        let shape = sizes.shape();
        let (&g, batch) = shape
            .split_last()
            .expect("group_sizes has a group dimension");
        let rows = batch.iter().product::<i64>().max(0) as usize;
        let mut ends = Vec::with_capacity(rows);
        for r in 0..rows {
            let mut end = 0i64;
            let mut row = Vec::with_capacity(g as usize);
            for j in 0..g as usize {
                let s = integer_at(sizes, r * g as usize + j, "group size")?;
                if s < 0 {
                    bail!("group_sizes holds {s}; group sizes must not be negative");
                }
                end = end.saturating_add(s);
                row.push(end);
            }
            ends.push(row);
        }
        Ok(Groups {
            batch_shape: batch.to_vec(),
            ends,
        })
    }

    /// The group holding position `at` of the ragged dimension in the row chosen by
    /// `batch` (the positions of the prefix dimensions), or `None` past the last group.
    fn group_of(&self, batch: &[i64], at: i64) -> Option<usize> {
        let strides = row_major_strides(&self.batch_shape);
        let row: usize = batch
            .iter()
            .zip(&strides)
            .map(|(&b, &s)| b as usize * s)
            .sum();
        self.ends[row].iter().position(|&end| at < end)
    }
}

/// `x` with index `j` of dimension `d` taken and that dimension removed.
fn index_out(x: &Tensor, d: usize, j: i64) -> Result<Tensor> {
    let mut shape = x.shape().to_vec();
    let size = shape.remove(d);
    let strides = row_major_strides(x.shape());
    let n: usize = shape.iter().product::<i64>().max(0) as usize;
    let inner = strides[d];
    let indices: Vec<usize> = (0..n)
        .map(|i| {
            let (outer, rest) = (i / inner, i % inner);
            outer * inner * size as usize + j as usize * inner + rest
        })
        .collect();
    make(TensorType::new(shape, x.dtype()), x.data().gather(&indices))
}

/// Every element of type `out` from the tensor `choose` gives for its index (the element at
/// the same flat position), or zero where it gives none.
fn pick<'t>(out: &TensorType, choose: impl Fn(&[i64]) -> Option<&'t Tensor>) -> Result<Tensor> {
    let mut data = Tensor::zeros(out.clone()).into_data();
    for (flat, index) in MultiIndex::new(&out.shape).enumerate() {
        if let Some(src) = choose(&index) {
            // Every product has the result's type, so the kinds match.
            copy_element(&mut data, flat, src.data(), flat);
        }
    }
    make(out.clone(), data)
}

/// `x` with the elements whose index fails `keep` replaced by zero.
fn keep(x: &Tensor, keep: impl Fn(&[i64]) -> bool) -> Result<Tensor> {
    pick(x.ty(), |index| keep(index).then_some(x))
}
