//! Interpreting the typed StableHLO attributes an op needs from their text:
//! `#stablehlo<comparison_direction LT>` and the other enums, `#stablehlo.dot<…>`,
//! `#stablehlo.dot_algorithm<…>`, `#stablehlo.gather<…>`, `#stablehlo.scatter<…>`,
//! `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` (and its `raw` form),
//! `#stablehlo.channel_handle<…>`.
//!
//! The generic attribute parser keeps these as [`Attribute::Opaque`] text; the functions here
//! run a small sub-parser over that text. Errors are plain messages: the op builder adds the
//! op name and place.

use super::parse_attrs::attr_int_list;
use super::parser::Parser;
use crate::attrs::*;
use crate::diag::Diagnostic;

/// The keyword of an enum attribute `#stablehlo<kind KW>` (or a bare `KW` string/word).
pub(crate) fn enum_keyword<'a>(a: &'a Attribute, kind: &str) -> Option<&'a str> {
    match a {
        Attribute::Opaque(text) => {
            let inner = text
                .strip_prefix("#stablehlo<")
                .or_else(|| text.strip_prefix("#mhlo<"))
                .or_else(|| text.strip_prefix("#chlo<"))?
                .strip_suffix('>')?
                .trim();
            let rest = inner.strip_prefix(kind)?;
            Some(rest.trim())
        }
        Attribute::String(s) => Some(s.as_str()),
        _ => None,
    }
}

/// The `key = value` fields of `#dialect.name<key = value, …>`.
pub(crate) fn opaque_fields(text: &str) -> Result<Vec<NamedAttr>, String> {
    let open = text
        .find('<')
        .ok_or_else(|| format!("expected '<' in {text}"))?;
    let mut p = Parser::new(text);
    p.lx.set_pos(open + 1);
    let fields = p
        .comma_list(">", |p| p.parse_named_attr())
        .map_err(|d| d.message)?;
    if p.lx.peek_byte().is_some() {
        return Err(format!("unexpected text after the attribute {text}"));
    }
    Ok(fields)
}

fn field_ints(fields: &[NamedAttr], name: &str) -> Result<Vec<i64>, String> {
    match find_attr(fields, name) {
        None => Ok(vec![]),
        Some(a) => attr_int_list(a).ok_or_else(|| format!("{name} must be a list of integers")),
    }
}

fn field_int(fields: &[NamedAttr], name: &str) -> Result<Option<i64>, String> {
    match find_attr(fields, name) {
        None => Ok(None),
        Some(Attribute::Int(v, _)) => Ok(Some(*v)),
        Some(_) => Err(format!("{name} must be an integer")),
    }
}

/// Checks that every field is one of `known`.
fn only_fields(fields: &[NamedAttr], what: &str, known: &[&str]) -> Result<(), String> {
    match fields.iter().find(|f| !known.contains(&f.name.as_str())) {
        Some(f) => Err(format!("unknown field '{}' in {what}", f.name)),
        None => Ok(()),
    }
}

/// `#stablehlo.dot<…>`.
pub(crate) fn dot_dims(a: &Attribute) -> Result<DotDimensionNumbers, String> {
    let Attribute::Opaque(text) = a else {
        return Err("dot_dimension_numbers must be #stablehlo.dot<…>".to_string());
    };
    let f = opaque_fields(text)?;
    only_fields(
        &f,
        "#stablehlo.dot",
        &[
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
        ],
    )?;
    Ok(DotDimensionNumbers {
        lhs_batching_dimensions: field_ints(&f, "lhs_batching_dimensions")?,
        rhs_batching_dimensions: field_ints(&f, "rhs_batching_dimensions")?,
        lhs_contracting_dimensions: field_ints(&f, "lhs_contracting_dimensions")?,
        rhs_contracting_dimensions: field_ints(&f, "rhs_contracting_dimensions")?,
    })
}

/// `#chlo.ragged_dot<…>`: the dot's four lists and the ragged and group dimensions.
pub(crate) fn ragged_dot_dims(a: &Attribute) -> Result<RaggedDotDimensionNumbers, String> {
    let Attribute::Opaque(text) = a else {
        return Err("ragged_dot_dimension_numbers must be #chlo.ragged_dot<…>".to_string());
    };
    let f = opaque_fields(text)?;
    only_fields(
        &f,
        "#chlo.ragged_dot",
        &[
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
            "lhs_ragged_dimensions",
            "rhs_group_dimensions",
        ],
    )?;
    Ok(RaggedDotDimensionNumbers {
        dot: DotDimensionNumbers {
            lhs_batching_dimensions: field_ints(&f, "lhs_batching_dimensions")?,
            rhs_batching_dimensions: field_ints(&f, "rhs_batching_dimensions")?,
            lhs_contracting_dimensions: field_ints(&f, "lhs_contracting_dimensions")?,
            rhs_contracting_dimensions: field_ints(&f, "rhs_contracting_dimensions")?,
        },
        lhs_ragged_dimensions: field_ints(&f, "lhs_ragged_dimensions")?,
        rhs_group_dimensions: field_ints(&f, "rhs_group_dimensions")?,
    })
}

/// `#stablehlo.dot_algorithm<…>` (also written `<…>` in the pretty form of dot_general).
pub(crate) fn dot_algorithm(a: &Attribute) -> Result<DotAlgorithm, String> {
    let Attribute::Opaque(text) = a else {
        return Err("algorithm must be #stablehlo.dot_algorithm<…>".to_string());
    };
    let f = opaque_fields(text)?;
    let ty = |name: &str| match find_attr(&f, name) {
        Some(Attribute::Type(t)) => Ok(t.clone()),
        Some(Attribute::Opaque(t)) if t == "tf32" => Err(format!(
            "element type 'tf32' is not supported as {name} (only as a precision type)"
        )),
        _ => Err(format!("dot algorithm needs a type for {name}")),
    };
    let int = |name: &str| -> Result<i64, String> { Ok(field_int(&f, name)?.unwrap_or(1)) };
    let allow = match find_attr(&f, "allow_imprecise_accumulation") {
        None => false,
        Some(Attribute::Bool(b)) => *b,
        Some(_) => return Err("allow_imprecise_accumulation must be true or false".to_string()),
    };
    let precision = |name: &str| match find_attr(&f, name) {
        Some(Attribute::Opaque(t)) if t == "tf32" => Ok(PrecisionType::Tf32),
        _ => ty(name).map(PrecisionType::Type),
    };
    Ok(DotAlgorithm {
        lhs_precision_type: precision("lhs_precision_type")?,
        rhs_precision_type: precision("rhs_precision_type")?,
        accumulation_type: ty("accumulation_type")?,
        lhs_component_count: int("lhs_component_count")?,
        rhs_component_count: int("rhs_component_count")?,
        num_primitive_operations: int("num_primitive_operations")?,
        allow_imprecise_accumulation: allow,
    })
}

/// `#stablehlo.gather<…>`.
pub(crate) fn gather_dims(a: &Attribute) -> Result<GatherDimensionNumbers, String> {
    let Attribute::Opaque(text) = a else {
        return Err("dimension_numbers must be #stablehlo.gather<…>".to_string());
    };
    let f = opaque_fields(text)?;
    only_fields(
        &f,
        "#stablehlo.gather",
        &[
            "offset_dims",
            "collapsed_slice_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "start_index_map",
            "index_vector_dim",
        ],
    )?;
    Ok(GatherDimensionNumbers {
        offset_dims: field_ints(&f, "offset_dims")?,
        collapsed_slice_dims: field_ints(&f, "collapsed_slice_dims")?,
        operand_batching_dims: field_ints(&f, "operand_batching_dims")?,
        start_indices_batching_dims: field_ints(&f, "start_indices_batching_dims")?,
        start_index_map: field_ints(&f, "start_index_map")?,
        index_vector_dim: field_int(&f, "index_vector_dim")?.unwrap_or(0),
    })
}

/// `#stablehlo.scatter<…>`.
pub(crate) fn scatter_dims(a: &Attribute) -> Result<ScatterDimensionNumbers, String> {
    let Attribute::Opaque(text) = a else {
        return Err("scatter_dimension_numbers must be #stablehlo.scatter<…>".to_string());
    };
    let f = opaque_fields(text)?;
    only_fields(
        &f,
        "#stablehlo.scatter",
        &[
            "update_window_dims",
            "inserted_window_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "scatter_dims_to_operand_dims",
            "index_vector_dim",
        ],
    )?;
    Ok(ScatterDimensionNumbers {
        update_window_dims: field_ints(&f, "update_window_dims")?,
        inserted_window_dims: field_ints(&f, "inserted_window_dims")?,
        input_batching_dims: field_ints(&f, "input_batching_dims")?,
        scatter_indices_batching_dims: field_ints(&f, "scatter_indices_batching_dims")?,
        scatter_dims_to_operand_dims: field_ints(&f, "scatter_dims_to_operand_dims")?,
        index_vector_dim: field_int(&f, "index_vector_dim")?.unwrap_or(0),
    })
}

/// `#stablehlo.channel_handle<handle = 1, type = 1>`.
pub(crate) fn channel_handle(a: &Attribute) -> Result<ChannelHandle, String> {
    let Attribute::Opaque(text) = a else {
        return Err("channel_handle must be #stablehlo.channel_handle<…>".to_string());
    };
    let f = opaque_fields(text)?;
    Ok(ChannelHandle {
        handle: field_int(&f, "handle")?.unwrap_or(0),
        kind: field_int(&f, "type")?.unwrap_or(0),
    })
}

/// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` or
/// `#stablehlo.conv<raw input_batch_dimension = 0, …>`.
pub(crate) fn conv_dims(a: &Attribute) -> Result<ConvDimensionNumbers, String> {
    let Attribute::Opaque(text) = a else {
        return Err("dimension_numbers must be #stablehlo.conv<…>".to_string());
    };
    let open = text.find('<').ok_or("expected '<' in #stablehlo.conv")?;
    let body = text[open + 1..].trim_start();
    if body.starts_with("raw") {
        let raw_at = open + 1 + (text[open + 1..].len() - body.len()) + 3;
        let mut p = Parser::new(text);
        p.lx.set_pos(raw_at);
        let f = p
            .comma_list(">", |p| p.parse_named_attr())
            .map_err(|d| d.message)?;
        let int = |n: &str| -> Result<i64, String> {
            field_int(&f, n)?.ok_or_else(|| format!("#stablehlo.conv needs {n}"))
        };
        return Ok(ConvDimensionNumbers {
            input_batch_dimension: int("input_batch_dimension")?,
            input_feature_dimension: int("input_feature_dimension")?,
            input_spatial_dimensions: field_ints(&f, "input_spatial_dimensions")?,
            kernel_input_feature_dimension: int("kernel_input_feature_dimension")?,
            kernel_output_feature_dimension: int("kernel_output_feature_dimension")?,
            kernel_spatial_dimensions: field_ints(&f, "kernel_spatial_dimensions")?,
            output_batch_dimension: int("output_batch_dimension")?,
            output_feature_dimension: int("output_feature_dimension")?,
            output_spatial_dimensions: field_ints(&f, "output_spatial_dimensions")?,
        });
    }
    let mut p = Parser::new(text);
    p.lx.set_pos(open + 1);
    let dims = p.parse_conv_dims_compact().map_err(|d| d.message)?;
    p.expect_punct(">").map_err(|d| d.message)?;
    Ok(dims)
}

impl Parser<'_> {
    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: each letter names where the batch/feature
    /// dimension is, each digit the position of spatial dimension k.
    pub fn parse_conv_dims_compact(&mut self) -> Result<ConvDimensionNumbers, Diagnostic> {
        let input = self.parse_conv_layout("input", &["b", "f"])?;
        self.expect_keyword("x")?;
        let kernel = self.parse_conv_layout("kernel", &["i", "o"])?;
        self.expect_punct("->")?;
        let output = self.parse_conv_layout("output", &["b", "f"])?;
        Ok(ConvDimensionNumbers {
            input_batch_dimension: input.0[0],
            input_feature_dimension: input.0[1],
            input_spatial_dimensions: input.1,
            kernel_input_feature_dimension: kernel.0[0],
            kernel_output_feature_dimension: kernel.0[1],
            kernel_spatial_dimensions: kernel.1,
            output_batch_dimension: output.0[0],
            output_feature_dimension: output.0[1],
            output_spatial_dimensions: output.1,
        })
    }

    /// One `[…]` of the compact conv form: positions of the two letters and of each spatial
    /// dimension.
    fn parse_conv_layout(
        &mut self,
        what: &str,
        letters: &[&str; 2],
    ) -> Result<([i64; 2], Vec<i64>), Diagnostic> {
        let open = self.expect_punct("[")?;
        let items = self.comma_list("]", |p| {
            let t = p.next()?;
            Ok((t, p.text(t).to_string()))
        })?;
        let mut named = [-1i64; 2];
        let mut spatial = vec![-1i64; items.len().saturating_sub(2)];
        for (pos, (t, s)) in items.iter().enumerate() {
            if let Some(k) = letters.iter().position(|l| l == s) {
                if named[k] >= 0 {
                    return Err(
                        self.err_at(*t, format!("'{s}' appears twice in the {what} layout"))
                    );
                }
                named[k] = pos as i64;
            } else if let Ok(k) = s.parse::<usize>() {
                match spatial.get_mut(k) {
                    Some(slot) if *slot < 0 => *slot = pos as i64,
                    _ => {
                        return Err(self.err_at(
                            *t,
                            format!("spatial dimension {k} is out of place in the {what} layout"),
                        ))
                    }
                }
            } else {
                return Err(self.err_at(
                    *t,
                    format!(
                        "expected '{}', '{}' or a spatial index in the {what} layout, found '{s}'",
                        letters[0], letters[1]
                    ),
                ));
            }
        }
        if named.iter().any(|&d| d < 0) || spatial.iter().any(|&d| d < 0) {
            return Err(self.err_at(
                open,
                format!(
                    "the {what} layout needs '{}', '{}' and spatial indices 0..{}",
                    letters[0],
                    letters[1],
                    spatial.len()
                ),
            ));
        }
        Ok((named, spatial))
    }
}

/// A `padding` attribute: a `dense<…> : tensor<Nx2xi64>`, or `[[lo, hi], …]`.
pub(crate) fn padding_pairs(a: &Attribute) -> Option<Vec<(i64, i64)>> {
    match a {
        Attribute::Dense(t) => {
            let flat = attr_int_list(a)?;
            match t.shape() {
                [_, 2] => Some(flat.chunks_exact(2).map(|c| (c[0], c[1])).collect()),
                [0] | [0, _] => Some(vec![]),
                _ => None,
            }
        }
        Attribute::Array(rows) => rows
            .iter()
            .map(|r| match attr_int_list(r)?.as_slice() {
                [lo, hi] => Some((*lo, *hi)),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}
