//! A small transformer trained with `jit` and shardings — data parallel, FSDP and FSDP +
//! tensor parallel over a 4×2 mesh of 8 host CPU devices (measured: losses against the same
//! step on one device, step times, parameter bytes per device) — and the same step, at a
//! slice-sized configuration in bf16, partitioned and costed on simulated v5p slices for
//! several mesh shapes (modelled: step time, MFU, communication share, HBM per chip).
//!
//! `cargo run --release -p systolic --example sharded_transformer -- [--json] [--steps N]
//!  [--no-cost] [--meshes v5p:2x2x2=8x1,v5p:2x2x2=4x2,…]`
//!
//! The model and shardings are `examples/shared/transformer.rs` (the tour's sharding stage
//! trains the same model). Every sharded step is one global program: the compiler propagates
//! the parameter and batch shardings through forward, backward and update, and partitions it
//! into the program each device runs (collectives where the shardings meet).
//!
//! With `--json` the last stdout line is a JSON object: `host` (the configuration,
//! `single_device` losses and `step_ms`, and per strategy `losses`, `max_loss_diff`,
//! `step_ms`, `ratio_to_single_device`, `param_bytes_per_device`) and `slices` (per slice,
//! mesh and strategy: `step_ms`, `mfu`, `communication_share`, `peak_hbm_bytes`,
//! `hbm_capacity_bytes`).

use std::time::Instant;
use systolic::{jit, make_mesh, random, tree_leaves, Array};
use systolic_ir::DType;

#[path = "shared/transformer.rs"]
mod transformer;
use transformer::{batch, cost_on_slice, init, step, zeros, Config, Params, StepArgs, Strategy};

struct Args {
    json: bool,
    steps: usize,
    cost: bool,
    meshes: Vec<(String, usize, usize)>,
}

const DEFAULT_MESHES: &str =
    "v5p:2x2x2=8x1,v5p:2x2x2=4x2,v5p:4x4x4=64x1,v5p:4x4x4=16x4,v5p:4x4x4=8x8";

fn parse_meshes(list: &str) -> Result<Vec<(String, usize, usize)>, String> {
    list.split(',')
        .map(|item| {
            let (slice, mesh) = item
                .trim()
                .split_once('=')
                .ok_or(format!("--meshes: `{item}` is not SLICE=DATAxMODEL"))?;
            let (d, m) = mesh
                .split_once('x')
                .ok_or(format!("--meshes: `{mesh}` is not DATAxMODEL"))?;
            let n = |s: &str| {
                s.parse::<usize>()
                    .map_err(|e| format!("--meshes: {s}: {e}"))
            };
            Ok((slice.to_string(), n(d)?, n(m)?))
        })
        .collect()
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        json: false,
        steps: 6,
        cost: true,
        meshes: parse_meshes(DEFAULT_MESHES)?,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--json" => a.json = true,
            "--no-cost" => a.cost = false,
            "--steps" => a.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--meshes" => a.meshes = parse_meshes(&value()?)?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.steps < 2 {
        return Err("--steps must be at least 2 (the first one compiles)".into());
    }
    Ok(a)
}

fn median_ms(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2] * 1e3
}

/// Losses and per-step seconds of `steps` steps of `run` from `params`.
fn train(
    cfg: &Config,
    steps: usize,
    params: &Params,
    run: &dyn Fn(&StepArgs) -> (Params, Array),
) -> (Vec<f32>, Vec<f64>, Params) {
    let mut p = params.clone();
    let (mut losses, mut times) = (vec![], vec![]);
    for i in 0..steps {
        let b = batch(cfg, i);
        let t = Instant::now();
        let (next, l) = run(&(p, b));
        let l = l.to_vec::<f32>().expect("a scalar loss")[0];
        times.push(t.elapsed().as_secs_f64());
        losses.push(l);
        p = next;
    }
    (losses, times, p)
}

/// Bytes of parameters one device holds (its shard of every leaf).
fn param_bytes_per_device(p: &Params) -> u64 {
    tree_leaves(p)
        .iter()
        .map(|a| match a.addressable_shards().first() {
            Some(s) => s.data.size() as u64 * a.dtype().byte_size() as u64,
            None => a.size() as u64 * a.dtype().byte_size() as u64,
        })
        .sum()
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("sharded_transformer: {e}");
        std::process::exit(2)
    });
    systolic::set_cpu_devices(8).expect("8 host devices");
    let mesh = make_mesh(&[4, 2], &["data", "model"]).expect("8 devices");
    let cfg = Config::HOST;
    let params = init(&cfg, &random::key(0), DType::F32);
    println!(
        "Host: {} parameters (d_model {}, {} layers, vocab {}), batch {}×{} tokens, {} steps \
         on a 4×2 mesh of CPU devices",
        cfg.params(),
        cfg.d_model,
        cfg.layers,
        cfg.vocab,
        cfg.batch,
        cfg.seq,
        args.steps
    );
    let single = jit(step);
    let (want, single_times, _) = train(&cfg, args.steps, &params, &|a| {
        single.call(a).expect("the one-device step")
    });
    let single_ms = median_ms(single_times[1..].to_vec());
    println!(
        "  one device: losses {:.4} → {:.4}, step {single_ms:.1} ms",
        want[0],
        want[args.steps - 1]
    );
    println!(
        "  {:<14} {:>10} {:>12} {:>10} {:>8} {:>14}",
        "strategy", "last loss", "max |Δloss|", "step ms", "÷ 1 dev", "params/device"
    );
    let mut host_json = vec![];
    for strategy in Strategy::ALL {
        let sharded = jit(step)
            .in_shardings(strategy.in_shardings(&mesh, &cfg))
            .out_shardings(strategy.out_shardings(&mesh, &cfg));
        let pinned = strategy.pin_activations(&params, &mesh);
        let (losses, times, last) = train(&cfg, args.steps, &pinned, &|a| {
            sharded
                .call(a)
                .unwrap_or_else(|e| panic!("{}: {e}", strategy.name()))
        });
        let diff = losses
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            diff <= 1e-4 * want[0].abs().max(1.0),
            "{}: losses {losses:?} differ from one device's {want:?}",
            strategy.name()
        );
        let ms = median_ms(times[1..].to_vec());
        let bytes = param_bytes_per_device(&last);
        println!(
            "  {:<14} {:>10.4} {:>12.2e} {:>10.1} {:>7.2}× {:>10.0} KiB",
            strategy.name(),
            losses[args.steps - 1],
            diff,
            ms,
            ms / single_ms,
            bytes as f64 / 1024.0
        );
        host_json.push(format!(
            r#"{{"strategy":"{}","losses":{losses:?},"max_loss_diff":{diff:e},"step_ms":{ms:.3},"ratio_to_single_device":{:.4},"param_bytes_per_device":{bytes}}}"#,
            strategy.name(),
            ms / single_ms
        ));
    }
    let mut slice_json = vec![];
    if args.cost {
        slice_json = cost_on_slices(&args, &mesh);
    }
    if args.json {
        println!(
            r#"{{"host":{{"params":{},"single_device":{{"losses":{want:?},"step_ms":{single_ms:.3}}},"strategies":[{}]}},"slices":[{}]}}"#,
            cfg.params(),
            host_json.join(","),
            slice_json.join(",")
        );
    }
}

/// The slice configuration's step, lowered once per strategy on the host mesh and re-meshed
/// for each slice (the global program names mesh axes, not sizes, as JAX's lowering on an
/// abstract mesh does), partitioned and costed on every chip.
fn cost_on_slices(args: &Args, host_mesh: &systolic::Mesh) -> Vec<String> {
    let cfg = Config::SLICE;
    let params = zeros(&cfg, DType::BF16);
    let data = batch(&cfg, 0);
    println!(
        "\nSlices (modelled): {:.2}B parameters in bf16 (d_model {}, {} layers, d_ff {}, vocab \
         {}), batch {}×{} tokens",
        cfg.params() as f64 / 1e9,
        cfg.d_model,
        cfg.layers,
        cfg.d_ff,
        cfg.vocab,
        cfg.batch,
        cfg.seq
    );
    println!(
        "  {:<12} {:>7} {:<14} {:>9} {:>6} {:>6} {:>13} {:>9}",
        "slice", "mesh", "strategy", "step ms", "MFU", "comm", "HBM/chip", "wall ms"
    );
    let mut out = vec![];
    for strategy in Strategy::ALL {
        let text = jit(step)
            .in_shardings(strategy.in_shardings(host_mesh, &cfg))
            .out_shardings(strategy.out_shardings(host_mesh, &cfg))
            .lower(&(strategy.pin_activations(&params, host_mesh), data.clone()))
            .unwrap_or_else(|e| panic!("lowering {}: {e}", strategy.name()))
            .as_text();
        let global = systolic_ir::text::parse_module(&text, "step.mlir").expect("its own text");
        for (slice_name, d, m) in &args.meshes {
            let wall = Instant::now();
            let mesh_text = format!("{d}×{m}");
            match cost_on_slice(&global, slice_name, *d, *m) {
                Ok(r) => {
                    let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
                    let comm = r.collective_s / r.time_s.max(f64::MIN_POSITIVE);
                    let fits = r.hbm_capacity_bytes.is_none_or(|c| r.peak_hbm_bytes <= c);
                    println!(
                        "  {:<12} {:>7} {:<14} {:>9.1} {:>5.1}% {:>5.1}% {:>9.2} GiB{} {:>8.0}",
                        slice_name,
                        mesh_text,
                        strategy.name(),
                        r.time_s * 1e3,
                        r.mfu * 100.0,
                        comm * 100.0,
                        r.peak_hbm_bytes as f64 / (1u64 << 30) as f64,
                        if fits { " " } else { "!" },
                        wall_ms
                    );
                    out.push(format!(
                        r#"{{"slice":"{slice_name}","mesh":[{d},{m}],"strategy":"{}","step_ms":{:.4},"mfu":{:.5},"communication_share":{comm:.5},"peak_hbm_bytes":{},"hbm_capacity_bytes":{}}}"#,
                        strategy.name(),
                        r.time_s * 1e3,
                        r.mfu,
                        r.peak_hbm_bytes,
                        r.hbm_capacity_bytes.map_or("null".into(), |c| c.to_string())
                    ));
                }
                Err(e) => println!(
                    "  {:<12} {:>7} {:<14} not costed: {e}",
                    slice_name,
                    mesh_text,
                    strategy.name()
                ),
            }
        }
    }
    println!("  (! = over the chip's HBM)");
    out
}
