//! A process-wide time limit for executions (`systolic run --timeout`): the backends check it
//! where a run can go on without end — each iteration of a `while` loop, and between the steps
//! of a compiled program or the ops of an interpreted one — and stop with
//! [`Exceeded`], which says how far the run got. A kernel that has started finishes first, so
//! a run stops within one kernel's time of its deadline.
//!
//! The limit is process-wide (one atomic) so that every thread of a run, the backend's pool and
//! the processes of an SPMD execution alike, sees it without a handle being passed down; set it
//! before the run and clear it after.
//!
//! ```
//! use std::time::Duration;
//! use systolic_ir::deadline;
//! deadline::set_timeout(Some(Duration::from_secs(3600)));
//! assert!(deadline::check().is_ok());
//! deadline::set_timeout(Some(Duration::ZERO));
//! let e = deadline::check().unwrap_err();
//! assert!(e.to_string().contains("time limit"), "{e}");
//! deadline::set_timeout(None);
//! assert!(deadline::check().is_ok());
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Nanoseconds after [`epoch`] at which runs must stop; 0 means no limit.
static DEADLINE_NS: AtomicU64 = AtomicU64::new(0);
/// The limit as given, for the message.
static LIMIT_NS: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// A run passed its time limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exceeded {
    /// The limit that was set.
    pub limit: Duration,
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the run reached its time limit of {} and was stopped",
            human(self.limit)
        )
    }
}

impl std::error::Error for Exceeded {}

fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{} s", (s * 1e3).round() / 1e3)
    } else {
        format!("{:.0} ms", s * 1e3)
    }
}

/// Runs started from now on must end within `limit` (`None`: no limit). The deadline is
/// `now + limit`, shared by every thread.
pub fn set_timeout(limit: Option<Duration>) {
    match limit {
        None => {
            DEADLINE_NS.store(0, Ordering::Relaxed);
            LIMIT_NS.store(0, Ordering::Relaxed);
        }
        Some(limit) => {
            let now = epoch().elapsed();
            let at = now.saturating_add(limit).as_nanos().min(u64::MAX as u128) as u64;
            LIMIT_NS.store(
                limit.as_nanos().min(u64::MAX as u128) as u64,
                Ordering::Relaxed,
            );
            // 0 means "no limit": a deadline at the epoch itself is one nanosecond later.
            DEADLINE_NS.store(at.max(1), Ordering::Relaxed);
        }
    }
}

/// The error if the deadline has passed (one relaxed load when no limit is set).
pub fn check() -> Result<(), Exceeded> {
    let at = DEADLINE_NS.load(Ordering::Relaxed);
    if at == 0 || (epoch().elapsed().as_nanos() as u64) < at {
        return Ok(());
    }
    Err(Exceeded {
        limit: Duration::from_nanos(LIMIT_NS.load(Ordering::Relaxed)),
    })
}
