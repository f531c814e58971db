//! `prefetch`: the pipeline above runs on a background thread, up to `n` elements ahead.
//!
//! The thread owns the upstream stream and sends each element through a channel of capacity
//! `n`; when the consumer drops the iterator, the channel closes and the thread stops after
//! the element it is working on. Order is the channel's order, so it is the input's.

use super::{Dataset, Stream};
use crate::error::Result;
use std::sync::mpsc::{sync_channel, Receiver};

/// Runs `input` on a new thread, keeping up to `depth` results ready in a channel; `None` when
/// no thread can be started (the caller then iterates `input` itself).
pub(crate) fn spawn<T: Send + 'static>(
    input: Stream<T>,
    depth: usize,
    name: &str,
) -> std::result::Result<Receiver<Result<T>>, (Stream<T>, String)> {
    let (tx, rx) = sync_channel::<Result<T>>(depth.max(1));
    // The stream moves into the thread only once it has started; keep it to fall back on.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(input)));
    let theirs = slot.clone();
    let spawned = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let Some(input) = theirs.lock().unwrap_or_else(|p| p.into_inner()).take() else {
                return;
            };
            for x in input {
                if tx.send(x).is_err() {
                    return;
                }
            }
        });
    match spawned {
        Ok(_) => Ok(rx),
        Err(e) => {
            let input = slot
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
                .expect("the thread never started");
            Err((input, e.to_string()))
        }
    }
}

impl<T: Send + 'static> Dataset<T> {
    /// Produces up to `buffer_size` elements ahead on a background thread (tf.data's
    /// `prefetch`), so the work above it — reading, decoding, batching — overlaps the
    /// consumer's step. Order and errors are unchanged; `buffer_size` 0 is no prefetching.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec((0..50).collect::<Vec<i32>>()).map(|x| Ok(x + 1)).prefetch(2);
    /// let out = ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap();
    /// assert_eq!(out, (1..51).collect::<Vec<_>>());
    /// ```
    pub fn prefetch(self, buffer_size: usize) -> Dataset<T> {
        if buffer_size == 0 {
            return self;
        }
        Dataset::from_make(move |e| match spawn(self.stream(e), buffer_size, "systolic-data-prefetch") {
            Ok(rx) => Box::new(rx.into_iter()),
            Err((input, why)) => {
                // No thread: still correct, only not overlapped.
                eprintln!("systolic::data: prefetch runs inline ({why})");
                input
            }
        })
    }
}

