//! `--trace` of `systolic run` and `systolic simulate`, and `systolic profile`: the trace
//! files' spans and byte counts, a simulated chip's kernels summing to its step time, and the
//! summary of a small committed trace whose numbers are worked out by hand.

use crate::common;

use common::{data_dir, systolic, texts};
use std::path::PathBuf;
use systolic_trace::{cat, Event, Phase, Trace, CPU_DEVICE_PID, DEVICE_PID, HOST_PID};

const M: usize = 4;
const K: usize = 8;
const N: usize = 3;

/// A product and a tanh over f32 inputs written as `.npy` files; returns the directory, the
/// program and the inputs.
fn program() -> (tempfile::TempDir, PathBuf, [PathBuf; 2]) {
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        "func.func @main(%x: tensor<{M}x{K}xf32>, %w: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %1 = stablehlo.tanh %0 : tensor<{M}x{N}xf32>
  return %1 : tensor<{M}x{N}xf32>
}}"
    );
    let path = dir.path().join("module.mlir");
    std::fs::write(&path, src).unwrap();
    let x: Vec<f32> = (0..M * K).map(|i| i as f32 / 7.0).collect();
    let w: Vec<f32> = (0..K * N).map(|i| (i as f32).cos()).collect();
    let xf = dir.path().join("x.npy");
    let wf = dir.path().join("w.npy");
    systolic_npy::write(
        &xf,
        &systolic_ir::Tensor::from_f32(vec![M as i64, K as i64], x),
    )
    .unwrap();
    systolic_npy::write(
        &wf,
        &systolic_ir::Tensor::from_f32(vec![K as i64, N as i64], w),
    )
    .unwrap();
    (dir, path, [xf, wf])
}

fn spans<'t>(trace: &'t Trace, category: &str) -> Vec<&'t Event> {
    trace.spans().filter(|e| e.cat == category).collect()
}

fn inside(inner: &Event, outer: &Event) -> bool {
    inner.ts >= outer.ts - 1e-3 && inner.end() <= outer.end() + 1e-3
}

fn transfer_bytes(trace: &Trace, pid_from: u32, direction: &str) -> Vec<u64> {
    let mut b: Vec<u64> = spans(trace, cat::TRANSFER)
        .into_iter()
        .filter(|t| t.pid >= pid_from && t.arg_str("direction") == Some(direction))
        .map(|t| t.arg_u64("bytes").unwrap())
        .collect();
    b.sort_unstable();
    b
}

#[test]
fn run_with_trace_writes_spans_a_picture_and_prints_the_summary() {
    let (dir, path, [x, w]) = program();
    let out_trace = dir.path().join("run.json.gz");
    let out = systolic(&[
        "run",
        path.to_str().unwrap(),
        "--input",
        x.to_str().unwrap(),
        "--input",
        w.to_str().unwrap(),
        "--repeat",
        "2",
        "--trace",
        out_trace.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("executions 3"), "{stdout}");
    assert!(stdout.contains("top ops"), "{stdout}");
    assert!(dir.path().join("run.svg").exists());
    let trace = Trace::read(&out_trace).unwrap();
    let compiles = spans(&trace, cat::COMPILE);
    assert_eq!(compiles.len(), 1);
    let passes = spans(&trace, cat::PASS);
    assert!(!passes.is_empty());
    assert!(passes
        .iter()
        .all(|p| p.tid == compiles[0].tid && inside(p, compiles[0])));
    let runs = spans(&trace, cat::PROGRAM);
    assert_eq!(runs.len(), 3);
    for k in spans(&trace, cat::KERNEL) {
        assert!(
            runs.iter().any(|r| r.tid == k.tid && inside(k, r)),
            "{}",
            k.name
        );
    }
    assert_eq!(
        transfer_bytes(&trace, 0, "host_to_device"),
        [4 * K * N, 4 * M * K].map(|b| b as u64)
    );
    assert_eq!(
        transfer_bytes(&trace, 0, "device_to_host"),
        [(4 * M * N) as u64]
    );
}

#[test]
fn a_simulated_chips_kernels_sum_to_its_step_time() {
    let (dir, path, [x, w]) = program();
    // Numerically, on a simulated v5e: the trace's clock is the chip's.
    let out_trace = dir.path().join("sim.json");
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v5e",
        "--input",
        x.to_str().unwrap(),
        "--input",
        w.to_str().unwrap(),
        "--json",
        "--trace",
        out_trace.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let step_us = report["time_s"].as_f64().unwrap() * 1e6;
    let trace = Trace::read(&out_trace).unwrap();
    let on_chip = |c: &str| -> Vec<&Event> {
        spans(&trace, c)
            .into_iter()
            .filter(|e| e.pid > DEVICE_PID)
            .collect()
    };
    let kernels = on_chip(cat::KERNEL);
    assert_eq!(kernels.len(), report["ops"].as_array().unwrap().len());
    let sum: f64 = kernels.iter().map(|k| k.dur).sum();
    assert!(
        (sum - step_us).abs() <= 1e-3 * kernels.len() as f64,
        "{sum} vs {step_us}"
    );
    for k in &kernels {
        let bound = k.arg_str("bound").unwrap();
        assert!(
            ["compute", "memory", "overhead"].contains(&bound),
            "{bound}"
        );
    }
    let executions = on_chip(cat::EXECUTE);
    assert_eq!(executions.len(), 1);
    assert!((executions[0].dur - step_us).abs() < 1e-3);
    assert!(kernels.iter().all(|k| inside(k, executions[0])));
    // The inputs went over PCIe before the step, the output after it.
    assert_eq!(
        transfer_bytes(&trace, DEVICE_PID, "host_to_device"),
        [4 * K * N, 4 * M * K].map(|b| b as u64)
    );
    assert_eq!(
        transfer_bytes(&trace, DEVICE_PID, "device_to_host"),
        [(4 * M * N) as u64]
    );

    // Cost only: the same format, the kernels again summing to the step time.
    let cost_trace = dir.path().join("cost.json");
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v5e",
        "--cost-only",
        "--json",
        "--trace",
        cost_trace.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let trace = Trace::read(&cost_trace).unwrap();
    let sum: f64 = spans(&trace, cat::KERNEL).iter().map(|k| k.dur).sum();
    assert!(
        (sum - report["time_s"].as_f64().unwrap() * 1e6).abs() < 1e-2,
        "{sum}"
    );
}

#[test]
fn profile_summarises_a_small_trace_as_worked_out_by_hand() {
    // tests/data/trace/small.json, by hand: executions at 3–4, 5–6 and 8–9 ms (busy 3 ms, span
    // 6 ms, gaps 1 and 2 ms); per execution a 600 µs fusion and a 300 µs dot; a 200 µs
    // all-reduce (6.7% of the 3 ms busy, more than the 2.7 ms of kernels); buffers of 4 KiB (3.1 ms) and 1 KiB (3.7 ms) live together
    // until 3.9 ms: peak 5 KiB at 3.7 ms. The simulated chip: one 10 µs step, a 6 µs
    // compute-bound dot and a 4 µs memory-bound fusion.
    let dir = data_dir().join("trace");
    let out = systolic(&["profile", dir.join("small.json").to_str().unwrap()]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let expected = std::fs::read_to_string(dir.join("small.summary.txt")).unwrap();
    assert_eq!(stdout, expected);
    let out = systolic(&["profile", dir.join("missing.json").to_str().unwrap()]);
    let (_, stderr) = texts(&out);
    assert!(
        !out.status.success() && stderr.contains("missing.json"),
        "{stderr}"
    );
}

#[test]
fn an_spmd_run_traces_each_processs_collectives_with_bytes_and_group() {
    let dir = data_dir().join("spmd").join("mlp_dp_step");
    let tmp = tempfile::tempdir().unwrap();
    let out_trace = tmp.path().join("spmd.json");
    let inputs: Vec<String> = (0..6)
        .map(|i| dir.join(format!("in{i}.npy")).to_str().unwrap().to_string())
        .collect();
    let mut args: Vec<String> = vec![
        "run".into(),
        dir.join("module.mlir").to_str().unwrap().into(),
    ];
    for i in &inputs {
        args.push("--input".into());
        args.push(i.clone());
    }
    args.push("--trace".into());
    args.push(out_trace.to_str().unwrap().into());
    let out = systolic(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("collectives"), "{stdout}");
    let trace = Trace::read(&out_trace).unwrap();
    assert_eq!(spans(&trace, cat::EXECUTE).len(), 1);
    let collectives = spans(&trace, cat::COLLECTIVE);
    assert!(!collectives.is_empty());
    let kernels = spans(&trace, cat::KERNEL);
    let mut per_process = std::collections::BTreeMap::<String, usize>::new();
    for c in &collectives {
        assert!(c.arg_u64("bytes").unwrap() > 0, "{c:?}");
        // The group of a data-parallel all-reduce: all eight processes.
        assert_eq!(c.arg_str("group").unwrap().matches('(').count(), 8, "{c:?}");
        *per_process
            .entry(c.arg_str("process").unwrap().to_string())
            .or_default() += 1;
        // Inside its kernel, on that process's thread.
        assert!(
            kernels.iter().any(|k| k.tid == c.tid && inside(c, k)),
            "{c:?}"
        );
    }
    assert_eq!(per_process.len(), 8);
    let counts: std::collections::BTreeSet<usize> = per_process.values().copied().collect();
    assert_eq!(
        counts.len(),
        1,
        "every process meets every collective: {per_process:?}"
    );
}

/// `systolic run` of the JAX data-parallel step on 8 host devices, traced; its trace.
fn traced_spmd_run(out_trace: &std::path::Path) -> String {
    let dir = data_dir().join("spmd").join("mlp_dp_step");
    let mut args: Vec<String> = vec![
        "run".into(),
        dir.join("module.mlir").to_str().unwrap().into(),
    ];
    for i in 0..6 {
        args.push("--input".into());
        args.push(dir.join(format!("in{i}.npy")).to_str().unwrap().into());
    }
    args.push("--trace".into());
    args.push(out_trace.to_str().unwrap().into());
    let out = systolic(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    stdout
}

#[test]
fn an_spmd_runs_memory_is_drawn_per_device() {
    let tmp = tempfile::tempdir().unwrap();
    let out_trace = tmp.path().join("spmd.json");
    let stdout = traced_spmd_run(&out_trace);
    // The summary printed at the end of the run has every device's memory.
    for k in 1..8 {
        assert!(
            stdout.contains(&format!("== cpu:{k} (memory) ==")),
            "{stdout}"
        );
    }
    let trace = Trace::read(&out_trace).unwrap();
    // Every buffer is freed on the process it was allocated on, and every alloc of a
    // device's process names that device or an op of its program.
    let mut allocs = std::collections::HashMap::<u64, u32>::new();
    for e in trace
        .events
        .iter()
        .filter(|e| e.phase == Phase::Instant && e.cat == cat::MEMORY)
    {
        let id = e.arg_u64("id").unwrap();
        if e.name == "alloc" {
            allocs.insert(id, e.pid);
            let op = e.arg_str("op").unwrap();
            if let Some(device) = op.strip_prefix("buffer on ") {
                let expect = match device {
                    "cpu:0" => HOST_PID,
                    d => CPU_DEVICE_PID + d.strip_prefix("cpu:").unwrap().parse::<u32>().unwrap(),
                };
                assert_eq!(e.pid, expect, "{e:?}");
            }
        } else {
            assert_eq!(allocs.get(&id), Some(&e.pid), "freed elsewhere: {e:?}");
        }
    }
    let summaries = trace.summaries();
    let mut peaks = vec![];
    for k in 0..8u32 {
        let pid = if k == 0 { HOST_PID } else { CPU_DEVICE_PID + k };
        let s = summaries
            .iter()
            .find(|s| s.pid == pid)
            .unwrap_or_else(|| panic!("no memory process for cpu:{k}: {summaries:?}"));
        let m = s.memory.as_ref().unwrap();
        assert!(m.bytes > 0 && m.count > 0 && !m.buffers.is_empty(), "{s:?}");
        // The buffers alive at the peak are listed with their shapes and the ops that made
        // them, and sum to at most the peak.
        assert!(m
            .buffers
            .iter()
            .all(|(_, shape, op)| shape.starts_with("tensor<") && !op.is_empty()));
        assert!(m.buffers.iter().map(|b| b.0).sum::<u64>() <= m.bytes);
        if k > 0 {
            peaks.push(m.bytes);
        }
    }
    // Seven devices ran the same per-device program on same-shaped shards: the same peak.
    assert!(peaks.windows(2).all(|w| w[0] == w[1]), "{peaks:?}");
}

#[test]
fn a_slice_simulation_traces_every_chip_on_its_own_clock() {
    let dir = tempfile::tempdir().unwrap();
    let out_trace = dir.path().join("slice.json");
    let module = data_dir()
        .join("spmd")
        .join("mlp_dp_step")
        .join("module.mlir");
    let out = systolic(&[
        "simulate",
        module.to_str().unwrap(),
        "--slice",
        "v5e:4x2",
        "--cost-only",
        "--json",
        "--trace",
        out_trace.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let trace = Trace::read(&out_trace).unwrap();
    let chips = report["chips"].as_array().unwrap();
    assert_eq!(chips.len(), 8);
    for chip in chips {
        let pid = DEVICE_PID + chip["device"].as_u64().unwrap() as u32;
        let on = |c: &str| -> Vec<&Event> {
            spans(&trace, c)
                .into_iter()
                .filter(|e| e.pid == pid)
                .collect()
        };
        // The chip's kernels sum to its compute time; its execution spans its whole clock.
        let compute: f64 = on(cat::KERNEL).iter().map(|k| k.dur).sum();
        let expected = chip["compute_s"].as_f64().unwrap() * 1e6;
        assert!((compute - expected).abs() < 1e-2, "{compute} vs {expected}");
        let execution = on(cat::EXECUTE);
        assert_eq!(execution.len(), 1);
        assert!((execution[0].dur - chip["time_s"].as_f64().unwrap() * 1e6).abs() < 1e-2);
        assert_eq!(
            on(cat::COLLECTIVE).len(),
            report["collectives"].as_array().unwrap().len()
        );
    }
}
