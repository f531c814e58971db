//! One trace event, as the Chrome trace-event format has it.

use serde_json::{Map, Value};

/// The process id of the host: its threads are its tracks.
pub const HOST_PID: u32 = 1;

/// The first process id of the host's CPU devices other than `cpu:0` in a multi-device run:
/// `cpu:k` (k ≥ 1) draws its memory as process `CPU_DEVICE_PID + k`; `cpu:0`'s is the host's.
pub const CPU_DEVICE_PID: u32 = 1_000_000;

/// The first process id of simulated devices (a chip with simulator id `n` is `DEVICE_PID + n`).
pub const DEVICE_PID: u32 = 100;

/// What kind of event (the format's `ph`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `X`: a span with a start and a duration.
    Complete,
    /// `i`: a moment (allocations and frees).
    Instant,
    /// `C`: a counter's value from now on (live bytes).
    Counter,
    /// `M`: the name of a process or thread.
    Metadata,
}

impl Phase {
    /// The format's letter.
    pub fn letter(self) -> &'static str {
        match self {
            Phase::Complete => "X",
            Phase::Instant => "i",
            Phase::Counter => "C",
            Phase::Metadata => "M",
        }
    }

    /// The phase of a letter; `None` for the ones Systolic does not read (`B`/`E` pairs, flows).
    pub fn from_letter(s: &str) -> Option<Phase> {
        Some(match s {
            "X" => Phase::Complete,
            "i" | "I" => Phase::Instant,
            "C" => Phase::Counter,
            "M" => Phase::Metadata,
            _ => return None,
        })
    }
}

/// One event. Times are microseconds from the trace's origin.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The kind.
    pub phase: Phase,
    /// What happened: a pass name, a kernel (`fusion.loop(add,exp)`), `alloc`.
    pub name: String,
    /// The category that summaries group by (see [`crate::cat`]).
    pub cat: String,
    /// Start, µs.
    pub ts: f64,
    /// Duration, µs (complete events; 0 otherwise).
    pub dur: f64,
    /// Process: [`HOST_PID`] or a simulated device.
    pub pid: u32,
    /// Thread (track) within the process.
    pub tid: u64,
    /// Details: bytes, shapes, cache hit or miss, the device.
    pub args: Map<String, Value>,
}

impl Event {
    /// The end of a complete event, µs.
    pub fn end(&self) -> f64 {
        self.ts + self.dur
    }

    /// An integer argument.
    pub fn arg_u64(&self, key: &str) -> Option<u64> {
        self.args.get(key).and_then(Value::as_u64)
    }

    /// A string argument.
    pub fn arg_str(&self, key: &str) -> Option<&str> {
        self.args.get(key).and_then(Value::as_str)
    }
}
