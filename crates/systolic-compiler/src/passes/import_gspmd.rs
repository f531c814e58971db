//! GSPMD shardings read as Shardy's: a program annotated with `mhlo.sharding` strings (JAX with
//! `jax_use_shardy_partitioner=False`, TensorFlow, older exports) rewritten to `sdy.mesh` +
//! `sdy.sharding`, so one propagation and one partitioner serve both forms.
//!
//! An HLO sharding names devices, not axes: `{devices=[4,1,2]<=[2,4]T(1,0)
//! last_tile_dim_replicate}` lists which device holds each tile. The import finds a mesh every
//! sharding of the entry can be written on. Walking one tile dimension, the device ids step by
//! fixed strides in runs (`0,1,2,3` is stride 1 × 4; `0,4` is stride 4 × 2; `0,2,1,3` is stride 2
//! × 2 then stride 1 × 2); each run is a block of the device-id space `[stride, stride·size)`.
//! The mesh's axes are the finest blocks all runs agree on (the run boundaries of every
//! sharding, sorted; each must divide the next), major to minor by stride, so each run is a
//! contiguous group of axes and each tile dimension the axes of its runs, major first. The
//! sharding written back on that mesh is checked to put every tile on the device the HLO
//! sharding names; what no mesh of device-id blocks expresses (ids that step backwards, say)
//! is an error naming the sharding.
//!
//! `{replicated}` is all dimensions closed and unsharded; `{maximal device=N}` too (every device
//! computes the value; only one would hold it under XLA, which changes memory, not results);
//! `{unknown}` leaves the dimensions open for propagation. Manual subgroups and tuple shardings
//! are refused, as are JAX's GSPMD shard_map markers (`@SPMDFullToShardShape`), whose programs
//! are already per device.

use std::collections::BTreeSet;
use systolic_ir::walk::{walk_ops, walk_ops_mut};
use systolic_ir::{
    Attribute, AxisRef, DimSharding, HloSharding, Module, NamedAttr, OpKind, SdyMesh, SdySharding,
    Type,
};

/// The name the imported mesh takes (a suffix is added if the module already has one of it).
const MESH: &str = "gspmd_mesh";

/// True when `entry` carries GSPMD shardings the partitioner should read: `mhlo.sharding` on an
/// argument or result, or a `custom_call @Sharding`, and none of the shard_map markers.
pub fn has_gspmd_shardings(module: &Module, entry: &str) -> bool {
    let Some(func) = module.func(entry) else {
        return false;
    };
    let mut found = func
        .arg_attrs
        .iter()
        .chain(&func.result_attrs)
        .any(|attrs| hlo_sharding(attrs).is_some());
    let mut manual = false;
    walk_ops(&func.body, &mut |op, _| {
        if let OpKind::CustomCall {
            call_target_name, ..
        } = &op.kind
        {
            match call_target_name.as_str() {
                "Sharding" => found = true,
                "SPMDFullToShardShape" | "SPMDShardToFullShape" => manual = true,
                _ => {}
            }
        }
    });
    found && !manual
}

/// `module` with `entry`'s GSPMD shardings rewritten as Shardy's; see the module docs.
pub fn import_gspmd_shardings(module: &Module, entry: &str) -> Result<Module, String> {
    let func = module
        .func(entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    let devices = device_count(module)?;
    // Every sharding, with where it is for errors.
    let rank = |ty: Option<&Type>| match ty {
        Some(Type::Tensor(t)) => t.shape.len(),
        _ => 0,
    };
    let mut found: Vec<(String, HloSharding, usize)> = vec![];
    let params = func.param_types();
    for (i, attrs) in func.arg_attrs.iter().enumerate() {
        if let Some(s) = hlo_sharding(attrs) {
            found.push((format!("@{entry} argument {i}"), s, rank(params.get(i))));
        }
    }
    for (i, attrs) in func.result_attrs.iter().enumerate() {
        if let Some(s) = hlo_sharding(attrs) {
            let r = rank(func.result_types.get(i));
            found.push((format!("@{entry} result {i}"), s, r));
        }
    }
    walk_ops(&func.body, &mut |op, _| {
        if is_sharding_call(&op.kind) {
            if let Some(s) = hlo_sharding(&op.attrs) {
                let r = rank(op.results.first().map(|&v| func.value_type(v)));
                found.push((located("custom_call @Sharding", op), s, r));
            }
        }
    });
    let mut runs = vec![];
    for (what, s, _) in &found {
        runs.push(tile_runs(s, devices).map_err(|e| format!("{what}: {s}: {e}"))?);
    }
    let mesh_name = fresh_mesh_name(module);
    let axes = mesh_axes(&runs, devices)?;
    let mesh = SdyMesh {
        name: mesh_name.clone(),
        axes: axes.iter().map(|a| (a.name.clone(), a.size)).collect(),
        device_ids: None,
    };
    let mut converted = vec![];
    for ((what, s, rank), runs) in found.iter().zip(&runs) {
        let located = |e: String| format!("{what}: {s}: {e}");
        if let Some(runs) = runs {
            check_devices(s, runs, &axes).map_err(located)?;
        }
        converted.push(to_sdy(s, runs.as_deref(), &axes, &mesh_name, *rank).map_err(located)?);
    }
    let mut out = module.clone();
    out.meshes.push(mesh);
    let mut next = converted.into_iter();
    let func = out.func_mut(entry).expect("found above");
    for attrs in func
        .arg_attrs
        .iter_mut()
        .chain(func.result_attrs.iter_mut())
    {
        if hlo_sharding(attrs).is_some() {
            let sdy = next.next().expect("one per sharding found");
            attrs.retain(|a| a.name != "mhlo.sharding");
            attrs.push(NamedAttr {
                name: "sdy.sharding".into(),
                value: Attribute::SdySharding(sdy),
            });
        }
    }
    walk_ops_mut(&mut func.body, &mut |op, _| {
        if is_sharding_call(&op.kind) && hlo_sharding(&op.attrs).is_some() {
            let sdy = next.next().expect("one per sharding found");
            op.kind = OpKind::ShardingConstraint(Box::new(sdy));
            op.attrs.clear();
        }
    });
    Ok(out)
}

/// An axis of the imported mesh: a block of the device-id space.
struct MeshAxis {
    name: String,
    /// Device-id distance between neighbours along it.
    stride: i64,
    size: i64,
}

/// One run of a tile dimension: `size` steps of `stride` device ids.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    stride: i64,
    size: i64,
}

/// Per tile dimension (replication dimensions included), its runs, major first; `None` for
/// shardings without tiles.
fn tile_runs(s: &HloSharding, devices: i64) -> Result<Option<Vec<Vec<Run>>>, String> {
    let HloSharding::Tiled {
        tile_dims,
        devices: ids,
        last_tile_dims,
        ..
    } = s
    else {
        return match s {
            HloSharding::Tuple(_) => Err("tuple shardings are not supported".into()),
            HloSharding::Manual => Err(
                "a {manual} sharding outside a shard_map (SPMDFullToShardShape) is not supported"
                    .into(),
            ),
            _ => Ok(None),
        };
    };
    if last_tile_dims.iter().any(|k| k != "replicated") {
        return Err(format!(
            "subgroups {last_tile_dims:?} are not supported (only replicated ones)"
        ));
    }
    let count: i64 = tile_dims.iter().product();
    if count != devices || ids.len() as i64 != devices {
        return Err(format!(
            "tiles {tile_dims:?} list {} devices; the program runs on {devices}",
            ids.len()
        ));
    }
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    if sorted.iter().enumerate().any(|(i, &d)| d != i as i64) {
        return Err(format!("devices {ids:?} are not each of 0..{devices} once"));
    }
    let mut runs = vec![];
    let mut step = devices;
    for &t in tile_dims {
        step /= t.max(1);
        let seq: Vec<i64> = (0..t).map(|j| ids[(j * step) as usize] - ids[0]).collect();
        runs.push(split_runs(&seq)?);
    }
    Ok(Some(runs))
}

/// The runs of one tile dimension's device-id offsets, major first.
fn split_runs(seq: &[i64]) -> Result<Vec<Run>, String> {
    let t = seq.len() as i64;
    let mut runs = vec![];
    let mut jstep = 1;
    while jstep < t {
        let stride = seq[jstep as usize];
        if stride <= 0 {
            return Err(format!(
                "device ids {seq:?} along a tile dimension step backwards; no mesh of device \
                 blocks expresses that"
            ));
        }
        let mut size = 1;
        while size * jstep < t && seq[(size * jstep) as usize] == size * stride {
            size += 1;
        }
        while (t / jstep) % size != 0 {
            size -= 1;
        }
        if size < 2 {
            return Err(format!(
                "device ids {seq:?} along a tile dimension do not step in runs"
            ));
        }
        runs.push(Run { stride, size });
        jstep *= size;
    }
    runs.reverse();
    Ok(runs)
}

/// The mesh: the finest blocks every run agrees on, major first.
fn mesh_axes(all: &[Option<Vec<Vec<Run>>>], devices: i64) -> Result<Vec<MeshAxis>, String> {
    let mut bounds: BTreeSet<i64> = [1, devices].into();
    for runs in all.iter().flatten() {
        for run in runs.iter().flatten() {
            bounds.insert(run.stride);
            bounds.insert(run.stride * run.size);
        }
    }
    let bounds: Vec<i64> = bounds.into_iter().collect();
    let mut axes = vec![];
    for w in bounds.windows(2) {
        if w[1] % w[0] != 0 || w[1] > devices {
            return Err(format!(
                "the shardings' device orders cut the {devices} devices into blocks of {} and \
                 {}, which no mesh expresses",
                w[0], w[1]
            ));
        }
        axes.push((w[0], w[1] / w[0]));
    }
    axes.reverse();
    Ok(axes
        .into_iter()
        .enumerate()
        .map(|(i, (stride, size))| MeshAxis {
            name: format!("axis_{i}"),
            stride,
            size,
        })
        .collect())
}

/// The mesh axes each tile dimension walks, major first: the axes inside its runs.
fn dim_axes<'a>(runs: &[Vec<Run>], axes: &'a [MeshAxis]) -> Vec<Vec<&'a MeshAxis>> {
    runs.iter()
        .map(|runs| {
            runs.iter()
                .flat_map(|run| {
                    axes.iter()
                        .filter(move |a| a.stride >= run.stride && a.stride < run.stride * run.size)
                })
                .collect()
        })
        .collect()
}

/// The Shardy form of one sharding of a rank-`rank` tensor on the imported mesh.
fn to_sdy(
    s: &HloSharding,
    runs: Option<&[Vec<Run>]>,
    axes: &[MeshAxis],
    mesh: &str,
    rank: usize,
) -> Result<SdySharding, String> {
    let dim = |axes: Vec<AxisRef>, closed: bool| DimSharding {
        axes,
        closed,
        priority: None,
    };
    let dims = match (s, runs) {
        (
            HloSharding::Tiled {
                last_tile_dim_replicate,
                last_tile_dims,
                ..
            },
            Some(runs),
        ) => {
            let replicated = usize::from(*last_tile_dim_replicate) + last_tile_dims.len();
            if runs.len() != rank + replicated {
                return Err(format!(
                    "the sharding has {} tile dimensions for a rank-{rank} tensor",
                    runs.len() - replicated
                ));
            }
            dim_axes(&runs[..rank], axes)
                .into_iter()
                .map(|walked| {
                    let refs = walked
                        .into_iter()
                        .map(|a| AxisRef {
                            name: a.name.clone(),
                            sub_axis: None,
                        })
                        .collect();
                    dim(refs, true)
                })
                .collect()
        }
        // Every device computes the value (see the module docs); propagation may not split it.
        (HloSharding::Replicated | HloSharding::Maximal { .. }, _) => {
            (0..rank).map(|_| dim(vec![], true)).collect()
        }
        // Left to propagation.
        _ => (0..rank).map(|_| dim(vec![], false)).collect(),
    };
    Ok(SdySharding {
        mesh: mesh.to_string(),
        dims,
        replicated: vec![],
        unreduced: vec![],
    })
}

/// Checks that the mesh puts every tile of `s` on the device `s` names.
fn check_devices(s: &HloSharding, runs: &[Vec<Run>], axes: &[MeshAxis]) -> Result<(), String> {
    let HloSharding::Tiled {
        tile_dims, devices, ..
    } = s
    else {
        return Ok(());
    };
    let per_dim = dim_axes(runs, axes);
    for (index, &device) in devices.iter().enumerate() {
        let mut rest = index as i64;
        let mut expected = 0;
        for (d, &t) in tile_dims.iter().enumerate().rev() {
            let mut coord = rest % t;
            rest /= t;
            for a in per_dim[d].iter().rev() {
                expected += (coord % a.size) * a.stride;
                coord /= a.size;
            }
        }
        if expected != device {
            return Err(format!(
                "tile {index} is on device {device}, but the mesh the shardings share would put \
                 it on device {expected}"
            ));
        }
    }
    Ok(())
}

/// Devices the program runs on: `mhlo.num_partitions` × `mhlo.num_replicas`.
fn device_count(module: &Module) -> Result<i64, String> {
    let count = |name: &str| match module.attrs.iter().find(|a| a.name == name) {
        Some(NamedAttr {
            value: Attribute::Int(n, _),
            ..
        }) => *n,
        _ => 1,
    };
    let (partitions, replicas) = (count("mhlo.num_partitions"), count("mhlo.num_replicas"));
    if replicas != 1 {
        return Err(format!(
            "GSPMD shardings with {replicas} replicas: only partitions are supported"
        ));
    }
    Ok(partitions)
}

fn hlo_sharding(attrs: &[NamedAttr]) -> Option<HloSharding> {
    attrs.iter().find_map(|a| match &a.value {
        Attribute::HloSharding(s) if a.name == "mhlo.sharding" => Some(s.clone()),
        _ => None,
    })
}

fn is_sharding_call(kind: &OpKind) -> bool {
    matches!(kind, OpKind::CustomCall { call_target_name, .. } if call_target_name == "Sharding")
}

fn fresh_mesh_name(module: &Module) -> String {
    let mut name = MESH.to_string();
    let mut k = 1;
    while module.meshes.iter().any(|m| m.name == name) {
        name = format!("{MESH}_{k}");
        k += 1;
    }
    name
}

fn located(what: &str, op: &systolic_ir::Op) -> String {
    match op.span {
        Some(span) => format!("{what} at {span}"),
        None => what.to_string(),
    }
}
