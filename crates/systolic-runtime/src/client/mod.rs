//! The client: devices, host→device transfers, and compilation through the caches.
//!
//! A client has the host CPU (`cpu:0`, always first; `cpu:0…N-1` with
//! [`Client::cpu_devices`]) and optionally simulated TPU chips (`tpu:v5e:0`, …; see
//! [`crate::sim`]): [`Client::with_tpus`] names independent chips, [`Client::with_slice`]
//! makes the chips of a slice, [`Client::with_default_tpus`] takes one of every chip whose
//! figures are published, and [`Client::from_env`] reads `SYSTOLIC_CPU_DEVICES` and
//! `SYSTOLIC_TPUS` (`devices.rs`). `spmd.rs` compiles SPMD programs for several devices.

mod devices;
mod serialized;
mod spmd;

pub use devices::{CPU_DEVICES_ENV, TPUS_ENV};
pub use serialized::{SerializedExecutable, EXECUTABLE_FORMAT};

use crate::buffer::Buffer;
use crate::cache_key::CacheKey;
use crate::device::Device;
use crate::disk_cache::{DiskCache, Lookup};
use crate::error::{Result, RuntimeError};
use crate::executable::{CompileSource, Compiled, Executable};
use crate::options::CompileOptions;
use crate::sim::slice::SpmdCostCache;
use crate::sim::{self, CostCache};
use crate::spmd_executable::CompiledSpmd;
use crate::transfer::{Job, TransferHold, Transfers};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use systolic_cpu::CpuBuffer;
use systolic_ir::{Module, Tensor, Type};

/// What the compile caches did for one client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Compilations that ran the passes.
    pub compiles: usize,
    /// Compilations answered from memory.
    pub memory_hits: usize,
    /// Compilations answered from disk (only the lowering ran).
    pub disk_hits: usize,
    /// Disk entries ignored as corrupt, truncated, foreign or unloadable.
    pub disk_rejected: usize,
    /// Disk entries written.
    pub disk_writes: usize,
    /// Disk entries that could not be written (logged; the compile still succeeds).
    pub disk_write_failures: usize,
}

struct Inner {
    devices: Vec<Device>,
    transfers: Transfers,
    memory: Mutex<HashMap<CacheKey, Arc<Compiled>>>,
    stats: Mutex<CacheStats>,
    costs: CostCache,
    spmd_memory: Mutex<HashMap<CacheKey, Arc<CompiledSpmd>>>,
    spmd_costs: SpmdCostCache,
}

/// A runtime client: owns the devices, the transfer thread and the in-memory compile cache.
/// Cloning gives another handle to the same client.
///
/// ```
/// let client = systolic_runtime::Client::cpu();
/// assert_eq!(client.devices().len(), 1);
/// assert_eq!(client.device("cpu:0").unwrap(), client.devices()[0]);
/// assert!(client.device("tpu:3").is_err());
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("devices", &self.inner.devices)
            .finish_non_exhaustive()
    }
}

impl Client {
    fn with_devices(devices: Vec<Device>) -> Client {
        Client {
            inner: Arc::new(Inner {
                devices,
                // Ends when the client and every buffer and executable of it are dropped.
                transfers: Transfers::start(),
                memory: Mutex::new(HashMap::new()),
                stats: Mutex::new(CacheStats::default()),
                costs: CostCache::default(),
                spmd_memory: Mutex::new(HashMap::new()),
                spmd_costs: SpmdCostCache::default(),
            }),
        }
    }

    /// Executions started from now on must end within `limit` (`None`: no limit); one past it
    /// stops between kernels (or between iterations of a `while`) with an error saying how
    /// far it got. The limit is process-wide ([`systolic_ir::deadline`]), shared by every
    /// client and thread.
    ///
    /// ```
    /// use std::time::Duration;
    /// use systolic_runtime::{Client, CompileOptions};
    /// let module = systolic_ir::text::parse_module(
    ///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {
    ///        %0 = stablehlo.while(%i = %x) : tensor<f32>
    ///        cond {
    ///          %t = stablehlo.constant dense<true> : tensor<i1>
    ///          stablehlo.return %t : tensor<i1>
    ///        } do {
    ///          stablehlo.return %i : tensor<f32>
    ///        }
    ///        return %0 : tensor<f32>
    ///      }",
    ///     "forever",
    /// ).unwrap();
    /// let client = Client::cpu();
    /// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
    /// let x = client.buffer_from_tensor(systolic_ir::Tensor::from_f32(vec![], vec![0.0]), exe.device()).unwrap();
    /// client.set_timeout(Some(Duration::from_millis(50)));
    /// let err = exe.execute(&[&x]).and_then(|outs| Ok(outs[0].to_tensor()?)).unwrap_err().to_string();
    /// client.set_timeout(None);
    /// assert!(err.contains("time limit of 50 ms") && err.contains("iterations"), "{err}");
    /// ```
    pub fn set_timeout(&self, limit: Option<std::time::Duration>) {
        systolic_ir::deadline::set_timeout(limit);
    }

    /// The devices, in index order.
    pub fn devices(&self) -> &[Device] {
        &self.inner.devices
    }

    /// The device named `name` (`cpu:0`, `tpu:v5p:3`; `tpu:v5e` is `tpu:v5e:0`).
    pub fn device(&self, name: &str) -> Result<Device> {
        let wanted = match systolic_tpu::TpuDevice::parse(name) {
            Ok(tpu) => tpu.to_string(),
            Err(_) => name.to_string(),
        };
        self.devices()
            .iter()
            .find(|d| d.to_string() == wanted)
            .copied()
            .ok_or_else(|| self.no_device(name))
    }

    fn no_device(&self, name: &str) -> RuntimeError {
        let available: Vec<String> = self.devices().iter().map(Device::to_string).collect();
        RuntimeError::NoDevice {
            name: name.to_string(),
            available: available.join(", "),
        }
    }

    fn check_device(&self, device: Device) -> Result<()> {
        if self.devices().contains(&device) {
            Ok(())
        } else {
            Err(self.no_device(&device.to_string()))
        }
    }

    /// Starts copying `tensor` to `device` and returns at once; the buffer becomes ready when
    /// the transfer thread has converted it to the device's layout.
    /// On a simulated TPU the copy takes HBM (failing when it does not fit) and costs PCIe
    /// time on the device's clock.
    pub fn buffer_from_tensor(&self, tensor: Tensor, device: Device) -> Result<Buffer> {
        self.check_device(device)?;
        let lease = self.transfer_in(tensor.ty(), device)?;
        let (buffer, completion) = Buffer::pending(
            tensor.ty().clone(),
            device,
            lease,
            self.inner.transfers.clone(),
        );
        let job: Job = Box::new(move || {
            let _span = crate::transfer::span(true, tensor.ty(), device);
            let converted = catch_unwind(AssertUnwindSafe(|| CpuBuffer::from_tensor(&tensor)))
                .map_err(|_| "converting the host array failed".to_string());
            completion.finish(converted);
        });
        self.inner.transfers.submit(job);
        Ok(buffer)
    }

    /// Test hook: holds the transfer thread before the next transfer queued from now on (in
    /// either direction) until the returned hold is dropped, so that a test can see a buffer
    /// or a host copy not ready yet — and then ready — without relying on timing. Waiting on
    /// a held transfer from the holding thread waits forever.
    ///
    /// ```
    /// let client = systolic_runtime::Client::cpu();
    /// let t = systolic_ir::Tensor::from_f32(vec![1], vec![7.0]);
    /// let hold = client.hold_transfers();
    /// let buffer = client.buffer_from_tensor(t, client.devices()[0]).unwrap();
    /// assert!(!buffer.is_ready());
    /// hold.release();
    /// buffer.block_until_ready().unwrap();
    /// ```
    #[doc(hidden)]
    pub fn hold_transfers(&self) -> TransferHold {
        self.inner.transfers.hold()
    }

    /// Places a host buffer already in the CPU layout on `device`: on the CPU that is a move,
    /// so the buffer is ready at once. On a simulated TPU it takes HBM (failing when it does
    /// not fit) and costs PCIe time on the device's clock.
    pub fn buffer_from_host(&self, data: CpuBuffer, device: Device) -> Result<Buffer> {
        self.check_device(device)?;
        let _span = crate::transfer::span(true, data.ty(), device);
        let lease = self.transfer_in(data.ty(), device)?;
        Ok(Buffer::ready_in(
            data,
            device,
            lease,
            self.inner.transfers.clone(),
        ))
    }

    /// A copy of `buffer` on `device` (PJRT's `CopyToDevice`, JAX's `device_put` of an array
    /// already on a device). Waits for `buffer` to be ready; fails if it was donated or its
    /// transfer failed. Among CPU devices nothing is copied: the new buffer shares the data
    /// (buffers are immutable, and donating a shared buffer copies it first). From or to a
    /// simulated TPU the copy goes through the host: PCIe time on the source's clock and on
    /// the destination's, and the destination's HBM. On `buffer`'s own device it is another
    /// handle to the same buffer.
    ///
    /// ```
    /// use systolic_runtime::Client;
    /// use systolic_ir::Tensor;
    /// let client = Client::cpu_devices(2);
    /// let (cpu0, cpu1) = (client.devices()[0], client.devices()[1]);
    /// let t = Tensor::from_f32(vec![2], vec![1.0, 2.0]);
    /// let a = client.buffer_from_tensor(t.clone(), cpu0).unwrap();
    /// let b = client.copy_to_device(&a, cpu1).unwrap();
    /// assert_eq!(b.device(), cpu1);
    /// a.delete();
    /// assert_eq!(b.to_tensor().unwrap(), t);
    /// assert!(client.copy_to_device(&a, cpu1).is_err());
    /// ```
    pub fn copy_to_device(&self, buffer: &Buffer, device: Device) -> Result<Buffer> {
        self.check_device(device)?;
        if buffer.device() == device {
            return Ok(buffer.clone());
        }
        let data = buffer.data(format!(": copying it to {device}"))?;
        crate::buffer::charge_to_host(
            buffer.device(),
            data.ty().byte_size() as u64,
            Some(buffer.sim_ready_s()),
        );
        let lease = self.transfer_in(data.ty(), device)?;
        Ok(Buffer::ready_shared(
            data,
            device,
            lease,
            self.inner.transfers.clone(),
        ))
    }

    /// A simulated device's HBM for a buffer of type `ty` copied in from the host, with the
    /// PCIe time charged; nothing on the CPU.
    fn transfer_in(
        &self,
        ty: &systolic_ir::TensorType,
        device: Device,
    ) -> Result<Option<sim::HbmLease>> {
        let Some(sim) = device.sim() else {
            return Ok(None);
        };
        let lease = sim.allocate(ty).map_err(|message| RuntimeError::Transfer {
            device: device.to_string(),
            message,
        })?;
        let ready = sim.charge_to_device(ty.byte_size() as u64);
        lease.set_ready_s(ready);
        Ok(Some(lease))
    }

    /// What the compile caches have done so far.
    pub fn cache_stats(&self) -> CacheStats {
        *self.stats()
    }

    fn stats(&self) -> std::sync::MutexGuard<'_, CacheStats> {
        self.inner.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Compiles `options.cpu.entry` of `module` for `options.device` (default: the first
    /// device), through the memory cache, then the disk cache, then the passes.
    ///
    /// For a simulated TPU the program is also costed on the chip (the TPU compile pipeline and
    /// the cost model; a program whose peak exceeds HBM fails with `RESOURCE_EXHAUSTED`), and
    /// the CPU backend compiles it rewritten to TPU numerics; executions then advance the
    /// device's clock by the modelled step time ([`Executable::tpu_cost`]).
    pub fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Executable> {
        let device = options.device.unwrap_or(self.devices()[0]);
        self.check_device(device)?;
        let Some(chip) = device.chip() else {
            return self.compile_keyed(module, options, device, None);
        };
        let key = CacheKey::new(
            &systolic_ir::text::print_module(module),
            &options.cpu,
            device.kind(),
        );
        let cost = self
            .inner
            .costs
            .get_or_cost(key.hex(), module, &options.cpu.entry, chip)?;
        let numerics = systolic_tpu::numerics::with_tpu_numerics(module);
        let mut exe = self.compile_keyed(&numerics, options, device, Some(key))?;
        exe.tpu = Some(cost);
        Ok(exe)
    }

    /// Compiles `module` for `device` through the caches under `key` (default: the key of
    /// `module` itself).
    fn compile_keyed(
        &self,
        module: &Module,
        options: &CompileOptions,
        device: Device,
        key: Option<CacheKey>,
    ) -> Result<Executable> {
        let mut span = systolic_trace::Span::lazy(systolic_trace::cat::COMPILE, || {
            format!("compile @{}", options.cpu.entry)
        });
        span.arg("device", device.to_string());
        if options.cpu.dump_dir.is_some() {
            span.arg("cache", "miss");
            let (compiled, _) = self.compile_now(module, options)?;
            return Ok(self.executable(device, Arc::new(compiled), CompileSource::Compiled));
        }
        let key = key.unwrap_or_else(|| {
            CacheKey::new(
                &systolic_ir::text::print_module(module),
                &options.cpu,
                device.kind(),
            )
        });
        if let Some(compiled) = self.memory().get(&key).cloned() {
            self.stats().memory_hits += 1;
            span.arg("cache", "hit");
            return Ok(self.executable(device, compiled, CompileSource::MemoryCache));
        }
        let disk = disk_cache_for(module, options);
        let lower = |m: &Module| {
            crate::executable::lower(m, &options.cpu.entry)
                .map_err(|e| format!("its module does not lower: {e}"))
        };
        if let Some(compiled) = disk.as_ref().and_then(|d| {
            self.load_from_disk(
                d,
                &key,
                (module, options),
                lower,
                |c: &Compiled| (c.param_types(), c.result_types()),
                Compiled::log_fallbacks,
            )
        }) {
            self.stats().disk_hits += 1;
            span.arg("cache", "disk");
            let compiled = self.remember(key, compiled);
            return Ok(self.executable(device, compiled, CompileSource::DiskCache));
        }
        span.arg("cache", "miss");
        let (compiled, optimized) = self.compile_now(module, options)?;
        if let Some(disk) = &disk {
            self.store_on_disk(disk, &key, &optimized);
        }
        let compiled = self.remember(key, compiled);
        Ok(self.executable(device, compiled, CompileSource::Compiled))
    }

    /// An executable of this client: its outputs queue their device→host copies on the
    /// client's transfer thread.
    fn executable(
        &self,
        device: Device,
        compiled: Arc<Compiled>,
        source: CompileSource,
    ) -> Executable {
        Executable::new(device, compiled, source, self.inner.transfers.clone())
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, HashMap<CacheKey, Arc<Compiled>>> {
        self.inner.memory.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `compiled` under `key`; when another thread got there first, its copy wins so
    /// that every caller shares one program.
    fn remember(&self, key: CacheKey, compiled: Compiled) -> Arc<Compiled> {
        self.memory()
            .entry(key)
            .or_insert_with(|| Arc::new(compiled))
            .clone()
    }

    /// Runs the passes and lowers; returns the optimised module too (for the disk cache).
    fn compile_now(&self, module: &Module, options: &CompileOptions) -> Result<(Compiled, Module)> {
        self.stats().compiles += 1;
        let optimized = systolic_cpu::lower::optimize(module, &options.cpu)
            .map_err(|e| RuntimeError::Compile(e.to_string()))?;
        let compiled = crate::executable::lower(&optimized, &options.cpu.entry)?;
        if options.log_fallbacks {
            compiled.log_fallbacks();
        }
        Ok((compiled, optimized))
    }

    /// The entry of `key` in `disk`, parsed, verified and lowered by `lower`; `None` (logged)
    /// when there is none or it cannot be used — including an entry whose entry function does
    /// not take and return what `module`'s does (`signature` of the lowered program: a key
    /// collision or a tampered entry, running it would answer for another program).
    fn load_from_disk<T>(
        &self,
        disk: &DiskCache,
        key: &CacheKey,
        (module, options): (&Module, &CompileOptions),
        lower: impl Fn(&Module) -> std::result::Result<T, String>,
        signature: impl Fn(&T) -> (&[Type], &[Type]),
        log_fallbacks: impl Fn(&T),
    ) -> Option<T> {
        let entry = options.cpu.entry.as_str();
        let path = disk.entry_path(key);
        let why = match disk.load(key) {
            Lookup::Miss => return None,
            Lookup::Rejected(why) => why,
            Lookup::Hit(text) => match load_guarded(&text, &path.display().to_string(), lower)
                .and_then(|compiled| {
                    let (params, results) = signature(&compiled);
                    same_signature(params, results, module, entry).map(|_| compiled)
                }) {
                Ok(compiled) => {
                    if options.log_fallbacks {
                        log_fallbacks(&compiled);
                    }
                    return Some(compiled);
                }
                Err(why) => why,
            },
        };
        self.stats().disk_rejected += 1;
        eprintln!(
            "systolic-runtime: compile cache: ignoring {}: {why}; compiling instead",
            path.display()
        );
        None
    }

    fn store_on_disk(&self, disk: &DiskCache, key: &CacheKey, optimized: &Module) {
        match disk.store(key, &systolic_ir::text::print_module(optimized)) {
            Ok(_) => self.stats().disk_writes += 1,
            Err(e) => {
                self.stats().disk_write_failures += 1;
                eprintln!(
                    "systolic-runtime: compile cache: cannot write {}: {e}",
                    disk.entry_path(key).display()
                );
            }
        }
    }
}

/// Parses and verifies a cached optimised module and lowers it with `lower`, a panic turned
/// into an error: the entry is then a miss, as a corrupt one is, instead of crashing the
/// process.
///
/// An entry's body passed its fingerprint, parses and verifies, yet its lowering can still
/// panic on a bug of the backend (the lowering's cost estimate once overflowed on an
/// elementwise op over 2^61 f32s; no entry is known to panic now, so no test builds one).
/// Whatever was half-built is dropped with the unwind, and nothing the client shares is touched
/// until the load succeeds, so catching it is sound.
fn load_guarded<T>(
    text: &str,
    name: &str,
    lower: impl Fn(&Module) -> std::result::Result<T, String>,
) -> std::result::Result<T, String> {
    let load = || {
        let module = systolic_ir::text::parse_module(text, name)
            .map_err(|d| format!("its module does not parse: {d}"))?;
        systolic_ir::verify::verify_module(&module).map_err(|diags| match diags.first() {
            Some(d) => format!("its module does not verify: {d}"),
            None => "its module does not verify".to_string(),
        })?;
        lower(&module)
    };
    catch_unwind(AssertUnwindSafe(load)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        Err(format!("loading its module panicked ({message})"))
    })
}

/// `Ok` when a program taking `params` and returning `results` has the signature of `entry`
/// of `module`.
fn same_signature(
    params: &[Type],
    results: &[Type],
    module: &Module,
    entry: &str,
) -> std::result::Result<(), String> {
    let func = module
        .func(entry)
        .ok_or_else(|| format!("the program has no @{entry}"))?;
    let (want_params, want_results) = (func.param_types(), &func.result_types);
    if params == want_params.as_slice() && results == want_results {
        return Ok(());
    }
    let list = |ts: &[Type]| {
        ts.iter()
            .map(Type::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "its @{entry} is ({}) -> ({}), the program's is ({}) -> ({})",
        list(params),
        list(results),
        list(&want_params),
        list(want_results)
    ))
}

/// The disk cache `options` name for `module`, or none when the module holds a host callback
/// (`systolic_ir::host_callback`): the callback's number means something only in the process
/// that registered it, so such a module is never written to the cache that other processes
/// read, nor read from it (an entry found there was made by another process, whose number could
/// call an unrelated closure of this one).
pub(crate) fn disk_cache_for(module: &Module, options: &CompileOptions) -> Option<DiskCache> {
    if systolic_ir::host_callback::module_has_host_callback(module) {
        return None;
    }
    options.disk_cache.resolve().map(DiskCache::new)
}
