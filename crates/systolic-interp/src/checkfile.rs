//! Runs interpreter-test files in the upstream StableHLO format: pieces separated by lines
//! `// -----`, each a module whose public argument-less functions call `check.expect_*` ops.
//!
//! Every piece is parsed, verified and run on its own, so one broken piece does not hide the
//! results of the others. Line numbers in messages are those of the whole file, so that they
//! point at the right place when the file is opened in an editor.

use crate::eval::Interpreter;
use crate::value::Value;
use std::fmt;
use systolic_ir::{Diagnostic, Span, Tensor, Type, Visibility};

/// How [`run_check_source_with`] runs a file, beyond the defaults of [`run_check_source`].
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Arguments for the functions that take parameters (the upstream interpreter's
    /// `--args`): each public function whose parameter types are these values' types is run
    /// with them, besides the argument-less ones.
    pub args: Vec<Tensor>,
    /// Print each function's results (the upstream interpreter's output) through the
    /// interpreter's print sink (`print_sink`), unlabelled.
    pub print_results: bool,
}

/// The outcome of one function of a check file (or of a piece that could not be run).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionReport {
    /// The function's name without `@`; for a piece that failed to parse or verify,
    /// `piece N` (1-based).
    pub name: String,
    /// 1-based line where the function (or the piece) starts in the whole file.
    pub line: u32,
    /// True when it ran to the end and every check passed.
    pub passed: bool,
    /// Why it failed: failed checks with expected and actual values, runtime or parse errors.
    pub messages: Vec<String>,
}

/// The outcome of a whole check file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CheckReport {
    /// The name the file was given.
    pub source_name: String,
    /// One entry per function run (and per piece that could not be run).
    pub functions: Vec<FunctionReport>,
}

impl CheckReport {
    /// Number of functions that passed.
    pub fn passed(&self) -> usize {
        self.functions.iter().filter(|f| f.passed).count()
    }

    /// Number of functions (or pieces) that failed.
    pub fn failed(&self) -> usize {
        self.functions.len() - self.passed()
    }

    /// True when nothing failed.
    pub fn all_passed(&self) -> bool {
        self.failed() == 0
    }
}

impl fmt::Display for CheckReport {
    /// One line per function (`PASS name` or `FAIL name`, failure messages indented below it),
    /// then `N passed, M failed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for func in &self.functions {
            let status = if func.passed { "PASS" } else { "FAIL" };
            writeln!(
                f,
                "{status} {}:{}: {}",
                self.source_name, func.line, func.name
            )?;
            for m in &func.messages {
                writeln!(f, "    {m}")?;
            }
        }
        write!(f, "{} passed, {} failed", self.passed(), self.failed())
    }
}

/// One piece of a check file: its text and the 0-based line it starts at.
struct Piece {
    text: String,
    first_line: u32,
}

/// Splits a file on lines that consist of `// -----` (surrounding blanks allowed).
fn split_pieces(src: &str) -> Vec<Piece> {
    let mut pieces = vec![];
    let mut current = String::new();
    let mut first_line = 0u32;
    for (n, line) in src.lines().enumerate() {
        if line.trim() == "// -----" {
            pieces.push(Piece {
                text: std::mem::take(&mut current),
                first_line,
            });
            first_line = n as u32 + 1;
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    pieces.push(Piece {
        text: current,
        first_line,
    });
    pieces
}

/// Moves a span of a piece to the line numbering of the whole file.
fn shift(span: Option<Span>, first_line: u32) -> Option<Span> {
    span.map(|s| Span {
        line: s.line + first_line,
        col: s.col,
    })
}

fn shifted_diagnostic(mut d: Diagnostic, first_line: u32) -> String {
    d.span = shift(d.span, first_line);
    d.to_string()
}

/// Parses, verifies and runs every piece of an interpreter-test file.
///
/// Every public function without parameters is called; it passes when it runs to its end and
/// all of its `check.*` ops pass.
pub fn run_check_source(src: &str, source_name: &str) -> CheckReport {
    run_check_source_with(src, source_name, &CheckOptions::default())
}

/// [`run_check_source`] with arguments for parameterised functions and printed results.
pub fn run_check_source_with(src: &str, source_name: &str, options: &CheckOptions) -> CheckReport {
    let mut report = CheckReport {
        source_name: source_name.to_string(),
        functions: vec![],
    };
    for (index, piece) in split_pieces(src).into_iter().enumerate() {
        if piece.text.trim().is_empty() {
            continue;
        }
        run_piece(&piece, index + 1, source_name, options, &mut report);
    }
    report
}

fn run_piece(
    piece: &Piece,
    number: usize,
    source_name: &str,
    options: &CheckOptions,
    report: &mut CheckReport,
) {
    // Name the piece by its first line with text, not by the blank line after a separator.
    let blank_lines = piece
        .text
        .lines()
        .take_while(|l| l.trim().is_empty())
        .count() as u32;
    let piece_failure = |messages: Vec<String>| FunctionReport {
        name: format!("piece {number}"),
        line: piece.first_line + blank_lines + 1,
        passed: false,
        messages,
    };
    let module = match systolic_ir::text::parse_module(&piece.text, source_name) {
        Ok(m) => m,
        Err(d) => {
            let msg = shifted_diagnostic(d, piece.first_line);
            report.functions.push(piece_failure(vec![msg]));
            return;
        }
    };
    if let Err(diags) = systolic_ir::verify::verify_module(&module) {
        let msgs = diags
            .into_iter()
            .map(|d| shifted_diagnostic(d, piece.first_line))
            .collect();
        report.functions.push(piece_failure(msgs));
        return;
    }
    for func in &module.funcs {
        if func.visibility != Visibility::Public {
            continue;
        }
        let params = func.params();
        let args = if params.is_empty() {
            vec![]
        } else {
            let types: Vec<Type> = params.iter().map(|&v| func.value_type(v).clone()).collect();
            let given: Vec<Type> = options
                .args
                .iter()
                .map(|t| Type::Tensor(t.ty().clone()))
                .collect();
            if types != given {
                continue;
            }
            options.args.iter().cloned().map(Value::Tensor).collect()
        };
        let mut interp = Interpreter::new(&module);
        let result = interp.call(&func.name, args);
        if let (true, Ok(values)) = (options.print_results, &result) {
            for v in values {
                if let Value::Tensor(t) = v {
                    crate::print_sink::print_result(t);
                }
            }
        }
        let mut messages = vec![];
        for check in interp.take_checks() {
            if let Some(why) = check.failure {
                let at = shift(check.span, piece.first_line)
                    .map(|s| format!("{source_name}:{s}: "))
                    .unwrap_or_default();
                messages.push(format!("{at}{} failed: {why}", check.op));
            }
        }
        if let Err(mut e) = result {
            e.span = shift(e.span, piece.first_line);
            messages.push(format!("{source_name}:{e}"));
        }
        report.functions.push(FunctionReport {
            name: func.name.clone(),
            line: shift(func.span, piece.first_line)
                .map(|s| s.line)
                .unwrap_or(piece.first_line + 1),
            passed: messages.is_empty(),
            messages,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_separator_lines() {
        let pieces = split_pieces("a\nb\n// -----\nc\n  // -----  \nd\n");
        let texts: Vec<&str> = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, vec!["a\nb\n", "c\n", "d\n"]);
        let lines: Vec<u32> = pieces.iter().map(|p| p.first_line).collect();
        assert_eq!(lines, vec![0, 3, 5]);
    }

    #[test]
    fn display_counts() {
        let report = CheckReport {
            source_name: "t.mlir".into(),
            functions: vec![
                FunctionReport {
                    name: "add".into(),
                    line: 1,
                    passed: true,
                    messages: vec![],
                },
                FunctionReport {
                    name: "sub".into(),
                    line: 9,
                    passed: false,
                    messages: vec!["expected 1, got 2".into()],
                },
            ],
        };
        assert_eq!(
            report.to_string(),
            "PASS t.mlir:1: add\nFAIL t.mlir:9: sub\n    expected 1, got 2\n1 passed, 1 failed"
        );
    }
}
