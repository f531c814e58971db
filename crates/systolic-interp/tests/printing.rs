//! `interpreter.print`: what it writes, in both forms, and that the prints of parallel
//! processes arrive whole.

use std::sync::{Arc, Mutex};

use systolic_interp::print_sink::{with_settings, PrintFormat, PrintSettings};
use systolic_interp::run_check_source;

/// Runs `src` as an interpreter-test file and returns what it printed, in order.
fn printed(src: &str, format: PrintFormat) -> Vec<String> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink_lines = Arc::clone(&lines);
    let settings = PrintSettings {
        sink: Some(Arc::new(move |text: &str| {
            sink_lines.lock().unwrap().push(text.to_string())
        })),
        format,
    };
    let report = with_settings(settings, || run_check_source(src, "print.mlir"));
    assert!(report.all_passed(), "{report:?}");
    let out = lines.lock().unwrap().clone();
    out
}

const MATRIX: &str = r#"
func.func @main() {
  %m = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  interpreter.print %m : tensor<2x2xi8>
  %f = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  "interpreter.print"(%f) : (tensor<2xf32>) -> ()
  func.return
}
"#;

#[test]
fn prints_name_and_nested_value() {
    assert_eq!(
        printed(MATRIX, PrintFormat::Nested),
        vec![
            "%m = tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}".to_string(),
            "%f = tensor<2xf32> {\n  [1.500000e+00, -2.000000e+00]\n}".to_string(),
        ]
    );
}

#[test]
fn prints_dense_attributes_on_request() {
    assert_eq!(
        printed(MATRIX, PrintFormat::Dense),
        vec![
            "%m = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>".to_string(),
            "%f = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>".to_string(),
        ]
    );
}

#[test]
fn each_parallel_process_prints_whole_values() {
    let src = r#"
func.func @worker(%zero: tensor<3xi32>) -> tensor<3xi32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %i = stablehlo.convert %r : (tensor<ui32>) -> tensor<i32>
  %b = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<3xi32>
  %v = stablehlo.add %b, %zero : tensor<3xi32>
  interpreter.print %v : tensor<3xi32>
  return %v : tensor<3xi32>
}

func.func @main() {
  %z = stablehlo.constant dense<0> : tensor<3xi32>
  %results:4 = "interpreter.run_parallel"(%z, %z, %z, %z) {
    programs = [[@worker], [@worker], [@worker], [@worker]]
  } : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>)
    -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>)
  func.return
}
"#;
    let mut lines = printed(src, PrintFormat::Nested);
    lines.sort();
    let want: Vec<String> = (0..4)
        .map(|r| format!("%v = tensor<3xi32> {{\n  [{r}, {r}, {r}]\n}}"))
        .collect();
    assert_eq!(lines, want);
}

#[test]
fn print_survives_a_round_trip_through_text() {
    let m = systolic_ir::text::parse_module(MATRIX, "p.mlir").unwrap();
    let text = systolic_ir::text::print_module(&m);
    assert!(text.contains("interpreter.print"), "{text}");
    assert_eq!(
        systolic_ir::text::parse_module(&text, "again.mlir")
            .unwrap()
            .funcs
            .len(),
        1
    );
}
