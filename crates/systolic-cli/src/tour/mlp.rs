//! Tour stage: a JAX-exported MLP (784→1024→1024→10, relu, f32) run on the reference
//! interpreter and checked against JAX's result on the same generated inputs.

use super::inputs::hashed_f32;
use super::Stage;
use crate::backend::Backend;
use crate::error::CliError;
use crate::inputs::{check_input, param_tensor_types};
use crate::outputs::{float_text, tensor_summary};
use crate::program::{entry_func, parse_and_verify};
use crate::timing::time_ms;
use systolic_ir::Tensor;

/// The module as JAX printed it (`scripts/export_goldens.py`, `export_tour_mlp`).
pub(super) const MODULE: &str = include_str!("../../tests/data/tour_mlp/module.mlir");
/// JAX's version, the sizes and the checksum of JAX's output on the generated inputs.
const META: &str = include_str!("../../tests/data/tour_mlp/meta.json");
pub(super) const NAME: &str = "tour_mlp.mlir";

/// The stage.
pub struct InterpreterMlp;

/// What the stage needs from `meta.json`.
pub(super) struct Reference {
    jax_version: String,
    pub(super) sizes: Vec<i64>,
    pub(super) batch: i64,
    sum: f64,
    rtol: f64,
    atol: f64,
}

pub(super) fn reference() -> Result<Reference, CliError> {
    let bad = |what: &str| CliError::msg(format!("the bundled tour_mlp/meta.json lacks {what}"));
    let meta: serde_json::Value = serde_json::from_str(META)
        .map_err(|e| CliError::msg(format!("the bundled tour_mlp/meta.json is invalid: {e}")))?;
    let num = |v: &serde_json::Value, what: &str| v.as_f64().ok_or_else(|| bad(what));
    Ok(Reference {
        jax_version: meta["jax_version"]
            .as_str()
            .ok_or_else(|| bad("jax_version"))?
            .into(),
        sizes: meta["sizes"]
            .as_array()
            .ok_or_else(|| bad("sizes"))?
            .iter()
            .map(|v| v.as_i64().ok_or_else(|| bad("sizes")))
            .collect::<Result<_, _>>()?,
        batch: meta["batch"].as_i64().ok_or_else(|| bad("batch"))?,
        sum: num(&meta["output_sum"], "output_sum")?,
        rtol: num(&meta["tolerance"]["rtol"], "tolerance.rtol")?,
        atol: num(&meta["tolerance"]["atol"], "tolerance.atol")?,
    })
}

/// The inputs `tour_args` in the export script builds: the batch, then weights and biases per
/// layer, with weights uniform in ±sqrt(3/fan_in) (unit variance of the pre-activations).
pub(super) fn generated_inputs(r: &Reference) -> Vec<Tensor> {
    let mut args = vec![hashed_f32(1, &[r.batch, r.sizes[0]], 2.0)];
    for (layer, pair) in r.sizes.windows(2).enumerate() {
        let (m, n) = (pair[0], pair[1]);
        let layer = layer as u64;
        args.push(hashed_f32(
            10 + 2 * layer,
            &[m, n],
            2.0 * (3.0 / m as f64).sqrt(),
        ));
        args.push(hashed_f32(11 + 2 * layer, &[n], 0.2));
    }
    args
}

impl Stage for InterpreterMlp {
    fn title(&self) -> &'static str {
        "A JAX-exported MLP on the reference interpreter"
    }

    fn run(&self) -> Result<(), CliError> {
        let r = reference()?;
        let sizes: Vec<String> = r.sizes.iter().map(|s| s.to_string()).collect();
        outln!(
            "  program: MLP {} with relu, f32, exported by JAX {} as StableHLO text",
            sizes.join("→"),
            r.jax_version
        );
        let (module, parse_ms) = time_ms(|| parse_and_verify(MODULE, NAME));
        let module = module?;
        let func = entry_func(&module, "main", NAME)?;
        let params = param_tensor_types(func)?;
        let inputs = generated_inputs(&r);
        if inputs.len() != params.len() {
            return Err(CliError::msg(format!(
                "{NAME}: @main takes {} inputs, the tour generates {}",
                params.len(),
                inputs.len()
            )));
        }
        for (i, (t, p)) in inputs.iter().zip(&params).enumerate() {
            check_input(i, "generated", t.ty(), p, "main")?;
        }
        let weights: usize = inputs[1..].iter().map(Tensor::num_elements).sum();
        let macs: i64 = r.sizes.windows(2).map(|p| r.batch * p[0] * p[1]).sum();
        outln!(
            "  parse + verify: {parse_ms:.1} ms ({} lines, {} ops in @main)",
            MODULE.lines().count(),
            func.body.entry().map_or(0, |b| b.ops.len())
        );
        outln!(
            "  inputs: a batch of {} generated deterministically, {:.2} M parameters",
            r.batch,
            weights as f64 / 1e6
        );

        let mut exe = Backend::Interp.prepare(&module, "main", NAME, &Default::default())?;
        let (outputs, run_ms) = time_ms(|| exe.run(&inputs));
        let outputs = outputs?;
        outln!(
            "  run on the interpreter: {run_ms:.0} ms for {:.1} M multiply-adds ({:.2} GFLOP/s)",
            macs as f64 / 1e6,
            2.0 * macs as f64 / (run_ms * 1e6)
        );
        let out = outputs
            .first()
            .ok_or_else(|| CliError::msg(format!("{NAME}: @main returned no result")))?;
        outln!("  {}", tensor_summary("logits", out));
        let diff = check_against_jax(out, &r)?;
        outln!(
            "  JAX's result on the same inputs sums to {}: agrees (difference {:.1e})",
            float_text(r.sum),
            diff
        );
        Ok(())
    }
}

/// Checks the logits' sum against JAX's checksum; the difference when within tolerance.
pub(super) fn check_against_jax(out: &Tensor, r: &Reference) -> Result<f64, CliError> {
    let sum: f64 = out.to_f64_vec().iter().sum();
    let diff = (sum - r.sum).abs();
    if diff > r.atol + r.rtol * r.sum.abs() {
        return Err(CliError::msg(format!(
            "the tour's MLP disagrees with JAX: sum {} vs JAX's {} (tolerance {} + {}·|sum|)",
            float_text(sum),
            float_text(r.sum),
            r.atol,
            r.rtol
        )));
    }
    Ok(diff)
}
