//! `systolic check` on interpreter-test files: one line per function, totals last, exit 1 on
//! any failure.

use crate::common;

use common::{systolic, texts};

const PASSING: &str = "func.func @add_op_test() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.constant dense<[3, 40]> : tensor<2xi32>
  %2 = stablehlo.add %0, %1 : tensor<2xi32>
  check.expect_eq_const %2, dense<[4, 42]> : tensor<2xi32>
  func.return
}
";

const FAILING: &str = "func.func @wrong_sum() {
  %0 = stablehlo.constant dense<2> : tensor<i32>
  %1 = stablehlo.add %0, %0 : tensor<i32>
  check.expect_eq_const %1, dense<5> : tensor<i32>
  func.return
}
";

#[test]
fn counts_passes_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mixed.mlir");
    std::fs::write(&file, format!("{PASSING}\n// -----\n\n{FAILING}")).unwrap();
    let out = systolic(&["check", file.to_str().unwrap()]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("PASS") && stdout.contains("add_op_test"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL") && stdout.contains("wrong_sum"),
        "{stdout}"
    );
    assert_eq!(stdout.trim_end().lines().last(), Some("1 passed, 1 failed"));
}

#[test]
fn all_passing_files_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.mlir");
    let b = dir.path().join("b.mlir");
    std::fs::write(&a, PASSING).unwrap();
    std::fs::write(&b, PASSING.replace("add_op_test", "again")).unwrap();
    let out = systolic(&["check", a.to_str().unwrap(), b.to_str().unwrap()]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(stdout.trim_end().lines().last(), Some("2 passed, 0 failed"));
}

#[test]
fn missing_check_file() {
    let out = systolic(&["check", "no_such_checks.mlir"]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("cannot read no_such_checks.mlir"),
        "{stderr}"
    );
}

/// The ceiling of the smallest f32 subnormal: 1 under the spec, 0 on XLA:CPU (which reads the
/// subnormal as zero), and reduce_precision to no mantissa bits of a NaN (∞ under the spec,
/// NaN on XLA:CPU).
const SUBNORMALS: &str = "func.func @ceil_of_a_subnormal() {
  %0 = stablehlo.constant dense<[0x00000001, 0x80000001]> : tensor<2xf32>
  %1 = stablehlo.ceil %0 : tensor<2xf32>
  check.expect_eq_const %1, dense<[1.0, -0.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @nan_with_no_mantissa() {
  %0 = stablehlo.constant dense<0x7FFFFFFFFFFFFFFF> : tensor<f64>
  %1 = stablehlo.reduce_precision %0, format = e5m0 : tensor<f64>
  check.expect_eq_const %1, dense<0x7FF0000000000000> : tensor<f64>
  func.return
}
";

#[test]
fn numerics_spec_keeps_subnormals_and_xla_flushes_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("subnormals.mlir");
    std::fs::write(&file, SUBNORMALS).unwrap();
    let path = file.to_str().unwrap();
    let spec = systolic(&["check", "--numerics", "spec", path]);
    let (stdout, stderr) = texts(&spec);
    assert_eq!(spec.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(stdout.trim_end().lines().last(), Some("2 passed, 0 failed"));
    // The default is XLA:CPU's arithmetic, what JAX computes.
    for args in [
        vec!["check", path],
        vec!["check", "--numerics", "xla", path],
    ] {
        let xla = systolic(&args);
        let (stdout, _) = texts(&xla);
        assert_eq!(xla.status.code(), Some(1), "{stdout}");
        assert_eq!(stdout.trim_end().lines().last(), Some("0 passed, 2 failed"));
    }
    let bad = systolic(&["check", "--numerics", "ieee", path]);
    let (_, stderr) = texts(&bad);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("spec") && stderr.contains("xla"),
        "{stderr}"
    );
}

const WITH_PARAMS: &str = "func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  interpreter.print %0 : tensor<2xi32>
  return %0 : tensor<2xi32>
}
";

#[test]
fn args_run_parameterised_functions_and_results_print() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("args.mlir");
    std::fs::write(&file, WITH_PARAMS).unwrap();
    let path = file.to_str().unwrap();
    let args = "[dense<1> : tensor<2xi32>, dense<[2, 5]> : tensor<2xi32>]";
    let out = systolic(&["check", "--args", args, "--print-results", path]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout
            .starts_with("%0 = tensor<2xi32> {\n  [3, 6]\n}\ntensor<2xi32> {\n  [3, 6]\n}\nPASS "),
        "{stdout}"
    );
    let out = systolic(&["check", "--args", args, "--print-dense", path]);
    let (stdout, _) = texts(&out);
    assert!(
        stdout.starts_with("%0 = dense<[3, 6]> : tensor<2xi32>\nPASS "),
        "{stdout}"
    );
    // Without arguments nothing runs, which is a failure, not a silent pass.
    let out = systolic(&["check", path]);
    let (stdout, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("no functions, so nothing was checked"),
        "{stdout}"
    );
}

#[test]
fn bad_args_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("args.mlir");
    std::fs::write(&file, WITH_PARAMS).unwrap();
    let out = systolic(&["check", "--args", "not_array", file.to_str().unwrap()]);
    let (stdout, stderr) = texts(&out);
    assert_ne!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("--args:1:1: error: expected a list of tensors"),
        "{stderr}"
    );
}
