//! bf16 and int8 products on Intel AMX (the tile matrix unit of Sapphire Rapids and later):
//! `tdpbf16ps` (bf16 pairs → f32) and `tdpbssd` (signed byte quads → i32), one 16×16 result
//! tile per instruction.
//!
//! On this machine's cores `vdpbf16ps` runs at half the rate of an f32 FMA, so AVX512-BF16 can
//! not beat f32; AMX does (XLA:CPU uses it through oneDNN). The instructions are not yet
//! stable Rust intrinsics, so the few we need are written as inline assembly.
//!
//! Layout. Eight tile registers: four 16×16 accumulators form a 32×32 result tile, two hold
//! 16 rows × 64 bytes of A, two hold 16 K-words × 16 columns of B. Operands are packed into
//! 64-byte aligned buffers:
//! - B once per matrix, in panels of 32 columns: per K word, 32 words (the columns' K groups),
//!   so a B tile is 16 rows of 64 bytes at a stride of 128;
//! - A per row chunk and K block, row-major (a word is 2 bf16 or 4 int8 in K order, so a
//!   packed row is just the row's elements, zero-padded), while the chunk is computed, so the
//!   packed rows land in the L2 of the core that uses them.
//!
//! Blocking: row chunks of up to [`MAX_PANELS_PER_CHUNK`] panels in parallel on rayon; in a
//! chunk, K in blocks of [`KC_WORDS`] words (partial sums of longer K go through the result),
//! B panels outside and the chunk's A panels inside.

use super::super::float::BatchedShape;
use super::super::layout::MatView;
use super::PackedElement;
use half::bf16;
use rayon::prelude::*;
use std::sync::OnceLock;

/// Rows and columns of a result tile (2 × 2 AMX tiles of 16 × 16).
const TILE: usize = 32;
/// K words per tile step (one AMX tile row is 64 bytes = 16 words).
const STEP_WORDS: usize = 16;
/// K words per block: an A panel piece is `32 · KC_WORDS · 4` = 128 KiB. Up to this K (2048
/// bf16, 4096 int8) the accumulators stay in tiles over the whole K and every result is
/// stored once; blocks of 256 words, which sent the partial sums through the result four
/// times at K = 2048, took 22.4 against 18.1 ms single-threaded for 2048³ bf16.
const KC_WORDS: usize = 1024;
/// B panels one packing task fills (a row-major rhs is then read `PACK_PANELS · 64` bytes at a
/// time; 16 packed 2048² bf16 in 2.5 ms single-threaded against 4 ms with 8).
const PACK_PANELS: usize = 16;
/// Most 32-row panels in one parallel chunk (its packed A, up to 1 MiB, stays in L2 while the B
/// panels pass).
const MAX_PANELS_PER_CHUNK: usize = 8;
/// Below this many multiply-adds a product runs on one thread.
const PARALLEL_MACS: usize = 1 << 20;

/// True when the CPU has AMX (tiles, bf16 and int8) and the OS lets this process use it.
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| crate::isa::allows(crate::isa::IsaCap::Native) && detect())
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> bool {
    // CPUID.(7,0):EDX bit 22 AMX-BF16, bit 24 AMX-TILE, bit 25 AMX-INT8.
    let leaf = std::arch::x86_64::__cpuid_count(7, 0);
    let amx = (1 << 22) | (1 << 24) | (1 << 25);
    // Every AMX CPU has AVX-512 F and BW; the kernels' edges rely on them (a hypervisor could
    // still hide them).
    let avx512 = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw");
    if leaf.edx & amx != amx || !avx512 {
        return false;
    }
    // Linux hands out the (large) tile state only on request:
    // arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA).
    const SYS_ARCH_PRCTL: i64 = 158;
    const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
    const XFEATURE_XTILEDATA: i64 = 18;
    let ret: i64;
    // SAFETY: a plain system call with integer arguments; it changes no memory of ours.
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") SYS_ARCH_PRCTL => ret,
            in("rdi") ARCH_REQ_XCOMP_PERM,
            in("rsi") XFEATURE_XTILEDATA,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack)
        );
    }
    ret == 0
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn detect() -> bool {
    false
}

/// What a product's results are stored as: the accumulators themselves (f32, i32), or bf16
/// rounded from f32 tile by tile as each 32 × 32 tile is finished — a bf16 result then
/// crosses memory once, at half the bytes, instead of as an f32 matrix plus a conversion pass
/// (measured on a Xeon with AMX, `gemm_bench 4096x256x1024 bf16->bf16`: the separate pass
/// took more time than the products).
pub trait Sink<A>: Copy + Default + Send + Sync {
    /// True when `Self` is `A` (tiles are stored straight into the result).
    const DIRECT: bool;
    /// Stores one row of a finished tile.
    fn store(acc: &[A], out: &mut [Self]);
}

impl<A: Copy + Default + Send + Sync> Sink<A> for A {
    const DIRECT: bool = true;
    fn store(acc: &[A], out: &mut [A]) {
        out.copy_from_slice(acc);
    }
}

impl Sink<f32> for bf16 {
    const DIRECT: bool = false;
    fn store(acc: &[f32], out: &mut [bf16]) {
        #[cfg(target_arch = "x86_64")]
        if super::pairs::available() {
            // SAFETY: the CPU has AVX-512 F and BW (checked; cached by the standard library).
            unsafe { store_bf16_avx512(acc, out) };
            return;
        }
        store_bf16(acc, out)
    }
}

/// Rounds f32 accumulators to bf16 (nearest even, as `half::bf16::from_f32`).
#[inline(always)]
fn store_bf16(acc: &[f32], out: &mut [bf16]) {
    for (o, &x) in out.iter_mut().zip(acc) {
        *o = bf16::from_bits(crate::kernels::fusion::elementwise::lanes::bf16_bits(x));
    }
}

/// [`store_bf16`] in 512-bit vectors, 16 results at a time (the baseline SSE2 build of the
/// loop took longer than the tile's products at K = 256; the compiler's AVX-512 build of it
/// used 8 lanes and was still 5% of a bf16 training step).
///
/// # Safety
/// The CPU has AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn store_bf16_avx512(acc: &[f32], out: &mut [bf16]) {
    use std::arch::x86_64::*;
    let n = acc.len().min(out.len());
    let mut i = 0;
    let one = _mm512_set1_epi32(1);
    let bias = _mm512_set1_epi32(0x7fff);
    let magnitude = _mm512_set1_epi32(0x7fff_ffff);
    let infinity = _mm512_set1_epi32(0x7f80_0000);
    let quiet = _mm512_set1_epi32(0x40);
    while i + 16 <= n {
        // SAFETY: i + 16 ≤ n ≤ both lengths; unaligned loads and stores.
        unsafe {
            let x = _mm512_loadu_si512(acc.as_ptr().add(i) as *const _);
            let high = _mm512_srli_epi32(x, 16);
            // Nearest even: add 0x7fff plus the lowest kept bit, keep the upper half.
            let lsb = _mm512_and_si512(high, one);
            let rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, bias), lsb), 16);
            // NaN keeps its sign and payload's upper half, made quiet.
            let nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, magnitude), infinity);
            let bits = _mm512_mask_mov_epi32(rounded, nan, _mm512_or_si512(high, quiet));
            _mm256_storeu_si256(
                out.as_mut_ptr().add(i) as *mut __m256i,
                _mm512_cvtepi32_epi16(bits),
            );
        }
        i += 16;
    }
    store_bf16(&acc[i..n], &mut out[i..n]);
}

/// The tile configuration: palette 1, all eight tiles 16 rows × 64 bytes.
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

impl TileConfig {
    fn all_16x64() -> TileConfig {
        let mut b = [0u8; 64];
        b[0] = 1;
        for t in 0..8 {
            b[16 + 2 * t] = 64;
            b[48 + t] = 16;
        }
        TileConfig(b)
    }
}

/// Loads the tile configuration every kernel here uses (all eight tiles 16 rows × 64 bytes) on
/// this thread; [`release`] gives the tile state back.
///
/// # Safety
/// [`available`] returned true.
pub unsafe fn configure() {
    let cfg = TileConfig::all_16x64();
    // SAFETY: AMX is enabled; the config is a valid palette-1 layout.
    unsafe { std::arch::asm!("ldtilecfg [{0}]", in(reg) cfg.0.as_ptr(), options(nostack)) };
}

/// Releases the tile state of this thread.
///
/// # Safety
/// [`available`] returned true.
pub unsafe fn release() {
    // SAFETY: AMX is enabled.
    unsafe { std::arch::asm!("tilerelease", options(nostack, nomem)) };
}

/// One 32 × 32 result tile (bf16 pairs when `bf16_products`, else signed byte quads) over
/// `steps` K steps of 16 words: `a` points at the first of 32
/// packed A rows (row stride `lda` bytes), `b` at a packed B panel (row stride 128 bytes, 16
/// rows per step), `c` at the result (row stride `ldc` bytes) which is loaded first when
/// `load_c` (partial sums of earlier K blocks) and stored at the end. `steps` is at least 1.
///
/// # Safety
/// The tiles are configured ([`configure`]) on this thread; all addressed bytes are valid.
#[allow(clippy::too_many_arguments)]
unsafe fn tile(
    bf16_products: bool,
    steps: usize,
    a: *const u8,
    lda: usize,
    b: *const u8,
    c: *mut u8,
    ldc: usize,
    load_c: bool,
) {
    use std::arch::asm;
    let (c1, c2) = (c.wrapping_add(64), c.wrapping_add(16 * ldc));
    let c3 = c2.wrapping_add(64);
    let a1 = a.wrapping_add(16 * lda);
    // SAFETY: the caller's contract; each block only touches tile registers and the bytes
    // named by its operands.
    unsafe {
        if load_c {
            asm!(
                "tileloadd tmm0, [{c0} + {s}*1]",
                "tileloadd tmm1, [{c1} + {s}*1]",
                "tileloadd tmm2, [{c2} + {s}*1]",
                "tileloadd tmm3, [{c3} + {s}*1]",
                c0 = in(reg) c, c1 = in(reg) c1, c2 = in(reg) c2, c3 = in(reg) c3, s = in(reg) ldc,
                options(nostack, readonly)
            );
        } else {
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                options(nostack, nomem)
            );
        }
        // Software-pipelined: the loads of step s+1 are issued as soon as the products of
        // step s no longer read the tile they overwrite (tiles are not renamed).
        let a0_at = |step: usize| a.add(step * 64);
        let a1_at = |step: usize| a1.add(step * 64);
        let b0_at = |step: usize| b.add(step * STEP_WORDS * 128);
        asm!(
            "tileloadd tmm4, [{a0} + {lda}*1]",
            "tileloadd tmm6, [{b0} + {ldb}*1]",
            "tileloadd tmm5, [{a1} + {lda}*1]",
            "tileloadd tmm7, [{b1} + {ldb}*1]",
            a0 = in(reg) a0_at(0), a1 = in(reg) a1_at(0), b0 = in(reg) b0_at(0),
            b1 = in(reg) b0_at(0).add(64), lda = in(reg) lda, ldb = in(reg) 128usize,
            options(nostack, readonly)
        );
        for step in 1..steps {
            let (a0, a1, b0) = (a0_at(step), a1_at(step), b0_at(step));
            if bf16_products {
                asm!(
                    "tdpbf16ps tmm0, tmm4, tmm6",
                    "tdpbf16ps tmm1, tmm4, tmm7",
                    "tileloadd tmm4, [{a0} + {lda}*1]",
                    "tdpbf16ps tmm2, tmm5, tmm6",
                    "tileloadd tmm6, [{b0} + {ldb}*1]",
                    "tdpbf16ps tmm3, tmm5, tmm7",
                    "tileloadd tmm5, [{a1} + {lda}*1]",
                    "tileloadd tmm7, [{b1} + {ldb}*1]",
                    a0 = in(reg) a0, a1 = in(reg) a1, b0 = in(reg) b0, b1 = in(reg) b0.add(64),
                    lda = in(reg) lda, ldb = in(reg) 128usize,
                    options(nostack, readonly)
                );
            } else {
                asm!(
                    "tdpbssd tmm0, tmm4, tmm6",
                    "tdpbssd tmm1, tmm4, tmm7",
                    "tileloadd tmm4, [{a0} + {lda}*1]",
                    "tdpbssd tmm2, tmm5, tmm6",
                    "tileloadd tmm6, [{b0} + {ldb}*1]",
                    "tdpbssd tmm3, tmm5, tmm7",
                    "tileloadd tmm5, [{a1} + {lda}*1]",
                    "tileloadd tmm7, [{b1} + {ldb}*1]",
                    a0 = in(reg) a0, a1 = in(reg) a1, b0 = in(reg) b0, b1 = in(reg) b0.add(64),
                    lda = in(reg) lda, ldb = in(reg) 128usize,
                    options(nostack, readonly)
                );
            }
        }
        if bf16_products {
            asm!(
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tdpbf16ps tmm1, tmm4, tmm7",
                "tdpbf16ps tmm2, tmm5, tmm6",
                "tdpbf16ps tmm3, tmm5, tmm7",
                options(nostack, nomem)
            );
        } else {
            asm!(
                "tdpbssd tmm0, tmm4, tmm6",
                "tdpbssd tmm1, tmm4, tmm7",
                "tdpbssd tmm2, tmm5, tmm6",
                "tdpbssd tmm3, tmm5, tmm7",
                options(nostack, nomem)
            );
        }
        asm!(
            "tilestored [{c0} + {s}*1], tmm0",
            "tilestored [{c1} + {s}*1], tmm1",
            "tilestored [{c2} + {s}*1], tmm2",
            "tilestored [{c3} + {s}*1], tmm3",
            c0 = in(reg) c, c1 = in(reg) c1, c2 = in(reg) c2, c3 = in(reg) c3, s = in(reg) ldc,
            options(nostack)
        );
    }
}

thread_local! {
    /// Packing buffers kept between calls on a thread (B of a whole matrix on the calling
    /// thread, A of one row chunk on each worker): fresh pages for every product cost more
    /// than the packing itself.
    static B_PACKED: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
    static A_CHUNK: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// K words (of `T::GROUP` elements) a packed row of `k` elements takes, in whole tile steps.
fn words_per_k<T: PackedElement>(k: usize) -> usize {
    k.div_ceil(T::GROUP).div_ceil(STEP_WORDS) * STEP_WORDS
}

/// `out[b] = lhs[b] · rhs[b]` on AMX for a batch (dense `[B, M, N]` result, every element
/// written). Call only when [`available`].
pub fn run<T: PackedElement>(
    s: BatchedShape,
    lhs: &[T],
    lv: MatView,
    rhs: &[T],
    rv: MatView,
    out: &mut [T::Acc],
) {
    run_into::<T, T::Acc>(s, lhs, lv, rhs, rv, out);
}

/// `out[b] = lhs[b] · rhs[b]` of bf16 matrices accumulated in f32 and rounded once to bf16
/// (nearest even). Call only when [`available`].
pub fn run_bf16(
    s: BatchedShape,
    lhs: &[bf16],
    lv: MatView,
    rhs: &[bf16],
    rv: MatView,
    out: &mut [bf16],
) {
    if words_per_k::<bf16>(s.k) <= KC_WORDS {
        run_into::<bf16, bf16>(s, lhs, lv, rhs, rv, out);
        return;
    }
    // K spans several blocks whose partial sums go through the result: accumulate in the
    // products' f32 scratch (every element is written) and round that once.
    super::super::convert::with_f32_scratch(out.len(), |acc| {
        run_into::<bf16, f32>(s, lhs, lv, rhs, rv, acc);
        out.par_chunks_mut(1 << 16)
            .zip(acc.par_chunks(1 << 16))
            .for_each(|(o, a)| <bf16 as Sink<f32>>::store(a, o));
    });
}

/// [`run`] into any [`Sink`] (a rounding sink only when K fits one block).
fn run_into<T: PackedElement, O: Sink<T::Acc>>(
    s: BatchedShape,
    lhs: &[T],
    lv: MatView,
    rhs: &[T],
    rv: MatView,
    out: &mut [O],
) {
    let per_matrix = s.m * s.n;
    if per_matrix == 0 || s.batch == 0 {
        return;
    }
    if s.k == 0 {
        out.fill(O::default());
        return;
    }
    // Partial sums of several K blocks go through the result, which must then hold them.
    assert!(O::DIRECT || words_per_k::<T>(s.k) <= KC_WORDS);
    let parallel = s.m * s.n * s.k >= PARALLEL_MACS;
    if super::super::float::split_by_matrix(s.batch, s.m * s.n * s.k, PARALLEL_MACS) {
        // Many small products: one per task, each packing into its thread's buffers.
        out.par_chunks_mut(per_matrix)
            .enumerate()
            .for_each(|(b, o)| {
                let mut packed = B_PACKED.with(|c| c.take());
                let (l, r) = (&lhs[lv.start(b)..], &rhs[rv.start(b)..]);
                one_matrix::<T, O>(s, l, lv, r, rv, o, &mut packed, false);
                B_PACKED.with(|c| c.set(packed));
            });
        return;
    }
    let mut packed = B_PACKED.with(|c| c.take());
    for (b, o) in out.chunks_mut(per_matrix).enumerate() {
        one_matrix(
            s,
            &lhs[lv.start(b)..],
            lv,
            &rhs[rv.start(b)..],
            rv,
            o,
            &mut packed,
            parallel,
        );
    }
    B_PACKED.with(|c| c.set(packed));
}

/// The words of a packed buffer seen as elements of `T` (a word holds `GROUP` of them in K
/// order, little-endian).
fn elements_mut<T: PackedElement>(words: &mut [u32]) -> &mut [T] {
    let len = std::mem::size_of_val(words) / std::mem::size_of::<T>();
    // SAFETY: `PackedElement` is sealed and implemented only for bf16 and i8: plain data of
    // size 2 or 1 and alignment at most 4, valid for every bit pattern.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut T, len) }
}

/// 16-bit elements as their bits.
///
/// # Panics
/// When `T` is not 16 bits wide.
fn bits16<T: PackedElement>(x: &[T]) -> &[u16] {
    assert_eq!(T::BITS, 16);
    // SAFETY: `PackedElement` is sealed; its 16-bit implementation is bf16, a transparent u16.
    unsafe { std::slice::from_raw_parts(x.as_ptr() as *const u16, x.len()) }
}

/// Bytes a tile row is aligned to: a `tileloadd` whose 64-byte rows straddle two cache lines
/// runs about three times slower (measured: 46 against 15 cycles per `tdpbf16ps` with
/// L1-resident operands 16 bytes off a line).
const ALIGN_BYTES: usize = 64;

/// The first `len` words of `buf` starting at a [`ALIGN_BYTES`] boundary (the vector grows as
/// needed; the heap only guarantees 16-byte alignment for large blocks).
fn aligned(buf: &mut Vec<u32>, len: usize) -> &mut [u32] {
    let slack = ALIGN_BYTES / 4;
    if buf.len() < len + slack {
        buf.resize(len + slack, 0);
    }
    let skip = buf.as_ptr().align_offset(ALIGN_BYTES);
    &mut buf[skip..skip + len]
}

/// One product: pack B, then compute row chunks, each packing its own rows of A.
#[allow(clippy::too_many_arguments)]
fn one_matrix<T: PackedElement, O: Sink<T::Acc>>(
    s: BatchedShape,
    lhs: &[T],
    lv: MatView,
    rhs: &[T],
    rv: MatView,
    out: &mut [O],
    packed_b: &mut Vec<u32>,
    parallel: bool,
) {
    let g = T::GROUP;
    let kwp = words_per_k::<T>(s.k);
    let m_panels = s.m.div_ceil(TILE);
    let n_panels = s.n.div_ceil(TILE);
    // Every word is written below (data or zero padding), so stale contents do not matter.
    let pb = aligned(packed_b, n_panels * kwp * TILE);
    // B: per panel, per K word, the 32 columns' words (zero past N and K). A task packs
    // PACK_PANELS adjacent panels K word by K word, so that a row-major rhs is read a few
    // hundred contiguous bytes at a time rather than 64 bytes per row of K.
    // bf16 rows of a row-major rhs: whole panels interleave two K rows with one vector
    // permute per 16 words.
    let pairs = T::IS_BF16 && rv.col == 1 && super::pairs::available();
    let pack_b = |(group, panels): (usize, &mut [u32])| {
        let first = group * PACK_PANELS;
        let count = panels.len() / (kwp * TILE);
        for w in 0..kwp {
            for q in 0..count {
                let p = first + q;
                let cols = TILE.min(s.n - p * TILE);
                let words = &mut panels[(q * kwp + w) * TILE..][..TILE];
                if pairs && cols == TILE && 2 * w + 1 < s.k {
                    let src = 2 * w * rv.row + p * TILE;
                    let lo = bits16(&rhs[src..src + TILE]);
                    let hi = bits16(&rhs[src + rv.row..src + rv.row + TILE]);
                    super::pairs::interleave_32(lo, hi, words);
                    continue;
                }
                words.fill(0);
                for j in 0..g {
                    let k = w * g + j;
                    if k >= s.k {
                        break;
                    }
                    let src = k * rv.row + p * TILE * rv.col;
                    let shift = T::BITS * j as u32;
                    if rv.col == 1 {
                        for (o, &x) in words.iter_mut().zip(&rhs[src..src + cols]) {
                            *o |= x.bits() << shift;
                        }
                    } else {
                        for (c, o) in words[..cols].iter_mut().enumerate() {
                            *o |= rhs[src + c * rv.col].bits() << shift;
                        }
                    }
                }
            }
        }
    };
    if parallel {
        pb.par_chunks_mut(PACK_PANELS * kwp * TILE)
            .enumerate()
            .for_each(pack_b);
    } else {
        pb.chunks_mut(PACK_PANELS * kwp * TILE)
            .enumerate()
            .for_each(pack_b);
    }
    let b = &*pb;
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    let chunks = threads * m_panels.div_ceil(threads * MAX_PANELS_PER_CHUNK);
    let panels_per_chunk = m_panels.div_ceil(chunks.max(1));
    let rows_per_chunk = panels_per_chunk * TILE;
    // A chunk's packed rows of one K block: one step longer than the block needs, since a
    // power-of-two row stride would put the 16 rows of an A tile into the same few L1 sets.
    let lda = KC_WORDS.min(kwp) + STEP_WORDS;
    let compute = |(chunk, c): (usize, &mut [O])| {
        let rows = c.len() / s.n;
        let mut a_buf = A_CHUNK.with(|b| b.take());
        let a = aligned(&mut a_buf, rows.div_ceil(TILE) * TILE * lda);
        // SAFETY: `available` was checked by the caller (the plan's route); the tile state is
        // configured and released on this thread around the chunk.
        unsafe { configure() };
        for w0 in (0..kwp).step_by(KC_WORDS) {
            let words = KC_WORDS.min(kwp - w0);
            pack_a_block(
                lhs,
                lv,
                s.k,
                chunk * rows_per_chunk,
                rows,
                w0,
                words,
                a,
                lda,
            );
            // B panels outside, the chunk's A panels (in L2) inside: each B panel is read
            // from memory once per chunk and then serves every A panel.
            for jp in 0..n_panels {
                let b_panel = &b[(jp * kwp + w0) * TILE..];
                for ip in 0..rows.div_ceil(TILE) {
                    tile_at::<T, O>(
                        words / STEP_WORDS,
                        &a[ip * TILE * lda..],
                        lda,
                        b_panel,
                        c,
                        s.n,
                        ip * TILE,
                        jp * TILE,
                        rows,
                        w0 > 0,
                    );
                }
            }
        }
        // SAFETY: as above.
        unsafe { release() };
        A_CHUNK.with(|b| b.set(a_buf));
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

/// Packs K words `w0 .. w0 + words` of lhs rows `row0 .. row0 + rows` into `a` (row stride
/// `lda` words, rows rounded up to whole panels): the rows' elements, zero past K and past
/// the last row.
#[allow(clippy::too_many_arguments)]
fn pack_a_block<T: PackedElement>(
    lhs: &[T],
    lv: MatView,
    k: usize,
    row0: usize,
    rows: usize,
    w0: usize,
    words: usize,
    a: &mut [u32],
    lda: usize,
) {
    let g = T::GROUP;
    let (k0, k1) = ((w0 * g).min(k), ((w0 + words) * g).min(k));
    let n = k1 - k0;
    for (r, row) in a.chunks_mut(lda).enumerate() {
        let row = &mut elements_mut::<T>(row)[..words * g];
        if r >= rows {
            row.fill(T::default());
            continue;
        }
        if lv.col == 1 {
            let src = (row0 + r) * lv.row + k0;
            row[..n].copy_from_slice(&lhs[src..src + n]);
        }
        row[n..].fill(T::default());
    }
    if lv.col == 1 {
        return;
    }
    // Rows strided in K (a transposed lhs, as in a weight gradient `xᵀ · dy`): K outer, rows
    // inner, so a source stored K-major is read along its rows, and the packed rows being
    // filled (one cache line each) stay in L1. Row by row, every element was a read from
    // another line of the source: a `1024 × 4096` operand took 19 ms to pack on a Xeon.
    if T::IS_BF16 && lv.row == 1 && super::pairs::available() {
        pack_a_transposed_pairs(lhs, lv, k0, n, row0, rows, a, lda);
        return;
    }
    let a = elements_mut::<T>(a);
    let lda_e = lda * g;
    for kk in 0..n {
        let src = (k0 + kk) * lv.col + row0 * lv.row;
        for r in 0..rows {
            a[r * lda_e + kk] = lhs[src + r * lv.row];
        }
    }
}

/// [`pack_a_block`] for bf16 rows stored K-major (`lv.row == 1`): two source rows (K `k`,
/// `k + 1`) give 32 packed rows' words at a time by one vector interleave, and each word is
/// one 4-byte store — the element-by-element loop stored 2 bytes at a time and was 6% of a
/// bf16 transformer training step's samples.
#[allow(clippy::too_many_arguments)]
fn pack_a_transposed_pairs<T: PackedElement>(
    lhs: &[T],
    lv: MatView,
    k0: usize,
    n: usize,
    row0: usize,
    rows: usize,
    a: &mut [u32],
    lda: usize,
) {
    let mut words = [0u32; 32];
    for p in 0..n.div_ceil(2) {
        let lo = (k0 + 2 * p) * lv.col + row0;
        let hi = (2 * p + 1 < n).then(|| lo + lv.col);
        let mut r = 0;
        if let Some(hi) = hi {
            while r + 32 <= rows {
                super::pairs::interleave_32(
                    bits16(&lhs[lo + r..lo + r + 32]),
                    bits16(&lhs[hi + r..hi + r + 32]),
                    &mut words,
                );
                for (i, &w) in words.iter().enumerate() {
                    a[(r + i) * lda + p] = w;
                }
                r += 32;
            }
        }
        for r in r..rows {
            let high = hi.map_or(0, |hi| lhs[hi + r].bits() << 16);
            a[r * lda + p] = lhs[lo + r].bits() | high;
        }
    }
}

/// A result tile on a cache-line boundary (tile rows then do not straddle lines).
#[repr(C, align(64))]
struct EdgeTile<A>([A; TILE * TILE]);

/// One 32 × 32 tile at (`row0`, `col0`) of `c` (`rows` rows of `ldc` columns), through a
/// scratch tile when it sticks out of the matrix or is rounded to another type ([`Sink`]).
/// `a_panel` holds 32 packed rows of `lda` words from the block's first word; `b_panel` the
/// block's words of one 32-column panel. `load_c` (partial sums of earlier K blocks in `c`)
/// only with a direct sink.
#[allow(clippy::too_many_arguments)]
fn tile_at<T: PackedElement, O: Sink<T::Acc>>(
    steps: usize,
    a_panel: &[u32],
    lda: usize,
    b_panel: &[u32],
    c: &mut [O],
    ldc: usize,
    row0: usize,
    col0: usize,
    rows: usize,
    load_c: bool,
) {
    let words = steps * STEP_WORDS;
    assert!(steps >= 1 && a_panel.len() >= (TILE - 1) * lda + words);
    assert!(b_panel.len() >= words * TILE);
    assert!(O::DIRECT || !load_c);
    let esize = std::mem::size_of::<T::Acc>();
    let (mr, nr) = (TILE.min(rows - row0), TILE.min(ldc - col0));
    let (a, b) = (a_panel.as_ptr() as *const u8, b_panel.as_ptr() as *const u8);
    let run = |c: *mut T::Acc, ldc_bytes: usize| {
        // SAFETY: the panels hold the words read (asserted); the caller configured the tiles;
        // `c` addresses a 32 × 32 tile with row stride `ldc_bytes` (checked by each caller).
        unsafe {
            tile(
                T::IS_BF16,
                steps,
                a,
                lda * 4,
                b,
                c as *mut u8,
                ldc_bytes,
                load_c,
            )
        }
    };
    if O::DIRECT && mr == TILE && nr == TILE {
        assert!((row0 + TILE - 1) * ldc + col0 + TILE <= c.len());
        // A direct sink is the accumulator type itself (`Sink<A> for A`).
        run(
            c[row0 * ldc + col0..].as_mut_ptr() as *mut T::Acc,
            ldc * esize,
        );
        return;
    }
    let mut tmp = EdgeTile([T::Acc::default(); TILE * TILE]);
    let tmp = &mut tmp.0;
    if load_c {
        for r in 0..mr {
            let src = &c[(row0 + r) * ldc + col0..][..nr];
            // SAFETY: a direct sink (asserted with `load_c`) is the accumulator type.
            let src = unsafe { std::slice::from_raw_parts(src.as_ptr() as *const T::Acc, nr) };
            tmp[r * TILE..r * TILE + nr].copy_from_slice(src);
        }
    }
    run(tmp.as_mut_ptr(), TILE * esize);
    for r in 0..mr {
        O::store(
            &tmp[r * TILE..r * TILE + nr],
            &mut c[(row0 + r) * ldc + col0..][..nr],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector rounding equals `half`'s on the awkward values: ties both ways, the largest
    /// finite values (rounding to infinity), infinities, subnormals, signed NaNs with payloads,
    /// and a tail shorter than a vector.
    #[test]
    fn bf16_rounding_of_tiles_matches_half() {
        let mut values: Vec<f32> = [
            0x3f80_8000u32, // 1 + half an ulp: tie, even stays
            0x3f81_8000,    // tie, odd rounds up
            0x3f80_8001,
            0x7f7f_ffff, // f32::MAX: rounds to infinity
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x0000_0001, // subnormals
            0x8040_8000,
            0x7fc0_0001, // NaNs: quiet and signalling, both signs
            0xffa0_1234,
            0x7f80_0001,
            0x0000_0000,
            0x8000_0000,
        ]
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
        values.extend((0..37).map(|i| (i as f32 - 18.3) * 1.000_123_4));
        let mut got = vec![bf16::ZERO; values.len()];
        <bf16 as Sink<f32>>::store(&values, &mut got);
        for (x, g) in values.iter().zip(&got) {
            assert_eq!(
                g.to_bits(),
                bf16::from_f32(*x).to_bits(),
                "{x:e} ({:#010x})",
                x.to_bits()
            );
        }
    }
}
