//! `chlo.scan`: the body applied slice by slice along one dimension, threading carries.

use crate::bail;
use crate::error::Result;
use crate::ops::shape::{concatenate, reshape, slice};
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::{Tensor, TensorType, Type};

/// Runs the scan: `inputs` are sliced along `dimension` (last slice first when
/// `reverse`), the body gets each step's slices then the carries (starting from `inits`) and
/// returns that step's output slices then the new carries. Returns the outputs stacked
/// along `dimension` in position order, then the last carries.
pub fn scan(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    dimension: i64,
    reverse: bool,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
    let n_out = result_types.len().saturating_sub(inits.len());
    let out_types: Vec<&TensorType> = result_types[..n_out]
        .iter()
        .map(|t| match t {
            Type::Tensor(t) => Ok(t),
            other => bail!("scan outputs must be tensors, got {other}"),
        })
        .collect::<Result<_>>()?;
    let d = usize::try_from(dimension).unwrap_or(usize::MAX);
    let length = match (inputs.first(), out_types.first()) {
        (Some(x), _) if d < x.shape().len() => x.shape()[d],
        (None, Some(t)) if d < t.shape.len() => t.shape[d],
        (None, None) => 0,
        _ => bail!("scan dimension {dimension} is out of bounds"),
    };
    let mut carries: Vec<Value> = inits.iter().map(|&t| Value::Tensor(t.clone())).collect();
    // Output slices by position along the dimension.
    let mut outputs: Vec<Vec<Option<Tensor>>> = vec![vec![None; length as usize]; n_out];
    for step in 0..length {
        let at = if reverse { length - 1 - step } else { step };
        let mut args = Vec::with_capacity(inputs.len() + carries.len());
        for x in inputs {
            args.push(Value::Tensor(slice_at(x, d, at)?));
        }
        args.append(&mut carries);
        let mut results = regions.run(0, args)?;
        if results.len() != n_out + inits.len() {
            bail!(
                "the body returned {} value(s) but the scan has {n_out} output(s) and {} carries",
                results.len(),
                inits.len()
            );
        }
        carries = results.split_off(n_out);
        for (k, v) in results.into_iter().enumerate() {
            let Value::Tensor(t) = v else {
                bail!("body output {k} must be a tensor");
            };
            outputs[k][at as usize] = Some(t);
        }
    }
    let mut out = Vec::with_capacity(result_types.len());
    for (slices, ty) in outputs.into_iter().zip(out_types) {
        let pieces = slices
            .into_iter()
            .map(|s| {
                let s = s.expect("every position was computed");
                let mut shape = s.shape().to_vec();
                shape.insert(d, 1);
                reshape(&s, &TensorType::new(shape, s.dtype()))
            })
            .collect::<Result<Vec<Tensor>>>()?;
        out.push(if pieces.is_empty() {
            Tensor::zeros(ty.clone())
        } else {
            concatenate(&pieces, dimension, ty)?
        });
    }
    for (k, c) in carries.into_iter().enumerate() {
        let Value::Tensor(t) = c else {
            bail!("carry {k} must be a tensor");
        };
        out.push(t);
    }
    Ok(out)
}

/// The slice of `x` at position `at` of dimension `d`, that dimension removed.
fn slice_at(x: &Tensor, d: usize, at: i64) -> Result<Tensor> {
    let rank = x.shape().len();
    let mut start = vec![0; rank];
    let mut limit = x.shape().to_vec();
    start[d] = at;
    limit[d] = at + 1;
    let mut shape = x.shape().to_vec();
    shape[d] = 1;
    let one = slice(
        x,
        &start,
        &limit,
        &vec![1; rank],
        &TensorType::new(shape.clone(), x.dtype()),
    )?;
    shape.remove(d);
    reshape(&one, &TensorType::new(shape, x.dtype()))
}
