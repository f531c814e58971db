//! `interpreter.run_parallel`: one interpreter per process of a replicas × partitions grid,
//! each on its own thread, meeting at an in-memory rendezvous for collectives.
//!
//! The model is the spec's: every process runs its program on its own; a collective's
//! participants are the process group the op's attributes give it, and a process's n-th
//! collective over a group executes together with the n-th collective over that group of every
//! other member. The rendezvous keys a meeting by (group, n); every participant leaves its
//! operands there and, once all have arrived, takes all of them in group order and computes
//! its own results (so reductions apply in group order on every process, reproducibly).
//!
//! Nothing waits forever: a participant that finished or failed before reaching the meeting,
//! participants that disagree (other ops, operand types, attributes or group), and a state
//! where every unfinished process waits at a meeting that cannot complete (a deadlock) make
//! every waiting participant fail with an error that names the processes. Waits re-check
//! these conditions at least every 50 ms.
//!
//! `stablehlo.send` and `stablehlo.recv` pass messages through one FIFO per channel handle
//! (a receive waits for the oldest message not yet received, and fails once none can come);
//! `stablehlo.infeed` reads the results of the run's `infeed` functions in turn.

use crate::error::{InterpError, Result};
use crate::eval::{CheckOutcome, Interpreter};
use crate::value::Value;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;
use systolic_ir::{Module, ProcessGrid, Tensor, Type};

pub use systolic_ir::collective_groups::{list, ProcessId};

/// How often a waiting participant re-checks whether its meeting can still complete.
const POLL: Duration = Duration::from_millis(50);

/// Stack of each process's thread: the evaluator recurses per call and region.
const STACK_SIZE: usize = 64 << 20;

/// The process an op runs on, under `interpreter.run_parallel` (or one process of another
/// executor's SPMD set, exchanging payloads of type `T`): its ids, the grid's size, and its
/// handle on the rendezvous shared by the grid. Cheap to clone.
pub struct Process<T = Tensor> {
    inner: Arc<ProcessInner<T>>,
}

impl<T> Clone for Process<T> {
    fn clone(&self) -> Self {
        Process {
            inner: Arc::clone(&self.inner),
        }
    }
}

struct ProcessInner<T> {
    id: ProcessId,
    shared: Arc<Shared<T>>,
    /// Per group (sorted flat ids): how many collectives this process ran over it.
    sequence: Mutex<HashMap<Vec<usize>, usize>>,
}

impl<T> fmt::Debug for Process<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Process{}", self.inner.id)
    }
}

/// What one participant brings to a meeting.
pub struct Contribution<T = Tensor> {
    /// The op (`stablehlo.all_reduce`), for messages.
    pub op: String,
    /// Shown when participants disagree: the op and its operand types.
    pub summary: String,
    /// Must be equal for all participants: the op's attributes and operand types.
    pub signature: String,
    /// The values it gives the others.
    pub data: Vec<T>,
}

impl<T: Clone> Process<T> {
    /// This process's ids.
    pub fn id(&self) -> ProcessId {
        self.inner.id
    }

    /// Number of replicas of the grid.
    pub fn num_replicas(&self) -> u32 {
        self.inner.shared.grid.replicas
    }

    /// Number of partitions of the grid.
    pub fn num_partitions(&self) -> u32 {
        self.inner.shared.grid.partitions
    }

    /// The grid.
    pub fn grid(&self) -> ProcessGrid {
        self.inner.shared.grid
    }

    /// Meets the other members of `group` (which holds this process; the order is the group's)
    /// at this process's next collective over that group, and returns every member's data in
    /// group order.
    pub fn exchange(&self, group: &[ProcessId], mine: Contribution<T>) -> Result<Vec<Vec<T>>> {
        let shared = &self.inner.shared;
        let me = shared.flat(self.inner.id);
        let members: Vec<usize> = group.iter().map(|&p| shared.flat(p)).collect();
        let Some(pos) = members.iter().position(|&m| m == me) else {
            crate::bail!(
                "process {} is not in its group [{}]",
                self.inner.id,
                list(group)
            );
        };
        let mut sorted = members.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            crate::bail!("the group [{}] names a process twice", list(group));
        }
        if members.len() == 1 {
            return Ok(vec![mine.data]);
        }
        let seq = {
            let mut counts = self
                .inner
                .sequence
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let n = counts.entry(sorted.clone()).or_insert(0);
            *n += 1;
            *n
        };
        shared.meet((sorted, seq), members, pos, me, mine)
    }

    /// Sends `data` on channel `channel` (to the process that receives on it next).
    pub fn send(&self, channel: i64, data: Vec<T>) {
        let shared = &self.inner.shared;
        let me = shared.flat(self.inner.id);
        let mut st = shared.lock();
        st.channels
            .entry(channel)
            .or_default()
            .push_back((me, data));
        shared.changed.notify_all();
    }

    /// Receives the oldest message not yet received on channel `channel`, waiting for one; an
    /// error when none can come any more (every other process finished, failed or waits).
    pub fn recv(&self, channel: i64) -> Result<Vec<T>> {
        let shared = &self.inner.shared;
        let me = shared.flat(self.inner.id);
        let mut st = shared.lock();
        loop {
            if let Some((_, data)) = st.channels.get_mut(&channel).and_then(VecDeque::pop_front) {
                st.status[me] = Status::Running;
                shared.changed.notify_all();
                return Ok(data);
            }
            st.status[me] = Status::Receiving(channel);
            if st.stuck() {
                let others = shared.whereabouts(&st, (0..st.status.len()).filter(|&p| p != me));
                st.status[me] = Status::Running;
                shared.changed.notify_all();
                crate::bail!(
                    "deadlock: process {} waits to receive on channel {channel}, but nothing more \
                     is sent on it: {}",
                    self.inner.id,
                    others.join("; ")
                );
            }
            shared.changed.notify_all();
            st = shared
                .changed
                .wait_timeout(st, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The next function of the `infeed` queue, if any is left.
    pub fn next_infeed(&self) -> Option<String> {
        self.inner.shared.lock().infeed.pop_front()
    }
}

/// The rendezvous of one grid.
struct Shared<T> {
    grid: ProcessGrid,
    state: Mutex<State<T>>,
    changed: Condvar,
}

/// A meeting: the group's flat ids, sorted, and the how-manieth collective over it.
type Key = (Vec<usize>, usize);

struct State<T> {
    status: Vec<Status>,
    meetings: HashMap<Key, Meeting<T>>,
    infeed: VecDeque<String>,
    /// Messages sent and not yet received, per channel handle: sender and tensors.
    channels: HashMap<i64, VecDeque<(usize, Vec<T>)>>,
}

#[derive(Clone, Debug)]
enum Status {
    Running,
    Waiting(Key),
    Receiving(i64),
    Done,
    Failed(String),
}

impl<T> State<T> {
    /// True when a process with this status may still make progress by itself.
    fn may_progress(&self, status: &Status) -> bool {
        match status {
            Status::Running => true,
            Status::Waiting(k) => self
                .meetings
                .get(k)
                .is_none_or(|m| m.complete() || m.error.is_some()),
            Status::Receiving(ch) => self.channels.get(ch).is_some_and(|q| !q.is_empty()),
            Status::Done | Status::Failed(_) => false,
        }
    }

    /// True when no process can make progress: every one has finished, failed, or waits for
    /// something that cannot come.
    fn stuck(&self) -> bool {
        !self.status.iter().any(|s| self.may_progress(s))
    }
}

struct Meeting<T> {
    /// The op of the first participant to arrive.
    op: String,
    /// The group in the order the first participant gave.
    order: Vec<usize>,
    arrivals: Vec<Option<Contribution<T>>>,
    taken: usize,
    error: Option<String>,
}

impl<T> Meeting<T> {
    fn complete(&self) -> bool {
        self.arrivals.iter().all(Option::is_some)
    }
}

impl<T: Clone> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn flat(&self, p: ProcessId) -> usize {
        self.grid.flat(p)
    }

    fn id(&self, flat: usize) -> ProcessId {
        self.grid.id(flat)
    }

    fn ids(&self, flats: &[usize]) -> String {
        list(&flats.iter().map(|&f| self.id(f)).collect::<Vec<_>>())
    }

    fn meet(
        &self,
        key: Key,
        members: Vec<usize>,
        pos: usize,
        me: usize,
        mine: Contribution<T>,
    ) -> Result<Vec<Vec<T>>> {
        let mut st = self.lock();
        let meeting = st.meetings.entry(key.clone()).or_insert_with(|| Meeting {
            op: mine.op.clone(),
            order: members.clone(),
            arrivals: (0..members.len()).map(|_| None).collect(),
            taken: 0,
            error: None,
        });
        if meeting.error.is_none() {
            meeting.error = self.disagreement(meeting, &members, me, &mine);
        }
        meeting.arrivals[pos] = Some(mine);
        st.status[me] = Status::Waiting(key.clone());
        self.changed.notify_all();
        loop {
            let meeting = st
                .meetings
                .get_mut(&key)
                .expect("a meeting lives until all took");
            if let Some(e) = meeting.error.clone() {
                st.status[me] = Status::Running;
                self.changed.notify_all();
                return Err(InterpError::new(e));
            }
            if meeting.complete() {
                let data = meeting
                    .arrivals
                    .iter()
                    .map(|a| a.as_ref().map(|c| c.data.clone()).unwrap_or_default())
                    .collect();
                meeting.taken += 1;
                if meeting.taken == meeting.arrivals.len() {
                    st.meetings.remove(&key);
                }
                st.status[me] = Status::Running;
                self.changed.notify_all();
                return Ok(data);
            }
            if let Some(e) = self.cannot_complete(&st, &key) {
                let meeting = st.meetings.get_mut(&key).expect("present");
                meeting.error = Some(e);
                self.changed.notify_all();
                continue;
            }
            st = self
                .changed
                .wait_timeout(st, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Why a participant arriving with `mine` disagrees with those already at the meeting.
    fn disagreement(
        &self,
        meeting: &Meeting<T>,
        members: &[usize],
        me: usize,
        mine: &Contribution<T>,
    ) -> Option<String> {
        let who = self.id(me);
        if meeting.order != members {
            return Some(format!(
                "processes disagree on the group: {} runs {} over [{}], but {} was reached over \
                 [{}]",
                who,
                mine.op,
                self.ids(members),
                meeting.op,
                self.ids(&meeting.order)
            ));
        }
        for (i, other) in meeting.arrivals.iter().enumerate() {
            let Some(other) = other else { continue };
            if other.signature == mine.signature {
                continue;
            }
            let them = self.id(meeting.order[i]);
            let what = if other.summary != mine.summary {
                format!(
                    "{} runs {}, {} runs {}",
                    them, other.summary, who, mine.summary
                )
            } else {
                format!(
                    "both run {}, with different attributes: {} has {}, {} has {}",
                    mine.summary, them, other.signature, who, mine.signature
                )
            };
            return Some(format!(
                "processes {them} and {who} of group [{}] disagree at this collective: {what}",
                self.ids(members)
            ));
        }
        None
    }

    /// Why the meeting `key` can never complete, if so: a missing member finished or failed,
    /// or every unfinished process waits at a meeting that cannot complete (a deadlock).
    fn cannot_complete(&self, st: &State<T>, key: &Key) -> Option<String> {
        let meeting = &st.meetings[key];
        let waiting: Vec<usize> = meeting
            .order
            .iter()
            .zip(&meeting.arrivals)
            .filter(|(_, a)| a.is_some())
            .map(|(&m, _)| m)
            .collect();
        let missing: Vec<usize> = meeting
            .order
            .iter()
            .zip(&meeting.arrivals)
            .filter(|(_, a)| a.is_none())
            .map(|(&m, _)| m)
            .collect();
        let head = format!(
            "processes {} wait here for {} of group [{}]",
            self.ids(&waiting),
            self.ids(&missing),
            self.ids(&meeting.order)
        );
        let mut gone = vec![];
        for &m in &missing {
            match &st.status[m] {
                Status::Done => gone.push(format!(
                    "{} finished its program without reaching this collective",
                    self.id(m)
                )),
                Status::Failed(why) => gone.push(format!(
                    "{} failed before reaching this collective: {why}",
                    self.id(m)
                )),
                _ => {}
            }
        }
        if !gone.is_empty() {
            return Some(format!("{head}, but {}", gone.join("; ")));
        }
        if !st.stuck() {
            return None;
        }
        let whereabouts = self.whereabouts(st, missing.iter().copied());
        Some(format!("deadlock: {head}, but {}", whereabouts.join("; ")))
    }

    /// Where each of `processes` is, for a deadlock message.
    fn whereabouts(&self, st: &State<T>, processes: impl Iterator<Item = usize>) -> Vec<String> {
        processes
            .map(|m| match &st.status[m] {
                Status::Waiting(k) => match st.meetings.get(k) {
                    Some(other) => format!(
                        "{} waits at {} over [{}]",
                        self.id(m),
                        other.op,
                        self.ids(&other.order)
                    ),
                    None => format!("{} is leaving a collective", self.id(m)),
                },
                Status::Receiving(ch) => {
                    format!("{} waits to receive on channel {ch}", self.id(m))
                }
                Status::Running => format!("{} is running", self.id(m)),
                Status::Done => format!("{} has finished", self.id(m)),
                Status::Failed(_) => format!("{} has failed", self.id(m)),
            })
            .collect()
    }

    fn finish(&self, me: usize, outcome: Status) {
        let mut st = self.lock();
        st.status[me] = outcome;
        self.changed.notify_all();
    }
}

/// The rendezvous of one run of a grid of processes, for executors other than the
/// interpreter's own `run_parallel` (the CPU backend's SPMD executables), exchanging values of
/// type `T`: the same meetings, group-order results, disagreement and deadlock errors.
///
/// Make one per run; give each process its [`Process`] handle, and report each process's end
/// with [`Rendezvous::finish`] (also when it fails or panics: the others waiting for it then
/// fail instead of waiting).
pub struct Rendezvous<T = Tensor> {
    shared: Arc<Shared<T>>,
}

impl<T: Clone> Rendezvous<T> {
    /// A rendezvous for every process of `grid`, all running.
    pub fn new(grid: ProcessGrid) -> Rendezvous<T> {
        Rendezvous {
            shared: Arc::new(Shared {
                grid,
                state: Mutex::new(State {
                    status: vec![Status::Running; grid.len()],
                    meetings: HashMap::new(),
                    infeed: VecDeque::new(),
                    channels: HashMap::new(),
                }),
                changed: Condvar::new(),
            }),
        }
    }

    /// The handle of process `id` (its collective counts start at zero).
    pub fn process(&self, id: ProcessId) -> Process<T> {
        Process {
            inner: Arc::new(ProcessInner {
                id,
                shared: Arc::clone(&self.shared),
                sequence: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Records that process `id` finished (`Ok`) or failed (`Err`, why): members waiting for
    /// it at a meeting it never reaches fail, naming it.
    pub fn finish(&self, id: ProcessId, outcome: std::result::Result<(), String>) {
        let me = self.shared.flat(id);
        let status = match outcome {
            Ok(()) => Status::Done,
            Err(why) => Status::Failed(why),
        };
        self.shared.finish(me, status);
    }
}

/// Marks a process failed if its thread ends without reporting (a panic).
struct FinishGuard<'a, T: Clone> {
    shared: &'a Shared<T>,
    me: usize,
    reported: bool,
}

impl<T: Clone> Drop for FinishGuard<'_, T> {
    fn drop(&mut self) {
        if !self.reported {
            self.shared
                .finish(self.me, Status::Failed("its interpreter panicked".into()));
        }
    }
}

/// Runs `programs[replica][partition]` of `module` as `interpreter.run_parallel` does, each
/// process on its own arguments (`args[flat process index]`), and returns each process's
/// results in process order: the oracle compiled SPMD executables are compared with.
pub fn run_programs(
    module: &Module,
    programs: &[Vec<String>],
    args: Vec<Vec<Value>>,
) -> Result<Vec<Vec<Value>>> {
    let names: Vec<&String> = programs.iter().flatten().collect();
    if args.len() != names.len() {
        crate::bail!(
            "{} argument lists for {} processes",
            args.len(),
            names.len()
        );
    }
    let mut counts = vec![];
    let mut result_types = vec![];
    for name in &names {
        let Some(func) = module.func(name) else {
            crate::bail!("@{name} is not in the module");
        };
        counts.push(func.result_types.len());
        result_types.extend(func.result_types.iter().cloned());
    }
    let flat = args.into_iter().flatten().collect();
    let mut checks = vec![];
    let mut results =
        run_parallel(module, programs, &[], flat, &result_types, &mut checks)?.into_iter();
    Ok(counts
        .into_iter()
        .map(|n| results.by_ref().take(n).collect())
        .collect())
}

/// Runs `programs[replica][partition]` on one thread per process, each with its share of
/// `args` (taken in process order, as many as its function has parameters); returns their
/// results concatenated in process order, and appends their check outcomes to `checks`.
pub(crate) fn run_parallel(
    module: &Module,
    programs: &[Vec<String>],
    infeed: &[String],
    args: Vec<Value>,
    result_types: &[Type],
    checks: &mut Vec<CheckOutcome>,
) -> Result<Vec<Value>> {
    let partitions = programs.first().map_or(0, Vec::len);
    if partitions == 0 || programs.iter().any(|row| row.len() != partitions) {
        crate::bail!(
            "`programs` must be a non-empty grid (each replica the same number of partitions)"
        );
    }
    let mut args = args.into_iter();
    let mut jobs = vec![];
    for (r, row) in programs.iter().enumerate() {
        for (p, name) in row.iter().enumerate() {
            let Some(func) = module.func(name) else {
                crate::bail!("process ({r}, {p}) runs @{name}, which is not in the module");
            };
            let n = func.params().len();
            let mine: Vec<Value> = args.by_ref().take(n).collect();
            if mine.len() != n {
                crate::bail!("too few operands: @{name} of process ({r}, {p}) takes {n}");
            }
            jobs.push((name.as_str(), mine));
        }
    }
    if args.next().is_some() {
        crate::bail!("more operands than the programs take");
    }
    let shared = Shared {
        grid: ProcessGrid::new(programs.len() as u32, partitions as u32),
        state: Mutex::new(State {
            status: vec![Status::Running; jobs.len()],
            meetings: HashMap::new(),
            infeed: infeed.iter().cloned().collect(),
            channels: HashMap::new(),
        }),
        changed: Condvar::new(),
    };
    let shared = Arc::new(shared);
    // Every process computes as the thread that started the run does.
    let mode = systolic_ir::numerics::mode();
    let printing = crate::print_sink::settings();
    let outcomes: Vec<(Result<Vec<Value>>, Vec<CheckOutcome>)> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .into_iter()
            .enumerate()
            .map(|(me, (name, mine))| {
                let shared = Arc::clone(&shared);
                let id = shared.id(me);
                let printing = printing.clone();
                std::thread::Builder::new()
                    .name(format!("process {id}"))
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(s, move || {
                        crate::print_sink::install(printing);
                        systolic_ir::numerics::with_mode(mode, || {
                            let mut guard = FinishGuard {
                                shared: &shared,
                                me,
                                reported: false,
                            };
                            let process = Process {
                                inner: Arc::new(ProcessInner {
                                    id,
                                    shared: Arc::clone(&shared),
                                    sequence: Mutex::new(HashMap::new()),
                                }),
                            };
                            let mut interp = Interpreter::with_process(module, process);
                            let result = interp.call(name, mine);
                            let status = match &result {
                                Ok(_) => Status::Done,
                                Err(e) => Status::Failed(e.to_string()),
                            };
                            shared.finish(me, status);
                            guard.reported = true;
                            (result, interp.take_checks())
                        })
                    })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| {
                    (
                        Err(InterpError::new("the process's interpreter panicked")),
                        vec![],
                    )
                }),
                Err(e) => (
                    Err(InterpError::new(format!("could not start a thread: {e}"))),
                    vec![],
                ),
            })
            .collect()
    });
    let mut results = vec![];
    let mut failures = vec![];
    for (me, (result, process_checks)) in outcomes.into_iter().enumerate() {
        checks.extend(process_checks);
        match result {
            Ok(values) => results.extend(values),
            Err(e) => failures.push(format!("process {}: {e}", shared.id(me))),
        }
    }
    if !failures.is_empty() {
        crate::bail!(
            "{} of {} processes failed:\n  {}",
            failures.len(),
            shared.status_len(),
            failures.join("\n  ")
        );
    }
    if results.len() != result_types.len() {
        crate::bail!(
            "the programs returned {} values, the op declares {} results",
            results.len(),
            result_types.len()
        );
    }
    Ok(results)
}

impl<T: Clone> Shared<T> {
    fn status_len(&self) -> usize {
        self.lock().status.len()
    }
}
