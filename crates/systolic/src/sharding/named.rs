//! [`NamedSharding`]: an array's layout over a mesh, as `jax.sharding.NamedSharding`, and its
//! translations: the piece each device holds ([`systolic_ir::ShardLayout`]) and the Shardy
//! annotation a program carries (`#sdy.sharding<@mesh, [{"data"}, {}]>`).

use super::{Mesh, PartitionSpec};
use crate::error::{Error, Result};
use std::fmt;
use std::ops::Range;
use systolic_ir::{AxisRef, DimSharding, SdyMesh, SdySharding, ShardLayout};

/// The mesh symbol of the layouts computed here (any name does: only the axes matter).
const MESH_SYMBOL: &str = "mesh";

/// A mesh and a [`PartitionSpec`]: dimension `i` of an array is split over the axes
/// `spec.dim(i)`, major first; axes the spec does not name replicate it.
///
/// ```
/// use systolic::{make_mesh, NamedSharding, P};
/// let mesh = make_mesh(&[1], &["data"]).unwrap();
/// let s = NamedSharding::new(&mesh, P!("data", None)).unwrap();
/// assert_eq!(s.shard_shape(&[8, 3]).unwrap(), vec![8, 3]);
/// let bad = NamedSharding::new(&mesh, P!("model")).unwrap_err().to_string();
/// assert!(bad.contains("no axis 'model'"), "{bad}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedSharding {
    mesh: Mesh,
    spec: PartitionSpec,
}

impl NamedSharding {
    /// `spec` over `mesh`. Every axis the spec names must be one of the mesh's, at most once.
    pub fn new(mesh: &Mesh, spec: PartitionSpec) -> Result<NamedSharding> {
        let mut seen: Vec<&String> = vec![];
        for axis in spec.axes() {
            mesh.axis_index(axis).map_err(|_| {
                Error::op(
                    "NamedSharding",
                    format!(
                    "{spec} names axis '{axis}', but the mesh has no axis '{axis}' (its axes: {})",
                    mesh.axis_list()
                ),
                )
            })?;
            if seen.contains(&axis) {
                return Err(Error::op(
                    "NamedSharding",
                    format!("{spec} uses the mesh axis '{axis}' twice"),
                ));
            }
            seen.push(axis);
        }
        Ok(NamedSharding {
            mesh: mesh.clone(),
            spec,
        })
    }

    /// Every device holds the whole array.
    pub fn replicated(mesh: &Mesh) -> NamedSharding {
        NamedSharding {
            mesh: mesh.clone(),
            spec: PartitionSpec::replicated(),
        }
    }

    /// The mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The partition spec.
    pub fn spec(&self) -> &PartitionSpec {
        &self.spec
    }

    /// True when no dimension is split.
    pub fn is_fully_replicated(&self) -> bool {
        self.spec
            .axes()
            .all(|a| self.mesh.axis_size(a).is_ok_and(|n| n == 1))
    }

    /// How many pieces dimension `d` is split into.
    pub fn tiles(&self, d: usize) -> usize {
        self.spec
            .dim(d)
            .iter()
            .map(|a| self.mesh.axis_size(a).unwrap_or(1))
            .product()
    }

    /// The shape of each device's piece of an array of `global` shape; an error when the
    /// spec has more dimensions than the array or a dimension does not divide evenly.
    pub fn shard_shape(&self, global: &[i64]) -> Result<Vec<i64>> {
        self.check_shape(global, "an array")?;
        Ok(global
            .iter()
            .enumerate()
            .map(|(d, &n)| n / self.tiles(d) as i64)
            .collect())
    }

    /// Checks that `what` (named in the error: `shard_map argument args.0 float32[10,4]`) of
    /// `global` shape can be split: errors name the dimension, its size, the mesh axes and
    /// their sizes.
    pub(crate) fn check_shape(&self, global: &[i64], what: &str) -> Result<()> {
        self.check_constrained(what)?;
        if self.spec.len() > global.len() {
            return Err(Error::op(
                "sharding",
                format!(
                    "{what} of rank {} cannot take {}, which names {} dimensions",
                    global.len(),
                    self.spec,
                    self.spec.len()
                ),
            ));
        }
        for (d, &n) in global.iter().enumerate() {
            let t = self.tiles(d) as i64;
            if t > 1 && n % t != 0 {
                let axes: Vec<String> = self
                    .spec
                    .dim(d)
                    .iter()
                    .map(|a| format!("'{a}' of size {}", self.mesh.axis_size(a).unwrap_or(1)))
                    .collect();
                return Err(Error::op(
                    "sharding",
                    format!(
                        "{what}: dimension {d} of size {n} is not divisible by the mesh axis{} \
                         {} ({t} pieces) under {}",
                        if axes.len() > 1 { "es" } else { "" },
                        axes.join(" × "),
                        self.spec
                    ),
                ));
            }
        }
        Ok(())
    }

    /// An error when the spec leaves a dimension [`PartitionSpec::UNCONSTRAINED`]: `what`
    /// needs a layout the compiler does not choose (a concrete array's placement, jit's
    /// in/out shardings).
    pub(crate) fn check_constrained(&self, what: &str) -> Result<()> {
        if !self.spec.has_unconstrained() {
            return Ok(());
        }
        Err(Error::op(
            "sharding",
            format!(
                "{what} cannot be laid out as {self}: UNCONSTRAINED dimensions are for \
                 with_sharding_constraint inside a traced function, where the compiler \
                 chooses their sharding"
            ),
        ))
    }

    /// The index ranges mesh device `d` holds of an array of `global` shape.
    pub fn device_indices(&self, d: usize, global: &[i64]) -> Vec<Range<i64>> {
        let coords = self.mesh.coords(d);
        global
            .iter()
            .enumerate()
            .map(|(dim, &n)| {
                let mut tile = 0usize;
                for a in self.spec.dim(dim) {
                    let i = self.mesh.axis_index(a).unwrap_or(0);
                    tile = tile * self.mesh.axis_sizes()[i] + coords[i];
                }
                let size = n / self.tiles(dim) as i64;
                tile as i64 * size..(tile as i64 + 1) * size
            })
            .collect()
    }

    /// `mesh` as the Shardy declaration `sdy.mesh @symbol`.
    pub(crate) fn sdy_mesh(mesh: &Mesh, symbol: &str) -> SdyMesh {
        SdyMesh {
            name: symbol.to_string(),
            axes: mesh
                .shape()
                .into_iter()
                .map(|(n, s)| (n, s as i64))
                .collect(),
            device_ids: None,
        }
    }

    /// The Shardy annotation of an array of rank `rank` (closed dimensions) on the mesh
    /// declared as `@symbol`.
    pub(crate) fn to_sdy_on(&self, symbol: &str, rank: usize) -> SdySharding {
        SdySharding {
            mesh: symbol.to_string(),
            dims: (0..rank)
                .map(|d| DimSharding {
                    axes: self
                        .spec
                        .dim(d)
                        .iter()
                        .map(|a| AxisRef {
                            name: a.clone(),
                            sub_axis: None,
                        })
                        .collect(),
                    closed: !self.spec.is_unconstrained(d),
                    priority: None,
                })
                .collect(),
            replicated: vec![],
            unreduced: vec![],
        }
    }

    /// Which piece of an array of `global` shape each mesh device holds.
    pub(crate) fn layout(&self, global: &[i64]) -> Result<ShardLayout> {
        self.check_constrained("an array")?;
        ShardLayout::from_sdy(
            &self.to_sdy_on(MESH_SYMBOL, global.len()),
            &NamedSharding::sdy_mesh(&self.mesh, MESH_SYMBOL),
            global,
        )
        .map_err(|e| Error::op("sharding", e.message))
    }
}

impl fmt::Display for NamedSharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NamedSharding({}, {})", self.mesh, self.spec)
    }
}
