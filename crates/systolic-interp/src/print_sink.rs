//! Where `interpreter.print` writes, and in which form.
//!
//! By default each print goes to standard output as one locked write, so the prints of the
//! processes of an `interpreter.run_parallel` never interleave (the upstream interpreter
//! promises the same). A caller can divert them (`with_sink`: tests, a tool collecting
//! output) and choose the form (`PrintFormat`: the reference interpreter's nested lists, or
//! `dense<…>` attributes as its `--interpreter-print-dense` writes them). The setting is per
//! thread, like the numerics mode, and a parallel run hands it to its process threads.

use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;

use systolic_ir::text::{format_value, format_value_dense};
use systolic_ir::Tensor;

/// How a printed value is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrintFormat {
    /// `tensor<2xi8> {\n  [1, 2]\n}`.
    #[default]
    Nested,
    /// `dense<[1, 2]> : tensor<2xi8>`.
    Dense,
}

/// A function receiving each printed text (without a trailing newline).
pub type Sink = Arc<dyn Fn(&str) + Send + Sync>;

/// What the current thread's prints do.
#[derive(Clone, Default)]
pub struct PrintSettings {
    /// `None`: standard output.
    pub sink: Option<Sink>,
    /// The layout.
    pub format: PrintFormat,
}

thread_local! {
    static SETTINGS: RefCell<PrintSettings> = RefCell::new(PrintSettings::default());
}

/// The current thread's settings (to hand to another thread).
pub fn settings() -> PrintSettings {
    SETTINGS.with(|s| s.borrow().clone())
}

/// Runs `f` with `settings` for this thread's prints, restoring the previous ones after.
pub fn with_settings<R>(settings: PrintSettings, f: impl FnOnce() -> R) -> R {
    let previous = SETTINGS.with(|s| std::mem::replace(&mut *s.borrow_mut(), settings));
    struct Restore(Option<PrintSettings>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(p) = self.0.take() {
                SETTINGS.with(|s| *s.borrow_mut() = p);
            }
        }
    }
    let _restore = Restore(Some(previous));
    f()
}

/// Sets this thread's settings for good (a new process thread of a parallel run).
pub(crate) fn install(settings: PrintSettings) {
    SETTINGS.with(|s| *s.borrow_mut() = settings);
}

/// Prints `value`, labelled with the SSA name it has in the program (`%x = …`).
pub(crate) fn print_value(label: &str, value: &Tensor) {
    emit(format!("{label} = {}", body(value)));
}

/// Prints a function's result, unlabelled.
pub(crate) fn print_result(value: &Tensor) {
    emit(body(value));
}

fn body(value: &Tensor) -> String {
    match settings().format {
        PrintFormat::Nested => format_value(value),
        PrintFormat::Dense => format_value_dense(value),
    }
}

fn emit(text: String) {
    let settings = settings();
    match settings.sink {
        Some(sink) => sink(&text),
        None => {
            let mut out = std::io::stdout().lock();
            // A closed stdout is not the program's error; the value was computed.
            let _ = writeln!(out, "{text}");
        }
    }
}
