//! Where `debug::print!` lines go: standard output, or a sink the program chose.
//!
//! The sink is process-wide because prints inside compiled programs run on the backend's
//! threads, not the caller's.

use std::sync::{Arc, Mutex, OnceLock};

/// A destination for printed lines (each without its final newline).
pub type PrintSink = Arc<dyn Fn(&str) + Send + Sync>;

fn sink() -> &'static Mutex<Option<PrintSink>> {
    static SINK: OnceLock<Mutex<Option<PrintSink>>> = OnceLock::new();
    SINK.get_or_init(|| Mutex::new(None))
}

/// Sends prints to `sink` instead of standard output (`None`: standard output again);
/// returns the sink that was there.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use systolic::{debug, Array};
/// let seen = Arc::new(Mutex::new(String::new()));
/// let log = seen.clone();
/// let before = debug::set_print_sink(Some(Arc::new(move |line: &str| {
///     log.lock().unwrap().push_str(line);
/// })));
/// debug::print!("{}", Array::scalar(3i32));
/// debug::set_print_sink(before);
/// assert!(seen.lock().unwrap().contains('3'));
/// ```
pub fn set_print_sink(new: Option<PrintSink>) -> Option<PrintSink> {
    let mut s = sink().lock().unwrap_or_else(|p| p.into_inner());
    std::mem::replace(&mut *s, new)
}

/// Writes one printed line to the sink.
pub(crate) fn emit(line: &str) {
    let current = sink().lock().unwrap_or_else(|p| p.into_inner()).clone();
    match current {
        Some(f) => f(line),
        None => println!("{line}"),
    }
}

/// Runs `f` with prints collected instead of shown; returns its result and the lines printed
/// while it ran, including those of programs it queued (it waits for them). Captures run one
/// at a time in the process (a second waits for the first), so that concurrent tests each see
/// their own lines.
///
/// ```
/// use systolic::{debug, Array};
/// let (n, lines) = debug::capture_prints(|| {
///     debug::print!("a {}", Array::scalar(1.5f32));
///     debug::print!("b");
///     2
/// });
/// assert_eq!((n, lines), (2, vec!["a 1.5".to_string(), "b".to_string()]));
/// ```
pub fn capture_prints<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let lines = Arc::new(Mutex::new(Vec::new()));
    let log = lines.clone();
    let before = set_print_sink(Some(Arc::new(move |line: &str| {
        log.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(line.to_string());
    })));
    // Restores the sink even if `f` panics.
    struct Restore(Option<Option<PrintSink>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(before) = self.0.take() {
                crate::core::dispatch::drain();
                set_print_sink(before);
            }
        }
    }
    let restore = Restore(Some(before));
    let r = f();
    drop(restore);
    let lines = std::mem::take(&mut *lines.lock().unwrap_or_else(|p| p.into_inner()));
    (r, lines)
}
