//! Row programs: a block whose reduces all fold the innermost dimensions of one shape (the
//! *rows*), with elementwise work before, between and after them, over the rows or over one
//! value per row (softmax: max → subtract → exp → sum → divide; layer norm: mean → variance →
//! normalise). XLA's "softmax-like" multi-output fusions, done the CPU way: the rows are cut
//! into chunks that fit in cache, and each chunk runs every stage of the program in turn, so
//! a row is read from memory once and its later passes hit the cache. Chunks are spread over
//! the cores.
//!
//! The program is an ordinary loop program (see [`super::plan::plan_rows`]) in which each
//! reduce is an [`Instr::Fold`] in the stage computing its input, whose accumulators (one per
//! row) become a temporary for the stages of the next level. A stage runs either over the
//! rows' elements ("full") or over one element per row ("per row"). Temporaries live per
//! worker and per chunk, which is sound because every temporary is read back at the positions
//! of the same rows: a full temporary elementwise, a per-row one once per row (checked when
//! planning; anything else is [`Unsupported`]).
//!
//! Registers are [`BLOCK`] lanes wide, or one row wide for rows of up to [`ROW_BLOCK_MAX`]
//! elements (softmax over 1000 classes: one block per row instead of two halves, half the
//! instruction dispatches and fold tails), or whole short rows, as many as fit in
//! [`SHORT_ROW_BLOCK`]. A fold sees each row in the same pieces whatever
//! the chunking: a row no longer than the width whole, a longer one in blocks of the width
//! from its start, so results do not depend on the number of threads.

use super::access::{cache_lines, load, prefetch_line, view, SharedDest};
use super::elementwise::Body;
use super::exec::{self, step, Env, BLOCK, PARALLEL_MIN};
use super::in_place::row_in_place_candidates;
use super::kernel::{donors, with_donated};
use super::plan::{plan_rows, BlockSpec, FoldSpec, RowSpace, Unsupported};
use super::program::{Access, Dest, Instr, LoopProgram, Source, Stage};
use super::reg::{Lane, Reg};
use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use rayon::prelude::*;
use systolic_ir::{row_major_strides, OpKind, TensorType, ValueId};

/// Elements of a row chunk (per full array): a chunk's rows and their temporaries stay in L2.
pub const CHUNK: usize = 1 << 14;

/// Rows up to this long are one register block each (8 KiB per f32 register).
pub const ROW_BLOCK_MAX: usize = 2048;

/// Lanes per register for rows of up to half a [`BLOCK`]: whole rows, as many as fit. Softmax
/// over 256 keys (attention's) ran in blocks of two rows, and paid each instruction's dispatch
/// and each fold's setup per 512 lanes; four rows a block: 3.4 → 3.0 ms for 8·8·256 rows of 256
/// (masked, `systolic run --repeat 30`), 4.6 → 4.4 ms for 65536 rows of 64. Wider still (2048,
/// 4096) gained nothing more or lost, and rows of 500 lost 7% at two a block, so longer rows
/// keep [`BLOCK`].
pub const SHORT_ROW_BLOCK: usize = 1024;

/// The register width of a row program over rows of `row_len`.
fn block_width(row_len: usize) -> usize {
    if row_len > BLOCK && row_len <= ROW_BLOCK_MAX {
        row_len
    } else if row_len > 0 && row_len <= BLOCK / 2 {
        SHORT_ROW_BLOCK / row_len * row_len
    } else {
        BLOCK
    }
}

/// A planned row program.
#[derive(Clone, Debug)]
pub struct RowPlan {
    program: LoopProgram,
    folds: Vec<FoldSpec>,
    rows: usize,
    row_len: usize,
    /// Lanes per register (see [`block_width`]).
    width: usize,
    /// Per stage: over the rows' elements (true) or one element per row.
    full: Vec<bool>,
    /// Per stage: the folds whose accumulators it completes.
    stage_folds: Vec<Vec<usize>>,
    /// Per temporary: its elements per row (the row length, or 1).
    per_row: Vec<usize>,
    /// The operand rows the first full stage reads contiguously (stage, access): the second
    /// full stage, `prefetch_stage`, prefetches them for the next chunk while it computes.
    streams: Vec<(usize, Access)>,
    prefetch_stage: Option<usize>,
    /// Per stage and body instruction: a load of a value uniform over each row that only
    /// bodies taking splats read (see [`splat_loads`]).
    splats: Vec<Vec<bool>>,
    /// Per stage and body instruction: an iota that is the same in every row, into a register
    /// nothing else in the stage writes (see [`row_invariant_iotas`]).
    invariant: Vec<Vec<bool>>,
}

impl RowPlan {
    /// The loop program (its reduces as folds).
    pub fn program(&self) -> &LoopProgram {
        &self.program
    }

    /// Loads of per-row values that run as splats in blocks within one row.
    pub fn splat_loads(&self) -> usize {
        self.splats.iter().flatten().filter(|&&b| b).count()
    }

    /// Iota loads filled once per worker and kept (see [`row_invariant_iotas`]).
    pub fn invariant_iotas(&self) -> usize {
        self.invariant.iter().flatten().filter(|&&b| b).count()
    }

    /// Number of rows and their length.
    pub fn rows(&self) -> (usize, usize) {
        (self.rows, self.row_len)
    }
}

/// A compiled row program.
#[derive(Debug)]
pub struct RowKernel {
    name: String,
    plan: RowPlan,
    /// Per result, the operands it may be written over when they die here
    /// ([`super::in_place::row_in_place_candidates`]): a softmax over attention scores writes
    /// its probabilities over the scores instead of into fresh memory, whose first touch
    /// (the kernel zeroing 128 MiB of new pages) was most of a first run's time.
    in_place: Vec<Vec<usize>>,
}

impl RowKernel {
    /// A kernel running `plan`, named `name` in logs and profiles.
    pub fn new(name: String, plan: RowPlan) -> RowKernel {
        let in_place = row_in_place_candidates(&plan.program);
        RowKernel {
            name,
            plan,
            in_place,
        }
    }

    /// Per result, the operands it is written over when one of them dies here.
    pub fn in_place_candidates(&self) -> &[Vec<usize>] {
        &self.in_place
    }

    /// The plan it runs.
    pub fn plan(&self) -> &RowPlan {
        &self.plan
    }
}

impl Kernel for RowKernel {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&self, mut args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let program = &self.plan.program;
        let (into, donor) = donors(&self.in_place, program, &mut args);
        let buffers: Vec<&CpuBuffer> = args.iter().map(|a| a.buffer()).collect();
        // SAFETY: each `into[r]` points into operand `donor[r]`'s storage, which this kernel
        // owns (`Arg::Owned`), has result `r`'s dtype and element count, and outlives the run;
        // `row_in_place_candidates` allowed the program to read it while writing `r` over it.
        let results = unsafe { run_into(&self.plan, &buffers, into) }?;
        drop(buffers);
        // Operands that die here go back to the pool as `args` drops (see `Arg`'s `Drop`).
        with_donated(results, donor, args, program, "row program")
    }
}

type Plan<T> = std::result::Result<T, Unsupported>;

macro_rules! unsupported {
    ($($arg:tt)*) => { return Err(Unsupported(format!($($arg)*))) };
}

/// Plans `block` as a row program: every reduce in it must read the same shape and reduce
/// the same innermost dimensions with a simple reducer (see [`super::reduce::reducer`]).
pub fn plan_row_block(
    block: &BlockSpec,
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
) -> Plan<RowPlan> {
    let Some(first) = block
        .ops
        .iter()
        .find(|o| matches!(o.kind, OpKind::Reduce { .. }))
    else {
        unsupported!("no reduce in the block");
    };
    let OpKind::Reduce { dimensions } = &first.kind else {
        unreachable!("found a reduce");
    };
    let Some(input) = first.operands.first().and_then(|&v| type_of(v)) else {
        unsupported!("a reduce without a tensor input");
    };
    let rank = input.shape.len();
    let mut dims = dimensions.clone();
    dims.sort_unstable();
    let trailing = dims
        .iter()
        .enumerate()
        .all(|(k, &d)| d == (rank - dims.len() + k) as i64);
    if dims.is_empty() || dims.len() > rank || !trailing {
        unsupported!("reduce dimensions {dimensions:?} of {input} are not the innermost");
    }
    let size = |ds: &[i64]| -> usize { ds.iter().map(|&d| d.max(0) as usize).product() };
    let split = rank - dims.len();
    let rows = size(&input.shape[..split]);
    let row_len = size(&input.shape[split..]);
    let space = RowSpace {
        input_shape: input.shape.clone(),
        dims,
    };
    let (program, folds) = plan_rows(block, type_of, space)?;
    let full_len = rows * row_len;
    let full: Vec<bool> = program
        .stages
        .iter()
        .map(|s| {
            if s.len == full_len {
                Ok(true)
            } else if s.len == rows {
                Ok(false)
            } else {
                Err(Unsupported(format!(
                    "a stage of {} elements in {rows} rows of {row_len}",
                    s.len
                )))
            }
        })
        .collect::<Plan<_>>()?;
    let per_row: Vec<usize> = program
        .temp_types
        .iter()
        .map(|t| match t.num_elements() {
            n if n == full_len => Ok(row_len),
            n if n == rows => Ok(1),
            n => Err(Unsupported(format!(
                "a temporary of {n} elements in {rows} rows of {row_len}"
            ))),
        })
        .collect::<Plan<_>>()?;
    let mut stage_folds = vec![vec![]; program.stages.len()];
    for (s, stage) in program.stages.iter().enumerate() {
        if stage.prologue.iter().any(
            |i| matches!(i, Instr::Load { access, .. } if matches!(access.source, Source::Temp(_))),
        ) {
            unsupported!("a uniform load of a temporary");
        }
        for instr in &stage.body {
            match instr {
                Instr::Load { access, .. } => {
                    if let Source::Temp(t) = access.source {
                        let local = match (full[s], per_row[t] == row_len) {
                            (true, true) | (false, false) => identity(&stage.dims, access),
                            (true, false) => row_map(&stage.dims, access, row_len),
                            (false, true) => false,
                        };
                        if !local && stage.len > 0 {
                            unsupported!("temporary {t} is not read row by row");
                        }
                    }
                }
                Instr::Fold { acc, .. } => {
                    if !full[s] {
                        unsupported!("a fold over one element per row");
                    }
                    stage_folds[s].push(*acc);
                }
                Instr::Store {
                    dest: Dest::Temp(t),
                    ..
                } if (per_row[*t] == row_len) != full[s] && row_len != 1 => {
                    unsupported!("temporary {t} stored from a stage of another kind");
                }
                _ => {}
            }
        }
    }
    let full_stages: Vec<usize> = (0..full.len()).filter(|&s| full[s]).collect();
    let mut streams: Vec<(usize, Access)> = vec![];
    if let Some(&first) = full_stages.first() {
        for instr in &program.stages[first].body {
            if let Instr::Load { access, .. } = instr {
                let contiguous = access.strides.last() == Some(&1);
                let seen = streams.iter().any(|(_, a)| a.source == access.source);
                if matches!(access.source, Source::Arg(_)) && contiguous && !seen {
                    streams.push((first, access.clone()));
                }
            }
        }
    }
    let splats = program
        .stages
        .iter()
        .zip(&full)
        .map(|(stage, &full)| splat_loads(stage, full, row_len))
        .collect();
    let invariant = program
        .stages
        .iter()
        .zip(&full)
        .map(|(stage, &full)| row_invariant_iotas(stage, full, row_len))
        .collect();
    Ok(RowPlan {
        splats,
        invariant,
        prefetch_stage: full_stages.get(1).copied(),
        streams,
        program,
        folds,
        rows,
        row_len,
        width: block_width(row_len),
        full,
        stage_folds,
        per_row,
    })
}

/// Per body instruction of a stage: a load that reads one value per row (the row's max, the
/// log of its sum, its label) whose register only [`Body::TwoSplat`] bodies read before it
/// is loaded again. In a block within one row such a load writes one lane and marks the
/// register a splat (see [`Reg::splat`]) instead of filling every lane with the value.
fn splat_loads(stage: &Stage, full: bool, row_len: usize) -> Vec<bool> {
    let body = &stage.body;
    let only_splat_readers = |i: usize, r: usize| {
        let mut readers = 0;
        for instr in &body[i + 1..] {
            let (reads, writes) = match instr {
                Instr::Apply { body, inputs, dst } => {
                    let reads = inputs.contains(&r);
                    if reads && !matches!(body, Body::TwoSplat(_)) {
                        return false;
                    }
                    (reads, *dst == r)
                }
                Instr::Load { dst, .. } => (false, *dst == r),
                Instr::Fold { src, .. } | Instr::Store { src, .. } if *src == r => return false,
                Instr::Fold { .. } | Instr::Store { .. } => (false, false),
            };
            readers += usize::from(reads);
            if writes {
                break;
            }
        }
        readers > 0
    };
    body.iter()
        .enumerate()
        .map(|(i, instr)| match instr {
            Instr::Load { access, dst } => {
                let from_buffer = matches!(access.source, Source::Arg(_) | Source::Temp(_));
                full && from_buffer
                    && row_uniform(&stage.dims, access, row_len)
                    && only_splat_readers(i, *dst)
            }
            _ => false,
        })
        .collect()
}

/// Per body instruction of a stage: an iota load that reads the same numbers in every row
/// (it steps only along the row's own dimensions: a one-hot's class indices) into a register
/// no other instruction writes. A worker fills it once and keeps it for every block that
/// starts at the same place in a row with the same length (in a one-row block, every block).
fn row_invariant_iotas(stage: &Stage, full: bool, row_len: usize) -> Vec<bool> {
    let body = &stage.body;
    let writes = |r: usize| {
        body.iter()
            .filter(|i| match i {
                Instr::Load { dst, .. } | Instr::Apply { dst, .. } => *dst == r,
                _ => false,
            })
            .count()
    };
    body.iter()
        .map(|instr| match instr {
            Instr::Load { access, dst } => {
                full && access.source == Source::Iota
                    && row_local(&stage.dims, access, row_len)
                    && writes(*dst) == 1
            }
            _ => false,
        })
        .collect()
}

/// The stage's innermost dimensions make up the row, and the access steps along none of the
/// others: every row reads the same elements.
fn row_local(dims: &[usize], access: &Access, row_len: usize) -> bool {
    row_dims(dims, row_len).is_some_and(|k| {
        access.strides.len() == dims.len() && access.strides[..k].iter().all(|&s| s == 0)
    })
}

/// Where the row's dimensions start among the stage's `dims`: the `k` whose `dims[k..]`
/// multiply to `row_len`, if the innermost dimensions make up the row exactly.
fn row_dims(dims: &[usize], row_len: usize) -> Option<usize> {
    let mut inner = 1;
    let mut k = dims.len();
    while inner < row_len && k > 0 {
        k -= 1;
        inner *= dims[k];
    }
    (inner == row_len).then_some(k)
}

/// Every element of a row reads the same element of the source: the stage's innermost
/// dimensions make up the row, and the access does not step along them.
fn row_uniform(dims: &[usize], access: &Access, row_len: usize) -> bool {
    row_dims(dims, row_len).is_some_and(|k| {
        access.strides.len() == dims.len() && access.strides[k..].iter().all(|&s| s == 0)
    })
}

/// Element `p` of the stage reads element `p` of the source.
fn identity(dims: &[usize], access: &Access) -> bool {
    let dense = row_major_strides(&dims.iter().map(|&d| d as i64).collect::<Vec<_>>());
    access.offset == 0
        && access.strides.len() == dims.len()
        && dims
            .iter()
            .zip(access.strides.iter().zip(&dense))
            .all(|(&d, (&s, &want))| d == 1 || s == want)
}

/// Element `p` of the stage reads element `p / row_len` of the source (its row's value).
fn row_map(dims: &[usize], access: &Access, row_len: usize) -> bool {
    if access.offset != 0 || access.strides.len() != dims.len() {
        return false;
    }
    let Some(k) = row_dims(dims, row_len) else {
        return false;
    };
    let outer = Access {
        strides: access.strides[..k].to_vec(),
        ..access.clone()
    };
    access.strides[k..].iter().all(|&s| s == 0) && identity(&dims[..k], &outer)
}

/// Runs a row program on the kernel's operands.
pub fn run(plan: &RowPlan, args: &[&CpuBuffer]) -> Result<Vec<CpuBuffer>> {
    let into = vec![None; plan.program.result_types.len()];
    // SAFETY: no result is written over anything.
    let results = unsafe { run_into(plan, args, into) }?;
    results
        .into_iter()
        .map(|r| r.ok_or_else(|| CpuError::new("row program: a result was not written")))
        .collect()
}

/// [`run`], writing result `r` into the storage behind `into[r]` where one is given (an
/// operand's, for an in-place update); those results come back as `None`.
///
/// # Safety
/// Each `into[r]` must point to live storage of result `r`'s dtype and element count that
/// nothing else writes during the call, and that no operand aliases unless
/// [`super::in_place::row_in_place_candidates`] allows it.
unsafe fn run_into(
    plan: &RowPlan,
    args: &[&CpuBuffer],
    into: Vec<Option<SharedDest>>,
) -> Result<Vec<Option<CpuBuffer>>> {
    let program = &plan.program;
    exec::check_args(program, args)?;
    let mut outputs: Vec<Option<Storage>> = program
        .result_types
        .iter()
        .zip(&into)
        .map(|(t, into)| into.is_none().then(|| exec::output(t)))
        .collect();
    {
        let dests: Vec<SharedDest> = outputs
            .iter_mut()
            .zip(&program.result_types)
            .zip(into)
            .map(|((s, t), into)| match (s, into) {
                (_, Some(d)) => d,
                (Some(s), None) => SharedDest::new(s, t.dtype),
                (None, None) => unreachable!("an output is allocated when not given"),
            })
            .collect();
        let rows = plan.rows;
        let chunk = (CHUNK / plan.row_len.max(1)).max(1);
        let chunks = rows.div_ceil(chunk);
        let threads = rayon::current_num_threads();
        let work = rows * plan.row_len.max(1);
        let run_chunks = |first: usize, last: usize| {
            let mut w = Worker::new(plan, args, chunk);
            for c in first..last {
                w.chunk(c * chunk, ((c + 1) * chunk).min(rows), &dests);
            }
        };
        if work < PARALLEL_MIN || threads < 2 || chunks < 2 {
            run_chunks(0, chunks);
        } else {
            let tasks = (threads * 4).min(chunks);
            let per_task = chunks.div_ceil(tasks);
            (0..chunks.div_ceil(per_task))
                .into_par_iter()
                .for_each(|t| run_chunks(t * per_task, ((t + 1) * per_task).min(chunks)));
        }
    }
    outputs
        .into_iter()
        .zip(&program.result_types)
        .map(|(s, t)| {
            s.map(|s| {
                CpuBuffer::new(t.clone(), s).map_err(|e| CpuError::new(format!("row program: {e}")))
            })
            .transpose()
        })
        .collect()
}

/// One worker's registers, chunk-local temporaries and accumulators.
struct Worker<'a> {
    plan: &'a RowPlan,
    args: &'a [&'a CpuBuffer],
    env: Env<'a>,
    regs: Vec<Vec<Reg>>,
    temps: Vec<Storage>,
    accs: Vec<Reg>,
    /// Cache lines the next block prefetches (see [`Worker::queue_prefetch`]).
    lines: Vec<usize>,
    /// Per stage and body instruction: the (position in the row, length) of the block a
    /// row-invariant iota's register holds, if filled.
    filled: Vec<Vec<Option<(usize, usize)>>>,
}

impl<'a> Worker<'a> {
    fn new(plan: &'a RowPlan, args: &'a [&'a CpuBuffer], chunk: usize) -> Worker<'a> {
        let program = &plan.program;
        let env = Env::reading(program, args, &[]);
        let regs = program
            .stages
            .iter()
            .map(|stage| {
                let width = plan.width;
                let mut regs: Vec<Reg> = stage.regs.iter().map(|&l| Reg::new(l, width)).collect();
                for instr in &stage.prologue {
                    step(stage, &env, instr, &mut regs, 0, width);
                }
                regs
            })
            .collect();
        let temps = program
            .temp_types
            .iter()
            .zip(&plan.per_row)
            .map(|(t, &k)| Storage::zeros(t.dtype, chunk * k))
            .collect();
        let accs = plan
            .folds
            .iter()
            .map(|f| Reg::new(Lane::of(f.dtype), chunk))
            .collect();
        let filled = program
            .stages
            .iter()
            .map(|stage| vec![None; stage.body.len()])
            .collect();
        Worker {
            plan,
            args,
            env,
            regs,
            temps,
            accs,
            lines: vec![],
            filled,
        }
    }

    /// Runs every stage over rows `[r0, r1)`.
    fn chunk(&mut self, r0: usize, r1: usize, dests: &[SharedDest]) {
        let plan = self.plan;
        let program = &plan.program;
        let c = plan.row_len;
        let width = plan.width;
        let k = r1 - r0;
        for (f, spec) in plan.folds.iter().enumerate() {
            let source = match spec.init.source {
                Source::Arg(i) => self.args[i].storage(),
                Source::Const(i) => &program.constants[i],
                _ => unreachable!("init values are operands or constants"),
            };
            let uniform = Access {
                strides: vec![],
                ..spec.init.clone()
            };
            load(&[], &uniform, Some(source), 0, k, &mut self.accs[f]);
        }
        for (s, stage) in program.stages.iter().enumerate() {
            if plan.full[s] {
                let base = r0 * c;
                let prefetch = plan.prefetch_stage == Some(s);
                if c > 0 && c <= width {
                    let per_block = width / c;
                    let mut r = r0;
                    while r < r1 {
                        let m = per_block.min(r1 - r);
                        if prefetch {
                            self.queue_prefetch(r + k, m);
                        }
                        self.block(s, stage, r * c, m * c, base, r0, dests);
                        r += m;
                    }
                } else if c > width {
                    for r in r0..r1 {
                        if prefetch {
                            self.queue_prefetch(r + k, 1);
                        }
                        let mut off = 0;
                        while off < c {
                            let n = width.min(c - off);
                            self.block(s, stage, r * c + off, n, base, r0, dests);
                            off += n;
                        }
                    }
                }
                for &f in &plan.stage_folds[s] {
                    let spec = &plan.folds[f];
                    let temp = SharedDest::new(&mut self.temps[spec.temp], spec.dtype);
                    // SAFETY: the temporary is this worker's own, with room for a chunk.
                    unsafe { temp.store(&self.accs[f], 0, k) };
                }
            } else {
                let mut at = r0;
                while at < r1 {
                    let n = width.min(r1 - at);
                    self.block(s, stage, at, n, r0, r0, dests);
                    at += n;
                }
            }
        }
    }

    /// Queues the cache lines of rows `[r, r + m)` of the operands the first full stage
    /// streams (rows of the next chunk, which this worker runs next) for the next block to
    /// prefetch, a few lines per instruction: all at once, the prefetches would fill the
    /// core's miss queue and stall it instead of overlapping with the block's work.
    fn queue_prefetch(&mut self, r: usize, m: usize) {
        let plan = self.plan;
        self.lines.clear();
        let m = m.min(plan.rows.saturating_sub(r));
        for (s, access) in &plan.streams {
            if let (Source::Arg(i), true) = (access.source, m > 0) {
                let dims = &plan.program.stages[*s].dims;
                let c = plan.row_len;
                let source = self.args[i].storage();
                cache_lines(dims, access, source, r * c, m * c, &mut self.lines);
            }
        }
    }

    /// Runs stage `s`'s body on elements `[at, at + n)`; `base` is the stage position of the
    /// chunk's first element (where the chunk-local temporaries start), `r0` its first row.
    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        s: usize,
        stage: &Stage,
        at: usize,
        n: usize,
        base: usize,
        r0: usize,
        dests: &[SharedDest],
    ) {
        let program = &self.plan.program;
        let c = self.plan.row_len;
        let regs = &mut self.regs[s];
        let mut lines = std::mem::take(&mut self.lines);
        let per_instr = lines.len().div_ceil(stage.body.len().max(1));
        let mut queued = lines.iter().copied();
        let one_row = n > 0 && c > 0 && at / c == (at + n - 1) / c;
        for (i, instr) in stage.body.iter().enumerate() {
            queued.by_ref().take(per_instr).for_each(prefetch_line);
            match instr {
                Instr::Load { access, dst } => {
                    let (source, start) = match access.source {
                        Source::Temp(t) => (&self.temps[t], at - base),
                        Source::Arg(i) => (self.args[i].storage(), at),
                        Source::Iota if self.plan.invariant[s][i] && c > 0 => {
                            let key = Some((at % c, n));
                            if self.filled[s][i] != key {
                                step(stage, &self.env, instr, regs, at, n);
                                self.filled[s][i] = key;
                            }
                            continue;
                        }
                        _ => {
                            step(stage, &self.env, instr, regs, at, n);
                            continue;
                        }
                    };
                    let dst = &mut regs[*dst];
                    if one_row && self.plan.splats[s][i] {
                        load(&stage.dims, access, Some(source), start, 1, dst);
                        dst.splat();
                        continue;
                    }
                    // SAFETY: operands outlive the worker and are never written; a temporary
                    // is written only by the stage computing it, of a lower level than every
                    // stage reading it, so not while this stage reads this block.
                    if !unsafe { view(&stage.dims, access, source, start, n, dst) } {
                        load(&stage.dims, access, Some(source), start, n, dst);
                    }
                }
                Instr::Fold { src, acc, fold } => {
                    let acc = &mut self.accs[*acc];
                    if c <= self.plan.width {
                        let first = at / c - r0;
                        for j in 0..n / c {
                            (fold.0)(&regs[*src], j * c, c, acc, first + j);
                        }
                    } else {
                        (fold.0)(&regs[*src], 0, n, acc, at / c - r0);
                    }
                }
                Instr::Store { src, dest, .. } => match *dest {
                    // SAFETY: this worker owns rows [r0, r1) of every result.
                    Dest::Output(i) => unsafe { dests[i].store(&regs[*src], at, n) },
                    Dest::Temp(t) => {
                        let dtype = program.temp_types[t].dtype;
                        let temp = SharedDest::new(&mut self.temps[t], dtype);
                        // SAFETY: the temporary is this worker's own, sized for a chunk.
                        unsafe { temp.store(&regs[*src], at - base, n) };
                    }
                },
                Instr::Apply { .. } => step(stage, &self.env, instr, regs, at, n),
            }
        }
        lines.clear();
        self.lines = lines;
    }
}
