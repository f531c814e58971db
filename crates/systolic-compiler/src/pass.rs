//! The pass interface and the pass manager.
//!
//! A pass is an IR→IR function over a whole [`Module`], one per file under `passes/`. The manager
//! runs a pipeline, optionally verifies after every pass, and can dump the module after every pass
//! (like XLA's `--xla_dump_to`): `DIR/NN-<pass>.mlir`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use systolic_ir::text::print_module;
use systolic_ir::verify::verify_module;
use systolic_ir::{Diagnostic, Module};

/// One transformation of a module.
pub trait Pass: Send + Sync {
    /// A short name used in dumps and logs (`dce`, `cse`, `fusion`).
    fn name(&self) -> &'static str;

    /// Transforms the module in place; returns whether anything changed.
    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic>;
}

/// How the pass manager runs a pipeline.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Write the module after every pass to this directory as `NN-<pass>.mlir` (and the input as
    /// `00-input.mlir`).
    pub dump_dir: Option<PathBuf>,
    /// Run the verifier after every pass (on in tests; a failure names the pass).
    pub verify_each: bool,
}

/// Runs a list of passes in order.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    options: PipelineOptions,
}

impl PassManager {
    /// An empty pipeline.
    pub fn new(options: PipelineOptions) -> Self {
        PassManager {
            passes: vec![],
            options,
        }
    }

    /// Appends a pass.
    pub fn add(&mut self, pass: impl Pass + 'static) -> &mut Self {
        self.passes.push(Box::new(pass));
        self
    }

    /// The names of the passes, in order.
    pub fn pass_names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// The options.
    pub fn options(&self) -> &PipelineOptions {
        &self.options
    }

    /// The passes, in order.
    pub fn passes(&self) -> &[Box<dyn Pass>] {
        &self.passes
    }

    /// Runs every pass in order. With [`PipelineOptions::dump_dir`] the input is written as
    /// `00-input.mlir` and the module after pass `i` as `NN-<pass>.mlir` (NN = i + 1, two digits
    /// or more); with [`PipelineOptions::verify_each`] the verifier runs after every pass and its
    /// first complaint is returned, naming the pass that produced the broken module.
    pub fn run(&self, module: &mut Module) -> Result<(), Diagnostic> {
        self.run_with_report(module).map(|_| ())
    }

    /// Like [`PassManager::run`], and says per pass how long it took and whether it changed
    /// the module (for compile-time profiles; verification and dumps are not counted).
    pub fn run_with_report(&self, module: &mut Module) -> Result<Vec<PassReport>, Diagnostic> {
        let mut report = Vec::with_capacity(self.passes.len());
        if let Some(dir) = &self.options.dump_dir {
            std::fs::create_dir_all(dir).map_err(|e| {
                Diagnostic::new(format!(
                    "cannot create dump directory {}: {e}",
                    dir.display()
                ))
            })?;
            dump(dir, "00-input.mlir", module)?;
        }
        for (i, pass) in self.passes.iter().enumerate() {
            let name = pass.name();
            let _span = systolic_trace::Span::new(systolic_trace::cat::PASS, name);
            let start = Instant::now();
            let changed = pass.run(module).map_err(|mut d| {
                d.message = format!("in pass `{name}`: {}", d.message);
                d
            })?;
            report.push(PassReport {
                name,
                changed,
                duration: start.elapsed(),
            });
            if self.options.verify_each {
                if let Err(diags) = verify_module(module) {
                    let first = diags.into_iter().next().unwrap_or_else(|| {
                        Diagnostic::new("the verifier failed without saying why")
                    });
                    return Err(Diagnostic {
                        message: format!(
                            "the module is invalid after pass `{name}`: {}",
                            first.message
                        ),
                        ..first
                    });
                }
            }
            if let Some(dir) = &self.options.dump_dir {
                dump(dir, &format!("{:02}-{name}.mlir", i + 1), module)?;
            }
        }
        Ok(report)
    }
}

/// What one pass did in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassReport {
    /// The pass.
    pub name: &'static str,
    /// Whether it changed the module.
    pub changed: bool,
    /// How long it took.
    pub duration: Duration,
}

/// Writes the module's text to `dir/file`.
fn dump(dir: &Path, file: &str, module: &Module) -> Result<(), Diagnostic> {
    let path = dir.join(file);
    std::fs::write(&path, print_module(module))
        .map_err(|e| Diagnostic::new(format!("cannot write dump {}: {e}", path.display())))
}
