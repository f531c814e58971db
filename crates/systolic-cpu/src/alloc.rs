//! An allocator for programs using the CPU backend: the system's, with large blocks on 64-byte
//! (cache-line) boundaries. A library cannot choose the process's allocator, so binaries opt
//! in (the `systolic` command does):
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: systolic_cpu::alloc::CacheLineAligned = systolic_cpu::alloc::CacheLineAligned;
//!
//! let v = vec![0f32; 1 << 20];
//! assert_eq!(v.as_ptr() as usize % 64, 0);
//! ```
//!
//! glibc returns large blocks 16 bytes past a cache-line start, so every 64-byte vector of an
//! array spans two cache lines: an AVX-512 load or store touches both, and an AMX tile row
//! (64 bytes) costs three times the cycles (measured: 46 against 15 per `tdpbf16ps` with
//! tiles in L1). XLA allocates its buffers 64-byte aligned; so do we, for every block of at
//! least [`LARGE`] bytes. Small blocks keep the system's alignment (no waste). Measured with the
//! `systolic` command (chrt -f 50, `--repeat 30`, two rounds): the 2048³ bf16 product on AMX
//! 9.5/9.1 → 8.2/8.1 ms; the other benchmark programs unchanged within noise.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks at least this large start on a cache line.
pub const LARGE: usize = 1 << 16;

/// The system allocator with large blocks cache-line aligned.
pub struct CacheLineAligned;

const LINE: usize = 64;

fn widen(layout: Layout) -> Layout {
    if layout.size() >= LARGE && layout.align() < LINE {
        // A valid layout stays valid with a larger power-of-two alignment at this size.
        Layout::from_size_align(layout.size(), LINE).unwrap_or(layout)
    } else {
        layout
    }
}

// SAFETY: every call is forwarded to `System` with the same size and an alignment that depends
// only on the size and the caller's alignment, so `dealloc` and `realloc` see the layout their
// block was allocated with; a larger alignment satisfies the caller's.
unsafe impl GlobalAlloc for CacheLineAligned {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        System.alloc(widen(layout))
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        System.alloc_zeroed(widen(layout))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, widen(layout))
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = widen(layout);
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        let new = widen(new);
        if old.align() == new.align() {
            return System.realloc(ptr, old, new_size);
        }
        // The alignment changes across the threshold: move by hand.
        let fresh = System.alloc(new);
        if !fresh.is_null() {
            std::ptr::copy_nonoverlapping(ptr, fresh, old.size().min(new_size));
            System.dealloc(ptr, old);
        }
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_start_on_a_cache_line_and_keep_their_bytes_when_resized() {
        let a = CacheLineAligned;
        let small = Layout::from_size_align(100, 4).unwrap();
        let large = Layout::from_size_align(LARGE + 12, 4).unwrap();
        assert_eq!(widen(small), small);
        assert_eq!(widen(large).align(), LINE);
        // SAFETY: each block is used within its layout and freed with the layout it has.
        unsafe {
            let p = a.alloc_zeroed(large);
            assert_eq!(p as usize % LINE, 0);
            assert_eq!(*p.add(LARGE), 0);
            *p.add(5) = 42;
            // Shrinking below the threshold and growing past it again move the bytes.
            let q = a.realloc(p, large, 64);
            assert_eq!(*q.add(5), 42);
            let r = a.realloc(q, Layout::from_size_align(64, 4).unwrap(), 2 * LARGE);
            assert_eq!(r as usize % LINE, 0);
            assert_eq!(*r.add(5), 42);
            a.dealloc(r, Layout::from_size_align(2 * LARGE, 4).unwrap());
        }
    }
}
