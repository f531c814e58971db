//! The consumer's side: [`Iter`], which measures how long the training loop waited for data,
//! and the clocks it measures with.
//!
//! The time spent inside `next()` is time the step could not run: the input stall. Its share
//! of the wall time since the iterator was made is the number to watch (a well-fed loop keeps
//! it near zero). The clock is replaceable so that tests can check the accounting exactly on a
//! [`ManualClock`] that the pipeline and the "step" advance by hand.

use crate::error::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A source of monotonic time.
pub trait Clock: Send + Sync {
    /// Time since an arbitrary, fixed origin.
    fn now(&self) -> Duration;
}

/// The real monotonic clock ([`Instant`]).
#[derive(Clone, Copy, Debug)]
pub struct SystemClock(Instant);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(Instant::now())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// A simulated clock that only moves when told to: for exact tests of the statistics and for
/// pipelines timed on a simulated device. Clones share the time.
///
/// ```
/// use systolic::data::{Clock, ManualClock};
/// use std::time::Duration;
/// let c = ManualClock::default();
/// c.advance(Duration::from_millis(3));
/// assert_eq!(c.clone().now(), Duration::from_millis(3));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicU64>);

impl ManualClock {
    /// Moves the clock forward by `d`.
    pub fn advance(&self, d: Duration) {
        self.0.fetch_add(d.as_nanos() as u64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.0.load(Ordering::SeqCst))
    }
}

/// How long the consumer waited for its elements (batches, usually).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaitStats {
    /// Elements received (failed ones included).
    pub batches: u64,
    /// Total time spent waiting inside `next()`.
    pub waited: Duration,
    /// The longest single wait.
    pub max_wait: Duration,
    /// Time since the iterator was made.
    pub wall: Duration,
}

impl WaitStats {
    /// The mean wait per element.
    pub fn mean_wait(&self) -> Duration {
        if self.batches == 0 {
            Duration::ZERO
        } else {
            Duration::from_nanos((self.waited.as_nanos() / u128::from(self.batches)) as u64)
        }
    }

    /// The share of wall time spent waiting, in `[0, 1]` (the input-stall share).
    pub fn wait_share(&self) -> f64 {
        if self.wall.is_zero() {
            0.0
        } else {
            (self.waited.as_secs_f64() / self.wall.as_secs_f64()).min(1.0)
        }
    }

    /// Elements per second of wall time.
    pub fn throughput(&self) -> f64 {
        if self.wall.is_zero() {
            0.0
        } else {
            self.batches as f64 / self.wall.as_secs_f64()
        }
    }
}

/// The consumer's iterator over a dataset's elements; see [`WaitStats`].
///
/// ```
/// use systolic::data::{Dataset, ManualClock};
/// use std::{sync::Arc, time::Duration};
/// let clock = ManualClock::default();
/// let decode = clock.clone();
/// // Each element costs 3 ms to decode (simulated), each step 5 ms.
/// let ds = Dataset::from_vec(vec![0u8; 4]).map(move |x| { decode.advance(Duration::from_millis(3)); Ok(x) });
/// let mut it = ds.iter().with_clock(Arc::new(clock.clone()));
/// while let Some(x) = it.next() {
///     x.unwrap();
///     clock.advance(Duration::from_millis(5));
/// }
/// let s = it.stats();
/// assert_eq!((s.batches, s.waited, s.wall), (4, Duration::from_millis(12), Duration::from_millis(32)));
/// assert_eq!(s.wait_share(), 12.0 / 32.0);
/// ```
pub struct Iter<T> {
    inner: Box<dyn Iterator<Item = Result<T>>>,
    clock: Arc<dyn Clock>,
    start: Duration,
    stats: WaitStats,
    progress: Option<ProgressBar>,
}

impl<T> Iter<T> {
    pub(crate) fn new(inner: Box<dyn Iterator<Item = Result<T>>>) -> Self {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock::default());
        Iter {
            inner,
            start: clock.now(),
            clock,
            stats: WaitStats::default(),
            progress: None,
        }
    }

    /// Measures with `clock` instead of the real one (from now on: the wall time restarts).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.start = clock.now();
        self.clock = clock;
        self.stats = WaitStats::default();
        self
    }

    /// Starts the statistics over from now (after a warm-up step, say), keeping the clock.
    pub fn reset_stats(&mut self) {
        self.start = self.clock.now();
        self.stats = WaitStats::default();
    }

    /// Draws a progress bar on stderr with the elements per second and the wait share,
    /// towards `total` elements when known (an epoch's batches).
    pub fn with_progress(mut self, total: Option<u64>) -> Self {
        let bar = match total {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::no_length(),
        };
        let template = if total.is_some() {
            "{bar:30} {pos}/{len} batches, {per_sec}, eta {eta} {msg}"
        } else {
            "{spinner} {pos} batches, {per_sec} {msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        self.progress = Some(bar);
        self
    }

    /// The waiting so far.
    pub fn stats(&self) -> WaitStats {
        WaitStats {
            wall: self.clock.now().saturating_sub(self.start),
            ..self.stats
        }
    }
}

impl<T> Iterator for Iter<T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        let before = self.clock.now();
        let item = self.inner.next();
        let waited = self.clock.now().saturating_sub(before);
        self.stats.waited += waited;
        self.stats.max_wait = self.stats.max_wait.max(waited);
        match (&item, &self.progress) {
            (Some(_), Some(bar)) => {
                self.stats.batches += 1;
                bar.inc(1);
                bar.set_message(format!("waiting {:.1}%", 100.0 * self.stats().wait_share()));
            }
            (Some(_), None) => self.stats.batches += 1,
            (None, Some(bar)) => bar.finish(),
            (None, None) => {}
        }
        item
    }
}
