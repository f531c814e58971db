//! The process-wide recorder: off by default; a span site then costs one relaxed atomic load.
//!
//! Events go to one buffer behind a mutex while a session is on ([`start`] … [`stop`]). A span
//! records itself when it ends (children before their parents); the writer sorts each track
//! by start time.

use crate::event::{Event, Phase, HOST_PID};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Instant;

static ENABLED: AtomicBool = AtomicBool::new(false);
/// Which session is on: a span opened in one session and closed in another is dropped.
static SESSION: AtomicU64 = AtomicU64::new(0);
static NEXT_TID: AtomicU64 = AtomicU64::new(1);
/// The most events a session records ([`set_event_limit`]); 0: not set yet (the default or
/// [`EVENT_LIMIT_ENV`]).
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// The default of [`event_limit`]: about a million events, a few hundred MB of memory.
pub const DEFAULT_EVENT_LIMIT: usize = 1 << 20;

/// The environment variable that sets [`event_limit`] (a positive integer).
pub const EVENT_LIMIT_ENV: &str = "SYSTOLIC_TRACE_MAX_EVENTS";

/// The name of the marker event a session records when it reaches its limit.
pub const LIMIT_MARKER: &str = "trace event limit reached";

/// The most events a session records: [`set_event_limit`]'s, else `SYSTOLIC_TRACE_MAX_EVENTS`,
/// else [`DEFAULT_EVENT_LIMIT`]. A session that reaches it records a marker event
/// ([`LIMIT_MARKER`], category `limit`, with the limit) and nothing more, so a long traced run
/// holds bounded memory; summaries warn about it.
pub fn event_limit() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        0 => std::env::var(EVENT_LIMIT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(DEFAULT_EVENT_LIMIT),
        n => n,
    }
}

/// Sets [`event_limit`] for the sessions started from now on (at least 2: room for one event
/// and the marker).
pub fn set_event_limit(events: usize) {
    LIMIT.store(events.max(2), Ordering::Relaxed);
}

#[derive(Default)]
struct State {
    /// A session is on (recording, or stopped recording at its limit).
    open: bool,
    /// The session's event limit.
    limit: usize,
    events: Vec<Event>,
    process_names: BTreeMap<u32, String>,
    thread_names: BTreeMap<(u32, u64), String>,
    /// Live bytes per process (the memory counters).
    live: HashMap<u32, i64>,
    next_buffer: u64,
}

fn state() -> MutexGuard<'static, State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// Whether a session is recording. One relaxed load: what every span site pays when tracing
/// is off.
#[inline]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Microseconds since the process's trace origin (host events' clock).
pub fn now_us() -> f64 {
    origin().elapsed().as_secs_f64() * 1e6
}

/// Why a session could not start or stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionError(pub String);

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SessionError {}

/// Starts recording (one session per process at a time, as JAX's profiler).
pub fn start() -> Result<(), SessionError> {
    let mut st = state();
    if st.open {
        return Err(SessionError(
            "a trace is already being recorded; stop it first".into(),
        ));
    }
    origin();
    *st = State {
        open: true,
        limit: event_limit(),
        process_names: [(HOST_PID, "host".to_string())].into(),
        ..State::default()
    };
    SESSION.fetch_add(1, Ordering::Relaxed);
    ENABLED.store(true, Ordering::Relaxed);
    Ok(())
}

/// Stops recording and returns what was recorded (metadata events first, then each track
/// sorted by start, longer spans before the spans they contain).
pub fn stop() -> Result<Vec<Event>, SessionError> {
    let mut st = state();
    if !st.open {
        return Err(SessionError("no trace is being recorded".into()));
    }
    ENABLED.store(false, Ordering::Relaxed);
    let st = std::mem::take(&mut *st);
    let mut out: Vec<Event> = Vec::with_capacity(st.events.len() + 8);
    for (pid, name) in st.process_names {
        out.push(metadata("process_name", pid, 0, name));
    }
    for ((pid, tid), name) in st.thread_names {
        out.push(metadata("thread_name", pid, tid, name));
    }
    let mut events = st.events;
    sort_tracks(&mut events);
    out.extend(events);
    Ok(out)
}

/// Orders events by track, then start, then longest first, so that a parent precedes the
/// spans inside it and timestamps rise on every track.
pub fn sort_tracks(events: &mut [Event]) {
    events.sort_by(|a, b| {
        (a.pid, a.tid)
            .cmp(&(b.pid, b.tid))
            .then(a.ts.total_cmp(&b.ts))
            .then(b.dur.total_cmp(&a.dur))
    });
}

fn metadata(kind: &str, pid: u32, tid: u64, name: String) -> Event {
    let mut args = Map::new();
    args.insert("name".into(), Value::String(name));
    Event {
        phase: Phase::Metadata,
        name: kind.into(),
        cat: String::new(),
        ts: 0.0,
        dur: 0.0,
        pid,
        tid,
        args,
    }
}

thread_local! {
    static TID: Cell<u64> = const { Cell::new(0) };
    /// The session this thread's name was recorded in.
    static NAMED_IN: Cell<u64> = const { Cell::new(0) };
}

/// This thread's track id on the host, its name recorded once per session.
pub fn thread_id() -> u64 {
    let tid = TID.with(|t| {
        if t.get() == 0 {
            t.set(NEXT_TID.fetch_add(1, Ordering::Relaxed));
        }
        t.get()
    });
    let session = SESSION.load(Ordering::Relaxed);
    if NAMED_IN.with(|n| n.replace(session)) != session {
        let name = std::thread::current()
            .name()
            .map_or_else(|| format!("thread {tid}"), str::to_string);
        state().thread_names.insert((HOST_PID, tid), name);
    }
    tid
}

/// Names a process (a simulated chip: `tpu:v5e:0`).
pub fn set_process_name(pid: u32, name: impl Into<String>) {
    if enabled() {
        state().process_names.insert(pid, name.into());
    }
}

/// Names a track of a process (`compute`, `ICI`, `PCIe`).
pub fn set_thread_name(pid: u32, tid: u64, name: impl Into<String>) {
    if enabled() {
        state().thread_names.insert((pid, tid), name.into());
    }
}

/// Records an event (no-op when off).
pub fn record(event: Event) {
    if enabled() {
        push(&mut state(), event);
    }
}

/// Whether `n` more events fit under the session's limit; when they do not, records the
/// marker and stops recording (every span site is then one atomic load again).
fn room(st: &mut State, n: usize) -> bool {
    if !enabled() {
        return false;
    }
    if st.events.len() + n < st.limit {
        return true;
    }
    ENABLED.store(false, Ordering::Relaxed);
    let mut args = Map::new();
    args.insert("limit".into(), st.limit.into());
    args.insert("s".into(), "g".into());
    st.events.push(Event {
        phase: Phase::Instant,
        name: LIMIT_MARKER.into(),
        cat: crate::cat::LIMIT.into(),
        ts: now_us(),
        dur: 0.0,
        pid: HOST_PID,
        tid: 0,
        args,
    });
    false
}

fn push(st: &mut State, event: Event) {
    if room(st, 1) {
        st.events.push(event);
    }
}

/// Records a complete event at an explicit time on an explicit track: what simulated devices
/// use, their clocks being their own.
#[allow(clippy::too_many_arguments)]
pub fn complete(
    pid: u32,
    tid: u64,
    cat: &str,
    name: impl Into<String>,
    ts_us: f64,
    dur_us: f64,
    args: Map<String, Value>,
) {
    record(Event {
        phase: Phase::Complete,
        name: name.into(),
        cat: cat.into(),
        ts: ts_us,
        dur: dur_us,
        pid,
        tid,
        args,
    });
}

/// A buffer came to life on process `pid` at `ts_us` (`None`: now, on the host clock):
/// records an `alloc` instant (id, bytes, shape, the op that made it) and the process's
/// `live bytes` counter. Returns the id to give [`free`]; 0 when off.
pub fn alloc(pid: u32, ts_us: Option<f64>, bytes: u64, shape: &str, op: &str) -> u64 {
    if !enabled() {
        return 0;
    }
    let ts = ts_us.unwrap_or_else(now_us);
    let tid = thread_id();
    let mut st = state();
    st.next_buffer += 1;
    let id = st.next_buffer;
    let mut args = Map::new();
    args.insert("id".into(), id.into());
    args.insert("bytes".into(), bytes.into());
    args.insert("shape".into(), shape.into());
    args.insert("op".into(), op.into());
    memory_event(&mut st, "alloc", pid, tid, ts, args, bytes as i64);
    id
}

/// Buffer `id` (from [`alloc`]) of `bytes` died.
pub fn free(pid: u32, ts_us: Option<f64>, id: u64, bytes: u64) {
    if !enabled() || id == 0 {
        return;
    }
    let ts = ts_us.unwrap_or_else(now_us);
    let tid = thread_id();
    let mut st = state();
    let mut args = Map::new();
    args.insert("id".into(), id.into());
    args.insert("bytes".into(), bytes.into());
    memory_event(&mut st, "free", pid, tid, ts, args, -(bytes as i64));
}

fn memory_event(
    st: &mut State,
    name: &str,
    pid: u32,
    tid: u64,
    ts: f64,
    mut args: Map<String, Value>,
    delta: i64,
) {
    args.insert("s".into(), "t".into());
    if !room(st, 2) {
        return;
    }
    st.events.push(Event {
        phase: Phase::Instant,
        name: name.into(),
        cat: crate::cat::MEMORY.into(),
        ts,
        dur: 0.0,
        pid,
        tid,
        args,
    });
    let live = st.live.entry(pid).or_insert(0);
    *live += delta;
    let mut counter = Map::new();
    counter.insert("bytes".into(), (*live).max(0).into());
    st.events.push(Event {
        phase: Phase::Counter,
        name: "live bytes".into(),
        cat: crate::cat::MEMORY.into(),
        ts,
        dur: 0.0,
        pid,
        tid: 0,
        args: counter,
    });
}

thread_local! {
    /// The processes whose memory this thread's runs count as (see [`MemoryProcess`]).
    static MEMORY_PIDS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Which process the buffers a program makes on this thread count against, while it lives:
/// the runtime enters the device's process around an execution (a CPU device `cpu:k` of a
/// multi-device run is a process of its own, so that each device has its memory track), and
/// the CPU backend records its values' `alloc`/`free` under [`memory_pid`]. For an SPMD
/// execution it enters one process per participant ([`memory_pids`]), in the participants'
/// order, and each participant's thread enters its own. Inert when tracing is off.
#[must_use = "the process applies until the guard is dropped"]
pub struct MemoryProcess {
    previous: Option<Vec<u32>>,
}

impl MemoryProcess {
    /// Counts this thread's runs against `pids` (the first for a single run) until dropped.
    pub fn enter(pids: Vec<u32>) -> MemoryProcess {
        if !enabled() {
            return MemoryProcess { previous: None };
        }
        let previous = MEMORY_PIDS.with(|m| std::mem::replace(&mut *m.borrow_mut(), pids));
        MemoryProcess {
            previous: Some(previous),
        }
    }
}

impl Drop for MemoryProcess {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            MEMORY_PIDS.with(|m| *m.borrow_mut() = previous);
        }
    }
}

/// The process whose memory host CPU device `cpu:index` counts against: the host's for
/// `cpu:0`, [`crate::CPU_DEVICE_PID`]` + index` (named `cpu:index (memory)` in the trace
/// being recorded) for the others of a multi-device run.
pub fn cpu_memory_pid(index: usize) -> u32 {
    if index == 0 {
        return HOST_PID;
    }
    let pid = crate::event::CPU_DEVICE_PID + index as u32;
    set_process_name(pid, format!("cpu:{index} (memory)"));
    pid
}

/// The process this thread's run allocates in: the one [`MemoryProcess`] entered, else the
/// host.
pub fn memory_pid() -> u32 {
    MEMORY_PIDS.with(|m| m.borrow().first().copied().unwrap_or(HOST_PID))
}

/// The processes [`MemoryProcess`] entered on this thread (empty: none).
pub fn memory_pids() -> Vec<u32> {
    MEMORY_PIDS.with(|m| m.borrow().clone())
}

/// A span on this thread's host track, recorded when dropped. Inert (nothing allocated,
/// nothing recorded) when tracing is off.
#[must_use = "a span measures until it is dropped"]
pub struct Span {
    open: Option<Box<Open>>,
}

struct Open {
    session: u64,
    cat: &'static str,
    name: Cow<'static, str>,
    start: f64,
    args: Map<String, Value>,
}

impl Span {
    /// A span named `name` in category `cat`.
    #[inline]
    pub fn new(cat: &'static str, name: &'static str) -> Span {
        if !enabled() {
            return Span { open: None };
        }
        Span::open(cat, Cow::Borrowed(name))
    }

    /// A span whose name is only computed when tracing is on (kernel names are built).
    #[inline]
    pub fn lazy(cat: &'static str, name: impl FnOnce() -> String) -> Span {
        if !enabled() {
            return Span { open: None };
        }
        Span::open(cat, Cow::Owned(name()))
    }

    /// A span that records nothing.
    pub fn none() -> Span {
        Span { open: None }
    }

    fn open(cat: &'static str, name: Cow<'static, str>) -> Span {
        thread_id();
        Span {
            open: Some(Box::new(Open {
                session: SESSION.load(Ordering::Relaxed),
                cat,
                name,
                start: now_us(),
                args: Map::new(),
            })),
        }
    }

    /// Whether this span records (tracing was on when it started): compute costly arguments
    /// only then.
    pub fn is_recording(&self) -> bool {
        self.open.is_some()
    }

    /// Adds an argument (`bytes`, `shape`, `cache`).
    pub fn arg(&mut self, key: &str, value: impl Into<Value>) -> &mut Self {
        if let Some(open) = &mut self.open {
            open.args.insert(key.into(), value.into());
        }
        self
    }

    /// [`Span::arg`] by value, for chaining at the site.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Span {
        self.arg(key, value);
        self
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        if !enabled() || SESSION.load(Ordering::Relaxed) != open.session {
            return;
        }
        let end = now_us();
        let tid = thread_id();
        record(Event {
            phase: Phase::Complete,
            name: open.name.into_owned(),
            cat: open.cat.into(),
            ts: open.start,
            dur: end - open.start,
            pid: HOST_PID,
            tid,
            args: open.args,
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cat;

    /// Tests that record share the one recorder.
    pub(crate) static LOCK: Mutex<()> = Mutex::new(());

    #[test]
    fn off_records_nothing_and_spans_nest_on_their_thread() {
        let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
        {
            let s = Span::new(cat::KERNEL, "before");
            assert!(!s.is_recording());
        }
        assert!(stop().is_err(), "no session is on");
        start().unwrap();
        assert!(start().is_err(), "one session at a time");
        {
            let _outer = Span::new(cat::EXECUTE, "outer");
            let _inner = Span::lazy(cat::KERNEL, || "inner".to_string()).with("bytes", 8u64);
        }
        let id = alloc(HOST_PID, None, 64, "f32[16]", "add");
        free(HOST_PID, None, id, 64);
        let events = stop().unwrap();
        {
            let _after = Span::new(cat::KERNEL, "after");
        }
        let spans: Vec<&Event> = events
            .iter()
            .filter(|e| e.phase == Phase::Complete)
            .collect();
        assert_eq!(spans.len(), 2);
        assert_eq!(
            (spans[0].name.as_str(), spans[1].name.as_str()),
            ("outer", "inner")
        );
        assert!(spans[0].ts <= spans[1].ts && spans[1].end() <= spans[0].end());
        assert_eq!(spans[1].arg_u64("bytes"), Some(8));
        let counters: Vec<u64> = events
            .iter()
            .filter(|e| e.phase == Phase::Counter)
            .map(|e| e.arg_u64("bytes").unwrap())
            .collect();
        assert_eq!(counters, [64, 0]);
        assert!(events
            .iter()
            .any(|e| e.phase == Phase::Metadata && e.name == "thread_name"));
        assert!(!enabled());
    }

    #[test]
    fn a_session_stops_recording_at_its_event_limit_with_a_marker() {
        let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
        set_event_limit(10);
        start().unwrap();
        for _ in 0..20 {
            let _s = Span::new(cat::KERNEL, "k");
        }
        // Recording stopped: span sites are inert again, and memory events too.
        assert!(!enabled());
        assert!(!Span::new(cat::KERNEL, "after").is_recording());
        assert_eq!(alloc(HOST_PID, None, 8, "f32[2]", "x"), 0);
        assert!(start().is_err(), "the session is still open until stopped");
        let events = stop().unwrap();
        set_event_limit(DEFAULT_EVENT_LIMIT);
        let recorded: Vec<&Event> = events
            .iter()
            .filter(|e| e.phase != Phase::Metadata)
            .collect();
        assert_eq!(recorded.len(), 10, "nine spans and the marker");
        let marker = recorded.iter().find(|e| e.cat == cat::LIMIT).unwrap();
        assert_eq!(marker.name, LIMIT_MARKER);
        assert_eq!(marker.arg_u64("limit"), Some(10));
        let text = crate::summary::render(&crate::summary::summarize(&events));
        assert!(
            text.contains("warning: the trace reached its limit of 10 events"),
            "{text}"
        );
        // The next session records again.
        start().unwrap();
        {
            let _s = Span::new(cat::KERNEL, "k");
        }
        assert_eq!(
            stop()
                .unwrap()
                .iter()
                .filter(|e| e.phase == Phase::Complete)
                .count(),
            1
        );
    }
}
