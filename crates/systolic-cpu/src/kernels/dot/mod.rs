//! Family: matrix products — `stablehlo.dot_general` and the legacy `stablehlo.dot`.
//!
//! [`DotPlan`] normalises any dimension numbers to a batch of strided `[M, K] x [K, N]`
//! products ([`layout`]) and picks a kernel by dtype ([`plan`]): the `gemm` crate for f32/f64
//! ([`float`]), our packed AVX512-BF16 and AVX512-VNNI kernels for bf16 and int8 ([`packed`]),
//! and plain converted paths for everything else ([`convert`]; large ones a slab at a time,
//! [`slabs`]). Product fusions (a product with
//! its elementwise epilogue) run the product, then the epilogue as one fused loop
//! ([`epilogue`]); an epilogue with no loop form runs as a sequence of native kernels
//! ([`product`]).

pub mod convert;
pub mod epilogue;
pub mod float;
pub mod layout;
pub mod packed;
pub mod plan;
pub mod product;
pub mod scaled;
pub mod slabs;

pub use plan::{DotPlan, DotRoute};

use crate::buffer::CpuBuffer;
use crate::cpu_bail;
use crate::error::Result;
use crate::kernel::{Arg, Kernel};
use crate::lower_ctx::LowerCtx;
use systolic_ir::{Block, DotDimensionNumbers, FusionKind, Op, OpKind};

/// A `dot_general` (or `dot`) kernel: runs its plan into a fresh result buffer.
#[derive(Debug)]
pub struct DotKernel {
    plan: DotPlan,
}

impl DotKernel {
    /// A kernel running `plan`.
    pub fn new(plan: DotPlan) -> DotKernel {
        DotKernel { plan }
    }
}

impl Kernel for DotKernel {
    fn name(&self) -> String {
        self.plan.describe()
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [lhs, rhs] = args.as_slice() else {
            cpu_bail!("dot_general takes 2 operands, got {}", args.len());
        };
        // The plan writes every element: a recycled buffer needs no zero-fill.
        let ty = self.plan.out_type();
        let storage = crate::pool::take(ty.dtype, ty.num_elements());
        let mut out = CpuBuffer::new(ty.clone(), storage)
            .map_err(|e| crate::error::CpuError::new(format!("dot_general: {e}")))?;
        self.plan.run(lhs.buffer(), rhs.buffer(), &mut out)?;
        Ok(vec![out])
    }
}

/// Lowers `dot_general` and `dot` to a [`DotKernel`] and product fusions to an
/// [`epilogue::EpilogueKernel`] (or, when the epilogue has no loop form, a
/// [`product::ProductFusionKernel`]); other ops are not this family's.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    if let OpKind::Fusion { .. } = op.kind {
        if let Some(k) = scaled::lower(op, ctx)? {
            return Ok(Some(k));
        }
        if let Some(k) = epilogue::lower(op, ctx)? {
            return Ok(Some(k));
        }
        return product::lower(op, ctx);
    }
    Ok(plan_of(op, ctx)?.map(|plan| Box::new(DotKernel::new(plan)) as Box<dyn Kernel>))
}

/// A product fusion taken apart, for the three ways of lowering one ([`scaled`], [`epilogue`],
/// [`product`]): its name, its block (whose arguments are the fusion's operands), the ops
/// before the block's `return`, and the `return`.
pub(crate) struct ProductFusion<'a> {
    pub name: &'a str,
    pub block: &'a Block,
    pub body: &'a [Op],
    pub ret: &'a Op,
}

/// `op` as a [`ProductFusion`]; `None` for other ops and for a fusion whose block does not
/// take one argument per operand and end in `return`.
pub(crate) fn product_fusion(op: &Op) -> Option<ProductFusion<'_>> {
    let OpKind::Fusion {
        kind: FusionKind::Product,
        name,
    } = &op.kind
    else {
        return None;
    };
    let block = op.regions.first()?.entry()?;
    let (ret, body) = block.ops.split_last()?;
    if !matches!(ret.kind, OpKind::Return(_)) || block.args.len() != op.operands.len() {
        return None;
    }
    Some(ProductFusion {
        name,
        block,
        body,
        ret,
    })
}

/// The plan of a `dot_general` or `dot`; `None` for other ops.
pub fn plan_of(op: &Op, ctx: &LowerCtx) -> Result<Option<DotPlan>> {
    let dims = match &op.kind {
        OpKind::DotGeneral {
            dimension_numbers, ..
        } => dimension_numbers.clone(),
        OpKind::Dot { .. } => {
            let types = ctx.operand_types(op)?;
            let [lhs, _] = types.as_slice() else {
                return Err(crate::error::CpuError::new(format!(
                    "dot takes 2 operands, got {}",
                    types.len()
                ))
                .at_op(op));
            };
            legacy_dot_dims(lhs.rank())
        }
        _ => return Ok(None),
    };
    let operands = ctx.operand_types(op)?;
    let results = ctx.result_types(op)?;
    let ([lhs, rhs], [out]) = (operands.as_slice(), results.as_slice()) else {
        return Err(crate::error::CpuError::new(format!(
            "takes 2 operands and 1 result, got {} and {}",
            operands.len(),
            results.len()
        ))
        .at_op(op));
    };
    if plan::route_for(lhs.dtype, rhs.dtype, out.dtype).is_none() {
        // Complex values with real ones: the interpreter fallback.
        return Ok(None);
    }
    Ok(Some(
        DotPlan::new(lhs, rhs, &dims, out).map_err(|e| e.at_op(op))?,
    ))
}

/// The legacy `dot` contracts the last lhs dimension with the first rhs dimension.
fn legacy_dot_dims(lhs_rank: usize) -> DotDimensionNumbers {
    DotDimensionNumbers {
        lhs_contracting_dimensions: vec![lhs_rank.saturating_sub(1) as i64],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    }
}
