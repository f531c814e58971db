//! Tour stage: `debug::print!` from inside a jitted, vmapped, differentiated function. Each
//! example's prediction and loss are printed by the compiled program while it runs (a host
//! callback), once per example in order, with the primal values only under `grad`; the stage
//! checks that what was printed is what the program returned.

use super::Stage;
use crate::error::CliError;
use systolic::{debug, jit, numpy as np, value_and_grad, vmap, Array};

/// Stage: printing from inside `jit`.
pub struct DebugPrint;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("tour debug print: {e}"))
}

/// The squared error of a linear model on one example, printing its prediction and loss.
fn loss((w, x, y): &(Array, Array, Array)) -> Array {
    let prediction = np::sum(&(w * x), None, false);
    let l = np::square(&(&prediction - y));
    debug::print!(
        "  | prediction {p}, target {t}, loss {l}",
        p = &prediction,
        t = y,
        l = &l
    );
    l
}

impl Stage for DebugPrint {
    fn title(&self) -> &'static str {
        "Printing from inside jit: debug::print! in jit(vmap(value_and_grad(loss)))"
    }

    fn run(&self) -> Result<(), CliError> {
        let w = Array::from_vec(vec![0.5f32, -1.0, 2.0], &[3]);
        let xs = Array::from_vec(
            vec![
                1.0f32, 0.0, 0.5, 2.0, 1.0, 0.0, -1.0, 0.5, 0.25, 0.0, 3.0, 1.0,
            ],
            &[4, 3],
        );
        let ys = Array::from_vec(vec![1.0f32, 0.0, -1.0, 2.0], &[4]);
        let step = jit(vmap(value_and_grad(loss)).in_axes((None, 0, 0)));
        outln!(
            "  a print inside the loss becomes a host callback in the compiled program; vmap \
             calls it once per example, grad gives it the primal values only (as JAX):"
        );
        let (out, lines) = debug::capture_prints(|| {
            step.call(&(w.clone(), xs.clone(), ys.clone()))
                .map(|(l, (_, gx, _)): (Array, (Array, Array, Array))| (l, gx))
        });
        let (losses, grads) = out.map_err(fail)?;
        for line in &lines {
            outln!("{line}");
        }
        let n = ys.shape()[0] as usize;
        if lines.len() != n {
            return Err(fail(format!(
                "{} lines printed for {n} examples",
                lines.len()
            )));
        }
        // What each example printed is what the program returned for it.
        for (i, line) in lines.iter().enumerate() {
            let li = np::index(&losses, &[np::Idx::from(i as i64)]);
            let want = format!("loss {}", debug::Formatted(&li));
            if !line.ends_with(&want) {
                return Err(fail(format!(
                    "example {i} printed '{line}', returned {want}"
                )));
            }
        }
        grads.block_until_ready().map_err(fail)?;
        outln!("  {n} lines, in example order, each equal to the loss the program returned");
        Ok(())
    }
}
