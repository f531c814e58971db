//! `map` and `map_parallel`: a function over every element, on the consumer's thread or on
//! worker threads with the order kept (tf.data's `map(f, num_parallel_calls)`,
//! `deterministic=True`).
//!
//! The parallel version hands `(index, element)` pairs to a fixed set of workers through one
//! queue and puts their results back in index order with a small reorder buffer. At most
//! `2 × workers` elements are in flight, so a slow element delays the stream but never lets it
//! run ahead unboundedly. A panic in `f` is caught and reported like an error, so a worker is
//! never lost and no element goes missing. Dropping the stream closes the queue and joins the
//! workers (each finishes the element it holds), so none outlives its iterator.

use super::{element_error, Dataset, Stream};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// `f` on element `index` (an upstream failure passes through unchanged), with `f`'s error or
/// panic turned into the stage's error naming the element.
pub(crate) fn apply<T, U>(
    f: &(impl Fn(T) -> Result<U> + ?Sized),
    index: usize,
    x: Result<T>,
) -> Result<U> {
    let x = x?;
    match catch_unwind(AssertUnwindSafe(|| f(x))) {
        Ok(Ok(y)) => Ok(y),
        Ok(Err(e)) => Err(element_error("data.map", index, &e)),
        Err(panic) => Err(element_error(
            "data.map",
            index,
            &Error::Host(format!("the function panicked: {}", panic_message(&*panic))),
        )),
    }
}

/// The text a panic was raised with (`panic!`'s message), or "a panic".
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".to_string())
}

type Work<T> = (usize, Result<T>);

/// The stream of a parallel map: feeds the workers from `input`, returns results in order.
struct ParallelMap<T, U> {
    input: Stream<T>,
    work: Option<Sender<Work<T>>>,
    done: Receiver<Work<U>>,
    workers: Vec<JoinHandle<()>>,
    ready: BTreeMap<usize, Result<U>>,
    next_in: usize,
    next_out: usize,
    limit: usize,
    exhausted: bool,
}

impl<T: Send + 'static, U: Send + 'static> ParallelMap<T, U> {
    fn start(
        input: Stream<T>,
        f: Arc<dyn Fn(T) -> Result<U> + Send + Sync>,
        workers: usize,
    ) -> Self {
        let (work, queue) = channel::<Work<T>>();
        let (results, done) = channel::<Work<U>>();
        let queue = Arc::new(Mutex::new(queue));
        let mut handles = Vec::with_capacity(workers);
        for w in 0..workers {
            let (queue, results, f) = (queue.clone(), results.clone(), f.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("systolic-data-map-{w}"))
                .spawn(move || loop {
                    // The lock is held only to take one job, not while running it.
                    let job = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    let Ok((i, x)) = job else { return };
                    if results.send((i, apply(&*f, i, x))).is_err() {
                        return;
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => eprintln!("systolic::data: cannot start map worker {w} ({e})"),
            }
        }
        ParallelMap {
            input,
            work: (!handles.is_empty()).then_some(work),
            workers: handles,
            done,
            ready: BTreeMap::new(),
            next_in: 0,
            next_out: 0,
            limit: 2 * workers.max(1),
            exhausted: false,
        }
    }

    /// Queues input elements until `limit` are in flight or the input ends.
    fn fill(&mut self) {
        while !self.exhausted && self.next_in - self.next_out < self.limit {
            match self.input.next() {
                Some(x) => {
                    let sent = self
                        .work
                        .as_ref()
                        .map(|w| w.send((self.next_in, x)))
                        .is_some_and(|r| r.is_ok());
                    if !sent {
                        // No worker could be started: the element's failure is its result.
                        let e = Error::Host("no map worker is running".into());
                        self.ready.insert(
                            self.next_in,
                            Err(element_error("data.map", self.next_in, &e)),
                        );
                    }
                    self.next_in += 1;
                }
                None => {
                    self.exhausted = true;
                    self.work = None;
                }
            }
        }
    }
}

impl<T, U> Drop for ParallelMap<T, U> {
    fn drop(&mut self) {
        // Closing the queue ends each worker's loop after its current element; results go to
        // an unbounded channel, so no worker blocks on them.
        self.work = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl<T: Send + 'static, U: Send + 'static> Iterator for ParallelMap<T, U> {
    type Item = Result<U>;

    fn next(&mut self) -> Option<Result<U>> {
        self.fill();
        loop {
            if let Some(y) = self.ready.remove(&self.next_out) {
                self.next_out += 1;
                self.fill();
                return Some(y);
            }
            if self.next_out == self.next_in {
                return None;
            }
            match self.done.recv() {
                Ok((i, y)) => {
                    self.ready.insert(i, y);
                }
                Err(_) => {
                    // Every worker is gone with elements still in flight: report each once.
                    let i = self.next_out;
                    self.next_out += 1;
                    let e = Error::Host("the map workers stopped".into());
                    return Some(Err(element_error("data.map", i, &e)));
                }
            }
        }
    }
}

impl<T: Send + 'static> Dataset<T> {
    /// [`Dataset::map`] on `num_parallel` worker threads, yielding results in the input's
    /// order (tf.data's `map(f, num_parallel_calls=n)` with `deterministic=True`). For a
    /// decode that costs real time per element; `num_parallel` 0 or 1 is the sequential map.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec((0..100).collect::<Vec<u64>>()).map_parallel(|x| Ok(x * x), 4);
    /// let out = ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap();
    /// assert_eq!(out, (0..100).map(|x| x * x).collect::<Vec<_>>());
    /// ```
    pub fn map_parallel<U: Send + 'static>(
        self,
        f: impl Fn(T) -> Result<U> + Send + Sync + 'static,
        num_parallel: usize,
    ) -> Dataset<U> {
        if num_parallel <= 1 {
            return self.map(f);
        }
        let f: Arc<dyn Fn(T) -> Result<U> + Send + Sync> = Arc::new(f);
        Dataset::from_make(move |e| {
            Box::new(ParallelMap::start(self.stream(e), f.clone(), num_parallel))
        })
    }
}
