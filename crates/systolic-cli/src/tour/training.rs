//! Tour stages written with the Rust front end (`systolic`): an MLP trained with SGD steps of
//! `jit(value_and_grad)`, and per-example gradients with `vmap(grad)`, each checked against
//! the same program run in JAX (`scripts/export_tour_training.py`). The program is in
//! `mlp_training.rs`.

use super::mlp_training::{
    check_per_example, check_training, per_example_grad_norms, reference, train, Reference, BATCH,
    CENTER_SCALE, EXAMPLES, LOSS_RTOL, LR, NORM_RTOL, PER_EXAMPLE, SIZES, STEPS,
};
use super::Stage;
use crate::error::CliError;
use crate::timing::RunStats;

fn front_end(e: systolic::Error) -> CliError {
    CliError::msg(format!("tour training: {e}"))
}

fn jax_reference() -> Result<Reference, CliError> {
    reference().map_err(CliError::msg)
}

fn sizes() -> String {
    SIZES
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("→")
}

/// Stage: training with `jit(value_and_grad)`.
pub struct Training;

impl Stage for Training {
    fn title(&self) -> &'static str {
        "Training an MLP from Rust with jit(value_and_grad), checked against JAX"
    }

    fn run(&self) -> Result<(), CliError> {
        let r = jax_reference()?;
        let classes = SIZES[SIZES.len() - 1];
        outln!(
            "  model: MLP {} (relu) as a #[derive(Tree)] struct, He-normal weights from PRNGKey(0)",
            sizes()
        );
        outln!(
            "  data: {EXAMPLES} examples of {classes} Gaussian classes (centres normal × \
             {CENTER_SCALE}, unit noise) drawn with systolic::random from the same key"
        );
        let t = train().map_err(front_end)?;
        outln!(
            "  {} parameters; data, initialisation and a first evaluation: {:.0} ms",
            t.parameters,
            t.setup_ms
        );
        outln!(
            "  {STEPS} SGD steps (lr {LR}, {} fixed batches of {BATCH} in turn), \
             each one call of a jitted value_and_grad + update:",
            EXAMPLES / BATCH
        );
        for (&(step, loss), &(_, want)) in t.losses.iter().zip(&r.losses) {
            outln!("    step {step:>3}  loss {loss:.6}   JAX {want:.6}");
        }
        let pct = |c: i64| 100.0 * c as f64 / EXAMPLES as f64;
        outln!(
            "  all {EXAMPLES} examples: loss {:.4} → {:.4}, accuracy {:.1}% → {:.1}% \
             (JAX: {:.4} → {:.4}, {:.1}% → {:.1}%)",
            t.initial.0,
            t.final_.0,
            pct(t.initial.1),
            pct(t.final_.1),
            r.initial.0,
            r.final_.0,
            pct(r.initial.1),
            pct(r.final_.1),
        );
        let stats = RunStats::of(&t.step_ms)
            .ok_or_else(|| CliError::msg("tour training: no steps after the first"))?;
        outln!(
            "  compile + first step (trace, differentiate, compile, run): {:.0} ms; \
             steady step: median {:.2} ms (min {:.2}, max {:.2} over {} steps)",
            t.compile_first_ms,
            stats.median,
            stats.min,
            stats.max,
            stats.count
        );
        let worst = check_training(&t, &r).map_err(CliError::msg)?;
        outln!(
            "  matches JAX {}: {} losses along the way and the full-data losses within \
             {LOSS_RTOL:.0e} relative (largest difference {worst:.1e}), the data set's labels \
             exactly",
            r.jax_version,
            t.losses.len()
        );
        Ok(())
    }
}

/// Stage: per-example gradients with `vmap(grad)`.
pub struct PerExampleGradients;

impl Stage for PerExampleGradients {
    fn title(&self) -> &'static str {
        "Per-example gradients with vmap(grad), checked against JAX"
    }

    fn run(&self) -> Result<(), CliError> {
        let r = jax_reference()?;
        outln!(
            "  vmap(grad(loss)) over the first {PER_EXAMPLE} examples, parameters unmapped, \
             under jit: one gradient of the whole MLP per example"
        );
        let p = per_example_grad_norms().map_err(front_end)?;
        outln!("  gradient norms at the initial parameters:");
        for row in p.norms.chunks(8) {
            let row: Vec<String> = row.iter().map(|v| format!("{v:>8.4}")).collect();
            outln!("    {}", row.join(" "));
        }
        outln!(
            "  the mean of the per-example gradients is the batch gradient: norms {:.6} and {:.6}",
            p.batch_norm.1,
            p.batch_norm.0
        );
        outln!(
            "  compile + first run {:.0} ms, then {:.2} ms a run",
            p.compile_first_ms,
            p.run_ms
        );
        let worst = check_per_example(&p, &r).map_err(CliError::msg)?;
        outln!(
            "  matches JAX {}: all {} norms within {NORM_RTOL:.0e} relative (largest \
             difference {worst:.1e})",
            r.jax_version,
            p.norms.len()
        );
        Ok(())
    }
}
