//! Traces of what Systolic does, for Perfetto or chrome://tracing, and summaries of them.
//!
//! Every layer records into one process-wide recorder ([`recorder`]): the front end its
//! tracing and user annotations, the compiler each pass, the runtime compiles (cache hit or
//! miss), executions, transfers and waits, the CPU backend one span per kernel and the
//! buffers it allocates, simulated TPUs their kernels, collectives and PCIe transfers on their
//! own clocks as processes of their own. It sits below every other crate so that the compiler
//! and the backends emit spans without knowing the front end.
//!
//! Off by default: a span site then costs one relaxed atomic load ([`enabled`]).
//!
//! ```
//! use systolic_trace::{cat, Span, Trace};
//! systolic_trace::start().unwrap();
//! {
//!     let _outer = Span::new(cat::USER, "step");
//!     let _inner = Span::new(cat::KERNEL, "add").with("bytes", 64);
//! }
//! let trace = Trace::stop().unwrap();
//! let json = trace.to_json();
//! assert!(json.starts_with("{\"traceEvents\":["));
//! let back = Trace::from_json(&json).unwrap();
//! assert_eq!(back.spans().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["step", "add"]);
//! ```

pub mod event;
pub mod json;
pub mod recorder;
pub mod summary;
pub mod svg;

pub use event::{Event, Phase, CPU_DEVICE_PID, DEVICE_PID, HOST_PID};
pub use json::{write_atomically, TraceIoError};
pub use recorder::{
    alloc, complete, cpu_memory_pid, enabled, event_limit, free, memory_pid, memory_pids, now_us,
    record, set_event_limit, set_process_name, set_thread_name, start, thread_id, MemoryProcess,
    SessionError, Span, DEFAULT_EVENT_LIMIT, EVENT_LIMIT_ENV, LIMIT_MARKER,
};

/// The categories spans are recorded under; summaries and pictures group by them.
pub mod cat {
    /// A front-end call of a `jit` function on the host: tracing and compiling it on a miss,
    /// queuing its execution (argument `cache`: `hit` or `miss`).
    pub const CALL: &str = "call";
    /// Front-end tracing of a function into IR.
    pub const TRACE: &str = "trace";
    /// A compile as a whole (argument `cache`: `hit`, `disk` or `miss`).
    pub const COMPILE: &str = "compile";
    /// One compiler pass.
    pub const PASS: &str = "pass";
    /// Lowering optimised IR to kernels.
    pub const LOWER: &str = "lower";
    /// One execution of a compiled program on a device.
    pub const EXECUTE: &str = "execute";
    /// A program run by the CPU backend (on the thread its kernels run on).
    pub const PROGRAM: &str = "program";
    /// One kernel.
    pub const KERNEL: &str = "kernel";
    /// A collective (bytes, replica groups).
    pub const COLLECTIVE: &str = "collective";
    /// A host↔device transfer (bytes, direction).
    pub const TRANSFER: &str = "transfer";
    /// Waiting for a buffer or another device.
    pub const WAIT: &str = "wait";
    /// A user annotation (`profiler::TraceAnnotation`).
    pub const USER: &str = "user";
    /// Allocations, frees and live-byte counters.
    pub const MEMORY: &str = "memory";
    /// The marker of a session that reached its event limit (`recorder::event_limit`).
    pub const LIMIT: &str = "limit";
}

/// A recorded trace: metadata events first, then each track in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The events.
    pub events: Vec<Event>,
}

impl Trace {
    /// Stops the session ([`start`]) and takes its events.
    pub fn stop() -> Result<Trace, SessionError> {
        recorder::stop().map(|events| Trace { events })
    }

    /// The complete events (spans).
    pub fn spans(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.phase == Phase::Complete)
    }

    /// Per-process summaries.
    pub fn summaries(&self) -> Vec<summary::ProcessSummary> {
        summary::summarize(&self.events)
    }

    /// The summaries as text.
    pub fn summary_text(&self) -> String {
        summary::render(&self.summaries())
    }

    /// The SVG timeline and memory plot.
    pub fn svg(&self) -> String {
        svg::render(&self.events)
    }

    /// Writes the trace to `path` and the picture next to it (`out.json` → `out.svg`,
    /// `out.json.gz` → `out.svg`); returns the picture's path.
    pub fn write_with_svg(
        &self,
        path: &std::path::Path,
    ) -> Result<std::path::PathBuf, TraceIoError> {
        self.write(path)?;
        let svg = svg_path(path);
        write_atomically(&svg, self.svg().as_bytes())
            .map_err(|e| TraceIoError(format!("cannot write {}: {e}", svg.display())))?;
        Ok(svg)
    }
}

/// Where the picture of a trace at `path` goes: the same name, `.json`/`.json.gz` → `.svg`.
pub fn svg_path(path: &std::path::Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".gz")
        .unwrap_or(&name)
        .strip_suffix(".json")
        .unwrap_or(&name);
    path.with_file_name(format!("{stem}.svg"))
}
