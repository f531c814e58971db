//! `prefetch`: the pipeline above runs on a background thread, up to `n` elements ahead.
//!
//! The thread owns the upstream stream and hands each element over a channel. The channel holds
//! `n − 1` elements and the thread one more, blocked in its hand-over, so exactly `n` elements
//! are ready or being made while the consumer works on the one it holds: when the consumer takes
//! element `i`, the thread starts on element `i + n` (the model of [`schedule`](super::schedule)).
//! Order is the channel's order, so it is the input's. A panic upstream is caught and delivered
//! as the last element's `Err` instead of ending the epoch early without a word.
//!
//! Dropping the consumer's stream closes the channel and then joins the thread, so no pipeline
//! thread outlives its iterator: the drop waits at most for the element being made.

use super::Stream;
use super::{map::panic_message, Dataset};
use crate::error::{Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

/// The consumer's end of a background stream: the channel and the thread it joins when dropped.
pub(crate) struct Prefetched<T> {
    rx: Option<Receiver<Result<T>>>,
    thread: Option<JoinHandle<()>>,
}

impl<T> Iterator for Prefetched<T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        self.rx.as_ref()?.recv().ok()
    }
}

impl<T> Drop for Prefetched<T> {
    fn drop(&mut self) {
        // Closing the channel first unblocks a thread waiting to hand over an element.
        self.rx = None;
        if let Some(thread) = self.thread.take() {
            // The thread catches the pipeline's panics, so this join cannot fail in practice;
            // there is nothing to report from a destructor anyway.
            let _ = thread.join();
        }
    }
}

/// Runs `input` on a new thread named `name`, keeping `depth` results (at least one) ready or
/// in the making; gives `input` back with the reason when no thread can be started (the
/// caller then iterates it inline).
pub(crate) fn spawn<T: Send + 'static>(
    input: Stream<T>,
    depth: usize,
    name: &str,
) -> std::result::Result<Prefetched<T>, (Stream<T>, String)> {
    let (tx, rx) = sync_channel::<Result<T>>(depth.max(1) - 1);
    // The stream moves into the thread only once it has started; keep it to fall back on.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(input)));
    let theirs = slot.clone();
    let stage = name.to_string();
    let spawned = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let Some(mut input) = theirs.lock().unwrap_or_else(|p| p.into_inner()).take() else {
                return;
            };
            loop {
                let item = match catch_unwind(AssertUnwindSafe(|| input.next())) {
                    Ok(Some(x)) => x,
                    Ok(None) => return,
                    Err(panic) => {
                        let why = panic_message(&*panic);
                        let _ = tx.send(Err(Error::Host(format!(
                            "{stage}: the pipeline panicked: {why}"
                        ))));
                        return;
                    }
                };
                if tx.send(item).is_err() {
                    return;
                }
            }
        });
    match spawned {
        Ok(thread) => Ok(Prefetched {
            rx: Some(rx),
            thread: Some(thread),
        }),
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
    /// Dropping the iterator stops the thread.
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
        Dataset::from_make(move |e| {
            match spawn(self.stream(e), buffer_size, "systolic-data-prefetch") {
                Ok(stream) => Box::new(stream),
                Err((input, why)) => {
                    // No thread: still correct, only not overlapped.
                    eprintln!("systolic::data: prefetch runs inline ({why})");
                    input
                }
            }
        })
    }
}
