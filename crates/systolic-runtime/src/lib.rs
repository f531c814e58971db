//! Systolic's runtime, shaped like PJRT: a [`Client`] owns [`Device`]s; [`Buffer`]s are
//! arrays on a device, filled by asynchronous host→device transfers with a ready event, and read
//! back synchronously or asynchronously ([`Buffer::copy_to_host_async`], a [`HostTransfer`]);
//! [`Client::compile`] turns a module into an [`Executable`] through a compile cache in memory
//! and on disk ([`disk_cache`]); executables run on buffers, borrowing or donating them.
//! [`Client::compile_spmd`] compiles a program for several devices (`cpu:0…N-1`, or the chips
//! of a simulated TPU slice) into an [`SpmdExecutable`], one process per device.
//!
//! ```
//! use systolic_runtime::{Client, CompileOptions};
//! use systolic_ir::Tensor;
//! let module = systolic_ir::text::parse_module(
//!     "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
//!        %0 = stablehlo.add %a, %b : tensor<3xf32>
//!        return %0 : tensor<3xf32>
//!      }",
//!     "add",
//! ).unwrap();
//! let client = Client::cpu();
//! let cpu0 = client.device("cpu:0").unwrap();
//! let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
//! let a = client.buffer_from_tensor(Tensor::from_f32(vec![3], vec![1.0, 2.0, 3.0]), cpu0).unwrap();
//! let b = client.buffer_from_tensor(Tensor::from_f32(vec![3], vec![10.0, 20.0, 30.0]), cpu0).unwrap();
//! let sum = exe.execute_donating(vec![a.clone(), b]).unwrap();
//! assert_eq!(sum[0].to_tensor().unwrap(), Tensor::from_f32(vec![3], vec![11.0, 22.0, 33.0]));
//! // `a` was donated: its memory may now hold `sum`.
//! assert!(a.to_tensor().unwrap_err().to_string().contains("donated"));
//! // The same program again comes from the in-memory cache.
//! let again = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
//! assert!(again.same_program(&exe));
//! ```

#![warn(missing_docs)]

pub mod buffer;
pub mod cache_key;
pub mod client;
pub mod device;
pub mod disk_cache;
pub mod error;
pub mod executable;
pub mod fingerprint;
pub mod options;
pub mod profile;
pub mod sim;
pub mod spmd_executable;
pub mod tpu_trace;
pub mod transfer;

pub use buffer::Buffer;
pub use client::{
    CacheStats, Client, SerializedExecutable, CPU_DEVICES_ENV, EXECUTABLE_FORMAT, TPUS_ENV,
};
pub use device::{Device, DeviceKind};
pub use disk_cache::{DiskCache, CACHE_DIR_ENV};
pub use error::{Result, RuntimeError};
pub use executable::{CompileSource, Executable};
pub use options::{CompileOptions, DiskCacheDir};
pub use profile::{Profile, StepTime};
pub use sim::slice::SpmdTpuProgram;
pub use sim::{SimClock, TpuProgram};
pub use spmd_executable::SpmdExecutable;
pub use transfer::HostTransfer;
