//! `geqrf` (Householder QR) and `orgqr` (forming Q from the reflectors), written out here
//! rather than on faer: JAX reads `geqrf`'s packed output itself (`R` is its upper triangle,
//! `orgqr` and `householder_product` take the reflectors), so the reflectors must follow
//! LAPACK's conventions exactly — `H(i) = I − τ·v·vᵀ` with `v[i] = 1` implied, `β = −sign(α)·‖x‖`
//! (`dlarfg`) — which faer's blocked QR does not promise. Unblocked (`dgeqr2`/`dorg2r`), in f64
//! and rounded once; QR is not on a hot path of the programs JAX emits.

use super::driver::{concat, Exec, LapackOut, Matrices, Real};

/// Column-major f64 copy of a row-major `m`×`n` matrix.
fn columns<T: Real>(m: usize, n: usize, a: &[T]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[j * m + i] = a[i * n + j].to_f64();
        }
    }
    c
}

/// Row-major `T` copy of a column-major `m`×`n` matrix.
fn rows<T: Real>(m: usize, n: usize, c: &[f64]) -> Vec<T> {
    let mut a = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            a.push(T::from_f64(c[j * m + i]));
        }
    }
    a
}

/// Applies `H = I − τ·v·vᵀ` (`v` = column `col` of `c` from row `from`, `v[from] = 1`) from the
/// left to columns `first..n` of `c`, rows `from..m`.
fn reflect(c: &mut [f64], m: usize, n: usize, col: usize, from: usize, tau: f64, first: usize) {
    if tau == 0.0 {
        return;
    }
    let (v_part, rest) = c.split_at_mut(first * m);
    let v = &v_part[col * m..col * m + m];
    let v_at = |i: usize| if i == from { 1.0 } else { v[i] };
    for j in 0..n - first {
        let target = &mut rest[j * m..(j + 1) * m];
        let w: f64 = (from..m).map(|i| v_at(i) * target[i]).sum();
        let s = tau * w;
        for (i, t) in target.iter_mut().enumerate().skip(from) {
            *t -= s * v_at(i);
        }
    }
}

/// QR factorisation of each matrix: `[a with R above and the reflectors below the diagonal, tau]`.
pub fn geqrf<T: Real>(a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let (m, n) = (a.rows, a.cols);
    let k = m.min(n);
    let pieces = exec.per_matrix(a.batch, |b| {
        let mut c = columns(m, n, a.get(b));
        let mut tau = vec![0.0; k];
        for i in 0..k {
            // dlarfg on (c[i,i], c[i+1.., i]).
            let col = &mut c[i * m..(i + 1) * m];
            let alpha = col[i];
            let xnorm = col[i + 1..].iter().map(|x| x * x).sum::<f64>().sqrt();
            if xnorm == 0.0 {
                continue;
            }
            let beta = -alpha.hypot(xnorm).copysign(alpha);
            tau[i] = (beta - alpha) / beta;
            let scale = 1.0 / (alpha - beta);
            col[i + 1..].iter_mut().for_each(|x| *x *= scale);
            col[i] = beta;
            reflect(&mut c, m, n, i, i, tau[i], i + 1);
        }
        (
            rows::<T>(m, n, &c),
            tau.into_iter().map(T::from_f64).collect::<Vec<_>>(),
        )
    });
    let (factors, taus): (Vec<_>, Vec<_>) = pieces.into_iter().unzip();
    vec![
        LapackOut::Float(concat(factors.into_iter())),
        LapackOut::Float(concat(taus.into_iter())),
    ]
}

/// The first `n` columns of `Q = H(0)·…·H(k-1)` for each matrix: `[q]`.
pub fn orgqr<T: Real>(a: Matrices<'_, T>, tau: &[T], exec: Exec) -> Vec<LapackOut<T>> {
    let (m, n) = (a.rows, a.cols);
    // `tau` is one vector of k per matrix (checked against `a` by the caller).
    let k = tau.len() / a.batch.max(1);
    let pieces = exec.per_matrix(a.batch, |b| {
        let mut c = columns(m, n, a.get(b));
        let t = &tau[b * k..(b + 1) * k];
        // Columns k..n start as the identity's.
        for j in k..n {
            let col = &mut c[j * m..(j + 1) * m];
            col.iter_mut().for_each(|x| *x = 0.0);
            if j < m {
                col[j] = 1.0;
            }
        }
        for i in (0..k).rev() {
            let tau_i = t[i].to_f64();
            if i + 1 < n {
                c[i * m + i] = 1.0;
                reflect(&mut c, m, n, i, i, tau_i, i + 1);
            }
            let col = &mut c[i * m..(i + 1) * m];
            col[i + 1..].iter_mut().for_each(|x| *x *= -tau_i);
            col[i] = 1.0 - tau_i;
            col[..i].iter_mut().for_each(|x| *x = 0.0);
        }
        rows::<T>(m, n, &c)
    });
    vec![LapackOut::Float(concat(pieces.into_iter()))]
}
