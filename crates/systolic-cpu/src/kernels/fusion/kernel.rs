//! The fused-loop [`Kernel`] and the family's entry point, [`lower`].

use super::access::SharedDest;
use super::exec;
use super::in_place::in_place_candidates;
use super::plan::{plan, BlockSpec};
use super::program::{Access, Dest, Instr, LoopProgram, Source, Stage};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::shape::movement::ViewKernel;
use crate::kernels::shape::strided::View;
use crate::lower_ctx::LowerCtx;
use systolic_ir::{row_major_strides, FusionKind, Op, OpKind};

/// A compiled block of elementwise ops.
#[derive(Debug)]
pub struct LoopKernel {
    name: String,
    program: LoopProgram,
    /// Per result, the operands it may be written over when they die here
    /// ([`super::in_place`]).
    in_place: Vec<Vec<usize>>,
}

impl LoopKernel {
    /// A kernel running `program`, described as `name` in logs and profiles.
    pub fn new(name: String, program: LoopProgram) -> LoopKernel {
        let in_place = in_place_candidates(&program);
        LoopKernel {
            name,
            program,
            in_place,
        }
    }

    /// Per result, the operands it is written over when one of them dies here.
    pub fn in_place_candidates(&self) -> &[Vec<usize>] {
        &self.in_place
    }

    /// The program it runs.
    pub fn program(&self) -> &LoopProgram {
        &self.program
    }
}

impl Kernel for LoopKernel {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&self, mut args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        // No operand dies here (or none may take a result): nothing to write over, and no
        // per-result vectors of donors to build.
        let may_donate = self
            .in_place
            .iter()
            .flatten()
            .any(|&a| matches!(args.get(a), Some(Arg::Owned(_))));
        if !may_donate {
            let buffers: Vec<&CpuBuffer> = args.iter().map(|a| a.buffer()).collect();
            return exec::run(&self.program, &buffers);
        }
        // Results written over operands that die here (a donated parameter updated by the
        // step): their storage pointers are taken while the operands are still held by
        // value, before the read-only views below.
        let (into, donor) = donors(&self.in_place, &self.program, &mut args);
        let buffers: Vec<&CpuBuffer> = args.iter().map(|a| a.buffer()).collect();
        if donor.iter().all(Option::is_none) {
            // Operands that die here go back to the pool as `args` drops (see `Arg`'s `Drop`).
            return exec::run(&self.program, &buffers);
        }
        // SAFETY: each `into[r]` points into operand `donor[r]`'s storage, which this kernel
        // owns (`Arg::Owned`: nobody else reads or writes it), has result `r`'s dtype and
        // element count (operand types are checked against the program's, whose pair
        // `in_place_candidates` matched), and stays alive until the run returns;
        // `in_place_candidates` allowed the program to read that operand while writing `r` over it.
        let results = unsafe { exec::run_into(&self.program, &buffers, into) }?;
        drop(buffers);
        with_donated(results, donor, args, &self.program, "fused loop")
    }
}

/// Per result of `program`, the storage of an operand that dies here (`Arg::Owned`) to write
/// it over, the first of its `in_place` candidates no other result took; and per result the
/// operand chosen.
pub(super) fn donors(
    in_place: &[Vec<usize>],
    program: &LoopProgram,
    args: &mut [Arg<'_>],
) -> (Vec<Option<SharedDest>>, Vec<Option<usize>>) {
    let mut into: Vec<Option<SharedDest>> = vec![None; program.result_types.len()];
    let mut donor: Vec<Option<usize>> = vec![None; into.len()];
    for (r, candidates) in in_place.iter().enumerate() {
        let result = &program.result_types[r];
        for &a in candidates {
            if donor.contains(&Some(a)) {
                continue;
            }
            let arg_type = &program.arg_types[a];
            if let Some(b) = args[a].owned_mut().filter(|b| b.has_type(arg_type)) {
                into[r] = Some(SharedDest::new(b.storage_mut(), result.dtype));
                donor[r] = Some(a);
                break;
            }
        }
    }
    (into, donor)
}

/// The kernel's results: `results[r]` when it came back as a buffer, else the storage of
/// operand `donor[r]` it was written into, taken out of `args` (`what` names the kernel in
/// errors). The remaining dying operands go back to the pool as `args` drops.
pub(super) fn with_donated(
    results: Vec<Option<CpuBuffer>>,
    donor: Vec<Option<usize>>,
    args: Vec<Arg<'_>>,
    program: &LoopProgram,
    what: &str,
) -> Result<Vec<CpuBuffer>> {
    let mut args: Vec<Option<Arg<'_>>> = args.into_iter().map(Some).collect();
    results
        .into_iter()
        .zip(donor)
        .zip(&program.result_types)
        .map(|((result, donor), ty)| match (result, donor) {
            (Some(b), _) => Ok(b),
            (None, Some(a)) => {
                let storage = args[a]
                    .take()
                    .and_then(Arg::into_reusable)
                    .map(|b| b.into_parts().1)
                    .ok_or_else(|| {
                        CpuError::new(format!("{what}: an in-place operand was lost"))
                    })?;
                CpuBuffer::new(ty.clone(), storage)
                    .map_err(|e| CpuError::new(format!("{what}: {e}")))
            }
            (None, None) => Err(CpuError::new(format!("{what}: a result was not written"))),
        })
        .collect()
}

/// True for the ops a standalone loop kernel covers: elementwise ops, and the shape ops that
/// are views (broadcasts, transpose, slice, reshape) or generated (iota).
pub fn is_loop_op(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Unary(_)
            | OpKind::Binary(_)
            | OpKind::Compare { .. }
            | OpKind::Select
            | OpKind::Clamp
            | OpKind::Convert
            | OpKind::BitcastConvert
            | OpKind::ReducePrecision { .. }
            | OpKind::ChloUnary(_)
            | OpKind::ChloBinary(_)
            | OpKind::Iota { .. }
            | OpKind::BroadcastInDim { .. }
            | OpKind::Broadcast { .. }
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Reshape
    )
}

/// A loop kernel for `block`, or `None` when some op in it has no loop form. A block that
/// only moves one operand's elements becomes a strided copy ([`copy_kernel`]).
pub fn lower_block(name: String, block: &BlockSpec, ctx: &LowerCtx) -> Option<Box<dyn Kernel>> {
    let program = plan(block, &|v| ctx.tensor_type(v).ok().cloned()).ok()?;
    if let Some(kernel) = copy_kernel(&name, &program) {
        return Some(Box::new(kernel));
    }
    Some(Box::new(LoopKernel::new(name, program)))
}

/// The program as a strided copy when it is one: operand 0 read through an access and stored
/// unchanged as the only result, in one stage, or in two when the planner put the view in a
/// temporary first because a reshape followed a transpose (`[8,8,64,256] → transpose →
/// [8,256,8,64] → reshape`): then the second stage copies the temporary in order and the
/// first stage's access is the whole copy. The loop executor would move each element two or
/// four times (into a register block and out again, per stage), with one `memmove` per
/// contiguous run; the copy kernel writes the result once, in tiles when the transpose moves
/// the innermost dimension.
fn copy_kernel(name: &str, program: &LoopProgram) -> Option<ViewKernel> {
    let [result] = program.result_types.as_slice() else {
        return None;
    };
    let (first, last) = match program.stages.as_slice() {
        [only] => (only, only),
        [first, last] => (first, last),
        _ => return None,
    };
    let (access, into) = moved(first)?;
    let (read, out) = moved(last)?;
    if let (Dest::Temp(t), [_, _]) = (into, program.stages.as_slice()) {
        let dims: Vec<i64> = last.dims.iter().map(|&d| d as i64).collect();
        let in_order = read.source == Source::Temp(t)
            && read.offset == 0
            && read.strides == row_major_strides(&dims)
            && last.len == first.len;
        if !in_order {
            return None;
        }
    } else if into != Dest::Output(0) || program.stages.len() != 1 {
        return None;
    }
    let whole = program.arg_types.len() == 1
        && access.source == Source::Arg(0)
        && access.dtype == result.dtype
        && out == Dest::Output(0)
        && access.strides.len() == first.dims.len()
        && first.len == result.num_elements();
    if !whole {
        return None;
    }
    let view = View {
        offset: access.offset as isize,
        strides: access.strides.iter().map(|&s| s as isize).collect(),
    };
    Some(ViewKernel::copying(
        name.to_string(),
        view,
        first.dims.clone(),
        result.clone(),
    ))
}

/// A stage that loads one value and stores it unchanged: its access and destination.
fn moved(stage: &Stage) -> Option<(&Access, Dest)> {
    match stage.body.as_slice() {
        [Instr::Load { access, dst }, Instr::Store { src, dtype, dest }]
            if stage.prologue.is_empty() && src == dst && *dtype == access.dtype =>
        {
            Some((access, *dest))
        }
        _ => None,
    }
}

/// The family's entry point: a `systolic.fusion` of kind loop or reduction becomes one loop or
/// reduction kernel over its region; a standalone elementwise or view op becomes a one-op loop
/// and a standalone reduce a reduction kernel; `Ok(None)` for every other op (product fusions
/// belong to the matrix kernels) and for blocks with an op that has no loop form.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    if let OpKind::Fusion { kind, name } = &op.kind {
        return Ok(lower_fusion(op, *kind, name, ctx));
    }
    if let OpKind::Reduce { .. } = op.kind {
        return super::reduce::lower(op, ctx);
    }
    if !is_loop_op(&op.kind) {
        return Ok(None);
    }
    let block = BlockSpec::of_op(op);
    let name = match ctx.result_types(op) {
        Ok(types) if !types.is_empty() => format!("loop {} {}", op.kind.name(), types[0]),
        _ => format!("loop {}", op.kind.name()),
    };
    Ok(lower_block(name, &block, ctx))
}

/// A kernel for a `systolic.fusion` op: its region's block is the block compiled; the op's
/// operands are the kernel's operands.
fn lower_fusion(op: &Op, kind: FusionKind, name: &str, ctx: &LowerCtx) -> Option<Box<dyn Kernel>> {
    let block = op.regions.first()?.entry()?;
    let spec = BlockSpec::of_block(block).filter(|s| s.args.len() == op.operands.len())?;
    let title = format!("{} ({})", name, kind.keyword());
    match kind {
        FusionKind::Loop => lower_block(title, &spec, ctx),
        FusionKind::Reduction => super::reduce::lower_reduction_block(title, &spec, ctx),
        FusionKind::Product => None,
    }
}
