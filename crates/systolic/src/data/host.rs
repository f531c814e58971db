//! Host-side elements: [`HostArray`] and the traits that let a pipeline slice a source
//! ([`Slices`]), stack examples into a batch ([`Batch`]) and put a batch on devices
//! ([`ToDevice`]).
//!
//! A pipeline runs on host threads, so its elements are host data, not [`Array`]s: a
//! `HostArray` is dense little-endian bytes with a shape and a dtype (what a `.npy` file holds),
//! cheap to slice along the leading axis and to stack, and copied into a device buffer in one
//! pass. An element is a leaf (`HostArray`), a map of named leaves ([`Features`], tf.data's and
//! grain's dict elements) or a tuple of elements; batching stacks leaf by leaf.

use crate::array::{Array, Repr};
use crate::device::client;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::sharding::{NamedSharding, Placement};
use crate::tree::Tree;
use std::collections::BTreeMap;
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Tensor, TensorType};

/// An array on the host: a shape, a dtype and its elements as dense little-endian bytes in C
/// order (one byte per element for booleans and sub-byte integers), as `.npy` files hold them.
///
/// ```
/// use systolic::data::HostArray;
/// let x = HostArray::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
/// assert_eq!(x.row(1).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 4.0]);
/// let both = HostArray::stack(&[x.row(0).unwrap(), x.row(1).unwrap()]).unwrap();
/// assert_eq!(both, x);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostArray {
    ty: TensorType,
    bytes: Vec<u8>,
}

/// A named set of leaves: the dict element of tf.data and grain (`{"image": …, "label": …}`).
pub type Features = BTreeMap<String, HostArray>;

impl HostArray {
    /// An array from host values and a shape; an error when the counts differ.
    pub fn from_vec<T: Element>(values: Vec<T>, shape: &[i64]) -> Result<HostArray> {
        let ty = TensorType::new(shape.to_vec(), T::DTYPE);
        let n = values.len();
        let buffer = CpuBuffer::new(ty, T::into_storage(values)).map_err(|_| {
            Error::op(
                "data.HostArray",
                format!(
                    "{n} values cannot fill shape {shape:?} ({})",
                    T::DTYPE.numpy_name()
                ),
            )
        })?;
        Ok(HostArray::from_cpu_buffer(&buffer))
    }

    /// A rank-0 array.
    pub fn scalar<T: Element>(value: T) -> HostArray {
        HostArray::from_vec(vec![value], &[]).expect("one value fills a scalar")
    }

    /// An array from its type and dense little-endian bytes; an error when the byte count does
    /// not fit the type.
    pub fn from_le_bytes(ty: TensorType, bytes: Vec<u8>) -> Result<HostArray> {
        let expected = ty.num_elements() * ty.dtype.byte_size().max(1);
        if bytes.len() != expected {
            return Err(Error::op(
                "data.HostArray",
                format!("{ty} needs {expected} bytes, got {}", bytes.len()),
            ));
        }
        Ok(HostArray { ty, bytes })
    }

    /// The array an IR tensor holds.
    pub fn from_tensor(tensor: &Tensor) -> HostArray {
        HostArray {
            ty: tensor.ty().clone(),
            bytes: tensor.to_le_bytes(),
        }
    }

    /// What a `.npy` reader returns.
    pub fn from_raw(raw: systolic_npy::RawArray) -> HostArray {
        HostArray {
            ty: raw.ty,
            bytes: raw.bytes,
        }
    }

    pub(crate) fn from_cpu_buffer(buffer: &CpuBuffer) -> HostArray {
        HostArray {
            ty: buffer.ty().clone(),
            bytes: buffer.to_le_bytes(),
        }
    }

    /// Shape and dtype.
    pub fn ty(&self) -> &TensorType {
        &self.ty
    }

    /// The shape.
    pub fn shape(&self) -> &[i64] {
        &self.ty.shape
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.ty.dtype
    }

    /// The dense little-endian bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The values as `T`; an error naming both dtypes when `T` is not the array's.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let buffer = self.to_cpu_buffer()?;
        T::from_storage(buffer.storage()).ok_or_else(|| {
            Error::op(
                "data.HostArray.to_vec",
                format!(
                    "the array is {}, not {}",
                    self.ty.dtype.numpy_name(),
                    T::DTYPE.numpy_name()
                ),
            )
        })
    }

    /// The exact values as an IR tensor.
    pub fn to_tensor(&self) -> Result<Tensor> {
        Tensor::from_le_bytes(self.ty.clone(), &self.bytes)
            .map_err(|e| Error::Host(format!("data.HostArray: {e}")))
    }

    /// The runtime's host buffer (one conversion pass over the bytes).
    pub fn to_cpu_buffer(&self) -> Result<CpuBuffer> {
        CpuBuffer::from_le_bytes(self.ty.clone(), &self.bytes)
            .map_err(|e| Error::Host(format!("data.HostArray: {e}")))
    }

    /// The number of rows: the leading dimension; an error for a scalar.
    pub fn num_rows(&self) -> Result<usize> {
        match self.ty.shape.first() {
            Some(&n) => Ok(n.max(0) as usize),
            None => Err(Error::op(
                "data.from_tensor_slices",
                format!("cannot slice the scalar {} along a leading axis", self.ty),
            )),
        }
    }

    /// Row `i` of the leading axis (`x[i]`), an array of rank one less.
    pub fn row(&self, i: usize) -> Result<HostArray> {
        let n = self.num_rows()?;
        if i >= n {
            return Err(Error::op(
                "data.HostArray.row",
                format!("row {i} is out of range for {}", self.ty),
            ));
        }
        let width = self.bytes.len() / n;
        Ok(HostArray {
            ty: TensorType::new(self.ty.shape[1..].to_vec(), self.ty.dtype),
            bytes: self.bytes[i * width..(i + 1) * width].to_vec(),
        })
    }

    /// Stacks arrays of one type along a new leading axis (`np.stack`); an error naming the
    /// first array whose type differs, and for no arrays at all.
    pub fn stack(items: &[HostArray]) -> Result<HostArray> {
        let first = items.first().ok_or_else(|| {
            Error::op(
                "data.batch",
                "cannot stack zero arrays (no type to give the batch)",
            )
        })?;
        let mut bytes = Vec::with_capacity(first.bytes.len() * items.len());
        for (k, item) in items.iter().enumerate() {
            if item.ty != first.ty {
                return Err(Error::op(
                    "data.batch",
                    format!(
                        "cannot stack {} (example {k} of the batch) with {} (example 0)",
                        item.ty, first.ty
                    ),
                ));
            }
            bytes.extend_from_slice(&item.bytes);
        }
        let mut shape = vec![items.len() as i64];
        shape.extend_from_slice(&first.ty.shape);
        Ok(HostArray {
            ty: TensorType::new(shape, first.ty.dtype),
            bytes,
        })
    }

    /// The array on a device, or split over a mesh (each device gets its shard).
    ///
    /// ```
    /// use systolic::data::HostArray;
    /// let x = HostArray::from_vec(vec![1i32, 2], &[2]).unwrap();
    /// let a = x.to_array(systolic::default_device()).unwrap();
    /// assert_eq!(a.to_vec::<i32>().unwrap(), vec![1, 2]);
    /// ```
    pub fn to_array(&self, placement: impl Into<Placement>) -> Result<Array> {
        let host = self.to_cpu_buffer()?;
        match placement.into() {
            Placement::Device(d) => {
                let b = client().buffer_from_host(host, d)?;
                Ok(Array::make(self.ty.clone(), false, d, Repr::Concrete(b)))
            }
            Placement::Sharding(s) => put_sharded(&self.ty, host, &s),
        }
    }
}

/// Splits `host` over `sharding`'s devices, one transfer per device.
fn put_sharded(ty: &TensorType, host: CpuBuffer, sharding: &NamedSharding) -> Result<Array> {
    let what = format!("data.prefetch_to_device of {ty}");
    crate::sharding::put_host_sharded(ty, false, host, sharding, &what)
}

/// A source that can be cut along its leading axis into examples
/// ([`Dataset::from_tensor_slices`](super::Dataset::from_tensor_slices)).
pub trait Slices: Send + Sync + 'static {
    /// One example.
    type Item: Send + 'static;
    /// The number of examples; an error when the leaves disagree.
    fn num_slices(&self) -> Result<usize>;
    /// Example `i`.
    fn slice(&self, i: usize) -> Result<Self::Item>;
}

/// An element that examples stack into ([`Dataset::batch`](super::Dataset::batch)): leaf by
/// leaf along a new leading axis.
pub trait Batch: Sized + Send + 'static {
    /// The batch of `items` (at least one).
    fn stack(items: Vec<Self>) -> Result<Self>;
}

/// An element that can be put on devices: each leaf becomes an [`Array`], on one device or
/// split over a mesh ([`Dataset::prefetch_to_device`](super::Dataset::prefetch_to_device)).
pub trait ToDevice: Send + 'static {
    /// The same structure holding arrays.
    type Output: Tree;
    /// Puts every leaf on `placement`.
    fn to_device(&self, placement: &Placement) -> Result<Self::Output>;
    /// Bytes the transfer moves.
    fn num_bytes(&self) -> usize;
}

impl Slices for HostArray {
    type Item = HostArray;
    fn num_slices(&self) -> Result<usize> {
        self.num_rows()
    }
    fn slice(&self, i: usize) -> Result<HostArray> {
        self.row(i)
    }
}

impl Batch for HostArray {
    fn stack(items: Vec<Self>) -> Result<Self> {
        HostArray::stack(&items)
    }
}

impl ToDevice for HostArray {
    type Output = Array;
    fn to_device(&self, placement: &Placement) -> Result<Array> {
        self.to_array(placement.clone())
    }
    fn num_bytes(&self) -> usize {
        self.bytes.len()
    }
}

impl<S: Slices> Slices for BTreeMap<String, S> {
    type Item = BTreeMap<String, S::Item>;
    fn num_slices(&self) -> Result<usize> {
        let mut n: Option<(usize, &str)> = None;
        for (k, v) in self {
            let m = v.num_slices()?;
            match n {
                None => n = Some((m, k)),
                Some((n0, k0)) if n0 != m => {
                    return Err(Error::op(
                        "data.from_tensor_slices",
                        format!("`{k0}` has {n0} rows but `{k}` has {m}"),
                    ))
                }
                _ => {}
            }
        }
        Ok(n.map_or(0, |(n, _)| n))
    }
    fn slice(&self, i: usize) -> Result<Self::Item> {
        self.iter()
            .map(|(k, v)| Ok((k.clone(), v.slice(i)?)))
            .collect()
    }
}

impl<B: Batch> Batch for BTreeMap<String, B> {
    fn stack(items: Vec<Self>) -> Result<Self> {
        let keys: Vec<String> = items
            .first()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let mut columns: BTreeMap<String, Vec<B>> =
            keys.iter().map(|k| (k.clone(), Vec::new())).collect();
        for (j, item) in items.into_iter().enumerate() {
            if !item.keys().eq(keys.iter()) {
                return Err(Error::op(
                    "data.batch",
                    format!(
                        "example {j} of the batch has the keys {:?}, example 0 has {keys:?}",
                        item.keys().collect::<Vec<_>>()
                    ),
                ));
            }
            for (k, v) in item {
                columns.get_mut(&k).expect("keys checked").push(v);
            }
        }
        columns
            .into_iter()
            .map(|(k, v)| Ok((k, B::stack(v)?)))
            .collect()
    }
}

impl<D: ToDevice + Sync> ToDevice for BTreeMap<String, D> {
    type Output = BTreeMap<String, D::Output>;
    fn to_device(&self, placement: &Placement) -> Result<Self::Output> {
        self.iter()
            .map(|(k, v)| Ok((k.clone(), v.to_device(placement)?)))
            .collect()
    }
    fn num_bytes(&self) -> usize {
        self.values().map(ToDevice::num_bytes).sum()
    }
}

macro_rules! tuple_impls {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Slices),+> Slices for ($($name,)+) {
            type Item = ($($name::Item,)+);
            fn num_slices(&self) -> Result<usize> {
                let counts = [$(self.$idx.num_slices()?),+];
                if counts.iter().any(|&c| c != counts[0]) {
                    return Err(Error::op(
                        "data.from_tensor_slices",
                        format!("the tuple's leaves have different row counts {counts:?}"),
                    ));
                }
                Ok(counts[0])
            }
            fn slice(&self, i: usize) -> Result<Self::Item> {
                Ok(($(self.$idx.slice(i)?,)+))
            }
        }

        impl<$($name: Batch),+> Batch for ($($name,)+) {
            #[allow(non_snake_case)]
            fn stack(items: Vec<Self>) -> Result<Self> {
                $(let mut $name = Vec::with_capacity(items.len());)+
                for item in items {
                    $($name.push(item.$idx);)+
                }
                Ok(($($name::stack($name)?,)+))
            }
        }

        impl<$($name: ToDevice + Sync),+> ToDevice for ($($name,)+) {
            type Output = ($($name::Output,)+);
            fn to_device(&self, placement: &Placement) -> Result<Self::Output> {
                Ok(($(self.$idx.to_device(placement)?,)+))
            }
            fn num_bytes(&self) -> usize {
                0 $(+ self.$idx.num_bytes())+
            }
        }
    };
}

tuple_impls!(A 0, B 1);
tuple_impls!(A 0, B 1, C 2);
