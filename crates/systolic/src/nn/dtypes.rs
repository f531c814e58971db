//! flax's `promote_dtype`: the dtype a layer computes in, and the casts to it.

use crate::array::{describe, Array};
use crate::core::promote::result_type;
use crate::error::Error;
use crate::ops::elementwise::convert;
use systolic_ir::DType;

/// The computation dtype of a layer over `args`: `dtype` if the layer names one, else the
/// arguments' promoted dtype, made at least inexact (an integer input with f32 parameters
/// computes in f32) when `inexact` is set, as flax's `canonicalize_dtype`.
pub(crate) fn canonical_dtype(
    op: &str,
    args: &[&Array],
    dtype: Option<DType>,
    inexact: bool,
) -> Result<DType, Error> {
    for a in args {
        a.check()?;
    }
    if let Some(d) = dtype {
        return Ok(d);
    }
    let (mut d, _) = result_type(
        &args
            .iter()
            .map(|a| (a.element_type(), a.weak_type()))
            .collect::<Vec<_>>(),
    );
    if inexact && !d.is_float() {
        d = result_type(&[(DType::F32, false), (d, false)]).0;
    }
    if inexact && !d.is_float() {
        return Err(Error::op(
            op,
            format!(
                "cannot compute in an inexact dtype from {}",
                crate::core::bind::describe_all(args)
            ),
        ));
    }
    Ok(d)
}

/// flax's `promote_dtype(*args, dtype=dtype)`: every argument cast (strongly typed) to
/// [`canonical_dtype`].
pub(crate) fn promote(
    op: &str,
    args: &[&Array],
    dtype: Option<DType>,
) -> Result<Vec<Array>, Error> {
    let d = canonical_dtype(op, args, dtype, true)?;
    Ok(args.iter().map(|a| convert(op, a, d, false)).collect())
}

/// Checks that a parameter `p` has `shape`, naming the layer and the parameter.
pub(crate) fn check_param(op: &str, name: &str, p: &Array, shape: &[i64]) -> Result<(), Error> {
    p.check()?;
    if p.dims() != shape {
        return Err(Error::op(
            op,
            format!(
                "parameter `{name}` is {} but the input needs shape {shape:?}",
                describe(p.aval())
            ),
        ));
    }
    Ok(())
}

/// Runs a fallible layer body, turning an error into a failed array.
pub(crate) fn or_failed(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}
