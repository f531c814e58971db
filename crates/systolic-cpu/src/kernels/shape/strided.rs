//! The one loop nest every data-movement kernel uses: copy a box of elements from one strided
//! view to another.
//!
//! Transpose, broadcast, slice and reverse read a strided view of the operand into a dense
//! result; pad, concatenate and dynamic_update_slice write a dense operand into a strided view of
//! the result. Dimensions that are contiguous on both sides are merged first, so most copies end
//! in `copy_from_slice` or `fill`; a transpose whose source is contiguous along another
//! dimension than the destination is copied in square tiles so both sides stay in cache.

/// A strided view: element `idx` (a multi-index over the copy's shape) is at
/// `offset + Σ idx[d]·strides[d]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Position of the first element.
    pub offset: isize,
    /// Step per dimension, in elements (0 broadcasts, negative reverses).
    pub strides: Vec<isize>,
}

impl View {
    /// The dense row-major view of `shape` starting at `offset`.
    pub fn dense(shape: &[usize], offset: isize) -> View {
        let mut strides = vec![0isize; shape.len()];
        let mut s = 1isize;
        for d in (0..shape.len()).rev() {
            strides[d] = s;
            s *= shape[d] as isize;
        }
        View { offset, strides }
    }
}

use super::tile8;

/// Tile edge for blocked transposes (elements).
const TILE: usize = 32;

/// Copies the box `shape` from `src` (seen through `sv`) to `dst` (seen through `dv`).
///
/// The views must stay inside the slices (lowering computes them from verified shapes); an
/// index outside panics through slice bounds checks rather than reading stray memory.
pub fn copy<T: Copy + Send + Sync>(
    src: &[T],
    sv: &View,
    dst: &mut [T],
    dv: &View,
    shape: &[usize],
) {
    if shape.contains(&0) {
        return;
    }
    let (shape, ss, ds) = merge_dims(shape, &sv.strides, &dv.strides);
    let rank = shape.len();
    if rank == 0 {
        dst[dv.offset as usize] = src[sv.offset as usize];
        return;
    }
    // A transpose: the destination is contiguous along the last dimension, the source along
    // another one. Copy tiles of (that dimension × the last one).
    let last = rank - 1;
    if ds[last] == 1 && ss[last] != 1 {
        if let Some(k) = (0..last).find(|&k| ss[k] == 1) {
            if shape[k] >= TILE / 2 && shape[last] >= TILE / 2 {
                return copy_tiled(src, sv.offset, &ss, dst, dv.offset, &ds, &shape, k);
            }
        }
    }
    let mut idx = vec![0usize; last];
    loop {
        let mut so = sv.offset;
        let mut dof = dv.offset;
        for d in 0..last {
            so += idx[d] as isize * ss[d];
            dof += idx[d] as isize * ds[d];
        }
        copy_row(src, so, ss[last], dst, dof, ds[last], shape[last]);
        if !advance(&mut idx, &shape[..last]) {
            return;
        }
    }
}

/// The innermost loop: `n` elements along one dimension.
fn copy_row<T: Copy>(
    src: &[T],
    so: isize,
    ss: isize,
    dst: &mut [T],
    dof: isize,
    ds: isize,
    n: usize,
) {
    let (so, dof) = (so as usize, dof as usize);
    match (ss, ds) {
        (1, 1) => dst[dof..dof + n].copy_from_slice(&src[so..so + n]),
        (0, 1) => dst[dof..dof + n].fill(src[so]),
        (_, 1) => {
            for (i, d) in dst[dof..dof + n].iter_mut().enumerate() {
                *d = src[(so as isize + i as isize * ss) as usize];
            }
        }
        _ => {
            for i in 0..n as isize {
                dst[(dof as isize + i * ds) as usize] = src[(so as isize + i * ss) as usize];
            }
        }
    }
}

/// Transposes of at least this many elements are split over the cores.
const PARALLEL_TILED: usize = 1 << 16;

/// A transpose copy in `TILE`×`TILE` tiles over dimension `k` (source-contiguous) and the last
/// dimension (destination-contiguous), spread over the cores when large. Every index the box
/// reaches is checked against both slices once, up front; the tiles then copy without bounds
/// checks (a check per element was most of the time of a 1024² f32 transpose).
#[allow(clippy::too_many_arguments)]
fn copy_tiled<T: Copy + Send + Sync>(
    src: &[T],
    s_off: isize,
    ss: &[isize],
    dst: &mut [T],
    d_off: isize,
    ds: &[isize],
    shape: &[usize],
    k: usize,
) {
    let in_bounds = |off: isize, strides: &[isize], len: usize| {
        let (mut lo, mut hi) = (off, off);
        for (&n, &st) in shape.iter().zip(strides) {
            let reach = (n as isize - 1) * st;
            lo += reach.min(0);
            hi += reach.max(0);
        }
        lo >= 0 && (hi as usize) < len
    };
    assert!(
        in_bounds(s_off, ss, src.len()) && in_bounds(d_off, ds, dst.len()),
        "strided copy: a view reaches outside its slice"
    );
    let last = shape.len() - 1;
    // Outer dimensions: all but k and last; one task per (outer index, band of TILE along k).
    let outer: Vec<usize> = (0..last).filter(|&d| d != k).collect();
    let outer_count: usize = outer.iter().map(|&d| shape[d]).product();
    let bands = shape[k].div_ceil(TILE);
    let base = |task: usize| -> (isize, isize, usize) {
        let (mut o, band) = (task / bands, task % bands);
        let (mut so, mut dof) = (s_off, d_off);
        for &d in outer.iter().rev() {
            let i = (o % shape[d]) as isize;
            o /= shape[d];
            so += i * ss[d];
            dof += i * ds[d];
        }
        (so, dof, band * TILE)
    };
    let (n_k, n_l, sk, sl, dk) = (shape[k], shape[last], ss[k], ss[last], ds[k]);
    // 4-byte elements, contiguous along k in the source (and along the last dimension in the
    // destination, as every tiled copy is): 8 × 8 squares go through vector registers.
    let vector8 = std::mem::size_of::<T>() == 4 && sk == 1 && tile8::available();
    let src_ptr = SendPtr(src.as_ptr() as *mut T);
    let dst_ptr = SendPtr(dst.as_mut_ptr());
    let run = |task: usize| {
        let (so, dof, k0) = base(task);
        let k1 = (k0 + TILE).min(n_k);
        // SAFETY (every access below): each index of the box was checked against both
        // slices above; tasks write disjoint destination elements (a copy's destination view
        // maps distinct indices to distinct elements).
        let scalar = |kk: usize, l0: usize, l1: usize| {
            let s_row = so + kk as isize * sk;
            let d_row = dof + kk as isize * dk;
            for ll in l0..l1 {
                unsafe {
                    *dst_ptr.get().offset(d_row + ll as isize) =
                        *src_ptr.get().offset(s_row + ll as isize * sl);
                }
            }
        };
        for l0 in (0..n_l).step_by(TILE) {
            let l1 = (l0 + TILE).min(n_l);
            let mut kk = k0;
            if vector8 {
                // Whole 8 × 8 squares in registers; the columns past the last square by
                // element.
                let l8 = l0 + (l1 - l0) / 8 * 8;
                while kk + 8 <= k1 {
                    for ll in (l0..l8).step_by(8) {
                        let from = so + kk as isize * sk + ll as isize * sl;
                        let to = dof + kk as isize * dk + ll as isize;
                        unsafe {
                            tile8::transpose8x8(
                                src_ptr.get().offset(from).cast::<u32>(),
                                sl,
                                dst_ptr.get().offset(to).cast::<u32>(),
                                dk,
                            )
                        };
                    }
                    for r in kk..kk + 8 {
                        scalar(r, l8, l1);
                    }
                    kk += 8;
                }
            }
            for r in kk..k1 {
                scalar(r, l0, l1);
            }
        }
    };
    let tasks = outer_count * bands;
    if shape.iter().product::<usize>() >= PARALLEL_TILED && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        (0..tasks).into_par_iter().for_each(run);
    } else {
        (0..tasks).for_each(run);
    }
}

/// A raw pointer the tiles of one copy share across threads.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

impl<T> SendPtr<T> {
    fn get(self) -> *mut T {
        self.0
    }
}

// SAFETY: used only by `copy_tiled`, whose tasks touch disjoint destination elements and only
// read the source, while both slices are borrowed for the whole call.
unsafe impl<T: Send> Send for SendPtr<T> {}
unsafe impl<T: Sync> Sync for SendPtr<T> {}

/// Steps a row-major multi-index; false after the last one.
fn advance(idx: &mut [usize], shape: &[usize]) -> bool {
    for d in (0..idx.len()).rev() {
        idx[d] += 1;
        if idx[d] < shape[d] {
            return true;
        }
        idx[d] = 0;
    }
    false
}

/// Drops size-1 dimensions and merges neighbours that are contiguous on both sides.
fn merge_dims(shape: &[usize], ss: &[isize], ds: &[isize]) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
    let mut out: (Vec<usize>, Vec<isize>, Vec<isize>) = (vec![], vec![], vec![]);
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        if let (Some(&n), Some(&s), Some(&t)) = (out.0.last(), out.1.last(), out.2.last()) {
            if s == ss[d] * shape[d] as isize && t == ds[d] * shape[d] as isize {
                let last = out.0.len() - 1;
                out.0[last] = n * shape[d];
                out.1[last] = ss[d];
                out.2[last] = ds[d];
                continue;
            }
        }
        out.0.push(shape[d]);
        out.1.push(ss[d]);
        out.2.push(ds[d]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_2x3_by_strides() {
        let src: Vec<i32> = (0..6).collect(); // [[0,1,2],[3,4,5]]
        let mut dst = vec![0; 6];
        let sv = View {
            offset: 0,
            strides: vec![1, 3],
        }; // out[i][j] = src[j][i]
        copy(&src, &sv, &mut dst, &View::dense(&[3, 2], 0), &[3, 2]);
        assert_eq!(dst, vec![0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn tiled_transpose_matches_naive() {
        let (r, c) = (37usize, 45usize);
        let src: Vec<u32> = (0..(r * c) as u32).collect();
        let mut dst = vec![0; r * c];
        let sv = View {
            offset: 0,
            strides: vec![1, c as isize],
        };
        copy(&src, &sv, &mut dst, &View::dense(&[c, r], 0), &[c, r]);
        for i in 0..c {
            for j in 0..r {
                assert_eq!(dst[i * r + j], src[j * c + i]);
            }
        }
    }

    /// `copy` against an index-by-index reference, for views of `shape` over a dense source of
    /// `src_shape` (`perm[d]`: the source dimension destination dimension `d` walks; `flip`:
    /// walked backwards).
    fn check_permuted<T: Copy + Send + Sync + std::fmt::Debug>(
        src_shape: &[usize],
        perm: &[usize],
        flip: &[bool],
        make: impl Fn(usize) -> T,
        zero: T,
        same: impl Fn(T, T) -> bool,
    ) {
        let total: usize = src_shape.iter().product();
        let src: Vec<T> = (0..total).map(make).collect();
        let dense = View::dense(src_shape, 0).strides;
        let shape: Vec<usize> = perm.iter().map(|&p| src_shape[p]).collect();
        let mut offset = 0isize;
        let strides: Vec<isize> = perm
            .iter()
            .zip(flip)
            .map(|(&p, &f)| {
                if f {
                    offset += (src_shape[p] as isize - 1) * dense[p];
                    -dense[p]
                } else {
                    dense[p]
                }
            })
            .collect();
        let sv = View { offset, strides };
        let mut dst = vec![zero; total];
        copy(&src, &sv, &mut dst, &View::dense(&shape, 0), &shape);
        let mut idx = vec![0usize; shape.len()];
        for (at, got) in dst.iter().enumerate() {
            let mut rest = at;
            for d in (0..shape.len()).rev() {
                idx[d] = rest % shape[d];
                rest /= shape[d];
            }
            let from: isize = sv.offset
                + idx
                    .iter()
                    .zip(&sv.strides)
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            let want = src[from as usize];
            assert!(
                same(*got, want),
                "element {idx:?} of {shape:?} ({perm:?}): {got:?}, want {want:?}"
            );
        }
    }

    #[test]
    fn tiled_transposes_of_every_width_match_the_reference() {
        // Large enough to split over the cores, odd sizes (partial 8 × 8 squares and tiles),
        // a batch dimension kept outermost, a middle one moved innermost, and a reversal.
        // f32 from scattered bit patterns (NaN payloads and subnormals among them): compared
        // bit for bit.
        let f32_of = |i: usize| f32::from_bits((i as u32).wrapping_mul(2_654_435_761));
        let bits = |a: f32, b: f32| a.to_bits() == b.to_bits();
        check_permuted(&[3, 130, 203], &[0, 2, 1], &[false; 3], f32_of, 0.0, bits);
        check_permuted(&[257, 300], &[1, 0], &[false, false], f32_of, 0.0, bits);
        let eq = |a: u32, b: u32| a == b;
        check_permuted(
            &[40, 9, 70],
            &[2, 1, 0],
            &[false, true, false],
            |i| i as u32,
            0,
            eq,
        );
        check_permuted(&[33, 77], &[1, 0], &[true, false], |i| i as u32, 0, eq);
        let eq64 = |a: f64, b: f64| a == b;
        check_permuted(
            &[5, 64, 96],
            &[0, 2, 1],
            &[false; 3],
            |i| i as f64,
            0.0,
            eq64,
        );
        let eq16 = |a: u16, b: u16| a == b;
        check_permuted(&[19, 200], &[1, 0], &[false, false], |i| i as u16, 0, eq16);
    }

    #[test]
    fn reverse_and_broadcast() {
        let src = [1.0f32, 2.0, 3.0];
        let mut dst = vec![0.0; 6];
        // out[i][j] = src[2 - j], i in 0..2
        let sv = View {
            offset: 2,
            strides: vec![0, -1],
        };
        copy(&src, &sv, &mut dst, &View::dense(&[2, 3], 0), &[2, 3]);
        assert_eq!(dst, vec![3.0, 2.0, 1.0, 3.0, 2.0, 1.0]);
    }
}
