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
static CPU_DEVICES: OnceLock<usize> = OnceLock::new();
static TPUS: OnceLock<String> = OnceLock::new();

/// The runtime client the front end uses (one per process, created on first use): the host
/// CPU devices ([`set_cpu_devices`], else `SYSTOLIC_CPU_DEVICES`, else one) and the simulated
/// TPUs of `SYSTOLIC_TPUS`.
pub fn client() -> &'static Client {
    CLIENT.get_or_init(|| {
        let made = if CPU_DEVICES.get().is_none() && TPUS.get().is_none() {
            Client::from_env()
        } else {
            let cpus = match CPU_DEVICES.get() {
                Some(&n) => Ok(n),
                None => cpu_devices_from_env(),
            };
            let tpus = TPUS
                .get()
                .cloned()
                .or_else(|| std::env::var(systolic_runtime::TPUS_ENV).ok());
            cpus.and_then(|n| Client::from_spec(n, tpus.as_deref()))
        };
        made.unwrap_or_else(|e| {
            eprintln!("systolic: {e}; using the default devices");
            Client::with_default_tpus()
        })
    })
}

/// How many host CPU devices (`cpu:0 … cpu:N-1`) the process has, as JAX's
/// `jax.config.update("jax_num_cpu_devices", n)`: call it before anything touches a device.
/// Once the client exists its devices are fixed, and asking for another count is an error.
///
/// ```
/// // In a fresh process: systolic::set_cpu_devices(8).unwrap();
/// let n = systolic::devices().iter().filter(|d| d.kind() == systolic_runtime::DeviceKind::Cpu).count();
/// assert!(systolic::set_cpu_devices(n).is_ok()); // the count it already has
/// assert!(systolic::set_cpu_devices(n + 1).unwrap_err().to_string().contains("already"));
/// ```
pub fn set_cpu_devices(n: usize) -> Result<()> {
    let bad = |m: String| crate::error::Error::op("set_cpu_devices", m);
    if n == 0 {
        return Err(bad("the number of CPU devices must be at least 1".into()));
    }
    if let Some(c) = CLIENT.get() {
        let have = c
            .devices()
            .iter()
            .filter(|d| d.kind() == systolic_runtime::DeviceKind::Cpu)
            .count();
        return if have == n {
            Ok(())
        } else {
            Err(bad(format!(
                "the client already exists with {have} CPU devices; call set_cpu_devices({n}) \
                 before the first array or device is made"
            )))
        };
    }
    let _ = CPU_DEVICES.set(n);
    match CPU_DEVICES.get() {
        Some(&m) if m != n => Err(bad(format!("{m} CPU devices were already requested"))),
        _ => Ok(()),
    }
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

/// `SYSTOLIC_CPU_DEVICES`, or 1 (its errors are the runtime's, so use the runtime's parse).
fn cpu_devices_from_env() -> std::result::Result<usize, String> {
    match std::env::var(systolic_runtime::CPU_DEVICES_ENV) {
        Err(_) => Ok(1),
        Ok(_) => Client::from_env().map(|c| {
            c.devices()
                .iter()
                .filter(|d| d.kind() == systolic_runtime::DeviceKind::Cpu)
                .count()
        }),
    }
}

/// Which simulated TPUs the process has, in `SYSTOLIC_TPUS`'s syntax (`v5e:4x2` for a slice,
/// `v5p:4,v5e` for independent chips, `none`): call it before anything touches a device, as
/// [`set_cpu_devices`]. Once the client exists, asking again is an error.
///
/// ```
/// // In a fresh process: systolic::set_tpus("v5e:4x2").unwrap();
/// let _ = systolic::devices(); // the client now exists
/// assert!(systolic::set_tpus("v5e:4x2").unwrap_err().to_string().contains("already"));
/// ```
pub fn set_tpus(spec: &str) -> Result<()> {
    let bad = |m: String| crate::error::Error::op("set_tpus", m);
    if CLIENT.get().is_some() {
        return Err(bad(format!(
            "the client already exists; call set_tpus(\"{spec}\") before the first array or \
             device is made"
        )));
    }
    let _ = TPUS.set(spec.to_string());
    match TPUS.get() {
        Some(s) if s != spec => Err(bad(format!("TPUs \"{s}\" were already requested"))),
        _ => Ok(()),
    }
}
