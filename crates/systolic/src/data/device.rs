//! `prefetch_to_device`: finished batches put on devices ahead of the step (flax's
//! `prefetch_to_device`, grain's device put).
//!
//! A background thread pulls host batches from the pipeline and puts each leaf on the target:
//! one device, or split over a mesh by a [`NamedSharding`](crate::NamedSharding) so that each
//! device receives only its shard. Up to `n` transferred batches wait in a channel, so while
//! the step runs on batch `i`, batches `i+1 ..= i+n` are decoded and on their way. On the CPU
//! a host→device put is a move of the converted buffer; on a simulated TPU it takes HBM and
//! charges PCIe time to the chip's clock, from this thread. Errors (a failed element, a shape
//! the mesh does not divide, a full device) arrive in order as the batch's `Err`.

use super::{prefetch, Dataset, Iter, ToDevice};
use crate::error::Error;
use crate::sharding::Placement;

/// A dataset whose batches are put on devices ahead of the consumer (see
/// [`Dataset::prefetch_to_device`]).
pub struct DeviceDataset<T> {
    host: Dataset<T>,
    depth: usize,
    placement: Placement,
}

impl<T: ToDevice + Sync> Dataset<T> {
    /// Keeps `n` batches in flight to `placement`: a device
    /// ([`systolic::device`](crate::device)) or a [`NamedSharding`](crate::NamedSharding) over a
    /// mesh (each device gets its shard of every leaf). The transfers and everything above
    /// them run on a background thread; `n` 0 puts each batch when it is asked for.
    ///
    /// ```
    /// use systolic::data::{Dataset, HostArray};
    /// use systolic::{make_mesh, NamedSharding, P};
    /// let x = HostArray::from_vec((0..8).map(|i| i as f32).collect(), &[4, 2]).unwrap();
    /// let mesh = make_mesh(&[1], &["data"]).unwrap();
    /// let sharding = NamedSharding::new(&mesh, P!("data")).unwrap();
    /// let ds = Dataset::from_tensor_slices(x).batch(2, true).prefetch_to_device(2, sharding.clone());
    /// let batches: Vec<systolic::Array> = ds.iter().map(Result::unwrap).collect();
    /// assert_eq!(batches.len(), 2);
    /// assert_eq!(batches[1].sharding().unwrap(), sharding);
    /// assert_eq!(batches[1].to_vec::<f32>().unwrap(), vec![4.0, 5.0, 6.0, 7.0]);
    /// ```
    pub fn prefetch_to_device(self, n: usize, placement: impl Into<Placement>) -> DeviceDataset<T> {
        DeviceDataset {
            host: self,
            depth: n,
            placement: placement.into(),
        }
    }
}

impl<T: ToDevice + Sync> DeviceDataset<T> {
    /// Iterates epoch 0.
    pub fn iter(&self) -> Iter<T::Output>
    where
        T::Output: Send,
    {
        self.epoch(0)
    }

    /// Iterates epoch `epoch` (see [`Dataset::epoch`]).
    pub fn epoch(&self, epoch: u64) -> Iter<T::Output>
    where
        T::Output: Send,
    {
        let placement = self.placement.clone();
        let put = move |(i, batch): (usize, crate::Result<T>)| {
            batch.and_then(|b| {
                b.to_device(&placement).map_err(|cause| {
                    Error::op("data.prefetch_to_device", format!("batch {i}: {cause}"))
                })
            })
        };
        let stream = self.host.stream(epoch).enumerate().map(put);
        if self.depth == 0 {
            return Iter::new(Box::new(stream));
        }
        match prefetch::spawn(Box::new(stream), self.depth, "systolic-data-to-device") {
            Ok(stream) => Iter::new(Box::new(stream)),
            Err((stream, why)) => {
                eprintln!("systolic::data: prefetch_to_device runs inline ({why})");
                Iter::new(Box::new(stream))
            }
        }
    }
}
