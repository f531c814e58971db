//! Pvary erasure: `custom_call @systolic.pvary` (JAX's `pvary`, see `systolic_ir::pvary`) marks
//! an invariant value as varying for the transformations (its transpose is an `all_reduce`);
//! it never changes data. Backends run it as the identity: this pass replaces each pvary by its
//! operand, first among the CPU backend's expanders and in the TPU pipeline, so no kernel, no
//! interpreter fallback and no cost is spent on it. A pvary whose operand and result types
//! differ (not one `systolic_ir::pvary` builds) is left for the interpreter to report.

use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action};
use systolic_ir::pvary::is_pvary;
use systolic_ir::{Diagnostic, Module};

/// The pvary erasure pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ErasePvary;

impl Pass for ErasePvary {
    fn name(&self) -> &'static str {
        "erase_pvary"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| {
                let identity = is_pvary(&op.kind)
                    && op.operands.len() == 1
                    && op.results.len() == 1
                    && rw.ty(op.operands[0]).is_some()
                    && rw.ty(op.operands[0]) == rw.ty(op.results[0]);
                Ok(if identity {
                    Action::Replace(op.operands.clone())
                } else {
                    Action::Keep
                })
            })?;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::text::parse_module;
    use systolic_ir::walk::walk_ops;

    #[test]
    fn pvary_goes_and_other_custom_calls_stay() {
        let mut m = parse_module(
            "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n\
               %v = stablehlo.custom_call @systolic.pvary(%x) {api_version = 4 : i32, \
                 backend_config = {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, \
                 use_global_device_ids = false}} : (tensor<2xf32>) -> tensor<2xf32>\n\
               %s = stablehlo.custom_call @Sharding(%v) : (tensor<2xf32>) -> tensor<2xf32>\n\
               return %s : tensor<2xf32>\n\
             }",
            "pvary",
        )
        .unwrap();
        assert!(ErasePvary.run(&mut m).unwrap());
        let mut targets = vec![];
        walk_ops(&m.funcs[0].body, &mut |op, _| {
            if let systolic_ir::OpKind::CustomCall {
                call_target_name, ..
            } = &op.kind
            {
                targets.push(call_target_name.clone());
                // The annotation now reads the pvary's operand, the parameter.
                assert_eq!(op.operands, m.funcs[0].params().to_vec());
            }
        });
        assert_eq!(targets, ["Sharding"]);
        assert!(!ErasePvary.run(&mut m).unwrap());
    }
}
