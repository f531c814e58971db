//! Transformations that compose without wrapper closures (issue 18): every transformation
//! takes and is a `Function`, so `jit(grad(f))`, `vmap(grad(f))`, `grad(jit(f))`, … are
//! written as in JAX. Each composition is checked against the closure-wrapped form it replaces
//! (the same values, the user function traced as often) and against values computed by hand;
//! a failure of an inner transformation reaches the outer `call` with its message.

use std::cell::Cell;
use systolic::{
    checkpoint, custom_jvp, fallible, grad, hessian, jacfwd, jit, jvp, linearize, numpy as np,
    value_and_grad, vjp, vmap, Arg, Array, DType, Error, Function,
};

fn data(values: &[f32], shape: &[i64]) -> Array {
    Array::from_vec(values.to_vec(), shape)
}

fn values(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

/// sum(sin(x) * x): its gradient is sin(x) + x cos(x), its second derivative (per element)
/// 2 cos(x) - x sin(x).
fn sin_x(x: &Array) -> Array {
    np::sum(&(&np::sin(x) * x), None, false)
}

fn d_sin_x(x: &[f32]) -> Vec<f32> {
    x.iter().map(|x| x.sin() + x * x.cos()).collect()
}

fn d2_sin_x(x: f32) -> f32 {
    2.0 * x.cos() - x * x.sin()
}

/// A least-squares loss of a linear model on one example or a batch: (x·w + b - y)² summed.
fn loss((w, b, x, y): &(Array, Array, Array, Array)) -> Array {
    let r = &(&np::matmul(x, w) + b) - y;
    np::sum(&(&r * &r), None, false)
}

#[test]
fn jit_of_grad_equals_the_closure_and_traces_once() {
    let traced = Cell::new(0);
    let f = |x: &Array| {
        traced.set(traced.get() + 1);
        sin_x(x)
    };
    let composed = jit(grad(f));
    let xs = [0.5f32, -1.0, 2.0];
    let x = data(&xs, &[3]);
    let g = values(&composed.call(&x).unwrap());
    assert_close(&g, &d_sin_x(&xs), "jit(grad(f))");
    composed.call(&data(&[1.0, 2.0, 3.0], &[3])).unwrap();
    assert_eq!(composed.trace_count(), 1);
    assert_eq!(traced.get(), 1, "f is traced once for one signature");
    // A new shape traces again.
    composed.call(&data(&[1.0, 2.0], &[2])).unwrap();
    assert_eq!((composed.trace_count(), traced.get()), (2, 2));
    // The closure it replaces: the same program, the same values, as many traces.
    let wrapped = jit(|x: &Array| grad(f).call(x).unwrap());
    assert_eq!(values(&wrapped.call(&x).unwrap()), g);
    wrapped.call(&data(&[1.0, 2.0, 3.0], &[3])).unwrap();
    assert_eq!((wrapped.trace_count(), traced.get()), (1, 3));
    assert_eq!(
        composed.lower(&x).unwrap().as_text(),
        wrapped.lower(&x).unwrap().as_text()
    );
}

#[test]
fn jit_of_value_and_grad_is_an_sgd_step() {
    let args = (
        data(&[0.5, -0.5], &[2]),
        Array::scalar(0.25f32),
        data(&[1.0, 2.0, 3.0, 4.0], &[2, 2]),
        data(&[1.0, 1.0], &[2]),
    );
    let step = jit(value_and_grad(loss));
    let (l, (dw, db, _, _)) = step.call(&args).unwrap();
    // r = x·w + b - y = [-0.5 + 0.25 - 1, -0.5 + 0.25 - 1] = [-1.25, -1.25]
    assert_close(&values(&l), &[3.125], "loss");
    assert_close(&values(&dw), &[-10.0, -15.0], "dw = 2 xᵀ r");
    assert_close(&values(&db), &[-5.0], "db = 2 Σ r");
    let wrapped = jit(|a: &(Array, Array, Array, Array)| value_and_grad(loss).call(a).unwrap());
    let (l2, (dw2, ..)) = wrapped.call(&args).unwrap();
    assert_eq!((values(&l2), values(&dw2)), (values(&l), values(&dw)));
    step.call(&args).unwrap();
    assert_eq!(step.trace_count(), 1);
}

#[test]
fn vmap_of_grad_gives_per_example_gradients_under_jit_too() {
    let w = data(&[0.5, -1.0], &[2]);
    let b = Array::scalar(0.1f32);
    let xs = data(&[1.0, 2.0, -1.0, 0.5, 3.0, 0.0], &[3, 2]);
    let ys = data(&[0.0, 1.0, -2.0], &[3]);
    let args = (w.clone(), b.clone(), xs.clone(), ys.clone());
    let per_example = vmap(grad(loss).argnums(Arg::<0>)).in_axes((None, None, 0, 0));
    let got = per_example.call(&args).unwrap();
    assert_eq!(got.shape(), &[3, 2]);
    // One example at a time: d/dw (x·w + b - y)² = 2 (x·w + b - y) x.
    let (xv, yv) = (values(&xs), values(&ys));
    let mut want = vec![];
    for i in 0..3 {
        let (x0, x1) = (xv[2 * i], xv[2 * i + 1]);
        let r = x0 * 0.5 - x1 + 0.1 - yv[i];
        want.extend([2.0 * r * x0, 2.0 * r * x1]);
    }
    assert_close(&values(&got), &want, "vmap(grad(f))");
    let wrapped =
        vmap(|a: &(Array, Array, Array, Array)| grad(loss).argnums(Arg::<0>).call(a).unwrap())
            .in_axes((None, None, 0, 0));
    assert_eq!(values(&wrapped.call(&args).unwrap()), values(&got));
    // jit(vmap(grad(f))): compiled once, the same values.
    let compiled = jit(vmap(grad(loss).argnums(Arg::<0>)).in_axes((None, None, 0, 0)));
    assert_eq!(values(&compiled.call(&args).unwrap()), values(&got));
    compiled.call(&(w, b, &xs * 2.0, ys)).unwrap();
    assert_eq!(compiled.trace_count(), 1);
}

#[test]
fn grad_and_vmap_of_jit_inline_the_jitted_function() {
    let traced = Cell::new(0);
    let f = |x: &Array| {
        traced.set(traced.get() + 1);
        sin_x(x)
    };
    let xs = [0.3f32, 1.5];
    let x = data(&xs, &[2]);
    let g = grad(jit(f));
    assert_close(&values(&g.call(&x).unwrap()), &d_sin_x(&xs), "grad(jit(f))");
    // grad stages its function on every eager call, as the closure-wrapped form does.
    let before = traced.get();
    let wrapped = grad(|x: &Array| jit(f).call(x).unwrap());
    assert_eq!(
        values(&wrapped.call(&x).unwrap()),
        values(&g.call(&x).unwrap())
    );
    assert_eq!(traced.get() - before, 2, "one trace per call, either way");

    // vmap(jit(f)): f of each row.
    let rows = data(&[0.3, 1.5, -2.0, 0.25], &[2, 2]);
    let per_row = vmap(jit(f)).call(&rows).unwrap();
    let want: Vec<f32> = [[0.3f32, 1.5], [-2.0, 0.25]]
        .iter()
        .map(|r| r.iter().map(|x| x.sin() * x).sum())
        .collect();
    assert_close(&values(&per_row), &want, "vmap(jit(f))");
    let wrapped = vmap(|x: &Array| jit(f).call(x).unwrap())
        .call(&rows)
        .unwrap();
    assert_eq!(values(&wrapped), values(&per_row));
}

#[test]
fn second_derivatives_compose() {
    let cube = |x: &Array| &(x * x) * x;
    // grad(grad(x³)) = 6x
    let d2 = grad(grad(cube));
    assert_eq!(
        values(&d2.call(&Array::scalar(2.0f32)).unwrap()),
        vec![12.0]
    );
    let wrapped = grad(|x: &Array| grad(cube).call(x).unwrap());
    assert_eq!(
        values(&wrapped.call(&Array::scalar(2.0f32)).unwrap()),
        vec![12.0]
    );
    // ... and compiled: jit(grad(grad(f))) traces once.
    let j = jit(grad(grad(|x: &Array| np::sin(x))));
    for x in [0.5f32, 1.0] {
        let got = values(&j.call(&Array::scalar(x)).unwrap())[0];
        assert!((got + x.sin()).abs() < 1e-6, "{got} vs {}", -x.sin());
    }
    assert_eq!(j.trace_count(), 1);

    // hessian of a jitted function, and jacfwd of one.
    let xs = [0.5f32, -1.0, 2.0];
    let x = data(&xs, &[3]);
    let h = hessian(jit(sin_x)).call(&x).unwrap();
    let mut want = vec![0.0f32; 9];
    for i in 0..3 {
        want[4 * i] = d2_sin_x(xs[i]);
    }
    assert_close(&values(&h[0]), &want, "hessian(jit(f))");
    assert_eq!(
        values(
            &hessian(|x: &Array| jit(sin_x).call(x).unwrap())
                .call(&x)
                .unwrap()[0]
        ),
        values(&h[0])
    );
    let jac = jacfwd(jit(|x: &Array| np::sin(x))).call(&x).unwrap();
    let mut want = vec![0.0f32; 9];
    for i in 0..3 {
        want[4 * i] = xs[i].cos();
    }
    assert_close(&values(&jac), &want, "jacfwd(jit(f))");
    // jacfwd(grad(f)) is the Hessian too.
    assert_close(
        &values(&jacfwd(grad(sin_x)).call(&x).unwrap()),
        &values(&h[0]),
        "jacfwd(grad(f))",
    );
}

#[test]
fn checkpointed_blocks_compose_with_jit_under_grad() {
    let block = |x: &Array| np::sin(&np::sin(x));
    let xs = [0.5f32, 1.25];
    let x = data(&xs, &[2]);
    let want: Vec<f32> = xs.iter().map(|x| x.sin().cos() * x.cos()).collect();
    let sum = |y: Array| np::sum(&y, None, false);
    // grad of a jitted checkpointed block.
    let inner = jit(checkpoint(block));
    let g = grad(|x: &Array| sum(inner.call(x).unwrap()));
    assert_close(
        &values(&g.call(&x).unwrap()),
        &want,
        "grad(jit(checkpoint(f)))",
    );
    // The whole step compiled: the recomputation sits behind an optimization_barrier.
    let step = jit(grad(|x: &Array| sum(checkpoint(block).call(x).unwrap())));
    assert_close(
        &values(&step.call(&x).unwrap()),
        &want,
        "jit(grad(checkpoint))",
    );
    let text = step.lower(&x).unwrap().as_text();
    assert!(text.contains("stablehlo.optimization_barrier"), "{text}");
    // sin(x) and sin(sin(x)) forward, and sin(x) again in the backward sweep.
    assert!(text.matches("stablehlo.sine").count() > 2, "{text}");
    let wrapped = jit(|x: &Array| {
        grad(|x: &Array| sum(checkpoint(|x: &Array| block(x)).call(x).unwrap()))
            .call(x)
            .unwrap()
    });
    assert_eq!(text, wrapped.lower(&x).unwrap().as_text());
}

#[test]
fn an_inner_failure_reaches_the_outer_call() {
    // grad's TypeError for an integer leaf, from inside jit.
    let f = jit(grad(|(x, n): &(Array, Array)| {
        x * &np::astype(n, DType::F32)
    }));
    let err = f
        .call(&(Array::scalar(2.0f32), Array::scalar(3i32)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("requires real- or complex-valued inputs") && err.contains("int32"),
        "{err}"
    );
    assert!(err.contains("`args[1]`"), "{err}");
    assert_eq!(f.trace_count(), 0, "a failed trace is not counted");
    // The same function still runs on float arguments.
    let (dx, dn) = f
        .call(&(Array::scalar(2.0f32), Array::scalar(3.0f32)))
        .unwrap();
    assert_eq!((values(&dx), values(&dn)), (vec![3.0], vec![2.0]));

    // A user error three transformations deep.
    let checked = fallible(|x: &Array| {
        if x.ndim() != 1 {
            return Err(Error::Host(format!(
                "expected a vector, got {:?}",
                x.shape()
            )));
        }
        Ok(np::sum(&(x * x), None, false))
    });
    let f = jit(vmap(grad(checked)));
    let err = f
        .call(&data(&[1.0; 8], &[2, 2, 2]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("expected a vector, got [2, 2]"), "{err}");
    let g = f.call(&data(&[1.0, 2.0, 3.0, 4.0], &[2, 2])).unwrap();
    assert_eq!(values(&g), vec![2.0, 4.0, 6.0, 8.0]);

    // A shape error of an op inside vmap(jit(f)).
    let f = vmap(jit(|x: &Array| np::reshape(x, &[5])));
    let err = f.call(&data(&[1.0; 8], &[2, 4])).unwrap_err().to_string();
    assert!(err.contains("reshape"), "{err}");
}

#[test]
fn rules_pullbacks_and_linear_maps_are_functions_too() {
    // grad of a custom_jvp function, without a closure around its call.
    let log1pexp = custom_jvp(
        |x: &Array| np::log1p(&np::exp(x)),
        |x: &Array, t: &Array| {
            let y = np::log1p(&np::exp(x));
            (y, t * &np::reciprocal(&(&np::exp(&-x) + 1.0)))
        },
    );
    let g = jit(vmap(grad(log1pexp)));
    let got = values(&g.call(&data(&[0.0, 100.0], &[2])).unwrap());
    assert_eq!(got, vec![0.5, 1.0], "the rule, not nan");

    // A pullback and a linearised map, compiled.
    let x = data(&[0.5, 2.0], &[2]);
    let (y, pullback) = vjp(|x: &Array| np::sin(x), &x).unwrap();
    let ct = data(&[1.0, 10.0], &[2]);
    let eager = values(&pullback.call(&ct).unwrap());
    assert_close(&eager, &[0.5f32.cos(), 10.0 * 2.0f32.cos()], "pullback");
    assert_eq!(values(&jit(pullback).call(&ct).unwrap()), eager);
    let (_, f_jvp) = linearize(|x: &Array| np::sin(x), &x).unwrap();
    assert_eq!(values(&jit(f_jvp).call(&ct).unwrap()), eager);
    assert_close(&values(&y), &[0.5f32.sin(), 2.0f32.sin()], "vjp value");
    // jvp of a jitted function.
    let (y2, t) = jvp(jit(|x: &Array| np::sin(x)), &x, &ct).unwrap();
    assert_eq!((values(&y2), values(&t)), (values(&y), eager));
}

#[test]
fn generic_code_takes_any_function() {
    fn apply_twice<F: Function<Array, Output = Array>>(
        f: &F,
        x: &Array,
    ) -> systolic::Result<Array> {
        f.call(&f.call(x)?)
    }
    let x = Array::scalar(3.0f32);
    let double = |x: &Array| x * 2.0;
    assert_eq!(values(&apply_twice(&double, &x).unwrap()), vec![12.0]);
    assert_eq!(values(&apply_twice(&jit(double), &x).unwrap()), vec![12.0]);
    let d = grad(|x: &Array| x * x);
    assert_eq!(values(&apply_twice(&d, &x).unwrap()), vec![12.0]);
}

#[test]
fn references_share_one_transformation() {
    let traced = Cell::new(0);
    let f = |x: &Array| {
        traced.set(traced.get() + 1);
        sin_x(x)
    };
    let g = jit(grad(f));
    let x = data(&[0.5, 1.0], &[2]);
    let direct = values(&g.call(&x).unwrap());
    assert_eq!((g.trace_count(), traced.get()), (1, 1));
    // Inside another transformation g is inlined: its cache is not touched, f is traced again
    // for the outer program.
    let rows = data(&[0.5, 1.0, -0.5, 2.0], &[2, 2]);
    let per_row = jit(vmap(&g));
    let got = values(&per_row.call(&rows).unwrap());
    assert_close(&got[..2], &direct, "row 0");
    assert_close(&got[2..], &d_sin_x(&[-0.5, 2.0]), "row 1");
    assert_eq!(
        (g.trace_count(), per_row.trace_count(), traced.get()),
        (1, 1, 2)
    );
    // And g still runs from its cache.
    assert_eq!(values(&g.call(&x).unwrap()), direct);
    assert_eq!((g.trace_count(), traced.get()), (1, 2));
}
