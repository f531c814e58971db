//! Moving blocks between buffers and registers: loads walk an affine access over the stage's
//! loop dimensions in runs along the innermost dimension (copy, fill or strided gather,
//! widening bf16/f16 to f32), stores write a register to a contiguous range, narrowing back.

use super::program::{Access, Source};
use super::reg::Reg;
use crate::buffer::Storage;
use crate::kernels::math::simd::{iota_i32, map1, update};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use systolic_ir::{numerics, DType};

/// The multi-index of element `start` of a loop over `dims` (row-major).
fn split_index(dims: &[usize], start: usize, index: &mut [usize]) {
    let mut rest = start;
    for d in (1..dims.len()).rev() {
        index[d] = rest % dims[d];
        rest /= dims[d];
    }
    // The outermost index needs no remainder (the block starts inside the loop).
    if let Some(i) = index.first_mut() {
        *i = rest;
    }
}

/// Ranks up to which [`block_index`] remembers its last answers.
const MEMO_RANK: usize = 8;

/// A remembered [`split_index`]: the loop's dims, the start and its multi-index.
#[derive(Clone, Copy, Default)]
struct IndexMemo {
    rank: usize,
    dims: [usize; MEMO_RANK],
    start: usize,
    index: [usize; MEMO_RANK],
}

/// The last two multi-indices computed on a thread, and which of them is the newer.
#[derive(Default)]
struct IndexMemos {
    entries: [IndexMemo; 2],
    newest: usize,
}

thread_local! {
    /// The last two multi-indices computed on this thread: every operand of a block loads
    /// from the same position (two: row programs' temporaries count from another origin), so
    /// the divisions run once per block instead of once per operand — they were the hottest
    /// instructions of bf16 elementwise loops in `perf`, waiting on `div`.
    static INDEX_MEMO: std::cell::RefCell<IndexMemos> =
        std::cell::RefCell::new(IndexMemos::default());
}

/// [`split_index`] for loops of rank ≤ [`MEMO_RANK`], remembered per thread. Entries are
/// updated in place, never moved: swapping them (two 144-byte copies per alternation between
/// origins) showed up as `memmove` in `perf`.
fn block_index(dims: &[usize], start: usize) -> [usize; MEMO_RANK] {
    let rank = dims.len();
    INDEX_MEMO.with_borrow_mut(|memo| {
        let hit = memo
            .entries
            .iter()
            .position(|m| m.rank == rank && m.start == start && m.dims[..rank] == *dims);
        if let Some(i) = hit {
            memo.newest = i;
            return memo.entries[i].index;
        }
        let older = 1 - memo.newest;
        let entry = &mut memo.entries[older];
        entry.rank = rank;
        entry.start = start;
        entry.dims[..rank].copy_from_slice(dims);
        split_index(dims, start, &mut entry.index[..rank]);
        memo.newest = older;
        entry.index
    })
}

/// Calls `run(source_offset, block_offset, length)` for each run of the block
/// `[start, start + n)` of a loop over `dims` along the innermost dimension.
#[inline]
fn for_each_run(
    dims: &[usize],
    access: &Access,
    start: usize,
    n: usize,
    mut run: impl FnMut(usize, usize, usize),
) {
    let Some(&inner) = dims.last() else {
        run(access.offset, 0, n);
        return;
    };
    let rank = dims.len();
    if rank == 1 {
        run(access.offset + start * access.strides[0], 0, n);
        return;
    }
    let mut small = [0usize; MEMO_RANK];
    let mut large = Vec::new();
    let index: &mut [usize] = if rank == 2 {
        // One division gives both indices: cheaper than the memo, whose thread-local lookup
        // and entry copies were 13% of a row program's time in `perf` (its loads alternate
        // between two origins, so the memo's entries swap at every block).
        small[0] = start / inner;
        small[1] = start % inner;
        &mut small[..2]
    } else if rank <= MEMO_RANK {
        small[..rank].copy_from_slice(&block_index(dims, start)[..rank]);
        &mut small[..rank]
    } else {
        large.resize(rank, 0);
        split_index(dims, start, &mut large);
        &mut large
    };
    let strides = &access.strides;
    // The offset moves with the index: one stride step per carry instead of a sum of rank
    // products per run (those 64-bit products, in SSE2 lanes, were the hottest instructions
    // of a bf16 softmax-backward loop in `perf`).
    let mut base = access.offset + index.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>();
    let mut done = 0;
    while done < n {
        let len = (inner - index[rank - 1]).min(n - done);
        run(base, done, len);
        done += len;
        index[rank - 1] += len;
        base += len * strides[rank - 1];
        for d in (1..rank).rev() {
            if index[d] != dims[d] {
                break;
            }
            // index[d] · strides[d] is part of `base`, so this never goes below zero.
            base = base - dims[d] * strides[d] + strides[d - 1];
            index[d] = 0;
            index[d - 1] += 1;
        }
    }
}

/// Copies a run with stride `step` from `src[base..]` into `dst`, converting each element.
#[inline(always)]
fn gather<S: Copy, T: Copy>(
    src: &[S],
    base: usize,
    step: usize,
    dst: &mut [T],
    conv: impl Fn(S) -> T,
) {
    match step {
        1 => {
            let len = dst.len();
            for (d, &s) in dst.iter_mut().zip(&src[base..base + len]) {
                *d = conv(s);
            }
        }
        0 => {
            // A broadcast: the vector fill (this module is not compiled for AVX-512, and the
            // plain loop stored 16 bytes at a time; row programs fill a row-wide register
            // for every value broadcast along the rows).
            let v = conv(src[base]);
            update(dst, move |_| v);
        }
        _ => {
            for (k, d) in dst.iter_mut().enumerate() {
                *d = conv(src[base + k * step]);
            }
        }
    }
}

/// Output rows a transposed load reads together: 8 neighbouring source elements per column
/// (32 bytes of f32), each source cache line read once for 8 rows instead of once per row.
const TRANSPOSED_ROWS: usize = super::panels::PANEL_ROWS;

/// The rows and row length of a rank-2 loop whose operand is read transposed: its outer stride
/// is 1 and its inner one larger (neighbouring output rows read neighbouring source elements,
/// one output row a source column), as in `x + xᵀ`.
fn transposed_rank2(dims: &[usize], access: &Access) -> Option<(usize, usize)> {
    match (dims, access.strides.as_slice()) {
        ([rows, cols], [1, step]) if *step > 1 && *cols > 0 => Some((*rows, *cols)),
        _ => None,
    }
}

/// Loads the block `[start, start + n)` of a rank-2 loop of `rows` × `cols`, reading
/// `src[offset + row + col·step]` (see [`transposed_rank2`]): groups of
/// [`TRANSPOSED_ROWS`] whole rows column by column; the rest row by row, from the thread's
/// panel of its group of rows inside a [`super::panels::scope`] (rows longer than an eighth
/// of a block), else element by element. Element by element along rows, each load touched
/// another cache line: 1.6 ns per element for the two `(a + aᵀ)/2` fusions of a 512² eigh on
/// an AMD EPYC Zen 4.
fn load_transposed<T: Copy + 'static>(
    (rows, cols): (usize, usize),
    offset: usize,
    step: usize,
    src: &[T],
    start: usize,
    dst: &mut [T],
) {
    let end = start + dst.len();
    let mut pos = start;
    while pos < end {
        let (row, col) = (pos / cols, pos % cols);
        let at = pos - start;
        if col == 0 && pos + TRANSPOSED_ROWS * cols <= end {
            for c in 0..cols {
                let column = &src[offset + row + c * step..][..TRANSPOSED_ROWS];
                for (j, &x) in column.iter().enumerate() {
                    dst[at + j * cols + c] = x;
                }
            }
            pos += TRANSPOSED_ROWS * cols;
        } else {
            let len = (cols - col).min(end - pos);
            let out = &mut dst[at..at + len];
            let key = super::panels::key_of(src, (offset, step), (rows, cols), row);
            let from_panel = key.rows > 1
                && super::panels::with_panel(src, key, |panel| {
                    let first = (row - key.first_row) * cols + col;
                    out.copy_from_slice(&panel[first..first + len]);
                })
                .is_some();
            if !from_panel {
                let first = offset + row + col * step;
                for (k, d) in out.iter_mut().enumerate() {
                    *d = src[first + k * step];
                }
            }
            pos += len;
        }
    }
}

/// Loads the block `[start, start + n)` through `access` into `dst` (whose lane is the
/// access dtype's). `source` is the buffer read (unused for iotas).
pub fn load(
    dims: &[usize],
    access: &Access,
    source: Option<&Storage>,
    start: usize,
    n: usize,
    dst: &mut Reg,
) {
    // Every lane of the block is written: a view the register held is simply dropped.
    dst.unview();
    if access.source == Source::Iota {
        load_iota(dims, access, start, n, dst);
        return;
    }
    let Some(source) = source else {
        return;
    };
    let step = access.strides.last().copied().unwrap_or(0);
    // Same-type contiguous runs are plain copies (the C library's vector memmove); a
    // transposed rank-2 read goes by groups of rows.
    let transposed = transposed_rank2(dims, access);
    macro_rules! same {
        ($s:expr, $d:expr) => {
            match transposed {
                Some(shape) => load_transposed(shape, access.offset, step, $s, start, &mut $d[..n]),
                None => for_each_run(dims, access, start, n, |base, at, len| {
                    if step == 1 {
                        $d[at..at + len].copy_from_slice(&$s[base..base + len]);
                    } else {
                        gather($s, base, step, &mut $d[at..at + len], |x| x)
                    }
                }),
            }
        };
    }
    match (source, &mut *dst) {
        (Storage::Bool(s), Reg::Bool(d)) => same!(s, d),
        (Storage::I8(s), Reg::I8(d)) => same!(s, d),
        (Storage::I16(s), Reg::I16(d)) => same!(s, d),
        (Storage::I32(s), Reg::I32(d)) => same!(s, d),
        (Storage::I64(s), Reg::I64(d)) => same!(s, d),
        (Storage::U8(s), Reg::U8(d)) => same!(s, d),
        (Storage::U16(s), Reg::U16(d)) => same!(s, d),
        (Storage::U32(s), Reg::U32(d)) => same!(s, d),
        (Storage::U64(s), Reg::U64(d)) => same!(s, d),
        (Storage::F32(s), Reg::F32(d)) => same!(s, d),
        (Storage::F64(s), Reg::F64(d)) => same!(s, d),
        (Storage::C64(s), Reg::C64(d)) => same!(s, d),
        (Storage::C128(s), Reg::C128(d)) => same!(s, d),
        (Storage::BF16(s), Reg::F32(d)) => for_each_run(dims, access, start, n, |base, at, len| {
            if step == 1 {
                map1(&s[base..base + len], &mut d[at..at + len], bf16::to_f32);
            } else {
                gather(s, base, step, &mut d[at..at + len], bf16::to_f32)
            }
        }),
        (Storage::F16(s), Reg::F32(d)) => for_each_run(dims, access, start, n, |base, at, len| {
            gather(s, base, step, &mut d[at..at + len], f16::to_f32)
        }),
        (s, d) => panic!(
            "fusion planner bug: loading {:?} storage into a {:?} register",
            std::mem::discriminant(s),
            std::mem::discriminant(d)
        ),
    }
    narrow_to_width(access.dtype, dst, n);
}

/// Makes `dst` read the block `[start, start + n)` of `source` through `access` in place, when
/// that block is one contiguous run stored in the register's own lane type (no conversion,
/// no narrowing); returns false otherwise, and the caller loads a copy with [`load`]. Saves
/// the copy of operand rows and temporaries that row programs read whole.
///
/// # Safety
/// As [`Reg::view`]: `source` must stay alive and unwritten while `dst` is read, until `dst`
/// is overwritten or dropped.
pub unsafe fn view(
    dims: &[usize],
    access: &Access,
    source: &Storage,
    start: usize,
    n: usize,
    dst: &mut Reg,
) -> bool {
    let narrow = matches!(access.dtype, DType::I2 | DType::I4 | DType::U2 | DType::U4);
    if n == 0 || narrow || access.source == Source::Iota || access.strides.last() != Some(&1) {
        return false;
    }
    // Only a buffer stored in the register's own lane type can be viewed (bf16 and f16 are
    // converted by `load`): say so before walking the block's runs.
    let same_lane = matches!(
        (source, &*dst),
        (Storage::Bool(_), Reg::Bool(_))
            | (Storage::I8(_), Reg::I8(_))
            | (Storage::I16(_), Reg::I16(_))
            | (Storage::I32(_), Reg::I32(_))
            | (Storage::I64(_), Reg::I64(_))
            | (Storage::U8(_), Reg::U8(_))
            | (Storage::U16(_), Reg::U16(_))
            | (Storage::U32(_), Reg::U32(_))
            | (Storage::U64(_), Reg::U64(_))
            | (Storage::F32(_), Reg::F32(_))
            | (Storage::F64(_), Reg::F64(_))
            | (Storage::C64(_), Reg::C64(_))
            | (Storage::C128(_), Reg::C128(_))
    );
    if !same_lane {
        return false;
    }
    let (mut runs, mut first) = (0, 0);
    for_each_run(dims, access, start, n, |base, _, _| {
        if runs == 0 {
            first = base;
        }
        runs += 1;
    });
    if runs != 1 {
        return false;
    }
    let run = first..first + n;
    match (source, &*dst) {
        (Storage::Bool(s), Reg::Bool(_)) => dst.view(&s[run]),
        (Storage::I8(s), Reg::I8(_)) => dst.view(&s[run]),
        (Storage::I16(s), Reg::I16(_)) => dst.view(&s[run]),
        (Storage::I32(s), Reg::I32(_)) => dst.view(&s[run]),
        (Storage::I64(s), Reg::I64(_)) => dst.view(&s[run]),
        (Storage::U8(s), Reg::U8(_)) => dst.view(&s[run]),
        (Storage::U16(s), Reg::U16(_)) => dst.view(&s[run]),
        (Storage::U32(s), Reg::U32(_)) => dst.view(&s[run]),
        (Storage::U64(s), Reg::U64(_)) => dst.view(&s[run]),
        (Storage::F32(s), Reg::F32(_)) => dst.view(&s[run]),
        (Storage::F64(s), Reg::F64(_)) => dst.view(&s[run]),
        (Storage::C64(s), Reg::C64(_)) => dst.view(&s[run]),
        (Storage::C128(s), Reg::C128(_)) => dst.view(&s[run]),
        _ => return false,
    }
    true
}

/// Appends to `lines` the address of every cache line of the block `[start, start + n)` of
/// `source` through `access` (contiguous runs only), for [`prefetch_line`]: a row program
/// fetches the next chunk's rows while it computes on the current one, so the next chunk's
/// first pass does not wait on memory.
pub fn cache_lines(
    dims: &[usize],
    access: &Access,
    source: &Storage,
    start: usize,
    n: usize,
    lines: &mut Vec<usize>,
) {
    const LINE: usize = 64;
    if access.source == Source::Iota || access.strides.last() != Some(&1) {
        return;
    }
    crate::with_storage!(source, v => for_each_run(dims, access, start, n, |base, _, len| {
        if let Some(run) = v.get(base..base + len) {
            let p = run.as_ptr() as usize;
            let end = p + std::mem::size_of_val(run);
            lines.extend((p / LINE * LINE..end).step_by(LINE));
        }
    }));
}

/// Asks the caches to fetch the line at address `line` into L2 (a hint: it never faults
/// and changes no memory).
#[inline]
pub fn prefetch_line(line: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults nor writes, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
        _mm_prefetch::<_MM_HINT_T1>(line as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = line;
}

/// Sub-byte integers may arrive as their bit pattern (numpy's bytes) rather than their
/// value: sign-extend (i2, i4) or mask (u2, u4) them to the register invariant.
fn narrow_to_width(dtype: DType, dst: &mut Reg, n: usize) {
    let bits = dtype.bit_width();
    match (dtype, dst) {
        (DType::I2 | DType::I4, Reg::I8(d)) => d[..n]
            .iter_mut()
            .for_each(|x| *x = numerics::wrap_signed(bits, *x as i64) as i8),
        (DType::U2 | DType::U4, Reg::U8(d)) => d[..n]
            .iter_mut()
            .for_each(|x| *x = numerics::wrap_unsigned(bits, *x as u64) as u8),
        _ => {}
    }
}

/// An iota's values: the affine index itself, converted to the dtype as the interpreter does
/// (integers wrap, floats round). One match per run, so the common cases (i32/i64/f32 along
/// a run) are plain vectorisable loops.
fn load_iota(dims: &[usize], access: &Access, start: usize, n: usize, dst: &mut Reg) {
    let dtype = access.dtype;
    let step = access.strides.last().copied().unwrap_or(0);
    let bits = dtype.bit_width();
    macro_rules! fill {
        ($d:expr, $at:expr, $len:expr, $base:expr, |$v:ident| $e:expr) => {
            for (k, x) in $d[$at..$at + $len].iter_mut().enumerate() {
                let $v = ($base + k * step) as u64;
                *x = $e;
            }
        };
    }
    for_each_run(dims, access, start, n, |base, at, len| match dst {
        Reg::Bool(d) => fill!(d, at, len, base, |v| v != 0),
        Reg::I8(d) => fill!(d, at, len, base, |v| numerics::wrap_signed(bits, v as i64)
            as i8),
        Reg::I16(d) => fill!(d, at, len, base, |v| v as i16),
        // Wrapping as the cast does, in the AVX-512 build.
        Reg::I32(d) => iota_i32(&mut d[at..at + len], base as i32, step as i32),
        Reg::I64(d) => fill!(d, at, len, base, |v| v as i64),
        Reg::U8(d) => fill!(d, at, len, base, |v| numerics::wrap_unsigned(bits, v) as u8),
        Reg::U16(d) => fill!(d, at, len, base, |v| v as u16),
        Reg::U32(d) => fill!(d, at, len, base, |v| v as u32),
        Reg::U64(d) => fill!(d, at, len, base, |v| v),
        // Indices below 2^24 are exact in f32 (and f64 → f32 rounding agrees past it).
        Reg::F32(d) if dtype == DType::F32 => fill!(d, at, len, base, |v| v as f64 as f32),
        Reg::F32(d) => fill!(d, at, len, base, |v| numerics::round_to(dtype, v as f64)
            as f32),
        Reg::F64(d) => fill!(d, at, len, base, |v| v as f64),
        // The index as the part's float (the interpreter's `c as f64`, rounded to f32 for
        // complex<f32>), imaginary part 0.
        Reg::C64(d) => fill!(d, at, len, base, |v| Complex32::new(v as f64 as f32, 0.0)),
        Reg::C128(d) => fill!(d, at, len, base, |v| Complex64::new(v as f64, 0.0)),
    });
}

/// A destination buffer shared by the workers of a stage, each writing its own disjoint
/// ranges.
#[derive(Clone, Copy)]
pub struct SharedDest {
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    /// f32 stores bypass the caches (see [`SharedDest::streaming`]).
    stream: bool,
}

// SAFETY: workers only write disjoint element ranges (the blocks they own), and the storage
// outlives the stage (the executor holds it until every worker has finished).
unsafe impl Send for SharedDest {}
unsafe impl Sync for SharedDest {}

impl SharedDest {
    /// Shares `storage` (of dtype `dtype`) for the duration of a stage.
    pub fn new(storage: &mut Storage, dtype: DType) -> SharedDest {
        let len = storage.len();
        let ptr = crate::with_storage!(storage, v => v.as_mut_ptr().cast::<u8>());
        SharedDest {
            ptr,
            len,
            dtype,
            stream: false,
        }
    }

    /// Like [`SharedDest::new`], for a result written once and much larger than the caches
    /// ([`STREAM_MIN_BYTES`]): its f32 blocks go out with non-temporal stores, which skip
    /// reading each line in before overwriting it (a quarter of the memory traffic of
    /// `c = f(a, b)`) and leave the caches to the inputs. Workers call [`fence_streams`]
    /// when done.
    pub fn streaming(storage: &mut Storage, dtype: DType) -> SharedDest {
        let f32_bytes = storage.len() * std::mem::size_of::<f32>();
        SharedDest {
            stream: dtype == DType::F32 && f32_bytes >= STREAM_MIN_BYTES,
            ..SharedDest::new(storage, dtype)
        }
    }

    /// The typed slice `[start, start + n)`.
    ///
    /// # Safety
    /// `T` must be the storage's element type, the range in bounds, and no other worker may
    /// touch the range at the same time.
    #[allow(clippy::mut_from_ref)] // shared between workers by design; see the safety contract
    unsafe fn range<T>(&self, start: usize, n: usize) -> &mut [T] {
        debug_assert!(start + n <= self.len);
        std::slice::from_raw_parts_mut((self.ptr as *mut T).add(start), n)
    }

    /// Writes the first `n` lanes of `src` at `[start, start + n)`.
    ///
    /// # Safety
    /// The range must be in bounds and owned by the calling worker.
    pub unsafe fn store(&self, src: &Reg, start: usize, n: usize) {
        // A register viewing exactly this range (an operand's block stored back over itself
        // by an in-place update) already is the value: copying it onto itself would be a
        // copy between overlapping ranges. Only a same-lane view can be one (no conversion).
        if let Some(at) = src.viewed_address() {
            let width = (self.dtype.bit_width() as usize).div_ceil(8).max(1);
            if at == self.ptr as usize + start * width {
                return;
            }
        }
        macro_rules! copy {
            ($t:ty, $v:expr) => {
                self.range::<$t>(start, n).copy_from_slice(&$v[..n])
            };
        }
        match (self.dtype, src) {
            (DType::Bool, Reg::Bool(v)) => copy!(bool, v),
            (DType::I2 | DType::I4 | DType::I8, Reg::I8(v)) => copy!(i8, v),
            (DType::I16, Reg::I16(v)) => copy!(i16, v),
            (DType::I32, Reg::I32(v)) => copy!(i32, v),
            (DType::I64, Reg::I64(v)) => copy!(i64, v),
            (DType::U2 | DType::U4 | DType::U8, Reg::U8(v)) => copy!(u8, v),
            (DType::U16, Reg::U16(v)) => copy!(u16, v),
            (DType::U32, Reg::U32(v)) => copy!(u32, v),
            (DType::U64, Reg::U64(v)) => copy!(u64, v),
            (DType::F32, Reg::F32(v)) if self.stream => stream_f32(self.range(start, n), &v[..n]),
            (DType::F32, Reg::F32(v)) => copy!(f32, v),
            (DType::F64, Reg::F64(v)) => copy!(f64, v),
            (DType::C64, Reg::C64(v)) => copy!(Complex32, v),
            (DType::C128, Reg::C128(v)) => copy!(Complex64, v),
            (DType::BF16, Reg::F32(v)) => map1(&v[..n], self.range::<bf16>(start, n), |x: f32| {
                bf16::from_bits((x.to_bits() >> 16) as u16)
            }),
            (DType::F16, Reg::F32(v)) => {
                for (d, &x) in self.range::<f16>(start, n).iter_mut().zip(&v[..n]) {
                    *d = f16::from_f32(x);
                }
            }
            (dtype, r) => panic!(
                "fusion planner bug: storing a {:?} register as {dtype}",
                std::mem::discriminant(r)
            ),
        }
    }
}

/// Outputs at least this large are written with non-temporal stores: 4 MiB, the L2 of both
/// cores together, past which a written array would not stay in cache for its readers anyway
/// (measured against 32 MiB with chrt -f 50, systolic run --repeat 20, two rounds: tanh_16M
/// 19.2/19.3 → 17.9/18.9 ms, transformer_train_step 229.5/218.0 → 220.3/216.0, transformer_forward
/// 71.9/68.8 → 70.3/67.7, mlp_train_step 41.1/41.1 → 40.8/41.1).
pub const STREAM_MIN_BYTES: usize = 4 << 20;

/// Copies `src` to `dst` with non-temporal stores where `dst` is 16-byte aligned (SSE, part
/// of every x86-64), plain stores at the unaligned ends and on other targets.
#[inline]
fn stream_f32(dst: &mut [f32], src: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let body = (dst.len() - head) / 4 * 4;
        dst[..head].copy_from_slice(&src[..head]);
        let mut k = head;
        while k < head + body {
            // SAFETY: dst[k..k + 4] and src[k..k + 4] are in bounds and dst + k is 16-byte
            // aligned (k ≥ head, stepping by 4 floats).
            unsafe { _mm_stream_ps(dst.as_mut_ptr().add(k), _mm_loadu_ps(src.as_ptr().add(k))) };
            k += 4;
        }
        dst[k..].copy_from_slice(&src[k..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Orders this thread's non-temporal stores before whatever it does next (the end of a
/// worker's share of a stage), so that threads joining it see them.
#[inline]
pub fn fence_streams() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streaming stores write exactly what plain stores write, at every alignment of the
    /// destination and every length (the aligned body, the unaligned head and tail).
    #[test]
    fn streaming_stores_match_plain_stores() {
        let values: Vec<f32> = (0..70).map(|i| i as f32 * 1.5 - 20.0).collect();
        let reg = Reg::F32(values.clone().into());
        for start in 0..9 {
            for n in [0, 1, 3, 4, 5, 17, 61] {
                let mut plain = Storage::F32(vec![f32::NAN; 80]);
                let mut streamed = Storage::F32(vec![f32::NAN; 80]);
                let mut d = SharedDest::new(&mut streamed, DType::F32);
                d.stream = true;
                // SAFETY: in bounds (start + n ≤ 70 < 80); this test owns both buffers.
                unsafe {
                    SharedDest::new(&mut plain, DType::F32).store(&reg, start, n);
                    d.store(&reg, start, n);
                }
                fence_streams();
                let (Storage::F32(p), Storage::F32(s)) = (&plain, &streamed) else {
                    unreachable!()
                };
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(p), bits(s), "start {start}, n {n}");
            }
        }
    }

    /// The transposed load equals the element-by-element gather for every block of loops
    /// of several shapes (rows a multiple of the group and not, one row, one column, a
    /// source with an offset and a row stride wider than the loop), with and without panels,
    /// and is taken only for rank-2 loops read with outer stride 1.
    #[test]
    fn transposed_loads_equal_gathers() {
        for (rows, cols, step, offset) in [
            (16, 5, 16, 0),
            (19, 7, 21, 3),
            (1, 9, 4, 0),
            (12, 1, 12, 2),
            (20, 70, 23, 1),
        ] {
            let src: Vec<i32> = (0..offset + rows + cols * step)
                .map(|i| i as i32 * 7 - 5)
                .collect();
            let dims = [rows, cols];
            let total = rows * cols;
            let access = Access {
                source: Source::Arg(0),
                dtype: DType::I32,
                offset,
                strides: vec![1, step],
            };
            assert_eq!(transposed_rank2(&dims, &access), Some((rows, cols)));
            // Outside a scope (direct gathers) and inside one (panels kept between loads).
            for scoped in [false, true] {
                let _scope = scoped.then(crate::kernels::fusion::panels::scope);
                for start in 0..total {
                    for n in [1, 2, cols, 8 * cols, 8 * cols + 3, total - start] {
                        let n = n.min(total - start);
                        let mut got = vec![i32::MIN; n];
                        load_transposed((rows, cols), offset, step, &src, start, &mut got);
                        let want: Vec<i32> = (start..start + n)
                            .map(|p| src[offset + p / cols + (p % cols) * step])
                            .collect();
                        assert_eq!(got, want, "{rows}x{cols} step {step}: [{start}, +{n})");
                    }
                }
            }
        }
        let plain = |strides: Vec<usize>| Access {
            source: Source::Arg(0),
            dtype: DType::I32,
            offset: 0,
            strides,
        };
        assert_eq!(transposed_rank2(&[4, 4], &plain(vec![4, 1])), None);
        assert_eq!(transposed_rank2(&[4, 4, 4], &plain(vec![1, 4, 16])), None);
        assert_eq!(transposed_rank2(&[4, 4], &plain(vec![2, 8])), None);
    }
}
