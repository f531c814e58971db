//! Inlining.

use crate::common;

use common::{count, parse, run_main, run_pass};
use systolic_compiler::passes::Inline;
use systolic_compiler::Pass;
use systolic_interp::Value;
use systolic_ir::Tensor;

#[test]
fn inlines_nested_calls_and_removes_unused_private_functions() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<2xf32>, %p: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = func.call @twice(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @twice(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "stablehlo.if"(%p) ({
    %3 = func.call @square(%1) : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %3 : tensor<2xf32>
  }, {
    stablehlo.return %0 : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %1, %2 : tensor<2xf32>, tensor<2xf32>
}
func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @square(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.add %0, %x : tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @square(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func public @kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
"#,
    );
    let out = run_pass(&Inline, &m);
    let names: Vec<&str> = out.funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["main", "kept"]);
    assert_eq!(count(&out, "main", "func.call"), 0);
    // Two copies of twice (each one multiply + one add) and one square in the branch.
    assert_eq!(count(&out, "main", "stablehlo.multiply"), 3);
    assert_eq!(count(&out, "main", "stablehlo.add"), 2);
    let a = Tensor::from_f32(vec![2], vec![1.0, -2.0]);
    let p = Tensor::from_bool(vec![], vec![true]).unwrap();
    let args = vec![Value::Tensor(a), Value::Tensor(p)];
    // twice(1) = 2, twice(2) = 6, square(6) = 36; twice(-2) = 2, twice(2) = 6.
    let got = run_main(&out, args.clone()).unwrap();
    let want = run_main(&m, args).unwrap();
    assert_eq!(got, want);
    assert_eq!(got[1].as_tensor().unwrap().to_f64_vec(), vec![36.0, 36.0]);
}

#[test]
fn recursion_is_reported_with_the_cycle() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = func.call @ping(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @ping(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @pong(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @pong(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @ping(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
"#,
    );
    let mut out = m.clone();
    let err = Inline.run(&mut out).unwrap_err();
    assert!(
        err.message.contains("@ping -> @pong -> @ping"),
        "{}",
        err.message
    );
}

#[test]
fn composite_decompositions_stay() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.composite "my.id" %a {decomposition = @my_id} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @my_id(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
"#,
    );
    let out = run_pass(&Inline, &m);
    assert_eq!(out, m);
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&Inline, 300);
}

/// `@main` → `@f1` → … → `@f{n-1}`, each level adding its argument to what the next returns
/// (the last negates it), so `main(x) = (n - 2) · x` and the inlined body holds `n` ops.
fn call_chain(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let name = if i == 0 {
            "main".to_string()
        } else {
            format!("private @f{i}")
        };
        let name = if i == 0 { format!("@{name}") } else { name };
        let body = if i + 1 < n {
            format!(
                "%0 = func.call @f{}(%x) : (tensor<f32>) -> tensor<f32>\n  %1 = stablehlo.add %0, %x : tensor<f32>\n  return %1 : tensor<f32>",
                i + 1
            )
        } else {
            "%1 = stablehlo.negate %x : tensor<f32>\n  return %1 : tensor<f32>".to_string()
        };
        text += &format!("func.func {name}(%x: tensor<f32>) -> tensor<f32> {{\n  {body}\n}}\n");
    }
    text
}

/// Issue 20, item 5: a 5000-deep call chain took over 20 s and quadratic memory to inline
/// (every private function of the chain was inlined into as well, copying the chain's tail once
/// per level). Only the kept function is inlined into now, each op copied once; the bound is
/// generous (it takes well under a second in a debug build).
#[test]
fn a_deep_call_chain_inlines_in_linear_time() {
    let n = 5000;
    let m = parse(&call_chain(n));
    let started = std::time::Instant::now();
    let out = run_pass(&Inline, &m);
    let took = started.elapsed();
    assert!(took.as_secs_f64() < 10.0, "inlining took {took:?}");
    assert_eq!(out.funcs.len(), 1);
    assert_eq!(count(&out, "main", "func.call"), 0);
    assert_eq!(count(&out, "main", "stablehlo.add"), n - 1);
    assert_eq!(count(&out, "main", "stablehlo.negate"), 1);
    let x = Value::Tensor(Tensor::from_f32(vec![], vec![0.5]));
    let got = run_main(&out, vec![x]).unwrap();
    assert_eq!(
        got[0].as_tensor().unwrap().to_f64_vec(),
        vec![(n - 2) as f64 * 0.5]
    );
}

/// A call DAG where each function calls the next twice doubles per level: ten levels inline to
/// 1024 ops and keep their meaning; forty would be 2^40 ops and are refused before anything is
/// copied, naming the function and the size.
#[test]
fn a_doubling_call_dag_inlines_while_small_and_is_refused_past_the_budget() {
    let dag = |depth: usize| {
        let mut text = String::from(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @f0(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n",
        );
        for k in 0..depth {
            let body = if k + 1 < depth {
                format!(
                    "%0 = func.call @f{n}(%x) : (tensor<f32>) -> tensor<f32>\n  %1 = func.call @f{n}(%0) : (tensor<f32>) -> tensor<f32>",
                    n = k + 1
                )
            } else {
                "%1 = stablehlo.negate %x : tensor<f32>".to_string()
            };
            text += &format!(
                "func.func private @f{k}(%x: tensor<f32>) -> tensor<f32> {{\n  {body}\n  return %1 : tensor<f32>\n}}\n"
            );
        }
        parse(&text)
    };
    let small = dag(10);
    let out = run_pass(&Inline, &small);
    assert_eq!(count(&out, "main", "stablehlo.negate"), 1 << 9);
    let x = vec![Value::Tensor(Tensor::from_f32(vec![], vec![3.0]))];
    assert_eq!(
        run_main(&out, x.clone()).unwrap(),
        run_main(&small, x).unwrap()
    );

    let mut big = dag(40);
    let err = Inline.run(&mut big).unwrap_err();
    assert_eq!(err.op.as_deref(), Some("func.call"));
    assert!(
        err.message.contains("more than 16777216 ops") && err.message.contains("@f"),
        "{}",
        err.message
    );
}
