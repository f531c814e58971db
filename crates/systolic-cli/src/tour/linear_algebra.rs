//! Tour stage: `numpy::linalg` and `numpy::fft` under `jit` and `grad`, and gradients of
//! complex parameters. Batched solves and decompositions run on the LAPACK custom calls JAX
//! emits on CPU (checked by their residuals and invariants), the gradient of `slogdet` is
//! checked against `inv(a)ᵀ`, and a complex frequency response is fitted by gradient descent
//! through `rfft`/`irfft`, with JAX's convention for complex gradients (`grad` returns the
//! conjugate of the steepest-ascent direction, so the descent step is `H − η·conj(g)`).

use super::Stage;
use crate::error::CliError;
use systolic::numpy::{self as np, fft::Norm};
use systolic::{grad, jit, jit_fallible, value_and_grad, Array, Complex32};

/// Stage: linear algebra, FFTs and complex gradients.
pub struct LinearAlgebra;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("tour linear algebra: {e}"))
}

/// Systems in the batch, their size, and the tall matrix's shape.
const BATCH: usize = 8;
const N: usize = 32;
const TALL: (usize, usize) = (64, 16);
/// Signals, their length, and the descent's steps and rate.
const SIGNALS: usize = 16;
const LENGTH: usize = 64;
const STEPS: usize = 60;
const RATE: f32 = 12.0;

/// Deterministic values in [-1, 1] (no key needed for a fixed demonstration).
fn wave(n: usize, a: f32, b: f32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let i = i as f32;
            (a * i * i + b * i).sin() * 0.5 + (1.3 * i).cos() * 0.5
        })
        .collect()
}

/// Chirps `sin(a·i² + b·i)`: nearly flat spectra, so every frequency bin of the fit below is
/// excited and plain gradient descent converges on all of them at one rate.
fn chirp(n: usize, a: f32, b: f32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let i = i as f32;
            (a * i * i + b * i).sin()
        })
        .collect()
}

/// `BATCH` symmetric positive definite matrices `m·mᵀ + N·I`.
fn spd_batch() -> Vec<f32> {
    let m = wave(BATCH * N * N, 0.37, 0.11);
    let mut a = vec![0.0f32; BATCH * N * N];
    for b in 0..BATCH {
        let m = &m[b * N * N..(b + 1) * N * N];
        for i in 0..N {
            for j in 0..N {
                let dot: f32 = (0..N).map(|k| m[i * N + k] * m[j * N + k]).sum();
                a[b * N * N + i * N + j] = dot + if i == j { N as f32 } else { 0.0 };
            }
        }
    }
    a
}

fn max_abs(x: &Array) -> Result<f32, CliError> {
    let v = np::max(&np::abs(x), None, false);
    Ok(v.to_vec::<f32>().map_err(fail)?[0])
}

impl Stage for LinearAlgebra {
    fn title(&self) -> &'static str {
        "Linear algebra, FFTs and complex gradients: numpy.linalg and numpy.fft under jit and grad"
    }

    fn run(&self) -> Result<(), CliError> {
        let spd = spd_batch();
        decompositions(&spd)?;
        slogdet_gradient(&spd[..N * N])?;
        fit_frequency_response()
    }
}

/// Batched solve, eigh and svd, checked by residuals and invariants.
fn decompositions(spd: &[f32]) -> Result<(), CliError> {
    let a = Array::from_vec(spd.to_vec(), &[BATCH as i64, N as i64, N as i64]);
    let b = Array::from_vec(wave(BATCH * N, 0.21, 0.5), &[BATCH as i64, N as i64, 1]);
    let solve = jit(|(a, b): &(Array, Array)| np::linalg::solve(a, b));
    let text = solve
        .lower(&(a.clone(), b.clone()))
        .map_err(fail)?
        .as_text();
    let x = solve.call(&(a.clone(), b.clone())).map_err(fail)?;
    let residual = max_abs(&(&np::matmul(&a, &x) - &b))? / max_abs(&b)?;
    let calls = lapack_calls(&text);
    outln!(
        "  solve of {BATCH} systems {N}×{N} under jit, lowered to LAPACK custom calls as JAX \
         lowers on CPU ({}): max residual {residual:.1e} of max |b|",
        calls.join(", ")
    );
    let (w, v) = np::linalg::eigh(&a);
    let vt = np::swapaxes(&v, -1, -2);
    let rebuilt = np::matmul(&(&v * &np::expand_dims(&w, -2)), &vt);
    let eigh_error = max_abs(&(&rebuilt - &a))? / max_abs(&a)?;
    outln!("  eigh of the batch: ‖V·diag(w)·Vᵀ − A‖∞ / ‖A‖∞ = {eigh_error:.1e}");
    let tall = Array::from_vec(
        wave(TALL.0 * TALL.1, 0.13, 0.7),
        &[TALL.0 as i64, TALL.1 as i64],
    );
    let (_, s, _) = np::linalg::svd(&tall, false, false);
    // The singular values are the square roots of the Gram matrix's eigenvalues.
    let gram = np::matmul(&np::transpose(&tall, None), &tall);
    let from_gram = np::sqrt(&np::flip(&np::linalg::eigvalsh(&gram), None));
    let svd_error = max_abs(&(&s - &from_gram))? / max_abs(&s)?;
    outln!(
        "  svd of a {}×{} matrix: singular values vs √eig(AᵀA), max relative gap {svd_error:.1e}",
        TALL.0,
        TALL.1
    );
    if residual > 1e-4 || eigh_error > 1e-5 || svd_error > 1e-4 {
        return Err(fail(format!(
            "decompositions off: residual {residual:e}, eigh {eigh_error:e}, svd {svd_error:e}"
        )));
    }
    if calls.is_empty() {
        return Err(fail(format!("jit(solve) has no LAPACK call:\n{text}")));
    }
    Ok(())
}

/// The distinct `@lapack_*` custom-call targets of a lowered module, in order.
fn lapack_calls(text: &str) -> Vec<String> {
    let mut calls: Vec<String> = vec![];
    for piece in text.split("custom_call @").skip(1) {
        let name: String = piece
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.starts_with("lapack_") && !calls.contains(&name) {
            calls.push(name);
        }
    }
    calls
}

/// `grad` of `log|det a|` is `inv(a)ᵀ` (JAX's slogdet rule).
fn slogdet_gradient(spd: &[f32]) -> Result<(), CliError> {
    let a = Array::from_vec(spd.to_vec(), &[N as i64, N as i64]);
    let g = grad(|a: &Array| np::linalg::slogdet(a).1)
        .call(&a)
        .map_err(fail)?;
    let want = np::transpose(&np::linalg::inv(&a), None);
    let gap = max_abs(&(&g - &want))? / max_abs(&want)?;
    outln!("  grad of slogdet(A) vs inv(A)ᵀ ({N}×{N}): max relative gap {gap:.1e}");
    if gap > 1e-4 {
        return Err(fail(format!("slogdet gradient off by {gap:e}")));
    }
    Ok(())
}

/// Gradient descent on a complex frequency response `H` so that `irfft(rfft(x)·H)` matches
/// signals filtered by a known response.
fn fit_frequency_response() -> Result<(), CliError> {
    let bins = LENGTH / 2 + 1;
    let shape = [SIGNALS as i64, LENGTH as i64];
    let x = Array::from_vec(chirp(SIGNALS * LENGTH, 0.37, 0.11), &shape);
    let truth: Vec<Complex32> = (0..bins)
        .map(|k| {
            let k = k as f32;
            // (A real value at the last bin: irfft ignores its imaginary part.)
            let phase = if k as usize == bins - 1 { 0.0 } else { 0.3 * k };
            Complex32::from_polar((-k / 12.0).exp(), phase)
        })
        .collect();
    let truth = Array::from_vec(truth, &[bins as i64]);
    let filter = |x: &Array, h: &Array| {
        let spectrum = np::fft::rfft(x, None, -1, Norm::Backward);
        np::fft::irfft(&(&spectrum * h), Some(LENGTH as i64), -1, Norm::Backward)
    };
    let y = filter(&x, &truth);
    let step = jit_fallible(move |h: &Array| {
        let loss = |h: &Array| np::mean(&np::square(&(&filter(&x, h) - &y)), None, false);
        let (l, g) = value_and_grad(loss).call(h)?;
        Ok::<_, systolic::Error>((l, h - &(&np::conj(&g) * RATE)))
    });
    outln!(
        "  fitting a complex response H ({bins} bins) to {SIGNALS} filtered signals of length \
         {LENGTH}: loss = mean|irfft(rfft(x)·H) − y|², step H − {RATE}·conj(grad), under jit:"
    );
    let mut h = np::zeros(&[bins as i64], systolic_ir::DType::C64);
    let mut losses = vec![];
    for t in 0..STEPS {
        let (l, next) = step.call(&h).map_err(fail)?;
        let l = l.to_vec::<f32>().map_err(fail)?[0];
        if t % 20 == 0 {
            outln!("    step {t:>2}: loss {l:.3e}");
        }
        losses.push(l);
        h = next;
    }
    let gap = max_abs(&(&h - &truth))?;
    let last = *losses.last().unwrap_or(&f32::NAN);
    outln!(
        "    step {:>2}: loss {last:.3e}; max |H − H*| = {gap:.1e}",
        STEPS - 1
    );
    if !(last < losses[0] * 1e-6 && gap < 1e-3) {
        return Err(fail(format!(
            "the fit did not converge: loss {} → {last}, |H − H*| {gap}",
            losses[0]
        )));
    }
    Ok(())
}
