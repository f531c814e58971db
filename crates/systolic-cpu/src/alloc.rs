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
//! `systolic` command (chrt -f 50, `--repeat 30`–`40`): the 2048³ bf16 product on AMX
//! 9.5/9.1 → 8.2/8.1 ms in one session, 10.8/10.3/10.6 → 10.0/10.0/9.8 ms in a later one; the
//! other benchmark programs unchanged within noise.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks at least this large start on a cache line.
pub const LARGE: usize = 1 << 16;

/// The system allocator with large blocks cache-line aligned.
pub struct CacheLineAligned;

const LINE: usize = 64;

/// Room in front of a large block: up to a line to reach the boundary, and the word before it
/// that holds the system block's address.
const SLACK: usize = LINE + std::mem::size_of::<usize>();

/// True for the layouts this allocator places itself (the rest go to `System` unchanged).
fn placed(layout: Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= LINE
}

/// The system block behind a placed block of `size` bytes.
fn system_layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(SLACK)?, std::mem::align_of::<usize>()).ok()
}

/// The placed block inside system block `raw`: the first line boundary with a word before it,
/// where the word records `raw`.
///
/// # Safety
/// `raw` must be a live system block of at least `system_layout(size)` bytes, or null.
unsafe fn place(raw: *mut u8) -> *mut u8 {
    if raw.is_null() {
        return raw;
    }
    let start = raw as usize + std::mem::size_of::<usize>();
    let block = raw.add(start.next_multiple_of(LINE) - raw as usize);
    (block as *mut usize).sub(1).write_unaligned(raw as usize);
    block
}

/// The system block recorded in front of placed block `block`.
///
/// # Safety
/// `block` must come from [`place`].
unsafe fn system_block(block: *mut u8) -> *mut u8 {
    (block as *const usize).sub(1).read_unaligned() as *mut u8
}

// SAFETY: small blocks and over-aligned ones go to `System` as they are. A large block is a
// system block `SLACK` bytes longer, of which the caller gets the part from the first line
// boundary with a word in front (which records the system block, so `dealloc` and `realloc`
// find it); `placed` depends only on the layout, so every call sees the kind of block it was
// given. Zeroed blocks come from the system's zeroed allocation (calloc: no fill of fresh
// memory).
unsafe impl GlobalAlloc for CacheLineAligned {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match (placed(layout), system_layout(layout.size())) {
            (true, Some(sys)) => place(System.alloc(sys)),
            (true, None) => std::ptr::null_mut(),
            (false, _) => System.alloc(layout),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match (placed(layout), system_layout(layout.size())) {
            (true, Some(sys)) => place(System.alloc_zeroed(sys)),
            (true, None) => std::ptr::null_mut(),
            (false, _) => System.alloc_zeroed(layout),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match (placed(layout), system_layout(layout.size())) {
            (true, Some(sys)) => System.dealloc(system_block(ptr), sys),
            _ => System.dealloc(ptr, layout),
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        if !placed(layout) && !placed(new) {
            return System.realloc(ptr, layout, new_size);
        }
        let fresh = self.alloc(new);
        if !fresh.is_null() {
            std::ptr::copy_nonoverlapping(ptr, fresh, layout.size().min(new_size));
            self.dealloc(ptr, layout);
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
        assert!(!placed(small) && placed(large));
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
