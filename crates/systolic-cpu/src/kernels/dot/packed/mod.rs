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
//! K is cut into blocks of [`KC_WORDS`] words so that one B micro-panel stays in L1 while the
//! A panels of a row chunk (in L2) stream past it; row chunks run in parallel on rayon, every
//! chunk writing its own rows of the result.

pub mod amx;
pub mod bf16;
pub mod int8;
mod pairs;

use super::float::BatchedShape;
use super::layout::MatView;
use rayon::prelude::*;

/// K words per block: one B micro-panel is `KC_WORDS · NR · 4` = 24 KiB (L1 is 48 KiB).
const KC_WORDS: usize = 192;
/// Most row panels in one parallel chunk (its A panels, `16 · MR · KC_WORDS · 4` bytes, stay
/// in L2).
const MAX_PANELS_PER_CHUNK: usize = 16;
/// Below this many multiply-adds a product runs on one thread.
const PARALLEL_MACS: usize = 1 << 20;

/// A micro-kernel and the packing that feeds it.
pub trait MicroKernel: Sync {
    /// Operand element type (bf16, i8).
    type In: Copy + Send + Sync;
    /// Accumulator and result element type (f32, i32).
    type Acc: Copy + Send + Sync + Default;
    /// K elements per 32-bit word.
    const GROUP: usize;
    /// Rows of a tile.
    const MR: usize;
    /// Columns of a tile (a multiple of 16).
    const NR: usize;

    /// `x + y` in the accumulator type (wrapping for integers).
    fn add(x: Self::Acc, y: Self::Acc) -> Self::Acc;
    /// Packs up to `GROUP` lhs elements (fewer at the end of K; the rest count as zero).
    fn lhs_word(values: &[Self::In]) -> u32;
    /// Packs up to `GROUP` rhs elements.
    fn rhs_word(values: &[Self::In]) -> u32;

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

/// K-block boundaries in words: `(first word, words)`.
fn k_blocks(kw_total: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..kw_total)
        .step_by(KC_WORDS)
        .map(move |w0| (w0, KC_WORDS.min(kw_total - w0)))
}

/// Packs one operand into panels of `width` lines (rows of A or columns of B). `get(line, k)`
/// reads an element; lines past `lines` and K past `k` are zero. The layout is: per K block,
/// per panel, per word, `width` words. Callers ensure `lines` and `k` are nonzero.
#[allow(clippy::too_many_arguments)]
fn pack<T: Copy + Send + Sync>(
    dst: &mut [u32],
    lines: usize,
    width: usize,
    k: usize,
    group: usize,
    word: impl Fn(&[T]) -> u32 + Sync,
    get: impl Fn(usize, usize) -> T + Sync,
    parallel: bool,
) {
    let kw_total = k.div_ceil(group);
    let panels = lines.div_ceil(width);
    let fill_panel = |p: usize, w0: usize, wl: usize, out: &mut [u32]| {
        let mut vals = [get(0, 0); 4];
        for line_in in 0..width {
            let line = p * width + line_in;
            for w in 0..wl {
                let out_word = &mut out[w * width + line_in];
                if line >= lines {
                    *out_word = 0;
                    continue;
                }
                let k0 = (w0 + w) * group;
                let n = group.min(k - k0);
                for (j, v) in vals[..n].iter_mut().enumerate() {
                    *v = get(line, k0 + j);
                }
                *out_word = word(&vals[..n]);
            }
        }
    };
    for (w0, wl) in k_blocks(kw_total) {
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

/// Packing buffers, reused across the matrices of a batch.
#[derive(Default)]
struct Scratch {
    a: Vec<u32>,
    b: Vec<u32>,
}

/// One product: pack both operands, then compute row chunks (in parallel when asked).
#[allow(clippy::too_many_arguments)]
fn one_matrix<K: MicroKernel>(
    kern: &K,
    s: BatchedShape,
    lhs: &[K::In],
    lv: MatView,
    rhs: &[K::In],
    rv: MatView,
    out: &mut [K::Acc],
    scratch: &mut Scratch,
    parallel: bool,
) {
    let kw_total = s.k.div_ceil(K::GROUP);
    let m_panels = s.m.div_ceil(K::MR);
    let n_panels = s.n.div_ceil(K::NR);
    scratch.a.resize(m_panels * K::MR * kw_total, 0);
    scratch.b.resize(n_panels * K::NR * kw_total, 0);
    pack(
        &mut scratch.a,
        s.m,
        K::MR,
        s.k,
        K::GROUP,
        K::lhs_word,
        |r, k| lhs[r * lv.row + k * lv.col],
        parallel,
    );
    pack(
        &mut scratch.b,
        s.n,
        K::NR,
        s.k,
        K::GROUP,
        K::rhs_word,
        |c, k| rhs[k * rv.row + c * rv.col],
        parallel,
    );
    let (a, b) = (&scratch.a[..], &scratch.b[..]);
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    let chunks = threads * m_panels.div_ceil(threads * MAX_PANELS_PER_CHUNK);
    let panels_per_chunk = m_panels.div_ceil(chunks.max(1));
    let rows_per_chunk = panels_per_chunk * K::MR;
    let compute = |(chunk, c): (usize, &mut [K::Acc])| {
        let first_panel = chunk * panels_per_chunk;
        let rows = c.len() / s.n;
        for (w0, wl) in k_blocks(kw_total) {
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
