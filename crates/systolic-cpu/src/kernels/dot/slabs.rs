//! Large products of operands converted to f32 (bf16 on CPUs without AVX512-BF16, f16,
//! integers into a float result), a slab at a time.
//!
//! Converting whole operands first costs a fresh f32 copy of each (twice the bytes of a bf16
//! operand) and, for a result that is not f32, an f32 accumulator the size of the result, all
//! written to memory and read back. A language model's vocabulary products are 65 M elements
//! on one side: 262 MB of f32 each, faulted in on the first run and streamed through on every
//! one. Here the larger side is cut into slabs of rows (lhs) or columns (rhs) converted one at a
//! time, each multiplied into the matching rows or columns of the result; the other operand is
//! converted once. Conversions read runs along a unit stride, so an operand read transposed
//! converts as it is stored and the product takes the transposed view.

use super::convert;
use super::float::{gemm_batched, BatchedShape};
use super::layout::MatView;
use crate::buffer::Storage;
use crate::threads::for_each_chunk_mut;

/// Converted elements per slab (operand slab and result slab together): 8 MiB of f32.
pub const SLAB_ELEMENTS: usize = 1 << 21;

/// Slabs at least this large convert on all threads.
const PARALLEL_ELEMENTS: usize = 1 << 17;

/// The fewest rows (or columns) per slab: thinner products leave the f32 kernel's blocks
/// underfilled and repack the other operand too often.
pub const MIN_SLAB_LINES: usize = 256;

/// Each slab's product packs the other operand again: slabs are made fewer (and larger) until
/// that repacking is at most this fraction (1 / divisor) of the elements the slabs convert.
/// The input gradient of a vocabulary projection, `[2048, 32000] · [32000, 256]`, repacked its
/// 8.2 M-element rhs once per 256-row slab, eight times: 209–262 ms against 199–223 converting
/// whole (`systolic run --profile`, two alternations, AMD EPYC Zen 3); with this limit it takes
/// two slabs.
pub const REPACK_DIVISOR: usize = 4;

/// How a product is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slabs {
    /// Converted elements per slab.
    pub elements: usize,
    /// The fewest rows or columns per slab.
    pub min_lines: usize,
    /// See [`REPACK_DIVISOR`]; 0 sets no limit.
    pub repack_divisor: usize,
}

impl Default for Slabs {
    fn default() -> Self {
        Slabs {
            elements: SLAB_ELEMENTS,
            min_lines: MIN_SLAB_LINES,
            repack_divisor: REPACK_DIVISOR,
        }
    }
}

/// The part of a result one slab computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    /// Rows of the result: slabs of lhs rows.
    Rows(usize),
    /// Columns of the result: slabs of rhs columns.
    Columns(usize),
}

impl Slabs {
    /// How to cut one `m × k · k × n` product, or `None` when one slab would hold it all (the
    /// whole-operand path is then as good).
    fn cut(self, s: BatchedShape, f32_out: bool) -> Option<Cut> {
        let (long, short) = if s.m >= s.n { (s.m, s.n) } else { (s.n, s.m) };
        // Per line of the cut side: its operand line (k) and, unless the result is f32 (then
        // written in place), its line of the accumulator.
        let per_line = s.k + if f32_out { 0 } else { short };
        let mut lines = (self.elements / per_line.max(1)).max(self.min_lines);
        if self.repack_divisor > 0 {
            let converted = long * per_line;
            let other = (s.k * short).max(1);
            let most_slabs = converted / (self.repack_divisor * other);
            if most_slabs < 2 {
                return None;
            }
            lines = lines.max(long.div_ceil(most_slabs));
        }
        (lines < long).then_some(if s.m >= s.n {
            Cut::Rows(lines)
        } else {
            Cut::Columns(lines)
        })
    }
}

/// Computes the single product (`s.batch == 1`) of `ls` viewed by `lv` and `rs` viewed by `rv`
/// into `out` a slab at a time when that pays. False when it does not apply (a batch, a product
/// small enough for one slab, an operand without a unit stride, `out` not float storage): the
/// caller converts whole operands instead.
pub fn product(
    slabs: Slabs,
    s: BatchedShape,
    ls: &Storage,
    lv: MatView,
    rs: &Storage,
    rv: MatView,
    out: &mut Storage,
) -> bool {
    let unit = |v: &MatView| v.row == 1 || v.col == 1;
    if s.batch != 1 || s.k == 0 || !unit(&lv) || !unit(&rv) || !convert::is_float_storage(out) {
        return false;
    }
    let Some(cut) = slabs.cut(s, matches!(out, Storage::F32(_))) else {
        return false;
    };
    let (l0, r0) = (lv.start(0), rv.start(0));
    match cut {
        Cut::Rows(rows) => {
            let (rhs, rhs_view) = block(rs, r0, rv, s.k, s.n);
            each_slab(s.m, rows, s.k, |first, h, lhs| {
                let lhs_view = convert_block(ls, l0 + first * lv.row, lv, h, s.k, lhs);
                let shape = BatchedShape { m: h, ..s };
                into_rows(out, first * s.n, s.n, s.n, h, |acc| {
                    gemm_batched(shape, lhs, lhs_view, &rhs, rhs_view, acc, 1.0)
                });
            });
            crate::pool::recycle_vec(rhs);
        }
        Cut::Columns(cols) => {
            let (lhs, lhs_view) = block(ls, l0, lv, s.m, s.k);
            each_slab(s.n, cols, s.k, |first, w, rhs| {
                let rhs_view = convert_block(rs, r0 + first * rv.col, rv, s.k, w, rhs);
                let shape = BatchedShape { n: w, ..s };
                into_rows(out, first, s.n, w, s.m, |acc| {
                    gemm_batched(shape, &lhs, lhs_view, rhs, rhs_view, acc, 1.0)
                });
            });
            crate::pool::recycle_vec(lhs);
        }
    }
    true
}

/// Runs `slab(first, count, scratch)` for each slab of at most `lines` of `total` lines,
/// `scratch` a pooled vector of `count · per_line` elements (one vector for all slabs).
fn each_slab(
    total: usize,
    lines: usize,
    per_line: usize,
    mut slab: impl FnMut(usize, usize, &mut [f32]),
) {
    let mut scratch = crate::pool::take_vec::<f32>(lines.min(total) * per_line);
    for first in (0..total).step_by(lines) {
        let count = lines.min(total - first);
        slab(first, count, &mut scratch[..count * per_line]);
    }
    crate::pool::recycle_vec(scratch);
}

/// The `rows × cols` matrix of `s` at `start` with `v`'s strides, converted into a pooled
/// vector (see [`convert_block`]).
fn block(s: &Storage, start: usize, v: MatView, rows: usize, cols: usize) -> (Vec<f32>, MatView) {
    let mut dense = crate::pool::take_vec::<f32>(rows * cols);
    let view = convert_block(s, start, v, rows, cols, &mut dense);
    (dense, view)
}

/// Converts the `rows × cols` matrix of `s` at `start` with `v`'s row and column strides
/// (one of them 1) into `dense`, keeping its orientation: row-major when its columns are
/// adjacent, column-major when its rows are. Returns the dense matrix's view.
fn convert_block(
    s: &Storage,
    start: usize,
    v: MatView,
    rows: usize,
    cols: usize,
    dense: &mut [f32],
) -> MatView {
    // Lines along the unit stride: (number, length, stride between line starts).
    let (lines, len, step, view) = if v.col == 1 {
        (rows, cols, v.row, MatView::contiguous(rows, cols))
    } else {
        (cols, rows, v.col, MatView::strided(rows * cols, 1, rows))
    };
    let dense = &mut dense[..lines * len];
    if len > 0 {
        let parallel = dense.len() >= PARALLEL_ELEMENTS;
        for_each_chunk_mut(dense, len, parallel, |i, line| {
            convert::convert_f32(s, start + i * step, line)
        });
    }
    view
}

/// Runs `product` into the `lines × width` block of `out` at `offset` (rows `row_len` apart):
/// in place when `out` holds f32 and the block is whole rows, else into a pooled accumulator
/// written into `out` rounded once.
fn into_rows(
    out: &mut Storage,
    offset: usize,
    row_len: usize,
    width: usize,
    lines: usize,
    product: impl FnOnce(&mut [f32]),
) {
    if let (Storage::F32(o), true) = (&mut *out, width == row_len) {
        product(&mut o[offset..offset + lines * width]);
        return;
    }
    let mut acc = crate::pool::take_vec::<f32>(lines * width);
    product(&mut acc);
    convert::write_f32_block(out, offset, row_len, width, &acc);
    crate::pool::recycle_vec(acc);
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    fn bf16s(n: usize, seed: u32) -> Vec<bf16> {
        (0..n)
            .map(|i| {
                let x = (i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 20;
                bf16::from_f32(x as f32 / 4096.0 - 0.5)
            })
            .collect()
    }

    /// The product by whole-operand conversion (the path slabs replace), for comparison.
    fn whole(s: BatchedShape, l: &Storage, lv: MatView, r: &Storage, rv: MatView) -> Vec<f32> {
        let (l, r) = (convert::to_f32(l), convert::to_f32(r));
        let mut out = vec![0.0; s.m * s.n];
        gemm_batched(s, &l, lv, &r, rv, &mut out, 1.0);
        out
    }

    #[test]
    fn cuts_the_longer_side_and_only_when_it_pays() {
        let slabs = Slabs::default();
        let shape = |m, k, n| BatchedShape { batch: 1, m, k, n };
        // A vocabulary projection: 32000 columns of 2304 converted elements each, 910 per
        // slab by size, 915 for at most 35 repackings of the 0.5 M-element lhs.
        assert_eq!(
            slabs.cut(shape(2048, 256, 32000), false),
            Some(Cut::Columns(915))
        );
        // Its input gradient: rows of 32000 + 256, two slabs (see REPACK_DIVISOR).
        assert_eq!(
            slabs.cut(shape(2048, 32000, 256), false),
            Some(Cut::Rows(1024))
        );
        // A square product would repack as much as it converts.
        assert_eq!(slabs.cut(shape(2048, 2048, 2048), true), None);
        // An f32 result is written in place: only the operand's line counts.
        assert_eq!(
            slabs.cut(shape(4096, 1024, 64), true),
            Some(Cut::Rows(2048))
        );
        assert_eq!(slabs.cut(shape(1024, 1024, 1024), false), None);
    }

    /// `got` equals `want` up to the f32 rounding of a different summation order (relative
    /// 1e-5 of the magnitude `scale`).
    fn close(got: &[f32], want: &[f32], scale: f32, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= 1e-5 * scale, "{what}: [{i}] {g} vs {w}");
        }
    }

    #[test]
    fn slabs_match_whole_conversion_for_every_layout_and_result_type() {
        let small = Slabs {
            elements: 64,
            min_lines: 3,
            repack_divisor: 0,
        };
        // (m, k, n): cut by rows, by columns, with a ragged last slab; for f32 and bf16
        // results (their accumulator lines differ, so do the cuts).
        for (m, k, n) in [(17, 9, 5), (4, 7, 23), (70, 1, 10), (13, 5, 12)] {
            let s = BatchedShape { batch: 1, m, k, n };
            // Each operand row-major, transposed, and with padded rows (a strided slice).
            let lhs_views = [
                MatView::strided(0, k, 1),
                MatView::strided(0, 1, m),
                MatView::strided(0, k + 2, 1),
            ];
            let rhs_views = [
                MatView::strided(0, n, 1),
                MatView::strided(0, 1, k),
                MatView::strided(0, 1, k + 1),
            ];
            let l = Storage::BF16(bf16s(m * (k + 2), 7));
            let r = Storage::BF16(bf16s(n * (k + 1), 11));
            for lv in lhs_views {
                for rv in rhs_views {
                    let want = whole(s, &l, lv, &r, rv);
                    let what = format!("{m}×{k}×{n} {lv:?} {rv:?}");
                    let mut f32_out = Storage::F32(vec![f32::NAN; m * n]);
                    assert!(product(small, s, &l, lv, &r, rv, &mut f32_out), "{what}");
                    let Storage::F32(got) = f32_out else {
                        unreachable!()
                    };
                    close(&got, &want, k as f32, &what);
                    let mut bf16_out = Storage::BF16(vec![bf16::NAN; m * n]);
                    assert!(product(small, s, &l, lv, &r, rv, &mut bf16_out), "{what}");
                    let Storage::BF16(got) = bf16_out else {
                        unreachable!()
                    };
                    let got: Vec<f32> = got.iter().map(|x| x.to_f32()).collect();
                    let rounded: Vec<f32> =
                        want.iter().map(|&x| bf16::from_f32(x).to_f32()).collect();
                    close(&got, &rounded, k as f32 * 1e3, &what);
                }
            }
        }
    }

    #[test]
    fn declines_batches_small_products_and_integer_results() {
        let s = BatchedShape {
            batch: 2,
            m: 8,
            k: 4,
            n: 8,
        };
        let l = Storage::BF16(bf16s(64, 1));
        let r = Storage::BF16(bf16s(64, 2));
        let v = MatView::contiguous(8, 4);
        let small = Slabs {
            elements: 8,
            min_lines: 1,
            repack_divisor: 0,
        };
        let mut out = Storage::F32(vec![0.0; 128]);
        assert!(!product(small, s, &l, v, &r, v, &mut out));
        let one = BatchedShape { batch: 1, ..s };
        let mut out = Storage::F32(vec![0.0; 64]);
        assert!(!product(Slabs::default(), one, &l, v, &r, v, &mut out));
        let mut ints = Storage::I32(vec![0; 64]);
        assert!(!product(small, one, &l, v, &r, v, &mut ints));
    }
}
