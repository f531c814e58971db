//! Helpers shared by the indexing, reduce and linalg families: taking operands apart, checking
//! dimension attributes, building result tensors element by element, and running an op's region
//! on scalars.
//!
//! Every check here returns an error instead of panicking, because the interpreter may be handed
//! a module the verifier has not seen.

use crate::bail;
use crate::error::Result;
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::{numerics, Complex64, DType, DTypeKind, Data, Scalar, Tensor, TensorType};

// The crate-wide helpers, under the names this family's code uses.
pub(crate) use crate::operands::{make as new_tensor, result_tensor as result_tensor_type};

/// Operand `i` as a tensor; `what` names it in the error (`"operand"`, `"start_indices"`).
pub(crate) fn tensor_arg<'a>(args: &'a [Value], i: usize, what: &str) -> Result<&'a Tensor> {
    match args.get(i) {
        Some(Value::Tensor(t)) => Ok(t),
        Some(other) => bail!("{what} (operand {i}) must be a tensor, got {}", other.ty()),
        None => bail!(
            "{what} (operand {i}) is missing: the op has {} operands",
            args.len()
        ),
    }
}

/// Every operand as a tensor.
pub(crate) fn tensor_args(args: &[Value]) -> Result<Vec<&Tensor>> {
    (0..args.len())
        .map(|i| tensor_arg(args, i, "operand"))
        .collect()
}

/// Checks that `computed` (what the op's semantics produce) equals the declared result type.
pub(crate) fn expect_result_type(declared: &TensorType, computed: &TensorType) -> Result<()> {
    if declared != computed {
        bail!("the result is declared {declared} but the operands give {computed}");
    }
    Ok(())
}

/// Checks a list of dimension numbers against a rank: each in `0..rank`, none repeated.
/// `what` names the attribute in the error.
pub(crate) fn check_dims(dims: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        if d < 0 || d as usize >= rank {
            bail!("{what} {dims:?}: dimension {d} is out of range for rank {rank}");
        }
        if seen[d as usize] {
            bail!("{what} {dims:?}: dimension {d} appears twice");
        }
        seen[d as usize] = true;
        out.push(d as usize);
    }
    Ok(out)
}

/// Largest window size, stride, dilation or padding accepted: large enough for any real
/// program, small enough that the window arithmetic cannot overflow an i64.
pub(crate) const MAX_WINDOW_ATTR: i64 = i32::MAX as i64;

/// Checks that an optional per-dimension attribute has `rank` entries, each in
/// `min..=MAX_WINDOW_ATTR`, and returns it (or `default` repeated when absent).
pub(crate) fn per_dim(
    values: Option<&[i64]>,
    rank: usize,
    default: i64,
    min: i64,
    what: &str,
) -> Result<Vec<i64>> {
    match values {
        None => Ok(vec![default; rank]),
        Some(v) => {
            if v.len() != rank {
                bail!("{what} {v:?} must have {rank} entries, one per dimension");
            }
            if let Some(bad) = v.iter().find(|&&x| x < min) {
                bail!("{what} {v:?}: entry {bad} must be at least {min}");
            }
            if let Some(bad) = v.iter().find(|&&x| x > MAX_WINDOW_ATTR) {
                bail!("{what} {v:?}: entry {bad} is larger than {MAX_WINDOW_ATTR}");
            }
            Ok(v.to_vec())
        }
    }
}

/// Checks (low, high) padding pairs: `rank` of them, each within ±[`MAX_WINDOW_ATTR`].
pub(crate) fn padding_pairs(
    padding: Option<&[(i64, i64)]>,
    rank: usize,
) -> Result<Vec<(i64, i64)>> {
    match padding {
        None => Ok(vec![(0, 0); rank]),
        Some(p) if p.len() != rank => bail!("padding {p:?} must have {rank} (low, high) pairs"),
        Some(p) => {
            let too_big = |x: i64| x.unsigned_abs() > MAX_WINDOW_ATTR as u64;
            if let Some(bad) = p.iter().find(|(lo, hi)| too_big(*lo) || too_big(*hi)) {
                bail!("padding {p:?}: pair {bad:?} exceeds ±{MAX_WINDOW_ATTR}");
            }
            Ok(p.to_vec())
        }
    }
}

/// The elements of a tensor as scalars, row-major.
pub(crate) fn scalars(t: &Tensor) -> Vec<Scalar> {
    (0..t.num_elements()).map(|i| t.get(i)).collect()
}

/// A tensor of type `ty` from scalars of the matching kind (floats are rounded, integers
/// wrapped to the dtype).
pub(crate) fn tensor_from_scalars(ty: TensorType, values: Vec<Scalar>) -> Result<Tensor> {
    /// Unwraps every scalar with `pick`, or names the first one of the wrong kind.
    fn all<T>(
        ty: &TensorType,
        values: &[Scalar],
        pick: impl Fn(Scalar) -> Option<T>,
    ) -> Result<Vec<T>> {
        values
            .iter()
            .map(|&s| match pick(s) {
                Some(v) => Ok(v),
                None => bail!("a value {s} does not fit the element type {}", ty.dtype),
            })
            .collect()
    }
    let data = match ty.dtype.kind() {
        DTypeKind::Bool => Data::Bool(all(&ty, &values, |s| match s {
            Scalar::Bool(b) => Some(b),
            _ => None,
        })?),
        DTypeKind::Signed => Data::Int(all(&ty, &values, |s| match s {
            Scalar::Int(i) => Some(i),
            _ => None,
        })?),
        DTypeKind::Unsigned => Data::UInt(all(&ty, &values, |s| match s {
            Scalar::UInt(u) => Some(u),
            _ => None,
        })?),
        DTypeKind::Float => Data::Float(all(&ty, &values, |s| match s {
            Scalar::Float(x) => Some(x),
            _ => None,
        })?),
        DTypeKind::Complex => Data::Complex(all(&ty, &values, |s| match s {
            Scalar::Complex(z) => Some(z),
            _ => None,
        })?),
    };
    new_tensor(ty, data)
}

/// A rank-0 tensor value holding `s`, of dtype `dtype`.
pub(crate) fn scalar_value(dtype: DType, s: Scalar) -> Result<Value> {
    Ok(Value::Tensor(tensor_from_scalars(
        TensorType::scalar(dtype),
        vec![s],
    )?))
}

/// An integer element of an index tensor as i64 (unsigned values above `i64::MAX` saturate,
/// which keeps them out of bounds as they were).
pub(crate) fn index_at(t: &Tensor, i: usize) -> Result<i64> {
    crate::operands::integer_at(t, i, "indices")
}

/// Converts an element to the kind of `dtype` as `stablehlo.convert` does (floats round,
/// float→int saturates with NaN → 0, integers wrap, nonzero → true; complex → real takes the
/// real part, real → complex has imaginary part 0).
pub(crate) fn convert_scalar(s: Scalar, dtype: DType) -> Scalar {
    let s = match s {
        Scalar::Complex(z) if !dtype.is_complex() => Scalar::Float(z.re),
        s => s,
    };
    let as_f64 = match s {
        Scalar::Bool(b) => b as u8 as f64,
        Scalar::Int(i) => i as f64,
        Scalar::UInt(u) => u as f64,
        Scalar::Float(x) => x,
        Scalar::Complex(z) => z.re,
    };
    match dtype.kind() {
        DTypeKind::Bool => Scalar::Bool(match s {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::UInt(u) => u != 0,
            Scalar::Float(x) | Scalar::Complex(Complex64 { re: x, .. }) => x != 0.0,
        }),
        DTypeKind::Signed => Scalar::Int(match s {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => numerics::wrap_signed(dtype.bit_width(), i),
            Scalar::UInt(u) => numerics::wrap_signed(dtype.bit_width(), u as i64),
            Scalar::Float(x) | Scalar::Complex(Complex64 { re: x, .. }) => {
                numerics::float_to_signed(dtype, x)
            }
        }),
        DTypeKind::Unsigned => Scalar::UInt(match s {
            Scalar::Bool(b) => b as u64,
            Scalar::Int(i) => numerics::wrap_unsigned(dtype.bit_width(), i as u64),
            Scalar::UInt(u) => numerics::wrap_unsigned(dtype.bit_width(), u),
            Scalar::Float(x) | Scalar::Complex(Complex64 { re: x, .. }) => {
                numerics::float_to_unsigned(dtype, x)
            }
        }),
        DTypeKind::Float => Scalar::Float(numerics::round_to(dtype, as_f64)),
        DTypeKind::Complex => Scalar::Complex(match s {
            Scalar::Complex(z) => Complex64::new(
                numerics::round_to(dtype, z.re),
                numerics::round_to(dtype, z.im),
            ),
            _ => Complex64::new(numerics::round_to(dtype, as_f64), 0.0),
        }),
    }
}

/// One of an op's regions seen as a function of scalars: each call passes rank-0 tensors and
/// expects rank-0 tensors back.
pub(crate) struct ScalarFn<'r> {
    regions: &'r mut dyn Regions,
    index: usize,
    name: &'static str,
}

impl<'r> ScalarFn<'r> {
    /// Region `index` of the op; `name` names it in errors (`"body"`, `"comparator"`).
    pub(crate) fn new(
        regions: &'r mut dyn Regions,
        index: usize,
        name: &'static str,
    ) -> Result<Self> {
        if regions.count() <= index {
            bail!(
                "the {name} region (region {index}) is missing: the op has {} regions",
                regions.count()
            );
        }
        Ok(ScalarFn {
            regions,
            index,
            name,
        })
    }

    /// Runs the region on `(dtype, value)` arguments and returns its scalar results, checking
    /// that there are `expected` of them.
    pub(crate) fn call(
        &mut self,
        args: &[(DType, Scalar)],
        expected: usize,
    ) -> Result<Vec<(DType, Scalar)>> {
        let values = args
            .iter()
            .map(|&(d, s)| scalar_value(d, s))
            .collect::<Result<Vec<_>>>()?;
        let results = self.regions.run(self.index, values)?;
        if results.len() != expected {
            bail!(
                "the {} region returned {} values, expected {expected}",
                self.name,
                results.len()
            );
        }
        results
            .into_iter()
            .map(|v| match v {
                Value::Tensor(t) if t.shape().is_empty() => Ok((t.dtype(), t.get(0))),
                other => bail!(
                    "the {} region must return rank-0 tensors, returned {}",
                    self.name,
                    other.ty()
                ),
            })
            .collect()
    }

    /// Runs a region that returns one `i1` (a comparator or a select function).
    pub(crate) fn predicate(&mut self, args: &[(DType, Scalar)]) -> Result<bool> {
        match self.call(args, 1)?[0] {
            (_, Scalar::Bool(b)) => Ok(b),
            (d, _) => bail!(
                "the {} region must return tensor<i1>, returned tensor<{d}>",
                self.name
            ),
        }
    }
}

/// Checks the N inputs and N rank-0 init values of a reduce or reduce_window (N ≥ 1, inputs of
/// one shape) and returns that shape.
pub(crate) fn check_inputs_and_inits<'a>(
    inputs: &[&'a Tensor],
    inits: &[&Tensor],
) -> Result<&'a [i64]> {
    if inputs.is_empty() || inputs.len() != inits.len() {
        bail!(
            "needs N inputs and N init values with N ≥ 1; got {} inputs and {} init values",
            inputs.len(),
            inits.len()
        );
    }
    let shape = inputs[0].shape();
    for (i, (input, init)) in inputs.iter().zip(inits).enumerate() {
        if input.shape() != shape {
            bail!(
                "input {i} {} and input 0 {} differ in shape",
                input.ty(),
                inputs[0].ty()
            );
        }
        if !init.shape().is_empty() {
            bail!("init value {i} must be rank 0, got {}", init.ty());
        }
    }
    Ok(shape)
}
