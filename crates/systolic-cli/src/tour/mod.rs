//! `systolic tour`: what Systolic does, shown on built-in programs and generated data, with no
//! arguments and no files.
//!
//! The tour is a list of stages. Each stage prints what it does, runs it, checks its numbers
//! against JAX where there is a reference, and reports its timing. New capabilities (automatic
//! sharding, profiles) join as further stages in [`stages`].

mod compiled_mlp;
mod debug_print;
mod golden;
mod input_pipeline;
mod inputs;
mod language_model;
mod linear_algebra;
mod many_devices;
mod mlp;
mod mlp_training;
mod pmap_training;
mod profile_run;
mod sharded_transformer;
mod tpu_run;
mod tpu_sim;
mod training;

use crate::error::CliError;

/// One step of the tour.
pub trait Stage {
    /// A one-line title.
    fn title(&self) -> &'static str;
    /// Runs the stage, printing as it goes; an error stops the tour.
    fn run(&self) -> Result<(), CliError>;
}

/// The stages, in order.
fn stages() -> Vec<Box<dyn Stage>> {
    let mut stages: Vec<Box<dyn Stage>> = vec![
        Box::new(mlp::InterpreterMlp),
        Box::new(compiled_mlp::CompiledMlp),
    ];
    for golden in golden::stages() {
        stages.push(Box::new(golden));
    }
    stages.push(Box::new(tpu_sim::TpuSimulation));
    stages.push(Box::new(tpu_run::TpuRun));
    stages.push(Box::new(training::Training));
    stages.push(Box::new(training::PerExampleGradients));
    stages.push(Box::new(debug_print::DebugPrint));
    stages.push(Box::new(linear_algebra::LinearAlgebra));
    stages.push(Box::new(many_devices::ManyDevices));
    stages.push(Box::new(pmap_training::PmapTraining));
    stages.push(Box::new(sharded_transformer::ShardedTransformer));
    stages.push(Box::new(input_pipeline::InputPipeline));
    stages.push(Box::new(profile_run::ProfileRun));
    stages.push(Box::new(language_model::LanguageModel));
    stages
}

/// Capabilities that will become stages, named so the tour says where it is going (none
/// announced at the moment).
const COMING: &[&str] = &[];

/// `module` compiled for the simulated TPU `device` (`"tpu:v5e"`) and its modelled step:
/// time, MFU, HBM.
fn simulated_step(
    module: &systolic_ir::Module,
    device: &str,
) -> Result<systolic_tpu::SimReport, CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::msg(format!("tour, on {device}: {e}"));
    let options = systolic_runtime::CompileOptions {
        device: Some(systolic::device(device).map_err(|e| fail(&e))?),
        ..Default::default()
    };
    let exe = systolic::client()
        .compile(module, &options)
        .map_err(|e| fail(&e))?;
    let cost = exe
        .tpu_cost()
        .ok_or_else(|| fail(&"not a simulated TPU, so there is no cost"))?;
    Ok(cost.report.clone())
}

/// Runs every stage.
pub fn run() -> Result<(), CliError> {
    // The front end's devices, fixed before any stage makes one: host CPU devices for the
    // data-parallel stage, and a TPU slice unless the environment names the TPUs.
    if std::env::var_os(systolic_runtime::CPU_DEVICES_ENV).is_none() {
        systolic::set_cpu_devices(pmap_training::DEVICES)
            .map_err(|e| CliError::msg(e.to_string()))?;
    }
    if std::env::var_os(systolic_runtime::TPUS_ENV).is_none() {
        systolic::set_tpus(pmap_training::SLICE).map_err(|e| CliError::msg(e.to_string()))?;
    }
    outln!("Systolic tour: JAX-style array programs in Rust");
    let stages = stages();
    for (i, stage) in stages.iter().enumerate() {
        outln!();
        outln!("[{}/{}] {}", i + 1, stages.len(), stage.title());
        stage.run()?;
    }
    if !COMING.is_empty() {
        outln!();
        outln!("Coming as further stages: {}.", COMING.join(", "));
    }
    Ok(())
}
