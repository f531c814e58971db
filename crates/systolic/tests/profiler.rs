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

/// On a simulated TPU, a batch put on the chip ahead of its step (`prefetch_to_device`) moves
/// over PCIe on the chip's host→device DMA engine while the step before it computes, so the
/// chip's clock gains exactly the hidden transfers: with `b` batches of transfer time `t`, a
/// step of `s` and a read-back of the loss of `r` (the host waits for it every step), no
/// prefetching takes `b × (t + s + r)` and prefetching 2 takes `t + b × (s + r)` when
/// `t ≤ s + r`. The trace draws the transfers on the chip's DMA track, overlapping its
/// executions. (`tpu:v5e:0` is this binary's alone.)
#[test]
fn prefetching_to_a_simulated_tpu_hides_its_transfers_behind_the_steps_exactly() {
    use systolic::data::{Dataset, HostArray};
    if std::env::var_os("SYSTOLIC_TPUS").is_some() {
        return; // the default chips are not there
    }
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    const BATCHES: usize = 6;
    const ROWS: usize = 8;
    const WIDTH: usize = 2048;
    let device = systolic::device("tpu:v5e:0").unwrap();
    let pcie = device.chip().unwrap().pcie_bandwidth.value.unwrap();
    let w = Array::from_vec(
        (0..WIDTH * WIDTH)
            .map(|i| ((i % 13) as f32 - 6.0) * 1e-3)
            .collect(),
        &[WIDTH as i64, WIDTH as i64],
    )
    .device_put(device)
    .unwrap();
    let f = jit(|(w, x): &(Array, Array)| jnp::sum(&jnp::tanh(&jnp::matmul(x, w)), None, false));
    let batches = || {
        let n = BATCHES * ROWS;
        let x = HostArray::from_vec(
            (0..n * WIDTH).map(|i| (i % 7) as f32 * 0.1).collect(),
            &[n as i64, WIDTH as i64],
        )
        .unwrap();
        Dataset::from_tensor_slices(x).batch(ROWS, true)
    };
    // Warm up: compile, and leave the host waiting for the chip (the clock is then settled).
    let x0 = batches().iter().next().unwrap().unwrap();
    let warm = f.call(&(w.clone(), x0.to_array(device).unwrap())).unwrap();
    warm.to_vec::<f32>().unwrap();
    let step_s = {
        let c = device.simulated_clock().unwrap();
        let before = c.compute_s;
        f.call(&(w.clone(), x0.to_array(device).unwrap()))
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        device.simulated_clock().unwrap().compute_s - before
    };
    let t = (ROWS * WIDTH * 4) as f64 / pcie;
    let r = 4.0 / pcie;
    // Preconditions of the formulas below (and of every prefetched transfer falling inside a
    // step, whichever moment the prefetch thread asks for it).
    assert!(
        2.0 * t <= step_s,
        "the test needs a step longer than two transfers: {t} vs {step_s}"
    );

    let run = |prefetch: usize| -> (f64, Vec<f32>) {
        let before = device.simulated_clock().unwrap();
        let mut losses = vec![];
        let mut step = |x: Array| {
            let l = f.call(&(w.clone(), x)).unwrap();
            losses.push(l.to_vec::<f32>().unwrap()[0]);
        };
        if prefetch == 0 {
            for batch in batches().iter() {
                step(batch.unwrap().to_array(device).unwrap());
            }
        } else {
            for x in batches().prefetch_to_device(prefetch, device).iter() {
                step(x.unwrap());
            }
        }
        let after = device.simulated_clock().unwrap();
        assert_eq!(after.executions - before.executions, BATCHES as u64);
        (after.time_s - before.time_s, losses)
    };
    let b = BATCHES as f64;
    let close = |got: f64, want: f64| (got - want).abs() <= 1e-12 * want.max(1e-6);
    let (plain, plain_losses) = run(0);
    assert!(
        close(plain, b * (t + step_s + r)),
        "{plain} vs {}",
        b * (t + step_s + r)
    );
    let ((ahead, ahead_losses), path) = profiler::trace(
        std::env::temp_dir().join(format!("systolic-dma-{}.json", std::process::id())),
        || run(2),
    )
    .unwrap();
    assert!(
        close(ahead, t + b * (step_s + r)),
        "{ahead} vs {}",
        t + b * (step_s + r)
    );
    assert!(
        close(plain - ahead, (b - 1.0) * t),
        "gain {}",
        plain - ahead
    );
    assert_eq!(plain_losses, ahead_losses);

    // The trace: the chip's transfers on its DMA track, all but the first inside a step.
    let trace = Trace::read(&path).unwrap();
    check_tracks(&trace);
    let dma_tid = trace
        .events
        .iter()
        .find(|e| {
            e.phase == Phase::Metadata
                && e.pid > systolic_trace::DEVICE_PID
                && e.arg_str("name") == Some("DMA host→device (PCIe)")
        })
        .map(|e| (e.pid, e.tid))
        .expect("a DMA track on the chip");
    let on_chip = |category: &str| -> Vec<&Event> {
        spans(&trace, category)
            .into_iter()
            .filter(|e| e.pid == dma_tid.0)
            .collect()
    };
    let transfers: Vec<&Event> = on_chip(cat::TRANSFER)
        .into_iter()
        .filter(|e| e.tid == dma_tid.1)
        .collect();
    assert_eq!(transfers.len(), BATCHES);
    assert!(transfers
        .iter()
        .all(|e| e.arg_u64("bytes") == Some((ROWS * WIDTH * 4) as u64)));
    let executions = on_chip(cat::EXECUTE);
    assert_eq!(executions.len(), BATCHES);
    let hidden = transfers
        .iter()
        .filter(|x| executions.iter().any(|e| inside(x, e)))
        .count();
    assert_eq!(hidden, BATCHES - 1, "{transfers:?}\n{executions:?}");
    let _ = std::fs::remove_file(&path);
}

/// `named_scope` inside a jitted function names its ops' locations, and the kernels made of
/// them carry the scope path in the trace (a fusion takes its root op's).
#[test]
fn named_scopes_reach_the_kernels_in_a_trace() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let f = jit(|x: &Array| {
        let h = systolic::named_scope("encoder", || {
            systolic::named_scope("mlp", || jnp::tanh(&jnp::matmul(x, x)))
        });
        systolic::named_scope("head", || jnp::sum(&h, None, false))
    });
    let x = Array::from_vec((0..64).map(|i| i as f32 * 0.01).collect(), &[8, 8]);
    let text = f.lower(&x).unwrap().as_text();
    assert!(text.contains(r#"loc("encoder/mlp/dot_general")"#), "{text}");
    assert!(text.contains(r#"loc("head/reduce")"#), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let (y, path) = profiler::trace(dir.path(), || f.call(&x).unwrap()).unwrap();
    y.block_until_ready().unwrap();
    let trace = Trace::read(&path).unwrap();
    let kernels = spans(&trace, cat::KERNEL);
    assert!(
        kernels.iter().any(|k| k.name.starts_with("encoder/mlp/")),
        "{:?}",
        kernels.iter().map(|k| &k.name).collect::<Vec<_>>()
    );
    assert!(
        kernels.iter().any(|k| k.name.starts_with("head/")),
        "{:?}",
        kernels.iter().map(|k| &k.name).collect::<Vec<_>>()
    );
    // Outside any scope, ops have no location and kernels no prefix.
    let g = jit(|x: &Array| jnp::sin(x));
    assert!(!g.lower(&x).unwrap().as_text().contains("loc("));
}
