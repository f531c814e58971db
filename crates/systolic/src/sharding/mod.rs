//! Many devices, as JAX's `jax.sharding`: a [`Mesh`] of devices with named axes, a
//! [`PartitionSpec`] (built with [`P!`](crate::P)) saying which axes split each dimension, a
//! [`NamedSharding`] joining the two, sharded [`Array`](crate::Array)s made by [`device_put`]
//! and [`visualize_sharding`] to see where the pieces are.

mod mesh;
mod named;
mod sharded_array;
mod spec;
mod visualize;

pub use mesh::{make_mesh, make_mesh_of, Mesh};
pub use named::NamedSharding;
pub(crate) use sharded_array::{assemble, from_pieces};
pub use sharded_array::{device_put, Placement, Shard};
pub use spec::{DimSpec, PartitionSpec};
pub use visualize::visualize_sharding;
