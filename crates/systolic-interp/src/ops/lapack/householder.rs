//! `geqrf` (Householder QR) and `orgqr` (forming Q from the reflectors), written out here
//! rather than on faer: JAX reads `geqrf`'s packed output itself (`R` is its upper triangle,
//! `orgqr` and `householder_product` take the reflectors), so the reflectors must follow
//! LAPACK's conventions exactly — `H(i) = I − τ·v·vᴴ` with `v[i] = 1` implied,
//! `β = −sign(Re α)·‖(α, x)‖` and `τ = (β − α)/β` (`zlarfg`; for real types `τ` is real and this
//! is `dlarfg`) — which faer's blocked QR does not promise. Unblocked (`zgeqr2`/`zung2r`), in
//! complex f64 for every element type (the imaginary parts of a real matrix stay zero, so the
//! arithmetic is the real routines') and rounded once; QR is not on a hot path of the programs
//! JAX emits.

use super::driver::{concat, Exec, LapackOut, Matrices, Scalar};
use num_complex::Complex64;

pub(super) const ZERO: Complex64 = Complex64::new(0.0, 0.0);
pub(super) const ONE: Complex64 = Complex64::new(1.0, 0.0);

/// Column-major complex f64 copy of a row-major `m`×`n` matrix.
fn columns<T: Scalar>(m: usize, n: usize, a: &[T]) -> Vec<Complex64> {
    let mut c = vec![ZERO; m * n];
    for i in 0..m {
        for j in 0..n {
            c[j * m + i] = a[i * n + j].to_c64();
        }
    }
    c
}

/// Row-major `T` copy of a column-major `m`×`n` matrix.
fn rows<T: Scalar>(m: usize, n: usize, c: &[Complex64]) -> Vec<T> {
    let mut a = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            a.push(T::from_c64(c[j * m + i]));
        }
    }
    a
}

/// Applies `H = I − τ·v·vᴴ` (`v` = column `col` of `c` from row `from`, `v[from] = 1`) from the
/// left to columns `first..n` of `c`, rows `from..m`.
#[allow(clippy::too_many_arguments)]
fn reflect(
    c: &mut [Complex64],
    m: usize,
    n: usize,
    col: usize,
    from: usize,
    tau: Complex64,
    first: usize,
) {
    if tau == ZERO {
        return;
    }
    let (v_part, rest) = c.split_at_mut(first * m);
    let v = &v_part[col * m..col * m + m];
    let v_at = |i: usize| if i == from { ONE } else { v[i] };
    for j in 0..n - first {
        let target = &mut rest[j * m..(j + 1) * m];
        let w: Complex64 = (from..m).map(|i| v_at(i).conj() * target[i]).sum();
        let s = tau * w;
        for (i, t) in target.iter_mut().enumerate().skip(from) {
            *t -= s * v_at(i);
        }
    }
}

/// LAPACK's `zlarfg`: the reflector `H = I − τ·v·vᴴ` (`v = [1; x']`) with
/// `Hᴴ·[α; x] = [β; 0]`, `β` real. Scales `x` into `x'` in place and returns `(β, τ)`; `τ = 0`
/// (and `β = α`) when `x` is zero and `α` real, where no reflection is needed.
pub(super) fn larfg(alpha: Complex64, x: &mut [Complex64]) -> (f64, Complex64) {
    let xnorm = x.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    if xnorm == 0.0 && alpha.im == 0.0 {
        return (alpha.re, ZERO);
    }
    let norm = alpha.re.hypot(alpha.im).hypot(xnorm);
    let beta = -norm.copysign(alpha.re);
    let tau = Complex64::new((beta - alpha.re) / beta, -alpha.im / beta);
    let scale = ONE / (alpha - beta);
    x.iter_mut().for_each(|z| *z *= scale);
    (beta, tau)
}

/// QR factorisation of each matrix: `[a with R above and the reflectors below the diagonal, tau]`.
pub fn geqrf<T: Scalar>(a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let (m, n) = (a.rows, a.cols);
    let k = m.min(n);
    let pieces = exec.per_matrix(a.batch, |b| {
        let mut c = columns(m, n, a.get(b));
        let mut tau = vec![ZERO; k];
        for i in 0..k {
            let col = &mut c[i * m..(i + 1) * m];
            let (head, x) = col[i..].split_at_mut(1);
            let (beta, t) = larfg(head[0], x);
            if t == ZERO {
                continue;
            }
            tau[i] = t;
            col[i] = Complex64::new(beta, 0.0);
            // H(i)ᴴ is applied to the rest, as zgeqr2 does.
            reflect(&mut c, m, n, i, i, tau[i].conj(), i + 1);
        }
        (
            rows::<T>(m, n, &c),
            tau.into_iter().map(T::from_c64).collect::<Vec<_>>(),
        )
    });
    let (factors, taus): (Vec<_>, Vec<_>) = pieces.into_iter().unzip();
    vec![
        LapackOut::Same(concat(factors.into_iter())),
        LapackOut::Same(concat(taus.into_iter())),
    ]
}

/// The first `n` columns of `Q = H(0)·…·H(k-1)` for each matrix: `[q]` (`orgqr`, or `ungqr`
/// for complex types).
pub fn orgqr<T: Scalar>(a: Matrices<'_, T>, tau: &[T], exec: Exec) -> Vec<LapackOut<T>> {
    let (m, n) = (a.rows, a.cols);
    // `tau` is one vector of k per matrix (checked against `a` by the caller).
    let k = tau.len() / a.batch.max(1);
    let pieces = exec.per_matrix(a.batch, |b| {
        let mut c = columns(m, n, a.get(b));
        let t = &tau[b * k..(b + 1) * k];
        // Columns k..n start as the identity's.
        for j in k..n {
            let col = &mut c[j * m..(j + 1) * m];
            col.iter_mut().for_each(|x| *x = ZERO);
            if j < m {
                col[j] = ONE;
            }
        }
        for i in (0..k).rev() {
            let tau_i = t[i].to_c64();
            if i + 1 < n {
                c[i * m + i] = ONE;
                reflect(&mut c, m, n, i, i, tau_i, i + 1);
            }
            let col = &mut c[i * m..(i + 1) * m];
            col[i + 1..].iter_mut().for_each(|x| *x *= -tau_i);
            col[i] = ONE - tau_i;
            col[..i].iter_mut().for_each(|x| *x = ZERO);
        }
        rows::<T>(m, n, &c)
    });
    vec![LapackOut::Same(concat(pieces.into_iter()))]
}
