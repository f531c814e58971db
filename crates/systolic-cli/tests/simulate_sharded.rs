//! `systolic simulate --slice … --cost-only` on global programs with automatic shardings: the
//! program is partitioned into the per-device program first, then costed on every chip, its
//! collectives on the slice's torus.

use crate::common;

use common::{systolic, texts};
use std::path::Path;

fn last_line_json(stdout: &str) -> serde_json::Value {
    let last = stdout.lines().last().expect("some output");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("last line is not JSON ({e}): {last}"))
}

/// Costs `file` on `slice` and returns the JSON report.
fn cost(file: &Path, slice: &str) -> serde_json::Value {
    let out = systolic(&[
        "simulate",
        file.to_str().unwrap(),
        "--slice",
        slice,
        "--cost-only",
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    last_line_json(&stdout)
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// Two products over a data=4 × model=2 mesh: the first splits its output columns over
/// 'model', the second contracts over them, so each device holds a partial sum that an
/// all_reduce over 'model' completes (Megatron's MLP).
const MLP: &str = r#"module @mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func public @main(%x: tensor<1024x2048xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %w1: tensor<2048x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %w2: tensor<8192x2048xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<1024x2048xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<1024x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<1024x8192xbf16>
    %y = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : (tensor<1024x8192xbf16>, tensor<8192x2048xbf16>) -> tensor<1024x2048xbf16>
    return %y : tensor<1024x2048xbf16>
  }
}"#;

#[test]
fn a_sharded_program_is_partitioned_then_costed_on_every_chip() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mlp.mlir");
    std::fs::write(&file, MLP).unwrap();
    let r = cost(&file, "v5p:2x2x2");
    assert_eq!(r["num_chips"], 8);
    assert_eq!(r["num_partitions"], 8);
    let global = 2.0 * 2.0 * 1024.0 * 2048.0 * 8192.0;
    // Each chip multiplies a quarter of the rows by half of the hidden columns.
    assert_eq!(f(&r["flops"]), global / 8.0);
    assert_eq!(f(&r["model_flops"]), global);
    let colls = r["collectives"].as_array().unwrap();
    assert_eq!(colls.len(), 1, "{colls:?}");
    let c = &colls[0];
    assert_eq!(c["kind"], "all_reduce");
    assert_eq!(c["groups"], 4);
    assert_eq!(c["group_size"], 2);
    // V: each device's partial [256, 2048] bf16 result.
    assert_eq!(f(&c["bytes"]), 256.0 * 2048.0 * 2.0);
    let time = f(&r["time_s"]);
    assert!((time - f(&r["compute_s"]) - f(&c["time_s"])).abs() <= 1e-12 * time);
    let mfu = f(&r["mfu"]);
    assert!(
        (mfu - global / (8.0 * time * 4.59e14)).abs() < 1e-9,
        "{mfu}"
    );
    assert!(f(&r["peak_hbm_bytes"]) > 0.0);
}

#[test]
fn a_mesh_other_than_the_slice_is_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mlp.mlir");
    std::fs::write(&file, MLP).unwrap();
    let out = systolic(&[
        "simulate",
        file.to_str().unwrap(),
        "--slice",
        "v5p:2x2x4",
        "--cost-only",
    ]);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("mesh has 8 device(s)") && stderr.contains("v5p:2x2x4 has 16 chip(s)"),
        "{stderr}"
    );
}

/// The LLaMA-3-70B training steps of `scripts/llama_cost_program.py` (80 layers in a scan,
/// each rematerialised; FSDP over 'data' × tensor parallelism over 'model'; SGD update).
fn llama(name: &str) -> std::path::PathBuf {
    common::data_dir().join("cost").join(format!("{name}.mlir"))
}

const LAYERS: f64 = 80.0;
const D: f64 = 8192.0;
const F: f64 = 28672.0;
const VOCAB: f64 = 128256.0;
const SEQ: f64 = 4096.0;
const V5P_PEAK: f64 = 4.59e14;

/// Parameters: per layer q and o (D × 64·128), k and v (D × 8·128), three D × F feed-forward
/// matrices and two norms; embedding and unembedding; the final norm.
fn parameters() -> f64 {
    let layer = 2.0 * D * 8192.0 + 2.0 * D * 1024.0 + 3.0 * D * F + 2.0 * D;
    LAYERS * layer + 2.0 * VOCAB * D + D
}

/// 6·N·tokens per chip: the book's training FLOPs (forward 2N, backward 4N per token).
fn six_n_t(tokens: f64, chips: f64) -> f64 {
    6.0 * parameters() * tokens / chips
}

#[test]
fn llama3_70b_on_4096_v5p_chips_is_compute_heavy_fits_and_gathers_weights_per_layer() {
    let chips = 4096.0;
    let tokens = 1024.0 * SEQ;
    let r = cost(&llama("llama3_70b_v5p_4096"), "v5p:16x16x16");
    assert_eq!(r["num_chips"], 4096);
    assert!((parameters() / 70.55e9 - 1.0).abs() < 1e-3);
    // 6N·T, plus the rematerialised forward (up to 2N·T) and attention (~7%).
    let flops = f(&r["flops"]);
    let ratio = flops / six_n_t(tokens, chips);
    assert!(
        (1.2..1.45).contains(&ratio),
        "flops per chip {flops:e}: {ratio} x 6NT"
    );
    // Hardly any work is repeated on every chip.
    assert!((f(&r["model_flops"]) / (flops * chips) - 1.0).abs() < 0.01);
    let time = f(&r["time_s"]);
    assert!(time >= flops / V5P_PEAK);
    let mfu = f(&r["mfu"]);
    assert!((0.25..0.7).contains(&mfu), "MFU {mfu}");
    let comm = f(&r["collective_s"]);
    assert!(comm > 0.05 * time && comm < 0.6 * time, "{comm} of {time}");
    assert!((time - f(&r["compute_s"]) - comm).abs() <= 1e-9 * time);
    // Per chip: its parameter shards (bf16) and the 80 saved layer inputs of its sequence.
    let peak = f(&r["peak_hbm_bytes"]);
    let params = 2.0 * parameters() / chips;
    let saved = LAYERS * SEQ * D * 2.0;
    assert!(peak > params + saved, "{peak:e}");
    assert!(peak < f(&r["hbm_capacity_bytes"]), "{peak:e}");
    // FSDP: each layer's weights are gathered over the 1024 'data' chips, in both loops;
    // tensor parallelism: activations summed over the 4 'model' chips, once per layer.
    let colls = r["collectives"].as_array().unwrap();
    let looped = |kind: &str, size: u64| {
        colls
            .iter()
            .filter(|c| c["kind"] == kind && c["group_size"] == size && f(&c["count"]) == LAYERS)
            .count()
    };
    assert!(looped("all_gather", 1024) >= 14, "{colls:?}");
    assert!(looped("all_reduce", 4) >= 2, "{colls:?}");
    // The gathered w_gate of one layer: D × F/4 bf16.
    assert!(colls
        .iter()
        .any(|c| c["kind"] == "all_gather" && f(&c["bytes"]) == D * F / 4.0 * 2.0));
}

#[test]
fn llama3_70b_on_64_chips_does_four_times_the_work_per_chip_and_needs_remat_to_fit() {
    let big = cost(&llama("llama3_70b_v5p_4096"), "v5p:16x16x16");
    let r = cost(&llama("llama3_70b_v5p_64"), "v5p:4x4x4");
    // 4096 tokens per chip instead of 1024: the weights' products scale with the tokens.
    let ratio = f(&r["flops"]) / f(&big["flops"]);
    assert!((ratio - 4.0).abs() < 0.12, "{ratio}");
    let peak = f(&r["peak_hbm_bytes"]);
    // Four sequences' saved layer inputs per chip (the activations are whole over 'model').
    assert!(peak > LAYERS * 4.0 * SEQ * D * 2.0, "{peak:e}");
    assert!(peak < f(&r["hbm_capacity_bytes"]), "{peak:e}");

    // Without rematerialisation every layer's intermediates are saved: out of HBM.
    let file = llama("llama3_70b_v5p_64_noremat");
    let args = [
        "simulate",
        file.to_str().unwrap(),
        "--slice",
        "v5p:4x4x4",
        "--cost-only",
    ];
    let out = systolic(&args);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("RESOURCE_EXHAUSTED") && stderr.contains("v5p"),
        "{stderr}"
    );
    let out = systolic(&[&args[..], &["--ignore-hbm-capacity", "--json"]].concat());
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let n = last_line_json(&stdout);
    assert!(f(&n["peak_hbm_bytes"]) > 4.0 * f(&n["hbm_capacity_bytes"]));
    // ... and the forward pass is not computed twice.
    let remat = f(&r["flops"]) / f(&n["flops"]);
    assert!((1.15..1.4).contains(&remat), "{remat}");
}

/// The slice of `chips` chips the partitioned goldens' meshes run on.
fn slice_of(chips: u64) -> Option<&'static str> {
    Some(match chips {
        2 => "v5e:2x1",
        4 => "v5e:2x2",
        8 => "v5p:2x2x2",
        16 => "v5p:2x2x4",
        _ => return None,
    })
}

#[test]
fn every_partitioned_golden_costs_on_a_slice_with_the_global_programs_flops_as_model_flops() {
    let root = common::data_dir().join("partitioned");
    let mut costed = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let file = dir.join("module.mlir");
        let Ok(meta) = std::fs::read_to_string(dir.join("meta.json")) else {
            continue;
        };
        let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
        let chips: u64 = meta["mesh"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .product();
        let Some(slice) = slice_of(chips) else {
            continue;
        };
        let r = cost(&file, slice);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(r["num_chips"], chips, "{name}");
        // The global program on one chip, from its shapes: the model FLOPs.
        let chip = slice.split(':').next().unwrap();
        let out = systolic(&[
            "simulate",
            file.to_str().unwrap(),
            "--chip",
            chip,
            "--cost-only",
            "--ignore-hbm-capacity",
            "--json",
        ]);
        let (stdout, stderr) = texts(&out);
        assert!(out.status.success(), "{name}: {stderr}");
        let global = last_line_json(&stdout);
        assert_eq!(f(&r["model_flops"]), f(&global["flops"]), "{name}");
        // Every chip does its share at least (replicated work repeats), so MFU <= HFU —
        // except where partitioning changes the algorithm: a cumulative reduce_window (a
        // cumsum) counts window × outputs FLOPs (XLA's count), quadratic in the dimension,
        // and its pieces' windows are shorter, so the chips together do less than the
        // global count.
        let cumulative = std::fs::read_to_string(&file)
            .unwrap()
            .contains("stablehlo.reduce_window");
        let executed = f(&r["flops"]) * chips as f64;
        if !cumulative {
            assert!(
                executed >= f(&r["model_flops"]) * (1.0 - 1e-9),
                "{name}: {r}"
            );
            assert!(f(&r["mfu"]) <= f(&r["hfu"]) * (1.0 + 1e-9), "{name}");
        }
        let time = f(&r["time_s"]);
        let parts = f(&r["compute_s"]) + f(&r["collective_s"]) + f(&r["wait_s"]);
        assert!((time - parts).abs() <= 1e-9 * time, "{name}");
        costed += 1;
    }
    assert!(costed >= 20, "only {costed} partitioned goldens costed");
}

#[test]
fn a_large_array_gathered_whole_is_reported_as_a_warning() {
    // 4 MiB split over 'data', asked for whole on every device: the partitioner gathers it.
    let src = r#"module @gather attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func public @main(%x: tensor<1024x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<1024x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %y = stablehlo.tanh %x : tensor<1024x1024xf32>
    return %y : tensor<1024x1024xf32>
  }
}"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gather.mlir");
    std::fs::write(&file, src).unwrap();
    let out = systolic(&[
        "simulate",
        file.to_str().unwrap(),
        "--slice",
        "v5p:2x2x2",
        "--cost-only",
        "--json",
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("warning: involuntary full rematerialization"),
        "{stdout}"
    );
    let r = last_line_json(&stdout);
    let warnings = r["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("4194304 bytes"));
    // The gather it warns about is costed.
    let colls = r["collectives"].as_array().unwrap();
    assert!(colls.iter().any(|c| c["kind"] == "all_gather"), "{colls:?}");
    // A program that needs no such gather has no warning.
    std::fs::write(&file, MLP).unwrap();
    assert_eq!(cost(&file, "v5p:2x2x2")["warnings"], serde_json::json!([]));
}
