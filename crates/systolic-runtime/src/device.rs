//! Devices: what a client can place buffers on and run executables on.
//!
//! `cpu:0` is the host, running compiled kernels for real. `tpu:CHIP:INDEX` (`tpu:v5e:0`) is a
//! simulated TPU chip: its programs run on the host with TPU numerics while a simulated clock
//! advances by the cost model, and its buffers count against the chip's HBM
//! (see [`crate::sim`]).

use crate::sim::{self, SimClock};
use std::fmt;
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
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.chip() {
            Some(chip) => write!(f, "tpu:{}:{}", chip.name, self.index),
            None => write!(f, "{}:{}", self.kind.name(), self.index),
        }
    }
}
