//! The cost of one kernel (a fused kernel or a single op) on one chip: MXU time, VPU time and
//! HBM time overlap, so the kernel takes the longest of the three (a roofline), plus a fixed
//! per-kernel overhead; the kernel is `compute`-, `memory`- or `overhead`-bound by whichever
//! term is largest.

use crate::chips::{ChipSpec, MatmulClass};
use crate::error::TpuError;
use crate::layout::{round_up, sublane_tile, LANES};
use crate::mxu::{mxu_time, MatmulShape};
use crate::vmem::{tile_matmul, ElementBytes};
use crate::work::Work;
use serde::Serialize;

/// Modelling constants that are not chip figures: assumptions, stated in `docs/TPU_MODEL.md`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ModelParams {
    /// Fixed time every kernel costs on top of its roofline time (DMA setup, pipeline prologue
    /// and epilogue, the scalar core's issue). Not published; 0.5 µs is an assumption.
    pub kernel_overhead_s: f64,
}

impl Default for ModelParams {
    fn default() -> Self {
        ModelParams {
            kernel_overhead_s: 0.5e-6,
        }
    }
}

/// Which term of the roofline a kernel's time is set by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// The MXU or the VPU.
    Compute,
    /// HBM bandwidth.
    Memory,
    /// The fixed per-kernel overhead exceeds both.
    Overhead,
    /// A copy to the host over PCIe: a host callback's operands (`debug::print`).
    HostTransfer,
}

impl Bound {
    /// `compute`, `memory`, `overhead` or `host transfer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
            Bound::Overhead => "overhead",
            Bound::HostTransfer => "host transfer",
        }
    }
}

/// The modelled cost of one kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelCost {
    /// What ran: the op's result name or the fusion's name.
    pub name: String,
    /// The op (`stablehlo.dot_general`) or fusion kind (`fusion.loop`).
    pub kind: String,
    /// FLOPs as reported (products 2·M·N·K, element ops one per element).
    pub flops: f64,
    /// HBM bytes moved (after layout padding and VMEM tiling).
    pub bytes: f64,
    /// MXU seconds (padding and precision passes included).
    pub mxu_time_s: f64,
    /// VPU seconds.
    pub vpu_time_s: f64,
    /// HBM seconds.
    pub hbm_time_s: f64,
    /// max(MXU, VPU, HBM) + overhead, times `count`.
    pub time_s: f64,
    /// Which term set the time.
    pub bound: Bound,
    /// Product FLOPs over (time × the product's peak), for kernels with products.
    pub mxu_utilization: Option<f64>,
    /// How many times the kernel runs (loop trip counts); flops, bytes and times include it.
    pub count: f64,
}

fn missing(chip: &ChipSpec, figure: &'static str, needed_for: &'static str) -> TpuError {
    TpuError::MissingFigure {
        chip: chip.name,
        figure,
        needed_for,
    }
}

/// The cost of a host callback (`systolic.host_callback`, what `debug::print` stages): its
/// operands copied device→host over PCIe, plus the fixed overhead of a kernel, `count` times.
/// The callback's own run on the host is not on the chip's clock. Small, but not zero: a print
/// inside a training loop's body is paid on every iteration.
///
/// ```
/// use systolic_tpu::cost::{host_callback_cost, Bound};
/// use systolic_tpu::{chip, ModelParams};
/// let chip = chip("v5e").unwrap();
/// let k = host_callback_cost(&chip, &ModelParams::default(), "print".into(), 4096, 2.0).unwrap();
/// assert_eq!(k.bound, Bound::HostTransfer);
/// let pcie = systolic_tpu::interconnect::host_transfer_s(&chip, 4096.0).unwrap();
/// assert!((k.time_s - 2.0 * (pcie + ModelParams::default().kernel_overhead_s)).abs() < 1e-15);
/// ```
pub fn host_callback_cost(
    chip: &ChipSpec,
    params: &ModelParams,
    name: String,
    operand_bytes: u64,
    count: f64,
) -> Result<KernelCost, TpuError> {
    let transfer_s = crate::interconnect::host_transfer_s(chip, operand_bytes as f64)?;
    let once = transfer_s + params.kernel_overhead_s;
    Ok(KernelCost {
        name,
        kind: format!(
            "stablehlo.custom_call @{}",
            systolic_ir::host_callback::HOST_CALLBACK_TARGET
        ),
        flops: 0.0,
        bytes: operand_bytes as f64 * count,
        mxu_time_s: 0.0,
        vpu_time_s: 0.0,
        hbm_time_s: 0.0,
        time_s: once * count,
        bound: Bound::HostTransfer,
        mxu_utilization: None,
        count,
    })
}

/// Bytes a product moves beyond reading its operands and writing its result once, because its
/// blocks do not all fit in VMEM at the same time.
fn reread_bytes(chip: &ChipSpec, mm: &crate::work::MatmulWork) -> f64 {
    let s = mm.shape;
    let tiled = MatmulShape {
        batch: s.batch,
        m: round_up(s.m, sublane_tile(mm.lhs.dtype)),
        k: round_up(s.k, LANES),
        n: round_up(s.n, LANES),
    };
    let bytes = ElementBytes {
        lhs: mm.lhs.dtype.byte_size() as f64,
        rhs: mm.rhs.dtype.byte_size() as f64,
        out: mm.out.dtype.byte_size() as f64,
    };
    let once = tiled.batch as f64
        * ((tiled.m * tiled.k) as f64 * bytes.lhs
            + (tiled.k * tiled.n) as f64 * bytes.rhs
            + (tiled.m * tiled.n) as f64 * bytes.out);
    let tiling = tile_matmul(tiled, bytes, chip.vmem_bytes_per_core.value);
    (tiling.traffic - once).max(0.0)
}

/// The cost of a kernel doing `work` and moving `traffic` bytes (operands once, results once),
/// run `count` times.
pub fn kernel_cost(
    chip: &ChipSpec,
    params: &ModelParams,
    name: String,
    kind: String,
    work: &Work,
    traffic: u64,
    count: f64,
) -> Result<KernelCost, TpuError> {
    let bandwidth = chip
        .hbm_bandwidth
        .value
        .ok_or_else(|| missing(chip, "HBM bandwidth", "memory time"))?;
    let mut mxu_s = 0.0;
    let mut product_flops = 0.0;
    let mut class = MatmulClass::Bf16;
    let mut bytes = traffic as f64;
    for mm in &work.matmuls {
        let est = mxu_time(chip, mm.shape, mm.plan)
            .ok_or_else(|| missing(chip, "bf16 peak or MXU size", "matrix products"))?;
        mxu_s += est.time_s;
        product_flops += mm.shape.flops();
        class = mm.plan.class;
        bytes += reread_bytes(chip, mm);
    }
    // An unknown VPU rate leaves VPU time out; the simulation lists that among its assumptions.
    let vpu_s = chip.vpu_ops_per_s().map_or(0.0, |rate| work.vpu_ops / rate);
    let hbm_s = bytes / bandwidth;
    let compute_s = mxu_s.max(vpu_s);
    let roofline = compute_s.max(hbm_s);
    let overhead = params.kernel_overhead_s;
    let bound = if overhead > roofline {
        Bound::Overhead
    } else if compute_s >= hbm_s {
        Bound::Compute
    } else {
        Bound::Memory
    };
    let once = roofline + overhead;
    let mxu_utilization = if work.matmuls.is_empty() {
        None
    } else {
        chip.peak_matmul(class).map(|p| product_flops / (once * p))
    };
    Ok(KernelCost {
        name,
        kind,
        flops: work.flops * count,
        bytes: bytes * count,
        mxu_time_s: mxu_s * count,
        vpu_time_s: vpu_s * count,
        hbm_time_s: hbm_s * count,
        time_s: once * count,
        bound,
        mxu_utilization,
        count,
    })
}
