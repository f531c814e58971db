//! Involuntary full rematerialization: a conversion that gathers a large array whole onto
//! every device (XLA's SPMD partitioner warns the same way) usually means a sharding did not
//! pass through an op — the program is still right, but each device holds and moves the
//! whole array. The partitioner records a warning naming the op (and where it is) whose
//! operand, result or return needed it; `SpmdModule::warnings` carries them to the caller.

use super::{Held, Partitioner};
use systolic_ir::{Op, TensorType};

/// Global bytes above which gathering an array whole is worth a warning.
pub(super) const FULL_GATHER_WARNING_BYTES: usize = 1 << 20;

/// `op` and where it is, as warnings name it.
pub(super) fn site(op: &Op) -> String {
    let at = op.span.map(|s| format!(" at {s}")).unwrap_or_default();
    format!("{}{at}", op.kind.name())
}

impl Partitioner<'_> {
    /// Records a warning when converting a value of `global` type held as `from` to `to`
    /// replicates a sharded array larger than [`FULL_GATHER_WARNING_BYTES`].
    pub(super) fn note_full_gather(&mut self, from: &Held, to: &Held, global: &TensorType) {
        let whole = to.iter().all(|a| a.is_empty());
        let sharded = from.iter().any(|a| !a.is_empty());
        let bytes = global.num_elements() * global.dtype.byte_size();
        if !(whole && sharded && bytes > FULL_GATHER_WARNING_BYTES) {
            return;
        }
        let axes: Vec<String> = from
            .iter()
            .map(|d| {
                let names: Vec<String> = d.iter().map(|a| format!("\"{}\"", a.name)).collect();
                format!("{{{}}}", names.join(", "))
            })
            .collect();
        let warning = format!(
            "involuntary full rematerialization: {} needs a {global} ({bytes} bytes) whole on \
             every device; it is held split as [{}] and is all-gathered",
            self.at,
            axes.join(", ")
        );
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }
}
