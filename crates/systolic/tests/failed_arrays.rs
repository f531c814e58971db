//! A failed array never masquerades as `f32[]` (issue 18): its metadata accessors raise its
//! error under a trace (the transformation's `call` returns it) and panic with it outside one;
//! ops given a failed array keep the first error.

use std::panic::{catch_unwind, AssertUnwindSafe};
use systolic::numpy::TakeMode;
use systolic::{grad, jit, nn, numpy as np, vmap, Array};
use systolic_ir::DType;

/// A named read of an array's metadata.
type Read = (&'static str, Box<dyn Fn(&Array)>);

/// A named op of one array.
type UnaryOp<'a> = (&'static str, Box<dyn Fn(&Array) -> Array + 'a>);

/// `f32[3] + f32[4]`: a failed array whose error names the op and both types.
fn failed() -> Array {
    &Array::from_vec(vec![1.0f32; 3], &[3]) + &Array::from_vec(vec![1.0f32; 4], &[4])
}

fn original() -> String {
    failed().error().expect("the add fails").to_string()
}

/// The message of the panic `f` ends with.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("a panic");
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

#[test]
fn the_error_names_the_op_and_its_operands() {
    let e = original();
    assert!(
        e.contains("add") && e.contains("float32[3]") && e.contains("float32[4]"),
        "{e}"
    );
}

#[test]
fn each_accessor_outside_a_trace_panics_with_the_original_error() {
    let want = original();
    let accessors: [Read; 5] = [
        ("shape", Box::new(|a| assert!(a.shape()[0] >= 0))),
        ("ndim", Box::new(|a| assert!(a.ndim() < 99))),
        ("size", Box::new(|a| assert!(a.size() < usize::MAX))),
        ("dtype", Box::new(|a| assert!(a.dtype() != DType::Bool))),
        ("ty", Box::new(|a| assert!(a.ty().rank() < 99))),
    ];
    for (name, read) in accessors {
        let bad = failed();
        let msg = panic_message(|| read(&bad));
        assert!(msg.contains(&want), "{name}: {msg}");
        assert!(msg.contains(&format!("{name}()")), "{name}: {msg}");
        assert!(msg.contains(".check()?"), "{name}: {msg}");
    }
    // A healthy array's metadata is untouched.
    let ok = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    assert_eq!(
        (ok.shape(), ok.ndim(), ok.size(), ok.dtype()),
        (&[2i64, 3][..], 2, 6, DType::F32)
    );
}

#[test]
fn check_error_debug_and_display_report_the_error_without_panicking() {
    let bad = failed();
    let want = original();
    assert_eq!(bad.check().unwrap_err().to_string(), want);
    assert!(format!("{bad:?}").contains(&want), "{bad:?}");
    assert!(bad.to_string().contains(&want), "{bad}");
    assert!(bad.to_vec::<f32>().unwrap_err().to_string().contains(&want));
}

#[test]
fn jit_returns_the_error_of_a_failed_intermediate_whose_shape_is_read() {
    let want = original();
    let f = jit(|x: &Array| {
        let y = x + &Array::from_vec(vec![1.0f32; 4], &[4]);
        // JAX raises at the add; here the read of its shape does.
        let rows = y.shape()[0];
        np::reshape(&y, &[rows, -1])
    });
    let x = Array::from_vec(vec![1.0f32; 3], &[3]);
    let err = f.call(&x).unwrap_err().to_string();
    assert!(err.contains(&want), "{err}");
    // The jit stays usable: a good input traces and runs.
    let ok = f.call(&Array::from_vec(vec![1.0f32; 4], &[4])).unwrap();
    assert_eq!(ok.to_vec::<f32>().unwrap(), vec![2.0; 4]);
    assert_eq!(ok.shape(), &[4, 1]);
}

#[test]
fn grad_and_vmap_return_the_error_of_a_failed_intermediate() {
    let want = original();
    let x = Array::from_vec(vec![1.0f32; 3], &[3]);
    let g = grad(|x: &Array| {
        let y = x + &Array::from_vec(vec![1.0f32; 4], &[4]);
        if y.ndim() == 0 {
            // The made-up f32[] of a failed array would take this branch.
            return np::sum(x, None, false);
        }
        np::sum(&y, None, false)
    });
    let err = g.call(&x).unwrap_err().to_string();
    assert!(err.contains(&want), "grad: {err}");

    let rows = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let v = vmap(|r: &Array| {
        let y = r + &Array::from_vec(vec![1.0f32; 4], &[4]);
        np::astype(&y, y.dtype())
    });
    let err = v.call(&rows).unwrap_err().to_string();
    assert!(err.contains(&want), "vmap: {err}");

    // Nested: the innermost transformation returns it; jit(grad) outside is fine.
    let outer = jit(|x: &Array| match g.call(x) {
        Ok(d) => d,
        Err(e) => {
            assert!(e.to_string().contains("add"), "{e}");
            x * 0.0
        }
    });
    assert_eq!(
        outer.call(&x).unwrap().to_vec::<f32>().unwrap(),
        vec![0.0; 3]
    );
}

#[test]
fn chains_of_ops_on_a_failed_array_keep_the_first_error() {
    let want = original();
    let bad = failed();
    let m = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let idx = Array::from_vec(vec![0i32], &[1]);
    let one = Array::scalar(1.0f32);
    let ops: Vec<UnaryOp> = vec![
        ("add scalar", Box::new(|a| a + 1.0)),
        ("mul", Box::new(|a| a * &m)),
        ("exp", Box::new(np::exp)),
        ("sum", Box::new(|a| np::sum(a, Some(&[0]), false))),
        ("mean", Box::new(|a| np::mean(a, None, true))),
        ("max", Box::new(|a| np::max(a, Some(&[1]), false))),
        ("var", Box::new(|a| np::var(a, None, 0, false))),
        ("argmax", Box::new(|a| np::argmax(a, 1, false))),
        ("reshape", Box::new(|a| np::reshape(a, &[2, 2]))),
        ("transpose", Box::new(|a| np::transpose(a, Some(&[1, 0])))),
        ("expand_dims", Box::new(|a| np::expand_dims(a, 3))),
        ("squeeze", Box::new(|a| np::squeeze(a, 0))),
        ("swapaxes", Box::new(|a| np::swapaxes(a, 0, 1))),
        ("moveaxis", Box::new(|a| np::moveaxis(a, 0, 1))),
        ("ravel", Box::new(np::ravel)),
        ("flip", Box::new(|a| np::flip(a, Some(&[1])))),
        ("roll", Box::new(|a| np::roll(a, 1, Some(1)))),
        ("tile", Box::new(|a| np::tile(a, &[2, 2]))),
        ("repeat", Box::new(|a| np::repeat(a, 2, Some(1)))),
        ("broadcast_to", Box::new(|a| np::broadcast_to(a, &[5, 3]))),
        ("concatenate", Box::new(|a| np::concatenate(&[&m, a], 1))),
        ("stack", Box::new(|a| np::stack(&[a, &m], 0))),
        ("astype", Box::new(|a| np::astype(a, DType::I32))),
        ("matmul", Box::new(|a| np::matmul(&m, a))),
        ("einsum", Box::new(|a| np::einsum("ij,jk->ik", &[a, &m]))),
        ("where", Box::new(|a| np::where_(&np::isnan(a), &m, a))),
        ("clip", Box::new(|a| np::clip(a, &one, &one))),
        ("cumsum", Box::new(|a| np::cumsum(a, Some(1)))),
        ("sort", Box::new(|a| np::sort(a, 1, false))),
        (
            "take",
            Box::new(|a| np::take(a, &idx, Some(1), TakeMode::Clip)),
        ),
        ("diag", Box::new(|a| np::diag(a, 0))),
        ("softmax", Box::new(|a| nn::softmax(a, 1))),
        ("log_softmax", Box::new(|a| nn::log_softmax(a, -1))),
        ("relu", Box::new(nn::relu)),
        ("logaddexp", Box::new(|a| np::logaddexp(&m, a))),
        (
            "pad",
            Box::new(|a| np::pad(a, &[(1, 1), (0, 2)], np::PadMode::Edge)),
        ),
        ("argsort", Box::new(|a| np::argsort(a, 1, false))),
        ("cumprod", Box::new(|a| np::cumprod(a, Some(0)))),
        ("median", Box::new(|a| np::median(a, Some(&[1]), false))),
        (
            "quantile",
            Box::new(|a| np::quantile(a, 0.3, Some(&[0]), false)),
        ),
        ("std", Box::new(|a| np::std(a, Some(&[1]), 1, false))),
        (
            "average",
            Box::new(|a| np::average(a, Some(&[1]), None, false)),
        ),
        ("diff", Box::new(|a| np::diff(a, 1, 1))),
        ("tril", Box::new(|a| np::tril(a, 0))),
        ("trace", Box::new(|a| np::trace(a, 0))),
        ("outer", Box::new(|a| np::outer(a, &m))),
        (
            "norm",
            Box::new(|a| np::linalg::norm(a, None, Some(&[1]), false)),
        ),
        (
            "slice",
            Box::new(|a| systolic::lax::slice(a, &[0, 0], &[1, 2], None)),
        ),
        ("rev", Box::new(|a| systolic::lax::rev(a, &[1]))),
        (
            "index",
            Box::new(|a| np::index(a, &[np::Idx::from(1i64), np::Idx::from(0i64)])),
        ),
        ("gelu", Box::new(|a| nn::gelu(a, true))),
        ("one_hot", Box::new(|a| nn::one_hot(a, 4, DType::F32))),
        (
            "random.normal",
            Box::new(|k| systolic::random::normal(k, &[2], DType::F32)),
        ),
        (
            "random.split",
            Box::new(|k| systolic::random::split_array(k, 3)),
        ),
        (
            "random.fold_in",
            Box::new(|k| systolic::random::fold_in(k, 7)),
        ),
        (
            "dot_product_attention",
            Box::new(|a| {
                let q = Array::from_vec(vec![1.0f32; 8], &[1, 2, 1, 4]);
                nn::dot_product_attention(&q, a, &q, None, None, None, true)
            }),
        ),
    ];
    let mut wrong = vec![];
    for (name, op) in &ops {
        // Once on the failed array, once on the result of the first op of the chain.
        for input in [bad.clone(), np::exp(&bad)] {
            match op(&input).error() {
                Some(e) if e.to_string() == want => {}
                other => wrong.push(format!("{name}: {other:?}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Ops that return a Result return the first error.
    let err = systolic::lax::top_k(&bad, 2).map(|_| ()).unwrap_err();
    assert_eq!(err.to_string(), want);
}
