//! Product fusions whose whole epilogue scales the product by a power-of-two constant
//! (attention's `scores / 8` for 64-wide heads): the scale becomes the `gemm` call's own
//! multiplier, so the result is written once instead of written and then read and written
//! again by an epilogue pass (a 16 MiB pass in a transformer block's attention).
//!
//! Only powers of two, and only on the f32/f64 `gemm` routes: multiplying by 2^e commutes
//! exactly with every rounding of the sum (barring overflow and underflow, where both give the
//! same infinity or the same rounded tiny value), so `x / 8`, `x * 0.125` and the scaled
//! product are the same numbers; any other scale would change results and keeps the loop
//! epilogue.

use super::plan::DotRoute;
use super::DotKernel;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::lower_ctx::LowerCtx;
use systolic_ir::{BinaryOp, Op, OpKind, ValueId};

/// Lowers `fusion(a, b) { p = dot_general(a, b); c = constant; cb = broadcast(c);
/// r = p / cb (or p * cb, cb * p); return r }` with a power-of-two `c` to a scaled
/// [`DotKernel`]; `Ok(None)` for anything else.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let Some(super::ProductFusion {
        name,
        block,
        body: [dot, constant, broadcast, scale_op],
        ret,
    }) = super::product_fusion(op)
    else {
        return Ok(None);
    };
    let [result] = ret.operands.as_slice() else {
        return Ok(None);
    };
    if dot.operands != block.args || scale_op.results.as_slice() != [*result] {
        return Ok(None);
    }
    let (Some(p), Some(c), Some(cb)) = (
        only_result(dot),
        only_result(constant),
        only_result(broadcast),
    ) else {
        return Ok(None);
    };
    let OpKind::Constant(value) = &constant.kind else {
        return Ok(None);
    };
    let scalar = match value.to_f64_vec().as_slice() {
        [x] if value.shape().is_empty() => *x,
        _ => return Ok(None),
    };
    let splat = matches!(&broadcast.kind, OpKind::BroadcastInDim { broadcast_dimensions } if broadcast_dimensions.is_empty());
    if !splat || broadcast.operands.as_slice() != [c] {
        return Ok(None);
    }
    let scale = match (&scale_op.kind, scale_op.operands.as_slice()) {
        (OpKind::Binary(BinaryOp::Divide), [x, y]) if *x == p && *y == cb => 1.0 / scalar,
        (OpKind::Binary(BinaryOp::Multiply), [x, y])
            if (*x == p && *y == cb) || (*x == cb && *y == p) =>
        {
            scalar
        }
        _ => return Ok(None),
    };
    let Some(plan) = super::plan_of(dot, ctx)? else {
        return Ok(None);
    };
    if ctx.tensor_type(*result)? != plan.out_type() {
        return Ok(None);
    }
    let exact = match plan.route() {
        DotRoute::F32 => power_of_two(scale, -126, 127),
        DotRoute::F64 => power_of_two(scale, -1022, 1023),
        _ => false,
    };
    if !exact {
        return Ok(None);
    }
    Ok(Some(Box::new(ScaledKernel {
        name: format!("{name} (product)"),
        dot: DotKernel::new(plan.with_scale(scale)),
        scale,
    })))
}

fn only_result(op: &Op) -> Option<ValueId> {
    match op.results.as_slice() {
        [v] => Some(*v),
        _ => None,
    }
}

/// True when `x` is ±2^e with `lo ≤ e ≤ hi` (a normal number of the route's type).
fn power_of_two(x: f64, lo: i32, hi: i32) -> bool {
    if !x.is_normal() {
        return false;
    }
    let bits = x.abs().to_bits();
    let exponent = ((bits >> 52) as i32) - 1023;
    bits & ((1u64 << 52) - 1) == 0 && (lo..=hi).contains(&exponent)
}

/// A product fusion run as one scaled product.
#[derive(Debug)]
struct ScaledKernel {
    name: String,
    dot: DotKernel,
    scale: f64,
}

impl Kernel for ScaledKernel {
    fn name(&self) -> String {
        format!(
            "{}: {}; fused epilogue: × {} inside the product",
            self.name,
            self.dot.name(),
            self.scale
        )
    }

    fn run(&self, args: Vec<crate::kernel::Arg<'_>>) -> Result<Vec<crate::buffer::CpuBuffer>> {
        self.dot.run(args)
    }
}

#[cfg(test)]
mod tests {
    use super::power_of_two;

    #[test]
    fn only_normal_powers_of_two_qualify() {
        for x in [1.0, 0.125, -2.0, 2f64.powi(127), 2f64.powi(-126)] {
            assert!(power_of_two(x, -126, 127), "{x}");
        }
        for x in [
            3.0,
            0.1,
            0.0,
            f64::INFINITY,
            f64::NAN,
            2f64.powi(128),
            2f64.powi(-127),
        ] {
            assert!(!power_of_two(x, -126, 127), "{x}");
        }
    }
}
