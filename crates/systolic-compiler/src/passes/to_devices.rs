//! Which SPMD lowering a program needs, in one place: every caller that runs a global program
//! on several devices (the CLI's `run` and `simulate`, the front end's `jit` with shardings
//! and `shard_map`, the runtime) asks [`per_device_program`] rather than choosing a pass.
//!
//! - a program whose outermost `sdy.manual_computation`s (shard_map) are manual over every
//!   mesh axis → [`lower_manual_computations`] (calls inlined first when a manual computation
//!   sits in a callee, as JAX stages `fori_loop` and `scan` bodies); one that leaves some axes
//!   free (partly manual) → the partitioner, as below, falling back to
//!   [`lower_manual_computations`] when manual computations nested in it cover the free axes
//!   and the partitioner cannot split the outer body;
//! - a program whose entry carries automatic `sdy.sharding`s or `sdy.sharding_constraint`s on a
//!   mesh of more than one device → calls inlined (as Shardy's import does), then the
//!   [`partition`]er;
//! - a program with GSPMD `mhlo.sharding`s (and no GSPMD shard_map markers, whose programs are
//!   already per device) → [`import_gspmd_shardings`] to the Shardy form, then as above;
//! - anything else is a single-device program (`None`).

use super::import_gspmd::{has_gspmd_shardings, import_gspmd_shardings};
use super::inline::Inline;
use super::lower_manual_computations::{
    coverage, inline_manual_callees, sharding_attr, the_mesh, Coverage,
};
use super::{lower_manual_computations, partition, SpmdModule};
use crate::pass::Pass;
use systolic_ir::walk::walk_ops;
use systolic_ir::{Module, OpKind};

/// The per-device program of `entry`, or `None` when the program runs on one device.
pub fn per_device_program(module: &Module, entry: &str) -> Result<Option<SpmdModule>, String> {
    if has_gspmd_shardings(module, entry) {
        let imported = import_gspmd_shardings(module, entry)?;
        return per_device_program(&imported, entry);
    }
    if let Some(inlined) = inline_manual_callees(module)? {
        return per_device_program(&inlined, entry);
    }
    let func = module
        .func(entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    // The manual axes of each manual computation, and whether any constraint is there.
    let mut manual_axes: Vec<&[String]> = vec![];
    let mut constrained = false;
    walk_ops(&func.body, &mut |op, _| match &op.kind {
        OpKind::ManualComputation(a) => manual_axes.push(&a.manual_axes),
        OpKind::ShardingConstraint(_) => constrained = true,
        _ => {}
    });
    let manual = !manual_axes.is_empty();
    // Some outermost manual computation leaves mesh axes free: the partitioner runs it.
    let coverage = match manual {
        true => coverage(func, &the_mesh(module, func)?),
        false => Coverage::Full,
    };
    let partly_manual = coverage != Coverage::Full;
    if manual && !partly_manual {
        let spmd = lower_manual_computations(module, entry)?;
        return Ok((spmd.num_devices > 1).then_some(spmd));
    }
    let annotated = func
        .arg_attrs
        .iter()
        .chain(&func.result_attrs)
        .any(|a| sharding_attr(Some(a)).is_some());
    if !annotated && !constrained && !partly_manual {
        return Ok(None);
    }
    let mesh = the_mesh(module, func)?;
    let devices: i64 = mesh.axes.iter().map(|(_, size)| size).product();
    if devices <= 1 {
        return Ok(None);
    }
    let mut inlined = module.clone();
    Inline.run(&mut inlined).map_err(|d| d.to_string())?;
    match partition(&inlined, entry) {
        // Manual computations nested in one that leaves axes free, which cover those axes:
        // when the partitioner cannot split the outer body, the all-manual lowering runs it
        // whole along the free axes.
        Err(e) if coverage == Coverage::Nested => lower_manual_computations(module, entry)
            .map(Some)
            .map_err(|mine| format!("{e} (lowered level by level instead: {mine})")),
        other => other.map(Some),
    }
}
