//! Buffers (asynchronous transfers, ready events, read-back) and executing with borrowed and
//! donated arguments, including every argument error.

use crate::support;

use support::{elementwise_expected, f32s, module, ELEMENTWISE};
use systolic_ir::{DType, Tensor};
use systolic_runtime::{Client, CompileOptions, CompileSource, RuntimeError};

/// Asserts `got` is within 2e-7 of `want` elementwise (the compiled tanh may differ from
/// libm's by an ulp).
fn assert_close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 2e-7, "{got:?} vs {want:?}");
    }
}

fn tensor(values: &[f32]) -> Tensor {
    Tensor::from_f32(vec![values.len() as i64], values.to_vec())
}

#[test]
fn transfers_complete_and_read_back_exactly() {
    let client = Client::cpu();
    let cpu0 = client.devices()[0];
    // Many transfers queued at once all finish, in any order of waiting.
    let tensors: Vec<Tensor> = (0..50)
        .map(|i| {
            let n = 1000 + i;
            Tensor::from_f32(vec![n], (0..n).map(|x| (x * i) as f32).collect())
        })
        .collect();
    // Held, the transfer thread fills none of them: they are queued, not made, here.
    let hold = client.hold_transfers();
    let buffers: Vec<_> = tensors
        .iter()
        .map(|t| client.buffer_from_tensor(t.clone(), cpu0).unwrap())
        .collect();
    assert!(buffers.iter().all(|b| !b.is_ready()));
    hold.release();
    for (b, t) in buffers.iter().zip(&tensors).rev() {
        assert_eq!(b.shape(), t.shape());
        assert_eq!(b.dtype(), DType::F32);
        assert_eq!(b.device().to_string(), "cpu:0");
        b.block_until_ready().unwrap();
        assert!(b.is_ready());
        assert_eq!(&b.to_tensor().unwrap(), t);
    }
}

#[test]
fn execute_borrows_and_execute_donating_invalidates_the_arguments() {
    let client = Client::cpu();
    let exe = client
        .compile(&module(ELEMENTWISE), &CompileOptions::no_disk_cache())
        .unwrap();
    assert_eq!(exe.device().to_string(), "cpu:0");
    let (a, b) = ([0.5f32, -1.0, 2.0, 0.0], [0.25f32, 0.5, -0.75, 3.0]);
    let ba = client.buffer_from_tensor(tensor(&a), exe.device()).unwrap();
    let bb = client.buffer_from_tensor(tensor(&b), exe.device()).unwrap();
    let want = elementwise_expected(&a, &b);

    let out = exe.execute(&[&ba, &bb]).unwrap();
    assert_close(&f32s(&out[0].to_tensor().unwrap()), &want);
    // Borrowed arguments stay valid and unchanged.
    assert_eq!(f32s(&ba.to_tensor().unwrap()), a);

    let out = exe.execute_donating(vec![ba.clone(), bb.clone()]).unwrap();
    assert_close(&f32s(&out[0].to_tensor().unwrap()), &want);
    assert!(ba.is_donated() && bb.is_donated());
    let err = exe.execute(&[&ba, &out[0]]).unwrap_err();
    assert!(matches!(err, RuntimeError::Donated { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "buffer tensor<4xf32> on cpu:0 was donated to an earlier execution and is no longer \
         valid: argument 0 of @main"
    );
    assert!(bb.to_tensor().unwrap_err().to_string().contains("donated"));
}

#[test]
fn a_buffer_donated_twice_in_one_call_is_refused_and_nothing_is_taken() {
    let client = Client::cpu();
    let exe = client
        .compile(&module(ELEMENTWISE), &CompileOptions::no_disk_cache())
        .unwrap();
    let a = client
        .buffer_from_tensor(tensor(&[1.0, 2.0, 3.0, 4.0]), exe.device())
        .unwrap();
    let err = exe
        .execute_donating(vec![a.clone(), a.clone()])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("arguments 0 and 1 are the same buffer"),
        "{err}"
    );
    assert!(!a.is_donated());
}

#[test]
fn argument_errors_name_the_index_and_both_types() {
    let client = Client::cpu();
    let exe = client
        .compile(&module(ELEMENTWISE), &CompileOptions::no_disk_cache())
        .unwrap();
    let good = client
        .buffer_from_tensor(tensor(&[1.0; 4]), exe.device())
        .unwrap();
    let short = client
        .buffer_from_tensor(tensor(&[1.0; 3]), exe.device())
        .unwrap();
    let err = exe.execute(&[&good, &short]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "@main: argument 1 must be tensor<4xf32>, got tensor<3xf32>"
    );
    let ints = client
        .buffer_from_tensor(
            Tensor::from_i64(vec![4], DType::I32, vec![1, 2, 3, 4]).unwrap(),
            exe.device(),
        )
        .unwrap();
    let err = exe.execute(&[&ints, &good]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "@main: argument 0 must be tensor<4xf32>, got tensor<4xi32>"
    );
    let err = exe.execute(&[&good]).unwrap_err();
    assert_eq!(err.to_string(), "@main expects 2 arguments, got 1");
    // A wrong donation call takes nothing either.
    assert!(exe.execute_donating(vec![good.clone(), short]).is_err());
    assert!(!good.is_donated());
}

#[test]
fn peak_memory_is_what_buffer_assignment_planned_for_the_optimised_program() {
    use systolic_compiler::passes::buffer_assignment::heap::align;
    let client = Client::cpu();
    let options = CompileOptions::no_disk_cache();
    // Fused into one loop: only the result needs memory.
    let fused = client.compile(&module(ELEMENTWISE), &options).unwrap();
    assert_eq!(fused.peak_memory_bytes(), align(4 * 4) as u64);
    // A product and a reduction of it, both returned: both live at the end.
    let both = module(
        "func.func @main(%a: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>) {
           %z = stablehlo.constant dense<0.0> : tensor<f32>
           %p = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
           %r = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<64xf32>
           return %p, %r : tensor<64x64xf32>, tensor<64xf32>
         }",
    );
    let exe = client.compile(&both, &options).unwrap();
    assert_eq!(
        exe.peak_memory_bytes(),
        (align(64 * 64 * 4) + align(64 * 4)) as u64
    );
}

#[test]
fn second_compile_of_the_same_program_comes_from_memory() {
    let client = Client::cpu();
    let options = CompileOptions::no_disk_cache();
    let first = client.compile(&module(ELEMENTWISE), &options).unwrap();
    let second = client.compile(&module(ELEMENTWISE), &options).unwrap();
    assert_eq!(first.source(), CompileSource::Compiled);
    assert_eq!(second.source(), CompileSource::MemoryCache);
    assert!(second.same_program(&first));
    // Another entry function, or another program, is another key.
    let other = module(&ELEMENTWISE.replace("tanh", "exponential"));
    let third = client.compile(&other, &options).unwrap();
    assert_eq!(third.source(), CompileSource::Compiled);
    assert!(!third.same_program(&first));
    let stats = client.cache_stats();
    assert_eq!((stats.compiles, stats.memory_hits), (2, 1));
}

#[test]
fn compile_errors_and_unknown_devices_are_reported() {
    let client = Client::cpu();
    let options = CompileOptions {
        cpu: systolic_cpu::CompileOptions {
            entry: "nope".into(),
            ..Default::default()
        },
        ..CompileOptions::no_disk_cache()
    };
    let err = client.compile(&module(ELEMENTWISE), &options).unwrap_err();
    assert!(err.to_string().contains("@nope"), "{err}");
    let err = client.device("cpu:7").unwrap_err();
    assert_eq!(err.to_string(), "no device cpu:7 (the client has: cpu:0)");
}

#[test]
fn dump_dir_bypasses_the_caches_and_writes_the_passes() {
    let dir = tempfile::tempdir().unwrap();
    let client = Client::cpu();
    let mut options = CompileOptions::no_disk_cache();
    options.cpu.dump_dir = Some(dir.path().to_path_buf());
    let a = client.compile(&module(ELEMENTWISE), &options).unwrap();
    let b = client.compile(&module(ELEMENTWISE), &options).unwrap();
    assert_eq!(
        (a.source(), b.source()),
        (CompileSource::Compiled, CompileSource::Compiled)
    );
    assert!(std::fs::read_dir(dir.path()).unwrap().count() > 0);
}

#[test]
fn a_dropped_output_is_reused_by_the_next_execution() {
    // 128 KiB (large enough to be pooled), a length no other test uses: the pool is shared.
    let n = 32_771;
    let src = format!(
        "func.func public @main(%a: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.add %a, %a : tensor<{n}xf32>
  %1 = stablehlo.multiply %0, %a : tensor<{n}xf32>
  return %1 : tensor<{n}xf32>
}}"
    );
    let client = Client::cpu();
    let exe = client
        .compile(&module(&src), &CompileOptions::no_disk_cache())
        .unwrap();
    let values: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    let want: Vec<f32> = values.iter().map(|&x| (x + x) * x).collect();
    let arg = client
        .buffer_from_tensor(tensor(&values), exe.device())
        .unwrap();

    let out = exe.execute(&[&arg]).unwrap();
    let pooled = || systolic_cpu::pool::pooled(DType::F32, n);
    let before = pooled();
    let handle = out[0].clone();
    drop(out);
    assert_eq!(pooled(), before, "a handle is still alive");
    drop(handle);
    assert_eq!(pooled(), before + 1, "the last handle pools it");

    // The next run writes its output into that memory, stale contents and all.
    let again = exe.execute(&[&arg]).unwrap();
    assert_eq!(pooled(), before);
    assert_eq!(f32s(&again[0].to_tensor().unwrap()), want);
}
