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
