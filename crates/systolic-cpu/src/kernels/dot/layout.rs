//! Normalising a `dot_general` to a batch of matrix products.
//!
//! Any batch/contracting dimension numbers describe `out[b, m, n] = Σ_k lhs[b, m, k] · rhs[b, k,
//! n]` once the operand dimensions are grouped: batch dimensions (in the order the dimension
//! numbers list them), free dimensions (in operand order) and contracting dimensions (in listed
//! order). When the row and column groups of a row-major operand can each be walked with one
//! stride (their dimensions are adjacent and in order, or of size 1) and the batch group with at
//! most two (e.g. batch dimensions `[0, 2]` of attention's `[B, S, H, D]` heads), the operand is
//! used in place as a strided matrix: transposes fold into the strides and nothing is copied.
//! Otherwise the operand is gathered once into a contiguous `[B, rows, cols]` copy at run time.

use crate::cpu_bail;
use crate::error::Result;
use systolic_ir::{row_major_strides, DotDimensionNumbers, TensorType};

/// A strided batch of matrices inside a flat slice: element `(b, r, c)` is at
/// `start(b) + r · row + c · col`, where matrix `b` starts at
/// `(b / split) · outer + (b % split) · batch` (two batch levels, so that batch dimensions
/// which are not adjacent in memory still need no copy; one level has `split = 1`,
/// `outer = batch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatView {
    /// Stride between consecutive matrices of the inner batch level.
    pub batch: usize,
    /// Stride between rows.
    pub row: usize,
    /// Stride between columns.
    pub col: usize,
    /// Matrices per step of the outer batch level (at least 1).
    pub split: usize,
    /// Stride between steps of the outer batch level.
    pub outer: usize,
}

impl MatView {
    /// A batch with one stride between matrices.
    pub fn strided(batch: usize, row: usize, col: usize) -> MatView {
        MatView {
            batch,
            row,
            col,
            split: 1,
            outer: batch,
        }
    }

    /// A dense row-major `[B, rows, cols]` batch.
    pub fn contiguous(rows: usize, cols: usize) -> MatView {
        MatView::strided(rows * cols, cols, 1)
    }

    /// Where matrix `b` starts.
    #[inline]
    pub fn start(&self, b: usize) -> usize {
        (b / self.split) * self.outer + (b % self.split) * self.batch
    }
}

/// How one operand is read as a `[B, rows, cols]` batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperandAccess {
    /// In place, with these strides.
    Strided(MatView),
    /// Gathered first: `dims` lists (size, stride) of the operand's dimensions in
    /// `[batch…, rows…, cols…]` order; the copy is dense row-major `[B, rows, cols]`.
    Gathered(Vec<(usize, usize)>),
}

/// The batched-matrix geometry of a `dot_general`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotGeometry {
    /// Number of matrices (product of the batch sizes; 1 without batch dimensions).
    pub batch: usize,
    /// Rows of the result (product of the lhs free sizes).
    pub m: usize,
    /// Columns of the result (product of the rhs free sizes).
    pub n: usize,
    /// Contraction length (product of the contracting sizes).
    pub k: usize,
    /// How the lhs is read as `[B, M, K]`.
    pub lhs: OperandAccess,
    /// How the rhs is read as `[B, K, N]`.
    pub rhs: OperandAccess,
    /// The result shape the dimension numbers imply.
    pub out_shape: Vec<i64>,
}

impl DotGeometry {
    /// Checks the dimension numbers against the operand shapes and groups the dimensions.
    pub fn new(lhs: &TensorType, rhs: &TensorType, dn: &DotDimensionNumbers) -> Result<Self> {
        let lb = checked_dims(&dn.lhs_batching_dimensions, lhs, "lhs_batching_dimensions")?;
        let rb = checked_dims(&dn.rhs_batching_dimensions, rhs, "rhs_batching_dimensions")?;
        let lc = checked_dims(
            &dn.lhs_contracting_dimensions,
            lhs,
            "lhs_contracting_dimensions",
        )?;
        let rc = checked_dims(
            &dn.rhs_contracting_dimensions,
            rhs,
            "rhs_contracting_dimensions",
        )?;
        if lb.len() != rb.len() || lc.len() != rc.len() {
            cpu_bail!(
                "{lhs} x {rhs}: lhs and rhs need as many batching ({:?} vs {:?}) and contracting ({:?} vs {:?}) dimensions",
                dn.lhs_batching_dimensions,
                dn.rhs_batching_dimensions,
                dn.lhs_contracting_dimensions,
                dn.rhs_contracting_dimensions
            );
        }
        for (what, l, r) in [("batching", &lb, &rb), ("contracting", &lc, &rc)] {
            for (&dl, &dr) in l.iter().zip(r.iter()) {
                if lhs.shape[dl] != rhs.shape[dr] {
                    cpu_bail!(
                        "{lhs} x {rhs}: {what} dimensions differ in size (lhs dimension {dl} is {}, rhs dimension {dr} is {})",
                        lhs.shape[dl],
                        rhs.shape[dr]
                    );
                }
            }
        }
        if let Some(d) = lb.iter().find(|d| lc.contains(d)) {
            cpu_bail!("{lhs} x {rhs}: lhs dimension {d} is both batching and contracting");
        }
        if let Some(d) = rb.iter().find(|d| rc.contains(d)) {
            cpu_bail!("{lhs} x {rhs}: rhs dimension {d} is both batching and contracting");
        }
        let lf = free_dims(lhs.rank(), &lb, &lc);
        let rf = free_dims(rhs.rank(), &rb, &rc);
        let size = |t: &TensorType, dims: &[usize]| -> usize {
            dims.iter().map(|&d| t.shape[d] as usize).product()
        };
        let out_shape = lb
            .iter()
            .map(|&d| lhs.shape[d])
            .chain(lf.iter().map(|&d| lhs.shape[d]))
            .chain(rf.iter().map(|&d| rhs.shape[d]))
            .collect();
        Ok(DotGeometry {
            batch: size(lhs, &lb),
            m: size(lhs, &lf),
            n: size(rhs, &rf),
            k: size(lhs, &lc),
            lhs: access(lhs, [&lb, &lf, &lc]),
            rhs: access(rhs, [&rb, &rc, &rf]),
            out_shape,
        })
    }

    /// Total multiply-adds (for naming kernels and for cost decisions).
    pub fn macs(&self) -> usize {
        self.batch * self.m * self.n * self.k
    }
}

/// Validates a list of dimension indices of `t` (in range, no repeats).
fn checked_dims(dims: &[i64], t: &TensorType, what: &str) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        if d < 0 || d as usize >= t.rank() || out.contains(&(d as usize)) {
            cpu_bail!("{what} {dims:?} do not name distinct dimensions of {t}");
        }
        out.push(d as usize);
    }
    Ok(out)
}

/// The dimensions that are neither batch nor contracting, in operand order.
fn free_dims(rank: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect()
}

/// Strided access when the row and column groups collapse to one stride each and the batch
/// group to at most two levels, else a gather plan.
fn access(t: &TensorType, groups: [&[usize]; 3]) -> OperandAccess {
    let strides = row_major_strides(&t.shape);
    let dims = |g: &[usize]| -> Vec<(usize, usize)> {
        g.iter()
            .map(|&d| (t.shape[d] as usize, strides[d]))
            .collect()
    };
    let batch = batch_levels(&dims(groups[0]));
    let (row, col) = (collapse(&dims(groups[1])), collapse(&dims(groups[2])));
    match (batch, row, col) {
        (Some((split, inner, outer)), Some(row), Some(col)) => OperandAccess::Strided(MatView {
            batch: inner,
            row,
            col,
            split,
            outer,
        }),
        _ => OperandAccess::Gathered(groups.iter().flat_map(|g| dims(g)).collect()),
    }
}

/// The batch group as `(split, inner stride, outer stride)` when it walks as at most two
/// strided levels (see [`MatView::start`]).
fn batch_levels(dims: &[(usize, usize)]) -> Option<(usize, usize, usize)> {
    if let Some(stride) = collapse(dims) {
        return Some((1, stride, stride));
    }
    // Runs of dimensions that collapse, outermost first; two runs make two levels.
    let real: Vec<(usize, usize)> = dims.iter().copied().filter(|&(s, _)| s != 1).collect();
    let cut = (1..real.len()).find(|&i| real[i - 1].1 != real[i].1 * real[i].0)?;
    let (outer, inner) = real.split_at(cut);
    let outer_stride = collapse(outer)?;
    let inner_stride = collapse(inner)?;
    let split = inner.iter().map(|&(s, _)| s).product();
    Some((split, inner_stride, outer_stride))
}

/// The single stride that walks `dims` (outermost first) in row-major order, if there is one.
/// Size-1 dimensions are ignored; a group with no dimension larger than 1 has stride 0.
fn collapse(dims: &[(usize, usize)]) -> Option<usize> {
    let real: Vec<(usize, usize)> = dims.iter().copied().filter(|&(s, _)| s != 1).collect();
    if real.iter().any(|&(s, _)| s == 0) {
        return Some(0);
    }
    for w in real.windows(2) {
        if w[0].1 != w[1].1 * w[1].0 {
            return None;
        }
    }
    Some(real.last().map_or(0, |&(_, st)| st))
}

/// Copies the elements `dims` walks (row-major over the listed (size, stride) pairs) into a
/// dense vector.
pub fn gather<T: Copy>(src: &[T], dims: &[(usize, usize)]) -> Vec<T> {
    let total: usize = dims.iter().map(|&(s, _)| s).product();
    let mut out = Vec::with_capacity(total);
    if total == 0 {
        return out;
    }
    // The innermost dimension is copied in a tight loop; the outer ones by an odometer.
    let (&(inner_size, inner_stride), outer) = match dims.split_last() {
        Some(x) => x,
        None => {
            out.push(src[0]);
            return out;
        }
    };
    let mut index = vec![0usize; outer.len()];
    let mut base = 0usize;
    loop {
        if inner_stride == 1 {
            out.extend_from_slice(&src[base..base + inner_size]);
        } else {
            out.extend((0..inner_size).map(|i| src[base + i * inner_stride]));
        }
        let mut d = outer.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            base += outer[d].1;
            if index[d] < outer[d].0 {
                break;
            }
            base -= outer[d].1 * outer[d].0;
            index[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::DType;

    fn dn(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> DotDimensionNumbers {
        DotDimensionNumbers {
            lhs_batching_dimensions: lb.to_vec(),
            rhs_batching_dimensions: rb.to_vec(),
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
        }
    }

    #[test]
    fn plain_matmul_is_strided() {
        let l = TensorType::new(vec![3, 4], DType::F32);
        let r = TensorType::new(vec![4, 5], DType::F32);
        let g = DotGeometry::new(&l, &r, &dn(&[], &[], &[1], &[0])).unwrap();
        assert_eq!((g.batch, g.m, g.n, g.k), (1, 3, 5, 4));
        assert_eq!(g.lhs, OperandAccess::Strided(MatView::strided(0, 4, 1)));
        assert_eq!(g.rhs, OperandAccess::Strided(MatView::strided(0, 5, 1)));
        assert_eq!(g.out_shape, vec![3, 5]);
    }

    #[test]
    fn transposed_operands_fold_into_strides() {
        // lhs [K, M] contracting dim 0, rhs [N, K] contracting dim 1, batch last on both.
        let l = TensorType::new(vec![4, 3, 2], DType::F32);
        let r = TensorType::new(vec![5, 4, 2], DType::F32);
        let g = DotGeometry::new(&l, &r, &dn(&[2], &[2], &[0], &[1])).unwrap();
        assert_eq!((g.batch, g.m, g.n, g.k), (2, 3, 5, 4));
        assert_eq!(g.lhs, OperandAccess::Strided(MatView::strided(1, 2, 6)));
        assert_eq!(g.rhs, OperandAccess::Strided(MatView::strided(1, 2, 8)));
    }

    #[test]
    fn split_free_dims_are_gathered() {
        // lhs [M1, K, M2]: the free dims are not adjacent.
        let l = TensorType::new(vec![2, 4, 3], DType::F32);
        let r = TensorType::new(vec![4, 5], DType::F32);
        let g = DotGeometry::new(&l, &r, &dn(&[], &[], &[1], &[0])).unwrap();
        assert_eq!(
            g.lhs,
            OperandAccess::Gathered(vec![(2, 12), (3, 1), (4, 3)])
        );
        let src: Vec<i32> = (0..24).collect();
        let dense = gather(&src, &[(2, 12), (3, 1), (4, 3)]);
        assert_eq!(&dense[..5], &[0, 3, 6, 9, 1]);
        assert_eq!(dense[12], 12);
    }

    #[test]
    fn split_batch_dims_walk_in_two_levels() {
        // Attention heads: [B, S, H, D] with batch dims (B, H), contracting D.
        let t = TensorType::new(vec![2, 5, 3, 4], DType::F32);
        let g = DotGeometry::new(&t, &t, &dn(&[0, 2], &[0, 2], &[3], &[3])).unwrap();
        assert_eq!((g.batch, g.m, g.n, g.k), (6, 5, 5, 4));
        let view = MatView {
            batch: 4,
            row: 12,
            col: 1,
            split: 3,
            outer: 60,
        };
        assert_eq!(g.lhs, OperandAccess::Strided(view));
        // Matrix b = (b0, h) starts at b0 · 60 + h · 4.
        let starts: Vec<usize> = (0..6).map(|b| view.start(b)).collect();
        assert_eq!(starts, vec![0, 4, 8, 60, 64, 68]);
        // Three separated batch runs are gathered.
        let t = TensorType::new(vec![2, 3, 2, 3, 2, 4], DType::F32);
        let g = DotGeometry::new(&t, &t, &dn(&[0, 2, 4], &[0, 2, 4], &[5], &[5])).unwrap();
        assert!(matches!(g.lhs, OperandAccess::Gathered(_)));
    }

    #[test]
    fn mismatched_sizes_are_errors() {
        let l = TensorType::new(vec![3, 4], DType::F32);
        let r = TensorType::new(vec![5, 6], DType::F32);
        let e = DotGeometry::new(&l, &r, &dn(&[], &[], &[1], &[0])).unwrap_err();
        assert!(e.message.contains("contracting dimensions differ"), "{e}");
        let e = DotGeometry::new(&l, &r, &dn(&[], &[], &[2], &[0])).unwrap_err();
        assert!(e.message.contains("lhs_contracting_dimensions"), "{e}");
    }
}
