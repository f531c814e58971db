//! `systolic check`: run interpreter-test files (`check.expect_*` ops, pieces separated by
//! `// -----`) and report each function.

use crate::error::CliError;
use std::path::PathBuf;
use systolic_interp::checkfile::{run_check_source_with, CheckOptions, CheckReport};
use systolic_interp::print_sink::{self, PrintFormat, PrintSettings};
use systolic_ir::numerics::{self, Mode};

/// Arguments of `systolic check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Test files in the StableHLO interpreter-test form.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Float arithmetic: `xla` flushes f32/bf16/f64 subnormals to zero as XLA:CPU (and so
    /// JAX on a CPU) does; `spec` keeps them, as the StableHLO spec and its interpreter tests do.
    #[arg(long, value_enum, default_value_t = Numerics::Xla)]
    pub numerics: Numerics,
    /// Arguments for the functions that take parameters, as the upstream interpreter's
    /// `--args` writes them: `"[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]"`. Every
    /// public function whose parameter types match is run with them.
    #[arg(long)]
    pub args: Option<String>,
    /// Print each function's results, as the upstream interpreter does.
    #[arg(long)]
    pub print_results: bool,
    /// Print values (`interpreter.print`, results) as `dense<…> : type` attributes instead of
    /// nested lists (the upstream `--interpreter-print-dense`).
    #[arg(long)]
    pub print_dense: bool,
}

/// The `--numerics` choices (see [`systolic_ir::numerics::Mode`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numerics {
    /// XLA:CPU's: subnormals flushed to zero.
    Xla,
    /// The StableHLO spec's: subnormals kept.
    Spec,
}

impl Numerics {
    fn mode(self) -> Mode {
        match self {
            Numerics::Xla => Mode::XlaCpu,
            Numerics::Spec => Mode::Spec,
        }
    }
}

/// Runs every file; prints one line per function and the totals last. Returns whether all
/// passed (the caller turns a failure into exit status 1).
pub fn run(args: &CheckArgs) -> Result<bool, CliError> {
    let options = CheckOptions {
        args: match &args.args {
            Some(text) => systolic_ir::text::parse_tensor_list(text, "--args")
                .map_err(|e| CliError::located(e.to_string()))?,
            None => vec![],
        },
        print_results: args.print_results,
    };
    let printing = PrintSettings {
        sink: None,
        format: if args.print_dense {
            PrintFormat::Dense
        } else {
            PrintFormat::Nested
        },
    };
    let mut reports = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let name = path.display().to_string();
        let src = crate::program::read_source(path)?;
        reports.push(print_sink::with_settings(printing.clone(), || {
            numerics::with_mode(args.numerics.mode(), || {
                run_check_source_with(&src, &name, &options)
            })
        }));
    }
    for report in &reports {
        print_functions(report);
    }
    // A file with no function checked nothing: "0 passed, 0 failed" would read as success.
    let empty: Vec<&CheckReport> = reports.iter().filter(|r| r.functions.is_empty()).collect();
    for report in &empty {
        outln!(
            "FAIL {}: no functions, so nothing was checked",
            report.source_name
        );
    }
    let passed: usize = reports.iter().map(CheckReport::passed).sum();
    let failed: usize = reports.iter().map(CheckReport::failed).sum::<usize>() + empty.len();
    outln!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

fn print_functions(report: &CheckReport) {
    for func in &report.functions {
        let status = if func.passed { "PASS" } else { "FAIL" };
        outln!(
            "{status} {}:{}: {}",
            report.source_name,
            func.line,
            func.name
        );
        for m in &func.messages {
            outln!("    {m}");
        }
    }
}
