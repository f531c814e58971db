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
//!
//! Large zeroed blocks allocated inside [`fresh_pages`] (the buffer pool's new buffers) are
//! fresh anonymous mappings instead: pages the kernel zeroes when first touched, so by the
//! threads that write them, as huge pages when the pool asks for them. From the heap they were
//! cleared here first: the `systolic` command turns glibc's `mmap` off (to keep freed memory
//! for the next run), and calloc then clears reused or new heap memory with one `memset` on the
//! allocating thread, faulting it in 4 KiB pages before any advice could apply.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Blocks at least this large start on a cache line.
pub const LARGE: usize = 1 << 16;

/// The system allocator with large blocks cache-line aligned.
pub struct CacheLineAligned;

const LINE: usize = 64;

/// Room in front of a large block: up to a line to reach the boundary, and the word before it
/// that holds the system block's address.
const SLACK: usize = LINE + std::mem::size_of::<usize>();

/// Zeroed blocks at least this large, allocated inside [`fresh_pages`], are fresh mappings.
pub const FRESH_MIN: usize = 1 << 22;

/// The low bit of a block's recorded address, set when the block is a mapping of its own
/// (system blocks are word-aligned, so the bit is free).
const MAPPED: usize = 1;

thread_local! {
    /// Whether this thread is inside [`fresh_pages`].
    static FRESH_PAGES: Cell<bool> = const { Cell::new(false) };
}

/// Runs `allocate` with its zeroed blocks of at least [`FRESH_MIN`] bytes mapped fresh from
/// the system when [`CacheLineAligned`] is the process's allocator (elsewhere it changes
/// nothing): their pages are zeroed by the kernel on first touch instead of cleared on this
/// thread now. For buffers that live long and are written soon by many threads (the pool's);
/// not for short-lived temporaries, which reuse heap memory more cheaply than a mapping.
///
/// ```
/// let v = systolic_cpu::alloc::fresh_pages(|| vec![0f32; 1 << 22]);
/// assert!(v.iter().all(|&x| x == 0.0));
/// ```
pub fn fresh_pages<R>(allocate: impl FnOnce() -> R) -> R {
    /// Restores the flag even when `allocate` unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = FRESH_PAGES.try_with(|f| f.set(self.0));
        }
    }
    let _restore = Restore(FRESH_PAGES.try_with(|f| f.replace(true)).unwrap_or(false));
    allocate()
}

/// Whether a zeroed block of `layout` is mapped fresh here.
fn maps_fresh(layout: Layout) -> bool {
    cfg!(target_os = "linux")
        && layout.size() >= FRESH_MIN
        && FRESH_PAGES.try_with(Cell::get).unwrap_or(false)
}

#[cfg(target_os = "linux")]
mod mapping {
    /// A fresh private anonymous mapping of `len` bytes (zero pages), or null.
    pub fn map(len: usize) -> *mut u8 {
        // SAFETY: a new anonymous mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            std::ptr::null_mut()
        } else {
            p.cast()
        }
    }

    /// Unmaps what [`map`] returned for `len` bytes.
    ///
    /// # Safety
    /// `p` must be a live mapping of `len` bytes from [`map`], unused afterwards.
    pub unsafe fn unmap(p: *mut u8, len: usize) {
        libc::munmap(p.cast(), len);
    }
}

#[cfg(not(target_os = "linux"))]
mod mapping {
    pub fn map(_len: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
    pub unsafe fn unmap(_p: *mut u8, _len: usize) {}
}

/// The length of the mapping behind a mapped block of `size` bytes: a line in front, whose
/// last word records the mapping.
fn mapped_len(size: usize) -> usize {
    size + LINE
}

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

/// The block inside fresh mapping `raw`: one line in, the word before it recording `raw`
/// tagged [`MAPPED`].
///
/// # Safety
/// `raw` must be a live mapping of `mapped_len(size)` bytes, or null.
unsafe fn place_mapped(raw: *mut u8) -> *mut u8 {
    if raw.is_null() {
        return raw;
    }
    let block = raw.add(LINE);
    (block as *mut usize).sub(1).write(raw as usize | MAPPED);
    block
}

/// What is recorded in front of placed block `block`: the system block or mapping behind it,
/// and whether it is a mapping.
///
/// # Safety
/// `block` must come from [`place`] or [`place_mapped`].
unsafe fn recorded(block: *mut u8) -> (*mut u8, bool) {
    let word = (block as *const usize).sub(1).read_unaligned();
    ((word & !MAPPED) as *mut u8, word & MAPPED != 0)
}

// SAFETY: small blocks and over-aligned ones go to `System` as they are. A large block is a
// system block `SLACK` bytes longer, of which the caller gets the part from the first line
// boundary with a word in front (which records the system block, so `dealloc` and `realloc`
// find it); `placed` depends only on the layout, so every call sees the kind of block it was
// given. Zeroed blocks come from the system's zeroed allocation (calloc), or inside
// `fresh_pages` are a fresh mapping (zero pages) with the same front word, tagged `MAPPED`,
// which `dealloc` unmaps.
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
            (true, Some(_)) if maps_fresh(layout) => {
                place_mapped(mapping::map(mapped_len(layout.size())))
            }
            (true, Some(sys)) => place(System.alloc_zeroed(sys)),
            (true, None) => std::ptr::null_mut(),
            (false, _) => System.alloc_zeroed(layout),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match (placed(layout), system_layout(layout.size())) {
            (true, Some(sys)) => match recorded(ptr) {
                (raw, true) => mapping::unmap(raw, mapped_len(layout.size())),
                (raw, false) => System.dealloc(raw, sys),
            },
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

    /// Inside `fresh_pages`, a large zeroed block is a mapping of its own (on Linux): aligned,
    /// zero, writable; it survives being resized (moved to the heap) and freed; blocks below
    /// the threshold and outside `fresh_pages` stay system blocks.
    #[test]
    fn fresh_pages_maps_large_zeroed_blocks() {
        let a = CacheLineAligned;
        let big = Layout::from_size_align(FRESH_MIN + 100, 8).unwrap();
        let below = Layout::from_size_align(FRESH_MIN - 8, 8).unwrap();
        // SAFETY: each block is used within its layout and freed with the layout it has.
        unsafe {
            let p = fresh_pages(|| a.alloc_zeroed(big));
            assert_eq!(p as usize % LINE, 0);
            assert_eq!(recorded(p).1, cfg!(target_os = "linux"));
            assert!((0..big.size()).step_by(4093).all(|i| *p.add(i) == 0));
            *p.add(big.size() - 1) = 7;
            *p.add(3) = 9;
            let q = a.realloc(p, big, big.size() + 5000);
            assert!(!recorded(q).1);
            assert_eq!((*q.add(3), *q.add(big.size() - 1)), (9, 7));
            a.dealloc(q, Layout::from_size_align(big.size() + 5000, 8).unwrap());

            let m = fresh_pages(|| a.alloc_zeroed(big));
            a.dealloc(m, big);
            let s = fresh_pages(|| a.alloc_zeroed(below));
            assert!(!recorded(s).1);
            a.dealloc(s, below);
            let h = a.alloc_zeroed(big);
            assert!(!recorded(h).1, "outside fresh_pages the heap serves it");
            a.dealloc(h, big);
        }
        // The flag is restored after a panic inside.
        let _ = std::panic::catch_unwind(|| fresh_pages(|| panic!("inside")));
        assert!(!FRESH_PAGES.with(Cell::get));
    }
}
