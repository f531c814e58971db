//! The passes, one per file (or folder). Each is a [`crate::Pass`] that can be run and tested
//! alone.
//!
//! SPMD, in no pipeline, chosen by [`to_devices::per_device_program`]: [`lower_manual_computations`] (a Shardy shard_map program → the
//! per-device program), [`sharding_propagation`] (Shardy-style propagation of a program's
//! shardings to every value: the plan the partitioner reads), [`spmd_partitioner`] (a program
//! with automatic shardings → the per-device program, by that plan).
//!
//! Target-independent: [`inline`], [`chlo_legalize`], [`simplify`], [`const_fold`],
//! [`cf_simplify`], [`cse`], [`dce`]. Expanders a backend adds after CHLO legalization (ops it
//! has no kernel for, rewritten into ones it has): [`erase_pvary`] (also in the TPU pipeline),
//! [`single_device_spmd`], [`map_inliner`], [`batch_norm_expander`]. For backends: [`layout`],
//! [`fusion`], [`buffer_assignment`].

pub mod batch_norm_expander;
pub mod buffer_assignment;
pub mod cf_simplify;
pub mod chlo_legalize;
pub mod const_fold;
pub mod cse;
pub mod dce;
pub mod erase_pvary;
pub mod fusion;
pub mod import_gspmd;
pub mod inline;
pub mod layout;
pub mod lower_manual_computations;
pub mod map_inliner;
pub mod sharding_propagation;
pub mod simplify;
pub mod single_device_spmd;
pub mod spmd_partitioner;
pub mod to_devices;
pub mod while_invariants;

pub use batch_norm_expander::BatchNormExpander;
pub use buffer_assignment::BufferAssignmentPass;
pub use cf_simplify::CfSimplify;
pub use chlo_legalize::{ChloLegalize, ChloLegalizeKeepTopK};
pub use const_fold::ConstFold;
pub use cse::Cse;
pub use dce::Dce;
pub use erase_pvary::ErasePvary;
pub use fusion::Fusion;
pub use inline::Inline;
pub use layout::Layout;
pub use lower_manual_computations::{lower_manual_computations, SpmdModule};
pub use map_inliner::MapInliner;
pub use sharding_propagation::{propagate_shardings, ShardingPlan};
pub use simplify::Simplify;
pub use single_device_spmd::SingleDeviceSpmd;
pub use spmd_partitioner::partition;
pub use to_devices::per_device_program;
pub use while_invariants::WhileInvariants;
