//! `stablehlo.reduce`: folds N inputs along some dimensions with a region.
//!
//! The spec lets an implementation combine the reduced elements in any tree order, with init
//! values interleaved anywhere. The oracle fixes the order XLA:CPU uses, so that what it computes
//! for a program exported from JAX is what JAX computes on a CPU, rounding included:
//!
//! - A variadic reduce (several inputs) is a left fold over the reduced elements in row-major
//!   order, starting from the init values: `acc = body(acc..., x...)`.
//! - A one-input reduce is folded in windows of at most [`WINDOW`] elements along each reduced
//!   dimension (XLA's tree-reduction rewrite), each window left to right in row-major order;
//!   the windows' partials are reduced again the same way until one value is left. A dimension
//!   of `n` elements gives `ceil(n / WINDOW)` partials, the missing elements of its last window
//!   split before and after the data as XLA's "same" padding does (those positions are
//!   skipped). When every reduced dimension is at most [`WINDOW`] long this is the left fold.
//! - The init value is folded in once, first (XLA folds it into every window, the same for the
//!   identity inits JAX uses; once is what a user of another init expects).
//!
//! The order matters for floats in narrow types: a bf16 column sum of 2048 terms rounded to bf16
//! after every addition drifts by tens of percent, while windows of 32 keep it within about one
//! percent, bit for bit as JAX computes it. A backend whose float sums differ by reassociation
//! is compared against this with a tolerance.

use crate::bail;
use crate::error::Result;
use crate::index::{linearize, MultiIndex};
use crate::ops::reduce::operands::{
    check_dims, check_inputs_and_inits, convert_scalar, expect_result_type, result_tensor_type,
    scalars, tensor_from_scalars, ScalarFn,
};
use crate::regions::Regions;
use systolic_ir::{DType, Scalar, Tensor, TensorType, Type};

/// The longest run of elements of one reduced dimension folded one after another; XLA:CPU's
/// tree-reduction window.
pub const WINDOW: i64 = 32;

/// Evaluates a reduce of `inputs` with `inits` (one rank-0 tensor per input).
pub fn reduce(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    dimensions: &[i64],
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
    let shape = check_inputs_and_inits(inputs, inits)?;
    let reduced = check_dims(dimensions, shape.len(), "dimensions")?;
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !reduced.contains(d)).collect();
    let result_shape: Vec<i64> = kept.iter().map(|&d| shape[d]).collect();
    let mut result_tys = Vec::with_capacity(inputs.len());
    for (i, init) in inits.iter().enumerate() {
        let declared = result_tensor_type(result_types, i)?;
        expect_result_type(
            declared,
            &TensorType::new(result_shape.clone(), declared.dtype),
        )?;
        if declared.dtype != init.dtype() {
            bail!(
                "result {i} is declared {declared} but its init value is {}",
                init.ty()
            );
        }
        result_tys.push(declared.clone());
    }

    let mut body = ScalarFn::new(regions, 0, "body")?;
    let inits: Vec<(DType, Scalar)> = inits.iter().map(|t| (t.dtype(), t.get(0))).collect();
    let mut operand = Operand {
        shape: shape.to_vec(),
        dtypes: inputs.iter().map(|t| t.dtype()).collect(),
        values: inputs.iter().map(|t| scalars(t)).collect(),
    };
    let empty = reduced.iter().any(|&d| shape[d] == 0);
    let acc = if inputs.len() == 1 && !empty {
        let mut seed = Some(inits[0]);
        while seed.is_some() || reduced.iter().any(|&d| operand.shape[d] > 1) {
            operand = fold_windows(&operand, &reduced, seed.take(), inits[0].0, &mut body)?;
        }
        operand.values
    } else {
        left_fold(&operand, &kept, &result_shape, &inits, &mut body)?
    };
    result_tys
        .into_iter()
        .zip(acc)
        .map(|(ty, values)| tensor_from_scalars(ty, values))
        .collect()
}

/// The values being reduced: N arrays of one shape, each with its dtype.
struct Operand {
    shape: Vec<i64>,
    dtypes: Vec<DType>,
    values: Vec<Vec<Scalar>>,
}

/// Folds every element into the accumulator of its kept index, in row-major order.
fn left_fold(
    operand: &Operand,
    kept: &[usize],
    result_shape: &[i64],
    inits: &[(DType, Scalar)],
    body: &mut ScalarFn,
) -> Result<Vec<Vec<Scalar>>> {
    let n = operand.values.len();
    let count = result_shape.iter().product::<i64>().max(0) as usize;
    let mut acc: Vec<Vec<Scalar>> = inits.iter().map(|&(_, v)| vec![v; count]).collect();
    let mut kept_index = vec![0i64; kept.len()];
    for (pos, index) in MultiIndex::new(&operand.shape).enumerate() {
        for (k, &d) in kept.iter().enumerate() {
            kept_index[k] = index[d];
        }
        let target = linearize(&kept_index, result_shape);
        let mut args = Vec::with_capacity(2 * n);
        for (a, &(d, _)) in acc.iter().zip(inits) {
            args.push((d, a[target]));
        }
        for (v, &d) in operand.values.iter().zip(&operand.dtypes) {
            args.push((d, v[pos]));
        }
        let out = body.call(&args, n)?;
        for (a, (_, v)) in acc.iter_mut().zip(out) {
            a[target] = v;
        }
    }
    Ok(acc)
}

/// One step of the tree: every window of at most [`WINDOW`] elements along each reduced
/// dimension of a one-input operand folded left to right into one partial of dtype `acc_dtype`.
/// `seed` (the init value, at the first step only) starts the first window of each result;
/// every other window starts from its first element. Windows are never empty: the padding of
/// a dimension is less than half a window.
fn fold_windows(
    operand: &Operand,
    reduced: &[usize],
    seed: Option<(DType, Scalar)>,
    acc_dtype: DType,
    body: &mut ScalarFn,
) -> Result<Operand> {
    let rank = operand.shape.len();
    let mut size = vec![1i64; rank];
    let mut pad_low = vec![0i64; rank];
    let mut out_shape = operand.shape.clone();
    for &d in reduced {
        let n = operand.shape[d];
        let w = n.clamp(1, WINDOW);
        let windows = (n + w - 1) / w;
        size[d] = w;
        pad_low[d] = (windows * w - n) / 2;
        out_shape[d] = windows;
    }
    let input_dtype = operand.dtypes[0];
    let values = &operand.values[0];
    let mut partials = Vec::with_capacity(out_shape.iter().product::<i64>().max(0) as usize);
    let mut source = vec![0i64; rank];
    for out_index in MultiIndex::new(&out_shape) {
        let first = reduced.iter().all(|&d| out_index[d] == 0);
        let mut acc = seed.filter(|_| first).map(|(_, v)| v);
        for within in MultiIndex::new(&size) {
            let mut inside = true;
            for d in 0..rank {
                source[d] = out_index[d] * size[d] + within[d] - pad_low[d];
                inside &= (0..operand.shape[d]).contains(&source[d]);
            }
            if !inside {
                continue;
            }
            let x = values[linearize(&source, &operand.shape)];
            acc = Some(match acc {
                // A promotable input (the spec allows e.g. i8 into an i32 accumulator) is
                // widened as the body's argument would be.
                None => convert_scalar(x, acc_dtype),
                Some(a) => body.call(&[(acc_dtype, a), (input_dtype, x)], 1)?[0].1,
            });
        }
        match acc {
            Some(a) => partials.push(a),
            None => bail!("internal error: an empty reduction window"),
        }
    }
    Ok(Operand {
        shape: out_shape,
        dtypes: vec![acc_dtype],
        values: vec![partials],
    })
}
