//! The verifier: structural checks (unique names, SSA dominance, terminators, region shapes,
//! calls, composites and sharding annotations) and per-op type checks through shape inference
//! ([`infer_result_types`], one rule per op).
//!
//! Every problem found is reported, each as a [`Diagnostic`] naming the file, line and
//! column, the op and the offending types or attributes. The verifier never panics, whatever
//! the module holds (dangling value ids, empty blocks, out-of-range dimensions, …).

mod func;
mod infer;
mod sharding;

pub use infer::{
    computes_on_values, infer_result_types, ragged_dot_shape, RaggedDotShape, RaggedMode,
    RegionSignature,
};

use crate::diag::Diagnostic;
use crate::module::Module;

/// Verifies a whole module, returning every problem found (in program order).
pub fn verify_module(module: &Module) -> Result<(), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    for (i, f) in module.funcs.iter().enumerate() {
        if let Some(first) = module.funcs[..i].iter().find(|g| g.name == f.name) {
            let earlier = first
                .span
                .map(|s| format!(" (first defined at {s})"))
                .unwrap_or_default();
            diags.push(
                Diagnostic::new(format!(
                    "function @{} is defined more than once{earlier}",
                    f.name
                ))
                .at(f.span)
                .in_op("func.func")
                .in_source(module.source_name.as_deref()),
            );
        }
    }
    for f in &module.funcs {
        sharding::check_signature_attrs(module, f, &mut diags);
        func::verify_func(module, f, &mut diags);
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}
