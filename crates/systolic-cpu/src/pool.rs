//! A process-wide pool of storage vectors, so that kernels stop paying for fresh allocations
//! (zero-filled, or faulted in page by page) on every run.
//!
//! The executor hands the storage of every value that dies back with [`recycle`], and so does
//! the runtime when the last handle of a buffer drops; a kernel needing a zeroed vector of some
//! type and length takes one with [`zeros`], which reuses a pooled vector of the same variant
//! and length (zero-filled again, so results do not change) or allocates, and one it writes
//! completely with [`take`] (stale contents, no fill). One pool serves every thread: a program
//! runs on the CPU backend's worker threads while its outputs are dropped on the caller's.
//! The pool holds at most [`MAX_BYTES`] and [`MAX_PER_KEY`] vectors per key; vectors below
//! [`MIN_BYTES`] are not pooled (the allocator is cheap for them), so the lock is taken a few
//! times per large kernel, never per element or block.

use crate::buffer::Storage;
use std::collections::HashMap;
use std::mem::Discriminant;
use std::sync::{Mutex, MutexGuard};
use systolic_ir::DType;

/// The most bytes the pool retains.
pub const MAX_BYTES: usize = 1 << 30;

/// The most vectors retained per (variant, length): a training step holds a dozen arrays of
/// one shape at once (activations, their gradients, weight updates), and an SPMD execution
/// on eight host devices eight times as many (each process its own weights, gradients and
/// all-reduced gradients); with 16, its processes faulted fresh pages in on every step.
pub const MAX_PER_KEY: usize = 64;

/// Vectors smaller than this are left to the allocator.
pub const MIN_BYTES: usize = 1 << 16;

type Key = (Discriminant<Storage>, usize);

#[derive(Default)]
struct Pool {
    free: Option<HashMap<Key, Vec<Storage>>>,
    bytes: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    free: None,
    bytes: 0,
});

fn lock() -> MutexGuard<'static, Pool> {
    // Every update leaves the pool consistent (a vector is in the map and counted, or not).
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The pool's key for vectors of `n` elements of `dtype`.
fn key(dtype: DType, n: usize) -> Key {
    (std::mem::discriminant(&Storage::zeros(dtype, 0)), n)
}

fn bytes_of(s: &Storage) -> usize {
    crate::with_storage!(s, v => std::mem::size_of_val(v.as_slice()))
}

/// Bytes per element of the storage vector `dtype` is held in.
fn element_bytes(dtype: DType) -> usize {
    fn size<T>(_: &[T]) -> usize {
        std::mem::size_of::<T>()
    }
    crate::with_storage!(&Storage::zeros(dtype, 0), v => size(v.as_slice()))
}

/// A pooled vector for `n` elements of `dtype`, if one is free. A vector too small to be
/// pooled ([`MIN_BYTES`]) is never looked up: the lock is not taken for the scalars and
/// small arrays of a loop body, whose kernels would otherwise take it once per result.
fn pop(dtype: DType, n: usize) -> Option<Storage> {
    if n.saturating_mul(element_bytes(dtype)) < MIN_BYTES {
        return None;
    }
    let mut p = lock();
    let s = p.free.as_mut()?.get_mut(&key(dtype, n))?.pop()?;
    p.bytes -= bytes_of(&s);
    Some(s)
}

/// A zeroed storage vector for `n` elements of `dtype`: a pooled one when available.
pub fn zeros(dtype: DType, n: usize) -> Storage {
    match (n > 0).then(|| pop(dtype, n)).flatten() {
        Some(mut s) => {
            crate::with_storage!(&mut s, v => v.fill(Default::default()));
            s
        }
        None => fresh(dtype, n),
    }
}

/// A storage vector for `n` elements of `dtype` whose contents do not matter (the caller
/// writes every element): a pooled one as it is (stale values, no zero-fill pass), or a fresh
/// zeroed one.
pub fn take(dtype: DType, n: usize) -> Storage {
    (n > 0)
        .then(|| pop(dtype, n))
        .flatten()
        .unwrap_or_else(|| fresh(dtype, n))
}

/// Element types with a storage variant of their own: the typed scratch vectors kernels keep
/// (packing panels, converted operands, FFT work arrays) come from and go back to the pool
/// through [`take_vec`] and [`recycle_vec`] without matching on [`Storage`] at every site.
pub trait PoolElement: Copy + Default + Sized {
    /// The dtype whose storage variant holds `Vec<Self>`.
    const DTYPE: DType;
    /// The vector as storage.
    fn wrap(v: Vec<Self>) -> Storage;
    /// The vector inside `s`, when `s` is this type's variant.
    fn unwrap(s: Storage) -> Option<Vec<Self>>;
}

macro_rules! pool_element {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl PoolElement for $t {
            const DTYPE: DType = DType::$variant;
            fn wrap(v: Vec<Self>) -> Storage {
                Storage::$variant(v)
            }
            fn unwrap(s: Storage) -> Option<Vec<Self>> {
                match s {
                    Storage::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    )*};
}

pool_element!(
    f32 => F32,
    f64 => F64,
    u32 => U32,
    num_complex::Complex32 => C64,
    num_complex::Complex64 => C128,
);

/// [`take`] for a typed vector: `n` elements whose contents do not matter.
pub fn take_vec<T: PoolElement>(n: usize) -> Vec<T> {
    T::unwrap(take(T::DTYPE, n)).unwrap_or_else(|| vec![T::default(); n])
}

/// [`recycle`] for a typed vector.
pub fn recycle_vec<T: PoolElement>(v: Vec<T>) {
    recycle(T::wrap(v));
}

/// New zeroed storage, huge pages asked for when large ([`crate::pages`]): its pages are not
/// touched yet (large blocks are fresh mappings, see [`crate::alloc::fresh_pages`]), so the
/// threads of the kernel that writes it first fault them in, zeroed by the system.
fn fresh(dtype: DType, n: usize) -> Storage {
    let s = crate::alloc::fresh_pages(|| Storage::zeros(dtype, n));
    crate::pages::advise_huge_pages(&s);
    s
}

/// Returns a dead value's storage to the pool (or frees it when the pool is full).
pub fn recycle(s: Storage) {
    let bytes = bytes_of(&s);
    if bytes < MIN_BYTES {
        return;
    }
    let key = (std::mem::discriminant(&s), s.len());
    let mut p = lock();
    if p.bytes + bytes > MAX_BYTES {
        return;
    }
    let list = p
        .free
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_default();
    if list.len() < MAX_PER_KEY {
        list.push(s);
        p.bytes += bytes;
    }
}

/// Bytes the pool holds now (for diagnostics).
pub fn pooled_bytes() -> usize {
    lock().bytes
}

/// How many vectors for `n` elements of `dtype` the pool holds now (for tests: with a length
/// no other test uses, the count is theirs alone).
pub fn pooled(dtype: DType, n: usize) -> usize {
    lock()
        .free
        .as_ref()
        .and_then(|f| f.get(&key(dtype, n)))
        .map_or(0, Vec::len)
}

/// Empties the pool.
pub fn clear() {
    let mut p = lock();
    p.free = None;
    p.bytes = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_vector_comes_back_zeroed() {
        // A length of its own: the pool is shared with every other test of this binary.
        let n = MIN_BYTES / 4 + 11;
        let s = Storage::F32(vec![1.5; n]);
        let ptr = match &s {
            Storage::F32(v) => v.as_ptr(),
            _ => unreachable!(),
        };
        recycle(s);
        assert_eq!(pooled(DType::F32, n), 1);
        match zeros(DType::F32, n) {
            Storage::F32(v) => {
                assert_eq!(v.as_ptr(), ptr);
                assert!(v.iter().all(|&x| x == 0.0));
            }
            _ => panic!("wrong variant"),
        }
        assert_eq!(pooled(DType::F32, n), 0);
        // Another type of the same length is not served from it.
        recycle(Storage::F32(vec![2.0; n]));
        assert!(matches!(zeros(DType::I32, n), Storage::I32(_)));
        assert_eq!(pooled(DType::F32, n), 1);
        assert!(matches!(take(DType::F32, n), Storage::F32(v) if v[0] == 2.0));
    }

    #[test]
    fn typed_vectors_go_through_their_own_variant() {
        // Lengths of their own, as above.
        let n = MIN_BYTES / 4 + 23;
        let v = vec![7u32; n];
        let ptr = v.as_ptr();
        recycle_vec(v);
        assert_eq!(pooled(DType::U32, n), 1);
        // Not served as another element type of the same length…
        let other: Vec<f32> = take_vec(n);
        assert_eq!((other.len(), pooled(DType::U32, n)), (n, 1));
        // …and served as itself, stale contents and all.
        let back: Vec<u32> = take_vec(n);
        assert_eq!((back.as_ptr(), back[0], back.len()), (ptr, 7, n));
        assert_eq!(pooled(DType::U32, n), 0);
        let m = MIN_BYTES / 8 + 5;
        recycle_vec(vec![num_complex::Complex32::new(1.0, 2.0); m]);
        assert_eq!(pooled(DType::C64, m), 1);
        assert_eq!(take_vec::<num_complex::Complex32>(m)[0].im, 2.0);
    }

    #[test]
    fn small_vectors_are_left_to_the_allocator() {
        let n = MIN_BYTES / 4 - 3;
        recycle(Storage::F32(vec![1.0; n]));
        assert_eq!(pooled(DType::F32, n), 0);
    }
}
