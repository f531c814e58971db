//! `convolution`: the product rule, and the two transposes as convolutions (the input's
//! cotangent is a convolution of the cotangent with the spatially reversed kernel, dilated by
//! the strides; the kernel's is a convolution of the input with the cotangent), with feature
//! and batch groups moved between axes as XLA's conv algebra needs.

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::{ConvAttrs, ConvDimensionNumbers, Op, OpKind, TensorType, ValueId};

fn dilate(d: i64, r: i64) -> i64 {
    if d == 0 {
        0
    } else {
        1 + r * (d - 1)
    }
}

struct Geometry {
    strides: Vec<i64>,
    padding: Vec<(i64, i64)>,
    lhs_dil: Vec<i64>,
    rhs_dil: Vec<i64>,
}

fn geometry(a: &ConvAttrs, n: usize) -> Res<Geometry> {
    if a.window_reversal
        .as_ref()
        .is_some_and(|w| w.iter().any(|&r| r))
    {
        return Err(Error::new(
            "cannot transpose stablehlo.convolution with window_reversal",
        ));
    }
    Ok(Geometry {
        strides: a.window_strides.clone().unwrap_or(vec![1; n]),
        padding: a.padding.clone().unwrap_or(vec![(0, 0); n]),
        lhs_dil: a.lhs_dilation.clone().unwrap_or(vec![1; n]),
        rhs_dil: a.rhs_dilation.clone().unwrap_or(vec![1; n]),
    })
}

fn take(shape: &[i64], dims: &[i64]) -> Vec<i64> {
    dims.iter().map(|&d| shape[d as usize]).collect()
}

/// Splits axis `src` of `x` into `(size1, rest)`.
fn axis_out_of(b: &mut Builder, src: i64, size1: i64, x: ValueId) -> Res<ValueId> {
    let mut s = b.shape(x);
    let d = s[src as usize];
    s.splice(src as usize..src as usize + 1, [size1, d / size1]);
    b.reshape(x, &s)
}

/// Merges axis `src` of `x` into axis `dst` (numbered with `src` removed), `src` major.
fn axis_into(b: &mut Builder, src: i64, dst: i64, x: ValueId) -> Res<ValueId> {
    let s = b.shape(x);
    let mut perm: Vec<i64> = (0..s.len() as i64).filter(|&i| i != src).collect();
    perm.insert(dst as usize, src);
    let mut ns: Vec<i64> = s
        .iter()
        .enumerate()
        .filter(|&(i, _)| i as i64 != src)
        .map(|(_, &d)| d)
        .collect();
    ns[dst as usize] *= s[src as usize];
    let t = b.transpose(x, &perm)?;
    b.reshape(t, &ns)
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let OpKind::Convolution(a) = &op.kind else {
        unreachable!()
    };
    let dn = &a.dimension_numbers;
    let (lhs, rhs) = (op.operands[0], op.operands[1]);
    let n = dn.input_spatial_dimensions.len();
    let g = geometry(a, n)?;
    let ls = take(&b.shape(lhs), &dn.input_spatial_dimensions);
    let rs = take(&b.shape(rhs), &dn.kernel_spatial_dimensions);
    let os = take(&b.shape(c), &dn.output_spatial_dimensions);
    let mut out = vec![None, None];
    if lin[0] {
        out[0] = Some(lhs_ct(b, a, &g, lhs, rhs, c, &ls, &rs, &os)?);
    }
    if lin[1] {
        out[1] = Some(rhs_ct(b, a, &g, lhs, rhs, c, &ls, &rs, &os)?);
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn lhs_ct(
    b: &mut Builder,
    a: &ConvAttrs,
    g: &Geometry,
    lhs: ValueId,
    rhs: ValueId,
    c: ValueId,
    ls: &[i64],
    rs: &[i64],
    os: &[i64],
) -> Res<ValueId> {
    let dn = &a.dimension_numbers;
    let mut w = b.convert(rhs, b.dtype(c))?;
    let mut fgc = a.feature_group_count;
    let bgc = a.batch_group_count;
    if fgc > 1 {
        w = axis_out_of(b, dn.kernel_output_feature_dimension, fgc, w)?;
        w = axis_into(
            b,
            dn.kernel_output_feature_dimension,
            dn.kernel_input_feature_dimension,
            w,
        )?;
    } else if bgc > 1 {
        w = axis_out_of(b, dn.kernel_output_feature_dimension, bgc, w)?;
        w = axis_into(
            b,
            dn.kernel_output_feature_dimension,
            dn.kernel_input_feature_dimension,
            w,
        )?;
        fgc = bgc;
    }
    let tdn = ConvDimensionNumbers {
        input_batch_dimension: dn.output_batch_dimension,
        input_feature_dimension: dn.output_feature_dimension,
        input_spatial_dimensions: dn.output_spatial_dimensions.clone(),
        kernel_input_feature_dimension: dn.kernel_output_feature_dimension,
        kernel_output_feature_dimension: dn.kernel_input_feature_dimension,
        kernel_spatial_dimensions: dn.kernel_spatial_dimensions.clone(),
        output_batch_dimension: dn.input_batch_dimension,
        output_feature_dimension: dn.input_feature_dimension,
        output_spatial_dimensions: dn.input_spatial_dimensions.clone(),
    };
    let mut padding = vec![];
    for i in 0..ls.len() {
        let ld = dilate(ls[i], g.lhs_dil[i]);
        let rd = dilate(rs[i], g.rhs_dil[i]);
        let od = dilate(os[i], g.strides[i]);
        let before = rd - g.padding[i].0 - 1;
        let after = ld + rd - 1 - od - before;
        padding.push((before, after));
    }
    let wr = b.emit(
        OpKind::Reverse {
            dimensions: dn.kernel_spatial_dimensions.clone(),
        },
        vec![w],
    )?;
    let attrs = ConvAttrs {
        dimension_numbers: tdn,
        window_strides: Some(g.lhs_dil.clone()),
        padding: Some(padding),
        lhs_dilation: Some(g.strides.clone()),
        rhs_dilation: Some(g.rhs_dil.clone()),
        window_reversal: None,
        feature_group_count: fgc,
        batch_group_count: 1,
        precision_config: a.precision_config.clone(),
    };
    let mut lt = b.tt(lhs);
    if bgc > 1 {
        // The result's feature axis holds the batch groups until they are moved back.
        let f = dn.input_feature_dimension as usize;
        let bd = dn.input_batch_dimension as usize;
        lt.shape[f] *= bgc;
        lt.shape[bd] /= bgc;
    }
    let ct_ty = TensorType::new(lt.shape.clone(), b.dtype(c));
    let mut out = b.emit_as(OpKind::Convolution(attrs), vec![c, wr], ct_ty)?;
    if bgc > 1 {
        out = axis_out_of(b, dn.input_feature_dimension, bgc, out)?;
        out = axis_into(b, dn.input_feature_dimension, dn.input_batch_dimension, out)?;
    }
    b.convert(out, b.dtype(lhs))
}

#[allow(clippy::too_many_arguments)]
fn rhs_ct(
    b: &mut Builder,
    a: &ConvAttrs,
    g: &Geometry,
    lhs: ValueId,
    rhs: ValueId,
    c: ValueId,
    ls: &[i64],
    rs: &[i64],
    os: &[i64],
) -> Res<ValueId> {
    let dn = &a.dimension_numbers;
    let (mut fgc, mut bgc) = (a.feature_group_count, a.batch_group_count);
    if bgc > 1 {
        fgc = bgc;
        bgc = 1;
    } else if fgc > 1 {
        bgc = fgc;
        fgc = 1;
    }
    let tdn = ConvDimensionNumbers {
        input_batch_dimension: dn.input_feature_dimension,
        input_feature_dimension: dn.input_batch_dimension,
        input_spatial_dimensions: dn.input_spatial_dimensions.clone(),
        kernel_input_feature_dimension: dn.output_batch_dimension,
        kernel_output_feature_dimension: dn.output_feature_dimension,
        kernel_spatial_dimensions: dn.output_spatial_dimensions.clone(),
        output_batch_dimension: dn.kernel_input_feature_dimension,
        output_feature_dimension: dn.kernel_output_feature_dimension,
        output_spatial_dimensions: dn.kernel_spatial_dimensions.clone(),
    };
    let mut padding = vec![];
    for i in 0..ls.len() {
        let ld = dilate(ls[i], g.lhs_dil[i]);
        let rd = dilate(rs[i], g.rhs_dil[i]);
        let od = dilate(os[i], g.strides[i]);
        let lo = g.padding[i].0;
        padding.push((lo, (od - ld) + (rd - lo - 1)));
    }
    let x = b.convert(lhs, b.dtype(c))?;
    let attrs = ConvAttrs {
        dimension_numbers: tdn,
        window_strides: Some(g.rhs_dil.clone()),
        padding: Some(padding),
        lhs_dilation: Some(g.lhs_dil.clone()),
        rhs_dilation: Some(g.strides.clone()),
        window_reversal: None,
        feature_group_count: fgc,
        batch_group_count: bgc,
        precision_config: a.precision_config.clone(),
    };
    let ty = TensorType::new(b.shape(rhs), b.dtype(c));
    let out = b.emit_as(OpKind::Convolution(attrs), vec![x, c], ty)?;
    b.convert(out, b.dtype(rhs))
}
