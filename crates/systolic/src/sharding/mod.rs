//! Many devices, as JAX's `jax.sharding`: a [`Mesh`] of devices with named axes, a
//! [`PartitionSpec`] (built with [`P!`](crate::P)) saying which axes split each dimension, a
//! [`NamedSharding`] joining the two, sharded [`Array`](crate::Array)s made by [`device_put`]
//! and [`visualize_sharding`] to see where the pieces are; [`Shardings`] for `jit`'s
//! in/out shardings and [`with_sharding_constraint`] for values inside it.

mod constraint;
mod layout_match;
mod mesh;
mod named;
mod sharded_array;
mod shardings;
mod spec;
mod visualize;

pub use constraint::with_sharding_constraint;
pub use mesh::{make_mesh, make_mesh_of, Mesh};
pub use named::NamedSharding;
pub(crate) use sharded_array::{assemble, from_pieces, put_host_sharded};
pub use sharded_array::{device_put, Placement, Shard};
pub use shardings::Shardings;
pub use spec::{DimSpec, PartitionSpec, Unconstrained};
pub use visualize::visualize_sharding;
