//! Complex numbers: building them from parts (`lax.complex`), taking them apart (`real`,
//! `imag`), conjugating and the phase angle.
//!
//! lax's forms are strict as JAX's (`lax.real` of a float array is an error); numpy's accept
//! real arrays too, as `jnp.real`/`jnp.imag`/`jnp.conj` do (a real array is its own real part
//! and conjugate, its imaginary part is zero). StableHLO has no conjugate op, so `conj` is
//! staged as `complex(real(x), -imag(x))`, as JAX lowers it, which keeps autodiff and vmap
//! rules to the three primitives.

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use crate::ops::elementwise::{negative, to_inexact, unary};
use systolic_ir::{BinaryOp, OpKind, UnaryOp};

/// `lax.complex(re, im)`: `re + i·im` from two arrays of the same shape and dtype, f32 (giving
/// `complex<f32>`) or f64 (giving `complex<f64>`); no promotion or broadcasting, as in lax.
///
/// ```
/// use systolic::{lax, Array, Complex32};
/// let z = lax::complex(&Array::from_vec(vec![1.0f32, 2.0], &[2]), &Array::from_vec(vec![3.0f32, -4.0], &[2]));
/// assert_eq!(z.to_vec::<Complex32>().unwrap(), vec![Complex32::new(1.0, 3.0), Complex32::new(2.0, -4.0)]);
/// ```
pub fn complex(re: &Array, im: &Array) -> Array {
    for x in [re, im] {
        if let Err(e) = x.check() {
            return Array::failed(e);
        }
    }
    let (dr, di) = (re.element_type(), im.element_type());
    if dr != di || dr.complex_of().is_none() || re.dims() != im.dims() {
        return Array::failed(Error::op(
            "complex",
            format!(
                "the parts must be f32 or f64 arrays of one shape and dtype, got {} and {}",
                describe(re.aval()),
                describe(im.aval())
            ),
        ));
    }
    let weak = re.weak_type() && im.weak_type();
    bind1(
        "complex",
        OpKind::Binary(BinaryOp::Complex),
        &[re, im],
        None,
        weak,
    )
}

/// The part `kind` (real or imaginary) of a complex array, refusing anything else.
fn strict_part(op: &str, kind: UnaryOp, x: &Array) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    if !x.element_type().is_complex() {
        return Array::failed(Error::op(
            op,
            format!("expects a complex array, got {}", describe(x.aval())),
        ));
    }
    unary(op, kind, x)
}

/// `lax.real(x)`: the real part of a complex array (`complex<f32>` → `f32`).
///
/// ```
/// use systolic::{lax, Array, Complex64};
/// let z = Array::from_vec(vec![Complex64::new(1.5, -2.0)], &[1]);
/// assert_eq!(lax::real(&z).to_vec::<f64>().unwrap(), vec![1.5]);
/// ```
pub fn lax_real(x: &Array) -> Array {
    strict_part("real", UnaryOp::Real, x)
}

/// `lax.imag(x)`: the imaginary part of a complex array (`complex<f32>` → `f32`).
///
/// ```
/// use systolic::{lax, Array, Complex64};
/// let z = Array::from_vec(vec![Complex64::new(1.5, -2.0)], &[1]);
/// assert_eq!(lax::imag(&z).to_vec::<f64>().unwrap(), vec![-2.0]);
/// ```
pub fn lax_imag(x: &Array) -> Array {
    strict_part("imag", UnaryOp::Imag, x)
}

/// `lax.conj(x)`: the complex conjugate of a complex array.
///
/// ```
/// use systolic::{lax, Array, Complex32};
/// let z = Array::from_vec(vec![Complex32::new(1.0, 2.0)], &[1]);
/// assert_eq!(lax::conj(&z).to_vec::<Complex32>().unwrap(), vec![Complex32::new(1.0, -2.0)]);
/// ```
pub fn lax_conj(x: &Array) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    if !x.element_type().is_complex() {
        return Array::failed(Error::op(
            "conj",
            format!("expects a complex array, got {}", describe(x.aval())),
        ));
    }
    complex(&lax_real(x), &negative(&lax_imag(x)))
}

/// `jnp.real(x)`: the real part; a real array is returned as it is.
///
/// ```
/// use systolic::{numpy as np, Array, Complex32};
/// let z = Array::from_vec(vec![Complex32::new(3.0, 4.0)], &[1]);
/// assert_eq!(np::real(&z).to_vec::<f32>().unwrap(), vec![3.0]);
/// let r = Array::from_vec(vec![2i32], &[1]);
/// assert_eq!(np::real(&r).to_vec::<i32>().unwrap(), vec![2]);
/// ```
pub fn real(x: &Array) -> Array {
    if x.error().is_none() && !x.element_type().is_complex() {
        return x.clone();
    }
    lax_real(x)
}

/// `jnp.imag(x)`: the imaginary part; zeros of `x`'s dtype for a real array.
///
/// ```
/// use systolic::{numpy as np, Array, Complex32};
/// let z = Array::from_vec(vec![Complex32::new(3.0, 4.0)], &[1]);
/// assert_eq!(np::imag(&z).to_vec::<f32>().unwrap(), vec![4.0]);
/// let r = Array::from_vec(vec![2.0f32], &[1]);
/// assert_eq!(np::imag(&r).to_vec::<f32>().unwrap(), vec![0.0]);
/// ```
pub fn imag(x: &Array) -> Array {
    if x.error().is_none() && !x.element_type().is_complex() {
        return crate::ops::creation::zeros_like(x);
    }
    lax_imag(x)
}

/// `jnp.conj(x)` (also `jnp.conjugate`): the complex conjugate; a real array is its own.
///
/// ```
/// use systolic::{numpy as np, Array, Complex64};
/// let z = Array::from_vec(vec![Complex64::new(3.0, 4.0)], &[1]);
/// assert_eq!(np::conj(&z).to_vec::<Complex64>().unwrap(), vec![Complex64::new(3.0, -4.0)]);
/// ```
pub fn conj(x: &Array) -> Array {
    if x.error().is_none() && !x.element_type().is_complex() {
        return x.clone();
    }
    lax_conj(x)
}

/// `jnp.angle(x)`: the phase `atan2(imag(x), real(x))` in radians, a real array (ints become
/// f32, as `jnp.angle` makes them inexact first).
///
/// ```
/// use systolic::{numpy as np, Array, Complex64};
/// let z = Array::from_vec(vec![Complex64::new(0.0, 2.0), Complex64::new(-1.0, 0.0)], &[2]);
/// let a = np::angle(&z).to_vec::<f64>().unwrap();
/// assert!((a[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-15 && (a[1] - std::f64::consts::PI).abs() < 1e-15);
/// ```
pub fn angle(x: &Array) -> Array {
    let z = to_inexact("angle", x);
    crate::ops::ufuncs::arctan2(&imag(&z), &real(&z))
}
