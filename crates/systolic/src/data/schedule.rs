//! The pipeline's timeline on a simulated clock: how decode on the host, the host→device
//! transfer and the device's step overlap with and without prefetching.
//!
//! This is the model behind the simulated-TPU rows of `examples/input_pipeline.rs`, where the
//! step time comes from the TPU cost model and the transfer time from the chip's PCIe
//! bandwidth. Times are integer nanoseconds so that the results are exact.
//!
//! - Without prefetching everything is one sequence: decode batch `i`, transfer it, run the
//!   step; the device idles during the decode and the transfer.
//! - With prefetch depth `n ≥ 1` the host decodes on its own thread, the transfer runs on the
//!   chip's DMA engine while the previous step computes, and at most `n` batches wait decoded
//!   or on the device. Batch `i`'s decode may start once batch `i − n`'s step has begun (its
//!   slot is free); its transfer once it is decoded and the previous transfer is done; its
//!   step once it is on the device and the previous step is done. In the steady state a step
//!   then takes `max(decode, transfer, step)`: prefetching hides decode and transfer whenever
//!   the step is the longest, and a run of `b` batches is `decode + transfer + b × step`, a
//!   gain of exactly `(b − 1) × (decode + transfer)` over no prefetching.
//!
//! The runtime's simulated TPU devices run the same overlap on their own clocks (a transfer
//! on the chip's DMA engine beside the running step; `systolic_runtime::sim`), with the step
//! and transfer times of the real program and no host decode (the host's decode costs no
//! device time there); this model adds the decode, for the example's tables.

/// Per-batch costs in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    /// Host-side decode (reading, parsing, augmenting, batching).
    pub decode_ns: u64,
    /// The host→device transfer of a batch.
    pub transfer_ns: u64,
    /// The device's step.
    pub step_ns: u64,
}

/// The result of [`simulate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// From the first decode's start to the last step's end.
    pub total_ns: u64,
    /// Time the device did not compute: `total − batches × step`.
    pub device_idle_ns: u64,
    /// Batches run.
    pub batches: u64,
}

impl Timeline {
    /// The mean time per step (wall time over batches).
    pub fn step_time_ns(&self) -> f64 {
        self.total_ns as f64 / self.batches.max(1) as f64
    }

    /// The share of the time the device idled.
    pub fn idle_share(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.device_idle_ns as f64 / self.total_ns as f64
        }
    }
}

/// The timeline of `batches` steps with prefetch depth `prefetch` (0: none).
///
/// ```
/// use systolic::data::schedule::{simulate, Costs};
/// let c = Costs { decode_ns: 3, transfer_ns: 1, step_ns: 5 };
/// assert_eq!(simulate(c, 10, 0).total_ns, 10 * (3 + 1 + 5));
/// // Prefetching: only the first decode and transfer are exposed.
/// let t = simulate(c, 10, 2);
/// assert_eq!((t.total_ns, t.device_idle_ns), (3 + 1 + 10 * 5, 4));
/// ```
pub fn simulate(costs: Costs, batches: u64, prefetch: usize) -> Timeline {
    let Costs {
        decode_ns: d,
        transfer_ns: t,
        step_ns: s,
    } = costs;
    let n = batches as usize;
    let total_ns = if prefetch == 0 {
        batches * (d + t + s)
    } else {
        let mut step_start = vec![0u64; n];
        let (mut decode_end, mut transfer_end, mut step_end) = (0u64, 0u64, 0u64);
        for i in 0..n {
            let slot_free = if i >= prefetch {
                step_start[i - prefetch]
            } else {
                0
            };
            decode_end = decode_end.max(slot_free) + d;
            transfer_end = transfer_end.max(decode_end) + t;
            step_start[i] = step_end.max(transfer_end);
            step_end = step_start[i] + s;
        }
        step_end
    };
    Timeline {
        total_ns,
        device_idle_ns: total_ns - batches * s,
        batches,
    }
}
