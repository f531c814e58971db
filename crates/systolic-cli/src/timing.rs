//! Wall-clock measurements and their summary.

use serde::Serialize;
use std::time::Instant;

/// Runs `f` and returns its result with the milliseconds it took.
pub fn time_ms<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed().as_secs_f64() * 1e3)
}

/// Minimum, median and maximum of a set of run times, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunStats {
    /// Fastest run.
    pub min: f64,
    /// Median run (the mean of the two middle ones for an even count).
    pub median: f64,
    /// Slowest run.
    pub max: f64,
    /// Number of runs.
    pub count: usize,
}

impl RunStats {
    /// Summarises `times`; `None` when there are none.
    pub fn of(times: &[f64]) -> Option<RunStats> {
        let median = systolic_runtime::profile::median(times)?;
        Some(RunStats {
            min: times.iter().copied().fold(f64::INFINITY, f64::min),
            median,
            max: times.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            count: times.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_odd_and_even_counts() {
        let s = RunStats::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.min, s.median, s.max, s.count), (1.0, 2.0, 3.0, 3));
        let s = RunStats::of(&[4.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 3.0, 10.0));
        assert_eq!(RunStats::of(&[]), None);
    }
}
