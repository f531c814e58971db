//! What a trace says without a viewer: compile against execute time, idle gaps between
//! executions, the top ops, the collective share and the memory peak — per process (the host,
//! each simulated device).

use crate::cat;
use crate::event::{Event, Phase};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// How many ops and buffers a summary lists.
pub const TOP: usize = 10;

/// One process's summary. Times in µs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProcessSummary {
    /// The process id.
    pub pid: u32,
    /// Its name (`host`, `tpu:v5e:0`).
    pub name: String,
    /// Front-end tracing.
    pub trace_us: f64,
    /// Compiles (passes and lowering inside).
    pub compile_us: f64,
    /// Compiles by the `cache` argument (`hit`, `miss`, `disk`).
    pub compiles: BTreeMap<String, u64>,
    /// Executions.
    pub executions: u64,
    /// Time in executions.
    pub execute_us: f64,
    /// Idle time between one execution's end and the next one's start, summed.
    pub gap_us: f64,
    /// The longest such gap.
    pub max_gap_us: f64,
    /// From the first execution's start to the last one's end.
    pub span_us: f64,
    /// Kernels by name: (self time, count), longest first, at most [`TOP`].
    pub top_ops: Vec<(String, f64, u64)>,
    /// All kernels' self time.
    pub kernel_us: f64,
    /// Collectives' time.
    pub collective_us: f64,
    /// Transfers: (time, bytes) host→device and device→host.
    pub transfers: [(f64, u64); 2],
    /// Memory: the peak of live bytes, when and what was alive.
    pub memory: Option<MemoryPeak>,
    /// What makes the numbers incomplete (the trace reached its event limit).
    pub warnings: Vec<String>,
}

/// The moment most bytes were live.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryPeak {
    /// Bytes live at the peak.
    pub bytes: u64,
    /// When, µs.
    pub at_us: f64,
    /// Buffers alive then: (bytes, shape, op), largest first, at most [`TOP`].
    pub buffers: Vec<(u64, String, String)>,
    /// How many buffers were alive then.
    pub count: usize,
}

/// Summaries of every process that did something, host first.
pub fn summarize(events: &[Event]) -> Vec<ProcessSummary> {
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut by_pid: BTreeMap<u32, Vec<&Event>> = BTreeMap::new();
    for e in events {
        if e.phase == Phase::Metadata {
            if e.name == "process_name" {
                if let Some(n) = e.arg_str("name") {
                    names.insert(e.pid, n.to_string());
                }
            }
            continue;
        }
        by_pid.entry(e.pid).or_default().push(e);
    }
    by_pid
        .into_iter()
        .map(|(pid, evs)| {
            let name = names
                .get(&pid)
                .cloned()
                .unwrap_or_else(|| format!("process {pid}"));
            summarize_process(pid, name, &evs)
        })
        .collect()
}

fn summarize_process(pid: u32, name: String, evs: &[&Event]) -> ProcessSummary {
    let mut s = ProcessSummary {
        pid,
        name,
        ..Default::default()
    };
    let spans: Vec<&Event> = evs
        .iter()
        .copied()
        .filter(|e| e.phase == Phase::Complete)
        .collect();
    let mut executions: Vec<(f64, f64)> = vec![];
    for e in &spans {
        match e.cat.as_str() {
            cat::TRACE => s.trace_us += e.dur,
            cat::COMPILE => {
                s.compile_us += e.dur;
                let how = e.arg_str("cache").unwrap_or("miss").to_string();
                *s.compiles.entry(how).or_default() += 1;
            }
            cat::EXECUTE => {
                s.executions += 1;
                s.execute_us += e.dur;
                executions.push((e.ts, e.end()));
            }
            cat::COLLECTIVE => s.collective_us += e.dur,
            cat::TRANSFER => {
                let i = usize::from(e.arg_str("direction") == Some("device_to_host"));
                s.transfers[i].0 += e.dur;
                s.transfers[i].1 += e.arg_u64("bytes").unwrap_or(0);
            }
            _ => {}
        }
    }
    executions.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let (Some(first), Some(last)) = (executions.first(), executions.last()) {
        let end = executions.iter().map(|x| x.1).fold(last.1, f64::max);
        s.span_us = end - first.0;
        let mut reach = first.1;
        for &(start, stop) in &executions[1..] {
            let gap = (start - reach).max(0.0);
            s.gap_us += gap;
            s.max_gap_us = s.max_gap_us.max(gap);
            reach = reach.max(stop);
        }
    }
    let mut ops: HashMap<&str, (f64, u64)> = HashMap::new();
    for (e, own) in self_times(&spans) {
        if e.cat == cat::KERNEL {
            let entry = ops.entry(e.name.as_str()).or_default();
            entry.0 += own;
            entry.1 += 1;
            s.kernel_us += own;
        }
    }
    let mut ops: Vec<(String, f64, u64)> = ops
        .into_iter()
        .map(|(n, (t, c))| (n.to_string(), t, c))
        .collect();
    ops.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ops.truncate(TOP);
    s.top_ops = ops;
    s.memory = memory_peak(evs);
    for e in evs.iter().filter(|e| e.cat == cat::LIMIT) {
        s.warnings.push(format!(
            "the trace reached its limit of {} events at {} and recorded nothing after it: \
             the numbers below cover the run up to then (raise the limit with \
             SYSTOLIC_TRACE_MAX_EVENTS or profiler::set_event_limit)",
            e.arg_u64("limit").unwrap_or(0),
            fmt_us(e.ts)
        ));
    }
    s
}

/// Each kernel's time less the kernels inside it on its track (a `while` step's own time is
/// its loop overhead; its body's kernels count for themselves).
fn self_times<'e>(spans: &[&'e Event]) -> Vec<(&'e Event, f64)> {
    let mut by_track: BTreeMap<u64, Vec<&Event>> = BTreeMap::new();
    for e in spans.iter().filter(|e| e.cat == cat::KERNEL) {
        by_track.entry(e.tid).or_default().push(e);
    }
    let mut out = vec![];
    for (_, mut track) in by_track {
        track.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
        let mut own: Vec<f64> = track.iter().map(|e| e.dur).collect();
        let mut stack: Vec<usize> = vec![];
        for i in 0..track.len() {
            while let Some(&top) = stack.last() {
                if track[i].ts >= track[top].end() {
                    stack.pop();
                } else {
                    break;
                }
            }
            if let Some(&parent) = stack.last() {
                own[parent] -= track[i].dur;
            }
            stack.push(i);
        }
        out.extend(track.into_iter().zip(own.into_iter().map(|t| t.max(0.0))));
    }
    out
}

/// Replays the `alloc`/`free` instants in time order (a free before an alloc at the same
/// moment, as a kernel reusing its operand's storage does).
pub fn memory_peak(evs: &[&Event]) -> Option<MemoryPeak> {
    let mut mem: Vec<&Event> = evs
        .iter()
        .copied()
        .filter(|e| e.phase == Phase::Instant && e.cat == cat::MEMORY)
        .collect();
    if mem.is_empty() {
        return None;
    }
    mem.sort_by(|a, b| {
        a.ts.total_cmp(&b.ts)
            .then((a.name == "alloc").cmp(&(b.name == "alloc")))
    });
    let mut live: BTreeMap<u64, (u64, String, String)> = BTreeMap::new();
    let mut bytes = 0u64;
    let mut peak = MemoryPeak::default();
    let mut at_peak: Vec<(u64, String, String)> = vec![];
    for e in mem {
        let id = e.arg_u64("id").unwrap_or(0);
        if e.name == "alloc" {
            let b = e.arg_u64("bytes").unwrap_or(0);
            let shape = e.arg_str("shape").unwrap_or("").to_string();
            let op = e.arg_str("op").unwrap_or("").to_string();
            bytes += b;
            live.insert(id, (b, shape, op));
            if bytes > peak.bytes {
                peak.bytes = bytes;
                peak.at_us = e.ts;
                at_peak = live.values().cloned().collect();
            }
        } else if let Some((b, _, _)) = live.remove(&id) {
            bytes -= b;
        }
    }
    peak.count = at_peak.len();
    at_peak.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    at_peak.truncate(TOP);
    peak.buffers = at_peak;
    Some(peak)
}

/// µs as the summary prints them: `0.125 µs`, `6.00 µs`, `950 µs`, `12.35 ms`, `1.500 s`
/// (simulated kernels take fractions of a µs).
pub fn fmt_us(us: f64) -> String {
    if us == 0.0 {
        "0 µs".to_string()
    } else if us < 1.0 {
        format!("{us:.3} µs")
    } else if us < 10.0 {
        format!("{us:.2} µs")
    } else if us < 1e3 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.3} s", us / 1e6)
    }
}

/// Bytes with a binary unit.
pub fn fmt_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// The summaries as text, one block per process.
pub fn render(summaries: &[ProcessSummary]) -> String {
    let mut o = String::new();
    for s in summaries {
        let _ = writeln!(o, "== {} ==", s.name);
        for w in &s.warnings {
            let _ = writeln!(o, "warning: {w}");
        }
        if s.trace_us > 0.0 || s.compile_us > 0.0 {
            let how: Vec<String> = s.compiles.iter().map(|(k, v)| format!("{v} {k}")).collect();
            let _ = writeln!(
                o,
                "tracing {}, compile {} ({}), execute {}",
                fmt_us(s.trace_us),
                fmt_us(s.compile_us),
                if how.is_empty() {
                    "none".to_string()
                } else {
                    how.join(", ")
                },
                fmt_us(s.execute_us)
            );
        }
        if s.executions > 0 {
            let _ = writeln!(
                o,
                "executions {} in {}: busy {}, idle between them {} ({:.1}%), longest gap {}",
                s.executions,
                fmt_us(s.span_us),
                fmt_us(s.execute_us),
                fmt_us(s.gap_us),
                pct(s.gap_us, s.span_us),
                fmt_us(s.max_gap_us)
            );
        }
        if s.collective_us > 0.0 {
            // Busy time: the executions' wall time, or — when several threads run kernels at
            // once (an SPMD run's processes) — the kernels' time summed over threads.
            let _ = writeln!(
                o,
                "collectives {} ({:.1}% of busy time)",
                fmt_us(s.collective_us),
                pct(s.collective_us, s.execute_us.max(s.kernel_us))
            );
        }
        for (i, dir) in ["host→device", "device→host"].iter().enumerate() {
            let (t, b) = s.transfers[i];
            if b > 0 || t > 0.0 {
                let _ = writeln!(o, "transfers {dir}: {} in {}", fmt_bytes(b), fmt_us(t));
            }
        }
        if !s.top_ops.is_empty() {
            let _ = writeln!(
                o,
                "top ops (self time, share of {} in kernels):",
                fmt_us(s.kernel_us)
            );
            for (name, t, n) in &s.top_ops {
                let _ = writeln!(
                    o,
                    "  {:>10} {:>5.1}% {:>6}×  {}",
                    fmt_us(*t),
                    pct(*t, s.kernel_us),
                    n,
                    name
                );
            }
        }
        if let Some(m) = &s.memory {
            let _ = writeln!(
                o,
                "memory peak {} at {} (live buffers: {}), largest:",
                fmt_bytes(m.bytes),
                fmt_us(m.at_us),
                m.count
            );
            for (b, shape, op) in &m.buffers {
                let _ = writeln!(o, "  {:>10}  {shape}  from {op}", fmt_bytes(*b));
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::HOST_PID;
    use serde_json::{json, Map, Value};

    fn span(cat: &str, name: &str, ts: f64, dur: f64, tid: u64, args: Value) -> Event {
        Event {
            phase: Phase::Complete,
            name: name.into(),
            cat: cat.into(),
            ts,
            dur,
            pid: HOST_PID,
            tid,
            args: args.as_object().cloned().unwrap_or_else(Map::new),
        }
    }

    fn mem(name: &str, ts: f64, args: Value) -> Event {
        Event {
            phase: Phase::Instant,
            name: name.into(),
            cat: cat::MEMORY.into(),
            ts,
            dur: 0.0,
            pid: HOST_PID,
            tid: 1,
            args: args.as_object().cloned().unwrap(),
        }
    }

    #[test]
    fn gaps_self_times_and_the_memory_peak_are_computed_by_hand() {
        let events = vec![
            span(
                cat::COMPILE,
                "compile",
                0.0,
                100.0,
                1,
                json!({"cache": "miss"}),
            ),
            span(cat::EXECUTE, "execute", 100.0, 50.0, 1, json!({})),
            // A loop kernel of 40 µs holding two body kernels of 10 µs each.
            span(cat::KERNEL, "while", 105.0, 40.0, 2, json!({})),
            span(cat::KERNEL, "add", 110.0, 10.0, 2, json!({})),
            span(cat::KERNEL, "add", 125.0, 10.0, 2, json!({})),
            span(cat::EXECUTE, "execute", 170.0, 30.0, 1, json!({})),
            span(cat::COLLECTIVE, "all_reduce", 175.0, 6.0, 2, json!({})),
            mem(
                "alloc",
                101.0,
                json!({"id": 1, "bytes": 400, "shape": "f32[100]", "op": "a"}),
            ),
            mem(
                "alloc",
                102.0,
                json!({"id": 2, "bytes": 800, "shape": "f32[200]", "op": "b"}),
            ),
            mem("free", 103.0, json!({"id": 1, "bytes": 400})),
            mem(
                "alloc",
                103.0,
                json!({"id": 3, "bytes": 100, "shape": "f32[25]", "op": "c"}),
            ),
        ];
        let s = &summarize(&events)[0];
        assert_eq!(s.compile_us, 100.0);
        assert_eq!(s.compiles.get("miss"), Some(&1));
        assert_eq!((s.executions, s.execute_us), (2, 80.0));
        assert_eq!((s.gap_us, s.max_gap_us, s.span_us), (20.0, 20.0, 100.0));
        assert_eq!(s.collective_us, 6.0);
        assert_eq!(
            s.top_ops,
            vec![("add".to_string(), 20.0, 2), ("while".to_string(), 20.0, 1)]
        );
        let m = s.memory.as_ref().unwrap();
        // The free at 103 comes before the alloc at 103: the peak is 1200 at 102, not 1300.
        assert_eq!((m.bytes, m.at_us, m.count), (1200, 102.0, 2));
        assert_eq!(m.buffers[0], (800, "f32[200]".into(), "b".into()));
    }
}
