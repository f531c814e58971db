//! Errors of the TPU model. Each names what is wrong and where: the chip and its missing
//! figure, the op and its source position, or the buffers that overflow HBM.

use thiserror::Error;

/// A buffer named in an out-of-memory error.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedBuffer {
    /// The SSA name (`%arg0`, `%5`) or a description.
    pub name: String,
    /// Its type, e.g. `tensor<8192x28672xbf16>`.
    pub ty: String,
    /// Bytes in HBM after layout padding.
    pub bytes: u64,
}

/// What can go wrong while modelling a program on a chip.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum TpuError {
    /// No chip of that name.
    #[error("unknown TPU chip `{name}` (known chips: {known})")]
    UnknownChip {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The model needs a figure the registry does not know for this chip.
    #[error("chip {chip}: {figure} is not published, so {needed_for} cannot be modelled")]
    MissingFigure {
        /// The chip.
        chip: &'static str,
        /// The figure (`HBM bandwidth`).
        figure: &'static str,
        /// What needed it.
        needed_for: &'static str,
    },
    /// The program's live buffers exceed the chip's HBM.
    #[error("{}", resource_exhausted_message(.chip, *.needed, *.capacity, .at, .largest))]
    ResourceExhausted {
        /// The chip.
        chip: &'static str,
        /// Peak bytes live at once.
        needed: u64,
        /// HBM capacity.
        capacity: u64,
        /// Where the peak is (the op that runs then).
        at: String,
        /// The largest buffers live at the peak, largest first.
        largest: Vec<NamedBuffer>,
    },
    /// An op or program the model cannot cost.
    #[error("{place}: {op}: {message}")]
    Unsupported {
        /// The op name.
        op: String,
        /// `file:line:col` or the function name.
        place: String,
        /// What is wrong.
        message: String,
    },
    /// A compiler pass failed on the program.
    #[error("compiling for the TPU: {message}")]
    Compile {
        /// The pass's diagnostic.
        message: String,
    },
    /// A device name that is not `tpu:CHIP[:INDEX]`.
    #[error("bad TPU device name `{name}`: {why}")]
    BadDeviceName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// A multi-chip program whose processes are not one per chip of the slice it is simulated
    /// on.
    #[error(
        "the module runs on {} process(es) (mhlo.num_replicas = {replicas} × mhlo.num_partitions \
         = {partitions}), but the slice {slice} has {chips} chip(s); simulating on a slice needs \
         one process per chip, so the two counts must be equal",
        *.replicas as u64 * *.partitions as u64
    )]
    ProcessCount {
        /// `mhlo.num_replicas` (1 when absent).
        replicas: u32,
        /// `mhlo.num_partitions` (1 when absent).
        partitions: u32,
        /// The slice, as its canonical string.
        slice: String,
        /// Chips in the slice.
        chips: u32,
    },
    /// A module attribute the simulation of a multi-chip program cannot read.
    #[error("module attribute {name}: {why}")]
    BadModuleAttr {
        /// The attribute.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// The entry function is missing.
    #[error("no function @{name} in the module (it has {available})")]
    NoFunction {
        /// The name asked for.
        name: String,
        /// The functions there are.
        available: String,
    },
}

fn resource_exhausted_message(
    chip: &str,
    needed: u64,
    capacity: u64,
    at: &str,
    largest: &[NamedBuffer],
) -> String {
    let list: Vec<String> = largest
        .iter()
        .map(|b| format!("{} {} ({})", b.name, b.ty, human_bytes(b.bytes as f64)))
        .collect();
    format!(
        "RESOURCE_EXHAUSTED: out of HBM on {chip}: the program needs {} live at once (at {at}) \
         but the chip has {}; largest live buffers: {}",
        human_bytes(needed as f64),
        human_bytes(capacity as f64),
        list.join(", ")
    )
}

/// Bytes with a binary unit (`1.50 GiB`).
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} {}", UNITS[i])
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(1.5 * 1024.0 * 1024.0 * 1024.0), "1.50 GiB");
    }
}
