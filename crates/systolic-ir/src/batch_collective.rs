//! `systolic.batch_collective`: a collective over a *named vmap axis* (JAX's
//! `vmap(f, axis_name="b")` with `lax.psum(x, "b")` inside), as a marker op in the per-example
//! function that `vmap` batches.
//!
//! The per-example function cannot compute a sum over the examples, so the front end stages
//! `stablehlo.custom_call @systolic.batch_collective(%x)` with the collective and the axis name
//! in a dictionary `backend_config`; `systolic-vmap`, batching over that axis, replaces it by
//! the same thing done across the batch dimension (a reduction, the whole batch, an iota). It
//! never reaches a backend: a marker left over names its unbound axis there.
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

/// Which collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `psum`: the sum over the batch (every example gets it).
    Sum,
    /// `pmax`.
    Max,
    /// `pmin`.
    Min,
    /// `all_gather(axis, tiled=False)`: every example gets the whole batch stacked at `axis`.
    AllGather(i64),
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
    fn name(self) -> &'static str {
        match self {
            Collective::Sum => "psum",
            Collective::Max => "pmax",
            Collective::Min => "pmin",
            Collective::AllGather(_) => "all_gather",
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
/// ```
pub fn kind(marker: &Marker) -> OpKind {
    let axis = match marker.collective {
        Collective::AllGather(a) => a,
        _ => 0,
    };
    let config = vec![
        NamedAttr::new(
            "collective",
            Attribute::String(marker.collective.name().to_string()),
        ),
        NamedAttr::new("axis_name", Attribute::String(marker.axis_name.clone())),
        NamedAttr::new("axis", Attribute::Int(axis, None)),
    ];
    OpKind::CustomCall {
        call_target_name: TARGET.to_string(),
        has_side_effect: false,
        backend_config: Some(Attribute::Dict(config)),
        api_version: 4,
        called_computations: vec![],
    }
}

/// The marker `kind` stands for; `None` for any other op.
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
    let axis = match find_attr(config, "axis") {
        Some(Attribute::Int(a, _)) => *a,
        _ => 0,
    };
    let collective = match text("collective")?.as_str() {
        "psum" => Collective::Sum,
        "pmax" => Collective::Max,
        "pmin" => Collective::Min,
        "all_gather" => Collective::AllGather(axis),
        "axis_index" => Collective::AxisIndex,
        _ => return None,
    };
    Some(Marker {
        collective,
        axis_name: text("axis_name")?,
    })
}
