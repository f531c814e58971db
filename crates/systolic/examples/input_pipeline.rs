//! Seed exercise 3: keep the device fed. A `systolic::data` pipeline with a deliberate
//! host-side decode cost per batch feeds a jitted MLP training step (adam); the same run is
//! timed with no prefetching, `prefetch_to_device(2, …)` and `prefetch_to_device(4, …)`, and a
//! table shows the step time and the share of the time the device sat idle waiting for input.
//!
//! ```text
//! cargo run -p systolic --example input_pipeline
//! cargo run -p systolic --example input_pipeline -- --decode-ms 8 --batches 40
//! cargo run -p systolic --example input_pipeline -- --device tpu:v5e --json
//! ```
//!
//! The decode is a sleep (`--decode-ms`, by default 60% of the measured step, so that a fed
//! device never waits) plus making the batch's features, on the pipeline's thread. Every step
//! reads its loss back, as a loop that logs it does; otherwise `jit`'s asynchronous dispatch
//! would already overlap the next decode with the step. On the CPU the numbers are measured:
//! without prefetching a step costs decode + transfer + compute; with it, the decode and the
//! transfer of the next batches run on a background thread while the step computes, and the
//! step costs about max(decode, compute).
//!
//! With `--device tpu:v5e` (any simulated chip with a PCIe figure) the same table is computed on
//! the simulated clock by `systolic::data::schedule`: the step's modelled time from the TPU cost
//! model, the PCIe transfer of a batch from the chip's host-link bandwidth, and the decode
//! (60% of the modelled step, then the CPU run's decode for a host that cannot keep up). There
//! the gain is exact: with prefetching only the first batch's decode and transfer are exposed.
//!
//! With `--json` the last stdout line is a JSON object: `decode_ms`, `step_alone_ms` (the step
//! with its batch already on the device), `cpu` (one entry per prefetch depth: `prefetch`,
//! `step_ms`, `idle_share`, `waited_ms`, `losses`) and, with `--device`, `tpu` (`device`,
//! `step_ms`, `transfer_ms`, and `fast_host`/`slow_host`: `decode_ms` and `rows`, per depth
//! `prefetch`, `step_ms`, `idle_share`). The example fails if prefetching changed any loss: it
//! may change when batches are made, never which.

use clap::Parser;
use std::time::{Duration, Instant};
use systolic::data::schedule::{simulate, Costs};
use systolic::data::{Dataset, HostArray};
use systolic::nn::initializers::{variance_scaling, Distribution, FanMode};
use systolic::{jit_fallible, nn, numpy as np, optim, random, value_and_grad, Array};
use systolic_ir::DType;

#[derive(Parser, Debug)]
#[command(about = "Prefetching input pipeline feeding an MLP training step")]
struct Args {
    /// Timed steps per prefetch depth (after one warm-up step).
    #[arg(long, default_value_t = 24)]
    batches: usize,
    /// Examples per batch.
    #[arg(long, default_value_t = 128)]
    batch: usize,
    /// Features per example (the MLP is features → hidden → 10).
    #[arg(long, default_value_t = 256)]
    features: usize,
    /// Hidden units.
    #[arg(long, default_value_t = 512)]
    hidden: usize,
    /// Host-side decode cost per batch in milliseconds (default: 60% of the measured step).
    #[arg(long)]
    decode_ms: Option<f64>,
    /// Also compute the table on the simulated clock of this TPU (`tpu:v5e`).
    #[arg(long)]
    device: Option<String>,
    /// Seed of the shuffle and of the initialisation.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print a JSON summary as the last line.
    #[arg(long)]
    json: bool,
}

const CLASSES: usize = 10;
const DEPTHS: [usize; 3] = [0, 2, 4];

type Params = Vec<(Array, Array)>;
type State = (Params, optim::OptState);
/// The jitted training step: `(state, x, y) -> (state, loss)`.
type Step<'a> = dyn Fn(&(State, Array, Array)) -> systolic::Result<(State, Array)> + 'a;

fn fail(what: &str) -> impl Fn(String) -> systolic::Error + '_ {
    move |m| systolic::Error::Host(format!("{what}: {m}"))
}

fn init(key: &Array, features: usize, hidden: usize) -> Params {
    let keys = random::split(key, 2);
    [(features, hidden), (hidden, CLASSES)]
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
    let (w1, b1) = &params[0];
    let (w2, b2) = &params[1];
    let h = nn::relu(&(&np::matmul(x, w1) + b1));
    let logits = &np::matmul(&h, w2) + b2;
    let picked = &nn::log_softmax(&logits, -1) * &nn::one_hot(y, CLASSES as i64, DType::F32);
    -np::sum(&picked, None, false) / x.shape()[0] as f64
}

fn train_step(
    opt: &optim::GradientTransformation,
    (params, opt_state): &State,
    x: &Array,
    y: &Array,
) -> systolic::Result<(State, Array)> {
    let (l, grads) = value_and_grad(|p: &Params| loss(p, x, y)).call(params)?;
    let (updates, opt_state) = opt.update(&grads, opt_state, params)?;
    Ok(((optim::apply_updates(params, &updates)?, opt_state), l))
}

/// SplitMix64's output function: a hash that makes an example's features from its index.
fn hash(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The "decode" of a batch of example indices: `sleep` (the deliberate cost), then features
/// that are noise plus a bump at the label's block, so the MLP has something to learn.
fn decode(
    indices: HostArray,
    features: usize,
    sleep: Duration,
) -> systolic::Result<(HostArray, HostArray)> {
    std::thread::sleep(sleep);
    let idx = indices.to_vec::<i64>()?;
    let block = features / CLASSES;
    let mut x = Vec::with_capacity(idx.len() * features);
    let mut y = Vec::with_capacity(idx.len());
    for &i in &idx {
        let label = (hash(i as u64) % CLASSES as u64) as usize;
        for f in 0..features {
            let noise = (hash((i as u64) << 20 | f as u64) >> 40) as f32 / (1u64 << 24) as f32;
            let bump = if f / block.max(1) == label { 1.5 } else { 0.0 };
            x.push(noise - 0.5 + bump);
        }
        y.push(label as i32);
    }
    let n = idx.len() as i64;
    Ok((
        HostArray::from_vec(x, &[n, features as i64])?,
        HostArray::from_vec(y, &[n])?,
    ))
}

/// The pipeline: shuffled example indices, batched, decoded (the cost), dropped remainder so
/// the step compiles once.
fn pipeline(args: &Args, decode_cost: Duration) -> Dataset<(HostArray, HostArray)> {
    let n = (args.batches + 1) * args.batch;
    let indices = HostArray::from_vec((0..n as i64).collect(), &[n as i64]).expect("fits");
    let features = args.features;
    Dataset::from_tensor_slices(indices)
        .shuffle(n, args.seed)
        .batch(args.batch, true)
        .map(move |b| decode(b, features, decode_cost))
}

/// One row of the CPU table.
struct Measured {
    prefetch: usize,
    step_ms: f64,
    idle_share: f64,
    waited_ms: f64,
    /// Every timed step's loss.
    losses: Vec<f32>,
}

/// Trains `args.batches` steps from `state` with prefetch depth `depth` (after a warm-up step
/// that is not timed) and measures the loop.
fn run(
    args: &Args,
    depth: usize,
    decode_cost: Duration,
    step: &Step<'_>,
    mut state: State,
) -> systolic::Result<Measured> {
    let ds = pipeline(args, decode_cost).prefetch_to_device(depth, systolic::default_device());
    let mut it = ds.epoch(0);
    let (x, y) = it
        .next()
        .ok_or_else(|| fail("pipeline")("empty".into()))??;
    state = step(&(state, x, y))?.0;
    it.reset_stats();
    let mut losses = Vec::with_capacity(args.batches);
    for batch in it.by_ref() {
        let (x, y) = batch?;
        let (next, l) = step(&(state, x, y))?;
        // Reading the loss waits for the step, as a loop that logs its loss does.
        losses.push(l.to_vec::<f32>()?[0]);
        state = next;
    }
    let s = it.stats();
    Ok(Measured {
        prefetch: depth,
        step_ms: s.wall.as_secs_f64() * 1e3 / losses.len().max(1) as f64,
        idle_share: s.wait_share(),
        waited_ms: s.waited.as_secs_f64() * 1e3,
        losses,
    })
}

/// The simulated table of one decode cost: per depth, the step time and idle share.
fn simulated(costs: Costs, batches: u64) -> Vec<(usize, f64, f64)> {
    DEPTHS
        .iter()
        .map(|&d| {
            let t = simulate(costs, batches, d);
            (d, t.step_time_ns() / 1e6, t.idle_share())
        })
        .collect()
}

fn print_simulated(title: &str, costs: Costs, rows: &[(usize, f64, f64)]) {
    println!(
        "{title}: decode {:.4} ms, PCIe transfer {:.4} ms, step {:.4} ms",
        costs.decode_ns as f64 / 1e6,
        costs.transfer_ns as f64 / 1e6,
        costs.step_ns as f64 / 1e6
    );
    println!("  prefetch  step ms   device idle");
    for &(d, ms, idle) in rows {
        println!("  {d:>8}  {ms:>8.4}  {:>10.1}%", 100.0 * idle);
    }
}

fn main() -> systolic::Result<()> {
    let args = Args::parse();
    if args.batches == 0 || args.batch == 0 || args.features < CLASSES || args.hidden == 0 {
        return Err(fail("arguments")(
            "--batches, --batch and --hidden must be positive and --features at least 10".into(),
        ));
    }
    // A device that does not exist is an error now, not after the CPU runs.
    let tpu = args.device.as_deref().map(systolic::device).transpose()?;

    let opt = optim::adam(1e-3);
    let params = init(&random::key(args.seed as i64), args.features, args.hidden);
    let state: State = (params.clone(), opt.init(&params)?);
    let jitted = jit_fallible(|(s, x, y): &(State, Array, Array)| train_step(&opt, s, x, y))
        .named("train_step");
    let step = |a: &(State, Array, Array)| jitted.call(a);

    // The step alone, its batch already on the device: compile, then time a few.
    let (hx, hy) = pipeline(&args, Duration::ZERO)
        .iter()
        .next()
        .ok_or_else(|| fail("pipeline")("empty".into()))??;
    let (x, y) = (
        hx.to_array(systolic::default_device())?,
        hy.to_array(systolic::default_device())?,
    );
    let mut s = state.clone();
    for _ in 0..2 {
        let (next, l) = step(&(s, x.clone(), y.clone()))?;
        l.block_until_ready()?;
        s = next;
    }
    let t0 = Instant::now();
    let alone_steps = 5;
    for _ in 0..alone_steps {
        let (next, l) = step(&(s, x.clone(), y.clone()))?;
        l.to_vec::<f32>()?;
        s = next;
    }
    let step_alone_ms = t0.elapsed().as_secs_f64() * 1e3 / alone_steps as f64;
    let decode_ms = args.decode_ms.unwrap_or(0.6 * step_alone_ms);
    if !(decode_ms.is_finite() && decode_ms >= 0.0) {
        return Err(fail("--decode-ms")(format!(
            "must be a duration, got {decode_ms}"
        )));
    }
    let decode_cost = Duration::from_secs_f64(decode_ms / 1e3);
    let batch_bytes = args.batch * (args.features * 4 + 4);
    println!(
        "MLP {}→{}→{CLASSES}, batch {} ({:.1} KiB), adam; step alone {step_alone_ms:.2} ms; \
         decode {decode_ms:.2} ms per batch{}",
        args.features,
        args.hidden,
        args.batch,
        batch_bytes as f64 / 1024.0,
        if args.decode_ms.is_none() {
            " (60% of the step)"
        } else {
            ""
        }
    );

    let mut rows = vec![];
    for depth in DEPTHS {
        rows.push(run(&args, depth, decode_cost, &step, state.clone())?);
    }
    println!(
        "{} (measured, {} steps):\n  prefetch  step ms  device idle  waited ms  loss",
        systolic::default_device(),
        args.batches
    );
    for r in &rows {
        println!(
            "  {:>8}  {:>7.2}  {:>10.1}%  {:>9.1}  {:.3} → {:.3}",
            r.prefetch,
            r.step_ms,
            100.0 * r.idle_share,
            r.waited_ms,
            r.losses[0],
            r.losses[r.losses.len() - 1]
        );
    }
    // Prefetching changes when batches are made, never which: the runs train identically.
    if let Some(r) = rows.iter().find(|r| r.losses != rows[0].losses) {
        return Err(fail("prefetch")(format!(
            "the losses with prefetch {} differ from those without",
            r.prefetch
        )));
    }

    let mut tpu_json = None;
    if let (Some(name), Some(device)) = (&args.device, tpu) {
        let chip = device
            .chip()
            .ok_or_else(|| fail("--device")(format!("{name} is not a simulated TPU")))?;
        let lowered = jitted.lower(&(state.clone(), x.clone(), y.clone()))?;
        let options = systolic_runtime::CompileOptions {
            device: Some(device),
            ..Default::default()
        };
        let exe = systolic::client().compile(&lowered.module, &options)?;
        let cost = exe
            .tpu_cost()
            .ok_or_else(|| fail("--device")(format!("{name} is not a simulated TPU")))?;
        let step_ns = (cost.report.time_s * 1e9).round() as u64;
        let transfer_s = systolic_tpu::interconnect::host_transfer_s(chip, batch_bytes as f64)
            .map_err(|e| fail("--device")(e.to_string()))?;
        let transfer_ns = (transfer_s * 1e9).round() as u64;
        let fast = Costs {
            decode_ns: step_ns * 6 / 10,
            transfer_ns,
            step_ns,
        };
        let slow = Costs {
            decode_ns: decode_cost.as_nanos() as u64,
            ..fast
        };
        let batches = args.batches as u64;
        let (fast_rows, slow_rows) = (simulated(fast, batches), simulated(slow, batches));
        println!("{name} (simulated clock, {batches} steps):");
        print_simulated("  a host that keeps up", fast, &fast_rows);
        print_simulated("  this run's decode", slow, &slow_rows);
        let table = |c: Costs, rows: &[(usize, f64, f64)]| {
            serde_json::json!({
                "decode_ms": c.decode_ns as f64 / 1e6,
                "rows": rows.iter().map(|&(d, ms, idle)| serde_json::json!({
                    "prefetch": d, "step_ms": ms, "idle_share": idle,
                })).collect::<Vec<_>>(),
            })
        };
        tpu_json = Some(serde_json::json!({
            "device": name,
            "step_ms": step_ns as f64 / 1e6,
            "transfer_ms": transfer_ns as f64 / 1e6,
            "fast_host": table(fast, &fast_rows),
            "slow_host": table(slow, &slow_rows),
        }));
    }

    if args.json {
        let cpu: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "prefetch": r.prefetch,
                    "step_ms": r.step_ms,
                    "idle_share": r.idle_share,
                    "waited_ms": r.waited_ms,
                    "losses": r.losses,
                })
            })
            .collect();
        let summary = serde_json::json!({
            "batches": args.batches,
            "batch": args.batch,
            "batch_bytes": batch_bytes,
            "decode_ms": decode_ms,
            "step_alone_ms": step_alone_ms,
            "cpu": cpu,
            "tpu": tpu_json,
            "host": systolic::default_device().to_string(),
        });
        println!("{summary}");
    }
    Ok(())
}
