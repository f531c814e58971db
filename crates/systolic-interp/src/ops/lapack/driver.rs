//! The one implementation of the LAPACK calls both backends run: typed slices in, typed vectors
//! out. The interpreter calls [`run`] with [`Exec::Sequential`]; the CPU backend's kernel calls
//! it on its buffers with [`Exec::Parallel`] (matrices of a batch on rayon's pool, or faer's
//! own parallelism inside one large matrix). The arithmetic is the same either way. One generic
//! implementation serves the real (`s`, `d`) and complex (`c`, `z`) routines ([`Scalar`]).

use super::{factor, general_eigen, householder, reduction, schur, spectral};
use num_complex::{Complex32, Complex64};
use systolic_ir::lapack::{Convention, LapackCall, Routine};
use systolic_ir::{DType, TensorType, Type};

/// A real element type (`f32`, `f64`): LAPACK's `s` and `d`, and the parts of `c` and `z`.
pub trait Real:
    faer::traits::RealField + Copy + PartialEq + Send + Sync + Default + 'static
{
    /// The value, exactly.
    fn to_f64(self) -> f64;
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
}

/// An element type LAPACK has routines for: `f32`, `f64`, `complex<f32>`, `complex<f64>`
/// (faer computes on all four with the same generic code).
pub trait Scalar:
    faer::traits::ComplexField<Real: Real> + Copy + PartialEq + Send + Sync + Default + 'static
{
    /// The element type.
    const DTYPE: DType;
    /// The value as a complex f64, exactly.
    fn to_c64(self) -> Complex64;
    /// `z` rounded to this type (the imaginary part dropped for a real type).
    fn from_c64(z: Complex64) -> Self;
    /// The real `x` rounded to this type.
    fn from_f64(x: f64) -> Self {
        Self::from_c64(Complex64::new(x, 0.0))
    }
    /// The real part.
    fn re(self) -> Self::Real {
        Real::from_f64(self.to_c64().re)
    }
}

impl Scalar for f32 {
    const DTYPE: DType = DType::F32;
    fn to_c64(self) -> Complex64 {
        Complex64::new(self as f64, 0.0)
    }
    fn from_c64(z: Complex64) -> Self {
        z.re as f32
    }
}

impl Scalar for f64 {
    const DTYPE: DType = DType::F64;
    fn to_c64(self) -> Complex64 {
        Complex64::new(self, 0.0)
    }
    fn from_c64(z: Complex64) -> Self {
        z.re
    }
}

impl Scalar for Complex32 {
    const DTYPE: DType = DType::C64;
    fn to_c64(self) -> Complex64 {
        Complex64::new(self.re as f64, self.im as f64)
    }
    fn from_c64(z: Complex64) -> Self {
        Complex32::new(z.re as f32, z.im as f32)
    }
}

impl Scalar for Complex64 {
    const DTYPE: DType = DType::C128;
    fn to_c64(self) -> Complex64 {
        self
    }
    fn from_c64(z: Complex64) -> Self {
        z
    }
}

/// One result of a call, row-major like its declared type.
#[derive(Clone, Debug, PartialEq)]
pub enum LapackOut<T: Scalar> {
    /// A result of the operand's element type (factors, vectors).
    Same(Vec<T>),
    /// A real result of the parts' type (Hermitian eigenvalues, singular values, and a real
    /// matrix's eigenvalues as real and imaginary parts).
    Real(Vec<T::Real>),
    /// A complex result of the parts' type (general eigenvalues and eigenvectors).
    Complex(Vec<num_complex::Complex<T::Real>>),
    /// An `i32` result (`ipiv`, `info`).
    Int(Vec<i32>),
}

/// How to schedule a call's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    /// One matrix after another, faer sequential: the interpreter's.
    Sequential,
    /// Matrices of a batch in parallel; one matrix alone uses faer's parallel algorithms.
    Parallel,
}

impl Exec {
    /// Maps `f` over the batch's matrices, in order.
    pub(super) fn per_matrix<R: Send>(
        self,
        batch: usize,
        f: impl Fn(usize) -> R + Sync + Send,
    ) -> Vec<R> {
        use rayon::prelude::*;
        match self {
            Exec::Parallel if batch > 1 => (0..batch).into_par_iter().map(f).collect(),
            _ => (0..batch).map(f).collect(),
        }
    }

    /// faer's parallelism for one matrix of a batch of `batch`.
    pub(super) fn inner(self, batch: usize) -> faer::Par {
        match self {
            Exec::Parallel if batch <= 1 => faer::Par::rayon(0),
            _ => faer::Par::Seq,
        }
    }
}

/// A matrix operand: its batch count, rows, columns and row-major data.
#[derive(Clone, Copy, Debug)]
pub(super) struct Matrices<'a, T> {
    pub batch: usize,
    pub rows: usize,
    pub cols: usize,
    pub data: &'a [T],
}

impl<'a, T: Copy> Matrices<'a, T> {
    fn new(shape: &[i64], data: &'a [T]) -> Result<Self, String> {
        let r = shape.len();
        if r < 2 || shape.iter().any(|&d| d < 0) {
            return Err(format!("expected a batch of matrices, got shape {shape:?}"));
        }
        let batch = shape[..r - 2].iter().product::<i64>() as usize;
        let (rows, cols) = (shape[r - 2] as usize, shape[r - 1] as usize);
        if data.len() != batch * rows * cols {
            return Err(format!(
                "shape {shape:?} needs {} elements, got {}",
                batch * rows * cols,
                data.len()
            ));
        }
        Ok(Matrices {
            batch,
            rows,
            cols,
            data,
        })
    }

    /// Matrix `b` of the batch.
    pub fn get(&self, b: usize) -> &'a [T] {
        let size = self.rows * self.cols;
        &self.data[b * size..(b + 1) * size]
    }
}

/// Runs `call` on `operands` (each a shape and its row-major data), giving results of
/// `result_types` (checked against the call's own result types first).
pub fn run<T: Scalar>(
    call: &LapackCall,
    operands: &[(&[i64], &[T])],
    result_types: &[Type],
    exec: Exec,
) -> Result<Vec<LapackOut<T>>, String> {
    if call.dtype != T::DTYPE {
        return Err(format!(
            "{} works on {}, not {}",
            call.target,
            call.dtype,
            T::DTYPE
        ));
    }
    let operand_types: Vec<Type> = operands
        .iter()
        .map(|(s, _)| Type::Tensor(TensorType::new(s.to_vec(), T::DTYPE)))
        .collect();
    call.check(&operand_types, result_types)?;
    let matrices = |i: usize| {
        let (shape, data) = operands[i];
        Matrices::new(shape, data).map_err(|e| format!("{}: {e}", call.target))
    };
    let a = matrices(0)?;
    let outs = match call.routine {
        Routine::Getrf => factor::getrf(a, exec),
        Routine::Potrf => factor::potrf(call.lower, a, exec),
        Routine::Trsm => factor::trsm(call, a, matrices(1)?, exec),
        Routine::Geqrf => householder::geqrf(a, exec),
        Routine::Orgqr => householder::orgqr(a, operands[1].1, exec),
        Routine::Syevd => spectral::syevd(call, a, exec),
        Routine::Gesdd => {
            let shape = |i: usize| match &result_types[i] {
                Type::Tensor(t) => t.num_elements() / a.batch.max(1),
                _ => 0,
            };
            spectral::gesdd(call, a, (shape(2), shape(3)), exec)
        }
        Routine::Geev => general_eigen::geev(call, a, exec),
        Routine::Gees => schur::gees(call, a, exec),
        Routine::Gehrd => reduction::gehrd(a, call.hessenberg_range, exec),
        Routine::Sytrd => reduction::sytrd(call.lower, a, exec),
    };
    Ok(match call.convention {
        Convention::Lapack => outs,
        Convention::Xla => xla_results(call.routine, outs, a.batch, a.rows),
    })
}

/// LAPACK's results in the conventions of XLA's TPU targets: `Eigh` drops `info`;
/// `LuDecomposition` has 0-based pivots and, in place of `info`, the row permutation they make
/// (row `i` of `p·a` is row `permutation[i]` of `a`), per matrix of `rows` rows. The others
/// are LAPACK's.
fn xla_results<T: Scalar>(
    routine: Routine,
    mut outs: Vec<LapackOut<T>>,
    batch: usize,
    rows: usize,
) -> Vec<LapackOut<T>> {
    match routine {
        Routine::Syevd => outs.truncate(2),
        Routine::Getrf => {
            if let LapackOut::Int(ipiv) = &mut outs[1] {
                let k = ipiv.len() / batch.max(1);
                let mut permutation = Vec::with_capacity(batch * rows);
                for swaps in ipiv.chunks_mut(k.max(1)).take(batch) {
                    let mut p: Vec<i32> = (0..rows as i32).collect();
                    for (i, s) in swaps.iter_mut().enumerate() {
                        *s -= 1;
                        p.swap(i, *s as usize);
                    }
                    permutation.extend(p);
                }
                if k == 0 {
                    // No pivots: every matrix's permutation is the identity.
                    permutation = (0..batch).flat_map(|_| 0..rows as i32).collect();
                }
                outs[2] = LapackOut::Int(permutation);
            }
        }
        _ => {}
    }
    outs
}

/// Concatenates per-matrix pieces into one result.
pub(super) fn concat<E: Clone>(pieces: impl Iterator<Item = Vec<E>>) -> Vec<E> {
    let mut out = Vec::new();
    for p in pieces {
        out.extend(p);
    }
    out
}

/// A column-major faer copy of the row-major `rows`×`cols` matrix `a`.
pub(super) fn to_faer<T: Scalar>(rows: usize, cols: usize, a: &[T]) -> faer::Mat<T> {
    faer::Mat::from_fn(rows, cols, |i, j| a[i * cols + j])
}

/// The row-major data of `m`.
pub(super) fn from_faer<T: Scalar>(m: faer::MatRef<'_, T>) -> Vec<T> {
    let (rows, cols) = (m.nrows(), m.ncols());
    let mut out = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            out.push(m[(i, j)]);
        }
    }
    out
}
