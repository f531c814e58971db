//! Seed exercise 4, "profile a short run", shared by `examples/profile_run.rs` and the tour's
//! profile stage (`systolic-cli/src/tour/profile_run.rs` includes this file by path), so that
//! both profile the same program.
//!
//! A small MLP's SGD step, jitted data-parallel over the host's CPU devices when there are
//! several (the batch split over a mesh axis `batch`, the parameters replicated, so the
//! partitioner adds an all-reduce of the gradients), runs a warm-up step and then the profiled
//! steps, all inside one trace (`profiler::start_trace` … `stop_trace`). Each step is a
//! `TraceAnnotation`. The warm-up is traced too, so the trace says what compiling cost against
//! executing; what the seed's questions need is then read back from the trace file itself.

use std::path::{Path, PathBuf};
use systolic::nn::initializers::{variance_scaling, Distribution, FanMode};
use systolic::profiler::{self, ProcessSummary, TraceAnnotation};
use systolic::{
    jit, make_mesh, nn, numpy as np, random, value_and_grad, Array, DType, Jit, NamedSharding, P,
};

/// Layers as (weight, bias).
pub type Params = Vec<(Array, Array)>;

/// What to profile.
#[derive(Clone, Debug)]
pub struct Config {
    /// Examples per step (split over the devices).
    pub batch: usize,
    /// Input features; the layers are `features → hidden → hidden → classes`.
    pub features: usize,
    /// Hidden width.
    pub hidden: usize,
    /// Profiled steps after the warm-up.
    pub steps: usize,
    /// Host devices to run data-parallel on (1: plain `jit`).
    pub devices: usize,
    /// Where the trace goes (a directory, or a `.json`/`.json.gz` file).
    pub out: PathBuf,
}

/// The classes of the toy task.
pub const CLASSES: usize = 10;

/// What the profile found.
pub struct Outcome {
    /// The trace file.
    pub trace: PathBuf,
    /// Its picture (timeline and memory plot).
    pub svg: PathBuf,
    /// The trace's summaries, per process (the host, then each device process).
    pub summaries: Vec<ProcessSummary>,
    /// The summaries as `systolic profile` prints them.
    pub summary_text: String,
    /// The loss of every profiled step.
    pub losses: Vec<f32>,
    /// How many `step` annotations the trace holds (one per profiled step).
    pub step_spans: usize,
    /// Wall time of the warm-up step (tracing and compiling), µs, from the trace.
    pub warmup_us: f64,
    /// Median wall time of a profiled step, µs, from the trace.
    pub step_median_us: f64,
}

fn init(key: &Array, c: &Config) -> Params {
    let sizes = [
        (c.features, c.hidden),
        (c.hidden, c.hidden),
        (c.hidden, CLASSES),
    ];
    let keys = random::split(key, sizes.len() as i64);
    sizes
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

fn loss(params: &Params, x: &Array, labels: &Array) -> Array {
    let mut h = x.clone();
    for (i, (w, b)) in params.iter().enumerate() {
        h = &np::matmul(&h, w) + b;
        if i + 1 < params.len() {
            h = nn::relu(&h);
        }
    }
    let picked = &nn::log_softmax(&h, -1) * &nn::one_hot(labels, CLASSES as i64, DType::F32);
    -np::sum(&picked, None, false) / x.shape()[0] as f64
}

fn step((params, x, labels): &(Params, Array, Array)) -> (Params, Array) {
    let (l, g) = value_and_grad(|p: &Params| loss(p, x, labels))
        .call(params)
        .expect("the loss is a float scalar");
    let new = params
        .iter()
        .zip(&g)
        .map(|((w, b), (gw, gb))| (w - &(gw * 0.05), b - &(gb * 0.05)))
        .collect();
    (new, l)
}

/// A batch with something to learn: the label's block of features is raised.
fn batch(c: &Config, seed: usize) -> (Array, Array) {
    let mut x = Vec::with_capacity(c.batch * c.features);
    let mut y = Vec::with_capacity(c.batch);
    for i in 0..c.batch {
        let label = (i * 7 + seed * 3) % CLASSES;
        for f in 0..c.features {
            let noise = ((i * 31 + f * 17 + seed * 13) % 97) as f32 / 97.0 - 0.5;
            let bump = if f * CLASSES / c.features == label {
                1.5
            } else {
                0.0
            };
            x.push(noise + bump);
        }
        y.push(label as i32);
    }
    (
        Array::from_vec(x, &[c.batch as i64, c.features as i64]),
        Array::from_vec(y, &[c.batch as i64]),
    )
}

type StepFn = fn(&(Params, Array, Array)) -> (Params, Array);
/// The jitted step.
type JitStep = Jit<(Params, Array, Array), (Params, Array), StepFn>;

/// The jitted step: data-parallel over `devices` host devices (the batch's rows split, the
/// six parameter leaves replicated), or plain `jit` on one.
fn jitted(devices: usize) -> systolic::Result<JitStep> {
    let f = jit(step as StepFn).named("train_step");
    if devices <= 1 {
        return Ok(f);
    }
    let mesh = make_mesh(&[devices], &["batch"])?;
    let rep = NamedSharding::new(&mesh, P!())?;
    let rows = NamedSharding::new(&mesh, P!("batch"))?;
    let mut ins = vec![rep.clone(); 6];
    ins.push(rows.clone());
    ins.push(rows);
    let mut outs = vec![Some(rep.clone()); 6];
    outs.push(None);
    Ok(f.in_shardings(ins).out_shardings(outs))
}

/// The median of `xs` (0 for none).
fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs the warm-up and `c.steps` steps under a trace written to `c.out`, and reads the
/// trace back.
pub fn run(c: &Config) -> systolic::Result<Outcome> {
    if c.devices > 1 && !c.batch.is_multiple_of(c.devices) {
        return Err(systolic::Error::Runtime(format!(
            "profile_run: a batch of {} does not split over {} devices",
            c.batch, c.devices
        )));
    }
    let f = jitted(c.devices)?;
    let mut params = init(&random::key(0), c);
    let batches: Vec<(Array, Array)> = (0..4).map(|s| batch(c, s)).collect();
    let mut losses = Vec::with_capacity(c.steps);
    // Eager ops are dispatched asynchronously: wait for the initialisation, so that its
    // single-op compiles and executions stay out of the trace.
    for (w, b) in &params {
        w.block_until_ready()?;
        b.block_until_ready()?;
    }
    for (x, y) in &batches {
        x.block_until_ready()?;
        y.block_until_ready()?;
    }
    profiler::start_trace(&c.out)?;
    let result = (|| -> systolic::Result<()> {
        {
            let _warm = TraceAnnotation::new("warm-up");
            let (x, y) = batches[0].clone();
            let (p, l) = f.call(&(params.clone(), x, y))?;
            l.block_until_ready()?;
            params = p;
        }
        for i in 0..c.steps {
            let _step = TraceAnnotation::new("step");
            let (x, y) = batches[i % batches.len()].clone();
            let (p, l) = f.call(&(params.clone(), x, y))?;
            // Reading the loss waits for the step: each annotation spans a whole step.
            losses.push(l.to_vec::<f32>()?[0]);
            params = p;
        }
        Ok(())
    })();
    let trace = profiler::stop_trace()?;
    result?;
    summarize(&trace, losses)
}

/// The outcome of a written trace.
fn summarize(trace: &Path, losses: Vec<f32>) -> systolic::Result<Outcome> {
    let read = profiler::Trace::read(trace)
        .map_err(|e| systolic::Error::Runtime(format!("profile_run: {e}")))?;
    let annotations = |name: &str| -> Vec<f64> {
        read.spans()
            .filter(|e| e.cat == profiler::cat::USER && e.name == name)
            .map(|e| e.dur)
            .collect()
    };
    let steps = annotations("step");
    let warmup_us = annotations("warm-up").first().copied().unwrap_or(0.0);
    Ok(Outcome {
        svg: systolic::profiler::svg_path(trace),
        trace: trace.to_path_buf(),
        summaries: read.summaries(),
        summary_text: read.summary_text(),
        losses,
        step_spans: steps.len(),
        warmup_us,
        step_median_us: median(steps),
    })
}
