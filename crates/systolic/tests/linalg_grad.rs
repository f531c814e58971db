//! Derivatives of `numpy::linalg` and `scipy::linalg` (the decompositions' `custom_jvp` rules)
//! against JAX 0.10.2: the value and gradients of a scalar loss per function
//! (`tests/data/linalg_grad_jax0.10.2.json`, made by `scripts/linalg_grad_goldens.py`; each
//! loss is invariant to the decomposition's sign freedoms), float32 and float64, eagerly and
//! under `jit`, one batched case each; `vmap(grad)` of the per-matrix loss against the batched
//! goldens; and the gradients against central finite differences of our own functions in f64.

use crate::golden_util::{assert_every_case_is_run, input, run_cases_with, value_failures, OpFn};
use systolic::numpy::linalg::{self, NormOrd};
use systolic::scipy::linalg as sl;
use systolic::{grad, jit, jvp, numpy as np, value_and_grad, vjp, vmap, Array};
use systolic_ir::DType;

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/linalg_grad_jax0.10.2.json")).unwrap())
}

fn s(x: &Array) -> Array {
    np::sum(x, None, false)
}

fn mul(a: &Array, b: &Array) -> Array {
    np::multiply(a, b)
}

fn sq(x: &Array) -> Array {
    mul(x, x)
}

/// The function a case name stands for, without its dtype and batch suffixes.
fn base(name: &str) -> &str {
    let name = name.strip_suffix("_batched").unwrap_or(name);
    name.strip_suffix("_f32")
        .or_else(|| name.strip_suffix("_f64"))
        .unwrap_or_else(|| panic!("case {name}"))
        .trim_end_matches("_batched")
}

/// How many leading inputs are differentiated.
pub(crate) fn n_diff(name: &str) -> usize {
    if base(name).ends_with("_ab") {
        2
    } else {
        1
    }
}

/// The loss of case `name` on its inputs (the script's loss, line for line).
pub(crate) fn loss(name: &str, x: &[Array]) -> Array {
    let a = &x[0];
    match base(name) {
        "eigh" => {
            let (w, v) = linalg::eigh(a);
            np::add(&s(&sq(&w)), &s(&mul(&x[1], &sq(&v))))
        }
        "scipy_eigh" => {
            let (w, v) = sl::eigh(a, true, false);
            np::add(&s(&sq(&w)), &s(&mul(&x[1], &sq(&v.unwrap()))))
        }
        "eigvalsh" => s(&mul(&linalg::eigvalsh(a), &x[1])),
        "svd_tall" | "svd_wide" => {
            let (u, sv, vh) = linalg::svd(a, false, true);
            let us = mul(&u.unwrap(), &np::expand_dims(&sq(&sv), -2));
            np::add(&s(&mul(&x[1], &np::matmul(&us, &vh.unwrap()))), &s(&sv))
        }
        "svd_square_full" => {
            let (u, sv, vh) = linalg::svd(a, true, true);
            let us = mul(&u.unwrap(), &np::expand_dims(&np::sin(&sv), -2));
            s(&mul(&x[1], &np::matmul(&us, &vh.unwrap())))
        }
        "svdvals" => s(&mul(&linalg::svd(a, false, false).1, &x[1])),
        "qr_reduced" | "qr_wide" | "qr_complete" | "scipy_qr_full" => {
            let (q, r) = match base(name) {
                "qr_complete" => linalg::qr(a, "complete"),
                "scipy_qr_full" => sl::qr(a, "full"),
                _ => linalg::qr(a, "reduced"),
            };
            np::add(&s(&mul(&x[1], &q.unwrap())), &s(&mul(&x[2], &r)))
        }
        "qr_r" => s(&mul(&x[1], &linalg::qr(a, "r").1)),
        "det" => s(&linalg::det(a)),
        "slogdet" => {
            let (sign, logdet) = linalg::slogdet(a);
            np::add(&s(&logdet), &s(&sign))
        }
        "solve_ab" | "solve_vec_ab" => s(&mul(&x[2], &linalg::solve(a, &x[1]))),
        "inv" => s(&mul(&x[1], &linalg::inv(a))),
        "pinv" | "pinv_wide" => s(&mul(&x[1], &linalg::pinv(a))),
        "lstsq_ab" | "lstsq_vec_ab" => {
            let (sol, resid, _, sv) = linalg::lstsq(a, &x[1], None);
            np::add(&np::add(&s(&mul(&x[2], &sol)), &s(&resid)), &s(&sv))
        }
        "matrix_power3" => s(&mul(&x[1], &linalg::matrix_power(a, 3))),
        "matrix_power_m2" => s(&mul(&x[1], &linalg::matrix_power(a, -2))),
        "scipy_lu" => {
            let (p, l, u) = sl::lu(a);
            np::add(&np::add(&s(&mul(&x[1], &l)), &s(&mul(&x[2], &u))), &s(&p))
        }
        "scipy_lu_solve_ab" | "scipy_lu_solve_t_ab" => {
            let (lu, piv) = sl::lu_factor(a);
            let trans = if base(name) == "scipy_lu_solve_ab" {
                0
            } else {
                1
            };
            s(&mul(&x[2], &sl::lu_solve((&lu, &piv), &x[1], trans)))
        }
        "scipy_cho_solve_ab" => {
            let (c, lower) = sl::cho_factor(a, false);
            s(&mul(&x[2], &sl::cho_solve((&c, lower), &x[1])))
        }
        "scipy_solve_pos_ab" => s(&mul(&x[2], &sl::solve(a, &x[1], "pos", false))),
        "scipy_expm" | "scipy_expm_large" => s(&mul(&x[1], &sl::expm(a))),
        norm if norm.starts_with("norm_") => {
            let rest = &norm["norm_".len()..];
            let (tag, axis) = match rest.strip_suffix("_ax20") {
                Some(tag) => (tag, Some(vec![2, 0])),
                None => (rest, None),
            };
            let ord = match tag {
                "2" => NormOrd::P(2.0),
                "m2" => NormOrd::P(-2.0),
                "nuc" => NormOrd::Nuc,
                other => panic!("norm case {other}"),
            };
            s(&mul(
                &x[1],
                &linalg::norm(a, Some(ord), axis.as_deref(), false),
            ))
        }
        other => panic!("no loss for case {other}"),
    }
}

/// The loss's value and its gradients with respect to the differentiated inputs.
fn value_and_grads(name: &'static str, x: &[Array]) -> Vec<Array> {
    let k = n_diff(name);
    let f = value_and_grad(move |x: &Vec<Array>| loss(name, x));
    let (v, g) = f
        .call(&x.to_vec())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out = vec![v];
    out.extend(g.into_iter().take(k));
    out
}

fn op(name: &str) -> OpFn {
    let name: &'static str = Box::leak(name.to_string().into_boxed_str());
    let _ = loss(name, &inputs(name)); // an unknown case panics here
    Box::new(move |x| value_and_grads(name, x))
}

/// Tolerances for derivatives through decompositions (relative, absolute below 1): the f32
/// gradients pass through a factorisation, solves and a few products. Every case passes at
/// 2e-5 (f32) and 1e-12 (f64) on this machine; the margin covers other summation orders.
fn tolerance(d: DType, _case: &str) -> f64 {
    match d {
        DType::F32 => 5e-5,
        _ => 1e-11,
    }
}

fn inputs(name: &str) -> Vec<Array> {
    golden()["cases"][name]["inputs"]
        .as_array()
        .unwrap_or_else(|| panic!("case {name}"))
        .iter()
        .map(input)
        .collect()
}

#[test]
fn every_linalg_grad_case_is_run() {
    assert_every_case_is_run(golden(), &[""], op);
}

#[test]
fn numpy_linalg_gradients_match_jax() {
    run_cases_with(
        golden(),
        &[
            "eigh",
            "eigvalsh",
            "svd",
            "qr",
            "det",
            "slogdet",
            "solve",
            "inv",
            "pinv",
            "lstsq",
            "matrix_power",
            "norm",
        ],
        op,
        tolerance,
    );
}

#[test]
fn scipy_linalg_gradients_match_jax() {
    run_cases_with(golden(), &["scipy_"], op, tolerance);
}

fn values(a: &Array) -> Vec<f64> {
    a.to_tensor().unwrap().to_f64_vec()
}

/// `vmap(grad(loss of one matrix))` over a batched case's inputs equals JAX's gradient of the
/// summed batch loss, eagerly and under `jit`.
#[test]
fn vmap_of_grad_matches_the_batched_goldens() {
    let mut failures = vec![];
    let mut n = 0;
    for name in golden()["cases"].as_object().unwrap().keys() {
        if !name.contains("_batched") || !name.ends_with("_f64") {
            continue;
        }
        n += 1;
        let name: &'static str = Box::leak(name.clone().into_boxed_str());
        let x = inputs(name);
        let k = n_diff(name);
        let per_example = vmap(grad(move |x: &Vec<Array>| loss(name, x)));
        let jitted = jit(vmap(grad(move |x: &Vec<Array>| loss(name, x))));
        let want: Vec<Vec<f64>> = golden()["cases"][name]["outputs"].as_array().unwrap()[1..]
            .iter()
            .map(|o| values(&input(o)))
            .collect();
        for (mode, got) in [("eager", per_example.call(&x)), ("jit", jitted.call(&x))] {
            let what = format!("{name} ({mode})");
            failures.extend(value_failures(
                &what,
                "gradient",
                got,
                &want[..k.min(want.len())],
                1e-9,
            ));
        }
    }
    assert!(n > 20, "only {n} batched cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A deterministic direction with entries in [−1, 1].
fn direction(like: &Array, seed: u64) -> Array {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let v: Vec<f64> = (0..like.size())
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect();
    Array::from_vec(v, like.shape())
}

/// Every f64 case's gradient against central differences of the same loss: `⟨∇L, d⟩` versus
/// `(L(x + h·d) − L(x − h·d)) / 2h` along a pseudo-random direction `d` of each
/// differentiated input (a symmetric one for functions that read one triangle). Independent
/// of JAX: a wrong rule fails here even where the goldens would agree with it.
#[test]
fn gradients_match_finite_differences_in_f64() {
    let mut failures = vec![];
    for name in golden()["cases"].as_object().unwrap().keys() {
        if !name.contains("f64") {
            continue;
        }
        let name: &'static str = Box::leak(name.clone().into_boxed_str());
        let x = inputs(name);
        let out = value_and_grads(name, &x);
        for i in 0..n_diff(name) {
            let d = direction(&x[i], i as u64 + name.len() as u64);
            // Functions that read one triangle of `a` are differentiated with the whole
            // tangent (as JAX's), which differences agree with along symmetric directions.
            let one_triangle = ["scipy_cho_solve", "scipy_solve_pos"];
            let d = if i == 0 && one_triangle.iter().any(|p| name.starts_with(p)) {
                np::multiply(&np::add(&d, &np::swapaxes(&d, -1, -2)), &Array::scalar(0.5))
            } else {
                d
            };
            let predicted: f64 = values(&out[1 + i])
                .iter()
                .zip(values(&d))
                .map(|(g, d)| g * d)
                .sum();
            let h = 1e-6;
            let at = |sign: f64| {
                let mut y = x.clone();
                y[i] = np::add(&x[i], &np::multiply(&d, &Array::scalar(sign * h)));
                values(&loss(name, &y))[0]
            };
            let fd = (at(1.0) - at(-1.0)) / (2.0 * h);
            let err = (predicted - fd).abs() / fd.abs().max(1.0);
            if err.is_nan() || err >= 1e-6 {
                failures.push(format!(
                    "{name} input {i}: gradient·d = {predicted}, finite differences {fd}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `jvp` and `vjp` through `eigh` and `solve` agree with each other (⟨ȳ, J·ṫ⟩ = ⟨Jᵀ·ȳ, ṫ⟩),
/// eagerly: forward mode inlines the rule, reverse mode transposes it.
#[test]
fn jvp_and_vjp_are_adjoint() {
    let x = inputs("solve_ab_f64");
    let f = |p: &(Array, Array)| {
        let (w, v) = linalg::eigh(&np::add(&p.0, &np::swapaxes(&p.0, -1, -2)));
        (w, linalg::solve(&p.0, &np::matmul(&v, &p.1)))
    };
    let primals = (x[0].clone(), x[1].clone());
    let tangents = (direction(&x[0], 1), direction(&x[1], 2));
    let (_, (tw, tx)) = jvp(f, &primals, &tangents).unwrap();
    let (out, pullback) = vjp(f, &primals).unwrap();
    let cot = (direction(&out.0, 3), direction(&out.1, 4));
    let (ca, cb) = pullback.call(&cot).unwrap();
    let dot =
        |a: &Array, b: &Array| -> f64 { values(a).iter().zip(values(b)).map(|(x, y)| x * y).sum() };
    let lhs = dot(&cot.0, &tw) + dot(&cot.1, &tx);
    let rhs = dot(&ca, &tangents.0) + dot(&cb, &tangents.1);
    assert!(
        (lhs - rhs).abs() < 1e-10 * lhs.abs().max(1.0),
        "{lhs} vs {rhs}"
    );
}
