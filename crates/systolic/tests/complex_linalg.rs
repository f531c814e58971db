//! `numpy::linalg` and `scipy::linalg` on complex matrices against JAX 0.10.2
//! (`tests/data/complex_linalg_jax0.10.2.json`, made by `scripts/complex_linalg_goldens.py`):
//! complex64 and complex128, unbatched and batched, eagerly (the interpreter) and under `jit`
//! (the CPU compiler). Unique results are compared as they are; eigenvectors and singular
//! vectors, unique only up to a phase per column, through the same phase-invariant products
//! the script records (`|v|²`, reconstructions, `uᴴ·u`). Also: dtype mixes promote as JAX's
//! `promote_dtypes_inexact`, and the lax-level solve refuses them naming the dtypes.

use crate::golden_util::{assert_every_case_is_run, err_of, one, run_cases_with, OpFn};
use systolic::numpy::linalg::{self, NormOrd, Trans};
use systolic::scipy::linalg as sl;
use systolic::{lax, numpy as np, Array};
use systolic_ir::DType;

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        serde_json::from_str(include_str!("data/complex_linalg_jax0.10.2.json")).unwrap()
    })
}

/// The function a case name stands for, without its dtype and batch suffixes.
fn base(name: &str) -> &str {
    let name = name.strip_suffix("_batched").unwrap_or(name);
    name.strip_suffix("_c64")
        .or_else(|| name.strip_suffix("_c128"))
        .unwrap_or_else(|| panic!("case {name}"))
}

/// The conjugate transpose of every matrix.
fn mh(x: &Array) -> Array {
    np::conj(&np::swapaxes(x, -1, -2))
}

/// `|x|²` elementwise (real).
fn abs2(x: &Array) -> Array {
    let a = np::abs(x);
    np::multiply(&a, &a)
}

/// Columns `0..k` of every matrix.
fn cols(x: &Array, k: i64) -> Array {
    let mut limit = x.shape().to_vec();
    *limit.last_mut().unwrap() = k;
    lax::slice(x, &vec![0; limit.len()], &limit, None)
}

/// Rows `0..k` of every matrix.
fn rows(x: &Array, k: i64) -> Array {
    let mut limit = x.shape().to_vec();
    let r = limit.len();
    limit[r - 2] = k;
    lax::slice(x, &vec![0; limit.len()], &limit, None)
}

/// The eigenvalues, `|v|²` and `v·diag(w)·vᴴ`, as the script's `eigh_products`.
fn eigh_products(w: Array, v: Array) -> Vec<Array> {
    let vw = np::multiply(&v, &np::expand_dims(&w, -2));
    vec![w, abs2(&v), np::matmul(&vw, &mh(&v))]
}

/// `s`, `|u_k|²`, `|vh_k|²`, `u_k·diag(s)·vh_k`, `uᴴ·u` and `vh·vhᴴ`, as the script's
/// `svd_products`.
fn svd_products(u: Array, s: Array, vh: Array) -> Vec<Array> {
    let k = *s.shape().last().unwrap();
    let (uk, vk) = (cols(&u, k), rows(&vh, k));
    let us = np::multiply(&uk, &np::expand_dims(&s, -2));
    vec![
        s,
        abs2(&uk),
        abs2(&vk),
        np::matmul(&us, &vk),
        np::matmul(&mh(&u), &u),
        np::matmul(&vh, &mh(&vh)),
    ]
}

fn pair((a, b): (Array, Array)) -> Vec<Array> {
    vec![a, b]
}

fn qr_pair((q, r): (Option<Array>, Array)) -> Vec<Array> {
    vec![q.expect("q"), r]
}

fn svd_of(a: &Array, full: bool) -> Vec<Array> {
    let (u, s, vh) = linalg::svd(a, full, true);
    svd_products(u.unwrap(), s, vh.unwrap())
}

/// `jax.scipy.linalg.lu`, per matrix of a batch as the script maps it (ours takes batches).
fn scipy_lu(a: &Array) -> Vec<Array> {
    let (p, l, u) = sl::lu(a);
    vec![p, l, u]
}

fn trans_of(t: char) -> Trans {
    match t {
        '0' => Trans::N,
        '1' => Trans::T,
        _ => Trans::C,
    }
}

fn op(name: &str) -> OpFn {
    let b = base(name);
    match b {
        "inv" | "scipy_inv" => one(|x| linalg::inv(&x[0])),
        "solve" | "solve_vec" | "solve_mixed" => one(|x| linalg::solve(&x[0], &x[1])),
        "det" | "det3" | "scipy_det" => one(|x| linalg::det(&x[0])),
        "slogdet" => Box::new(|x| pair(linalg::slogdet(&x[0]))),
        "cholesky" => one(|x| linalg::cholesky(&x[0])),
        "qr_reduced_tall" | "qr_reduced_wide" | "scipy_qr_economic" => {
            Box::new(|x| qr_pair(linalg::qr(&x[0], "reduced")))
        }
        "qr_complete_tall" | "qr_complete_wide" => {
            Box::new(|x| qr_pair(linalg::qr(&x[0], "complete")))
        }
        "scipy_qr_full" => Box::new(|x| qr_pair(sl::qr(&x[0], "full"))),
        "qr_r" => one(|x| linalg::qr(&x[0], "r").1),
        "scipy_qr_r" => one(|x| sl::qr(&x[0], "r").1),
        "eigh" => Box::new(|x| {
            let (w, v) = linalg::eigh(&x[0]);
            eigh_products(w, v)
        }),
        "scipy_eigh" => Box::new(|x| {
            let (w, v) = sl::eigh(&x[0], true, false);
            eigh_products(w, v.unwrap())
        }),
        "eigvalsh" => one(|x| linalg::eigvalsh(&x[0])),
        "scipy_eigh_vals" => one(|x| sl::eigh(&x[0], true, true).0),
        "svd_thin_tall" | "svd_thin_wide" | "svd_thin_square" => Box::new(|x| svd_of(&x[0], false)),
        "svd_full_tall" | "svd_full_wide" | "svd_full_square" | "scipy_svd" => {
            Box::new(|x| svd_of(&x[0], true))
        }
        "svdvals" => one(|x| linalg::svd(&x[0], false, false).1),
        "pinv_tall" | "pinv_wide" => one(|x| linalg::pinv(&x[0])),
        "matrix_power3" => one(|x| linalg::matrix_power(&x[0], 3)),
        "matrix_power_m2" => one(|x| linalg::matrix_power(&x[0], -2)),
        "matrix_power0" => one(|x| linalg::matrix_power(&x[0], 0)),
        // The goldens run with x64 enabled, where JAX counts in int64; the counts here are
        // int32 as JAX's default (x64 off), so they are compared as int64.
        "matrix_rank" => one(|x| np::astype(&linalg::matrix_rank(&x[0], None), DType::I64)),
        "lstsq" | "lstsq_vec" | "lstsq_deficient" => Box::new(|x| {
            let (sol, resid, rank, s) = linalg::lstsq(&x[0], &x[1], None);
            vec![sol, resid, np::astype(&rank, DType::I64), s]
        }),
        "norm_flat" => one(|x| linalg::norm(&x[0], None, None, false)),
        norm if norm.starts_with("norm_mat_") || norm.starts_with("norm_vec_") => {
            let matrix = norm.starts_with("norm_mat_");
            let ord = match &norm["norm_mat_".len()..] {
                "none" => None,
                "fro" => Some(NormOrd::Fro),
                "nuc" => Some(NormOrd::Nuc),
                "inf" => Some(NormOrd::P(f64::INFINITY)),
                "minf" => Some(NormOrd::P(f64::NEG_INFINITY)),
                m if m.starts_with('m') => Some(NormOrd::P(-m[1..].parse::<f64>().unwrap())),
                p => Some(NormOrd::P(p.parse().unwrap())),
            };
            let axes: &'static [i64] = if matrix { &[-2, -1] } else { &[-1] };
            one(move |x| linalg::norm(&x[0], ord, Some(axes), false))
        }
        "scipy_lu" | "scipy_lu_wide" => Box::new(|x| scipy_lu(&x[0])),
        "scipy_lu_factor" => Box::new(|x| pair(sl::lu_factor(&x[0]))),
        lu_solve if lu_solve.starts_with("scipy_lu_solve") => {
            let trans: i32 = lu_solve["scipy_lu_solve".len()..].parse().unwrap();
            one(move |x| {
                let (lu, piv) = sl::lu_factor(&x[0]);
                sl::lu_solve((&lu, &piv), &x[1], trans)
            })
        }
        "scipy_cho_factor_lower" => one(|x| sl::cho_factor(&x[0], true).0),
        "scipy_cho_factor_upper" => one(|x| sl::cho_factor(&x[0], false).0),
        "scipy_cho_solve_lower" | "scipy_cho_solve_upper" => {
            let lower = b.ends_with("lower");
            one(move |x| {
                let (c, lower) = sl::cho_factor(&x[0], lower);
                sl::cho_solve((&c, lower), &x[1])
            })
        }
        "scipy_cho_solve_mixed" => one(|x| sl::cho_solve((&x[0], true), &x[1])),
        "scipy_solve_pos_lower" => one(|x| sl::solve(&x[0], &x[1], "pos", true)),
        "scipy_solve_pos_upper" => one(|x| sl::solve(&x[0], &x[1], "pos", false)),
        "scipy_solve_gen" => one(|x| sl::solve(&x[0], &x[1], "gen", false)),
        "scipy_solve_her" => one(|x| sl::solve(&x[0], &x[1], "her", false)),
        "scipy_solve_triangular_unit" => {
            one(|x| sl::solve_triangular(&x[0], &x[1], Trans::C, true, true))
        }
        "scipy_solve_triangular_mixed" => {
            one(|x| sl::solve_triangular(&x[0], &x[1], Trans::N, true, false))
        }
        tri if tri.starts_with("scipy_solve_triangular_") => {
            let rest = &tri["scipy_solve_triangular_".len()..];
            let lower = rest.starts_with("lower");
            let trans = trans_of(rest.chars().last().unwrap());
            one(move |x| sl::solve_triangular(&x[0], &x[1], trans, lower, false))
        }
        "scipy_expm" | "scipy_expm_large" => one(|x| sl::expm(&x[0])),
        other => panic!("no expression for case {other}"),
    }
}

/// Relative tolerances (absolute below 1) by the case's precision: complex64 cases (and their
/// real outputs) in single precision, complex128 ones in double. Products of several factors
/// and the ill-conditioned expm of a large matrix get more room.
fn tolerance(d: DType, case: &str) -> f64 {
    let single = case.contains("_c64") || matches!(d, DType::F32 | DType::C64);
    let loose = [
        "expm_large",
        "matrix_power",
        "pinv",
        "svd",
        "eigh",
        "lu_solve",
    ]
    .iter()
    .any(|p| case.contains(p));
    match (single, loose) {
        (true, false) => 2e-5,
        (true, true) => 1e-4,
        (false, false) => 1e-12,
        (false, true) => 1e-10,
    }
}

#[test]
fn every_complex_linalg_case_is_run() {
    assert_every_case_is_run(golden(), &["", "scipy_"], op);
}

#[test]
fn numpy_linalg_on_complex_matrices_matches_jax() {
    run_cases_with(
        golden(),
        &[
            "inv", "solve", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd", "pinv",
            "matrix", "norm", "lstsq",
        ],
        op,
        tolerance,
    );
}

#[test]
fn scipy_linalg_on_complex_matrices_matches_jax() {
    run_cases_with(golden(), &["scipy_"], op, tolerance);
}

/// The conjugate transpose is not the transpose: `trans = 'C'` and `'T'` differ on a complex
/// matrix (the goldens would pass for both if they were confused only on real inputs).
#[test]
fn transpose_and_conjugate_transpose_solves_differ() {
    let case = &golden()["cases"]["scipy_solve_triangular_lower1_c128"];
    let a = crate::golden_util::input(&case["inputs"][0]);
    let b = crate::golden_util::input(&case["inputs"][1]);
    let t = sl::solve_triangular(&a, &b, Trans::T, true, false);
    let c = sl::solve_triangular(&a, &b, Trans::C, true, false);
    let diff = np::max(&np::abs(&np::subtract(&t, &c)), None, false)
        .to_vec::<f64>()
        .unwrap()[0];
    assert!(diff > 1e-3, "T and C solves agree to {diff:e}");
}

/// lax's `triangular_solve` takes one dtype, as JAX's does; the numpy and scipy functions
/// promote instead (the `_mixed` goldens).
#[test]
fn mixed_dtypes_are_refused_by_lax_and_promoted_by_numpy() {
    let a = Array::from_vec(vec![2.0f32, 0.0, 1.0, 4.0], &[2, 2]);
    let b = lax::complex(
        &Array::from_vec(vec![1.0f32, 2.0], &[2, 1]),
        &Array::from_vec(vec![0.5f32, -1.0], &[2, 1]),
    );
    let e = err_of(&linalg::triangular_solve(&a, &b, true, true, false, false));
    assert!(
        e.contains("triangular_solve") && e.contains("float32") && e.contains("complex64"),
        "{e}"
    );
    let x = linalg::solve(&a, &b);
    assert_eq!(x.dtype(), DType::C64);
    let back = np::matmul(&np::astype(&a, DType::C64), &x);
    let err = np::max(&np::abs(&np::subtract(&back, &b)), None, false)
        .to_vec::<f32>()
        .unwrap()[0];
    assert!(err < 1e-6, "{err}");
    // An f16 matrix has no LAPACK routine, complex or not.
    let half = Array::from_vec(vec![half::f16::from_f32(1.0); 4], &[2, 2]);
    let e = err_of(&linalg::eigh(&half).0);
    assert!(e.contains("eigh") && e.contains("complex64"), "{e}");
}
