//! Seed exercise 2: the seed's MLP (784→1024→1024→10) trained data-parallel with `pmap`, the
//! gradients `pmean`ed over the devices — on 8 host CPU devices (measured) and on a simulated
//! TPU slice, `v5e:4x2` by default (modelled), with a sweep of the per-device batch.
//!
//! `cargo run --release -p systolic --example pmap_mlp -- [--json] [--steps N]
//!  [--batches 32,128,512] [--slice v5e:4x2] [--devices 8]`
//!
//! On the CPU, for each per-device batch: the compile + first step time, the steady step (the
//! median of `--steps` steps after it), examples per second, and the same global batch's step
//! on one device (`jit` of the undistributed step) with the ratio of the two. On the slice,
//! the batch doubles from 64 until a chip's HBM runs out: each size is compiled for the
//! slice's chips and costed (the modelled step of the slowest chip, collectives on the torus
//! included); the first size also runs numerically on the host. The size that does not fit is
//! reported with the RESOURCE_EXHAUSTED error that names it. The training data are synthetic:
//! on the CPU drawn once on the host, on the slice drawn on the chips from a key per chip.
//!
//! With `--json` the last stdout line is a JSON object: `devices`, `cpu` (one entry per batch:
//! `per_device_batch`, `global_batch`, `compile_first_ms`, `step_ms`, `examples_per_s`,
//! `single_device_step_ms`, `ratio_to_single_device`, `loss_first`, `loss_last`) and `tpu`
//! (`slice`, `sweep` entries with `per_device_batch`, `step_ms`, `examples_per_s`,
//! `peak_memory_bytes`, and `resource_exhausted` with the batch and the error).

use std::time::Instant;
use systolic::{jit, numpy as np, pmap, random, Array};
use systolic_ir::DType;
use systolic_runtime::Device;
use systolic_runtime::DeviceKind;

#[path = "shared/data_parallel_mlp.rs"]
mod data_parallel_mlp;
use data_parallel_mlp::{init as init_mlp, replicate, step, Params, LEARNING_RATE};

fn median_ms(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2] * 1e3
}

struct Args {
    json: bool,
    steps: usize,
    batches: Vec<i64>,
    slice: String,
    devices: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        json: false,
        steps: 5,
        batches: vec![32, 128, 512],
        slice: "v5e:4x2".into(),
        devices: 8,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--json" => a.json = true,
            "--steps" => a.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--devices" => a.devices = value()?.parse().map_err(|e| format!("--devices: {e}"))?,
            "--slice" => a.slice = value()?,
            "--batches" => {
                a.batches = value()?
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse::<i64>()
                            .map_err(|e| format!("--batches: {e}"))
                    })
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.steps == 0 || a.devices == 0 || a.batches.iter().any(|&b| b <= 0) {
        return Err("--steps, --devices and every batch must be at least 1".into());
    }
    Ok(a)
}

struct CpuRow {
    batch: i64,
    global: i64,
    compile_first_ms: f64,
    step_ms: f64,
    single_ms: f64,
    loss_first: f32,
    loss_last: f32,
}

fn cpu_sweep(args: &Args, params: &Params) -> systolic::Result<Vec<CpuRow>> {
    let n = args.devices as i64;
    let pstep = pmap(
        |(p, x, y): &(Params, Array, Array)| step(p, x, y, Some("batch")),
        "batch",
    );
    let single = jit(|(p, x, y): &(Params, Array, Array)| step(p, x, y, None));
    let mut rows = vec![];
    for &b in &args.batches {
        let keys = random::split(&random::key(b), 2);
        let x = random::normal(&keys[0], &[n, b, 784], DType::F32);
        let y = random::randint(&keys[1], &[n, b], 0, 10, DType::I32);
        let mut p = replicate(params, n);
        let t0 = Instant::now();
        let (p1, l) = pstep.call(&(p, x.clone(), y.clone()))?;
        let loss_first = l.to_vec::<f32>()?[0];
        let compile_first_ms = t0.elapsed().as_secs_f64() * 1e3;
        p = p1;
        let mut times = vec![];
        let mut last = l;
        for _ in 0..args.steps {
            let t = Instant::now();
            let (p1, l) = pstep.call(&(p, x.clone(), y.clone()))?;
            l.block_until_ready()?;
            times.push(t.elapsed().as_secs_f64());
            p = p1;
            last = l;
        }
        // The same global batch on one device.
        let gx = np::reshape(&x, &[n * b, 784]);
        let gy = np::reshape(&y, &[n * b]);
        let mut q = params.clone();
        let (q1, _) = single.call(&(q, gx.clone(), gy.clone()))?;
        q = q1;
        let mut single_times = vec![];
        for _ in 0..args.steps {
            let t = Instant::now();
            let (q1, l) = single.call(&(q, gx.clone(), gy.clone()))?;
            l.block_until_ready()?;
            single_times.push(t.elapsed().as_secs_f64());
            q = q1;
        }
        rows.push(CpuRow {
            batch: b,
            global: n * b,
            compile_first_ms,
            step_ms: median_ms(times),
            single_ms: median_ms(single_times),
            loss_first,
            loss_last: last.to_vec::<f32>()?[0],
        });
    }
    Ok(rows)
}

struct TpuRow {
    batch: i64,
    step_ms: f64,
    peak_memory_bytes: u64,
}

struct TpuSweep {
    chips: usize,
    rows: Vec<TpuRow>,
    exhausted: Option<(i64, String)>,
    ran_step_ms: Option<f64>,
}

/// The batch doubles from 64 until the program no longer fits a chip (or 2^24 per chip).
fn tpu_sweep(params: &Params, chips: &[Device]) -> systolic::Result<TpuSweep> {
    let n = chips.len() as i64;
    let mut out = TpuSweep {
        chips: chips.len(),
        rows: vec![],
        exhausted: None,
        ran_step_ms: None,
    };
    let p = replicate(params, n);
    let keys = random::split_array(&random::key(7), n);
    let mut b = 64i64;
    while b <= 1 << 24 {
        let pstep = pmap(
            move |(p, key): &(Params, Array)| {
                let k = random::split(key, 2);
                let x = random::normal(&k[0], &[b, 784], DType::F32);
                let y = random::randint(&k[1], &[b], 0, 10, DType::I32);
                step(p, &x, &y, Some("batch"))
            },
            "batch",
        )
        .devices(chips);
        match pstep.compile(&(p.clone(), keys.clone())) {
            Ok(c) => {
                out.rows.push(TpuRow {
                    batch: b,
                    step_ms: c.modelled_step_s().unwrap_or(f64::NAN) * 1e3,
                    peak_memory_bytes: c.peak_memory_bytes(),
                });
                if out.ran_step_ms.is_none() {
                    // Run the smallest one for real: its chips' clocks advance by the step.
                    let before = chips[0].simulated_time().unwrap_or(0.0);
                    let (_, l) = pstep.call(&(p.clone(), keys.clone()))?;
                    l.block_until_ready()?;
                    let after = chips[0].simulated_time().unwrap_or(0.0);
                    out.ran_step_ms = Some((after - before) * 1e3);
                }
            }
            Err(e) if e.to_string().contains("RESOURCE_EXHAUSTED") => {
                out.exhausted = Some((b, e.to_string()));
                break;
            }
            Err(e) => return Err(e),
        }
        b *= 4;
    }
    Ok(out)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("pmap_mlp: {e}");
            std::process::exit(2);
        }
    };
    if std::env::var_os(systolic_runtime::CPU_DEVICES_ENV).is_none() {
        systolic::set_cpu_devices(args.devices).expect("before the first device");
    }
    if std::env::var_os(systolic_runtime::TPUS_ENV).is_none() {
        systolic::set_tpus(&args.slice).expect("before the first device");
    }
    if let Err(e) = run(&args) {
        eprintln!("pmap_mlp: {e}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> systolic::Result<()> {
    let cpus = systolic::devices()
        .into_iter()
        .filter(|d| d.kind() == DeviceKind::Cpu)
        .count();
    let params = init_mlp(&random::key(0));
    println!("pmap MLP 784→1024→1024→10, SGD lr {LEARNING_RATE}, {cpus} host CPU devices");
    let cpu = cpu_sweep(args, &params)?;
    println!("per-device batch | global | compile+first ms | step ms | examples/s | 1-device step ms | ratio | loss");
    for r in &cpu {
        println!(
            "{:>16} | {:>6} | {:>16.1} | {:>7.2} | {:>10.0} | {:>16.2} | {:>5.2} | {:.4} → {:.4}",
            r.batch,
            r.global,
            r.compile_first_ms,
            r.step_ms,
            r.global as f64 / (r.step_ms / 1e3),
            r.single_ms,
            r.step_ms / r.single_ms,
            r.loss_first,
            r.loss_last
        );
    }
    let chips: Vec<Device> = systolic::devices()
        .into_iter()
        .filter(|d| d.kind() == DeviceKind::Tpu && d.coords().is_some())
        .collect();
    let tpu = if chips.is_empty() {
        println!("no simulated TPU slice (SYSTOLIC_TPUS has none)");
        None
    } else {
        let t = tpu_sweep(&params, &chips)?;
        println!(
            "simulated slice {} ({} chips), MODELLED:",
            args.slice, t.chips
        );
        println!("per-chip batch | step ms | examples/s | peak memory MiB");
        for r in &t.rows {
            println!(
                "{:>14} | {:>7.3} | {:>10.0} | {:>15.1}",
                r.batch,
                r.step_ms,
                (r.batch * t.chips as i64) as f64 / (r.step_ms / 1e3),
                r.peak_memory_bytes as f64 / (1 << 20) as f64
            );
        }
        if let Some(ms) = t.ran_step_ms {
            println!("the smallest batch ran numerically; chip 0's clock advanced {ms:.3} ms");
        }
        match &t.exhausted {
            Some((b, e)) => println!("per-chip batch {b} does not fit: {e}"),
            None => println!("every batch up to 2^24 per chip fits"),
        }
        Some(t)
    };
    if args.json {
        let cpu_json: Vec<String> = cpu
            .iter()
            .map(|r| {
                format!(
                    "{{\"per_device_batch\": {}, \"global_batch\": {}, \"compile_first_ms\": {:.3}, \
                     \"step_ms\": {:.3}, \"examples_per_s\": {:.1}, \"single_device_step_ms\": {:.3}, \
                     \"ratio_to_single_device\": {:.4}, \"loss_first\": {}, \"loss_last\": {}}}",
                    r.batch,
                    r.global,
                    r.compile_first_ms,
                    r.step_ms,
                    r.global as f64 / (r.step_ms / 1e3),
                    r.single_ms,
                    r.step_ms / r.single_ms,
                    r.loss_first,
                    r.loss_last
                )
            })
            .collect();
        let tpu_json = match &tpu {
            None => "null".to_string(),
            Some(t) => {
                let rows: Vec<String> = t
                    .rows
                    .iter()
                    .map(|r| {
                        format!(
                            "{{\"per_device_batch\": {}, \"step_ms\": {:.6}, \"examples_per_s\": {:.1}, \
                             \"peak_memory_bytes\": {}}}",
                            r.batch,
                            r.step_ms,
                            (r.batch * t.chips as i64) as f64 / (r.step_ms / 1e3),
                            r.peak_memory_bytes
                        )
                    })
                    .collect();
                let exhausted = match &t.exhausted {
                    Some((b, e)) => format!(
                        "{{\"per_device_batch\": {b}, \"error\": {}}}",
                        json_string(e)
                    ),
                    None => "null".into(),
                };
                format!(
                    "{{\"slice\": {}, \"chips\": {}, \"sweep\": [{}], \"resource_exhausted\": {exhausted}}}",
                    json_string(&args.slice),
                    t.chips,
                    rows.join(", ")
                )
            }
        };
        println!(
            "{{\"devices\": {cpus}, \"cpu\": [{}], \"tpu\": {tpu_json}}}",
            cpu_json.join(", ")
        );
    }
    Ok(())
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
