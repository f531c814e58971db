//! Devices: what a client can place buffers on and run executables on.
//!
//! `cpu:0` … `cpu:N-1` are the host, running compiled kernels for real: several CPU devices
//! (as XLA's `--xla_force_host_platform_device_count`) are placements sharing one backend and
//! its thread pool, so that SPMD programs can run on the host. `tpu:CHIP:INDEX` (`tpu:v5e:0`)
//! is a simulated TPU chip: its programs run on the host with TPU numerics while a simulated
//! clock advances by the cost model, and its buffers count against the chip's HBM (see
//! [`crate::sim`]). A chip of a slice also knows its torus coordinates and host.

use crate::sim::{self, SimClock};
use std::fmt;
use systolic_tpu::slice::Slice;
use systolic_tpu::ChipSpec;

/// The kind of a device; part of every compile-cache key, since executables do not move
/// between kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// The host CPU, running compiled kernels (really, not simulated).
    Cpu,
    /// A simulated TPU chip: programs run on the host with TPU numerics, time is modelled.
    Tpu,
}

impl DeviceKind {
    /// The name used in device names and cache keys (`cpu`, `tpu`).
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Tpu => "tpu",
        }
    }
}

/// One device of a client, named `kind:index` (`cpu:0`) or, for a simulated TPU,
/// `tpu:CHIP:index` (`tpu:v5e:0`).
///
/// ```
/// let client = systolic_runtime::Client::cpu();
/// assert_eq!(client.devices()[0].to_string(), "cpu:0");
/// assert_eq!(client.devices()[0].simulated_time(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    kind: DeviceKind,
    index: usize,
    /// The simulated chip's id in [`crate::sim`]'s registry (0 for a real device).
    sim: u32,
}

impl Device {
    /// A device of `kind` with `index` among the client's devices of that kind.
    pub(crate) fn new(kind: DeviceKind, index: usize) -> Device {
        Device {
            kind,
            index,
            sim: 0,
        }
    }

    /// A simulated TPU device: `index` among the client's chips of its generation, `sim` its
    /// state in the registry.
    pub(crate) fn simulated(index: usize, sim: u32) -> Device {
        Device {
            kind: DeviceKind::Tpu,
            index,
            sim,
        }
    }

    /// The device's kind.
    pub fn kind(&self) -> DeviceKind {
        self.kind
    }

    /// The index among the client's devices of this kind (for a TPU: of its generation).
    pub fn index(&self) -> usize {
        self.index
    }

    /// True for a simulated device (a TPU).
    pub fn is_simulated(&self) -> bool {
        self.sim != 0
    }

    /// The simulated chip's state, for a TPU.
    pub(crate) fn sim(&self) -> Option<&'static sim::SimDevice> {
        sim::lookup(self.sim)
    }

    /// The chip a simulated TPU device models (`None` on the CPU).
    pub fn chip(&self) -> Option<&'static ChipSpec> {
        self.sim().map(|s| &s.chip)
    }

    /// Seconds on the device's simulated clock: host transfers at the chip's PCIe bandwidth
    /// plus every execution's modelled step time, one after the other. `None` on the CPU,
    /// whose time is real.
    pub fn simulated_time(&self) -> Option<f64> {
        self.simulated_clock().map(|c| c.time_s)
    }

    /// The simulated clock with its parts (compute, transfers each way, bytes, executions).
    pub fn simulated_clock(&self) -> Option<SimClock> {
        self.sim().map(|s| s.clock())
    }

    /// Bytes of HBM the device's live buffers take (with TPU layout padding); `None` on the
    /// CPU.
    pub fn hbm_in_use(&self) -> Option<u64> {
        self.sim().map(|s| s.live_bytes())
    }

    fn placement(&self) -> Option<&'static sim::slice::Placement> {
        self.sim().and_then(|s| s.placement.as_ref())
    }

    /// The slice a simulated chip belongs to (`None` for the CPU and independent chips).
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_slice("v5p:2x2x2*2").unwrap();
    /// let chip = client.device("tpu:v5p:9").unwrap();
    /// assert_eq!(chip.slice().unwrap().to_string(), "v5p:2x2x2*2");
    /// assert!(client.devices()[0].slice().is_none());
    /// ```
    pub fn slice(&self) -> Option<&'static Slice> {
        self.placement().map(|p| p.slice)
    }

    /// A slice chip's torus coordinates within its slice, in the order of the slice's shape
    /// (`None` for the CPU and independent chips). Chips are numbered row-major over the
    /// shape, the last axis fastest, as `jax.make_mesh` orders them.
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_slice("v5e:4x2").unwrap();
    /// // tpu:v5e:5 is row-major position 5 of 4x2: row 2, column 1.
    /// assert_eq!(client.device("tpu:v5e:5").unwrap().coords(), Some(vec![2, 1]));
    /// assert_eq!(client.device("cpu:0").unwrap().coords(), None);
    /// ```
    pub fn coords(&self) -> Option<Vec<i64>> {
        self.placement()
            .map(|p| p.coords.iter().map(|&c| i64::from(c)).collect())
    }

    /// Which slice of a multi-slice a chip is on (`None` for the CPU and independent chips).
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_slice("v5p:2x2x2*2").unwrap();
    /// assert_eq!(client.device("tpu:v5p:7").unwrap().slice_index(), Some(0));
    /// assert_eq!(client.device("tpu:v5p:8").unwrap().slice_index(), Some(1));
    /// ```
    pub fn slice_index(&self) -> Option<usize> {
        self.placement().map(|p| p.slice_index as usize)
    }

    /// The host (process) the device belongs to: for a slice chip its host in the slice (4
    /// chips per v4/v5p host, 8 per v5e/v6e host), 0 for the CPU and independent chips, which
    /// all belong to this process.
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_slice("v5p:2x2x2").unwrap();
    /// let hosts: Vec<usize> = client.devices()[1..].iter().map(|d| d.process_index()).collect();
    /// // A host is a 2x2x1 block: along the last (fastest) axis the chips alternate hosts.
    /// assert_eq!(hosts, [0, 1, 0, 1, 0, 1, 0, 1]);
    /// assert_eq!(client.devices()[0].process_index(), 0);
    /// ```
    pub fn process_index(&self) -> usize {
        self.placement().map_or(0, |p| p.process as usize)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.chip() {
            Some(chip) => write!(f, "tpu:{}:{}", chip.name, self.index),
            None => write!(f, "{}:{}", self.kind.name(), self.index),
        }
    }
}
