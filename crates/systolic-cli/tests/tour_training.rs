//! The tour's front-end stages agree with JAX: the training program of `src/tour/` run
//! in-process (losses, final loss and accuracy, per-example gradient norms against the
//! recorded `tests/data/tour_training.json`). `tests/tour.rs` runs the whole tour.

#[path = "../src/tour/mlp_training.rs"]
#[allow(dead_code)]
mod mlp_training;

use mlp_training::{
    check_per_example, check_training, per_example_grad_norms, reference, train, LOSS_RTOL,
    NORM_RTOL, PRINT_EVERY, STEPS,
};

#[test]
fn training_matches_jax() {
    let r = reference().unwrap();
    let t = train().unwrap();
    assert_eq!(t.losses.len(), STEPS.div_ceil(PRINT_EVERY) + 1);
    let worst = check_training(&t, &r).unwrap();
    assert!(worst <= LOSS_RTOL, "{worst}");
    // The model learns: the loss falls and most examples end up classified correctly.
    assert!(
        t.final_.0 < 0.5 * t.initial.0,
        "{:?}",
        (t.initial, t.final_)
    );
    assert!(t.final_.1 > t.initial.1, "{:?}", (t.initial, t.final_));
    assert_eq!(t.step_ms.len(), STEPS - 1);
}

#[test]
fn per_example_gradient_norms_match_jax() {
    let r = reference().unwrap();
    let p = per_example_grad_norms().unwrap();
    let worst = check_per_example(&p, &r).unwrap();
    assert!(worst <= NORM_RTOL, "{worst}");
    // Examples differ: the norms are not all the same.
    let (lo, hi) = p
        .norms
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(hi > 1.5 * lo, "{:?}", p.norms);
}

#[test]
fn a_changed_program_is_caught() {
    // The check is not vacuous: JAX's numbers shifted by twice the tolerance fail it.
    let mut r = reference().unwrap();
    let p = per_example_grad_norms().unwrap();
    r.norms[3] *= 1.0 + 2.0 * NORM_RTOL;
    assert!(check_per_example(&p, &r).is_err());
}
