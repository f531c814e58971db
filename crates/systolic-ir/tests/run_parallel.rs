//! `interpreter.run_parallel` (the interpreter tests' harness op) and collective_broadcast's
//! `has_dynamic_root`: parsing, printing (round trip) and the verifier's checks.

use systolic_ir::text::{parse_module, print_module};
use systolic_ir::verify::verify_module;
use systolic_ir::OpKind;

const GRID: &str = r#"
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @g(%a: tensor<2xf32>, %b: tensor<i32>) -> (tensor<2xf32>, tensor<i32>) {
  return %a, %b : tensor<2xf32>, tensor<i32>
}
func.func @q() -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %i: tensor<i32>) {
  %r:3 = "interpreter.run_parallel"(%x, %x, %i) {
    infeed = [@q],
    programs = [[@f], [@g]]
  } : (tensor<2xf32>, tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i32>)
  return
}
"#;

fn run_parallel_kind(src: &str) -> OpKind {
    let module = parse_module(src, "t.mlir").expect("parses");
    let main = module.func("main").unwrap();
    main.body.blocks[0].ops[0].kind.clone()
}

fn verify_errors(src: &str) -> String {
    let module = parse_module(src, "t.mlir").expect("parses");
    match verify_module(&module) {
        Ok(()) => String::new(),
        Err(diags) => diags
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn run_parallel_parses_prints_and_verifies() {
    let kind = run_parallel_kind(GRID);
    assert_eq!(
        kind,
        OpKind::RunParallel {
            programs: vec![vec!["f".into()], vec!["g".into()]],
            infeed: vec!["q".into()],
        }
    );
    assert_eq!(kind.name(), "interpreter.run_parallel");
    assert_eq!(verify_errors(GRID), "");
    let module = parse_module(GRID, "t.mlir").unwrap();
    let printed = print_module(&module);
    assert!(
        printed.contains(r#""interpreter.run_parallel"(%"#)
            && printed.contains("programs = [[@f], [@g]]")
            && printed.contains("infeed = [@q]"),
        "{printed}"
    );
    let again = parse_module(&printed, "printed.mlir").expect("the printed form parses");
    assert_eq!(print_module(&again), printed);
    assert_eq!(run_parallel_kind(&printed), kind);
}

#[test]
fn run_parallel_without_operands_parses() {
    let src = r#"
func.func @id() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  return %r : tensor<ui32>
}
func.func @main() {
  %r:2 = "interpreter.run_parallel"() {programs = [[@id, @id]]} : () -> (tensor<ui32>, tensor<ui32>)
  return
}
"#;
    assert_eq!(verify_errors(src), "");
}

#[test]
fn run_parallel_errors_name_the_problem() {
    let missing = GRID.replace("[[@f], [@g]]", "[[@f], [@nope]]");
    let e = verify_errors(&missing);
    assert!(e.contains("runs @nope, which is not defined"), "{e}");

    let ragged = GRID.replace("[[@f], [@g]]", "[[@f, @f], [@g]]");
    let e = verify_errors(&ragged);
    assert!(e.contains("must be a non-empty grid"), "{e}");

    let swapped = GRID.replace("[[@f], [@g]]", "[[@g], [@f]]");
    let e = verify_errors(&swapped);
    assert!(e.contains("in process order"), "{e}");

    let no_queue = GRID.replace("infeed = [@q]", "infeed = [@none]");
    let e = verify_errors(&no_queue);
    assert!(e.contains("feeds from @none"), "{e}");

    let bad_attr = GRID.replace("infeed = [@q]", "outfeed = [@q]");
    let e = parse_module(&bad_attr, "t.mlir").unwrap_err().to_string();
    assert!(e.contains("unsupported attribute 'outfeed'"), "{e}");

    let not_symbols = GRID.replace("[[@f], [@g]]", "[@f, @g]");
    let e = parse_module(&not_symbols, "t.mlir")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'programs' must be a list of lists of symbols"),
        "{e}"
    );
}

const DYNAMIC_ROOT: &str = r#"
func.func @main(%a: tensor<1x2xi64>, %b: tensor<3xf32>, %root: tensor<2xi32>) -> (tensor<1x2xi64>, tensor<3xf32>) {
  %r:2 = "stablehlo.collective_broadcast"(%a, %b, %root) {
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    has_dynamic_root
  } : (tensor<1x2xi64>, tensor<3xf32>, tensor<2xi32>) -> (tensor<1x2xi64>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<1x2xi64>, tensor<3xf32>
}
"#;

#[test]
fn collective_broadcast_with_a_dynamic_root() {
    assert_eq!(verify_errors(DYNAMIC_ROOT), "");
    let module = parse_module(DYNAMIC_ROOT, "t.mlir").unwrap();
    let printed = print_module(&module);
    assert!(printed.contains("has_dynamic_root"), "{printed}");
    let again = parse_module(&printed, "printed.mlir").unwrap();
    assert_eq!(print_module(&again), printed);

    let wrong_roots = DYNAMIC_ROOT.replace("tensor<2xi32>", "tensor<3xi32>");
    let e = verify_errors(&wrong_roots);
    assert!(e.contains("the roots operand must be tensor<2xi32>"), "{e}");
}
