//! Sharded [`Array`]s: a global array held as pieces on the devices of a mesh. Made by
//! [`device_put`] with a [`NamedSharding`] (splitting on the host) and returned by
//! [`shard_map`](crate::shard_map); read whole (`to_vec`, eager ops, `jit`) by assembling the
//! pieces on the mesh's first device, once.

use super::NamedSharding;
use crate::array::{Array, Repr, Shards};
use crate::device::client;
use crate::error::{Error, Result};
use std::ops::Range;
use std::sync::Arc;
use systolic_ir::TensorType;
use systolic_runtime::{Buffer, Device};

/// One device's piece of an array (`jax.Shard`).
#[derive(Clone, Debug)]
pub struct Shard {
    /// The device holding it.
    pub device: Device,
    /// The index ranges of the global array it holds, one per dimension.
    pub index: Vec<Range<i64>>,
    /// The piece, a single-device array on `device`.
    pub data: Array,
}

/// Where [`device_put`] puts an array: one device, or a sharding over a mesh.
#[derive(Clone, Debug)]
pub enum Placement {
    /// The whole array on one device.
    Device(Device),
    /// Pieces on a mesh's devices.
    Sharding(NamedSharding),
}

impl From<Device> for Placement {
    fn from(d: Device) -> Self {
        Placement::Device(d)
    }
}

impl From<NamedSharding> for Placement {
    fn from(s: NamedSharding) -> Self {
        Placement::Sharding(s)
    }
}

impl From<&NamedSharding> for Placement {
    fn from(s: &NamedSharding) -> Self {
        Placement::Sharding(s.clone())
    }
}

/// `jax.device_put`: `x` on a device, or split over a mesh by a [`NamedSharding`] (each device
/// gets its piece; an error names the dimension, size and mesh axis when a dimension does not
/// divide). Inside `jit`, putting a traced array on a sharding is
/// [`with_sharding_constraint`](crate::lax::with_sharding_constraint), as in JAX.
///
/// ```
/// use systolic::{device_put, make_mesh, Array, NamedSharding, P};
/// let mesh = make_mesh(&[1], &["data"]).unwrap();
/// let x = Array::from_vec((0..8).map(|i| i as f32).collect(), &[4, 2]);
/// let s = NamedSharding::new(&mesh, P!("data")).unwrap();
/// let y = device_put(&x, &s).unwrap();
/// assert_eq!(y.sharding().unwrap(), s);
/// assert_eq!(y.addressable_shards().len(), 1);
/// assert_eq!(y.to_vec::<f32>().unwrap(), x.to_vec::<f32>().unwrap());
/// ```
pub fn device_put(x: &Array, to: impl Into<Placement>) -> Result<Array> {
    match to.into() {
        Placement::Device(d) => x.device_put(d),
        Placement::Sharding(s) => put_sharded(x, &s),
    }
}

fn put_sharded(x: &Array, sharding: &NamedSharding) -> Result<Array> {
    x.check()?;
    if x.is_traced() {
        // Inside jit, as in JAX: the value is laid out so there (a sharding constraint).
        let y = super::with_sharding_constraint(x, sharding);
        y.check()?;
        return Ok(y);
    }
    if x.sharding().as_ref() == Some(sharding) {
        return Ok(x.clone());
    }
    let what = format!("device_put of {}", crate::array::describe(x.aval()));
    let host = x.buffer()?.to_cpu_buffer()?;
    put_host_sharded(x.aval(), x.weak_type(), host, sharding, &what)
}

/// Splits a host buffer of global type `ty` over `sharding`'s devices, one transfer per
/// device (`device_put` of an array, and the input pipeline's `prefetch_to_device`); `what`
/// names the caller in a shape error.
pub(crate) fn put_host_sharded(
    ty: &TensorType,
    weak: bool,
    host: systolic_cpu::CpuBuffer,
    sharding: &NamedSharding,
    what: &str,
) -> Result<Array> {
    sharding.check_shape(&ty.shape, what)?;
    let layout = sharding.layout(&ty.shape)?;
    let pieces = systolic_cpu::shards::split(&host, &layout).map_err(Error::Host)?;
    let devices = sharding.mesh().devices();
    let arrays = pieces
        .into_iter()
        .zip(devices)
        .map(|(p, &d)| -> Result<Array> {
            let pty = p.ty().clone();
            let b = client().buffer_from_host(p, d)?;
            Ok(Array::make(pty, weak, d, Repr::Concrete(b)))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(from_pieces(ty.clone(), weak, sharding.clone(), arrays))
}

/// A sharded array of global type `ty` from its pieces (`pieces[d]` on mesh device `d`).
pub(crate) fn from_pieces(
    ty: TensorType,
    weak: bool,
    sharding: NamedSharding,
    pieces: Vec<Array>,
) -> Array {
    let device = sharding.mesh().devices()[0];
    Array::make(
        ty,
        weak,
        device,
        Repr::Sharded(Arc::new(Shards::new(sharding, pieces))),
    )
}

/// The global array of `shards` as one buffer on `device` (pieces gathered on the host).
pub(crate) fn assemble(ty: &TensorType, shards: &Shards, device: Device) -> Result<Buffer> {
    let layout = shards.sharding.layout(&ty.shape)?;
    let pieces = shards
        .pieces
        .iter()
        .map(|p| Ok(p.buffer()?.to_cpu_buffer()?))
        .collect::<Result<Vec<_>>>()?;
    let (global, _) = systolic_cpu::shards::assemble(&pieces, &layout).map_err(Error::Host)?;
    Ok(client().buffer_from_host(global, device)?)
}

impl Array {
    /// The array's sharding over a mesh, for a sharded array (`None` for an array on one
    /// device).
    pub fn sharding(&self) -> Option<NamedSharding> {
        match &self.inner.repr {
            Repr::Sharded(s) => Some(s.sharding.clone()),
            _ => None,
        }
    }

    /// The pieces and where they sit (`jax.Array.addressable_shards`); one shard holding the
    /// whole array for an array on one device.
    pub fn addressable_shards(&self) -> Vec<Shard> {
        match &self.inner.repr {
            Repr::Sharded(s) => s
                .pieces
                .iter()
                .enumerate()
                .map(|(d, p)| Shard {
                    device: p.device(),
                    index: s.sharding.device_indices(d, self.dims()),
                    data: p.clone(),
                })
                .collect(),
            _ => vec![Shard {
                device: self.device(),
                index: self.dims().iter().map(|&n| 0..n).collect(),
                data: self.clone(),
            }],
        }
    }
}
