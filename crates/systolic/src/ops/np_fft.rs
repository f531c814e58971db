//! `jnp.fft`: numpy's discrete Fourier transforms over chosen axes, with lengths `n`/`s` and
//! the three normalisations, staged as JAX stages them on `lax.fft`: the transformed axes are
//! moved to the end (a transpose), cropped or zero-padded to the requested lengths (slice and
//! pad), transformed by one `stablehlo.fft` (or a chain of them above three axes, which the op
//! cannot do at once), scaled and moved back. Everything is built from ops that already have
//! autodiff and batching rules, so `grad`/`vmap` of these functions need only `fft`'s.
//!
//! Also the helpers that come with them: `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`.

use crate::array::{describe, Array};
use crate::error::Error;
use crate::ops::complex::conj;
use crate::ops::creation::full;
use crate::ops::elementwise::{divide, multiply};
use crate::ops::fft::fft as lax_fft;
use crate::ops::pad::{pad, PadMode};
use crate::ops::shape::{roll, slice, transpose};
use systolic_ir::{DType, FftType, Tensor};

/// How a transform is scaled (numpy's `norm`): the forward transform by 1, `1/√N` or `1/N`,
/// the inverse by the matching `1/N`, `1/√N` or 1, so that each pair round-trips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Norm {
    /// `"backward"` (numpy's default, and `norm=None`): the inverse divides by `N`.
    #[default]
    Backward,
    /// `"ortho"`: both directions divide by `√N`, making the transforms unitary.
    Ortho,
    /// `"forward"`: the forward transform divides by `N`.
    Forward,
}

impl Norm {
    /// The norm numpy names `name` (`"backward"`, `"ortho"`, `"forward"`).
    ///
    /// ```
    /// use systolic::numpy::fft::Norm;
    /// assert_eq!(Norm::parse("ortho").unwrap(), Norm::Ortho);
    /// assert!(Norm::parse("unitary").is_err());
    /// ```
    pub fn parse(name: &str) -> Result<Norm, Error> {
        match name {
            "backward" => Ok(Norm::Backward),
            "ortho" => Ok(Norm::Ortho),
            "forward" => Ok(Norm::Forward),
            _ => Err(Error::op(
                "fft",
                format!("invalid norm {name:?}; should be \"backward\", \"ortho\" or \"forward\""),
            )),
        }
    }
}

/// The transformed array scaled by `norm` for a transform over `lengths` (`inverse` for the
/// functions whose name starts with `i`, as JAX decides). The factor is computed in the
/// precision of the result's parts and multiplied in as a strongly typed scalar of the result's
/// dtype, as JAX multiplies by an array of that dtype; `Backward` multiplies by nothing.
fn scale(y: Array, lengths: &[i64], inverse: bool, norm: Norm) -> Array {
    if norm == Norm::Backward || y.error().is_some() {
        return y;
    }
    let n: i64 = lengths.iter().product();
    let single = y.element_type().component() != Some(DType::F64);
    let factor = match (norm, inverse, single) {
        (Norm::Forward, true, _) => n as f64,
        (Norm::Forward, false, true) => (1.0f32 / n as f32) as f64,
        (Norm::Forward, false, false) => 1.0 / n as f64,
        (Norm::Ortho, true, true) => (n as f32).sqrt() as f64,
        (Norm::Ortho, true, false) => (n as f64).sqrt(),
        (Norm::Ortho, false, true) => (1.0f32 / (n as f32).sqrt()) as f64,
        (Norm::Ortho, false, false) => 1.0 / (n as f64).sqrt(),
        (Norm::Backward, _, _) => 1.0,
    };
    times(&y, factor)
}

/// `y * factor`, the factor in `y`'s dtype at full precision: what JAX's multiplication by a
/// weakly typed Python number gives (our weak float scalars are f32, which would round the
/// factor of a `complex<f64>` result).
fn times(y: &Array, factor: f64) -> Array {
    if y.error().is_some() {
        return y.clone();
    }
    multiply(y, &full(&[], factor, y.element_type()))
}

/// `axis` of a rank-`rank` array as an index, or an error naming `op`.
fn axis_index(op: &str, x: &Array, axis: i64, rank: usize) -> Result<usize, Error> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    if (0..rank as i64).contains(&a) {
        Ok(a as usize)
    } else {
        Err(Error::op(
            op,
            format!("axis {axis} is out of bounds for {}", describe(x.aval())),
        ))
    }
}

/// `lax.fft` over the trailing `lengths.len()` axes, chaining transforms of at most three axes
/// (all `stablehlo.fft` does): a forward transform does the innermost axes first and then the
/// rest as complex FFTs; an inverse does the outer axes first as complex IFFTs, so that a real
/// output (IRFFT) comes last.
fn fft_nd(x: &Array, ty: FftType, lengths: &[i64]) -> Array {
    if lengths.len() <= 3 {
        return lax_fft(x, ty, lengths);
    }
    let n = if lengths.len() == 4 { 2 } else { 3 };
    let rank = x.rank() as i64;
    let k = lengths.len() as i64;
    // Moves the outer transformed axes [rank-k, rank-n) behind the inner ones and back.
    let mut out_of_the_way: Vec<i64> = (0..rank - k).collect();
    out_of_the_way.extend(rank - n..rank);
    out_of_the_way.extend(rank - k..rank - n);
    let back = inverse_perm(&out_of_the_way);
    let (inner, outer) = (
        &lengths[lengths.len() - n as usize..],
        &lengths[..(k - n) as usize],
    );
    match ty {
        FftType::Fft | FftType::Rfft => {
            let y = lax_fft(x, ty, inner);
            let y = fft_nd(&transpose(&y, Some(&out_of_the_way)), FftType::Fft, outer);
            transpose(&y, Some(&back))
        }
        FftType::Ifft | FftType::Irfft => {
            let y = fft_nd(&transpose(x, Some(&out_of_the_way)), FftType::Ifft, outer);
            lax_fft(&transpose(&y, Some(&back)), ty, inner)
        }
    }
}

fn inverse_perm(perm: &[i64]) -> Vec<i64> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    inv
}

/// What every n-dimensional transform shares (JAX's `_fft_core`): `s` are the lengths along
/// `axes` (for IRFFT the output lengths), `None` axes mean the last `s.len()` axes (all axes
/// without `s`).
fn fft_core(
    name: &str,
    ty: FftType,
    a: &Array,
    s: Option<&[i64]>,
    axes: Option<&[i64]>,
    norm: Norm,
) -> Result<Array, Error> {
    let err = |msg: String| Error::op(name, msg);
    a.check()?;
    let rank = a.rank();
    if let Some(s) = s {
        if s.iter().any(|&n| n <= 0) {
            return Err(err(format!("the lengths s = {s:?} must be positive")));
        }
        if let Some(axes) = axes.filter(|axes| axes.len() != s.len()) {
            return Err(err(format!(
                "s = {s:?} and axes = {axes:?} have different lengths"
            )));
        }
    }
    let chosen: Vec<usize> = match (axes, s) {
        (Some(axes), _) => axes
            .iter()
            .map(|&ax| axis_index(name, a, ax, rank))
            .collect::<Result<_, _>>()?,
        (None, Some(s)) if s.len() > rank => {
            return Err(err(format!(
                "s = {s:?} has more lengths than {} has axes",
                describe(a.aval())
            )))
        }
        (None, Some(s)) => (rank - s.len()..rank).collect(),
        (None, None) => (0..rank).collect(),
    };
    let mut seen = vec![false; rank];
    for &ax in &chosen {
        if std::mem::replace(&mut seen[ax], true) {
            return Err(err(format!(
                "repeated axes are not supported, got axes {chosen:?}"
            )));
        }
    }
    let k = chosen.len();
    // The chosen axes go last, in their given order (JAX's moveaxis to the trailing axes).
    let perm: Vec<i64> = (0..rank)
        .filter(|ax| !seen[*ax])
        .chain(chosen.iter().copied())
        .map(|ax| ax as i64)
        .collect();
    let moved = axes.is_some();
    let mut x = if moved {
        transpose(a, Some(&perm))
    } else {
        a.clone()
    };
    x.check()?;
    let lengths: Vec<i64> = match s {
        Some(s) => {
            let dims = x.dims().to_vec();
            let mut want = dims.clone();
            want[rank - k..].copy_from_slice(s);
            if ty == FftType::Irfft && k > 0 {
                want[rank - 1] = want[rank - 1] / 2 + 1;
            }
            let limit: Vec<i64> = dims.iter().zip(&want).map(|(&d, &w)| d.min(w)).collect();
            if limit != dims {
                x = slice(&x, &vec![0; rank], &limit, None);
            }
            if limit != want {
                let widths: Vec<(i64, i64)> =
                    limit.iter().zip(&want).map(|(&l, &w)| (0, w - l)).collect();
                x = pad(&x, &widths, PadMode::Constant(0.0));
            }
            s.to_vec()
        }
        None => {
            let dims = &x.dims()[rank - k..];
            let mut l = dims.to_vec();
            if let (FftType::Irfft, Some(last)) = (ty, l.last_mut()) {
                *last = (2 * (*last - 1)).max(0);
            }
            l
        }
    };
    let y = fft_nd(&x, ty, &lengths);
    let y = scale(y, &lengths, name.starts_with('i'), norm);
    Ok(if moved {
        transpose(&y, Some(&inverse_perm(&perm)))
    } else {
        y
    })
}

fn core(
    name: &str,
    ty: FftType,
    a: &Array,
    s: Option<&[i64]>,
    axes: Option<&[i64]>,
    norm: Norm,
) -> Array {
    fft_core(name, ty, a, s, axes, norm).unwrap_or_else(Array::failed)
}

/// A one-axis transform: `n` is the length along `axis`.
fn core_1d(name: &str, ty: FftType, a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    let s = n.map(|n| [n]);
    core(name, ty, a, s.as_ref().map(|s| &s[..]), Some(&[axis]), norm)
}

/// A two-axis transform: `axes` must name two axes.
fn core_2d(
    name: &str,
    ty: FftType,
    a: &Array,
    s: Option<&[i64]>,
    axes: &[i64],
    norm: Norm,
) -> Array {
    if axes.len() != 2 {
        return Array::failed(Error::op(
            name,
            format!("takes exactly 2 axes, got axes = {axes:?}"),
        ));
    }
    core(name, ty, a, s, Some(axes), norm)
}

/// `jnp.fft.fft(a, n, axis, norm)`: the complex DFT along `axis`, after cropping or
/// zero-padding that axis to `n`. Real and integer inputs become complex first.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let y = np::fft::fft(&x, Some(4), -1, Norm::Backward).to_vec::<Complex32>().unwrap();
/// assert_eq!(y[0], Complex32::new(6.0, 0.0));
/// assert_eq!(y[2], Complex32::new(2.0, 0.0));
/// ```
pub fn fft(a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    core_1d("fft", FftType::Fft, a, n, axis, norm)
}

/// `jnp.fft.ifft(a, n, axis, norm)`: the inverse of [`fft`] along `axis`.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![Complex32::new(4.0, 0.0), Complex32::new(0.0, 0.0)], &[2]);
/// let y = np::fft::ifft(&x, None, 0, Norm::Backward).to_vec::<Complex32>().unwrap();
/// assert_eq!(y, vec![Complex32::new(2.0, 0.0), Complex32::new(2.0, 0.0)]);
/// ```
pub fn ifft(a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    core_1d("ifft", FftType::Ifft, a, n, axis, norm)
}

/// `jnp.fft.rfft(a, n, axis, norm)`: the DFT of a real signal along `axis`, keeping the
/// `n / 2 + 1` non-negative frequencies. A complex input is an error.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex64};
/// let x = Array::from_vec(vec![1.0f64, 1.0, 1.0, 1.0], &[4]);
/// let y = np::fft::rfft(&x, None, -1, Norm::Ortho).to_vec::<Complex64>().unwrap();
/// assert_eq!(y, vec![Complex64::new(2.0, 0.0), Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0)]);
/// ```
pub fn rfft(a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    core_1d("rfft", FftType::Rfft, a, n, axis, norm)
}

/// `jnp.fft.irfft(a, n, axis, norm)`: the real signal of length `n` (default
/// `2 * (m - 1)` for `m` input frequencies) whose [`rfft`] is `a`.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![Complex32::new(3.0, 0.0), Complex32::new(0.0, 0.0)], &[2]);
/// let y = np::fft::irfft(&x, Some(3), -1, Norm::Backward);
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.0, 1.0, 1.0]);
/// ```
pub fn irfft(a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    core_1d("irfft", FftType::Irfft, a, n, axis, norm)
}

/// `jnp.fft.hfft(a, n, axis, norm)`: the real spectrum of a signal with Hermitian symmetry
/// given by its first half `a` (an [`irfft`] of `conj(a)` times `n`).
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![Complex32::new(1.0, 0.0), Complex32::new(0.0, 0.0)], &[2]);
/// assert_eq!(np::fft::hfft(&x, None, -1, Norm::Backward).to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
/// ```
pub fn hfft(a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    let len = match a.check() {
        Err(e) => return Array::failed(e),
        Ok(_) => match (n, axis_index("hfft", a, axis, a.rank())) {
            (Some(n), _) => n,
            (None, Ok(ax)) => (a.dims()[ax] - 1) * 2,
            (None, Err(e)) => return Array::failed(e),
        },
    };
    let y = core_1d("hfft", FftType::Irfft, &conj(a), n, axis, norm);
    times(&y, len as f64)
}

/// `jnp.fft.ihfft(a, n, axis, norm)`: the inverse of [`hfft`]: the first half of the
/// spectrum, conjugated and divided by `n`, of a real signal.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![2.0f32, 2.0], &[2]);
/// let y = np::fft::ihfft(&x, None, -1, Norm::Backward).to_vec::<Complex32>().unwrap();
/// assert_eq!(y, vec![Complex32::new(2.0, 0.0), Complex32::new(0.0, 0.0)]);
/// ```
pub fn ihfft(a: &Array, n: Option<i64>, axis: i64, norm: Norm) -> Array {
    let len = match a.check() {
        Err(e) => return Array::failed(e),
        Ok(_) => match (n, axis_index("ihfft", a, axis, a.rank())) {
            (Some(n), _) => n,
            (None, Ok(ax)) => a.dims()[ax],
            (None, Err(e)) => return Array::failed(e),
        },
    };
    let y = core_1d("ihfft", FftType::Rfft, a, n, axis, norm);
    times(&conj(&y), 1.0 / len as f64)
}

/// `jnp.fft.fft2(a, s, axes, norm)`: [`fftn`] over two axes (numpy's default is `[-2, -1]`).
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let y = np::fft::fft2(&x, None, &[-2, -1], Norm::Backward).to_vec::<Complex32>().unwrap();
/// assert_eq!(y[0], Complex32::new(10.0, 0.0));
/// assert_eq!(y[3], Complex32::new(0.0, 0.0));
/// ```
pub fn fft2(a: &Array, s: Option<&[i64]>, axes: &[i64], norm: Norm) -> Array {
    core_2d("fft2", FftType::Fft, a, s, axes, norm)
}

/// `jnp.fft.ifft2(a, s, axes, norm)`: [`ifftn`] over two axes.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![Complex32::new(4.0, 0.0); 1], &[1, 1]);
/// let y = np::fft::ifft2(&x, Some(&[2, 2]), &[-2, -1], Norm::Backward);
/// assert_eq!(y.to_vec::<Complex32>().unwrap(), vec![Complex32::new(1.0, 0.0); 4]);
/// ```
pub fn ifft2(a: &Array, s: Option<&[i64]>, axes: &[i64], norm: Norm) -> Array {
    core_2d("ifft2", FftType::Ifft, a, s, axes, norm)
}

/// `jnp.fft.rfft2(a, s, axes, norm)`: [`rfftn`] over two axes.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array};
/// let x = np::ones(&[4, 6], systolic_ir::DType::F32);
/// assert_eq!(np::fft::rfft2(&x, None, &[-2, -1], Norm::Backward).shape(), &[4, 4]);
/// ```
pub fn rfft2(a: &Array, s: Option<&[i64]>, axes: &[i64], norm: Norm) -> Array {
    core_2d("rfft2", FftType::Rfft, a, s, axes, norm)
}

/// `jnp.fft.irfft2(a, s, axes, norm)`: [`irfftn`] over two axes.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array};
/// let x = np::ones(&[4, 4], systolic_ir::DType::C64);
/// assert_eq!(np::fft::irfft2(&x, None, &[-2, -1], Norm::Backward).shape(), &[4, 6]);
/// ```
pub fn irfft2(a: &Array, s: Option<&[i64]>, axes: &[i64], norm: Norm) -> Array {
    core_2d("irfft2", FftType::Irfft, a, s, axes, norm)
}

/// `jnp.fft.fftn(a, s, axes, norm)`: the complex DFT over `axes` (the last `s.len()` axes
/// when `None`, all axes without `s`), each cropped or zero-padded to its length in `s`.
/// Any number of axes: above three the transform is a chain of `stablehlo.fft`s.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = np::ones(&[2, 2, 2], systolic_ir::DType::F32);
/// let y = np::fft::fftn(&x, None, None, Norm::Forward).to_vec::<Complex32>().unwrap();
/// assert_eq!(y[0], Complex32::new(1.0, 0.0));
/// assert!(y[1..].iter().all(|z| z.norm() == 0.0));
/// ```
pub fn fftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i64]>, norm: Norm) -> Array {
    core("fftn", FftType::Fft, a, s, axes, norm)
}

/// `jnp.fft.ifftn(a, s, axes, norm)`: the inverse of [`fftn`].
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array, Complex32};
/// let x = Array::from_vec(vec![Complex32::new(1.0, 0.0)], &[1, 1]);
/// let y = np::fft::ifftn(&x, Some(&[2]), Some(&[0]), Norm::Backward);
/// assert_eq!(y.to_vec::<Complex32>().unwrap(), vec![Complex32::new(0.5, 0.0); 2]);
/// ```
pub fn ifftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i64]>, norm: Norm) -> Array {
    core("ifftn", FftType::Ifft, a, s, axes, norm)
}

/// `jnp.fft.rfftn(a, s, axes, norm)`: the DFT of a real array over `axes`, the last axis
/// keeping its `n / 2 + 1` non-negative frequencies.
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array};
/// let x = np::ones(&[3, 4, 5], systolic_ir::DType::F64);
/// assert_eq!(np::fft::rfftn(&x, None, Some(&[0, 1]), Norm::Backward).shape(), &[3, 3, 5]);
/// ```
pub fn rfftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i64]>, norm: Norm) -> Array {
    core("rfftn", FftType::Rfft, a, s, axes, norm)
}

/// `jnp.fft.irfftn(a, s, axes, norm)`: the inverse of [`rfftn`]; `s` gives the output
/// lengths (the last one defaults to `2 * (m - 1)`).
///
/// ```
/// use systolic::{numpy as np, numpy::fft::Norm, Array};
/// let x = np::ones(&[3, 3], systolic_ir::DType::C64);
/// assert_eq!(np::fft::irfftn(&x, Some(&[3, 5]), None, Norm::Backward).shape(), &[3, 5]);
/// ```
pub fn irfftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i64]>, norm: Norm) -> Array {
    core("irfftn", FftType::Irfft, a, s, axes, norm)
}

/// The float dtype `fftfreq` computes in for the requested `dtype` (default f32; integers
/// and booleans compute in f32, complex dtypes in their parts' precision).
fn freq_dtype(op: &str, dtype: Option<DType>) -> Result<(DType, DType), Error> {
    let out = dtype.unwrap_or(DType::F32);
    let work = out.component().unwrap_or(DType::F32);
    if !work.is_float() {
        return Err(Error::op(op, format!("cannot compute in {out:?}")));
    }
    Ok((out, work))
}

/// The integers `ks` as a rank-1 array of `dtype`.
fn host_counts(op: &str, ks: Vec<i64>, dtype: DType) -> Result<Array, Error> {
    let n = ks.len() as i64;
    Tensor::from_f64(vec![n], dtype, ks.into_iter().map(|k| k as f64).collect())
        .map(Array::from_tensor)
        .map_err(|e| Error::op(op, e.to_string()))
}

/// `jnp.fft.fftfreq(n, d, dtype)`: the sample frequencies of an `n`-point DFT with sample
/// spacing `d`: `[0, 1, …, (n-1)/2, -(n/2), …, -1] / (d·n)`, in `dtype` (default f32).
///
/// ```
/// use systolic::numpy as np;
/// let f = np::fft::fftfreq(4, 0.5, None).to_vec::<f32>().unwrap();
/// assert_eq!(f, vec![0.0, 0.5, -1.0, -0.5]);
/// ```
pub fn fftfreq(n: i64, d: f64, dtype: Option<DType>) -> Array {
    (|| {
        let (out, work) = freq_dtype("fftfreq", dtype)?;
        if n < 0 {
            return Err(Error::op("fftfreq", format!("n must be >= 0, got {n}")));
        }
        let ks = (0..n).map(|i| (i + n / 2) % n - n / 2).collect();
        let k = host_counts("fftfreq", ks, work)?;
        let f = divide(&k, &full(&[], d * n as f64, work));
        Ok(crate::ops::elementwise::astype(&f, out))
    })()
    .unwrap_or_else(Array::failed)
}

/// `jnp.fft.rfftfreq(n, d, dtype)`: the non-negative sample frequencies `[0, 1, …, n/2] /
/// (d·n)` that [`rfft`] returns, in `dtype` (default f32).
///
/// ```
/// use systolic::numpy as np;
/// let f = np::fft::rfftfreq(5, 0.1, Some(systolic_ir::DType::F64)).to_vec::<f64>().unwrap();
/// assert_eq!(f, vec![0.0, 2.0, 4.0]);
/// ```
pub fn rfftfreq(n: i64, d: f64, dtype: Option<DType>) -> Array {
    (|| {
        let dt = dtype.unwrap_or(DType::F32);
        if n < 0 {
            return Err(Error::op("rfftfreq", format!("n must be >= 0, got {n}")));
        }
        let k = host_counts("rfftfreq", (0..n / 2 + 1).collect(), dt)?;
        Ok(divide(&k, &full(&[], d * n as f64, dt)))
    })()
    .unwrap_or_else(Array::failed)
}

/// Rolls each of `axes` (all axes when `None`) by `shift(len)`.
fn shift_axes(op: &str, x: &Array, axes: Option<&[i64]>, shift: fn(i64) -> i64) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let all: Vec<i64> = (0..x.rank() as i64).collect();
    let mut y = x.clone();
    for &ax in axes.unwrap_or(&all) {
        match axis_index(op, x, ax, x.rank()) {
            Ok(a) => y = roll(&y, shift(x.dims()[a]), Some(a as i64)),
            Err(e) => return Array::failed(e),
        }
    }
    y
}

/// `jnp.fft.fftshift(x, axes)`: moves the zero frequency to the centre of `axes` (all axes
/// when `None`), rolling each by half its length.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let f = np::fft::fftshift(&np::fft::fftfreq(5, 1.0, None), None);
/// assert_eq!(f.to_vec::<f32>().unwrap(), vec![-0.4, -0.2, 0.0, 0.2, 0.4]);
/// ```
pub fn fftshift(x: &Array, axes: Option<&[i64]>) -> Array {
    shift_axes("fftshift", x, axes, |n| n / 2)
}

/// `jnp.fft.ifftshift(x, axes)`: the inverse of [`fftshift`] (they differ for odd lengths).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4, 5], &[5]);
/// let y = np::fft::ifftshift(&np::fft::fftshift(&x, None), Some(&[0]));
/// assert_eq!(y.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5]);
/// ```
pub fn ifftshift(x: &Array, axes: Option<&[i64]>) -> Array {
    shift_axes("ifftshift", x, axes, |n| -(n / 2))
}
