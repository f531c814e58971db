//! Differentiation through complex numbers against JAX 0.10.2
//! (`tests/data/complex_grad_jax0.10.2.json`, made by `scripts/complex_grad_goldens.py`),
//! eagerly and under `jit`: `grad` of real losses of complex inputs (JAX returns the
//! conjugate of the steepest-ascent direction), `grad(holomorphic)`, `jvp`/`vjp` with complex
//! tangents and cotangents, through FFTs, products and the real↔complex ops, and `vmap` of a
//! complex gradient. Also JAX's errors for complex outputs and holomorphic misuse.

use crate::golden_util::{assert_every_case_is_run, run_cases_with, OpFn};
use serde_json::Value;
use systolic::numpy::{self as np, fft::Norm};
use systolic::Complex32;
use systolic::{grad, jvp, lax, vjp, vmap, Arg, Array};
use systolic_ir::DType;

fn golden() -> &'static Value {
    static G: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        serde_json::from_str(include_str!("data/complex_grad_jax0.10.2.json")).unwrap()
    })
}

/// Gradients chain a few transcendental functions and FFTs: a little looser than one op.
fn tolerance(d: DType, _case: &str) -> f64 {
    match d {
        DType::F32 | DType::C64 => 2e-5,
        DType::F64 | DType::C128 => 1e-12,
        _ => 0.0,
    }
}

fn sum(x: &Array) -> Array {
    np::sum(x, None, false)
}

fn abs2(x: &Array) -> Array {
    np::square(&np::abs(x))
}

fn fft(x: &Array) -> Array {
    np::fft::fft(x, None, -1, Norm::Backward)
}

/// The gradient of a one-argument real loss.
fn grad1(f: fn(&Array) -> Array) -> OpFn {
    Box::new(move |x| vec![grad(f).call(&x[0]).unwrap()])
}

/// The gradients of a two-argument real loss.
fn grad2(f: fn(&Array, &Array) -> Array) -> OpFn {
    Box::new(move |x| {
        let (a, b) = grad(move |(a, b): &(Array, Array)| f(a, b))
            .call(&(x[0].clone(), x[1].clone()))
            .unwrap();
        vec![a, b]
    })
}

/// The complex derivative of a holomorphic function to a complex scalar.
fn holo(f: fn(&Array) -> Array) -> OpFn {
    Box::new(move |x| vec![grad(f).holomorphic(true).call(&x[0]).unwrap()])
}

fn op(name: &str) -> OpFn {
    match name {
        "grad_abs2" => grad1(|z| sum(&abs2(z))),
        "grad_rfft_power" => grad1(|x| sum(&abs2(&np::fft::rfft(x, None, -1, Norm::Backward)))),
        "grad_fft_filter" => grad2(|z, k| {
            let y = np::fft::ifft(&(&fft(z) * k), None, -1, Norm::Backward);
            sum(&np::abs(&y))
        }),
        "grad_parts_c128" => grad1(|z| {
            let re = np::real(z);
            let parts = sum(&(&np::square(&re) * &np::imag(z)));
            &parts + &sum(&np::real(&np::exp(z)))
        }),
        "grad_complex_from_parts" => grad2(|x, y| sum(&np::abs(&lax::complex(x, y)))),
        "grad_astype" => grad1(|x| {
            let z = &np::astype(x, DType::C64) * Complex32::new(1.0, 2.0);
            sum(&np::abs(&z))
        }),
        "grad_matmul" => grad2(|a, b| sum(&abs2(&np::matmul(a, b)))),
        "grad_fft2_conj" => grad1(|z| {
            let f = np::fft::fft2(z, None, &[-2, -1], Norm::Backward);
            np::real(&sum(&(&f * &np::conj(z))))
        }),
        "grad_irfft" => grad1(|z| {
            let y = np::fft::irfft(z, None, -1, Norm::Backward);
            sum(&(&np::square(&y) * &np::arange_f(0.0, 8.0, 1.0)))
        }),
        "grad_angle_mixed" => grad2(|z, w| {
            let a = &np::angle(z) * w;
            sum(&(&a + &np::imag(&(z * z))))
        }),
        "holo_sin" => holo(|z| &np::sin(z) * z),
        "holo_poly" => holo(|z| {
            let cube = &(z * z) * z;
            sum(&(&cube - &(z * Complex32::new(0.0, 2.0))))
        }),
        "holo_fft" => holo(|z| sum(&(&fft(z) * &np::arange_f(0.0, 6.0, 1.0)))),
        "jvp_fft" => Box::new(|x| {
            let f = |z: &Array| &fft(z) * z;
            let (y, t) = jvp(f, &x[0], &x[1]).unwrap();
            vec![y, t]
        }),
        "vjp_exp_conj" => Box::new(|x| {
            let (y, pull) = vjp(|z: &Array| &np::exp(z) * &np::conj(z), &x[0]).unwrap();
            vec![y, pull.call(&x[1]).unwrap()]
        }),
        "vjp_rfft" => Box::new(|x| {
            let (y, pull) = vjp(
                |x: &Array| np::fft::rfft(x, None, -1, Norm::Backward),
                &x[0],
            )
            .unwrap();
            vec![y, pull.call(&x[1]).unwrap()]
        }),
        "vmap_grad_abs2" => Box::new(|x| {
            let g = |z: &Array| grad(|z: &Array| sum(&abs2(&fft(z)))).call(z).unwrap();
            vec![vmap(g).call(&x[0]).unwrap()]
        }),
        other => panic!("no expression for case {other}"),
    }
}

#[test]
fn complex_gradients_match_jax() {
    assert_every_case_is_run(golden(), &["grad_", "holo_", "jvp_", "vjp_", "vmap_"], op);
    run_cases_with(
        golden(),
        &["grad_", "holo_", "jvp_", "vjp_", "vmap_"],
        op,
        tolerance,
    );
}

/// JAX's checks: `grad` needs a real output (or `holomorphic` with a complex one), and
/// `holomorphic` needs complex inputs; `argnums` keeps them.
#[test]
fn complex_grad_errors_name_the_mistake() {
    let z = Array::from_vec(vec![Complex32::new(1.0, 2.0)], &[1]);
    let e = grad(|z: &Array| sum(&(z * z)))
        .call(&z)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("real-valued outputs") && e.contains("complex64") && e.contains("holomorphic"),
        "{e}"
    );
    let x = Array::from_vec(vec![1.0f32], &[1]);
    let e = grad(|x: &Array| sum(&np::astype(x, DType::C64)))
        .holomorphic(true)
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("holomorphic") && e.contains("complex dtype") && e.contains("float32"),
        "{e}"
    );
    let e = grad(|z: &Array| sum(&np::abs(z)))
        .holomorphic(true)
        .call(&z)
        .unwrap_err()
        .to_string();
    assert!(e.contains("outputs with complex dtype"), "{e}");
    let e = grad(|(z, x): &(Array, Array)| sum(&(z * x)))
        .holomorphic(true)
        .argnums(Arg::<1>)
        .call(&(z.clone(), x.clone()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("complex dtype") && e.contains("float32"), "{e}");
}

/// jacfwd/jacrev are Jacobians of real maps, as in JAX: complex inputs (and jacrev's complex
/// outputs) are refused, naming the dtype.
#[test]
fn jacobians_refuse_complex_values() {
    let z = Array::from_vec(vec![Complex32::new(1.0, 2.0)], &[1]);
    let e = systolic::jacfwd(|z: &Array| np::abs(z))
        .call(&z)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("jacfwd requires real-valued inputs") && e.contains("complex64"),
        "{e}"
    );
    let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let e = systolic::jacrev(|x: &Array| np::fft::fft(x, None, -1, Norm::Backward))
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("jacrev requires real-valued outputs") && e.contains("complex64"),
        "{e}"
    );
    // Real inputs to complex outputs are fine forward: the columns are complex.
    let j = systolic::jacfwd(|x: &Array| np::fft::fft(x, None, -1, Norm::Backward))
        .call(&x)
        .unwrap();
    assert_eq!((j.dtype(), j.shape()), (DType::C64, &[2i64, 2][..]));
    let j = j.to_vec::<Complex32>().unwrap();
    // The DFT matrix of length 2: [[1, 1], [1, -1]].
    let want = [1.0, 1.0, 1.0, -1.0].map(|r| Complex32::new(r, 0.0));
    assert_eq!(j, want);
}
