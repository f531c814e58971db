//! The TPU compile pipeline, as far as the cost model needs it: the shared target-independent
//! passes (inline, simplify, constant folding, CSE, DCE), then fusion, whose `systolic.fusion`
//! ops the cost model takes as kernels. Layout tiling and MXU padding are applied by the cost
//! model itself ([`crate::layout`], [`crate::mxu`]) rather than written into the IR.

use crate::error::TpuError;
use systolic_compiler::passes::{ErasePvary, Fusion};
use systolic_compiler::pipeline::standard_pipeline_with;
use systolic_compiler::{PassManager, PipelineOptions};
use systolic_ir::Module;

/// The passes a program goes through before the TPU model costs it.
pub fn tpu_pipeline(options: PipelineOptions) -> PassManager {
    // JAX's pvary marker is an identity at run time: free (removed before costing).
    let mut pm = standard_pipeline_with(options, |pm| {
        pm.add(ErasePvary);
    });
    pm.add(Fusion);
    pm
}

/// `module` after [`tpu_pipeline`] (the input is left as it was).
pub fn compile(module: &Module, options: PipelineOptions) -> Result<Module, TpuError> {
    let mut compiled = module.clone();
    tpu_pipeline(options)
        .run(&mut compiled)
        .map_err(|d| TpuError::Compile {
            message: d.to_string(),
        })?;
    Ok(compiled)
}
