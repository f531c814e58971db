//! `geev`: the eigendecomposition of a general (non-symmetric) matrix, on faer's Hessenberg QR
//! solver, in LAPACK's output conventions as JAX's FFI kernel returns them.
//!
//! - Real matrices (`sgeev`/`dgeev`): `[wr, wi, vl, vr, info]`, the eigenvalues as real and
//!   imaginary parts and the eigenvectors already complex (JAX's kernel unpacks LAPACK's
//!   real-pair storage).
//! - Complex matrices (`cgeev`/`zgeev`): `[w, vl, vr, info]`.
//!
//! Right eigenvectors are the columns `v` of `a·v = λ·v`; left ones the columns `u` of
//! `uᴴ·a = λ·uᴴ`. faer computes the right ones; the left ones are the columns of `(V⁻¹)ᴴ`
//! (the rows of `V⁻¹` are the left eigenvectors of a diagonalisable matrix, scaled so that
//! `uᵢᴴ·vᵢ = 1`). Each vector is then normalised as LAPACK does: unit Euclidean norm, and its
//! component of largest modulus real. Vectors not asked for are zeros. A solver failure gives
//! `info = 1` and NaN (JAX then returns NaN).
//!
//! The order of the eigenvalues is the solver's, as LAPACK's is (neither sorts them); the
//! eigenvectors are unique up to a complex unit factor, which the normalisation fixes up to
//! ties in the largest modulus.

use super::driver::{to_faer, Exec, LapackOut, Matrices, Real, Scalar};
use faer::Mat;
use num_complex::Complex;
use systolic_ir::lapack::LapackCall;

/// One matrix's results: eigenvalues, left and right eigenvectors (row-major), info.
type Piece<R> = (Vec<Complex<R>>, Vec<Complex<R>>, Vec<Complex<R>>, i32);

/// Eigendecomposition of each matrix.
pub fn geev<T: Scalar>(call: &LapackCall, a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let n = a.rows;
    let pieces = exec.per_matrix(a.batch, |b| one(call, n, a.get(b)));
    let mut w = Vec::with_capacity(a.batch * n);
    let mut vl = Vec::with_capacity(a.batch * n * n);
    let mut vr = Vec::with_capacity(a.batch * n * n);
    let mut info = Vec::with_capacity(a.batch);
    for (wb, lb, rb, ib) in pieces {
        w.extend(wb);
        vl.extend(lb);
        vr.extend(rb);
        info.push(ib);
    }
    let mut out = if T::DTYPE.is_complex() {
        vec![LapackOut::Complex(w)]
    } else {
        vec![
            LapackOut::Real(w.iter().map(|z| z.re).collect()),
            LapackOut::Real(w.iter().map(|z| z.im).collect()),
        ]
    };
    out.extend([
        LapackOut::Complex(vl),
        LapackOut::Complex(vr),
        LapackOut::Int(info),
    ]);
    out
}

fn one<T: Scalar>(call: &LapackCall, n: usize, src: &[T]) -> Piece<T::Real> {
    let zero = Complex::new(real::<T>(0.0), real::<T>(0.0));
    let nan = Complex::new(real::<T>(f64::NAN), real::<T>(f64::NAN));
    if n == 0 {
        return (vec![], vec![], vec![], 0);
    }
    let Ok(eigen) = to_faer(n, n, src).eigen() else {
        return (vec![nan; n], vec![nan; n * n], vec![nan; n * n], 1);
    };
    let values: Vec<Complex<T::Real>> = eigen.S().column_vector().iter().copied().collect();
    let right = eigen.U().to_owned();
    let left = if call.left_vectors {
        left_vectors(right.as_ref())
    } else {
        Mat::from_fn(n, n, |_, _| zero)
    };
    let right = if call.right_vectors {
        right
    } else {
        Mat::from_fn(n, n, |_, _| zero)
    };
    let normalised = |m: Mat<Complex<T::Real>>| {
        let mut out = vec![zero; n * n];
        for j in 0..n {
            let column: Vec<Complex<T::Real>> = (0..n).map(|i| m[(i, j)]).collect();
            for (i, z) in normalise::<T::Real>(column).into_iter().enumerate() {
                out[i * n + j] = z;
            }
        }
        out
    };
    (values, normalised(left), normalised(right), 0)
}

/// `x` as the parts' type.
fn real<T: Scalar>(x: f64) -> T::Real {
    <T::Real as Real>::from_f64(x)
}

/// The columns of `(V⁻¹)ᴴ`: the left eigenvectors matching `v`'s right ones.
fn left_vectors<R: Real>(v: faer::MatRef<'_, Complex<R>>) -> Mat<Complex<R>> {
    let n = v.nrows();
    let lu = v.partial_piv_lu();
    let mut inverse = Mat::<Complex<R>>::identity(n, n);
    faer::linalg::solvers::Solve::solve_in_place(&lu, inverse.as_mut());
    Mat::from_fn(n, n, |i, j| {
        let z = inverse[(j, i)];
        Complex::new(z.re, -z.im)
    })
}

/// `v` scaled to unit Euclidean norm with its component of largest modulus real and positive
/// (LAPACK's normalisation); a zero vector stays zero.
fn normalise<R: Real>(v: Vec<Complex<R>>) -> Vec<Complex<R>> {
    let to = |z: Complex<R>| num_complex::Complex64::new(z.re.to_f64(), z.im.to_f64());
    let norm = v.iter().map(|z| to(*z).norm_sqr()).sum::<f64>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return v;
    }
    // The first component of largest modulus, as LAPACK's `izamax` picks it.
    let mut largest = num_complex::Complex64::new(0.0, 0.0);
    for z in v.iter().map(|z| to(*z)) {
        if z.norm_sqr() > largest.norm_sqr() {
            largest = z;
        }
    }
    // Dividing by largest/|largest| turns that component real and positive.
    let phase = largest / largest.norm();
    v.into_iter()
        .map(|z| {
            let s = to(z) / phase / norm;
            Complex::new(<R as Real>::from_f64(s.re), <R as Real>::from_f64(s.im))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;
    use systolic_ir::lapack::Routine;
    use systolic_ir::DType;

    /// A batch of pseudo-random complex matrices.
    fn batch(count: usize, n: usize) -> Vec<Complex64> {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        (0..count * n * n)
            .map(|_| Complex64::new(next(), next()))
            .collect()
    }

    #[test]
    fn parallel_batches_match_sequential_ones() {
        let mut call = LapackCall::new(Routine::Geev, DType::C128).unwrap();
        call.left_vectors = true;
        let (count, n) = (3, 4);
        let data = batch(count, n);
        let a = Matrices {
            batch: count,
            rows: n,
            cols: n,
            data: &data,
        };
        let seq = geev(&call, a, Exec::Sequential);
        let par = geev(&call, a, Exec::Parallel);
        assert_eq!(seq, par);
        // Each matrix alone gives the batch's piece.
        let LapackOut::Complex(w) = &seq[0] else {
            panic!("complex eigenvalues")
        };
        for b in 0..count {
            let one = Matrices {
                batch: 1,
                rows: n,
                cols: n,
                data: &data[b * n * n..(b + 1) * n * n],
            };
            let LapackOut::Complex(wb) = &geev(&call, one, Exec::Sequential)[0] else {
                panic!("complex eigenvalues")
            };
            assert_eq!(&w[b * n..(b + 1) * n], &wb[..], "matrix {b}");
        }
    }
}
