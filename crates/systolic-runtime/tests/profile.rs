//! Per-kernel profiles: every step timed, totals by op kind, the slowest steps.

use crate::support;

use support::{golden, upload};
use systolic_runtime::{Client, CompileOptions, Executable};

/// `text` compiled for the CPU (no disk cache), with its client.
fn compiled(text: &str, name: &str) -> (Client, Executable) {
    let module = systolic_ir::text::parse_module(text, name).unwrap();
    let client = Client::cpu();
    let exe = client
        .compile(&module, &CompileOptions::no_disk_cache())
        .unwrap();
    (client, exe)
}

#[test]
fn every_step_of_the_mlp_is_timed_and_the_products_are_there() {
    let (module, inputs, _) = golden("mlp_forward");
    let client = Client::cpu();
    let exe = client
        .compile(&module, &CompileOptions::no_disk_cache())
        .unwrap();
    let args = upload(&client, &inputs);
    let arg_refs: Vec<_> = args.iter().collect();
    let profile = exe.profile(&arg_refs).unwrap();
    assert_eq!(profile.steps.len(), exe.program().steps().len());
    let kernels: Vec<&str> = profile.steps.iter().map(|s| s.kernel.as_str()).collect();
    assert!(
        kernels.iter().any(|k| k.contains("dot")),
        "the MLP's products are steps: {kernels:?}"
    );
    let by_op = profile.by_op();
    let counted: usize = by_op.iter().map(|(_, _, n)| n).sum();
    assert_eq!(counted, profile.steps.len());
    let summed: f64 = by_op.iter().map(|(_, ms, _)| ms).sum();
    assert!((summed - profile.total_ms()).abs() < 1e-9);
    let slowest = profile.slowest(2);
    assert!(slowest.len() <= 2 && slowest.windows(2).all(|w| w[0].ms >= w[1].ms));
    // The arguments are left valid.
    assert_eq!(args[0].to_tensor().unwrap(), inputs[0]);
}

/// Two independent products of equal size run side by side in a normal run; the profile
/// times them one after the other and says so.
#[test]
fn steps_that_run_side_by_side_are_marked() {
    let (client, exe) = compiled(
        "func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
           %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
           %1 = stablehlo.dot_general %b, %a, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
           return %0, %1 : tensor<256x256xf32>, tensor<256x256xf32>
         }",
        "pair",
    );
    let x = systolic_ir::Tensor::from_f32(vec![256, 256], vec![0.5; 256 * 256]);
    let args = upload(&client, &[x.clone(), x]);
    let arg_refs: Vec<_> = args.iter().collect();
    let profile = exe.profile(&arg_refs).unwrap();
    let paired: Vec<&str> = profile
        .steps
        .iter()
        .filter(|s| s.paired)
        .map(|s| s.kernel.as_str())
        .collect();
    assert_eq!(paired.len(), 2, "{:?}", profile.steps);
    assert!(
        paired.iter().all(|k| k.contains("dot_general")),
        "{paired:?}"
    );
    let outs = exe.execute(&arg_refs).unwrap();
    for out in outs {
        let t = out.to_tensor().unwrap();
        assert!(
            t.to_f64_vec().iter().all(|&v| v == 64.0),
            "every element 256·0.25"
        );
    }
}

/// A value that dies at a step is handed over to it, as a run hands it: the reshape of a
/// dying `sine` result reuses its storage rather than copying it, so a round gives one
/// vector back to the pool, not two.
#[test]
fn a_value_dying_at_a_step_is_handed_over_as_in_a_run() {
    use systolic_cpu::pool;
    use systolic_ir::{DType, Tensor};
    // 16411 f32 (64.1 KiB, above the pool's smallest): a pool key no other test uses.
    const N: usize = 16411;
    let (client, exe) = compiled(
        "func.func @main(%a: tensor<16411xf32>) -> tensor<1x16411xf32> {
           %0 = stablehlo.sine %a : tensor<16411xf32>
           %1 = stablehlo.reshape %0 : (tensor<16411xf32>) -> tensor<1x16411xf32>
           return %1 : tensor<1x16411xf32>
         }",
        "handover",
    );
    let steps = exe.program().steps();
    assert!(
        steps.iter().any(|s| s.op_name == "stablehlo.reshape"),
        "the reshape is a step of its own"
    );
    let args = upload(&client, &[Tensor::from_f32(vec![N as i64], vec![0.5; N])]);
    let arg_refs: Vec<_> = args.iter().collect();
    // The first call leaves the pool holding what a round gives back; the second takes
    // it and gives back the same again.
    exe.profile_rounds(&arg_refs, 1).unwrap();
    let before = pool::pooled(DType::F32, N);
    exe.profile_rounds(&arg_refs, 1).unwrap();
    assert_eq!(pool::pooled(DType::F32, N), before);
    assert_eq!(
        before, 1,
        "one vector per round: the reshape kept the sine's"
    );
}
