//! Inlining of `func.call`s (JAX's lowerings call private functions, e.g. a `fori_loop` body)
//! and of `stablehlo.composite`s (by their decomposition), so that the batching rules see one
//! function. The inlining itself is `systolic_ir::inline::Inliner`'s.

use crate::{Result, VmapError};
use systolic_ir::inline::Inliner;
use systolic_ir::{Func, Module};

/// A copy of `module`'s function `entry` with every `func.call` and `stablehlo.composite` (at
/// any depth) replaced by the body of the function it calls.
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {
///        %0 = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>
///        return %0 : tensor<f32>
///      }
///      func.func private @sq(%y: tensor<f32>) -> tensor<f32> {
///        %0 = stablehlo.multiply %y, %y : tensor<f32>
///        return %0 : tensor<f32>
///      }",
///     "calls",
/// )
/// .unwrap();
/// let f = systolic_vmap::inline_calls(&m, "main").unwrap();
/// let names: Vec<String> = f.body.blocks[0].ops.iter().map(|op| op.kind.name()).collect();
/// assert_eq!(names, ["stablehlo.multiply", "func.return"]);
/// ```
pub fn inline_calls(module: &Module, entry: &str) -> Result<Func> {
    Inliner::new(module)
        .composites(true)
        .inline_entry(entry)
        .map_err(|d| VmapError::new(d.op.unwrap_or_else(|| "func".into()), d.message))
}
