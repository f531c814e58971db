//! `systolic tour` runs with no arguments and no files, and its MLP agrees with JAX.

use crate::common;

#[test]
fn tour_runs_and_agrees_with_jax() {
    let out = common::systolic(&["tour"]);
    let (stdout, stderr) = common::texts(&out);
    assert!(out.status.success(), "tour failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("784→1024→1024→10"), "{stdout}");
    assert!(stdout.contains("logits: tensor<8x10xf32>"), "{stdout}");
    assert!(stdout.contains("agrees"), "{stdout}");
    // The bundled golden stages: every output checked against JAX's.
    assert!(stdout.contains("[5/17]"), "{stdout}");
    // Linear algebra and complex gradients: the stage fails unless the residuals, invariants
    // and the complex fit converge.
    assert!(
        stdout.contains("lowered to LAPACK custom calls") && stdout.contains("max |H − H*|"),
        "{stdout}"
    );
    // debug::print! inside jit(vmap(value_and_grad)): one line per example (the stage fails
    // unless each equals the loss the program returned).
    assert!(
        stdout.contains("4 lines, in example order, each equal to the loss the program returned"),
        "{stdout}"
    );
    // The input pipeline: prefetching must not change the losses (the stage fails
    // otherwise), and the simulated chip's idle share drops with prefetch.
    assert!(
        stdout.contains("the losses are the same with and without prefetching"),
        "{stdout}"
    );
    assert!(stdout.contains("simulated v5e: step"), "{stdout}");
    // The many-devices stage: a JAX shard_map step on 8 devices, compiled and interpreted,
    // checked against JAX (the stage fails the tour otherwise), then costed on a slice.
    assert!(
        stdout.contains("compiled, 8 threads: set-up + first step"),
        "{stdout}"
    );
    assert!(
        stdout.contains("interpreter: set-up + first step"),
        "{stdout}"
    );
    assert!(
        stdout.contains("on a simulated v5e:4x2 slice: step"),
        "{stdout}"
    );
    // Seed exercise 2 through the front end: pmap on 8 CPU devices equals one device (the
    // stage fails otherwise), and on the simulated slice a too-large batch runs out of HBM.
    assert!(
        stdout.contains("parameters after 3 steps equal the one-device run's"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1048576 examples per chip do not fit")
            && stdout.contains("RESOURCE_EXHAUSTED"),
        "{stdout}"
    );
    // Automatic sharding: the transformer step under three shardings equals one device's
    // (the stage fails otherwise), then a larger one is partitioned and costed on a slice.
    assert!(
        stdout.lines().any(|l| l.contains("FSDP + TP")
            && l.contains("on 8 devices: losses equal the one-device run's")),
        "{stdout}"
    );
    assert!(
        stdout.contains("costed on v5p:2x2x2:") && stdout.contains("mesh 4×2: step"),
        "{stdout}"
    );
    // The compiled stage: timed beside the interpreter and checked against JAX.
    assert!(stdout.contains("compiled CPU: median"), "{stdout}");
    assert!(
        stdout.contains("compiled logits agree with JAX"),
        "{stdout}"
    );
    for stage in ["7 outputs", "4 outputs", "3 outputs"] {
        assert!(
            stdout.contains(&format!("all {stage} agree with JAX")),
            "{stage}: {stdout}"
        );
    }
    // The TPU stage: a bigger batch uses the MXU better on the same chip.
    let mfu = |batch: &str| -> f64 {
        let line = stdout
            .lines()
            .find(|l| l.contains(&format!("batch {batch} on v5e")))
            .unwrap_or_else(|| panic!("no v5e line for batch {batch}: {stdout}"));
        let after = line.split("MFU").nth(1).expect("an MFU figure");
        after
            .trim()
            .split('%')
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert!(mfu("1024") > 10.0 * mfu("   8"), "{stdout}");
    // The numerical TPU stage: bf16 products differ from f32 (the stage itself fails when the
    // difference is 0 or beyond bf16's), and the clock counts the transfers and one execution.
    assert!(
        stdout.contains("logits on tpu:v5e:0 differ from the f32 CPU run by"),
        "{stdout}"
    );
    assert!(stdout.contains("compute (1 execution)"), "{stdout}");
    // The front-end stages: training and per-example gradients, each checked against JAX.
    assert!(stdout.contains("steady step: median"), "{stdout}");
    assert_eq!(stdout.matches("matches JAX").count(), 2, "{stdout}");
    // The language model: its first bf16 losses equal flax/optax's (the stage fails
    // otherwise), it learns, and its full-size step is costed on a v5e chip.
    assert!(
        stdout.contains("the first 10 losses agree with JAX's"),
        "{stdout}"
    );
    assert!(stdout.contains("validation loss"), "{stdout}");
    assert!(stdout.contains("on a simulated v5e chip: step"), "{stdout}");
}
