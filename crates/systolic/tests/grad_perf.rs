//! A timing probe (ignored by default): one jitted value_and_grad + SGD step of the
//! porting_mlp model (784-1024-1024-10, batch 1024). `cargo test -p systolic --release --test
//! grad_perf -- --ignored --nocapture`.

use std::time::Instant;
use systolic::{jit, nn, numpy as np, random, value_and_grad, Array};
use systolic_ir::DType;

type Params = Vec<(Array, Array)>;

fn loss(params: &Params, x: &Array, labels: &Array) -> Array {
    let mut h = x.clone();
    for (w, b) in &params[..params.len() - 1] {
        h = nn::relu(&(&np::matmul(&h, w) + b));
    }
    let (w, b) = &params[params.len() - 1];
    let logits = &np::matmul(&h, w) + b;
    let ll = &nn::log_softmax(&logits, -1) * &nn::one_hot(labels, 10, DType::F32);
    -np::mean(&np::sum(&ll, Some(&[-1]), false), None, false)
}

#[test]
#[ignore]
fn mlp_training_step_time() {
    let keys = random::split(&random::key(0), 4);
    let params: Params = [(784, 1024), (1024, 1024), (1024, 10)]
        .iter()
        .zip(&keys)
        .map(|(&(m, n), k)| {
            (
                random::normal(k, &[m, n], DType::F32) * 0.01,
                np::zeros(&[n], DType::F32),
            )
        })
        .collect();
    let x = random::normal(&random::key(1), &[1024, 784], DType::F32);
    let labels = Array::from_vec((0..1024).map(|i| i % 10).collect::<Vec<i32>>(), &[1024]);
    let step = jit(|(p, x, y): &(Params, Array, Array)| {
        let (l, g) = value_and_grad(|p: &Params| loss(p, x, y)).call(p).unwrap();
        let p2: Params = p
            .iter()
            .zip(&g)
            .map(|((w, b), (gw, gb))| (w - &(gw * 0.1), b - &(gb * 0.1)))
            .collect();
        (l, p2)
    });
    let fwd = jit(|(p, x, y): &(Params, Array, Array)| loss(p, x, y));
    let args = (params.clone(), x.clone(), labels.clone());
    fwd.call(&args).unwrap().block_until_ready().unwrap();
    let tf = Instant::now();
    for _ in 0..3 {
        fwd.call(&args).unwrap().block_until_ready().unwrap();
    }
    println!(
        "forward only: {:.1} ms",
        tf.elapsed().as_secs_f64() * 1e3 / 3.0
    );
    let t0 = Instant::now();
    let (l0, mut p) = step.call(&(params, x.clone(), labels.clone())).unwrap();
    l0.block_until_ready().unwrap();
    println!(
        "compile + first step: {:.1} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let t1 = Instant::now();
    let n = 5;
    let mut l = l0.clone();
    for _ in 0..n {
        let (l2, p2) = step.call(&(p, x.clone(), labels.clone())).unwrap();
        l = l2;
        p = p2;
    }
    l.block_until_ready().unwrap();
    println!(
        "step: {:.1} ms; loss {} -> {}",
        t1.elapsed().as_secs_f64() * 1e3 / n as f64,
        l0.to_vec::<f32>().unwrap()[0],
        l.to_vec::<f32>().unwrap()[0]
    );
}
