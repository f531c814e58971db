//! `lax.conv_general_dilated`: strides, padding (`SAME`/`VALID`/explicit), lhs (input) and
//! rhs (kernel) dilation, dimension numbers given as strings (`("NHWC", "HWIO", "NHWC")`)
//! and feature groups, bound as one StableHLO `convolution`.

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::{Error, Result};
use crate::ops::window::Padding;
use systolic_ir::{ConvAttrs, ConvDimensionNumbers, OpKind};

/// Convolution dimension numbers as JAX's strings: `lhs` (input, `N`, `C` and spatial
/// letters), `rhs` (kernel, `O`, `I` and the same spatial letters), `out` (`N`, `C`, spatial).
/// Spatial dimensions are ordered as they appear in `rhs`, as in JAX.
///
/// ```
/// use systolic::lax::ConvDimensions;
/// let d = ConvDimensions::new("NHWC", "HWIO", "NHWC");
/// assert_eq!(d.rhs, "HWIO");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvDimensions {
    /// Input layout, e.g. `NCHW`.
    pub lhs: String,
    /// Kernel layout, e.g. `OIHW`.
    pub rhs: String,
    /// Output layout, e.g. `NCHW`.
    pub out: String,
}

impl ConvDimensions {
    /// From the three layout strings.
    pub fn new(lhs: &str, rhs: &str, out: &str) -> ConvDimensions {
        ConvDimensions {
            lhs: lhs.into(),
            rhs: rhs.into(),
            out: out.into(),
        }
    }

    /// JAX's default for `rank`-dimensional operands: `NC…`, `OI…`, `NC…`.
    fn default_for(rank: usize) -> ConvDimensions {
        let sp: String = "HWDXYZUVST".chars().take(rank.saturating_sub(2)).collect();
        ConvDimensions::new(&format!("NC{sp}"), &format!("OI{sp}"), &format!("NC{sp}"))
    }

    fn resolve(&self, lhs_rank: usize, rhs_rank: usize) -> Result<ConvDimensionNumbers> {
        let bad = |m: String| Error::op("conv_general_dilated", m);
        let (l, r, o) = (&self.lhs, &self.rhs, &self.out);
        if l.len() != lhs_rank || r.len() != rhs_rank || o.len() != lhs_rank {
            return Err(bad(format!(
                "dimension numbers ({l}, {r}, {o}) do not match operand ranks {lhs_rank} and \
                 {rhs_rank}"
            )));
        }
        let pos = |s: &str, c: char| -> Result<i64> {
            s.find(c)
                .map(|p| p as i64)
                .ok_or_else(|| bad(format!("'{c}' is missing from dimension numbers '{s}'")))
        };
        let rhs_spatial: Vec<char> = r.chars().filter(|&c| c != 'O' && c != 'I').collect();
        let spatial =
            |s: &str| -> Result<Vec<i64>> { rhs_spatial.iter().map(|&c| pos(s, c)).collect() };
        for s in [l, r, o] {
            let mut cs: Vec<char> = s.chars().collect();
            cs.sort_unstable();
            if cs.windows(2).any(|w| w[0] == w[1]) {
                return Err(bad(format!("repeated letter in dimension numbers '{s}'")));
            }
        }
        Ok(ConvDimensionNumbers {
            input_batch_dimension: pos(l, 'N')?,
            input_feature_dimension: pos(l, 'C')?,
            input_spatial_dimensions: spatial(l)?,
            kernel_input_feature_dimension: pos(r, 'I')?,
            kernel_output_feature_dimension: pos(r, 'O')?,
            kernel_spatial_dimensions: spatial(r)?,
            output_batch_dimension: pos(o, 'N')?,
            output_feature_dimension: pos(o, 'C')?,
            output_spatial_dimensions: spatial(o)?,
        })
    }
}

/// `lax.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
/// rhs_dilation, dimension_numbers, feature_group_count)`; both operands must have one dtype.
/// `None` dilations are 1; `None` dimension numbers are `NCHW`/`OIHW`/`NCHW`-style.
///
/// ```
/// use systolic::{lax, lax::{ConvDimensions, Padding}, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[1, 4, 1]); // NWC
/// let k = Array::from_vec(vec![1.0f32, 1.0], &[2, 1, 1]); // WIO
/// let dn = ConvDimensions::new("NWC", "WIO", "NWC");
/// let y = lax::conv_general_dilated(&x, &k, &[1], &Padding::Valid, None, None, Some(&dn), 1);
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![3.0, 5.0, 7.0]);
/// let s = lax::conv_general_dilated(&x, &k, &[2], &Padding::Same, None, None, Some(&dn), 1);
/// assert_eq!(s.to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn conv_general_dilated(
    lhs: &Array,
    rhs: &Array,
    window_strides: &[i64],
    padding: &Padding,
    lhs_dilation: Option<&[i64]>,
    rhs_dilation: Option<&[i64]>,
    dimension_numbers: Option<&ConvDimensions>,
    feature_group_count: i64,
) -> Array {
    conv_impl(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dimension_numbers,
        feature_group_count,
    )
    .unwrap_or_else(Array::failed)
}

#[allow(clippy::too_many_arguments)]
fn conv_impl(
    lhs: &Array,
    rhs: &Array,
    window_strides: &[i64],
    padding: &Padding,
    lhs_dilation: Option<&[i64]>,
    rhs_dilation: Option<&[i64]>,
    dimension_numbers: Option<&ConvDimensions>,
    feature_group_count: i64,
) -> Result<Array> {
    const OP: &str = "conv_general_dilated";
    let nsp = spatial_rank(OP, lhs, rhs)?;
    let ctx = || crate::core::bind::describe_all(&[lhs, rhs]);
    let dn = match dimension_numbers {
        Some(d) => d.clone(),
        None => ConvDimensions::default_for(lhs.rank()),
    }
    .resolve(lhs.rank(), rhs.rank())?;
    let ones = vec![1i64; nsp];
    let lhs_dil = lhs_dilation.map_or_else(|| ones.clone(), |d| d.to_vec());
    let rhs_dil = rhs_dilation.map_or_else(|| ones.clone(), |d| d.to_vec());
    for (name, v) in [
        ("window_strides", window_strides),
        ("lhs_dilation", &lhs_dil),
        ("rhs_dilation", &rhs_dil),
    ] {
        if v.len() != nsp || v.iter().any(|&s| s < 1) {
            return Err(Error::op(
                OP,
                format!(
                    "{name} {v:?} must give one positive entry per spatial dimension ({nsp}) \
                     of {}",
                    ctx()
                ),
            ));
        }
    }
    if feature_group_count < 1 {
        return Err(Error::op(
            OP,
            format!("feature_group_count must be >= 1, got {feature_group_count}"),
        ));
    }
    let pads = match padding {
        Padding::Explicit(p) if p.len() != nsp => {
            return Err(Error::op(
                OP,
                format!("padding {p:?} must give one (low, high) pair per spatial dimension"),
            ));
        }
        Padding::Explicit(p) => p.clone(),
        _ => {
            if lhs_dil.iter().any(|&d| d != 1) {
                return Err(Error::op(
                    OP,
                    "string padding is not implemented for transposed convolution (lhs \
                     dilation); give explicit padding",
                ));
            }
            let input: Vec<i64> = dn
                .input_spatial_dimensions
                .iter()
                .map(|&d| lhs.dims()[d as usize])
                .collect();
            let window = dilated_kernel_sizes(rhs, &dn, &rhs_dil);
            padding.pads(&input, &window, window_strides)
        }
    };
    let attrs = ConvAttrs {
        dimension_numbers: dn,
        window_strides: Some(window_strides.to_vec()),
        padding: Some(pads),
        lhs_dilation: Some(lhs_dil),
        rhs_dilation: Some(rhs_dil),
        window_reversal: None,
        feature_group_count,
        batch_group_count: 1,
        precision_config: vec![],
    };
    let r = bind1(
        OP,
        OpKind::Convolution(attrs),
        &[lhs, rhs],
        None,
        lhs.weak_type() && rhs.weak_type(),
    );
    if let Err(Error::Op { message, .. }) = r.check()
        && !message.contains(&describe(lhs.aval()))
    {
        return Err(Error::op(OP, format!("{message} (operands {})", ctx())));
    }
    Ok(r)
}

/// `lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation, dimension_numbers,
/// transpose_kernel)`: the fractionally strided convolution (the input dilated by `strides`),
/// as decoders and up-sampling layers use it. Output sizes and padding follow JAX (Keras'
/// `Conv2DTranspose` conventions): `Same` gives `input · stride`, `Valid` gives
/// `(input − 1) · stride + kernel` (dilated kernel sizes); explicit pairs are the padding of
/// the transposed convolution itself, as JAX's default `use_consistent_padding=False`.
/// Dimension numbers default to channels-last (`NHWC`/`HWIO`/`NHWC` and the 1-d, 3-d forms),
/// unlike [`conv_general_dilated`]. With `transpose_kernel`, the kernel's spatial axes are
/// flipped and its input/output feature axes swapped, which makes this the gradient of the
/// forward convolution with the same kernel.
///
/// ```
/// use systolic::{lax, lax::Padding, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[1, 2, 1]); // NWC
/// let k = Array::from_vec(vec![1.0f32, 10.0], &[2, 1, 1]); // WIO
/// let y = lax::conv_transpose(&x, &k, &[2], &Padding::Valid, None, None, false);
/// assert_eq!(y.shape(), &[1, 4, 1]);
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![10.0, 1.0, 20.0, 2.0]);
/// let s = lax::conv_transpose(&x, &k, &[2], &Padding::Same, None, None, false);
/// assert_eq!(s.shape(), &[1, 4, 1]);
/// ```
pub fn conv_transpose(
    lhs: &Array,
    rhs: &Array,
    strides: &[i64],
    padding: &Padding,
    rhs_dilation: Option<&[i64]>,
    dimension_numbers: Option<&ConvDimensions>,
    transpose_kernel: bool,
) -> Array {
    conv_transpose_impl(
        lhs,
        rhs,
        strides,
        padding,
        rhs_dilation,
        dimension_numbers,
        transpose_kernel,
    )
    .unwrap_or_else(Array::failed)
}

fn conv_transpose_impl(
    lhs: &Array,
    rhs: &Array,
    strides: &[i64],
    padding: &Padding,
    rhs_dilation: Option<&[i64]>,
    dimension_numbers: Option<&ConvDimensions>,
    transpose_kernel: bool,
) -> Result<Array> {
    const OP: &str = "conv_transpose";
    let nsp = spatial_rank(OP, lhs, rhs)?;
    let ctx = || crate::core::bind::describe_all(&[lhs, rhs]);
    let dims = match dimension_numbers {
        Some(d) => d.clone(),
        None => match nsp {
            0 => ConvDimensions::new("NC", "IO", "NC"),
            1 => ConvDimensions::new("NHC", "HIO", "NHC"),
            2 => ConvDimensions::new("NHWC", "HWIO", "NHWC"),
            3 => ConvDimensions::new("NHWDC", "HWDIO", "NHWDC"),
            _ => {
                return Err(Error::op(
                    OP,
                    format!(
                        "no default dimension numbers for {nsp} spatial dimensions ({}); give \
                         them",
                        ctx()
                    ),
                ))
            }
        },
    };
    let dn = dims.resolve(lhs.rank(), rhs.rank())?;
    let rhs_dil = rhs_dilation.map_or_else(|| vec![1; nsp], |d| d.to_vec());
    if strides.len() != nsp || rhs_dil.len() != nsp {
        return Err(Error::op(
            OP,
            format!(
                "strides {strides:?} and rhs_dilation {rhs_dil:?} must give one entry per \
                 spatial dimension ({nsp}) of {}",
                ctx()
            ),
        ));
    }
    if strides.iter().chain(&rhs_dil).any(|&s| s < 1) {
        return Err(Error::op(
            OP,
            format!("strides {strides:?} and rhs_dilation {rhs_dil:?} must be positive"),
        ));
    }
    let kernel = dilated_kernel_sizes(rhs, &dn, &rhs_dil);
    // JAX's `_conv_transpose_padding` for the forward convolution's string padding.
    let pads: Vec<(i64, i64)> = match padding {
        // Checked by the convolution it becomes (errors renamed below).
        Padding::Explicit(p) => p.clone(),
        Padding::Same | Padding::Valid => kernel
            .iter()
            .zip(strides)
            .map(|(&k, &s)| {
                let (total, low) = if matches!(padding, Padding::Same) {
                    let total = k + s - 2;
                    (total, if s > k - 1 { k - 1 } else { (total + 1) / 2 })
                } else {
                    (k + s - 2 + (k - s).max(0), k - 1)
                };
                (low, total - low)
            })
            .collect(),
    };
    let rhs = if transpose_kernel {
        let flipped = crate::ops::shape::rev(rhs, &dn.kernel_spatial_dimensions);
        let mut perm: Vec<i64> = (0..rhs.rank() as i64).collect();
        perm.swap(
            dn.kernel_input_feature_dimension as usize,
            dn.kernel_output_feature_dimension as usize,
        );
        crate::ops::shape::transpose(&flipped, Some(&perm))
    } else {
        rhs.clone()
    };
    let ones = vec![1; nsp];
    let r = conv_impl(
        lhs,
        &rhs,
        &ones,
        &Padding::Explicit(pads),
        Some(strides),
        Some(&rhs_dil),
        Some(&dims),
        1,
    );
    // Errors name this op, not the convolution it became.
    let rename = |e: Error| match e {
        Error::Op { message, .. } => Error::op(OP, message),
        other => other,
    };
    let r = r.map_err(rename)?;
    r.check().map_err(rename)?;
    Ok(r)
}

/// The kernel's spatial sizes after `rhs_dilation` (`(k − 1)·r + 1`; an empty kernel stays 0):
/// the window a convolution slides, which string padding is computed from.
fn dilated_kernel_sizes(rhs: &Array, dn: &ConvDimensionNumbers, rhs_dil: &[i64]) -> Vec<i64> {
    dn.kernel_spatial_dimensions
        .iter()
        .zip(rhs_dil)
        .map(|(&d, &r)| {
            let k = rhs.dims()[d as usize];
            if k == 0 {
                0
            } else {
                (k - 1) * r + 1
            }
        })
        .collect()
}

/// Checks a convolution's operands (no carried error, one dtype, one rank of at least 2) and
/// returns the number of spatial dimensions.
fn spatial_rank(op: &str, lhs: &Array, rhs: &Array) -> Result<usize> {
    lhs.check()?;
    rhs.check()?;
    let ctx = || crate::core::bind::describe_all(&[lhs, rhs]);
    if lhs.element_type() != rhs.element_type() {
        return Err(Error::op(
            op,
            format!("operands must have one dtype, got {}", ctx()),
        ));
    }
    if lhs.rank() < 2 || lhs.rank() != rhs.rank() {
        return Err(Error::op(
            op,
            format!("operands must have one rank >= 2, got {}", ctx()),
        ));
    }
    Ok(lhs.rank() - 2)
}
