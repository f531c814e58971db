//! Compiling SPMD programs for several devices, through the same caches as single-device
//! programs.
//!
//! The process grid is the module's (`mhlo.num_replicas × mhlo.num_partitions`, an absent
//! count 1) and must have one process per device. The caches key on the module, the options,
//! the device kind and the grid ([`CacheKey::spmd`]); the disk cache stores the module after the
//! passes (with its grid attributes), from which a later process only lowers one program per
//! process. On a simulated slice the program is costed on every chip
//! ([`crate::sim::slice`]) and compiled rewritten to TPU numerics, as on a single chip.

use super::Client;
use crate::cache_key::CacheKey;
use crate::device::{Device, DeviceKind};
use crate::error::{Result, RuntimeError};
use crate::executable::CompileSource;
use crate::options::CompileOptions;
use crate::sim::slice::whole_slice;
use crate::spmd_executable::{CompiledSpmd, SpmdExecutable};
use std::sync::Arc;
use systolic_compiler::passes::single_device_spmd::{NUM_PARTITIONS_ATTR, NUM_REPLICAS_ATTR};
use systolic_ir::{Attribute, DType, Module, NamedAttr, ProcessGrid, Type};

impl Client {
    /// Compiles `options.cpu.entry` of `module` as an SPMD program: process `d` (in the order
    /// `replica * num_partitions + partition`) runs on `devices[d]`. The module's
    /// `mhlo.num_replicas × mhlo.num_partitions` (an absent count is 1) must be
    /// `devices.len()`; the devices must be distinct, and all CPU devices or every chip of one
    /// simulated slice in its device order. `options.device` is ignored.
    ///
    /// Through the memory cache, then the disk cache, then the passes, as [`Client::compile`].
    /// On a slice the program is also costed on every chip ([`systolic_tpu::simulate_spmd`]:
    /// a program whose peak exceeds a chip's HBM fails with `RESOURCE_EXHAUSTED`) and compiled
    /// rewritten to TPU numerics; executions advance every chip's clock by its share.
    ///
    /// ```
    /// use systolic_runtime::{Client, CompileOptions, CompileSource};
    /// let module = systolic_ir::text::parse_module(
    ///     r#"module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
    ///        func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    ///          %0 = "stablehlo.all_reduce"(%x) ({
    ///            ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    ///              %s = stablehlo.add %a, %b : tensor<f32>
    ///              stablehlo.return %s : tensor<f32>
    ///          }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
    ///              channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
    ///              use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    ///          return %0 : tensor<2xf32>
    ///        }
    ///      }"#,
    ///     "sum",
    /// ).unwrap();
    /// let client = Client::cpu_devices(4);
    /// let options = CompileOptions::no_disk_cache();
    /// let exe = client.compile_spmd(&module, client.devices(), &options).unwrap();
    /// assert_eq!(exe.devices().len(), 4);
    /// // Again: from the memory cache.
    /// assert_eq!(client.compile_spmd(&module, client.devices(), &options).unwrap().source(),
    ///            CompileSource::MemoryCache);
    /// // A 4-process program on 2 devices is refused.
    /// let err = client.compile_spmd(&module, &client.devices()[..2], &options).unwrap_err();
    /// assert!(err.to_string().contains("4 processes"), "{err}");
    /// ```
    pub fn compile_spmd(
        &self,
        module: &Module,
        devices: &[Device],
        options: &CompileOptions,
    ) -> Result<SpmdExecutable> {
        let entry = options.cpu.entry.as_str();
        let grid = self.check_spmd_devices(module, devices, entry)?;
        let module = with_grid(module, grid);
        if devices[0].kind() == DeviceKind::Cpu {
            return self.compile_spmd_keyed(&module, grid, options, devices, None);
        }
        let slice =
            whole_slice(devices).map_err(|e| RuntimeError::Compile(format!("@{entry}: {e}")))?;
        let key = CacheKey::spmd(
            &systolic_ir::text::print_module(&module),
            &options.cpu,
            DeviceKind::Tpu,
            grid,
        );
        let cost = self
            .inner
            .spmd_costs
            .get_or_cost(key.hex(), &module, entry, slice, devices)?;
        let numerics = systolic_tpu::numerics::with_tpu_numerics(&module);
        let mut exe = self.compile_spmd_keyed(&numerics, grid, options, devices, Some(key))?;
        exe.tpu = Some(cost);
        Ok(exe)
    }

    /// The module's grid, once `devices` are known to fit it: one distinct device of this
    /// client per process, all of one kind.
    fn check_spmd_devices(
        &self,
        module: &Module,
        devices: &[Device],
        entry: &str,
    ) -> Result<ProcessGrid> {
        let error = |message: String| RuntimeError::Compile(format!("@{entry}: {message}"));
        let names = || {
            devices
                .iter()
                .map(Device::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(&first) = devices.first() else {
            return Err(error("an SPMD program needs at least one device".into()));
        };
        for (d, &device) in devices.iter().enumerate() {
            self.check_device(device)?;
            if let Some(e) = devices[..d].iter().position(|&x| x == device) {
                return Err(error(format!(
                    "{device} is given twice (devices {e} and {d}); each process needs a \
                     device of its own"
                )));
            }
            if device.kind() != first.kind() {
                return Err(error(format!(
                    "an SPMD program runs on devices of one kind, got {first} and {device}"
                )));
            }
        }
        let grid = systolic_tpu::spmd::process_grid(module).map_err(|e| error(e.to_string()))?;
        if grid.len() != devices.len() {
            return Err(error(format!(
                "the module is for {} × {} = {} processes ({NUM_REPLICAS_ATTR} × \
                 {NUM_PARTITIONS_ATTR}; an absent count is 1), but {} devices were given ({})",
                grid.replicas,
                grid.partitions,
                grid.len(),
                devices.len(),
                names()
            )));
        }
        Ok(grid)
    }

    /// Compiles `module` for `grid` on `devices` through the caches under `key` (default: the
    /// SPMD key of `module` itself for the devices' kind).
    fn compile_spmd_keyed(
        &self,
        module: &Module,
        grid: ProcessGrid,
        options: &CompileOptions,
        devices: &[Device],
        key: Option<CacheKey>,
    ) -> Result<SpmdExecutable> {
        let executable = |compiled, source| {
            SpmdExecutable::new(
                devices.to_vec(),
                compiled,
                source,
                self.inner.transfers.clone(),
            )
        };
        let mut span = systolic_trace::Span::lazy(systolic_trace::cat::COMPILE, || {
            format!(
                "compile @{} for {} devices",
                options.cpu.entry,
                devices.len()
            )
        });
        if options.cpu.dump_dir.is_some() {
            span.arg("cache", "miss");
            let (compiled, _) = self.compile_spmd_now(module, grid, options)?;
            return Ok(executable(Arc::new(compiled), CompileSource::Compiled));
        }
        let key = key.unwrap_or_else(|| {
            CacheKey::spmd(
                &systolic_ir::text::print_module(module),
                &options.cpu,
                devices[0].kind(),
                grid,
            )
        });
        if let Some(compiled) = self.spmd_memory().get(&key).cloned() {
            self.stats().memory_hits += 1;
            span.arg("cache", "hit");
            return Ok(executable(compiled, CompileSource::MemoryCache));
        }
        let disk = super::disk_cache_for(module, options);
        let lower = |m: &Module| {
            lower_spmd(m, grid, &options.cpu).map_err(|e| format!("its module does not lower: {e}"))
        };
        if let Some(compiled) = disk.as_ref().and_then(|d| {
            self.load_from_disk(
                d,
                &key,
                (module, options),
                lower,
                signature,
                |c: &CompiledSpmd| {
                    if let Some(p) = c.processes().first() {
                        p.log_fallbacks()
                    }
                },
            )
        }) {
            self.stats().disk_hits += 1;
            span.arg("cache", "disk");
            let compiled = self.remember_spmd(key, compiled);
            return Ok(executable(compiled, CompileSource::DiskCache));
        }
        span.arg("cache", "miss");
        let (compiled, optimized) = self.compile_spmd_now(module, grid, options)?;
        if let Some(disk) = &disk {
            self.store_on_disk(disk, &key, &optimized);
        }
        let compiled = self.remember_spmd(key, compiled);
        Ok(executable(compiled, CompileSource::Compiled))
    }

    fn spmd_memory(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<CacheKey, Arc<CompiledSpmd>>> {
        self.inner
            .spmd_memory
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `compiled` under `key`; when another thread got there first, its copy wins.
    fn remember_spmd(&self, key: CacheKey, compiled: CompiledSpmd) -> Arc<CompiledSpmd> {
        self.spmd_memory()
            .entry(key)
            .or_insert_with(|| Arc::new(compiled))
            .clone()
    }

    /// Runs the passes and lowers every process; returns the optimised module too (for the
    /// disk cache).
    fn compile_spmd_now(
        &self,
        module: &Module,
        grid: ProcessGrid,
        options: &CompileOptions,
    ) -> Result<(CompiledSpmd, Module)> {
        self.stats().compiles += 1;
        let optimized = systolic_cpu::lower::optimize(module, &options.cpu)
            .map_err(|e| RuntimeError::Compile(e.to_string()))?;
        let compiled = lower_spmd(&optimized, grid, &options.cpu)
            .map_err(|e| RuntimeError::Compile(e.to_string()))?;
        Ok((compiled, optimized))
    }
}

/// The argument and result types of an SPMD program (every process's are its entry's).
fn signature(compiled: &CompiledSpmd) -> (&[Type], &[Type]) {
    match compiled.processes().first() {
        Some(p) => (p.param_types(), p.result_types()),
        None => (&[], &[]),
    }
}

/// Lowers one program per process of an already optimised module (no pass runs again, no
/// dump is written again).
fn lower_spmd(
    optimized: &Module,
    grid: ProcessGrid,
    options: &systolic_cpu::CompileOptions,
) -> systolic_cpu::Result<CompiledSpmd> {
    let lowering = systolic_cpu::CompileOptions {
        optimize: false,
        dump_dir: None,
        ..options.clone()
    };
    systolic_cpu::compile_spmd(optimized, grid, &lowering)
}

/// `module` with both grid attributes written out: the passes then see a program for
/// `grid.len()` processes (an absent count would read as 1, and a single-device program's
/// collectives are identities), and the cached module carries its grid.
fn with_grid(module: &Module, grid: ProcessGrid) -> Module {
    let mut module = module.clone();
    for (name, count) in [
        (NUM_REPLICAS_ATTR, grid.replicas),
        (NUM_PARTITIONS_ATTR, grid.partitions),
    ] {
        if !module.attrs.iter().any(|a| a.name == name) {
            module.attrs.push(NamedAttr {
                name: name.to_string(),
                value: Attribute::Int(i64::from(count), Some(Type::tensor(vec![], DType::I32))),
            });
        }
    }
    module
}
