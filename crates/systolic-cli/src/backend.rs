//! Backends a program can run on: the compiled CPU backend (through the runtime, with its
//! compile cache) and the reference interpreter, behind one [`Executable`] interface so that
//! `run`, the tour and the benchmarks do not depend on which one runs.

use crate::error::CliError;
use std::path::PathBuf;
use systolic_cpu::CpuBuffer;
use systolic_interp::{Interpreter, Value};
use systolic_ir::{Module, Tensor};
use systolic_runtime::{Buffer, Client, CompileOptions, CompileSource, DiskCacheDir, RuntimeError};

/// A backend the CLI knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Compiled for the host CPU: passes, fused kernels, the compile cache.
    Cpu,
    /// The reference interpreter: exact and slow.
    Interp,
}

/// Backends that are planned but not built yet, so that asking for one gets a clear answer.
const PLANNED: &[&str] = &["gpu"];
/// The names of the backends there are.
const AVAILABLE: &str = "cpu, interp";

/// How to prepare a program, beyond which function.
#[derive(Clone, Debug, Default)]
pub struct PrepareOptions {
    /// Write the module after every compiler pass here (`cpu` only).
    pub dump_dir: Option<PathBuf>,
    /// The disk compile cache (`cpu` only); `None` falls back on `SYSTOLIC_CACHE_DIR`.
    pub cache_dir: Option<PathBuf>,
}

impl Backend {
    /// Looks a backend up by its command-line name.
    pub fn from_name(name: &str) -> Result<Backend, CliError> {
        match name {
            "cpu" => Ok(Backend::Cpu),
            "interp" => Ok(Backend::Interp),
            n if n == "tpu" || n.starts_with("tpu:") => Err(CliError::msg(format!(
                "backend '{n}': TPUs are simulated; run the program on one with `systolic \
                 simulate FILE --chip CHIP --input …` (TPU numerics, modelled time); `run` \
                 takes: {AVAILABLE}"
            ))),
            n if PLANNED.contains(&n) => Err(CliError::msg(format!(
                "backend '{n}' is not available yet (available: {AVAILABLE})"
            ))),
            n => Err(CliError::msg(format!(
                "unknown backend '{n}' (available: {AVAILABLE}; planned: {})",
                PLANNED.join(", ")
            ))),
        }
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Interp => "interp",
        }
    }

    /// Prepares `entry` of `module` to run (compiling it for `cpu`). `file` names the program
    /// in errors.
    pub fn prepare<'m>(
        self,
        module: &'m Module,
        entry: &str,
        file: &str,
        options: &PrepareOptions,
    ) -> Result<Box<dyn Executable + 'm>, CliError> {
        match self {
            Backend::Cpu => Ok(Box::new(CpuExecutable::compile(
                module, entry, file, options,
            )?)),
            Backend::Interp => {
                no_compiler_options_for_interpreter(options)?;
                Ok(Box::new(InterpExecutable {
                    module,
                    entry: entry.to_string(),
                    file: file.to_string(),
                    inputs: vec![],
                    outputs: vec![],
                }))
            }
        }
    }
}

/// A program ready to run on some backend. Inputs are placed on the device once
/// ([`Executable::put_inputs`]) and each [`Executable::execute`] runs on them, so that timed
/// runs measure the program and not the transfers. Inputs and outputs are host arrays in
/// native element types ([`CpuBuffer`]): what `.npy` files hold and the CPU backend runs on.
pub trait Executable {
    /// Places `inputs` (already checked against the parameter types) on the device and waits
    /// until they are there.
    fn put_inputs(&mut self, inputs: Vec<CpuBuffer>) -> Result<(), CliError>;

    /// Runs once on the placed inputs, keeping the outputs on the device.
    fn execute(&mut self) -> Result<(), CliError>;

    /// The outputs of the last [`Executable::execute`], copied to the host.
    fn outputs(&mut self) -> Result<Vec<CpuBuffer>, CliError>;

    /// Where the compiled program came from (`compiled`, `memory cache`, `disk cache`), for
    /// backends that compile.
    fn compile_source(&self) -> Option<&'static str> {
        None
    }

    /// The bytes the program needs beyond its arguments, as the compiler's buffer assignment
    /// planned them, for backends that compile.
    fn peak_memory_bytes(&self) -> Option<u64> {
        None
    }

    /// The devices (processes) the program runs on.
    fn devices(&self) -> usize {
        1
    }

    /// The most memory one device holds at once (its arguments, planned temporaries and
    /// results), for compiled programs on several devices.
    fn device_memory_bytes(&self) -> Option<u64> {
        None
    }

    /// Remarks worth showing before the run (ops on the interpreter fallback).
    fn notes(&self) -> Vec<String> {
        vec![]
    }

    /// Runs `rounds` more times on the placed inputs with every kernel timed, for backends
    /// that can.
    fn profile(&mut self, _rounds: usize) -> Result<systolic_runtime::Profile, CliError> {
        Err(CliError::msg(
            "--profile needs a compiled backend (--backend cpu); the interpreter has no kernels",
        ))
    }

    /// Places `inputs`, runs once and returns the outputs, as exact tensors (for callers
    /// comparing with reference values, such as the tour's checks against JAX).
    fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, CliError> {
        self.put_inputs(inputs.iter().map(CpuBuffer::from_tensor).collect())?;
        self.execute()?;
        Ok(self.outputs()?.iter().map(CpuBuffer::to_tensor).collect())
    }
}

/// A program compiled by the runtime for `cpu:0`.
struct CpuExecutable {
    client: Client,
    executable: systolic_runtime::Executable,
    file: String,
    inputs: Vec<Buffer>,
    outputs: Vec<Buffer>,
}

impl CpuExecutable {
    fn compile(
        module: &Module,
        entry: &str,
        file: &str,
        options: &PrepareOptions,
    ) -> Result<CpuExecutable, CliError> {
        let client = Client::cpu();
        let compile_options = CompileOptions {
            cpu: systolic_cpu::CompileOptions {
                entry: entry.to_string(),
                dump_dir: options.dump_dir.clone(),
                ..Default::default()
            },
            disk_cache: match &options.cache_dir {
                Some(dir) => DiskCacheDir::Dir(dir.clone()),
                None => DiskCacheDir::FromEnv,
            },
            device: None,
            // `notes` reports them on stdout: stderr is for the one line of an error.
            log_fallbacks: false,
        };
        let executable = client
            .compile(module, &compile_options)
            .map_err(|e| runtime_error(file, e))?;
        Ok(CpuExecutable {
            client,
            executable,
            file: file.to_string(),
            inputs: vec![],
            outputs: vec![],
        })
    }
}

impl Executable for CpuExecutable {
    fn put_inputs(&mut self, inputs: Vec<CpuBuffer>) -> Result<(), CliError> {
        let device = self.executable.device();
        let buffers = inputs
            .into_iter()
            .map(|b| self.client.buffer_from_host(b, device))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| runtime_error(&self.file, e))?;
        for b in &buffers {
            b.block_until_ready()
                .map_err(|e| runtime_error(&self.file, e))?;
        }
        self.inputs = buffers;
        Ok(())
    }

    fn execute(&mut self) -> Result<(), CliError> {
        let args: Vec<&Buffer> = self.inputs.iter().collect();
        // Free the previous outputs first, as a training loop would.
        self.outputs.clear();
        self.outputs = self
            .executable
            .execute(&args)
            .map_err(|e| runtime_error(&self.file, e))?;
        Ok(())
    }

    fn outputs(&mut self) -> Result<Vec<CpuBuffer>, CliError> {
        self.outputs
            .iter()
            .map(|b| b.to_cpu_buffer().map_err(|e| runtime_error(&self.file, e)))
            .collect()
    }

    fn notes(&self) -> Vec<String> {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for op in self.executable.fallback_ops() {
            *counts.entry(op.op.as_str()).or_default() += 1;
        }
        if counts.is_empty() {
            return vec![];
        }
        let ops: Vec<String> = counts.iter().map(|(op, n)| format!("{op} ×{n}")).collect();
        vec![format!(
            "note: on the interpreter fallback (slow): {}",
            ops.join(", ")
        )]
    }

    fn profile(&mut self, rounds: usize) -> Result<systolic_runtime::Profile, CliError> {
        let args: Vec<&Buffer> = self.inputs.iter().collect();
        self.executable
            .profile_rounds(&args, rounds)
            .map_err(|e| runtime_error(&self.file, e))
    }

    fn peak_memory_bytes(&self) -> Option<u64> {
        Some(self.executable.peak_memory_bytes())
    }

    fn compile_source(&self) -> Option<&'static str> {
        Some(match self.executable.source() {
            CompileSource::Compiled => "compiled",
            CompileSource::MemoryCache => "memory cache",
            CompileSource::DiskCache => "disk cache",
        })
    }
}

/// `--dump-dir` asks for the compiler's passes and `--cache-dir` for its cache, neither of
/// which the interpreter has: both are refused alike rather than one ignored.
pub(crate) fn no_compiler_options_for_interpreter(
    options: &PrepareOptions,
) -> Result<(), CliError> {
    if options.dump_dir.is_some() {
        return Err(CliError::msg(
            "--dump-dir needs a compiling backend (--backend cpu); the interpreter runs no passes",
        ));
    }
    if options.cache_dir.is_some() {
        return Err(CliError::msg(
            "--cache-dir needs a compiling backend (--backend cpu); the interpreter compiles \
             nothing to cache",
        ));
    }
    Ok(())
}

/// One line for an error led by the program's file; messages that carry a source position
/// read `file:line:col: error: op: …`.
pub(crate) fn located_error(file: &str, message: &str) -> CliError {
    if message.starts_with(|c: char| c.is_ascii_digit()) {
        CliError::located(format!("{file}:{message}"))
    } else {
        CliError::located(format!("{file}: {message}"))
    }
}

/// One line for a runtime error, led by the program's file ([`located_error`]).
fn runtime_error(file: &str, e: RuntimeError) -> CliError {
    match &e {
        RuntimeError::Compile(message) => located_error(file, message),
        RuntimeError::Execute { message, .. } => located_error(file, message),
        _ => CliError::msg(format!("{file}: {e}")),
    }
}

/// The interpreter needs no preparation: each run walks the module afresh.
struct InterpExecutable<'m> {
    module: &'m Module,
    entry: String,
    file: String,
    inputs: Vec<Tensor>,
    outputs: Vec<Tensor>,
}

impl Executable for InterpExecutable<'_> {
    fn put_inputs(&mut self, inputs: Vec<CpuBuffer>) -> Result<(), CliError> {
        self.inputs = inputs.iter().map(CpuBuffer::to_tensor).collect();
        Ok(())
    }

    fn execute(&mut self) -> Result<(), CliError> {
        let mut interp = Interpreter::new(self.module);
        let args = self.inputs.iter().cloned().map(Value::Tensor).collect();
        let results = interp
            .call(&self.entry, args)
            .map_err(|e| CliError::located(format!("{}:{e}", self.file)))?;
        self.outputs = results
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                let ty = v.ty();
                v.into_tensor().ok_or_else(|| {
                    CliError::msg(format!(
                        "{}: result {i} of @{} is {ty}, not a tensor; only tensor results can \
                         be returned",
                        self.file, self.entry
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    fn outputs(&mut self) -> Result<Vec<CpuBuffer>, CliError> {
        Ok(self.outputs.iter().map(CpuBuffer::from_tensor).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_by_name_and_planned_ones_explained() {
        assert_eq!(Backend::from_name("cpu"), Ok(Backend::Cpu));
        assert_eq!(Backend::from_name("interp"), Ok(Backend::Interp));
        let err = Backend::from_name("tpu").unwrap_err().to_string();
        assert!(
            err.contains("systolic simulate FILE --chip CHIP")
                && err.contains("`run` takes: cpu, interp"),
            "{err}"
        );
        let err = Backend::from_name("gpu").unwrap_err().to_string();
        assert_eq!(
            err,
            "error: backend 'gpu' is not available yet (available: cpu, interp)"
        );
        let err = Backend::from_name("fpga").unwrap_err().to_string();
        assert!(err.contains("unknown backend 'fpga'"), "{err}");
    }

    #[test]
    fn cpu_and_interp_agree_on_a_small_program() {
        let module = systolic_ir::text::parse_module(
            "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
               %0 = stablehlo.multiply %a, %a : tensor<3xf32>
               %1 = stablehlo.add %0, %a : tensor<3xf32>
               return %1 : tensor<3xf32>
             }",
            "t.mlir",
        )
        .unwrap();
        let input = Tensor::from_f32(vec![3], vec![1.0, -2.0, 0.5]);
        let options = PrepareOptions::default();
        let mut results = vec![];
        for backend in [Backend::Cpu, Backend::Interp] {
            let mut exe = backend
                .prepare(&module, "main", "t.mlir", &options)
                .unwrap();
            results.push(exe.run(std::slice::from_ref(&input)).unwrap());
        }
        assert_eq!(results[0], results[1]);
        assert_eq!(
            results[0][0],
            Tensor::from_f32(vec![3], vec![2.0, 2.0, 0.75])
        );
    }
}
