//! From where the pieces are back to a [`NamedSharding`]: the compiler reports each result of a
//! partitioned program as a [`ShardLayout`] (the index ranges every device holds), while a
//! sharded [`Array`](crate::Array) carries a mesh and a [`PartitionSpec`]. Two shardings are
//! the same when they lay an array out the same way (`P('data', None)` and `P('data')`, or an
//! axis of size 1 named or not), as JAX compares shardings by their HLO form.

use super::{Mesh, NamedSharding, PartitionSpec};
use systolic_ir::ShardLayout;

/// True when `a` and `b` put the same pieces of an array of `shape` on the same devices.
fn same_pieces(a: &ShardLayout, b: &ShardLayout) -> bool {
    a.shape() == b.shape()
        && a.num_devices() == b.num_devices()
        && (0..a.num_devices()).all(|d| a.piece(d) == b.piece(d))
}

impl NamedSharding {
    /// True when `self` and `other` lay out an array of `shape` the same way (same mesh, same
    /// piece on every device); false when either cannot lay it out.
    pub(crate) fn same_layout(&self, other: &NamedSharding, shape: &[i64]) -> bool {
        if self == other {
            return true;
        }
        if self.mesh() != other.mesh() {
            return false;
        }
        match (self.layout(shape), other.layout(shape)) {
            (Ok(a), Ok(b)) => same_pieces(&a, &b),
            _ => false,
        }
    }

    /// True when `self` lays out an array of `layout`'s shape as `layout` says.
    pub(crate) fn matches(&self, layout: &ShardLayout) -> bool {
        self.layout(layout.shape())
            .is_ok_and(|mine| same_pieces(&mine, layout))
    }

    /// The sharding over `mesh` that lays an array out as `layout` does, if a
    /// [`PartitionSpec`] can say it (sub-axes and explicit device orders cannot). Axes that
    /// change nothing (size 1) are left out; among equal choices the first in mesh order wins.
    pub(crate) fn from_layout(mesh: &Mesh, layout: &ShardLayout) -> Option<NamedSharding> {
        if layout.num_devices() != mesh.size() {
            return None;
        }
        let tiles: Vec<usize> = layout.tiles().iter().map(|&t| t as usize).collect();
        let mut dims: Vec<Vec<usize>> = vec![vec![]; tiles.len()];
        let mut found = None;
        search(mesh, layout, &tiles, 0, &mut dims, &mut found);
        found
    }
}

/// Tries every placement of mesh axes `axis..` into `dims` (left out, or inserted at any
/// position of any dimension whose tile count it still divides); stops at the first sharding
/// that matches `layout`.
fn search(
    mesh: &Mesh,
    layout: &ShardLayout,
    tiles: &[usize],
    axis: usize,
    dims: &mut Vec<Vec<usize>>,
    found: &mut Option<NamedSharding>,
) {
    if found.is_some() {
        return;
    }
    let sizes = mesh.axis_sizes();
    if axis == sizes.len() {
        let complete = dims
            .iter()
            .zip(tiles)
            .all(|(d, &t)| d.iter().map(|&a| sizes[a]).product::<usize>() == t);
        if !complete {
            return;
        }
        let names = mesh.axis_names();
        let spec = PartitionSpec::new(
            dims.iter()
                .map(|d| d.iter().map(|&a| names[a].clone()).collect())
                .collect(),
        );
        if let Ok(s) = NamedSharding::new(mesh, spec)
            && s.matches(layout)
        {
            *found = Some(s);
        }
        return;
    }
    search(mesh, layout, tiles, axis + 1, dims, found);
    if sizes[axis] == 1 {
        return;
    }
    for d in 0..dims.len() {
        let held: usize = dims[d].iter().map(|&a| sizes[a]).product();
        if !tiles[d].is_multiple_of(held * sizes[axis]) {
            continue;
        }
        for at in 0..=dims[d].len() {
            dims[d].insert(at, axis);
            search(mesh, layout, tiles, axis + 1, dims, found);
            dims[d].remove(at);
            if found.is_some() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::P;

    fn mesh() -> Mesh {
        let devices = systolic_runtime::Client::cpu_devices(8).devices().to_vec();
        Mesh::new(devices, &[4, 2], &["data", "model"]).unwrap()
    }

    #[test]
    fn every_spec_of_a_matrix_round_trips_through_its_layout() {
        let m = mesh();
        let specs = [
            P!(),
            P!("data"),
            P!(None, "model"),
            P!("data", "model"),
            P!("model", "data"),
            P!(("data", "model")),
            P!(("model", "data")),
            P!(None, ("model", "data")),
        ];
        for spec in specs {
            let s = NamedSharding::new(&m, spec.clone()).unwrap();
            let layout = s.layout(&[8, 16]).unwrap();
            let back = NamedSharding::from_layout(&m, &layout).unwrap();
            assert!(back.same_layout(&s, &[8, 16]), "{spec} came back as {back}");
            assert_eq!(
                back.spec().axes().count(),
                spec.axes().count(),
                "{spec}: {back}"
            );
        }
    }

    #[test]
    fn equal_layouts_compare_equal_across_spellings() {
        let m = mesh();
        let a = NamedSharding::new(&m, P!("data", None)).unwrap();
        let b = NamedSharding::new(&m, P!("data")).unwrap();
        let c = NamedSharding::new(&m, P!(None, "data")).unwrap();
        assert!(a.same_layout(&b, &[8, 4]));
        assert!(!a.same_layout(&c, &[8, 4]));
    }
}
