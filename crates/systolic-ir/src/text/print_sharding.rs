//! Sharding annotations back in their canonical syntax: Shardy's `#sdy.sharding<…>` and
//! `sdy.mesh`, and HLO sharding strings (`{devices=[2,4]<=[8]}`) as XLA prints them.
//!
//! The IR keeps an HLO tiling's device ids expanded; XLA prints a device order that is an
//! iota, possibly transposed, in the compact form `<=[dims]T(perm)`, so the printer finds
//! that form again when it exists (JAX's shardings are always of it).

use super::print_attrs::{write_string, write_symbol};
use crate::sharding::{AxisRef, DimSharding, HloSharding, SdyMesh, SdySharding};
use std::fmt::Write;

/// The attribute's text, `#sdy.sharding<@mesh, [{"x"}, {}]>` (for messages).
impl std::fmt::Display for SdySharding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        write_sdy_sharding(&mut out, self);
        f.write_str(&out)
    }
}

/// `#sdy.sharding<@mesh, [{"x"}, {"y", ?}p1], replicated={"z"}, unreduced={"w"}>`.
pub(crate) fn write_sdy_sharding(out: &mut String, s: &SdySharding) {
    out.push_str("#sdy.sharding<");
    write_sdy_sharding_body(out, s);
    out.push('>');
}

/// The part of a Shardy sharding inside the brackets, as `sdy.sharding_constraint` and
/// `in_shardings=[<…>]` also write it.
pub(crate) fn write_sdy_sharding_body(out: &mut String, s: &SdySharding) {
    if s.mesh.starts_with('<') || s.mesh.starts_with("mesh<") {
        out.push_str(&s.mesh);
    } else {
        write_symbol(out, &s.mesh);
    }
    out.push_str(", [");
    for (i, dim) in s.dims.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_dim_sharding(out, dim);
    }
    out.push(']');
    if !s.replicated.is_empty() {
        out.push_str(", replicated=");
        write_axis_set(out, &s.replicated);
    }
    if !s.unreduced.is_empty() {
        out.push_str(", unreduced=");
        write_axis_set(out, &s.unreduced);
    }
}

/// `[<@mesh, [{"x"}]>, <@mesh, []>]`: the shardings of `#sdy.sharding_per_value` and of
/// `sdy.manual_computation`'s `in_shardings=`/`out_shardings=`.
pub(crate) fn write_sharding_list(out: &mut String, list: &[SdySharding]) {
    out.push('[');
    for (i, s) in list.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('<');
        write_sdy_sharding_body(out, s);
        out.push('>');
    }
    out.push(']');
}

/// `{"x", "y"}` or `{}`: mesh axis names (`manual_axes=`).
pub(crate) fn write_axis_names(out: &mut String, names: &[String]) {
    out.push('{');
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_string(out, name);
    }
    out.push('}');
}

/// `{"x", "y"}`, `{}`, `{"x", ?}`, `{?}`, with a `pN` priority suffix.
fn write_dim_sharding(out: &mut String, dim: &DimSharding) {
    out.push('{');
    for (i, axis) in dim.axes.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_axis_ref(out, axis);
    }
    if !dim.closed {
        out.push_str(if dim.axes.is_empty() { "?" } else { ", ?" });
    }
    out.push('}');
    if let Some(p) = dim.priority {
        let _ = write!(out, "p{p}");
    }
}

fn write_axis_set(out: &mut String, axes: &[AxisRef]) {
    out.push('{');
    for (i, axis) in axes.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_axis_ref(out, axis);
    }
    out.push('}');
}

/// `"x"` or the sub-axis `"x":(1)2`.
fn write_axis_ref(out: &mut String, axis: &AxisRef) {
    write_string(out, &axis.name);
    if let Some((pre, size)) = axis.sub_axis {
        let _ = write!(out, ":({pre}){size}");
    }
}

/// `sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = …}`. JAX 0.10.2 writes the
/// `stablehlo.mesh` dictionary (the same axes again) after every mesh; the IR does not keep
/// it, so it is rebuilt from the axes to print what JAX prints.
pub(crate) fn write_sdy_mesh(out: &mut String, mesh: &SdyMesh) {
    out.push_str("sdy.mesh ");
    write_symbol(out, &mesh.name);
    out.push_str(" = <[");
    for (i, (name, size)) in mesh.axes.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_string(out, name);
        let _ = write!(out, "={size}");
    }
    out.push(']');
    if let Some(ids) = &mesh.device_ids {
        out.push_str(", device_ids=[");
        write_joined(out, ids, ", ");
        out.push(']');
    }
    out.push_str("> {stablehlo.mesh = {axes = [");
    for (i, (name, size)) in mesh.axes.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str("{name = ");
        write_string(out, name);
        let _ = write!(out, ", size = {size} : i64}}");
    }
    out.push(']');
    if let Some(ids) = &mesh.device_ids {
        out.push_str(", device_ids = array<i64");
        for (i, id) in ids.iter().enumerate() {
            out.push_str(if i == 0 { ": " } else { ", " });
            let _ = write!(out, "{id}");
        }
        out.push('>');
    }
    out.push_str("}}");
}

fn write_joined(out: &mut String, values: &[i64], sep: &str) {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        let _ = write!(out, "{v}");
    }
}

/// The HLO sharding string XLA prints, e.g. `{devices=[1,4,2]<=[2,4]T(1,0)
/// last_tile_dim_replicate}` or `{{replicated}, {maximal device=0}}`.
pub(crate) fn hlo_sharding_text(s: &HloSharding) -> String {
    let mut out = String::new();
    write_hlo_sharding(&mut out, s);
    out
}

/// As XLA prints it (see [`hlo_sharding_text`]), so errors quote the sharding the user wrote.
impl std::fmt::Display for HloSharding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hlo_sharding_text(self))
    }
}

fn write_hlo_sharding(out: &mut String, s: &HloSharding) {
    match s {
        HloSharding::Replicated => out.push_str("{replicated}"),
        HloSharding::Manual => out.push_str("{manual}"),
        HloSharding::Unknown => out.push_str("{unknown}"),
        HloSharding::Maximal { device } => {
            let _ = write!(out, "{{maximal device={device}}}");
        }
        HloSharding::Tuple(elems) => {
            out.push('{');
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_hlo_sharding(out, e);
            }
            out.push('}');
        }
        HloSharding::Tiled {
            tile_dims,
            devices,
            last_tile_dim_replicate,
            last_tile_dims,
        } => {
            out.push_str("{devices=[");
            write_joined(out, tile_dims, ",");
            out.push(']');
            match iota_form(devices) {
                Some((dims, perm)) if perm.iter().enumerate().all(|(i, &p)| i == p) => {
                    let _ = write!(out, "<=[{}]", devices.len());
                    debug_assert_eq!(dims.iter().product::<i64>(), devices.len() as i64);
                }
                Some((dims, perm)) => {
                    out.push_str("<=[");
                    write_joined(out, &dims, ",");
                    out.push_str("]T(");
                    let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                    write_joined(out, &perm, ",");
                    out.push(')');
                }
                None => write_joined(out, devices, ","),
            }
            if *last_tile_dim_replicate {
                out.push_str(" last_tile_dim_replicate");
            }
            if !last_tile_dims.is_empty() {
                out.push_str(" last_tile_dims={");
                out.push_str(&last_tile_dims.join(", "));
                out.push('}');
            }
            out.push('}');
        }
    }
}

/// Finds `dims` and `perm` with `devices == iota(dims).transpose(perm).flatten()`, in XLA's
/// canonical form (no dimension that could merge with its neighbour), if one exists.
///
/// Reading the device list from the innermost position outwards, each transposed dimension is
/// a maximal run in which a block of the already-explained inner positions repeats with a
/// constant offset (its stride in the iota); the strides must then be those of an iota over
/// the dimensions sorted by decreasing stride.
fn iota_form(devices: &[i64]) -> Option<(Vec<i64>, Vec<usize>)> {
    let n = devices.len();
    if n == 0 || devices[0] != 0 {
        return None;
    }
    // (size, stride), innermost transposed dimension first.
    let mut axes: Vec<(usize, i64)> = Vec::new();
    let mut block = 1usize;
    while block < n {
        let stride = devices[block];
        if stride <= 0 {
            return None;
        }
        let mut size = 1usize;
        while (size + 1) * block <= n
            && (0..block).all(|i| devices[size * block + i] == size as i64 * stride + devices[i])
        {
            size += 1;
        }
        if size == 1 {
            return None;
        }
        axes.push((size, stride));
        block *= size;
    }
    if block != n {
        return None;
    }
    // The iota's dimensions, major first, are the axes sorted by decreasing stride.
    let transposed: Vec<(usize, i64)> = axes.into_iter().rev().collect();
    let mut order: Vec<usize> = (0..transposed.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(transposed[j].1));
    let mut expected_stride = 1i64;
    for &j in order.iter().rev() {
        if transposed[j].1 != expected_stride {
            return None;
        }
        expected_stride *= transposed[j].0 as i64;
    }
    let dims: Vec<i64> = order.iter().map(|&j| transposed[j].0 as i64).collect();
    let mut perm = vec![0usize; transposed.len()];
    for (position, &j) in order.iter().enumerate() {
        perm[j] = position;
    }
    Some((dims, perm))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiled(tile_dims: Vec<i64>, devices: Vec<i64>, replicate: bool) -> HloSharding {
        HloSharding::Tiled {
            tile_dims,
            devices,
            last_tile_dim_replicate: replicate,
            last_tile_dims: vec![],
        }
    }

    /// Expected strings are the ones JAX 0.10.2 printed for the same shardings.
    #[test]
    fn hlo_strings_as_xla_prints_them() {
        assert_eq!(
            hlo_sharding_text(&tiled(vec![2, 4], (0..8).collect(), false)),
            "{devices=[2,4]<=[8]}"
        );
        // iota([2, 4]).T = [0, 4, 1, 5, 2, 6, 3, 7]
        assert_eq!(
            hlo_sharding_text(&tiled(vec![1, 4, 2], vec![0, 4, 1, 5, 2, 6, 3, 7], true)),
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
        );
        assert_eq!(
            hlo_sharding_text(&tiled(vec![2], vec![1, 0], false)),
            "{devices=[2]1,0}"
        );
        assert_eq!(
            hlo_sharding_text(&HloSharding::Tuple(vec![
                HloSharding::Replicated,
                HloSharding::Maximal { device: 1 }
            ])),
            "{{replicated}, {maximal device=1}}"
        );
        let manual = HloSharding::Tiled {
            tile_dims: vec![2, 1, 4],
            devices: (0..8).collect(),
            last_tile_dim_replicate: false,
            last_tile_dims: vec!["manual".into()],
        };
        assert_eq!(
            hlo_sharding_text(&manual),
            "{devices=[2,1,4]<=[8] last_tile_dims={manual}}"
        );
    }

    #[test]
    fn iota_forms() {
        // iota([2, 3, 4]).transpose(2, 0, 1)
        let mut devices = Vec::new();
        for k in 0..4 {
            for i in 0..2 {
                for j in 0..3 {
                    devices.push(i * 12 + j * 4 + k);
                }
            }
        }
        assert_eq!(iota_form(&devices), Some((vec![6, 4], vec![1, 0])));
        assert_eq!(iota_form(&[0, 2, 1, 3]), Some((vec![2, 2], vec![1, 0])));
        assert_eq!(iota_form(&[0, 1, 2, 3]), Some((vec![4], vec![0])));
        assert_eq!(iota_form(&[0, 0]), None);
        assert_eq!(iota_form(&[0, 3, 1, 2]), None);
    }

    #[test]
    fn sdy_syntax() {
        let s = SdySharding {
            mesh: "mesh".into(),
            dims: vec![
                DimSharding {
                    axes: vec![AxisRef {
                        name: "x".into(),
                        sub_axis: None,
                    }],
                    closed: false,
                    priority: None,
                },
                DimSharding {
                    axes: vec![],
                    closed: false,
                    priority: None,
                },
                DimSharding {
                    axes: vec![AxisRef {
                        name: "y".into(),
                        sub_axis: Some((1, 2)),
                    }],
                    closed: true,
                    priority: Some(1),
                },
            ],
            replicated: vec![AxisRef {
                name: "z".into(),
                sub_axis: None,
            }],
            unreduced: vec![],
        };
        let mut out = String::new();
        write_sdy_sharding(&mut out, &s);
        assert_eq!(
            out,
            r#"#sdy.sharding<@mesh, [{"x", ?}, {?}, {"y":(1)2}p1], replicated={"z"}>"#
        );
        let mesh = SdyMesh {
            name: "mesh".into(),
            axes: vec![("x".into(), 2), ("y".into(), 4)],
            device_ids: None,
        };
        let mut out = String::new();
        write_sdy_mesh(&mut out, &mesh);
        assert_eq!(
            out,
            r#"sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}"#
        );
    }
}
