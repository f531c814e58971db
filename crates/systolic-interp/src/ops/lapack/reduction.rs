//! `gehrd` (reduction to upper Hessenberg form) and `sytrd`/`hetrd` (reduction of a Hermitian
//! matrix to real tridiagonal form), in LAPACK's packed output: JAX reads the reflectors back
//! (`jax.scipy.linalg.hessenberg` forms `Q` with `orgqr` from them), so they follow `zgehd2`/
//! `zhetd2` exactly — `Hᴴ·A·H` with `H(i) = I − τᵢ·v·vᴴ` from [`larfg`], `A = Q·T·Qᴴ`,
//! `Q = H(0)·H(1)·…` — unblocked, in complex f64 for every element type (the real routines'
//! arithmetic when the imaginary parts are zero) and rounded once, as `householder.rs` does.
//! [`hessenberg`] and [`hessenberg_q`] are also the first step of the Schur decomposition
//! (`schur.rs`).

use super::driver::{Exec, LapackOut, Matrices, Scalar};
use super::householder::{larfg, ONE, ZERO};
use num_complex::Complex64;

/// A row-major `n`×`n` complex f64 matrix.
pub(super) struct Square {
    pub n: usize,
    pub a: Vec<Complex64>,
}

impl Square {
    pub(super) fn of<T: Scalar>(n: usize, src: &[T]) -> Square {
        Square {
            n,
            a: src.iter().map(|x| x.to_c64()).collect(),
        }
    }

    pub(super) fn at(&mut self, i: usize, j: usize) -> &mut Complex64 {
        &mut self.a[i * self.n + j]
    }

    /// `A := Hᴴ·A·H` for `H = I − τ·v·vᴴ` with `v` zero outside `support`: the right product
    /// on `rows`, the left one on `cols` (LAPACK's `zlarf` calls skip what is known zero).
    fn similarity(
        &mut self,
        v: &[Complex64],
        tau: Complex64,
        support: std::ops::Range<usize>,
        rows: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
    ) {
        if tau == ZERO {
            return;
        }
        let n = self.n;
        // A·H = A − τ·(A·v)·vᴴ.
        for r in rows {
            let row = &mut self.a[r * n..(r + 1) * n];
            let y: Complex64 = support.clone().map(|c| row[c] * v[c]).sum();
            let s = tau * y;
            for c in support.clone() {
                row[c] -= s * v[c].conj();
            }
        }
        // Hᴴ·A = A − τ̄·v·(vᴴ·A).
        let tau_bar = tau.conj();
        for c in cols {
            let z: Complex64 = support
                .clone()
                .map(|r| v[r].conj() * self.a[r * n + c])
                .sum();
            let s = tau_bar * z;
            for r in support.clone() {
                self.a[r * n + c] -= s * v[r];
            }
        }
    }

    fn to_vec<T: Scalar>(&self) -> Vec<T> {
        self.a.iter().map(|&z| T::from_c64(z)).collect()
    }
}

/// Reduces rows and columns `lo..=hi` of `w` to upper Hessenberg form in place (`zgehd2`),
/// leaving the reflectors below the subdiagonal; returns `τ` (`n − 1` of them, zero outside
/// the range).
pub(super) fn hessenberg(w: &mut Square, lo: usize, hi: usize) -> Vec<Complex64> {
    let n = w.n;
    let mut tau = vec![ZERO; n.saturating_sub(1)];
    for i in lo..hi {
        let mut x: Vec<Complex64> = (i + 2..=hi).map(|r| *w.at(r, i)).collect();
        let (beta, t) = larfg(*w.at(i + 1, i), &mut x);
        let mut v = vec![ZERO; n];
        v[i + 1] = ONE;
        v[i + 2..=hi].copy_from_slice(&x);
        w.similarity(&v, t, i + 1..hi + 1, 0..hi + 1, i + 1..n);
        *w.at(i + 1, i) = Complex64::new(beta, 0.0);
        for (r, &xr) in (i + 2..=hi).zip(&x) {
            *w.at(r, i) = xr;
        }
        tau[i] = t;
    }
    tau
}

/// `Q = H(0)·H(1)·…` of [`hessenberg`]'s reflectors (stored below the subdiagonal of `w`).
pub(super) fn hessenberg_q(w: &Square, tau: &[Complex64]) -> Square {
    let n = w.n;
    let mut q = Square {
        n,
        a: vec![ZERO; n * n],
    };
    (0..n).for_each(|i| *q.at(i, i) = ONE);
    // Q = H(0)·(H(1)·(…·H(k−1))): the last reflector first, each from the left.
    for (i, &t) in tau.iter().enumerate().rev() {
        if t == ZERO {
            continue;
        }
        let mut v = vec![ZERO; n];
        v[i + 1] = ONE;
        for (r, vr) in v.iter_mut().enumerate().skip(i + 2) {
            *vr = w.a[r * n + i];
        }
        // H·Q = Q − τ·v·(vᴴ·Q).
        for c in 0..n {
            let z: Complex64 = (i + 1..n).map(|r| v[r].conj() * q.a[r * n + c]).sum();
            let s = t * z;
            for (r, &vr) in v.iter().enumerate().skip(i + 1) {
                q.a[r * n + c] -= s * vr;
            }
        }
    }
    q
}

/// Hessenberg reduction of each matrix: `[a with H and the reflectors, tau, info]`.
pub fn gehrd<T: Scalar>(
    a: Matrices<'_, T>,
    range: Option<(i64, i64)>,
    exec: Exec,
) -> Vec<LapackOut<T>> {
    let n = a.rows;
    // LAPACK's 1-based ilo/ihi (checked against n by the call's types).
    let (lo, hi) = match range {
        Some((low, high)) => ((low - 1).max(0) as usize, (high - 1).max(0) as usize),
        None => (0, n.saturating_sub(1)),
    };
    let pieces = exec.per_matrix(a.batch, |b| {
        let mut w = Square::of(n, a.get(b));
        let tau = if n == 0 {
            vec![]
        } else {
            hessenberg(&mut w, lo, hi.min(n - 1))
        };
        (w.to_vec::<T>(), tau)
    });
    let mut out = Vec::with_capacity(a.data.len());
    let mut taus = Vec::new();
    for (w, tau) in pieces {
        out.extend(w);
        taus.extend(tau.into_iter().map(T::from_c64));
    }
    vec![
        LapackOut::Same(out),
        LapackOut::Same(taus),
        LapackOut::Int(vec![0; a.batch]),
    ]
}

/// Tridiagonal reduction of each Hermitian matrix (its `uplo` triangle read):
/// `[a with d, e and the reflectors in that triangle, d, e, tau, info]`.
pub fn sytrd<T: Scalar>(lower: bool, a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let n = a.rows;
    let pieces = exec.per_matrix(a.batch, |b| {
        let src = a.get(b);
        let input = Square::of(n, src);
        // The Hermitian matrix the triangle stands for (its diagonal real).
        let mut w = Square {
            n,
            a: vec![ZERO; n * n],
        };
        for i in 0..n {
            for j in 0..n {
                let from_triangle = if lower { i >= j } else { i <= j };
                *w.at(i, j) = if i == j {
                    Complex64::new(input.a[i * n + i].re, 0.0)
                } else if from_triangle {
                    input.a[i * n + j]
                } else {
                    input.a[j * n + i].conj()
                };
            }
        }
        let mut out = input;
        let mut e = vec![0.0; n.saturating_sub(1)];
        let mut tau = vec![ZERO; n.saturating_sub(1)];
        let steps: Vec<usize> = if lower {
            (0..n.saturating_sub(1)).collect()
        } else {
            (0..n.saturating_sub(1)).rev().collect()
        };
        for i in steps {
            // Lower: annihilate column i below row i+1. Upper: column i+1 above row i.
            let (col, pivot, rest) = if lower {
                (i, i + 1, (i + 2..n).collect::<Vec<_>>())
            } else {
                (i + 1, i, (0..i).collect::<Vec<_>>())
            };
            let mut x: Vec<Complex64> = rest.iter().map(|&r| *w.at(r, col)).collect();
            let (beta, t) = larfg(*w.at(pivot, col), &mut x);
            let mut v = vec![ZERO; n];
            v[pivot] = ONE;
            for (&r, &xr) in rest.iter().zip(&x) {
                v[r] = xr;
            }
            let support = if lower { i + 1..n } else { 0..i + 1 };
            w.similarity(&v, t, support.clone(), support.clone(), support);
            *w.at(pivot, col) = Complex64::new(beta, 0.0);
            *w.at(col, pivot) = Complex64::new(beta, 0.0);
            for &r in &rest {
                *w.at(r, col) = ZERO;
                *w.at(col, r) = ZERO;
            }
            e[i] = beta;
            tau[i] = t;
            *out.at(pivot, col) = Complex64::new(beta, 0.0);
            for (&r, &xr) in rest.iter().zip(&x) {
                *out.at(r, col) = xr;
            }
        }
        let d: Vec<f64> = (0..n).map(|i| w.a[i * n + i].re).collect();
        for (i, &di) in d.iter().enumerate() {
            *out.at(i, i) = Complex64::new(di, 0.0);
        }
        (out.to_vec::<T>(), d, e, tau)
    });
    let part = |x: f64| <T::Real as super::driver::Real>::from_f64(x);
    let (mut out, mut ds, mut es, mut taus) = (vec![], vec![], vec![], vec![]);
    for (o, d, e, t) in pieces {
        out.extend(o);
        ds.extend(d.into_iter().map(part));
        es.extend(e.into_iter().map(part));
        taus.extend(t.into_iter().map(T::from_c64));
    }
    vec![
        LapackOut::Same(out),
        LapackOut::Real(ds),
        LapackOut::Real(es),
        LapackOut::Same(taus),
        LapackOut::Int(vec![0; a.batch]),
    ]
}
