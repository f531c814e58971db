//! The typed attributes of StableHLO ops in the syntax their ops print them with: enum
//! keywords, `#stablehlo.gather<…>`, convolution dimension numbers `[b, 0, 1, f]x[…]->[…]`,
//! windows, dot dimensions and algorithms, replica groups.

use super::print_attrs::write_int_list;
use crate::attrs::{
    Attribute, ChannelHandle, ConvAttrs, ConvDimensionNumbers, DotAlgorithm, DotDimensionNumbers,
    GatherDimensionNumbers, Precision, PrecisionType, RaggedDotDimensionNumbers,
    ScatterDimensionNumbers,
};
use crate::dtype::DType;
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use std::fmt::Write;

/// `name = value` pairs as the generic form's `<{…}>` and pretty attr-dicts hold them.
pub(crate) type Props = Vec<crate::attrs::NamedAttr>;

/// Adds `name = value` to a property list.
pub(crate) fn prop(props: &mut Props, name: &str, value: Attribute) {
    props.push(crate::attrs::NamedAttr::new(name, value));
}

/// An `i64` integer attribute (`1 : i64`).
pub(crate) fn i64_attr(v: i64) -> Attribute {
    Attribute::Int(v, Some(Type::Tensor(TensorType::scalar(DType::I64))))
}

/// An `i32` integer attribute (`1 : i32`).
pub(crate) fn i32_attr(v: i64) -> Attribute {
    Attribute::Int(v, Some(Type::Tensor(TensorType::scalar(DType::I32))))
}

/// An `f32` float attribute (`1.000000e-03 : f32`).
pub(crate) fn f32_attr(v: f64) -> Attribute {
    Attribute::Float(
        crate::numerics::round_to(DType::F32, v),
        Some(Type::Tensor(TensorType::scalar(DType::F32))),
    )
}

/// `array<i64: …>`.
pub(crate) fn i64_array(v: &[i64]) -> Attribute {
    Attribute::DenseArray("i64".to_string(), v.to_vec())
}

/// `dense<[[a, b], …]> : tensor<Nx2xi64>` for (low, high) pairs.
pub(crate) fn pairs_attr(pairs: &[(i64, i64)]) -> Attribute {
    let flat: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    i64_matrix(pairs.len(), 2, flat)
}

/// `dense<…> : tensor<RxCxi64>` of replica groups, short rows padded with -1.
pub(crate) fn replica_groups_attr(groups: &[Vec<i64>]) -> Attribute {
    let cols = groups.iter().map(Vec::len).max().unwrap_or(0);
    let mut flat = Vec::with_capacity(groups.len() * cols);
    for g in groups {
        flat.extend_from_slice(g);
        flat.extend(std::iter::repeat_n(-1, cols - g.len()));
    }
    i64_matrix(groups.len(), cols, flat)
}

fn i64_matrix(rows: usize, cols: usize, flat: Vec<i64>) -> Attribute {
    let ty = TensorType::new(vec![rows as i64, cols as i64], DType::I64);
    match Tensor::from_i64(ty.shape.clone(), DType::I64, flat) {
        Ok(t) => Attribute::Dense(t),
        Err(_) => Attribute::Opaque(format!("dense<> : {ty}")),
    }
}

/// `#stablehlo<name KEYWORD>`, e.g. `#stablehlo<precision DEFAULT>`.
pub(crate) fn enum_attr(name: &str, keyword: &str) -> Attribute {
    Attribute::Opaque(format!("#stablehlo<{name} {keyword}>"))
}

/// `#stablehlo.channel_handle<handle = 1, type = 1>`.
pub(crate) fn channel_handle_attr(c: &ChannelHandle) -> Attribute {
    Attribute::Opaque(format!(
        "#stablehlo.channel_handle<handle = {}, type = {}>",
        c.handle, c.kind
    ))
}

/// `[#stablehlo<precision DEFAULT>, …]` (the attribute form, as in generic ops).
pub(crate) fn precision_config_attr(p: &[Precision]) -> Attribute {
    Attribute::Array(
        p.iter()
            .map(|p| enum_attr("precision", p.keyword()))
            .collect(),
    )
}

/// `[DEFAULT, HIGHEST]` (the keyword form of the pretty dot ops).
pub(crate) fn write_precisions(out: &mut String, p: &[Precision]) {
    out.push('[');
    for (i, p) in p.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(p.keyword());
    }
    out.push(']');
}

/// Writes `name = [..]` for each non-empty list and `name = v` for a nonzero scalar, comma
/// separated: the body of StableHLO's struct attributes, which omit default fields.
struct StructFields<'a> {
    out: &'a mut String,
    first: bool,
}

impl StructFields<'_> {
    fn list(&mut self, name: &str, v: &[i64]) {
        if !v.is_empty() {
            self.sep();
            let _ = write!(self.out, "{name} = ");
            write_int_list(self.out, v);
        }
    }

    fn scalar(&mut self, name: &str, v: i64) {
        if v != 0 {
            self.sep();
            let _ = write!(self.out, "{name} = {v}");
        }
    }

    fn sep(&mut self) {
        if !self.first {
            self.out.push_str(", ");
        }
        self.first = false;
    }
}

/// `#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], …>`.
pub(crate) fn gather_dims_attr(d: &GatherDimensionNumbers) -> Attribute {
    let mut out = String::from("#stablehlo.gather<");
    let mut f = StructFields {
        out: &mut out,
        first: true,
    };
    f.list("offset_dims", &d.offset_dims);
    f.list("collapsed_slice_dims", &d.collapsed_slice_dims);
    f.list("operand_batching_dims", &d.operand_batching_dims);
    f.list(
        "start_indices_batching_dims",
        &d.start_indices_batching_dims,
    );
    f.list("start_index_map", &d.start_index_map);
    f.scalar("index_vector_dim", d.index_vector_dim);
    out.push('>');
    Attribute::Opaque(out)
}

/// `#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], …>`.
pub(crate) fn scatter_dims_attr(d: &ScatterDimensionNumbers) -> Attribute {
    let mut out = String::from("#stablehlo.scatter<");
    let mut f = StructFields {
        out: &mut out,
        first: true,
    };
    f.list("update_window_dims", &d.update_window_dims);
    f.list("inserted_window_dims", &d.inserted_window_dims);
    f.list("input_batching_dims", &d.input_batching_dims);
    f.list(
        "scatter_indices_batching_dims",
        &d.scatter_indices_batching_dims,
    );
    f.list(
        "scatter_dims_to_operand_dims",
        &d.scatter_dims_to_operand_dims,
    );
    f.scalar("index_vector_dim", d.index_vector_dim);
    out.push('>');
    Attribute::Opaque(out)
}

/// `#stablehlo.dot<lhs_batching_dimensions = [0], …, rhs_contracting_dimensions = [1]>`.
pub(crate) fn dot_dims_attr(d: &DotDimensionNumbers) -> Attribute {
    let mut out = String::from("#stablehlo.dot<");
    let mut f = StructFields {
        out: &mut out,
        first: true,
    };
    f.list("lhs_batching_dimensions", &d.lhs_batching_dimensions);
    f.list("rhs_batching_dimensions", &d.rhs_batching_dimensions);
    f.list("lhs_contracting_dimensions", &d.lhs_contracting_dimensions);
    f.list("rhs_contracting_dimensions", &d.rhs_contracting_dimensions);
    out.push('>');
    Attribute::Opaque(out)
}

/// `#chlo.ragged_dot<lhs_batching_dimensions = [], …, rhs_group_dimensions = [0]>`.
pub(crate) fn ragged_dot_dims_attr(d: &RaggedDotDimensionNumbers) -> Attribute {
    let mut out = String::from("#chlo.ragged_dot<");
    let mut f = StructFields {
        out: &mut out,
        first: true,
    };
    f.list("lhs_batching_dimensions", &d.dot.lhs_batching_dimensions);
    f.list("rhs_batching_dimensions", &d.dot.rhs_batching_dimensions);
    f.list(
        "lhs_contracting_dimensions",
        &d.dot.lhs_contracting_dimensions,
    );
    f.list(
        "rhs_contracting_dimensions",
        &d.dot.rhs_contracting_dimensions,
    );
    f.list("lhs_ragged_dimensions", &d.lhs_ragged_dimensions);
    f.list("rhs_group_dimensions", &d.rhs_group_dimensions);
    out.push('>');
    Attribute::Opaque(out)
}

/// `<lhs_precision_type = f32, …, allow_imprecise_accumulation = false>`.
pub(crate) fn write_dot_algorithm(out: &mut String, a: &DotAlgorithm) {
    let ty = |t: &Type| match t {
        Type::Tensor(t) if t.shape.is_empty() => t.dtype.mlir_name().to_string(),
        other => other.to_string(),
    };
    let precision = |p: &PrecisionType| match p {
        PrecisionType::Type(t) => ty(t),
        PrecisionType::Tf32 => "tf32".to_string(),
    };
    let _ = write!(
        out,
        "<lhs_precision_type = {}, rhs_precision_type = {}, accumulation_type = {}, \
         lhs_component_count = {}, rhs_component_count = {}, num_primitive_operations = {}, \
         allow_imprecise_accumulation = {}>",
        precision(&a.lhs_precision_type),
        precision(&a.rhs_precision_type),
        ty(&a.accumulation_type),
        a.lhs_component_count,
        a.rhs_component_count,
        a.num_primitive_operations,
        a.allow_imprecise_accumulation
    );
}

/// `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]`, or `None` when the numbers do not describe a
/// permutation of each tensor's dimensions (then the raw form is printed instead).
pub(crate) fn conv_dims_text(d: &ConvDimensionNumbers) -> Option<String> {
    let input = dim_layout(
        d.input_batch_dimension,
        "b",
        d.input_feature_dimension,
        "f",
        &d.input_spatial_dimensions,
    )?;
    let kernel = dim_layout(
        d.kernel_output_feature_dimension,
        "o",
        d.kernel_input_feature_dimension,
        "i",
        &d.kernel_spatial_dimensions,
    )?;
    let output = dim_layout(
        d.output_batch_dimension,
        "b",
        d.output_feature_dimension,
        "f",
        &d.output_spatial_dimensions,
    )?;
    Some(format!("{input}x{kernel}->{output}"))
}

fn dim_layout(a: i64, a_name: &str, b: i64, b_name: &str, spatial: &[i64]) -> Option<String> {
    let rank = spatial.len() + 2;
    let mut slots: Vec<Option<String>> = vec![None; rank];
    let mut place = |dim: i64, label: String| -> Option<()> {
        let slot = slots.get_mut(usize::try_from(dim).ok()?)?;
        if slot.is_some() {
            return None;
        }
        *slot = Some(label);
        Some(())
    };
    place(a, a_name.to_string())?;
    place(b, b_name.to_string())?;
    for (i, &s) in spatial.iter().enumerate() {
        place(s, i.to_string())?;
    }
    let labels: Option<Vec<String>> = slots.into_iter().collect();
    Some(format!("[{}]", labels?.join(", ")))
}

/// `#stablehlo.conv<raw input_batch_dimension = 0, …>`: dimension numbers that are not a
/// layout (malformed, but printable so the verifier can report them).
pub(crate) fn conv_dims_raw(d: &ConvDimensionNumbers) -> String {
    let list = |v: &[i64]| {
        let mut s = String::new();
        write_int_list(&mut s, v);
        s
    };
    format!(
        "#stablehlo.conv<raw input_batch_dimension = {}, input_feature_dimension = {}, \
         input_spatial_dimensions = {}, kernel_input_feature_dimension = {}, \
         kernel_output_feature_dimension = {}, kernel_spatial_dimensions = {}, \
         output_batch_dimension = {}, output_feature_dimension = {}, \
         output_spatial_dimensions = {}>",
        d.input_batch_dimension,
        d.input_feature_dimension,
        list(&d.input_spatial_dimensions),
        d.kernel_input_feature_dimension,
        d.kernel_output_feature_dimension,
        list(&d.kernel_spatial_dimensions),
        d.output_batch_dimension,
        d.output_feature_dimension,
        list(&d.output_spatial_dimensions)
    )
}

/// `{stride = [1, 1], pad = [[0, 0], [1, 1]], lhs_dilate = …, rhs_dilate = …, reverse = …}`
/// with only the entries present (`{}` when there are none).
pub(crate) fn conv_window_text(c: &ConvAttrs) -> String {
    let mut parts = Vec::new();
    let list = |v: &[i64]| {
        let mut s = String::new();
        write_int_list(&mut s, v);
        s
    };
    if let Some(s) = &c.window_strides {
        parts.push(format!("stride = {}", list(s)));
    }
    if let Some(p) = &c.padding {
        let rows: Vec<String> = p.iter().map(|(l, h)| format!("[{l}, {h}]")).collect();
        parts.push(format!("pad = [{}]", rows.join(", ")));
    }
    if let Some(d) = &c.lhs_dilation {
        parts.push(format!("lhs_dilate = {}", list(d)));
    }
    if let Some(d) = &c.rhs_dilation {
        parts.push(format!("rhs_dilate = {}", list(d)));
    }
    if let Some(r) = &c.window_reversal {
        let items: Vec<&str> = r
            .iter()
            .map(|&b| if b { "true" } else { "false" })
            .collect();
        parts.push(format!("reverse = [{}]", items.join(", ")));
    }
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::print_attrs::write_attr;

    fn text(a: &Attribute) -> String {
        let mut s = String::new();
        write_attr(&mut s, a);
        s
    }

    /// Expected texts are what MLIR printed for the same attributes.
    #[test]
    fn structured_attributes() {
        let g = GatherDimensionNumbers {
            offset_dims: vec![1],
            collapsed_slice_dims: vec![0],
            start_index_map: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        };
        assert_eq!(
            text(&gather_dims_attr(&g)),
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>"
        );
        let s = ScatterDimensionNumbers {
            inserted_window_dims: vec![0, 1],
            scatter_dims_to_operand_dims: vec![0, 1],
            ..Default::default()
        };
        assert_eq!(
            text(&scatter_dims_attr(&s)),
            "#stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]>"
        );
        assert_eq!(
            text(&replica_groups_attr(&[vec![0, 4], vec![1, 5]])),
            "dense<[[0, 4], [1, 5]]> : tensor<2x2xi64>"
        );
        assert_eq!(
            text(&replica_groups_attr(&[vec![0]])),
            "dense<0> : tensor<1x1xi64>"
        );
        assert_eq!(text(&replica_groups_attr(&[])), "dense<> : tensor<0x0xi64>");
        assert_eq!(
            text(&pairs_attr(&[(0, 0), (1, 0)])),
            "dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>"
        );
    }

    #[test]
    fn conv_layouts() {
        let d = ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 1,
            input_spatial_dimensions: vec![2, 3],
            kernel_input_feature_dimension: 1,
            kernel_output_feature_dimension: 0,
            kernel_spatial_dimensions: vec![2, 3],
            output_batch_dimension: 0,
            output_feature_dimension: 1,
            output_spatial_dimensions: vec![2, 3],
        };
        assert_eq!(
            conv_dims_text(&d).unwrap(),
            "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"
        );
        let bad = ConvDimensionNumbers {
            input_feature_dimension: 0,
            ..d
        };
        assert_eq!(conv_dims_text(&bad), None);
        assert!(conv_dims_raw(&bad).starts_with(
            "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0"
        ));
    }
}
