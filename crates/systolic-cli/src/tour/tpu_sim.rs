//! Tour stage: the same MLP on simulated TPU chips, from shapes alone. The bundled module is
//! costed at the tour's batch and at the seed exercise's batch of 1024, so the switch from a
//! memory- or overhead-bound step to an MXU-bound one shows.

use super::mlp::{MODULE, NAME};
use super::Stage;
use crate::error::CliError;
use crate::program::parse_and_verify;
use systolic_compiler::PipelineOptions;
use systolic_tpu::{chip, simulate, Bound, SimOptions, SimReport};

/// The chips the stage models.
const CHIPS: &[&str] = &["v4", "v5e", "v6e"];

/// Batch sizes: the tour's own and the seed exercise's.
const BATCHES: &[i64] = &[8, 1024];

/// The stage.
pub struct TpuSimulation;

impl Stage for TpuSimulation {
    fn title(&self) -> &'static str {
        "The MLP on simulated TPU chips (cost model, no data)"
    }

    fn run(&self) -> Result<(), CliError> {
        outln!("  each chip's figures come with their sources: see `systolic chips`");
        for &batch in BATCHES {
            let module = parse_and_verify(&with_batch(batch), NAME)?;
            let compiled = systolic_tpu::compile::compile(&module, PipelineOptions::default())
                .map_err(|e| CliError::msg(format!("{NAME}: TPU compile: {e}")))?;
            for &name in CHIPS {
                let spec = chip(name).map_err(|e| CliError::msg(e.to_string()))?;
                let report = simulate(&compiled, &spec, &SimOptions::default())
                    .map_err(|e| CliError::msg(format!("{NAME} on {name}: {e}")))?;
                outln!("  batch {batch:>4} on {name:>3}: {}", summary(&report));
            }
        }
        Ok(())
    }
}

/// The bundled module with another batch size: the batch is the leading `8` of every
/// activation type (the weights' shapes never start with it).
fn with_batch(batch: i64) -> String {
    MODULE.replace("tensor<8x", &format!("tensor<{batch}x"))
}

/// Step time, what bound the slowest kernel, MFU and peak HBM, in one line.
fn summary(r: &SimReport) -> String {
    let slowest = r
        .ops
        .iter()
        .max_by(|a, b| a.time_s.total_cmp(&b.time_s))
        .map(|k| {
            let bound = match k.bound {
                Bound::Compute => "compute",
                Bound::Memory => "memory",
                Bound::Overhead => "overhead",
                Bound::HostTransfer => "host-transfer",
            };
            format!("slowest kernel {} is {bound}-bound", k.kind)
        })
        .unwrap_or_else(|| "no kernels".to_string());
    format!(
        "step {:>9}, {} kernels, MFU {:>5.1}%, peak HBM {:.1} MB; {slowest}",
        systolic_tpu::report::human_time(r.time_s),
        r.ops.len(),
        100.0 * r.mfu,
        r.peak_hbm_bytes as f64 / 1e6
    )
}
