//! Simulated TPU chips: the chip registry ([`chips`]), the TensorCore cost model ([`cost`],
//! [`mxu`], [`vmem`], [`layout`]), cost-only simulation of whole programs ([`simulate`]; on the
//! chips of a slice, with collectives on its interconnect: [`spmd`]), and TPU numerics as an IR rewrite ([`numerics`]) for running programs on the host as a TPU would.
//!
//! Nobody here has a TPU, so the model answers from published figures: how long a program's
//! kernels take on a chip (MXU, VPU and HBM time combined as a roofline), which bound each
//! hits, and whether its buffers fit in HBM. `docs/TPU_MODEL.md` says what is modelled, what
//! is not, and where every number comes from.

#![warn(missing_docs)]

mod call_path;
pub mod chips;
pub mod collective_cost;
pub mod compile;
pub mod cost;
pub mod device;
pub mod error;
pub mod global_cost;
pub mod interconnect;
pub mod layout;
pub mod loop_buffers;
pub mod memory;
pub mod mxu;
pub mod numerics;
pub mod report;
pub mod schedule;
pub mod simulate;
pub mod slice;
pub mod spmd;
pub mod systolic_array;
pub mod vmem;
pub mod work;

pub use chips::{all_chips, chip, ChipSpec};
pub use cost::{Bound, KernelCost, ModelParams};
pub use device::TpuDevice;
pub use error::TpuError;
pub use global_cost::simulate_global;
pub use simulate::{simulate, SimOptions, SimReport};
pub use spmd::{simulate_spmd, SpmdReport};
