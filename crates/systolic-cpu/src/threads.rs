//! The threads compiled programs run on: the CPU backend's own pool, whose threads flush
//! denormals in hardware.
//!
//! XLA:CPU runs its kernels with the x86 MXCSR bits FTZ (flush results that would be
//! subnormal to zero) and DAZ (read subnormal operands as zero) set. Kernels here flushed in
//! software, two vector instructions per operand and per result of every float op; with the
//! bits set, the arithmetic ops (add, subtract, multiply, divide, square, float sums and
//! products) leave it to the hardware ([`hardware_flush`]). Measured (`systolic run --repeat`,
//! `chrt -f 50`, median of 3–5 rounds' medians): softmax cross-entropy 2.88 → 2.56 ms, the
//! transformer block forward 69.6 → 65.1 ms, MLP training step 40.9 → 40.2 ms.
//!
//! The bits change more than arithmetic: under DAZ every float instruction reads a subnormal
//! as zero, compares and conversions included, and LLVM (which assumes IEEE behaviour) may
//! turn a bit test into a float compare. Ops defined on bit patterns therefore keep to
//! integer operations (`bitcast_convert`, `reduce_precision`, `next_after`, bf16 → bool,
//! `FloatLane::dtype_bits`), tanh passes tiny inputs through by a select, and the
//! interpreter fallback runs in IEEE mode ([`DenormalMode::ieee`]); the property tests, whose
//! random inputs include subnormals, check every op against the interpreter.
//!
//! The bits are per thread, so every thread that runs such a kernel must have them:
//! - the pool's threads set them when they start ([`run`] moves a program onto the pool,
//!   where the kernels' own parallel loops then also run);
//! - a program too small to use more than one thread runs on the caller's thread inside a
//!   [`DenormalMode::flush`] guard, which sets them and restores the caller's on drop.
//!
//! The pool is the backend's, not rayon's global one, so other code in the process keeps its
//! floating-point environment.
//!
//! Library code written for IEEE arithmetic runs on a second pool whose threads keep IEEE
//! mode ([`run_ieee`]): faer, under the LAPACK calls, scales complex divisions by constants
//! near the subnormal range, and under FTZ/DAZ a complex LU solve of a well-conditioned 4×4
//! matrix returned garbage (left eigenvectors of `geev`, measured in the linalg goldens).

use std::sync::OnceLock;

/// True where arithmetic kernels rely on the FTZ/DAZ bits instead of flushing in software
/// (x86-64, whose every thread running a kernel has them set, see the module docs).
pub const fn hardware_flush() -> bool {
    cfg!(target_arch = "x86_64")
}

/// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits.
#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = (1 << 15) | (1 << 6);

#[cfg(target_arch = "x86_64")]
fn read_mxcsr() -> u32 {
    let mut value = 0u32;
    // SAFETY: stmxcsr stores the 32-bit control register to the given address, which is a
    // live local.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack, preserves_flags));
    }
    value
}

#[cfg(target_arch = "x86_64")]
fn write_mxcsr(value: u32) {
    // SAFETY: ldmxcsr loads the control register from a live local; `value` comes from
    // `read_mxcsr` with only the FTZ/DAZ bits changed (reserved bits untouched).
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack, readonly, preserves_flags));
    }
}

/// This thread's denormal mode, set for as long as the guard lives and restored on drop:
/// [`DenormalMode::flush`] (FTZ and DAZ) for kernels, [`DenormalMode::ieee`] (neither) for
/// code that must see subnormals as IEEE says (the interpreter, when a rare op falls back to
/// it).
///
/// ```
/// use systolic_cpu::threads::DenormalMode;
/// let tiny = f32::from_bits(1); // the smallest subnormal
/// {
///     let _flush = DenormalMode::flush();
///     let expected = if systolic_cpu::threads::hardware_flush() { 0.0 } else { f32::from_bits(2) };
///     assert_eq!(std::hint::black_box(tiny) * 2.0, expected);
///     let _ieee = DenormalMode::ieee();
///     assert_eq!(std::hint::black_box(tiny) * 2.0, f32::from_bits(2));
/// }
/// assert_eq!(std::hint::black_box(tiny) * 2.0, f32::from_bits(2));
/// ```
#[derive(Debug)]
#[must_use = "the mode lasts as long as the guard"]
pub struct DenormalMode {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl DenormalMode {
    /// Flush: FTZ and DAZ set (nothing elsewhere than x86-64).
    pub fn flush() -> DenormalMode {
        DenormalMode::set(true)
    }

    /// IEEE: FTZ and DAZ clear.
    pub fn ieee() -> DenormalMode {
        DenormalMode::set(false)
    }

    #[allow(unused_variables)]
    fn set(flush: bool) -> DenormalMode {
        #[cfg(target_arch = "x86_64")]
        {
            let saved = read_mxcsr();
            write_mxcsr(if flush {
                saved | FTZ_DAZ
            } else {
                saved & !FTZ_DAZ
            });
            DenormalMode { saved }
        }
        #[cfg(not(target_arch = "x86_64"))]
        DenormalMode {}
    }
}

impl Drop for DenormalMode {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        write_mxcsr(self.saved);
    }
}

/// True when this thread flushes denormals in hardware now.
pub fn flushing() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        read_mxcsr() & FTZ_DAZ == FTZ_DAZ
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

thread_local! {
    static PROCESS_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True on the thread of a process of an SPMD execution ([`crate::spmd`]), while it runs its
/// program: [`crate::program::Program::run`] then keeps collectives and control flow on this
/// thread and sends only splittable tensor kernels to the pool.
pub fn on_process_thread() -> bool {
    PROCESS_THREAD.with(std::cell::Cell::get)
}

/// Marks this thread as a process thread of an SPMD execution while the guard lives.
#[derive(Debug)]
#[must_use = "the mark lasts as long as the guard"]
pub struct ProcessThread {
    saved: bool,
}

impl ProcessThread {
    /// Marks the calling thread (restored on drop).
    pub fn enter() -> ProcessThread {
        ProcessThread {
            saved: PROCESS_THREAD.with(|c| c.replace(true)),
        }
    }
}

impl Drop for ProcessThread {
    fn drop(&mut self) {
        PROCESS_THREAD.with(|c| c.set(self.saved));
    }
}

/// A pool of one thread per core named `name-i`, each in the denormal mode `flush` says.
fn start_pool(name: &'static str, flush: bool) -> rayon::ThreadPool {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(move |_| std::mem::forget(DenormalMode::set(flush)))
        .build()
        .unwrap_or_else(|e| panic!("the CPU backend's thread pool {name} starts: {e}"))
}

/// Runs `f` on `pool` (in place when already on one of its threads): the caller waits, and
/// the parallel loops inside `f` spread over the pool.
fn run_on<R: Send>(pool: &rayon::ThreadPool, f: impl FnOnce() -> R + Send) -> R {
    if pool.current_thread_index().is_some() {
        f()
    } else {
        pool.install(f)
    }
}

/// The backend's pool: one thread per core, each with FTZ and DAZ set.
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| start_pool("systolic-cpu", true))
}

/// Runs `f(index, chunk)` for every chunk of `len` elements of `data` (the last may be
/// shorter), on all threads of the current pool when `parallel`, else in order on this one:
/// the kernels that decide by size whether a loop is worth spreading call this.
pub fn for_each_chunk_mut<T: Send>(
    data: &mut [T],
    len: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    use rayon::prelude::*;
    if parallel {
        data.par_chunks_mut(len)
            .enumerate()
            .for_each(|(i, chunk)| f(i, chunk));
    } else {
        data.chunks_mut(len)
            .enumerate()
            .for_each(|(i, chunk)| f(i, chunk));
    }
}

/// Runs `f` on the backend's pool (in place when already on one of its threads): the caller
/// waits, and the parallel loops inside `f` spread over the pool.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    run_on(pool(), f)
}

/// Runs `f` on a pool of IEEE threads (FTZ and DAZ clear; as many as the backend's, started
/// on first use), for library code that relies on subnormals (see the module docs): the caller
/// waits, and the parallel loops inside `f` spread over that pool.
pub fn run_ieee<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    run_on(
        POOL.get_or_init(|| start_pool("systolic-cpu-ieee", false)),
        f,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ieee_pool_does_not_flush_even_when_called_from_the_flushing_pool() {
        let all: Vec<bool> = run(|| run_ieee(|| rayon::broadcast(|_| flushing())));
        assert!(all.iter().all(|&f| !f), "{all:?}");
    }

    #[test]
    fn pool_threads_flush_and_the_guard_restores_the_callers_mode() {
        assert!(run(flushing) == hardware_flush());
        let all: Vec<bool> = run(|| rayon::broadcast(|_| flushing()));
        assert!(all.iter().all(|&f| f == hardware_flush()), "{all:?}");
        let before = flushing();
        {
            let _g = DenormalMode::flush();
            assert_eq!(flushing(), hardware_flush());
            let _i = DenormalMode::ieee();
            assert!(!flushing());
        }
        assert_eq!(flushing(), before);
    }
}
