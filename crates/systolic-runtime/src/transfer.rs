//! The client's transfer thread, and device→host copies that run on it.
//!
//! Every client has one transfer thread. Host→device transfers
//! ([`Client::buffer_from_tensor`](crate::Client::buffer_from_tensor)) and device→host copies
//! ([`Buffer::copy_to_host_async`](crate::Buffer::copy_to_host_async)) are jobs queued on it and
//! run one at a time, in the order they were queued, so the host thread that asked for them goes
//! on at once. Buffers and executables keep a handle to the queue (a device→host copy of an
//! execution's output is queued through it); the thread ends when the last handle is dropped,
//! after finishing the jobs already queued.

use crate::device::Device;
use crate::error::{Result, RuntimeError};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use systolic_cpu::CpuBuffer;
use systolic_ir::Tensor;

/// Work for the transfer thread.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// A handle to a client's transfer thread.
#[derive(Clone, Debug)]
pub(crate) struct Transfers {
    queue: Sender<Job>,
}

impl Transfers {
    /// Starts a transfer thread. When no thread can be started, jobs run inline on the thread
    /// that queues them (transfers are then synchronous, but still correct).
    pub(crate) fn start() -> Transfers {
        let (queue, jobs) = channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("systolic-transfer".into())
            .spawn(move || {
                for job in jobs {
                    job();
                }
            });
        if let Err(e) = spawned {
            // The receiver went with the closure: every send fails and runs its job inline.
            eprintln!("systolic-runtime: no transfer thread ({e}); transfers run inline");
        }
        Transfers { queue }
    }

    /// Queues `job` after every job queued before it (inline when there is no thread).
    pub(crate) fn submit(&self, job: Job) {
        if let Err(returned) = self.queue.send(job) {
            (returned.0)();
        }
    }

    /// Stops the thread before the next job queued from now on, until the hold is dropped.
    pub(crate) fn hold(&self) -> TransferHold {
        let (release, released) = channel::<()>();
        // The job waits until the hold's sender is dropped (`recv` then fails). Without a
        // thread it must not run inline, which would wait forever: it is dropped instead, and
        // the hold holds nothing (transfers are synchronous then anyway).
        let job: Job = Box::new(move || {
            let _ = released.recv();
        });
        let _ = self.queue.send(job);
        TransferHold { _release: release }
    }
}

/// Holds a client's transfer thread: while it exists, no transfer queued after it runs.
/// Dropping it (or [`TransferHold::release`]) lets the thread go on.
///
/// A test hook ([`Client::hold_transfers`](crate::Client::hold_transfers)): it makes the
/// asynchrony of transfers observable without relying on timing.
#[doc(hidden)]
#[derive(Debug)]
#[must_use = "the transfer thread is released when the hold is dropped"]
pub struct TransferHold {
    _release: Sender<()>,
}

impl TransferHold {
    /// Lets the transfer thread run the jobs queued behind the hold.
    pub fn release(self) {}
}

/// A device→host copy started by [`Buffer::copy_to_host_async`](crate::Buffer::copy_to_host_async):
/// a ready event and, once it is ready, the host copy or the error.
///
/// Like PJRT's `ToLiteral` future (JAX's `copy_to_host_async`): the copy runs on the client's
/// transfer thread while the host goes on, and [`HostTransfer::wait`] collects it.
///
/// ```
/// use systolic_runtime::Client;
/// use systolic_ir::Tensor;
/// let client = Client::cpu();
/// let t = Tensor::from_f32(vec![3], vec![1.0, 2.0, 3.0]);
/// let buffer = client.buffer_from_tensor(t.clone(), client.devices()[0]).unwrap();
/// // Returns at once, even though the buffer itself may not be ready yet.
/// let copy = buffer.copy_to_host_async();
/// // … other host work …
/// assert_eq!(copy.wait_tensor().unwrap(), t);
/// // A deleted buffer's copy fails as `to_tensor` would.
/// buffer.delete();
/// let err = buffer.copy_to_host_async().wait().unwrap_err();
/// assert!(err.to_string().contains("no longer valid"), "{err}");
/// ```
#[derive(Debug)]
#[must_use = "a host copy does nothing useful unless it is waited for"]
pub struct HostTransfer {
    state: Arc<CopyState>,
}

/// What a [`HostTransfer`] and its [`HostCopy`] share.
#[derive(Debug, Default)]
struct CopyState {
    /// `None` until the copy is done or has failed.
    result: Mutex<Option<Result<CpuBuffer>>>,
    done: Condvar,
}

impl CopyState {
    fn lock(&self) -> MutexGuard<'_, Option<Result<CpuBuffer>>> {
        // Each write is one assignment, so a poisoned lock is still consistent.
        self.result.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl HostTransfer {
    /// A copy not done yet, and the side that does it: `bytes` from `device`, of a buffer
    /// ready at `ready_s` on a simulated device's clock.
    pub(crate) fn start(device: Device, bytes: u64, ready_s: f64) -> (HostTransfer, HostCopy) {
        let state = Arc::new(CopyState::default());
        let copy = HostCopy {
            state: Some(state.clone()),
            device,
            bytes,
            ready_s,
        };
        (HostTransfer { state }, copy)
    }

    /// True once the copy is done or has failed: [`HostTransfer::wait`] would not wait.
    pub fn is_ready(&self) -> bool {
        self.state.lock().is_some()
    }

    /// Waits for the copy and returns it, in the CPU backend's native layout; or the error the
    /// synchronous [`Buffer::to_cpu_buffer`](crate::Buffer::to_cpu_buffer) would have given
    /// (the buffer's transfer failed, or it was donated or deleted before the copy was asked
    /// for).
    pub fn wait(self) -> Result<CpuBuffer> {
        let mut result = self.state.lock();
        loop {
            if let Some(done) = result.take() {
                return done;
            }
            result = self
                .state
                .done
                .wait(result)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// [`HostTransfer::wait`], as an interpreter tensor (converted on the calling thread).
    pub fn wait_tensor(self) -> Result<Tensor> {
        self.wait().map(|data| data.to_tensor())
    }
}

/// The side of a device→host copy that makes it, on the transfer thread. Dropped without
/// finishing (a job that never ran), it fails the copy rather than leave a waiter hanging.
#[derive(Debug)]
pub(crate) struct HostCopy {
    /// `None` once published.
    state: Option<Arc<CopyState>>,
    device: Device,
    bytes: u64,
    /// When the buffer is ready on a simulated device's clock (the copy starts no earlier).
    ready_s: f64,
}

impl HostCopy {
    /// Copies `data` out; from a simulated TPU this costs PCIe time on the device's clock, as
    /// the synchronous read-back does.
    pub(crate) fn copy_from(self, data: &CpuBuffer) {
        let _span = span(false, data.ty(), self.device);
        let copied = data.clone();
        crate::buffer::charge_to_host(self.device, self.bytes, Some(self.ready_s));
        self.publish(Ok(copied));
    }

    /// Fails the copy with `error`.
    pub(crate) fn fail(self, error: RuntimeError) {
        self.publish(Err(error));
    }

    fn publish(mut self, result: Result<CpuBuffer>) {
        if let Some(state) = self.state.take() {
            *state.lock() = Some(result);
            state.done.notify_all();
        }
    }
}

impl Drop for HostCopy {
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            *state.lock() = Some(Err(RuntimeError::ToHost {
                device: self.device.to_string(),
                message: "the copy was dropped before it ran (the transfer thread stopped)"
                    .to_string(),
            }));
            state.done.notify_all();
        }
    }
}

/// The trace span of a transfer of a `ty` array to (`to_device`) or from `device`: its bytes,
/// shape and direction.
pub(crate) fn span(
    to_device: bool,
    ty: &systolic_ir::TensorType,
    device: Device,
) -> systolic_trace::Span {
    let mut span = systolic_trace::Span::new(
        systolic_trace::cat::TRANSFER,
        if to_device {
            "host→device"
        } else {
            "device→host"
        },
    );
    if span.is_recording() {
        span.arg("bytes", ty.byte_size() as u64);
        span.arg("shape", ty.to_string());
        span.arg("device", device.to_string());
        span.arg(
            "direction",
            if to_device {
                "host_to_device"
            } else {
                "device_to_host"
            },
        );
    }
    span
}
