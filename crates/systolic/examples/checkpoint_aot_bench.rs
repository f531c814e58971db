//! Measures checkpoints and ahead-of-time executables: saving and restoring 128 MiB of f32
//! parameters in each format, and for an MLP training step (784→1024→1024→10, batch 128) the
//! time to trace and compile it against the time to load its serialised executable.
//!
//! `cargo run --release -p systolic --example checkpoint_aot_bench`

use std::time::Instant;
use systolic::{checkpoint, jit, numpy as np, random, value_and_grad, Array, Compiled, Tree};
use systolic_ir::DType;

#[derive(Tree, Clone)]
struct Mlp {
    layers: Vec<(Array, Array)>,
}

fn init(sizes: &[i64]) -> Mlp {
    let keys = random::split(&random::key(0), sizes.len() as i64);
    let layers = sizes
        .windows(2)
        .zip(&keys)
        .map(|(io, k)| {
            let w = random::normal(k, &[io[0], io[1]], DType::F32) * (1.0 / (io[0] as f64).sqrt());
            (w, np::zeros(&[io[1]], DType::F32))
        })
        .collect();
    Mlp { layers }
}

fn step((p, x, y): &(Mlp, Array, Array)) -> (Mlp, Array) {
    let loss = |p: &Mlp| {
        let mut h = x.clone();
        for (i, (w, b)) in p.layers.iter().enumerate() {
            h = &np::matmul(&h, w) + b;
            if i + 1 < p.layers.len() {
                h = np::tanh(&h);
            }
        }
        let err = &h - y;
        np::mean(&(&err * &err), None, false)
    };
    let (value, grads) = value_and_grad(loss).call(p).unwrap();
    let layers = p
        .layers
        .iter()
        .zip(&grads.layers)
        .map(|((w, b), (gw, gb))| (w - &(gw * 0.01), b - &(gb * 0.01)))
        .collect();
    (Mlp { layers }, value)
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let dir = tempfile::tempdir().unwrap();

    // Checkpoints: 8 arrays of 4 Mi f32 (128 MiB).
    let big: Vec<Array> = (0..8)
        .map(|i| random::normal(&random::key(i), &[2048, 2048], DType::F32))
        .collect();
    big.iter().for_each(|a| {
        a.block_until_ready().unwrap();
    });
    let mib = 128.0;
    for format in ["safetensors", "npz"] {
        let path = dir.path().join(format!("big.{format}"));
        let t = Instant::now();
        checkpoint::save(&path, &big).unwrap();
        let save = ms(t);
        let t = Instant::now();
        let back = checkpoint::restore(&path, &big).unwrap();
        back.iter().for_each(|a| {
            a.block_until_ready().unwrap();
        });
        let restore = ms(t);
        println!(
            "checkpoint {format}: 128 MiB saved in {save:.0} ms ({:.0} MiB/s), restored in {restore:.0} ms ({:.0} MiB/s)",
            mib / save * 1e3,
            mib / restore * 1e3
        );
    }

    // Ahead of time: an MLP training step.
    let params = init(&[784, 1024, 1024, 10]);
    let x = random::normal(&random::key(1), &[128, 784], DType::F32);
    let y = random::normal(&random::key(2), &[128, 10], DType::F32);
    let args = (params, x, y);
    let t = Instant::now();
    let compiled = jit(step).lower(&args).unwrap().compile().unwrap();
    let compile = ms(t);
    let path = dir.path().join("step.sxe");
    compiled.save(&path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let like = step(&args);
    let t = Instant::now();
    let loaded = Compiled::load(&path, &like).unwrap();
    let load = ms(t);
    let t = Instant::now();
    loaded.call(&args).unwrap().1.block_until_ready().unwrap();
    let first = ms(t);
    let t = Instant::now();
    for _ in 0..10 {
        loaded.call(&args).unwrap().1.block_until_ready().unwrap();
    }
    let steady = ms(t) / 10.0;
    println!(
        "aot mlp step: trace+compile {compile:.1} ms; serialised {size} bytes; load {load:.1} ms; \
         first call after load {first:.1} ms; steady step {steady:.1} ms"
    );
}
