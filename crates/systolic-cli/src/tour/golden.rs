//! Tour stages that run a bundled JAX golden program (module, inputs and JAX's outputs, from
//! `tests/data/<name>/`, embedded in the binary) and check every output against JAX.

use super::Stage;
use crate::backend::Backend;
use crate::compare::compare;
use crate::error::CliError;
use crate::inputs::{check_input, param_tensor_types};
use crate::outputs::tensor_summary;
use crate::program::{entry_func, parse_and_verify};
use crate::timing::time_ms;
use systolic_ir::DType;

/// A golden program embedded in the binary.
pub struct BundledGolden {
    /// The stage's title.
    pub title: &'static str,
    /// What the program is, in one line.
    pub what: &'static str,
    /// The golden's folder name.
    pub name: &'static str,
    /// `module.mlir`.
    pub module: &'static str,
    /// `meta.json` (tolerances).
    pub meta: &'static str,
    /// `in0.npy`, `in1.npy`, …
    pub inputs: &'static [&'static [u8]],
    /// JAX's `out0.npy`, `out1.npy`, …
    pub outputs: &'static [&'static [u8]],
}

/// Embeds `tests/data/<name>/<file>` for each file.
macro_rules! bundled_files {
    ($name:literal: $($file:literal),* $(,)?) => {
        &[$(include_bytes!(concat!("../../tests/data/", $name, "/", $file))),*]
    };
}

/// Embeds a golden's module and meta.json.
macro_rules! bundled_text {
    ($name:literal, $file:literal) => {
        include_str!(concat!("../../tests/data/", $name, "/", $file))
    };
}

/// The golden stages, in tour order.
pub fn stages() -> Vec<BundledGolden> {
    vec![
        BundledGolden {
            title: "Gradients of a JAX-exported training loss",
            what: "value_and_grad of a softmax cross-entropy through an MLP 32→64→64→10: \
                   the loss and 6 parameter gradients",
            name: "mlp_grad",
            module: bundled_text!("mlp_grad", "module.mlir"),
            meta: bundled_text!("mlp_grad", "meta.json"),
            inputs: bundled_files!("mlp_grad": "in0.npy", "in1.npy", "in2.npy", "in3.npy",
                "in4.npy", "in5.npy", "in6.npy", "in7.npy"),
            outputs: bundled_files!("mlp_grad": "out0.npy", "out1.npy", "out2.npy", "out3.npy",
                "out4.npy", "out5.npy", "out6.npy"),
        },
        BundledGolden {
            title: "Random numbers inside jit",
            what: "threefry split and fold_in, normal, uniform and randint from a key input",
            name: "prng",
            module: bundled_text!("prng", "module.mlir"),
            meta: bundled_text!("prng", "meta.json"),
            inputs: bundled_files!("prng": "in0.npy"),
            outputs: bundled_files!("prng": "out0.npy", "out1.npy", "out2.npy", "out3.npy"),
        },
        BundledGolden {
            title: "Convolution gradients",
            what: "vjp of a strided, padded, grouped NHWC convolution (lhs dilation and \
                   batch_group_count in the backward pass)",
            name: "conv_grad",
            module: bundled_text!("conv_grad", "module.mlir"),
            meta: bundled_text!("conv_grad", "meta.json"),
            inputs: bundled_files!("conv_grad": "in0.npy", "in1.npy", "in2.npy"),
            outputs: bundled_files!("conv_grad": "out0.npy", "out1.npy", "out2.npy"),
        },
    ]
}

impl BundledGolden {
    /// (rtol, atol) for float outputs of `dtype`, from meta.json.
    fn tolerance(&self, meta: &serde_json::Value, dtype: DType) -> Result<(f64, f64), CliError> {
        let entry = &meta["tolerance"]["per_dtype"][dtype.numpy_name()];
        match (entry["rtol"].as_f64(), entry["atol"].as_f64()) {
            (Some(r), Some(a)) => Ok((r, a)),
            _ => Err(CliError::msg(format!(
                "the bundled {}/meta.json has no tolerance for {}",
                self.name,
                dtype.numpy_name()
            ))),
        }
    }
}

impl Stage for BundledGolden {
    fn title(&self) -> &'static str {
        self.title
    }

    fn run(&self) -> Result<(), CliError> {
        let file = format!("{}.mlir", self.name);
        let meta: serde_json::Value = serde_json::from_str(self.meta).map_err(|e| {
            CliError::msg(format!(
                "the bundled {}/meta.json is invalid: {e}",
                self.name
            ))
        })?;
        outln!("  program: {}", self.what);
        let (module, parse_ms) = time_ms(|| parse_and_verify(self.module, &file));
        let module = module?;
        let func = entry_func(&module, "main", &file)?;
        let params = param_tensor_types(func)?;
        if params.len() != self.inputs.len() {
            return Err(CliError::msg(format!(
                "{file}: @main takes {} inputs, {} are bundled",
                params.len(),
                self.inputs.len()
            )));
        }
        let mut inputs = Vec::with_capacity(params.len());
        for (i, (bytes, param)) in self.inputs.iter().zip(&params).enumerate() {
            let name = format!("{}/in{i}.npy", self.name);
            let t = systolic_npy::from_bytes(bytes, Some(param.dtype))
                .map_err(|e| CliError::msg(format!("{name}: {e}")))?;
            check_input(i, &name, t.ty(), param, "main")?;
            inputs.push(t);
        }
        let mut exe = Backend::Interp.prepare(&module, "main", &file, &Default::default())?;
        let (outputs, run_ms) = time_ms(|| exe.run(&inputs));
        let outputs = outputs?;
        outln!(
            "  parse + verify {parse_ms:.1} ms, run on the interpreter {run_ms:.1} ms, {} outputs",
            outputs.len()
        );
        if outputs.len() != self.outputs.len() {
            return Err(CliError::msg(format!(
                "{file}: {} outputs, JAX returns {}",
                outputs.len(),
                self.outputs.len()
            )));
        }
        let mut worst = 0.0f64;
        for (i, (got, bytes)) in outputs.iter().zip(self.outputs).enumerate() {
            let name = format!("{}/out{i}.npy", self.name);
            let want = systolic_npy::from_bytes(bytes, Some(got.dtype()))
                .map_err(|e| CliError::msg(format!("{name}: {e}")))?;
            if want.ty() != got.ty() {
                return Err(CliError::msg(format!(
                    "{file}: output {i} is {}, JAX's is {}",
                    got.ty(),
                    want.ty()
                )));
            }
            let (rtol, atol) = if got.dtype().is_float() {
                self.tolerance(&meta, got.dtype())?
            } else {
                (0.0, 0.0)
            };
            let c = compare(got, &want, rtol, atol);
            if !c.ok() {
                return Err(CliError::msg(format!(
                    "{file}: output {i} differs from JAX in {} of {} elements, first {} \
                     (rtol {rtol}, atol {atol})",
                    c.mismatches,
                    want.num_elements(),
                    c.first.unwrap_or_default()
                )));
            }
            worst = worst.max(c.max_abs_error);
            if i < 3 {
                outln!("  {}", tensor_summary(&format!("out{i}"), got));
            }
        }
        if outputs.len() > 3 {
            outln!("  … and {} more outputs", outputs.len() - 3);
        }
        let how = if worst == 0.0 {
            "bit for bit".to_string()
        } else {
            format!("largest difference {worst:.1e}")
        };
        outln!("  all {} outputs agree with JAX ({how})", outputs.len());
        Ok(())
    }
}
