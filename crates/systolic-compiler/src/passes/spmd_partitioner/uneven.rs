//! Uneven pieces: a dimension of size `n` split into `t` tiles that do not divide it is held
//! as XLA holds it — every device's piece padded to `ceil(n / t)`, the last tiles shorter (or
//! empty) and filled out with padding of no particular value. `ShardLayout` describes
//! exactly these buffers (`shard_shape` is the padded piece), so the entry's parameters and
//! results cross the boundary padded; nothing is resharded there.
//!
//! Padding is harmless where each element of a result depends on the same element of the
//! operands (it only reaches the results' padding) and is masked where it is not:
//!
//! - a reduction over a split uneven dimension first replaces the padding by the reduce's
//!   init value (the reducer's identity, or an idempotent reducer's value), a dot
//!   contracting over one by zeros in both operands ([`Partitioner::mask_reduced_padding`]);
//!   other ops that reduce over a split uneven dimension are refused;
//! - conversions of an uneven dimension gather it whole (tiles of `ceil(n / t)` lie end to
//!   end, so the gathered pieces are the array followed by padding) and cut it to `n`, then
//!   pad it to `t · ceil(n / t)` before slicing a device's tile (a dynamic slice would clamp
//!   the last tiles' starts); nested splits (tiles of tiles) do not line up when uneven,
//!   so nothing cheaper is attempted;
//! - reshapes of uneven pieces run whole (a merged dimension's padding would interleave);
//!   reduce-scatters complete only even dimensions.

use super::super::lower_manual_computations::grid::MeshGrid;
use super::super::sharding_propagation::FactorKind;
use super::{located, unhandled, Held, OpPlan, Partitioner};
use systolic_ir::{
    AxisRef, BinaryOp, ComparisonDirection, DType, Op, OpKind, Tensor, TensorType, Type, ValueId,
};

/// The padded piece of a value of `shape` held as `held`: each dimension `ceil(n / tiles)`.
pub(super) fn padded_shape(
    grid: &MeshGrid,
    shape: &[i64],
    held: &Held,
    what: &str,
) -> Result<Vec<i64>, String> {
    shape
        .iter()
        .zip(held)
        .map(|(&n, axes)| {
            let t = grid.tiles(axes).map_err(|e| format!("{what}: {e}"))?;
            Ok((n + t - 1) / t)
        })
        .collect()
}

impl<'a> Partitioner<'a> {
    /// Whether a dimension of size `n` split over `axes` has uneven (padded) pieces.
    pub(super) fn uneven(&self, n: i64, axes: &[AxisRef]) -> Result<bool, String> {
        Ok(n % self.grid.tiles(axes)? != 0)
    }

    /// Whether any dimension of the values `op` reads or computes is uneven as the plan
    /// holds them there.
    pub(super) fn touches_uneven(&self, op: &'a Op, plan: &OpPlan) -> Result<bool, String> {
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            let held = self.needed(plan, k, x, &global)?;
            for (&n, axes) in global.shape.iter().zip(&held) {
                if self.uneven(n, axes)? {
                    return Ok(true);
                }
            }
        }
        for (j, &r) in op.results.iter().enumerate() {
            let global = self.global_type(r, &located(op, &format!("result {j}")))?;
            let held = self.computed(plan, j, r, &global)?;
            for (&n, axes) in global.shape.iter().zip(&held) {
                if self.uneven(n, axes)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// `op`'s local operands with the padding of every split uneven dimension it reduces
    /// over replaced by what leaves the reduction unchanged; see the module docs.
    pub(super) fn mask_reduced_padding(
        &mut self,
        op: &'a Op,
        plan: &OpPlan,
        needs: &[Held],
        mut operands: Vec<ValueId>,
    ) -> Result<Vec<ValueId>, String> {
        let Some(rule) = &plan.rule else {
            return Ok(operands);
        };
        for k in 0..operands.len() {
            let global = self.global_type(op.operands[k], &located(op, "an operand"))?;
            let Some(dims) = rule.operands.get(k) else {
                continue;
            };
            let mut padded = vec![];
            for (d, factors) in dims.iter().enumerate() {
                let reduced = factors.iter().any(|&f| {
                    rule.factors[f].kind == FactorKind::Reduction
                        && plan.factor_axes.get(f).is_some_and(|a| !a.is_empty())
                });
                if reduced && self.uneven(global.shape[d], &needs[k][d])? {
                    padded.push(d);
                }
            }
            if padded.is_empty() {
                continue;
            }
            let fill = match &op.kind {
                OpKind::DotGeneral { .. } | OpKind::Dot { .. } => {
                    let zero = Tensor::zeros(TensorType::scalar(global.dtype));
                    self.constant(Ok(zero))?
                }
                OpKind::Reduce { .. } => {
                    let inputs = op.operands.len() / 2;
                    operands[inputs + k % inputs]
                }
                _ => {
                    return Err(unhandled(
                        op,
                        " reducing over a sharded dimension its tiles do not divide",
                    ))
                }
            };
            operands[k] = self.fill_padding(operands[k], &needs[k], &global, &padded, fill)?;
        }
        Ok(operands)
    }

    /// `x` (held as `held`, of global type `global`) with the padding along `dims` replaced
    /// by the scalar `fill`.
    pub(super) fn fill_padding(
        &mut self,
        x: ValueId,
        held: &Held,
        global: &TensorType,
        dims: &[usize],
        fill: ValueId,
    ) -> Result<ValueId, String> {
        let local = self.local_type(x)?;
        let counts = Type::Tensor(TensorType::new(local.shape.clone(), DType::I32));
        let preds = Type::Tensor(TensorType::new(local.shape.clone(), DType::Bool));
        let mut valid: Option<ValueId> = None;
        for &d in dims {
            let iota = self.emit(
                OpKind::Iota {
                    dimension: d as i64,
                },
                vec![],
                counts.clone(),
                vec![],
            );
            let offset = self.offset(&held[d], local.shape[d])?;
            let limit =
                self.constant(Tensor::from_i64(vec![], DType::I32, vec![global.shape[d]]))?;
            let scalar = |s: &mut Self, v: ValueId| {
                s.emit(
                    OpKind::BroadcastInDim {
                        broadcast_dimensions: vec![],
                    },
                    vec![v],
                    counts.clone(),
                    vec![],
                )
            };
            let offsets = scalar(self, offset);
            let limits = scalar(self, limit);
            let index = self.emit(
                OpKind::Binary(BinaryOp::Add),
                vec![iota, offsets],
                counts.clone(),
                vec![],
            );
            let inside = self.emit(
                OpKind::Compare {
                    direction: ComparisonDirection::Lt,
                    compare_type: None,
                },
                vec![index, limits],
                preds.clone(),
                vec![],
            );
            valid = Some(match valid {
                None => inside,
                Some(v) => self.emit(
                    OpKind::Binary(BinaryOp::And),
                    vec![v, inside],
                    preds.clone(),
                    vec![],
                ),
            });
        }
        let Some(valid) = valid else { return Ok(x) };
        let ty = Type::Tensor(local);
        let fills = self.emit(
            OpKind::BroadcastInDim {
                broadcast_dimensions: vec![],
            },
            vec![fill],
            ty.clone(),
            vec![],
        );
        Ok(self.emit(OpKind::Select, vec![valid, x, fills], ty, vec![]))
    }

    /// Dimension `d` of `x` cut to its first `n` elements (a gathered uneven dimension's
    /// trailing padding dropped).
    pub(super) fn trim(&mut self, x: ValueId, d: usize, n: i64) -> Result<ValueId, String> {
        let t = self.local_type(x)?;
        if t.shape[d] <= n {
            return Ok(x);
        }
        let mut limit = t.shape.clone();
        limit[d] = n;
        let kind = OpKind::Slice {
            start_indices: vec![0; t.rank()],
            limit_indices: limit.clone(),
            strides: vec![1; t.rank()],
        };
        Ok(self.emit(
            kind,
            vec![x],
            Type::Tensor(TensorType::new(limit, t.dtype)),
            vec![],
        ))
    }

    /// `x` padded at the end of each dimension to `sizes` (with zeros), so that a dynamic
    /// slice of every tile's extent stays in bounds.
    pub(super) fn pad_to(&mut self, x: ValueId, sizes: &[i64]) -> Result<ValueId, String> {
        let t = self.local_type(x)?;
        let high: Vec<i64> = t
            .shape
            .iter()
            .zip(sizes)
            .map(|(&have, &want)| (want - have).max(0))
            .collect();
        if high.iter().all(|&h| h == 0) {
            return Ok(x);
        }
        let zero = self.constant(Ok(Tensor::zeros(TensorType::scalar(t.dtype))))?;
        let shape: Vec<i64> = t.shape.iter().zip(&high).map(|(a, b)| a + b).collect();
        let kind = OpKind::Pad {
            edge_padding_low: vec![0; t.rank()],
            edge_padding_high: high,
            interior_padding: vec![0; t.rank()],
        };
        Ok(self.emit(
            kind,
            vec![x, zero],
            Type::Tensor(TensorType::new(shape, t.dtype)),
            vec![],
        ))
    }
}
