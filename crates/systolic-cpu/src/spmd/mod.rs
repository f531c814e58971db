//! SPMD execution: one module compiled for a grid of `num_replicas × num_partitions`
//! processes, all run at once with real collectives between them.
//!
//! [`compile_spmd`] runs the CPU pipeline once, then lowers one program per process with that
//! process's `(replica, partition)` known: `replica_id` and `partition_id` become constants,
//! and every collective becomes a kernel of [`crate::kernels::collective`] holding its
//! process's group (formed by [`systolic_ir::collective_groups`], as the interpreter forms
//! it). Lowering is milliseconds, so one program per process costs little and keeps the
//! kernels free of per-run lookups.
//!
//! **Threads.** Every process runs on a thread of its own, not on the backend's pool: a
//! collective blocks its thread until the group meets, and a pool thread blocked so would
//! starve the partners whose kernels wait for the pool. The threads are started once per
//! executable, as a crew of one thread per process ([`crew`]), and reused: an execution takes
//! an idle crew (starting one only when every crew is busy, so concurrent executions of one
//! executable each have their own and never wait for each other's processes) and gives it
//! back. Starting eight threads per execution cost ~0.5 ms, and their first touches of fresh
//! stacks more.
//!
//! **Cores.** Where a process's kernels run is [`KernelThreads`]: with at least as many
//! processes as cores (eight devices on two cores) each process runs its kernels whole on its
//! own thread, the processes sharing the cores through the OS scheduler; with fewer, kernels
//! large enough to split go to the backend's pool ([`crate::threads`]) so the idle cores help.
//! Sending every kernel of eight processes through a two-thread pool serialised them behind
//! one queue and split each product in two (see the measurements in
//! `crates/systolic-runtime/examples/spmd_dp_bench.rs` and docs/ARCHITECTURE.md).
//!
//! **Collectives.** The processes of one execution meet at a rendezvous made for that
//! execution (the interpreter's, [`systolic_interp::Rendezvous`]): a process's n-th collective
//! over a group meets the n-th over that group of every other member. Members hand over their
//! operands as shared references ([`Payload`], no copy: the rendezvous holds them until every
//! member has read them), read each other's in place and each writes only its own results. An
//! all-reduce is computed cooperatively: each member folds one slice of the elements over all
//! members' operands, then every member assembles the slices. Folds always run over the
//! members in group order, so the results equal the interpreter's bit for bit. The collective
//! kernels find the rendezvous through their thread (set for the duration of the run), so
//! executions of one executable, even concurrent ones, never mix. A process that fails, and
//! participants that disagree (op, types, attributes, group), make every waiting member fail
//! with an error naming the op and the processes; nothing waits forever.

mod crew;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::executable::{CompileOptions, CpuExecutable};
use crate::lower::{optimize, Lowerer};
use crate::program::{RtValue, ValueArg};
use crew::Crew;
use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};
use systolic_compiler::passes::buffer_assignment::peak_memory_bytes;
use systolic_compiler::passes::single_device_spmd::{NUM_PARTITIONS_ATTR, NUM_REPLICAS_ATTR};
use systolic_interp::{Process, Rendezvous};
use systolic_ir::{Attribute, Module, NamedAttr, ProcessGrid, ProcessId};

pub use crate::lower_ctx::SpmdProcess;

/// A module compiled for every process of a grid: one [`CpuExecutable`] per process, run
/// together by [`SpmdExecutable::execute`]. Reusable and shareable between threads; it keeps
/// the process threads it started for later executions.
#[derive(Debug)]
pub struct SpmdExecutable {
    grid: ProcessGrid,
    processes: Vec<CpuExecutable>,
    kernel_threads: KernelThreads,
    /// Crews no execution uses now, at most [`IDLE_CREWS`].
    idle: Mutex<Vec<Crew>>,
}

/// The most idle crews an executable keeps (more only while that many executions overlap).
const IDLE_CREWS: usize = 2;

/// What a member of a collective hands the others: its operand, shared, read in place.
pub(crate) type Payload = Arc<CpuBuffer>;

/// Where the kernels of an SPMD execution's processes run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelThreads {
    /// Each process runs its kernels whole on its own thread: for at least as many processes
    /// as cores, which then share the cores without one queue between them.
    Process,
    /// Kernels large enough to split their work go to the backend's pool (one at a time per
    /// process): for fewer processes than cores, so that the others help.
    Pool,
}

/// Overrides [`KernelThreads::for_processes`]: `process` or `pool` (read once).
pub const KERNEL_THREADS_ENV: &str = "SYSTOLIC_SPMD_KERNELS";

impl KernelThreads {
    /// The choice for `processes` processes on this machine: [`KernelThreads::Process`] when
    /// they are at least as many as the backend's pool has threads (one per core), else
    /// [`KernelThreads::Pool`]; [`KERNEL_THREADS_ENV`] overrides it.
    pub fn for_processes(processes: usize) -> KernelThreads {
        static FORCED: OnceLock<Option<KernelThreads>> = OnceLock::new();
        let forced = FORCED.get_or_init(|| match std::env::var(KERNEL_THREADS_ENV).ok()?.trim() {
            "process" => Some(KernelThreads::Process),
            "pool" => Some(KernelThreads::Pool),
            _ => None,
        });
        forced.unwrap_or(
            if processes >= crate::threads::pool().current_num_threads() {
                KernelThreads::Process
            } else {
                KernelThreads::Pool
            },
        )
    }
}

/// Compiles `options.entry` of `module` for every process of `grid` (processes in the
/// order `replica * partitions + partition`).
///
/// The module's `mhlo.num_replicas` and `mhlo.num_partitions`, when present, must be the
/// grid's; when absent the grid's are used (so a module for several processes is never taken
/// for a single-device one, whose collectives the pipeline turns into identities).
///
/// ```
/// use systolic_cpu::{compile_spmd, CompileOptions, CpuBuffer};
/// use systolic_ir::ProcessGrid;
/// // With a channel, all_reduce's groups are replica groups across partitions: replica 0's
/// // group is both partitions.
/// let module = systolic_ir::text::parse_module(
///     r#"module attributes {mhlo.num_partitions = 2 : i32} {
///        func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
///          %s = "stablehlo.all_reduce"(%x) ({
///            ^bb0(%a: tensor<f32>, %b: tensor<f32>):
///              %t = stablehlo.add %a, %b : tensor<f32>
///              stablehlo.return %t : tensor<f32>
///          }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>,
///              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
///             : (tensor<2xf32>) -> tensor<2xf32>
///          return %s : tensor<2xf32>
///        }
///      }"#,
///     "example",
/// ).unwrap();
/// let exe = compile_spmd(&module, ProcessGrid::new(1, 2), &CompileOptions::default()).unwrap();
/// let out = exe
///     .execute(vec![
///         vec![CpuBuffer::from_f32(vec![2], vec![1.0, 2.0])],
///         vec![CpuBuffer::from_f32(vec![2], vec![10.0, 20.0])],
///     ])
///     .unwrap();
/// assert_eq!(out[0][0].as_f32().unwrap(), &[11.0, 22.0]);
/// assert_eq!(out[1][0].as_f32().unwrap(), &[11.0, 22.0]);
/// ```
pub fn compile_spmd(
    module: &Module,
    grid: ProcessGrid,
    options: &CompileOptions,
) -> Result<SpmdExecutable> {
    let entries = vec![options.entry.clone(); grid.len()];
    compile_mpmd(module, grid, &entries, options)
}

/// As [`compile_spmd`], with each process running its own entry function
/// (`entries[flat process index]`, as `interpreter.run_parallel`'s `programs` may): every
/// entry must survive the pipeline (a public function of the module).
pub fn compile_mpmd(
    module: &Module,
    grid: ProcessGrid,
    entries: &[String],
    options: &CompileOptions,
) -> Result<SpmdExecutable> {
    if grid.is_empty() {
        return Err(CpuError::new("an SPMD grid needs at least one process"));
    }
    if entries.len() != grid.len() {
        return Err(CpuError::new(format!(
            "{} entry functions for the {} processes of a {}×{} grid",
            entries.len(),
            grid.len(),
            grid.replicas,
            grid.partitions
        )));
    }
    let mut module = module.clone();
    for (name, want) in [
        (NUM_REPLICAS_ATTR, grid.replicas),
        (NUM_PARTITIONS_ATTR, grid.partitions),
    ] {
        match module.attrs.iter().find(|a| a.name == name) {
            Some(a) => match a.value {
                Attribute::Int(n, _) if n == i64::from(want) => {}
                ref other => {
                    return Err(CpuError::new(format!(
                        "the module's {name} is {other:?}, but it is compiled for a {}×{} grid",
                        grid.replicas, grid.partitions
                    )))
                }
            },
            None => module.attrs.push(NamedAttr {
                name: name.to_string(),
                value: Attribute::Int(
                    i64::from(want),
                    Some(systolic_ir::Type::tensor(vec![], systolic_ir::DType::I32)),
                ),
            }),
        }
    }
    let optimized = optimize(&module, options)?;
    let processes = grid
        .processes()
        .zip(entries)
        .map(|(id, entry)| {
            let mut lowerer = Lowerer::for_process(&optimized, SpmdProcess { id, grid });
            let program = lowerer
                .lower_function(entry)
                .map_err(|e| in_process(id, e))?;
            let fallback_ops = lowerer.finish();
            let func = optimized.func(entry);
            Ok(CpuExecutable::from_parts(
                entry.clone(),
                program,
                func.map(|f| f.result_types.clone()).unwrap_or_default(),
                fallback_ops,
                func.map_or(0, peak_memory_bytes),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(first) = processes.first() {
        first.log_fallbacks();
    }
    Ok(SpmdExecutable {
        grid,
        kernel_threads: KernelThreads::for_processes(processes.len()),
        processes,
        idle: Mutex::new(vec![]),
    })
}

/// The error of one process, its message prefixed with the process.
fn in_process(id: ProcessId, mut e: CpuError) -> CpuError {
    e.message = format!("process {id}: {}", e.message);
    e
}

impl SpmdExecutable {
    /// The grid it runs on.
    pub fn grid(&self) -> ProcessGrid {
        self.grid
    }

    /// The number of processes.
    pub fn num_processes(&self) -> usize {
        self.processes.len()
    }

    /// The executable of each process (argument and result types, fallbacks, peak memory),
    /// in process order. Run alone, one whose program has collectives fails: only
    /// [`SpmdExecutable::execute`] gives them partners.
    pub fn processes(&self) -> &[CpuExecutable] {
        &self.processes
    }

    /// Where the processes' kernels run ([`KernelThreads::for_processes`] unless set).
    pub fn kernel_threads(&self) -> KernelThreads {
        self.kernel_threads
    }

    /// The executable with its processes' kernels run as `k` says.
    pub fn with_kernel_threads(mut self, k: KernelThreads) -> SpmdExecutable {
        self.kernel_threads = k;
        self
    }

    /// Runs every process on its arguments (`args[flat process index]`, owned: a kernel may
    /// update one in place) and returns each process's results, in process order.
    ///
    /// When any process fails, the others waiting for it at a collective fail too, and the
    /// error lists every failure by process (its op set to the first failure's op).
    pub fn execute(&self, args: Vec<Vec<CpuBuffer>>) -> Result<Vec<Vec<CpuBuffer>>> {
        self.check_args(args.len(), |p| args[p].iter())?;
        let inputs = args
            .into_iter()
            .map(|a| {
                a.into_iter()
                    .map(|b| ValueArg::Owned(RtValue::Buffer(b)))
                    .collect()
            })
            .collect();
        self.run(inputs)
    }

    /// As [`SpmdExecutable::execute`], with borrowed arguments (never modified): repeated runs
    /// on the same inputs need no copy of them.
    pub fn execute_borrowed(&self, args: &[Vec<CpuBuffer>]) -> Result<Vec<Vec<CpuBuffer>>> {
        self.check_args(args.len(), |p| args[p].iter())?;
        let inputs = args
            .iter()
            .map(|a| a.iter().map(ValueArg::Buffer).collect())
            .collect();
        self.run(inputs)
    }

    /// As [`SpmdExecutable::execute_borrowed`], each argument borrowed on its own
    /// (`args[flat process index][argument]`): buffers that live in other structures (the
    /// runtime's device buffers) run without being copied or moved.
    ///
    /// ```
    /// use systolic_cpu::{compile_spmd, CompileOptions, CpuBuffer};
    /// use systolic_ir::ProcessGrid;
    /// let module = systolic_ir::text::parse_module(
    ///     r#"module attributes {mhlo.num_partitions = 2 : i32} {
    ///        func.func @main(%x: tensor<2xf32>) -> tensor<4xf32> {
    ///          %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
    ///              replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    ///              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
    ///              use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    ///          return %0 : tensor<4xf32>
    ///        }
    ///      }"#,
    ///     "example",
    /// ).unwrap();
    /// let exe = compile_spmd(&module, ProcessGrid::new(1, 2), &CompileOptions::default()).unwrap();
    /// let (a, b) = (CpuBuffer::from_f32(vec![2], vec![1.0, 2.0]), CpuBuffer::from_f32(vec![2], vec![3.0, 4.0]));
    /// let out = exe.execute_refs(&[vec![&a], vec![&b]]).unwrap();
    /// assert_eq!(out[1][0].as_f32().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(a.as_f32().unwrap(), &[1.0, 2.0]);
    /// ```
    pub fn execute_refs(&self, args: &[Vec<&CpuBuffer>]) -> Result<Vec<Vec<CpuBuffer>>> {
        self.check_args(args.len(), |p| args[p].iter().copied())?;
        let inputs = args
            .iter()
            .map(|a| a.iter().map(|&b| ValueArg::Buffer(b)).collect())
            .collect();
        self.run(inputs)
    }

    /// Checks the number of argument lists (`lists`) and each process's arguments (`args(p)`).
    fn check_args<'b, I>(&self, lists: usize, args: impl Fn(usize) -> I) -> Result<()>
    where
        I: ExactSizeIterator<Item = &'b CpuBuffer>,
    {
        if lists != self.processes.len() {
            return Err(CpuError::new(format!(
                "{lists} argument lists for the {} processes of a {}×{} grid",
                self.processes.len(),
                self.grid.replicas,
                self.grid.partitions
            )));
        }
        for (p, (id, exe)) in self.grid.processes().zip(&self.processes).enumerate() {
            exe.check_args(args(p)).map_err(|e| in_process(id, e))?;
        }
        Ok(())
    }

    /// An idle crew, or a new one when every crew is busy.
    fn take_crew(&self) -> Result<Crew> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(crew) => Ok(crew),
            None => {
                let grid = self.grid;
                Crew::start(self.processes.len(), |p| {
                    format!("systolic process {}", grid.id(p))
                })
                .map_err(CpuError::new)
            }
        }
    }

    /// Gives a crew back for later executions (or lets it go when enough are idle).
    fn give_back(&self, crew: Crew) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < IDLE_CREWS && crew.len() == self.processes.len() {
            idle.push(crew);
        }
    }

    /// Runs every process on its checked inputs, each on its crew's thread.
    fn run(&self, args: Vec<Vec<ValueArg<'_>>>) -> Result<Vec<Vec<CpuBuffer>>> {
        let rendezvous: Rendezvous<Payload> = Rendezvous::new(self.grid);
        let kernels = self.kernel_threads;
        // Each participant's values count against its device's memory process (entered by
        // the runtime in the participants' order).
        let memory = systolic_trace::memory_pids();
        let jobs: Vec<_> = self
            .grid
            .processes()
            .zip(self.processes.iter().zip(args))
            .enumerate()
            .map(|(k, (id, (exe, mine)))| {
                let rendezvous = &rendezvous;
                let pid = memory.get(k).copied();
                move || {
                    let _memory = pid.map(|p| systolic_trace::MemoryProcess::enter(vec![p]));
                    run_process(rendezvous, id, exe, mine, kernels)
                }
            })
            .collect();
        let crew = self.take_crew()?;
        let outcomes = crew.run(jobs);
        self.give_back(crew);
        let mut results = vec![];
        let mut failures = vec![];
        for (id, outcome) in self.grid.processes().zip(outcomes) {
            match outcome {
                Some(Ok(r)) => results.push(r),
                Some(Err(e)) => failures.push((id, e)),
                None => failures.push((id, CpuError::new("the process's thread panicked"))),
            }
        }
        if let Some((_, first)) = failures.first() {
            let mut error = CpuError {
                op: first.op.clone(),
                span: first.span,
                message: String::new(),
            };
            let lines: Vec<String> = failures
                .iter()
                .map(|(id, e)| format!("process {id}: {e}"))
                .collect();
            error.message = format!(
                "{} of {} processes failed:\n  {}",
                failures.len(),
                self.processes.len(),
                lines.join("\n  ")
            );
            return Err(error);
        }
        Ok(results)
    }
}

/// Runs one process's program on this thread (its kernels where `kernels` says), the
/// rendezvous told how it ended (also on a panic, so that nobody waits for it).
fn run_process(
    rendezvous: &Rendezvous<Payload>,
    id: ProcessId,
    exe: &CpuExecutable,
    inputs: Vec<ValueArg<'_>>,
    kernels: KernelThreads,
) -> Result<Vec<CpuBuffer>> {
    struct Finish<'a> {
        rendezvous: &'a Rendezvous<Payload>,
        id: ProcessId,
        reported: bool,
    }
    impl Drop for Finish<'_> {
        fn drop(&mut self) {
            if !self.reported {
                self.rendezvous
                    .finish(self.id, Err("its thread panicked".into()));
            }
        }
    }
    let mut finish = Finish {
        rendezvous,
        id,
        reported: false,
    };
    let _current = CurrentProcess::enter(rendezvous.process(id));
    let values = match kernels {
        KernelThreads::Pool => exe.program().execute_on_this_thread(inputs),
        KernelThreads::Process => {
            let _flush = crate::threads::DenormalMode::flush();
            exe.program().run(inputs)
        }
    };
    let result = values.and_then(|values| exe.finish(values));
    rendezvous.finish(id, result.as_ref().map(|_| ()).map_err(ToString::to_string));
    finish.reported = true;
    result
}

thread_local! {
    static CURRENT: RefCell<Option<Process<Payload>>> = const { RefCell::new(None) };
}

/// The process this thread runs for, during [`SpmdExecutable::execute`].
pub(crate) fn current_process() -> Option<Process<Payload>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Sets this thread's process while it lives.
struct CurrentProcess {
    saved: Option<Process<Payload>>,
}

impl CurrentProcess {
    fn enter(process: Process<Payload>) -> CurrentProcess {
        CurrentProcess {
            saved: CURRENT.with(|c| c.replace(Some(process))),
        }
    }
}

impl Drop for CurrentProcess {
    fn drop(&mut self) {
        let saved = self.saved.take();
        CURRENT.with(|c| *c.borrow_mut() = saved);
    }
}
