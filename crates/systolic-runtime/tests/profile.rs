//! Per-kernel profiles: every step timed, totals by op kind, the slowest steps.

use crate::support;

use support::{golden, upload};
use systolic_runtime::{Client, CompileOptions};

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
    let module = systolic_ir::text::parse_module(
        "func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
           %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
           %1 = stablehlo.dot_general %b, %a, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
           return %0, %1 : tensor<256x256xf32>, tensor<256x256xf32>
         }",
        "pair",
    )
    .unwrap();
    let client = Client::cpu();
    let exe = client
        .compile(&module, &CompileOptions::no_disk_cache())
        .unwrap();
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
