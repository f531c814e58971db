//! The passes a CPU backend adds to the standard pipeline.
//!
//! Expanders, after CHLO legalization and before the simplification rounds (so these clean up
//! after them), each rewriting ops no CPU kernel family takes — which would otherwise run on
//! the interpreter fallback — into ops the backend compiles:
//!
//! 1. [`ErasePvary`]: the `systolic.pvary` markers (identities at run time) removed;
//! 2. [`SingleDeviceSpmd`]: device ids and collectives of a one-replica, one-partition
//!    program as constants and identities;
//! 3. [`MapInliner`]: `map` regions of scalar arithmetic as elementwise ops on whole tensors;
//! 4. [`BatchNormExpander`]: the batch-norm ops as reductions and elementwise arithmetic.
//!
//! Then, after the standard pipeline, in order:
//!
//! 1. [`WhileInvariants`]: carried values a loop body returns unchanged (JAX's scan
//!    constants) read as captures, so the loop does not copy them;
//! 2. [`Layout`]: transposes folded into dot dimension numbers, bitcast transposes as
//!    reshapes — before fusion, so the transposes it removes are not fused into loops;
//! 3. [`Fusion`]: loop, reduction and product kernels, multi-output siblings;
//! 4. [`BufferAssignmentPass`]: last, so the peak memory it records
//!    (`systolic.peak_memory_bytes`) is that of the program the backend runs.

use crate::pass::{PassManager, PipelineOptions};
use crate::passes::{
    BatchNormExpander, BufferAssignmentPass, ErasePvary, Fusion, Layout, MapInliner,
    SingleDeviceSpmd, WhileInvariants,
};
use crate::pipeline::standard_pipeline_with_native_top_k;

/// Appends the CPU backend's expander passes to `pm`.
pub fn add_cpu_expander_passes(pm: &mut PassManager) -> &mut PassManager {
    pm.add(ErasePvary)
        .add(SingleDeviceSpmd)
        .add(MapInliner)
        .add(BatchNormExpander)
}

/// The names of the CPU backend's expander passes, in order.
pub fn cpu_expander_pass_names() -> Vec<&'static str> {
    let mut pm = PassManager::new(PipelineOptions::default());
    add_cpu_expander_passes(&mut pm);
    pm.pass_names()
}

/// Appends the CPU backend's passes to `pm`.
pub fn add_cpu_backend_passes(pm: &mut PassManager) -> &mut PassManager {
    pm.add(WhileInvariants)
        .add(Layout)
        .add(Fusion)
        .add(BufferAssignmentPass)
}

/// The names of the CPU backend's passes, in order.
pub fn cpu_backend_pass_names() -> Vec<&'static str> {
    let mut pm = PassManager::new(PipelineOptions::default());
    add_cpu_backend_passes(&mut pm);
    pm.pass_names()
}

/// The whole CPU pipeline: the standard target-independent passes with the CPU backend's
/// expanders after CHLO legalization, then the CPU backend's passes. CHLO legalization keeps
/// `chlo.top_k`, which the backend runs as a partial selection.
pub fn cpu_pipeline(options: PipelineOptions) -> PassManager {
    let mut pm = standard_pipeline_with_native_top_k(options, |pm| {
        add_cpu_expander_passes(pm);
    });
    add_cpu_backend_passes(&mut pm);
    pm
}
