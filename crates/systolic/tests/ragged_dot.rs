//! `lax::ragged_dot` against JAX 0.10.2 (`tests/data/ragged_dot_jax0.10.2.json`, made by
//! `scripts/ragged_dot_goldens.py`): the grouped product, the gradients of a weighted
//! `sin` of it (the autodiff crate's transposes of `chlo.ragged_dot`) and their derivative
//! along a direction (`jvp` of `grad`, the product rule on the transposed products), eagerly
//! and under `jit`; the gradient against central differences; the shape errors; `vmap`'s
//! refusal.

use crate::golden_util::input;
use systolic::{grad, jit, jvp, lax, numpy as np, vmap, Array};

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/ragged_dot_jax0.10.2.json")).unwrap())
}

fn case(name: &str) -> (Vec<Array>, Vec<Array>) {
    let c = &golden()["cases"][name];
    let read = |k: &str| -> Vec<Array> { c[k].as_array().unwrap().iter().map(input).collect() };
    (read("inputs"), read("outputs"))
}

fn values(a: &Array) -> Vec<f64> {
    a.to_tensor().unwrap().to_f64_vec()
}

fn close(got: &Array, want: &Array, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    for (i, (a, b)) in values(got).iter().zip(values(want)).enumerate() {
        assert!(
            (a - b).abs() <= 2e-5 * b.abs().max(1.0),
            "{what}[{i}]: {a} vs JAX {b}"
        );
    }
}

/// `Σ c·sin(ragged_dot(lhs, rhs))`, the script's loss.
fn loss(lr: &(Array, Array), sizes: &Array, c: &Array) -> Array {
    let y = lax::ragged_dot(&lr.0, &lr.1, sizes);
    np::sum(&np::multiply(c, &np::sin(&y)), None, false)
}

/// The gradients and their derivative along `(dl, dr)`.
fn grads_and_hvp(
    x: &(Array, Array),
    d: &(Array, Array),
    sizes: &Array,
    c: &Array,
) -> ((Array, Array), (Array, Array)) {
    let (sizes, c) = (sizes.clone(), c.clone());
    jvp(grad(move |lr: &(Array, Array)| loss(lr, &sizes, &c)), x, d).unwrap()
}

const CASES: [&str; 4] = [
    "three_groups",
    "empty_group_and_rows_in_none",
    "one_group",
    "many_groups",
];

#[test]
fn ragged_dot_and_its_derivatives_match_jax() {
    assert_eq!(golden()["cases"].as_object().unwrap().len(), CASES.len());
    for name in CASES {
        let (x, want) = case(name);
        let (lhs, rhs, sizes, c) = (&x[0], &x[1], &x[2], &x[3]);
        let primal = (lhs.clone(), rhs.clone());
        let dir = (x[4].clone(), x[5].clone());
        close(
            &lax::ragged_dot(lhs, rhs, sizes),
            &want[0],
            &format!("{name} value"),
        );
        let y = jit(|a: &(Array, Array, Array)| lax::ragged_dot(&a.0, &a.1, &a.2))
            .call(&(lhs.clone(), rhs.clone(), sizes.clone()))
            .unwrap();
        close(&y, &want[0], &format!("{name} value (jit)"));
        let (s2, c2) = (sizes.clone(), c.clone());
        let eager = grads_and_hvp(&primal, &dir, sizes, c);
        let jitted =
            jit(move |(p, d): &((Array, Array), (Array, Array))| grads_and_hvp(p, d, &s2, &c2))
                .call(&(primal.clone(), dir.clone()))
                .unwrap();
        for (how, ((gl, gr), (hl, hr))) in [("eager", eager), ("jit", jitted)] {
            close(&gl, &want[2], &format!("{name} ({how}) d lhs"));
            close(&gr, &want[3], &format!("{name} ({how}) d rhs"));
            close(&hl, &want[4], &format!("{name} ({how}) jvp of d lhs"));
            close(&hr, &want[5], &format!("{name} ({how}) jvp of d rhs"));
        }
        close(&loss(&primal, sizes, c), &want[1], &format!("{name} loss"));
    }
}

/// The gradient against central differences of the loss in f64 (the transposes, independent
/// of JAX): `⟨∇L, d⟩` versus `(L(x + h·d) − L(x − h·d)) / 2h`.
#[test]
fn ragged_dot_gradient_matches_finite_differences() {
    for name in CASES {
        let (x, _) = case(name);
        let f64s = |a: &Array| np::astype(a, systolic::DType::F64);
        let p = (f64s(&x[0]), f64s(&x[1]));
        let d = (f64s(&x[4]), f64s(&x[5]));
        let (sizes, c) = (x[2].clone(), f64s(&x[3]));
        let (s2, c2) = (sizes.clone(), c.clone());
        let (gl, gr) = grad(move |lr: &(Array, Array)| loss(lr, &s2, &c2))
            .call(&p)
            .unwrap();
        let dot = |a: &Array, b: &Array| -> f64 {
            values(a).iter().zip(values(b)).map(|(x, y)| x * y).sum()
        };
        let predicted = dot(&gl, &d.0) + dot(&gr, &d.1);
        let h = 1e-6;
        let at = |s: f64| {
            let moved = (
                np::add(&p.0, &np::multiply(&d.0, &Array::scalar(s * h))),
                np::add(&p.1, &np::multiply(&d.1, &Array::scalar(s * h))),
            );
            values(&loss(&moved, &sizes, &c))[0]
        };
        let fd = (at(1.0) - at(-1.0)) / (2.0 * h);
        assert!(
            (predicted - fd).abs() <= 1e-7 * fd.abs().max(1.0),
            "{name}: gradient·d = {predicted}, differences {fd}"
        );
    }
}

#[test]
fn ragged_dot_refuses_misfitting_shapes_naming_them() {
    let lhs = Array::from_vec(vec![0.0f32; 12], &[4, 3]);
    let rhs = Array::from_vec(vec![0.0f32; 24], &[2, 3, 4]);
    let sizes = Array::from_vec(vec![2i32, 2], &[2]);
    let err = |a: &Array, b: &Array, s: &Array| {
        lax::ragged_dot(a, b, s)
            .check()
            .expect_err("an error")
            .to_string()
    };
    let e = err(&lhs, &Array::from_vec(vec![0.0f32; 16], &[2, 2, 4]), &sizes);
    assert!(
        e.contains("ragged_dot") && e.contains("share k") && e.contains("[2,2,4]"),
        "{e}"
    );
    let e = err(&lhs, &rhs, &Array::from_vec(vec![1i32, 1, 2], &[3]));
    assert!(e.contains("one size per group") && e.contains("[3]"), "{e}");
    let e = err(&lhs, &rhs, &Array::from_vec(vec![2.0f32, 2.0], &[2]));
    assert!(e.contains("must be integers"), "{e}");
    let e = err(&np::ravel(&lhs), &rhs, &sizes);
    assert!(e.contains("expected lhs [m, k]"), "{e}");
    assert!(lax::ragged_dot(&lhs, &rhs, &sizes).check().is_ok());
}

/// `vmap` has no batching rule for `chlo.ragged_dot` yet: an error naming the op, not a
/// wrong result.
#[test]
fn vmap_of_ragged_dot_is_a_clear_error() {
    let lhs = Array::from_vec(vec![1.0f32; 24], &[2, 4, 3]);
    let rhs = Array::from_vec(vec![1.0f32; 24], &[2, 3, 4]);
    let sizes = Array::from_vec(vec![2i32, 2], &[2]);
    let e = vmap(move |l: &Array| lax::ragged_dot(l, &rhs, &sizes))
        .call(&lhs)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ragged_dot") && e.contains("batching rule"),
        "{e}"
    );
}
