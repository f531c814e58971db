//! Free values of regions: values a region reads that are defined outside it.
//!
//! MLIR lets ops in a region read values of enclosing regions. A lowered region is a
//! [`crate::program::Program`] of its own, so those values become extra inputs, and the op that
//! owns the region receives them as extra operands.

use std::collections::HashSet;
use systolic_ir::{Op, Region, ValueId};

/// The outer values read by the regions of `op`, in first-use order, without duplicates.
pub fn op_captures(op: &Op) -> Vec<ValueId> {
    let mut defined = HashSet::new();
    let mut out = vec![];
    for r in &op.regions {
        walk_region(r, &mut defined, &mut out);
    }
    out
}

/// The outer values read by `region`, in first-use order, without duplicates.
pub fn region_captures(region: &Region) -> Vec<ValueId> {
    let mut defined = HashSet::new();
    let mut out = vec![];
    walk_region(region, &mut defined, &mut out);
    out
}

/// Walks in program order; a value is free if read before any definition seen in the walk (SSA
/// values are defined before use, so a use of a value not yet defined comes from outside).
fn walk_region(region: &Region, defined: &mut HashSet<ValueId>, out: &mut Vec<ValueId>) {
    for block in &region.blocks {
        defined.extend(block.args.iter().copied());
        for op in &block.ops {
            for &v in &op.operands {
                if !defined.contains(&v) && !out.contains(&v) {
                    out.push(v);
                }
            }
            for r in &op.regions {
                walk_region(r, defined, out);
            }
            defined.extend(op.results.iter().copied());
        }
    }
}
