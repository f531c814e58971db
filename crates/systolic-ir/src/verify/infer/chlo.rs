//! CHLO ops JAX emits: elementwise special functions, `top_k`, `ragged_dot`, and `scan`.

use super::common::*;
use crate::dtype::DType;
use crate::ops::{ChloBinaryOp, ChloUnaryOp};
use crate::types::Type;

/// `chlo.erf`, `chlo.is_inf`, … : float operands (integers too for `square`; complex numbers
/// for `conj` and the functions JAX applies to them: `square`, `sinh`, `cosh`, `tan` and the
/// inverse trigonometric and hyperbolic functions); the `is_*inf` tests give `i1`, the others
/// keep the type.
pub(crate) fn unary(op: ChloUnaryOp, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    use ChloUnaryOp::*;
    match op {
        Square => expect_dtype(
            t,
            is_numeric_or_complex,
            "integer, floating-point or complex type",
            "operand",
        )?,
        Conj | Sinh | Cosh | Tan | Asin | Acos | Atan | Asinh | Acosh | Atanh => expect_dtype(
            t,
            is_float_or_complex,
            "floating-point or complex type",
            "operand",
        )?,
        BesselI1e | Digamma | Erf | Erfc | ErfInv | Lgamma | IsInf | IsNegInf | IsPosInf => {
            expect_dtype(t, is_float, "floating-point type", "operand")?
        }
    }
    Ok(vec![match op {
        IsInf | IsNegInf | IsPosInf => tensor(t.shape.clone(), DType::Bool),
        _ => Type::Tensor(t.clone()),
    }])
}

/// `chlo.next_after`, `polygamma`, `zeta`: two float operands of one type; `chlo.mulhi`: two
/// integer operands of one type.
pub(crate) fn binary(op: ChloBinaryOp, operands: &[Type]) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    if lhs != rhs {
        return Err(format!(
            "operands have types {lhs} and {rhs}; they must be equal"
        ));
    }
    match op {
        ChloBinaryOp::Mulhi => expect_dtype(lhs, is_integer, "integer type", "lhs")?,
        ChloBinaryOp::NextAfter | ChloBinaryOp::Polygamma | ChloBinaryOp::Zeta => {
            expect_dtype(lhs, is_float, "floating-point type", "lhs")?
        }
    }
    Ok(vec![Type::Tensor(lhs.clone())])
}

/// `chlo.top_k(operand, k)` → (values, indices): the last dimension becomes `k`
/// (`0 <= k <= size`); indices are `i32`.
pub(crate) fn top_k(k: i64, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    let Some(&last) = t.shape.last() else {
        return Err(format!("operand {t} must have at least one dimension"));
    };
    if !(0..=last).contains(&k) {
        return Err(format!("k = {k} must be in [0, {last}] for operand {t}"));
    }
    let mut shape = t.shape.clone();
    *shape.last_mut().expect("rank checked above") = k;
    Ok(vec![
        tensor(shape.clone(), t.dtype),
        tensor(shape, DType::I32),
    ])
}

/// The three kinds of `chlo.ragged_dot`, by where the lhs ragged dimension sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaggedMode {
    /// A free dimension of lhs (`m`): `[b,m,k] · [g,b,k,n]`, group sizes `[b,g]` →
    /// `[b,m,n]`; each group of rows multiplies its own rhs group.
    Free,
    /// A contracting dimension (`k`): `[b,m,k] · [b,k,n]`, group sizes `[b,g]` → `[g,b,m,n]`;
    /// one product per group of `k`.
    Contracting,
    /// A batch dimension (`b`): `[b,m,k] · [b,k,n]`, group sizes `[g]` → `[b,m,n]`, the
    /// plain product.
    Batch,
}

/// What the verifier learned of a ragged dot, which the interpreter reuses.
#[derive(Clone, Debug)]
pub struct RaggedDotShape {
    /// The mode.
    pub mode: RaggedMode,
    /// The lhs ragged dimension.
    pub ragged: usize,
    /// The rhs group dimension, in the `Free` mode.
    pub group: Option<usize>,
    /// The dot of lhs with rhs without its group dimension (the rhs dimensions renumbered).
    pub dot: crate::attrs::DotDimensionNumbers,
    /// The number of groups.
    pub groups: i64,
    /// The lhs dimensions whose positions choose a row of `group_sizes` (its leading
    /// dimensions): the batch dimensions, then the free (or, in the contracting mode, the
    /// contracting) dimensions before the ragged one; in the batch mode the batch dimensions
    /// listed before the ragged one. Empty when `group_sizes` is one row `[g]`, which then
    /// holds for every position.
    pub prefix: Vec<usize>,
}

/// Classifies a ragged dot and checks its dimension numbers and group sizes' shape.
pub fn ragged_dot_shape(
    dn: &crate::attrs::RaggedDotDimensionNumbers,
    lhs: &crate::types::TensorType,
    rhs: &crate::types::TensorType,
    group_sizes: &crate::types::TensorType,
) -> Result<RaggedDotShape, String> {
    let [ragged] = dn.lhs_ragged_dimensions.as_slice() else {
        return Err(format!(
            "lhs_ragged_dimensions is {} but must hold exactly one dimension",
            list(&dn.lhs_ragged_dimensions)
        ));
    };
    let ragged = axis(*ragged, lhs.rank(), "lhs_ragged_dimensions")?;
    let d = &dn.dot;
    let in_list = |l: &[i64], x: usize| l.contains(&(x as i64));
    let mode = if in_list(&d.lhs_batching_dimensions, ragged) {
        RaggedMode::Batch
    } else if in_list(&d.lhs_contracting_dimensions, ragged) {
        RaggedMode::Contracting
    } else {
        RaggedMode::Free
    };
    let group = match (mode, dn.rhs_group_dimensions.as_slice()) {
        (RaggedMode::Free, [g]) => {
            let g = axis(*g, rhs.rank(), "rhs_group_dimensions")?;
            if in_list(&d.rhs_batching_dimensions, g) || in_list(&d.rhs_contracting_dimensions, g) {
                return Err(format!(
                    "rhs group dimension {g} must not be a batching or contracting dimension"
                ));
            }
            Some(g)
        }
        (RaggedMode::Free, other) => {
            return Err(format!(
                "with the ragged dimension {ragged} a free dimension of lhs, rhs_group_dimensions \
                 must hold exactly one dimension, not {}",
                list(other)
            ))
        }
        (_, []) => None,
        (_, other) => {
            return Err(format!(
                "with the ragged dimension {ragged} a batching or contracting dimension, \
                 rhs_group_dimensions must be empty, not {}",
                list(other)
            ))
        }
    };
    // The rhs without its group dimension, and the dot on it.
    let renumber = |l: &[i64]| -> Vec<i64> {
        l.iter()
            .map(|&x| match group {
                Some(g) if x > g as i64 => x - 1,
                _ => x,
            })
            .collect()
    };
    let dot = crate::attrs::DotDimensionNumbers {
        lhs_batching_dimensions: d.lhs_batching_dimensions.clone(),
        rhs_batching_dimensions: renumber(&d.rhs_batching_dimensions),
        lhs_contracting_dimensions: d.lhs_contracting_dimensions.clone(),
        rhs_contracting_dimensions: renumber(&d.rhs_contracting_dimensions),
    };
    let groups = match group {
        Some(g) => rhs.shape[g],
        None => *group_sizes.shape.last().unwrap_or(&0),
    };
    // Group sizes: `[prefix…, g]`, or `[g]` for every position.
    let batch = axes(
        &d.lhs_batching_dimensions,
        lhs.rank(),
        "lhs_batching_dimensions",
    )?;
    let contracting = axes(
        &d.lhs_contracting_dimensions,
        lhs.rank(),
        "lhs_contracting_dimensions",
    )?;
    let mut prefix: Vec<usize> = match mode {
        RaggedMode::Batch => batch.iter().copied().take_while(|&b| b != ragged).collect(),
        RaggedMode::Contracting => {
            let before = contracting.iter().copied().take_while(|&c| c != ragged);
            batch.iter().copied().chain(before).collect()
        }
        RaggedMode::Free => {
            let before = (0..ragged).filter(|x| !batch.contains(x) && !contracting.contains(x));
            batch.iter().copied().chain(before).collect()
        }
    };
    let mut want: Vec<i64> = prefix.iter().map(|&x| lhs.shape[x]).collect();
    want.push(groups);
    if !is_integer(group_sizes.dtype)
        || (group_sizes.shape != want && group_sizes.shape != [groups])
    {
        return Err(format!(
            "group_sizes is {group_sizes} but must be an integer tensor of shape {} or [{groups}]",
            list(&want)
        ));
    }
    if group_sizes.rank() == 1 {
        prefix.clear();
    }
    Ok(RaggedDotShape {
        mode,
        ragged,
        group,
        dot,
        groups,
        prefix,
    })
}

/// `chlo.ragged_dot(lhs, rhs, group_sizes)`: a `dot_general` of lhs with rhs without its
/// group dimension; the contracting mode puts the groups in front.
pub(crate) fn ragged_dot(
    dn: &crate::attrs::RaggedDotDimensionNumbers,
    precision: &[crate::attrs::Precision],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_operands(operands, 3, "lhs, rhs, group_sizes")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    let sizes = tensor_at(operands, 2, "group_sizes")?;
    let shape = ragged_dot_shape(dn, lhs, rhs, sizes)?;
    let mut rhs_rest = rhs.clone();
    if let Some(g) = shape.group {
        rhs_rest.shape.remove(g);
    }
    let dot_operands = [Type::Tensor(lhs.clone()), Type::Tensor(rhs_rest)];
    // The declared type of the contracting mode has the groups in front; the dot's rule only
    // reads its element type.
    let mut types =
        super::linalg::dot_general(&shape.dot, precision, None, &dot_operands, declared)?;
    if shape.mode == RaggedMode::Contracting {
        if let Some(Type::Tensor(t)) = types.first_mut() {
            t.shape.insert(0, shape.groups);
        }
    }
    Ok(types)
}

/// `chlo.scan`: inputs slice along `dimension` into the body with the carries; the body
/// returns output slices and new carries of the inits' types. Results: outputs stacked along
/// `dimension`, then the carries.
pub(crate) fn scan(
    dimension: i64,
    operand_segments: &[i64],
    result_segments: &[i64],
    scan_dim_size: Option<i64>,
    operands: &[Type],
    regions: &[super::RegionSignature],
) -> Inferred {
    expect_regions(regions, 1, "body")?;
    let ([n_in, n_init], [n_out, n_carry]) = (operand_segments, result_segments) else {
        return Err(format!(
            "operandSegmentSizes {} and resultSegmentSizes {} must each hold two sizes",
            list(operand_segments),
            list(result_segments)
        ));
    };
    let (n_in, n_init) = (*n_in as usize, *n_init as usize);
    if n_in + n_init != operands.len() || n_carry != &(n_init as i64) || *n_out < 0 {
        return Err(format!(
            "segment sizes {} and {} do not fit {} operand(s) (inputs then inits; as many \
             carries as inits)",
            list(operand_segments),
            list(result_segments),
            operands.len()
        ));
    }
    let inputs = tensors(&operands[..n_in], "input")?;
    let mut length = scan_dim_size;
    let mut args = Vec::with_capacity(operands.len());
    for (i, t) in inputs.iter().enumerate() {
        if dimension < 0 || dimension as usize >= t.rank() {
            return Err(format!("scan dimension of operand {i} is out of bounds"));
        }
        let size = t.shape[dimension as usize];
        match length {
            Some(n) if n != size => {
                return Err(format!("invalid scan dimension size of operand {i}"))
            }
            _ => length = Some(size),
        }
        let mut slice = (*t).clone();
        slice.shape.remove(dimension as usize);
        args.push(Type::Tensor(slice));
    }
    args.extend_from_slice(&operands[n_in..]);
    let body = &regions[0];
    if body.arg_types.len() != args.len() {
        return Err(format!(
            "expects {} arguments in the body, but got {}",
            args.len(),
            body.arg_types.len()
        ));
    }
    for (i, (want, have)) in args.iter().zip(&body.arg_types).enumerate() {
        if want != have {
            return Err(format!(
                "operand and body argument {i} are incompatible ({want} and {have})"
            ));
        }
    }
    let n_out = *n_out as usize;
    if body.result_types.len() != n_out + n_init {
        return Err(format!(
            "the body returns {} value(s) but must return {n_out} output(s) and {n_init} carries",
            body.result_types.len()
        ));
    }
    let carries = &body.result_types[n_out..];
    if carries != &operands[n_in..] {
        return Err(format!(
            "the body returns carries {} but the inits are {}",
            type_list(carries),
            type_list(&operands[n_in..])
        ));
    }
    let length = length.ok_or("a scan needs at least one input or a scan_dim_size")?;
    let mut results = Vec::with_capacity(n_out + n_init);
    for (i, out) in body.result_types[..n_out].iter().enumerate() {
        let Type::Tensor(t) = out else {
            return Err(format!("body output {i} must be a tensor"));
        };
        if dimension as usize > t.rank() {
            return Err(format!(
                "scan dimension is out of bounds for body output {i} ({t})"
            ));
        }
        let mut full = t.clone();
        full.shape.insert(dimension as usize, length);
        results.push(Type::Tensor(full));
    }
    results.extend_from_slice(carries);
    Ok(results)
}
