//! The checked geometry of a convolution: which operand dimension plays which role, the window
//! attributes with their defaults, group counts and the result shape (as the StableHLO spec
//! defines them).

use crate::cpu_bail;
use crate::error::Result;
use systolic_ir::{row_major_strides, ConvAttrs, ResolvedWindow, TensorType};

/// Roles of one operand's dimensions. For the kernel, `batch` is the input-feature dimension
/// and `feature` the output-feature dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roles {
    /// Batch (kernel: input features).
    pub batch: usize,
    /// Features (kernel: output features).
    pub feature: usize,
    /// Spatial dimensions in spatial order.
    pub spatial: Vec<usize>,
}

/// The order of a patch matrix's columns (and of the weight matrix's rows): the contraction
/// index `(window position, input feature)` flattened one way or the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchColumns {
    /// Column `w · Ci + c`: each window position's features together. Fits an input whose
    /// features are its innermost dimension (NHWC activations: a patch cell is one contiguous
    /// run) and an HWIO kernel (used in place).
    WindowMajor,
    /// Column `c · W + w`: each feature's window positions together. Fits an input whose
    /// feature dimension lies outside its spatial ones — the activations of a weight gradient,
    /// read with the batch as features (`[N, H, W, C]` with `N` contracted), where a feature's
    /// window sweep reads neighbouring elements and the kernel (the output gradient,
    /// `[N, H, W, O]`) is a `[N·H·W, O]` matrix in place.
    FeatureMajor,
}

/// Everything a convolution kernel needs, in element counts and strides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    /// Input roles.
    pub input: Roles,
    /// Kernel roles.
    pub kernel: Roles,
    /// Output roles.
    pub output: Roles,
    /// Input sizes per spatial dimension.
    pub in_spatial: Vec<usize>,
    /// Kernel window sizes per spatial dimension.
    pub window: Vec<usize>,
    /// Output sizes per spatial dimension.
    pub out_spatial: Vec<usize>,
    /// The window per spatial dimension: strides, (low, high) padding (negative crops), lhs
    /// (base) and rhs (window) dilations, and the geometry that follows from them.
    pub resolved: ResolvedWindow,
    /// Window reversal per spatial dimension.
    pub reversal: Vec<bool>,
    /// Number of independent groups (feature_group_count · batch_group_count; one is 1).
    pub groups: usize,
    /// True when the groups split the input batch (batch_group_count > 1).
    pub batch_grouped: bool,
    /// Output batch size (input batch / batch_group_count).
    pub out_batch: usize,
    /// Kernel input features (= input features per group).
    pub in_features: usize,
    /// Output features per group.
    pub out_features_per_group: usize,
    /// Row-major strides of the input.
    pub in_strides: Vec<usize>,
    /// Row-major strides of the kernel.
    pub kernel_strides: Vec<usize>,
    /// Row-major strides of the output.
    pub out_strides: Vec<usize>,
    /// The result shape.
    pub out_shape: Vec<i64>,
    /// The order of the contraction index in patches and weights.
    pub columns: PatchColumns,
}

impl ConvGeometry {
    /// Checks the attributes against the operand types (the result type is checked by the
    /// caller against [`ConvGeometry::out_shape`]).
    pub fn new(lhs: &TensorType, rhs: &TensorType, attrs: &ConvAttrs) -> Result<ConvGeometry> {
        let dn = &attrs.dimension_numbers;
        let input = roles(
            dn.input_batch_dimension,
            dn.input_feature_dimension,
            &dn.input_spatial_dimensions,
            lhs.rank(),
            "input",
        )?;
        let kernel = roles(
            dn.kernel_input_feature_dimension,
            dn.kernel_output_feature_dimension,
            &dn.kernel_spatial_dimensions,
            rhs.rank(),
            "kernel",
        )?;
        let output = roles(
            dn.output_batch_dimension,
            dn.output_feature_dimension,
            &dn.output_spatial_dimensions,
            lhs.rank(),
            "output",
        )?;
        let nsp = input.spatial.len();
        if kernel.spatial.len() != nsp {
            cpu_bail!(
                "convolution of {lhs} and {rhs}: input has {nsp} spatial dimensions, kernel {}",
                kernel.spatial.len()
            );
        }
        let kernel_spatial: Vec<i64> = kernel.spatial.iter().map(|&d| rhs.shape[d]).collect();
        let resolved = match attrs.resolve_window(&kernel_spatial) {
            Ok(w) => w,
            Err(e) => cpu_bail!("convolution of {lhs} and {rhs}: {e}"),
        };
        let reversal = match &attrs.window_reversal {
            None => vec![false; nsp],
            Some(r) if r.len() == nsp => r.clone(),
            Some(r) => cpu_bail!(
                "convolution of {lhs} and {rhs}: window_reversal {r:?} needs {nsp} values"
            ),
        };
        let (fg, bg) = (attrs.feature_group_count, attrs.batch_group_count);
        if fg < 1 || bg < 1 || (fg > 1 && bg > 1) {
            cpu_bail!(
                "convolution of {lhs} and {rhs}: feature_group_count {fg} and batch_group_count {bg} must be at least 1 and not both above 1"
            );
        }
        let (ls, ks) = (&lhs.shape, &rhs.shape);
        let (n, c) = (ls[input.batch], ls[input.feature]);
        let (ci, o) = (ks[kernel.batch], ks[kernel.feature]);
        if n % bg != 0 {
            cpu_bail!(
                "convolution: input batch {n} of {lhs} is not divisible by batch_group_count {bg}"
            );
        }
        if ci * fg != c {
            cpu_bail!(
                "convolution: input features {c} of {lhs} must be kernel input features {ci} of {rhs} times feature_group_count {fg}"
            );
        }
        if o % (fg * bg) != 0 {
            cpu_bail!(
                "convolution: kernel output features {o} of {rhs} must be divisible by the group count {}",
                fg * bg
            );
        }
        let in_spatial: Vec<usize> = input.spatial.iter().map(|&d| ls[d] as usize).collect();
        let window: Vec<usize> = kernel.spatial.iter().map(|&d| ks[d] as usize).collect();
        let in_sizes: Vec<i64> = input.spatial.iter().map(|&d| ls[d]).collect();
        let out_spatial: Vec<usize> = match resolved.output_shape(&in_sizes) {
            Ok(sizes) => sizes.iter().map(|&s| s as usize).collect(),
            Err(e) => cpu_bail!("convolution of {lhs} and {rhs}: {e}"),
        };
        let mut out_shape = vec![0i64; lhs.rank()];
        out_shape[output.batch] = n / bg;
        out_shape[output.feature] = o;
        for (d, &s) in output.spatial.iter().zip(&out_spatial) {
            out_shape[*d] = s as i64;
        }
        let groups = (fg * bg) as usize;
        let in_strides = row_major_strides(ls);
        let feature_stride = in_strides[input.feature];
        let columns = if input
            .spatial
            .iter()
            .all(|&d| in_strides[d] < feature_stride)
        {
            PatchColumns::FeatureMajor
        } else {
            PatchColumns::WindowMajor
        };
        Ok(ConvGeometry {
            columns,
            in_strides,
            kernel_strides: row_major_strides(ks),
            out_strides: row_major_strides(&out_shape),
            input,
            kernel,
            output,
            in_spatial,
            window,
            out_spatial,
            resolved,
            reversal,
            groups,
            batch_grouped: bg > 1,
            out_batch: (n / bg) as usize,
            in_features: ci as usize,
            out_features_per_group: o as usize / groups,
            out_shape,
        })
    }

    /// Output positions per image (product of the output spatial sizes).
    pub fn out_positions(&self) -> usize {
        self.out_spatial.iter().product()
    }

    /// Kernel window positions (product of the window sizes).
    pub fn window_positions(&self) -> usize {
        self.window.iter().product()
    }

    /// The patch column (and weight row, within a group) of window position `w` and input
    /// feature `c`.
    pub fn column(&self, w: usize, c: usize) -> usize {
        match self.columns {
            PatchColumns::WindowMajor => w * self.in_features + c,
            PatchColumns::FeatureMajor => c * self.window_positions() + w,
        }
    }

    /// True when the kernel's row-major elements already are the weight matrix
    /// `[W · Ci, O]` in [`ConvGeometry::columns`] order (one group, no window reversal), so
    /// the product reads the kernel in place: an HWIO kernel in window-major order, the
    /// `[N, H, W, O]` output gradient of a weight gradient in feature-major order.
    pub fn kernel_is_weights(&self) -> bool {
        if self.groups != 1 || self.reversal.iter().any(|&r| r) {
            return false;
        }
        // The kernel's dimensions (and sizes) in the weight matrix's order; row-major over
        // them gives the stride each needs (a size-1 dimension needs none).
        let k = &self.kernel;
        let spatial = k.spatial.iter().copied().zip(self.window.iter().copied());
        let (input, output) = (
            (k.batch, self.in_features),
            (k.feature, self.out_features_per_group),
        );
        let order: Vec<(usize, usize)> = match self.columns {
            PatchColumns::WindowMajor => spatial.chain([input, output]).collect(),
            PatchColumns::FeatureMajor => {
                [input].into_iter().chain(spatial).chain([output]).collect()
            }
        };
        let sizes: Vec<i64> = order.iter().map(|&(_, n)| n as i64).collect();
        order
            .iter()
            .zip(row_major_strides(&sizes))
            .all(|(&(d, n), stride)| n <= 1 || self.kernel_strides[d] == stride)
    }
}

/// Checks that (batch, feature, spatial…) name each of `rank` dimensions once.
fn roles(batch: i64, feature: i64, spatial: &[i64], rank: usize, what: &str) -> Result<Roles> {
    let all: Vec<i64> = [batch, feature]
        .into_iter()
        .chain(spatial.iter().copied())
        .collect();
    let mut seen = vec![false; rank];
    let ok = all.len() == rank
        && all.iter().all(|&d| {
            let fresh = d >= 0 && (d as usize) < rank && !seen[d as usize];
            if fresh {
                seen[d as usize] = true;
            }
            fresh
        });
    if !ok {
        cpu_bail!(
            "convolution: the {what} dimension numbers {all:?} must name each of the {rank} dimensions once"
        );
    }
    Ok(Roles {
        batch: batch as usize,
        feature: feature as usize,
        spatial: spatial.iter().map(|&d| d as usize).collect(),
    })
}
