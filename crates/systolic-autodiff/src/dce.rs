//! A small dead-code elimination: ops without side effects whose results are all unused go,
//! until nothing changes (nested regions included; terminators stay).

use systolic_ir::walk::{erase_ops, use_counts};
use systolic_ir::Func;

/// Removes the ops of `func` whose results are unused and that have no side effect; returns
/// how many were removed.
///
/// ```
/// use systolic_ir::text::parse_module;
/// let mut m = parse_module(
///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n\
///        %0 = stablehlo.sine %x : tensor<f32>\n\
///        return %x : tensor<f32>\n\
///      }",
///     "doc",
/// ).unwrap();
/// assert_eq!(systolic_autodiff::dce(&mut m.funcs[0]), 1);
/// ```
pub fn dce(func: &mut Func) -> usize {
    let mut total = 0;
    loop {
        let counts = use_counts(func);
        let removed = erase_ops(&mut func.body, &mut |op| {
            !op.kind.is_terminator()
                && !op.kind.has_side_effect()
                && op
                    .results
                    .iter()
                    .all(|r| counts.get(r.index()).copied().unwrap_or(0) == 0)
        });
        if removed == 0 {
            return total;
        }
        total += removed;
    }
}
