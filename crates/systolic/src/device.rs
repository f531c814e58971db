//! The process's runtime client and its devices. Every [`Array`](crate::Array) lives on a
//! device; ops without array operands (constants, `iota`) use the default device, the CPU.
//!
//! Besides `cpu:0` the client has simulated TPU chips (`tpu:v5e:0`, …): arrays put there with
//! [`Array::device_put`](crate::Array::device_put) are computed on the host with TPU numerics
//! (f32 products as one bf16 pass at DEFAULT precision) while the device's simulated clock
//! advances by the cost model ([`Device::simulated_time`]). By default there is one device per
//! chip whose figures are published (v3, v4, v5e, v5p, v6e); `SYSTOLIC_TPUS=v5p:4,v5e` asks for
//! others, `SYSTOLIC_TPUS=none` for the CPU alone.

use crate::error::Result;
use std::sync::OnceLock;
use systolic_runtime::{Client, Device};

static CLIENT: OnceLock<Client> = OnceLock::new();

/// The runtime client the front end uses (one per process, created on first use).
pub fn client() -> &'static Client {
    CLIENT.get_or_init(|| {
        Client::from_env().unwrap_or_else(|e| {
            eprintln!("systolic: {e}; using the default devices");
            Client::with_default_tpus()
        })
    })
}

/// The available devices: `cpu:0` first, then the simulated TPUs.
///
/// ```
/// let devices = systolic::devices();
/// assert_eq!(devices[0].to_string(), "cpu:0");
/// # if std::env::var_os("SYSTOLIC_TPUS").is_none() {
/// assert!(devices.iter().any(|d| d.to_string() == "tpu:v5e:0"));
/// # }
/// ```
pub fn devices() -> Vec<Device> {
    client().devices().to_vec()
}

/// The device arrays are created on unless one is named.
///
/// ```
/// assert_eq!(systolic::default_device(), systolic::devices()[0]);
/// ```
pub fn default_device() -> Device {
    client().devices()[0]
}

/// The device called `name` (`cpu:0`, `tpu:v5e:0`; `tpu:v5e` is `tpu:v5e:0`).
///
/// ```
/// assert!(systolic::device("cpu:0").is_ok());
/// assert!(systolic::device("tpu:9").is_err());
/// ```
pub fn device(name: &str) -> Result<Device> {
    Ok(client().device(name)?)
}
