//! `systolic::data`: input pipelines that keep devices fed (tf.data's and grain's model).
//!
//! A [`Dataset`] is a lazily evaluated, deterministic recipe for a stream of elements: nothing
//! is read until it is iterated, and every iteration of epoch `e` yields the same elements in
//! the same order (shuffles are seeded by the seed *and* the epoch, so epochs differ from each
//! other but not from run to run). Elements are host data ([`HostArray`] leaves, in a
//! [`Features`] map or a tuple) so that the pipeline's threads never touch devices until
//! [`Dataset::prefetch_to_device`] puts finished batches there.
//!
//! - Sources: in-memory arrays ([`Dataset::from_tensor_slices`]), `.npy`/`.npz` files
//!   ([`Dataset::from_npy`], [`Dataset::from_npz`]), CSV ([`Dataset::from_csv`]), a list of
//!   files ([`Dataset::from_files`]), any Rust iterator ([`Dataset::from_generator`]).
//! - Transformations: [`shuffle`](Dataset::shuffle), [`map`](Dataset::map) and
//!   [`map_parallel`](Dataset::map_parallel) (workers, order kept), [`batch`](Dataset::batch),
//!   [`repeat`](Dataset::repeat), [`take`](Dataset::take), [`skip`](Dataset::skip),
//!   [`interleave`](Dataset::interleave), [`prefetch`](Dataset::prefetch) (a background thread)
//!   and [`prefetch_to_device`](Dataset::prefetch_to_device).
//! - Errors travel in the stream: a failing `map` or a bad file is an `Err` at its place,
//!   naming the element and the cause, and the elements after it still come, once each.
//! - The consumer's iterator ([`Iter`]) measures how long the training loop waited for data
//!   ([`WaitStats`]) and can draw a progress bar with the throughput.
//!
//! ```
//! use systolic::data::{Dataset, HostArray};
//! let x = HostArray::from_vec((0..10).map(|i| i as f32).collect(), &[10]).unwrap();
//! let ds = Dataset::from_tensor_slices(x)
//!     .shuffle(4, 42)
//!     .map(|v: HostArray| Ok(HostArray::scalar(v.to_vec::<f32>()?[0] * 2.0)))
//!     .batch(4, false);
//! let batches: Vec<Vec<f32>> = ds.iter().map(|b| b.unwrap().to_vec::<f32>().unwrap()).collect();
//! assert_eq!(batches.iter().map(Vec::len).collect::<Vec<_>>(), vec![4, 4, 2]);
//! let mut all: Vec<f32> = batches.concat();
//! all.sort_by(f32::total_cmp);
//! assert_eq!(all, (0..10).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
//! // The same seed and epoch give the same batches.
//! let again: Vec<Vec<f32>> = ds.iter().map(|b| b.unwrap().to_vec::<f32>().unwrap()).collect();
//! assert_eq!(again, batches);
//! ```
//!
//! A training loop: examples and labels decoded on two workers, batched, and put on the device
//! two batches ahead of a jitted step; the iterator says how long the loop waited for data.
//!
//! ```
//! use systolic::data::{Dataset, HostArray};
//! use systolic::{jit, numpy as np, Array};
//! let x = HostArray::from_vec((0..64).map(|i| i as f32).collect(), &[16, 4])?;
//! let y = HostArray::from_vec((0..16).map(|i| i % 2).collect::<Vec<i32>>(), &[16])?;
//! let ds = Dataset::from_tensor_slices((x, y))
//!     .shuffle(16, 0)
//!     .map_parallel(|(x, y): (HostArray, HostArray)| Ok((x, y)), 2) // decode here
//!     .batch(4, true)
//!     .prefetch_to_device(2, systolic::default_device());
//! // The sum of the rows whose label is 1.
//! let step = jit(|(x, y): &(Array, Array)| {
//!     let w = np::reshape(&np::astype(y, x.dtype()), &[4, 1]);
//!     np::sum(&(x * &w), None, false)
//! });
//! for epoch in 0..2 {
//!     let mut it = ds.epoch(epoch);
//!     let mut total = 0.0;
//!     for batch in it.by_ref() {
//!         let (x, y) = batch?;
//!         total += step.call(&(x, y))?.to_vec::<f32>()?[0];
//!     }
//!     // Every example once per epoch: row i sums to 16·i + 6, label 1 on the odd rows.
//!     assert_eq!(total, (0..16).filter(|i| i % 2 == 1).map(|i| (16 * i + 6) as f32).sum::<f32>());
//!     assert_eq!(it.stats().batches, 4);
//! }
//! # Ok::<(), systolic::Error>(())
//! ```

mod batch;
mod device;
mod host;
mod interleave;
mod map;
mod prefetch;
pub mod schedule;
mod shuffle;
mod source;
mod stats;

pub use device::DeviceDataset;
pub use host::{Batch, Features, HostArray, Slices, ToDevice};
pub use source::CsvOptions;
pub use stats::{Clock, Iter, ManualClock, SystemClock, WaitStats};

use crate::error::{Error, Result};
use std::sync::Arc;

/// The elements of one iteration of a dataset, in order; failures in their place.
pub(crate) type Stream<T> = Box<dyn Iterator<Item = Result<T>> + Send>;

/// Makes the stream of an epoch.
type Make<T> = Arc<dyn Fn(u64) -> Stream<T> + Send + Sync>;

/// A lazily evaluated, deterministic pipeline of elements of type `T` (see the
/// [module docs](self)). Cloning is cheap: the clone shares the recipe.
pub struct Dataset<T> {
    make: Make<T>,
}

impl<T> Clone for Dataset<T> {
    fn clone(&self) -> Self {
        Dataset {
            make: self.make.clone(),
        }
    }
}

impl<T: Send + 'static> Dataset<T> {
    /// A dataset from the function that makes the stream of epoch `e`: the primitive every
    /// source and transformation is built on.
    pub(crate) fn from_make(make: impl Fn(u64) -> Stream<T> + Send + Sync + 'static) -> Self {
        Dataset {
            make: Arc::new(make),
        }
    }

    /// The stream of epoch `epoch`, without the consumer's statistics.
    pub(crate) fn stream(&self, epoch: u64) -> Stream<T> {
        (self.make)(epoch)
    }

    /// Iterates epoch 0 (see [`Dataset::epoch`]).
    pub fn iter(&self) -> Iter<T> {
        self.epoch(0)
    }

    /// Iterates epoch `epoch`: seeded shuffles below use `epoch` with their seed, so each
    /// epoch has its own order and the same epoch always has the same one. The iterator
    /// measures the time its consumer waits ([`Iter::stats`]).
    pub fn epoch(&self, epoch: u64) -> Iter<T> {
        Iter::new(Box::new(self.stream(epoch)))
    }

    /// The first `n` elements (`tf.data`'s `take`).
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec((0..10).collect::<Vec<i32>>()).skip(2).take(3);
    /// assert_eq!(ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap(), vec![2, 3, 4]);
    /// ```
    pub fn take(self, n: usize) -> Dataset<T> {
        Dataset::from_make(move |e| Box::new(self.stream(e).take(n)))
    }

    /// All but the first `n` elements (`tf.data`'s `skip`).
    pub fn skip(self, n: usize) -> Dataset<T> {
        Dataset::from_make(move |e| Box::new(self.stream(e).skip(n)))
    }

    /// The dataset `count` times over (`None`: forever). Repetition `r` of outer epoch `e` is
    /// the inner epoch `e·count + r` (or `r` when unbounded), so a shuffle before `repeat`
    /// gives every repetition its own order, as tf.data's `reshuffle_each_iteration`.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec(vec![1, 2]).repeat(Some(3));
    /// assert_eq!(ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap(), vec![1, 2, 1, 2, 1, 2]);
    /// assert_eq!(Dataset::from_vec(vec![7]).repeat(None).iter().take(5).count(), 5);
    /// ```
    pub fn repeat(self, count: Option<u64>) -> Dataset<T> {
        Dataset::from_make(move |e| {
            let inner = self.clone();
            let epochs: Box<dyn Iterator<Item = u64> + Send> = match count {
                Some(k) => Box::new((0..k).map(move |r| e * k + r)),
                None => Box::new(0..),
            };
            Box::new(epochs.flat_map(move |r| inner.stream(r)))
        })
    }

    /// Applies `f` to every element on the consumer's thread (see
    /// [`Dataset::map_parallel`] for workers). An `Err` from `f` is the stream's element at
    /// that place, naming the element's index in this stage and the cause.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec(vec![1, 2, 3]).map(|x: i32| {
    ///     if x == 2 { Err(systolic::Error::Host("corrupt record".into())) } else { Ok(x * 10) }
    /// });
    /// let out: Vec<_> = ds.iter().collect();
    /// assert_eq!(out[0].as_ref().unwrap(), &10);
    /// let err = out[1].as_ref().unwrap_err().to_string();
    /// assert!(err.contains("element 1") && err.contains("corrupt record"), "{err}");
    /// assert_eq!(out[2].as_ref().unwrap(), &30);
    /// ```
    pub fn map<U: Send + 'static>(
        self,
        f: impl Fn(T) -> Result<U> + Send + Sync + 'static,
    ) -> Dataset<U> {
        let f = Arc::new(f);
        Dataset::from_make(move |e| {
            let f = f.clone();
            Box::new(
                self.stream(e)
                    .enumerate()
                    .map(move |(i, x)| map::apply(&*f, i, x)),
            )
        })
    }
}

impl<T: Send + Clone + Sync + 'static> Dataset<T> {
    /// The elements of a vector, in order (`tf.data`'s `from_tensor_slices` of a list).
    pub fn from_vec(items: Vec<T>) -> Dataset<T> {
        let items = Arc::new(items);
        Dataset::from_make(move |_| {
            let items = items.clone();
            Box::new((0..items.len()).map(move |i| Ok(items[i].clone())))
        })
    }
}

/// The error of stage `op` at element `index`, keeping the cause's text.
pub(crate) fn element_error(op: &str, index: usize, cause: &Error) -> Error {
    Error::op(op, format!("element {index}: {cause}"))
}
