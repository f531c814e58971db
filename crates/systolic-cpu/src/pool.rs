//! A per-thread pool of storage vectors, so that kernels stop paying for fresh allocations (and
//! the page faults of first touching them) on every run.
//!
//! The executor hands the storage of every value that dies back with [`recycle`]; a kernel
//! needing a zeroed vector of some type and length takes one with [`zeros`], which reuses a
//! pooled vector of the same variant and length (zero-filled again, so results do not change)
//! or allocates. The pool holds at most [`MAX_BYTES`] and [`MAX_PER_KEY`] vectors per key;
//! vectors below [`MIN_BYTES`] are not pooled (the allocator is cheap for them).

use crate::buffer::Storage;
use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::Discriminant;
use systolic_ir::DType;

/// The most bytes one thread's pool retains.
pub const MAX_BYTES: usize = 1 << 30;

/// The most vectors retained per (variant, length).
pub const MAX_PER_KEY: usize = 4;

/// Vectors smaller than this are left to the allocator.
pub const MIN_BYTES: usize = 1 << 16;

type Key = (Discriminant<Storage>, usize);

#[derive(Default)]
struct Pool {
    free: HashMap<Key, Vec<Storage>>,
    bytes: usize,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

fn bytes_of(s: &Storage) -> usize {
    crate::with_storage!(s, v => std::mem::size_of_val(v.as_slice()))
}

/// A zeroed storage vector for `n` elements of `dtype`: a pooled one when available.
pub fn zeros(dtype: DType, n: usize) -> Storage {
    let empty = Storage::zeros(dtype, 0);
    if n == 0 {
        return empty;
    }
    let key = (std::mem::discriminant(&empty), n);
    let reused = POOL
        .try_with(|p| {
            let mut p = p.borrow_mut();
            let s = p.free.get_mut(&key)?.pop()?;
            p.bytes -= bytes_of(&s);
            Some(s)
        })
        .ok()
        .flatten();
    match reused {
        Some(mut s) => {
            crate::with_storage!(&mut s, v => v.fill(Default::default()));
            s
        }
        None => Storage::zeros(dtype, n),
    }
}

/// A storage vector for `n` elements of `dtype` whose contents do not matter (the caller
/// writes every element): a pooled one as it is (stale values, no zero-fill pass), or a fresh
/// zeroed one.
pub fn take(dtype: DType, n: usize) -> Storage {
    let empty = Storage::zeros(dtype, 0);
    if n == 0 {
        return empty;
    }
    let key = (std::mem::discriminant(&empty), n);
    POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        let s = p.free.get_mut(&key)?.pop()?;
        p.bytes -= bytes_of(&s);
        Some(s)
    })
    .ok()
    .flatten()
    .unwrap_or_else(|| Storage::zeros(dtype, n))
}

/// Returns a dead value's storage to this thread's pool (or frees it when the pool is full).
pub fn recycle(s: Storage) {
    let bytes = bytes_of(&s);
    if bytes < MIN_BYTES {
        return;
    }
    let key = (std::mem::discriminant(&s), s.len());
    let _ = POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.bytes + bytes > MAX_BYTES {
            return;
        }
        let list = p.free.entry(key).or_default();
        if list.len() < MAX_PER_KEY {
            list.push(s);
            p.bytes += bytes;
        }
    });
}

/// Bytes this thread's pool holds now (for tests and diagnostics).
pub fn pooled_bytes() -> usize {
    POOL.try_with(|p| p.borrow().bytes).unwrap_or(0)
}

/// Empties this thread's pool.
pub fn clear() {
    let _ = POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        p.free.clear();
        p.bytes = 0;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_vector_comes_back_zeroed() {
        clear();
        let n = MIN_BYTES;
        let s = Storage::F32(vec![1.5; n]);
        let ptr = match &s {
            Storage::F32(v) => v.as_ptr(),
            _ => unreachable!(),
        };
        recycle(s);
        match zeros(DType::F32, n) {
            Storage::F32(v) => {
                assert_eq!(v.as_ptr(), ptr);
                assert!(v.iter().all(|&x| x == 0.0));
            }
            _ => panic!("wrong variant"),
        }
        // Another type of the same length is not served from it.
        recycle(Storage::F32(vec![2.0; n]));
        assert!(matches!(zeros(DType::I32, n), Storage::I32(_)));
        clear();
    }
}
