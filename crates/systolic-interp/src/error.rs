//! Interpreter errors: they name the op, where it is, and what went wrong.

use std::fmt;
use systolic_ir::Span;

/// Why an evaluation failed.
#[derive(Clone, Debug, PartialEq)]
pub struct InterpError {
    /// The op that failed (`stablehlo.gather`), if known.
    pub op: Option<String>,
    /// The function it is in.
    pub func: Option<String>,
    /// Where it is in the source.
    pub span: Option<Span>,
    /// What went wrong.
    pub message: String,
}

impl InterpError {
    /// An error with a message only; the evaluator adds the op, function and place.
    pub fn new(message: impl Into<String>) -> Self {
        InterpError {
            op: None,
            func: None,
            span: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = &self.span {
            write!(f, "{s}: ")?;
        }
        f.write_str("error: ")?;
        if let Some(func) = &self.func {
            write!(f, "in @{func}: ")?;
        }
        if let Some(op) = &self.op {
            write!(f, "{op}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for InterpError {}

impl From<systolic_ir::WindowError> for InterpError {
    fn from(e: systolic_ir::WindowError) -> Self {
        InterpError::new(e.to_string())
    }
}

/// Shorthand for results of evaluation.
pub type Result<T> = std::result::Result<T, InterpError>;

/// Returns early with an [`InterpError`] built from a format string.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::error::InterpError::new(format!($($arg)*)))
    };
}
