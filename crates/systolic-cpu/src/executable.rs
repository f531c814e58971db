//! Compiling a module for the CPU and running it.

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::lower::{optimize, FallbackOp, Lowerer};
use crate::program::{Program, RtValue, ValueArg};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use systolic_compiler::passes::buffer_assignment::peak_memory_bytes;
use systolic_ir::{Module, Type};

/// How to compile.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The function to compile (default `main`).
    pub entry: String,
    /// Write the module after every pass to this directory (see
    /// [`systolic_compiler::PipelineOptions::dump_dir`]).
    pub dump_dir: Option<PathBuf>,
    /// Run the verifier after every pass.
    pub verify_each: bool,
    /// Run the optimisation pipeline (on by default). Off, every op of the module as written
    /// is lowered on its own — calls stay calls, nothing is fused: for debugging a pass, and
    /// for testing the kernels on unoptimised programs.
    pub optimize: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            entry: "main".to_string(),
            dump_dir: None,
            verify_each: false,
            optimize: true,
        }
    }
}

/// A compiled entry function: reusable, and shareable between threads.
#[derive(Debug)]
pub struct CpuExecutable {
    entry: String,
    program: Arc<Program>,
    result_types: Vec<Type>,
    fallback_ops: Vec<FallbackOp>,
    peak_memory_bytes: u64,
}

/// Compiles `options.entry` of `module`: runs the CPU pipeline on a copy, then lowers the entry
/// function (and the functions it calls) to kernels.
pub fn compile(module: &Module, options: &CompileOptions) -> Result<CpuExecutable> {
    let optimized = optimize(module, options)?;
    let executable = lower_optimized(&optimized, &options.entry)?;
    executable.log_fallbacks();
    Ok(executable)
}

/// Lowers `entry` of a module the CPU pipeline has already optimised (no passes run): what a
/// compile cache holding optimised modules does on a hit. Nothing is logged.
pub fn lower_optimized(optimized: &Module, entry: &str) -> Result<CpuExecutable> {
    let _span =
        systolic_trace::Span::lazy(systolic_trace::cat::LOWER, || format!("lower @{entry}"));
    let mut lowerer = Lowerer::new(optimized);
    let program = lowerer.lower_function(entry)?;
    let fallback_ops = lowerer.finish();
    let func = optimized.func(entry);
    let peak = func.map_or(0, peak_memory_bytes);
    if let Some(func) = func {
        check_memory_budget(func, peak)?;
    }
    Ok(CpuExecutable {
        entry: entry.to_string(),
        program,
        result_types: func.map(|f| f.result_types.clone()).unwrap_or_default(),
        fallback_ops,
        peak_memory_bytes: peak,
    })
}

/// Refuses a program whose planned peak (temporaries and results) exceeds the host memory
/// budget ([`systolic_ir::memory_budget`]) before it allocates anything, naming its largest
/// value: the CPU's `RESOURCE_EXHAUSTED`.
fn check_memory_budget(func: &systolic_ir::Func, peak: u64) -> Result<()> {
    systolic_ir::memory_budget::check(peak, || {
        let largest = func
            .body
            .blocks
            .iter()
            .flat_map(|b| &b.ops)
            .flat_map(|op| op.results.iter().map(move |&r| (op, r)))
            .filter_map(|(op, r)| {
                let ty = func.value_type(r).as_tensor()?;
                Some((ty.byte_size(), op, ty))
            })
            .max_by_key(|(bytes, _, _)| *bytes);
        let Some((bytes, op, ty)) = largest else {
            return format!("@{} (its temporaries and results as planned)", func.name);
        };
        let at = op.span.map_or(String::new(), |s| format!(" at {s}"));
        format!(
            "@{} (its temporaries and results as planned; the largest is {} of {ty}, {}{at})",
            func.name,
            op.kind.name(),
            systolic_ir::memory_budget::human_bytes(bytes as u64)
        )
    })
    .map_err(|e| CpuError::new(e.to_string()))
}

impl CpuExecutable {
    /// An executable from its lowered parts.
    pub(crate) fn from_parts(
        entry: String,
        program: Arc<Program>,
        result_types: Vec<Type>,
        fallback_ops: Vec<FallbackOp>,
        peak_memory_bytes: u64,
    ) -> CpuExecutable {
        CpuExecutable {
            entry,
            program,
            result_types,
            fallback_ops,
            peak_memory_bytes,
        }
    }

    /// The entry function's name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// The types the arguments must have.
    pub fn param_types(&self) -> &[Type] {
        self.program.input_types()
    }

    /// The types of the results.
    pub fn result_types(&self) -> &[Type] {
        &self.result_types
    }

    /// The ops that run on the interpreter fallback (each occurrence, in lowering order).
    pub fn fallback_ops(&self) -> &[FallbackOp] {
        &self.fallback_ops
    }

    /// The lowered entry program (for tools that list its kernels).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The bytes the compiled entry function needs for its temporaries and results, as
    /// buffer assignment planned them (values sharing a buffer once their lifetimes do not
    /// overlap; arguments and constants not counted).
    pub fn peak_memory_bytes(&self) -> u64 {
        self.peak_memory_bytes
    }

    /// Logs to stderr, once per process and op kind, the ops that run on the interpreter
    /// fallback (slow).
    pub fn log_fallbacks(&self) {
        static LOGGED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for op in &self.fallback_ops {
            *counts.entry(op.op.as_str()).or_default() += 1;
        }
        let mut logged = LOGGED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let new: Vec<String> = counts
            .iter()
            .filter(|(name, _)| logged.insert(name.to_string()))
            .map(|(name, n)| format!("{name} ×{n}"))
            .collect();
        if !new.is_empty() {
            eprintln!(
                "systolic: @{} runs on the interpreter fallback (slow): {}",
                self.entry,
                new.join(", ")
            );
        }
    }

    /// Runs with owned arguments: a kernel may update an argument in place at its last use.
    pub fn execute(&self, args: Vec<CpuBuffer>) -> Result<Vec<CpuBuffer>> {
        self.check_args(args.iter())?;
        let inputs = args
            .into_iter()
            .map(|b| ValueArg::Owned(RtValue::Buffer(b)))
            .collect();
        self.finish(self.program.execute(inputs)?)
    }

    /// Runs with borrowed arguments (never modified).
    pub fn execute_borrowed(&self, args: &[&CpuBuffer]) -> Result<Vec<CpuBuffer>> {
        self.check_args(args.iter().copied())?;
        let inputs = args.iter().map(|&b| ValueArg::Buffer(b)).collect();
        self.finish(self.program.execute(inputs)?)
    }

    /// Runs on values of any type (tuples and tokens included), checking their types.
    pub fn execute_values(&self, args: Vec<RtValue>) -> Result<Vec<RtValue>> {
        let params = self.param_types();
        self.check_count(args.len())?;
        for (i, (a, p)) in args.iter().zip(params).enumerate() {
            if !a.has_type(p) {
                return Err(self.arg_error(i, p, &a.ty()));
            }
        }
        self.program
            .execute(args.into_iter().map(ValueArg::Owned).collect())
    }

    fn check_count(&self, got: usize) -> Result<()> {
        let want = self.param_types().len();
        if want != got {
            return Err(CpuError::new(format!(
                "@{} expects {want} arguments, got {got}",
                self.entry
            )));
        }
        Ok(())
    }

    pub(crate) fn check_args<'b>(
        &self,
        args: impl ExactSizeIterator<Item = &'b CpuBuffer>,
    ) -> Result<()> {
        self.check_count(args.len())?;
        for (i, (a, p)) in args.zip(self.param_types()).enumerate() {
            if p.as_tensor() != Some(a.ty()) {
                return Err(self.arg_error(i, p, &Type::Tensor(a.ty().clone())));
            }
        }
        Ok(())
    }

    fn arg_error(&self, index: usize, expected: &Type, got: &Type) -> CpuError {
        CpuError::new(format!(
            "@{}: argument {index} must be {expected}, got {got}",
            self.entry
        ))
    }

    pub(crate) fn finish(&self, values: Vec<RtValue>) -> Result<Vec<CpuBuffer>> {
        values
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                RtValue::Buffer(b) => Ok(b),
                other => Err(CpuError::new(format!(
                    "@{}: result {i} has type {}, not a tensor (use execute_values)",
                    self.entry,
                    other.ty()
                ))),
            })
            .collect()
    }
}
