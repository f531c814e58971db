//! `systolic simulate` and `systolic chips` from the outside: the table, the JSON report's
//! values, and the errors.

use crate::common;

use common::{systolic, texts};
use std::path::PathBuf;

/// Writes `src` to a fresh temporary file and returns its directory (kept alive) and path.
fn module_file(src: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("module.mlir");
    std::fs::write(&path, src).unwrap();
    (dir, path)
}

fn matmul(b: u64, d: u64, f: u64) -> String {
    format!(
        "func.func @main(%x: tensor<{b}x{d}xbf16>, %w: tensor<{d}x{f}xbf16>) -> tensor<{b}x{f}xbf16> {{
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{b}x{d}xbf16>, tensor<{d}x{f}xbf16>) -> tensor<{b}x{f}xbf16>
  %1 = stablehlo.tanh %0 : tensor<{b}x{f}xbf16>
  return %1 : tensor<{b}x{f}xbf16>
}}"
    )
}

fn last_line_json(stdout: &str) -> serde_json::Value {
    let last = stdout.lines().last().expect("some output");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("last line is not JSON ({e}): {last}"))
}

#[test]
fn simulate_reports_kernels_step_time_and_hbm_as_json_op_by_op() {
    // Small enough for every block of the product to fit in VMEM at once (no re-reads).
    let (_dir, path) = module_file(&matmul(2048, 4096, 4096));
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v5e",
        "--cost-only",
        "--no-compile",
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("step time:") && stdout.contains("MFU:"),
        "{stdout}"
    );
    let r = last_line_json(&stdout);
    let (b, d, f) = (2048.0, 4096.0, 4096.0);
    let product = 2.0 * b * d * f;
    assert_eq!(r["flops"].as_f64().unwrap(), product + b * f);
    let ops = r["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0]["kind"], "stablehlo.dot_general");
    assert_eq!(ops[0]["bound"], "compute");
    assert_eq!(ops[1]["kind"], "stablehlo.tanh");
    assert_eq!(ops[1]["bound"], "memory");
    for key in ["name", "flops", "bytes", "time_s"] {
        assert!(!ops[0][key].is_null(), "ops[0].{key} missing");
    }
    // The product at v5e's bf16 peak, the tanh at its HBM bandwidth (read + write 16 MiB).
    let product_s = product / 1.97e14;
    let tanh_s = 2.0 * b * f * 2.0 / 8.1e11;
    let time = r["time_s"].as_f64().unwrap();
    assert!((time / (product_s + tanh_s) - 1.0).abs() < 0.02, "{time}");
    // Operands and results, each once: x (16 MiB), w (32 MiB), %0 and %1 (16 MiB each),
    // %0 read again by tanh.
    let hbm = r["hbm_bytes"].as_f64().unwrap();
    assert_eq!(hbm, 2.0 * (b * d + d * f + b * f) + 2.0 * (2.0 * b * f));
    // Peak: x, w and one result buffer (the tanh overwrites the product's result in place).
    assert_eq!(
        r["peak_hbm_bytes"].as_f64().unwrap(),
        2.0 * (b * d + d * f + b * f)
    );
    // MFU: FLOPs over step time at the bf16 peak; the memory-bound tanh costs ~11%.
    let mfu = r["mfu"].as_f64().unwrap();
    assert!((mfu - r["flops"].as_f64().unwrap() / time / 1.97e14).abs() < 1e-12);
    assert!(
        (mfu - product_s / (product_s + tanh_s)).abs() < 0.01,
        "{mfu}"
    );
}

#[test]
fn simulate_compiles_first_so_the_epilogue_fuses_into_the_product() {
    let (_dir, path) = module_file(&matmul(2048, 4096, 4096));
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v5e",
        "--cost-only",
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let r = last_line_json(&stdout);
    let ops = r["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "{ops:?}");
    assert_eq!(ops[0]["kind"], "systolic.fusion(product)");
    let (b, d, f) = (2048.0, 4096.0, 4096.0);
    // x, w and the tanh'd result, each once: the product's result never reaches HBM.
    assert_eq!(
        r["hbm_bytes"].as_f64().unwrap(),
        2.0 * (b * d + d * f + b * f)
    );
    assert_eq!(r["flops"].as_f64().unwrap(), 2.0 * b * d * f + b * f);
}

/// `x @ w` then tanh over f32 inputs, as the simulated TPU computes it at DEFAULT precision:
/// operands rounded to bf16, products accumulated in f32.
fn tpu_reference(x: &[f32], w: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let bf = |v: f32| half::bf16::from_f32(v).to_f32();
    let mut out = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in 0..k {
                acc += bf(x[i * k + p]) * bf(w[p * n + j]);
            }
            out[i * n + j] = acc.tanh();
        }
    }
    out
}

#[test]
fn simulate_without_cost_only_runs_with_tpu_numerics_and_reports_the_clock() {
    let (m, k, n) = (4usize, 8usize, 3usize);
    let src = format!(
        "func.func @main(%x: tensor<{m}x{k}xf32>, %w: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %1 = stablehlo.tanh %0 : tensor<{m}x{n}xf32>
  return %1 : tensor<{m}x{n}xf32>
}}"
    );
    let (dir, path) = module_file(&src);
    let x: Vec<f32> = (0..m * k).map(|i| i as f32 / 7.3).collect();
    let w: Vec<f32> = (0..k * n).map(|i| (i as f32).cos() / 3.1).collect();
    let xf = dir.path().join("x.npy");
    let wf = dir.path().join("w.npy");
    let tensor = |v: &[f32], s: Vec<i64>| systolic_ir::Tensor::from_f32(s, v.to_vec());
    systolic_npy::write(&xf, &tensor(&x, vec![m as i64, k as i64])).unwrap();
    systolic_npy::write(&wf, &tensor(&w, vec![k as i64, n as i64])).unwrap();
    let out_dir = dir.path().join("out");
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v5e",
        "--input",
        xf.to_str().unwrap(),
        "--input",
        wf.to_str().unwrap(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("simulated clock of tpu:v5e:0"), "{stdout}");
    let r = last_line_json(&stdout);
    assert_eq!(r["device"], "tpu:v5e:0");
    let clock = &r["clock"];
    assert_eq!(clock["bytes_to_device"], (4 * (m * k + k * n)) as u64);
    assert_eq!(clock["bytes_from_device"], (4 * m * n) as u64);
    assert_eq!(clock["executions"], 1);
    let total = clock["time_s"].as_f64().unwrap();
    let parts = clock["compute_s"].as_f64().unwrap()
        + clock["host_to_device_s"].as_f64().unwrap()
        + clock["device_to_host_s"].as_f64().unwrap();
    assert!((total - parts).abs() <= 1e-12 * total.max(1.0), "{clock}");
    assert_eq!(
        clock["compute_s"].as_f64().unwrap(),
        r["time_s"].as_f64().unwrap()
    );
    // The numbers are the TPU's: bf16-rounded operands, f32 accumulation.
    let got = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
    let want = tpu_reference(&x, &w, m, k, n);
    for (i, &wv) in want.iter().enumerate() {
        let g = match got.get(i) {
            systolic_ir::Scalar::Float(v) => v as f32,
            other => panic!("{other:?}"),
        };
        assert!((g - wv).abs() <= 2e-6, "element {i}: {g} vs {wv}");
    }
    let f32_sum: f32 = {
        let mut s = 0.0f32;
        for i in 0..m {
            for j in 0..n {
                let acc: f32 = (0..k).map(|p| x[i * k + p] * w[p * n + j]).sum();
                s += acc.tanh();
            }
        }
        s
    };
    let tpu_sum = r["outputs"][0]["sum"].as_f64().unwrap();
    assert!(
        (tpu_sum - f32_sum as f64).abs() > 1e-3,
        "TPU numerics should differ from f32: {tpu_sum} vs {f32_sum}"
    );
}

#[test]
fn simulate_numerical_runs_explain_what_they_need() {
    let (_dir, path) = module_file(&matmul(8, 128, 128));
    let p = path.to_str().unwrap();
    let out = systolic(&["simulate", p, "--chip", "v5e"]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("takes 2 inputs") && stderr.contains("--input"),
        "{stderr}"
    );
    let out = systolic(&["simulate", p, "--chip", "v5e", "--no-compile"]);
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("--no-compile applies to --cost-only"),
        "{stderr}"
    );
    // v2 publishes no PCIe figure: no device, but the cost model still works.
    let out = systolic(&["simulate", p, "--chip", "v2", "--input", "x.npy"]);
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("--cost-only still models it"), "{stderr}");
}

#[test]
fn simulate_errors_name_the_chip_or_the_buffers() {
    let (_dir, path) = module_file(&matmul(8, 128, 128));
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v9",
        "--cost-only",
    ]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("unknown TPU chip `v9`") && stderr.contains("v5e"),
        "{stderr}"
    );

    let (_dir2, big) = module_file(&matmul(65536, 65536, 65536));
    let out = systolic(&[
        "simulate",
        big.to_str().unwrap(),
        "--chip",
        "v5e",
        "--cost-only",
    ]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("RESOURCE_EXHAUSTED"), "{stderr}");
    assert!(
        stderr.contains("%w tensor<65536x65536xbf16> (8.00 GiB)"),
        "{stderr}"
    );
    assert!(stderr.contains("module.mlir"), "{stderr}");
    // With the check off, the report comes with a peak above the capacity.
    let out = systolic(&[
        "simulate",
        big.to_str().unwrap(),
        "--chip",
        "v5e",
        "--cost-only",
        "--ignore-hbm-capacity",
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let r = last_line_json(&stdout);
    assert!(r["peak_hbm_bytes"].as_f64().unwrap() > r["hbm_capacity_bytes"].as_f64().unwrap());
}

#[test]
fn chips_lists_every_generation_with_sources() {
    let out = systolic(&["chips"]);
    let (stdout, _) = texts(&out);
    assert!(out.status.success());
    for name in ["v2", "v3", "v4", "v5e", "v5p", "v6e", "tpu7x"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(name)),
            "{name}: {stdout}"
        );
    }
    let out = systolic(&["chips", "--json"]);
    let (stdout, _) = texts(&out);
    let chips = last_line_json(&stdout);
    let chips = chips.as_array().unwrap();
    assert_eq!(chips.len(), 7);
    let v5e = chips.iter().find(|c| c["name"] == "v5e").unwrap();
    assert_eq!(v5e["peak_bf16_flops"]["value"].as_f64(), Some(1.97e14));
    assert!(v5e["peak_bf16_flops"]["source"]
        .as_str()
        .unwrap()
        .contains("cloud.google.com/tpu/docs/v5e"));
    let tpu7x = chips.iter().find(|c| c["name"] == "tpu7x").unwrap();
    assert!(tpu7x["mxus_per_core"]["value"].is_null());
    assert!(tpu7x["mxus_per_core"]["note"].as_str().is_some());
    let one = systolic(&["chips", "v6e"]);
    let (stdout, _) = texts(&one);
    assert!(
        stdout.contains("v6e") && !stdout.contains("v5p"),
        "{stdout}"
    );
}

#[test]
fn every_jax_golden_simulates_on_every_chip_with_consistent_totals() {
    let chips = ["v2", "v3", "v4", "v5e", "v5p", "v6e", "tpu7x"];
    let mut modules: Vec<PathBuf> = std::fs::read_dir(common::data_dir())
        .unwrap()
        .map(|e| e.unwrap().path().join("module.mlir"))
        .filter(|p| p.exists())
        .collect();
    modules.sort();
    assert!(modules.len() >= 20, "{modules:?}");
    for module in &modules {
        for chip in chips {
            let out = systolic(&[
                "simulate",
                module.to_str().unwrap(),
                "--chip",
                chip,
                "--cost-only",
                "--json",
            ]);
            let (stdout, stderr) = texts(&out);
            assert!(
                out.status.success(),
                "{} on {chip}: {stderr}",
                module.display()
            );
            let r = last_line_json(&stdout);
            let ops = r["ops"].as_array().unwrap();
            let sum = |key: &str| ops.iter().map(|o| o[key].as_f64().unwrap()).sum::<f64>();
            let time = r["time_s"].as_f64().unwrap();
            assert!((time - sum("time_s")).abs() <= 1e-12 * time.max(1.0));
            assert_eq!(r["flops"].as_f64().unwrap(), sum("flops"));
            assert!(
                ops.iter()
                    .all(|o| ["compute", "memory", "overhead"]
                        .contains(&o["bound"].as_str().unwrap()))
            );
            assert!(r["peak_hbm_bytes"].as_f64().unwrap() > 0.0);
        }
    }
}

#[test]
fn simulate_top_shows_the_slowest_kernels_and_time_per_kind() {
    let (_dir, path) = module_file(&matmul(2048, 4096, 4096));
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--chip",
        "v5e",
        "--cost-only",
        "--no-compile",
        "--top",
        "1",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    // Header, the product (the slowest kernel), the count line, then time per kind.
    assert!(
        lines[1].starts_with("%0") && lines[1].contains("compute"),
        "{stdout}"
    );
    assert_eq!(lines[2], "(1 of 2 kernels shown)");
    assert!(
        lines[3].starts_with("time in stablehlo.dot_general:"),
        "{stdout}"
    );
    assert!(lines[4].starts_with("time in stablehlo.tanh:"), "{stdout}");
}

/// Data parallelism on the 8 chips of a v5e 4x2: each chip's weight gradient x^T·dy (f32
/// [4096, 1024], 16 MiB) is summed over all chips by one all_reduce.
const DATA_PARALLEL: &str = r#"module @dp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<256x4096xbf16>, %dy: tensor<256x1024xbf16>) -> tensor<4096x1024xf32> {
    %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<256x4096xbf16>, tensor<256x1024xbf16>) -> tensor<4096x1024xf32>
    %sum = "stablehlo.all_reduce"(%g) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
    return %sum : tensor<4096x1024xf32>
  }
}"#;

#[test]
fn simulate_on_a_slice_times_collectives_per_chip_as_json() {
    let (_dir, path) = module_file(DATA_PARALLEL);
    let out = systolic(&[
        "simulate",
        path.to_str().unwrap(),
        "--slice",
        "v5e:4x2",
        "--cost-only",
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    for text in [
        "all_reduce",
        "slice: v5e:4x2 (8 chips: 1 replica(s) x 8 partition(s))",
        "step time:",
        "0-7",
    ] {
        assert!(stdout.contains(text), "{text}: {stdout}");
    }
    assert!(!stdout.contains("not timed"), "{stdout}");
    let r = last_line_json(&stdout);
    assert_eq!(r["slice"], "v5e:4x2");
    assert_eq!(r["chip"], "v5e");
    assert_eq!(r["num_chips"], 8);
    // FLOPs and peak HBM are one chip's.
    assert_eq!(r["flops"].as_f64().unwrap(), 2.0 * 256.0 * 4096.0 * 1024.0);
    assert!(r["peak_hbm_bytes"].as_f64().unwrap() >= 16.0 * 1024.0 * 1024.0);
    let colls = r["collectives"].as_array().unwrap();
    assert_eq!(colls.len(), 1);
    let c = &colls[0];
    assert_eq!(c["kind"], "all_reduce");
    assert_eq!(c["group_size"], 8);
    assert_eq!(c["bytes"].as_f64().unwrap(), 4096.0 * 1024.0 * 4.0);
    assert_eq!(c["bound"], "bandwidth");
    assert!(c["hops"].as_u64().unwrap() > 0);
    let coll_s = c["time_s"].as_f64().unwrap();
    // A 16 MiB all-reduce over a v5e 4x2 (no wraparound) takes milliseconds.
    assert!(coll_s > 1e-4 && coll_s < 1e-2, "{coll_s}");
    let chips = r["chips"].as_array().unwrap();
    assert_eq!(chips.len(), 8);
    let compute = r["compute_s"].as_f64().unwrap();
    let step = r["time_s"].as_f64().unwrap();
    assert!(((compute + coll_s) / step - 1.0).abs() < 1e-12, "{step}");
    for chip in chips {
        assert_eq!(chip["time_s"].as_f64().unwrap(), step);
        assert_eq!(chip["wait_s"].as_f64().unwrap(), 0.0);
        assert_eq!(chip["collective_s"].as_f64().unwrap(), coll_s);
    }
    assert_eq!(chips[5]["coords"], serde_json::json!([2, 1]));
}

#[test]
fn simulate_on_a_slice_explains_what_does_not_fit() {
    let (_dir, path) = module_file(DATA_PARALLEL);
    let file = path.to_str().unwrap();
    // 8 processes on 32 chips.
    let out = systolic(&["simulate", file, "--slice", "v5e:8x4", "--cost-only"]);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("8 process(es)") && stderr.contains("v5e:8x4 has 32 chip(s)"),
        "{stderr}"
    );
    // A numerical run on a slice is not there yet.
    let out = systolic(&["simulate", file, "--slice", "v5e:4x2"]);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("--slice needs --cost-only"), "{stderr}");
    // One of --chip and --slice.
    let out = systolic(&["simulate", file, "--slice", "v5e:4x2", "--chip", "v5e"]);
    assert!(!out.status.success());
    let out = systolic(&["simulate", file, "--cost-only"]);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("--chip"), "{stderr}");
    // A bad slice names its bad part.
    let out = systolic(&["simulate", file, "--slice", "v5e:4x4x4", "--cost-only"]);
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("2D"), "{stderr}");
}
