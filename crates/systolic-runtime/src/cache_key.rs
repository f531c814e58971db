//! Compile-cache keys: what must be equal for a compiled program to be reused.

use crate::device::DeviceKind;
use crate::fingerprint::Fingerprint;

/// Bumped whenever the disk format or the meaning of a cached body changes, so that entries
/// written by an older runtime are never read as current ones.
pub const FORMAT_VERSION: u32 = 2;

/// A hash of the sources of the IR, the compiler, the backends and this runtime, and of
/// `Cargo.lock`, made by the build script: two builds that could optimise a program
/// differently have different identities, whatever their crate version.
pub const BUILD_ID: &str = env!("SYSTOLIC_BUILD_ID");

/// A cache key: the fingerprint of everything the compiled program depends on.
///
/// The key covers the printed module text, the options that change the result (entry
/// function, `verify_each`, `optimize`), the device kind (and an SPMD program's process grid),
/// this crate's version and the build's identity [`BUILD_ID`] (the passes and kernels change
/// between builds of one version) and [`FORMAT_VERSION`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    hex: String,
    material: String,
}

impl CacheKey {
    /// The key of compiling the module printed as `module_text` with `options` for `device`.
    ///
    /// ```
    /// use systolic_runtime::{cache_key::CacheKey, DeviceKind};
    /// let text = "func.func @main() { return }";
    /// let options = systolic_cpu::CompileOptions::default();
    /// let a = CacheKey::new(text, &options, DeviceKind::Cpu);
    /// let unoptimised = systolic_cpu::CompileOptions { optimize: false, ..options.clone() };
    /// assert_ne!(a, CacheKey::new(text, &unoptimised, DeviceKind::Cpu));
    /// assert_eq!(a, CacheKey::new(text, &options, DeviceKind::Cpu));
    /// assert_eq!(a.hex().len(), 32);
    /// ```
    pub fn new(
        module_text: &str,
        options: &systolic_cpu::CompileOptions,
        device: DeviceKind,
    ) -> CacheKey {
        CacheKey::with_material(module_text, options, device.name())
    }

    /// The key of compiling the module printed as `module_text` with `options` as an SPMD
    /// program for `grid` on devices of kind `device`: apart from every single-device key and
    /// every other grid's.
    ///
    /// ```
    /// use systolic_runtime::{cache_key::CacheKey, DeviceKind};
    /// use systolic_ir::ProcessGrid;
    /// let text = "func.func @main() { return }";
    /// let options = systolic_cpu::CompileOptions::default();
    /// let four = CacheKey::spmd(text, &options, DeviceKind::Cpu, ProcessGrid::new(1, 4));
    /// assert!(four.material().contains("grid=1x4"));
    /// assert_ne!(four, CacheKey::spmd(text, &options, DeviceKind::Cpu, ProcessGrid::new(2, 2)));
    /// assert_ne!(four, CacheKey::spmd(text, &options, DeviceKind::Tpu, ProcessGrid::new(1, 4)));
    /// assert_ne!(four.hex(), CacheKey::new(text, &options, DeviceKind::Cpu).hex());
    /// ```
    pub fn spmd(
        module_text: &str,
        options: &systolic_cpu::CompileOptions,
        device: DeviceKind,
        grid: systolic_ir::ProcessGrid,
    ) -> CacheKey {
        let device = format!(
            "{} grid={}x{}",
            device.name(),
            grid.replicas,
            grid.partitions
        );
        CacheKey::with_material(module_text, options, &device)
    }

    fn with_material(
        module_text: &str,
        options: &systolic_cpu::CompileOptions,
        device: &str,
    ) -> CacheKey {
        // Every option that changes the compiled program; `dump_dir` only adds side effects
        // (and a compile with it bypasses the caches).
        let material = format!(
            "format={FORMAT_VERSION} runtime={} build={BUILD_ID} device={device} entry={} \
             verify_each={} optimize={}",
            env!("CARGO_PKG_VERSION"),
            options.entry,
            options.verify_each,
            options.optimize,
        );
        let hex = Fingerprint::new().field(&material).field(module_text).hex();
        CacheKey { hex, material }
    }

    /// The fingerprint as 32 hex digits (the disk entry's file name).
    pub fn hex(&self) -> &str {
        &self.hex
    }

    /// Everything in the key except the module, readable (`format=2 runtime=0.1.0 build=… …`).
    pub fn material(&self) -> &str {
        &self.material
    }
}
