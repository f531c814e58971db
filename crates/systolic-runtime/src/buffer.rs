//! Device buffers: a handle to an array on a device, filled asynchronously.
//!
//! A host→device transfer returns at once with a buffer that is not ready yet; the transfer runs
//! on the client's transfer thread and signals the buffer's ready event when done, so the host
//! can prepare the next batch while the device is busy. Everything that reads a buffer waits for
//! that event. A buffer donated to an execution is emptied and every handle to it reports so.
//!
//! Reading a buffer back is synchronous ([`Buffer::to_tensor`], [`Buffer::to_cpu_buffer`]: they
//! wait for the buffer and copy on the calling thread) or asynchronous
//! ([`Buffer::copy_to_host_async`]: the copy runs on the transfer thread and a
//! [`HostTransfer`] collects it), as PJRT's `ToLiteral` is.
//!
//! On a simulated TPU a buffer also holds its share of the chip's HBM until it is dropped,
//! deleted or donated, and reading it back to the host costs PCIe time on the device's clock.

use crate::device::Device;
use crate::error::{Result, RuntimeError};
use crate::sim::HbmLease;
use crate::transfer::{HostCopy, HostTransfer, Transfers};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Tensor, TensorType};

/// Where a buffer's data is.
#[derive(Debug)]
enum Slot {
    /// The transfer has not finished; the device→host copies asked for meanwhile, which the
    /// transfer makes the moment it finishes (before anyone can donate the buffer).
    Pending(Vec<HostCopy>),
    /// The data, shared between the buffer and executions reading it.
    Ready(Arc<CpuBuffer>),
    /// The transfer failed.
    Failed(String),
    /// Donated to an execution (or deleted): the data is gone.
    Donated,
}

/// The state every handle of one buffer shares, with its ready event.
#[derive(Debug)]
struct Shared {
    slot: Mutex<Slot>,
    ready: Condvar,
    /// The buffer's HBM on a simulated TPU, given back when the data goes.
    lease: Mutex<Option<HbmLease>>,
    /// On a CPU device while a trace records: the buffer's alloc event, freed when the data
    /// goes (a simulated TPU's lease records its own).
    traced: Mutex<Option<TracedBytes>>,
}

/// A buffer's bytes in the trace being recorded: `free` when dropped.
#[derive(Debug)]
struct TracedBytes {
    id: u64,
    bytes: u64,
    /// The device's memory process ([`memory_pid`]).
    pid: u32,
}

impl TracedBytes {
    /// An `alloc` event for a buffer of `ty` on a CPU `device` (`None` when not tracing, and
    /// on simulated devices).
    fn new(ty: &TensorType, device: Device) -> Option<TracedBytes> {
        if !systolic_trace::enabled() || device.sim().is_some() {
            return None;
        }
        let bytes = ty.byte_size() as u64;
        let pid = memory_pid(device);
        let id = systolic_trace::alloc(
            pid,
            None,
            bytes,
            &ty.to_string(),
            &format!("buffer on {device}"),
        );
        Some(TracedBytes { id, bytes, pid })
    }
}

impl Drop for TracedBytes {
    fn drop(&mut self) {
        systolic_trace::free(self.pid, None, self.id, self.bytes);
    }
}

/// The trace process whose memory a CPU `device`'s buffers count against: the host's for
/// `cpu:0` (and for simulated chips, whose host-side values are the host's; their HBM is
/// their own process's), `CPU_DEVICE_PID + k` for `cpu:k` ([`systolic_trace::cpu_memory_pid`]).
pub(crate) fn memory_pid(device: Device) -> u32 {
    if device.is_simulated() {
        return systolic_trace::HOST_PID;
    }
    systolic_trace::cpu_memory_pid(device.index())
}

/// Counts the values an execution on `devices` makes against their memory processes (one
/// device, or an SPMD execution's participants in order); inert when not tracing.
pub(crate) fn enter_memory(devices: &[Device]) -> systolic_trace::MemoryProcess {
    if !systolic_trace::enabled() {
        return systolic_trace::MemoryProcess::enter(vec![]);
    }
    systolic_trace::MemoryProcess::enter(devices.iter().map(|&d| memory_pid(d)).collect())
}

/// The last handle of a buffer gives its memory to the CPU backend's storage pool
/// ([`systolic_cpu::pool`]) instead of to the allocator: the next execution takes it for an
/// output or a temporary of the same type and size as it is, where a fresh
/// allocation would be zero-filled (or faulted in) first. A training loop that drops last
/// step's outputs thus runs its next step in the same memory, as XLA's allocator would.
impl Drop for Shared {
    fn drop(&mut self) {
        let slot = std::mem::replace(
            self.slot.get_mut().unwrap_or_else(|p| p.into_inner()),
            Slot::Donated,
        );
        if let Slot::Ready(data) = slot {
            // Executions still reading the data hold their own reference; they drop it.
            if let Ok(data) = Arc::try_unwrap(data) {
                systolic_cpu::pool::recycle(data.into_parts().1);
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // A panic while holding the lock cannot leave the slot half-written (each write is one
        // assignment), so a poisoned lock is still consistent.
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn release_memory(&self) {
        self.lease.lock().unwrap_or_else(|p| p.into_inner()).take();
        self.traced.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// An array on a device. Cloning gives another handle to the same buffer.
///
/// ```
/// use systolic_runtime::Client;
/// use systolic_ir::Tensor;
/// let client = Client::cpu();
/// let t = Tensor::from_f32(vec![2], vec![1.0, 2.0]);
/// let buffer = client.buffer_from_tensor(t.clone(), client.devices()[0]).unwrap();
/// buffer.block_until_ready().unwrap();
/// assert!(buffer.is_ready());
/// assert_eq!(buffer.to_tensor().unwrap(), t);
/// ```
#[derive(Clone, Debug)]
pub struct Buffer {
    ty: TensorType,
    device: Device,
    shared: Arc<Shared>,
    /// The client's transfer thread, which runs this buffer's device→host copies.
    transfers: Transfers,
}

/// The completion side of a transfer: the transfer thread fills the buffer through it.
pub(crate) struct Completion {
    buffer: Buffer,
}

impl Completion {
    /// Publishes the data (or the failure), wakes every waiter, then makes the device→host
    /// copies asked for while the transfer was pending (this runs on the transfer thread).
    pub(crate) fn finish(self, result: std::result::Result<CpuBuffer, String>) {
        let mut slot = self.buffer.shared.lock();
        let filled = match result {
            Ok(data) => Slot::Ready(Arc::new(data)),
            Err(message) => Slot::Failed(message),
        };
        let copies = match std::mem::replace(&mut *slot, filled) {
            Slot::Pending(copies) => copies,
            _ => vec![],
        };
        let outcome = self.buffer.read(&slot, String::new());
        drop(slot);
        self.buffer.shared.ready.notify_all();
        for copy in copies {
            match &outcome {
                Ok(data) => copy.copy_from(data),
                Err(e) => copy.fail(e.clone()),
            }
        }
    }
}

/// Charges a device→host copy of `bytes` to a simulated device's clock (PCIe time); nothing on
/// the CPU.
pub(crate) fn charge_to_host(device: Device, bytes: u64, ready_s: Option<f64>) {
    if let Some(sim) = device.sim() {
        sim.charge_from_device(bytes, ready_s);
    }
}

impl Buffer {
    /// A buffer whose data is already there (an execution's output; on a simulated TPU its
    /// HBM was accounted for by the program).
    pub(crate) fn ready(data: CpuBuffer, device: Device, transfers: Transfers) -> Buffer {
        let lease = device.sim().map(|s| s.adopt(data.ty()));
        Buffer::ready_in(data, device, lease, transfers)
    }

    /// A buffer whose data is already there, holding `lease` of its device's HBM.
    pub(crate) fn ready_in(
        data: CpuBuffer,
        device: Device,
        lease: Option<HbmLease>,
        transfers: Transfers,
    ) -> Buffer {
        Buffer::ready_shared(Arc::new(data), device, lease, transfers)
    }

    /// A buffer whose data is already there and may be shared with other buffers (a copy to
    /// another device: buffers are immutable, and a donation of a shared one copies it).
    pub(crate) fn ready_shared(
        data: Arc<CpuBuffer>,
        device: Device,
        lease: Option<HbmLease>,
        transfers: Transfers,
    ) -> Buffer {
        Buffer {
            ty: data.ty().clone(),
            device,
            shared: Arc::new(Shared {
                traced: Mutex::new(TracedBytes::new(data.ty(), device)),
                slot: Mutex::new(Slot::Ready(data)),
                ready: Condvar::new(),
                lease: Mutex::new(lease),
            }),
            transfers,
        }
    }

    /// A buffer of type `ty` to be filled through the returned [`Completion`], holding
    /// `lease` of its device's HBM.
    pub(crate) fn pending(
        ty: TensorType,
        device: Device,
        lease: Option<HbmLease>,
        transfers: Transfers,
    ) -> (Buffer, Completion) {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::Pending(vec![])),
            ready: Condvar::new(),
            lease: Mutex::new(lease),
            traced: Mutex::new(TracedBytes::new(&ty, device)),
        });
        let buffer = Buffer {
            ty,
            device,
            shared,
            transfers,
        };
        let completion = Completion {
            buffer: buffer.clone(),
        };
        (buffer, completion)
    }

    /// The array's type.
    pub fn ty(&self) -> &TensorType {
        &self.ty
    }

    /// The array's shape.
    pub fn shape(&self) -> &[i64] {
        &self.ty.shape
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.ty.dtype
    }

    /// The device the buffer is on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// On a simulated TPU, when the buffer's data is on the device on its clock (its DMA's
    /// or its execution's end); 0 elsewhere.
    pub(crate) fn sim_ready_s(&self) -> f64 {
        self.shared
            .lease
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or(0.0, HbmLease::ready_s)
    }

    /// Marks when a simulated TPU buffer's data is on the device.
    pub(crate) fn set_sim_ready_s(&self, at_s: f64) {
        if let Some(lease) = self
            .shared
            .lease
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            lease.set_ready_s(at_s);
        }
    }

    /// True once the transfer has finished (successfully or not) or the buffer was donated:
    /// [`Buffer::block_until_ready`] would not wait.
    pub fn is_ready(&self) -> bool {
        !matches!(*self.shared.lock(), Slot::Pending(_))
    }

    /// True once the buffer was donated to an execution or deleted.
    pub fn is_donated(&self) -> bool {
        matches!(*self.shared.lock(), Slot::Donated)
    }

    /// Waits for the transfer to finish; its error if it failed, or an error if the buffer was
    /// donated.
    pub fn block_until_ready(&self) -> Result<()> {
        self.data(String::new()).map(|_| ())
    }

    /// Copies the array back to the host, synchronously: waits for the buffer to be ready,
    /// then copies on the calling thread ([`Buffer::copy_to_host_async`] does not wait). From
    /// a simulated TPU the copy costs PCIe time on the device's clock.
    pub fn to_tensor(&self) -> Result<Tensor> {
        let data = self.data(String::new())?;
        let _span = crate::transfer::span(false, &self.ty, self.device);
        charge_to_host(self.device, self.byte_size(), Some(self.sim_ready_s()));
        Ok(data.to_tensor())
    }

    /// A host copy in the CPU backend's native layout, synchronously: waits for the buffer to
    /// be ready, then copies on the calling thread ([`Buffer::copy_to_host_async`] does not
    /// wait). From a simulated TPU: PCIe time on its clock.
    pub fn to_cpu_buffer(&self) -> Result<CpuBuffer> {
        let data = self.data(String::new())?;
        let _span = crate::transfer::span(false, &self.ty, self.device);
        charge_to_host(self.device, self.byte_size(), Some(self.sim_ready_s()));
        Ok(data.as_ref().clone())
    }

    /// Starts copying the array back to the host and returns at once; the copy runs on the
    /// client's transfer thread after the buffer is ready (PJRT's `ToLiteral`, JAX's
    /// `copy_to_host_async`), so the host can go on — with the next step, say — meanwhile.
    /// [`HostTransfer::wait`] collects the copy, or the error [`Buffer::to_cpu_buffer`] would
    /// give: the buffer's transfer failed, or it was donated or deleted before this call.
    ///
    /// The copy sees the buffer as it is now: donating or deleting the buffer after this call
    /// does not fail the copy (it keeps the data alive until it is made). From a simulated TPU
    /// the copy costs PCIe time on the device's clock, as the synchronous read-back does, once
    /// it is made.
    ///
    /// ```
    /// use systolic_runtime::{Client, CompileOptions};
    /// use systolic_ir::Tensor;
    /// let module = systolic_ir::text::parse_module(
    ///     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    ///        %0 = stablehlo.add %a, %a : tensor<2xf32>
    ///        return %0 : tensor<2xf32>
    ///      }",
    ///     "double",
    /// ).unwrap();
    /// let client = Client::cpu();
    /// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
    /// let x = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![1.0, 2.0]), exe.device()).unwrap();
    /// let y = exe.execute(&[&x]).unwrap().remove(0);
    /// // Start reading `y` back, then reuse the argument's memory for the next step.
    /// let reading = y.copy_to_host_async();
    /// let z = exe.execute_donating(vec![x]).unwrap().remove(0);
    /// assert_eq!(reading.wait().unwrap().as_f32(), Some(&[2.0f32, 4.0][..]));
    /// assert_eq!(z.copy_to_host_async().wait_tensor().unwrap(), Tensor::from_f32(vec![2], vec![2.0, 4.0]));
    /// ```
    pub fn copy_to_host_async(&self) -> HostTransfer {
        let (transfer, copy) =
            HostTransfer::start(self.device, self.byte_size(), self.sim_ready_s());
        let mut slot = self.shared.lock();
        if let Slot::Pending(waiting) = &mut *slot {
            // The transfer filling the buffer makes the copy the moment it finishes: queuing a
            // job instead would let the host donate the buffer between the two.
            waiting.push(copy);
            return transfer;
        }
        // Taken now (a reference, not a copy), so that a later donation cannot take it away.
        let data = self.read(&slot, String::new());
        drop(slot);
        match data {
            Ok(data) => self
                .transfers
                .submit(Box::new(move || copy.copy_from(&data))),
            Err(e) => copy.fail(e),
        }
        transfer
    }

    fn byte_size(&self) -> u64 {
        self.ty.byte_size() as u64
    }

    /// The address of the buffer's data in host memory (JAX's `unsafe_buffer_pointer`), after
    /// waiting for it to be ready: an execution that wrote a result into a donated argument
    /// gives a result with the argument's address. For tests and diagnostics only.
    ///
    /// ```
    /// use systolic_runtime::{Client, CompileOptions};
    /// use systolic_ir::Tensor;
    /// let module = systolic_ir::text::parse_module(
    ///     "func.func @main(%w: tensor<256xf32>, %g: tensor<256xf32>) -> tensor<256xf32> {
    ///        %0 = stablehlo.subtract %w, %g : tensor<256xf32>
    ///        return %0 : tensor<256xf32>
    ///      }",
    ///     "step",
    /// ).unwrap();
    /// let client = Client::cpu();
    /// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
    /// let put = |v: f32| client.buffer_from_tensor(Tensor::from_f32(vec![256], vec![v; 256]), exe.device()).unwrap();
    /// let (w, g) = (put(3.0), put(1.0));
    /// let at = w.unsafe_buffer_pointer().unwrap();
    /// let out = exe.execute_donating_some(vec![w, g], &[true, false]).unwrap().remove(0);
    /// assert_eq!(out.unsafe_buffer_pointer().unwrap(), at); // written over w
    /// assert_eq!(out.to_tensor().unwrap(), Tensor::from_f32(vec![256], vec![2.0; 256]));
    /// ```
    pub fn unsafe_buffer_pointer(&self) -> Result<usize> {
        Ok(self.data(String::new())?.data_address())
    }

    /// Frees the data now; every handle reports the buffer as donated afterwards.
    pub fn delete(&self) {
        *self.wait_slot() = Slot::Donated;
        self.shared.release_memory();
    }

    /// A short description for errors: `tensor<2xf32> on cpu:0`.
    pub fn describe(&self) -> String {
        format!(
            "{} on {}",
            systolic_ir::Type::Tensor(self.ty.clone()),
            self.device
        )
    }

    /// True when both handles are the same buffer.
    pub fn same_buffer(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Waits until the slot is no longer pending and returns it locked.
    fn wait_slot(&self) -> MutexGuard<'_, Slot> {
        let mut slot = self.shared.lock();
        let _wait = if matches!(*slot, Slot::Pending(_)) {
            systolic_trace::Span::lazy(systolic_trace::cat::WAIT, || {
                format!("wait for {}", self.ty)
            })
        } else {
            systolic_trace::Span::none()
        };
        while matches!(*slot, Slot::Pending(_)) {
            slot = self
                .shared
                .ready
                .wait(slot)
                .unwrap_or_else(|p| p.into_inner());
        }
        slot
    }

    /// The data once ready; `place` (`: argument 0 of @main`) is added to a donation error.
    pub(crate) fn data(&self, place: String) -> Result<Arc<CpuBuffer>> {
        self.read(&self.wait_slot(), place)
    }

    /// The data in a filled `slot` of this buffer, or why there is none (the errors every
    /// read gives, synchronous or not).
    fn read(&self, slot: &Slot, place: String) -> Result<Arc<CpuBuffer>> {
        match slot {
            Slot::Ready(data) => Ok(data.clone()),
            Slot::Failed(message) => Err(RuntimeError::Transfer {
                device: self.device.to_string(),
                message: message.clone(),
            }),
            Slot::Donated => Err(RuntimeError::Donated {
                buffer: self.describe(),
                place,
            }),
            Slot::Pending(_) => unreachable!("read only once the slot is filled"),
        }
    }

    /// Takes the data out for an execution that may reuse it; the buffer is donated afterwards.
    /// The data is moved when no execution still reads it, copied otherwise.
    pub(crate) fn take_donated(&self, place: String) -> Result<CpuBuffer> {
        let mut slot = self.wait_slot();
        match std::mem::replace(&mut *slot, Slot::Donated) {
            Slot::Ready(data) => {
                self.shared.release_memory();
                Ok(Arc::try_unwrap(data).unwrap_or_else(|shared| shared.as_ref().clone()))
            }
            other => {
                *slot = other;
                drop(slot);
                self.data(place).map(|data| data.as_ref().clone())
            }
        }
    }
}
