//! `systolic.batch_collective`: a collective over a *named vmap axis* (JAX's
//! `vmap(f, axis_name="b")` with `lax.psum(x, "b")` inside), as a marker op in the per-example
//! function that `vmap` batches.
//!
//! The per-example function cannot compute a sum over the examples, so the front end stages
//! `stablehlo.custom_call @systolic.batch_collective(%x)` with the collective and the axis name
//! in a dictionary `backend_config`; `systolic-vmap`, batching over that axis, replaces it by
//! the same thing done across the batch dimension (a reduction, the whole batch, an iota, a
//! gather of examples). It never reaches a backend: a marker left over names its unbound axis
//! there.
//!
//! Each marker is a *primitive*: the front end reshapes around it for the `tiled` forms (as JAX
//! wraps `all_gather_p`, `reduce_scatter_p` and `all_to_all_p`), so a marker's transpose (under
//! `grad`, in `systolic-autodiff`) is again one marker: `psum` ↔ `psum`, `all_gather` ↔
//! `psum_scatter` at the same axis, `ppermute` ↔ the inverse pairs, `all_to_all` ↔ the split and
//! concat axes swapped.
//!
//! ```text
//! %1 = stablehlo.custom_call @systolic.batch_collective(%0) {api_version = 4 : i32,
//!        backend_config = {collective = "psum", axis_name = "b", axis = 0 : i64}}
//!        : (tensor<3xf32>) -> tensor<3xf32>
//! ```

use crate::attrs::{find_attr, Attribute, NamedAttr};
use crate::ops::OpKind;

/// The custom call target of the marker.
pub const TARGET: &str = "systolic.batch_collective";

/// Which collective. Axes are per-example dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `psum`: the sum over the batch (every example gets it).
    Sum,
    /// `pmax`.
    Max,
    /// `pmin`.
    Min,
    /// `all_gather(axis, tiled=False)`: every example gets the whole batch stacked at `axis`.
    AllGather(i64),
    /// `psum_scatter(scatter_dimension=axis, tiled=False)`: the sum over the batch, of which
    /// example `i` keeps index `i` along `axis` (whose size is the batch size; it is removed).
    ReduceScatter(i64),
    /// `ppermute`: example `target` gets example `source`'s value for each pair; an example
    /// no pair targets gets zeros.
    Permute(Vec<(i64, i64)>),
    /// `all_to_all` as JAX's primitive: `split` (divisible by the batch size) is cut into one
    /// piece per example, example `i` gets piece `i` of every example, concatenated along
    /// `concat` in example order.
    AllToAll {
        /// The dimension cut into pieces.
        split: i64,
        /// The dimension the received pieces are concatenated along.
        concat: i64,
    },
    /// `axis_index`: each example's position in the batch (no operand; int32).
    AxisIndex,
}

/// A marker's collective and the vmap axis it runs over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    /// The collective.
    pub collective: Collective,
    /// The vmap axis name.
    pub axis_name: String,
}

impl Collective {
    /// The `jax.lax` name of the collective.
    pub fn name(&self) -> &'static str {
        match self {
            Collective::Sum => "psum",
            Collective::Max => "pmax",
            Collective::Min => "pmin",
            Collective::AllGather(_) => "all_gather",
            Collective::ReduceScatter(_) => "psum_scatter",
            Collective::Permute(_) => "ppermute",
            Collective::AllToAll { .. } => "all_to_all",
            Collective::AxisIndex => "axis_index",
        }
    }
}

/// The op kind of `marker`.
///
/// ```
/// use systolic_ir::batch_collective::{kind, read, Collective, Marker};
/// let m = Marker { collective: Collective::AllGather(1), axis_name: "b".into() };
/// assert_eq!(read(&kind(&m)), Some(m));
/// let p = Marker { collective: Collective::Permute(vec![(0, 2), (2, 1)]), axis_name: "b".into() };
/// assert_eq!(read(&kind(&p)), Some(p));
/// ```
pub fn kind(marker: &Marker) -> OpKind {
    let int = |v: i64| Attribute::Int(v, None);
    let mut config = vec![
        NamedAttr::new(
            "collective",
            Attribute::String(marker.collective.name().to_string()),
        ),
        NamedAttr::new("axis_name", Attribute::String(marker.axis_name.clone())),
    ];
    match &marker.collective {
        Collective::AllGather(a) | Collective::ReduceScatter(a) => {
            config.push(NamedAttr::new("axis", int(*a)))
        }
        Collective::Permute(pairs) => {
            let flat = pairs.iter().flat_map(|&(s, t)| [s, t]).collect();
            config.push(NamedAttr::new(
                "perm",
                Attribute::DenseArray("i64".into(), flat),
            ))
        }
        Collective::AllToAll { split, concat } => {
            config.push(NamedAttr::new("split_axis", int(*split)));
            config.push(NamedAttr::new("concat_axis", int(*concat)));
        }
        Collective::Sum | Collective::Max | Collective::Min | Collective::AxisIndex => {}
    }
    OpKind::CustomCall {
        call_target_name: TARGET.to_string(),
        has_side_effect: false,
        backend_config: Some(Attribute::Dict(config)),
        api_version: 4,
        called_computations: vec![],
    }
}

/// The marker `kind` stands for; `None` for any other op (or a marker missing an attribute
/// its collective needs).
pub fn read(kind: &OpKind) -> Option<Marker> {
    let OpKind::CustomCall {
        call_target_name,
        backend_config: Some(Attribute::Dict(config)),
        ..
    } = kind
    else {
        return None;
    };
    if call_target_name != TARGET {
        return None;
    }
    let text = |key: &str| match find_attr(config, key) {
        Some(Attribute::String(s)) => Some(s.clone()),
        _ => None,
    };
    let int = |key: &str| match find_attr(config, key) {
        Some(Attribute::Int(a, _)) => Some(*a),
        _ => None,
    };
    let collective = match text("collective")?.as_str() {
        "psum" => Collective::Sum,
        "pmax" => Collective::Max,
        "pmin" => Collective::Min,
        "all_gather" => Collective::AllGather(int("axis")?),
        "psum_scatter" => Collective::ReduceScatter(int("axis")?),
        "ppermute" => {
            let Some(Attribute::DenseArray(_, flat)) = find_attr(config, "perm") else {
                return None;
            };
            if flat.len() % 2 != 0 {
                return None;
            }
            Collective::Permute(flat.chunks(2).map(|p| (p[0], p[1])).collect())
        }
        "all_to_all" => Collective::AllToAll {
            split: int("split_axis")?,
            concat: int("concat_axis")?,
        },
        "axis_index" => Collective::AxisIndex,
        _ => return None,
    };
    Some(Marker {
        collective,
        axis_name: text("axis_name")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::FuncBuilder;
    use crate::text::{parse_module, print_module};
    use crate::{DType, TensorType, Type};

    /// Every collective's marker prints and parses back to itself.
    #[test]
    fn markers_round_trip_through_the_text() {
        let collectives = [
            (Collective::Sum, vec![3], vec![3]),
            (Collective::Max, vec![3], vec![3]),
            (Collective::Min, vec![3], vec![3]),
            (Collective::AllGather(1), vec![3], vec![3, 4]),
            (Collective::ReduceScatter(0), vec![4, 3], vec![3]),
            (
                Collective::Permute(vec![(0, 1), (1, 3), (3, 0)]),
                vec![3],
                vec![3],
            ),
            (Collective::Permute(vec![]), vec![3], vec![3]),
            (
                Collective::AllToAll {
                    split: 0,
                    concat: 1,
                },
                vec![4, 3],
                vec![1, 12],
            ),
        ];
        for (c, from, to) in collectives {
            let m = Marker {
                collective: c,
                axis_name: "b".into(),
            };
            let mut b: FuncBuilder = FuncBuilder::new("main");
            let x = b.param(Type::Tensor(TensorType::new(from, DType::F32)));
            let y = b
                .emit_as(kind(&m), vec![x], TensorType::new(to, DType::F32))
                .unwrap();
            let module = crate::Module {
                funcs: vec![b.into_func(vec![x], vec![y])],
                ..Default::default()
            };
            let text = print_module(&module);
            let module = parse_module(&text, "marker").unwrap();
            let op = &module.funcs[0].body.entry().unwrap().ops[0];
            assert_eq!(read(&op.kind), Some(m), "{text}");
        }
    }
}
