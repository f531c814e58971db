//! The program as a sequence of kernels: walks a function in program order and costs every op
//! that launches a kernel, following calls into their callees, loops for their trip counts and
//! conditionals into their costliest branch. A `systolic.fusion` op (from the compiler's fusion
//! pass) is one kernel: the work of every op inside it, the HBM traffic of its operands and
//! results only; any other op is a kernel of its own.
//!
//! Step time on one chip is the sum over this schedule: kernels run one after another on a
//! TensorCore. Collectives take no time on one chip; the walk records them, in program order
//! between the kernels, in the schedule's [`Step`] timeline, which [`crate::spmd`] replays on
//! every chip of a slice with the collectives costed on the slice's interconnect.

use crate::chips::ChipSpec;
use crate::collective_cost::CollectiveKind;
use crate::cost::{kernel_cost, KernelCost, ModelParams};
use crate::error::TpuError;
use crate::layout::dense_bytes;
use crate::work::{is_free, op_work, standalone_traffic, tensor_of, values_bytes, Work};
use std::collections::{BTreeSet, HashMap};
use systolic_ir::walk::walk_ops;
use systolic_ir::{
    Block, ChannelHandle, CollectiveAttrs, ComparisonDirection, Func, Module, Op, OpKind, Scalar,
    ValueId,
};

/// The op name the compiler's fusion pass gives its fused kernels.
pub const FUSION_OP_NAME: &str = "systolic.fusion";

/// Stack left when a call grows the stack (`stacker`): enough to walk one function's ops to
/// the next call.
const STACK_RED_ZONE: usize = 256 << 10;
/// Stack added each time: a chain of thousands of calls is walked without overflowing the
/// thread's stack, however small it is.
const STACK_GROWTH: usize = 4 << 20;

/// The most ops the schedule walks with calls expanded at each call site: calls that repeat
/// their callees (each function calling the next twice) multiply the walk, and past this the
/// program is refused rather than walked for hours.
const MAX_WALKED_OPS: u64 = 1 << 22;

/// The kernels of a function and what the model had to assume on the way.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// Kernels in program order.
    pub kernels: Vec<KernelCost>,
    /// The program as one chip runs it: compute between collectives, in program order.
    pub timeline: Vec<Step>,
    /// Assumptions the model made (unknown trip counts, ops it does not time, missing figures).
    pub assumptions: BTreeSet<String>,
}

/// One step of a chip's timeline.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Kernels run back to back, taking this many seconds in all.
    Compute(f64),
    /// A collective op (its time depends on the slice, so it is not known here).
    Collective(CollectiveSite),
    /// A counted loop (or one costed as a single trip) whose body holds collectives: `body`
    /// runs `trips` times. Loops without collectives are folded into [`Step::Compute`].
    Loop {
        /// Iterations.
        trips: u64,
        /// One iteration.
        body: Vec<Step>,
    },
}

/// How a collective names the processes it involves (formed into groups by
/// `systolic_ir::collective_groups` once the process grid is known).
#[derive(Clone, Debug, PartialEq)]
pub enum SiteGroups {
    /// `replica_groups`, `channel_handle`, `use_global_device_ids`.
    Groups {
        /// The op's attributes.
        attrs: CollectiveAttrs,
        /// True for all_gather, all_reduce and reduce_scatter (see
        /// `systolic_ir::collective_groups::partitions_join`).
        partitions_join: bool,
    },
    /// collective_permute's `source_target_pairs` and channel.
    Pairs {
        /// (source, target) ids: partitions with a positive channel, else replicas.
        pairs: Vec<(i64, i64)>,
        /// The channel, if any.
        channel_handle: Option<ChannelHandle>,
    },
}

/// A collective op where the program runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveSite {
    /// `%name` of its first result (with the loop/call path, as kernels are named).
    pub name: String,
    /// `file:line:col`.
    pub place: String,
    /// The op.
    pub kind: CollectiveKind,
    /// Which processes take part.
    pub groups: SiteGroups,
    /// Dense bytes of the operands one device sends (a dynamic-root broadcast's roots operand
    /// excluded).
    pub operand_bytes: u64,
    /// Dense bytes of the results on one device.
    pub result_bytes: u64,
    /// How many times it runs (loop trip counts).
    pub count: f64,
}

impl Step {
    /// Every collective site in `steps`, in program order (loop bodies once).
    pub fn sites(steps: &[Step]) -> Vec<&CollectiveSite> {
        let mut out = vec![];
        for s in steps {
            match s {
                Step::Compute(_) => {}
                Step::Collective(c) => out.push(c),
                Step::Loop { body, .. } => out.extend(Step::sites(body)),
            }
        }
        out
    }

    /// Seconds of compute in `steps`, loops times their trips.
    pub fn compute_s(steps: &[Step]) -> f64 {
        steps
            .iter()
            .map(|s| match s {
                Step::Compute(t) => *t,
                Step::Collective(_) => 0.0,
                Step::Loop { trips, body } => *trips as f64 * Step::compute_s(body),
            })
            .sum()
    }
}

/// Appends compute to a timeline, merging it with compute just before.
fn push_compute(steps: &mut Vec<Step>, seconds: f64) {
    match steps.last_mut() {
        Some(Step::Compute(t)) => *t += seconds,
        _ => steps.push(Step::Compute(seconds)),
    }
}

/// The kind of a StableHLO collective op, if it is one.
fn collective_kind(kind: &OpKind) -> Option<CollectiveKind> {
    Some(match kind {
        OpKind::AllGather { .. } => CollectiveKind::AllGather,
        OpKind::AllReduce { .. } => CollectiveKind::AllReduce,
        OpKind::ReduceScatter { .. } => CollectiveKind::ReduceScatter,
        OpKind::AllToAll { .. } => CollectiveKind::AllToAll,
        OpKind::CollectivePermute { .. } => CollectiveKind::CollectivePermute,
        OpKind::CollectiveBroadcast { .. } => CollectiveKind::CollectiveBroadcast,
        OpKind::CollectiveReduce { .. } => CollectiveKind::CollectiveReduce,
        _ => return None,
    })
}

/// Builds the schedule of `func` (a function of `module`) on `chip`.
pub fn schedule_function(
    module: &Module,
    func: &Func,
    chip: &ChipSpec,
    params: &ModelParams,
) -> Result<Schedule, TpuError> {
    let mut walker = Walker {
        module,
        chip,
        params,
        source: module
            .source_name
            .clone()
            .unwrap_or_else(|| "<module>".into()),
        schedule: Schedule::default(),
        frames: vec![vec![]],
        calls: vec![func.name.as_str()],
        walked: 0,
    };
    if let Some(block) = func.body.entry() {
        walker.walk_block(func, block, 1.0, "")?;
    }
    walker.schedule.timeline = walker.frames.pop().unwrap_or_default();
    if chip.vpu_ops_per_s().is_none() {
        walker.schedule.assumptions.insert(format!(
            "{}: the VPU rate is not published, so VPU time is left out",
            chip.name
        ));
    }
    if chip.total_mxus().is_none() || chip.effective_clock_hz().is_none() {
        walker.schedule.assumptions.insert(format!(
            "{}: the MXU count or clock is not published, so MXU time is padded FLOPs at the peak rate (no fill/drain)",
            chip.name
        ));
    }
    if chip.vmem_bytes_per_core.value.is_none() {
        walker.schedule.assumptions.insert(format!(
            "{}: VMEM size is not published, so products read their operands once",
            chip.name
        ));
    }
    Ok(walker.schedule)
}

struct Walker<'a> {
    module: &'a Module,
    chip: &'a ChipSpec,
    params: &'a ModelParams,
    source: String,
    schedule: Schedule,
    /// The timeline being built: the function's, then one per loop body or branch entered.
    frames: Vec<Vec<Step>>,
    /// The functions being walked, outermost first: a call to one of them is recursion.
    calls: Vec<&'a str>,
    /// Ops walked so far, every call site's callee counted again ([`MAX_WALKED_OPS`]).
    walked: u64,
}

/// `%name` of an op's first result, or the op name when it has none.
fn result_name(func: &Func, op: &Op) -> String {
    match op.results.first() {
        Some(&v) => match func.values.get(v.index()).and_then(|d| d.name.as_deref()) {
            Some(n) => format!("%{n}"),
            None => format!("%{}", v.0),
        },
        None => op.kind.name(),
    }
}

impl Walker<'_> {
    fn place(&self, op: &Op) -> String {
        match op.span {
            Some(s) => format!("{}:{s}", self.source),
            None => self.source.clone(),
        }
    }

    /// Adds a costed kernel: its time once on the compute timeline (the timeline counts one
    /// iteration of the innermost loop) and the kernel to the schedule.
    fn push_kernel(&mut self, k: KernelCost) {
        let once = if k.count > 0.0 {
            k.time_s / k.count
        } else {
            0.0
        };
        push_compute(self.frame(), once);
        self.schedule.kernels.push(k);
    }

    fn push(
        &mut self,
        name: String,
        kind: String,
        work: &Work,
        traffic: u64,
        count: f64,
    ) -> Result<(), TpuError> {
        let k = kernel_cost(self.chip, self.params, name, kind, work, traffic, count)?;
        self.push_kernel(k);
        Ok(())
    }

    fn frame(&mut self) -> &mut Vec<Step> {
        self.frames.last_mut().expect("the function's frame")
    }

    /// Records a collective in the timeline.
    fn push_collective(
        &mut self,
        func: &Func,
        op: &Op,
        kind: CollectiveKind,
        name: String,
        count: f64,
    ) {
        let groups = match &op.kind {
            OpKind::CollectivePermute {
                source_target_pairs,
                channel_handle,
            } => SiteGroups::Pairs {
                pairs: source_target_pairs.clone(),
                channel_handle: *channel_handle,
            },
            OpKind::AllGather { collective, .. }
            | OpKind::AllReduce { collective }
            | OpKind::ReduceScatter { collective, .. }
            | OpKind::AllToAll { collective, .. }
            | OpKind::CollectiveBroadcast { collective }
            | OpKind::CollectiveReduce { collective } => SiteGroups::Groups {
                attrs: collective.clone(),
                partitions_join: systolic_ir::collective_groups::partitions_join(&op.kind),
            },
            _ => unreachable!("collective_kind accepted {}", op.kind.name()),
        };
        let sent = match &op.kind {
            OpKind::CollectiveBroadcast { collective }
            | OpKind::CollectiveReduce { collective }
                if collective.has_dynamic_root =>
            {
                &op.operands[..op.operands.len().saturating_sub(1)]
            }
            _ => &op.operands[..],
        };
        let dense = |vs: &[ValueId]| -> u64 {
            vs.iter()
                .filter_map(|&v| tensor_of(func, v))
                .map(dense_bytes)
                .sum()
        };
        let site = CollectiveSite {
            name,
            place: self.place(op),
            kind,
            groups,
            operand_bytes: dense(sent),
            result_bytes: dense(&op.results),
            count,
        };
        self.frame().push(Step::Collective(site));
    }

    fn walk_block(
        &mut self,
        func: &Func,
        block: &Block,
        count: f64,
        prefix: &str,
    ) -> Result<(), TpuError> {
        for op in &block.ops {
            self.walked += 1;
            if self.walked > MAX_WALKED_OPS {
                return Err(TpuError::Unsupported {
                    op: op.kind.name(),
                    place: self.place(op),
                    message: format!(
                        "the program has more than {MAX_WALKED_OPS} ops with its calls \
                         expanded (calls repeat their callees); inline first (without \
                         --no-compile) to have the compiler refuse or reduce it"
                    ),
                });
            }
            if is_free(func, op) {
                continue;
            }
            let name = format!("{prefix}{}", result_name(func, op));
            match &op.kind {
                OpKind::Call { callee } => self.walk_call(callee, op, count, &name)?,
                OpKind::Composite { decomposition, .. } => {
                    self.walk_call(decomposition, op, count, &name)?
                }
                OpKind::While => {
                    let trips = match trip_count(func, op) {
                        Some(t) => t as f64,
                        None => {
                            self.schedule.assumptions.insert(format!(
                                "{}: stablehlo.while with a trip count the model cannot read; costed as one iteration",
                                self.place(op)
                            ));
                            1.0
                        }
                    };
                    self.walk_loop(func, op, count, trips, &name)?;
                }
                OpKind::Scan {
                    dimension,
                    scan_dim_size,
                    ..
                } => {
                    // The body once per position along the scanned dimension (XLA lowers a
                    // scan to a loop; an associative body could be a parallel scan, which
                    // costs more work in fewer steps).
                    let length = scan_dim_size.or_else(|| {
                        let first = op.operands.first()?;
                        let t = func.value_type(*first).as_tensor()?;
                        t.shape.get(usize::try_from(*dimension).ok()?).copied()
                    });
                    let trips = length.unwrap_or(1).max(0) as f64;
                    self.walk_loop(func, op, count, trips, &name)?;
                }
                OpKind::If | OpKind::Case => self.walk_costliest_branch(func, op, count, &name)?,
                OpKind::Fusion {
                    kind,
                    name: fusion_name,
                } => {
                    // The fused ops themselves; their own regions (reducer bodies) are part of
                    // their per-element work, not ops of the kernel.
                    let mut work = Work::default();
                    for inner in op
                        .regions
                        .iter()
                        .flat_map(|r| &r.blocks)
                        .flat_map(|b| &b.ops)
                    {
                        if !is_free(func, inner) {
                            work.add(op_work(func, inner));
                        }
                    }
                    let traffic =
                        values_bytes(func, &op.operands) + values_bytes(func, &op.results);
                    let kind = format!("{FUSION_OP_NAME}({})", kind.keyword());
                    self.push(
                        format!("{prefix}{fusion_name}"),
                        kind,
                        &work,
                        traffic,
                        count,
                    )?;
                }
                OpKind::AllGather { .. }
                | OpKind::AllReduce { .. }
                | OpKind::ReduceScatter { .. }
                | OpKind::AllToAll { .. }
                | OpKind::CollectivePermute { .. }
                | OpKind::CollectiveBroadcast { .. }
                | OpKind::CollectiveReduce { .. } => {
                    let kind = collective_kind(&op.kind).expect("a collective");
                    self.push_collective(func, op, kind, name, count);
                }
                OpKind::Send { .. }
                | OpKind::Recv { .. }
                | OpKind::Infeed { .. }
                | OpKind::Outfeed { .. } => {
                    self.schedule.assumptions.insert(format!(
                        "{}: {} is not timed (host transfers and send/recv are not modelled)",
                        self.place(op),
                        op.kind.name()
                    ));
                }
                OpKind::CustomCall { .. }
                    if systolic_ir::host_callback::is_host_callback(&op.kind) =>
                {
                    let bytes = values_bytes(func, &op.operands);
                    let k = crate::cost::host_callback_cost(
                        self.chip,
                        self.params,
                        name,
                        bytes,
                        count,
                    )?;
                    self.push_kernel(k);
                }
                OpKind::CustomCall {
                    call_target_name, ..
                } if !systolic_ir::lapack::LapackCall::is_lapack_target(call_target_name) => {
                    self.schedule.assumptions.insert(format!(
                        "{}: custom_call @{call_target_name} is costed as its memory traffic only",
                        self.place(op)
                    ));
                    let traffic = standalone_traffic(func, op);
                    self.push(name, op.kind.name(), &Work::default(), traffic, count)?;
                }
                _ => {
                    let work = op_work(func, op);
                    let traffic = standalone_traffic(func, op);
                    self.push(name, op.kind.name(), &work, traffic, count)?;
                }
            }
        }
        Ok(())
    }

    fn walk_call(&mut self, callee: &str, op: &Op, count: f64, name: &str) -> Result<(), TpuError> {
        let Some(f) = self.module.func(callee) else {
            return Err(TpuError::Unsupported {
                op: op.kind.name(),
                place: self.place(op),
                message: format!("calls @{callee}, which the module does not define"),
            });
        };
        // Recursion cannot be scheduled (StableHLO forbids it; XLA refuses it): name the
        // cycle. Any acyclic chain is walked, however deep.
        if let Some(first) = self.calls.iter().position(|&c| c == callee) {
            let mut cycle: Vec<String> = self.calls[first..]
                .iter()
                .map(|c| format!("@{c}"))
                .collect();
            cycle.push(format!("@{callee}"));
            return Err(TpuError::Unsupported {
                op: op.kind.name(),
                place: self.place(op),
                message: format!(
                    "recursion: {} (functions cannot call themselves)",
                    cycle.join(" → ")
                ),
            });
        }
        self.calls.push(f.name.as_str());
        let path = crate::call_path::enter(name, &format!("/@{callee}/"));
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || match f.body.entry() {
            Some(b) => self.walk_block(f, b, count, &path),
            None => Ok(()),
        });
        self.calls.pop();
        result
    }

    /// Costs every branch and keeps the costliest (the model does not know which runs).
    /// The regions of a loop `op` run `trips` times: its compute folded into the frame, or a
    /// `Loop` step when the body holds collectives.
    fn walk_loop(
        &mut self,
        func: &Func,
        op: &Op,
        count: f64,
        trips: f64,
        name: &str,
    ) -> Result<(), TpuError> {
        self.frames.push(vec![]);
        for region in &op.regions {
            if let Some(b) = region.entry() {
                self.walk_block(func, b, count * trips, &format!("{name}/"))?;
            }
        }
        let body = self.frames.pop().unwrap_or_default();
        if Step::sites(&body).is_empty() {
            push_compute(self.frame(), Step::compute_s(&body) * trips);
        } else {
            self.frame().push(Step::Loop {
                trips: trips as u64,
                body,
            });
        }
        Ok(())
    }

    fn walk_costliest_branch(
        &mut self,
        func: &Func,
        op: &Op,
        count: f64,
        name: &str,
    ) -> Result<(), TpuError> {
        let mut best: Option<(Vec<KernelCost>, Vec<Step>)> = None;
        for (i, region) in op.regions.iter().enumerate() {
            let Some(b) = region.entry() else { continue };
            let before = self.schedule.kernels.len();
            self.frames.push(vec![]);
            self.walk_block(func, b, count, &format!("{name}/branch{i}/"))?;
            let steps = self.frames.pop().unwrap_or_default();
            let branch: Vec<KernelCost> = self.schedule.kernels.drain(before..).collect();
            let time = |ks: &[KernelCost]| ks.iter().map(|k| k.time_s).sum::<f64>();
            if best.as_ref().is_none_or(|(b, _)| time(&branch) > time(b)) {
                best = Some((branch, steps));
            }
        }
        if op.regions.len() > 1 {
            self.schedule.assumptions.insert(format!(
                "{}: {} is costed as its costliest branch",
                self.place(op),
                op.kind.name()
            ));
        }
        let (kernels, steps) = best.unwrap_or_default();
        self.schedule.kernels.extend(kernels);
        for step in steps {
            match step {
                Step::Compute(t) => push_compute(self.frame(), t),
                other => self.frame().push(other),
            }
        }
        Ok(())
    }
}

/// Integer scalar constants of a function, by value.
fn scalar_constants(func: &Func) -> HashMap<ValueId, i64> {
    let mut map = HashMap::new();
    walk_ops(&func.body, &mut |op, _| {
        if let (OpKind::Constant(t), Some(&r)) = (&op.kind, op.results.first()) {
            if t.num_elements() == 1 {
                match t.get(0) {
                    Scalar::Int(i) => {
                        map.insert(r, i);
                    }
                    Scalar::UInt(u) => {
                        if let Ok(i) = i64::try_from(u) {
                            map.insert(r, i);
                        }
                    }
                    _ => {}
                }
            }
        }
    });
    map
}

/// The trip count of a counted `stablehlo.while` (the form `fori_loop` and `scan` lower to):
/// the condition compares a loop-carried counter with a constant bound, the counter starts at
/// a constant, and the body adds a constant step to it.
pub fn trip_count(func: &Func, op: &Op) -> Option<u64> {
    let constants = scalar_constants(func);
    let cond = op.regions.first()?.entry()?;
    let body = op.regions.get(1)?.entry()?;
    let ret = cond.ops.last()?;
    let pred = *ret.operands.first()?;
    let cmp = cond.ops.iter().find(|o| o.results.first() == Some(&pred))?;
    let OpKind::Compare { direction, .. } = cmp.kind else {
        return None;
    };
    let (a, b) = (*cmp.operands.first()?, *cmp.operands.get(1)?);
    // counter < bound, or bound > counter.
    let (counter, bound) = match direction {
        ComparisonDirection::Lt | ComparisonDirection::Le => (a, b),
        ComparisonDirection::Gt | ComparisonDirection::Ge => (b, a),
        _ => return None,
    };
    let inclusive = matches!(direction, ComparisonDirection::Le | ComparisonDirection::Ge);
    let index = cond.args.iter().position(|&v| v == counter)?;
    let limit = *constants.get(&bound)?;
    let init = *constants.get(op.operands.get(index)?)?;
    // The body's update of the counter: return operand `index` = add(counter, step).
    let body_counter = *body.args.get(index)?;
    let next = *body.ops.last()?.operands.get(index)?;
    let add = body.ops.iter().find(|o| o.results.first() == Some(&next))?;
    let step = match (&add.kind, add.operands.as_slice()) {
        (OpKind::Binary(systolic_ir::BinaryOp::Add), [x, y]) if *x == body_counter => {
            *constants.get(y)?
        }
        (OpKind::Binary(systolic_ir::BinaryOp::Add), [x, y]) if *y == body_counter => {
            *constants.get(x)?
        }
        _ => return None,
    };
    if step <= 0 {
        return None;
    }
    let span = limit - init + i64::from(inclusive);
    Some(if span <= 0 {
        0
    } else {
        (span as u64).div_ceil(step as u64)
    })
}
