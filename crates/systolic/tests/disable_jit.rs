//! `config::disable_jit` (`jax.disable_jit`): jitted functions run op by op, eagerly.

use std::cell::Cell;
use systolic::{config, grad, jit, numpy as np, Array};

#[test]
fn a_jitted_function_runs_eagerly_and_is_never_traced() {
    let seen = Cell::new(0);
    let f = jit(|x: &Array| {
        if !x.is_traced() {
            seen.set(seen.get() + 1);
        }
        np::sum(&(x * x), None, false)
    });
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
    let eager = config::disable_jit(|| f.call(&x)).unwrap();
    assert_eq!(eager.to_vec::<f32>().unwrap(), vec![14.0]);
    assert_eq!((seen.get(), f.trace_count()), (1, 0));
    // Switched on again after the closure: traced and compiled, same value.
    let compiled = f.call(&x).unwrap();
    assert_eq!(compiled.to_vec::<f32>().unwrap(), vec![14.0]);
    assert_eq!((seen.get(), f.trace_count()), (1, 1));
}

#[test]
fn an_op_that_fails_is_the_calls_error() {
    let f = jit(|x: &Array| np::reshape(x, &[4, 2]));
    let x = Array::from_vec(vec![1.0f32; 6], &[6]);
    let err = config::disable_jit(|| f.call(&x)).unwrap_err().to_string();
    assert!(err.contains("reshape"), "{err}");
}

#[test]
fn grad_of_a_jitted_function_is_the_same_with_jit_disabled() {
    let f = jit(|x: &Array| np::sum(&np::sin(x), None, false));
    let x = Array::from_vec(vec![0.5f32, 1.0], &[2]);
    let g = |x: &Array| grad(|y: &Array| f.call(y).unwrap()).call(x).unwrap();
    let on = g(&x).to_vec::<f32>().unwrap();
    let off = config::disable_jit(|| g(&x)).to_vec::<f32>().unwrap();
    assert_eq!(on, off);
    assert!((on[0] - 0.5f32.cos()).abs() < 1e-6);
}

#[test]
fn the_setting_is_restored_after_a_panic() {
    let r = std::panic::catch_unwind(|| config::disable_jit(|| panic!("inside")));
    assert!(r.is_err());
    assert!(!config::jit_disabled());
    config::disable_jit(|| assert!(config::jit_disabled()));
    // (`set_disable_jit`, the process-wide switch, is not flipped here: the suite's other
    // tests run on parallel threads and would see it.)
}
