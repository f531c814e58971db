//! Cost-only simulation of a program on one chip: the schedule of kernels with their modelled
//! times, the step time (their sum), achieved FLOP/s and MFU, HBM traffic, and peak HBM use,
//! which must fit in the chip's HBM. Needs only shapes, never data.

use crate::chips::ChipSpec;
use crate::cost::{KernelCost, ModelParams};
use crate::error::TpuError;
use crate::memory::function_peak;
use crate::schedule::{schedule_function, Step};
use serde::Serialize;
use systolic_ir::Module;

/// How many of the largest buffers an out-of-memory error names.
const BUFFERS_NAMED: usize = 5;

/// What to simulate and how.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// The function to simulate.
    pub entry: String,
    /// Modelling constants.
    pub params: ModelParams,
    /// Fail when the program's live buffers exceed HBM (as the chip would).
    pub enforce_hbm: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            entry: "main".into(),
            params: ModelParams::default(),
            enforce_hbm: true,
        }
    }
}

/// The result of a simulation.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    /// The chip (`v5e`).
    pub chip: String,
    /// The function simulated.
    pub entry: String,
    /// Step time: the sum of the kernels' times, in seconds.
    pub time_s: f64,
    /// FLOPs as reported (products 2·M·N·K, element ops one per element).
    pub flops: f64,
    /// HBM bytes moved by all kernels.
    pub hbm_bytes: f64,
    /// Peak bytes live in HBM at once.
    pub peak_hbm_bytes: u64,
    /// The chip's HBM, if published.
    pub hbm_capacity_bytes: Option<u64>,
    /// FLOPs / step time.
    pub achieved_flops_per_s: f64,
    /// Model FLOPs utilisation: FLOPs / (step time × the chip's bf16 peak).
    pub mfu: f64,
    /// Kernels in program order.
    pub ops: Vec<KernelCost>,
    /// What the model assumed where figures or facts were missing.
    pub assumptions: Vec<String>,
}

/// Simulates `options.entry` of `module` on `chip`. Collectives take no time on one chip (each
/// is listed under `assumptions`); [`crate::spmd::simulate_spmd`] times them on a slice.
pub fn simulate(
    module: &Module,
    chip: &ChipSpec,
    options: &SimOptions,
) -> Result<SimReport, TpuError> {
    simulate_timeline(module, chip, options, false).map(|(report, _)| report)
}

/// The single-chip report of `options.entry` and the chip's timeline (compute between
/// collectives), for [`simulate`] and [`crate::spmd::simulate_spmd`]. Unless `collectives_timed`
/// (the caller times them), every collective is listed under the report's `assumptions`.
pub(crate) fn simulate_timeline(
    module: &Module,
    chip: &ChipSpec,
    options: &SimOptions,
    collectives_timed: bool,
) -> Result<(SimReport, Vec<Step>), TpuError> {
    let func = module
        .func(&options.entry)
        .ok_or_else(|| TpuError::NoFunction {
            name: options.entry.clone(),
            available: if module.funcs.is_empty() {
                "no functions".into()
            } else {
                module
                    .funcs
                    .iter()
                    .map(|f| format!("@{}", f.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        })?;
    let peak_bf16 = chip.peak_bf16_flops.value.ok_or(TpuError::MissingFigure {
        chip: chip.name,
        figure: "bf16 peak",
        needed_for: "compute time",
    })?;
    let peak = function_peak(module, func);
    let capacity = chip.hbm_bytes.value.map(|b| b as u64);
    if let (true, Some(cap)) = (options.enforce_hbm, capacity) {
        if peak.bytes > cap {
            return Err(TpuError::ResourceExhausted {
                chip: chip.name,
                needed: peak.bytes,
                capacity: cap,
                at: peak.at,
                largest: peak.buffers.into_iter().take(BUFFERS_NAMED).collect(),
            });
        }
    }
    let mut schedule = schedule_function(module, func, chip, &options.params)?;
    if !collectives_timed {
        for site in Step::sites(&schedule.timeline) {
            schedule.assumptions.insert(format!(
                "{}: stablehlo.{} is not timed on one chip (simulate on a slice to time \
                 collectives)",
                site.place,
                site.kind.name()
            ));
        }
    }
    let time_s: f64 = schedule.kernels.iter().map(|k| k.time_s).sum();
    let flops: f64 = schedule.kernels.iter().map(|k| k.flops).sum();
    let hbm_bytes: f64 = schedule.kernels.iter().map(|k| k.bytes).sum();
    let achieved = if time_s > 0.0 { flops / time_s } else { 0.0 };
    let mut assumptions: Vec<String> = schedule.assumptions.into_iter().collect();
    if capacity.is_none() {
        assumptions.push(format!(
            "{}: HBM capacity is not published, so it is not enforced",
            chip.name
        ));
    }
    let report = SimReport {
        chip: chip.name.to_string(),
        entry: options.entry.clone(),
        time_s,
        flops,
        hbm_bytes,
        peak_hbm_bytes: peak.bytes,
        hbm_capacity_bytes: capacity,
        achieved_flops_per_s: achieved,
        mfu: achieved / peak_bf16,
        ops: schedule.kernels,
        assumptions,
    };
    Ok((report, schedule.timeline))
}
