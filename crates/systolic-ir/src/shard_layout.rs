//! Which piece of a global array each device holds under a sharding, and the inverse: which
//! device to take each global element from when assembling the array from its pieces.
//!
//! A [`ShardLayout`] is built from an HLO sharding ([`ShardLayout::from_hlo`]: tiled with an
//! explicit or iota device list, `last_tile_dim_replicate`, `last_tile_dims={manual, …}`
//! subgroups, replicated, maximal, manual) or from a Shardy sharding and its mesh
//! ([`ShardLayout::from_sdy`]), for a global shape and a number of devices. Each device's piece
//! is one index range per dimension.
//!
//! **Uneven dimensions**, as XLA pads them: a dimension of size `n` split into `t` tiles has
//! shards of `ceil(n / t)` elements; tile `i` holds `i·s .. min((i+1)·s, n)`, so the last tiles
//! are short or empty. Every device's buffer still has the padded shard shape
//! ([`ShardLayout::shard_shape`]); the elements past its range are padding (their values are
//! unspecified; splitting fills them with zeros).
//!
//! **Copies**: devices whose tile indices differ only in a replication (or manual) subgroup
//! hold the same range. For a replicated subgroup the copies must agree, and assembling takes
//! the lowest device's ([`ShardLayout::sources`]); for `{manual}` and manual subgroups the
//! copies are each device's own data, which need not agree ([`ShardLayout::copies_agree`]).
//! A `{maximal device=d}` array is held by device `d` alone: the others hold no piece.

use crate::sharding::{AxisRef, HloSharding, SdyMesh, SdySharding};
use std::fmt;
use std::ops::Range;

/// A sharding that cannot lay out an array: a rank, size or device count that does not fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardLayoutError {
    /// What does not fit.
    pub message: String,
}

impl fmt::Display for ShardLayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ShardLayoutError {}

fn err<T>(message: impl Into<String>) -> Result<T, ShardLayoutError> {
    Err(ShardLayoutError {
        message: message.into(),
    })
}

/// The pieces of one global array over `num_devices` devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardLayout {
    shape: Vec<i64>,
    /// Tiles per array dimension.
    tiles: Vec<i64>,
    /// Per device: its index ranges, or `None` when it holds no piece (maximal elsewhere).
    pieces: Vec<Option<Vec<Range<i64>>>>,
    /// False when copies of a piece are each device's own data (manual).
    copies_agree: bool,
}

impl ShardLayout {
    /// Every device holds the whole array.
    pub fn replicated(shape: &[i64], num_devices: usize) -> ShardLayout {
        ShardLayout {
            shape: shape.to_vec(),
            tiles: vec![1; shape.len()],
            pieces: vec![Some(full(shape)); num_devices],
            copies_agree: true,
        }
    }

    /// The layout of an array of `shape` sharded by `sharding` over devices `0..num_devices`
    /// (the sharding's device ids).
    pub fn from_hlo(
        sharding: &HloSharding,
        shape: &[i64],
        num_devices: usize,
    ) -> Result<ShardLayout, ShardLayoutError> {
        check_shape(shape)?;
        match sharding {
            HloSharding::Replicated => Ok(ShardLayout::replicated(shape, num_devices)),
            HloSharding::Manual => Ok(ShardLayout {
                copies_agree: false,
                ..ShardLayout::replicated(shape, num_devices)
            }),
            HloSharding::Unknown => err("an {unknown} sharding has no layout"),
            HloSharding::Tuple(elems) => err(format!(
                "a tuple sharding ({} elements) for an array of shape {shape:?}",
                elems.len()
            )),
            HloSharding::Maximal { device } => {
                if *device < 0 || *device as usize >= num_devices {
                    return err(format!(
                        "{{maximal device={device}}} names a device outside 0..{num_devices}"
                    ));
                }
                let mut pieces = vec![None; num_devices];
                pieces[*device as usize] = Some(full(shape));
                Ok(ShardLayout {
                    shape: shape.to_vec(),
                    tiles: vec![1; shape.len()],
                    pieces,
                    copies_agree: true,
                })
            }
            HloSharding::Tiled {
                tile_dims,
                devices,
                last_tile_dim_replicate,
                last_tile_dims,
            } => {
                let subgroups = last_tile_dims.len() + usize::from(*last_tile_dim_replicate);
                let rank =
                    tile_dims
                        .len()
                        .checked_sub(subgroups)
                        .ok_or_else(|| ShardLayoutError {
                            message: format!(
                                "the sharding has {} tile dimensions but {subgroups} subgroup \
                             dimensions",
                                tile_dims.len()
                            ),
                        })?;
                if rank != shape.len() {
                    return err(format!(
                        "the sharding tiles {rank} dimensions ({:?}), but the array has rank {} \
                         (shape {shape:?})",
                        &tile_dims[..rank],
                        shape.len()
                    ));
                }
                if devices.len() != num_devices {
                    return err(format!(
                        "the sharding has {} tiles ({tile_dims:?}), but there are {num_devices} \
                         devices",
                        devices.len()
                    ));
                }
                let manual = last_tile_dims.iter().any(|k| k == "manual");
                if let Some(other) = last_tile_dims
                    .iter()
                    .find(|k| *k != "manual" && *k != "replicated")
                {
                    return err(format!("unknown subgroup kind '{other}' in last_tile_dims"));
                }
                let tiles = tile_dims[..rank].to_vec();
                let mut pieces = vec![None; num_devices];
                let mut index = vec![0i64; tile_dims.len()];
                for &device in devices {
                    if device < 0 || device as usize >= num_devices {
                        return err(format!(
                            "the sharding names device {device}, outside 0..{num_devices}"
                        ));
                    }
                    let slot = &mut pieces[device as usize];
                    if slot.is_some() {
                        return err(format!("the sharding names device {device} twice"));
                    }
                    *slot = Some(tile_ranges(shape, &tiles, &index[..rank]));
                    next_index(&mut index, tile_dims);
                }
                Ok(ShardLayout {
                    shape: shape.to_vec(),
                    tiles,
                    pieces,
                    copies_agree: !manual,
                })
            }
        }
    }

    /// The layout of an array of `shape` under a Shardy sharding on `mesh`: each dimension is
    /// split over its axes, major to minor; device `mesh.device_ids[k]` (or `k` without an
    /// explicit order) sits at the `k`-th mesh position in row-major order of the axes. Axes
    /// that shard no dimension replicate.
    pub fn from_sdy(
        sharding: &SdySharding,
        mesh: &SdyMesh,
        shape: &[i64],
    ) -> Result<ShardLayout, ShardLayoutError> {
        check_shape(shape)?;
        if sharding.dims.len() != shape.len() {
            return err(format!(
                "the sharding has {} dimension shardings, but the array has rank {} (shape \
                 {shape:?})",
                sharding.dims.len(),
                shape.len()
            ));
        }
        let sizes: Vec<i64> = mesh.axes.iter().map(|(_, n)| *n).collect();
        if let Some((name, n)) = mesh.axes.iter().find(|(_, n)| *n <= 0) {
            return err(format!("mesh axis \"{name}\" has size {n}"));
        }
        let num_devices = sizes.iter().product::<i64>() as usize;
        let order: Vec<i64> = match &mesh.device_ids {
            Some(ids) if ids.len() == num_devices => ids.clone(),
            Some(ids) => {
                return err(format!(
                    "mesh @{} lists {} device ids for {num_devices} devices",
                    mesh.name,
                    ids.len()
                ))
            }
            None => (0..num_devices as i64).collect(),
        };
        // Per dimension: (axis index, pre-size, size) of each axis, major first.
        let mut used: Vec<(usize, i64, i64)> = vec![];
        let mut dim_axes = vec![];
        for (d, dim) in sharding.dims.iter().enumerate() {
            let mut axes = vec![];
            for axis in &dim.axes {
                let a = resolve_axis(axis, mesh)?;
                if used
                    .iter()
                    .any(|u| u.0 == a.0 && u.1 < a.1 * a.2 && a.1 < u.1 * u.2)
                {
                    return err(format!(
                        "mesh axis \"{}\" shards more than one dimension (again in dimension \
                         {d})",
                        axis.name
                    ));
                }
                used.push(a);
                axes.push(a);
            }
            dim_axes.push(axes);
        }
        let tiles: Vec<i64> = dim_axes
            .iter()
            .map(|axes| axes.iter().map(|a| a.2).product())
            .collect();
        let mut pieces = vec![None; num_devices];
        let mut coords = vec![0i64; sizes.len()];
        for &device in &order {
            if device < 0 || device as usize >= num_devices {
                return err(format!(
                    "mesh @{} names device {device}, outside 0..{num_devices}",
                    mesh.name
                ));
            }
            let tile: Vec<i64> = dim_axes
                .iter()
                .map(|axes| {
                    axes.iter()
                        .fold(0, |acc, &(a, stride, n)| acc * n + (coords[a] / stride) % n)
                })
                .collect();
            let slot = &mut pieces[device as usize];
            if slot.is_some() {
                return err(format!("mesh @{} names device {device} twice", mesh.name));
            }
            *slot = Some(tile_ranges(shape, &tiles, &tile));
            next_index(&mut coords, &sizes);
        }
        Ok(ShardLayout {
            shape: shape.to_vec(),
            tiles,
            pieces,
            copies_agree: true,
        })
    }

    /// The global shape.
    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    /// The number of devices.
    pub fn num_devices(&self) -> usize {
        self.pieces.len()
    }

    /// Tiles per dimension.
    pub fn tiles(&self) -> &[i64] {
        &self.tiles
    }

    /// The shape of every device's buffer: `ceil(size / tiles)` per dimension (the last
    /// pieces of an uneven dimension are shorter and padded to it).
    pub fn shard_shape(&self) -> Vec<i64> {
        self.shape
            .iter()
            .zip(&self.tiles)
            .map(|(&n, &t)| ceil_div(n, t))
            .collect()
    }

    /// The index ranges `device` holds, one per dimension, or `None` when it holds no piece.
    pub fn piece(&self, device: usize) -> Option<&[Range<i64>]> {
        self.pieces.get(device)?.as_deref()
    }

    /// False when devices holding the same range hold their own data (manual shardings), so
    /// that copies need not agree.
    pub fn copies_agree(&self) -> bool {
        self.copies_agree
    }

    /// The devices holding a piece, grouped by piece (devices holding the same ranges
    /// together), each group in increasing device order, groups in order of their first
    /// device. Empty pieces (past the end of an uneven dimension) are left out.
    pub fn copies(&self) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = vec![];
        for (d, piece) in self.pieces.iter().enumerate() {
            let Some(ranges) = piece else { continue };
            if ranges.iter().any(|r| r.is_empty()) && !self.shape.contains(&0) {
                continue;
            }
            match groups
                .iter_mut()
                .find(|g| self.pieces[g[0]].as_ref() == Some(ranges))
            {
                Some(g) => g.push(d),
                None => groups.push(vec![d]),
            }
        }
        groups
    }

    /// The devices to assemble the array from: the lowest device of each group of
    /// [`ShardLayout::copies`]. Their pieces cover the array exactly once.
    pub fn sources(&self) -> Vec<usize> {
        self.copies().into_iter().map(|g| g[0]).collect()
    }

    /// The device whose piece an element at `index` is taken from when assembling (the lowest
    /// device holding it), or `None` for an index outside the array.
    pub fn owner(&self, index: &[i64]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        self.pieces.iter().position(|p| {
            p.as_ref()
                .is_some_and(|ranges| ranges.iter().zip(index).all(|(r, i)| r.contains(i)))
        })
    }
}

fn check_shape(shape: &[i64]) -> Result<(), ShardLayoutError> {
    match shape.iter().position(|&n| n < 0) {
        Some(d) => err(format!(
            "dimension {d} of shape {shape:?} has negative size {}",
            shape[d]
        )),
        None => Ok(()),
    }
}

fn full(shape: &[i64]) -> Vec<Range<i64>> {
    shape.iter().map(|&n| 0..n).collect()
}

fn ceil_div(n: i64, t: i64) -> i64 {
    (n + t - 1) / t
}

/// The ranges of tile `tile` (one index per dimension) when dimension `d` is cut into
/// `tiles[d]` pieces of `ceil(n / tiles[d])`.
fn tile_ranges(shape: &[i64], tiles: &[i64], tile: &[i64]) -> Vec<Range<i64>> {
    shape
        .iter()
        .zip(tiles)
        .zip(tile)
        .map(|((&n, &t), &i)| {
            let s = ceil_div(n, t);
            (i * s).min(n)..((i + 1) * s).min(n)
        })
        .collect()
}

/// Advances a row-major multi-index over `dims`.
fn next_index(index: &mut [i64], dims: &[i64]) {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return;
        }
        index[d] = 0;
    }
}

/// `(axis index in the mesh, stride, size)` of an axis reference: its part of a device's
/// coordinate along the axis is `(c / stride) % size`. A sub-axis `"x":(pre)size` is Shardy's:
/// `pre` counts the devices' worth of more major sub-axes, so `"x":(1)2` is the major half of
/// `"x"` and its stride is what lies minor to it.
fn resolve_axis(axis: &AxisRef, mesh: &SdyMesh) -> Result<(usize, i64, i64), ShardLayoutError> {
    let Some(a) = mesh.axes.iter().position(|(n, _)| *n == axis.name) else {
        let names: Vec<&str> = mesh.axes.iter().map(|(n, _)| n.as_str()).collect();
        return err(format!(
            "axis \"{}\" is not in mesh @{} (axes: {})",
            axis.name,
            mesh.name,
            names.join(", ")
        ));
    };
    let total = mesh.axes[a].1;
    match axis.sub_axis {
        None => Ok((a, 1, total)),
        Some((pre, size)) => {
            if pre <= 0 || size <= 0 || total % (pre * size) != 0 {
                return err(format!(
                    "sub-axis \"{}\":({pre}){size} does not divide the axis's size {total}",
                    axis.name
                ));
            }
            Ok((a, total / (pre * size), size))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sharding::DimSharding;
    use crate::text::parse_sharding::parse_hlo_sharding;

    fn layout(text: &str, shape: &[i64], n: usize) -> ShardLayout {
        ShardLayout::from_hlo(&parse_hlo_sharding(text).unwrap(), shape, n).unwrap()
    }

    fn piece(l: &ShardLayout, d: usize) -> Vec<(i64, i64)> {
        l.piece(d)
            .unwrap()
            .iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    #[test]
    fn tiled_iota_rows_and_columns() {
        // {devices=[2,4]<=[8]}: device k at tile (k / 4, k % 4) of a 4x8 array: 2x2 pieces.
        let l = layout("{devices=[2,4]<=[8]}", &[4, 8], 8);
        assert_eq!(l.shard_shape(), vec![2, 2]);
        assert_eq!(piece(&l, 0), vec![(0, 2), (0, 2)]);
        assert_eq!(piece(&l, 3), vec![(0, 2), (6, 8)]);
        assert_eq!(piece(&l, 5), vec![(2, 4), (2, 4)]);
        assert_eq!(l.sources(), (0..8).collect::<Vec<_>>());
        assert_eq!(l.owner(&[3, 7]), Some(7));
        assert_eq!(l.owner(&[1, 2]), Some(1));
    }

    #[test]
    fn transposed_iota_with_replication() {
        // <=[4,2]T(1,0): iota 0..8 as 4x2, transposed to 2x4: [[0,2,4,6],[1,3,5,7]], so the
        // tile order is devices 0,2,4,6,1,3,5,7. Tiles [2,1,4] with the last replicated:
        // rows 0..2 on devices 0,2,4,6 and rows 2..4 on devices 1,3,5,7, all 6 columns each.
        let l = layout(
            "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
            &[4, 6],
            8,
        );
        assert_eq!(l.tiles(), &[2, 1]);
        assert_eq!(l.shard_shape(), vec![2, 6]);
        for d in [0, 2, 4, 6] {
            assert_eq!(piece(&l, d), vec![(0, 2), (0, 6)], "device {d}");
        }
        for d in [1, 3, 5, 7] {
            assert_eq!(piece(&l, d), vec![(2, 4), (0, 6)], "device {d}");
        }
        assert_eq!(l.copies(), vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]);
        assert_eq!(l.sources(), vec![0, 1]);
        assert_eq!(l.owner(&[3, 5]), Some(1));
        assert!(l.copies_agree());
    }

    #[test]
    fn explicit_device_list_and_uneven_dimension() {
        // 5 rows over 2 tiles: shards of 3, the second holds rows 3..5 (one row of padding).
        let l = layout("{devices=[2,1]1,0}", &[5, 3], 2);
        assert_eq!(l.shard_shape(), vec![3, 3]);
        assert_eq!(piece(&l, 1), vec![(0, 3), (0, 3)]);
        assert_eq!(piece(&l, 0), vec![(3, 5), (0, 3)]);
        assert_eq!(l.sources(), vec![0, 1]);
        // 5 over 4: shards of 2 → 0..2, 2..4, 4..5 and an empty 5..5.
        let l = layout("{devices=[4]<=[4]}", &[5], 4);
        assert_eq!(l.shard_shape(), vec![2]);
        assert_eq!(piece(&l, 2), vec![(4, 5)]);
        assert_eq!(piece(&l, 3), vec![(5, 5)]);
        assert_eq!(l.sources(), vec![0, 1, 2]);
    }

    #[test]
    fn replicated_maximal_and_manual() {
        let l = layout("{replicated}", &[3], 4);
        assert_eq!(l.copies(), vec![vec![0, 1, 2, 3]]);
        assert_eq!(l.sources(), vec![0]);
        let l = layout("{maximal device=2}", &[3], 4);
        assert_eq!(l.piece(0), None);
        assert_eq!(piece(&l, 2), vec![(0, 3)]);
        assert_eq!(l.sources(), vec![2]);
        let l = layout("{manual}", &[3], 2);
        assert!(!l.copies_agree());
        // A manual subgroup: the first dimension split in 2, each half on a pair of devices
        // that hold their own data.
        let l = layout("{devices=[2,2]<=[4] last_tile_dims={manual}}", &[4], 4);
        assert!(!l.copies_agree());
        assert_eq!(l.copies(), vec![vec![0, 1], vec![2, 3]]);
        let l = layout(
            "{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}",
            &[2, 2],
            8,
        );
        assert_eq!(piece(&l, 3), vec![(0, 1), (0, 2)]);
        assert_eq!(piece(&l, 4), vec![(1, 2), (0, 2)]);
    }

    #[test]
    fn errors_name_dimension_size_and_tiles() {
        let s = parse_hlo_sharding("{devices=[2,4]<=[8]}").unwrap();
        let e = ShardLayout::from_hlo(&s, &[8], 8).unwrap_err();
        assert_eq!(
            e.message,
            "the sharding tiles 2 dimensions ([2, 4]), but the array has rank 1 (shape [8])"
        );
        let e = ShardLayout::from_hlo(&s, &[4, 8], 4).unwrap_err();
        assert_eq!(
            e.message,
            "the sharding has 8 tiles ([2, 4]), but there are 4 devices"
        );
        let s = parse_hlo_sharding("{maximal device=5}").unwrap();
        assert!(ShardLayout::from_hlo(&s, &[2], 4)
            .unwrap_err()
            .message
            .contains("device=5"));
        let s = parse_hlo_sharding("{devices=[2]0,0}").unwrap();
        assert!(ShardLayout::from_hlo(&s, &[2], 2)
            .unwrap_err()
            .message
            .contains("device 0 twice"));
    }

    fn dim(axes: &[&str]) -> DimSharding {
        DimSharding {
            axes: axes
                .iter()
                .map(|n| AxisRef {
                    name: n.to_string(),
                    sub_axis: None,
                })
                .collect(),
            closed: true,
            priority: None,
        }
    }

    fn mesh(axes: &[(&str, i64)], device_ids: Option<Vec<i64>>) -> SdyMesh {
        SdyMesh {
            name: "mesh".into(),
            axes: axes.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
            device_ids,
        }
    }

    fn sdy(dims: Vec<DimSharding>) -> SdySharding {
        SdySharding {
            mesh: "mesh".into(),
            dims,
            replicated: vec![],
            unreduced: vec![],
        }
    }

    #[test]
    fn shardy_axes_major_to_minor_and_replication() {
        // Mesh x=2, y=4 (device k at (k / 4, k % 4)); [{"x"}, {}]: rows split by x, y
        // replicates. Equal to {devices=[2,1,4]<=[8] last_tile_dim_replicate}.
        let m = mesh(&[("x", 2), ("y", 4)], None);
        let l = ShardLayout::from_sdy(&sdy(vec![dim(&["x"]), dim(&[])]), &m, &[4, 6]).unwrap();
        let hlo = layout("{devices=[2,1,4]<=[8] last_tile_dim_replicate}", &[4, 6], 8);
        assert_eq!(l, hlo);
        // [{"y", "x"}]: 8 tiles, y major: device (x, y) holds tile y * 2 + x.
        let l = ShardLayout::from_sdy(&sdy(vec![dim(&["y", "x"])]), &m, &[8]).unwrap();
        assert_eq!(piece(&l, 1), vec![(2, 3)]); // (x=0, y=1) → tile 2
        assert_eq!(piece(&l, 4), vec![(1, 2)]); // (x=1, y=0) → tile 1
        let hlo = layout("{devices=[8]<=[2,4]T(1,0)}", &[8], 8);
        assert_eq!(l, hlo);
        // An explicit device order: mesh position k is device device_ids[k].
        let m = mesh(&[("x", 2)], Some(vec![1, 0]));
        let l = ShardLayout::from_sdy(&sdy(vec![dim(&["x"])]), &m, &[4]).unwrap();
        assert_eq!(piece(&l, 1), vec![(0, 2)]);
        let e = ShardLayout::from_sdy(&sdy(vec![dim(&["z"])]), &m, &[4]).unwrap_err();
        assert_eq!(e.message, "axis \"z\" is not in mesh @mesh (axes: x)");
    }
}
