//! Linear algebra: dot_general, dot, convolution, triangular_solve, cholesky, fft and the
//! batch norms.
//!
//! Products may declare a result element type other than their operands' ("preferred element
//! type": bf16 × bf16 → f32, i8 × i8 → i32), and their operands may differ in element type;
//! the shape is always inferred, the element type comes from the declared result when there
//! is one.

use super::common::*;
use crate::attrs::{ConvAttrs, DotAlgorithm, DotDimensionNumbers, FftType, Precision};
use crate::dtype::DType;
use crate::types::{TensorType, Type};

/// The element type of a product: the declared one, else the operands' common one.
fn product_dtype(
    lhs: &TensorType,
    rhs: &TensorType,
    declared: Option<&[Type]>,
) -> Result<DType, String> {
    let result = match declared {
        Some(d) => Some(need_declared_tensor(Some(d), "")?.dtype),
        None => None,
    };
    if let Some(r) = result {
        let complex_in = lhs.dtype.is_complex() || rhs.dtype.is_complex();
        if (lhs.dtype.is_float() || rhs.dtype.is_float()) && !r.is_float_or_complex()
            || complex_in && !r.is_complex()
        {
            return Err(format!(
                "a product of {lhs} and {rhs} cannot have element type {r}"
            ));
        }
        return Ok(r);
    }
    if lhs.dtype == rhs.dtype {
        Ok(lhs.dtype)
    } else {
        Err(format!(
            "lhs {lhs} and rhs {rhs} differ in element type; the result element type must be declared"
        ))
    }
}

/// `precision_config` holds nothing or one entry per operand.
fn check_precision(precision: &[Precision]) -> Result<(), String> {
    if precision.is_empty() || precision.len() == 2 {
        Ok(())
    } else {
        Err(format!(
            "`precision_config` has {}; it must have 0 or 2",
            count(precision.len(), "entry", "entries")
        ))
    }
}

/// A requested dot algorithm leaves the precision at DEFAULT and counts at least one
/// component and one primitive operation (spec dot_general C21–C24).
fn check_algorithm(a: &DotAlgorithm, precision: &[Precision]) -> Result<(), String> {
    if precision.iter().any(|&p| p != Precision::Default) {
        return Err("`precision_config` must be DEFAULT when an algorithm is given".to_string());
    }
    for (name, count) in [
        ("lhs_component_count", a.lhs_component_count),
        ("rhs_component_count", a.rhs_component_count),
        ("num_primitive_operations", a.num_primitive_operations),
    ] {
        if count <= 0 {
            return Err(format!(
                "the algorithm's {name} is {count}; it must be positive"
            ));
        }
    }
    Ok(())
}

/// `stablehlo.dot_general`: batch dimensions, then the lhs's free dimensions, then the rhs's.
pub(crate) fn dot_general(
    dn: &DotDimensionNumbers,
    precision: &[Precision],
    algorithm: Option<&DotAlgorithm>,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    check_precision(precision)?;
    if let Some(a) = algorithm {
        check_algorithm(a, precision)?;
    }
    if dn.lhs_batching_dimensions.len() != dn.rhs_batching_dimensions.len() {
        return Err(format!(
            "lhs_batching_dimensions {} and rhs_batching_dimensions {} must have the same length",
            list(&dn.lhs_batching_dimensions),
            list(&dn.rhs_batching_dimensions)
        ));
    }
    if dn.lhs_contracting_dimensions.len() != dn.rhs_contracting_dimensions.len() {
        return Err(format!(
            "lhs_contracting_dimensions {} and rhs_contracting_dimensions {} must have the same length",
            list(&dn.lhs_contracting_dimensions),
            list(&dn.rhs_contracting_dimensions)
        ));
    }
    let lb = axes(
        &dn.lhs_batching_dimensions,
        lhs.rank(),
        "lhs_batching_dimensions",
    )?;
    let rb = axes(
        &dn.rhs_batching_dimensions,
        rhs.rank(),
        "rhs_batching_dimensions",
    )?;
    let lc = axes(
        &dn.lhs_contracting_dimensions,
        lhs.rank(),
        "lhs_contracting_dimensions",
    )?;
    let rc = axes(
        &dn.rhs_contracting_dimensions,
        rhs.rank(),
        "rhs_contracting_dimensions",
    )?;
    let mut lhs_used = dn.lhs_batching_dimensions.clone();
    lhs_used.extend_from_slice(&dn.lhs_contracting_dimensions);
    expect_unique(
        &lhs_used,
        "lhs_batching_dimensions + lhs_contracting_dimensions",
    )?;
    let mut rhs_used = dn.rhs_batching_dimensions.clone();
    rhs_used.extend_from_slice(&dn.rhs_contracting_dimensions);
    expect_unique(
        &rhs_used,
        "rhs_batching_dimensions + rhs_contracting_dimensions",
    )?;
    for (kind, l, r) in [("batching", &lb, &rb), ("contracting", &lc, &rc)] {
        for (&a, &b) in l.iter().zip(r.iter()) {
            if lhs.shape[a] != rhs.shape[b] {
                return Err(format!(
                    "{kind} dimension {a} of lhs {lhs} (size {}) and {b} of rhs {rhs} (size {}) must be equal",
                    lhs.shape[a], rhs.shape[b]
                ));
            }
        }
    }
    let dtype = product_dtype(lhs, rhs, declared)?;
    let mut shape: Vec<i64> = lb.iter().map(|&d| lhs.shape[d]).collect();
    shape.extend(
        (0..lhs.rank())
            .filter(|d| !lb.contains(d) && !lc.contains(d))
            .map(|d| lhs.shape[d]),
    );
    shape.extend(
        (0..rhs.rank())
            .filter(|d| !rb.contains(d) && !rc.contains(d))
            .map(|d| rhs.shape[d]),
    );
    Ok(vec![tensor(shape, dtype)])
}

/// `stablehlo.dot` (deprecated): vector·vector, matrix·vector, vector·matrix, matrix·matrix,
/// contracting the lhs's last dimension with the rhs's first.
pub(crate) fn dot(
    precision: &[Precision],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    check_precision(precision)?;
    if !(1..=2).contains(&lhs.rank()) || !(1..=2).contains(&rhs.rank()) {
        return Err(format!(
            "lhs {lhs} and rhs {rhs} must be vectors or matrices"
        ));
    }
    let (k_lhs, k_rhs) = (lhs.shape[lhs.rank() - 1], rhs.shape[0]);
    if k_lhs != k_rhs {
        return Err(format!(
            "contracting dimensions of lhs {lhs} (size {k_lhs}) and rhs {rhs} (size {k_rhs}) must be equal"
        ));
    }
    let dtype = product_dtype(lhs, rhs, declared)?;
    let mut shape = lhs.shape[..lhs.rank() - 1].to_vec();
    shape.extend_from_slice(&rhs.shape[1..]);
    Ok(vec![tensor(shape, dtype)])
}

/// Checks a convolution side's dimension numbers: `N - 2` spatial dimensions and all
/// dimensions distinct and in range.
fn conv_dims(dims: &[i64], spatial: usize, rank: usize, side: &str) -> Result<Vec<usize>, String> {
    if dims.len() != spatial + 2 {
        return Err(format!(
            "{side} has {} spatial dimensions but rank {rank} needs {spatial}",
            dims.len().saturating_sub(2)
        ));
    }
    expect_unique(dims, &format!("{side} dimensions"))?;
    axes(dims, rank, &format!("{side} dimensions"))
}

/// `stablehlo.convolution`: windows of the (dilated, padded) lhs dotted with the kernel, with
/// feature and batch groups (spec C1–C28).
pub(crate) fn convolution(
    attrs: &ConvAttrs,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    let n = lhs.rank();
    if rhs.rank() != n || n < 2 {
        return Err(format!(
            "lhs {lhs} and rhs {rhs} must have the same rank, at least 2"
        ));
    }
    let spatial = n - 2;
    let dn = &attrs.dimension_numbers;
    let mut input = vec![dn.input_batch_dimension];
    input.extend_from_slice(&dn.input_spatial_dimensions);
    input.push(dn.input_feature_dimension);
    let input = conv_dims(&input, spatial, n, "input")?;
    let mut kernel = dn.kernel_spatial_dimensions.clone();
    kernel.push(dn.kernel_input_feature_dimension);
    kernel.push(dn.kernel_output_feature_dimension);
    let kernel = conv_dims(&kernel, spatial, n, "kernel")?;
    let mut output = vec![dn.output_batch_dimension];
    output.extend_from_slice(&dn.output_spatial_dimensions);
    output.push(dn.output_feature_dimension);
    let output = conv_dims(&output, spatial, n, "output")?;

    let kernel_spatial: Vec<i64> = kernel[..spatial].iter().map(|&d| rhs.shape[d]).collect();
    let window = attrs
        .resolve_window(&kernel_spatial)
        .map_err(|e| e.to_string())?;
    if let Some(rev) = &attrs.window_reversal {
        let why = "the number of spatial dimensions is";
        expect_len(rev.len(), spatial, "window_reversal", why)?;
    }
    check_precision(&attrs.precision_config)?;

    let (fgc, bgc) = (attrs.feature_group_count, attrs.batch_group_count);
    if fgc <= 0 || bgc <= 0 {
        return Err(format!(
            "feature_group_count {fgc} and batch_group_count {bgc} must be positive"
        ));
    }
    if fgc != 1 && bgc != 1 {
        return Err(format!(
            "feature_group_count {fgc} and batch_group_count {bgc} cannot both exceed 1"
        ));
    }
    let batch = lhs.shape[input[0]];
    let in_features = lhs.shape[input[spatial + 1]];
    let kernel_in = rhs.shape[kernel[spatial]];
    let kernel_out = rhs.shape[kernel[spatial + 1]];
    if batch % bgc != 0 {
        return Err(format!(
            "the input batch size {batch} is not divisible by batch_group_count {bgc}"
        ));
    }
    if in_features % fgc != 0 {
        return Err(format!(
            "the input feature size {in_features} is not divisible by feature_group_count {fgc}"
        ));
    }
    if kernel_in != in_features / fgc {
        return Err(format!(
            "the kernel's input feature size {kernel_in} must be the input feature size {in_features} / feature_group_count {fgc}"
        ));
    }
    if kernel_out % bgc != 0 || kernel_out % fgc != 0 {
        return Err(format!(
            "the kernel's output feature size {kernel_out} must be divisible by batch_group_count {bgc} and feature_group_count {fgc}"
        ));
    }
    let dtype = product_dtype(lhs, rhs, declared)?;
    let mut shape = vec![0i64; n];
    shape[output[0]] = batch / bgc;
    shape[output[spatial + 1]] = kernel_out;
    let input_spatial: Vec<i64> = input[1..=spatial].iter().map(|&d| lhs.shape[d]).collect();
    let sizes = window
        .output_shape(&input_spatial)
        .map_err(|e| e.to_string())?;
    for (&d, size) in output[1..=spatial].iter().zip(sizes) {
        shape[d] = size;
    }
    Ok(vec![tensor(shape, dtype)])
}

/// Checks a batch of square matrices (rank >= 2, last two dimensions equal).
fn expect_square_batch(t: &TensorType, role: &str) -> Result<(), String> {
    let r = t.rank();
    if r < 2 || t.shape[r - 1] != t.shape[r - 2] {
        return Err(format!(
            "{role} has type {t}; it must be a batch of square matrices"
        ));
    }
    Ok(())
}

/// `stablehlo.triangular_solve(a, b)`: `a` square matrices matching `b`'s batch and the side
/// solved from; the result has `b`'s type.
pub(crate) fn triangular_solve(left_side: bool, operands: &[Type]) -> Inferred {
    expect_operands(operands, 2, "a, b")?;
    let a = tensor_at(operands, 0, "a")?;
    let b = tensor_at(operands, 1, "b")?;
    expect_dtype(
        a,
        is_float_or_complex,
        "floating-point or complex type",
        "a",
    )?;
    if a.dtype != b.dtype || a.rank() != b.rank() {
        return Err(format!(
            "a {a} and b {b} must have the same element type and rank"
        ));
    }
    expect_square_batch(a, "a")?;
    let r = a.rank();
    if a.shape[..r - 2] != b.shape[..r - 2] {
        return Err(format!(
            "a {a} and b {b} must have the same batch dimensions"
        ));
    }
    let side = if left_side { r - 2 } else { r - 1 };
    if b.shape[side] != a.shape[r - 1] {
        return Err(format!(
            "b {b} dimension {side} must equal a's matrix size {} (left_side = {left_side})",
            a.shape[r - 1]
        ));
    }
    Ok(vec![Type::Tensor(b.clone())])
}

/// `stablehlo.cholesky`: square float or complex matrices; the type is kept.
pub(crate) fn cholesky(operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "a")?;
    let a = tensor_at(operands, 0, "a")?;
    expect_dtype(
        a,
        is_float_or_complex,
        "floating-point or complex type",
        "a",
    )?;
    expect_square_batch(a, "a")?;
    Ok(vec![Type::Tensor(a.clone())])
}

/// `stablehlo.fft` over the last `fft_length.len()` (1 to 3) dimensions: FFT and IFFT keep a
/// complex operand's type; RFFT takes f32/f64 whose trailing dimensions are `fft_length` and
/// gives complex numbers with `n/2 + 1` in the last of them (the non-negative frequencies);
/// IRFFT is its inverse, from `n/2 + 1` complex numbers to `n` reals.
pub(crate) fn fft(fft_type: FftType, fft_length: &[i64], operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    if !(1..=3).contains(&fft_length.len()) {
        return Err(format!(
            "`fft_length` {} must have 1 to 3 entries",
            list(fft_length)
        ));
    }
    if operand.rank() < fft_length.len() {
        return Err(format!(
            "operand {operand} has fewer dimensions than `fft_length` {}",
            list(fft_length)
        ));
    }
    if let Some(&bad) = fft_length.iter().find(|&&n| n < 0) {
        return Err(format!(
            "`fft_length` {} has the negative entry {bad}",
            list(fft_length)
        ));
    }
    let r = operand.rank();
    let k = fft_length.len();
    let trailing = &operand.shape[r - k..];
    let last = fft_length[k - 1];
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    let (expected_operand, result_shape, result_dtype) = match fft_type {
        FftType::Fft | FftType::Ifft => {
            expect_dtype(operand, is_complex, "complex type", "operand")?;
            (fft_length.to_vec(), operand.shape.clone(), operand.dtype)
        }
        FftType::Rfft => {
            let Some(c) = operand.dtype.complex_of() else {
                return Err(format!(
                    "RFFT operand has type {operand}; expected a tensor of f32 or f64"
                ));
            };
            let mut shape = operand.shape.clone();
            shape[r - 1] = half;
            (fft_length.to_vec(), shape, c)
        }
        FftType::Irfft => {
            expect_dtype(operand, is_complex, "complex type", "operand")?;
            let mut expected = fft_length.to_vec();
            expected[k - 1] = half;
            let mut shape = operand.shape.clone();
            shape[r - 1] = last;
            let part = operand.dtype.component().unwrap_or(operand.dtype);
            (expected, shape, part)
        }
    };
    if trailing != expected_operand.as_slice() {
        return Err(format!(
            "{} of {operand} with `fft_length` {}: the operand's last {} must be {}",
            fft_type.keyword(),
            list(fft_length),
            count(k, "dimension", "dimensions"),
            list(&expected_operand)
        ));
    }
    Ok(vec![tensor(result_shape, result_dtype)])
}

/// Checks the batch-norm feature operands: 1-D, of the operand's element type and of the
/// feature dimension's size.
fn feature_vectors(
    operand: &TensorType,
    feature_index: i64,
    operands: &[Type],
    roles: &[(usize, &str)],
) -> Result<i64, String> {
    expect_dtype(operand, is_float, "floating-point type", "operand")?;
    let f = axis(feature_index, operand.rank(), "feature_index")?;
    let size = operand.shape[f];
    for &(i, role) in roles {
        let t = tensor_at(operands, i, role)?;
        if t.dtype != operand.dtype || t.shape != [size] {
            return Err(format!(
                "{role} has type {t} but must be {}",
                TensorType::new(vec![size], operand.dtype)
            ));
        }
    }
    Ok(size)
}

/// `stablehlo.batch_norm_inference(operand, scale, offset, mean, variance)`.
pub(crate) fn batch_norm_inference(feature_index: i64, operands: &[Type]) -> Inferred {
    expect_operands(operands, 5, "operand, scale, offset, mean, variance")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let roles = [(1, "scale"), (2, "offset"), (3, "mean"), (4, "variance")];
    feature_vectors(operand, feature_index, operands, &roles)?;
    Ok(vec![Type::Tensor(operand.clone())])
}

/// `stablehlo.batch_norm_training(operand, scale, offset)` → (output, mean, variance).
pub(crate) fn batch_norm_training(feature_index: i64, operands: &[Type]) -> Inferred {
    expect_operands(operands, 3, "operand, scale, offset")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let size = feature_vectors(
        operand,
        feature_index,
        operands,
        &[(1, "scale"), (2, "offset")],
    )?;
    let stat = tensor(vec![size], operand.dtype);
    Ok(vec![Type::Tensor(operand.clone()), stat.clone(), stat])
}

/// `stablehlo.batch_norm_grad(operand, scale, mean, variance, grad_output)` →
/// (grad_operand, grad_scale, grad_offset).
pub(crate) fn batch_norm_grad(feature_index: i64, operands: &[Type]) -> Inferred {
    expect_operands(operands, 5, "operand, scale, mean, variance, grad_output")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let roles = [(1, "scale"), (2, "mean"), (3, "variance")];
    let size = feature_vectors(operand, feature_index, operands, &roles)?;
    let grad = tensor_at(operands, 4, "grad_output")?;
    if grad != operand {
        return Err(format!(
            "grad_output has type {grad} but must have the operand's type {operand}"
        ));
    }
    let stat = tensor(vec![size], operand.dtype);
    Ok(vec![Type::Tensor(operand.clone()), stat.clone(), stat])
}
