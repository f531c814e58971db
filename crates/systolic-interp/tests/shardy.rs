//! Shardy's ops on one device: `sdy.sharding_constraint` is an identity; an
//! `sdy.manual_computation` whose manual axes all have size 1 is its body (each piece is the
//! whole value), and one over larger axes is an error telling to lower it first.

use systolic_interp::{Interpreter, Value};
use systolic_ir::text::parse_module;
use systolic_ir::Tensor;

fn program(size: i64) -> String {
    format!(
        r#"module {{
  sdy.mesh @mesh = <["x"={size}]>
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {{
    %c = sdy.sharding_constraint %arg0 <@mesh, [{{"x"}}]> : tensor<4xf32>
    %0 = sdy.manual_computation(%c) in_shardings=[<@mesh, [{{}}]>] out_shardings=[<@mesh, [{{}}]>] manual_axes={{"x"}} (%a: tensor<4xf32>) {{
      %1 = stablehlo.multiply %a, %a : tensor<4xf32>
      sdy.return %1 : tensor<4xf32>
    }} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }}
}}"#
    )
}

fn run(text: &str) -> Result<Vec<f64>, String> {
    let m = parse_module(text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
    let x = Tensor::from_f32(vec![4], vec![1.0, -2.0, 3.0, 0.5]);
    Interpreter::new(&m)
        .call("main", vec![Value::Tensor(x)])
        .map(|r| r[0].clone().into_tensor().unwrap().to_f64_vec())
        .map_err(|e| e.to_string())
}

#[test]
fn trivial_manual_axes_run_the_body_and_constraints_are_identities() {
    assert_eq!(run(&program(1)).unwrap(), vec![1.0, 4.0, 9.0, 0.25]);
}

#[test]
fn manual_axes_over_several_devices_must_be_lowered_first() {
    let e = run(&program(2)).unwrap_err();
    assert!(
        e.contains("sdy.manual_computation must be lowered to a per-device program first")
            && e.contains("lower_manual_computations")
            && e.contains("\"x\" has size 2"),
        "{e}"
    );
}
