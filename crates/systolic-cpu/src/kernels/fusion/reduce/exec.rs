//! Running a [`ReducePlan`]: the producer's earlier stages as usual, then its last stage driven
//! row by row (rows mode) or slot block by slot block (slots mode), accumulating without ever
//! storing the reduce inputs; then the epilogue.

use super::plan::{Init, Mode, ReducePlan};
use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use crate::kernels::fusion::access::{load, SharedDest};
use crate::kernels::fusion::elementwise::Body;
use crate::kernels::fusion::exec::{self, step, Buffers, Env, BLOCK, PARALLEL_MIN};
use crate::kernels::fusion::program::{Access, Dest, Instr, LoopProgram, Source, Stage};
use crate::kernels::fusion::reg::{Lane, Reg};
use rayon::prelude::*;

/// Runs the plan on the kernel's operands.
pub fn run(plan: &ReducePlan, args: &[&CpuBuffer]) -> Result<Vec<CpuBuffer>> {
    exec::check_args(&plan.producer, args)?;
    // The producer's results are the reduce inputs, which the driver folds from registers:
    // only its temporaries need memory.
    let mut buffers = Buffers::temps_only(&plan.producer);
    let last = plan.producer.stages.len() - 1;
    for s in 0..last {
        exec::run_stage_at(&plan.producer, args, &mut buffers, s);
    }
    let inits: Vec<&Storage> = plan
        .inits
        .iter()
        .map(|i| match i {
            Init::Arg(k) => args[*k].storage(),
            Init::Const(s) => s,
        })
        .collect();
    for (k, s) in inits.iter().enumerate() {
        if s.len() != 1 {
            return Err(CpuError::new(format!(
                "reduce init value {k} has {} elements, expected 1",
                s.len()
            )));
        }
    }
    let mut results: Vec<Storage> = plan
        .reduce_types
        .iter()
        .map(|t| Storage::zeros(t.dtype, t.num_elements()))
        .collect();
    {
        let dests: Vec<SharedDest> = results
            .iter_mut()
            .zip(&plan.reduce_types)
            .map(|(s, t)| SharedDest::new(s, t.dtype))
            .collect();
        let env = Env::reading(&plan.producer, args, &buffers.temps);
        let stage = &plan.producer.stages[last];
        let binary = match &plan.mode {
            Mode::Slots(reducer) => BinaryReducer::of(reducer, plan.reduce_types.len()),
            Mode::Rows(_) => None,
        };
        let driver = Driver {
            plan,
            stage,
            env: &env,
            inits: &inits,
            dests: &dests,
            binary,
        };
        driver.run();
    }
    let reduced: Vec<CpuBuffer> = results
        .into_iter()
        .zip(&plan.reduce_types)
        .map(|(s, t)| CpuBuffer::new(t.clone(), s).map_err(|e| CpuError::new(e.to_string())))
        .collect::<Result<_>>()?;
    match &plan.epilogue {
        None => Ok(reduced),
        Some(epilogue) => {
            let mut all: Vec<&CpuBuffer> = args.to_vec();
            all.extend(reduced.iter());
            exec::run(epilogue, &all)
        }
    }
}

/// Rows longer than this many elements (64 blocks) are folded in segments of it, in
/// parallel (see [`Driver::segmented_rows`]): a constant, so the order of a row's fold depends
/// on its length only. 4 Mi elements make 128 tasks; a row of 70 000, three.
pub const SEGMENT: usize = 64 * BLOCK;

struct Driver<'a> {
    plan: &'a ReducePlan,
    stage: &'a Stage,
    env: &'a Env<'a>,
    inits: &'a [&'a Storage],
    dests: &'a [SharedDest],
    /// The slots mode's region when it is one binary op (recognised once per run).
    binary: Option<BinaryReducer>,
}

impl Driver<'_> {
    fn run(&self) {
        let kept = self.plan.kept;
        if kept == 0 {
            return;
        }
        if let Mode::Rows(fold) = self.plan.mode {
            if self.plan.reduced > SEGMENT {
                return self.segmented_rows(fold.0);
            }
        }
        let work = kept * self.plan.reduced.max(1);
        let threads = rayon::current_num_threads();
        let unit = match self.plan.mode {
            Mode::Rows(_) => 1,
            Mode::Slots(_) => BLOCK,
        };
        let units = kept.div_ceil(unit);
        if work < PARALLEL_MIN || threads < 2 || units < 2 {
            self.range(0, kept);
            return;
        }
        let tasks = (threads * 4).min(units);
        let per_task = units.div_ceil(tasks) * unit;
        (0..kept.div_ceil(per_task)).into_par_iter().for_each(|t| {
            let start = t * per_task;
            self.range(start, (start + per_task).min(kept));
        });
    }

    /// Computes results `[start, end)`.
    fn range(&self, start: usize, end: usize) {
        match &self.plan.mode {
            Mode::Rows(fold) => self.rows(fold.0, start, end),
            Mode::Slots(reducer) => {
                let mut at = start;
                while at < end {
                    let n = BLOCK.min(end - at);
                    self.slots(reducer, at, n);
                    at += n;
                }
            }
        }
    }

    fn new_regs(&self) -> Vec<Reg> {
        let mut regs: Vec<Reg> = self
            .stage
            .regs
            .iter()
            .map(|&l| Reg::new(l, BLOCK))
            .collect();
        for instr in &self.stage.prologue {
            step(self.stage, self.env, instr, &mut regs, 0, BLOCK);
        }
        regs
    }

    /// Runs the producer body on `[at, at + n)`, handing input `i` to `take(i, register)` as
    /// the body computes it.
    #[inline]
    fn produce(&self, regs: &mut [Reg], at: usize, n: usize, mut take: impl FnMut(usize, &Reg)) {
        for instr in &self.stage.body {
            match instr {
                Instr::Store {
                    src,
                    dest: Dest::Output(i),
                    ..
                } => take(*i, &regs[*src]),
                other => step(self.stage, self.env, other, regs, at, n),
            }
        }
    }

    fn rows(&self, fold: super::reducer::RowFold, start: usize, end: usize) {
        let reduced = self.plan.reduced;
        let lane = Lane::of(self.plan.reduce_types[0].dtype);
        let mut regs = self.new_regs();
        let mut acc = Reg::new(lane, end - start);
        fill(
            self.inits[0],
            self.plan.reduce_types[0].dtype,
            &mut acc,
            end - start,
        );
        for row in start..end {
            let mut r = 0;
            while r < reduced {
                let n = BLOCK.min(reduced - r);
                self.produce(&mut regs, row * reduced + r, n, |_, x| {
                    fold(x, 0, n, &mut acc, row - start)
                });
                r += n;
            }
        }
        // SAFETY: this worker owns results [start, end).
        unsafe { self.dests[0].store(&acc, start, end - start) };
    }

    /// Rows longer than [`SEGMENT`]: every row cut into segments of [`SEGMENT`] elements (the
    /// last one shorter), every segment of every row folded as a task of its own on the pool,
    /// then each row's segment partials folded in segment order into its init value. The order
    /// depends only on the row length, never on the threads: a sum to one value (a loss, a
    /// norm) runs on every core and gives the same bits on one core as on many.
    fn segmented_rows(&self, fold: super::reducer::RowFold) {
        let (kept, reduced) = (self.plan.kept, self.plan.reduced);
        let dtype = self.plan.reduce_types[0].dtype;
        let lane = Lane::of(dtype);
        let segments = reduced.div_ceil(SEGMENT);
        let items = kept * segments;
        // Segments `items` (row-major: row, then segment) in one task with one set of
        // registers. A segment of an L2-resident row takes a few µs, about what a task costs
        // the pool, so tasks take runs of segments (4 per thread, as the loop kernels split
        // work); how they are grouped does not change any segment's value.
        let run = |items: std::ops::Range<usize>| -> Vec<Reg> {
            let mut regs = self.new_regs();
            items
                .map(|item| self.segment(fold, &mut regs, item / segments, item % segments))
                .collect()
        };
        let threads = rayon::current_num_threads();
        let partials: Vec<Reg> = if threads < 2 {
            run(0..items)
        } else {
            let per_task = items.div_ceil((threads * 4).min(items));
            (0..items.div_ceil(per_task))
                .into_par_iter()
                .map(|t| run(t * per_task..((t + 1) * per_task).min(items)))
                .collect::<Vec<Vec<Reg>>>()
                .into_iter()
                .flatten()
                .collect()
        };
        let mut acc = Reg::new(lane, kept);
        fill(self.inits[0], dtype, &mut acc, kept);
        let mut row = Reg::new(lane, segments);
        for (r, parts) in partials.chunks(segments).enumerate() {
            for (s, p) in parts.iter().enumerate() {
                copy_lanes(p, 0, &mut row, s, 1);
            }
            fold(&row, 0, segments, &mut acc, r);
        }
        // SAFETY: the only writer: every result is stored here, after the parallel part.
        unsafe { self.dests[0].store(&acc, 0, kept) };
    }

    /// The fold of segment `segment` of row `row` (see [`Self::segmented_rows`]) in lane 0 of
    /// a one-lane register. A row fold has no identity to start from (the reducer's init value
    /// is folded in once, by the caller), so the segment starts from its first element.
    fn segment(
        &self,
        fold: super::reducer::RowFold,
        regs: &mut [Reg],
        row: usize,
        segment: usize,
    ) -> Reg {
        let reduced = self.plan.reduced;
        let mut acc = Reg::new(Lane::of(self.plan.reduce_types[0].dtype), 1);
        let (start, end) = (segment * SEGMENT, ((segment + 1) * SEGMENT).min(reduced));
        let mut r = start;
        while r < end {
            let n = BLOCK.min(end - r);
            self.produce(regs, row * reduced + r, n, |_, x| {
                if r == start {
                    copy_lanes(x, 0, &mut acc, 0, 1);
                    fold(x, 1, n - 1, &mut acc, 0)
                } else {
                    fold(x, 0, n, &mut acc, 0)
                }
            });
            r += n;
        }
        acc
    }

    fn slots(&self, reducer: &LoopProgram, at: usize, n: usize) {
        if let Some(op) = self.binary {
            return self.slots_binary(op, at, n);
        }
        let tree = self.tree();
        let windows = tree.top_windows();
        // One block holding every kept element (few channels, many positions: BatchNorm's
        // statistics) would run on one thread; its top-level windows are independent partial
        // folds, computed in parallel and then folded in order, which is the sequential fold's
        // order exactly.
        let alone = at == 0 && n == self.plan.kept;
        let parallel = alone
            && windows.len() > 1
            && rayon::current_num_threads() > 1
            && self.plan.kept * self.plan.reduced >= PARALLEL_MIN;
        let result = if parallel {
            let partials: Vec<Vec<Reg>> = windows
                .into_par_iter()
                .enumerate()
                .map(|(t, positions)| self.fold_slots(reducer, &tree, at, n, positions, t == 0))
                .collect();
            let mut region = RegionRunner::new(reducer, self.plan.reduce_types.len(), n);
            let mut partials = partials.into_iter();
            let mut acc = partials.next().unwrap_or_default();
            for p in partials {
                region.apply(&mut acc, &p);
            }
            acc
        } else {
            self.fold_slots(reducer, &tree, at, n, 0..self.plan.reduced, true)
        };
        for (k, acc) in result.iter().enumerate() {
            // SAFETY: this worker owns results [at, at + n).
            unsafe { self.dests[k].store(acc, at, n) };
        }
    }

    /// Folds reduced positions `positions` of slots `[at, at + n)` in the tree's order,
    /// returning the last level's accumulators; `first`: the range starts the reduction (its
    /// first position is folded into the init values).
    fn fold_slots(
        &self,
        reducer: &LoopProgram,
        tree: &TreeLevels,
        at: usize,
        n: usize,
        positions: std::ops::Range<usize>,
        first: bool,
    ) -> Vec<Reg> {
        let mut regs = self.new_regs();
        let lanes: Vec<Lane> = self
            .plan
            .reduce_types
            .iter()
            .map(|t| Lane::of(t.dtype))
            .collect();
        let mut inputs: Vec<Reg> = lanes.iter().map(|&l| Reg::new(l, BLOCK)).collect();
        let mut accs: Vec<Reg> = lanes.iter().map(|&l| Reg::new(l, BLOCK)).collect();
        for ((acc, init), ty) in accs.iter_mut().zip(self.inits).zip(&self.plan.reduce_types) {
            fill(init, ty.dtype, acc, n);
        }
        let region =
            std::cell::RefCell::new(RegionRunner::new(reducer, self.plan.reduce_types.len(), n));
        let mut levels = vec![accs; tree.levels()];
        let mut batch = RowBatch::new(self, at, n);
        tree.fold_range(
            &mut levels,
            positions,
            first,
            |r, acc, filled| {
                batch.row(self, &mut regs, r, |i, x, from| {
                    copy_at(x, from, &mut inputs[i], n)
                });
                if filled {
                    region.borrow_mut().apply(acc, &inputs);
                } else {
                    acc.iter_mut()
                        .zip(inputs.iter())
                        .for_each(|(a, x)| copy(x, a, n));
                }
            },
            |upper, lower, filled| {
                if filled {
                    region.borrow_mut().apply(upper, lower);
                } else {
                    upper.iter_mut().zip(lower).for_each(|(a, x)| copy(x, a, n));
                }
            },
        );
        levels.pop().unwrap_or_default()
    }

    /// The order of the slots folds: the interpreter's tree when the plan allows it, else one
    /// left fold.
    fn tree(&self) -> TreeLevels {
        if self.plan.tree {
            TreeLevels::new(self.plan.reduced)
        } else {
            TreeLevels::left_fold(self.plan.reduced)
        }
    }
}

impl Driver<'_> {
    /// [`Driver::slots`] for a one-result reduce whose region is one binary op (add, max, …):
    /// the op runs on the accumulator and the producer's register directly, without the
    /// general path's copies into and out of the region's registers (three per row).
    ///
    /// The reduced positions are combined in the interpreter's tree order (windows of
    /// [`WINDOW`], see [`TreeLevels`]), not one after another: a bf16 sum of 2048 terms rounded
    /// after every addition is off by tens of percent.
    fn slots_binary(&self, op: BinaryReducer, at: usize, n: usize) {
        let tree = self.tree();
        let windows = tree.top_windows();
        // As in `slots`: one block of every kept element (a complex sum to one value) folds
        // its top windows in parallel, then their partials in order — the sequential order.
        let parallel = at == 0
            && n == self.plan.kept
            && windows.len() > 1
            && rayon::current_num_threads() > 1
            && self.plan.kept * self.plan.reduced >= PARALLEL_MIN;
        let result = if parallel {
            let partials: Vec<Reg> = windows
                .into_par_iter()
                .enumerate()
                .map(|(t, positions)| self.fold_binary(op, &tree, at, n, positions, t == 0))
                .collect();
            let mut partials = partials.into_iter();
            let mut acc = partials.next().unwrap_or_else(|| Reg::new(Lane::Bool, 0));
            let mut next = Reg::new(Lane::of(self.plan.reduce_types[0].dtype), BLOCK);
            for p in partials {
                op.combine(&acc, &p, &mut next, n);
                std::mem::swap(&mut acc, &mut next);
            }
            acc
        } else {
            self.fold_binary(op, &tree, at, n, 0..self.plan.reduced, true)
        };
        // SAFETY: this worker owns results [at, at + n).
        unsafe { self.dests[0].store(&result, at, n) };
    }

    /// [`Driver::fold_slots`] for [`Driver::slots_binary`]: folds reduced positions
    /// `positions` of slots `[at, at + n)` in the tree's order and returns the last level's
    /// accumulator (`first`: the range starts the reduction and takes the init value).
    fn fold_binary(
        &self,
        op: BinaryReducer,
        tree: &TreeLevels,
        at: usize,
        n: usize,
        positions: std::ops::Range<usize>,
        first: bool,
    ) -> Reg {
        let ty = &self.plan.reduce_types[0];
        let lane = Lane::of(ty.dtype);
        let mut regs = self.new_regs();
        let mut init = Reg::new(lane, BLOCK);
        fill(self.inits[0], ty.dtype, &mut init, n);
        let mut levels = vec![init; tree.levels()];
        let next = std::cell::RefCell::new(Reg::new(lane, BLOCK));
        let combine = |acc: &Reg, x: &Reg, out: &mut Reg| op.combine(acc, x, out, n);
        let mut batch = RowBatch::new(self, at, n);
        let mut row = Reg::new(lane, BLOCK);
        tree.fold_range(
            &mut levels,
            positions,
            first,
            |r, acc, filled| {
                let mut next = next.borrow_mut();
                batch.row(self, &mut regs, r, |_, x, from| {
                    if filled {
                        if from == 0 {
                            combine(acc, x, &mut next)
                        } else {
                            copy_at(x, from, &mut row, n);
                            combine(acc, &row, &mut next)
                        }
                    } else {
                        copy_at(x, from, &mut next, n)
                    }
                });
                std::mem::swap(acc, &mut next);
            },
            |upper, lower, filled| {
                if filled {
                    let mut next = next.borrow_mut();
                    combine(upper, lower, &mut next);
                    std::mem::swap(upper, &mut next);
                } else {
                    copy(lower, upper, n);
                }
            },
        );
        levels.pop().unwrap_or_else(|| Reg::new(lane, 0))
    }
}

/// The shape of the tree a long reduction is folded in, the one the interpreter's
/// `stablehlo.reduce` uses (XLA:CPU's tree-reduction rewrite) for one reduced dimension: level 0
/// holds the `reduced` elements, cut into windows of [`WINDOW`] whose partials are the elements
/// of level 1, and so on until a level has at most [`WINDOW`] elements, which are folded
/// together. Each level's last window is short by a padding split before and after its
/// elements (the first window loses `pad`). Several reduced dimensions are folded as one
/// flattened dimension: the same accuracy, not the interpreter's window shapes.
struct TreeLevels {
    /// Positions folded.
    reduced: usize,
    /// Per windowed level: its length and the padding before its first element.
    lens: Vec<usize>,
    pads: Vec<usize>,
}

/// The window of XLA:CPU's tree reduction: the interpreter's, so both fold alike.
const WINDOW: usize = systolic_interp::ops::reduce::reduce::WINDOW as usize;

impl TreeLevels {
    fn new(reduced: usize) -> TreeLevels {
        let (mut lens, mut pads) = (Vec::new(), Vec::new());
        let mut len = reduced;
        while len > WINDOW {
            let windows = len.div_ceil(WINDOW);
            lens.push(len);
            pads.push((windows * WINDOW - len) / 2);
            len = windows;
        }
        TreeLevels {
            reduced,
            lens,
            pads,
        }
    }

    /// No windows: one left fold over the `reduced` positions.
    fn left_fold(reduced: usize) -> TreeLevels {
        TreeLevels {
            reduced,
            lens: vec![],
            pads: vec![],
        }
    }

    /// Accumulators needed: one per windowed level and one for the final fold.
    fn levels(&self) -> usize {
        self.pads.len() + 1
    }

    /// Folds positions `positions` (all of `0..reduced`, or one of [`Self::top_windows`],
    /// whose partial the last level's accumulator then holds) in the tree's order into
    /// `levels` (one accumulator per [`Self::levels`], all holding the init value):
    /// `input(r, acc, filled)` folds position `r` into level 0's accumulator,
    /// `carry(upper, lower, filled)` a closed window's partial into the level above; `filled`
    /// says whether the accumulator holds a value yet (else the folded value is copied in).
    /// Every level starts empty except level 0 when `first` (the range starts the reduction):
    /// the init value is folded in once, first, and the result is the last level's
    /// accumulator.
    fn fold_range<S>(
        &self,
        levels: &mut [S],
        positions: std::ops::Range<usize>,
        first: bool,
        mut input: impl FnMut(usize, &mut S, bool),
        mut carry: impl FnMut(&mut S, &S, bool),
    ) {
        let mut filled = vec![false; levels.len()];
        filled[0] = first;
        for r in positions {
            input(r, &mut levels[0], filled[0]);
            filled[0] = true;
            // Close every window that ends here, carrying its partial one level up.
            let (mut level, mut index) = (0, r);
            while let Some(parent) = self.closes(level, index) {
                let (lower, upper) = levels.split_at_mut(level + 1);
                carry(&mut upper[0], &lower[level], filled[level + 1]);
                filled[level + 1] = true;
                filled[level] = false;
                level += 1;
                index = parent;
            }
        }
    }

    /// The positions folded into each element of the last level (the final fold's inputs), in
    /// order: every window of every level lies inside one of them, so each is folded
    /// independently of the others. One range of everything when nothing is windowed.
    fn top_windows(&self) -> Vec<std::ops::Range<usize>> {
        let top = self.pads.len();
        let mut out = Vec::with_capacity(self.lens.last().map_or(1, |&l| l.div_ceil(WINDOW)));
        if top == 0 {
            out.push(0..self.reduced);
            return out;
        }
        let mut start = 0;
        for r in 0..self.reduced {
            let (mut level, mut index) = (0, r);
            while let Some(parent) = self.closes(level, index) {
                level += 1;
                index = parent;
                if level == top {
                    out.push(start..r + 1);
                    start = r + 1;
                    break;
                }
            }
        }
        out
    }

    /// When element `index` of windowed level `level` is the last of its window, the index
    /// of that window's partial in the level above.
    fn closes(&self, level: usize, index: usize) -> Option<usize> {
        let (&len, &pad) = (self.lens.get(level)?, self.pads.get(level)?);
        let padded = index + pad;
        (padded % WINDOW == WINDOW - 1 || index + 1 == len).then_some(padded / WINDOW)
    }
}

/// A reduce region that is one binary op of the accumulator and the input.
#[derive(Clone, Copy)]
struct BinaryReducer {
    f: crate::kernels::fusion::reg::Fn2,
    /// The accumulator is the op's first operand (region argument 0 is the accumulator).
    acc_first: bool,
}

impl BinaryReducer {
    /// `out = op(acc, x)` on `n` lanes, in the region's argument order.
    fn combine(&self, acc: &Reg, x: &Reg, out: &mut Reg, n: usize) {
        if self.acc_first {
            (self.f)(acc, x, out, n)
        } else {
            (self.f)(x, acc, out, n)
        }
    }

    /// The op of `reducer` when it is `return op(acc, x)` for a reduce of `results` results
    /// (one: a reduce of several results pairs them up in its region).
    fn of(reducer: &LoopProgram, results: usize) -> Option<BinaryReducer> {
        let stage = reducer.stages.first()?;
        if results != 1 || reducer.stages.len() != 1 || stage.prologue.len() != 2 {
            return None;
        }
        let arg_reg = |k: usize| {
            stage.prologue.iter().find_map(|i| match i {
                Instr::Load {
                    access:
                        Access {
                            source: Source::Arg(a),
                            ..
                        },
                    dst,
                } if *a == k => Some(*dst),
                _ => None,
            })
        };
        let (acc, x) = (arg_reg(0)?, arg_reg(1)?);
        match stage.body.as_slice() {
            [Instr::Apply {
                body: Body::Two(f) | Body::TwoSplat(f),
                inputs,
                dst,
            }, Instr::Store {
                src,
                dest: Dest::Output(0),
                ..
            }] if src == dst => match inputs.as_slice() {
                [a, b] if (*a, *b) == (acc, x) => Some(BinaryReducer {
                    f: *f,
                    acc_first: true,
                }),
                [a, b] if (*a, *b) == (x, acc) => Some(BinaryReducer {
                    f: *f,
                    acc_first: false,
                }),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A reduce region (several accumulators) compiled into a register program, run on blocks of
/// `n` slots: the region's rank-0 arguments, which the planner loads in the prologue, are
/// copied in from the accumulators and inputs at every application.
struct RegionRunner<'a> {
    stage: &'a Stage,
    env: Env<'a>,
    regs: Vec<Reg>,
    arg_loads: Vec<&'a Instr>,
    /// Accumulators (the region's first arguments; the inputs follow).
    count: usize,
    n: usize,
}

impl<'a> RegionRunner<'a> {
    fn new(reducer: &'a LoopProgram, count: usize, n: usize) -> RegionRunner<'a> {
        let stage = &reducer.stages[0];
        let env = Env::reading(reducer, &[], &[]);
        let mut regs: Vec<Reg> = stage.regs.iter().map(|&l| Reg::new(l, BLOCK)).collect();
        let is_arg = |i: &&Instr| {
            matches!(
                i,
                Instr::Load {
                    access: Access {
                        source: Source::Arg(_),
                        ..
                    },
                    ..
                }
            )
        };
        for instr in stage.prologue.iter().filter(|i| !is_arg(i)) {
            step(stage, &env, instr, &mut regs, 0, BLOCK);
        }
        let arg_loads = stage.prologue.iter().filter(is_arg).collect();
        RegionRunner {
            stage,
            env,
            regs,
            arg_loads,
            count,
            n,
        }
    }

    /// The region on accumulators `accs` and inputs `xs` (the producer's values, or a lower
    /// level's partials), its results written back into `accs`: every argument is loaded
    /// before the first store.
    fn apply(&mut self, accs: &mut [Reg], xs: &[Reg]) {
        let n = self.n;
        for instr in self.arg_loads.iter().copied().chain(&self.stage.body) {
            match instr {
                Instr::Load {
                    access:
                        Access {
                            source: Source::Arg(k),
                            ..
                        },
                    dst,
                } => {
                    let from = if *k < self.count {
                        &accs[*k]
                    } else {
                        &xs[*k - self.count]
                    };
                    copy(from, &mut self.regs[*dst], n);
                }
                Instr::Store {
                    src,
                    dest: Dest::Output(k),
                    ..
                } => copy(&self.regs[*src], &mut accs[*k], n),
                other => step(self.stage, &self.env, other, &mut self.regs, 0, n),
            }
        }
    }
}

/// The producer's values for one slot block, a reduced position (row) at a time. When the
/// block holds every kept element and rows are short (BatchNorm's per-channel sums: 32
/// channels, 32768 positions), consecutive rows are contiguous in the producer's index space,
/// so one producer run computes [`BLOCK`] / `kept` rows at once and each row is read from its
/// lanes: the producer's per-run cost (one pass over its instructions) is paid per 512 lanes
/// instead of per row. The rows are folded in the same order either way, so the results do
/// not change.
struct RowBatch {
    /// Lanes of one row (the slot block's width) and where the block starts.
    n: usize,
    at: usize,
    /// Rows per producer run (1: no batching).
    per_run: usize,
    /// The first row held, and how many are held.
    first: usize,
    held: usize,
    /// Per reduce input, the held rows' values (`per_run · n` lanes).
    values: Vec<Reg>,
}

impl RowBatch {
    fn new(driver: &Driver<'_>, at: usize, n: usize) -> RowBatch {
        let contiguous = at == 0 && n == driver.plan.kept;
        let per_run = if contiguous {
            (BLOCK / n.max(1)).max(1)
        } else {
            1
        };
        let values = if per_run > 1 {
            driver
                .plan
                .reduce_types
                .iter()
                .map(|t| Reg::new(Lane::of(t.dtype), BLOCK))
                .collect()
        } else {
            vec![]
        };
        RowBatch {
            n,
            at,
            per_run,
            first: 0,
            held: 0,
            values,
        }
    }

    /// Hands input `i`'s values for row `r` to `take(i, register, offset)`: the row's `n`
    /// lanes start at lane `offset` of the register.
    fn row(
        &mut self,
        driver: &Driver<'_>,
        regs: &mut [Reg],
        r: usize,
        mut take: impl FnMut(usize, &Reg, usize),
    ) {
        let (kept, n) = (driver.plan.kept, self.n);
        if self.per_run == 1 {
            driver.produce(regs, r * kept + self.at, n, |i, x| take(i, x, 0));
            return;
        }
        if r < self.first || r >= self.first + self.held {
            let rows = self.per_run.min(driver.plan.reduced - r);
            let values = &mut self.values;
            driver.produce(regs, r * kept, rows * n, |i, x| {
                copy(x, &mut values[i], rows * n)
            });
            self.first = r;
            self.held = rows;
        }
        let from = (r - self.first) * n;
        for (i, v) in self.values.iter().enumerate() {
            take(i, v, from);
        }
    }
}

/// Fills `n` lanes with the value of a one-element buffer of dtype `dtype`.
fn fill(value: &Storage, dtype: systolic_ir::DType, reg: &mut Reg, n: usize) {
    let access = Access {
        source: Source::Const(0),
        dtype,
        offset: 0,
        strides: vec![],
    };
    load(&[], &access, Some(value), 0, n, reg);
}

/// Copies lanes `from..from + n` of `src` into lanes `at..at + n` of `to` (same lane type).
fn copy_lanes(src: &Reg, from: usize, to: &mut Reg, at: usize, n: usize) {
    macro_rules! lanes {
        ($($v:ident),*) => {
            match (src, to) {
                $((Reg::$v(a), Reg::$v(b)) => b[at..at + n].copy_from_slice(&a[from..from + n]),)*
                _ => panic!("fusion planner bug: copying between registers of different lanes"),
            }
        };
    }
    lanes!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C64, C128)
}

/// Copies lanes `from..from + n` of `src` into the first `n` lanes of `to`.
fn copy_at(src: &Reg, from: usize, to: &mut Reg, n: usize) {
    copy_lanes(src, from, to, 0, n)
}

/// Copies the first `n` lanes between registers of the same lane.
fn copy(from: &Reg, to: &mut Reg, n: usize) {
    copy_lanes(from, 0, to, 0, n)
}
