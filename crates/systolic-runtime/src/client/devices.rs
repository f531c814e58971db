//! Which devices a client has: host CPU devices, independent simulated chips, the chips of
//! simulated slices, and the environment variables that choose them.
//!
//! Devices come in a fixed order: the CPU devices `cpu:0…N-1` first, then the TPU chips in the
//! order asked for. A TPU device's index counts the client's chips of its generation, so
//! `v5e:2x2,v5e:2` gives a slice `tpu:v5e:0…3` and two independent chips `tpu:v5e:4`, `:5`.

use super::Client;
use crate::device::{Device, DeviceKind};
use crate::sim;
use systolic_tpu::slice::{Slice, SliceError};
use systolic_tpu::TpuError;

/// The environment variable [`Client::from_env`] reads for simulated TPUs, comma-separated:
/// independent chips as `CHIP[:COUNT]` (`v5e,v5p:4`) and slices as `CHIP:AxB[xC][*N]`
/// (`v5e:4x2`, `v5p:2x2x2*2`: an `x` in the shape makes it a topology, not a count); empty or
/// `none` for no TPU; unset for [`Client::with_default_tpus`].
pub const TPUS_ENV: &str = "SYSTOLIC_TPUS";

/// The environment variable [`Client::from_env`] reads for the number of host CPU devices
/// (as XLA's `--xla_force_host_platform_device_count`): a count of at least 1; unset or empty
/// for 1.
pub const CPU_DEVICES_ENV: &str = "SYSTOLIC_CPU_DEVICES";

/// One item of a TPU list.
#[derive(Clone, Debug, PartialEq)]
enum TpuItem {
    /// `count` independent chips of a generation.
    Chips(String, usize),
    /// The chips of a slice (boxed: a slice carries its chip's whole spec sheet).
    Slice(Box<Slice>),
}

/// Devices being gathered for a client, with the next index of each TPU generation.
struct DeviceList {
    devices: Vec<Device>,
    next: Vec<(&'static str, usize)>,
}

impl DeviceList {
    /// `cpu:0…cpus-1`.
    fn cpus(cpus: usize) -> DeviceList {
        DeviceList {
            devices: (0..cpus.max(1))
                .map(|k| Device::new(DeviceKind::Cpu, k))
                .collect(),
            next: vec![],
        }
    }

    /// Reserves `count` indices of generation `chip` and returns the first.
    fn reserve(&mut self, chip: &'static str, count: usize) -> usize {
        match self.next.iter_mut().find(|(c, _)| *c == chip) {
            Some((_, n)) => {
                *n += count;
                *n - count
            }
            None => {
                self.next.push((chip, count));
                0
            }
        }
    }

    fn chips(&mut self, name: &str, count: usize) -> Result<(), TpuError> {
        let chip = systolic_tpu::chip(name)?;
        let first = self.reserve(chip.name, count);
        for index in first..first + count {
            let id = sim::register(chip.clone(), index)?;
            self.devices.push(Device::simulated(index, id));
        }
        Ok(())
    }

    fn slice(&mut self, slice: Slice) -> Result<(), SliceError> {
        let first = self.reserve(slice.chip().name, slice.total_chips() as usize);
        let ids = sim::slice::register_slice(slice, first)?;
        for (k, id) in ids.into_iter().enumerate() {
            self.devices.push(Device::simulated(first + k, id));
        }
        Ok(())
    }

    fn add(&mut self, items: &[TpuItem]) -> Result<(), String> {
        for item in items {
            match item {
                TpuItem::Chips(name, count) => {
                    self.chips(name, *count).map_err(|e| e.to_string())?
                }
                TpuItem::Slice(slice) => self
                    .slice(slice.as_ref().clone())
                    .map_err(|e| e.to_string())?,
            }
        }
        Ok(())
    }

    fn client(self) -> Client {
        Client::with_devices(self.devices)
    }
}

impl Client {
    /// A client of the host CPU, with one device `cpu:0` (its kernels use every core).
    pub fn cpu() -> Client {
        Client::cpu_devices(1)
    }

    /// A client of the host CPU as `n` devices `cpu:0…cpu:n-1` (XLA's
    /// `--xla_force_host_platform_device_count`; `n = 0` is taken as 1). They share the one
    /// CPU backend and its thread pool: a device is a placement for buffers and SPMD
    /// processes, not a thread. Single-device executables are compiled once for every CPU
    /// device (the compile caches key on the device kind).
    ///
    /// ```
    /// let client = systolic_runtime::Client::cpu_devices(4);
    /// let names: Vec<String> = client.devices().iter().map(|d| d.to_string()).collect();
    /// assert_eq!(names, ["cpu:0", "cpu:1", "cpu:2", "cpu:3"]);
    /// assert_eq!(client.device("cpu:3").unwrap().index(), 3);
    /// assert!(client.device("cpu:4").is_err());
    /// ```
    pub fn cpu_devices(n: usize) -> Client {
        DeviceList::cpus(n).client()
    }

    /// The CPU and simulated TPU chips: `count` devices `tpu:CHIP:0…` of each `(chip, count)`
    /// (chips by name or alias, as `systolic chips` lists them). Fails for an unknown chip or
    /// one that does not publish a figure the device needs (PCIe bandwidth, HBM capacity and
    /// bandwidth, bf16 peak). The chips are independent, each on its own clock, with no torus
    /// between them ([`Client::with_slice`] makes one).
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_tpus(&[("v5e", 1), ("v5p", 4)]).unwrap();
    /// let names: Vec<String> = client.devices().iter().map(|d| d.to_string()).collect();
    /// assert_eq!(names, ["cpu:0", "tpu:v5e:0", "tpu:v5p:0", "tpu:v5p:1", "tpu:v5p:2", "tpu:v5p:3"]);
    /// assert_eq!(client.device("tpu:v5e").unwrap(), client.devices()[1]);
    /// assert_eq!(client.device("tpu:v5p:3").unwrap().simulated_time(), Some(0.0));
    /// assert!(systolic_runtime::Client::with_tpus(&[("tpu7x", 1)]).is_err());
    /// ```
    pub fn with_tpus(tpus: &[(&str, usize)]) -> Result<Client, TpuError> {
        let mut list = DeviceList::cpus(1);
        for &(name, count) in tpus {
            list.chips(name, count)?;
        }
        Ok(list.client())
    }

    /// The CPU and the chips of a simulated slice (`v5e:4x2`, `v5p:2x2x2`, `v4:2x2x2`,
    /// multi-slice `v5p:2x2x2*2`; see [`Slice::parse`]): devices `tpu:CHIP:0…` in the slice's
    /// device order (row-major over the topology, slice-major across slices), each knowing
    /// its [`Device::coords`], [`Device::slice_index`] and [`Device::process_index`].
    /// [`Client::compile_spmd`] on all of them costs collectives on the slice's torus.
    ///
    /// ```
    /// let client = systolic_runtime::Client::with_slice("v5e:4x2").unwrap();
    /// assert_eq!(client.devices().len(), 1 + 8);
    /// let last = client.device("tpu:v5e:7").unwrap();
    /// assert_eq!(last.coords(), Some(vec![3, 1]));
    /// assert_eq!(last.process_index(), 0); // a v5e host has 8 chips
    /// assert!(systolic_runtime::Client::with_slice("v5e:4").is_err()); // a count, not a shape
    /// ```
    pub fn with_slice(spec: &str) -> Result<Client, SliceError> {
        let mut list = DeviceList::cpus(1);
        list.slice(Slice::parse(spec)?)?;
        Ok(list.client())
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
        Client::from_spec(1, None).unwrap_or_else(|_| Client::cpu())
    }

    /// `cpu_devices` CPU devices and the TPUs `tpus` names, in [`TPUS_ENV`]'s syntax
    /// (`v5e:4x2,v5p:4`; empty or `none` for no TPU; `None` for one of every chip of
    /// [`Client::default_tpu_chips`]). `cpu_devices = 0` is an error, as is a malformed list
    /// (the message says why).
    ///
    /// ```
    /// use systolic_runtime::Client;
    /// let client = Client::from_spec(2, Some("v5e:2x2,v6e")).unwrap();
    /// let names: Vec<String> = client.devices().iter().map(|d| d.to_string()).collect();
    /// assert_eq!(names, ["cpu:0", "cpu:1", "tpu:v5e:0", "tpu:v5e:1", "tpu:v5e:2", "tpu:v5e:3", "tpu:v6e:0"]);
    /// assert!(client.device("tpu:v6e:0").unwrap().coords().is_none()); // an independent chip
    /// assert!(Client::from_spec(0, None).is_err());
    /// assert!(Client::from_spec(1, Some("v5e:4x4x4")).unwrap_err().contains("2D"));
    /// ```
    pub fn from_spec(cpu_devices: usize, tpus: Option<&str>) -> Result<Client, String> {
        if cpu_devices == 0 {
            return Err("a client needs at least one CPU device".into());
        }
        let items = match tpus {
            Some(spec) => parse_tpus(spec)?,
            None => Client::default_tpu_chips()
                .into_iter()
                .map(|c| TpuItem::Chips(c.to_string(), 1))
                .collect(),
        };
        let mut list = DeviceList::cpus(cpu_devices);
        list.add(&items)?;
        Ok(list.client())
    }

    /// The client the environment asks for: [`CPU_DEVICES_ENV`] CPU devices (default 1) and
    /// the TPUs of [`TPUS_ENV`] (unset: one of every chip of [`Client::default_tpu_chips`];
    /// empty or `none`: no TPU). A malformed value is an error naming the variable and saying
    /// why.
    ///
    /// ```
    /// // With neither variable set: cpu:0 and one chip of each usable generation.
    /// if std::env::var_os("SYSTOLIC_TPUS").is_none() && std::env::var_os("SYSTOLIC_CPU_DEVICES").is_none() {
    ///     let client = systolic_runtime::Client::from_env().unwrap();
    ///     assert_eq!(client.devices()[0].to_string(), "cpu:0");
    ///     assert!(client.device("tpu:v5e:0").is_ok());
    /// }
    /// ```
    pub fn from_env() -> Result<Client, String> {
        let cpus = match std::env::var(CPU_DEVICES_ENV) {
            Err(_) => 1,
            Ok(v) => parse_cpu_devices(&v).map_err(|e| format!("{CPU_DEVICES_ENV}={v}: {e}"))?,
        };
        let tpus = std::env::var(TPUS_ENV).ok();
        Client::from_spec(cpus, tpus.as_deref()).map_err(|e| match &tpus {
            Some(v) => format!("{TPUS_ENV}={v}: {e}"),
            None => e,
        })
    }
}

/// A CPU device count: at least 1; empty for 1.
fn parse_cpu_devices(value: &str) -> Result<usize, String> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(1);
    }
    match value.parse::<usize>() {
        Ok(0) => Err("the number of CPU devices must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "`{value}` is not a number of CPU devices (write a count such as 8)"
        )),
    }
}

/// Parses `v5e,v5p:4,v5e:4x2` into chips with counts (a missing count is 1) and slices (an
/// `x` in what follows the chip).
fn parse_tpus(spec: &str) -> Result<Vec<TpuItem>, String> {
    let spec = spec.trim();
    if spec.is_empty() || spec.eq_ignore_ascii_case("none") {
        return Ok(vec![]);
    }
    spec.split(',')
        .map(|item| {
            let item = item.trim();
            let item = item.strip_prefix("tpu:").unwrap_or(item);
            match item.split_once(':') {
                None => Ok(TpuItem::Chips(item.to_string(), 1)),
                Some((_, rest)) if rest.contains(['x', 'X']) => Slice::parse(item)
                    .map(|s| TpuItem::Slice(Box::new(s)))
                    .map_err(|e| e.to_string()),
                Some((chip, n)) => n
                    .trim()
                    .parse::<usize>()
                    .map(|n| TpuItem::Chips(chip.to_string(), n))
                    .map_err(|_| {
                        format!(
                            "`{n}` is neither a device count nor a slice topology (write \
                             CHIP[:COUNT] or CHIP:AxB[xC][*SLICES], e.g. v5e:4 or v5e:4x2)"
                        )
                    }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chips(name: &str, n: usize) -> TpuItem {
        TpuItem::Chips(name.to_string(), n)
    }

    #[test]
    fn tpu_lists() {
        assert_eq!(parse_tpus("").unwrap(), vec![]);
        assert_eq!(parse_tpus("none").unwrap(), vec![]);
        assert_eq!(
            parse_tpus("v5e, tpu:v5p:4").unwrap(),
            vec![chips("v5e", 1), chips("v5p", 4)]
        );
        assert!(parse_tpus("v5e:x").unwrap_err().contains("not a size"));
        assert!(parse_tpus("v5e:y").unwrap_err().contains("`y`"));
        assert_eq!(
            parse_tpus("v5e:4x2, v5p:2x2x2*2, v4").unwrap(),
            vec![
                TpuItem::Slice(Box::new(Slice::parse("v5e:4x2").unwrap())),
                TpuItem::Slice(Box::new(Slice::parse("v5p:2x2x2*2").unwrap())),
                chips("v4", 1)
            ]
        );
        assert!(parse_tpus("v5p:2x2").unwrap_err().contains("3D"));
    }

    #[test]
    fn cpu_device_counts() {
        assert_eq!(parse_cpu_devices("8"), Ok(8));
        assert_eq!(parse_cpu_devices(" 2 "), Ok(2));
        assert_eq!(parse_cpu_devices(""), Ok(1));
        assert!(parse_cpu_devices("0").unwrap_err().contains("at least 1"));
        assert!(parse_cpu_devices("four").unwrap_err().contains("`four`"));
        assert!(parse_cpu_devices("-1").is_err());
    }
}
