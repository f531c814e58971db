//! Asynchronous `jit`: calls queue their execution and return pending arrays; order is kept
//! with eager ops; failures surface when results are read, naming the op. Static arguments.

use std::time::Instant;
use systolic::{jit, numpy as np, Array, Static};

#[test]
fn a_chain_of_100_calls_returns_quickly_and_computes_the_right_values() {
    let n = 256;
    let step = jit(|(x, w): &(Array, Array)| np::tanh(&np::matmul(w, x)));
    let w = Array::from_vec(
        (0..n * n)
            .map(|i| if i % (n + 1) == 0 { 1.0f32 } else { 0.0 })
            .collect(),
        &[n as i64, n as i64],
    );
    let x0 = Array::from_vec(
        (0..n * 4).map(|i| (i % 7) as f32 / 7.0).collect(),
        &[n as i64, 4],
    );
    step.call(&(x0.clone(), w.clone()))
        .unwrap()
        .block_until_ready()
        .unwrap(); // compile outside the timing
    let start = Instant::now();
    let mut x = x0.clone();
    for _ in 0..100 {
        x = step.call(&(x, w.clone())).unwrap();
    }
    let queued = start.elapsed();
    x.block_until_ready().unwrap();
    let total = start.elapsed();
    assert_eq!(step.trace_count(), 1);
    eprintln!("100 chained calls: queued in {queued:?}, done in {total:?}");
    // The same chain computed step by step on the host.
    let mut want: Vec<f32> = x0.to_vec().unwrap();
    for _ in 0..100 {
        want.iter_mut().for_each(|v| *v = v.tanh());
    }
    let got = x.to_vec::<f32>().unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-5, "{g} vs {w}");
    }
}

#[test]
fn jit_results_feed_eager_ops_and_other_jit_calls_in_order() {
    let double = jit(|x: &Array| x * 2);
    let inc = jit(|x: &Array| x + 1);
    let mut x = Array::from_vec(vec![1i32, 2, 3], &[3]);
    for _ in 0..10 {
        x = inc.call(&double.call(&x).unwrap()).unwrap();
        x = &x - 1; // eager, reads a pending jit result
    }
    // x -> 2x each round
    assert_eq!(x.to_vec::<i32>().unwrap(), vec![1024, 2048, 3072]);
}

#[test]
fn a_failure_inside_a_dispatched_call_surfaces_when_the_result_is_read() {
    let f = jit(|x: &Array| np::exp(x)).named("exp_step");
    let x = Array::from_vec(vec![0.0f32; 4], &[4]);
    f.call(&x).unwrap().block_until_ready().unwrap();
    // Delete the argument's data: the execution fails on the worker, after the call returned.
    let gone = &x + 0.0;
    gone.block_until_ready().unwrap();
    gone.buffer().unwrap().delete();
    let out = f.call(&gone).expect("the call itself is only queued");
    let later = &out * 2.0; // ops on the failed result fail too
    let err = out.to_vec::<f32>().unwrap_err().to_string();
    assert!(err.contains("jit(exp_step)"), "{err}");
    assert!(err.contains("donated"), "{err}");
    assert!(out.block_until_ready().is_err());
    let err2 = later.to_vec::<f32>().unwrap_err().to_string();
    assert!(err2.contains("jit(exp_step)"), "{err2}");
    // The queue keeps working afterwards.
    assert_eq!(f.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![1.0; 4]);
}

#[test]
fn a_failed_eager_argument_fails_the_jit_result_with_the_eager_op_named() {
    let x = Array::from_vec(vec![1.0f32; 3], &[3]);
    let y = &x * 1.0;
    y.block_until_ready().unwrap();
    y.buffer().unwrap().delete();
    let z = np::sin(&y); // fails on the worker
    let f = jit(|z: &Array| z + 1.0);
    let out = f.call(&z).unwrap();
    let err = out.to_vec::<f32>().unwrap_err().to_string();
    assert!(err.contains("stablehlo.sine"), "{err}");
}

#[test]
fn static_arguments_retrace_per_value_and_explain_which_changed() {
    let f = jit(|(x, axis, keep): &(Array, Static<i64>, Static<bool>)| {
        np::sum(x, Some(&[axis.0]), keep.0)
    })
    .explain_cache_misses(true);
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let r0 = f.call(&(x.clone(), Static(0), Static(false))).unwrap();
    assert_eq!(r0.shape(), &[3]);
    assert_eq!(r0.to_vec::<f32>().unwrap(), vec![5.0, 7.0, 9.0]);
    let r1 = f.call(&(x.clone(), Static(1), Static(false))).unwrap();
    assert_eq!(r1.to_vec::<f32>().unwrap(), vec![6.0, 15.0]);
    let why = f.last_cache_miss().unwrap();
    assert!(
        why.contains("static value `args[1]` changed from 0 to 1"),
        "{why}"
    );
    let r2 = f.call(&(x.clone(), Static(1), Static(true))).unwrap();
    assert_eq!(r2.shape(), &[2, 1]);
    let why = f.last_cache_miss().unwrap();
    assert!(
        why.contains("static value `args[2]` changed from false to true"),
        "{why}"
    );
    assert_eq!(f.trace_count(), 3);
    f.call(&(x.clone(), Static(0), Static(false))).unwrap();
    assert_eq!(f.trace_count(), 3, "seen static values hit the cache");
    // A dtype change is explained with the argument's path.
    let xi = Array::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]);
    f.call(&(xi, Static(0), Static(false))).unwrap();
    let why = f.last_cache_miss().unwrap();
    assert!(
        why.contains("`args[0]` changed from float32[2,3] to int32[2,3]"),
        "{why}"
    );
}

#[test]
fn lowered_text_of_a_static_call_runs_on_its_own() {
    let f = jit(|(x, n): &(Array, Static<usize>)| (0..n.0).fold(x.clone(), |acc, _| &acc * 2.0));
    let x = Array::from_vec(vec![1.0f32, 3.0], &[2]);
    let text = f.lower(&(x.clone(), Static(3))).unwrap().as_text();
    assert_eq!(text.matches("stablehlo.multiply").count(), 3, "{text}");
    assert_eq!(
        f.call(&(x, Static(3))).unwrap().to_vec::<f32>().unwrap(),
        vec![8.0, 24.0]
    );
}
