//! `numpy::linalg`'s decompositions (det, slogdet, solve, inv, qr, eigh, eigvalsh, svd, pinv),
//! staged as LAPACK custom calls, against JAX 0.10.2's outputs for the same inputs (the goldens
//! of systolic-cpu's LAPACK tests, `crates/systolic-cpu/tests/data/linalg/`, made by
//! `scripts/linalg_custom_call_goldens.py`), eagerly and under `jit`, f32 and f64.
//! Eigenvectors and singular vectors are checked by their invariants (unique up to sign).

use std::path::PathBuf;
use systolic::numpy::linalg;
use systolic::{jit, Array};
use systolic_ir::DType;

fn dir(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../systolic-cpu/tests/data/linalg")
        .join(case)
}

fn npy(case: &str, file: &str) -> Array {
    Array::from_tensor(systolic_npy::read(&dir(case).join(file), None).unwrap())
}

fn values(a: &Array) -> Vec<f64> {
    a.to_tensor().unwrap().to_f64_vec()
}

/// Largest difference relative to `want`'s largest magnitude.
fn rel_err(got: &Array, want: &Array) -> f64 {
    assert_eq!(got.shape(), want.shape());
    assert_eq!(got.dtype(), want.dtype());
    let (g, w) = (values(got), values(want));
    let scale = w.iter().fold(1e-30f64, |m, x| m.max(x.abs()));
    g.iter()
        .zip(&w)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / scale
}

fn tol(dtype: DType) -> f64 {
    if dtype == DType::F32 {
        2e-4
    } else {
        1e-10
    }
}

type Case = (&'static str, fn(&[Array]) -> Vec<Array>);

/// Cases whose outputs are unique: compared with JAX's element by element.
const UNIQUE: &[Case] = &[
    ("inv", |x| vec![linalg::inv(&x[0])]),
    ("inv_batched", |x| vec![linalg::inv(&x[0])]),
    ("solve", |x| vec![linalg::solve(&x[0], &x[1])]),
    ("solve_batched", |x| vec![linalg::solve(&x[0], &x[1])]),
    ("det", |x| vec![linalg::det(&x[0])]),
    ("det_batched", |x| vec![linalg::det(&x[0])]),
    ("slogdet", |x| {
        let (s, l) = linalg::slogdet(&x[0]);
        vec![s, l]
    }),
    ("eigvalsh", |x| vec![linalg::eigvalsh(&x[0])]),
    ("svd_values", |x| vec![linalg::svd(&x[0], true, false).1]),
    ("qr_reduced", |x| {
        let (q, r) = linalg::qr(&x[0], "reduced");
        vec![q.unwrap(), r]
    }),
    ("qr_complete", |x| {
        let (q, r) = linalg::qr(&x[0], "complete");
        vec![q.unwrap(), r]
    }),
    ("qr_wide_batched", |x| {
        let (q, r) = linalg::qr(&x[0], "reduced");
        vec![q.unwrap(), r]
    }),
    ("pinv", |x| vec![linalg::pinv(&x[0])]),
];

fn inputs(case: &str) -> Vec<Array> {
    (0..)
        .map(|i| format!("in{i}.npy"))
        .take_while(|f| dir(case).join(f).exists())
        .map(|f| npy(case, &f))
        .collect()
}

/// Runs `f` eagerly and under `jit`.
fn both(f: fn(&[Array]) -> Vec<Array>, x: &[Array]) -> [Vec<Array>; 2] {
    let jf = jit(move |x: &Vec<Array>| f(x));
    [f(x), jf.call(&x.to_vec()).unwrap()]
}

#[test]
fn unique_outputs_match_jax_eagerly_and_under_jit() {
    let mut failures = vec![];
    for (name, f) in UNIQUE {
        for suffix in ["f32", "f64"] {
            let case = format!("{name}_{suffix}");
            let x = inputs(&case);
            for (mode, got) in ["eager", "jit"].iter().zip(both(*f, &x)) {
                for (i, g) in got.iter().enumerate() {
                    let want = npy(&case, &format!("out{i}.npy"));
                    let err = rel_err(g, &want);
                    // A NaN error fails too.
                    if err.is_nan() || err > tol(want.dtype()) {
                        failures.push(format!("{case} ({mode}) out{i}: relative error {err:e}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `a·b` for 2-D row-major `a` (m×k) and `b` (k×n).
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    c
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn eigh_and_svd_satisfy_their_invariants_and_match_jax_values() {
    for suffix in ["f32", "f64"] {
        let eps = if suffix == "f32" { 1e-4 } else { 1e-11 };
        // eigh: w as JAX's, a = v·diag(w)·vᵀ.
        let case = format!("eigh_{suffix}");
        let a = npy(&case, "in0.npy");
        let n = a.shape()[0] as usize;
        let fwd: fn(&[Array]) -> Vec<Array> = |x| {
            let (w, v) = linalg::eigh(&x[0]);
            vec![w, v]
        };
        for got in both(fwd, std::slice::from_ref(&a)) {
            assert!(
                rel_err(&got[0], &npy(&case, "out0.npy")) <= tol(a.dtype()),
                "{case}"
            );
            let (w, v) = (values(&got[0]), values(&got[1]));
            let vw: Vec<f64> = (0..n * n).map(|i| v[i] * w[i % n]).collect();
            let vt: Vec<f64> = (0..n * n).map(|i| v[(i % n) * n + i / n]).collect();
            let back = matmul(&vw, &vt, n, n, n);
            assert!(
                max_diff(&back, &values(&a)) <= eps * 10.0,
                "{case}: v·diag(w)·vᵀ ≠ a"
            );
        }
        // svd (reduced): s as JAX's, a = u·diag(s)·vh.
        let case = format!("svd_reduced_{suffix}");
        let a = npy(&case, "in0.npy");
        let (m, c) = (a.shape()[0] as usize, a.shape()[1] as usize);
        let k = m.min(c);
        let fwd: fn(&[Array]) -> Vec<Array> = |x| {
            let (u, s, vh) = linalg::svd(&x[0], false, true);
            vec![u.unwrap(), s, vh.unwrap()]
        };
        for got in both(fwd, std::slice::from_ref(&a)) {
            assert!(
                rel_err(&got[1], &npy(&case, "out1.npy")) <= tol(a.dtype()),
                "{case}"
            );
            let (u, s, vh) = (values(&got[0]), values(&got[1]), values(&got[2]));
            let us: Vec<f64> = (0..m * k).map(|i| u[i] * s[i % k]).collect();
            let back = matmul(&us, &vh, m, k, c);
            assert!(
                max_diff(&back, &values(&a)) <= eps * 10.0,
                "{case}: u·s·vh ≠ a"
            );
        }
    }
}

#[test]
fn misuse_is_an_error_naming_the_op() {
    let ints = Array::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]);
    let e = linalg::det(&ints).to_vec::<f32>().unwrap_err().to_string();
    assert!(e.contains("det") && e.contains("square"), "{e}");
    let (_, r) = linalg::qr(&ints, "economic");
    let e = r.to_vec::<f32>().unwrap_err().to_string();
    assert!(e.contains("mode"), "{e}");
    let half = Array::from_vec(vec![half::f16::from_f32(1.0); 4], &[2, 2]);
    let e = linalg::inv(&half).to_vec::<f32>().unwrap_err().to_string();
    assert!(e.contains("float32 or float64"), "{e}");
}
