//! [`Mesh`]: devices arranged in an n-dimensional grid with named axes, as `jax.sharding.Mesh`.
//! Arrays are split over a mesh's axes ([`NamedSharding`](crate::NamedSharding)) and
//! collectives name the axes they run over (`lax::psum(x, "data")`).

use crate::error::{Error, Result};
use std::fmt;
use std::sync::Arc;
use systolic_runtime::{Device, DeviceKind};

/// Devices in a grid with named axes, major to minor. Device `d` of the mesh (row-major over
/// the axes) is `devices()[d]`; it is partition `d` of the programs a
/// [`shard_map`](crate::shard_map) over the mesh runs.
///
/// ```
/// use systolic::Mesh;
/// let devices = vec![systolic::default_device(); 1];
/// let mesh = Mesh::new(devices, &[1, 1], &["data", "model"]).unwrap();
/// assert_eq!(mesh.axis_size("model").unwrap(), 1);
/// assert_eq!(mesh.to_string(), "Mesh('data': 1, 'model': 1)");
/// assert!(mesh.axis_size("batch").unwrap_err().to_string().contains("no axis 'batch'"));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Mesh {
    inner: Arc<MeshInner>,
}

#[derive(PartialEq, Eq, Hash)]
struct MeshInner {
    devices: Vec<Device>,
    names: Vec<String>,
    shape: Vec<usize>,
}

impl Mesh {
    /// A mesh of `devices` (row-major over `shape`) with axis `names`. The number of devices
    /// must be the product of the shape, names must be distinct, and a device may appear once.
    pub fn new(devices: Vec<Device>, shape: &[usize], names: &[&str]) -> Result<Mesh> {
        let bad = |m: String| Error::op("Mesh", m);
        if shape.len() != names.len() {
            return Err(bad(format!(
                "the shape {shape:?} has {} axes but {} names were given ({names:?})",
                shape.len(),
                names.len()
            )));
        }
        if let Some(i) = shape.iter().position(|&s| s == 0) {
            return Err(bad(format!("axis '{}' has size 0", names[i])));
        }
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() {
                return Err(bad("an axis name is empty".into()));
            }
            if names[..i].contains(n) {
                return Err(bad(format!(
                    "the axis name '{n}' appears twice in {names:?}"
                )));
            }
        }
        let count: usize = shape.iter().product();
        if devices.len() != count {
            return Err(bad(format!(
                "a mesh of shape {shape:?} needs {count} devices, {} were given",
                devices.len()
            )));
        }
        for (i, d) in devices.iter().enumerate() {
            if devices[..i].contains(d) {
                return Err(bad(format!("device {d} appears twice")));
            }
        }
        if let Some(d) = devices.iter().find(|d| d.kind() != devices[0].kind()) {
            return Err(bad(format!(
                "devices of different kinds ({} and {d}) cannot form one mesh",
                devices[0]
            )));
        }
        Ok(Mesh {
            inner: Arc::new(MeshInner {
                devices,
                names: names.iter().map(|s| s.to_string()).collect(),
                shape: shape.to_vec(),
            }),
        })
    }

    /// The devices, row-major over the axes.
    pub fn devices(&self) -> &[Device] {
        &self.inner.devices
    }

    /// The axis names, major to minor.
    pub fn axis_names(&self) -> &[String] {
        &self.inner.names
    }

    /// The axis sizes, major to minor (`mesh.devices.shape` in JAX).
    pub fn axis_sizes(&self) -> &[usize] {
        &self.inner.shape
    }

    /// `(name, size)` per axis (JAX's `mesh.shape`).
    pub fn shape(&self) -> Vec<(String, usize)> {
        self.inner
            .names
            .iter()
            .cloned()
            .zip(self.inner.shape.iter().copied())
            .collect()
    }

    /// The number of devices.
    pub fn size(&self) -> usize {
        self.inner.devices.len()
    }

    /// The position of axis `name`, or an error naming the mesh's axes.
    pub fn axis_index(&self, name: &str) -> Result<usize> {
        self.inner
            .names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| {
                Error::op(
                    "Mesh",
                    format!(
                        "the mesh has no axis '{name}' (its axes: {})",
                        self.axis_list()
                    ),
                )
            })
    }

    /// The size of axis `name`.
    pub fn axis_size(&self, name: &str) -> Result<usize> {
        Ok(self.inner.shape[self.axis_index(name)?])
    }

    /// `'data': 4, 'model': 2`, how errors name the axes.
    pub(crate) fn axis_list(&self) -> String {
        self.inner
            .names
            .iter()
            .zip(&self.inner.shape)
            .map(|(n, s)| format!("'{n}': {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The coordinates of mesh device `d` (row-major), one per axis.
    pub fn coords(&self, d: usize) -> Vec<usize> {
        let mut rest = d;
        let mut out = vec![0; self.inner.shape.len()];
        for (i, &s) in self.inner.shape.iter().enumerate().rev() {
            out[i] = rest % s;
            rest /= s;
        }
        out
    }

    /// The mesh device at `coords` (row-major).
    pub fn device_at(&self, coords: &[usize]) -> usize {
        coords
            .iter()
            .zip(&self.inner.shape)
            .fold(0, |acc, (&c, &s)| acc * s + c)
    }

    /// The groups of mesh devices that differ only in the coordinates of `axes` (the groups a
    /// collective over `axes` runs in), each ordered by the coordinates of `axes` in the
    /// order given (major first). Groups are ordered by the other coordinates.
    pub(crate) fn groups(&self, axes: &[usize]) -> Vec<Vec<usize>> {
        let rank = self.inner.shape.len();
        let others: Vec<usize> = (0..rank).filter(|a| !axes.contains(a)).collect();
        let count = |dims: &[usize]| dims.iter().map(|&a| self.inner.shape[a]).product::<usize>();
        let unflatten = |mut i: usize, dims: &[usize], coords: &mut [usize]| {
            for &a in dims.iter().rev() {
                coords[a] = i % self.inner.shape[a];
                i /= self.inner.shape[a];
            }
        };
        let mut groups = vec![];
        for o in 0..count(&others) {
            let mut coords = vec![0; rank];
            unflatten(o, &others, &mut coords);
            let group = (0..count(axes))
                .map(|m| {
                    unflatten(m, axes, &mut coords);
                    self.device_at(&coords)
                })
                .collect();
            groups.push(group);
        }
        groups
    }
}

impl fmt::Display for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mesh({})", self.axis_list())
    }
}

impl fmt::Debug for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let devices: Vec<String> = self.inner.devices.iter().map(|d| d.to_string()).collect();
        write!(
            f,
            "Mesh({}; devices [{}])",
            self.axis_list(),
            devices.join(", ")
        )
    }
}

/// `jax.make_mesh`: a mesh of the given shape and axis names over the first devices of the
/// default device's kind (the host CPU devices `cpu:0…`, as many as `SYSTOLIC_CPU_DEVICES`
/// asks for). An error says how many devices there are when the shape needs more.
///
/// ```
/// let mesh = systolic::make_mesh(&[1], &["data"]).unwrap();
/// assert_eq!(mesh.devices(), &[systolic::default_device()]);
/// let err = systolic::make_mesh(&[4096], &["data"]).unwrap_err().to_string();
/// assert!(err.contains("4096 devices"), "{err}");
/// ```
pub fn make_mesh(shape: &[usize], names: &[&str]) -> Result<Mesh> {
    let kind = crate::default_device().kind();
    make_mesh_of(kind, shape, names)
}

/// [`make_mesh`] over the devices of `kind` (`DeviceKind::Tpu`: the simulated chips, in the
/// client's order; for a slice, row-major over its topology).
pub fn make_mesh_of(kind: DeviceKind, shape: &[usize], names: &[&str]) -> Result<Mesh> {
    let available: Vec<Device> = crate::devices()
        .into_iter()
        .filter(|d| d.kind() == kind)
        .collect();
    let count: usize = shape.iter().product();
    if count > available.len() {
        return Err(Error::op(
            "make_mesh",
            format!(
                "a mesh of shape {shape:?} needs {count} devices, but there are {} {} devices \
                 (set SYSTOLIC_CPU_DEVICES={count} for host CPU devices, as XLA's \
                 --xla_force_host_platform_device_count)",
                available.len(),
                kind.name()
            ),
        ));
    }
    Mesh::new(available[..count].to_vec(), shape, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(shape: &[usize]) -> Mesh {
        // Device identity does not matter for the index arithmetic; distinct ones are needed.
        let names: Vec<String> = (0..shape.len()).map(|i| format!("a{i}")).collect();
        let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let n: usize = shape.iter().product();
        let devices = systolic_runtime::Client::cpu_devices(n).devices().to_vec();
        Mesh::new(devices, shape, &refs).unwrap()
    }

    #[test]
    fn coords_round_trip_row_major() {
        let m = mesh(&[2, 3, 2]);
        for d in 0..12 {
            assert_eq!(m.device_at(&m.coords(d)), d);
        }
        assert_eq!(m.coords(7), vec![1, 0, 1]);
    }

    #[test]
    fn groups_over_axes() {
        let m = mesh(&[4, 2]);
        assert_eq!(m.groups(&[0]), vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]);
        assert_eq!(
            m.groups(&[1]),
            vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]
        );
        assert_eq!(m.groups(&[0, 1]), vec![(0..8).collect::<Vec<_>>()]);
        // Minor axis first: the group is ordered by axis 1, then axis 0.
        assert_eq!(m.groups(&[1, 0]), vec![vec![0, 2, 4, 6, 1, 3, 5, 7]]);
    }
}
