//! Runs the interpreter-test files in `tests/interpret/*.mlir` (the upstream StableHLO format:
//! pieces split by `// -----`, argument-less functions calling `check.expect_*`), and checks
//! how [`run_check_source`] reports failures.

use systolic_interp::run_check_source;

#[test]
fn every_interpreter_test_file_passes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interpret");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/interpret exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "found only {} files in {}",
        files.len(),
        dir.display()
    );
    let mut failures = vec![];
    let mut functions = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(path).unwrap();
        let report = run_check_source(&src, &name);
        functions += report.functions.len();
        assert!(!report.functions.is_empty(), "{name} has no test functions");
        if !report.all_passed() {
            failures.push(report.to_string());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(functions >= 80, "only {functions} test functions ran");
}

const FILE: &str = r#"func.func @passes() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

func.func @fails() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.add %a, %a : tensor<2xf32>
  check.expect_almost_eq_const %b, dense<[2.0, 4.5]> : tensor<2xf32>
  func.return
}

// -----

func.func @broken( {
}

// -----

func.func @unsupported_target() {
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.custom_call @my_kernel(%a) : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @needs_more_devices() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func private @helper() {
  func.return
}

func.func @takes_arguments(%x: tensor<f32>) {
  func.return
}
"#;

#[test]
fn reports_each_function_with_whole_file_line_numbers() {
    let report = run_check_source(FILE, "t.mlir");
    let names: Vec<&str> = report.functions.iter().map(|f| f.name.as_str()).collect();
    // Private functions and functions with parameters are not run.
    assert_eq!(
        names,
        vec![
            "passes",
            "fails",
            "piece 3",
            "unsupported_target",
            "needs_more_devices"
        ]
    );
    assert_eq!(report.passed(), 1);
    assert_eq!(report.failed(), 4);

    let fails = &report.functions[1];
    assert_eq!(fails.line, 9);
    assert_eq!(fails.messages.len(), 1);
    let msg = &fails.messages[0];
    assert!(msg.starts_with("t.mlir:12:"), "{msg}");
    assert!(msg.contains("expected 4.5, got 4.0"), "{msg}");

    let broken = &report.functions[2];
    assert_eq!(broken.line, 18);
    assert!(
        broken.messages[0].starts_with("t.mlir:18:"),
        "{:?}",
        broken.messages
    );

    let custom = &report.functions[3].messages[0];
    assert!(
        custom.contains("custom_call target 'my_kernel' is not supported by the interpreter"),
        "{custom}"
    );
    assert!(custom.starts_with("t.mlir:25:"), "{custom}");

    let collective = &report.functions[4].messages[0];
    assert!(
        collective.contains("needs the multi-device runtime"),
        "{collective}"
    );

    let text = report.to_string();
    assert!(
        text.starts_with("PASS t.mlir:1: passes\nFAIL t.mlir:9: fails\n"),
        "{text}"
    );
    assert!(text.ends_with("1 passed, 4 failed"), "{text}");
}

#[test]
fn empty_source_has_nothing_to_report() {
    let report = run_check_source("// just a comment\n", "empty.mlir");
    assert!(report.functions.is_empty());
    assert_eq!(report.to_string(), "0 passed, 0 failed");
}

/// A probe compared with the wrong value, or at an iteration never recorded, fails naming the
/// probe; the run goes on.
#[test]
fn serialized_checks_name_the_probe_and_the_iteration() {
    let src = r#"func.func @mismatch() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %p = interpreter.probe %a, probe_id = "values" : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  check.expect_serialized_eq %b, probe_id = "values" : tensor<2xi32>
  check.expect_serialized_eq %a, probe_id = "values", iter = 1 : tensor<2xi32>
  check.expect_serialized_eq %a, probe_id = "other" : tensor<2xi32>
  func.return
}
"#;
    let report = run_check_source(src, "probes.mlir");
    assert_eq!(report.failed(), 1);
    let text = report.to_string();
    assert!(
        text.contains("probe 'values' (iteration 0): element [1]"),
        "{text}"
    );
    assert!(text.contains("probe 'values' has no iteration 1"), "{text}");
    assert!(text.contains("probe 'other' has no iteration 0"), "{text}");
}
