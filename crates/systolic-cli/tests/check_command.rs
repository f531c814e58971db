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
