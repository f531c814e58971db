//! Family: convolutions — `stablehlo.convolution` as im2col and the matrix-product kernels.
//!
//! [`ConvPlan`] checks the geometry ([`geometry`]), then runs in chunks of output images: the
//! patches of a chunk (`[G, rows, W·Ci]`, [`im2col`]) times the weights (`[G, W·Ci, Og]`) on a
//! [`DotPlan`] (so every dtype path of the products — gemm f32/f64, AVX512-BF16, VNNI — is
//! reused), scattered into the result's layout. Chunking bounds the patch buffer's memory.
//! Any dimension numbers, strides, padding (negative crops), lhs/rhs dilation, window reversal,
//! feature_group_count and batch_group_count are supported.

pub mod geometry;
pub mod im2col;

use super::dot::DotPlan;
use crate::buffer::{CpuBuffer, Storage};
use crate::cpu_bail;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::lower_ctx::LowerCtx;
use geometry::ConvGeometry;
use std::ops::Range;
use systolic_ir::{ConvAttrs, DotDimensionNumbers, Op, OpKind, TensorType};

/// Most patch elements built at once (bounds the im2col buffer to ~16 MiB of f32).
const MAX_PATCH_ELEMENTS: usize = 1 << 22;

/// Applies `$e` (with `$v` bound to the typed vector) and wraps the result in the same
/// storage variant.
macro_rules! map_storage {
    ($s:expr, $v:ident => $e:expr) => {
        match $s {
            Storage::Bool($v) => Storage::Bool($e),
            Storage::I8($v) => Storage::I8($e),
            Storage::I16($v) => Storage::I16($e),
            Storage::I32($v) => Storage::I32($e),
            Storage::I64($v) => Storage::I64($e),
            Storage::U8($v) => Storage::U8($e),
            Storage::U16($v) => Storage::U16($e),
            Storage::U32($v) => Storage::U32($e),
            Storage::U64($v) => Storage::U64($e),
            Storage::F16($v) => Storage::F16($e),
            Storage::BF16($v) => Storage::BF16($e),
            Storage::F32($v) => Storage::F32($e),
            Storage::F64($v) => Storage::F64($e),
            Storage::C64($v) => Storage::C64($e),
            Storage::C128($v) => Storage::C128($e),
        }
    };
}

/// Runs `$e` with `$p` and `$o` bound to two storages of the same variant; `$else` otherwise.
macro_rules! zip_storage {
    ($a:expr, $b:expr, $p:ident, $o:ident => $e:expr, $else:expr) => {
        match ($a, $b) {
            (Storage::Bool($p), Storage::Bool($o)) => $e,
            (Storage::I8($p), Storage::I8($o)) => $e,
            (Storage::I16($p), Storage::I16($o)) => $e,
            (Storage::I32($p), Storage::I32($o)) => $e,
            (Storage::I64($p), Storage::I64($o)) => $e,
            (Storage::U8($p), Storage::U8($o)) => $e,
            (Storage::U16($p), Storage::U16($o)) => $e,
            (Storage::U32($p), Storage::U32($o)) => $e,
            (Storage::U64($p), Storage::U64($o)) => $e,
            (Storage::F16($p), Storage::F16($o)) => $e,
            (Storage::BF16($p), Storage::BF16($o)) => $e,
            (Storage::F32($p), Storage::F32($o)) => $e,
            (Storage::F64($p), Storage::F64($o)) => $e,
            _ => $else,
        }
    };
}

/// The product of one chunk of images.
#[derive(Clone, Debug)]
struct ChunkPlan {
    images: usize,
    /// Elements of the chunk's patch matrix (the product's left operand).
    dot_lhs_elements: usize,
    product: TensorType,
    dot: DotPlan,
}

/// A prepared convolution: call [`ConvPlan::run`] with buffers of the planned types.
#[derive(Clone, Debug)]
pub struct ConvPlan {
    lhs_ty: TensorType,
    rhs_ty: TensorType,
    out_ty: TensorType,
    geometry: ConvGeometry,
    full: Option<ChunkPlan>,
    /// The input, read as `[1, N·spatial, C]`, already is the patch matrix (a 1×1 window with
    /// unit strides, no padding or dilation, one group, batch-first/feature-last layout).
    identity_patches: bool,
    /// The result, read as `[1, N·spatial, O]`, is the product's layout (one group,
    /// batch-first/feature-last layout): products are written in place, no scatter.
    direct_output: bool,
    /// The kernel is the weight matrix as it is ([`ConvGeometry::kernel_is_weights`]).
    kernel_is_weights: bool,
    tail: Option<ChunkPlan>,
}

impl ConvPlan {
    /// Plans `out = convolution(lhs, rhs)`; errors name the shapes and the attribute at fault.
    pub fn new(
        lhs: &TensorType,
        rhs: &TensorType,
        attrs: &ConvAttrs,
        out: &TensorType,
    ) -> Result<ConvPlan> {
        if lhs.rank() != rhs.rank() || lhs.rank() != out.rank() || lhs.rank() < 2 {
            cpu_bail!(
                "convolution of {lhs} and {rhs} -> {out}: operands and result need one rank of at least 2"
            );
        }
        let g = ConvGeometry::new(lhs, rhs, attrs)?;
        if g.out_shape != out.shape {
            cpu_bail!(
                "convolution of {lhs} and {rhs} gives shape {:?}, but the result type is {out}",
                g.out_shape
            );
        }
        let cols = g.window_positions() * g.in_features;
        let per_image = g.groups * g.out_positions() * cols;
        let identity_patches = g.groups == 1
            && g.resolved.dims().iter().all(|w| {
                w.size == 1 && w.stride == 1 && w.base_dilation == 1 && w.padding == (0, 0)
            })
            && channels_last(&g.input, lhs.rank());
        let direct_output = g.groups == 1 && channels_last(&g.output, out.rank());
        let chunk = if identity_patches {
            g.out_batch.max(1)
        } else {
            (MAX_PATCH_ELEMENTS / per_image.max(1)).clamp(1, g.out_batch.max(1))
        };
        let weights_ty = TensorType::new(
            vec![
                g.groups as i64,
                cols as i64,
                g.out_features_per_group as i64,
            ],
            rhs.dtype,
        );
        let chunk_plan = |images: usize| -> Result<Option<ChunkPlan>> {
            if images == 0 {
                return Ok(None);
            }
            let rows = (images * g.out_positions()) as i64;
            let patches = TensorType::new(vec![g.groups as i64, rows, cols as i64], lhs.dtype);
            let product = TensorType::new(
                vec![g.groups as i64, rows, g.out_features_per_group as i64],
                out.dtype,
            );
            let dims = DotDimensionNumbers {
                lhs_batching_dimensions: vec![0],
                rhs_batching_dimensions: vec![0],
                lhs_contracting_dimensions: vec![2],
                rhs_contracting_dimensions: vec![1],
            };
            let dot = DotPlan::new(&patches, &weights_ty, &dims, &product)?;
            Ok(Some(ChunkPlan {
                images,
                dot_lhs_elements: patches.num_elements(),
                product,
                dot,
            }))
        };
        let full = chunk_plan(chunk.min(g.out_batch))?;
        let tail = if g.out_batch > chunk {
            chunk_plan(g.out_batch % chunk)?
        } else {
            None
        };
        Ok(ConvPlan {
            lhs_ty: lhs.clone(),
            rhs_ty: rhs.clone(),
            out_ty: out.clone(),
            kernel_is_weights: g.kernel_is_weights(),
            geometry: g,
            full,
            tail,
            identity_patches,
            direct_output,
        })
    }

    /// The result type.
    pub fn out_type(&self) -> &TensorType {
        &self.out_ty
    }

    /// A short description for logs.
    pub fn describe(&self) -> String {
        format!(
            "convolution {} x {} -> {} ({} group(s), {})",
            self.lhs_ty,
            self.rhs_ty,
            self.out_ty,
            self.geometry.groups,
            self.full
                .as_ref()
                .map_or("empty".to_string(), |c| c.dot.describe())
        )
    }

    /// Computes the convolution into `out` (every element is written).
    pub fn run(&self, lhs: &CpuBuffer, rhs: &CpuBuffer, out: &mut CpuBuffer) -> Result<()> {
        for (what, got, want) in [
            ("lhs", lhs.ty(), &self.lhs_ty),
            ("rhs", rhs.ty(), &self.rhs_ty),
            ("result", out.ty(), &self.out_ty),
        ] {
            if got != want {
                cpu_bail!(
                    "convolution planned for {} x {} -> {} got a {what} of type {got}",
                    self.lhs_ty,
                    self.rhs_ty,
                    self.out_ty
                );
            }
        }
        let Some(full) = &self.full else {
            return Ok(()); // no output image: nothing to write
        };
        let g = &self.geometry;
        let rearranged;
        let weights = if self.kernel_is_weights {
            rhs.storage()
        } else {
            rearranged = map_storage!(rhs.storage(), v => im2col::weights(g, v));
            &rearranged
        };
        let mut first = 0;
        while first < g.out_batch {
            let chunk = if g.out_batch - first >= full.images {
                full
            } else {
                self.tail
                    .as_ref()
                    .ok_or_else(|| CpuError::new("convolution: missing tail plan"))?
            };
            let images = first..first + chunk.images;
            self.run_chunk(chunk, lhs, weights, images, out)?;
            first += chunk.images;
        }
        Ok(())
    }

    /// One chunk: patches, product, scatter.
    fn run_chunk(
        &self,
        chunk: &ChunkPlan,
        lhs: &CpuBuffer,
        weights: &Storage,
        images: Range<usize>,
        out: &mut CpuBuffer,
    ) -> Result<()> {
        let g = &self.geometry;
        let whole = images.len() == g.out_batch;
        // Patches and product in pooled buffers (every element is written): fresh zeroed
        // ones cost a page fault per 4 KiB on every run.
        let mut patches = None;
        let lhs_storage = if self.identity_patches {
            lhs.storage()
        } else {
            let n = chunk.dot_lhs_elements;
            let mut storage = crate::pool::take(lhs.dtype(), n);
            zip_storage!(lhs.storage(), &mut storage, v, o => {
                im2col::patches(g, v, images.clone(), o);
                Ok(())
            }, Err(CpuError::new("convolution: patch and operand storage differ")))?;
            &*patches.insert(storage)
        };
        let result = if self.direct_output && whole {
            chunk
                .dot
                .run_storage(lhs_storage, weights, out.storage_mut())
        } else {
            let mut product = CpuBuffer::new(
                chunk.product.clone(),
                crate::pool::take(chunk.product.dtype, chunk.product.num_elements()),
            )
            .map_err(|e| CpuError::new(format!("convolution product: {e}")))?;
            chunk
                .dot
                .run_storage(lhs_storage, weights, product.storage_mut())?;
            let scattered = zip_storage!(product.storage(), out.storage_mut(), p, o => {
                im2col::scatter(g, p, images, o);
                Ok(())
            }, Err(CpuError::new("convolution: product and result storage differ")));
            crate::pool::recycle(product.take_storage());
            scattered
        };
        if let Some(p) = patches {
            crate::pool::recycle(p);
        }
        result
    }
}

/// True when an operand's dimensions are batch, then the spatial dimensions in order, then
/// features: its row-major elements are a `[N · spatial, features]` matrix.
fn channels_last(roles: &geometry::Roles, rank: usize) -> bool {
    roles.batch == 0
        && roles.feature == rank - 1
        && roles.spatial.iter().enumerate().all(|(i, &d)| d == i + 1)
}

/// A `convolution` kernel: runs its plan into a fresh result buffer.
#[derive(Debug)]
pub struct ConvKernel {
    plan: ConvPlan,
}

impl ConvKernel {
    /// A kernel running `plan`.
    pub fn new(plan: ConvPlan) -> ConvKernel {
        ConvKernel { plan }
    }
}

impl Kernel for ConvKernel {
    fn name(&self) -> String {
        self.plan.describe()
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [lhs, rhs] = args.as_slice() else {
            cpu_bail!("convolution takes 2 operands, got {}", args.len());
        };
        // `run` writes every element: a pooled vector, not a fresh zeroed one.
        let ty = self.plan.out_type().clone();
        let storage = crate::pool::take(ty.dtype, ty.num_elements());
        let mut out = CpuBuffer::new(ty, storage).map_err(|e| CpuError::new(e.to_string()))?;
        self.plan.run(lhs.buffer(), rhs.buffer(), &mut out)?;
        Ok(vec![out])
    }
}

/// Lowers `convolution` to a [`ConvKernel`]; other ops are not this family's.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let OpKind::Convolution(attrs) = &op.kind else {
        return Ok(None);
    };
    let operands = ctx.operand_types(op)?;
    let results = ctx.result_types(op)?;
    let ([lhs, rhs], [out]) = (operands.as_slice(), results.as_slice()) else {
        return Err(CpuError::new(format!(
            "takes 2 operands and 1 result, got {} and {}",
            operands.len(),
            results.len()
        ))
        .at_op(op));
    };
    let plan = ConvPlan::new(lhs, rhs, attrs, out).map_err(|e| e.at_op(op))?;
    Ok(Some(Box::new(ConvKernel::new(plan))))
}
