//! `systolic.host_callback` (`systolic_ir::host_callback`, what the front end's `debug::print`
//! stages) run by the interpreter and by the compiled program: the same calls with the same
//! values in the same order, each callback once per execution of its block (inside a `while`
//! once per iteration), kept by the passes although nothing reads it (DCE), a repeated one not
//! merged (CSE); a number no callback is registered under, and a callback's own error, are
//! errors of the run naming the op.

use crate::support;

use std::sync::{Arc, Mutex};
use support::{compile_main, interpret, parse, run_compiled};
use systolic_ir::host_callback::{self, CallbackId};
use systolic_ir::{DType, Tensor};

type Log = Arc<Mutex<Vec<String>>>;

/// Registers a callback that logs its name and its operands' values.
fn logging(log: &Log, name: &'static str) -> CallbackId {
    let log = log.clone();
    host_callback::register(Arc::new(move |args: &[Tensor]| {
        let values: Vec<String> = args
            .iter()
            .map(|t| format!("{:?}", t.to_f64_vec()))
            .collect();
        log.lock()
            .unwrap()
            .push(format!("{name} {}", values.join(" ")));
        Ok(vec![])
    }))
}

fn call(id: CallbackId, name: &str, operands: &str, types: &str) -> String {
    format!(
        "stablehlo.custom_call @systolic.host_callback({operands}) {{api_version = 4 : i32, \
         backend_config = {{callback_id = {id} : i64, name = \"{name}\"}}, \
         has_side_effect = true}} : ({types}) -> ()"
    )
}

/// A program printing a value nothing else reads (twice, the same call), then its loop's
/// counter and carry on each of three iterations.
fn program(a: CallbackId, b: CallbackId) -> String {
    let dead = call(a, "a", "%dead", "tensor<3xf32>");
    let in_loop = call(b, "b", "%i, %v", "tensor<i32>, tensor<3xf32>");
    format!(
        "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %dead = stablehlo.multiply %x, %x : tensor<3xf32>
  {dead}
  {dead}
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<3xf32>
    cond {{
      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      {in_loop}
      %i2 = stablehlo.add %i, %c1 : tensor<i32>
      %v2 = stablehlo.add %v, %v : tensor<3xf32>
      stablehlo.return %i2, %v2 : tensor<i32>, tensor<3xf32>
    }}
  return %r#1 : tensor<3xf32>
}}"
    )
}

fn input() -> Tensor {
    Tensor::from_f64(vec![3], DType::F32, vec![1.0, -2.0, 0.5]).unwrap()
}

#[test]
fn interpreter_and_compiled_program_make_the_same_calls_in_program_order() {
    let log: Log = Arc::default();
    let (a, b) = (logging(&log, "a"), logging(&log, "b"));
    let module = parse(&program(a, b));
    let want = vec![
        "a [1.0, 4.0, 0.25]",
        "a [1.0, 4.0, 0.25]",
        "b [0.0] [1.0, -2.0, 0.5]",
        "b [1.0] [2.0, -4.0, 1.0]",
        "b [2.0] [4.0, -8.0, 2.0]",
    ];

    let out = interpret(&module, &[input()]).unwrap();
    let interpreted = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!(interpreted, want);

    let exe = compile_main(&module);
    assert!(
        exe.fallback_ops().is_empty(),
        "the callback has its own kernel: {:?}",
        exe.fallback_ops()
    );
    for run in 0..2 {
        let compiled = run_compiled(&exe, &[input()]).unwrap();
        assert_eq!(compiled, out);
        let calls = std::mem::take(&mut *log.lock().unwrap());
        assert_eq!(calls, want, "run {run}: once per execution");
    }
    host_callback::unregister(a);
    host_callback::unregister(b);
}

#[test]
fn an_unregistered_number_and_a_failing_callback_are_errors_of_the_run() {
    let log: Log = Arc::default();
    let gone = logging(&log, "gone");
    host_callback::unregister(gone);
    let failing =
        host_callback::register(Arc::new(|_: &[Tensor]| Err("the sink is closed".into())));
    for (id, expect) in [
        (gone, "no callback is registered"),
        (failing, "the sink is closed"),
    ] {
        let module = parse(&program(id, id));
        let interpreted = interpret(&module, &[input()]).unwrap_err();
        let exe = compile_main(&module);
        let compiled = run_compiled(&exe, &[input()]).unwrap_err();
        for err in [interpreted, compiled] {
            assert!(
                err.contains("@systolic.host_callback (a, callback"),
                "{err}"
            );
            assert!(err.contains(expect), "{err}");
        }
    }
    assert!(log.lock().unwrap().is_empty());
    host_callback::unregister(failing);
}
