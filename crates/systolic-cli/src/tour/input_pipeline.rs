//! Tour stage: an input pipeline (`systolic::data`) feeding a jitted training step, with and
//! without prefetching, on the host CPU and on a simulated v5e's clock. The full version with
//! its options is `crates/systolic/examples/input_pipeline.rs`.

use super::Stage;
use crate::error::CliError;
use std::time::{Duration, Instant};
use systolic::data::schedule::{simulate, Costs};
use systolic::data::{Dataset, HostArray};
use systolic::nn::initializers::{variance_scaling, Distribution, FanMode};
use systolic::{jit_fallible, nn, numpy as np, optim, random, value_and_grad, Array};
use systolic_ir::DType;

const FEATURES: usize = 64;
const HIDDEN: usize = 128;
const CLASSES: usize = 10;
const BATCH: usize = 64;
const STEPS: usize = 12;
/// The host's deliberate decode cost per batch.
const DECODE: Duration = Duration::from_millis(4);

type Params = Vec<(Array, Array)>;
type State = (Params, systolic::optim::OptState);

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("tour input pipeline: {e}"))
}

fn init(key: &Array) -> Params {
    let keys = random::split(key, 2);
    [(FEATURES, HIDDEN), (HIDDEN, CLASSES)]
        .iter()
        .zip(&keys)
        .map(|(&(m, n), k)| {
            // Variance 1 / fan-in: `variance_scaling(1.0, "fan_in", "normal")`.
            let w = variance_scaling(1.0, FanMode::FanIn, Distribution::Normal).init(
                k,
                &[m as i64, n as i64],
                DType::F32,
            );
            (w, np::zeros(&[n as i64], DType::F32))
        })
        .collect()
}

fn loss(params: &Params, x: &Array, y: &Array) -> Array {
    let h = nn::relu(&(&np::matmul(x, &params[0].0) + &params[0].1));
    let logits = &np::matmul(&h, &params[1].0) + &params[1].1;
    let picked = &nn::log_softmax(&logits, -1) * &nn::one_hot(y, CLASSES as i64, DType::F32);
    -np::sum(&picked, None, false) / x.shape()[0] as f64
}

/// The "decode" of a batch of example indices: the deliberate cost, then features made from
/// the indices (noise plus a bump in the label's block, so there is something to learn).
fn decode(indices: HostArray) -> systolic::Result<(HostArray, HostArray)> {
    std::thread::sleep(DECODE);
    let idx = indices.to_vec::<i64>()?;
    let mut x = Vec::with_capacity(idx.len() * FEATURES);
    let mut y = Vec::with_capacity(idx.len());
    for &i in &idx {
        let label = (i as usize * 7 + 3) % CLASSES;
        for f in 0..FEATURES {
            let noise = ((i as usize * 31 + f * 17) % 97) as f32 / 97.0 - 0.5;
            let bump = if f / (FEATURES / CLASSES) == label {
                1.5
            } else {
                0.0
            };
            x.push(noise + bump);
        }
        y.push(label as i32);
    }
    let n = idx.len() as i64;
    Ok((
        HostArray::from_vec(x, &[n, FEATURES as i64])?,
        HostArray::from_vec(y, &[n])?,
    ))
}

fn pipeline() -> Dataset<(HostArray, HostArray)> {
    let n = (STEPS + 1) * BATCH;
    let indices = HostArray::from_vec((0..n as i64).collect(), &[n as i64]).expect("fits");
    Dataset::from_tensor_slices(indices)
        .shuffle(n, 0)
        .batch(BATCH, true)
        .map(decode)
}

/// Stage: the input pipeline.
pub struct InputPipeline;

impl Stage for InputPipeline {
    fn title(&self) -> &'static str {
        "An input pipeline feeding a training step: prefetching hides the host's decode"
    }

    fn run(&self) -> Result<(), CliError> {
        let opt = optim::adam(1e-3);
        let params = init(&random::key(0));
        let state: State = (params.clone(), opt.init(&params).map_err(fail)?);
        let step = jit_fallible(|((p, s), x, y): &(State, Array, Array)| {
            let (l, g) = value_and_grad(|p: &Params| loss(p, x, y)).call(p)?;
            let (u, s) = opt.update(&g, s, p)?;
            Ok(((optim::apply_updates(p, &u)?, s), l))
        });
        outln!(
            "  MLP {FEATURES}→{HIDDEN}→{CLASSES} with adam, batches of {BATCH} from a shuffled \
             Dataset whose decode costs {} ms per batch on the host",
            DECODE.as_millis()
        );
        let mut runs: Vec<(usize, Vec<f32>)> = vec![];
        for depth in [0, 2] {
            let ds = pipeline().prefetch_to_device(depth, systolic::default_device());
            let mut it = ds.epoch(0);
            let (x, y) = it
                .next()
                .ok_or_else(|| fail("empty pipeline"))?
                .map_err(fail)?;
            // The first step compiles (or hits jit's cache): not timed.
            let mut s = step.call(&(state.clone(), x, y)).map_err(fail)?.0;
            it.reset_stats();
            let t0 = Instant::now();
            let mut losses = vec![];
            for batch in it.by_ref() {
                let (x, y) = batch.map_err(fail)?;
                let (next, l) = step.call(&(s, x, y)).map_err(fail)?;
                losses.push(l.to_vec::<f32>().map_err(fail)?[0]);
                s = next;
            }
            let stats = it.stats();
            outln!(
                "  prefetch {depth}: {:.1} ms per step, the step waited for data {:.0}% of the \
                 time; loss {:.3} → {:.3}",
                t0.elapsed().as_secs_f64() * 1e3 / losses.len().max(1) as f64,
                100.0 * stats.wait_share(),
                losses[0],
                losses[losses.len() - 1]
            );
            runs.push((depth, losses));
        }
        if runs[1].1 != runs[0].1 {
            return Err(fail(
                "prefetching changed the losses: it must change only when batches are made",
            ));
        }
        outln!("  the losses are the same with and without prefetching (same batches, same order)");

        // The same loop on a simulated v5e: the step's modelled time, the batch's PCIe
        // transfer, a decode that keeps up (60% of the step).
        let device = systolic::device("tpu:v5e").map_err(fail)?;
        let chip = device.chip().ok_or_else(|| fail("tpu:v5e has no chip"))?;
        let (x, y) = pipeline()
            .iter()
            .next()
            .ok_or_else(|| fail("empty pipeline"))?
            .map_err(fail)?;
        let (x, y) = (
            x.to_array(systolic::default_device()).map_err(fail)?,
            y.to_array(systolic::default_device()).map_err(fail)?,
        );
        let lowered = step.lower(&(state, x, y)).map_err(fail)?;
        let step_ns =
            (super::simulated_step(&lowered.module, "tpu:v5e")?.time_s * 1e9).round() as u64;
        let batch_bytes = (BATCH * (FEATURES * 4 + 4)) as f64;
        let transfer_s =
            systolic_tpu::interconnect::host_transfer_s(chip, batch_bytes).map_err(fail)?;
        let costs = Costs {
            decode_ns: step_ns * 6 / 10,
            transfer_ns: (transfer_s * 1e9).round() as u64,
            step_ns,
        };
        outln!(
            "  simulated v5e: step {:.1} µs, PCIe transfer of a batch {:.1} µs, decode {:.1} µs",
            costs.step_ns as f64 / 1e3,
            costs.transfer_ns as f64 / 1e3,
            costs.decode_ns as f64 / 1e3
        );
        let mut idle = vec![];
        for depth in [0, 2] {
            let t = simulate(costs, STEPS as u64, depth);
            outln!(
                "    prefetch {depth}: {:.1} µs per step, the chip idle {:.0}% of the time",
                t.step_time_ns() / 1e3,
                100.0 * t.idle_share()
            );
            idle.push(t.idle_share());
        }
        // On the simulated clock the gain is exact: a host that keeps up hides behind the step.
        if idle[1] >= idle[0] {
            return Err(fail(format!(
                "prefetching did not reduce the simulated chip's idle share ({:.3} → {:.3})",
                idle[0], idle[1]
            )));
        }
        Ok(())
    }
}
