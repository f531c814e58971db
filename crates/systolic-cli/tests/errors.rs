//! Bad input to the CLI: each case gives one clear line on stderr naming what and where, and a
//! non-zero exit status (1 for failures, 2 for bad usage), never a panic.

use crate::common;

use common::{data_dir, systolic, texts};
use std::path::Path;
use systolic_ir::{DType, Tensor};

/// Asserts a failure with exit `code` whose single stderr line contains every `needle`.
fn assert_fails(args: &[&str], code: i32, needles: &[&str]) {
    let out = systolic(args);
    let (stdout, stderr) = texts(&out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "one line on stderr: {stderr}"
    );
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{args:?}: stderr lacks {needle:?}: {stderr}"
        );
    }
}

fn xent_file(name: &str) -> String {
    data_dir()
        .join("softmax_xent")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn missing_program_file() {
    assert_fails(
        &["run", "no/such/file.mlir"],
        1,
        &["cannot read no/such/file.mlir"],
    );
}

#[test]
fn malformed_program_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.mlir");
    std::fs::write(&path, "module {\n  func.func @main( {\n}\n").unwrap();
    let p = path.display().to_string();
    assert_fails(&["run", &p], 1, &[&format!("{p}:2:"), "error:"]);
}

#[test]
fn wrong_input_count() {
    let module = xent_file("module.mlir");
    let in0 = xent_file("in0.npy");
    assert_fails(
        &["run", &module, "--input", &in0],
        1,
        &["@main takes 2 inputs (tensor<8x10xf32>, tensor<8xi32>), got 1"],
    );
    assert_fails(&["run", &module], 1, &["got 0", "--input"]);
}

#[test]
fn wrong_input_shape() {
    let module = xent_file("module.mlir");
    let (in0, in1) = (xent_file("in0.npy"), xent_file("in1.npy"));
    assert_fails(
        &["run", &module, "--input", &in1, "--input", &in0],
        1,
        &[
            "input 0",
            "in1.npy",
            "expects tensor<8x10xf32>, got tensor<8xi32>",
        ],
    );
}

#[test]
fn wrong_input_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let ints = dir.path().join("ints.npy");
    let t = Tensor::from_i64(vec![8, 10], DType::I32, vec![1; 80]).unwrap();
    systolic_npy::write(&ints, &t).unwrap();
    let module = xent_file("module.mlir");
    let in1 = xent_file("in1.npy");
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            ints.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &[
            "input 0",
            "ints.npy",
            "expects tensor<8x10xf32>, got tensor<8x10xi32>",
        ],
    );
}

#[test]
fn unknown_entry_lists_the_functions() {
    let module = xent_file("module.mlir");
    assert_fails(
        &["run", &module, "--entry", "nope"],
        1,
        &["no function @nope", "@main"],
    );
}

#[test]
fn malformed_npy_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let module = xent_file("module.mlir");
    let in1 = xent_file("in1.npy");
    let garbage = dir.path().join("garbage.npy");
    std::fs::write(&garbage, b"this is not numpy").unwrap();
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            garbage.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["input 0: ", "garbage.npy", "not a .npy file"],
    );
    // A real file cut short inside its data.
    let bytes = std::fs::read(xent_file("in0.npy")).unwrap();
    let cut = dir.path().join("cut.npy");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            cut.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["cut.npy", "promises 320 bytes", "has 310"],
    );
    let missing = Path::new("no_such_input.npy");
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            missing.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["no_such_input.npy", "cannot read"],
    );
}

#[test]
fn backends_that_do_not_exist_yet() {
    let module = xent_file("module.mlir");
    assert_fails(
        &["run", &module, "--backend", "tpu"],
        1,
        &["backend 'tpu': TPUs are simulated", "systolic simulate"],
    );
    assert_fails(
        &["run", &module, "--backend", "gpu"],
        1,
        &["backend 'gpu' is not available yet (available: cpu, interp)"],
    );
    assert_fails(
        &["run", &module, "--backend", "fpga"],
        1,
        &["unknown backend 'fpga'"],
    );
}

#[test]
fn bad_usage_exits_with_2() {
    assert_fails(&[], 2, &["a command is needed"]);
    assert_fails(&["run"], 2, &["error:", "<FILE>"]);
    assert_fails(&["frobnicate"], 2, &["frobnicate"]);
    assert_fails(&["run", "x.mlir", "--repeat", "many"], 2, &["many"]);
    assert_fails(&["check"], 2, &["error:"]);
}

#[test]
fn runtime_errors_name_the_file_line_and_op() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.mlir");
    std::fs::write(
        &path,
        "func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
  %1 = stablehlo.custom_call @my_kernel(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
",
    )
    .unwrap();
    let p = path.display().to_string();
    assert_fails(
        &["run", &p],
        1,
        &[&format!("{p}:3:"), "stablehlo.custom_call", "my_kernel"],
    );
}

#[test]
fn raw_npy_elements_of_the_wrong_width() {
    // A bf16 file ('<V2') given for an f32 parameter.
    let module = xent_file("module.mlir");
    let bf16 = data_dir().join("bf16_matmul").join("in0.npy");
    let in1 = xent_file("in1.npy");
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            bf16.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["input 0: ", "in0.npy", "'<V2'", "cannot be read as float32"],
    );
}
