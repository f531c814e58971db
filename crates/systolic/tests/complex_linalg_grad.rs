//! Gradients of `numpy::linalg` and `scipy::linalg` on complex matrices against JAX 0.10.2
//! (`tests/data/complex_linalg_grad_jax0.10.2.json`, made by
//! `scripts/complex_linalg_grad_goldens.py`): a real loss of complex inputs per function
//! (invariant to the decompositions' phase freedoms), its value and JAX's gradients
//! (`jax.grad`'s convention for complex inputs: `∂L/∂x − i·∂L/∂y`), complex64 and complex128,
//! eagerly and under `jit`, one batched case each; `grad(holomorphic = true)` of complex sums
//! of holomorphic functions (det, inv, solve, matrix_power, expm, lu_solve, a triangular
//! solve); `vmap(grad)` against the batched goldens; and in complex128 the gradients against
//! central differences of the same loss along complex directions (`dL = re(Σ g·d)`). One
//! deliberate difference: JAX's `solve(assume_a="pos")` gradient on complex matrices is not
//! the derivative (see the test of it), ours is.

use crate::golden_util::{assert_every_case_is_run, input, run_cases_with, value_failures, OpFn};
use systolic::numpy::linalg::{self, NormOrd, Trans};
use systolic::scipy::linalg as sl;
use systolic::{grad, jit, lax, numpy as np, value_and_grad, vmap, Array};
use systolic_ir::DType;

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        serde_json::from_str(include_str!("data/complex_linalg_grad_jax0.10.2.json")).unwrap()
    })
}

fn s(x: &Array) -> Array {
    np::sum(x, None, false)
}

fn mul(a: &Array, b: &Array) -> Array {
    np::multiply(a, b)
}

fn add(a: &Array, b: &Array) -> Array {
    np::add(a, b)
}

/// `Σ c·re(x) + Σ im(x)`, the script's `parts`.
fn parts(c: &Array, x: &Array) -> Array {
    add(&s(&mul(c, &np::real(x))), &s(&np::imag(x)))
}

/// `|x|²` elementwise.
fn abs2(x: &Array) -> Array {
    let a = np::abs(x);
    mul(&a, &a)
}

/// The function a case name stands for, without its dtype and batch suffixes.
fn base(name: &str) -> &str {
    let name = name
        .strip_suffix("_c64")
        .or_else(|| name.strip_suffix("_c128"))
        .unwrap_or_else(|| panic!("case {name}"));
    name.strip_suffix("_batched").unwrap_or(name)
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
        "eigh" | "scipy_eigh" => {
            let (w, v) = if base(name) == "eigh" {
                linalg::eigh(a)
            } else {
                let (w, v) = sl::eigh(a, true, false);
                (w, v.unwrap())
            };
            add(&s(&mul(&w, &w)), &s(&mul(&x[1], &abs2(&v))))
        }
        "eigvalsh" => s(&mul(&x[1], &linalg::eigvalsh(a))),
        "svd_tall" | "svd_wide" | "svd_square" => {
            let (u, sv, vh) = linalg::svd(a, false, true);
            let s2 = np::astype(&mul(&sv, &sv), a.dtype());
            let us = mul(&u.unwrap(), &np::expand_dims(&s2, -2));
            add(&parts(&x[1], &np::matmul(&us, &vh.unwrap())), &s(&sv))
        }
        "svdvals" => s(&mul(&x[1], &linalg::svd(a, false, false).1)),
        "qr_reduced" | "qr_complete" | "qr_wide" => {
            let mode = if base(name) == "qr_complete" {
                "complete"
            } else {
                "reduced"
            };
            let (q, r) = linalg::qr(a, mode);
            let q = q.unwrap();
            let first = add(
                &s(&mul(&x[1], &np::real(&q))),
                &s(&mul(&x[2], &np::imag(&r))),
            );
            add(&first, &add(&s(&np::imag(&q)), &s(&np::real(&r))))
        }
        "qr_r" => parts(&x[1], &linalg::qr(a, "r").1),
        "det_abs2" => {
            let d = linalg::det(a);
            s(&np::real(&mul(&d, &np::conj(&d))))
        }
        "det_parts" => {
            let d = linalg::det(a);
            add(&s(&np::real(&d)), &s(&np::imag(&d)))
        }
        "slogdet" => {
            let (sign, logdet) = linalg::slogdet(a);
            add(
                &s(&logdet),
                &add(&s(&np::real(&sign)), &s(&np::imag(&sign))),
            )
        }
        "solve_ab" => parts(&x[2], &linalg::solve(a, &x[1])),
        "inv" => parts(&x[1], &linalg::inv(a)),
        "pinv" | "pinv_wide" => parts(&x[1], &linalg::pinv(a)),
        "lstsq_ab" => {
            let (sol, resid, _, sv) = linalg::lstsq(a, &x[1], None);
            add(&add(&parts(&x[2], &sol), &s(&resid)), &s(&sv))
        }
        "matrix_power3" => parts(&x[1], &linalg::matrix_power(a, 3)),
        "matrix_power_m2" => parts(&x[1], &linalg::matrix_power(a, -2)),
        "cholesky" => parts(&x[1], &linalg::cholesky(a)),
        norm if norm.starts_with("norm_") => {
            let ord = match &norm["norm_".len()..] {
                "2" => NormOrd::P(2.0),
                "m2" => NormOrd::P(-2.0),
                "nuc" => NormOrd::Nuc,
                "fro" => NormOrd::Fro,
                other => panic!("norm case {other}"),
            };
            s(&mul(
                &x[1],
                &linalg::norm(a, Some(ord), Some(&[-2, -1]), false),
            ))
        }
        "scipy_lu" => {
            let (_, l, u) = sl::lu(a);
            add(&parts(&x[1], &l), &parts(&x[2], &u))
        }
        lu_solve if lu_solve.starts_with("scipy_lu_solve") => {
            let trans: i32 = lu_solve["scipy_lu_solve".len()..]
                .trim_end_matches("_ab")
                .parse()
                .unwrap();
            let (lu, piv) = sl::lu_factor(a);
            parts(&x[2], &sl::lu_solve((&lu, &piv), &x[1], trans))
        }
        "scipy_cho_solve_ab" => {
            let (c, lower) = sl::cho_factor(a, false);
            parts(&x[2], &sl::cho_solve((&c, lower), &x[1]))
        }
        "scipy_solve_pos_ab" => parts(&x[2], &sl::solve(a, &x[1], "pos", false)),
        "scipy_solve_triangular_ab" => parts(
            &x[2],
            &sl::solve_triangular(a, &x[1], Trans::C, true, false),
        ),
        "scipy_expm" | "scipy_expm_large" => parts(&x[1], &sl::expm(a)),
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

/// The complex-valued function of a `holo_` case (the script's `holo` lambdas), of `x[0]`
/// with the constants `x[1..]`.
fn holomorphic(name: &str, x: &[Array]) -> Array {
    let a = &x[0];
    match base(name) {
        "holo_det" => s(&linalg::det(a)),
        "holo_inv" => s(&mul(&x[1], &linalg::inv(a))),
        "holo_solve" => s(&mul(&x[2], &linalg::solve(a, &x[1]))),
        "holo_matrix_power3" => s(&mul(&x[1], &linalg::matrix_power(a, 3))),
        "holo_expm" => s(&mul(&x[1], &sl::expm(a))),
        "holo_lu_solve" => {
            let (lu, piv) = sl::lu_factor(a);
            s(&sl::lu_solve((&lu, &piv), &x[1], 0))
        }
        "holo_solve_triangular" => s(&sl::solve_triangular(a, &x[1], Trans::N, true, false)),
        other => panic!("no holomorphic function for case {other}"),
    }
}

/// `grad(holomorphic = true)` of a `holo_` case: the value and the derivative in `x[0]`.
fn holomorphic_op(name: &'static str) -> OpFn {
    let _ = holomorphic(name, &inputs(name)); // an unknown case panics here
    Box::new(move |x| {
        let consts = x[1..].to_vec();
        let f = value_and_grad(move |a: &Array| {
            let mut all = vec![a.clone()];
            all.extend(consts.iter().cloned());
            holomorphic(name, &all)
        })
        .holomorphic(true);
        let (v, g) = f.call(&x[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
        vec![v, g]
    })
}

fn op(name: &str) -> OpFn {
    let name: &'static str = Box::leak(name.to_string().into_boxed_str());
    if name.starts_with("holo_") {
        return holomorphic_op(name);
    }
    let _ = loss(name, &inputs(name)); // an unknown case panics here
    Box::new(move |x| value_and_grads(name, x))
}

/// Relative tolerances (absolute below 1): complex64 gradients pass through a factorisation,
/// solves and products in single precision.
fn tolerance(_d: DType, case: &str) -> f64 {
    if case.contains("_c64") {
        2e-4
    } else {
        1e-10
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
fn every_complex_linalg_grad_case_is_run() {
    assert_every_case_is_run(golden(), &[""], op);
}

#[test]
fn numpy_linalg_gradients_on_complex_matrices_match_jax() {
    let numpy = [
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
        "cholesky",
        "norm",
    ];
    run_cases_with(golden(), &numpy, op, tolerance);
}

/// `grad(holomorphic = true)` through det, inv, solve, matrix_power, expm, lu_solve and a
/// triangular solve (complex-valued sums; the derivative, not its conjugate).
#[test]
fn holomorphic_gradients_match_jax() {
    run_cases_with(golden(), &["holo_"], op, tolerance);
}

#[test]
fn scipy_linalg_gradients_on_complex_matrices_match_jax() {
    // Not `scipy_solve_pos`: see the next test.
    let scipy = [
        "scipy_lu",
        "scipy_cho",
        "scipy_solve_triangular",
        "scipy_expm",
        "scipy_eigh",
    ];
    run_cases_with(golden(), &scipy, op, tolerance);
}

/// JAX's gradient of `jax.scipy.linalg.solve(a, b, assume_a="pos")` on complex matrices
/// disagrees with its own finite differences (measured with JAX 0.10.2: along a Hermitian
/// direction 0.1756 against 0.1406; the `b` gradient is off too): `custom_linear_solve(…,
/// symmetric=True)` transposes the solve with `a⁻¹`, where a complex Hermitian `a` needs
/// `a⁻ᵀ = ā⁻¹`. Ours is the derivative of the function (the differences test above checks
/// it), so it is checked here against the general solve's gradient of the same loss, which
/// JAX computes correctly (its golden is the `solve_ab` cases), and shown to differ from
/// JAX's recorded value.
#[test]
fn solve_pos_gradients_are_the_derivative_where_jax_transposes_without_conjugating() {
    for name in ["scipy_solve_pos_ab_c128", "scipy_solve_pos_ab_batched_c128"] {
        let name: &'static str = name;
        let x = inputs(name);
        let ours = value_and_grads(name, &x);
        let general = value_and_grad(|x: &Vec<Array>| parts(&x[2], &linalg::solve(&x[0], &x[1])))
            .call(&x.to_vec())
            .unwrap();
        for i in 0..2 {
            let (g, want) = (values(&ours[1 + i]), values(&general.1[i]));
            let err = g
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                err < 1e-10,
                "{name} gradient {i}: differs from solve's by {err:e}"
            );
        }
        let jax = values(&input(&golden()["cases"][name]["outputs"][1]));
        let off = values(&ours[1])
            .iter()
            .zip(&jax)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(
            off > 1e-3,
            "{name}: JAX's gradient is now the derivative; compare with it"
        );
    }
}

fn values(a: &Array) -> Vec<f64> {
    a.to_tensor().unwrap().to_f64_vec()
}

/// A deterministic complex direction shaped like `like` with parts in [−1, 1].
fn direction(like: &Array, seed: u64) -> Array {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let re: Vec<f64> = (0..like.size()).map(|_| next()).collect();
    let im: Vec<f64> = (0..like.size()).map(|_| next()).collect();
    lax::complex(
        &Array::from_vec(re, like.shape()),
        &Array::from_vec(im, like.shape()),
    )
}

/// Every complex128 case's gradient against central differences of the same loss along a
/// complex direction `d`: `re(Σ g·d)` (JAX's gradient convention) versus
/// `(L(x + h·d) − L(x − h·d)) / 2h`; Hermitian directions for the functions that read one
/// triangle. Independent of JAX: a wrong rule fails here even where the goldens would agree.
#[test]
fn complex_gradients_match_finite_differences() {
    let mut failures = vec![];
    for name in golden()["cases"].as_object().unwrap().keys() {
        if !name.contains("_c128") || name.starts_with("holo_") {
            continue;
        }
        let name: &'static str = Box::leak(name.clone().into_boxed_str());
        let x = inputs(name);
        let out = value_and_grads(name, &x);
        for i in 0..n_diff(name) {
            let d = direction(&x[i], i as u64 + name.len() as u64);
            let one_triangle = ["scipy_cho_solve", "scipy_solve_pos"];
            let d = if i == 0 && one_triangle.iter().any(|p| name.starts_with(p)) {
                let dh = np::conj(&np::swapaxes(&d, -1, -2));
                np::multiply(&np::add(&d, &dh), &Array::scalar(0.5))
            } else {
                d
            };
            let predicted: f64 = values(&np::real(&s(&mul(&out[1 + i], &d))))[0];
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
                    "{name} input {i}: re(Σ gradient·d) = {predicted}, finite differences {fd}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `vmap(grad(loss of one matrix))` over a batched case's inputs equals JAX's gradient of the
/// summed batch loss, eagerly and under `jit` (complex128; `lu` is mapped in JAX's script
/// too, so every batched case has a per-matrix loss).
#[test]
fn vmap_of_grad_matches_the_batched_complex_goldens() {
    let mut failures = vec![];
    let mut n = 0;
    for name in golden()["cases"].as_object().unwrap().keys() {
        if !name.ends_with("_batched_c128")
            || name.contains("solve_pos")
            || name.starts_with("holo_")
        {
            continue;
        }
        n += 1;
        let name: &'static str = Box::leak(name.clone().into_boxed_str());
        let x = inputs(name);
        let k = n_diff(name);
        let eager = vmap(grad(move |x: &Vec<Array>| loss(name, x)));
        let jitted = jit(vmap(grad(move |x: &Vec<Array>| loss(name, x))));
        let want: Vec<Vec<f64>> = golden()["cases"][name]["outputs"].as_array().unwrap()[1..]
            .iter()
            .map(|o| values(&input(o)))
            .collect();
        for (mode, got) in [("eager", eager.call(&x)), ("jit", jitted.call(&x))] {
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
