//! `numpy::linalg::eig`/`eigvals` on the inputs of JAX's exported `jnp.linalg.eig` programs
//! (crates/systolic-cpu/tests/data/linalg/eig*, from `scripts/linalg_custom_call_goldens.py`),
//! eagerly and under `jit`, real and complex, single and double precision: the eigenvalues
//! equal JAX's as a set (neither orders them) and `a·v = v·diag(w)` with unit columns.

use std::path::PathBuf;
use systolic::numpy::linalg;
use systolic::{jit, Array};
use systolic_ir::{Complex64, DType, Data};

fn npy(case: &str, file: &str) -> Array {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../systolic-cpu/tests/data/linalg")
        .join(case)
        .join(file);
    Array::from_tensor(systolic_npy::read(&path, None).unwrap())
}

fn complex_values(a: &Array) -> Vec<Complex64> {
    let t = a.to_tensor().unwrap();
    match t.data() {
        Data::Complex(v) => v.clone(),
        _ => t
            .to_f64_vec()
            .into_iter()
            .map(|x| Complex64::new(x, 0.0))
            .collect(),
    }
}

/// Largest distance from each wanted eigenvalue to the nearest unused computed one, per
/// matrix, relative to the largest modulus.
fn set_error(got: &[Complex64], want: &[Complex64], n: usize) -> f64 {
    let size = want.iter().fold(1.0f64, |m, z| m.max(z.norm()));
    let mut worst: f64 = 0.0;
    for (g, w) in got.chunks(n).zip(want.chunks(n)) {
        let mut used = vec![false; n];
        for wz in w {
            let i = (0..n)
                .filter(|&i| !used[i])
                .min_by(|&a, &b| (g[a] - wz).norm().total_cmp(&(g[b] - wz).norm()))
                .unwrap();
            used[i] = true;
            worst = worst.max((g[i] - wz).norm());
        }
    }
    worst / size
}

/// Largest `|a·v − v·diag(w)|` and `|‖v_j‖ − 1|` over the batch, relative to `a`'s size.
fn residual(a: &[Complex64], w: &[Complex64], v: &[Complex64], n: usize) -> f64 {
    let size = a.iter().fold(1.0f64, |m, z| m.max(z.norm()));
    let mut worst: f64 = 0.0;
    for b in 0..a.len() / (n * n) {
        let (ab, vb, wb) = (&a[b * n * n..], &v[b * n * n..], &w[b * n..]);
        for i in 0..n {
            for j in 0..n {
                let av: Complex64 = (0..n).map(|p| ab[i * n + p] * vb[p * n + j]).sum();
                worst = worst.max((av - vb[i * n + j] * wb[j]).norm() / size);
            }
        }
        for j in 0..n {
            let norm: f64 = (0..n).map(|i| vb[i * n + j].norm_sqr()).sum::<f64>().sqrt();
            worst = worst.max((norm - 1.0).abs());
        }
    }
    worst
}

#[test]
fn eig_matches_jax_eagerly_and_under_jit() {
    for case in [
        "eig_f32",
        "eig_f64",
        "eig_c64",
        "eig_c128",
        "eig_batched_f32",
        "eig_batched_c128",
    ] {
        let a = npy(case, "in0.npy");
        let want = complex_values(&npy(case, "out0.npy"));
        let n = *a.shape().last().unwrap() as usize;
        let tol = if matches!(a.dtype(), DType::F32 | DType::C64) {
            1e-4
        } else {
            1e-11
        };
        let jf = jit(|x: &Array| linalg::eig(x));
        for (how, (w, v)) in [("eager", linalg::eig(&a)), ("jit", jf.call(&a).unwrap())] {
            let expected = if a.dtype() == DType::F32 {
                DType::C64
            } else if a.dtype() == DType::F64 {
                DType::C128
            } else {
                a.dtype()
            };
            assert_eq!(w.dtype(), expected, "{case} {how}");
            let (wc, vc) = (complex_values(&w), complex_values(&v));
            let e = set_error(&wc, &want, n);
            assert!(e < tol, "{case} {how}: eigenvalues differ by {e:e}");
            let r = residual(&complex_values(&a), &wc, &vc, n);
            assert!(r < tol, "{case} {how}: a·v − v·diag(w) is {r:e}");
        }
    }
}

#[test]
fn eigvals_match_eig_and_refuse_bad_operands() {
    let a = npy("eigvals_f64", "in0.npy");
    let n = *a.shape().last().unwrap() as usize;
    let want = complex_values(&npy("eigvals_f64", "out0.npy"));
    let got = complex_values(&linalg::eigvals(&a));
    assert!(set_error(&got, &want, n) < 1e-11);
    let rect = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let err = linalg::eigvals(&rect).to_tensor().unwrap_err().to_string();
    assert!(err.contains("eigvals") && err.contains("square"), "{err}");
}

fn eigvals_grad_golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        serde_json::from_str(include_str!("data/eigvals_grad_jax0.10.2.json")).unwrap()
    })
}

fn eigvals_loss(name: &str) -> crate::golden_util::OpFn {
    use systolic::numpy as np;
    let sum = |x: &Array| np::sum(x, None, false);
    match name {
        "abs2_real" => Box::new(move |x| {
            let f = move |a: &Array| sum(&np::square(&np::abs(&linalg::eigvals(a))));
            vec![systolic::grad(f).call(&x[0]).unwrap()]
        }),
        "real_cubed_complex" => Box::new(move |x| {
            let f = move |a: &Array| {
                let re = np::real(&linalg::eigvals(a));
                sum(&(&np::square(&re) * &re))
            };
            vec![systolic::grad(f).call(&x[0]).unwrap()]
        }),
        "imag_batched" => Box::new(move |x| {
            let f = move |a: &Array| {
                let w = linalg::eigvals(a);
                &sum(&np::square(&np::imag(&w))) + &sum(&np::real(&w))
            };
            vec![systolic::grad(f).call(&x[0]).unwrap()]
        }),
        other => panic!("no expression for {other}"),
    }
}

fn eigvals_tolerance(d: DType, _case: &str) -> f64 {
    match d {
        DType::F64 | DType::C128 => 1e-9,
        _ => 1e-5,
    }
}

/// Gradients through `eigvals` (JAX's rule λ̇ = diag(V⁻¹·ȧ·V)) equal JAX's, real and complex,
/// batched, eagerly and under `jit`.
#[test]
fn eigvals_gradients_match_jax() {
    crate::golden_util::assert_every_case_is_run(eigvals_grad_golden(), &[""], eigvals_loss);
    crate::golden_util::run_cases_with(
        eigvals_grad_golden(),
        &[""],
        eigvals_loss,
        eigvals_tolerance,
    );
}

/// As in JAX, eigenvectors have no derivative: differentiating through `eig` is an error
/// naming its LAPACK call, not a wrong gradient.
#[test]
fn eig_refuses_differentiation_as_jax() {
    let a = Array::from_vec(vec![2.0f64, 1.0, 0.5, 3.0], &[2, 2]);
    let f = |a: &Array| {
        let (w, _) = linalg::eig(a);
        systolic::numpy::sum(&systolic::numpy::real(&w), None, false)
    };
    let e = systolic::grad(f).call(&a).unwrap_err().to_string();
    assert!(
        e.contains("lapack_dgeev_ffi") && e.contains("no rule"),
        "{e}"
    );
}
