//! The target-independent pipeline, in XLA's order: inline calls; decompose CHLO into
//! StableHLO; then simplify, fold constants and constant control flow, share common
//! subexpressions and remove dead code, twice (the second round cleans up after the first: folded branches expose constants,
//! merged ops expose identities). Backends append their own passes (fusion, layout, buffer
//! assignment) to the returned manager, and may put expanders (ops they have no kernel for,
//! rewritten into ones they have) before the simplification rounds with
//! [`standard_pipeline_with`].

use crate::pass::{Pass, PassManager, PipelineOptions};
use crate::passes::{
    CfSimplify, ChloLegalize, ChloLegalizeKeepTopK, ConstFold, Cse, Dce, Inline, Simplify,
};

/// The standard target-independent pipeline.
pub fn standard_pipeline(options: PipelineOptions) -> PassManager {
    standard_pipeline_with(options, |_| {})
}

/// The standard pipeline with a backend's expander passes, added by `expanders`, after CHLO
/// legalization: the simplification rounds then clean up what they emit (XLA runs its
/// expanders before the algebraic simplifier the same way).
pub fn standard_pipeline_with(
    options: PipelineOptions,
    expanders: impl FnOnce(&mut PassManager),
) -> PassManager {
    pipeline_with_chlo(options, ChloLegalize, expanders)
}

/// [`standard_pipeline_with`] for a backend with a native `chlo.top_k` kernel: CHLO
/// legalization keeps top_k ([`ChloLegalizeKeepTopK`]) instead of decomposing it into a sort
/// of whole rows.
pub fn standard_pipeline_with_native_top_k(
    options: PipelineOptions,
    expanders: impl FnOnce(&mut PassManager),
) -> PassManager {
    pipeline_with_chlo(options, ChloLegalizeKeepTopK, expanders)
}

fn pipeline_with_chlo(
    options: PipelineOptions,
    chlo: impl Pass + 'static,
    expanders: impl FnOnce(&mut PassManager),
) -> PassManager {
    let mut pm = PassManager::new(options);
    pm.add(Inline).add(chlo);
    expanders(&mut pm);
    for _ in 0..2 {
        pm.add(Simplify)
            .add(ConstFold)
            .add(CfSimplify)
            .add(Cse)
            .add(Dce);
    }
    pm
}
