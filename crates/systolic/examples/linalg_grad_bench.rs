//! Steady-state time of `jit(grad(loss))` through `eigh`, `svd`, `solve` and `slogdet` on one
//! 128×128 float64 matrix, the same losses as `scripts/bench_linalg_grad.py` times in JAX,
//! the forward `solve` alone, and the second derivatives: `jvp` of `grad` along a direction
//! of ones (`*_hvp`).
//!
//! Run: `cargo run --release -p systolic --example linalg_grad_bench`

use std::rc::Rc;
use std::time::Instant;
use systolic::numpy::linalg;
use systolic::{grad, jit, numpy as np, Array};

/// A named scalar loss of one matrix.
type Loss = (&'static str, Rc<dyn Fn(&Array) -> Array>);

fn main() {
    let n = 128usize;
    // A fixed, well-conditioned matrix: a deterministic pattern plus n on the diagonal.
    let a: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            ((i * 7 + j * 13) % 17) as f64 / 17.0 - 0.5 + if i == j { n as f64 } else { 0.0 }
        })
        .collect();
    let a = Array::from_vec(a, &[n as i64, n as i64]);
    let s = |x: &Array| np::sum(x, None, false);
    let cases: Vec<Loss> = vec![
        (
            "eigh",
            Rc::new(move |a: &Array| {
                let (w, v) = linalg::eigh(a);
                np::add(&s(&np::multiply(&w, &w)), &s(&np::multiply(&v, &v)))
            }),
        ),
        (
            "svd",
            Rc::new(move |a: &Array| s(&linalg::svd(a, false, false).1)),
        ),
        (
            "solve",
            Rc::new(move |a: &Array| s(&linalg::solve(a, &np::ones(&[n as i64], a.dtype())))),
        ),
        ("slogdet", Rc::new(move |a: &Array| linalg::slogdet(a).1)),
    ];
    // The forward solve alone, to tell its QR from the rule's own work.
    let fwd = jit(move |a: &Array| linalg::solve(a, &np::ones(&[n as i64], a.dtype())));
    fwd.call(&a).unwrap().to_vec::<f64>().unwrap();
    let t0 = Instant::now();
    for _ in 0..20 {
        fwd.call(&a).unwrap().to_vec::<f64>().unwrap();
    }
    println!(
        "solve (forward only)                step {:8.3} ms",
        t0.elapsed().as_secs_f64() * 1e3 / 20.0
    );
    for (name, f) in &cases {
        let f = f.clone();
        time(name, jit(grad(move |a: &Array| f(a))), &a);
    }
    // Second order: the gradient's derivative along a direction (jvp of grad, a
    // Hessian-vector product, as `jax.jvp(jax.grad(f), (a,), (d,))`).
    let d = np::ones(&[n as i64, n as i64], a.dtype());
    for (name, f) in &cases {
        let f = f.clone();
        let d = d.clone();
        let hvp = jit(systolic::fallible(move |a: &Array| {
            let f = f.clone();
            systolic::jvp(grad(move |a: &Array| f(a)), a, &d).map(|(_, hd)| hd)
        }));
        time(&format!("{name}_hvp"), hvp, &a);
    }
}

/// Prints the compile+first and steady-state times of `g` on `a`.
fn time<F: systolic::Function<Array, Output = Array>>(
    name: &str,
    g: systolic::Jit<Array, Array, F>,
    a: &Array,
) {
    let t0 = Instant::now();
    if let Err(e) = g.call(a).and_then(|x| x.to_vec::<f64>()) {
        println!("{name:12} fails: {e}");
        return;
    }
    let first = t0.elapsed();
    let reps = 20;
    let t0 = Instant::now();
    for _ in 0..reps {
        g.call(a).unwrap().to_vec::<f64>().unwrap();
    }
    let step = t0.elapsed() / reps;
    println!(
        "{name:12} compile+first {:8.2} ms   step {:8.3} ms",
        first.as_secs_f64() * 1e3,
        step.as_secs_f64() * 1e3
    );
}
