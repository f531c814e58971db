//! `interleave`: many inner datasets (typically one per file) read in rotation.
//!
//! As tf.data's `interleave(f, cycle_length, block_length)`: `cycle_length` inputs are open at
//! a time; `block_length` elements are taken from each in turn; an exhausted one is replaced by
//! the next input in its slot when the rotation comes back to it. The order depends only on the inputs, so it is deterministic.

use super::{element_error, Dataset, Stream};
use crate::error::Result;
use std::sync::Arc;

impl<T: Send + 'static> Dataset<T> {
    /// Maps each element to a dataset with `f` and interleaves them: `cycle_length` open at a
    /// time, `block_length` consecutive elements from each. An `Err` from `f` (a file that
    /// cannot be opened) is one element of the output, naming the input's index.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec(vec![0, 10, 20])
    ///     .interleave(|s: i32| Ok(Dataset::from_vec(vec![s, s + 1, s + 2])), 2, 2);
    /// let out = ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap();
    /// assert_eq!(out, vec![0, 1, 10, 11, 2, 12, 20, 21, 22]);
    /// ```
    pub fn interleave<U: Send + 'static>(
        self,
        f: impl Fn(T) -> Result<Dataset<U>> + Send + Sync + 'static,
        cycle_length: usize,
        block_length: usize,
    ) -> Dataset<U> {
        let f = Arc::new(f);
        let cycle = cycle_length.max(1);
        let block = block_length.max(1);
        Dataset::from_make(move |e| {
            let f = f.clone();
            let mut inputs = self.stream(e).enumerate();
            let mut open: Vec<Option<Stream<U>>> = (0..cycle).map(|_| None).collect();
            let mut slot = 0usize;
            let mut taken = 0usize;
            let mut inputs_done = false;
            Box::new(std::iter::from_fn(move || loop {
                if open[slot].is_none() && !inputs_done {
                    match inputs.next() {
                        Some((i, x)) => match x.and_then(|x| f(x)) {
                            Ok(ds) => open[slot] = Some(ds.stream(e)),
                            Err(cause) => {
                                // The slot stays free for the next input.
                                return Some(Err(element_error("data.interleave", i, &cause)));
                            }
                        },
                        None => inputs_done = true,
                    }
                }
                if open.iter().all(Option::is_none) && inputs_done {
                    return None;
                }
                if let Some(stream) = open[slot].as_mut()
                    && taken < block
                {
                    if let Some(y) = stream.next() {
                        taken += 1;
                        return Some(y);
                    }
                    // Exhausted: the slot takes the next input when its turn comes.
                    open[slot] = None;
                }
                slot = (slot + 1) % cycle;
                taken = 0;
            }))
        })
    }
}
