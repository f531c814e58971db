//! Traces of jit runs (`profiler`): well-formed trace-event JSON, spans nested on every track,
//! kernels inside their execution and passes inside their compile, the jit cache hit on the
//! second call, transfers' byte counts, and nothing recorded while tracing is off. Its own
//! process: the recorder is process-wide.

use std::collections::BTreeMap;
use std::sync::Mutex;
use systolic::profiler::{self, cat, Event, Phase, Trace};
use systolic::{jit, numpy as jnp, Array};

/// The tests of this binary take turns: one trace per process at a time.
static TURN: Mutex<()> = Mutex::new(());

fn spans<'t>(trace: &'t Trace, category: &str) -> Vec<&'t Event> {
    trace.spans().filter(|e| e.cat == category).collect()
}

/// `inner` lies within `outer` in time (a span recorded with µs rounding to 1 ns).
fn inside(inner: &Event, outer: &Event) -> bool {
    inner.ts >= outer.ts - 1e-3 && inner.end() <= outer.end() + 1e-3
}

/// Every track's spans nest (none overlaps another partly) and start in time order.
fn check_tracks(trace: &Trace) {
    let mut tracks: BTreeMap<(u32, u64), Vec<&Event>> = BTreeMap::new();
    for e in trace.spans() {
        tracks.entry((e.pid, e.tid)).or_default().push(e);
    }
    for (track, spans) in tracks {
        let mut open: Vec<&Event> = vec![];
        let mut last_ts = f64::NEG_INFINITY;
        for e in spans {
            assert!(
                e.ts >= last_ts,
                "track {track:?}: {} starts before its predecessor",
                e.name
            );
            last_ts = e.ts;
            while open.last().is_some_and(|o| e.ts >= o.end() - 1e-3) {
                open.pop();
            }
            if let Some(parent) = open.last() {
                assert!(
                    inside(e, parent),
                    "track {track:?}: {} ({}..{}) overlaps {} ({}..{}) without nesting",
                    e.name,
                    e.ts,
                    e.end(),
                    parent.name,
                    parent.ts,
                    parent.end()
                );
            }
            open.push(e);
        }
    }
}

#[test]
fn a_traced_jit_run_records_compile_passes_kernels_transfers_and_the_cache_hit() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let f = jit(|x: &Array| jnp::sum(&(jnp::sin(x) * x + 1.0), None, false)).named("traced_step");
    let values: Vec<f32> = (0..1000).map(|i| i as f32 / 100.0).collect();
    let ((first, second), path) = profiler::trace(dir.path().join("run.json"), || {
        let x = Array::from_vec(values.clone(), &[10, 100]);
        let first = f.call(&x).unwrap().to_vec::<f32>().unwrap();
        let second = f.call(&x).unwrap().to_vec::<f32>().unwrap();
        (first, second)
    })
    .unwrap();
    assert_eq!(first, second);

    // Well-formed trace-event JSON, read back both raw and as events.
    let text = std::fs::read_to_string(&path).unwrap();
    let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
    let list = raw["traceEvents"].as_array().expect("a traceEvents array");
    for e in list {
        let ph = e["ph"].as_str().unwrap();
        assert!(["X", "i", "C", "M"].contains(&ph), "{e}");
        assert!(e["pid"].is_u64() && e["tid"].is_u64(), "{e}");
        if ph == "X" {
            assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0);
        }
    }
    let trace = Trace::read(&path).unwrap();
    check_tracks(&trace);
    assert!(trace
        .events
        .iter()
        .any(|e| e.phase == Phase::Metadata && e.name == "process_name"));

    // The jit cache: a miss, then a hit; one trace and one compile.
    let calls = spans(&trace, cat::CALL);
    let caches: Vec<&str> = calls.iter().map(|e| e.arg_str("cache").unwrap()).collect();
    assert_eq!(caches, ["miss", "hit"]);
    assert_eq!(calls[0].name, "jit(traced_step)");
    let traces = spans(&trace, cat::TRACE);
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].name, "trace jit(traced_step)");
    let compiles = spans(&trace, cat::COMPILE);
    assert_eq!(compiles.len(), 1);
    assert_eq!(compiles[0].arg_str("cache"), Some("miss"));
    assert!(inside(traces[0], calls[0]) && inside(compiles[0], calls[0]));

    // Every pass and the lowering inside the compile, on its thread.
    let passes = spans(&trace, cat::PASS);
    assert!(passes.len() >= 5, "{} passes", passes.len());
    for p in passes.iter().chain(spans(&trace, cat::LOWER).iter()) {
        assert!(
            p.tid == compiles[0].tid && inside(p, compiles[0]),
            "{}",
            p.name
        );
    }
    assert!(passes.iter().any(|p| p.name == "fusion"));

    // Two executions; every kernel inside a program run on its own thread, and every
    // program run inside an execution.
    let executions = spans(&trace, cat::EXECUTE);
    assert_eq!(executions.len(), 2);
    let runs = spans(&trace, cat::PROGRAM);
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert!(executions.iter().any(|e| inside(r, e)), "{}", r.name);
    }
    let kernels = spans(&trace, cat::KERNEL);
    assert!(kernels.len() >= 2);
    for k in &kernels {
        assert!(
            runs.iter().any(|r| r.tid == k.tid && inside(k, r))
                || executions.iter().any(|e| inside(k, e)),
            "kernel {} outside every execution",
            k.name
        );
    }
    // A fused kernel is named by its ops.
    assert!(
        kernels.iter().any(|k| k.name.contains("sine")),
        "{:?}",
        kernels.iter().map(|k| &k.name).collect::<Vec<_>>()
    );

    // Transfers: the argument in (1000 f32), each scalar result out.
    let transfers = spans(&trace, cat::TRANSFER);
    let bytes = |dir: &str| -> Vec<u64> {
        transfers
            .iter()
            .filter(|t| t.arg_str("direction") == Some(dir))
            .map(|t| t.arg_u64("bytes").unwrap())
            .collect()
    };
    assert_eq!(bytes("host_to_device"), [4000]);
    assert_eq!(bytes("device_to_host"), [4, 4]);

    // Memory: every value the runs made was freed again, and the summary has a peak.
    let live: Vec<u64> = trace
        .events
        .iter()
        .filter(|e| e.phase == Phase::Counter)
        .map(|e| e.arg_u64("bytes").unwrap())
        .collect();
    assert!(!live.is_empty() && live.last() == Some(&0), "{live:?}");
    // The argument's device buffer is one of them, with its bytes and type.
    assert!(trace.events.iter().any(|e| e.phase == Phase::Instant
        && e.name == "alloc"
        && e.arg_u64("bytes") == Some(4000)
        && e.arg_str("shape") == Some("tensor<10x100xf32>")
        && e.arg_str("op")
            .is_some_and(|op| op.starts_with("buffer on cpu:"))));
    let summary = trace.summary_text();
    assert!(summary.contains("executions 2"), "{summary}");
    assert!(summary.contains("memory peak"), "{summary}");
    assert!(summary.contains("(1 miss)"), "{summary}");
    let svg = std::fs::read_to_string(systolic_trace::svg_path(&path)).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<rect"), "{svg}");
}

#[test]
fn nothing_is_recorded_while_tracing_is_off() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let f = jit(|x: &Array| jnp::exp(x)).named("untraced");
    let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    assert!(!systolic_trace::enabled());
    let _a = profiler::TraceAnnotation::new("off");
    f.call(&x).unwrap().block_until_ready().unwrap();
    // A trace started afterwards holds none of it.
    let dir = tempfile::tempdir().unwrap();
    let ((), path) = profiler::trace(dir.path().join("empty.json.gz"), || ()).unwrap();
    let trace = Trace::read(&path).unwrap();
    assert_eq!(trace.spans().count(), 0, "{:?}", trace.events);
    assert!(profiler::stop_trace().is_err(), "no trace is on");
}

#[test]
fn annotations_nest_around_the_work_they_name() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    profiler::start_trace(dir.path()).unwrap();
    assert!(
        profiler::start_trace(dir.path()).is_err(),
        "one trace at a time"
    );
    let f = jit(|x: &Array| x * 3.0).named("annotated");
    let x = Array::from_vec(vec![1.0f32; 8], &[8]);
    profiler::annotate("outer step", || {
        f.call(&x).unwrap().block_until_ready().unwrap();
    });
    let path = profiler::stop_trace().unwrap();
    assert!(
        path.to_string_lossy().ends_with(".trace.json.gz"),
        "{}",
        path.display()
    );
    let trace = Trace::read(&path).unwrap();
    let user = spans(&trace, cat::USER);
    assert_eq!(user.len(), 1);
    let call = spans(&trace, cat::CALL)[0];
    assert!(call.tid == user[0].tid && inside(call, user[0]));
}
