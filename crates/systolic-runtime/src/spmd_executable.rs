//! SPMD executables: one program for `num_replicas × num_partitions` processes, process `d` on
//! device `d` of the executable, all run at once with real collectives between them.
//!
//! The CPU backend's SPMD executable ([`systolic_cpu::SpmdExecutable`]) does the work: one
//! lowered program per process, each on a thread the executable keeps for its executions,
//! meeting at collectives that read each other's operands in place. On CPU devices that is
//! the whole story (every `cpu:k` shares the host's backend): [`SpmdExecutable::execute`]
//! hands the processes the devices' buffers as they are, without a copy. On the chips of a
//! simulated TPU slice the program was rewritten to TPU numerics before it was compiled, and
//! each execution also checks every chip's HBM and advances every chip's clock by its share of
//! the modelled step ([`crate::sim::slice`]).

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::{Result, RuntimeError};
use crate::executable::{check_args, CompileSource};
use crate::sim::slice::SpmdTpuProgram;
use crate::transfer::Transfers;
use std::sync::Arc;
use systolic_cpu::lower::FallbackOp;
use systolic_cpu::CpuBuffer;
use systolic_ir::{ProcessGrid, Type};

/// What the SPMD compile caches share: the CPU backend's executable of every process.
pub(crate) type CompiledSpmd = systolic_cpu::SpmdExecutable;

/// A program compiled for several devices, process `d` running on `devices()[d]`. Cloning
/// shares the compiled program. Made by [`Client::compile_spmd`](crate::Client::compile_spmd).
///
/// ```
/// use systolic_runtime::{Client, CompileOptions};
/// use systolic_ir::Tensor;
/// // Each of two devices holds half of a vector; all_gather gives both the whole.
/// let module = systolic_ir::text::parse_module(
///     r#"module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
///        func.func @main(%x: tensor<2xf32>) -> tensor<4xf32> {
///          %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
///              replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
///              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
///              use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
///          return %0 : tensor<4xf32>
///        }
///      }"#,
///     "gather",
/// ).unwrap();
/// let client = Client::cpu_devices(2);
/// let exe = client.compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache()).unwrap();
/// let halves = [vec![1.0, 2.0], vec![3.0, 4.0]];
/// let args: Vec<_> = exe.devices().iter().zip(halves)
///     .map(|(&d, h)| client.buffer_from_tensor(Tensor::from_f32(vec![2], h), d).unwrap())
///     .collect();
/// let out = exe.execute(&[vec![&args[0]], vec![&args[1]]]).unwrap();
/// for (d, results) in out.iter().enumerate() {
///     assert_eq!(results[0].device(), exe.devices()[d]);
///     assert_eq!(results[0].to_tensor().unwrap(), Tensor::from_f32(vec![4], vec![1.0, 2.0, 3.0, 4.0]));
/// }
/// ```
#[derive(Clone, Debug)]
pub struct SpmdExecutable {
    devices: Vec<Device>,
    compiled: Arc<CompiledSpmd>,
    source: CompileSource,
    /// On a simulated slice: the program's modelled cost on every chip.
    pub(crate) tpu: Option<Arc<SpmdTpuProgram>>,
    /// The client's transfer thread, for the outputs' device→host copies.
    transfers: Transfers,
}

impl SpmdExecutable {
    pub(crate) fn new(
        devices: Vec<Device>,
        compiled: Arc<CompiledSpmd>,
        source: CompileSource,
        transfers: Transfers,
    ) -> SpmdExecutable {
        SpmdExecutable {
            devices,
            compiled,
            source,
            tpu: None,
            transfers,
        }
    }

    /// The devices, one per process in process order (`replica * num_partitions +
    /// partition`).
    ///
    /// ```
    /// # use systolic_runtime::{Client, CompileOptions};
    /// # let module = systolic_ir::text::parse_module(
    /// #     r#"module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
    /// #        func.func @main(%x: tensor<2xf32>) -> tensor<4xf32> {
    /// #          %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
    /// #              replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    /// #              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
    /// #              use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    /// #          return %0 : tensor<4xf32>
    /// #        }
    /// #      }"#,
    /// #     "gather",
    /// # ).unwrap();
    /// let client = Client::cpu_devices(3);
    /// let devices = [client.devices()[2], client.devices()[0]];
    /// let exe = client.compile_spmd(&module, &devices, &CompileOptions::no_disk_cache()).unwrap();
    /// assert_eq!(exe.devices(), &devices);
    /// assert_eq!((exe.grid().replicas, exe.grid().partitions), (1, 2));
    /// assert_eq!(exe.entry(), "main");
    /// assert_eq!(exe.source(), systolic_runtime::CompileSource::Compiled);
    /// ```
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// The process grid (`mhlo.num_replicas × mhlo.num_partitions`).
    pub fn grid(&self) -> ProcessGrid {
        self.compiled.grid()
    }

    /// Whether it was compiled now or found in a cache.
    pub fn source(&self) -> CompileSource {
        self.source
    }

    /// The entry function's name.
    pub fn entry(&self) -> &str {
        self.first().entry()
    }

    fn first(&self) -> &systolic_cpu::CpuExecutable {
        // A grid has at least one process: `compile_spmd` refuses an empty one.
        &self.compiled.processes()[0]
    }

    /// The types each device's arguments must have (every process runs the same entry, on its
    /// own shard).
    ///
    /// ```
    /// # use systolic_runtime::{Client, CompileOptions};
    /// # let module = systolic_ir::text::parse_module(
    /// #     r#"module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
    /// #        func.func @main(%x: tensor<2xf32>) -> tensor<4xf32> {
    /// #          %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
    /// #              replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    /// #              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
    /// #              use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    /// #          return %0 : tensor<4xf32>
    /// #        }
    /// #      }"#,
    /// #     "gather",
    /// # ).unwrap();
    /// let client = Client::cpu_devices(2);
    /// let exe = client.compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache()).unwrap();
    /// assert_eq!(exe.param_types()[0].to_string(), "tensor<2xf32>");
    /// assert_eq!(exe.result_types()[0].to_string(), "tensor<4xf32>");
    /// assert!(exe.peak_memory_bytes() >= 16); // each device's gathered result
    /// assert!(exe.fallback_ops().is_empty());
    /// assert!(exe.tpu_cost().is_none());
    /// ```
    pub fn param_types(&self) -> &[Type] {
        self.first().param_types()
    }

    /// The types of each device's results.
    pub fn result_types(&self) -> &[Type] {
        self.first().result_types()
    }

    /// The ops that run on the interpreter fallback (in every process).
    pub fn fallback_ops(&self) -> &[FallbackOp] {
        self.first().fallback_ops()
    }

    /// The bytes one device needs for its temporaries and results, as the compiler's buffer
    /// assignment planned them: the largest over the devices.
    pub fn peak_memory_bytes(&self) -> u64 {
        self.compiled
            .processes()
            .iter()
            .map(|p| p.peak_memory_bytes())
            .max()
            .unwrap_or(0)
    }

    /// On a simulated slice, the modelled cost of one execution: each chip's time, the
    /// collectives, one chip's HBM peak (`None` on CPU devices).
    pub fn tpu_cost(&self) -> Option<&SpmdTpuProgram> {
        self.tpu.as_deref()
    }

    /// True when both handles share one compiled program (a cache hit returns such a handle).
    pub fn same_program(&self, other: &SpmdExecutable) -> bool {
        Arc::ptr_eq(&self.compiled, &other.compiled)
    }

    /// Runs every process on its arguments, `args[d]` on `devices()[d]`, leaving them valid;
    /// waits for pending transfers first. Returns each device's results (`[device][result]`),
    /// on that device and ready.
    ///
    /// The arguments are borrowed, not copied: the processes read the buffers' data in place
    /// ([`systolic_cpu::SpmdExecutable::execute_refs`]).
    pub fn execute(&self, args: &[Vec<&Buffer>]) -> Result<Vec<Vec<Buffer>>> {
        self.check(args.len(), |d| args[d].iter().copied())?;
        let data: Vec<Vec<Arc<CpuBuffer>>> = self.per_device(|d, device| {
            args[d]
                .iter()
                .enumerate()
                .map(|(i, b)| b.data(self.place(i, device)))
                .collect()
        })?;
        let refs: Vec<Vec<&CpuBuffer>> = data
            .iter()
            .map(|a| a.iter().map(Arc::as_ref).collect())
            .collect();
        let span = self.span();
        let memory = crate::buffer::enter_memory(&self.devices);
        let results = self.compiled.execute_refs(&refs);
        drop(memory);
        drop(span);
        self.finish(results)
    }

    /// Runs every process on its arguments, donating them: their memory may hold the outputs,
    /// and every handle to them reports them as donated afterwards. A buffer given twice (on
    /// any device) is an error, and a call that fails its checks donates nothing.
    ///
    /// ```
    /// # use systolic_runtime::{Client, CompileOptions};
    /// # let module = systolic_ir::text::parse_module(
    /// #     r#"module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
    /// #        func.func @main(%x: tensor<2xf32>) -> tensor<4xf32> {
    /// #          %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
    /// #              replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    /// #              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
    /// #              use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    /// #          return %0 : tensor<4xf32>
    /// #        }
    /// #      }"#,
    /// #     "gather",
    /// # ).unwrap();
    /// # use systolic_ir::Tensor;
    /// let client = Client::cpu_devices(2);
    /// let exe = client.compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache()).unwrap();
    /// let args: Vec<Vec<_>> = exe.devices().iter().enumerate()
    ///     .map(|(d, &device)| {
    ///         let t = Tensor::from_f32(vec![2], vec![d as f32, 0.5]);
    ///         vec![client.buffer_from_tensor(t, device).unwrap()]
    ///     })
    ///     .collect();
    /// let out = exe.execute_donating(args.clone()).unwrap();
    /// assert!(args[0][0].is_donated() && args[1][0].is_donated());
    /// assert_eq!(out[1][0].to_tensor().unwrap(), Tensor::from_f32(vec![4], vec![0.0, 0.5, 1.0, 0.5]));
    /// ```
    pub fn execute_donating(&self, args: Vec<Vec<Buffer>>) -> Result<Vec<Vec<Buffer>>> {
        self.check(args.len(), |d| args[d].iter())?;
        let all: Vec<(usize, usize, &Buffer)> = args
            .iter()
            .enumerate()
            .flat_map(|(d, a)| a.iter().enumerate().map(move |(i, b)| (d, i, b)))
            .collect();
        for (k, &(d, i, b)) in all.iter().enumerate() {
            if let Some(&(e, j, _)) = all[..k].iter().find(|(_, _, c)| c.same_buffer(b)) {
                return Err(self.on_device(
                    d,
                    RuntimeError::Execute {
                        entry: self.entry().to_string(),
                        message: format!(
                            "argument {i} is the buffer given as argument {j} of device {e} \
                             ({}); a donated buffer can be given once",
                            b.describe()
                        ),
                    },
                ));
            }
            // Fail before anything is taken, so that a bad call donates nothing.
            b.block_until_ready()
                .and_then(|()| b.data(self.place(i, self.devices[d])).map(|_| ()))
                .map_err(|e| self.on_device(d, e))?;
        }
        let inputs = self.per_device(|d, device| {
            args[d]
                .iter()
                .enumerate()
                .map(|(i, b)| b.take_donated(self.place(i, device)))
                .collect()
        })?;
        self.run(inputs)
    }

    /// `: argument 2 of @main on cpu:1`, for errors of one argument.
    fn place(&self, index: usize, device: Device) -> String {
        format!(": argument {index} of @{} on {device}", self.entry())
    }

    /// `error` as one of device `d`'s.
    fn on_device(&self, d: usize, error: RuntimeError) -> RuntimeError {
        RuntimeError::OnDevice {
            device: self.devices[d].to_string(),
            position: d,
            error: Box::new(error),
        }
    }

    /// `f` of every device, in order; the first error names its device.
    fn per_device<T>(&self, f: impl Fn(usize, Device) -> Result<T>) -> Result<Vec<T>> {
        self.devices
            .iter()
            .enumerate()
            .map(|(d, &device)| f(d, device).map_err(|e| self.on_device(d, e)))
            .collect()
    }

    /// Checks the number of argument lists (`lists`) and each device's arguments (`args(d)`),
    /// then, on a simulated slice, every chip's HBM.
    fn check<'b, I>(&self, lists: usize, args: impl Fn(usize) -> I) -> Result<()>
    where
        I: ExactSizeIterator<Item = &'b Buffer>,
    {
        if lists != self.devices.len() {
            return Err(RuntimeError::DeviceCount {
                entry: self.entry().to_string(),
                expected: self.devices.len(),
                got: lists,
            });
        }
        let processes = self.compiled.processes();
        self.per_device(|d, device| {
            check_args(self.entry(), processes[d].param_types(), device, args(d))
        })?;
        match &self.tpu {
            Some(program) => program.check_hbm(self.entry(), &self.devices),
            None => Ok(()),
        }
    }

    /// Runs the processes on their checked inputs; each device's results become its buffers,
    /// and a simulated slice's clocks advance.
    fn run(&self, inputs: Vec<Vec<CpuBuffer>>) -> Result<Vec<Vec<Buffer>>> {
        let span = self.span();
        let memory = crate::buffer::enter_memory(&self.devices);
        let results = self.compiled.execute(inputs);
        drop(memory);
        drop(span);
        self.finish(results)
    }

    /// The trace span of one execution on every device, on the calling thread (each
    /// process's program and kernels are spans of its own thread inside it).
    fn span(&self) -> systolic_trace::Span {
        systolic_trace::Span::lazy(systolic_trace::cat::EXECUTE, || {
            format!(
                "execute @{} on {} devices",
                self.entry(),
                self.devices.len()
            )
        })
    }

    /// Each device's results as its buffers, or the execution's error; a simulated slice's
    /// clocks advance.
    fn finish(
        &self,
        results: systolic_cpu::Result<Vec<Vec<CpuBuffer>>>,
    ) -> Result<Vec<Vec<Buffer>>> {
        let results = results.map_err(|e| RuntimeError::Execute {
            entry: self.entry().to_string(),
            message: e.to_string(),
        })?;
        let outputs = results
            .into_iter()
            .zip(&self.devices)
            .map(|(values, &device)| {
                values
                    .into_iter()
                    .map(|b| Buffer::ready(b, device, self.transfers.clone()))
                    .collect()
            })
            .collect();
        if let Some(program) = &self.tpu {
            program.advance_clocks(&self.devices);
        }
        Ok(outputs)
    }
}
