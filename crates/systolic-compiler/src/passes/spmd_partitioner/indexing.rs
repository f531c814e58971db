//! `gather` and `scatter` on pieces, the cases XLA's SPMD partitioner calls
//! operand-passthrough and index-parallel, and a sharded indexed dimension:
//!
//! - dimensions the plan passes through (operand dimensions taken whole, the indices' batch
//!   dimensions, batching dimensions) stay split: the op runs on the pieces, slice sizes of
//!   split dimensions made the pieces';
//! - an operand dimension indexed one row at a time and split over devices (an embedding's
//!   vocabulary): each device clamps the indices as the global gather would, shifts them by
//!   its first row, gathers from its rows, zeroes the rows it does not hold, and a sum over
//!   the dimension's axes completes the result (one device holds each row);
//! - scatter mirrored: an indexed dimension whose update windows are one row wide and split
//!   over devices takes indices shifted by the device's first row (scatter drops the updates
//!   that fall outside, which land on other devices); updates split along their scatter
//!   dimensions are applied by each device to the reducer's identity, combined by an
//!   all-reduce with the scatter's own reducer, then into the input.

use super::{located, reducer_op, unhandled, Held, Local, OpPlan, Partitioner};
use systolic_ir::builder::return_region;
use systolic_ir::walk::{clone_region, ValueMap};
use systolic_ir::{
    BinaryOp, ComparisonDirection, DType, DTypeKind, Op, OpKind, Region, Scalar, Tensor,
    TensorType, Type, ValueId,
};

impl<'a> Partitioner<'a> {
    /// `stablehlo.gather`; see the module docs.
    pub(super) fn gather_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        if plan.reduction_axes.is_empty() {
            return self.local_op(op, plan);
        }
        let OpKind::Gather {
            dimension_numbers: dn,
            slice_sizes,
            ..
        } = &op.kind
        else {
            return Err(located(op, "internal: not a gather"));
        };
        let (operands, needs) = self.needed_operands(op, plan)?;
        let shifted = self.shifted_components(op, &needs[0], &dn.start_index_map)?;
        let table = self.local_type(operands[0])?;
        let global = self.global_type(op.operands[0], &located(op, "its operand"))?;
        let ivd = dn.index_vector_dim as usize;
        // The global gather clamps each start index to [0, size - slice size]; each device
        // then holds the rows from its offset on.
        let mut hi_global = vec![];
        let mut hi_local = vec![];
        for &d in &dn.start_index_map {
            let d = d as usize;
            hi_global.push(global.shape[d] - slice_sizes[d]);
            hi_local.push(table.shape[d] - slice_sizes[d]);
        }
        let indices = operands[1];
        let k = hi_global.len();
        let lo = self.index_vector(indices, ivd, vec![0; k])?;
        let hi = self.index_vector(indices, ivd, hi_global)?;
        let idx_ty = Type::Tensor(self.local_type(indices)?);
        let clamped = self.emit(OpKind::Clamp, vec![lo, indices, hi], idx_ty.clone(), vec![]);
        let offsets =
            self.offset_vector(indices, ivd, &shifted, &dn.start_index_map, &table.shape)?;
        let local = self.emit(
            OpKind::Binary(BinaryOp::Subtract),
            vec![clamped, offsets],
            idx_ty,
            vec![],
        );
        let top = self.index_vector(indices, ivd, hi_local)?;
        let ok = self.in_range(local, lo, top, ivd)?;
        // The gather on this device's rows.
        let globals = self.src_shapes(op)?;
        let mut kind = op.kind.clone();
        if let OpKind::Gather { slice_sizes, .. } = &mut kind {
            for (d, axes) in needs[0].iter().enumerate() {
                if !axes.is_empty() && !dn.start_index_map.contains(&(d as i64)) {
                    if slice_sizes[d] != globals[0][d] {
                        return Err(unhandled(op, &format!(" along its sharded dimension {d}")));
                    }
                    slice_sizes[d] = table.shape[d];
                }
            }
        }
        let r = op.results[0];
        let out_global = self.global_type(r, &located(op, "its result"))?;
        let held = self.computed(plan, 0, r, &out_global)?;
        let shape = self.local_shape(&out_global.shape, &held, &located(op, "its result"))?;
        let out_ty = TensorType::new(shape.clone(), out_global.dtype);
        let gathered = self.emit(
            kind,
            vec![operands[0], local],
            Type::Tensor(out_ty.clone()),
            vec![],
        );
        let batch: Vec<i64> = (0..shape.len() as i64)
            .filter(|d| !dn.offset_dims.contains(d))
            .collect();
        let mask = self.emit(
            OpKind::BroadcastInDim {
                broadcast_dimensions: batch,
            },
            vec![ok],
            Type::Tensor(TensorType::new(shape, DType::Bool)),
            vec![],
        );
        let zeros = self.splat_of(&out_ty, Tensor::zeros(TensorType::scalar(out_ty.dtype)))?;
        let kept = self.emit(
            OpKind::Select,
            vec![mask, gathered, zeros],
            Type::Tensor(out_ty.clone()),
            vec![],
        );
        let sum = self.sum_region(out_ty.dtype);
        let v = self.all_reduce(kept, &plan.reduction_axes, sum)?;
        self.record(r, v, held, &out_global)
    }

    /// `stablehlo.scatter`; see the module docs.
    pub(super) fn scatter_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        let OpKind::Scatter {
            dimension_numbers: dn,
            ..
        } = &op.kind
        else {
            return Err(located(op, "internal: not a scatter"));
        };
        let mut needs = vec![];
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            needs.push(self.needed(plan, k, x, &global)?);
        }
        let shifted = self.shifted_components(op, &needs[0], &dn.scatter_dims_to_operand_dims)?;
        if shifted.is_empty() && plan.reduction_axes.is_empty() {
            return self.local_op(op, plan);
        }
        if op.results.len() != 1 {
            return Err(unhandled(
                op,
                " of several inputs over a sharded indexed dimension",
            ));
        }
        // Padded index rows would scatter their padding into real rows.
        let idx = self.global_type(op.operands[1], &located(op, "its indices"))?;
        for (&n, axes) in idx.shape.iter().zip(&needs[1]) {
            if self.uneven(n, axes)? {
                return Err(unhandled(op, " with indices split into uneven pieces"));
            }
        }
        let mut indices = self.convert(op.operands[1], &needs[1])?;
        let updates = self.convert(op.operands[2], &needs[2])?;
        let r = op.results[0];
        let global = self.global_type(r, &located(op, "its result"))?;
        let held = self.computed(plan, 0, r, &global)?;
        let shape = self.local_shape(&global.shape, &held, &located(op, "its result"))?;
        let piece = TensorType::new(shape, global.dtype);
        if !shifted.is_empty() {
            let ivd = dn.index_vector_dim as usize;
            let map = &dn.scatter_dims_to_operand_dims;
            let offsets = self.offset_vector(indices, ivd, &shifted, map, &piece.shape)?;
            let ty = Type::Tensor(self.local_type(indices)?);
            indices = self.emit(
                OpKind::Binary(BinaryOp::Subtract),
                vec![indices, offsets],
                ty,
                vec![],
            );
        }
        let body = &op.regions[0];
        let mut map = ValueMap::new();
        let region = clone_region(self.src, body, &mut self.dst, &mut map)
            .map_err(|e| located(op, &e.message))?;
        let ty = Type::Tensor(piece.clone());
        if plan.reduction_axes.is_empty() {
            let input = self.convert(op.operands[0], &needs[0])?;
            let v = self.emit(
                op.kind.clone(),
                vec![input, indices, updates],
                ty,
                vec![region],
            );
            return self.record(r, v, held, &global);
        }
        // Updates split over devices: each applies its part to the identity, the parts are
        // combined with the scatter's reducer (completed where the result is held, by a
        // reduce-scatter where it can), then folded into the input there — the input is never
        // gathered for the scatter.
        let combine = reducer_op(body).ok_or_else(|| {
            unhandled(
                op,
                " with split updates and an update computation other than one add, multiply, \
                 maximum, minimum, and or or",
            )
        })?;
        let identity = identity_of(combine, piece.dtype)
            .ok_or_else(|| unhandled(op, " with split updates and this reducer and type"))?;
        let base = self.splat_of(&piece, identity)?;
        let parts = self.emit(
            op.kind.clone(),
            vec![base, indices, updates],
            ty,
            vec![region],
        );
        let target = self.planned(r, &global)?;
        let all = self.complete(op, parts, held, &target, &plan.reduction_axes, &global)?;
        let input = self.convert(op.operands[0], &target)?;
        let shape = self.local_shape(&global.shape, &target, &located(op, "its result"))?;
        let ty = Type::Tensor(TensorType::new(shape, global.dtype));
        let v = self.emit(OpKind::Binary(combine), vec![input, all], ty, vec![]);
        self.locals.insert(
            r,
            Local {
                value: v,
                held: target,
            },
        );
        Ok(())
    }

    /// The operands converted to what the plan needs, and those layouts.
    pub(super) fn needed_operands(
        &mut self,
        op: &'a Op,
        plan: &OpPlan,
    ) -> Result<(Vec<ValueId>, Vec<Held>), String> {
        let mut operands = vec![];
        let mut needs = vec![];
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            let needed = self.needed(plan, k, x, &global)?;
            operands.push(self.convert(x, &needed)?);
            needs.push(needed);
        }
        Ok((operands, needs))
    }

    /// Per index component (position in `map`, the operand dimension each addresses): the
    /// axes its dimension is split over, empty where whole.
    fn shifted_components(
        &self,
        op: &Op,
        operand: &Held,
        map: &[i64],
    ) -> Result<Vec<Vec<systolic_ir::AxisRef>>, String> {
        let comps: Vec<_> = map
            .iter()
            .map(|&d| operand.get(d as usize).cloned().unwrap_or_default())
            .collect();
        if comps.iter().any(|a| !a.is_empty()) {
            let ty = self.global_type(op.operands[op.operands.len() / 2], "the indices")?;
            if ty.dtype.kind() != DTypeKind::Signed {
                return Err(unhandled(
                    op,
                    " with unsigned indices into a sharded dimension",
                ));
            }
        }
        Ok(comps)
    }

    /// Per index component, this device's first row along the dimension it addresses (0
    /// where the dimension is whole), spread over `indices`' shape along `ivd`.
    fn offset_vector(
        &mut self,
        indices: ValueId,
        ivd: usize,
        comps: &[Vec<systolic_ir::AxisRef>],
        map: &[i64],
        piece: &[i64],
    ) -> Result<ValueId, String> {
        let n = self.grid.len();
        let mut rows = vec![0i64; n * comps.len()];
        let idx = self.local_type(indices)?;
        for (k, axes) in comps.iter().enumerate() {
            if axes.is_empty() {
                continue;
            }
            let tiles = self.grid.tile_index(axes)?;
            let size = piece[map[k] as usize];
            for (dev, t) in tiles.into_iter().enumerate() {
                rows[dev * comps.len() + k] = t * size;
            }
        }
        let k = comps.len() as i64;
        let table = self.constant(Tensor::from_i64(vec![n as i64, k], idx.dtype, rows))?;
        let pid = self.partition_id();
        let zero = self.constant(Tensor::from_i64(vec![], DType::I32, vec![0]))?;
        let row = self.emit(
            OpKind::DynamicSlice {
                slice_sizes: vec![1, k],
            },
            vec![table, pid, zero],
            Type::Tensor(TensorType::new(vec![1, k], idx.dtype)),
            vec![],
        );
        let vector = self.emit(
            OpKind::Reshape,
            vec![row],
            Type::Tensor(TensorType::new(vec![k], idx.dtype)),
            vec![],
        );
        self.spread(vector, &idx, ivd)
    }

    /// A constant vector (one entry per index component) spread over `indices`' shape.
    fn index_vector(
        &mut self,
        indices: ValueId,
        ivd: usize,
        values: Vec<i64>,
    ) -> Result<ValueId, String> {
        let idx = self.local_type(indices)?;
        let k = values.len() as i64;
        let v = self.constant(Tensor::from_i64(vec![k], idx.dtype, values))?;
        self.spread(v, &idx, ivd)
    }

    /// `vector` (one entry per index component) broadcast along the index vector dimension
    /// of indices of type `idx` (a trailing implicit dimension when `ivd` is the rank).
    fn spread(&mut self, vector: ValueId, idx: &TensorType, ivd: usize) -> Result<ValueId, String> {
        let ty = Type::Tensor(idx.clone());
        if ivd >= idx.rank() {
            let scalar = self.emit(
                OpKind::Reshape,
                vec![vector],
                Type::Tensor(TensorType::scalar(idx.dtype)),
                vec![],
            );
            let kind = OpKind::BroadcastInDim {
                broadcast_dimensions: vec![],
            };
            return Ok(self.emit(kind, vec![scalar], ty, vec![]));
        }
        let kind = OpKind::BroadcastInDim {
            broadcast_dimensions: vec![ivd as i64],
        };
        Ok(self.emit(kind, vec![vector], ty, vec![]))
    }

    /// Per index vector: whether every component lies in `[lo, hi]` (the indices' shape
    /// without the index vector dimension).
    fn in_range(
        &mut self,
        x: ValueId,
        lo: ValueId,
        hi: ValueId,
        ivd: usize,
    ) -> Result<ValueId, String> {
        let idx = self.local_type(x)?;
        let pred = Type::Tensor(TensorType::new(idx.shape.clone(), DType::Bool));
        let cmp = |direction| OpKind::Compare {
            direction,
            compare_type: None,
        };
        let ge = self.emit(
            cmp(ComparisonDirection::Ge),
            vec![x, lo],
            pred.clone(),
            vec![],
        );
        let le = self.emit(
            cmp(ComparisonDirection::Le),
            vec![x, hi],
            pred.clone(),
            vec![],
        );
        let ok = self.emit(OpKind::Binary(BinaryOp::And), vec![ge, le], pred, vec![]);
        if ivd >= idx.rank() {
            return Ok(ok);
        }
        let t = self.constant(Tensor::from_bool(vec![], vec![true]))?;
        let mut shape = idx.shape.clone();
        shape.remove(ivd);
        let all = self.and_region();
        Ok(self.emit(
            OpKind::Reduce {
                dimensions: vec![ivd as i64],
            },
            vec![ok, t],
            Type::Tensor(TensorType::new(shape, DType::Bool)),
            vec![all],
        ))
    }

    /// The region `(a, b) -> a and b` on `i1` scalars.
    fn and_region(&mut self) -> Region {
        let scalar = Type::Tensor(TensorType::scalar(DType::Bool));
        let a = self.dst.new_value(scalar.clone(), None);
        let b = self.dst.new_value(scalar.clone(), None);
        let s = self.dst.new_value(scalar, None);
        let and = Op::new(OpKind::Binary(BinaryOp::And), vec![a, b], vec![s]);
        return_region(vec![a, b], vec![and], vec![s])
    }

    /// `value` (a scalar tensor) broadcast to `ty`.
    fn splat_of(&mut self, ty: &TensorType, value: Tensor) -> Result<ValueId, String> {
        let s = self.constant(Ok(value))?;
        let kind = OpKind::BroadcastInDim {
            broadcast_dimensions: vec![],
        };
        Ok(self.emit(kind, vec![s], Type::Tensor(ty.clone()), vec![]))
    }

    /// Records local `v`, computed as `held`, as global `r`'s piece under its planned layout.
    fn record(
        &mut self,
        r: ValueId,
        v: ValueId,
        held: Held,
        global: &TensorType,
    ) -> Result<(), String> {
        let target = self.planned(r, global)?;
        let v = self.convert_local(&Local { value: v, held }, &target, global)?;
        self.locals.insert(
            r,
            Local {
                value: v,
                held: target,
            },
        );
        Ok(())
    }
}

/// The identity of `op` on `dtype` as a scalar tensor, where it has one.
fn identity_of(op: BinaryOp, dtype: DType) -> Option<Tensor> {
    let scalar = TensorType::scalar(dtype);
    let value = match (op, dtype.kind()) {
        (BinaryOp::Or, DTypeKind::Bool) => Scalar::Bool(false),
        (BinaryOp::And, DTypeKind::Bool) => Scalar::Bool(true),
        (BinaryOp::Add, DTypeKind::Float) => Scalar::Float(0.0),
        (BinaryOp::Multiply, DTypeKind::Float) => Scalar::Float(1.0),
        (BinaryOp::Maximum, DTypeKind::Float) => Scalar::Float(f64::NEG_INFINITY),
        (BinaryOp::Minimum, DTypeKind::Float) => Scalar::Float(f64::INFINITY),
        (BinaryOp::Add, DTypeKind::Signed) => Scalar::Int(0),
        (BinaryOp::Multiply, DTypeKind::Signed) => Scalar::Int(1),
        (BinaryOp::Add, DTypeKind::Unsigned) => Scalar::UInt(0),
        (BinaryOp::Multiply, DTypeKind::Unsigned) => Scalar::UInt(1),
        _ => return None,
    };
    Tensor::splat(scalar, value).ok()
}
