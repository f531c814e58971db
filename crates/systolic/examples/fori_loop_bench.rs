//! Per-iteration cost of `fori_loop`s with small bodies on the CPU backend: where the fixed
//! cost of each kernel launch, not arithmetic, sets the time.
//!
//! - `pivots`: the loop JAX's `lu_pivots_to_permutation` runs (and `linalg::solve` runs after
//!   LAPACK's getrf): swap `perm[i]` and `perm[piv[i]]` in an int32[128] vector, with a
//!   running scalar sum picked by a `select` and an f64[128] vector updated in place.
//! - `scalar`: a body of scalar arithmetic only (an LCG step and a select).
//! - `solve`: the forward `linalg::solve` of a 128×128 float64 matrix, whose pivots loop
//!   is most of its time.
//!
//! Each loop runs for two trip counts; the difference of their times over the difference of
//! their trip counts is the cost of one iteration, free of the call's fixed cost.
//!
//! Run: `cargo run --release -p systolic --example fori_loop_bench`; with
//! `SMALL_LOOP_DUMP=dir` it also writes the three programs (1152-iteration loops) there as
//! StableHLO text, for `systolic run --profile` or the CPU backend's own `small_loop_bench`.

use std::time::Instant;
use systolic::numpy::linalg;
use systolic::{jit, lax, numpy as np, Array};

/// Writes `text` to `$SMALL_LOOP_DUMP/name.mlir` when that variable is set.
fn dump(name: &str, text: impl FnOnce() -> String) {
    if let Some(dir) = std::env::var_os("SMALL_LOOP_DUMP") {
        let path = std::path::Path::new(&dir).join(format!("{name}.mlir"));
        std::fs::write(&path, text()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// Mean seconds per call of `f` after one warm-up call (compilation).
fn per_call(reps: usize, f: impl Fn()) -> f64 {
    f();
    let t0 = Instant::now();
    for _ in 0..reps {
        f();
    }
    t0.elapsed().as_secs_f64() / reps as f64
}

/// The pivots loop over `trips` iterations (pivot indices wrap around the 128 entries).
fn pivots_loop(trips: i64, piv: &Array) -> (Array, Array, Array) {
    let n = 128;
    let init = (
        lax::iota(systolic::DType::I32, &[n], 0),
        Array::scalar(0i32),
        np::ones(&[n], systolic::DType::F64),
    );
    lax::fori_loop(
        0,
        trips,
        |i, (perm, acc, v): &(Array, Array, Array)| {
            let k = lax::rem(i, &Array::scalar(n as i32));
            let p = np::reshape(
                &lax::dynamic_slice(piv, std::slice::from_ref(&k), &[1]),
                &[],
            );
            let x = lax::dynamic_slice(perm, std::slice::from_ref(&k), &[1]);
            let y = lax::dynamic_slice(perm, std::slice::from_ref(&p), &[1]);
            let perm = lax::dynamic_update_slice(perm, &y, std::slice::from_ref(&k));
            let perm = lax::dynamic_update_slice(&perm, &x, std::slice::from_ref(&p));
            let xs = np::reshape(&x, &[]);
            let ys = np::reshape(&y, &[]);
            let acc = lax::select(&np::greater(&xs, &ys), &lax::add(acc, &xs), acc);
            let vp = lax::dynamic_slice(v, std::slice::from_ref(&p), &[1]);
            let half = Array::from_vec(vec![0.5f64], &[1]);
            let v = lax::dynamic_update_slice(v, &lax::mul(&vp, &half), std::slice::from_ref(&k));
            (perm, acc, v)
        },
        &init,
    )
    .unwrap()
}

/// A scalar-only loop: an int32 LCG and a float accumulator picked by a select.
fn scalar_loop(trips: i64, seed: &Array) -> (Array, Array) {
    lax::fori_loop(
        0,
        trips,
        |_, (s, acc): &(Array, Array)| {
            let s = lax::rem(
                &lax::add(
                    &lax::mul(s, &Array::scalar(1103i32)),
                    &Array::scalar(12345i32),
                ),
                &Array::scalar(65536i32),
            );
            let f = np::astype(&s, systolic::DType::F32);
            let acc = lax::select(
                &np::greater(&f, &Array::scalar(32768f32)),
                &lax::add(acc, &f),
                &lax::mul(acc, &Array::scalar(0.5f32)),
            );
            (s, acc)
        },
        &(seed.clone(), Array::scalar(0f32)),
    )
    .unwrap()
}

fn main() {
    let n = 128usize;
    let piv: Vec<i32> = (0..n).map(|k| ((k * 37 + 11) % n) as i32).collect();
    let piv = Array::from_vec(piv, &[n as i64]);
    let (short, long) = (128i64, 1152i64);
    let reps = 200;

    let time_pivots = |trips: i64| {
        let f = jit(move |piv: &Array| {
            let (perm, acc, v) = pivots_loop(trips, piv);
            np::add(
                &np::add(
                    &np::astype(&np::sum(&perm, None, false), systolic::DType::F64),
                    &np::astype(&acc, systolic::DType::F64),
                ),
                &np::sum(&v, None, false),
            )
        });
        if trips == long {
            dump("pivots_loop", || f.lower(&piv).unwrap().as_text());
        }
        per_call(reps, || {
            f.call(&piv).unwrap().to_vec::<f64>().unwrap();
        })
    };
    let (a, b) = (time_pivots(short), time_pivots(long));
    println!(
        "pivots loop   {short:5} iterations {:8.1} µs   {long:5} iterations {:8.1} µs   per iteration {:6.2} µs",
        a * 1e6,
        b * 1e6,
        (b - a) / (long - short) as f64 * 1e6
    );

    let seed = Array::scalar(7i32);
    let time_scalar = |trips: i64| {
        let f = jit(move |s: &Array| scalar_loop(trips, s).1);
        if trips == long {
            dump("scalar_loop", || f.lower(&seed).unwrap().as_text());
        }
        per_call(reps, || {
            f.call(&seed).unwrap().to_vec::<f32>().unwrap();
        })
    };
    let (a, b) = (time_scalar(short), time_scalar(long));
    println!(
        "scalar loop   {short:5} iterations {:8.1} µs   {long:5} iterations {:8.1} µs   per iteration {:6.2} µs",
        a * 1e6,
        b * 1e6,
        (b - a) / (long - short) as f64 * 1e6
    );

    // The forward solve, the matrix of `linalg_grad_bench`.
    let m: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            ((i * 7 + j * 13) % 17) as f64 / 17.0 - 0.5 + if i == j { n as f64 } else { 0.0 }
        })
        .collect();
    let m = Array::from_vec(m, &[n as i64, n as i64]);
    let solve = jit(move |a: &Array| linalg::solve(a, &np::ones(&[n as i64], a.dtype())));
    dump("solve", || solve.lower(&m).unwrap().as_text());
    let t = per_call(50, || {
        solve.call(&m).unwrap().to_vec::<f64>().unwrap();
    });
    println!("solve 128x128 f64 forward            {:8.1} µs", t * 1e6);
}
