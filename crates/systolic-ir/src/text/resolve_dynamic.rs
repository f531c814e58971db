//! StableHLO's `dynamic_*` ops, read as their static forms.
//!
//! The IR has static shapes only. StableHLO's dynamic ops take shapes, paddings and slice
//! sizes as run-time operands; when those operands are constants, or when the static result
//! type already fixes them, each op means exactly its static counterpart. XLA compiles them
//! the same way (its `stablehlo-canonicalize-dynamism` rewrite runs before HLO conversion), so
//! the parser reads them as the static op and checks what the constants say against the
//! result type:
//!
//! | read | built | its shape operands |
//! |---|---|---|
//! | `dynamic_iota(shape)` | `iota` | fixed by the result type; a constant must equal it |
//! | `dynamic_broadcast_in_dim(x, shape)` | `broadcast_in_dim(x)` | as above; the `known_*` hints are checked, then dropped |
//! | `dynamic_reshape(x, shape)` | `reshape(x)` | as above |
//! | `dynamic_pad(x, v, low, high, interior)` | `pad(x, v)` | must be constants |
//! | `dynamic_gather(x, idx, slice_sizes)` | `gather(x, idx)` | must be a constant |
//! | `dynamic_conv(lhs, rhs, padding)` | `convolution(lhs, rhs)` | must be a constant |
//!
//! A non-constant operand the result type does not fix is an error naming the op and the
//! operand: such a program needs real dynamic shapes, which XLA does not compile either.
//! Printing writes the static op.

use std::collections::HashMap;

use crate::attrs::{Attribute, NamedAttr};
use crate::dtype::DType;
use crate::module::ValueId;
use crate::tensor::{Data, Tensor};
use crate::types::{TensorType, Type};

/// The integer constants of the function being parsed that could be shape operands (at most
/// [`MAX_SHAPE_CONSTANT`] elements), by the value they define.
#[derive(Default)]
pub(crate) struct ShapeConstants {
    values: HashMap<ValueId, Tensor>,
}

/// The largest integer constant kept as a possible shape operand.
const MAX_SHAPE_CONSTANT: usize = 64;

impl ShapeConstants {
    /// Remembers `value` as the constant `t` if it is a small integer tensor.
    pub fn note(&mut self, value: ValueId, t: &Tensor) {
        let int = matches!(t.data(), Data::Int(_) | Data::UInt(_));
        if int && t.num_elements() <= MAX_SHAPE_CONSTANT {
            self.values.insert(value, t.clone());
        }
    }

    /// Forgets every constant (a new function starts: value ids are per function).
    pub fn clear(&mut self) {
        self.values.clear();
    }

    fn ints(&self, v: ValueId) -> Option<(Vec<i64>, Vec<i64>)> {
        let t = self.values.get(&v)?;
        let values = match t.data() {
            Data::Int(x) => x.clone(),
            Data::UInt(x) => x
                .iter()
                .map(|&u| i64::try_from(u).unwrap_or(i64::MAX))
                .collect(),
            _ => return None,
        };
        Some((t.shape().to_vec(), values))
    }
}

/// True for the op names this module reads.
pub(crate) fn is_dynamic_op(name: &str) -> bool {
    static_name(name).is_some()
}

fn static_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "stablehlo.dynamic_iota" => "stablehlo.iota",
        "stablehlo.dynamic_broadcast_in_dim" => "stablehlo.broadcast_in_dim",
        "stablehlo.dynamic_reshape" => "stablehlo.reshape",
        "stablehlo.dynamic_pad" => "stablehlo.pad",
        "stablehlo.dynamic_gather" => "stablehlo.gather",
        "stablehlo.dynamic_conv" => "stablehlo.convolution",
        _ => return None,
    })
}

/// What the resolver needs to know of the op being read.
pub(crate) struct DynamicOp<'a> {
    pub name: &'a mut String,
    pub operands: &'a mut Vec<ValueId>,
    pub attrs: &'a mut Vec<NamedAttr>,
    pub operand_types: Vec<Type>,
    pub result_types: &'a [Type],
}

/// Rewrites a dynamic op into its static form in place (see the module's table). Does nothing
/// for other ops. The error message does not repeat the op name (the caller adds it).
pub(crate) fn resolve(op: DynamicOp<'_>, constants: &ShapeConstants) -> Result<(), String> {
    let Some(static_op) = static_name(op.name) else {
        return Ok(());
    };
    let short = op.name.trim_start_matches("stablehlo.").to_string();
    let result = match op.result_types {
        [Type::Tensor(t)] => t.clone(),
        _ => return Err("the op has one tensor result".to_string()),
    };
    let expect_operands = match short.as_str() {
        "dynamic_iota" => 1,
        "dynamic_broadcast_in_dim" | "dynamic_reshape" => 2,
        "dynamic_pad" => 5,
        "dynamic_gather" | "dynamic_conv" => 3,
        _ => unreachable!("static_name lists the same ops"),
    };
    if op.operands.len() != expect_operands {
        return Err(format!(
            "the op takes {expect_operands} operand(s), got {}",
            op.operands.len()
        ));
    }
    let operand = |i: usize| op.operands[i];
    let ctx = Ctx {
        constants,
        operand_types: &op.operand_types,
    };
    match short.as_str() {
        "dynamic_iota" => {
            ctx.check_shape(operand(0), 0, "output_shape", &result)?;
            op.operands.clear();
        }
        "dynamic_reshape" => {
            ctx.check_shape(operand(1), 1, "output_shape", &result)?;
            op.operands.truncate(1);
        }
        "dynamic_broadcast_in_dim" => {
            ctx.check_shape(operand(1), 1, "output_dimensions", &result)?;
            check_broadcast_hints(op.attrs, op.operand_types.first(), &result)?;
            op.operands.truncate(1);
        }
        "dynamic_pad" => {
            let rank = ctx.operand_rank(0)?;
            for (i, name, attr) in [
                (2, "edge_padding_low", "edge_padding_low"),
                (3, "edge_padding_high", "edge_padding_high"),
                (4, "interior_padding", "interior_padding"),
            ] {
                let values = ctx.constant_vector(operand(i), i, name, rank)?;
                op.attrs.push(NamedAttr::new(attr, i64s(values)));
            }
            op.operands.truncate(2);
        }
        "dynamic_gather" => {
            let rank = ctx.operand_rank(0)?;
            let sizes = ctx.constant_vector(operand(2), 2, "slice_sizes", rank)?;
            op.attrs.push(NamedAttr::new("slice_sizes", i64s(sizes)));
            op.operands.truncate(2);
        }
        "dynamic_conv" => {
            let (shape, values) = ctx.constant(operand(2), 2, "padding")?;
            if shape.len() != 2 || shape[1] != 2 {
                return Err(format!(
                    "padding (operand #2) must be an [N, 2] tensor, got shape {shape:?}"
                ));
            }
            let t =
                Tensor::from_i64(shape, DType::I64, values).map_err(|e| format!("padding: {e}"))?;
            op.attrs
                .push(NamedAttr::new("padding", Attribute::Dense(t)));
            op.operands.truncate(2);
        }
        _ => unreachable!("static_name lists the same ops"),
    }
    *op.name = static_op.to_string();
    Ok(())
}

fn i64s(v: Vec<i64>) -> Attribute {
    Attribute::DenseArray("i64".to_string(), v)
}

struct Ctx<'a> {
    constants: &'a ShapeConstants,
    operand_types: &'a [Type],
}

impl Ctx<'_> {
    fn operand_rank(&self, i: usize) -> Result<usize, String> {
        match self.operand_types.get(i) {
            Some(Type::Tensor(t)) => Ok(t.shape.len()),
            _ => Err(format!("operand #{i} must be a tensor")),
        }
    }

    /// The constant behind operand `i`, or the error saying it must be one.
    fn constant(&self, v: ValueId, i: usize, what: &str) -> Result<(Vec<i64>, Vec<i64>), String> {
        self.constants.ints(v).ok_or_else(|| {
            format!(
                "{what} (operand #{i}) must be an integer constant: the IR has static \
                 shapes, and a {what} known only at run time needs dynamic shapes, which XLA \
                 does not compile either"
            )
        })
    }

    /// A constant vector of `len` values.
    fn constant_vector(
        &self,
        v: ValueId,
        i: usize,
        what: &str,
        len: usize,
    ) -> Result<Vec<i64>, String> {
        let (shape, values) = self.constant(v, i, what)?;
        if shape.len() != 1 || values.len() != len {
            return Err(format!(
                "{what} (operand #{i}) must hold {len} value(s), one per operand \
                 dimension, got shape {shape:?}"
            ));
        }
        Ok(values)
    }

    /// Checks a shape operand against the static result type: its length always, its values
    /// when it is a constant.
    fn check_shape(
        &self,
        v: ValueId,
        i: usize,
        what: &str,
        result: &TensorType,
    ) -> Result<(), String> {
        let rank = result.shape.len() as i64;
        match self.operand_types.get(i) {
            Some(Type::Tensor(t)) if t.shape.len() == 1 && t.shape[0] == rank => {}
            Some(Type::Tensor(t)) => {
                return Err(format!(
                    "{what} (operand #{i}) must be a 1-D tensor of {rank} value(s), one per \
                     result dimension, got {t}"
                ));
            }
            _ => return Err(format!("{what} (operand #{i}) must be a tensor")),
        }
        if let Some((_, values)) = self.constants.ints(v) {
            if values != result.shape {
                return Err(format!(
                    "{what} is {values:?} but the result type is {result}"
                ));
            }
        }
        Ok(())
    }
}

/// Checks `known_expanding_dimensions` and `known_nonexpanding_dimensions` against the static
/// types (both are promises about operand dimensions), then removes them.
fn check_broadcast_hints(
    attrs: &mut Vec<NamedAttr>,
    operand: Option<&Type>,
    result: &TensorType,
) -> Result<(), String> {
    let Some(Type::Tensor(operand)) = operand else {
        return Err("operand #0 must be a tensor".to_string());
    };
    let take = |attrs: &mut Vec<NamedAttr>, name: &str| -> Result<Vec<i64>, String> {
        let Some(i) = attrs.iter().position(|a| a.name == name) else {
            return Ok(Vec::new());
        };
        match attrs.remove(i).value {
            Attribute::DenseArray(_, v) => Ok(v),
            other => Err(format!("{name} must be an array<i64: …>, got {other:?}")),
        }
    };
    let expanding = take(attrs, "known_expanding_dimensions")?;
    let nonexpanding = take(attrs, "known_nonexpanding_dimensions")?;
    let dims = attrs
        .iter()
        .find(|a| a.name == "broadcast_dimensions")
        .and_then(|a| match &a.value {
            Attribute::DenseArray(_, v) => Some(v.clone()),
            _ => None,
        });
    let rank = operand.shape.len() as i64;
    for (list, name) in [
        (&expanding, "known_expanding_dimensions"),
        (&nonexpanding, "known_nonexpanding_dimensions"),
    ] {
        for (k, &d) in list.iter().enumerate() {
            if d < 0 || d >= rank {
                return Err(format!(
                    "{name} holds {d}, not a dimension of the \
                     rank-{rank} operand"
                ));
            }
            if list[..k].contains(&d) {
                return Err(format!("{name} repeats {d}"));
            }
        }
    }
    if let Some(d) = expanding.iter().find(|d| nonexpanding.contains(d)) {
        return Err(format!(
            "dimension {d} is both known expanding and known \
             non-expanding"
        ));
    }
    // A promise the static types break is a wrong program; say so rather than drop it.
    if let Some(dims) = dims {
        for &d in &nonexpanding {
            let target = dims
                .get(d as usize)
                .and_then(|&r| result.shape.get(r as usize));
            if let Some(&size) = target {
                if operand.shape[d as usize] != size {
                    return Err(format!(
                        "operand dimension {d} is known non-expanding \
                         but has size {} where the result has {size}",
                        operand.shape[d as usize]
                    ));
                }
            }
        }
        for &d in &expanding {
            if operand.shape[d as usize] != 1 {
                return Err(format!(
                    "operand dimension {d} is known expanding but \
                     has size {}, not 1",
                    operand.shape[d as usize]
                ));
            }
        }
    }
    Ok(())
}
