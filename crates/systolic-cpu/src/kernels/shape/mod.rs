//! Shape and data-movement kernels, generic over element types: iota, broadcasts, reshape (no
//! copy), transpose (tiled), slice, concatenate, pad (negative and interior too), reverse,
//! dynamic_slice and dynamic_update_slice (in place when the operand dies).
//!
//! All of them are one strided copy ([`strided::copy`]) whose views are computed here, at
//! compile time, from the verified shapes.

pub mod assemble;
pub mod dynamic;
pub mod elem;
pub mod iota;
pub mod movement;
pub mod strided;
pub mod tile8;

use crate::error::{CpuError, Result};
use crate::kernel::Kernel;
use crate::lower_ctx::LowerCtx;
use movement::{strides, ReshapeKernel, ViewKernel};
use strided::View;
use systolic_ir::{Op, OpKind};

/// A shape kernel for `op`, or `None` for kinds this family does not own.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let results = ctx.result_types(op)?;
    let operands = ctx.operand_types(op)?;
    let [result] = results.as_slice() else {
        return Ok(None);
    };
    let result = (*result).clone();
    let operand_shape = operands
        .first()
        .map(|t| t.shape.clone())
        .unwrap_or_default();
    let in_strides = strides(&operand_shape);
    let index = |i: i64, what: &str| {
        usize::try_from(i).map_err(|_| CpuError::new(format!("{what} {i} is negative")))
    };
    let view = |op_name, view: View| -> Result<Option<Box<dyn Kernel>>> {
        Ok(Some(Box::new(ViewKernel::new(
            op_name,
            view,
            result.clone(),
        ))))
    };
    match &op.kind {
        OpKind::Iota { dimension } => {
            // Sub-byte, scalar and complex iotas are one-op loops (`fusion`).
            if elem::is_sub_byte(result.dtype) || result.rank() == 0 || result.dtype.is_complex() {
                return Ok(None);
            }
            let d = index(*dimension, "iota dimension")?;
            Ok(Some(Box::new(iota::IotaKernel::new(d, result))))
        }
        OpKind::Reshape => Ok(Some(Box::new(ReshapeKernel::new(result)))),
        OpKind::Transpose { permutation } => {
            let strides = permutation
                .iter()
                .map(|&p| index(p, "permutation entry").map(|p| in_strides[p]))
                .collect::<Result<_>>()?;
            view("transpose", View { offset: 0, strides })
        }
        OpKind::BroadcastInDim {
            broadcast_dimensions,
        } => {
            let mut strides = vec![0isize; result.rank()];
            for (j, &d) in broadcast_dimensions.iter().enumerate() {
                if operand_shape[j] != 1 {
                    strides[index(d, "broadcast dimension")?] = in_strides[j];
                }
            }
            view("broadcast_in_dim", View { offset: 0, strides })
        }
        OpKind::Broadcast { broadcast_sizes } => {
            let mut strides = vec![0isize; broadcast_sizes.len()];
            strides.extend(&in_strides);
            view("broadcast", View { offset: 0, strides })
        }
        OpKind::Slice {
            start_indices,
            strides: steps,
            ..
        } => {
            let mut v = View {
                offset: 0,
                strides: vec![],
            };
            for d in 0..operand_shape.len() {
                v.offset += index(start_indices[d], "slice start")? as isize * in_strides[d];
                v.strides.push(steps[d] as isize * in_strides[d]);
            }
            view("slice", v)
        }
        OpKind::Reverse { dimensions } => {
            let mut v = View {
                offset: 0,
                strides: in_strides.clone(),
            };
            for &d in dimensions {
                let d = index(d, "reverse dimension")?;
                v.offset += (operand_shape[d] - 1).max(0) as isize * in_strides[d];
                v.strides[d] = -in_strides[d];
            }
            view("reverse", v)
        }
        OpKind::Concatenate { dimension } => {
            let d = index(*dimension, "concatenate dimension")?;
            Ok(Some(Box::new(assemble::ConcatKernel::new(d, result))))
        }
        OpKind::Pad {
            edge_padding_low,
            interior_padding,
            ..
        } => Ok(Some(Box::new(assemble::PadKernel::new(
            &operand_shape,
            result,
            edge_padding_low,
            interior_padding,
        )?))),
        OpKind::DynamicSlice { .. } => Ok(Some(Box::new(dynamic::DynamicSliceKernel::new(
            operand_shape,
            result,
        )))),
        OpKind::DynamicUpdateSlice => Ok(Some(Box::new(dynamic::DynamicUpdateSliceKernel::new(
            result,
        )))),
        _ => Ok(None),
    }
}
