//! Errors out of `jit` (issue 18, item 7): a traced function returning `Result` hands its
//! error to the caller with its message, from any depth of nested transformations, and the
//! jitted function stays usable.

use systolic::{grad, jit, jit_fallible, numpy as np, vmap, Array, Error};

#[test]
fn the_first_error_reaches_the_caller_and_the_function_stays_usable() {
    let f = jit_fallible(|(x, w): &(Array, Array)| {
        let y = np::matmul(x, w);
        y.check()?;
        Ok(np::tanh(&y))
    });
    let x = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let bad_w = Array::from_vec(vec![1.0f32; 4], &[2, 2]);
    let err = f
        .call(&(x.clone(), bad_w))
        .expect_err("a shape error")
        .to_string();
    assert!(
        err.contains("matmul") && err.contains("float32[2,3]") && err.contains("float32[2,2]"),
        "{err}"
    );
    assert_eq!(f.trace_count(), 0);
    let w = Array::from_vec(vec![0.0f32; 6], &[3, 2]);
    let y = f.call(&(x.clone(), w.clone())).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 4]);
    assert_eq!(f.trace_count(), 1);
    // Cached: no re-trace, no error.
    f.call(&(x, w)).unwrap();
    assert_eq!(f.trace_count(), 1);
}

#[test]
fn errors_from_nested_transformations_and_user_checks() {
    // A user-level check inside grad inside vmap inside the jitted function.
    let f = jit_fallible(|xs: &Array| {
        if xs.ndim() != 2 {
            return Err(Error::Host(format!(
                "expected a batch of vectors, got shape {:?}",
                xs.shape()
            )));
        }
        let per = vmap(|x: &Array| {
            grad(|y: &Array| np::sum(&(y * y), None, false))
                .call(x)
                .unwrap()
        });
        per.call(xs)
    });
    let err = f
        .call(&Array::from_vec(vec![1.0f32; 3], &[3]))
        .expect_err("an error")
        .to_string();
    assert!(
        err.contains("expected a batch of vectors, got shape [3]"),
        "{err}"
    );
    let g = f
        .call(&Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]))
        .unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
    // Inside an enclosing jit, the error is returned where jit_fallible is called.
    let outer = jit(|x: &Array| {
        let inner = jit_fallible(|x: &Array| {
            let r = np::reshape(x, &[5]);
            r.check()?;
            Ok(r)
        });
        match inner.call(x) {
            Ok(r) => r,
            Err(e) => {
                assert!(e.to_string().contains("reshape"), "{e}");
                x * 0.0
            }
        }
    });
    let out = outer.call(&Array::from_vec(vec![1.0f32; 4], &[4])).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![0.0; 4]);
}

#[test]
fn other_panics_are_not_swallowed() {
    let f =
        jit_fallible(|x: &Array| -> systolic::Result<Array> { panic!("a bug: {:?}", x.shape()) });
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        f.call(&Array::scalar(1.0f32))
    }));
    let payload = r.expect_err("the panic passes through");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(msg.contains("a bug"), "{msg}");
    // And the trace stack was unwound: ordinary jit still works.
    assert_eq!(
        jit(|x: &Array| x + 1.0)
            .call(&Array::scalar(1.0f32))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![2.0]
    );
}
