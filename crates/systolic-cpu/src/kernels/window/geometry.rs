//! Window geometry planned at compile time: for every dimension, output coordinate and window
//! position, the operand offset it reads or a hole (padding or a base-dilation gap), following
//! the IR's definition ([`ResolvedWindow`]: dilate, pad, then step the window).

use systolic_ir::ResolvedWindow;

/// A hole: the position holds no operand element.
pub const HOLE: isize = -1;

/// The planned windows of one op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Windows {
    /// Window size per dimension.
    pub size: Vec<usize>,
    /// Number of windows per dimension (the output shape).
    pub out_shape: Vec<usize>,
    /// Per dimension, `table[o * size + w]`: the operand offset (coordinate × stride) of
    /// position `w` of window `o`, or [`HOLE`].
    pub tables: Vec<Vec<isize>>,
    /// Elements of the trailing dimensions whose window is the identity (size 1, stride 1, no
    /// padding or dilation): every window position reads a contiguous run of this many
    /// elements, one per output element (NHWC pooling: the channels). 1 when the last
    /// dimension is windowed.
    pub inner: usize,
}

impl Windows {
    /// Plans `window` over an operand of `shape` (of the window's rank), or `None` when a
    /// number of windows does not fit (the interpreter then reports it).
    pub fn new(shape: &[i64], window: &ResolvedWindow) -> Option<Windows> {
        let rank = shape.len();
        if window.rank() != rank {
            return None;
        }
        let mut stride_in = vec![1isize; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            stride_in[d] = stride_in[d + 1] * shape[d + 1].max(0) as isize;
        }
        let mut out_shape = Vec::with_capacity(rank);
        let mut tables = Vec::with_capacity(rank);
        for (d, w) in window.dims().iter().enumerate() {
            let n = shape[d].max(0);
            let count = w.output_size(n).ok()?;
            let mut table = Vec::with_capacity((count * w.size) as usize);
            for o in 0..count {
                for k in 0..w.size {
                    table.push(match w.input_coordinate(n, o, k) {
                        Some(i) => i as isize * stride_in[d],
                        None => HOLE,
                    });
                }
            }
            out_shape.push(count as usize);
            tables.push(table);
        }
        let size: Vec<usize> = window.sizes().iter().map(|&s| s as usize).collect();
        let mut inner = 1;
        for d in (0..rank).rev() {
            let identity = size[d] == 1
                && out_shape[d] as i64 == shape[d]
                && (0..out_shape[d]).all(|o| tables[d][o] == o as isize * stride_in[d]);
            if !identity {
                break;
            }
            inner *= out_shape[d];
        }
        Some(Windows {
            size,
            out_shape,
            tables,
            inner,
        })
    }

    /// Number of windows.
    pub fn count(&self) -> usize {
        self.out_shape.iter().product()
    }

    /// Calls `visit(offset)` for each position of window `out` (its multi-index), in row-major
    /// order of the positions, with the operand offset or `None` for a hole. `pos` is scratch
    /// space of the rank's length.
    #[inline]
    pub fn for_each_position(
        &self,
        out: &[usize],
        pos: &mut [usize],
        mut visit: impl FnMut(Option<usize>),
    ) {
        let rank = self.size.len();
        if self.size.contains(&0) {
            return;
        }
        pos.iter_mut().for_each(|p| *p = 0);
        loop {
            let mut offset = 0isize;
            let mut hole = false;
            for d in 0..rank {
                let e = self.tables[d][out[d] * self.size[d] + pos[d]];
                hole |= e == HOLE;
                offset += e;
            }
            visit(if hole { None } else { Some(offset as usize) });
            let mut d = rank;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < self.size[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
}

/// Advances a row-major multi-index within `shape`; false when it wrapped around.
#[inline]
pub fn next_index(index: &mut [usize], shape: &[usize]) -> bool {
    for d in (0..shape.len()).rev() {
        index[d] += 1;
        if index[d] < shape[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// The row-major multi-index of linear position `i` in `shape`.
pub fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        if shape[d] > 0 {
            index[d] = i % shape[d];
            i /= shape[d];
        }
    }
    index
}
