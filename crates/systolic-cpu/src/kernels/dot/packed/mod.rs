//! Our own blocked matrix product for the narrow types (bf16, int8) whose dot-product
//! instructions (`vdpbf16ps`, `vpdpbusd`) the `gemm` crate does not use.
//!
//! The structure is the usual one (Goto/BLIS): both operands are packed once per matrix into
//! panels whose layout is what the micro-kernel reads, then the result is computed tile by tile.
//! The instructions multiply *groups* of adjacent K elements held in one 32-bit word (2 bf16
//! or 4 int8) and add the group's products into one f32/i32 lane, so packing interleaves K:
//! - A (lhs) panel: `MR` rows; for each K word, the `MR` words of those rows (each word is
//!   broadcast to all lanes).
//! - B (rhs) panel: `NR` columns; for each K word, the `NR` words of those columns (loaded as
//!   `NR / 16` vectors).
//!
//! K is cut into blocks ([`Blocking`]) sized from the machine's L2: one B micro-panel and the
//! A panels of a row chunk stay in L2 while tiles read them; row chunks run in parallel on
//! rayon, every chunk writing its own rows of the result.

pub mod amx;
pub mod bf16;
pub mod int8;
mod pairs;

use super::float::BatchedShape;
use super::layout::MatView;
use rayon::prelude::*;

/// How a product is cut: K words per block and row panels per parallel chunk.
///
/// Each K block ends with every tile's partial sums stored to (and, after the first, reloaded
/// from) the result, whose rows are a power-of-two stride apart in the large products and so
/// collide in L1's sets. Blocks sized for L1 (192 words, 24 KiB B micro-panels) therefore lost
/// to blocks sized for L2 on an AMD EPYC (Zen 4: 32 KiB L1d, 1 MiB L2 per core): a 2048³ bf16
/// product's tiles ran at 188 GFLOP/s on one core with 192-word blocks, 211 with 512 and 220
/// (94% of the core's 234 GFLOP/s `vdpbf16ps` peak) with the whole K (1024 words) in one block.
/// L2 delivers the 184 bytes per K word a 14 × 32 tile reads with room to spare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocking {
    /// K words per block.
    pub kc_words: usize,
    /// Most row panels in one parallel chunk.
    pub max_panels: usize,
}

impl Blocking {
    /// For kernel `K` on a core with `l2_bytes` of L2: a quarter of L2 for one B micro-panel
    /// (`kc_words · NR · 4` bytes), half for the A panels of a chunk.
    pub fn for_l2<K: MicroKernel>(l2_bytes: usize) -> Blocking {
        let kc_words = (l2_bytes / 4 / (K::NR * 4)).clamp(128, 4096);
        let max_panels = (l2_bytes / 2 / (K::MR * 4 * kc_words)).clamp(1, 16);
        Blocking {
            kc_words,
            max_panels,
        }
    }

    /// For kernel `K` on this machine (its L2 as the `gemm` crate reads it from the OS or
    /// `cpuid`).
    pub fn detect<K: MicroKernel>() -> Blocking {
        let l2 = gemm_common::cache::CACHE_INFO[1].cache_bytes;
        Blocking::for_l2::<K>(if l2 == 0 { 1 << 20 } else { l2 })
    }

    /// K-block boundaries in words: `(first word, words)`.
    fn k_blocks(self, kw_total: usize) -> impl Iterator<Item = (usize, usize)> {
        (0..kw_total)
            .step_by(self.kc_words)
            .map(move |w0| (w0, self.kc_words.min(kw_total - w0)))
    }
}

/// Below this many multiply-adds a product runs on one thread.
const PARALLEL_MACS: usize = 1 << 20;

mod sealed {
    /// Only the element types below may implement [`super::PackedElement`] (packing reads
    /// groups of them as one word, which is sound for these plain-data types only).
    pub trait Sealed {}
    impl Sealed for half::bf16 {}
    impl Sealed for i8 {}
}

/// An element type the packed kernels multiply (bf16 or i8): plain bits, `GROUP` of which
/// fill one 32-bit K word.
pub trait PackedElement: sealed::Sealed + Copy + Default + Send + Sync {
    /// Accumulator and result type.
    type Acc: Copy + Default + Send + Sync;
    /// Elements per 32-bit K word.
    const GROUP: usize;
    /// Bits per element.
    const BITS: u32;
    /// True for bf16 (`vdpbf16ps`, `tdpbf16ps`), false for i8.
    const IS_BF16: bool;
    /// The element's bits, zero-extended.
    fn bits(self) -> u32;
}

impl PackedElement for half::bf16 {
    type Acc = f32;
    const GROUP: usize = 2;
    const BITS: u32 = 16;
    const IS_BF16: bool = true;
    fn bits(self) -> u32 {
        self.to_bits() as u32
    }
}

impl PackedElement for i8 {
    type Acc = i32;
    const GROUP: usize = 4;
    const BITS: u32 = 8;
    const IS_BF16: bool = false;
    fn bits(self) -> u32 {
        self as u8 as u32
    }
}

/// A micro-kernel and the packing that feeds it.
pub trait MicroKernel: Sync {
    /// Operand element type (bf16, i8).
    type In: PackedElement<Acc = Self::Acc>;
    /// Accumulator and result element type (f32, i32).
    type Acc: Copy + Send + Sync + Default;
    /// Rows of a tile.
    const MR: usize;
    /// Columns of a tile (a multiple of 16).
    const NR: usize;
    /// XORed into every packed lhs word: the int8 kernel shifts its lhs to unsigned bytes
    /// (`a ^ 0x80 = a + 128`), the bf16 kernel packs bits as they are.
    const LHS_FLIP: u32;

    /// `x + y` in the accumulator type (wrapping for integers).
    fn add(x: Self::Acc, y: Self::Acc) -> Self::Acc;

    /// Computes one `MR × NR` tile from `kw` words of packed A (`kw · MR` words) and packed B
    /// (`kw · NR` words), storing into `c` (row stride `ldc`) or adding to it when `accumulate`.
    ///
    /// # Safety
    /// `a`, `b` must hold the words described; `c` must be valid for an `MR × NR` tile with row
    /// stride `ldc`.
    unsafe fn tile(
        &self,
        kw: usize,
        a: *const u32,
        b: *const u32,
        c: *mut Self::Acc,
        ldc: usize,
        accumulate: bool,
    );
}

/// An operand seen as `lines` lines (rows of A, columns of B) of `k` elements: element
/// `(line, k)` is at `data[line * line_stride + k * k_stride]`.
#[derive(Clone, Copy)]
struct Lines<'a, T> {
    data: &'a [T],
    lines: usize,
    k: usize,
    line_stride: usize,
    k_stride: usize,
}

impl<T: PackedElement> Lines<'_, T> {
    /// The word of `line` holding K elements `k0 .. k0 + GROUP` (those past `k` are zero).
    fn word(&self, line: usize, k0: usize) -> u32 {
        (k0..self.k.min(k0 + T::GROUP)).fold(0, |word, k| {
            let bits = self.data[line * self.line_stride + k * self.k_stride].bits();
            word | bits << (T::BITS * (k - k0) as u32)
        })
    }
}

/// Packs one operand into panels of `width` lines, every word XORed with `flip`. Lines past
/// `lines` are zero words, K past `k` zero elements. The layout is: per K block, per panel, per
/// word, `width` words. Callers ensure `lines` and `k` are nonzero.
///
/// The two layouts products meet are copied in bulk: K contiguous (a row-major lhs, a
/// transposed rhs: each word is `GROUP` adjacent elements, read at once) and lines contiguous
/// (a row-major rhs: each word interleaves `GROUP` K rows, which the compiler vectorises).
/// Element by element, packing took a quarter of a 2048³ bf16 product on an AMD EPYC (Zen 4).
fn pack<T: PackedElement>(
    dst: &mut [u32],
    src: Lines<'_, T>,
    width: usize,
    flip: u32,
    blocking: Blocking,
    parallel: bool,
) {
    let kw_total = src.k.div_ceil(T::GROUP);
    let full_words = src.k / T::GROUP;
    let panels = src.lines.div_ceil(width);
    let fill_panel = |p: usize, w0: usize, wl: usize, out: &mut [u32]| {
        let line0 = p * width;
        let n_lines = width.min(src.lines - line0);
        // Words whose GROUP elements all exist.
        let wl_full = wl.min(full_words.saturating_sub(w0));
        if src.k_stride == 1 && wl_full > 0 {
            for line_in in 0..n_lines {
                let base = (line0 + line_in) * src.line_stride + w0 * T::GROUP;
                let groups = &src.data[base..base + wl_full * T::GROUP];
                for (w, group) in groups.chunks_exact(T::GROUP).enumerate() {
                    // SAFETY: `group` holds GROUP elements of 8 or 16 plain bits
                    // (`PackedElement` is sealed), 4 readable bytes in all.
                    let word = unsafe { std::ptr::read_unaligned(group.as_ptr() as *const u32) };
                    out[w * width + line_in] = u32::from_le(word) ^ flip;
                }
            }
        } else if src.line_stride == 1 {
            for w in 0..wl_full {
                let k0 = (w0 + w) * T::GROUP;
                let row = |j: usize| &src.data[(k0 + j) * src.k_stride + line0..][..n_lines];
                let words = &mut out[w * width..][..n_lines];
                match T::GROUP {
                    2 => {
                        for (o, (&lo, &hi)) in words.iter_mut().zip(row(0).iter().zip(row(1))) {
                            *o = (lo.bits() | hi.bits() << 16) ^ flip;
                        }
                    }
                    _ => {
                        words.fill(flip);
                        for j in 0..T::GROUP {
                            let shift = T::BITS * j as u32;
                            for (o, &x) in words.iter_mut().zip(row(j)) {
                                *o ^= x.bits() << shift;
                            }
                        }
                    }
                }
            }
        } else {
            for line_in in 0..n_lines {
                for w in 0..wl_full {
                    out[w * width + line_in] =
                        src.word(line0 + line_in, (w0 + w) * T::GROUP) ^ flip;
                }
            }
        }
        // The last, partial K word, and the lines past the operand's end.
        for w in wl_full..wl {
            for line_in in 0..n_lines {
                out[w * width + line_in] = src.word(line0 + line_in, (w0 + w) * T::GROUP) ^ flip;
            }
        }
        for w in 0..wl {
            out[w * width + n_lines..(w + 1) * width].fill(0);
        }
    };
    for (w0, wl) in blocking.k_blocks(kw_total) {
        let block = &mut dst[w0 * panels * width..(w0 + wl) * panels * width];
        if parallel {
            block
                .par_chunks_mut(wl * width)
                .enumerate()
                .for_each(|(p, out)| fill_panel(p, w0, wl, out));
        } else {
            block
                .chunks_mut(wl * width)
                .enumerate()
                .for_each(|(p, out)| fill_panel(p, w0, wl, out));
        }
    }
}

/// `out[b] = lhs[b] · rhs[b]` for a batch; `out` is dense `[B, M, N]` and every element is
/// written. Views must lie inside their slices (checked by the plan).
pub fn run<K: MicroKernel>(
    kern: &K,
    s: BatchedShape,
    lhs: &[K::In],
    lv: MatView,
    rhs: &[K::In],
    rv: MatView,
    out: &mut [K::Acc],
) {
    run_blocked(kern, Blocking::detect::<K>(), s, lhs, lv, rhs, rv, out);
}

/// [`run`] with the blocking given (tests force several K blocks on small products).
#[allow(clippy::too_many_arguments)]
fn run_blocked<K: MicroKernel>(
    kern: &K,
    blocking: Blocking,
    s: BatchedShape,
    lhs: &[K::In],
    lv: MatView,
    rhs: &[K::In],
    rv: MatView,
    out: &mut [K::Acc],
) {
    let per_matrix = s.m * s.n;
    if per_matrix == 0 || s.batch == 0 {
        return;
    }
    if s.k == 0 {
        out.fill(K::Acc::default());
        return;
    }
    let work = s.m * s.n * s.k;
    if super::float::split_by_matrix(s.batch, work, PARALLEL_MACS) {
        out.par_chunks_mut(per_matrix)
            .enumerate()
            .for_each(|(b, o)| {
                let mut scratch = Scratch::default();
                one_matrix(
                    kern,
                    blocking,
                    s,
                    &lhs[lv.start(b)..],
                    lv,
                    &rhs[rv.start(b)..],
                    rv,
                    o,
                    &mut scratch,
                    false,
                )
            });
    } else {
        let mut scratch = Scratch::default();
        let parallel = work >= PARALLEL_MACS;
        for (b, o) in out.chunks_mut(per_matrix).enumerate() {
            one_matrix(
                kern,
                blocking,
                s,
                &lhs[lv.start(b)..],
                lv,
                &rhs[rv.start(b)..],
                rv,
                o,
                &mut scratch,
                parallel,
            );
        }
    }
}

/// Packing buffers, reused across the matrices of a batch and, through the buffer pool,
/// across runs: a 2048² bf16 product packs 16 MiB, which as new heap vectors was zero-filled
/// on every run (`pack` writes every word anyway) and on the first run faulted in as 4 KiB
/// pages; pooled, a first run gets fresh pages (huge where [`crate::pages`] asks) and later runs
/// reuse them unfilled.
#[derive(Default)]
struct Scratch {
    a: Vec<u32>,
    b: Vec<u32>,
}

impl Scratch {
    /// Makes the buffers `a_len` and `b_len` words long; their contents are stale (every word
    /// is packed before it is read).
    fn size(&mut self, a_len: usize, b_len: usize) {
        for (v, len) in [(&mut self.a, a_len), (&mut self.b, b_len)] {
            if v.len() != len {
                crate::pool::recycle_vec(std::mem::take(v));
                *v = crate::pool::take_vec(len);
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        crate::pool::recycle_vec(std::mem::take(&mut self.a));
        crate::pool::recycle_vec(std::mem::take(&mut self.b));
    }
}

/// One product: pack both operands, then compute row chunks (in parallel when asked).
#[allow(clippy::too_many_arguments)]
fn one_matrix<K: MicroKernel>(
    kern: &K,
    blocking: Blocking,
    s: BatchedShape,
    lhs: &[K::In],
    lv: MatView,
    rhs: &[K::In],
    rv: MatView,
    out: &mut [K::Acc],
    scratch: &mut Scratch,
    parallel: bool,
) {
    let kw_total = s.k.div_ceil(K::In::GROUP);
    let m_panels = s.m.div_ceil(K::MR);
    let n_panels = s.n.div_ceil(K::NR);
    scratch.size(m_panels * K::MR * kw_total, n_panels * K::NR * kw_total);
    let lhs_lines = Lines {
        data: lhs,
        lines: s.m,
        k: s.k,
        line_stride: lv.row,
        k_stride: lv.col,
    };
    pack(
        &mut scratch.a,
        lhs_lines,
        K::MR,
        K::LHS_FLIP,
        blocking,
        parallel,
    );
    let rhs_lines = Lines {
        data: rhs,
        lines: s.n,
        k: s.k,
        line_stride: rv.col,
        k_stride: rv.row,
    };
    pack(&mut scratch.b, rhs_lines, K::NR, 0, blocking, parallel);
    let (a, b) = (&scratch.a[..], &scratch.b[..]);
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    let chunks = threads * m_panels.div_ceil(threads * blocking.max_panels);
    let panels_per_chunk = m_panels.div_ceil(chunks.max(1));
    let rows_per_chunk = panels_per_chunk * K::MR;
    let compute = |(chunk, c): (usize, &mut [K::Acc])| {
        let first_panel = chunk * panels_per_chunk;
        let rows = c.len() / s.n;
        for (w0, wl) in blocking.k_blocks(kw_total) {
            let accumulate = w0 > 0;
            for jp in 0..n_panels {
                let bp = &b[w0 * n_panels * K::NR + jp * wl * K::NR..];
                let col0 = jp * K::NR;
                for ip in 0..rows.div_ceil(K::MR) {
                    let panel = first_panel + ip;
                    let ap = &a[w0 * m_panels * K::MR + panel * wl * K::MR..];
                    let row0 = ip * K::MR;
                    tile_at(kern, wl, ap, bp, c, s.n, row0, col0, rows, accumulate);
                }
            }
        }
    };
    if parallel && chunks > 1 {
        out.par_chunks_mut(rows_per_chunk * s.n)
            .enumerate()
            .for_each(compute);
    } else {
        out.chunks_mut(rows_per_chunk * s.n)
            .enumerate()
            .for_each(compute);
    }
}

/// Runs one tile at (`row0`, `col0`) of `c` (which has `rows` rows of `ldc` columns), through
/// a scratch tile when it sticks out of the matrix.
#[allow(clippy::too_many_arguments)]
fn tile_at<K: MicroKernel>(
    kern: &K,
    kw: usize,
    ap: &[u32],
    bp: &[u32],
    c: &mut [K::Acc],
    ldc: usize,
    row0: usize,
    col0: usize,
    rows: usize,
    accumulate: bool,
) {
    assert!(ap.len() >= kw * K::MR && bp.len() >= kw * K::NR);
    let (mr, nr) = (K::MR.min(rows - row0), K::NR.min(ldc - col0));
    if mr == K::MR && nr == K::NR {
        assert!((row0 + K::MR - 1) * ldc + col0 + K::NR <= c.len());
        // SAFETY: the packed panels hold `kw` words per line (asserted) and the tile lies in
        // `c` (asserted).
        unsafe {
            kern.tile(
                kw,
                ap.as_ptr(),
                bp.as_ptr(),
                c.as_mut_ptr().add(row0 * ldc + col0),
                ldc,
                accumulate,
            )
        };
        return;
    }
    let mut tmp = [K::Acc::default(); 16 * 64];
    assert!(K::MR * K::NR <= tmp.len());
    // SAFETY: as above, with the dense scratch tile (row stride NR) as destination.
    unsafe { kern.tile(kw, ap.as_ptr(), bp.as_ptr(), tmp.as_mut_ptr(), K::NR, false) };
    for r in 0..mr {
        let dst = &mut c[(row0 + r) * ldc + col0..][..nr];
        let src = &tmp[r * K::NR..][..nr];
        if accumulate {
            dst.iter_mut()
                .zip(src)
                .for_each(|(d, &s)| *d = K::add(*d, s));
        } else {
            dst.copy_from_slice(src);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bf16::Bf16Kernel;
    use super::int8::I8Kernel;
    use super::*;
    use half::bf16;

    /// Small integers, so bf16 products and their f32 sums are exact and any packing slip
    /// shows as a wrong value.
    fn value(seed: usize) -> i32 {
        ((seed * 2654435761) >> 7) as i32 % 7 - 3
    }

    /// `out = lhs · rhs` element by element, for views of one matrix each.
    fn reference(s: BatchedShape, lhs: &[i32], lv: MatView, rhs: &[i32], rv: MatView) -> Vec<i32> {
        let mut out = vec![0; s.m * s.n];
        for i in 0..s.m {
            for j in 0..s.n {
                out[i * s.n + j] = (0..s.k)
                    .map(|k| lhs[i * lv.row + k * lv.col] * rhs[k * rv.row + j * rv.col])
                    .sum();
            }
        }
        out
    }

    /// Every operand layout packing has a path for (K contiguous, lines contiguous, neither),
    /// odd K (a partial last word), edge tiles, and several K blocks and chunks.
    #[test]
    fn every_layout_and_blocking_gives_the_exact_product() {
        let (m, k, n) = (31, 13, 45);
        let s = BatchedShape { batch: 1, m, n, k };
        // (lhs row, lhs col, rhs row, rhs col) strides over buffers of (m·k·2, k·n·2).
        let layouts = [
            (k, 1, n, 1),         // row-major lhs and rhs
            (1, m, 1, k),         // both transposed
            (2 * k, 2, 2 * n, 2), // neither contiguous
        ];
        let blockings = [
            Blocking {
                kc_words: 2,
                max_panels: 1,
            },
            Blocking {
                kc_words: 3,
                max_panels: 2,
            },
            Blocking {
                kc_words: 4096,
                max_panels: 16,
            },
        ];
        let lhs: Vec<i32> = (0..2 * m * k).map(value).collect();
        let rhs: Vec<i32> = (0..2 * k * n).map(|i| value(i + 977)).collect();
        for (lr, lc, rr, rc) in layouts {
            let (lv, rv) = (MatView::strided(0, lr, lc), MatView::strided(0, rr, rc));
            let want = reference(s, &lhs, lv, &rhs, rv);
            for blocking in blockings {
                for kernel in [Bf16Kernel::Scalar, Bf16Kernel::detect()] {
                    let l: Vec<bf16> = lhs.iter().map(|&x| bf16::from_f32(x as f32)).collect();
                    let r: Vec<bf16> = rhs.iter().map(|&x| bf16::from_f32(x as f32)).collect();
                    let mut out = vec![f32::NAN; m * n];
                    run_blocked(&kernel, blocking, s, &l, lv, &r, rv, &mut out);
                    let got: Vec<i32> = out.iter().map(|&x| x as i32).collect();
                    assert_eq!(
                        got, want,
                        "bf16 {kernel:?} {blocking:?} strides {lr},{lc},{rr},{rc}"
                    );
                }
                for kernel in [I8Kernel::Scalar, I8Kernel::detect()] {
                    let l: Vec<i8> = lhs.iter().map(|&x| x as i8).collect();
                    let r: Vec<i8> = rhs.iter().map(|&x| x as i8).collect();
                    let mut out = vec![i32::MIN; m * n];
                    int8::run_i8_blocked(kernel, blocking, s, &l, lv, &r, rv, &mut out);
                    assert_eq!(
                        out, want,
                        "i8 {kernel:?} {blocking:?} strides {lr},{lc},{rr},{rc}"
                    );
                }
            }
        }
    }

    #[test]
    fn blocks_follow_the_l2_size() {
        // 1 MiB of L2 (AMD Zen 4): a quarter, 256 KiB, holds 2048 K words of 32 columns; half
        // holds four A panels of 14 rows.
        let zen4 = Blocking::for_l2::<Bf16Kernel>(1 << 20);
        assert_eq!(
            zen4,
            Blocking {
                kc_words: 2048,
                max_panels: 4
            }
        );
        // Tiny or unknown caches still give usable blocks.
        assert_eq!(Blocking::for_l2::<Bf16Kernel>(0).kc_words, 128);
        assert_eq!(Blocking::for_l2::<I8Kernel>(1 << 30).kc_words, 4096);
        assert!(Blocking::for_l2::<I8Kernel>(1 << 30).max_panels <= 16);
    }
}
