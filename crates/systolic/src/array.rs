//! [`Array`]: the value users hold. An array is concrete (a runtime buffer on a device),
//! traced (a value of the function a [`jit`](crate::jit) trace is building), or failed (it
//! carries the first error of the op chain that made it, reported by the next call that
//! returns a `Result`).

use crate::core::dispatch::Pending;
use crate::device::{client, default_device};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::sharding::NamedSharding;
use std::sync::{Arc, OnceLock};
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Tensor, TensorType, ValueId};
use systolic_runtime::{Buffer, Device};

/// What an array is, underneath.
#[derive(Clone)]
pub(crate) enum Repr {
    /// Data on a device.
    Concrete(Buffer),
    /// The result of an eager op still queued or running.
    Pending(Arc<Pending>),
    /// A value of the function trace `trace` is building.
    Traced { trace: u64, value: ValueId },
    /// The first error of the op chain that made this array.
    Failed(Error),
    /// Pieces on the devices of a mesh ([`device_put`](crate::device_put) with a
    /// [`NamedSharding`], or the result of a [`shard_map`](crate::shard_map)).
    Sharded(Arc<Shards>),
}

/// A sharded array's pieces: one single-device array per mesh device (concrete or still being
/// computed), and the global array once someone asked for it whole.
pub(crate) struct Shards {
    pub(crate) sharding: NamedSharding,
    /// `pieces[d]` is held by mesh device `d`.
    pub(crate) pieces: Vec<Array>,
    assembled: OnceLock<Result<Buffer>>,
}

impl Shards {
    pub(crate) fn new(sharding: NamedSharding, pieces: Vec<Array>) -> Shards {
        Shards {
            sharding,
            pieces,
            assembled: OnceLock::new(),
        }
    }
}

pub(crate) struct Inner {
    pub(crate) ty: TensorType,
    pub(crate) weak: bool,
    pub(crate) device: Device,
    pub(crate) repr: Repr,
    /// Set (by the caller's thread, when the call is made) once the array was donated to a
    /// `jit` call ([`Jit::donate_argnums`](crate::Jit::donate_argnums)): its data belongs to
    /// that execution, and every clone reports it deleted.
    pub(crate) donated_to: std::sync::OnceLock<String>,
}

/// An n-dimensional array with a shape, a dtype, a weak-type flag and a device.
///
/// Cloning is cheap (a reference count). Arithmetic follows numpy broadcasting and JAX's type
/// promotion; Rust scalars are weakly typed as JAX's Python scalars are.
///
/// An op that fails (shapes that do not broadcast, a bad axis, …) returns a *failed* array
/// that carries the error, so that operator syntax stays light; ops given a failed array
/// return one carrying the first error, and the next call that returns a `Result` (`to_vec`,
/// `jit(…).call`, [`check`](Array::check)) reports it. A failed array has no shape or dtype:
/// [`shape`](Array::shape), [`ndim`](Array::ndim), [`size`](Array::size),
/// [`dtype`](Array::dtype) and [`ty`](Array::ty) raise its error where JAX would have raised
/// at the op (out of the traced function under `jit`/`grad`/`vmap`, whose `call` returns it;
/// a panic with the error outside a trace). Call `.check()?` to handle it.
///
/// ```
/// use systolic::Array;
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
/// let b = Array::from_vec(vec![10.0f32, 20.0, 30.0], &[3]);
/// let c = &a + &b; // broadcasts (2,3) + (3,)
/// assert_eq!(c.shape(), &[2, 3]);
/// assert_eq!(c.to_vec::<f32>().unwrap(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// let d = (&a * 2.0) - 1.0; // weak scalars keep f32
/// assert_eq!(d.dtype(), systolic_ir::DType::F32);
/// assert_eq!(d.to_vec::<f32>().unwrap()[..3], [1.0, 3.0, 5.0]);
/// // A failed op: its error, not a made-up shape.
/// let bad = &a + &Array::from_vec(vec![1.0f32; 4], &[4]);
/// assert!(bad.check().unwrap_err().to_string().contains("add"));
/// let f = systolic::jit(|x: &Array| {
///     let y = x + &Array::from_vec(vec![1.0f32; 4], &[4]);
///     // shape() raises the add's error: this line never indexes a made-up shape.
///     systolic::numpy::reshape(&y, &[y.shape()[0], -1])
/// });
/// let err = f.call(&a).unwrap_err().to_string();
/// assert!(err.contains("add") && err.contains("float32[2,3]"), "{err}");
/// ```
#[derive(Clone)]
pub struct Array {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.inner.repr {
            Repr::Concrete(_) => "concrete",
            Repr::Pending(_) => "pending",
            Repr::Traced { .. } => "traced",
            Repr::Failed(_) => "failed",
            Repr::Sharded(_) => "sharded",
        };
        write!(
            f,
            "Array({}{}, {kind}, {})",
            describe(&self.inner.ty),
            if self.inner.weak { " weak" } else { "" },
            self.inner.device
        )?;
        if let Repr::Failed(e) = &self.inner.repr {
            write!(f, ": {e}")?;
        }
        Ok(())
    }
}

/// What a compile cache keys an argument by: its type (`float32[2,3]`), `~` when weakly
/// typed, and its sharding when it has one (shared by `jit` and `shard_map`/`pmap`).
pub(crate) fn abstract_value(a: &Array) -> String {
    format!(
        "{}{}{}",
        describe(a.aval()),
        if a.weak_type() { "~" } else { "" },
        a.sharding().map_or(String::new(), |s| format!(" {s}"))
    )
}

/// `f32[2,3]`, the way errors name an array's type.
pub(crate) fn describe(ty: &TensorType) -> String {
    let dims: Vec<String> = ty.shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", ty.dtype.numpy_name(), dims.join(","))
}

impl Array {
    pub(crate) fn make(ty: TensorType, weak: bool, device: Device, repr: Repr) -> Array {
        Array {
            inner: Arc::new(Inner {
                ty,
                weak,
                device,
                repr,
                donated_to: std::sync::OnceLock::new(),
            }),
        }
    }

    /// The error of using an array donated to `label`, JAX's "Array has been deleted".
    fn deleted_error(&self, label: &str) -> Error {
        Error::op(
            label,
            format!(
                "Array has been deleted: this {} was donated to the call (donate_argnums), so \
                 its buffer may hold the call's results; use the results instead",
                describe(&self.inner.ty)
            ),
        )
    }

    /// Marks the array donated to the call `label` (every clone sees it).
    pub(crate) fn mark_donated(&self, label: &str) {
        let _ = self.inner.donated_to.set(label.to_string());
    }

    /// True once the array was donated to a `jit` call (JAX's `x.is_deleted()`): its data is
    /// gone, and every use is an error saying so.
    ///
    /// ```
    /// use systolic::{jit, Arg, Array};
    /// let step = jit(|(w, g): &(Array, Array)| w - g).donate_argnums(Arg::<0>);
    /// let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    /// let w2 = step.call(&(w.clone(), Array::from_vec(vec![0.5f32, 0.5], &[2]))).unwrap();
    /// assert!(w.is_deleted() && !w2.is_deleted());
    /// assert!(w.to_vec::<f32>().unwrap_err().to_string().contains("Array has been deleted"));
    /// assert_eq!(w2.to_vec::<f32>().unwrap(), vec![0.5, 1.5]);
    /// ```
    pub fn is_deleted(&self) -> bool {
        self.inner.donated_to.get().is_some()
    }

    /// The address of the array's data in host memory, as JAX's
    /// `jax.Array.unsafe_buffer_pointer()`: waits for the data; an error for a deleted, failed
    /// or traced array, or a sharded one (JAX asks for one shard). A donated parameter's
    /// update is written into the donated buffer, so the result has its address.
    ///
    /// ```
    /// use systolic::{jit, Arg, Array};
    /// let step = jit(|(w, g): &(Array, Array)| w - g).donate_argnums(Arg::<0>);
    /// let w = Array::from_vec(vec![1.0f32; 1024], &[1024]);
    /// let at = w.unsafe_buffer_pointer().unwrap();
    /// let w = step.call(&(w, Array::from_vec(vec![0.5f32; 1024], &[1024]))).unwrap();
    /// assert_eq!(w.unsafe_buffer_pointer().unwrap(), at);
    /// ```
    pub fn unsafe_buffer_pointer(&self) -> Result<usize> {
        if let Repr::Sharded(_) = &self.inner.repr {
            return Err(Error::op(
                "unsafe_buffer_pointer",
                format!(
                    "the {} is sharded over several devices: ask one of its \
                     addressable_shards() for its pointer",
                    describe(&self.inner.ty)
                ),
            ));
        }
        Ok(self.buffer()?.unsafe_buffer_pointer()?)
    }

    /// An array carrying `error` (what a failed op returns).
    pub(crate) fn failed(error: Error) -> Array {
        Array::make(
            TensorType::scalar(DType::F32),
            false,
            default_device(),
            Repr::Failed(error),
        )
    }

    /// An array from host values and a shape, on the default device.
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1i32, 2, 3, 4], &[2, 2]);
    /// assert_eq!(a.dtype(), systolic_ir::DType::I32);
    /// let bad = systolic::Array::from_vec(vec![1i32, 2, 3], &[2, 2]);
    /// assert!(bad.check().unwrap_err().to_string().contains("3 values"));
    /// ```
    pub fn from_vec<T: Element>(values: Vec<T>, shape: &[i64]) -> Array {
        Array::from_vec_on(values, shape, default_device())
    }

    /// An array from host values and a shape, on `device`.
    ///
    /// ```
    /// let device = systolic::devices()[0];
    /// let a = systolic::Array::from_vec_on(vec![1.0f64, 2.0], &[2], device);
    /// assert_eq!(a.device(), device);
    /// ```
    pub fn from_vec_on<T: Element>(values: Vec<T>, shape: &[i64], device: Device) -> Array {
        let ty = TensorType::new(shape.to_vec(), T::DTYPE);
        if shape.iter().any(|&d| d < 0) || ty.num_elements() != values.len() {
            return Array::failed(Error::op(
                "array",
                format!(
                    "{} values cannot fill shape {:?} ({})",
                    values.len(),
                    shape,
                    T::DTYPE.numpy_name()
                ),
            ));
        }
        let host = match CpuBuffer::new(ty.clone(), T::into_storage(values)) {
            Ok(h) => h,
            Err(e) => return Array::failed(Error::Host(format!("{e:?}"))),
        };
        match client().buffer_from_host(host, device) {
            Ok(b) => Array::make(ty, false, device, Repr::Concrete(b)),
            Err(e) => Array::failed(e.into()),
        }
    }

    /// An array from a slice of host values and a shape.
    ///
    /// ```
    /// let a = systolic::Array::from_slice(&[1.0f32, 2.0], &[2]);
    /// assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
    /// ```
    pub fn from_slice<T: Element>(values: &[T], shape: &[i64]) -> Array {
        Array::from_vec(values.to_vec(), shape)
    }

    /// A rank-0 array (strongly typed, as `jnp.float32(x)`).
    ///
    /// ```
    /// let s = systolic::Array::scalar(2.5f32);
    /// assert_eq!(s.shape(), &[] as &[i64]);
    /// assert!(!s.weak_type());
    /// ```
    pub fn scalar<T: Element>(value: T) -> Array {
        Array::from_vec(vec![value], &[])
    }

    /// An array holding an IR tensor, on the default device.
    ///
    /// ```
    /// let t = systolic_ir::Tensor::from_f32(vec![2], vec![1.0, 2.0]);
    /// let a = systolic::Array::from_tensor(t.clone());
    /// assert_eq!(a.to_tensor().unwrap(), t);
    /// ```
    pub fn from_tensor(tensor: Tensor) -> Array {
        Array::from_tensor_weak(tensor, false)
    }

    pub(crate) fn from_tensor_weak(tensor: Tensor, weak: bool) -> Array {
        let device = default_device();
        let ty = tensor.ty().clone();
        match client().buffer_from_tensor(tensor, device) {
            Ok(b) => Array::make(ty, weak, device, Repr::Concrete(b)),
            Err(e) => Array::failed(e.into()),
        }
    }

    /// The type, for the public accessors: a failed array has none, so its error is raised
    /// (under a trace) or panics (outside one); `accessor` names the method in the panic.
    fn known(&self, accessor: &str) -> &TensorType {
        if let Repr::Failed(e) = &self.inner.repr {
            failed_metadata(accessor, e);
        }
        &self.inner.ty
    }

    /// The type the crate's own code reads: never unwinds, so that an op given a failed
    /// operand returns a failed array carrying the first error (for a failed array it is a
    /// placeholder, `f32[]`, that no result ever reports).
    pub(crate) fn aval(&self) -> &TensorType {
        &self.inner.ty
    }

    /// [`Array::shape`] for the crate's own code (see [`Array::aval`]).
    pub(crate) fn dims(&self) -> &[i64] {
        &self.inner.ty.shape
    }

    /// [`Array::ndim`] for the crate's own code (see [`Array::aval`]).
    pub(crate) fn rank(&self) -> usize {
        self.inner.ty.shape.len()
    }

    /// [`Array::size`] for the crate's own code (see [`Array::aval`]).
    pub(crate) fn num_elements(&self) -> usize {
        self.inner.ty.num_elements()
    }

    /// [`Array::dtype`] for the crate's own code (see [`Array::aval`]).
    pub(crate) fn element_type(&self) -> DType {
        self.inner.ty.dtype
    }

    /// The shape.
    ///
    /// Of a failed array (an op that failed, see [`Array::check`]) there is no the shape: under
    /// a trace (`jit`, `grad`, `vmap`, …) reading it leaves the traced function with the
    /// array's error, which the transformation's `call` returns as `Err`; outside a trace it
    /// panics with that error, as an uncaught JAX exception ends a program. Call `.check()?`
    /// first to handle the error.
    ///
    /// ```
    /// assert_eq!(systolic::Array::from_vec(vec![0i8; 6], &[2, 3]).shape(), &[2, 3]);
    /// ```
    pub fn shape(&self) -> &[i64] {
        &self.known("shape").shape
    }

    /// The number of dimensions.
    ///
    /// Of a failed array (an op that failed, see [`Array::check`]) there is no number of dimensions: under
    /// a trace (`jit`, `grad`, `vmap`, …) reading it leaves the traced function with the
    /// array's error, which the transformation's `call` returns as `Err`; outside a trace it
    /// panics with that error, as an uncaught JAX exception ends a program. Call `.check()?`
    /// first to handle the error.
    ///
    /// ```
    /// assert_eq!(systolic::Array::from_vec(vec![0i8; 6], &[2, 3]).ndim(), 2);
    /// assert_eq!(systolic::Array::scalar(1u8).ndim(), 0);
    /// ```
    pub fn ndim(&self) -> usize {
        self.known("ndim").shape.len()
    }

    /// The number of elements.
    ///
    /// Of a failed array (an op that failed, see [`Array::check`]) there is no number of elements: under
    /// a trace (`jit`, `grad`, `vmap`, …) reading it leaves the traced function with the
    /// array's error, which the transformation's `call` returns as `Err`; outside a trace it
    /// panics with that error, as an uncaught JAX exception ends a program. Call `.check()?`
    /// first to handle the error.
    ///
    /// ```
    /// assert_eq!(systolic::Array::from_vec(vec![0i8; 6], &[2, 3]).size(), 6);
    /// ```
    pub fn size(&self) -> usize {
        self.known("size").num_elements()
    }

    /// The element type.
    ///
    /// Of a failed array (an op that failed, see [`Array::check`]) there is no element type: under
    /// a trace (`jit`, `grad`, `vmap`, …) reading it leaves the traced function with the
    /// array's error, which the transformation's `call` returns as `Err`; outside a trace it
    /// panics with that error, as an uncaught JAX exception ends a program. Call `.check()?`
    /// first to handle the error.
    ///
    /// ```
    /// use systolic::Array;
    /// assert_eq!(Array::scalar(1.0f64).dtype(), systolic_ir::DType::F64);
    /// assert_eq!((&Array::scalar(1i32) + 0.5).dtype(), systolic_ir::DType::F32); // JAX promotion
    /// ```
    pub fn dtype(&self) -> DType {
        self.known("dtype").dtype
    }

    /// The shape and element type.
    ///
    /// Of a failed array (an op that failed, see [`Array::check`]) there is no type: under
    /// a trace (`jit`, `grad`, `vmap`, …) reading it leaves the traced function with the
    /// array's error, which the transformation's `call` returns as `Err`; outside a trace it
    /// panics with that error, as an uncaught JAX exception ends a program. Call `.check()?`
    /// first to handle the error.
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1u32, 2], &[2]);
    /// assert_eq!(a.ty(), &systolic_ir::TensorType::new(vec![2], systolic_ir::DType::U32));
    /// ```
    pub fn ty(&self) -> &TensorType {
        self.known("ty")
    }

    /// True for weakly typed arrays (from Rust scalars), which take the dtype of the strongly
    /// typed operand they meet.
    ///
    /// ```
    /// use systolic::Array;
    /// let x = Array::scalar(1.0f32);
    /// assert!(!x.weak_type());
    /// assert!(systolic::weak_float(2.0).weak_type());
    /// assert!(!(&x * 2.0).weak_type());
    /// ```
    pub fn weak_type(&self) -> bool {
        self.inner.weak
    }

    /// The device the array lives (or will live) on.
    ///
    /// ```
    /// assert_eq!(systolic::Array::scalar(1.0f32).device(), systolic::default_device());
    /// ```
    pub fn device(&self) -> Device {
        self.inner.device
    }

    /// True while the array is a value of a `jit` trace rather than data.
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let x = Array::scalar(1.0f32);
    /// assert!(!x.is_traced());
    /// jit(|x: &Array| {
    ///     assert!(x.is_traced());
    ///     x.clone()
    /// })
    /// .call(&x)
    /// .unwrap();
    /// ```
    pub fn is_traced(&self) -> bool {
        matches!(self.inner.repr, Repr::Traced { .. })
    }

    /// The first error of the op chain that made this array, if any.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let bad = np::reshape(&Array::from_vec(vec![1.0f32; 6], &[6]), &[4, 2]);
    /// assert!(bad.error().unwrap().to_string().contains("reshape"));
    /// assert!(Array::scalar(1.0f32).error().is_none());
    /// ```
    pub fn error(&self) -> Option<&Error> {
        match &self.inner.repr {
            Repr::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// The array itself, or the error it carries. Shape and dtype errors are found when an op
    /// is called, so this never waits; a failure of an eager op running asynchronously (in
    /// the backend) is reported by the calls that wait for data (`block_until_ready`,
    /// `to_vec`, …).
    ///
    /// ```
    /// use systolic::Array;
    /// let a = Array::from_vec(vec![1.0f32; 3], &[3]);
    /// let b = Array::from_vec(vec![1.0f32; 4], &[4]);
    /// let err = (&a + &b).check().unwrap_err().to_string();
    /// assert!(err.contains("add") && err.contains("float32[3]") && err.contains("float32[4]"), "{err}");
    /// ```
    pub fn check(&self) -> Result<&Array> {
        if let Some(label) = self.inner.donated_to.get() {
            return Err(self.deleted_error(label));
        }
        match &self.inner.repr {
            Repr::Failed(e) => Err(e.clone()),
            _ => Ok(self),
        }
    }

    /// The runtime buffer of a concrete array (waiting for the op that makes it, if it is
    /// still running).
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1.0f32, 2.0], &[2]);
    /// let b = (&a + 1.0).buffer().unwrap();
    /// assert_eq!(b.shape(), &[2]);
    /// assert_eq!(b.to_tensor().unwrap(), systolic_ir::Tensor::from_f32(vec![2], vec![2.0, 3.0]));
    /// ```
    pub fn buffer(&self) -> Result<Buffer> {
        if let Some(label) = self.inner.donated_to.get() {
            return Err(self.deleted_error(label));
        }
        self.buffer_of_call()
    }

    /// The buffer even of an array donated to a call: what that call's execution reads.
    pub(crate) fn buffer_of_call(&self) -> Result<Buffer> {
        match &self.inner.repr {
            Repr::Concrete(b) => Ok(b.clone()),
            Repr::Pending(p) => p.wait(),
            Repr::Failed(e) => Err(e.clone()),
            Repr::Traced { .. } => Err(Error::Trace(format!(
                "a traced {} has no data yet (read it after the jitted function returns)",
                describe(&self.inner.ty)
            ))),
            Repr::Sharded(s) => s
                .assembled
                .get_or_init(|| crate::sharding::assemble(&self.inner.ty, s, self.inner.device))
                .clone(),
        }
    }

    /// Waits until the array's data is computed and on its device; the error of the
    /// computation if it failed.
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1.0f32; 4], &[4]);
    /// let b = &a * 3.0; // queued: eager ops dispatch asynchronously
    /// b.block_until_ready().unwrap();
    /// assert!(b.is_ready());
    /// ```
    pub fn block_until_ready(&self) -> Result<&Array> {
        if let Repr::Sharded(s) = &self.inner.repr {
            for piece in &s.pieces {
                piece.block_until_ready()?;
            }
            return Ok(self);
        }
        self.buffer()?.block_until_ready()?;
        Ok(self)
    }

    /// True when reading the data would not wait: the op or `jit` call that makes it has
    /// finished (successfully or not) and its data is on the device (`jax.Array.is_ready`).
    /// Always false for a traced array.
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1.0f32; 4], &[4]);
    /// let b = &a + 1.0;
    /// b.block_until_ready().unwrap();
    /// assert!(b.is_ready());
    /// ```
    pub fn is_ready(&self) -> bool {
        match &self.inner.repr {
            Repr::Concrete(b) => b.is_ready(),
            Repr::Pending(p) => p.is_done() && p.wait().map_or(true, |b| b.is_ready()),
            Repr::Traced { .. } => false,
            Repr::Failed(_) => true,
            Repr::Sharded(s) => s.pieces.iter().all(Array::is_ready),
        }
    }

    /// The data as an IR tensor (exact per-dtype values).
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![true, false], &[2]);
    /// assert_eq!(a.to_tensor().unwrap().ty().dtype, systolic_ir::DType::Bool);
    /// ```
    pub fn to_tensor(&self) -> Result<Tensor> {
        Ok(self.buffer()?.to_tensor()?)
    }

    /// The data as host values of the array's own element type.
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1u8, 2], &[2]);
    /// assert_eq!(a.to_vec::<u8>().unwrap(), vec![1, 2]);
    /// assert!(a.to_vec::<f32>().unwrap_err().to_string().contains("uint8"));
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let host = self.buffer()?.to_cpu_buffer()?;
        T::from_storage(host.storage()).ok_or_else(|| {
            Error::Host(format!(
                "to_vec::<{}>() of a {} array: convert it with astype first",
                T::DTYPE.numpy_name(),
                describe(&self.inner.ty)
            ))
        })
    }

    /// A copy of this array on `device` (`jax.device_put`).
    ///
    /// ```
    /// let a = systolic::Array::from_vec(vec![1.0f32], &[1]);
    /// let b = a.device_put(systolic::default_device()).unwrap();
    /// assert_eq!(b.to_vec::<f32>().unwrap(), vec![1.0]);
    /// ```
    pub fn device_put(&self, device: Device) -> Result<Array> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let host = self.buffer()?.to_cpu_buffer()?;
        let b = client().buffer_from_host(host, device)?;
        Ok(Array::make(
            self.inner.ty.clone(),
            self.inner.weak,
            device,
            Repr::Concrete(b),
        ))
    }
}

/// What reading the metadata of a failed array does: raise its error out of the traced
/// function under a trace, panic with it outside one.
#[cold]
fn failed_metadata(accessor: &str, error: &Error) -> ! {
    if crate::core::trace::current().is_some() {
        crate::core::raise::raise(error.clone());
    }
    panic!("{error} (read by `{accessor}()` of the failed array; call `.check()?` to handle it)")
}
