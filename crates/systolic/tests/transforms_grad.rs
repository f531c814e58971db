//! `stop_gradient`, `argnums` and the integer-input check of `grad` (issue 18), each eagerly,
//! under `jit` and under `vmap`, against hand-derived derivatives and central differences.

use systolic::{grad, jit, jvp, lax, numpy as np, value_and_grad, vmap, Arg, Array, Axes, Tree};
use systolic_ir::DType;

fn v(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn stop_gradient_blocks_reverse_and_forward_mode_under_jit_and_vmap() {
    // f(x) = sum(x² · sg(x)): ∂f/∂x = 2x · x (the sg factor is a constant).
    let f = |x: &Array| np::sum(&(&(x * x) * &lax::stop_gradient(x)), None, false);
    let x = Array::from_vec(vec![1.0f32, -2.0, 0.5], &[3]);
    let want: Vec<f32> = v(&x).iter().map(|x| 2.0 * x * x).collect();
    close(&v(&grad(f).call(&x).unwrap()), &want, 1e-6);
    let jg = jit(move |x: &Array| grad(f).call(x).unwrap());
    close(&v(&jg.call(&x).unwrap()), &want, 1e-6);
    // Per-example gradients of a scalar function under vmap.
    let per = vmap(|x: &Array| {
        grad(|y: &Array| &(y * y) * &lax::stop_gradient(y))
            .call(x)
            .unwrap()
    });
    close(&v(&per.call(&x).unwrap()), &want, 1e-6);
    // The value itself is untouched, and so are integers.
    let n = Array::from_vec(vec![3i32, 4], &[2]);
    assert_eq!(
        jit(|n: &Array| lax::stop_gradient(n))
            .call(&n)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![3, 4]
    );
    // Forward mode: the tangent through sg is zero.
    let (_, t) = jvp(
        |x: &Array| lax::stop_gradient(&np::sin(x)),
        &x,
        &np::ones(&[3], DType::F32),
    )
    .unwrap();
    assert_eq!(v(&t), vec![0.0; 3]);
    // grad of grad: d²/dx² [x³ · sg(x)]... the outer derivative also sees sg(x) as constant:
    // d/dx (3x² · x) with the inner sg → 6x · x... computed: inner grad is 3x²·sg(x), outer 6x·sg(x).
    let d2 = grad(|x: &Array| {
        grad(|y: &Array| &(&(y * y) * y) * &lax::stop_gradient(y))
            .call(x)
            .unwrap()
    });
    close(&v(&d2.call(&Array::scalar(2.0f32)).unwrap()), &[24.0], 1e-6);
}

#[test]
fn stop_gradient_keeps_weak_types() {
    let out = jit(|x: &Array| lax::stop_gradient(&(x * 2.0)))
        .call(&systolic::weak_float(1.0))
        .unwrap();
    assert!(out.weak_type());
}

#[test]
fn integer_leaves_are_a_type_error_naming_the_leaf() {
    #[derive(Tree, Clone)]
    struct P {
        w: Array,
        steps: Array,
    }
    let p = P {
        w: Array::from_vec(vec![1.0f32, 2.0], &[2]),
        steps: Array::scalar(7i32),
    };
    let loss = |p: &P| np::sum(&(&p.w * &p.w), None, false);
    let err = grad(loss).call(&p).err().expect("an error").to_string();
    assert!(
        err.starts_with("grad: grad requires real- or complex-valued inputs"),
        "{err}"
    );
    assert!(
        err.contains("int32") && err.contains("`args.steps`") && err.contains("allow_int"),
        "{err}"
    );
    // Under jit the same error reaches the caller through the traced function's panic-free path.
    let err = value_and_grad(loss)
        .call(&p)
        .err()
        .expect("an error")
        .to_string();
    assert!(
        err.contains("value_and_grad requires real- or complex-valued inputs"),
        "{err}"
    );
    // Booleans too.
    let b = (Array::scalar(1.0f32), Array::scalar(true));
    assert!(grad(|(x, _): &(Array, Array)| x.clone())
        .call(&b)
        .unwrap_err()
        .to_string()
        .contains("bool"));
    // allow_int: zero of the leaf's own dtype.
    let g = grad(loss).allow_int(true).call(&p).unwrap();
    assert_eq!(v(&g.w), vec![2.0, 4.0]);
    assert_eq!(g.steps.dtype(), DType::I32);
    assert_eq!(g.steps.to_vec::<i32>().unwrap(), vec![0]);
}

#[test]
fn argnums_selects_tuple_elements_and_holds_the_rest_fixed() {
    #[derive(Tree, Clone)]
    struct Params {
        w: Array,
        b: Array,
    }
    // (params, x, y, mask:int) → mean squared error; argnums=0 and argnums=(0, 1).
    let loss = |(p, x, y, n): &(Params, Array, Array, Array)| {
        let pred = &np::matmul(x, &p.w) + &p.b;
        let r = &pred - y;
        &np::sum(&(&r * &r), None, false) / &np::astype(n, DType::F32)
    };
    let p = Params {
        w: Array::from_vec(vec![0.5f32, -1.0], &[2]),
        b: Array::scalar(0.25f32),
    };
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, -1.0, 0.0, 1.0], &[3, 2]);
    let y = Array::from_vec(vec![1.0f32, 0.0, -1.0], &[3]);
    let n = Array::scalar(3i32);
    let args = (p.clone(), x.clone(), y.clone(), n.clone());
    // The int leaf is not selected, so no error; the gradient is of the params only.
    let gp: Params = grad(loss).argnums(Arg::<0>).call(&args).unwrap();
    // By hand: r = x·w + b - y; dL/dw = 2 xᵀ r / n, dL/db = 2 Σ r / n.
    let xs = v(&x);
    let (w0, w1, b) = (0.5f32, -1.0f32, 0.25f32);
    let r: Vec<f32> = (0..3)
        .map(|i| xs[2 * i] * w0 + xs[2 * i + 1] * w1 + b - v(&y)[i])
        .collect();
    let dw0 = 2.0 * (0..3).map(|i| xs[2 * i] * r[i]).sum::<f32>() / 3.0;
    let dw1 = 2.0 * (0..3).map(|i| xs[2 * i + 1] * r[i]).sum::<f32>() / 3.0;
    let db = 2.0 * r.iter().sum::<f32>() / 3.0;
    close(&v(&gp.w), &[dw0, dw1], 1e-5);
    close(&v(&gp.b), &[db], 1e-5);
    // Two selections, in the order asked for (JAX returns them in argnums' order).
    let (gy, gp2) = grad(loss)
        .argnums((Arg::<2>, Arg::<0>))
        .call(&args)
        .unwrap();
    let gy_want: Vec<f32> = r.iter().map(|r| -2.0 * r / 3.0).collect();
    close(&v(&gy), &gy_want, 1e-5);
    close(&v(&gp2.w), &[dw0, dw1], 1e-5);
    // Under jit, with the value.
    let step = jit(move |args: &(Params, Array, Array, Array)| {
        grad(loss).argnums(Arg::<0>).value_and_grad(args).unwrap()
    });
    let (l, gj) = step.call(&args).unwrap();
    close(&v(&l), &[r.iter().map(|r| r * r).sum::<f32>() / 3.0], 1e-5);
    close(&v(&gj.w), &[dw0, dw1], 1e-5);
    // Selecting the int element is the type error.
    let err = grad(loss)
        .argnums(Arg::<3>)
        .call(&args)
        .unwrap_err()
        .to_string();
    assert!(err.contains("int32") && err.contains("`args[3]`"), "{err}");
}

#[test]
fn argnums_gradients_match_central_differences() {
    let f =
        |(a, b, c): &(Array, Array, Array)| np::sum(&(&np::sin(&(a * b)) + &(c * a)), None, false);
    let a = Array::from_vec(vec![0.3f64, -0.7], &[2]);
    let b = Array::from_vec(vec![1.1f64, 0.4], &[2]);
    let c = Array::from_vec(vec![2.0f64, -1.0], &[2]);
    let (gc, ga) = grad(f)
        .argnums((Arg::<2>, Arg::<0>))
        .call(&(a.clone(), b.clone(), c.clone()))
        .unwrap();
    let eval = |a: &Array, c: &Array| {
        f(&(a.clone(), b.clone(), c.clone()))
            .to_vec::<f64>()
            .unwrap()[0]
    };
    let h = 1e-6;
    for i in 0..2 {
        let bump = |x: &Array, d: f64| {
            let mut xs = x.to_vec::<f64>().unwrap();
            xs[i] += d;
            Array::from_vec(xs, &[2])
        };
        let da = (eval(&bump(&a, h), &c) - eval(&bump(&a, -h), &c)) / (2.0 * h);
        let dc = (eval(&a, &bump(&c, h)) - eval(&a, &bump(&c, -h))) / (2.0 * h);
        assert!((ga.to_vec::<f64>().unwrap()[i] - da).abs() < 1e-6);
        assert!((gc.to_vec::<f64>().unwrap()[i] - dc).abs() < 1e-6);
    }
}

#[test]
fn vmap_in_axes_as_a_tree_prefix_over_params_and_a_batch() {
    #[derive(Tree, Clone)]
    struct Params {
        w: Array,
        b: Array,
    }
    let p = Params {
        w: Array::from_vec(vec![1.0f32, -1.0, 0.5], &[3]),
        b: Array::scalar(0.25f32),
    };
    let xs = Array::from_vec(vec![1.0f32, 2.0, 3.0, 0.0, 1.0, 0.0], &[2, 3]);
    let ys = Array::from_vec(vec![1.0f32, -1.0], &[2]);
    // Per-example gradients of a squared error: JAX's vmap(grad(loss), in_axes=(None, 0, 0)).
    let loss = |(p, x, y): &(Params, Array, Array)| {
        let r = &(&np::sum(&(&p.w * x), None, false) + &p.b) - y;
        &r * &r
    };
    let per = vmap(|a: &(Params, Array, Array)| grad(loss).argnums(Arg::<0>).call(a).unwrap())
        .in_axes((None, 0, 0));
    let g = per.call(&(p.clone(), xs.clone(), ys.clone())).unwrap();
    assert_eq!(g.w.shape(), &[2, 3]);
    assert_eq!(g.b.shape(), &[2]);
    // By hand: r0 = 1-2+1.5+.25-1 = -0.25, r1 = -1+.25+1 = 0.25; dw = 2 r x, db = 2 r.
    assert_eq!(v(&g.w), vec![-0.5, -1.0, -1.5, 0.0, 0.5, 0.0]);
    assert_eq!(v(&g.b), vec![-0.5, 0.5]);
    // Nested prefixes, and out_axes as a prefix of the output tree.
    let f = vmap(|(p, x): &(Params, Array)| (&p.w * x, p.b.clone()))
        .in_axes((
            Axes::Prefix(vec![Axes::All(Some(0)), Axes::All(None)]),
            Some(0),
        ))
        .out_axes((Some(1), None));
    let ws = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let (wx, b) = f
        .call(&(
            Params {
                w: ws,
                b: Array::scalar(2.0f32),
            },
            xs.clone(),
        ))
        .unwrap();
    assert_eq!(wx.shape(), &[3, 2]);
    assert_eq!(v(&b), vec![2.0]);
    // A prefix of the wrong length names the tree.
    let err = vmap(|(_, x, _): &(Params, Array, Array)| x.clone())
        .in_axes((None, 0))
        .call(&(p, xs, ys))
        .expect_err("an error")
        .to_string();
    assert!(
        err.contains("in_axes is a prefix of 2 entries") && err.contains("3 children"),
        "{err}"
    );
}
