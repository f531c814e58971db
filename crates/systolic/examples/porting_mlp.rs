//! The seed's porting exercise in Rust: an MLP initialised from `PRNGKey(0)` as JAX would,
//! a jitted forward pass, and per-device timings: measured on the CPU, modelled on the
//! simulated TPUs (`tpu:v4:0`, `tpu:v5e:0`, …), whose outputs are computed on the host with
//! TPU numerics (each f32 matmul one bf16 pass at DEFAULT precision, so the sums differ a
//! little from the CPU's).
//!
//! `cargo run --release -p systolic --example porting_mlp -- --json`
//!
//! With `--json` the last stdout line is a JSON object with `output_sum`, `output_first5`,
//! `compile_first_ms` and `step_ms` of the default device (`cpu:0`, measured), and `devices`:
//! one entry per device with its `device`, `timing` (`measured` or `modelled`), `output_sum`,
//! `output_first5`, `compile_first_ms` (host wall time of compiling and running the first
//! step), `step_ms` (measured on the CPU; the cost model's step time on a TPU), and on a TPU
//! `host_step_ms` (host wall time of computing the step numerically), `mxu_utilization`,
//! `mfu`, `peak_hbm_bytes`, `bound` (the bounds of its kernels) and `transfer_ms` (modelled PCIe
//! time of putting the inputs on the device). `--steps N` sets the number of timed steps
//! (default 20 on the CPU; at most 3 on a TPU, whose modelled time does not vary). With
//! `--dump DIR` it also writes the
//! lowered forward pass as `DIR/forward.mlir` and its inputs as `DIR/in0.npy`…, so that
//! `systolic run DIR/forward.mlir --input DIR/in0.npy … --input DIR/in6.npy` runs it. The output equals JAX's for the
//! same program (`tests/porting_mlp.rs` checks it against `tests/data/ops_jax0.10.2.json`).

use std::time::Instant;
use systolic::{jit, nn, numpy as np, random, Array};
use systolic_ir::DType;

/// Layers as (weight, bias).
pub type Params = Vec<(Array, Array)>;

/// `init_mlp(key)`: split into 4 keys; weights `normal * 0.01`, zero biases (784→1024→1024→10).
pub fn init_mlp(key: &Array) -> Params {
    let keys = random::split(key, 4);
    let sizes = [(784, 1024), (1024, 1024), (1024, 10)];
    sizes
        .iter()
        .zip(&keys)
        .map(|(&(m, n), k)| {
            let w = random::normal(k, &[m, n], DType::F32) * 0.01;
            (w, np::zeros(&[n], DType::F32))
        })
        .collect()
}

/// ReLU hidden layers, a linear last layer.
pub fn forward((params, x): &(Params, Array)) -> Array {
    let mut h = x.clone();
    for (w, b) in &params[..params.len() - 1] {
        h = nn::relu(&(&np::matmul(&h, w) + b));
    }
    let (w, b) = &params[params.len() - 1];
    &np::matmul(&h, w) + b
}

/// The example's input: `normal(PRNGKey(0), (1024, 784))`.
pub fn input() -> Array {
    random::normal(&random::key(0), &[1024, 784], DType::F32)
}

/// Writes the lowered forward pass and its inputs (in parameter order) to `dir`.
#[allow(dead_code)]
fn dump(dir: &std::path::Path, params: &Params, x: &Array) -> systolic::Result<()> {
    let io = |e: String| systolic::Error::Host(e);
    std::fs::create_dir_all(dir).map_err(|e| io(e.to_string()))?;
    let args = (params.clone(), x.clone());
    let text = jit(forward).lower(&args)?.as_text();
    std::fs::write(dir.join("forward.mlir"), text).map_err(|e| io(e.to_string()))?;
    let mut leaves = vec![];
    systolic::Tree::leaves(&args, &mut leaves);
    for (i, a) in leaves.iter().enumerate() {
        systolic_npy::write(&dir.join(format!("in{i}.npy")), &a.to_tensor()?)
            .map_err(|e| io(e.to_string()))?;
    }
    println!(
        "wrote {}/forward.mlir and {} inputs",
        dir.display(),
        leaves.len()
    );
    Ok(())
}

/// What one device did.
#[allow(dead_code)]
pub struct DeviceRun {
    device: String,
    modelled: bool,
    output_sum: f64,
    output_first5: Vec<f32>,
    compile_first_ms: f64,
    step_ms: f64,
    host_step_ms: f64,
    mxu_utilization: Option<f64>,
    mfu: Option<f64>,
    peak_hbm_bytes: Option<u64>,
    bounds: Option<String>,
    transfer_ms: Option<f64>,
}

#[allow(dead_code)]
impl DeviceRun {
    /// The device's entry of the `--json` report.
    pub fn json(&self) -> String {
        let first5: Vec<String> = self.output_first5.iter().map(|v| format!("{v}")).collect();
        let mut s = format!(
            "{{\"device\": \"{}\", \"timing\": \"{}\", \"output_sum\": {}, \"output_first5\": [{}], \"compile_first_ms\": {:.3}, \"step_ms\": {:.6}",
            self.device,
            if self.modelled { "modelled" } else { "measured" },
            self.output_sum,
            first5.join(", "),
            self.compile_first_ms,
            self.step_ms,
        );
        if self.modelled {
            s += &format!(", \"host_step_ms\": {:.3}", self.host_step_ms);
        }
        let mut field = |name: &str, v: Option<String>| {
            if let Some(v) = v {
                s += &format!(", \"{name}\": {v}");
            }
        };
        field(
            "mxu_utilization",
            self.mxu_utilization.map(|u| format!("{u:.4}")),
        );
        field("mfu", self.mfu.map(|u| format!("{u:.4}")));
        field("peak_hbm_bytes", self.peak_hbm_bytes.map(|b| b.to_string()));
        field("bound", self.bounds.as_ref().map(|b| format!("\"{b}\"")));
        field("transfer_ms", self.transfer_ms.map(|t| format!("{t:.4}")));
        s + "}"
    }
}

/// Runs the forward pass on `device`: compile + first step, then `steps` timed steps.
#[allow(dead_code)]
pub fn run_on(
    device: systolic_runtime::Device,
    params: &Params,
    x: &Array,
    steps: usize,
) -> systolic::Result<DeviceRun> {
    let clock = || device.simulated_clock().unwrap_or_default();
    let before_put = clock();
    let params: Params = params
        .iter()
        .map(|(w, b)| Ok((w.device_put(device)?, b.device_put(device)?)))
        .collect::<systolic::Result<_>>()?;
    let args = (params, x.device_put(device)?);
    for (w, b) in &args.0 {
        w.block_until_ready()?;
        b.block_until_ready()?;
    }
    args.1.block_until_ready()?;
    let transfer_s = clock().time_s - before_put.time_s;
    let f = jit(forward);
    let t0 = Instant::now();
    let y = f.call(&args)?;
    y.block_until_ready()?;
    let compile_first_ms = t0.elapsed().as_secs_f64() * 1e3;
    let before = clock();
    let t1 = Instant::now();
    for _ in 0..steps {
        f.call(&args)?.block_until_ready()?;
    }
    let host_step_ms = t1.elapsed().as_secs_f64() * 1e3 / steps as f64;
    let modelled_ms = (clock().compute_s - before.compute_s) * 1e3 / steps as f64;
    let out = y.to_vec::<f32>()?;
    let output_sum: f64 = out.iter().map(|&v| f64::from(v)).sum();
    let mut run = DeviceRun {
        device: device.to_string(),
        modelled: device.is_simulated(),
        output_sum,
        output_first5: out[..5].to_vec(),
        compile_first_ms,
        step_ms: host_step_ms,
        host_step_ms,
        mxu_utilization: None,
        mfu: None,
        peak_hbm_bytes: None,
        bounds: None,
        transfer_ms: None,
    };
    if device.is_simulated() {
        // The executable the jit compiled (the same program from the runtime's caches) has
        // the cost model's report.
        let lowered = f.lower(&args)?;
        let options = systolic_runtime::CompileOptions {
            device: Some(device),
            ..Default::default()
        };
        let exe = systolic::client().compile(&lowered.module, &options)?;
        if let Some(cost) = exe.tpu_cost() {
            let mut bounds: Vec<&str> = cost.report.ops.iter().map(|k| k.bound.as_str()).collect();
            bounds.sort();
            bounds.dedup();
            run.mxu_utilization = Some(cost.mxu_utilization());
            run.mfu = Some(cost.report.mfu);
            run.peak_hbm_bytes = Some(cost.report.peak_hbm_bytes);
            run.bounds = Some(bounds.join("+"));
        }
        run.step_ms = modelled_ms;
        run.transfer_ms = Some(transfer_s * 1e3);
    }
    Ok(run)
}

#[allow(dead_code)]
fn main() -> systolic::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json");
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let steps: usize = flag("--steps")
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
        .max(1);
    let params = init_mlp(&random::key(0));
    let x = input();
    if let Some(dir) = flag("--dump") {
        dump(std::path::Path::new(dir), &params, &x)?;
    }
    let default = systolic::default_device();
    let mut runs = vec![];
    for device in systolic::devices() {
        let n = if device.is_simulated() {
            steps.min(3)
        } else {
            steps
        };
        let run = run_on(device, &params, &x, n)?;
        if run.modelled {
            println!(
                "{}: output sum {:.6}; host: compile+first step {:.1} ms, numerics {:.2} ms/step; \
                 MODELLED: step {:.4} ms, MXU utilisation {:.1}%, MFU {:.1}%, peak HBM {:.1} MiB, \
                 inputs over PCIe {:.3} ms",
                run.device,
                run.output_sum,
                run.compile_first_ms,
                run.host_step_ms,
                run.step_ms,
                100.0 * run.mxu_utilization.unwrap_or(0.0),
                100.0 * run.mfu.unwrap_or(0.0),
                run.peak_hbm_bytes.unwrap_or(0) as f64 / (1024.0 * 1024.0),
                run.transfer_ms.unwrap_or(0.0),
            );
        } else {
            println!(
                "{}: output sum {:.6}; MEASURED: compile+first step {:.1} ms, step {:.2} ms (mean of {n})",
                run.device, run.output_sum, run.compile_first_ms, run.step_ms
            );
        }
        runs.push(run);
    }
    if json {
        let main_run = runs
            .iter()
            .find(|r| r.device == default.to_string())
            .unwrap_or(&runs[0]);
        let first5: Vec<String> = main_run
            .output_first5
            .iter()
            .map(|v| format!("{v}"))
            .collect();
        let devices: Vec<String> = runs.iter().map(DeviceRun::json).collect();
        println!(
            "{{\"device\": \"{}\", \"output_sum\": {}, \"output_first5\": [{}], \"compile_first_ms\": {:.3}, \"step_ms\": {:.3}, \"devices\": [{}]}}",
            main_run.device,
            main_run.output_sum,
            first5.join(", "),
            main_run.compile_first_ms,
            main_run.step_ms,
            devices.join(", ")
        );
    }
    Ok(())
}
