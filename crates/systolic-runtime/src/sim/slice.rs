//! Simulated chips of a TPU slice, and SPMD programs on a whole slice.
//!
//! A slice's chips (`SYSTOLIC_TPUS=v5e:4x2`, [`Client::with_slice`](crate::Client::with_slice))
//! are simulated devices like independent chips — their own clock, their own HBM — that also
//! know where they are: the slice's device id (row-major over the topology, slice-major across a
//! multi-slice), torus coordinates, and host ([`systolic_tpu::slice::Slice`] decides all three).
//!
//! An SPMD executable on the slice runs its numbers on the host (the CPU backend's SPMD
//! executable of the program rewritten to TPU numerics, as single chips do) and its time on
//! the model: [`systolic_tpu::simulate_spmd`] gives each chip's clock over one execution —
//! kernels, collectives costed on the slice's torus, waits for slower members of a group — and
//! each chip's clock advances by its own share. A program with collectives starts when the
//! last chip of the slice is free (the chips meet at its collectives, so none can run ahead of
//! the latest by more than the model says); one without runs on each chip's clock alone.

use crate::device::Device;
use crate::error::{Result, RuntimeError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use systolic_compiler::PipelineOptions;
use systolic_ir::Module;
use systolic_tpu::error::NamedBuffer;
use systolic_tpu::memory::{function_peak, MemoryPeak};
use systolic_tpu::slice::{Slice, SliceError};
use systolic_tpu::{SimOptions, SpmdReport, TpuError};

/// Where a simulated chip is in its slice.
#[derive(Debug)]
pub(crate) struct Placement {
    /// The slice (one per `with_slice` or `SYSTOLIC_TPUS` item: chips of the same slice share
    /// this reference).
    pub(crate) slice: &'static Slice,
    /// The slice's device id of the chip: process `d` of an SPMD program runs on it.
    pub(crate) device: u32,
    /// Torus coordinates within its slice.
    pub(crate) coords: Vec<u32>,
    /// Which slice of a multi-slice.
    pub(crate) slice_index: u32,
    /// The host (process) owning the chip.
    pub(crate) process: u32,
}

/// Registers every chip of `slice` as `tpu:CHIP:first_index…`, in the slice's device order,
/// and returns their ids.
pub(crate) fn register_slice(
    slice: Slice,
    first_index: usize,
) -> std::result::Result<Vec<u32>, SliceError> {
    // Chips live as long as the process (as every simulated chip does, see `register`).
    let slice: &'static Slice = Box::leak(Box::new(slice));
    (0..slice.total_chips())
        .map(|d| {
            let at = slice.coords(d).ok_or_else(|| SliceError::BadSlice {
                spec: slice.to_string(),
                why: format!("device {d} has no coordinates"),
            })?;
            let placement = Placement {
                slice,
                device: d,
                coords: at.coords,
                slice_index: at.slice,
                process: slice.process_index(d).unwrap_or(0),
            };
            super::register_placed(
                slice.chip().clone(),
                first_index + d as usize,
                Some(placement),
            )
            .map_err(SliceError::from)
        })
        .collect()
}

/// The slice `devices` make, in its device order: every chip of one slice, `devices[d]` its
/// device `d`. Otherwise why not (naming the devices): SPMD on simulated TPUs runs on a whole
/// slice, whose torus the collectives are costed on.
pub(crate) fn whole_slice(devices: &[Device]) -> std::result::Result<&'static Slice, String> {
    let names = || {
        devices
            .iter()
            .map(Device::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let placement = |d: &Device| d.sim().and_then(|s| s.placement.as_ref());
    let Some(first) = devices.first().and_then(placement) else {
        return Err(format!(
            "{} is not a chip of a TPU slice (independent chips have no torus to cost \
             collectives on: ask for a slice, e.g. SYSTOLIC_TPUS=v5e:2x2)",
            devices.first().map(Device::to_string).unwrap_or_default()
        ));
    };
    let slice = first.slice;
    let in_order = devices.len() == slice.total_chips() as usize
        && devices.iter().enumerate().all(|(d, device)| {
            placement(device).is_some_and(|p| std::ptr::eq(p.slice, slice) && p.device == d as u32)
        });
    if !in_order {
        return Err(format!(
            "an SPMD program on simulated TPUs runs on every chip of one slice in its device \
             order ({slice}: {} chips), got {}",
            slice.total_chips(),
            names()
        ));
    }
    Ok(slice)
}

/// An SPMD program's modelled cost on a slice: every chip's time, and one chip's HBM peak
/// (every chip runs the same program on shapes of the same size).
///
/// ```
/// use systolic_runtime::{Client, CompileOptions};
/// let module = systolic_ir::text::parse_module(
///     r#"module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
///        func.func @main(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
///          %0 = "stablehlo.all_reduce"(%x) ({
///            ^bb0(%a: tensor<f32>, %b: tensor<f32>):
///              %s = stablehlo.add %a, %b : tensor<f32>
///              stablehlo.return %s : tensor<f32>
///          }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
///              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
///              use_global_device_ids} : (tensor<256x256xf32>) -> tensor<256x256xf32>
///          return %0 : tensor<256x256xf32>
///        }
///      }"#,
///     "sum",
/// ).unwrap();
/// let client = Client::with_slice("v5e:2x2").unwrap();
/// let chips = &client.devices()[1..];
/// let exe = client.compile_spmd(&module, chips, &CompileOptions::no_disk_cache()).unwrap();
/// let cost = exe.tpu_cost().unwrap();
/// // One all_reduce on the 2x2 torus; the step is the slowest chip's clock.
/// assert_eq!(cost.report.collectives.len(), 1);
/// assert!(cost.step_time_s() >= cost.report.collective_s && cost.report.collective_s > 0.0);
/// // The result (256 KiB) is beyond the argument.
/// assert!(cost.temporary_bytes() >= 256 * 256 * 4);
/// ```
#[derive(Debug)]
pub struct SpmdTpuProgram {
    /// The cost model's report: step time, each chip's clock, each collective's cost.
    pub report: SpmdReport,
    /// One chip's HBM peak (parameters included; [`MemoryPeak::param_bytes`] says how much of
    /// it they are).
    pub peak: MemoryPeak,
}

impl SpmdTpuProgram {
    /// Costs `entry` of `module` on every chip of `slice` (the TPU pipeline, then
    /// [`systolic_tpu::simulate_spmd`]). A program whose peak exceeds a chip's HBM fails with
    /// `RESOURCE_EXHAUSTED`, naming `chips` (the slice's devices), bytes needed and capacity.
    pub(crate) fn cost(
        module: &Module,
        entry: &str,
        slice: &Slice,
        chips: &[Device],
    ) -> Result<SpmdTpuProgram> {
        let on = match (chips.first(), chips.last()) {
            (Some(a), Some(b)) if chips.len() > 1 => {
                format!("{a}…{b} (every chip of {slice} runs it)")
            }
            _ => slice.to_string(),
        };
        let error = |e: TpuError| RuntimeError::Compile(format!("{on}: {e}"));
        let compiled =
            systolic_tpu::compile::compile(module, PipelineOptions::default()).map_err(error)?;
        let options = SimOptions {
            entry: entry.to_string(),
            ..SimOptions::default()
        };
        let report = systolic_tpu::simulate_spmd(&compiled, slice, &options).map_err(error)?;
        let func = compiled
            .func(entry)
            .ok_or_else(|| RuntimeError::Compile(format!("no function @{entry}")))?;
        let peak = function_peak(&compiled, func);
        Ok(SpmdTpuProgram { report, peak })
    }

    /// Modelled seconds of one execution: the slowest chip's.
    pub fn step_time_s(&self) -> f64 {
        self.report.time_s
    }

    /// Bytes one chip needs beyond its parameters (temporaries and results) at its peak.
    pub fn temporary_bytes(&self) -> u64 {
        self.peak.bytes.saturating_sub(self.peak.param_bytes)
    }

    /// Checks that on every chip the program's temporaries fit in HBM beside the chip's live
    /// buffers; otherwise `RESOURCE_EXHAUSTED` naming the first chip that overflows.
    pub(crate) fn check_hbm(&self, entry: &str, chips: &[Device]) -> Result<()> {
        let temporaries = self.temporary_bytes();
        for sim in chips.iter().filter_map(Device::sim) {
            let st = sim.state();
            let needed = st.live_bytes + temporaries;
            if needed <= sim.hbm_capacity() {
                continue;
            }
            let mut largest: Vec<NamedBuffer> = super::SimDevice::largest_live(&st);
            drop(st);
            largest.extend(
                self.peak
                    .buffers
                    .iter()
                    .filter(|b| !b.name.starts_with("%arg"))
                    .cloned(),
            );
            return Err(RuntimeError::Execute {
                entry: entry.to_string(),
                message: sim.exhausted(needed, format!("@{entry} ({})", self.peak.at), largest),
            });
        }
        Ok(())
    }

    /// Advances every chip's clock by its share of one execution (see the module docs for
    /// when the chips start).
    pub(crate) fn advance_clocks(&self, chips: &[Device]) {
        let sims: Vec<_> = chips.iter().filter_map(Device::sim).collect();
        let start = if self.report.collectives.is_empty() {
            None
        } else {
            Some(
                sims.iter()
                    .map(|s| s.clock().time_s)
                    .fold(f64::NEG_INFINITY, f64::max),
            )
        };
        for (sim, chip) in sims.iter().zip(&self.report.chips) {
            let late = start.map_or(0.0, |t| (t - sim.clock().time_s).max(0.0));
            sim.charge_spmd_execution(&self.report, chip, chip.wait_s + late);
        }
    }
}

/// Memoised SPMD costs, keyed by the compile-cache key and the slice.
#[derive(Debug, Default)]
pub(crate) struct SpmdCostCache {
    map: Mutex<HashMap<(String, String), Arc<SpmdTpuProgram>>>,
}

impl SpmdCostCache {
    pub(crate) fn get_or_cost(
        &self,
        key: &str,
        module: &Module,
        entry: &str,
        slice: &Slice,
        chips: &[Device],
    ) -> Result<Arc<SpmdTpuProgram>> {
        let k = (key.to_string(), slice.to_string());
        if let Some(p) = self.map.lock().unwrap_or_else(|p| p.into_inner()).get(&k) {
            return Ok(p.clone());
        }
        let program = Arc::new(SpmdTpuProgram::cost(module, entry, slice, chips)?);
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(k, program.clone());
        Ok(program)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Client, CompileOptions};
    use systolic_ir::Tensor;

    /// The sum over 4 chips of `exp(x)`, [128, 256] f32 each.
    fn all_reduce_exp() -> systolic_ir::Module {
        systolic_ir::text::parse_module(
            r#"module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
               func.func @main(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
                 %e = stablehlo.exponential %x : tensor<128x256xf32>
                 %0 = "stablehlo.all_reduce"(%e) ({
                   ^bb0(%a: tensor<f32>, %b: tensor<f32>):
                     %s = stablehlo.add %a, %b : tensor<f32>
                     stablehlo.return %s : tensor<f32>
                 }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
                     channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
                     use_global_device_ids} : (tensor<128x256xf32>) -> tensor<128x256xf32>
                 return %0 : tensor<128x256xf32>
               }
             }"#,
            "sum",
        )
        .unwrap()
    }

    #[test]
    fn an_execution_fails_when_one_chips_temporaries_do_not_fit_and_late_chips_hold_the_start() {
        let client = Client::with_slice("v5e:2x2").unwrap();
        let chips: Vec<_> = client.devices()[1..].to_vec();
        let exe = client
            .compile_spmd(&all_reduce_exp(), &chips, &CompileOptions::no_disk_cache())
            .unwrap();
        let program = exe.tpu_cost().unwrap();
        let x = Tensor::from_f32(vec![128, 256], vec![0.25; 128 * 256]);
        let args: Vec<_> = chips
            .iter()
            .map(|&c| vec![client.buffer_from_tensor(x.clone(), c).unwrap()])
            .collect();
        let borrowed: Vec<Vec<_>> = args.iter().map(|a| a.iter().collect()).collect();
        // Chip 2 short of HBM by one byte: nothing runs, nothing advances.
        let sim2 = chips[2].sim().unwrap();
        let full = sim2.hbm_capacity();
        sim2.set_hbm_capacity(sim2.live_bytes() + program.temporary_bytes() - 1);
        let err = exe.execute(&borrowed).unwrap_err().to_string();
        assert!(
            err.contains("RESOURCE_EXHAUSTED") && err.contains("tpu:v5e:2"),
            "{err}"
        );
        assert!(chips
            .iter()
            .all(|c| c.simulated_clock().unwrap().executions == 0));
        sim2.set_hbm_capacity(full);
        // Chip 0 busy for longer (one more transfer): the others wait for it at the start.
        let extra = client.buffer_from_tensor(x.clone(), chips[0]).unwrap();
        let before: Vec<_> = chips.iter().map(|c| c.simulated_clock().unwrap()).collect();
        let late = before[0].time_s - before[1].time_s;
        assert!(late > 0.0);
        exe.execute(&borrowed).unwrap();
        for (d, chip) in chips.iter().enumerate() {
            let after = chip.simulated_clock().unwrap();
            let modelled = &program.report.chips[d];
            let waited = after.wait_s - before[d].wait_s;
            let expected = modelled.wait_s + if d == 0 { 0.0 } else { late };
            assert!(
                (waited - expected).abs() <= 1e-15,
                "chip {d}: {waited} vs {expected}"
            );
            let advanced = after.time_s - before[d].time_s;
            assert!((advanced - (modelled.time_s + waited - modelled.wait_s)).abs() <= 1e-12);
        }
        drop(extra);
    }
}
