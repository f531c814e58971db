//! Tour stage: seed exercise 2 through the front end. The seed's MLP trained data-parallel
//! with `pmap` over 8 host CPU devices (gradients `pmean`ed), checked against the same steps on
//! one device, timed beside it; then the same step compiled for a simulated `v5e:4x2` slice
//! (modelled step, examples/s) and at a per-chip batch too large for a v5e's HBM, which
//! fails with RESOURCE_EXHAUSTED. `examples/pmap_mlp.rs` is the full sweep.

use super::Stage;
use crate::error::CliError;
use std::time::Instant;
use systolic::{jit, numpy as np, pmap, random, Array};
use systolic_ir::DType;
use systolic_runtime::{Device, DeviceKind};

/// Host CPU devices the tour asks for (before any stage touches a device).
pub const DEVICES: usize = 8;
/// The simulated slice (when `SYSTOLIC_TPUS` does not name other TPUs).
pub const SLICE: &str = "v5e:4x2";
/// Examples per device per step on the CPU.
const BATCH: i64 = 32;
/// Training steps run on both sides.
const STEPS: usize = 3;

#[path = "../../../systolic/examples/shared/data_parallel_mlp.rs"]
mod data_parallel_mlp;
use data_parallel_mlp::{init, replicate, step, Params};

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("pmap training: {e}"))
}

/// The stage.
pub struct PmapTraining;

impl Stage for PmapTraining {
    fn title(&self) -> &'static str {
        "Seed exercise 2: the MLP trained data-parallel with pmap (8 CPU devices, a TPU slice)"
    }

    fn run(&self) -> Result<(), CliError> {
        let cpus: Vec<Device> = systolic::devices()
            .into_iter()
            .filter(|d| d.kind() == DeviceKind::Cpu)
            .collect();
        let n = cpus.len() as i64;
        let params = init(&random::key(0));
        let keys = random::split(&random::key(1), 2);
        let x = random::normal(&keys[0], &[n, BATCH, 784], DType::F32);
        let y = random::randint(&keys[1], &[n, BATCH], 0, 10, DType::I32);
        let pstep = pmap(
            |(p, x, y): &(Params, Array, Array)| step(p, x, y, Some("batch")),
            "batch",
        );
        let single = jit(|(p, x, y): &(Params, Array, Array)| step(p, x, y, None));
        let (gx, gy) = (
            np::reshape(&x, &[n * BATCH, 784]),
            np::reshape(&y, &[n * BATCH]),
        );
        let on_slice = replicate(&params, 8);
        let (mut p, mut q) = (replicate(&params, n), params);
        let (mut pmap_times, mut single_times) = (vec![], vec![]);
        let (mut pl, mut ql) = (vec![], vec![]);
        for _ in 0..STEPS {
            let t = Instant::now();
            let (p1, l) = pstep.call(&(p, x.clone(), y.clone())).map_err(fail)?;
            pl.push(l.to_vec::<f32>().map_err(fail)?[0]);
            pmap_times.push(t.elapsed().as_secs_f64());
            p = p1;
            let t = Instant::now();
            let (q1, l) = single.call(&(q, gx.clone(), gy.clone())).map_err(fail)?;
            ql.push(l.to_vec::<f32>().map_err(fail)?[0]);
            single_times.push(t.elapsed().as_secs_f64());
            q = q1;
        }
        // Every device holds the same parameters, equal to the one-device run's.
        let worst = p
            .iter()
            .zip(&q)
            .flat_map(|((pw, pb), (qw, qb))| [(pw, qw), (pb, qb)])
            .map(|(stacked, one)| -> Result<f32, CliError> {
                let s = stacked.to_vec::<f32>().map_err(fail)?;
                let o = one.to_vec::<f32>().map_err(fail)?;
                Ok(s.chunks(o.len())
                    .flat_map(|c| c.iter().zip(&o).map(|(a, b)| (a - b).abs()))
                    .fold(0.0, f32::max))
            })
            .try_fold(0.0f32, |m, e| e.map(|e| m.max(e)))?;
        outln!(
            "  784→1024→1024→10 on {n} devices × {BATCH} examples: losses {} (one device: {})",
            pl.iter()
                .map(|l| format!("{l:.4}"))
                .collect::<Vec<_>>()
                .join(", "),
            ql.iter()
                .map(|l| format!("{l:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if worst > 1e-4 {
            return Err(fail(format!(
                "after {STEPS} steps the pmap parameters differ from one device's by {worst:.2e}"
            )));
        }
        let steady = |v: &[f64]| v[1..].iter().copied().fold(f64::INFINITY, f64::min) * 1e3;
        outln!(
            "  parameters after {STEPS} steps equal the one-device run's (max difference \
             {worst:.1e}); compile + first step {:.0} ms, then {:.1} ms/step on {n} devices vs \
             {:.1} ms/step on one",
            pmap_times[0] * 1e3,
            steady(&pmap_times),
            steady(&single_times)
        );
        self.on_slice(&on_slice)
    }
}

impl PmapTraining {
    /// The step compiled for the simulated slice's chips: costed, not run.
    fn on_slice(&self, params: &Params) -> Result<(), CliError> {
        let chips: Vec<Device> = systolic::devices()
            .into_iter()
            .filter(|d| d.kind() == DeviceKind::Tpu && d.coords().is_some())
            .collect();
        if chips.len() != 8 {
            outln!("  (no 8-chip TPU slice among the devices: SYSTOLIC_TPUS names other TPUs)");
            return Ok(());
        }
        let keys = random::split_array(&random::key(7), 8);
        for per_chip in [1024i64, 1 << 20] {
            let pstep = pmap(
                move |(p, key): &(Params, Array)| {
                    let k = random::split(key, 2);
                    let x = random::normal(&k[0], &[per_chip, 784], DType::F32);
                    let y = random::randint(&k[1], &[per_chip], 0, 10, DType::I32);
                    step(p, &x, &y, Some("batch"))
                },
                "batch",
            )
            .devices(&chips);
            match pstep.compile(&(params.clone(), keys.clone())) {
                Ok(c) => {
                    let s = c.modelled_step_s().unwrap_or(f64::NAN);
                    outln!(
                        "  on a simulated {SLICE} slice, {per_chip} examples per chip: modelled \
                         step {:.3} ms, {:.2e} examples/s, {:.0} MiB per chip",
                        s * 1e3,
                        (8 * per_chip) as f64 / s,
                        c.peak_memory_bytes() as f64 / (1 << 20) as f64
                    );
                }
                Err(e) if e.to_string().contains("RESOURCE_EXHAUSTED") => {
                    let e = e.to_string();
                    let short = e.split("; largest").next().unwrap_or(&e);
                    outln!("  {per_chip} examples per chip do not fit: {short}");
                }
                Err(e) => return Err(fail(e)),
            }
        }
        Ok(())
    }
}
