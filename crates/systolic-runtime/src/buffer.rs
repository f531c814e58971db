//! Device buffers: a handle to an array on a device, filled asynchronously.
//!
//! A host→device transfer returns at once with a buffer that is not ready yet; the transfer runs
//! on the client's transfer thread and signals the buffer's ready event when done, so the host
//! can prepare the next batch while the device is busy. Everything that reads a buffer waits for
//! that event. A buffer donated to an execution is emptied and every handle to it reports so.
//!
//! On a simulated TPU a buffer also holds its share of the chip's HBM until it is dropped,
//! deleted or donated, and reading it back to the host costs PCIe time on the device's clock.

use crate::device::Device;
use crate::error::{Result, RuntimeError};
use crate::sim::HbmLease;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Tensor, TensorType};

/// Where a buffer's data is.
#[derive(Debug)]
enum Slot {
    /// The transfer has not finished.
    Pending,
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
}

/// The completion side of a transfer: the transfer thread fills the buffer through it.
pub(crate) struct Completion {
    shared: Arc<Shared>,
}

impl Completion {
    /// Publishes the data (or the failure) and wakes every waiter.
    pub(crate) fn finish(self, result: std::result::Result<CpuBuffer, String>) {
        let mut slot = self.shared.lock();
        *slot = match result {
            Ok(data) => Slot::Ready(Arc::new(data)),
            Err(message) => Slot::Failed(message),
        };
        drop(slot);
        self.shared.ready.notify_all();
    }
}

impl Buffer {
    /// A buffer whose data is already there (an execution's output; on a simulated TPU its
    /// HBM was accounted for by the program).
    pub(crate) fn ready(data: CpuBuffer, device: Device) -> Buffer {
        let lease = device.sim().map(|s| s.adopt(data.ty()));
        Buffer::ready_in(data, device, lease)
    }

    /// A buffer whose data is already there, holding `lease` of its device's HBM.
    pub(crate) fn ready_in(data: CpuBuffer, device: Device, lease: Option<HbmLease>) -> Buffer {
        Buffer {
            ty: data.ty().clone(),
            device,
            shared: Arc::new(Shared {
                slot: Mutex::new(Slot::Ready(Arc::new(data))),
                ready: Condvar::new(),
                lease: Mutex::new(lease),
            }),
        }
    }

    /// A buffer of type `ty` to be filled through the returned [`Completion`], holding
    /// `lease` of its device's HBM.
    pub(crate) fn pending(
        ty: TensorType,
        device: Device,
        lease: Option<HbmLease>,
    ) -> (Buffer, Completion) {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::Pending),
            ready: Condvar::new(),
            lease: Mutex::new(lease),
        });
        let completion = Completion {
            shared: shared.clone(),
        };
        (Buffer { ty, device, shared }, completion)
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

    /// True once the transfer has finished (successfully or not) or the buffer was donated:
    /// [`Buffer::block_until_ready`] would not wait.
    pub fn is_ready(&self) -> bool {
        !matches!(*self.shared.lock(), Slot::Pending)
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

    /// Copies the array back to the host (waiting for it to be ready). From a simulated TPU
    /// the copy costs PCIe time on the device's clock.
    pub fn to_tensor(&self) -> Result<Tensor> {
        let data = self.data(String::new())?;
        self.charge_to_host();
        Ok(data.to_tensor())
    }

    /// A host copy in the CPU backend's native layout (from a simulated TPU: PCIe time on its
    /// clock).
    pub fn to_cpu_buffer(&self) -> Result<CpuBuffer> {
        let data = self.data(String::new())?;
        self.charge_to_host();
        Ok(data.as_ref().clone())
    }

    fn charge_to_host(&self) {
        if let Some(sim) = self.device.sim() {
            sim.charge_from_device(self.ty.byte_size() as u64);
        }
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
        while matches!(*slot, Slot::Pending) {
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
        match &*self.wait_slot() {
            Slot::Ready(data) => Ok(data.clone()),
            Slot::Failed(message) => Err(RuntimeError::Transfer {
                device: self.device.to_string(),
                message: message.clone(),
            }),
            Slot::Donated => Err(RuntimeError::Donated {
                buffer: self.describe(),
                place,
            }),
            Slot::Pending => unreachable!("wait_slot returns only when the slot is filled"),
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
