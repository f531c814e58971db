//! Executables: a compiled entry function bound to a device, run on device buffers.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::{Result, RuntimeError};
use crate::transfer::Transfers;
use std::sync::Arc;
use systolic_cpu::lower::FallbackOp;
use systolic_cpu::program::Program;
use systolic_cpu::{RtValue, ValueArg};
use systolic_ir::{Module, Type};

/// How an executable was obtained: compiled now, or found in a compile cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompileSource {
    /// The passes and the lowering ran.
    Compiled,
    /// The same program was compiled before by this client.
    MemoryCache,
    /// The optimised module came from the disk cache; only the lowering ran.
    DiskCache,
}

/// A lowered program with its signature: what the caches share (the CPU backend's executable,
/// which every device runs; a simulated TPU adds its modelled cost beside it).
pub(crate) type Compiled = systolic_cpu::CpuExecutable;

/// Lowers `entry` of an already optimised module (no passes run).
pub(crate) fn lower(optimized: &Module, entry: &str) -> Result<Compiled> {
    systolic_cpu::lower_optimized(optimized, entry)
        .map_err(|e| RuntimeError::Compile(e.to_string()))
}

/// Checks `args` against the parameters `params` of `entry` running on `device`: their
/// number, each one's device and type.
pub(crate) fn check_args<'b>(
    entry: &str,
    params: &[Type],
    device: Device,
    args: impl ExactSizeIterator<Item = &'b Buffer>,
) -> Result<()> {
    if args.len() != params.len() {
        return Err(RuntimeError::ArgumentCount {
            entry: entry.to_string(),
            expected: params.len(),
            got: args.len(),
        });
    }
    for (index, (arg, param)) in args.zip(params).enumerate() {
        if arg.device() != device {
            return Err(RuntimeError::WrongDevice {
                entry: entry.to_string(),
                index,
                expected: device.to_string(),
                got: arg.device().to_string(),
            });
        }
        if param.as_tensor() != Some(arg.ty()) {
            return Err(RuntimeError::ArgumentType {
                entry: entry.to_string(),
                index,
                expected: param.to_string(),
                got: Type::Tensor(arg.ty().clone()).to_string(),
            });
        }
    }
    Ok(())
}

/// A compiled entry function for one device. Cloning shares the compiled program.
///
/// ```
/// use systolic_runtime::{Client, CompileOptions};
/// use systolic_ir::Tensor;
/// let module = systolic_ir::text::parse_module(
///     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
///        %0 = stablehlo.multiply %a, %a : tensor<2xf32>
///        return %0 : tensor<2xf32>
///      }",
///     "square",
/// ).unwrap();
/// let client = Client::cpu();
/// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
/// let a = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![3.0, -2.0]), exe.device()).unwrap();
/// let out = exe.execute(&[&a]).unwrap();
/// assert_eq!(out[0].to_tensor().unwrap(), Tensor::from_f32(vec![2], vec![9.0, 4.0]));
/// ```
#[derive(Clone, Debug)]
pub struct Executable {
    device: Device,
    compiled: Arc<Compiled>,
    source: CompileSource,
    /// On a simulated TPU: the program's modelled cost (see `sim/mod.rs`).
    pub(crate) tpu: Option<Arc<crate::sim::TpuProgram>>,
    /// The client's transfer thread, for the outputs' device→host copies.
    transfers: Transfers,
}

impl Executable {
    pub(crate) fn new(
        device: Device,
        compiled: Arc<Compiled>,
        source: CompileSource,
        transfers: Transfers,
    ) -> Self {
        Executable {
            device,
            compiled,
            source,
            tpu: None,
            transfers,
        }
    }

    /// The entry function's name.
    pub fn entry(&self) -> &str {
        self.compiled.entry()
    }

    /// The device it runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Whether it was compiled now or found in a cache.
    pub fn source(&self) -> CompileSource {
        self.source
    }

    /// The types the arguments must have.
    pub fn param_types(&self) -> &[Type] {
        self.compiled.param_types()
    }

    /// The types of the results.
    pub fn result_types(&self) -> &[Type] {
        self.compiled.result_types()
    }

    /// The ops that run on the interpreter fallback.
    pub fn fallback_ops(&self) -> &[FallbackOp] {
        self.compiled.fallback_ops()
    }

    /// The lowered program (for tools that list its kernels).
    pub fn program(&self) -> &Program {
        self.compiled.program()
    }

    /// The bytes the program needs for its temporaries and results, as the compiler's buffer
    /// assignment planned them (arguments and constants not counted).
    pub fn peak_memory_bytes(&self) -> u64 {
        self.compiled.peak_memory_bytes()
    }

    /// True when both handles share one compiled program (a cache hit returns such a handle).
    pub fn same_program(&self, other: &Executable) -> bool {
        Arc::ptr_eq(&self.compiled, &other.compiled)
    }

    /// Runs on `args`, leaving them valid; waits for pending transfers first. The outputs are
    /// ready when this returns.
    pub fn execute(&self, args: &[&Buffer]) -> Result<Vec<Buffer>> {
        self.check_args(args.iter().copied())?;
        self.check_hbm()?;
        let data = args
            .iter()
            .enumerate()
            .map(|(i, b)| b.data(self.place(i)))
            .collect::<Result<Vec<_>>>()?;
        let inputs = data.iter().map(|d| ValueArg::Buffer(d.as_ref())).collect();
        let ready = inputs_ready_s(args.iter().copied());
        let span = self.span();
        let memory = crate::buffer::enter_memory(&[self.device]);
        let outputs = self.finish(self.compiled.program().execute(inputs));
        drop(memory);
        drop(span);
        self.advance_clock(&outputs, ready);
        outputs
    }

    /// Runs on `args`, donating them: their memory may hold the outputs, and every handle to
    /// them reports them as donated afterwards. A buffer given twice is an error.
    pub fn execute_donating(&self, args: Vec<Buffer>) -> Result<Vec<Buffer>> {
        let all = vec![true; args.len()];
        self.execute_donating_some(args, &all)
    }

    /// Runs on `args`, donating those `donate` marks (JAX's `donate_argnums`) and borrowing the
    /// rest: a donated argument's data is moved into the execution (copied if another
    /// execution still reads it), where the executor may write a result into it, and every
    /// handle to it reports it as donated afterwards. A donated buffer given twice (or also
    /// borrowed) is an error; a call that fails its checks donates nothing.
    ///
    /// ```
    /// use systolic_runtime::{Client, CompileOptions};
    /// use systolic_ir::Tensor;
    /// let module = systolic_ir::text::parse_module(
    ///     "func.func @main(%w: tensor<2xf32>, %g: tensor<2xf32>) -> tensor<2xf32> {
    ///        %0 = stablehlo.subtract %w, %g : tensor<2xf32>
    ///        return %0 : tensor<2xf32>
    ///      }",
    ///     "step",
    /// ).unwrap();
    /// let client = Client::cpu();
    /// let dev = client.device("cpu:0").unwrap();
    /// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
    /// let w = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![3.0, 4.0]), dev).unwrap();
    /// let g = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![1.0, 1.0]), dev).unwrap();
    /// let out = exe.execute_donating_some(vec![w.clone(), g.clone()], &[true, false]).unwrap();
    /// assert_eq!(out[0].to_tensor().unwrap(), Tensor::from_f32(vec![2], vec![2.0, 3.0]));
    /// assert!(w.is_donated() && !g.is_donated());
    /// ```
    pub fn execute_donating_some(&self, args: Vec<Buffer>, donate: &[bool]) -> Result<Vec<Buffer>> {
        self.check_args(args.iter())?;
        self.check_hbm()?;
        let donated = |i: usize| donate.get(i).copied().unwrap_or(false);
        for (i, a) in args.iter().enumerate() {
            let twice = args[..i]
                .iter()
                .enumerate()
                .position(|(j, b)| (donated(i) || donated(j)) && b.same_buffer(a));
            if let Some(j) = twice {
                return Err(RuntimeError::Execute {
                    entry: self.entry().to_string(),
                    message: format!(
                        "arguments {j} and {i} are the same buffer ({}); a donated buffer can \
                         be given once",
                        a.describe()
                    ),
                });
            }
            // Fail before anything is taken, so that a bad call donates nothing.
            a.block_until_ready()
                .and_then(|()| a.data(self.place(i)).map(|_| ()))?;
        }
        let ready = inputs_ready_s(args.iter());
        let mut kept = Vec::with_capacity(args.len());
        let mut owned = Vec::with_capacity(args.len());
        for (i, b) in args.iter().enumerate() {
            if donated(i) {
                owned.push(Some(b.take_donated(self.place(i))?));
                kept.push(None);
            } else {
                owned.push(None);
                kept.push(Some(b.data(self.place(i))?));
            }
        }
        let inputs = owned
            .into_iter()
            .zip(&kept)
            .map(|(o, k)| match (o, k) {
                (Some(b), _) => ValueArg::Owned(RtValue::Buffer(b)),
                (None, Some(d)) => ValueArg::Buffer(d.as_ref()),
                (None, None) => unreachable!("every argument is donated or kept"),
            })
            .collect();
        let span = self.span();
        let memory = crate::buffer::enter_memory(&[self.device]);
        let outputs = self.finish(self.compiled.program().execute(inputs));
        drop(memory);
        drop(span);
        self.advance_clock(&outputs, ready);
        outputs
    }

    /// The trace span of one execution, on the calling thread.
    fn span(&self) -> systolic_trace::Span {
        systolic_trace::Span::lazy(systolic_trace::cat::EXECUTE, || {
            format!("execute @{}", self.entry())
        })
        .with("device", self.device.to_string())
    }

    fn place(&self, index: usize) -> String {
        format!(": argument {index} of @{}", self.entry())
    }

    fn check_args<'b>(&self, args: impl ExactSizeIterator<Item = &'b Buffer>) -> Result<()> {
        check_args(self.entry(), self.param_types(), self.device, args)
    }

    fn finish(&self, results: systolic_cpu::Result<Vec<RtValue>>) -> Result<Vec<Buffer>> {
        let entry = || self.entry().to_string();
        let results = results.map_err(|e| RuntimeError::Execute {
            entry: entry(),
            message: e.to_string(),
        })?;
        results
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                RtValue::Buffer(b) => Ok(Buffer::ready(b, self.device, self.transfers.clone())),
                other => Err(RuntimeError::Execute {
                    entry: entry(),
                    message: format!(
                        "result {i} has type {}; only tensor results can become buffers",
                        other.ty()
                    ),
                }),
            })
            .collect()
    }
}

/// When the last of `args` is on its simulated device (0 on the CPU): an execution there
/// starts no earlier.
fn inputs_ready_s<'b>(args: impl Iterator<Item = &'b Buffer>) -> f64 {
    args.map(Buffer::sim_ready_s).fold(0.0, f64::max)
}
