//! Tour stage: many devices. A data-parallel MLP training step exported from JAX with
//! `shard_map` over 8 devices (gradients `pmean`ed) runs on 8 host CPU devices — compiled, one
//! program per device meeting at its collectives, and on the reference interpreter — and is
//! checked against JAX's outputs; then the same program is costed on a simulated `v5e:4x2`
//! slice, its all-reduces on the slice's interconnect.

use super::Stage;
use crate::backend::{Backend, PrepareOptions};
use crate::error::CliError;
use crate::program::parse_and_verify;
use crate::spmd::{prepare, SpmdPlan};
use std::time::Instant;
use systolic_cpu::CpuBuffer;
use systolic_tpu::slice::Slice;

/// Where the bundled program came from (`scripts/export_spmd_goldens.py`).
const NAME: &str = "mlp_dp_step";
/// The program as JAX exports it (GSPMD form, 8 partitions).
const MODULE: &str = include_str!("../../tests/data/spmd/mlp_dp_step/module.mlir");
/// Its inputs: four parameters (replicated) and a batch of inputs and targets (split over the
/// 8 devices).
const INPUTS: [&[u8]; 6] = [
    include_bytes!("../../tests/data/spmd/mlp_dp_step/in0.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/in1.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/in2.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/in3.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/in4.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/in5.npy"),
];
/// JAX's outputs: the updated parameters and the loss.
const OUTPUTS: [&[u8]; 5] = [
    include_bytes!("../../tests/data/spmd/mlp_dp_step/out0.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/out1.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/out2.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/out3.npy"),
    include_bytes!("../../tests/data/spmd/mlp_dp_step/out4.npy"),
];
/// Relative tolerance against JAX (f32, a few reductions in another order).
const TOLERANCE: f64 = 1e-5;
/// The simulated slice: 8 chips, one per device of the program.
const SLICE: &str = "v5e:4x2";

/// The stage.
pub struct ManyDevices;

impl Stage for ManyDevices {
    fn title(&self) -> &'static str {
        "Many devices: a shard_map training step from JAX on 8 host CPU devices and a TPU slice"
    }

    fn run(&self) -> Result<(), CliError> {
        let module = parse_and_verify(MODULE, NAME)?;
        let plan = SpmdPlan::new(&module, "main", NAME)?
            .ok_or_else(|| CliError::msg(format!("{NAME}: expected a multi-device module")))?;
        outln!(
            "  {NAME}: data-parallel SGD step, batch split over {} devices, gradients pmean'd",
            plan.devices()
        );
        let inputs = decode_all(&INPUTS)?;
        let expected = decode_all(&OUTPUTS)?;
        for backend in [Backend::Cpu, Backend::Interp] {
            let start = Instant::now();
            let plan = SpmdPlan::new(&module, "main", NAME)?.expect("multi-device, as above");
            let mut exe = prepare(backend, plan, NAME, &PrepareOptions::default())?;
            exe.put_inputs(inputs.clone())?;
            exe.execute()?;
            let first_ms = start.elapsed().as_secs_f64() * 1e3;
            let outputs = exe.outputs()?;
            let worst = worst_relative_error(&outputs, &expected)?;
            let label = match backend {
                Backend::Cpu => "compiled, 8 threads",
                Backend::Interp => "interpreter",
            };
            outln!(
                "  {label:>19}: set-up + first step {first_ms:.1} ms; outputs match JAX within \
                 {worst:.1e} (tolerance {TOLERANCE:.0e})"
            );
            if worst > TOLERANCE {
                return Err(CliError::msg(format!(
                    "{NAME} ({label}): outputs differ from JAX's by {worst:.2e} relative"
                )));
            }
        }
        let slice = Slice::parse(SLICE).map_err(|e| CliError::msg(e.to_string()))?;
        let compiled = systolic_tpu::compile::compile(&module, Default::default())
            .map_err(|e| CliError::msg(format!("{NAME}: TPU compile: {e}")))?;
        let report = systolic_tpu::simulate_spmd(&compiled, &slice, &Default::default())
            .map_err(|e| CliError::msg(format!("{NAME} on {SLICE}: {e}")))?;
        outln!(
            "  on a simulated {SLICE} slice: step {:.1} us = {:.1} us compute + {:.1} us in {} \
             collectives (slowest chip)",
            report.time_s * 1e6,
            report.compute_s * 1e6,
            report.collective_s * 1e6,
            report.collectives.len()
        );
        Ok(())
    }
}

/// The bundled `.npy` files as host buffers.
fn decode_all(files: &[&[u8]]) -> Result<Vec<CpuBuffer>, CliError> {
    files
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let raw = systolic_npy::decode(bytes.to_vec(), None)
                .map_err(|e| CliError::msg(format!("{NAME}: bundled array {i}: {e}")))?;
            CpuBuffer::from_le_bytes(raw.ty, &raw.bytes)
                .map_err(|e| CliError::msg(format!("{NAME}: bundled array {i}: {e}")))
        })
        .collect()
}

/// The largest difference between an output and JAX's, relative to JAX's largest magnitude.
fn worst_relative_error(ours: &[CpuBuffer], theirs: &[CpuBuffer]) -> Result<f64, CliError> {
    if ours.len() != theirs.len() {
        return Err(CliError::msg(format!(
            "{NAME}: {} outputs, JAX has {}",
            ours.len(),
            theirs.len()
        )));
    }
    let mut worst = 0.0f64;
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        let (Some(a), Some(b)) = (a.as_f32(), b.as_f32()) else {
            return Err(CliError::msg(format!("{NAME}: output {i} is not f32")));
        };
        if a.len() != b.len() {
            return Err(CliError::msg(format!(
                "{NAME}: output {i} has {} elements, JAX's {}",
                a.len(),
                b.len()
            )));
        }
        let scale = b
            .iter()
            .fold(0.0f64, |m, &v| m.max(f64::from(v).abs()))
            .max(f64::MIN_POSITIVE);
        let diff = a.iter().zip(b).fold(0.0f64, |m, (&x, &y)| {
            m.max((f64::from(x) - f64::from(y)).abs())
        });
        worst = worst.max(diff / scale);
    }
    Ok(worst)
}
