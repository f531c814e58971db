//! `custom_jvp` and `custom_vjp` (issue 18, item 3): the classic examples, rules checked
//! against central differences of the function they stand for, and the rules used under
//! `jit`, `vmap` (outside and inside `grad`) and for second derivatives.

use systolic::{custom_jvp, custom_vjp, grad, jacfwd, jacrev, jit, jvp, numpy as np, vmap, Array};
use systolic_ir::DType;

fn v32(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn v64(a: &Array) -> Vec<f64> {
    a.to_vec::<f64>().unwrap()
}

fn softplus(x: &Array) -> Array {
    np::log1p(&np::exp(x))
}

/// log(1 + eˣ) with the stable derivative 1 - 1/(1 + eˣ) = σ(x). (Written with sigmoid: `f64
/// array + 1.0` gives float32 at this commit, a promotion bug outside this test.)
fn log1pexp_rule(x: &Array, t: &Array) -> (Array, Array) {
    (softplus(x), t * &np::sigmoid(x))
}

/// Central differences of a scalar function of a vector, in f64.
fn numeric_grad(f: impl Fn(&Array) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let mut a = x.to_vec();
            let mut b = x.to_vec();
            a[i] += h;
            b[i] -= h;
            let n = x.len() as i64;
            (f(&Array::from_vec(a, &[n])) - f(&Array::from_vec(b, &[n]))) / (2.0 * h)
        })
        .collect()
}

#[test]
fn custom_jvp_log1pexp_is_stable_and_matches_numerical_gradients() {
    let f = custom_jvp(softplus, log1pexp_rule);
    let loss = |x: &Array| np::sum(&(&f.call(x).unwrap() * x), None, false);
    // f32 at large x: the chain rule gives nan, the rule 1.
    let big = Array::from_vec(vec![100.0f32, -100.0], &[2]);
    let g = v32(&grad(|x: &Array| np::sum(&f.call(x).unwrap(), None, false))
        .call(&big)
        .unwrap());
    assert_eq!(g, vec![1.0, 0.0]);
    let naive = v32(&grad(|x: &Array| np::sum(&softplus(x), None, false))
        .call(&big)
        .unwrap());
    assert!(
        naive[0].is_nan(),
        "the test needs the chain rule to fail here: {naive:?}"
    );
    // f64 in the ordinary range: equal to central differences of the primal.
    let xs = [0.3, -1.7, 2.5];
    let x = Array::from_vec(xs.to_vec(), &[3]);
    let want = numeric_grad(|x| v64(&np::sum(&(&softplus(x) * x), None, false))[0], &xs);
    for (mode, got) in [
        ("grad", v64(&grad(loss).call(&x).unwrap())),
        (
            "jit(grad)",
            v64(&jit(move |x: &Array| grad(loss).call(x).unwrap())
                .call(&x)
                .unwrap()),
        ),
        ("jacrev", v64(&jacrev(loss).call(&x).unwrap())),
        ("jacfwd", v64(&jacfwd(loss).call(&x).unwrap())),
    ] {
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-6, "{mode}: {got:?} vs {want:?}");
        }
    }
    // Forward mode uses the rule directly.
    let (_, t) = jvp(
        |x: &Array| f.call(x).unwrap(),
        &Array::scalar(100.0f32),
        &Array::scalar(2.0f32),
    )
    .unwrap();
    assert_eq!(v32(&t), vec![2.0]);
}

#[test]
fn custom_jvp_second_derivatives_differentiate_the_rule() {
    // d²/dx² softplus = σ(x)(1-σ(x)); the rule's derivative gives it.
    let f = custom_jvp(softplus, log1pexp_rule);
    let d2 = grad(|x: &Array| grad(|y: &Array| f.call(y).unwrap()).call(x).unwrap());
    for x in [0.0f64, 1.5, -2.0] {
        let s = 1.0 / (1.0 + (-x).exp());
        let got = v64(&d2.call(&Array::scalar(x)).unwrap())[0];
        assert!((got - s * (1.0 - s)).abs() < 1e-9, "{x}: {got}");
    }
}

#[test]
fn custom_jvp_under_vmap_outside_grad_gives_per_example_gradients() {
    let f = custom_jvp(softplus, log1pexp_rule);
    let per = vmap(|x: &Array| grad(|y: &Array| f.call(y).unwrap()).call(x).unwrap());
    let got = v32(&per
        .call(&Array::from_vec(vec![0.0f32, 100.0, -3.0], &[3]))
        .unwrap());
    let s = 1.0 / (1.0 + 3.0f32.exp());
    assert_eq!(got[..2], [0.5, 1.0]);
    assert!((got[2] - s).abs() < 1e-6);
}

#[test]
fn custom_vjp_clip_gradient_under_jit_and_vmap() {
    let clip = custom_vjp(
        |x: &Array| x.clone(),
        |x: &Array| (x.clone(), ()),
        |_: &(), g: &Array| np::clip(g, &Array::scalar(-1.0f32), &Array::scalar(1.0f32)),
    );
    let loss = |x: &Array| {
        np::sum(
            &(&clip.call(x).unwrap() * &Array::from_vec(vec![3.0f32, -0.5], &[2])),
            None,
            false,
        )
    };
    let x = Array::from_vec(vec![2.0f32, -5.0], &[2]);
    assert_eq!(v32(&grad(loss).call(&x).unwrap()), vec![1.0, -0.5]);
    assert_eq!(
        v32(&jit(move |x: &Array| grad(loss).call(x).unwrap())
            .call(&x)
            .unwrap()),
        vec![1.0, -0.5]
    );
    // The value is the primal's, under jit too.
    assert_eq!(
        v32(&jit(|x: &Array| clip.call(x).unwrap()).call(&x).unwrap()),
        vec![2.0, -5.0]
    );
    let per = vmap(|x: &Array| {
        grad(|y: &Array| &clip.call(y).unwrap() * 4.0)
            .call(x)
            .unwrap()
    });
    assert_eq!(v32(&per.call(&x).unwrap()), vec![1.0, 1.0]);
    // Forward mode is refused, as in JAX.
    let err = jvp(|x: &Array| clip.call(x).unwrap(), &x, &x)
        .expect_err("an error")
        .to_string();
    assert!(
        err.contains("custom_vjp") && err.contains("forward mode"),
        "{err}"
    );
}

#[test]
fn custom_vjp_with_residuals_and_two_arguments_matches_numerical_gradients() {
    // f(a, b) = sin(a)·b with a hand-written VJP keeping cos(a) as the residual.
    let f = custom_vjp(
        |(a, b): &(Array, Array)| &np::sin(a) * b,
        |(a, b): &(Array, Array)| (&np::sin(a) * b, (np::cos(a), np::sin(a), b.clone())),
        |(cos_a, sin_a, b): &(Array, Array, Array), g: &Array| (&(g * b) * cos_a, g * sin_a),
    );
    let loss = |(a, b): &(Array, Array)| {
        np::sum(
            &np::square(&f.call(&(a.clone(), b.clone())).unwrap()),
            None,
            false,
        )
    };
    let (av, bv) = ([0.4, -1.1, 2.0], [1.5, 0.3, -0.7]);
    let a = Array::from_vec(av.to_vec(), &[3]);
    let b = Array::from_vec(bv.to_vec(), &[3]);
    let (ga, gb) = grad(loss).call(&(a.clone(), b.clone())).unwrap();
    let exact =
        |a: &Array, b: &Array| v64(&np::sum(&np::square(&(&np::sin(a) * b)), None, false))[0];
    let wa = numeric_grad(|a| exact(a, &b), &av);
    let wb = numeric_grad(|b| exact(&a, b), &bv);
    for (g, w) in v64(&ga).iter().zip(&wa).chain(v64(&gb).iter().zip(&wb)) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
    // A backward rule returning the wrong types is an error naming both.
    let bad = custom_vjp(
        |x: &Array| x.clone(),
        |x: &Array| (x.clone(), ()),
        |_: &(), g: &Array| np::astype(g, DType::F64),
    );
    // (Seen from inside a trace, where the rule is staged.)
    let seen = std::cell::RefCell::new(String::new());
    let traced = jit(|x: &Array| match bad.call(x) {
        Ok(y) => y,
        Err(e) => {
            *seen.borrow_mut() = e.to_string();
            x.clone()
        }
    });
    traced.call(&Array::scalar(1.0f32)).unwrap();
    let err = seen.into_inner();
    assert!(
        err.contains("backward rule") && err.contains("float64"),
        "{err}"
    );
}

#[test]
fn custom_jvp_rule_survives_vmap_inside_grad() {
    // grad(vmap(f)): the batched function carries the batched rule, so large x stays finite.
    let f = custom_jvp(softplus, log1pexp_rule);
    let x = Array::from_vec(vec![0.0f32, 100.0, -3.0, 50.0], &[4]);
    let loss = |x: &Array| {
        np::sum(
            &vmap(|e: &Array| f.call(e).unwrap()).call(x).unwrap(),
            None,
            false,
        )
    };
    let outer = v32(&grad(loss).call(&x).unwrap());
    let per = v32(
        &vmap(|e: &Array| grad(|y: &Array| f.call(y).unwrap()).call(e).unwrap())
            .call(&x)
            .unwrap(),
    );
    let jitted = v32(&jit(move |x: &Array| grad(loss).call(x).unwrap())
        .call(&x)
        .unwrap());
    assert!(outer.iter().all(|g| g.is_finite()), "{outer:?}");
    assert_eq!(outer[1], 1.0);
    assert_eq!(outer, per);
    assert_eq!(jitted, per);
    // Nested vmaps batch the already batched rule again.
    let x2 = Array::from_vec(vec![0.0f32, 100.0, -3.0, 50.0, 80.0, 1.0], &[2, 3]);
    let twice = v32(&grad(|x: &Array| {
        let inner = |r: &Array| vmap(|e: &Array| f.call(e).unwrap()).call(r).unwrap();
        np::sum(&vmap(inner).call(x).unwrap(), None, false)
    })
    .call(&x2)
    .unwrap());
    let per2 = v32(
        &vmap(|e: &Array| grad(|y: &Array| f.call(y).unwrap()).call(e).unwrap())
            .call(&np::reshape(&x2, &[6]))
            .unwrap(),
    );
    assert_eq!(twice, per2);
    // The chain rule through the primal (what grad(vmap(f)) computed before) is nan there.
    let naive = v32(
        &grad(|x: &Array| np::sum(&vmap(softplus).call(x).unwrap(), None, false))
            .call(&x)
            .unwrap(),
    );
    assert!(naive[1].is_nan(), "{naive:?}");
}

#[test]
fn custom_vjp_clip_gradient_survives_vmap_inside_grad() {
    let clip = custom_vjp(
        |x: &Array| x.clone(),
        |x: &Array| (x.clone(), ()),
        |_: &(), g: &Array| np::clip(g, &Array::scalar(-1.0f32), &Array::scalar(1.0f32)),
    );
    let x = Array::from_vec(vec![2.0f32, -5.0, 0.5], &[3]);
    let loss = |x: &Array| {
        np::sum(
            &vmap(|e: &Array| &clip.call(e).unwrap() * 4.0)
                .call(x)
                .unwrap(),
            None,
            false,
        )
    };
    let outer = v32(&grad(loss).call(&x).unwrap());
    assert_eq!(outer, vec![1.0, 1.0, 1.0]); // 4 clipped to 1
    let per = v32(&vmap(|e: &Array| {
        grad(|y: &Array| &clip.call(y).unwrap() * 4.0)
            .call(e)
            .unwrap()
    })
    .call(&x)
    .unwrap());
    assert_eq!(outer, per);
    let jitted = v32(&jit(move |x: &Array| grad(loss).call(x).unwrap())
        .call(&x)
        .unwrap());
    assert_eq!(jitted, per);
    // The value is the primal's.
    assert_eq!(
        v32(&vmap(|e: &Array| clip.call(e).unwrap()).call(&x).unwrap()),
        vec![2.0, -5.0, 0.5]
    );
}

#[test]
fn custom_vjp_under_vmap_inside_grad_sums_an_unmapped_argument() {
    // f(a, b) = sin(a)·b mapped over a's rows with b shared (in_axes (0, None)): b's gradient
    // sums the examples' cotangents; both equal central differences of the primal.
    let f = custom_vjp(
        |(a, b): &(Array, Array)| &np::sin(a) * b,
        |(a, b): &(Array, Array)| (&np::sin(a) * b, (np::cos(a), np::sin(a), b.clone())),
        |(cos_a, sin_a, b): &(Array, Array, Array), g: &Array| (&(g * b) * cos_a, g * sin_a),
    );
    // A captured array, read by the backward rule: held fixed and left unbatched.
    let scale = Array::from_vec(vec![2.0f64], &[]);
    let loss = |(a, b): &(Array, Array)| {
        let y = vmap(|ab: &(Array, Array)| f.call(ab).unwrap())
            .in_axes((0, None))
            .call(&(a.clone(), b.clone()))
            .unwrap();
        np::sum(&np::square(&(&y * &scale)), None, false)
    };
    let (av, bv) = ([0.4, -1.1, 2.0, 0.7, -0.2, 1.3], [1.5, 0.3, -0.7]);
    let a = Array::from_vec(av.to_vec(), &[2, 3]);
    let b = Array::from_vec(bv.to_vec(), &[3]);
    let (ga, gb) = grad(loss).call(&(a.clone(), b.clone())).unwrap();
    assert_eq!(ga.shape(), &[2, 3]);
    assert_eq!(gb.shape(), &[3]);
    let exact = |a: &Array, b: &Array| {
        v64(&np::sum(
            &np::square(&(&(&np::sin(a) * b) * 2.0)),
            None,
            false,
        ))[0]
    };
    let reshape = |a: &Array| np::reshape(a, &[2, 3]);
    let wa = numeric_grad(|a| exact(&reshape(a), &b), &av);
    let wb = numeric_grad(|b| exact(&a, b), &bv);
    for (g, w) in v64(&ga).iter().zip(&wa).chain(v64(&gb).iter().zip(&wb)) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
}
