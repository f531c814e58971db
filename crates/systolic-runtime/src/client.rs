//! The client: devices, host→device transfers, and compilation through the caches.
//!
//! A client has the host CPU (`cpu:0`, always first) and optionally simulated TPU chips
//! (`tpu:v5e:0`, …; see [`crate::sim`]): [`Client::with_tpus`] names them,
//! [`Client::with_default_tpus`] takes one of every chip whose figures are published, and
//! [`Client::from_env`] reads `SYSTOLIC_TPUS`.

use crate::buffer::Buffer;
use crate::cache_key::CacheKey;
use crate::device::{Device, DeviceKind};
use crate::disk_cache::{DiskCache, Lookup};
use crate::error::{Result, RuntimeError};
use crate::executable::{CompileSource, Compiled, Executable};
use crate::options::CompileOptions;
use crate::sim::{self, CostCache};
use crate::transfer::{Job, TransferHold, Transfers};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use systolic_cpu::CpuBuffer;
use systolic_ir::{Module, Tensor};

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
}

/// The environment variable [`Client::from_env`] reads: simulated TPUs as `CHIP[:COUNT]`
/// separated by commas (`v5e,v5p:4`); empty or `none` for the CPU alone; unset for
/// [`Client::with_default_tpus`].
pub const TPUS_ENV: &str = "SYSTOLIC_TPUS";

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
    /// A client of the host CPU, with one device `cpu:0` (its kernels use every core).
    pub fn cpu() -> Client {
        Client::with_devices(vec![Device::new(DeviceKind::Cpu, 0)])
    }

    /// The CPU and simulated TPU chips: `count` devices `tpu:CHIP:0…` of each `(chip, count)`
    /// (chips by name or alias, as `systolic chips` lists them). Fails for an unknown chip or
    /// one that does not publish a figure the device needs (PCIe bandwidth, HBM capacity and
    /// bandwidth, bf16 peak).
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_tpus(&[("v5e", 1), ("v5p", 4)]).unwrap();
    /// let names: Vec<String> = client.devices().iter().map(|d| d.to_string()).collect();
    /// assert_eq!(names, ["cpu:0", "tpu:v5e:0", "tpu:v5p:0", "tpu:v5p:1", "tpu:v5p:2", "tpu:v5p:3"]);
    /// assert_eq!(client.device("tpu:v5e").unwrap(), client.devices()[1]);
    /// assert_eq!(client.device("tpu:v5p:3").unwrap().simulated_time(), Some(0.0));
    /// assert!(systolic_runtime::Client::with_tpus(&[("tpu7x", 1)]).is_err());
    /// ```
    pub fn with_tpus(
        tpus: &[(&str, usize)],
    ) -> std::result::Result<Client, systolic_tpu::TpuError> {
        let mut devices = vec![Device::new(DeviceKind::Cpu, 0)];
        let mut seen: Vec<(&'static str, usize)> = vec![];
        for &(name, count) in tpus {
            let chip = systolic_tpu::chip(name)?;
            let first = match seen.iter_mut().find(|(c, _)| *c == chip.name) {
                Some((_, n)) => {
                    *n += count;
                    *n - count
                }
                None => {
                    seen.push((chip.name, count));
                    0
                }
            };
            for index in first..first + count {
                let id = sim::register(chip.clone(), index)?;
                devices.push(Device::simulated(index, id));
            }
        }
        Ok(Client::with_devices(devices))
    }

    /// The chips [`Client::with_default_tpus`] simulates: every chip of the registry that
    /// publishes the figures a device needs (v3, v4, v5e, v5p, v6e; v2 and tpu7x lack a PCIe
    /// figure).
    pub fn default_tpu_chips() -> Vec<&'static str> {
        systolic_tpu::all_chips()
            .iter()
            .filter(|c| sim::usable(c))
            .map(|c| c.name)
            .collect()
    }

    /// The CPU and one simulated device of every chip in [`Client::default_tpu_chips`].
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_default_tpus();
    /// assert_eq!(client.devices()[0].to_string(), "cpu:0");
    /// assert!(client.device("tpu:v5e:0").is_ok() && client.device("tpu:v6e:0").is_ok());
    /// ```
    pub fn with_default_tpus() -> Client {
        let chips: Vec<(&str, usize)> = Client::default_tpu_chips()
            .into_iter()
            .map(|c| (c, 1))
            .collect();
        Client::with_tpus(&chips).unwrap_or_else(|_| Client::cpu())
    }

    /// The client `SYSTOLIC_TPUS` asks for ([`TPUS_ENV`]): unset, [`Client::with_default_tpus`];
    /// empty or `none`, the CPU alone; else `CHIP[:COUNT],…`. A malformed value is an error
    /// that says why.
    pub fn from_env() -> std::result::Result<Client, String> {
        match std::env::var(TPUS_ENV) {
            Err(_) => Ok(Client::with_default_tpus()),
            Ok(v) => {
                let spec = parse_tpus(&v).map_err(|e| format!("{TPUS_ENV}={v}: {e}"))?;
                Client::with_tpus(
                    &spec
                        .iter()
                        .map(|(c, n)| (c.as_str(), *n))
                        .collect::<Vec<_>>(),
                )
                .map_err(|e| format!("{TPUS_ENV}={v}: {e}"))
            }
        }
    }

    fn with_devices(devices: Vec<Device>) -> Client {
        Client {
            inner: Arc::new(Inner {
                devices,
                // Ends when the client and every buffer and executable of it are dropped.
                transfers: Transfers::start(),
                memory: Mutex::new(HashMap::new()),
                stats: Mutex::new(CacheStats::default()),
                costs: CostCache::default(),
            }),
        }
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
        let lease = self.transfer_in(data.ty(), device)?;
        Ok(Buffer::ready_in(
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
        sim.charge_to_device(ty.byte_size() as u64);
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
        if options.cpu.dump_dir.is_some() {
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
            return Ok(self.executable(device, compiled, CompileSource::MemoryCache));
        }
        let disk = options.disk_cache.resolve().map(DiskCache::new);
        if let Some(compiled) = disk
            .as_ref()
            .and_then(|d| self.load_from_disk(d, &key, module, options))
        {
            self.stats().disk_hits += 1;
            let compiled = self.remember(key, compiled);
            return Ok(self.executable(device, compiled, CompileSource::DiskCache));
        }
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

    /// The entry of `key` in `disk`, parsed, verified and lowered; `None` (logged) when there
    /// is none or it cannot be used — including an entry whose entry function does not take
    /// and return what `module`'s does (a key collision or a tampered entry: running it would
    /// answer for another program).
    fn load_from_disk(
        &self,
        disk: &DiskCache,
        key: &CacheKey,
        module: &Module,
        options: &CompileOptions,
    ) -> Option<Compiled> {
        let (entry, log_fallbacks) = (options.cpu.entry.as_str(), options.log_fallbacks);
        let path = disk.entry_path(key);
        let why = match disk.load(key) {
            Lookup::Miss => return None,
            Lookup::Rejected(why) => why,
            Lookup::Hit(text) => match load_guarded(&text, &path.display().to_string(), entry)
                .and_then(|compiled| same_signature(&compiled, module, entry).map(|_| compiled))
            {
                Ok(compiled) => {
                    if log_fallbacks {
                        compiled.log_fallbacks();
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

/// [`load_optimized`], with a panic turned into an error: the entry is then a miss, as a
/// corrupt one is, instead of crashing the process.
///
/// An entry's body passed its fingerprint, parses and verifies, yet its lowering can still
/// panic on a bug of the backend (the lowering's cost estimate once overflowed on an
/// elementwise op over 2^61 f32s; no entry is known to panic now, so no test builds one).
/// Whatever was half-built is dropped with the unwind, and nothing the client shares is touched
/// until the load succeeds, so catching it is sound.
fn load_guarded(text: &str, name: &str, entry: &str) -> std::result::Result<Compiled, String> {
    catch_unwind(AssertUnwindSafe(|| load_optimized(text, name, entry))).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        Err(format!("loading its module panicked ({message})"))
    })
}

/// `Ok` when `compiled` takes and returns the types `entry` of `module` does.
fn same_signature(
    compiled: &Compiled,
    module: &Module,
    entry: &str,
) -> std::result::Result<(), String> {
    let func = module
        .func(entry)
        .ok_or_else(|| format!("the program has no @{entry}"))?;
    let (params, results) = (func.param_types(), &func.result_types);
    if compiled.param_types() == params.as_slice() && compiled.result_types() == results {
        return Ok(());
    }
    let list = |ts: &[systolic_ir::Type]| {
        ts.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "its @{entry} is ({}) -> ({}), the program's is ({}) -> ({})",
        list(compiled.param_types()),
        list(compiled.result_types()),
        list(&params),
        list(results)
    ))
}

/// Parses, verifies and lowers a cached optimised module.
fn load_optimized(text: &str, name: &str, entry: &str) -> std::result::Result<Compiled, String> {
    let module = systolic_ir::text::parse_module(text, name)
        .map_err(|d| format!("its module does not parse: {d}"))?;
    systolic_ir::verify::verify_module(&module).map_err(|diags| match diags.first() {
        Some(d) => format!("its module does not verify: {d}"),
        None => "its module does not verify".to_string(),
    })?;
    crate::executable::lower(&module, entry).map_err(|e| format!("its module does not lower: {e}"))
}

/// Parses `v5e,v5p:4` into chips and counts (a missing count is 1).
fn parse_tpus(spec: &str) -> std::result::Result<Vec<(String, usize)>, String> {
    let spec = spec.trim();
    if spec.is_empty() || spec.eq_ignore_ascii_case("none") {
        return Ok(vec![]);
    }
    spec.split(',')
        .map(|item| {
            let item = item.trim();
            let item = item.strip_prefix("tpu:").unwrap_or(item);
            match item.split_once(':') {
                None => Ok((item.to_string(), 1)),
                Some((chip, n)) => n
                    .parse::<usize>()
                    .map(|n| (chip.to_string(), n))
                    .map_err(|_| format!("`{n}` is not a device count (write CHIP[:COUNT],…)")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_tpus;

    #[test]
    fn tpu_lists() {
        assert_eq!(parse_tpus("").unwrap(), vec![]);
        assert_eq!(parse_tpus("none").unwrap(), vec![]);
        assert_eq!(
            parse_tpus("v5e, tpu:v5p:4").unwrap(),
            vec![("v5e".to_string(), 1), ("v5p".to_string(), 4)]
        );
        assert!(parse_tpus("v5e:x").unwrap_err().contains("`x`"));
    }
}
