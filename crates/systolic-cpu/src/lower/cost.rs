//! A rough run-time estimate per op, for the scheduler ([`crate::schedule`]) to tell a product
//! from a pass over memory: multiply-adds at the f32 rate of both cores, bytes at the rate of
//! memory, whichever is larger. Only ratios between steps matter, so the rates are round
//! figures of this kind of machine (2 AVX-512 cores: ~300 GFLOP/s f32; ~12 GB/s streamed).

use super::LowerCtx;
use systolic_ir::{Op, OpKind, Type};

/// Multiply-adds per nanosecond (both cores, f32).
const MACS_PER_NS: f64 = 150.0;

/// Bytes per nanosecond to and from memory.
const BYTES_PER_NS: f64 = 12.0;

/// The estimated run time of `op`, ns: the larger of its multiply-adds' time and its
/// operands' and results' bytes' time. Nested regions (fusions, loops) are looked into for
/// products; a loop's trip count is unknown, so its body counts once. A reshape costs
/// nothing (it hands its operand's storage on when that dies there).
pub fn estimate_ns(op: &Op, ctx: &LowerCtx) -> f64 {
    if matches!(op.kind, OpKind::Reshape) {
        return 0.0;
    }
    let bytes: f64 = op
        .operands
        .iter()
        .chain(&op.results)
        .map(|&v| type_bytes(ctx.value_type(v)))
        .sum();
    let macs = multiply_adds(op, ctx);
    (macs / MACS_PER_NS).max(bytes / BYTES_PER_NS)
}

/// Bytes of a value, in f64: an estimate must not overflow on a huge (verified, never run)
/// shape — found by a disk-cache entry of 2^61 elements whose byte sum wrapped.
fn type_bytes(t: &Type) -> f64 {
    match t {
        Type::Tensor(t) => {
            let elements: f64 = t.shape.iter().map(|&d| d.max(0) as f64).product();
            elements * t.dtype.byte_size() as f64
        }
        Type::Tuple(ts) => ts.iter().map(type_bytes).sum(),
        _ => 0.0,
    }
}

/// Multiply-adds of the products in `op` (itself, or inside its regions).
fn multiply_adds(op: &Op, ctx: &LowerCtx) -> f64 {
    let own = match &op.kind {
        // The product kernels' own plan: batch · M · N · K.
        OpKind::DotGeneral { .. } | OpKind::Dot { .. } => crate::kernels::dot::plan_of(op, ctx)
            .ok()
            .flatten()
            .map_or(0.0, |plan| {
                let g = plan.geometry();
                g.batch as f64 * g.m as f64 * g.n as f64 * g.k as f64
            }),
        OpKind::Convolution(attrs) => {
            // Per result element: every kernel element of one output feature.
            let kernel = ctx.operand_types(op).ok().and_then(|t| t.get(1).copied());
            let result = op
                .results
                .first()
                .and_then(|&v| ctx.value_type(v).as_tensor());
            match (kernel, result) {
                (Some(k), Some(r)) => {
                    let features =
                        usize::try_from(attrs.dimension_numbers.kernel_output_feature_dimension)
                            .ok()
                            .and_then(|d| k.shape.get(d))
                            .map_or(1, |&f| f.max(1) as usize);
                    r.num_elements() as f64 * (k.num_elements() / features) as f64
                }
                _ => 0.0,
            }
        }
        _ => 0.0,
    };
    let nested: f64 = op
        .regions
        .iter()
        .flat_map(|r| r.blocks.iter())
        .flat_map(|b| b.ops.iter())
        .map(|o| multiply_adds(o, ctx))
        .sum();
    own + nested
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_costs(src: &str) -> Vec<f64> {
        let module = systolic_ir::text::parse_module(src, "t").unwrap();
        let func = module.func("main").unwrap();
        let ctx = LowerCtx::new(&module, func);
        let block = func.body.entry().unwrap();
        block.ops.iter().map(|o| estimate_ns(o, &ctx)).collect()
    }

    #[test]
    fn a_product_costs_its_multiply_adds_and_an_add_its_bytes() {
        let costs = entry_costs(
            "func.func @main(%a: tensor<512x256xf32>, %b: tensor<256x128xf32>) -> tensor<512x128xf32> {
               %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x256xf32>, tensor<256x128xf32>) -> tensor<512x128xf32>
               %1 = stablehlo.add %0, %0 : tensor<512x128xf32>
               return %1 : tensor<512x128xf32>
             }",
        );
        let macs = 512.0 * 128.0 * 256.0;
        assert_eq!(costs[0], macs / MACS_PER_NS);
        assert_eq!(costs[1], (3 * 512 * 128 * 4) as f64 / BYTES_PER_NS);
    }
}
