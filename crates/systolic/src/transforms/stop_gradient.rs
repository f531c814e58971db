//! `lax.stop_gradient`: the identity on values, a constant to differentiation.
//!
//! Differentiation here works on staged IR, so the op must survive into the IR that
//! `systolic_autodiff` sees. It is staged as a `bitcast_convert` to the array's own dtype: the
//! identity on bits, which every backend runs (or folds) for free, and which the autodiff
//! rules give no tangent (as JAX's `stop_gradient` has none). `vmap` batches it as any
//! elementwise op. Eagerly (no trace is active) nothing is being differentiated, so the array
//! itself is returned.

use crate::array::Array;

/// `jax.lax.stop_gradient`: `x` itself, but differentiation treats it as a constant (its
/// gradient and tangent are zero).
///
/// ```
/// use systolic::{grad, jvp, lax, Array};
/// // d/dx [x · stop_gradient(x)] = stop_gradient(x) = 3, not 2x = 6.
/// let g = grad(|x: &Array| x * &lax::stop_gradient(x));
/// assert_eq!(g.call(&Array::scalar(3.0f32)).unwrap().to_vec::<f32>().unwrap(), vec![3.0]);
/// // Forward mode agrees.
/// let f = |x: &Array| &lax::stop_gradient(&(x * x)) + x;
/// let (y, dy) = jvp(f, &Array::scalar(2.0f32), &Array::scalar(1.0f32)).unwrap();
/// assert_eq!((y.to_vec::<f32>().unwrap(), dy.to_vec::<f32>().unwrap()), (vec![6.0], vec![1.0]));
/// ```
pub fn stop_gradient(x: &Array) -> Array {
    if !x.is_traced() {
        return x.clone();
    }
    // A weak scalar stays weak, as under JAX's stop_gradient.
    crate::core::bind::bind1(
        "stop_gradient",
        systolic_ir::OpKind::BitcastConvert,
        &[x],
        Some(x.aval().clone()),
        x.weak_type(),
    )
}
