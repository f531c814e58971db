//! Sharding annotations against the values they annotate: an `#sdy.sharding` names a declared
//! mesh, one dimension sharding per tensor dimension, axes of that mesh each used once; an
//! `mhlo.sharding` tiles as many dimensions as the tensor has (plus its replication and
//! subgroup dimensions). A malformed annotation is then an error at load time rather than a
//! surprise in the partitioner.

use super::func::param_types;
use super::infer::RegionSignature;
use crate::attrs::{Attribute, NamedAttr};
use crate::diag::Diagnostic;
use crate::module::{Func, Module};
use crate::sharding::{AxisRef, HloSharding, ManualComputationAttrs, SdyMesh, SdySharding};
use crate::types::Type;

/// Checks the per-parameter and per-result attribute lists: one list per value (or none at
/// all), and sharding annotations that fit the annotated types.
pub(super) fn check_signature_attrs(module: &Module, func: &Func, diags: &mut Vec<Diagnostic>) {
    let params = param_types(func).unwrap_or_default();
    let mut problems = Vec::new();
    for (attrs, types, what) in [
        (&func.arg_attrs, &params, "parameter"),
        (&func.result_attrs, &func.result_types, "result"),
    ] {
        if !attrs.is_empty() && attrs.len() != types.len() {
            problems.push(format!(
                "has {} {what} attribute lists for {} {what}s",
                attrs.len(),
                types.len()
            ));
            continue;
        }
        for (i, (a, ty)) in attrs.iter().zip(types.iter()).enumerate() {
            problems.extend(check_value_shardings(
                module,
                a,
                ty,
                &format!("{what} #{i}"),
            ));
        }
    }
    for p in problems {
        diags.push(
            Diagnostic::new(format!("@{}: {p}", func.name))
                .at(func.span)
                .in_op("func.func")
                .in_source(module.source_name.as_deref()),
        );
    }
}

/// Checks an op's `mhlo.sharding` against its results: the one result's type, or a tuple
/// sharding with one element per result (HLO's convention for several results).
pub(super) fn check_op_sharding(
    module: &Module,
    attrs: &[NamedAttr],
    results: &[Type],
) -> Vec<String> {
    let ty = match results {
        [one] => one.clone(),
        many => Type::Tuple(many.to_vec()),
    };
    check_value_shardings(module, attrs, &ty, "the results")
}

/// Checks the sharding attributes in `attrs` against the value type `ty`; `what` names the
/// value in messages (`parameter #0`, `result #1`).
fn check_value_shardings(
    module: &Module,
    attrs: &[NamedAttr],
    ty: &Type,
    what: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    for attr in attrs {
        let result = match (&attr.name[..], &attr.value) {
            ("sdy.sharding", Attribute::SdySharding(s)) => check_sdy(module, s, ty),
            ("mhlo.sharding", Attribute::HloSharding(s)) => check_hlo(s, ty),
            _ => Ok(()),
        };
        if let Err(e) = result {
            problems.push(format!("{what}: {}: {e}", attr.name));
        }
    }
    problems
}

/// An inline mesh (`mesh<…>`) is kept as text; a symbol names a declared mesh.
fn is_inline(mesh: &str) -> bool {
    mesh.starts_with('<') || mesh.starts_with("mesh<")
}

fn check_sdy(module: &Module, s: &SdySharding, ty: &Type) -> Result<(), String> {
    let rank = match ty {
        Type::Tensor(t) => t.rank(),
        other => return Err(format!("annotates {other}, which is not a tensor")),
    };
    if s.dims.len() != rank {
        return Err(format!(
            "has {} but {ty} has rank {rank}",
            if s.dims.len() == 1 {
                "1 dimension sharding".to_string()
            } else {
                format!("{} dimension shardings", s.dims.len())
            }
        ));
    }
    if is_inline(&s.mesh) {
        return Ok(());
    }
    let mesh = module
        .meshes
        .iter()
        .find(|m| m.name == s.mesh)
        .ok_or_else(|| format!("names the mesh @{}, which is not declared", s.mesh))?;
    let mut used: Vec<&AxisRef> = Vec::new();
    let all = s
        .dims
        .iter()
        .flat_map(|d| d.axes.iter())
        .chain(&s.replicated)
        .chain(&s.unreduced);
    for axis in all {
        check_axis(mesh, axis)?;
        if used.contains(&axis) {
            return Err(format!("uses the axis \"{}\" more than once", axis.name));
        }
        used.push(axis);
    }
    Ok(())
}

fn check_axis(mesh: &SdyMesh, axis: &AxisRef) -> Result<(), String> {
    if mesh.axes.iter().any(|(name, _)| *name == axis.name) {
        Ok(())
    } else {
        let names: Vec<String> = mesh.axes.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        Err(format!(
            "uses the axis \"{}\", which mesh @{} does not have (it has {})",
            axis.name,
            mesh.name,
            names.join(", ")
        ))
    }
}

fn check_hlo(s: &HloSharding, ty: &Type) -> Result<(), String> {
    match (s, ty) {
        (HloSharding::Tuple(parts), Type::Tuple(elems)) => {
            if parts.len() != elems.len() {
                return Err(format!(
                    "has {} tuple elements but {ty} has {}",
                    parts.len(),
                    elems.len()
                ));
            }
            parts
                .iter()
                .zip(elems)
                .try_for_each(|(p, e)| check_hlo(p, e))
        }
        (HloSharding::Tuple(_), _) => Err(format!("is a tuple sharding but annotates {ty}")),
        (
            HloSharding::Tiled {
                tile_dims,
                last_tile_dim_replicate,
                last_tile_dims,
                ..
            },
            Type::Tensor(t),
        ) => {
            let extra = usize::from(*last_tile_dim_replicate) + last_tile_dims.len();
            if tile_dims.len() != t.rank() + extra {
                return Err(format!(
                    "tiles {} dimensions but {t} has rank {}{}",
                    tile_dims.len(),
                    t.rank(),
                    if extra > 0 {
                        format!(" (plus {extra} replication or subgroup dimensions)")
                    } else {
                        String::new()
                    }
                ));
            }
            Ok(())
        }
        (HloSharding::Tiled { .. }, other) => Err(format!("tiles {other}, which is not a tensor")),
        _ => Ok(()),
    }
}

/// `sdy.manual_computation` against the module's meshes: every sharding fits its global value
/// and names one declared mesh, the manual axes are axes of that mesh, and each per-device
/// piece (a body argument, a returned value) is its global value with every dimension divided
/// by the product of the sizes of the manual axes that dimension's sharding names.
pub(super) fn check_manual_computation(
    module: &Module,
    attrs: &ManualComputationAttrs,
    operands: &[Type],
    body: &RegionSignature,
    results: &[Type],
) -> Vec<String> {
    let mut problems = Vec::new();
    let sides = [
        (
            "operand",
            "body argument",
            &attrs.in_shardings,
            operands,
            &body.arg_types,
        ),
        (
            "result",
            "returned value",
            &attrs.out_shardings,
            results,
            &body.result_types,
        ),
    ];
    let mut mesh_name: Option<&str> = None;
    for (what, _, shardings, globals, _) in sides {
        for (i, (s, ty)) in shardings.iter().zip(globals.iter()).enumerate() {
            if let Err(e) = check_sdy(module, s, ty) {
                problems.push(format!("{what} #{i}: sharding {e}"));
            }
            match mesh_name {
                None => mesh_name = Some(&s.mesh),
                Some(m) if m != s.mesh => problems.push(format!(
                    "{what} #{i}: sharding names mesh @{} but an earlier one names @{m}; a \
                     manual computation runs over one mesh",
                    s.mesh
                )),
                Some(_) => {}
            }
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let mesh = match mesh_name {
        None => {
            if !attrs.manual_axes.is_empty() {
                problems.push(
                    "names manual axes but has no operand or result sharding to give their mesh"
                        .to_string(),
                );
            }
            return problems;
        }
        Some(name) if is_inline(name) => return problems,
        Some(name) => match module.meshes.iter().find(|m| m.name == name) {
            Some(m) => m,
            None => return problems,
        },
    };
    for axis in &attrs.manual_axes {
        if mesh.axis_size(axis).is_none() {
            let names: Vec<String> = mesh.axes.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            problems.push(format!(
                "manual axis \"{axis}\" is not an axis of mesh @{} (it has {})",
                mesh.name,
                names.join(", ")
            ));
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    for (what, local_what, shardings, globals, locals) in sides {
        for (i, ((s, global), local)) in shardings.iter().zip(globals).zip(locals).enumerate() {
            let (Type::Tensor(g), Type::Tensor(l)) = (global, local) else {
                continue;
            };
            if g.rank() != l.rank() || g.dtype != l.dtype {
                continue; // reported by the op's type rule
            }
            let Some(expected) = attrs.local_shape(s, mesh, &g.shape) else {
                problems.push(format!(
                    "{what} #{i} is {g}, whose dimensions do not divide by the manual axes of \
                     its sharding {} (manual axes {})",
                    sharding_text(s),
                    axis_list(&attrs.manual_axes)
                ));
                continue;
            };
            if expected != l.shape {
                problems.push(format!(
                    "{what} #{i} is {g} sharded {} over the manual axes {} of mesh @{}, so its \
                     per-device {local_what} must have shape {expected:?}, but it is {l}",
                    sharding_text(s),
                    axis_list(&attrs.manual_axes),
                    mesh.name
                ));
            }
        }
    }
    problems
}

fn sharding_text(s: &SdySharding) -> String {
    s.to_string()
}

fn axis_list(axes: &[String]) -> String {
    let names: Vec<String> = axes.iter().map(|a| format!("\"{a}\"")).collect();
    format!("{{{}}}", names.join(", "))
}

/// `sdy.sharding_constraint`: its sharding fits the value and names a declared mesh.
pub(super) fn check_sharding_constraint(
    module: &Module,
    sharding: &SdySharding,
    operands: &[Type],
) -> Vec<String> {
    match operands.first() {
        // A wrong rank is the op's type rule's to report.
        Some(Type::Tensor(t)) if t.rank() == sharding.dims.len() => {
            match check_sdy(module, sharding, &operands[0]) {
                Err(e) => vec![format!("sharding {e}")],
                Ok(()) => vec![],
            }
        }
        _ => vec![],
    }
}
