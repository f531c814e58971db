//! The executable as a runtime object: argument checks with clear errors, reuse across runs and
//! threads, values moved instead of copied (in-place updates, reshape without copy, loop-carried
//! values), and the record of ops that run on the interpreter fallback.

use crate::support;

use systolic_cpu::{compile, CompileOptions, CpuBuffer, CpuExecutable};
use systolic_ir::{DType, Tensor};

fn exe(text: &str) -> CpuExecutable {
    support::compile_main(&support::parse(text))
}

const DUS: &str = "func.func @main(%a: tensor<6xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<6xf32> {
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<6xf32>, tensor<2xf32>, tensor<i32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}";

fn i32_scalar(x: i32) -> CpuBuffer {
    CpuBuffer::from_tensor(&Tensor::from_i64(vec![], DType::I32, vec![x as i64]).unwrap())
}

#[test]
fn argument_count_and_types_are_checked() {
    let e = exe(DUS);
    let a = CpuBuffer::from_f32(vec![6], vec![0.0; 6]);
    let u = CpuBuffer::from_f32(vec![2], vec![1.0, 2.0]);
    let err = e
        .execute(vec![a.clone(), u.clone()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("expects 3 arguments, got 2"), "{err}");
    let err = e
        .execute(vec![
            a.clone(),
            u.clone(),
            CpuBuffer::from_f32(vec![], vec![1.0]),
        ])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("argument 2 must be tensor<i32>, got tensor<f32>"),
        "{err}"
    );
    let err = e
        .execute_borrowed(&[&u, &a, &i32_scalar(0)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("argument 0 must be tensor<6xf32>, got tensor<2xf32>"),
        "{err}"
    );
}

#[test]
fn a_missing_entry_function_is_named() {
    let module = support::parse(DUS);
    let options = CompileOptions {
        entry: "forward".to_string(),
        ..CompileOptions::default()
    };
    let err = compile(&module, &options).unwrap_err().to_string();
    assert!(
        err.contains("no function @forward") && err.contains("@main"),
        "{err}"
    );
}

#[test]
fn dynamic_update_slice_updates_a_dying_argument_in_place() {
    let e = exe(DUS);
    let a = CpuBuffer::from_f32(vec![6], vec![0.0; 6]);
    let ptr = a.as_f32().unwrap().as_ptr();
    let u = CpuBuffer::from_f32(vec![2], vec![1.0, 2.0]);
    // Index 5 is clamped to 4 so the update fits.
    let out = e.execute(vec![a, u, i32_scalar(5)]).unwrap();
    assert_eq!(out[0].as_f32().unwrap(), &[0.0, 0.0, 0.0, 0.0, 1.0, 2.0]);
    assert_eq!(
        out[0].as_f32().unwrap().as_ptr(),
        ptr,
        "the operand's storage is reused"
    );
}

/// A softmax (a row program: max, exp-sum, divide over each row) of a dying argument writes
/// its result over the argument's storage, with the same values as the interpreter; a
/// borrowed argument is left as it was.
#[test]
fn a_row_program_writes_over_a_dying_argument() {
    let text = "func.func @main(%x: tensor<64x300xf32>) -> tensor<64x300xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x300xf32>, tensor<f32>) -> tensor<64xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x300xf32>
  %d = stablehlo.subtract %x, %mb : tensor<64x300xf32>
  %e = stablehlo.exponential %d : tensor<64x300xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x300xf32>, tensor<f32>) -> tensor<64xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x300xf32>
  %p = stablehlo.divide %e, %sb : tensor<64x300xf32>
  return %p : tensor<64x300xf32>
}";
    let e = exe(text);
    let values: Vec<f32> = (0..64 * 300)
        .map(|i| ((i * 7919) % 1000) as f32 / 97.0 - 5.0)
        .collect();
    let x = CpuBuffer::from_f32(vec![64, 300], values.clone());
    let want = support::interpret(&support::parse(text), &[x.to_tensor()]).unwrap();
    let borrowed = e.execute_borrowed(&[&x]).unwrap();
    assert_eq!(
        x.as_f32().unwrap(),
        values.as_slice(),
        "a borrowed argument is untouched"
    );
    let ptr = x.as_f32().unwrap().as_ptr();
    let owned = e.execute(vec![x]).unwrap();
    assert_eq!(
        owned[0].as_f32().unwrap().as_ptr(),
        ptr,
        "the operand's storage is reused"
    );
    for out in [&borrowed[0], &owned[0]] {
        let (got, want) = (out.as_f32().unwrap(), want[0].to_f64_vec());
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g as f64 - w).abs() <= 1e-6 * w.abs().max(1e-30),
                "element {i}: {g} against the interpreter's {w}"
            );
        }
    }
}

#[test]
fn reshape_of_a_dying_value_does_not_copy() {
    let e = exe("func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}");
    let a = CpuBuffer::from_f32(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let ptr = a.as_f32().unwrap().as_ptr();
    let out = e.execute(vec![a]).unwrap();
    assert_eq!(out[0].shape(), &[3, 2]);
    assert_eq!(out[0].as_f32().unwrap().as_ptr(), ptr);
}

/// A loop that writes one element per iteration: the carried buffer is the argument's storage
/// from the first iteration to the result.
#[test]
fn loop_carried_values_move_without_copies() {
    let e = exe("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %c0, %acc = %a) : tensor<i32>, tensor<4xf32>
    cond {
      %n = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
      %y = stablehlo.reshape %x : (tensor<f32>) -> tensor<1xf32>
      %acc2 = stablehlo.dynamic_update_slice %acc, %y, %i : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %acc2 : tensor<i32>, tensor<4xf32>
    }
  return %w#1 : tensor<4xf32>
}");
    let a = CpuBuffer::from_f32(vec![4], vec![9.0; 4]);
    let ptr = a.as_f32().unwrap().as_ptr();
    let out = e.execute(vec![a]).unwrap();
    assert_eq!(out[0].as_f32().unwrap(), &[0.0, 1.0, 2.0, 3.0]);
    assert_eq!(out[0].as_f32().unwrap().as_ptr(), ptr);
}

#[test]
fn borrowed_arguments_are_left_alone_and_results_repeat() {
    let e = exe(
        "func.func @main(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %a, %c, %a : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}",
    );
    let a = CpuBuffer::from_f32(vec![3], vec![-1.0, 0.0, 1.0]);
    for _ in 0..2 {
        let out = e.execute_borrowed(&[&a]).unwrap();
        assert_eq!(out[0], a);
        assert_eq!(out[1].as_f32().unwrap(), &[1.0, 2.0, 3.0]);
        assert_eq!(out[2], a);
    }
}

#[test]
fn executables_are_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CpuExecutable>();
    let e = exe(DUS);
    std::thread::scope(|s| {
        for t in 0..4 {
            let e = &e;
            s.spawn(move || {
                for i in 0..20 {
                    let a = CpuBuffer::from_f32(vec![6], vec![t as f32; 6]);
                    let u = CpuBuffer::from_f32(vec![2], vec![-1.0, -2.0]);
                    let out = e.execute(vec![a, u, i32_scalar(i % 6)]).unwrap();
                    let at = (i % 6).min(4) as usize;
                    let mut want = vec![t as f32; 6];
                    want[at] = -1.0;
                    want[at + 1] = -2.0;
                    assert_eq!(out[0].as_f32().unwrap(), want.as_slice());
                }
            });
        }
    });
}

/// An op no kernel family covers runs on the interpreter and is recorded as such (here a
/// scatter whose update region reads a value from outside it).
#[test]
fn fallback_ops_are_recorded_and_still_correct() {
    let text = support::SCATTER_READING_AN_OUTER_VALUE;
    let e = exe(text);
    let names: Vec<&str> = e.fallback_ops().iter().map(|f| f.op.as_str()).collect();
    assert_eq!(names, ["stablehlo.scatter"]);
    assert_eq!(e.fallback_ops()[0].func, "main");
    // x[i] += k·u at i = 1, 3.
    let indices = Tensor::from_i64(vec![2, 1], DType::I32, vec![1, 3]).unwrap();
    let out = e
        .execute(vec![
            CpuBuffer::from_f32(vec![4], vec![1.0, 2.0, 3.0, 4.0]),
            CpuBuffer::from_tensor(&indices),
            CpuBuffer::from_f32(vec![2], vec![10.0, 20.0]),
            CpuBuffer::from_f32(vec![], vec![2.0]),
        ])
        .unwrap();
    assert_eq!(out[0].as_f32().unwrap(), &[1.0, 22.0, 3.0, 44.0]);
}
