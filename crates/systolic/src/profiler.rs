//! Traces of a program's run, as JAX's `jax.profiler`: [`start_trace`] / [`stop_trace`], the
//! scoped [`trace`], and [`TraceAnnotation`] for spans of your own.
//!
//! A trace records, on a track per host thread: `jit` calls (cache hit or miss), tracing,
//! each compile (cache hit or miss) with its compiler passes and the lowering to kernels,
//! each execution with one span per kernel (fused kernels named by their ops) and the
//! buffers its values take, host↔device transfers with their bytes, waits, collectives with
//! their bytes and group; simulated TPUs draw on their own clocks as processes of their own.
//! It is written as Chrome trace-event JSON, gzipped, which Perfetto (ui.perfetto.dev) and
//! chrome://tracing open, with an SVG timeline and memory plot beside it;
//! `systolic profile TRACE` summarises it.
//!
//! Tracing is off unless started, and then costs each span site one relaxed atomic load.
//! Kernels are named by the scope path of their ops ([`crate::named_scope`]).
//!
//! ```
//! use systolic::{jit, numpy as jnp, profiler, Array};
//! let dir = tempfile::tempdir().unwrap();
//! let f = jit(|x: &Array| jnp::sin(x) * 2.0);
//! let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
//! let (y, path) = profiler::trace(dir.path(), || {
//!     let _step = profiler::TraceAnnotation::new("step");
//!     f.call(&x).unwrap()
//! })
//! .unwrap();
//! assert_eq!(y.shape(), &[2]);
//! let summary = profiler::summarize(&path).unwrap();
//! assert!(summary.contains("compile"), "{summary}");
//! assert!(path.with_file_name(path.file_name().unwrap().to_str().unwrap().replace(".json.gz", ".svg")).exists());
//! ```

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
pub use systolic_trace::summary::{fmt_bytes, fmt_us, MemoryPeak, ProcessSummary};
use systolic_trace::Span;
pub use systolic_trace::{cat, svg_path, Event, Phase, Trace};
/// The most events a trace records, and how to change it for the traces started afterwards:
/// a session that reaches it records a marker, stops recording (bounded memory on long runs)
/// and its summary warns. Default about a million (`SYSTOLIC_TRACE_MAX_EVENTS` sets it too).
///
/// ```
/// use systolic::profiler;
/// let before = profiler::event_limit();
/// profiler::set_event_limit(5_000_000);
/// assert_eq!(profiler::event_limit(), 5_000_000);
/// profiler::set_event_limit(before);
/// ```
pub use systolic_trace::{event_limit, set_event_limit};

/// Where the running trace will be written.
static TARGET: Mutex<Option<PathBuf>> = Mutex::new(None);

fn err(e: impl std::fmt::Display) -> Error {
    Error::Runtime(format!("profiler: {e}"))
}

/// The file a trace started with `dir` goes to: `dir` itself when it names a `.json` or
/// `.json.gz` file, else `dir/systolic-<seconds since 1970>-<process>.trace.json.gz`.
fn target(dir: &Path) -> Result<PathBuf> {
    let name = dir.to_string_lossy();
    if name.ends_with(".json") || name.ends_with(".json.gz") {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| err(format!("cannot create {}: {e}", parent.display())))?;
        }
        return Ok(dir.to_path_buf());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(dir.join(format!(
        "systolic-{secs}-{}.trace.json.gz",
        std::process::id()
    )))
}

/// Starts recording a trace for [`stop_trace`] to write under `dir` (a directory, or a file
/// ending in `.json` or `.json.gz`). One trace at a time per process.
pub fn start_trace(dir: impl AsRef<Path>) -> Result<()> {
    let path = target(dir.as_ref())?;
    let mut slot = TARGET.lock().unwrap_or_else(|p| p.into_inner());
    systolic_trace::start().map_err(err)?;
    *slot = Some(path);
    Ok(())
}

/// Waits for the work queued so far, stops the trace and writes it, with its SVG picture
/// beside it (`….svg`); returns the trace's path.
pub fn stop_trace() -> Result<PathBuf> {
    crate::core::dispatch::drain();
    let mut slot = TARGET.lock().unwrap_or_else(|p| p.into_inner());
    let trace = Trace::stop().map_err(err)?;
    let path = slot
        .take()
        .ok_or_else(|| err("the trace was not started by profiler::start_trace"))?;
    trace.write_with_svg(&path).map_err(err)?;
    Ok(path)
}

/// Runs `f` under a trace written to `dir` ([`start_trace`], then [`stop_trace`] even when
/// `f` returns an error value); returns what `f` returned and the trace's path.
pub fn trace<T>(dir: impl AsRef<Path>, f: impl FnOnce() -> T) -> Result<(T, PathBuf)> {
    start_trace(dir)?;
    let out = f();
    let path = stop_trace()?;
    Ok((out, path))
}

/// The summary of a trace file, as `systolic profile` prints it: compile against execute
/// time, gaps between executions, the top ops, collectives, transfers and the memory peak.
pub fn summarize(path: impl AsRef<Path>) -> Result<String> {
    Ok(Trace::read(path.as_ref()).map_err(err)?.summary_text())
}

/// A span of your own on the current thread's track, from now until it is dropped (JAX's
/// `jax.profiler.TraceAnnotation`). Costs nothing when no trace is recording.
///
/// ```
/// let _step = systolic::profiler::TraceAnnotation::new("train step");
/// ```
#[must_use = "the annotation spans until it is dropped"]
pub struct TraceAnnotation {
    _span: Span,
}

impl TraceAnnotation {
    /// An annotation named `name`.
    pub fn new(name: &str) -> TraceAnnotation {
        TraceAnnotation {
            _span: Span::lazy(systolic_trace::cat::USER, || name.to_string()),
        }
    }
}

/// Runs `f` inside a [`TraceAnnotation`] named `name` (JAX's `annotate_function`).
///
/// ```
/// let y = systolic::profiler::annotate("load batch", || 41 + 1);
/// assert_eq!(y, 42);
/// ```
pub fn annotate<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let _a = TraceAnnotation::new(name);
    f()
}
