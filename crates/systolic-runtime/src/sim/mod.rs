//! Simulated TPU devices: the state behind a `tpu:CHIP:INDEX` device.
//!
//! - **Numerics.** A program compiled for a TPU device is rewritten to TPU numerics
//!   ([`systolic_tpu::numerics`]: f32 products at DEFAULT precision on bf16-rounded operands,
//!   HIGH as three bf16 passes, bf16 accumulated in f32) and then compiled and run by the CPU
//!   backend, so its numbers are real.
//! - **Time.** Each device has a simulated clock with three engines, as a TPU has: the
//!   compute engine runs executions, one after the other, each for the cost model's step time
//!   of the program ([`systolic_tpu::simulate`] on the TPU-compiled module); two DMA engines
//!   copy host→device and device→host, one copy at a time each, for bytes / the chip's PCIe
//!   bandwidth. The engines overlap: a transfer runs while an execution computes, so data put
//!   on the device ahead of the step that needs it (`prefetch_to_device`) hides its PCIe time,
//!   as on a real TPU. What orders them: a buffer is ready when its DMA ends (a transfer) or
//!   its execution ends (an output); an execution starts once the compute engine is free and
//!   its inputs are ready; a device→host copy once its buffer is ready. The host has a place
//!   on the clock too: reading a result back waits for it, so the host is at that copy's end,
//!   and nothing it asks for afterwards (a transfer, an execution) starts earlier. The clock's
//!   time is when everything asked for so far is done.
//! - **Memory.** Every live buffer on the device takes its TPU-padded size of the chip's HBM.
//!   A transfer that does not fit fails; compiling a program whose own peak exceeds HBM fails;
//!   executing one whose temporaries do not fit beside the device's live buffers fails. The
//!   errors say `RESOURCE_EXHAUSTED` and name the largest buffers.
//! - **Slices.** A chip may be one of a slice's ([`slice`]): it then knows its torus
//!   coordinates and host, and SPMD executables on the whole slice advance every chip's clock by
//!   that chip's time in [`systolic_tpu::simulate_spmd`] (collectives costed on the torus).

pub mod slice;

use crate::tpu_trace as trace;

use crate::buffer::Buffer;
use crate::error::{Result, RuntimeError};
use crate::executable::Executable;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use systolic_compiler::PipelineOptions;
use systolic_ir::{Module, TensorType};
use systolic_tpu::error::NamedBuffer;
use systolic_tpu::layout::padded_bytes;
use systolic_tpu::memory::{function_peak, MemoryPeak};
use systolic_tpu::{ChipSpec, SimOptions, SimReport, TpuError};

/// How many buffers a resource-exhausted error names.
const BUFFERS_NAMED: usize = 5;

/// A device's simulated clock and what advanced it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimClock {
    /// When everything asked of the device so far is done: its executions (compute,
    /// collectives, waiting) and its transfers, which overlap the executions (see the module
    /// docs), so this is at most their sum.
    pub time_s: f64,
    /// Modelled step time of all executions (an SPMD execution's kernels only: its
    /// collectives and waits are apart).
    pub compute_s: f64,
    /// Collective time of SPMD executions on a slice, from each collective's start to its end.
    pub collective_s: f64,
    /// Time SPMD executions waited: at the start for the slice's other chips to be free, and at
    /// collectives for slower members of a group.
    pub wait_s: f64,
    /// PCIe time of host→device transfers.
    pub host_to_device_s: f64,
    /// PCIe time of device→host transfers.
    pub device_to_host_s: f64,
    /// Executions run.
    pub executions: u64,
    /// Bytes copied to the device.
    pub bytes_to_device: u64,
    /// Bytes copied from the device.
    pub bytes_from_device: u64,
}

/// A live buffer in a device's HBM.
#[derive(Clone, Debug)]
struct LiveBuffer {
    ty: TensorType,
    bytes: u64,
    /// Its id in the trace being recorded (0: none).
    trace_id: u64,
    /// When its data is on the device: its DMA's or its execution's end, seconds.
    ready_s: f64,
}

/// When each engine of a chip is free next, and where the host is, on the chip's clock.
#[derive(Clone, Copy, Debug, Default)]
struct Engines {
    compute_s: f64,
    to_device_s: f64,
    from_device_s: f64,
    /// The end of the last read-back the host waited for.
    host_s: f64,
}

impl Engines {
    /// When everything asked so far is done.
    fn done_s(&self) -> f64 {
        self.compute_s
            .max(self.to_device_s)
            .max(self.from_device_s)
            .max(self.host_s)
    }
}

#[derive(Debug, Default)]
struct State {
    clock: SimClock,
    engines: Engines,
    live: HashMap<u64, LiveBuffer>,
    live_bytes: u64,
    next_id: u64,
}

/// One simulated chip.
#[derive(Debug)]
pub struct SimDevice {
    /// The generation.
    pub chip: ChipSpec,
    /// The device's name (`tpu:v5e:0`).
    pub name: String,
    pcie_bandwidth: f64,
    hbm_capacity: AtomicU64,
    state: Mutex<State>,
    /// Where the chip is in its slice (`None` for an independent chip).
    pub(crate) placement: Option<slice::Placement>,
    /// Its process in traces (`systolic_trace::DEVICE_PID` + its id).
    pub(crate) trace_pid: u32,
}

fn registry() -> &'static Mutex<Vec<&'static SimDevice>> {
    static REGISTRY: OnceLock<Mutex<Vec<&'static SimDevice>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// The simulated device with id `id` (ids start at 1; 0 is "not simulated").
pub(crate) fn lookup(id: u32) -> Option<&'static SimDevice> {
    if id == 0 {
        return None;
    }
    let devices = registry().lock().unwrap_or_else(|p| p.into_inner());
    devices.get(id as usize - 1).copied()
}

fn missing(chip: &ChipSpec, figure: &'static str, needed_for: &'static str) -> TpuError {
    TpuError::MissingFigure {
        chip: chip.name,
        figure,
        needed_for,
    }
}

/// Registers a new simulated chip `chip` as `tpu:CHIP:index` and returns its id. The chip must
/// publish what the device needs: PCIe bandwidth (transfers), HBM capacity and bandwidth and
/// the bf16 peak (the cost model).
pub(crate) fn register(chip: ChipSpec, index: usize) -> std::result::Result<u32, TpuError> {
    register_placed(chip, index, None)
}

/// [`register`], for a chip at `placement` in a slice (or none).
pub(crate) fn register_placed(
    chip: ChipSpec,
    index: usize,
    placement: Option<slice::Placement>,
) -> std::result::Result<u32, TpuError> {
    let pcie_bandwidth = chip
        .pcie_bandwidth
        .value
        .ok_or_else(|| missing(&chip, "PCIe bandwidth", "host transfers"))?;
    let hbm_capacity =
        chip.hbm_bytes
            .value
            .ok_or_else(|| missing(&chip, "HBM capacity", "device memory"))? as u64;
    chip.hbm_bandwidth
        .value
        .ok_or_else(|| missing(&chip, "HBM bandwidth", "memory time"))?;
    chip.peak_bf16_flops
        .value
        .ok_or_else(|| missing(&chip, "bf16 peak", "compute time"))?;
    let mut devices = registry().lock().unwrap_or_else(|p| p.into_inner());
    // Ids are positions in the registry from 1; the lock is held, so this one is the next.
    let id = devices.len() as u32 + 1;
    let device: &'static SimDevice = Box::leak(Box::new(SimDevice {
        name: format!("tpu:{}:{index}", chip.name),
        chip,
        pcie_bandwidth,
        hbm_capacity: AtomicU64::new(hbm_capacity),
        state: Mutex::new(State::default()),
        placement,
        trace_pid: systolic_trace::DEVICE_PID + id,
    }));
    devices.push(device);
    Ok(id)
}

/// True when `chip` publishes every figure a simulated device needs.
pub(crate) fn usable(chip: &ChipSpec) -> bool {
    chip.pcie_bandwidth.value.is_some()
        && chip.hbm_bytes.value.is_some()
        && chip.hbm_bandwidth.value.is_some()
        && chip.peak_bf16_flops.value.is_some()
}

impl SimDevice {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The chip as a process of traces.
    fn chip_id(&self) -> trace::Chip<'_> {
        trace::Chip {
            pid: self.trace_pid,
            name: &self.name,
        }
    }

    /// The clock now.
    pub fn clock(&self) -> SimClock {
        self.state().clock
    }

    /// Bytes of HBM live buffers take.
    pub fn live_bytes(&self) -> u64 {
        self.state().live_bytes
    }

    /// HBM capacity in bytes.
    pub fn hbm_capacity(&self) -> u64 {
        self.hbm_capacity.load(Ordering::Relaxed)
    }

    /// Pretends the chip has `bytes` of HBM (tests of the limit without allocating gigabytes).
    #[cfg(test)]
    pub(crate) fn set_hbm_capacity(&self, bytes: u64) {
        self.hbm_capacity.store(bytes, Ordering::Relaxed);
    }

    /// A host→device copy of `bytes` on the host→device DMA engine, from when the engine is
    /// free and the host has asked for it; returns when the data is on the device.
    pub(crate) fn charge_to_device(&self, bytes: u64) -> f64 {
        let s = bytes as f64 / self.pcie_bandwidth;
        let mut st = self.state();
        let start = st.engines.to_device_s.max(st.engines.host_s);
        trace::transfer(self.chip_id(), start, s, bytes, true);
        st.engines.to_device_s = start + s;
        st.clock.host_to_device_s += s;
        st.clock.bytes_to_device += bytes;
        st.clock.time_s = st.engines.done_s();
        start + s
    }

    /// A device→host copy of `bytes` of a buffer ready at `ready_s` (`None`: once the
    /// executions asked for so far are done) on the device→host DMA engine; the host waits
    /// for it, so it is at the copy's end afterwards.
    pub(crate) fn charge_from_device(&self, bytes: u64, ready_s: Option<f64>) {
        let s = bytes as f64 / self.pcie_bandwidth;
        let mut st = self.state();
        let ready = ready_s.unwrap_or(st.engines.compute_s);
        let start = st.engines.from_device_s.max(st.engines.host_s).max(ready);
        trace::transfer(self.chip_id(), start, s, bytes, false);
        st.engines.from_device_s = start + s;
        st.engines.host_s = st.engines.host_s.max(start + s);
        st.clock.device_to_host_s += s;
        st.clock.bytes_from_device += bytes;
        st.clock.time_s = st.engines.done_s();
    }

    /// One execution whose inputs are ready at `inputs_ready_s`, on the compute engine once
    /// it is free (and not before the host asked for it); returns its end, when its outputs
    /// are ready.
    fn charge_execution(&self, program: &TpuProgram, inputs_ready_s: f64) -> f64 {
        let seconds = program.step_time_s();
        let mut st = self.state();
        let start = st
            .engines
            .compute_s
            .max(st.engines.host_s)
            .max(inputs_ready_s);
        trace::execution(self.chip_id(), start, &program.report);
        st.engines.compute_s = start + seconds;
        st.clock.compute_s += seconds;
        st.clock.executions += 1;
        st.clock.time_s = st.engines.done_s();
        start + seconds
    }

    /// When buffer `id`'s data is on the device (0 for one not live).
    fn ready_s(&self, id: u64) -> f64 {
        self.state().live.get(&id).map_or(0.0, |b| b.ready_s)
    }

    fn set_ready_s(&self, id: u64, at_s: f64) {
        if let Some(b) = self.state().live.get_mut(&id) {
            b.ready_s = at_s;
        }
    }

    /// Advances the clock by one SPMD execution's share: kernels, collectives, waiting.
    pub(crate) fn charge_spmd_execution(
        &self,
        report: &systolic_tpu::SpmdReport,
        chip: &systolic_tpu::spmd::ChipTime,
        wait_s: f64,
    ) {
        let (compute_s, collective_s) = (chip.compute_s, chip.collective_s);
        let mut st = self.state();
        // An SPMD execution starts when everything before it is done (its inputs' transfers
        // included): the slice's chips meet at its collectives, so they start together.
        let start = st.clock.time_s;
        trace::spmd_execution(self.chip_id(), start, report, chip, wait_s);
        st.clock.compute_s += compute_s;
        st.clock.collective_s += collective_s;
        st.clock.wait_s += wait_s;
        st.engines.compute_s = start + compute_s + collective_s + wait_s;
        st.clock.time_s = st.engines.done_s();
        st.clock.executions += 1;
    }

    /// The live buffers, largest first, named `buffer #id`.
    fn largest_live(st: &State) -> Vec<NamedBuffer> {
        let mut list: Vec<(u64, &LiveBuffer)> = st.live.iter().map(|(&k, v)| (k, v)).collect();
        list.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then(a.0.cmp(&b.0)));
        list.into_iter()
            .take(BUFFERS_NAMED)
            .map(|(id, b)| NamedBuffer {
                name: format!("live buffer #{id}"),
                ty: systolic_ir::Type::Tensor(b.ty.clone()).to_string(),
                bytes: b.bytes,
            })
            .collect()
    }

    fn exhausted(&self, needed: u64, at: String, mut largest: Vec<NamedBuffer>) -> String {
        largest.sort_by_key(|b| std::cmp::Reverse(b.bytes));
        largest.truncate(BUFFERS_NAMED);
        TpuError::ResourceExhausted {
            chip: self.chip.name,
            needed,
            capacity: self.hbm_capacity(),
            at: format!("{at} on {}", self.name),
            largest,
        }
        .to_string()
    }

    /// Takes HBM for a buffer of type `ty`, or says why it does not fit.
    pub(crate) fn allocate(
        &'static self,
        ty: &TensorType,
    ) -> std::result::Result<HbmLease, String> {
        let bytes = padded_bytes(ty);
        let mut st = self.state();
        if st.live_bytes + bytes > self.hbm_capacity() {
            let mut largest = Self::largest_live(&st);
            largest.push(NamedBuffer {
                name: "the new buffer".into(),
                ty: systolic_ir::Type::Tensor(ty.clone()).to_string(),
                bytes,
            });
            let needed = st.live_bytes + bytes;
            drop(st);
            return Err(self.exhausted(needed, "a transfer".into(), largest));
        }
        Ok(self.lease(&mut st, ty, bytes))
    }

    /// Takes HBM for a buffer whose memory the program already accounted for (an output).
    pub(crate) fn adopt(&'static self, ty: &TensorType) -> HbmLease {
        let mut st = self.state();
        self.lease(&mut st, ty, padded_bytes(ty))
    }

    fn lease(&'static self, st: &mut State, ty: &TensorType, bytes: u64) -> HbmLease {
        st.next_id += 1;
        let id = st.next_id;
        let trace_id = trace::alloc(self.chip_id(), st.clock.time_s, ty, bytes);
        st.live.insert(
            id,
            LiveBuffer {
                ty: ty.clone(),
                bytes,
                trace_id,
                ready_s: st.engines.compute_s,
            },
        );
        st.live_bytes += bytes;
        HbmLease { device: self, id }
    }

    fn release(&self, id: u64) {
        let mut st = self.state();
        if let Some(b) = st.live.remove(&id) {
            st.live_bytes -= b.bytes;
            systolic_trace::free(
                self.trace_pid,
                Some(st.clock.time_s * 1e6),
                b.trace_id,
                b.bytes,
            );
        }
    }
}

/// A buffer's share of its device's HBM, given back when dropped.
#[derive(Debug)]
pub(crate) struct HbmLease {
    device: &'static SimDevice,
    id: u64,
}

impl HbmLease {
    /// When the buffer's data is on the device, on its clock.
    pub(crate) fn ready_s(&self) -> f64 {
        self.device.ready_s(self.id)
    }

    /// The buffer's data is on the device at `at_s` (its DMA's or its execution's end).
    pub(crate) fn set_ready_s(&self, at_s: f64) {
        self.device.set_ready_s(self.id, at_s);
    }
}

impl Drop for HbmLease {
    fn drop(&mut self) {
        self.device.release(self.id);
    }
}

/// A program's modelled cost on one chip: the simulation report and its memory peak.
#[derive(Debug)]
pub struct TpuProgram {
    /// The cost model's report (step time, per-kernel times, bounds, MXU utilisation).
    pub report: SimReport,
    /// The program's HBM peak (parameters included; [`MemoryPeak::param_bytes`] says how much
    /// of it they are).
    pub peak: MemoryPeak,
}

impl TpuProgram {
    /// Costs `entry` of `module` on `chip`: the TPU compile pipeline, then the cost model.
    /// Fails with `RESOURCE_EXHAUSTED` when the program's own peak exceeds HBM.
    pub(crate) fn cost(module: &Module, entry: &str, chip: &ChipSpec) -> Result<TpuProgram> {
        let compile_error = |e: TpuError| RuntimeError::Compile(format!("tpu:{}: {e}", chip.name));
        let compiled = systolic_tpu::compile::compile(module, PipelineOptions::default())
            .map_err(compile_error)?;
        let options = SimOptions {
            entry: entry.to_string(),
            ..SimOptions::default()
        };
        let report = systolic_tpu::simulate(&compiled, chip, &options).map_err(compile_error)?;
        let func = compiled
            .func(entry)
            .ok_or_else(|| RuntimeError::Compile(format!("no function @{entry}")))?;
        let peak = function_peak(&compiled, func);
        Ok(TpuProgram { report, peak })
    }

    /// Modelled seconds of one execution.
    pub fn step_time_s(&self) -> f64 {
        self.report.time_s
    }

    /// Product FLOPs over (step time × the chip's bf16 peak): how busy the MXUs are over the
    /// whole step.
    pub fn mxu_utilization(&self) -> f64 {
        if self.report.time_s <= 0.0 {
            return 0.0;
        }
        let busy: f64 = self
            .report
            .ops
            .iter()
            .filter_map(|k| k.mxu_utilization.map(|u| u * k.time_s))
            .sum();
        busy / self.report.time_s
    }

    /// Bytes the program needs beyond its parameters (temporaries and results) at its peak.
    pub fn temporary_bytes(&self) -> u64 {
        self.peak.bytes.saturating_sub(self.peak.param_bytes)
    }
}

/// Memoised costs of programs per chip, keyed by the compile-cache key and the chip.
#[derive(Debug, Default)]
pub(crate) struct CostCache {
    map: Mutex<HashMap<(String, &'static str), Arc<TpuProgram>>>,
}

impl CostCache {
    pub(crate) fn get_or_cost(
        &self,
        key: &str,
        module: &Module,
        entry: &str,
        chip: &ChipSpec,
    ) -> Result<Arc<TpuProgram>> {
        let k = (key.to_string(), chip.name);
        if let Some(p) = self.map.lock().unwrap_or_else(|p| p.into_inner()).get(&k) {
            return Ok(p.clone());
        }
        let program = Arc::new(TpuProgram::cost(module, entry, chip)?);
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(k, program.clone());
        Ok(program)
    }
}

impl Executable {
    /// The modelled cost of one execution on the simulated TPU (`None` on the CPU): step time,
    /// MXU utilisation, and per kernel its time and bound.
    pub fn tpu_cost(&self) -> Option<&TpuProgram> {
        self.tpu.as_deref()
    }

    /// Checks that the program's temporaries fit in HBM beside the device's live buffers.
    pub(crate) fn check_hbm(&self) -> Result<()> {
        let (Some(program), Some(sim)) = (&self.tpu, self.device().sim()) else {
            return Ok(());
        };
        let temporaries = program.temporary_bytes();
        let st = sim.state();
        let needed = st.live_bytes + temporaries;
        if needed <= sim.hbm_capacity() {
            return Ok(());
        }
        let mut largest = SimDevice::largest_live(&st);
        drop(st);
        largest.extend(
            program
                .peak
                .buffers
                .iter()
                .filter(|b| !b.name.starts_with("%arg"))
                .cloned(),
        );
        Err(RuntimeError::Execute {
            entry: self.entry().to_string(),
            message: sim.exhausted(
                needed,
                format!("@{} ({})", self.entry(), program.peak.at),
                largest,
            ),
        })
    }

    /// Advances the device's clock by one execution's modelled time, from when its inputs
    /// are ready (`inputs_ready_s`, from [`Buffer::sim_ready_s`]); its outputs are ready at
    /// its end.
    pub(crate) fn advance_clock(&self, outputs: &Result<Vec<Buffer>>, inputs_ready_s: f64) {
        if let (Some(program), Some(sim), Ok(outputs)) = (&self.tpu, self.device().sim(), outputs) {
            let end = sim.charge_execution(program, inputs_ready_s);
            for b in outputs {
                b.set_sim_ready_s(end);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_count_padded_bytes_and_overflow_names_buffers() {
        let chip = systolic_tpu::chip("v5e").unwrap();
        let id = register(chip, 7).unwrap();
        let dev = lookup(id).unwrap();
        let small = TensorType::new(vec![3], systolic_ir::DType::F32);
        let lease = dev.allocate(&small).unwrap();
        // A rank-1 array pads to whole 128-lane rows.
        assert_eq!(dev.live_bytes(), padded_bytes(&small));
        drop(lease);
        assert_eq!(dev.live_bytes(), 0);
        let huge = TensorType::new(vec![80000, 80000], systolic_ir::DType::F32);
        let err = dev.allocate(&huge).unwrap_err();
        assert!(err.contains("RESOURCE_EXHAUSTED"), "{err}");
        assert!(err.contains("tensor<80000x80000xf32>"), "{err}");
        assert!(err.contains("tpu:v5e:7"), "{err}");
    }

    #[test]
    fn execution_fails_when_temporaries_do_not_fit_beside_live_buffers() {
        use crate::{Client, CompileOptions};
        use systolic_ir::Tensor;
        let client = Client::with_tpus(&[("v5e", 1)]).unwrap();
        let tpu = client.device("tpu:v5e:0").unwrap();
        // [64, 64] f32 in, [64, 64, 64] f32 (1 MiB) out.
        let module = systolic_ir::text::parse_module(
            "func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64x64xf32> {
               %0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<64x64xf32>) -> tensor<64x64x64xf32>
               %1 = stablehlo.exponential %0 : tensor<64x64x64xf32>
               return %1 : tensor<64x64x64xf32>
             }",
            "t",
        )
        .unwrap();
        let options = CompileOptions {
            device: Some(tpu),
            ..CompileOptions::no_disk_cache()
        };
        let exe = client.compile(&module, &options).unwrap();
        let temporaries = exe.tpu_cost().unwrap().temporary_bytes();
        assert!(temporaries >= 64 * 64 * 64 * 4, "{temporaries}");
        let x = client
            .buffer_from_tensor(Tensor::from_f32(vec![64, 64], vec![0.5; 64 * 64]), tpu)
            .unwrap();
        let ballast = client
            .buffer_from_tensor(Tensor::from_f32(vec![256, 256], vec![0.0; 256 * 256]), tpu)
            .unwrap();
        let live = tpu.hbm_in_use().unwrap();
        tpu.sim().unwrap().set_hbm_capacity(live + temporaries - 1);
        let err = exe.execute(&[&x]).unwrap_err().to_string();
        assert!(err.contains("RESOURCE_EXHAUSTED"), "{err}");
        assert!(err.contains("tensor<256x256xf32>"), "{err}");
        assert!(err.contains("tensor<64x64x64xf32>"), "{err}");
        assert_eq!(tpu.simulated_clock().unwrap().executions, 0);
        // Freeing the ballast makes room.
        ballast.block_until_ready().unwrap();
        drop(ballast);
        // The transfer thread lets go of the buffer just after the copy is done.
        let start = std::time::Instant::now();
        while tpu.hbm_in_use() > Some(live - 256 * 256 * 4) && start.elapsed().as_secs() < 5 {
            std::thread::yield_now();
        }
        let out = exe.execute(&[&x]).unwrap();
        assert_eq!(out[0].shape(), &[64, 64, 64]);
        assert_eq!(tpu.simulated_clock().unwrap().executions, 1);
    }

    #[test]
    fn pcie_charges_on_dma_engines_ordered_by_readiness_and_the_host() {
        let chip = systolic_tpu::chip("v6e").unwrap();
        let pcie = chip.pcie_bandwidth.value.unwrap();
        let dev = lookup(register(chip, 0).unwrap()).unwrap();
        let (a, b) = ((1u64 << 20) as f64 / pcie, (1u64 << 10) as f64 / pcie);
        // Two puts queue on the host→device engine.
        assert_eq!(dev.charge_to_device(1 << 20), a);
        assert_eq!(dev.charge_to_device(1 << 20), 2.0 * a);
        // A read-back of the first buffer starts when it is ready, on the other engine,
        // beside the second put; the host then waits for it.
        dev.charge_from_device(1 << 10, Some(a));
        let c = dev.clock();
        assert_eq!(c.bytes_to_device, 2 << 20);
        assert_eq!(c.time_s, (a + b).max(2.0 * a));
        // A put asked for after that read starts no earlier than its end.
        assert_eq!(dev.charge_to_device(1 << 20), (2.0 * a).max(a + b) + a);
        assert_eq!(dev.clock().host_to_device_s, 3.0 * a);
        assert_eq!(dev.clock().device_to_host_s, b);
    }
}
