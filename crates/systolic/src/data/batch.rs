//! `batch`: consecutive elements stacked leaf by leaf along a new leading axis.
//!
//! Batch `k` is always elements `k·n .. (k+1)·n` of the input, whatever failed: a batch with a
//! failed element is one `Err` (naming the batch, and the element through the cause) and the
//! next batch starts where it would have, so no other batch is lost, shifted or duplicated.

use super::{Batch, Dataset};
use crate::error::{Error, Result};

impl<T: Batch> Dataset<T> {
    /// Batches of `batch_size` consecutive elements; the last, smaller batch is kept unless
    /// `drop_remainder` (tf.data's `batch(n, drop_remainder)`; drop it under `jit` to keep one
    /// compiled shape).
    ///
    /// ```
    /// use systolic::data::{Dataset, HostArray};
    /// let x = HostArray::from_vec((0..5).collect::<Vec<i32>>(), &[5]).unwrap();
    /// let shapes = |drop| Dataset::from_tensor_slices(x.clone()).batch(2, drop).iter()
    ///     .map(|b| b.unwrap().shape().to_vec()).collect::<Vec<_>>();
    /// assert_eq!(shapes(false), vec![vec![2], vec![2], vec![1]]);
    /// assert_eq!(shapes(true), vec![vec![2], vec![2]]);
    /// ```
    pub fn batch(self, batch_size: usize, drop_remainder: bool) -> Dataset<T> {
        if batch_size == 0 {
            return Dataset::from_make(|_| {
                Box::new(std::iter::once(Err(Error::op(
                    "data.batch",
                    "the batch size must be positive, got 0",
                ))))
            });
        }
        Dataset::from_make(move |e| {
            let mut input = self.stream(e);
            let mut k = 0usize;
            Box::new(std::iter::from_fn(move || {
                let items: Vec<Result<T>> = input.by_ref().take(batch_size).collect();
                if items.is_empty() || (drop_remainder && items.len() < batch_size) {
                    return None;
                }
                let index = k;
                k += 1;
                let stacked = items
                    .into_iter()
                    .collect::<Result<Vec<T>>>()
                    .and_then(T::stack);
                Some(
                    stacked.map_err(|cause| {
                        Error::op("data.batch", format!("batch {index}: {cause}"))
                    }),
                )
            }))
        })
    }
}
