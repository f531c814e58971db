//! `gees`: the Schur decomposition `a = z·t·zᴴ` with `z` unitary (orthogonal for real types),
//! `jax.scipy.linalg.schur`. For complex types `t` is upper triangular; for real types it is
//! LAPACK's real Schur form: quasi-upper-triangular, a complex-conjugate pair of eigenvalues
//! as a 2×2 block `[[a, b], [c, a]]` with `b·c < 0` (standardised as LAPACK's `dlanv2` does),
//! real eigenvalues on the diagonal. JAX asks for no sorting (`sort = 'N'`), so `sdim` is 0.
//!
//! The steps are LAPACK's: Householder reduction to Hessenberg form (`reduction.rs`'s
//! `hessenberg`, whose reflectors form the first `z`), then QR iterations on the Hessenberg
//! matrix that deflate from the bottom: Francis double-shift steps on real matrices (the
//! bulge chased with 3-element reflectors, so the arithmetic stays real), single-shift steps
//! with Wilkinson's shift on complex ones; exceptional shifts every tenth iteration without
//! deflation, and failure (`info > 0`, NaN, as JAX then returns) after 30 iterations per
//! eigenvalue. Unblocked and in f64 (or complex f64), rounded once: faer has these iterations
//! but does not export them, and the programs JAX emits call `gees` on small matrices.

use super::driver::{Exec, LapackOut, Matrices, Real, Scalar};
use super::reduction::{hessenberg, hessenberg_q, Square};
use num_complex::Complex64;
use systolic_ir::lapack::LapackCall;

/// One matrix's results: `t`, `z`, eigenvalues, `info`.
type Piece = (Vec<Complex64>, Vec<Complex64>, Vec<Complex64>, i32);

/// Schur decomposition of each matrix.
pub fn gees<T: Scalar>(call: &LapackCall, a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let n = a.rows;
    let complex = T::DTYPE.is_complex();
    let pieces: Vec<Piece> = exec.per_matrix(a.batch, |b| one(n, a.get(b), complex));
    let (mut t, mut z, mut w, mut info) = (vec![], vec![], vec![], vec![]);
    for (tb, zb, wb, ib) in pieces {
        t.extend(tb.into_iter().map(T::from_c64));
        if call.eigenvectors {
            z.extend(zb.into_iter().map(T::from_c64));
        } else {
            z.extend(std::iter::repeat_n(T::from_f64(0.0), n * n));
        }
        w.extend(wb);
        info.push(ib);
    }
    let part = |x: f64| <T::Real as Real>::from_f64(x);
    let mut out = vec![LapackOut::Same(t), LapackOut::Same(z)];
    if complex {
        out.push(LapackOut::Complex(
            w.iter()
                .map(|v| num_complex::Complex::new(part(v.re), part(v.im)))
                .collect(),
        ));
    } else {
        out.push(LapackOut::Real(w.iter().map(|v| part(v.re)).collect()));
        out.push(LapackOut::Real(w.iter().map(|v| part(v.im)).collect()));
    }
    out.push(LapackOut::Int(vec![0; a.batch]));
    out.push(LapackOut::Int(info));
    out
}

fn one<T: Scalar>(n: usize, src: &[T], complex: bool) -> Piece {
    let nan = Complex64::new(f64::NAN, f64::NAN);
    if n == 0 {
        return (vec![], vec![], vec![], 0);
    }
    let mut w = Square::of(n, src);
    let tau = hessenberg(&mut w, 0, n - 1);
    let q = hessenberg_q(&w, &tau);
    // The Hessenberg matrix without the reflectors stored below its subdiagonal.
    for i in 0..n {
        for j in 0..i.saturating_sub(1) {
            *w.at(i, j) = Complex64::new(0.0, 0.0);
        }
    }
    let result = if complex {
        complex_qr(w, q)
    } else {
        let h: Vec<f64> = w.a.iter().map(|z| z.re).collect();
        let z: Vec<f64> = q.a.iter().map(|z| z.re).collect();
        real_qr(n, h, z).map(|(t, z, values)| {
            let c = |v: Vec<f64>| v.into_iter().map(|x| Complex64::new(x, 0.0)).collect();
            (c(t), c(z), values)
        })
    };
    match result {
        Some((t, z, values)) => (t, z, values, 0),
        None => (vec![nan; n * n], vec![nan; n * n], vec![nan; n], 1),
    }
}

/// Relative precision of the iterations' arithmetic (f64).
const EPS: f64 = f64::EPSILON;

/// Whether `sub`, a subdiagonal entry between diagonal entries of magnitudes `a` and `b`, is
/// negligible (relative to them, or to the matrix's largest entry `norm` where both are zero).
fn negligible(sub: f64, a: f64, b: f64, norm: f64) -> bool {
    let scale = if a + b > 0.0 { a + b } else { norm };
    sub <= EPS * scale || sub <= f64::MIN_POSITIVE
}

/// Francis double-shift QR on the real upper Hessenberg `h` (row-major `n`×`n`), accumulating
/// into `z`: the real Schur form, `z`, and the eigenvalues; `None` if it does not converge.
#[allow(clippy::type_complexity)]
fn real_qr(
    n: usize,
    mut h: Vec<f64>,
    mut z: Vec<f64>,
) -> Option<(Vec<f64>, Vec<f64>, Vec<Complex64>)> {
    let at = |i: usize, j: usize| i * n + j;
    let mut values = vec![Complex64::new(0.0, 0.0); n];
    let mut hi = n as isize - 1;
    let mut iterations = 0usize;
    let limit = 30 * n.max(1);
    let norm = h.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    while hi >= 0 {
        let end = hi as usize;
        // The start of the active block: the last negligible subdiagonal entry.
        let mut lo = end;
        while lo > 0 {
            let sub = h[at(lo, lo - 1)].abs();
            if negligible(sub, h[at(lo - 1, lo - 1)].abs(), h[at(lo, lo)].abs(), norm) {
                h[at(lo, lo - 1)] = 0.0;
                break;
            }
            lo -= 1;
        }
        if lo == end {
            values[end] = Complex64::new(h[at(end, end)], 0.0);
            hi -= 1;
            iterations = 0;
            continue;
        }
        if lo + 1 == end {
            let (re1, im1, re2, im2) = standardise_block(n, &mut h, &mut z, lo);
            values[lo] = Complex64::new(re1, im1);
            values[end] = Complex64::new(re2, im2);
            hi -= 2;
            iterations = 0;
            continue;
        }
        iterations += 1;
        if iterations > limit {
            return None;
        }
        // Shifts: the eigenvalues of the trailing 2×2 block (as their sum and product), or an
        // exceptional pair every tenth iteration.
        let (s, t) = if iterations.is_multiple_of(10) {
            let x = h[at(end, end - 1)].abs() + h[at(end - 1, end - 2)].abs();
            let a = 0.75 * x + h[at(end, end)];
            (2.0 * a, a * a - 0.4375 * x * x)
        } else {
            let (a, b) = (h[at(end - 1, end - 1)], h[at(end - 1, end)]);
            let (c, d) = (h[at(end, end - 1)], h[at(end, end)]);
            (a + d, a * d - b * c)
        };
        // The first column of (H − s₁)(H − s₂), three entries from row `lo`.
        let (h00, h01, h10, h11) = (
            h[at(lo, lo)],
            h[at(lo, lo + 1)],
            h[at(lo + 1, lo)],
            h[at(lo + 1, lo + 1)],
        );
        let mut x = h00 * h00 + h01 * h10 - s * h00 + t;
        let mut y = h10 * (h00 + h11 - s);
        let mut w = h10 * h[at(lo + 2, lo + 1)];
        for k in lo..end {
            let len = if k + 2 <= end { 3 } else { 2 };
            let mut v = [x, y, w];
            let Some(tau) = reflector(&mut v[..len]) else {
                if k + 1 < end {
                    x = h[at(k + 1, k)];
                    y = h[at(k + 2, k)];
                    w = if k + 3 <= end { h[at(k + 3, k)] } else { 0.0 };
                }
                continue;
            };
            // P = I − τ·v·vᵀ on rows k..k+len: from the left on columns max(lo, k−1)..n, from
            // the right on rows 0..=min(k+3, end), and into z's columns.
            let first_col = if k > lo { k - 1 } else { lo };
            for c in first_col..n {
                let dot: f64 = (0..len).map(|r| v[r] * h[at(k + r, c)]).sum();
                for r in 0..len {
                    h[at(k + r, c)] -= tau * v[r] * dot;
                }
            }
            let last_row = (k + 3).min(end);
            for r in 0..=last_row {
                let dot: f64 = (0..len).map(|c| h[at(r, k + c)] * v[c]).sum();
                for c in 0..len {
                    h[at(r, k + c)] -= tau * dot * v[c];
                }
            }
            for r in 0..n {
                let dot: f64 = (0..len).map(|c| z[at(r, k + c)] * v[c]).sum();
                for c in 0..len {
                    z[at(r, k + c)] -= tau * dot * v[c];
                }
            }
            if k > lo {
                // The bulge below the subdiagonal is gone.
                h[at(k + 1, k - 1)] = 0.0;
                if len == 3 {
                    h[at(k + 2, k - 1)] = 0.0;
                }
            }
            if k + 1 < end {
                x = h[at(k + 1, k)];
                y = h[at(k + 2, k)];
                w = if k + 3 <= end { h[at(k + 3, k)] } else { 0.0 };
            }
        }
    }
    Some((h, z, values))
}

/// A real reflector `P = I − τ·v·vᵀ` with `P·x = (β, 0, …)`: `v` (whose first entry becomes 1)
/// overwrites `x`; `None` when `x` is already of that form.
fn reflector(x: &mut [f64]) -> Option<f64> {
    let tail: f64 = x[1..].iter().map(|v| v * v).sum();
    if tail == 0.0 {
        return None;
    }
    let norm = (x[0] * x[0] + tail).sqrt();
    let beta = -norm.copysign(x[0]);
    let tau = (beta - x[0]) / beta;
    let scale = 1.0 / (x[0] - beta);
    x[1..].iter_mut().for_each(|v| *v *= scale);
    x[0] = 1.0;
    Some(tau)
}

/// Standardises the converged 2×2 block at rows/columns `k`, `k+1` (LAPACK's `dlanv2`): a
/// block with real eigenvalues becomes upper triangular, one with complex ones gets equal
/// diagonal entries and off-diagonal entries of opposite signs. The rotation is applied to the
/// rest of `h` and to `z`. Returns the eigenvalues (re, im, re, im).
fn standardise_block(n: usize, h: &mut [f64], z: &mut [f64], k: usize) -> (f64, f64, f64, f64) {
    let at = |i: usize, j: usize| i * n + j;
    let (mut a, mut b) = (h[at(k, k)], h[at(k, k + 1)]);
    let (mut c, mut d) = (h[at(k + 1, k)], h[at(k + 1, k + 1)]);
    let (mut cs, mut sn) = (1.0, 0.0);
    let already_standard = c == 0.0 || (a - d == 0.0 && b.signum() != c.signum());
    if already_standard {
        // Upper triangular, or a standard complex block: nothing to rotate.
    } else if b == 0.0 {
        // Swap rows and columns.
        cs = 0.0;
        sn = 1.0;
        std::mem::swap(&mut a, &mut d);
        b = -c;
        c = 0.0;
    } else {
        let temp = a - d;
        let p = 0.5 * temp;
        let bcmax = b.abs().max(c.abs());
        let bcmis = b.abs().min(c.abs()) * b.signum() * c.signum();
        let scale = p.abs().max(bcmax);
        let zz = p / scale * p + bcmax / scale * bcmis;
        if zz >= 4.0 * EPS {
            // Real eigenvalues: make the block upper triangular.
            let zz = p + (scale.sqrt() * zz.sqrt()).copysign(p);
            a = d + zz;
            d -= bcmax / zz * bcmis;
            let tau = c.hypot(zz);
            cs = zz / tau;
            sn = c / tau;
            b -= c;
            c = 0.0;
        } else {
            // Complex (or nearly equal real) eigenvalues: equalise the diagonal.
            let sigma = b + c;
            let tau = sigma.hypot(temp);
            cs = (0.5 * (1.0 + sigma.abs() / tau)).sqrt();
            sn = -(p / (tau * cs)) * if sigma >= 0.0 { 1.0 } else { -1.0 };
            let (aa, bb) = (a * cs + b * sn, -a * sn + b * cs);
            let (cc, dd) = (c * cs + d * sn, -c * sn + d * cs);
            a = aa * cs + cc * sn;
            b = bb * cs + dd * sn;
            c = -aa * sn + cc * cs;
            d = -bb * sn + dd * cs;
            let mean = 0.5 * (a + d);
            a = mean;
            d = mean;
            if c != 0.0 {
                if b != 0.0 {
                    if b.signum() == c.signum() {
                        // Real eigenvalues after all.
                        let (sab, sac) = (b.abs().sqrt(), c.abs().sqrt());
                        let p = (sab * sac).copysign(c);
                        let tau = 1.0 / (b + c).abs().sqrt();
                        a = mean + p;
                        d = mean - p;
                        b -= c;
                        c = 0.0;
                        let (cs1, sn1) = (sab * tau, sac * tau);
                        let t = cs * cs1 - sn * sn1;
                        sn = cs * sn1 + sn * cs1;
                        cs = t;
                    }
                } else {
                    b = -c;
                    c = 0.0;
                    let t = cs;
                    cs = -sn;
                    sn = t;
                }
            }
        }
    }
    h[at(k, k)] = a;
    h[at(k, k + 1)] = b;
    h[at(k + 1, k)] = c;
    h[at(k + 1, k + 1)] = d;
    // The rotation G = [[cs, sn], [−sn, cs]]: H := Gᵀ·H·G outside the block, Z := Z·G.
    for col in k + 2..n {
        let (x, y) = (h[at(k, col)], h[at(k + 1, col)]);
        h[at(k, col)] = cs * x + sn * y;
        h[at(k + 1, col)] = -sn * x + cs * y;
    }
    for row in 0..k {
        let (x, y) = (h[at(row, k)], h[at(row, k + 1)]);
        h[at(row, k)] = cs * x + sn * y;
        h[at(row, k + 1)] = -sn * x + cs * y;
    }
    for row in 0..n {
        let (x, y) = (z[at(row, k)], z[at(row, k + 1)]);
        z[at(row, k)] = cs * x + sn * y;
        z[at(row, k + 1)] = -sn * x + cs * y;
    }
    if c == 0.0 {
        (a, 0.0, d, 0.0)
    } else {
        let im = b.abs().sqrt() * c.abs().sqrt();
        (a, im, d, -im)
    }
}

/// Single-shift QR with Wilkinson's shift on the complex upper Hessenberg `h`, accumulating
/// into `z`: the triangular Schur form, `z` and the eigenvalues; `None` if it does not converge.
#[allow(clippy::type_complexity)]
fn complex_qr(
    mut h: Square,
    mut z: Square,
) -> Option<(Vec<Complex64>, Vec<Complex64>, Vec<Complex64>)> {
    let n = h.n;
    let at = |i: usize, j: usize| i * n + j;
    let l1 = |v: Complex64| v.re.abs() + v.im.abs();
    let mut values = vec![Complex64::new(0.0, 0.0); n];
    let mut hi = n as isize - 1;
    let mut iterations = 0usize;
    let limit = 30 * n.max(1);
    let norm = h.a.iter().fold(0.0f64, |m, &x| m.max(l1(x)));
    while hi >= 0 {
        let end = hi as usize;
        let mut lo = end;
        while lo > 0 {
            let sub = l1(h.a[at(lo, lo - 1)]);
            if negligible(sub, l1(h.a[at(lo - 1, lo - 1)]), l1(h.a[at(lo, lo)]), norm) {
                h.a[at(lo, lo - 1)] = Complex64::new(0.0, 0.0);
                break;
            }
            lo -= 1;
        }
        if lo == end {
            values[end] = h.a[at(end, end)];
            hi -= 1;
            iterations = 0;
            continue;
        }
        iterations += 1;
        if iterations > limit {
            return None;
        }
        // Wilkinson's shift: the eigenvalue of the trailing 2×2 block nearer its last entry;
        // an exceptional one every tenth iteration.
        let shift = if iterations.is_multiple_of(10) {
            h.a[at(end, end)] + Complex64::new(0.75 * l1(h.a[at(end, end - 1)]), 0.0)
        } else {
            let (a, b) = (h.a[at(end - 1, end - 1)], h.a[at(end - 1, end)]);
            let (c, d) = (h.a[at(end, end - 1)], h.a[at(end, end)]);
            let half = (a - d) * 0.5;
            let root = (half * half + b * c).sqrt();
            let (m1, m2) = (d + half + root, d + half - root);
            if (m1 - d).norm() <= (m2 - d).norm() {
                m1
            } else {
                m2
            }
        };
        let mut x = h.a[at(lo, lo)] - shift;
        let mut y = h.a[at(lo + 1, lo)];
        for k in lo..end {
            // The rotation G = [[c, s], [−s̄, c]] (c real) with G·(x, y) = (r, 0).
            let r = (x.norm_sqr() + y.norm_sqr()).sqrt();
            if r == 0.0 {
                if k + 1 < end {
                    x = h.a[at(k + 1, k)];
                    y = h.a[at(k + 2, k)];
                }
                continue;
            }
            let (c, s) = if x.norm() == 0.0 {
                (0.0, (y / r).conj())
            } else {
                let phase = x / x.norm();
                (x.norm() / r, phase * y.conj() / r)
            };
            let first_col = if k > lo { k - 1 } else { lo };
            for col in first_col..n {
                let (p, q) = (h.a[at(k, col)], h.a[at(k + 1, col)]);
                h.a[at(k, col)] = p * c + s * q;
                h.a[at(k + 1, col)] = -s.conj() * p + q * c;
            }
            let last_row = (k + 2).min(end);
            for row in 0..=last_row {
                let (p, q) = (h.a[at(row, k)], h.a[at(row, k + 1)]);
                h.a[at(row, k)] = p * c + q * s.conj();
                h.a[at(row, k + 1)] = -p * s + q * c;
            }
            for row in 0..n {
                let (p, q) = (z.a[at(row, k)], z.a[at(row, k + 1)]);
                z.a[at(row, k)] = p * c + q * s.conj();
                z.a[at(row, k + 1)] = -p * s + q * c;
            }
            if k > lo {
                h.a[at(k + 1, k - 1)] = Complex64::new(0.0, 0.0);
            }
            if k + 1 < end {
                x = h.a[at(k + 1, k)];
                y = h.a[at(k + 2, k)];
            }
        }
    }
    // Below the triangle is zero.
    for i in 0..n {
        for j in 0..i {
            h.a[at(i, j)] = Complex64::new(0.0, 0.0);
        }
    }
    Some((h.a, z.a, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `|z·t·zᴴ − a|` (largest entry), for real matrices.
    fn reconstruction_error(n: usize, a: &[f64], t: &[Complex64], z: &[Complex64]) -> f64 {
        let mut worst: f64 = 0.0;
        for i in 0..n {
            for j in 0..n {
                let mut s = Complex64::new(0.0, 0.0);
                for p in 0..n {
                    for q in 0..n {
                        s += z[i * n + p] * t[p * n + q] * z[j * n + q].conj();
                    }
                }
                worst = worst.max((s - a[i * n + j]).norm());
            }
        }
        worst
    }

    #[test]
    fn hard_real_matrices_reach_a_schur_form() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let random: Vec<f64> = (0..144).map(|_| next()).collect();
        let cases: Vec<(usize, Vec<f64>)> = vec![
            // A rotation: one complex pair, equal diagonal already.
            (2, vec![0.0, -1.0, 1.0, 0.0]),
            // A Jordan block (defective, one repeated eigenvalue).
            (3, vec![2.0, 1.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 2.0]),
            // Zero and diagonal matrices.
            (3, vec![0.0; 9]),
            (3, vec![3.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 2.0]),
            // A cyclic permutation: all eigenvalues on the unit circle.
            (
                4,
                vec![
                    0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
                ],
            ),
            (12, random),
        ];
        for (n, a) in cases {
            let (t, z, values, info) = one(n, &a, false);
            assert_eq!(info, 0, "{a:?}");
            assert!(
                reconstruction_error(n, &a, &t, &z) < 1e-12,
                "n = {n}: {a:?}"
            );
            // Eigenvalues sum to the trace.
            let trace: f64 = (0..n).map(|i| a[i * n + i]).sum();
            let sum: Complex64 = values.iter().sum();
            assert!(
                (sum.re - trace).abs() < 1e-12 && sum.im.abs() < 1e-12,
                "{values:?}"
            );
            for i in 0..n {
                for j in 0..i.saturating_sub(1) {
                    assert_eq!(t[i * n + j], Complex64::new(0.0, 0.0));
                }
            }
        }
    }
}
