//! Asynchronous dispatch: an eager op or a compiled call ([`jit`](crate::jit), a staged
//! function) on concrete arrays is queued to one dispatch thread and returns at once with
//! *pending* results, as JAX dispatches asynchronously. The queue runs in order, so a job's
//! operands were produced by earlier jobs (or are host transfers, which never wait for the
//! queue): the worker waits for them, never the caller, and no job can wait for a later one.
//! Reading a result (`to_vec`, `block_until_ready`, …) waits for its job. A failure in a job
//! (compilation, execution, a failed operand) is stored in its results and reported by the next
//! call that reads them.

use crate::array::{Array, Repr};
use crate::error::{Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use systolic_ir::TensorType;
use systolic_runtime::{Buffer, Device, Executable};

/// The future result of one queued op.
#[derive(Default)]
pub(crate) struct Pending {
    slot: Mutex<Option<Result<Buffer>>>,
    ready: Condvar,
}

impl Pending {
    /// Waits for the result.
    pub(crate) fn wait(&self) -> Result<Buffer> {
        let poisoned = |_| Error::Runtime("a dispatch slot's lock was poisoned".into());
        let mut slot = self.slot.lock().map_err(poisoned)?;
        while slot.is_none() {
            slot = self.ready.wait(slot).map_err(poisoned)?;
        }
        slot.clone()
            .unwrap_or_else(|| Err(Error::Runtime("empty dispatch slot".into())))
    }

    /// True once the job has finished (its result may still be a buffer being transferred).
    pub(crate) fn is_done(&self) -> bool {
        self.slot.lock().map_or(true, |s| s.is_some())
    }

    fn set(&self, value: Result<Buffer>) {
        if let Ok(mut slot) = self.slot.lock() {
            *slot = Some(value);
        }
        self.ready.notify_all();
    }
}

type Job = Box<dyn FnOnce() + Send>;

fn queue() -> Option<&'static Mutex<Sender<Job>>> {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (tx, rx) = channel::<Job>();
            std::thread::Builder::new()
                .name("systolic-dispatch".into())
                .spawn(move || {
                    for job in rx {
                        job();
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

/// Queues `work` (which makes `n` buffers) and returns their pending slots at once. Without a
/// dispatch thread the work runs inline.
pub(crate) fn submit(
    n: usize,
    work: impl FnOnce() -> Result<Vec<Buffer>> + Send + 'static,
) -> Vec<Arc<Pending>> {
    submit_named("an eager op", n, work)
}

/// [`submit`]; `what` names the job in the errors this module makes (`jit(f)`).
pub(crate) fn submit_named(
    what: &str,
    n: usize,
    work: impl FnOnce() -> Result<Vec<Buffer>> + Send + 'static,
) -> Vec<Arc<Pending>> {
    let what = what.to_string();
    let slots: Vec<Arc<Pending>> = (0..n).map(|_| Arc::new(Pending::default())).collect();
    let targets = slots.clone();
    let job: Job = Box::new(move || {
        let outcome = catch_unwind(AssertUnwindSafe(work))
            .unwrap_or_else(|_| Err(Error::Runtime(format!("{what} panicked in the backend"))));
        match outcome {
            Ok(buffers) if buffers.len() == targets.len() => {
                for (t, b) in targets.iter().zip(buffers) {
                    t.set(Ok(b));
                }
            }
            Ok(buffers) => {
                let e = Error::Runtime(format!(
                    "{what} made {} results, {} expected",
                    buffers.len(),
                    targets.len()
                ));
                targets.iter().for_each(|t| t.set(Err(e.clone())));
            }
            Err(e) => targets.iter().for_each(|t| t.set(Err(e.clone()))),
        }
    });
    // Without a dispatch thread (or if it is gone) the job runs inline.
    let inline = match queue().and_then(|q| q.lock().ok()) {
        Some(tx) => tx.send(job).err().map(|returned| returned.0),
        None => Some(job),
    };
    if let Some(job) = inline {
        job();
    }
    slots
}

/// Waits until every job queued before this call has run (the profiler stops a trace after
/// the work it covers: calls return before their executions have run).
pub(crate) fn drain() {
    let (tx, rx) = channel::<()>();
    let job: Job = Box::new(move || {
        let _ = tx.send(());
    });
    if let Some(q) = queue().and_then(|q| q.lock().ok())
        && q.send(job).is_ok()
    {
        drop(q);
        let _ = rx.recv();
    }
}

/// Queues a run of `exe` on `inputs` (concrete or pending arrays, all on `device`) and returns
/// its results at once as pending arrays of `out_types`. The worker waits for pending inputs;
/// an input's failure or the execution's is stored in every result, the latter as an error of
/// the op `label` (`jit(f)`).
pub(crate) fn execute(
    label: &str,
    exe: Executable,
    inputs: Vec<Array>,
    out_types: &[TensorType],
    out_weak: &[bool],
    device: Device,
) -> Vec<Array> {
    execute_donating(label, exe, inputs, &[], out_types, out_weak, device)
}

/// [`execute`], donating the inputs `donate` marks (already marked deleted by the caller: the
/// worker reads them all the same, and the execution takes their data).
pub(crate) fn execute_donating(
    label: &str,
    exe: Executable,
    inputs: Vec<Array>,
    donate: &[bool],
    out_types: &[TensorType],
    out_weak: &[bool],
    device: Device,
) -> Vec<Array> {
    let op = label.to_string();
    let donate = donate.to_vec();
    let slots = submit_named(label, out_types.len(), move || {
        let buffers = inputs
            .iter()
            .map(Array::buffer_of_call)
            .collect::<Result<Vec<_>>>()?;
        let ran = if donate.iter().any(|&d| d) {
            exe.execute_donating_some(buffers, &donate)
        } else {
            let refs: Vec<&Buffer> = buffers.iter().collect();
            exe.execute(&refs)
        };
        ran.map_err(|e| Error::op(&op, Error::from(e).to_string()))
    });
    slots
        .into_iter()
        .zip(out_types)
        .enumerate()
        .map(|(i, (p, ty))| {
            let weak = out_weak.get(i).copied().unwrap_or(false);
            Array::make(ty.clone(), weak, device, Repr::Pending(p))
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Sender};

    /// Holds the dispatch queue until dropped (for tests that check that callers do not wait).
    pub(crate) struct Hold(Option<Sender<()>>);

    impl Drop for Hold {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }

    /// Queues a job that blocks the worker until the returned guard is dropped.
    pub(crate) fn hold_queue() -> Hold {
        let (tx, rx) = channel::<()>();
        let _ = submit(0, move || {
            let _ = rx.recv();
            Ok(vec![])
        });
        Hold(Some(tx))
    }

    #[test]
    fn results_wait_for_the_queue_and_keep_its_order() {
        let hold = hold_queue();
        let order = Arc::new(Mutex::new(vec![]));
        let slots: Vec<_> = (0..3)
            .map(|i| {
                let order = order.clone();
                submit(0, move || {
                    order.lock().unwrap().push(i);
                    Ok(vec![])
                })
            })
            .collect();
        assert!(order.lock().unwrap().is_empty(), "the held queue ran a job");
        drop(hold);
        let done = submit(1, || Err(Error::Runtime("boom".into())));
        assert!(done[0].wait().unwrap_err().to_string().contains("boom"));
        assert!(done[0].is_done());
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2]);
        drop(slots);
    }
}
