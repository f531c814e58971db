//! The SPMD execution path on host CPU devices, without a front end: a data-parallel training
//! step of an MLP (784→1024→1024→10, ReLU, softmax cross-entropy, SGD) compiled for N CPU
//! devices (each its share of the batch, the gradients summed by `all_reduce` and scaled by
//! 1/N) against the same global batch's step compiled for one device.
//!
//! Run: `cargo run --release -p systolic-runtime --example spmd_dp_bench -- [--devices 8]
//! [--batches 32,128] [--steps 11]`
//!
//! For each per-device batch it prints the one-device step, the N-device step through
//! `SpmdExecutable::execute` (borrowed arguments), their ratio, and, to show where the rest of
//! the time goes: the N-device step through the CPU backend directly, the local-batch step
//! compiled for one device run N times one after the other (the arithmetic floor of N
//! processes sharing the cores), and an N-device program of one scalar `all_reduce` (the fixed
//! cost of one execution: waking the processes and one meeting). Times are medians over
//! `--steps` rounds after one warm-up round, the variants taking turns within each round.

use std::time::Instant;
use systolic_ir::Tensor;
use systolic_runtime::{Buffer, Client, CompileOptions, Device};

const IN: usize = 784;
const HIDDEN: usize = 1024;
const OUT: usize = 10;

/// The step's module: `devices` processes, each on `batch` examples. With one device there is
/// no collective; with more, every gradient and the loss are summed over all devices.
fn step_module(batch: usize, devices: usize) -> String {
    let b = batch;
    let t = |dims: &[usize]| -> String {
        let mut s = String::from("tensor<");
        for d in dims {
            s.push_str(&format!("{d}x"));
        }
        s.push_str("f32>");
        s
    };
    let (x, y) = (t(&[b, IN]), t(&[b, OUT]));
    let (w1, w2, w3) = (t(&[IN, HIDDEN]), t(&[HIDDEN, HIDDEN]), t(&[HIDDEN, OUT]));
    let (v1, v3) = (t(&[HIDDEN]), t(&[OUT]));
    let (bh, bo, bv) = (t(&[b, HIDDEN]), t(&[b, OUT]), t(&[b]));
    let bh_i1 = format!("tensor<{b}x{HIDDEN}xi1>");
    let scalar = "tensor<f32>";
    let mut body = String::new();
    let mut op = |line: String| {
        body.push_str("    ");
        body.push_str(&line);
        body.push('\n');
    };
    op(format!(
        "%zero = stablehlo.constant dense<0.000000e+00> : {scalar}"
    ));
    op(format!(
        "%ninf = stablehlo.constant dense<0xFF800000> : {scalar}"
    ));
    op(format!(
        "%invb = stablehlo.constant dense<{:e}> : {scalar}",
        1.0 / (b * devices) as f64
    ));
    op(format!(
        "%lr = stablehlo.constant dense<1.000000e-01> : {scalar}"
    ));
    op(format!(
        "%zh = stablehlo.broadcast_in_dim %zero, dims = [] : ({scalar}) -> {bh}"
    ));
    // Forward.
    op(format!(
        "%d1 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : ({x}, {w1}) -> {bh}"
    ));
    op(format!(
        "%bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : ({v1}) -> {bh}"
    ));
    op(format!("%z1 = stablehlo.add %d1, %bb1 : {bh}"));
    op(format!("%h1 = stablehlo.maximum %z1, %zh : {bh}"));
    op(format!(
        "%d2 = stablehlo.dot_general %h1, %w2, contracting_dims = [1] x [0] : ({bh}, {w2}) -> {bh}"
    ));
    op(format!(
        "%bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : ({v1}) -> {bh}"
    ));
    op(format!("%z2 = stablehlo.add %d2, %bb2 : {bh}"));
    op(format!("%h2 = stablehlo.maximum %z2, %zh : {bh}"));
    op(format!(
        "%d3 = stablehlo.dot_general %h2, %w3, contracting_dims = [1] x [0] : ({bh}, {w3}) -> {bo}"
    ));
    op(format!(
        "%bb3 = stablehlo.broadcast_in_dim %b3, dims = [1] : ({v3}) -> {bo}"
    ));
    op(format!("%logits = stablehlo.add %d3, %bb3 : {bo}"));
    // Softmax cross-entropy against one-hot labels, summed and scaled by 1/global batch.
    op(format!("%m = stablehlo.reduce(%logits init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({bo}, {scalar}) -> {bv}"));
    op(format!(
        "%mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({bv}) -> {bo}"
    ));
    op(format!("%s = stablehlo.subtract %logits, %mb : {bo}"));
    op(format!("%e = stablehlo.exponential %s : {bo}"));
    op(format!("%se = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : ({bo}, {scalar}) -> {bv}"));
    op(format!(
        "%seb = stablehlo.broadcast_in_dim %se, dims = [0] : ({bv}) -> {bo}"
    ));
    op(format!("%p = stablehlo.divide %e, %seb : {bo}"));
    op(format!("%lse = stablehlo.log %se : {bv}"));
    op(format!(
        "%lseb = stablehlo.broadcast_in_dim %lse, dims = [0] : ({bv}) -> {bo}"
    ));
    op(format!("%logp = stablehlo.subtract %s, %lseb : {bo}"));
    op(format!("%yl = stablehlo.multiply %y, %logp : {bo}"));
    op(format!("%tot = stablehlo.reduce(%yl init: %zero) applies stablehlo.add across dimensions = [0, 1] : ({bo}, {scalar}) -> {scalar}"));
    op(format!("%ntot = stablehlo.negate %tot : {scalar}"));
    op(format!(
        "%loss = stablehlo.multiply %ntot, %invb : {scalar}"
    ));
    // Backward.
    op(format!(
        "%invbo = stablehlo.broadcast_in_dim %invb, dims = [] : ({scalar}) -> {bo}"
    ));
    op(format!("%py = stablehlo.subtract %p, %y : {bo}"));
    op(format!("%g = stablehlo.multiply %py, %invbo : {bo}"));
    op(format!(
        "%gw3 = stablehlo.dot_general %h2, %g, contracting_dims = [0] x [0] : ({bh}, {bo}) -> {w3}"
    ));
    op(format!("%gb3 = stablehlo.reduce(%g init: %zero) applies stablehlo.add across dimensions = [0] : ({bo}, {scalar}) -> {v3}"));
    op(format!(
        "%dh2 = stablehlo.dot_general %g, %w3, contracting_dims = [1] x [1] : ({bo}, {w3}) -> {bh}"
    ));
    op(format!(
        "%c2 = stablehlo.compare GT, %z2, %zh, FLOAT : ({bh}, {bh}) -> {bh_i1}"
    ));
    op(format!(
        "%dz2 = stablehlo.select %c2, %dh2, %zh : {bh_i1}, {bh}"
    ));
    op(format!("%gw2 = stablehlo.dot_general %h1, %dz2, contracting_dims = [0] x [0] : ({bh}, {bh}) -> {w2}"));
    op(format!("%gb2 = stablehlo.reduce(%dz2 init: %zero) applies stablehlo.add across dimensions = [0] : ({bh}, {scalar}) -> {v1}"));
    op(format!("%dh1 = stablehlo.dot_general %dz2, %w2, contracting_dims = [1] x [1] : ({bh}, {w2}) -> {bh}"));
    op(format!(
        "%c1 = stablehlo.compare GT, %z1, %zh, FLOAT : ({bh}, {bh}) -> {bh_i1}"
    ));
    op(format!(
        "%dz1 = stablehlo.select %c1, %dh1, %zh : {bh_i1}, {bh}"
    ));
    op(format!(
        "%gw1 = stablehlo.dot_general %x, %dz1, contracting_dims = [0] x [0] : ({x}, {bh}) -> {w1}"
    ));
    op(format!("%gb1 = stablehlo.reduce(%dz1 init: %zero) applies stablehlo.add across dimensions = [0] : ({bh}, {scalar}) -> {v1}"));
    // The gradients of the global batch: summed over the devices.
    let grads = [
        ("gw1", &w1),
        ("gb1", &v1),
        ("gw2", &w2),
        ("gb2", &v1),
        ("gw3", &w3),
        ("gb3", &v3),
        ("loss", &scalar.to_string()),
    ];
    let ids: Vec<String> = (0..devices).map(|d| d.to_string()).collect();
    for (k, (g, ty)) in grads.iter().enumerate() {
        if devices > 1 {
            op(format!(
                "%r{g} = \"stablehlo.all_reduce\"(%{g}) ({{\n      ^bb0(%a: tensor<f32>, %c: tensor<f32>):\n        %t = stablehlo.add %a, %c : tensor<f32>\n        stablehlo.return %t : tensor<f32>\n    }}) {{replica_groups = dense<[[{}]]> : tensor<1x{devices}xi64>, channel_handle = #stablehlo.channel_handle<handle = {}, type = 1>, use_global_device_ids}} : ({ty}) -> {ty}",
                ids.join(", "),
                k + 1
            ));
        }
    }
    // SGD (one device: its own gradients are the global batch's).
    let reduced = |g: &str| {
        if devices == 1 {
            g.to_string()
        } else {
            format!("r{g}")
        }
    };
    let params = [
        ("w1", "gw1", &w1),
        ("b1", "gb1", &v1),
        ("w2", "gw2", &w2),
        ("b2", "gb2", &v1),
        ("w3", "gw3", &w3),
        ("b3", "gb3", &v3),
    ];
    for (p, g, ty) in params {
        op(format!(
            "%lr{p} = stablehlo.broadcast_in_dim %lr, dims = [] : ({scalar}) -> {ty}"
        ));
        op(format!(
            "%u{p} = stablehlo.multiply %{}, %lr{p} : {ty}",
            reduced(g)
        ));
        op(format!("%n{p} = stablehlo.subtract %{p}, %u{p} : {ty}"));
    }
    let loss = reduced("loss");
    format!(
        "module @dp_step attributes {{mhlo.num_partitions = {devices} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%w1: {w1}, %b1: {v1}, %w2: {w2}, %b2: {v1}, %w3: {w3}, %b3: {v3}, %x: {x}, %y: {y}) -> ({w1}, {v1}, {w2}, {v1}, {w3}, {v3}, {scalar}) {{
{body}    return %nw1, %nb1, %nw2, %nb2, %nw3, %nb3, %{loss} : {w1}, {v1}, {w2}, {v1}, {w3}, {v3}, {scalar}
  }}
}}"
    )
}

/// An N-device program of one scalar all_reduce: the fixed cost of one execution.
fn tiny_module(devices: usize) -> String {
    let ids: Vec<String> = (0..devices).map(|d| d.to_string()).collect();
    format!(
        r#"module @tiny attributes {{mhlo.num_partitions = {devices} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {{
    %r = "stablehlo.all_reduce"(%x) ({{
      ^bb0(%a: tensor<f32>, %c: tensor<f32>):
        %t = stablehlo.add %a, %c : tensor<f32>
        stablehlo.return %t : tensor<f32>
    }}) {{replica_groups = dense<[[{}]]> : tensor<1x{devices}xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }}
}}"#,
        ids.join(", ")
    )
}

/// Deterministic values in [-scale, scale).
fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

/// The parameters, then `batch` examples and their one-hot labels.
fn inputs(batch: usize, seed: u64) -> Vec<Tensor> {
    let w = |r: usize, c: usize, s: u64| {
        Tensor::from_f32(
            vec![r as i64, c as i64],
            values(r * c, s, (1.0 / r as f32).sqrt()),
        )
    };
    let v = |n: usize| Tensor::from_f32(vec![n as i64], vec![0.0; n]);
    let mut labels = vec![0.0f32; batch * OUT];
    for (i, k) in values(batch, seed + 9, 1.0).iter().enumerate() {
        labels[i * OUT + ((k.abs() * OUT as f32) as usize).min(OUT - 1)] = 1.0;
    }
    vec![
        w(IN, HIDDEN, 1),
        v(HIDDEN),
        w(HIDDEN, HIDDEN, 2),
        v(HIDDEN),
        w(HIDDEN, OUT, 3),
        v(OUT),
        Tensor::from_f32(vec![batch as i64, IN as i64], values(batch * IN, seed, 1.0)),
        Tensor::from_f32(vec![batch as i64, OUT as i64], labels),
    ]
}

fn put(client: &Client, tensors: Vec<Tensor>, device: Device) -> Vec<Buffer> {
    tensors
        .into_iter()
        .map(|t| client.buffer_from_tensor(t, device).expect("to device"))
        .collect()
}

/// Median wall time in ms of `f` over `steps` runs after one warm-up run.
fn median_ms(steps: usize, mut f: impl FnMut()) -> f64 {
    interleaved_median_ms(steps, &mut [Box::new(&mut f) as Box<dyn FnMut()>])[0]
}

/// Median wall time in ms of each of `fs` over `steps` rounds (each round runs every one once,
/// in turn) after one warm-up round.
fn interleaved_median_ms(steps: usize, fs: &mut [Box<dyn FnMut() + '_>]) -> Vec<f64> {
    for f in fs.iter_mut() {
        f();
    }
    let mut times = vec![vec![]; fs.len()];
    for _ in 0..steps {
        for (f, t) in fs.iter_mut().zip(&mut times) {
            let start = Instant::now();
            f();
            t.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

struct Args {
    devices: usize,
    batches: Vec<usize>,
    steps: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        devices: 8,
        batches: vec![32, 128],
        steps: 11,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--devices" => a.devices = value()?.parse().map_err(|e| format!("--devices: {e}"))?,
            "--steps" => a.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--batches" => {
                a.batches = value()?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|e| format!("--batches: {e}")))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.devices < 2 || a.steps == 0 || a.batches.contains(&0) {
        return Err("needs --devices ≥ 2, --steps ≥ 1 and positive batches".into());
    }
    Ok(a)
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("spmd_dp_bench: {e}");
        std::process::exit(2)
    });
    let n = args.devices;
    let client = Client::cpu_devices(n);
    let devices = client.devices().to_vec();
    let options = CompileOptions::no_disk_cache();
    let parse = |text: &str| systolic_ir::text::parse_module(text, "spmd_dp_bench").expect("valid");
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!(
        "MLP {IN}→{HIDDEN}→{HIDDEN}→{OUT} data-parallel step, {n} CPU devices, {cores} cores; \
         medians of {} runs, ms",
        args.steps
    );
    let tiny = client
        .compile_spmd(&parse(&tiny_module(n)), &devices, &options)
        .expect("compiles");
    let scalars: Vec<Vec<Buffer>> = devices
        .iter()
        .map(|&d| put(&client, vec![Tensor::from_f32(vec![], vec![1.0])], d))
        .collect();
    let scalar_refs: Vec<Vec<&Buffer>> = scalars.iter().map(|a| a.iter().collect()).collect();
    let tiny_ms = median_ms(args.steps.max(101), || {
        tiny.execute(&scalar_refs).expect("runs");
    });
    println!("one scalar all_reduce on {n} devices (fixed cost of an execution): {tiny_ms:.3}");
    println!(
        "per-device batch | global | 1-device step | {n}-device step | ratio | {n}-device, backend direct | {n} × local step, serial"
    );
    for &b in &args.batches {
        let global = b * n;
        let single = client
            .compile(&parse(&step_module(global, 1)), &options)
            .expect("compiles");
        let local = client
            .compile(&parse(&step_module(b, 1)), &options)
            .expect("compiles");
        let spmd = client
            .compile_spmd(&parse(&step_module(b, n)), &devices, &options)
            .expect("compiles");
        let g_args = put(&client, inputs(global, 7), devices[0]);
        let g_refs: Vec<&Buffer> = g_args.iter().collect();
        let shards: Vec<Vec<Buffer>> = devices
            .iter()
            .enumerate()
            .map(|(d, &dev)| put(&client, inputs(b, 100 + d as u64), dev))
            .collect();
        let shard_refs: Vec<Vec<&Buffer>> = shards.iter().map(|a| a.iter().collect()).collect();
        let cpu_args: Vec<Vec<systolic_cpu::CpuBuffer>> = (0..n)
            .map(|d| {
                inputs(b, 100 + d as u64)
                    .iter()
                    .map(systolic_cpu::CpuBuffer::from_tensor)
                    .collect()
            })
            .collect();
        let backend = systolic_cpu::compile_spmd(
            &parse(&step_module(b, n)),
            systolic_ir::ProcessGrid::new(1, n as u32),
            &systolic_cpu::CompileOptions::default(),
        )
        .expect("compiles");
        let on0: Vec<Vec<Buffer>> = (0..n)
            .map(|d| put(&client, inputs(b, 100 + d as u64), devices[0]))
            .collect();
        // The variants take turns, step by step, so that a change in the machine's load
        // (other processes) reaches all of them alike.
        let mut variants: Vec<Box<dyn FnMut() + '_>> = vec![
            Box::new(|| drop(single.execute(&g_refs).expect("runs"))),
            Box::new(|| drop(spmd.execute(&shard_refs).expect("runs"))),
            Box::new(|| drop(backend.execute_borrowed(&cpu_args).expect("runs"))),
            Box::new(|| {
                for shard in &on0 {
                    let refs: Vec<&Buffer> = shard.iter().collect();
                    drop(local.execute(&refs).expect("runs"));
                }
            }),
        ];
        let times = interleaved_median_ms(args.steps, &mut variants);
        let [single_ms, spmd_ms, direct_ms, serial_ms] = times[..] else {
            unreachable!("four variants")
        };
        println!(
            "{b:>16} | {global:>6} | {single_ms:>13.2} | {spmd_ms:>14.2} | {:>5.2} | {direct_ms:>25.2} | {serial_ms:>22.2}",
            spmd_ms / single_ms
        );
    }
}
