//! Sharding annotations as typed values: Shardy's `#sdy.sharding` / `sdy.mesh` and the older
//! `mhlo.sharding` strings (HLO sharding syntax). The partitioner reads these; parsing them into
//! types from the start means a malformed annotation is an error at load time, not a surprise
//! later.

/// `sdy.mesh @name = <["x"=2, "y"=4]>` (optionally with `device_ids=[…]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SdyMesh {
    /// Symbol name, without `@`.
    pub name: String,
    /// Named axes and their sizes, major to minor.
    pub axes: Vec<(String, i64)>,
    /// Explicit device order, if given.
    pub device_ids: Option<Vec<i64>>,
}

/// An axis named in a dimension sharding; `"x":(1)2` names a sub-axis (pre-size 1, size 2).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AxisRef {
    /// Axis name.
    pub name: String,
    /// `(pre_size, size)` for a sub-axis.
    pub sub_axis: Option<(i64, i64)>,
}

/// The sharding of one tensor dimension: `{"x", "y"}`, `{}`, `{"x", ?}`, `{"x"}p1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimSharding {
    /// Axes the dimension is split over, major first.
    pub axes: Vec<AxisRef>,
    /// False when the dimension is open (`?`) to further sharding by propagation.
    pub closed: bool,
    /// Priority `pN`, if given.
    pub priority: Option<i64>,
}

/// `#sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>` (also an inline mesh `mesh<…>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SdySharding {
    /// The mesh's symbol name (without `@`), or the inline mesh text.
    pub mesh: String,
    /// One entry per tensor dimension.
    pub dims: Vec<DimSharding>,
    /// Axes over which the tensor is explicitly replicated.
    pub replicated: Vec<AxisRef>,
    /// Axes over which the tensor is unreduced, if given.
    pub unreduced: Vec<AxisRef>,
}

/// An HLO sharding (`mhlo.sharding = "{devices=[2,1]0,1}"`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HloSharding {
    /// `{replicated}`.
    Replicated,
    /// `{manual}`.
    Manual,
    /// `{unknown}`.
    Unknown,
    /// `{maximal device=N}`.
    Maximal {
        /// The device holding the whole tensor.
        device: i64,
    },
    /// `{devices=[a,b,…]ids}` with optional `last_tile_dim_replicate` or `last_tile_dims={…}`.
    Tiled {
        /// Tiles per dimension (including trailing replication/subgroup dimensions).
        tile_dims: Vec<i64>,
        /// Device ids in tile order (expanded from the iota form `<=[4]` or `<=[2,2]T(1,0)`).
        devices: Vec<i64>,
        /// The last tile dimension is replication (`last_tile_dim_replicate`).
        last_tile_dim_replicate: bool,
        /// Subgroup kinds of trailing tile dimensions (`last_tile_dims={manual, replicated}`).
        last_tile_dims: Vec<String>,
    },
    /// `{{…}, {…}}`: one sharding per tuple element.
    Tuple(Vec<HloSharding>),
}

/// The attributes of `sdy.manual_computation` (JAX's `shard_map` under Shardy): how each
/// operand is split into the per-device values the body sees, how the body's per-device
/// results make the global results, and the mesh axes the body is manual over (it sees only
/// its own piece along them and talks to the other devices with collectives).
///
/// The op has one region: its block arguments are the local (per-device) operand types, it
/// ends in `sdy.return` of the local results; the op's results are the global types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ManualComputationAttrs {
    /// One sharding per operand (the global value's layout as the body receives it).
    pub in_shardings: Vec<SdySharding>,
    /// One sharding per result (how the body's per-device values make the global result).
    pub out_shardings: Vec<SdySharding>,
    /// The mesh axes the body is manual over, in the order written.
    pub manual_axes: Vec<String>,
}

impl ManualComputationAttrs {
    /// The mesh its shardings name (the first one's; the verifier checks they agree).
    pub fn mesh_name(&self) -> Option<&str> {
        self.in_shardings
            .iter()
            .chain(&self.out_shardings)
            .map(|s| s.mesh.as_str())
            .next()
    }

    /// Whether the computation can run as its body on one device: every manual axis has size
    /// 1 on `mesh` (then each piece is the whole value). The error is what a single-device
    /// path reports otherwise.
    pub fn check_single_device(&self, mesh: Option<&SdyMesh>) -> Result<(), String> {
        for axis in &self.manual_axes {
            match mesh.and_then(|m| m.axis_size(axis)) {
                Some(1) => {}
                size => {
                    let size = size.map_or_else(|| "unknown".to_string(), |n| n.to_string());
                    return Err(format!(
                        "sdy.manual_computation must be lowered to a per-device program first \
                         (lower_manual_computations): manual axis \"{axis}\" has size {size}, \
                         so the body sees pieces and meets the other devices"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The per-device shape of a value of global `shape` laid out by `sharding` on `mesh`
    /// inside this computation: each dimension divided by the sizes of the manual axes its
    /// sharding names (free axes do not divide it). `None` when a rank or size does not fit.
    pub fn local_shape(
        &self,
        sharding: &SdySharding,
        mesh: &SdyMesh,
        shape: &[i64],
    ) -> Option<Vec<i64>> {
        if sharding.dims.len() != shape.len() {
            return None;
        }
        shape
            .iter()
            .zip(&sharding.dims)
            .map(|(&n, dim)| {
                let tiles = dim
                    .axes
                    .iter()
                    .filter(|a| self.manual_axes.contains(&a.name))
                    .map(|a| a.size_on(mesh).unwrap_or(1))
                    .try_fold(1i64, i64::checked_mul)?;
                (tiles > 0 && n % tiles == 0).then_some(n / tiles)
            })
            .collect()
    }
}

impl SdyMesh {
    /// The size of the axis called `name`, if the mesh has it.
    pub fn axis_size(&self, name: &str) -> Option<i64> {
        self.axes.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }
}

impl AxisRef {
    /// The number of devices this axis (or sub-axis) spans on `mesh`, if the mesh has it.
    pub fn size_on(&self, mesh: &SdyMesh) -> Option<i64> {
        match self.sub_axis {
            Some((_, size)) => mesh.axis_size(&self.name).map(|_| size),
            None => mesh.axis_size(&self.name),
        }
    }
}
