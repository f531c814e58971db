//! Programs and the executor: a straight list of steps over numbered value slots.
//!
//! A [`Program`] is what one function body or one region lowers to. Each [`Step`] runs one
//! kernel on some slots and writes others. Lowering records, for every operand, whether this
//! step is the value's last use: the executor then moves the value into the kernel
//! ([`Arg::Owned`]) so it can be updated in place, and drops every other value right after its
//! last use, so memory follows the live set rather than the whole program.
//!
//! Slots hold [`ValueArg`]s: values the program owns, or borrowed ones (the caller's arguments
//! of a borrowing run, the program's own constants, a loop's captured values), which are never
//! moved into kernels.

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::schedule::{schedule, Schedule, StepInfo};
use std::fmt;
use systolic_ir::{Span, Type};

/// A value at run time: a tensor buffer, a tuple or a token.
#[derive(Clone, Debug, PartialEq)]
pub enum RtValue {
    /// A tensor.
    Buffer(CpuBuffer),
    /// A tuple of values.
    Tuple(Vec<RtValue>),
    /// A token (no data: it only orders side effects).
    Token,
}

impl RtValue {
    /// The value's type.
    pub fn ty(&self) -> Type {
        match self {
            RtValue::Buffer(b) => Type::Tensor(b.ty().clone()),
            RtValue::Tuple(vs) => Type::Tuple(vs.iter().map(RtValue::ty).collect()),
            RtValue::Token => Type::Token,
        }
    }

    /// True when the value has type `ty` (compares without building the type for buffers).
    pub fn has_type(&self, ty: &Type) -> bool {
        match (self, ty) {
            (RtValue::Buffer(b), Type::Tensor(t)) => b.has_type(t),
            (RtValue::Tuple(vs), Type::Tuple(ts)) => {
                vs.len() == ts.len() && vs.iter().zip(ts).all(|(v, t)| v.has_type(t))
            }
            (RtValue::Token, Type::Token) => true,
            _ => false,
        }
    }
}

/// An operand handed to a step: owned (its last use) or borrowed.
#[derive(Debug)]
pub enum ValueArg<'a> {
    /// The value dies here: the kernel may reuse it.
    Owned(RtValue),
    /// A value that lives on, read only.
    Value(&'a RtValue),
    /// A buffer that lives on (a caller's argument), read only.
    Buffer(&'a CpuBuffer),
}

impl ValueArg<'_> {
    /// A read-only view of this argument.
    pub fn reborrow(&self) -> ValueArg<'_> {
        match self {
            ValueArg::Owned(v) => ValueArg::Value(v),
            ValueArg::Value(v) => ValueArg::Value(v),
            ValueArg::Buffer(b) => ValueArg::Buffer(b),
        }
    }

    /// The value by value: moved when owned, copied when borrowed.
    pub fn into_owned(self) -> RtValue {
        match self {
            ValueArg::Owned(v) => v,
            ValueArg::Value(v) => v.clone(),
            ValueArg::Buffer(b) => RtValue::Buffer(b.clone()),
        }
    }

    /// The tensor buffer, read only, if this is a tensor.
    pub fn buffer(&self) -> Option<&CpuBuffer> {
        match self {
            ValueArg::Owned(RtValue::Buffer(b)) | ValueArg::Value(RtValue::Buffer(b)) => Some(b),
            ValueArg::Buffer(b) => Some(b),
            _ => None,
        }
    }

    /// The value's type.
    pub fn ty(&self) -> Type {
        match self {
            ValueArg::Owned(v) => v.ty(),
            ValueArg::Value(v) => v.ty(),
            ValueArg::Buffer(b) => Type::Tensor(b.ty().clone()),
        }
    }
}

impl<'a> ValueArg<'a> {
    /// The kernel operand for a tensor value; an error for tuples and tokens.
    pub fn into_kernel_arg(self) -> Result<Arg<'a>> {
        match self {
            ValueArg::Owned(RtValue::Buffer(b)) => Ok(Arg::Owned(b)),
            ValueArg::Value(RtValue::Buffer(b)) => Ok(Arg::Borrowed(b)),
            ValueArg::Buffer(b) => Ok(Arg::Borrowed(b)),
            other => Err(CpuError::new(format!(
                "a tensor operand was expected, got {}",
                other.ty()
            ))),
        }
    }
}

/// A compiled op that works on whole values (tuples, tokens, nested programs): control flow,
/// tuples, the interpreter fallback.
pub trait ValueKernel: Send + Sync + fmt::Debug {
    /// A short description for logs and profiles.
    fn name(&self) -> String;

    /// Runs on the operands and returns the results in the op's order.
    fn run(&self, args: Vec<ValueArg<'_>>) -> Result<Vec<RtValue>>;
}

/// What a step runs.
#[derive(Debug)]
pub enum Exec {
    /// A tensor kernel.
    Kernel(Box<dyn Kernel>),
    /// A kernel on whole values.
    Value(Box<dyn ValueKernel>),
    /// A constant: its one result borrows this value from the program (no copy per run).
    Constant(RtValue),
}

/// One step: a kernel, the slots it reads and the slots it writes.
#[derive(Debug)]
pub struct Step {
    /// What runs.
    pub exec: Exec,
    /// Slots read, in operand order.
    pub operands: Vec<usize>,
    /// Slots written, in result order.
    pub results: Vec<usize>,
    /// The declared result types (checked after every step: a kernel bug is an error, not a
    /// wrong answer).
    pub result_types: Vec<Type>,
    /// The op it came from (`stablehlo.add`) and where, for errors.
    pub op_name: String,
    /// Where the op is in the source.
    pub span: Option<Span>,
    /// Estimated run time, ns ([`crate::lower::cost`]): what the scheduler pairs steps by.
    pub cost_ns: f64,
    /// For a fusion, its ops in order (`sine,multiply,add,reduce`): what trace spans name the
    /// kernel by; empty otherwise.
    pub fused_ops: String,
    /// The scope path of the op (`layer1/attention`, from its location: `named_scope`);
    /// empty when none.
    pub scope: String,
    /// Per operand: this is the slot's last use, pass it by value.
    owned: Vec<bool>,
    /// Slots dropped after this step (last uses not passed by value, unused results).
    frees: Vec<usize>,
}

impl Step {
    /// A step; [`Program::new`] fills in the last-use information.
    pub fn new(
        exec: Exec,
        operands: Vec<usize>,
        results: Vec<usize>,
        result_types: Vec<Type>,
        op_name: String,
        span: Option<Span>,
    ) -> Step {
        Step {
            exec,
            operands,
            results,
            result_types,
            op_name,
            span,
            cost_ns: 0.0,
            fused_ops: String::new(),
            scope: String::new(),
            owned: vec![],
            frees: vec![],
        }
    }

    /// The step with its estimated run time.
    pub fn with_cost(mut self, cost_ns: f64) -> Step {
        self.cost_ns = cost_ns;
        self
    }

    /// The step with the ops of its fusion listed (see [`Step::fused_ops`]).
    pub fn with_fused_ops(mut self, ops: String) -> Step {
        self.fused_ops = ops;
        self
    }

    /// The step with the scope path of its op (see [`Step::scope`]).
    pub fn with_scope(mut self, scope: String) -> Step {
        self.scope = scope;
        self
    }

    /// The kernel's name in traces: its description after its scope path, and for a fusion
    /// the ops fused into it (`block1/mlp/fusion.0 (reduction) [sine,multiply,add,reduce]`).
    pub fn trace_name(&self) -> String {
        let name = self.scoped_kernel_name();
        if self.fused_ops.is_empty() {
            name
        } else {
            format!("{name} [{}]", self.fused_ops)
        }
    }

    /// [`Step::kernel_name`] after the op's scope path, if it has one (`layer1/dot_general …`):
    /// what profiles name the kernel by.
    pub fn scoped_kernel_name(&self) -> String {
        if self.scope.is_empty() {
            self.kernel_name()
        } else {
            format!("{}/{}", self.scope, self.kernel_name())
        }
    }

    /// A tensor kernel: no side effects, no nested programs, so the scheduler may move it and
    /// run it beside another step.
    fn movable(&self) -> bool {
        matches!(&self.exec, Exec::Kernel(k) if !k.is_collective() && !k.has_side_effect())
    }

    /// A tensor kernel worth running on the pool from a process thread of an SPMD execution
    /// (it may split its work; it never waits for other processes).
    fn for_pool(&self) -> bool {
        self.movable() && self.cost_ns >= SERIAL_MAX_NS
    }

    /// The kernel's description.
    pub fn kernel_name(&self) -> String {
        match &self.exec {
            Exec::Kernel(k) => k.name(),
            Exec::Value(k) => k.name(),
            Exec::Constant(v) => format!("constant {}", v.ty()),
        }
    }

    /// The trace span of one run of the kernel (recording nothing unless a trace is).
    fn span(&self) -> systolic_trace::Span {
        let mut span =
            systolic_trace::Span::lazy(systolic_trace::cat::KERNEL, || self.trace_name());
        if span.is_recording() {
            span.arg("op", self.op_name.as_str());
            let shapes: Vec<String> = self.result_types.iter().map(|t| t.to_string()).collect();
            span.arg("results", shapes.join(", "));
        }
        span
    }

    /// Runs the kernel on `args` and checks the results' types.
    fn exec<'r>(&self, args: Vec<ValueArg<'_>>) -> Result<Produced<'r>> {
        match &self.exec {
            Exec::Kernel(k) => {
                let args = args
                    .into_iter()
                    .map(ValueArg::into_kernel_arg)
                    .collect::<Result<Vec<_>>>()?;
                self.run_kernel(k.as_ref(), args)
            }
            Exec::Value(k) => {
                let _span = self.span();
                let results = k.run(args)?;
                check_results(self, &results)?;
                Ok(Produced::Values(
                    results.into_iter().map(ValueArg::Owned).collect(),
                ))
            }
            Exec::Constant(_) => unreachable!("constants are borrowed, never run"),
        }
    }

    /// Runs tensor kernel `k` (this step's) on `args` and checks the results' types.
    fn run_kernel<'r>(&self, k: &dyn Kernel, args: Vec<Arg<'_>>) -> Result<Produced<'r>> {
        let _span = self.span();
        let results = k.run(args)?;
        check_buffers(self, &results)?;
        Ok(Produced::Buffers(results))
    }

    fn locate(&self, mut e: CpuError) -> CpuError {
        if e.op.is_none() {
            e.op = Some(self.op_name.clone());
            e.span = self.span;
        }
        e
    }
}

/// What a step made, not yet stored in its slots: a tensor kernel's buffers as it returned
/// them, whole values, or a constant the program lends (no vector of `ValueArg`s is built
/// for the common case, a tensor kernel: in loop bodies of tiny kernels such per-step
/// vectors were a large part of each step's cost).
enum Produced<'p> {
    /// A tensor kernel's results.
    Buffers(Vec<CpuBuffer>),
    /// A value kernel's results.
    Values(Vec<ValueArg<'p>>),
    /// A constant's value, borrowed from the program.
    Constant(&'p RtValue),
}

/// A lowered function body or region: inputs, steps, outputs.
#[derive(Debug)]
pub struct Program {
    name: String,
    num_slots: usize,
    inputs: Vec<usize>,
    input_types: Vec<Type>,
    steps: Vec<Step>,
    /// `with_next[k]`: steps `k` and `k + 1` run at the same time ([`crate::schedule`]).
    with_next: Vec<bool>,
    outputs: Vec<usize>,
    /// Inputs nobody reads: dropped on entry.
    unused_inputs: Vec<usize>,
    /// Every step is a tensor kernel (or a constant) estimated below [`SERIAL_MAX_NS`]: no
    /// kernel of the program uses more than one thread, and [`Program::execute`] runs it on
    /// the caller's thread.
    serial: bool,
}

/// Steps estimated below this (ns) are far below every kernel's threshold for spreading its
/// work over threads (the smallest: a product of 2^18 multiply-adds, ~1.7 µs by
/// [`crate::lower::cost`]; elementwise and reduction kernels from 64K elements, ~20 µs).
pub const SERIAL_MAX_NS: f64 = 1000.0;

impl Program {
    /// A program over `num_slots` slots: orders the steps ([`crate::schedule`]: independent
    /// steps of similar cost run side by side) and computes every slot's last use.
    ///
    /// `inputs[i]` is the slot argument `i` is written to; `outputs` are read at the end.
    pub fn new(
        name: String,
        num_slots: usize,
        inputs: Vec<usize>,
        input_types: Vec<Type>,
        steps: Vec<Step>,
        outputs: Vec<usize>,
    ) -> Program {
        let infos: Vec<StepInfo> = steps
            .iter()
            .map(|s| StepInfo {
                reads: s.operands.clone(),
                writes: s.results.clone(),
                cost_ns: s.cost_ns,
                movable: s.movable(),
            })
            .collect();
        let Schedule { order, with_next } = schedule(&infos);
        let mut by_index: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
        let mut steps: Vec<Step> = order
            .iter()
            .map(|&i| by_index[i].take().expect("a schedule is a permutation"))
            .collect();
        const NEVER: usize = usize::MAX;
        let mut last_use = vec![NEVER; num_slots];
        for (i, step) in steps.iter().enumerate() {
            for &s in &step.operands {
                last_use[s] = i;
            }
        }
        // A step running beside another may not take a value the other reads.
        let partner_reads: Vec<Vec<usize>> = (0..steps.len())
            .map(|i| {
                let partner = if with_next[i] {
                    Some(i + 1)
                } else if i > 0 && with_next[i - 1] {
                    Some(i - 1)
                } else {
                    None
                };
                partner.map_or_else(Vec::new, |p| steps[p].operands.clone())
            })
            .collect();
        let mut is_output = vec![false; num_slots];
        for &s in &outputs {
            is_output[s] = true;
        }
        for (i, step) in steps.iter_mut().enumerate() {
            let dies_here = |s: usize| last_use[s] == i && !is_output[s];
            step.owned = step
                .operands
                .iter()
                .map(|&s| {
                    dies_here(s)
                        && step.operands.iter().filter(|&&o| o == s).count() == 1
                        && !partner_reads[i].contains(&s)
                })
                .collect();
            let mut frees: Vec<usize> = step
                .operands
                .iter()
                .zip(&step.owned)
                .filter(|&(&s, &owned)| !owned && dies_here(s))
                .map(|(&s, _)| s)
                .collect();
            frees.extend(
                step.results
                    .iter()
                    .filter(|&&s| last_use[s] == NEVER && !is_output[s]),
            );
            frees.sort_unstable();
            frees.dedup();
            step.frees = frees;
        }
        let serial = steps.iter().all(|s| {
            s.movable() && s.cost_ns < SERIAL_MAX_NS || matches!(s.exec, Exec::Constant(_))
        });
        let unused_inputs = inputs
            .iter()
            .copied()
            .filter(|&s| last_use[s] == NEVER && !is_output[s])
            .collect();
        Program {
            name,
            num_slots,
            inputs,
            input_types,
            steps,
            with_next,
            outputs,
            unused_inputs,
            serial,
        }
    }

    /// The program's name (the function, or `while body in @main`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The types the inputs must have.
    pub fn input_types(&self) -> &[Type] {
        &self.input_types
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// True when step `k` (of [`Program::steps`]) runs at the same time as step `k + 1`
    /// ([`crate::schedule`]).
    pub fn runs_with_next(&self, k: usize) -> bool {
        self.with_next.get(k).copied().unwrap_or(false)
    }

    /// Runs the program as an entry point: [`Program::run`] on the backend's pool
    /// ([`crate::threads`]: its threads flush denormals in hardware, as the kernels expect),
    /// the caller waiting. A kernel that splits its work from the caller's thread hands the
    /// pieces to the pool and sleeps until they are done, so a program of twenty parallel
    /// kernels paid twenty hand-offs and wake-ups; run from a worker, the program keeps its
    /// thread busy and only the pieces the other workers steal move. A program whose kernels
    /// all run on one thread ([`SERIAL_MAX_NS`]) stays on the caller's thread, the flush bits
    /// set for its duration: one hand-off (~5 µs) would cost more than it does.
    pub fn execute<'p>(&'p self, inputs: Vec<ValueArg<'p>>) -> Result<Vec<RtValue>> {
        if self.serial {
            let _flush = crate::threads::DenormalMode::flush();
            let _span = self.span();
            return self.run(inputs);
        }
        // The pool thread counts its values against the caller's memory process.
        let memory = systolic_trace::enabled().then(systolic_trace::memory_pids);
        crate::threads::run(|| {
            let _memory = memory.map(systolic_trace::MemoryProcess::enter);
            let _span = self.span();
            self.run(inputs)
        })
    }

    /// The trace span of one run as an entry point, on the thread its kernels start on.
    fn span(&self) -> systolic_trace::Span {
        systolic_trace::Span::lazy(systolic_trace::cat::PROGRAM, || {
            format!("run @{}", self.name)
        })
    }

    /// Runs the program as one process of an SPMD execution ([`crate::spmd`]), on the
    /// calling thread (the process's own) with the flush bits set: its collectives block this
    /// thread, never one of the pool's, which the other processes' kernels need. Only tensor
    /// kernels large enough to split their work move onto the pool, one step (or one pair of
    /// such steps) at a time; control flow and nested programs stay here.
    pub fn execute_on_this_thread<'p>(&'p self, inputs: Vec<ValueArg<'p>>) -> Result<Vec<RtValue>> {
        let _flush = crate::threads::DenormalMode::flush();
        let _spmd = crate::threads::ProcessThread::enter();
        let _span = self.span();
        self.run(inputs)
    }

    /// Runs the program. Inputs are not type-checked here (the executable checks the caller's
    /// arguments; nested programs get values of their declared types by construction).
    pub fn run<'p>(&'p self, inputs: Vec<ValueArg<'p>>) -> Result<Vec<RtValue>> {
        self.run_observed(inputs, None)
    }

    /// Runs the program as [`Program::run`] does — operands handed over at their last use,
    /// dead values back to the pool after their step — but one step at a time (steps a run
    /// starts two at a time run one after the other), telling `timed(k, ms)` the wall time of
    /// step `k`'s kernel: what `systolic run --profile` times.
    pub fn run_timed<'p>(
        &'p self,
        inputs: Vec<ValueArg<'p>>,
        timed: &mut dyn FnMut(usize, f64),
    ) -> Result<Vec<RtValue>> {
        self.run_observed(inputs, Some(timed))
    }

    /// [`Program::run`], or [`Program::run_timed`] when `timed` is given.
    fn run_observed<'p>(
        &'p self,
        inputs: Vec<ValueArg<'p>>,
        mut timed: Option<&mut dyn FnMut(usize, f64)>,
    ) -> Result<Vec<RtValue>> {
        if inputs.len() != self.inputs.len() {
            return Err(CpuError::new(format!(
                "{} expects {} inputs, got {}",
                self.name,
                self.inputs.len(),
                inputs.len()
            )));
        }
        let mut slots = spare_slots::take(self.num_slots);
        for (&s, v) in self.inputs.iter().zip(inputs) {
            slots[s] = Some(v);
        }
        for &s in &self.unused_inputs {
            slots[s] = None;
        }
        let on_process_thread = crate::threads::on_process_thread();
        let mut memory = Memory::new(self.num_slots);
        // The operands a step takes by value, between leaving their slots and reaching the
        // kernel (reused by every step of the run).
        let mut limbo: Vec<Option<ValueArg<'p>>> = Vec::new();
        let mut k = 0;
        while k < self.steps.len() {
            let step = &self.steps[k];
            // A run past its time limit stops between kernels (`systolic run --timeout`).
            systolic_ir::deadline::check().map_err(|e| CpuError::new(e.to_string()))?;
            if self.with_next[k] && timed.is_none() {
                let other = &self.steps[k + 1];
                let (a, b) = if on_process_thread {
                    // Two tensor kernels (only those are paired): on the pool.
                    crate::threads::run(|| self.run_pair(step, other, &mut slots))?
                } else {
                    self.run_pair(step, other, &mut slots)?
                };
                memory.taken(step);
                memory.taken(other);
                self.store(step, a, &mut slots);
                self.store(other, b, &mut slots);
                memory.stored(step, &slots);
                memory.stored(other, &slots);
                self.free(step, &mut slots);
                self.free(other, &mut slots);
                memory.freed(step);
                memory.freed(other);
                k += 2;
            } else {
                let start = std::time::Instant::now();
                let results = if on_process_thread && step.for_pool() {
                    crate::threads::run(|| self.run_step(step, &mut slots, &mut limbo))
                } else {
                    self.run_step(step, &mut slots, &mut limbo)
                }
                .map_err(|e| step.locate(e))?;
                if let Some(timed) = timed.as_mut() {
                    timed(k, start.elapsed().as_secs_f64() * 1e3);
                }
                memory.taken(step);
                self.store(step, results, &mut slots);
                memory.stored(step, &slots);
                self.free(step, &mut slots);
                memory.freed(step);
                k += 1;
            }
        }
        let mut out = Vec::with_capacity(self.outputs.len());
        for (i, &s) in self.outputs.iter().enumerate() {
            let used_again = self.outputs[i + 1..].contains(&s);
            let v = if used_again {
                slots[s].as_ref().map(|v| v.reborrow().into_owned())
            } else {
                slots[s].take().map(ValueArg::into_owned)
            };
            out.push(v.ok_or_else(|| self.missing(s))?);
        }
        drop(memory);
        spare_slots::give_back(slots);
        Ok(out)
    }

    /// Writes a step's results into their slots.
    fn store<'p>(&self, step: &Step, results: Produced<'p>, slots: &mut [Option<ValueArg<'p>>]) {
        match results {
            Produced::Buffers(bs) => {
                for (&s, b) in step.results.iter().zip(bs) {
                    slots[s] = Some(ValueArg::Owned(RtValue::Buffer(b)));
                }
            }
            Produced::Values(vs) => {
                for (&s, v) in step.results.iter().zip(vs) {
                    slots[s] = Some(v);
                }
            }
            Produced::Constant(v) => {
                if let Some(&s) = step.results.first() {
                    slots[s] = Some(ValueArg::Value(v));
                }
            }
        }
    }

    /// Drops the values whose last use was `step`, their storage back to the pool.
    fn free(&self, step: &Step, slots: &mut [Option<ValueArg<'_>>]) {
        for &s in &step.frees {
            if let Some(ValueArg::Owned(RtValue::Buffer(b))) = slots[s].take() {
                crate::pool::recycle(b.into_parts().1);
            }
        }
    }

    /// Runs one step, returning its results (not yet stored). `limbo` is scratch space for
    /// the operands a tensor kernel takes by value.
    fn run_step<'p>(
        &'p self,
        step: &'p Step,
        slots: &mut [Option<ValueArg<'p>>],
        limbo: &mut Vec<Option<ValueArg<'p>>>,
    ) -> Result<Produced<'p>> {
        match &step.exec {
            Exec::Constant(v) => Ok(Produced::Constant(v)),
            Exec::Kernel(k) => {
                let args = self.kernel_args(step, slots, limbo)?;
                step.run_kernel(k.as_ref(), args)
            }
            Exec::Value(_) => {
                let taken = self.take_owned(step, slots)?;
                let args = self.gather(step, taken, slots)?;
                step.exec(args)
            }
        }
    }

    /// A tensor kernel's operands in one vector: the ones dying here moved out of their
    /// slots (through `limbo`, so the others can then be borrowed), the rest borrowed.
    fn kernel_args<'s, 'p: 's>(
        &self,
        step: &Step,
        slots: &'s mut [Option<ValueArg<'p>>],
        limbo: &mut Vec<Option<ValueArg<'p>>>,
    ) -> Result<Vec<Arg<'s>>> {
        limbo.clear();
        limbo.resize_with(step.operands.len(), || None);
        for (i, (&s, &owned)) in step.operands.iter().zip(&step.owned).enumerate() {
            if owned {
                limbo[i] = Some(slots[s].take().ok_or_else(|| self.missing(s))?);
            }
        }
        let slots: &'s [Option<ValueArg<'p>>] = slots;
        let mut args = Vec::with_capacity(step.operands.len());
        for (i, &s) in step.operands.iter().enumerate() {
            let arg = match limbo[i].take() {
                Some(v) => v.into_kernel_arg()?,
                None => slots[s]
                    .as_ref()
                    .ok_or_else(|| self.missing(s))?
                    .reborrow()
                    .into_kernel_arg()?,
            };
            args.push(arg);
        }
        Ok(args)
    }

    /// Runs two independent steps at the same time (one task each on the pool); the first
    /// error in program order wins.
    fn run_pair<'p>(
        &'p self,
        a: &'p Step,
        b: &'p Step,
        slots: &mut [Option<ValueArg<'p>>],
    ) -> Result<(Produced<'p>, Produced<'p>)> {
        // Take both steps' dying operands first (the schedule made sure neither takes one the
        // other reads); then borrow the rest.
        let taken_a = self.take_owned(a, slots).map_err(|e| a.locate(e))?;
        let taken_b = self.take_owned(b, slots).map_err(|e| b.locate(e))?;
        let args_a = self.gather(a, taken_a, slots).map_err(|e| a.locate(e))?;
        let args_b = self.gather(b, taken_b, slots).map_err(|e| b.locate(e))?;
        let (ra, rb) = rayon::join(|| a.exec(args_a), || b.exec(args_b));
        Ok((ra.map_err(|e| a.locate(e))?, rb.map_err(|e| b.locate(e))?))
    }

    /// Moves the operands that die at `step` out of their slots (`None` for the others).
    fn take_owned<'p>(
        &self,
        step: &Step,
        slots: &mut [Option<ValueArg<'p>>],
    ) -> Result<Vec<Option<ValueArg<'p>>>> {
        step.operands
            .iter()
            .zip(&step.owned)
            .map(|(&s, &owned)| {
                if owned {
                    slots[s].take().map(Some).ok_or_else(|| self.missing(s))
                } else {
                    Ok(None)
                }
            })
            .collect()
    }

    /// The step's operands: the taken ones, and borrows of the others.
    fn gather<'s, 'p: 's>(
        &self,
        step: &Step,
        taken: Vec<Option<ValueArg<'p>>>,
        slots: &'s [Option<ValueArg<'p>>],
    ) -> Result<Vec<ValueArg<'s>>> {
        step.operands
            .iter()
            .zip(taken)
            .map(|(&s, t)| match t {
                Some(v) => Ok(v),
                None => Ok(slots[s].as_ref().ok_or_else(|| self.missing(s))?.reborrow()),
            })
            .collect()
    }

    fn missing(&self, slot: usize) -> CpuError {
        CpuError::new(format!(
            "internal: slot {slot} of {} read after it was freed or before it was written",
            self.name
        ))
    }
}

/// Slot vectors kept between runs on each thread: a loop body's program runs once per
/// iteration, and its slot vector (tens of slots of 80 bytes) was an allocation large enough
/// to make the allocator consolidate its free lists on every run.
mod spare_slots {
    use super::ValueArg;
    use std::cell::RefCell;

    /// The most vectors kept per thread (one per level of nested programs running at once).
    const MAX_KEPT: usize = 16;

    thread_local! {
        static KEPT: RefCell<Vec<Vec<Option<ValueArg<'static>>>>> =
            const { RefCell::new(Vec::new()) };
    }

    /// `n` empty slots.
    pub(super) fn take<'p>(n: usize) -> Vec<Option<ValueArg<'p>>> {
        let mut slots: Vec<Option<ValueArg<'p>>> =
            KEPT.with(|k| k.borrow_mut().pop()).unwrap_or_default();
        slots.resize_with(n, || None);
        slots
    }

    /// Drops what is left in `slots` and keeps the vector for another run.
    pub(super) fn give_back(mut slots: Vec<Option<ValueArg<'_>>>) {
        slots.clear();
        // Empty, so nothing of lifetime `'_` is left: collected in place into the same
        // allocation, typed for any later run.
        let empty: Vec<Option<ValueArg<'static>>> = slots.into_iter().map(|_| None).collect();
        KEPT.with(|k| {
            let mut k = k.borrow_mut();
            if k.len() < MAX_KEPT {
                k.push(empty);
            }
        });
    }
}

/// The trace's view of a run's memory: every value a step makes gets an `alloc` event (its
/// bytes, type and op) and a `free` when it dies — passed by value to its last reader (which
/// may write its result into that storage, so the free comes first), dropped after its last
/// use, or handed back as a result when the run ends. Inputs and constants are borrowed, not
/// counted. Nothing is done unless a trace is being recorded.
struct Memory {
    /// Per slot: the trace's buffer id and bytes of the value in it (`None` when untracked).
    live: Vec<Option<(u64, u64)>>,
    /// The process the values count against (the device's: `systolic_trace::memory_pid`).
    pid: u32,
}

impl Memory {
    fn new(num_slots: usize) -> Memory {
        let live = if systolic_trace::enabled() {
            vec![None; num_slots]
        } else {
            vec![]
        };
        Memory {
            live,
            pid: systolic_trace::memory_pid(),
        }
    }

    fn release(&mut self, slot: usize) {
        if let Some(Some((id, bytes))) = self.live.get_mut(slot).map(Option::take) {
            systolic_trace::free(self.pid, None, id, bytes);
        }
    }

    /// The step's operands passed by value are gone into the step.
    fn taken(&mut self, step: &Step) {
        if self.live.is_empty() {
            return;
        }
        for (&s, &owned) in step.operands.iter().zip(&step.owned) {
            if owned {
                self.release(s);
            }
        }
    }

    /// The step's results are in their slots.
    fn stored(&mut self, step: &Step, slots: &[Option<ValueArg<'_>>]) {
        if self.live.is_empty() {
            return;
        }
        for (&s, ty) in step.results.iter().zip(&step.result_types) {
            if let Some(ValueArg::Owned(RtValue::Buffer(b))) = &slots[s] {
                let bytes = b.ty().byte_size() as u64;
                let id = systolic_trace::alloc(
                    self.pid,
                    None,
                    bytes,
                    &ty.to_string(),
                    &step.trace_name(),
                );
                self.live[s] = Some((id, bytes));
            }
        }
    }

    /// The step's dead values were dropped.
    fn freed(&mut self, step: &Step) {
        if self.live.is_empty() {
            return;
        }
        for &s in &step.frees {
            self.release(s);
        }
    }
}

impl Drop for Memory {
    /// The run is over (or failed): what is still tracked leaves as results or is dropped.
    fn drop(&mut self) {
        for s in 0..self.live.len() {
            self.release(s);
        }
    }
}

/// Checks a tensor kernel's results against the op's declared types (the errors of
/// [`check_results`], without wrapping the buffers as values first).
fn check_buffers(step: &Step, results: &[CpuBuffer]) -> Result<()> {
    if results.len() != step.result_types.len() {
        return Err(CpuError::new(format!(
            "kernel `{}` returned {} results, the op declares {}",
            step.kernel_name(),
            results.len(),
            step.result_types.len()
        )));
    }
    for (i, (b, t)) in results.iter().zip(&step.result_types).enumerate() {
        let ok = match t {
            Type::Tensor(t) => b.has_type(t),
            Type::Tuple(_) | Type::Token => false,
        };
        if !ok {
            return Err(CpuError::new(format!(
                "kernel `{}` returned {} for result {i}, the op declares {t}",
                step.kernel_name(),
                Type::Tensor(b.ty().clone())
            )));
        }
    }
    Ok(())
}

/// Checks a kernel's results against the op's declared types.
fn check_results(step: &Step, results: &[RtValue]) -> Result<()> {
    if results.len() != step.result_types.len() {
        return Err(CpuError::new(format!(
            "kernel `{}` returned {} results, the op declares {}",
            step.kernel_name(),
            results.len(),
            step.result_types.len()
        )));
    }
    for (i, (v, t)) in results.iter().zip(&step.result_types).enumerate() {
        if !v.has_type(t) {
            return Err(CpuError::new(format!(
                "kernel `{}` returned {} for result {i}, the op declares {t}",
                step.kernel_name(),
                v.ty()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Returns its first operand and records, per call, which operands came owned.
    #[derive(Debug, Default)]
    struct Spy {
        seen: Mutex<Vec<Vec<bool>>>,
    }

    impl Kernel for Spy {
        fn name(&self) -> String {
            "spy".to_string()
        }

        fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
            let owned = args.iter().map(|a| matches!(a, Arg::Owned(_))).collect();
            self.seen.lock().unwrap().push(owned);
            Ok(vec![args.into_iter().next().unwrap().into_owned()])
        }
    }

    fn f32_type() -> Type {
        Type::tensor(vec![1], systolic_ir::DType::F32)
    }

    /// A kernel shared with the test, which inspects it after the run.
    #[derive(Debug)]
    struct Shared<K>(std::sync::Arc<K>);

    impl<K: Kernel> Kernel for Shared<K> {
        fn name(&self) -> String {
            self.0.name()
        }
        fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
            self.0.run(args)
        }
    }

    /// A step running shared kernel `k` on `operands`, writing `result`.
    fn shared_step<K: Kernel + 'static>(
        k: &std::sync::Arc<K>,
        operands: Vec<usize>,
        result: usize,
    ) -> Step {
        Step::new(
            Exec::Kernel(Box::new(Shared(k.clone()))),
            operands,
            vec![result],
            vec![f32_type()],
            format!("test.{}", k.name()),
            None,
        )
    }

    /// A step running a shared spy on `operands`, writing `result`.
    fn spy_step(spy: &std::sync::Arc<Spy>, operands: Vec<usize>, result: usize) -> Step {
        shared_step(spy, operands, result)
    }

    /// Slot 0 is read by steps 0 and 1 (owned only at step 1); slot 1 twice by step 2 (never
    /// owned: both reads borrow); the output slot is never handed over.
    #[test]
    fn values_move_at_their_last_single_use_only() {
        let spy = std::sync::Arc::new(Spy::default());
        let steps = vec![
            spy_step(&spy, vec![0], 1),
            spy_step(&spy, vec![0], 2),
            spy_step(&spy, vec![1, 1], 3),
            spy_step(&spy, vec![3, 2], 4),
        ];
        let p = Program::new("t".into(), 5, vec![0], vec![f32_type()], steps, vec![4, 3]);
        let input = CpuBuffer::from_f32(vec![1], vec![7.0]);
        let out = p
            .run(vec![ValueArg::Owned(RtValue::Buffer(input))])
            .unwrap();
        assert_eq!(out.len(), 2);
        let seen = spy.seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            vec![
                vec![false],
                vec![true],
                vec![false, false],
                vec![false, true]
            ]
        );
    }

    /// Waits (up to 10 s) until `want` calls are inside at once; records whether they were.
    #[derive(Debug)]
    struct Rendezvous {
        inside: std::sync::atomic::AtomicUsize,
        want: usize,
        met: Mutex<Vec<bool>>,
    }

    impl Kernel for Rendezvous {
        fn name(&self) -> String {
            "rendezvous".to_string()
        }

        fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
            use std::sync::atomic::Ordering;
            self.inside.fetch_add(1, Ordering::SeqCst);
            let start = std::time::Instant::now();
            while self.inside.load(Ordering::SeqCst) < self.want
                && start.elapsed() < std::time::Duration::from_secs(10)
            {
                std::thread::yield_now();
            }
            let met = self.inside.load(Ordering::SeqCst) >= self.want;
            self.met.lock().unwrap().push(met);
            Ok(vec![args.into_iter().next().unwrap().into_owned()])
        }
    }

    /// Two costly steps reading the same input run at the same time, and neither takes the
    /// input by value (the other still reads it), though the later one is its last use.
    #[test]
    fn independent_costly_steps_run_together_sharing_their_inputs() {
        let spies: Vec<_> = (0..3)
            .map(|_| std::sync::Arc::new(Spy::default()))
            .collect();
        let costly = |s: Step| s.with_cost(1e6);
        // 0: a = f(x); 1: b = g(a); 2: c = h(x): step 2 runs beside step 0.
        let steps = vec![
            costly(spy_step(&spies[0], vec![0], 1)),
            costly(spy_step(&spies[1], vec![1], 2)),
            costly(spy_step(&spies[2], vec![0], 3)),
        ];
        let p = Program::new("t".into(), 4, vec![0], vec![f32_type()], steps, vec![2, 3]);
        assert_eq!(p.with_next, vec![true, false, false]);
        let input = CpuBuffer::from_f32(vec![1], vec![7.0]);
        p.run(vec![ValueArg::Owned(RtValue::Buffer(input))])
            .unwrap();
        let seen = |i: usize| spies[i].seen.lock().unwrap().clone();
        assert_eq!((seen(0), seen(2)), (vec![vec![false]], vec![vec![false]]));
        assert_eq!(seen(1), vec![vec![true]]);

        if rayon::current_num_threads() >= 2 {
            let meet = std::sync::Arc::new(Rendezvous {
                inside: 0.into(),
                want: 2,
                met: Mutex::new(vec![]),
            });
            let step = |result: usize| shared_step(&meet, vec![0], result).with_cost(1e6);
            let p = Program::new(
                "t".into(),
                3,
                vec![0],
                vec![f32_type()],
                vec![step(1), step(2)],
                vec![1, 2],
            );
            let input = CpuBuffer::from_f32(vec![1], vec![7.0]);
            p.run(vec![ValueArg::Buffer(&input)]).unwrap();
            assert_eq!(*meet.met.lock().unwrap(), vec![true, true]);
        }
    }

    /// Records the first element of every operand it sees, in operand order.
    #[derive(Debug, Default)]
    struct Recorder {
        seen: Mutex<Vec<Vec<f32>>>,
    }

    impl Kernel for Recorder {
        fn name(&self) -> String {
            "recorder".to_string()
        }

        fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
            let firsts = args.iter().map(|a| a.buffer().as_f32().unwrap()[0]);
            self.seen.lock().unwrap().push(firsts.collect());
            Ok(vec![args.into_iter().last().unwrap().into_owned()])
        }
    }

    /// Operands taken by value (their last use) and borrowed ones (read again later, or read
    /// twice by the step) reach the kernel in operand order, whichever come first.
    #[test]
    fn owned_and_borrowed_operands_keep_their_order() {
        let rec = std::sync::Arc::new(Recorder::default());
        let steps = vec![
            // Slot 1 dies here (owned), slot 0 is read again below (borrowed).
            shared_step(&rec, vec![1, 0, 2, 2], 3),
            shared_step(&rec, vec![3, 0], 4),
        ];
        let p = Program::new(
            "t".into(),
            5,
            vec![0, 1, 2],
            vec![f32_type(), f32_type(), f32_type()],
            steps,
            vec![4],
        );
        assert_eq!(p.steps()[0].owned, vec![true, false, false, false]);
        let input =
            |x: f32| ValueArg::Owned(RtValue::Buffer(CpuBuffer::from_f32(vec![1], vec![x])));
        let out = p.run(vec![input(1.0), input(2.0), input(3.0)]).unwrap();
        assert_eq!(
            *rec.seen.lock().unwrap(),
            vec![vec![2.0, 1.0, 3.0, 3.0], vec![3.0, 1.0]]
        );
        assert_eq!(
            out,
            vec![RtValue::Buffer(CpuBuffer::from_f32(vec![1], vec![1.0]))]
        );
    }

    /// A tensor kernel handed a tuple, owned or borrowed, is an error naming the op.
    #[test]
    fn a_tuple_operand_of_a_tensor_kernel_is_an_error_naming_the_op() {
        let tuple_type = Type::Tuple(vec![f32_type()]);
        for read_again in [false, true] {
            let spy = std::sync::Arc::new(Spy::default());
            let outputs = if read_again { vec![1, 0] } else { vec![1] };
            let p = Program::new(
                "t".into(),
                2,
                vec![0],
                vec![tuple_type.clone()],
                vec![spy_step(&spy, vec![0], 1)],
                outputs,
            );
            let tuple = RtValue::Tuple(vec![RtValue::Buffer(CpuBuffer::from_f32(
                vec![1],
                vec![7.0],
            ))]);
            let err = p.run(vec![ValueArg::Owned(tuple)]).unwrap_err();
            assert_eq!(err.op.as_deref(), Some("test.spy"));
            assert!(
                err.message
                    .contains("a tensor operand was expected, got tuple<tensor<1xf32>>"),
                "{err}"
            );
            assert!(spy.seen.lock().unwrap().is_empty());
        }
    }

    #[test]
    fn a_kernel_returning_the_wrong_type_is_an_error_naming_the_op() {
        let spy = std::sync::Arc::new(Spy::default());
        let mut step = spy_step(&spy, vec![0], 1);
        step.result_types = vec![Type::tensor(vec![2], systolic_ir::DType::F32)];
        let p = Program::new(
            "t".into(),
            2,
            vec![0],
            vec![f32_type()],
            vec![step],
            vec![1],
        );
        let input = CpuBuffer::from_f32(vec![1], vec![7.0]);
        let err = p.run(vec![ValueArg::Buffer(&input)]).unwrap_err();
        assert_eq!(err.op.as_deref(), Some("test.spy"));
        assert!(err.message.contains("tensor<2xf32>"), "{err}");
    }
}
