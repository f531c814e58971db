//! Running a [`LoopProgram`]: each stage's blocks are spread over the rayon pool when the stage
//! is large (≥ [`PARALLEL_MIN`] elements), one worker per range of blocks with its own
//! registers; smaller stages run on the calling thread.

use super::access::{fence_streams, load, view, SharedDest};
use super::convert_body;
use super::program::{Dest, Instr, LoopProgram, Source, Stage};
use super::reg::Reg;
use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use rayon::prelude::*;

/// Elements per block: registers of 512 lanes keep a dozen live values inside L1.
pub const BLOCK: usize = 512;

/// Stages with at least this many elements run on every core.
pub const PARALLEL_MIN: usize = 1 << 16;

/// Runs `program` on operand buffers; returns its results.
pub fn run(program: &LoopProgram, args: &[&CpuBuffer]) -> Result<Vec<CpuBuffer>> {
    check_args(program, args)?;
    let mut buffers = Buffers::new(program);
    for s in 0..program.stages.len() {
        run_stage_at(program, args, &mut buffers, s);
    }
    buffers.into_results(program)
}

/// Runs `program` writing result `r` into the storage behind `into[r]` where one is given
/// (an operand's, for an in-place update); those results come back as `None`, their values
/// in the caller's storage, and the others as buffers.
///
/// # Safety
/// Each `into[r]` must point to live storage of result `r`'s dtype and element count that
/// nothing else writes during the call, and that no operand aliases unless
/// [`super::in_place::in_place_candidates`] allows it.
pub(crate) unsafe fn run_into(
    program: &LoopProgram,
    args: &[&CpuBuffer],
    into: Vec<Option<SharedDest>>,
) -> Result<Vec<Option<CpuBuffer>>> {
    check_args(program, args)?;
    let mut buffers = Buffers::adopting(program, into);
    for s in 0..program.stages.len() {
        run_stage_at(program, args, &mut buffers, s);
    }
    let adopted: Vec<bool> = buffers.adopted.iter().map(Option::is_some).collect();
    buffers.temps.drain(..).for_each(crate::pool::recycle);
    buffers
        .outputs
        .into_iter()
        .zip(&program.result_types)
        .zip(adopted)
        .map(|((s, t), adopted)| {
            if adopted {
                return Ok(None);
            }
            CpuBuffer::new(t.clone(), s)
                .map(Some)
                .map_err(|e| CpuError::new(format!("fused loop: {e}")))
        })
        .collect()
}

/// Checks the operands against the types the program was compiled for.
pub fn check_args(program: &LoopProgram, args: &[&CpuBuffer]) -> Result<()> {
    if args.len() != program.arg_types.len() {
        return Err(CpuError::new(format!(
            "fused loop expects {} operands, got {}",
            program.arg_types.len(),
            args.len()
        )));
    }
    for (i, (a, want)) in args.iter().zip(&program.arg_types).enumerate() {
        if !a.has_type(want) {
            return Err(CpuError::new(format!(
                "fused loop operand {i} is {}, expected {want}",
                a.ty()
            )));
        }
    }
    Ok(())
}

/// The results and temporaries of one run.
pub struct Buffers {
    /// One per result (empty for an adopted one).
    pub outputs: Vec<Storage>,
    /// One per temporary.
    pub temps: Vec<Storage>,
    /// Per result, when it is written into storage the caller owns ([`run_into`]); empty when
    /// none is.
    adopted: Vec<Option<SharedDest>>,
}

impl Buffers {
    /// Buffers for a run of `program`. Every element of an output or a temporary is stored
    /// by the stage writing it (a stage covers its whole shape), so recycled storage is taken
    /// as it is, without a zero-fill pass.
    pub fn new(program: &LoopProgram) -> Buffers {
        let alloc = |t: &systolic_ir::TensorType| crate::pool::take(t.dtype, t.num_elements());
        Buffers {
            outputs: program.result_types.iter().map(output).collect(),
            temps: program.temp_types.iter().map(alloc).collect(),
            adopted: vec![],
        }
    }

    /// Buffers for a run writing result `r` into `into[r]` where given (nothing is allocated
    /// for those).
    fn adopting(program: &LoopProgram, into: Vec<Option<SharedDest>>) -> Buffers {
        let alloc = |t: &systolic_ir::TensorType| crate::pool::take(t.dtype, t.num_elements());
        Buffers {
            outputs: program
                .result_types
                .iter()
                .zip(&into)
                .map(|(t, d)| match d {
                    Some(_) => Storage::Bool(vec![]),
                    None => output(t),
                })
                .collect(),
            temps: program.temp_types.iter().map(alloc).collect(),
            adopted: into,
        }
    }

    /// Only the temporaries of `program` (its outputs left empty): for drivers that take the
    /// last stage's stores themselves (a reduction's producer), so no output is allocated.
    pub fn temps_only(program: &LoopProgram) -> Buffers {
        let alloc = |t: &systolic_ir::TensorType| crate::pool::take(t.dtype, t.num_elements());
        Buffers {
            outputs: vec![],
            temps: program.temp_types.iter().map(alloc).collect(),
            adopted: vec![],
        }
    }

    /// The results as buffers.
    pub fn into_results(self, program: &LoopProgram) -> Result<Vec<CpuBuffer>> {
        self.temps.into_iter().for_each(crate::pool::recycle);
        self.outputs
            .into_iter()
            .zip(&program.result_types)
            .map(|(s, t)| {
                CpuBuffer::new(t.clone(), s).map_err(|e| CpuError::new(format!("fused loop: {e}")))
            })
            .collect()
    }
}

/// Storage for a result of type `t` that the caller writes completely: recycled as it is or
/// fresh (huge pages asked for when large, by [`crate::pool::take`]).
pub fn output(t: &systolic_ir::TensorType) -> Storage {
    crate::pool::take(t.dtype, t.num_elements())
}

/// Runs stage `s` of `program` (its blocks over the pool when large).
pub fn run_stage_at(program: &LoopProgram, args: &[&CpuBuffer], buffers: &mut Buffers, s: usize) {
    let stage = &program.stages[s];
    let written: Vec<usize> = stage
        .body
        .iter()
        .filter_map(|i| match i {
            Instr::Store {
                dest: Dest::Temp(t),
                ..
            } => Some(*t),
            _ => None,
        })
        .collect();
    let temps = &mut buffers.temps;
    let mut taken: Vec<(usize, Storage)> = written
        .iter()
        .map(|&t| (t, std::mem::replace(&mut temps[t], Storage::Bool(vec![]))))
        .collect();
    {
        let adopted = &buffers.adopted;
        let out_dests: Vec<SharedDest> = buffers
            .outputs
            .iter_mut()
            .zip(&program.result_types)
            .enumerate()
            .map(|(r, (s, t))| match adopted.get(r).copied().flatten() {
                Some(into) => into,
                None => SharedDest::streaming(s, t.dtype),
            })
            .collect();
        let temp_dests: Vec<(usize, SharedDest)> = taken
            .iter_mut()
            .map(|(t, s)| (*t, SharedDest::new(s, program.temp_types[*t].dtype)))
            .collect();
        let env = Env {
            program,
            args,
            temps,
            outputs: &out_dests,
            temp_dests: &temp_dests,
        };
        run_stage(stage, &env);
    }
    for (t, s) in taken {
        temps[t] = s;
    }
}

/// What a stage reads and writes.
pub struct Env<'a> {
    program: &'a LoopProgram,
    args: &'a [&'a CpuBuffer],
    temps: &'a [Storage],
    outputs: &'a [SharedDest],
    temp_dests: &'a [(usize, SharedDest)],
}

impl<'a> Env<'a> {
    /// An environment that only reads (for drivers that handle stores themselves).
    pub fn reading(
        program: &'a LoopProgram,
        args: &'a [&'a CpuBuffer],
        temps: &'a [Storage],
    ) -> Env<'a> {
        Env {
            program,
            args,
            temps,
            outputs: &[],
            temp_dests: &[],
        }
    }

    fn source(&self, s: Source) -> Option<&Storage> {
        match s {
            Source::Arg(i) => Some(self.args[i].storage()),
            Source::Const(i) => Some(&self.program.constants[i]),
            Source::Temp(i) => Some(&self.temps[i]),
            Source::Iota => None,
        }
    }

    fn dest(&self, d: Dest) -> &SharedDest {
        match d {
            Dest::Output(i) => &self.outputs[i],
            Dest::Temp(t) => {
                &self
                    .temp_dests
                    .iter()
                    .find(|(k, _)| *k == t)
                    .expect("the stage's temporaries were taken out for it")
                    .1
            }
        }
    }
}

fn run_stage(stage: &Stage, env: &Env) {
    if stage.len == 0 {
        return;
    }
    let threads = rayon::current_num_threads();
    if stage.len < PARALLEL_MIN || threads < 2 {
        run_range(stage, env, 0, stage.len);
        return;
    }
    let blocks = stage.len.div_ceil(BLOCK);
    let tasks = (threads * 4).min(blocks);
    let per_task = blocks.div_ceil(tasks) * BLOCK;
    (0..stage.len.div_ceil(per_task))
        .into_par_iter()
        .for_each(|t| {
            let start = t * per_task;
            run_range(stage, env, start, (start + per_task).min(stage.len));
        });
}

/// Runs the blocks of `[start, end)` on this thread.
fn run_range(stage: &Stage, env: &Env, start: usize, end: usize) {
    // Registers as wide as the widest block here: a small stage (a scalar loop body) does not
    // pay for zeroing 512-lane registers on every call.
    let width = BLOCK.min(end - start);
    let mut regs = spare::take(&stage.regs, width);
    // Consecutive blocks may share a transposed operand's panel (see `panels`).
    let _panels = super::panels::scope();
    for instr in &stage.prologue {
        step(stage, env, instr, &mut regs, 0, width);
    }
    let mut at = start;
    while at < end {
        let n = BLOCK.min(end - at);
        for instr in &stage.body {
            step(stage, env, instr, &mut regs, at, n);
        }
        at += n;
    }
    fence_streams();
    spare::give_back(regs);
}

/// Registers kept between runs on each thread, so that a small kernel run again and again (a
/// loop body's) does not allocate and zero its registers on every run: in a body of a dozen
/// tiny kernels, allocating registers was a tenth of the time.
mod spare {
    use super::super::reg::{Lane, Reg};
    use std::cell::RefCell;

    /// The most registers kept per thread (at most 512 lanes of 16 bytes each: 128 KiB): a
    /// few small kernels' worth, few enough to search.
    const MAX_KEPT: usize = 16;

    thread_local! {
        static KEPT: RefCell<Vec<Reg>> = const { RefCell::new(Vec::new()) };
    }

    /// Registers of `lanes`, `width` lanes each: kept ones that fit (stale contents, as every
    /// register is written before it is read), else new zeroed ones.
    pub fn take(lanes: &[Lane], width: usize) -> Vec<Reg> {
        KEPT.with(|kept| {
            let mut kept = kept.borrow_mut();
            lanes
                .iter()
                .map(|&l| match kept.iter().rposition(|r| r.fits(l, width)) {
                    Some(i) => kept.swap_remove(i),
                    None => Reg::new(l, width),
                })
                .collect()
        })
    }

    /// Keeps `regs` for later runs (views dropped: a kept register never points into a
    /// buffer).
    pub fn give_back(regs: Vec<Reg>) {
        KEPT.with(|kept| {
            let mut kept = kept.borrow_mut();
            for mut r in regs {
                if kept.len() == MAX_KEPT {
                    break;
                }
                r.unview();
                kept.push(r);
            }
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A register comes back only for its own lane type and width, never still viewing a
        /// buffer; the others are made new.
        #[test]
        fn kept_registers_fit_what_is_asked_and_view_nothing() {
            // Earlier tests on this thread may have left registers.
            KEPT.with(|k| k.borrow_mut().clear());
            let mut regs = take(&[Lane::I32, Lane::F64], 3);
            let data = [1.0f64, 2.0, 3.0];
            // SAFETY: `data` outlives every read of the register below.
            unsafe { regs[1].view(&data) };
            assert_eq!(regs[1].viewed_address(), Some(data.as_ptr() as usize));
            let f64_address = match &regs[1] {
                Reg::F64(l) => l.owned_address(),
                _ => unreachable!(),
            };
            give_back(regs);
            let again = take(&[Lane::F64, Lane::I32, Lane::I32], 3);
            assert!(again[0].fits(Lane::F64, 3));
            assert!(again[1].fits(Lane::I32, 3) && again[2].fits(Lane::I32, 3));
            assert_eq!(again[0].viewed_address(), None);
            assert!(matches!(&again[0], Reg::F64(l) if l.owned_address() == f64_address));
            give_back(again);
            let wider = take(&[Lane::F64], 4);
            assert!(wider[0].fits(Lane::F64, 4));
            let bools = take(&[Lane::Bool], 3);
            assert!(bools[0].fits(Lane::Bool, 3));
        }
    }
}

/// Runs one instruction on the block `[at, at + n)`.
#[inline]
pub fn step(stage: &Stage, env: &Env, instr: &Instr, regs: &mut [Reg], at: usize, n: usize) {
    match instr {
        Instr::Load { access, dst } => {
            let source = env.source(access.source);
            if access.is_uniform() {
                // A uniform value fills the whole register once (the prologue).
                let mut one = access.clone();
                one.strides.iter_mut().for_each(|s| *s = 0);
                load(&[], &one, source, 0, n, &mut regs[*dst]);
            } else {
                // A block that is one contiguous run of the source in the register's own
                // lane type is read in place (the epilogue of a product read the product and
                // its other operands with one `memmove` per block: 7% of an MLP training
                // step); anything else is copied in.
                // SAFETY: operands and constants outlive the run and are never written; a
                // temporary is written only by an earlier stage (every stage writes values
                // later stages read), and results never alias a source (they come from the
                // pool while every operand is alive). The register is unviewed before it is
                // written (`load`, `Apply`).
                let viewed = source.is_some_and(|src| unsafe {
                    view(&stage.dims, access, src, at, n, &mut regs[*dst])
                });
                if !viewed {
                    load(&stage.dims, access, source, at, n, &mut regs[*dst]);
                }
            }
        }
        Instr::Apply { body, inputs, dst } => {
            let mut out = std::mem::take(&mut regs[*dst]);
            // The body writes every lane of the block: a view the register held is dropped.
            out.unview();
            convert_body(body, inputs, regs, &mut out, n);
            regs[*dst] = out;
        }
        Instr::Fold { .. } => unreachable!("a fold outside a row program"),
        Instr::Store { src, dest, .. } => {
            // SAFETY: this worker owns the block [at, at + n) of every destination, whose
            // length is the stage's element count.
            unsafe { env.dest(*dest).store(&regs[*src], at, n) }
        }
    }
}
