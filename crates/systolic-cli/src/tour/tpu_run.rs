//! Tour stage: the MLP run on a simulated TPU device, `tpu:v5e:0` of the runtime, with the
//! tour's inputs. The device computes with TPU numerics (f32 products take bf16-rounded
//! operands and accumulate in f32, as the MXU does at default precision) on the host, while
//! its clock advances by the modelled step time and the PCIe transfers. The logits are compared
//! with the f32 CPU run: they differ by bf16 rounding, no more.

use super::mlp::{generated_inputs, reference, MODULE, NAME};
use super::Stage;
use crate::backend::{Backend, PrepareOptions};
use crate::error::CliError;
use crate::program::parse_and_verify;
use systolic_ir::Tensor;
use systolic_runtime::{Client, CompileOptions};
use systolic_tpu::report::human_time;

/// The chip the stage runs on.
const CHIP: &str = "v5e";

/// Largest difference from the f32 run allowed, relative to the largest |logit|. bf16 keeps 8
/// significant bits (each product term is off by up to 2^-8 relative), and three layers of
/// ~1000-term dot products compound it: on the tour's inputs the difference is 1.8e-2. The
/// check is that the device really computed in bf16 (not 0) and nothing worse (a wrong product
/// is off by order 1).
const BF16_TOLERANCE: f64 = 5e-2;

/// The stage.
pub struct TpuRun;

impl Stage for TpuRun {
    fn title(&self) -> &'static str {
        "The MLP run on a simulated TPU v5e: TPU numerics, modelled clock"
    }

    fn run(&self) -> Result<(), CliError> {
        let r = reference()?;
        let module = parse_and_verify(MODULE, NAME)?;
        let inputs = generated_inputs(&r);
        let tpu = run_on_tpu(&module, &inputs)?;

        let mut cpu = Backend::Cpu.prepare(&module, "main", NAME, &PrepareOptions::default())?;
        let cpu = cpu.run(&inputs)?;
        let (tpu_out, cpu_out) = match (tpu.0.first(), cpu.first()) {
            (Some(t), Some(c)) => (t.to_f64_vec(), c.to_f64_vec()),
            _ => return Err(CliError::msg(format!("{NAME}: @main returned no result"))),
        };
        let scale = cpu_out.iter().fold(0f64, |m, v| m.max(v.abs())).max(1e-30);
        let diff = tpu_out
            .iter()
            .zip(&cpu_out)
            .fold(0f64, |m, (t, c)| m.max((t - c).abs()))
            / scale;
        // NaN fails too.
        if diff.is_nan() || diff > BF16_TOLERANCE || diff == 0.0 {
            return Err(CliError::msg(format!(
                "{NAME} on tpu:{CHIP}:0 differs from the f32 CPU run by {diff:.2e} of the \
                 largest logit; bf16 products should differ, by at most {BF16_TOLERANCE}"
            )));
        }
        outln!(
            "  logits on tpu:{CHIP}:0 differ from the f32 CPU run by {diff:.1e} of the largest \
             (bf16 operands in the products, f32 accumulation; within {BF16_TOLERANCE})"
        );
        let clock = tpu.1;
        outln!(
            "  simulated clock: {} in all = {} host→device ({:.1} KB) + {} compute ({} \
             execution) + {} device→host ({:.1} KB)",
            human_time(clock.time_s),
            human_time(clock.host_to_device_s),
            clock.bytes_to_device as f64 / 1e3,
            human_time(clock.compute_s),
            clock.executions,
            human_time(clock.device_to_host_s),
            clock.bytes_from_device as f64 / 1e3,
        );
        Ok(())
    }
}

/// Compiles and runs the module on a fresh `tpu:v5e:0`; its outputs and the device's clock.
fn run_on_tpu(
    module: &systolic_ir::Module,
    inputs: &[Tensor],
) -> Result<(Vec<Tensor>, systolic_runtime::SimClock), CliError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        CliError::msg(format!("{NAME} on tpu:{CHIP}:0: {what}: {e}"))
    };
    let client = Client::with_tpus(&[(CHIP, 1)]).map_err(|e| fail("client", &e))?;
    let device = client
        .device(&format!("tpu:{CHIP}:0"))
        .map_err(|e| fail("device", &e))?;
    let options = CompileOptions {
        device: Some(device),
        ..CompileOptions::no_disk_cache()
    };
    let exe = client
        .compile(module, &options)
        .map_err(|e| fail("compile", &e))?;
    let buffers = inputs
        .iter()
        .map(|t| client.buffer_from_tensor(t.clone(), device))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail("transfer", &e))?;
    let refs: Vec<_> = buffers.iter().collect();
    let outs = exe.execute(&refs).map_err(|e| fail("execute", &e))?;
    let tensors = outs
        .iter()
        .map(|b| b.to_tensor())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail("read back", &e))?;
    let clock = device.simulated_clock().unwrap_or_default();
    Ok((tensors, clock))
}
