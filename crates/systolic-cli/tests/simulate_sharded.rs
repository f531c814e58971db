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
