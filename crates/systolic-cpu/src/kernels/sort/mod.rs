//! Sorting kernels: `stablehlo.sort` with a recognised comparator ([`comparator`]) and
//! `chlo.top_k` (partial selection), with the orderings of `compare` ([`order`]).
//!
//! Other comparators (arbitrary regions, lexicographic chains with IEEE float keys) run on the
//! interpreter fallback.

pub mod comparator;
pub mod kernel;
pub mod order;

use crate::error::Result;
use crate::kernel::Kernel;
use crate::lower_ctx::LowerCtx;
use systolic_ir::{DType, Op, OpKind};

/// A sorting kernel for `op`, or `None` to let the interpreter run it.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let operands = ctx.operand_types(op)?;
    let results = ctx.result_types(op)?;
    match &op.kind {
        OpKind::Sort { dimension, .. } => {
            let Some(first) = operands.first() else {
                return Ok(None);
            };
            let rank = first.rank() as i64;
            let dim = if *dimension < 0 {
                dimension + rank
            } else {
                *dimension
            };
            if dim < 0 || dim >= rank || operands.iter().any(|t| t.shape != first.shape) {
                return Ok(None);
            }
            if results.len() != operands.len() || results.iter().zip(&operands).any(|(r, o)| r != o)
            {
                return Ok(None);
            }
            let dtypes: Vec<DType> = operands.iter().map(|t| t.dtype).collect();
            let outer_constant = |v| {
                ctx.constant(v)
                    .and_then(|t| t.to_f64_vec().first().copied())
            };
            let Some(mut keys) = op
                .regions
                .first()
                .and_then(|r| comparator::recognise(r, &dtypes, &outer_constant))
            else {
                return Ok(None);
            };
            // A lexicographic comparator sorts natively only when every key is a strict weak
            // order (IEEE float keys, where NaN breaks ties, stay on the interpreter).
            let strict = |k: &comparator::SortKey| {
                k.relation.total || k.canonical || !dtypes[k.operand].is_float()
            };
            if keys.len() > 1 && !keys.iter().all(strict) {
                return Ok(None);
            }
            let key = keys.remove(0);
            let dim = dim as usize;
            let size = |s: &[i64]| s.iter().map(|&x| x.max(0) as usize).product::<usize>();
            Ok(Some(Box::new(kernel::SortKernel {
                key,
                more_keys: keys,
                outer: size(&first.shape[..dim]),
                len: first.shape[dim].max(0) as usize,
                inner: size(&first.shape[dim + 1..]),
                types: operands.iter().map(|t| (*t).clone()).collect(),
            })))
        }
        OpKind::TopK { k, largest } => {
            let ([operand], [values, indices]) = (operands.as_slice(), results.as_slice()) else {
                return Ok(None);
            };
            let Some(&len) = operand.shape.last() else {
                return Ok(None);
            };
            if *k < 0 || *k > len || values.dtype != operand.dtype || indices.dtype != DType::I32 {
                return Ok(None);
            }
            Ok(Some(Box::new(kernel::TopKKernel {
                k: *k as usize,
                largest: *largest,
                len: len as usize,
                operand: (*operand).clone(),
                results: [(*values).clone(), (*indices).clone()],
            })))
        }
        _ => Ok(None),
    }
}
