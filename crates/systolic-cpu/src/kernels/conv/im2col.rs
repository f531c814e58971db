//! Rearranging a convolution into a batch of matrix products, one per group:
//!
//! - patches `[G, rows, W·Ci]`: row `(n, y…)` holds, for each window position `w` (row-major)
//!   and input feature `c` of the group, the input element that output position `y` sees
//!   through `w` — or zero where it falls in padding or in a hole of the lhs dilation — in
//!   column [`ConvGeometry::column`]`(w, c)` (window-major or feature-major, whichever reads
//!   the input along its layout);
//! - weights `[G, W·Ci, Og]`: the kernel with window reversal applied, rows in the same order
//!   (the kernel itself when it already has that layout, [`ConvGeometry::kernel_is_weights`]);
//! - the product `[G, rows, Og]` is scattered into the result's layout.
//!
//! Works on any dimension numbers by reading through the operands' row-major strides.

use super::geometry::{ConvGeometry, PatchColumns};
use crate::threads::for_each_chunk_mut;
use std::ops::Range;

/// Patch matrices at least this large are built on all threads.
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// Images whose patch rows are filled together when images are adjacent in the input.
const IMAGE_BLOCK: usize = 8;

/// For one spatial dimension: the input coordinate output position `y` sees through window
/// position `w`, or `None` (padding or a dilation hole); indexed `[y · window + w]`.
fn coordinate_table(g: &ConvGeometry, d: usize) -> Vec<Option<usize>> {
    let (outs, win) = (g.out_spatial[d], g.window[d]);
    let (dim, input) = (g.resolved.dims()[d], g.in_spatial[d] as i64);
    let mut table = Vec::with_capacity(outs * win);
    for y in 0..outs {
        for w in 0..win {
            let x = dim.input_coordinate(input, y as i64, w as i64);
            table.push(x.map(|x| x as usize));
        }
    }
    table
}

/// Advances a row-major multi-index over `sizes`; false after the last index.
fn next_index(index: &mut [usize], sizes: &[usize]) -> bool {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < sizes[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// The input offsets (without batch and feature) output position `y` sees through each window
/// position, or `None` where it sees zero.
fn window_offsets(
    g: &ConvGeometry,
    tables: &[Vec<Option<usize>>],
    y: &[usize],
    out: &mut Vec<Option<usize>>,
) {
    out.clear();
    let nsp = g.window.len();
    let mut w = vec![0usize; nsp];
    if g.window.contains(&0) {
        return;
    }
    loop {
        let mut offset = Some(0usize);
        for d in 0..nsp {
            offset = match (offset, tables[d][y[d] * g.window[d] + w[d]]) {
                (Some(o), Some(x)) => Some(o + x * g.in_strides[g.input.spatial[d]]),
                _ => None,
            };
        }
        out.push(offset);
        if !next_index(&mut w, &g.window) {
            return;
        }
    }
}

/// Patches `[G, images · positions, W · Ci]` for the output images `images`, written into
/// `out` (that many elements; every one is written, zeros where the window sees padding, so
/// `out` may hold anything before: a pooled buffer needs no zero-fill pass).
pub fn patches<T: Copy + Default + Send + Sync>(
    g: &ConvGeometry,
    input: &[T],
    images: Range<usize>,
    out: &mut [T],
) {
    let positions = g.out_positions();
    let ci = g.in_features;
    let windows = g.window_positions();
    let cols = windows * ci;
    assert_eq!(
        out.len(),
        g.groups * images.len() * positions * cols,
        "im2col: patch buffer size"
    );
    if out.is_empty() {
        return;
    }
    // The input offset each (output position, window position) reads, shared by all images.
    let tables: Vec<Vec<Option<usize>>> = (0..g.window.len())
        .map(|d| coordinate_table(g, d))
        .collect();
    let mut offsets = Vec::with_capacity(positions * windows);
    let mut one = Vec::new();
    let mut y = vec![0usize; g.out_spatial.len()];
    loop {
        window_offsets(g, &tables, &y, &mut one);
        offsets.extend_from_slice(&one);
        if !next_index(&mut y, &g.out_spatial) {
            break;
        }
    }
    let feature_stride = g.in_strides[g.input.feature];
    let per_image = images.len();
    // The input element of image block `block` (group, image) at feature 0, offset 0.
    let image_base = |block: usize| {
        let (group, i) = (block / per_image, block % per_image);
        let n = images.start + i;
        let (in_batch, c0) = if g.batch_grouped {
            (group * g.out_batch + n, 0)
        } else {
            (n, group * ci)
        };
        in_batch * g.in_strides[g.input.batch] + c0 * feature_stride
    };
    let parallel = out.len() >= PARALLEL_ELEMENTS;
    if g.columns == PatchColumns::FeatureMajor
        && g.in_strides[g.input.batch] == 1
        && per_image.is_multiple_of(IMAGE_BLOCK)
    {
        // Images adjacent in the input (a weight gradient's activations `[N, H, W, C]` read
        // with C as images): the rows of IMAGE_BLOCK images are filled together, so an input
        // cache line read once serves them all (row by row, every row re-reads each cache
        // line of its image's plane, one element used per line).
        let task_len = IMAGE_BLOCK * positions * cols;
        return for_each_chunk_mut(out, task_len, parallel, |task, dst| {
            let base = image_base(task * IMAGE_BLOCK);
            fill_image_block(dst, input, base, &offsets, windows, ci, feature_stride);
        });
    }
    // Tasks of whole patch rows: a few per (group, image) block when there are few blocks
    // (a weight gradient's images are the input's features, as few as 3).
    let rows_per_task = (PARALLEL_ELEMENTS / cols).clamp(1, positions);
    for_each_chunk_mut(out, rows_per_task * cols, parallel, |task, dst| {
        let first_row = task * rows_per_task;
        for (r, row) in dst.chunks_exact_mut(cols).enumerate() {
            let global = first_row + r;
            let (block, position) = (global / positions, global % positions);
            let base = image_base(block);
            let offs = &offsets[position * windows..][..windows];
            match g.columns {
                PatchColumns::WindowMajor => {
                    for (cell, offset) in row.chunks_exact_mut(ci).zip(offs) {
                        let Some(offset) = offset else {
                            cell.fill(T::default());
                            continue;
                        };
                        let src = base + offset;
                        if feature_stride == 1 {
                            cell.copy_from_slice(&input[src..src + ci]);
                        } else {
                            for (c, d) in cell.iter_mut().enumerate() {
                                *d = input[src + c * feature_stride];
                            }
                        }
                    }
                }
                // One feature's window sweep at a time: reads step along the input's
                // spatial dimensions, writes are contiguous.
                PatchColumns::FeatureMajor => {
                    for (c, sweep) in row.chunks_exact_mut(windows).enumerate() {
                        let from = base + c * feature_stride;
                        for (d, offset) in sweep.iter_mut().zip(offs) {
                            *d = offset.map_or(T::default(), |o| input[from + o]);
                        }
                    }
                }
            }
        }
    });
}

/// Fills the feature-major patch rows of [`IMAGE_BLOCK`] images adjacent in the input
/// (`dst`: their `positions` rows each, image after image) from the element of the first image
/// at `base`: each input read of IMAGE_BLOCK neighbours is written to the same column of the
/// IMAGE_BLOCK rows of one output position.
fn fill_image_block<T: Copy + Default>(
    dst: &mut [T],
    input: &[T],
    base: usize,
    offsets: &[Option<usize>],
    windows: usize,
    features: usize,
    feature_stride: usize,
) {
    let image_len = dst.len() / IMAGE_BLOCK;
    let cols = windows * features;
    for (position, offs) in offsets.chunks_exact(windows).enumerate() {
        let mut images = dst.chunks_exact_mut(image_len);
        let mut rows: [&mut [T]; IMAGE_BLOCK] = std::array::from_fn(|_| {
            let image = images.next().expect("dst holds IMAGE_BLOCK images");
            &mut image[position * cols..][..cols]
        });
        for c in 0..features {
            let from = base + c * feature_stride;
            for (w, offset) in offs.iter().enumerate() {
                let col = c * windows + w;
                match offset {
                    Some(o) => {
                        let src = &input[from + o..][..IMAGE_BLOCK];
                        for (row, &v) in rows.iter_mut().zip(src) {
                            row[col] = v;
                        }
                    }
                    None => rows.iter_mut().for_each(|row| row[col] = T::default()),
                }
            }
        }
    }
}

/// Weights `[G, W · Ci, Og]` from the kernel (window reversal applied).
pub fn weights<T: Copy + Default>(g: &ConvGeometry, kernel: &[T]) -> Vec<T> {
    let (ci, og) = (g.in_features, g.out_features_per_group);
    let wp = g.window_positions();
    let mut out = vec![T::default(); g.groups * wp * ci * og];
    if out.is_empty() {
        return out;
    }
    let ks = &g.kernel_strides;
    let mut w = vec![0usize; g.window.len()];
    for wi in 0..wp {
        let spatial: usize = (0..w.len())
            .map(|d| {
                let k = if g.reversal[d] {
                    g.window[d] - 1 - w[d]
                } else {
                    w[d]
                };
                k * ks[g.kernel.spatial[d]]
            })
            .sum();
        for group in 0..g.groups {
            for c in 0..ci {
                let src = spatial + c * ks[g.kernel.batch];
                let row = group * wp * ci + g.column(wi, c);
                for o in 0..og {
                    out[row * og + o] = kernel[src + (group * og + o) * ks[g.kernel.feature]];
                }
            }
        }
        next_index(&mut w, &g.window);
    }
    out
}

/// Scatters a product `[G, images · positions, Og]` into the result (row-major, its own
/// layout) for the output images `images`.
pub fn scatter<T: Copy>(g: &ConvGeometry, product: &[T], images: Range<usize>, out: &mut [T]) {
    let positions = g.out_positions();
    let og = g.out_features_per_group;
    let rows = images.len() * positions;
    let os = &g.out_strides;
    let feature_stride = os[g.output.feature];
    let mut y = vec![0usize; g.out_spatial.len()];
    if positions == 0 || og == 0 {
        return;
    }
    let mut position = 0;
    loop {
        let spatial: usize = y
            .iter()
            .zip(&g.output.spatial)
            .map(|(&i, &d)| i * os[d])
            .sum();
        for (i, n) in images.clone().enumerate() {
            let base = n * os[g.output.batch] + spatial;
            for group in 0..g.groups {
                let src = &product[(group * rows + i * positions + position) * og..][..og];
                let first = base + group * og * feature_stride;
                if feature_stride == 1 {
                    out[first..first + og].copy_from_slice(src);
                } else {
                    for (o, &v) in src.iter().enumerate() {
                        out[first + o * feature_stride] = v;
                    }
                }
            }
        }
        position += 1;
        if !next_index(&mut y, &g.out_spatial) {
            return;
        }
    }
}
