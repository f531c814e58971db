//! Where each device sits on a Shardy mesh, and what that means for one dimension of a
//! sharded array: which tile of it a device holds, which devices hold the other tiles of the
//! same piece (the group an `all_gather` along that dimension runs over, in tile order), and
//! the offset of a device's tile (what a `dynamic_slice` reads).

use std::collections::BTreeMap;
use systolic_ir::{AxisRef, SdyMesh, SdySharding, TensorType};

/// Per dimension of a value, the mesh axes its pieces are split over (empty: whole).
pub(crate) type Held = Vec<Vec<AxisRef>>;

/// The held form of a value of `global` type under `sharding` on `mesh` (whole without one);
/// `what` names the value in errors.
pub(crate) fn held_of(
    mesh: &SdyMesh,
    sharding: Option<&SdySharding>,
    global: &TensorType,
    what: &str,
) -> Result<Held, String> {
    let Some(s) = sharding else {
        return Ok(vec![vec![]; global.rank()]);
    };
    if s.mesh != mesh.name {
        return Err(format!(
            "{what}: sharding {s} names mesh @{}, but the program runs on @{}",
            s.mesh, mesh.name
        ));
    }
    if s.dims.len() != global.rank() {
        return Err(format!(
            "{what}: sharding {s} has {} dimension shardings for {global}",
            s.dims.len()
        ));
    }
    Ok(s.dims.iter().map(|d| d.axes.clone()).collect())
}

/// The devices of a mesh: device id → mesh coordinates (axes major to minor; the `k`-th
/// position in row-major order holds `device_ids[k]`, or device `k` without an explicit
/// order).
pub(crate) struct MeshGrid {
    /// Axis sizes, major to minor.
    sizes: Vec<i64>,
    /// Axis names, in the same order.
    names: Vec<String>,
    /// Per device id: its coordinates.
    coords: Vec<Vec<i64>>,
}

/// The most devices a mesh may have here (far beyond any slice; it bounds what a mesh written
/// with huge axes asks to allocate).
const MAX_DEVICES: i64 = 1 << 20;

/// One axis (or sub-axis) a dimension is split over: (mesh axis index, stride, size); its
/// part of a device's coordinate along the axis is `(c / stride) % size`. A sub-axis
/// `"x":(pre)size` is Shardy's: `pre` counts the devices' worth of more major sub-axes (so
/// `"x":(1)2` is the major half of `"x"`), and the stride is what lies minor to it.
type AxisPart = (usize, i64, i64);

impl MeshGrid {
    pub(crate) fn new(mesh: &SdyMesh) -> Result<MeshGrid, String> {
        let sizes: Vec<i64> = mesh.axes.iter().map(|(_, n)| *n).collect();
        if let Some((name, n)) = mesh.axes.iter().find(|(_, n)| *n <= 0) {
            return Err(format!("mesh @{}: axis \"{name}\" has size {n}", mesh.name));
        }
        let n = sizes
            .iter()
            .try_fold(1i64, |acc, &s| acc.checked_mul(s))
            .filter(|&n| n <= MAX_DEVICES)
            .ok_or_else(|| format!("mesh @{} has more than {MAX_DEVICES} devices", mesh.name))?;
        let order: Vec<i64> = match &mesh.device_ids {
            Some(ids) => ids.clone(),
            None => (0..n).collect(),
        };
        if order.len() as i64 != n {
            return Err(format!(
                "mesh @{} lists {} device ids for {n} devices",
                mesh.name,
                order.len()
            ));
        }
        let mut coords = vec![None; n as usize];
        for (k, &d) in order.iter().enumerate() {
            if d < 0 || d >= n || coords[d as usize].is_some() {
                return Err(format!(
                    "mesh @{}: device id {d} is out of 0..{n} or listed twice",
                    mesh.name
                ));
            }
            let mut c = vec![0; sizes.len()];
            let mut rest = k as i64;
            for a in (0..sizes.len()).rev() {
                c[a] = rest % sizes[a];
                rest /= sizes[a];
            }
            coords[d as usize] = Some(c);
        }
        Ok(MeshGrid {
            sizes,
            names: mesh.axes.iter().map(|(name, _)| name.clone()).collect(),
            coords: coords.into_iter().map(|c| c.expect("filled")).collect(),
        })
    }

    /// The number of devices.
    pub(crate) fn len(&self) -> usize {
        self.coords.len()
    }

    /// The parts of the mesh `axes` name, major first.
    fn parts(&self, axes: &[AxisRef]) -> Result<Vec<AxisPart>, String> {
        axes.iter()
            .map(|a| {
                let i = self
                    .names
                    .iter()
                    .position(|n| *n == a.name)
                    .ok_or_else(|| format!("the mesh has no axis \"{}\"", a.name))?;
                let (pre, size) = a.sub_axis.unwrap_or((1, self.sizes[i]));
                let span = pre.checked_mul(size).filter(|&s| s > 0);
                if pre <= 0 || size <= 0 || span.is_none_or(|s| self.sizes[i] % s != 0) {
                    return Err(format!(
                        "sub-axis \"{}\":({pre}){size} does not divide the axis of size {}",
                        a.name, self.sizes[i]
                    ));
                }
                Ok((i, self.sizes[i] / (pre * size), size))
            })
            .collect()
    }

    /// How many tiles `axes` split a dimension into.
    pub(crate) fn tiles(&self, axes: &[AxisRef]) -> Result<i64, String> {
        Ok(self.parts(axes)?.iter().map(|p| p.2).product())
    }

    /// The tile of a dimension split over `axes` that each device holds.
    pub(crate) fn tile_index(&self, axes: &[AxisRef]) -> Result<Vec<i64>, String> {
        let parts = self.parts(axes)?;
        Ok(self
            .coords
            .iter()
            .map(|c| {
                parts
                    .iter()
                    .fold(0, |acc, &(a, stride, n)| acc * n + (c[a] / stride) % n)
            })
            .collect())
    }

    /// The groups of devices that hold the tiles of one piece of a dimension split over
    /// `axes`: devices whose coordinates agree outside those axes, each group in tile order
    /// (major to minor), groups in order of their first device.
    pub(crate) fn groups(&self, axes: &[AxisRef]) -> Result<Vec<Vec<i64>>, String> {
        let parts = self.parts(axes)?;
        let tiles = self.tile_index(axes)?;
        let mut by_key: BTreeMap<Vec<i64>, Vec<(i64, i64)>> = BTreeMap::new();
        for (d, c) in self.coords.iter().enumerate() {
            let mut key = c.clone();
            for &(a, stride, n) in &parts {
                key[a] -= ((c[a] / stride) % n) * stride;
            }
            by_key.entry(key).or_default().push((tiles[d], d as i64));
        }
        let mut groups: Vec<Vec<i64>> = by_key
            .into_values()
            .map(|mut g| {
                g.sort();
                g.into_iter().map(|(_, d)| d).collect()
            })
            .collect();
        groups.sort();
        Ok(groups)
    }
}

impl MeshGrid {
    /// The piece of a value of `shape` held as `held`: each dimension divided by its tiles;
    /// an error (naming `what`) for a dimension that does not split evenly.
    pub(crate) fn local_shape(
        &self,
        shape: &[i64],
        held: &Held,
        what: &str,
    ) -> Result<Vec<i64>, String> {
        shape
            .iter()
            .zip(held)
            .map(|(&n, axes)| {
                let t = self.tiles(axes).map_err(|e| format!("{what}: {e}"))?;
                if n % t != 0 {
                    let names: Vec<String> =
                        axes.iter().map(|a| format!("\"{}\"", a.name)).collect();
                    return Err(format!(
                        "{what}: a dimension of size {n} does not split evenly into {t} pieces \
                         over {}; uneven pieces are not supported yet",
                        names.join(", ")
                    ));
                }
                Ok(n / t)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(name: &str) -> AxisRef {
        AxisRef {
            name: name.into(),
            sub_axis: None,
        }
    }

    fn mesh(axes: &[(&str, i64)], ids: Option<Vec<i64>>) -> SdyMesh {
        SdyMesh {
            name: "m".into(),
            axes: axes.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
            device_ids: ids,
        }
    }

    #[test]
    fn groups_follow_the_axes_major_to_minor() {
        let g = MeshGrid::new(&mesh(&[("x", 2), ("y", 4)], None)).unwrap();
        // "y" is minor: devices 0..4 share x = 0.
        assert_eq!(
            g.groups(&[axis("y")]).unwrap(),
            vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
        assert_eq!(
            g.groups(&[axis("x")]).unwrap(),
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
        // Split over "y" then "x": the tile index is y·2 + x.
        assert_eq!(
            g.groups(&[axis("y"), axis("x")]).unwrap(),
            vec![vec![0, 4, 1, 5, 2, 6, 3, 7]]
        );
        assert_eq!(g.tile_index(&[axis("y"), axis("x")]).unwrap()[5], 3);
    }

    #[test]
    fn device_ids_reorder_the_positions() {
        let g = MeshGrid::new(&mesh(&[("x", 2), ("y", 2)], Some(vec![3, 2, 1, 0]))).unwrap();
        // Position 0 (x = 0, y = 0) is device 3.
        assert_eq!(g.tile_index(&[axis("x")]).unwrap(), vec![1, 1, 0, 0]);
        assert_eq!(
            g.groups(&[axis("x")]).unwrap(),
            vec![vec![2, 0], vec![3, 1]]
        );
        assert!(MeshGrid::new(&mesh(&[("x", 2)], Some(vec![0, 0]))).is_err());
    }

    #[test]
    fn sub_axes_split_an_axis() {
        let g = MeshGrid::new(&mesh(&[("x", 4)], None)).unwrap();
        // Shardy's "x":(1)2 is the major half of "x", "x":(2)2 the minor half.
        let major = AxisRef {
            name: "x".into(),
            sub_axis: Some((1, 2)),
        };
        let minor = AxisRef {
            name: "x".into(),
            sub_axis: Some((2, 2)),
        };
        assert_eq!(
            g.tile_index(std::slice::from_ref(&major)).unwrap(),
            vec![0, 0, 1, 1]
        );
        assert_eq!(
            g.tile_index(std::slice::from_ref(&minor)).unwrap(),
            vec![0, 1, 0, 1]
        );
        assert_eq!(g.groups(&[major]).unwrap(), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(g.groups(&[minor]).unwrap(), vec![vec![0, 1], vec![2, 3]]);
    }
}
