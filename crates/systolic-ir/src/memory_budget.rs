//! The host memory a run may plan to use: checked before large allocations are made, so that a
//! program that cannot fit is refused with an error naming what it needed (as a TPU compile is
//! refused with `RESOURCE_EXHAUSTED`), instead of the process aborting when an allocation fails
//! or the machine swapping.
//!
//! The budget is `SYSTOLIC_MEMORY_LIMIT` (bytes, or with a `K`/`M`/`G`/`T` suffix, binary), else
//! the memory the system reported available (`MemAvailable` in `/proc/meminfo`) when it was first
//! asked, else unlimited. [`set_budget`] overrides it for the process. The CPU backend checks a
//! program's planned peak (temporaries and results) when it is compiled; the interpreter checks
//! each op's results before computing them.
//!
//! ```
//! use systolic_ir::memory_budget;
//! memory_budget::set_budget(Some(1 << 20));
//! assert!(memory_budget::check(4096, || "a small buffer".into()).is_ok());
//! let e = memory_budget::check(1 << 30, || "stablehlo.iota tensor<268435456xf32>".into()).unwrap_err();
//! let text = e.to_string();
//! assert!(text.starts_with("RESOURCE_EXHAUSTED") && text.contains("1.00 GiB") && text.contains("iota"), "{text}");
//! memory_budget::set_budget(None);
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The environment variable that sets the budget.
pub const LIMIT_ENV: &str = "SYSTOLIC_MEMORY_LIMIT";

/// `set_budget`'s override: 0 means none.
static OVERRIDE: AtomicU64 = AtomicU64::new(0);

/// A plan that does not fit the budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    /// What needed the memory (an op and its type, a program's peak).
    pub what: String,
    /// Bytes needed.
    pub needed: u64,
    /// The budget.
    pub budget: u64,
    /// Where the budget came from.
    pub source: &'static str,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RESOURCE_EXHAUSTED: out of host memory: {} needs {} but the memory budget is {} \
             ({})",
            self.what,
            human_bytes(self.needed),
            human_bytes(self.budget),
            self.source
        )
    }
}

impl std::error::Error for OutOfMemory {}

/// Bytes with a binary unit (`1.50 GiB`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[unit])
    }
}

/// Overrides the budget for this process (`None`: back to the environment's or the system's).
pub fn set_budget(bytes: Option<u64>) {
    // 0 stands for "no override", so a budget of 0 bytes is stored as 1.
    let stored = match bytes {
        None => 0,
        Some(b) => b.max(1),
    };
    OVERRIDE.store(stored, Ordering::Relaxed);
}

/// The budget in bytes and where it came from.
pub fn budget() -> (u64, &'static str) {
    let o = OVERRIDE.load(Ordering::Relaxed);
    if o != 0 {
        return (o, "set by the program");
    }
    *default_budget()
}

fn default_budget() -> &'static (u64, &'static str) {
    static DEFAULT: OnceLock<(u64, &'static str)> = OnceLock::new();
    DEFAULT.get_or_init(|| {
        if let Ok(text) = std::env::var(LIMIT_ENV) {
            if let Some(b) = parse_bytes(&text) {
                return (b, "SYSTOLIC_MEMORY_LIMIT");
            }
        }
        match available_memory() {
            Some(b) => (b, "the memory available when the process started; set SYSTOLIC_MEMORY_LIMIT to change it"),
            None => (u64::MAX, "unlimited"),
        }
    })
}

/// `1073741824`, `512M`, `2G`, `1.5T` (binary units); `None` for anything else.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, scale) = match t.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => {
            let scale: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return None,
            };
            (&t[..i], scale)
        }
        _ => (t, 1),
    };
    let v: f64 = num.trim().parse().ok()?;
    let bytes = v * scale as f64;
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// An error if `needed` bytes exceed the budget; `what` names the need (called only then).
pub fn check(needed: u64, what: impl FnOnce() -> String) -> Result<(), OutOfMemory> {
    let (budget, source) = budget();
    if needed <= budget {
        return Ok(());
    }
    Err(OutOfMemory {
        what: what(),
        needed,
        budget,
        source,
    })
}
