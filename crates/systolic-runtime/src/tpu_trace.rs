//! What a simulated chip draws in a trace (`systolic_trace`), on its own simulated clock: a process per chip
//! with four tracks — compute (executions and their kernels, each marked compute-, memory-
//! or overhead-bound), ICI (collectives) and the two DMA engines of the PCIe link (host→device
//! and device→host transfers, which overlap the executions) — and its HBM as alloc/free events
//! and a live-bytes counter. Seconds on the clock become trace microseconds.

use serde_json::{Map, Value};
use systolic_ir::TensorType;
use systolic_trace::cat;

const COMPUTE: u64 = 1;
const ICI: u64 = 2;
const DMA_TO_DEVICE: u64 = 3;
const DMA_FROM_DEVICE: u64 = 4;

fn us(seconds: f64) -> f64 {
    seconds * 1e6
}

/// A chip's process in a trace: its id and name (`tpu:v5e:0`).
#[derive(Clone, Copy, Debug)]
pub struct Chip<'a> {
    /// The process id (`systolic_trace::DEVICE_PID` and up).
    pub pid: u32,
    /// The device's name.
    pub name: &'a str,
}

/// Names the chip's process and tracks (once per session is enough; repeating is harmless).
fn name_tracks(dev: Chip<'_>) {
    systolic_trace::set_process_name(dev.pid, format!("{} (simulated clock)", dev.name));
    systolic_trace::set_thread_name(dev.pid, COMPUTE, "compute");
    systolic_trace::set_thread_name(dev.pid, ICI, "ICI");
    systolic_trace::set_thread_name(dev.pid, DMA_TO_DEVICE, "DMA host→device (PCIe)");
    systolic_trace::set_thread_name(dev.pid, DMA_FROM_DEVICE, "DMA device→host (PCIe)");
}

fn args(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// A PCIe transfer starting at `start_s` on the chip's clock, on its direction's DMA track.
pub fn transfer(dev: Chip<'_>, start_s: f64, seconds: f64, bytes: u64, to_device: bool) {
    if !systolic_trace::enabled() {
        return;
    }
    name_tracks(dev);
    let (name, direction, track) = if to_device {
        ("host→device", "host_to_device", DMA_TO_DEVICE)
    } else {
        ("device→host", "device_to_host", DMA_FROM_DEVICE)
    };
    systolic_trace::complete(
        dev.pid,
        track,
        cat::TRANSFER,
        name,
        us(start_s),
        us(seconds),
        args(&[("bytes", bytes.into()), ("direction", direction.into())]),
    );
}

/// One execution starting at `start_s`: a span of the step time holding the cost model's
/// kernels back to back, in program order (the step time is their sum).
pub fn execution(dev: Chip<'_>, start_s: f64, report: &systolic_tpu::SimReport) {
    if !systolic_trace::enabled() {
        return;
    }
    name_tracks(dev);
    let entry = &report.entry;
    systolic_trace::complete(
        dev.pid,
        COMPUTE,
        cat::EXECUTE,
        format!("execute @{entry}"),
        us(start_s),
        us(report.time_s),
        args(&[
            ("flops", report.flops.into()),
            ("hbm_bytes", report.hbm_bytes.into()),
            ("mfu", report.mfu.into()),
        ]),
    );
    kernels(dev, start_s, &report.ops);
}

fn kernels(dev: Chip<'_>, start_s: f64, ops: &[systolic_tpu::KernelCost]) -> f64 {
    let mut t = start_s;
    for k in ops {
        let mut a = args(&[
            ("bound", k.bound.as_str().into()),
            ("op", k.kind.clone().into()),
            ("flops", k.flops.into()),
            ("bytes", k.bytes.into()),
            ("count", k.count.into()),
        ]);
        if let Some(u) = k.mxu_utilization {
            a.insert("mxu_utilization".into(), u.into());
        }
        systolic_trace::complete(
            dev.pid,
            COMPUTE,
            cat::KERNEL,
            format!("{} ({})", k.kind, k.name),
            us(t),
            us(k.time_s),
            a,
        );
        t += k.time_s;
    }
    t
}

/// One SPMD execution's share on this chip starting at `start_s`: waiting for the slice's
/// other chips (`wait_s` includes it), the kernels back to back, and the program's
/// collectives on the ICI track after them. The cost model gives per-chip totals, not each
/// collective's place between the kernels, so the trace shows what each costs and the
/// chip's total, not where in the step it ran.
pub fn spmd_execution(
    dev: Chip<'_>,
    start_s: f64,
    report: &systolic_tpu::SpmdReport,
    chip: &systolic_tpu::spmd::ChipTime,
    wait_s: f64,
) {
    if !systolic_trace::enabled() {
        return;
    }
    name_tracks(dev);
    let total = chip.compute_s + chip.collective_s + wait_s;
    systolic_trace::complete(
        dev.pid,
        COMPUTE,
        cat::EXECUTE,
        format!("execute @{} on {}", report.entry, report.slice),
        us(start_s),
        us(total),
        args(&[
            ("compute_s", chip.compute_s.into()),
            ("collective_s", chip.collective_s.into()),
            ("wait_s", wait_s.into()),
        ]),
    );
    let kernels_end = kernels(dev, start_s, &report.ops);
    let mut t = kernels_end;
    for c in &report.collectives {
        systolic_trace::complete(
            dev.pid,
            ICI,
            cat::COLLECTIVE,
            format!("{} ({})", c.cost.kind.name(), c.name),
            us(t),
            us(c.total_time_s),
            args(&[
                ("bytes", c.cost.bytes.into()),
                ("group_size", c.cost.group_size.into()),
                ("groups", c.cost.groups.into()),
                ("count", c.count.into()),
            ]),
        );
        t += c.total_time_s;
    }
    if wait_s > 0.0 {
        systolic_trace::complete(
            dev.pid,
            COMPUTE,
            cat::WAIT,
            "wait for the slice",
            us(start_s + chip.compute_s + chip.collective_s),
            us(wait_s),
            Map::new(),
        );
    }
}

/// A buffer taking HBM at `at_s`; its trace id (0 when not tracing).
pub fn alloc(dev: Chip<'_>, at_s: f64, ty: &TensorType, bytes: u64) -> u64 {
    if !systolic_trace::enabled() {
        return 0;
    }
    name_tracks(dev);
    systolic_trace::alloc(
        dev.pid,
        Some(us(at_s)),
        bytes,
        &ty.to_string(),
        "HBM buffer",
    )
}
