//! Emitting ops into the function being built: result types come from the verifier's
//! `infer_result_types`, so every op a rule emits is checked as it is made.

use crate::Error;
use systolic_ir::verify::{infer_result_types, RegionSignature};
use systolic_ir::{
    BinaryOp, Block, ComparisonDirection, DType, DotDimensionNumbers, Func, Op, OpKind, Region,
    ReturnKind, Scalar, Tensor, TensorType, Type, UnaryOp, ValueId,
};

/// A function under construction and the op list currently being filled (the body of the
/// function, or of a region being built).
pub(crate) struct Builder {
    /// The destination function (its arena; its body is assembled at the end).
    pub(crate) f: Func,
    /// Where emitted ops go.
    pub(crate) ops: Vec<Op>,
}

pub(crate) type Res<T> = Result<T, Error>;

impl Builder {
    pub(crate) fn new(name: &str) -> Builder {
        Builder {
            f: Func::new(name),
            ops: vec![],
        }
    }

    /// The tensor type of a value (every value autodiff handles is a tensor).
    pub(crate) fn tt(&self, v: ValueId) -> TensorType {
        match self.f.value_type(v) {
            Type::Tensor(t) => t.clone(),
            _ => TensorType::scalar(DType::F32),
        }
    }

    pub(crate) fn shape(&self, v: ValueId) -> Vec<i64> {
        self.tt(v).shape
    }

    pub(crate) fn dtype(&self, v: ValueId) -> DType {
        self.tt(v).dtype
    }

    pub(crate) fn param(&mut self, ty: Type) -> ValueId {
        self.f.new_value(ty, None)
    }

    /// Emits `kind` with `regions`; result types inferred (with `declared` when the op needs it).
    pub(crate) fn emit_full(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        regions: Vec<Region>,
        declared: Option<Vec<Type>>,
    ) -> Res<Vec<ValueId>> {
        let tys: Vec<Type> = operands
            .iter()
            .map(|&v| self.f.value_type(v).clone())
            .collect();
        let sigs: Vec<RegionSignature> = regions.iter().map(|r| self.signature(r)).collect();
        let results = infer_result_types(&kind, &tys, &sigs, declared.as_deref()).map_err(|m| {
            let ts: Vec<String> = tys.iter().map(|t| t.to_string()).collect();
            Error::new(format!(
                "internal: building {} on ({}) failed: {m}",
                kind.name(),
                ts.join(", ")
            ))
        })?;
        let outs: Vec<ValueId> = results
            .into_iter()
            .map(|t| self.f.new_value(t, None))
            .collect();
        let mut op = Op::new(kind, operands, outs.clone());
        op.regions = regions;
        self.ops.push(op);
        Ok(outs)
    }

    fn signature(&self, r: &Region) -> RegionSignature {
        let Some(b) = r.entry() else {
            return RegionSignature::default();
        };
        let args = b
            .args
            .iter()
            .map(|&a| self.f.value_type(a).clone())
            .collect();
        let res = b
            .ops
            .last()
            .map(|t| {
                t.operands
                    .iter()
                    .map(|&v| self.f.value_type(v).clone())
                    .collect()
            })
            .unwrap_or_default();
        RegionSignature::new(args, res)
    }

    pub(crate) fn emit(&mut self, kind: OpKind, operands: Vec<ValueId>) -> Res<ValueId> {
        Ok(self.emit_full(kind, operands, vec![], None)?[0])
    }

    pub(crate) fn emit_as(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        ty: TensorType,
    ) -> Res<ValueId> {
        Ok(self.emit_full(kind, operands, vec![], Some(vec![Type::Tensor(ty)]))?[0])
    }

    /// Runs `f` with an empty op list and returns the ops it emitted (for building regions).
    pub(crate) fn nested<R>(
        &mut self,
        f: impl FnOnce(&mut Builder) -> Res<R>,
    ) -> Res<(Vec<Op>, R)> {
        let saved = std::mem::take(&mut self.ops);
        let r = f(self);
        let ops = std::mem::replace(&mut self.ops, saved);
        Ok((ops, r?))
    }

    /// A region with block arguments `args` whose body `f` builds, returning the values it
    /// yields (`stablehlo.return`).
    pub(crate) fn region(
        &mut self,
        args: Vec<ValueId>,
        f: impl FnOnce(&mut Builder) -> Res<Vec<ValueId>>,
    ) -> Res<Region> {
        let (mut ops, rets) = self.nested(f)?;
        ops.push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
        Ok(Region::single(Block { args, ops }))
    }

    // ---- constants

    pub(crate) fn constant(&mut self, t: Tensor) -> Res<ValueId> {
        self.emit(OpKind::Constant(t), vec![])
    }

    /// A rank-0 constant of `dtype`.
    pub(crate) fn scalar(&mut self, dtype: DType, x: f64) -> Res<ValueId> {
        let s = if dtype.is_float() {
            Scalar::Float(x)
        } else if dtype.is_bool() {
            Scalar::Bool(x != 0.0)
        } else if dtype.is_unsigned_integer() {
            Scalar::UInt(x as u64)
        } else {
            Scalar::Int(x as i64)
        };
        let t = Tensor::splat(TensorType::scalar(dtype), s)
            .map_err(|e| Error::new(format!("internal: constant: {e}")))?;
        self.constant(t)
    }

    /// A constant `x` with the shape and dtype of `like`.
    pub(crate) fn full_like(&mut self, like: ValueId, x: f64) -> Res<ValueId> {
        let ty = self.tt(like);
        self.full(&ty, x)
    }

    pub(crate) fn full(&mut self, ty: &TensorType, x: f64) -> Res<ValueId> {
        let s = self.scalar(ty.dtype, x)?;
        if ty.shape.is_empty() {
            return Ok(s);
        }
        self.broadcast_in_dim(s, &ty.shape, &[])
    }

    pub(crate) fn zeros(&mut self, ty: &TensorType) -> Res<ValueId> {
        self.full(ty, 0.0)
    }

    // ---- elementwise

    pub(crate) fn unary(&mut self, op: UnaryOp, a: ValueId) -> Res<ValueId> {
        self.emit(OpKind::Unary(op), vec![a])
    }

    pub(crate) fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> Res<ValueId> {
        self.emit(OpKind::Binary(op), vec![a, b])
    }

    pub(crate) fn add(&mut self, a: ValueId, b: ValueId) -> Res<ValueId> {
        self.binary(BinaryOp::Add, a, b)
    }

    pub(crate) fn sub(&mut self, a: ValueId, b: ValueId) -> Res<ValueId> {
        self.binary(BinaryOp::Subtract, a, b)
    }

    pub(crate) fn mul(&mut self, a: ValueId, b: ValueId) -> Res<ValueId> {
        self.binary(BinaryOp::Multiply, a, b)
    }

    pub(crate) fn div(&mut self, a: ValueId, b: ValueId) -> Res<ValueId> {
        self.binary(BinaryOp::Divide, a, b)
    }

    pub(crate) fn neg(&mut self, a: ValueId) -> Res<ValueId> {
        self.unary(UnaryOp::Negate, a)
    }

    /// `a * x` for a float constant `x`.
    pub(crate) fn mul_const(&mut self, a: ValueId, x: f64) -> Res<ValueId> {
        let c = self.full_like(a, x)?;
        self.mul(a, c)
    }

    /// `a + x` for a float constant `x`.
    pub(crate) fn add_const(&mut self, a: ValueId, x: f64) -> Res<ValueId> {
        let c = self.full_like(a, x)?;
        self.add(a, c)
    }

    pub(crate) fn compare(
        &mut self,
        direction: ComparisonDirection,
        a: ValueId,
        b: ValueId,
    ) -> Res<ValueId> {
        self.emit(
            OpKind::Compare {
                direction,
                compare_type: None,
            },
            vec![a, b],
        )
    }

    pub(crate) fn select(&mut self, p: ValueId, a: ValueId, b: ValueId) -> Res<ValueId> {
        self.emit(OpKind::Select, vec![p, a, b])
    }

    pub(crate) fn convert(&mut self, a: ValueId, dtype: DType) -> Res<ValueId> {
        if self.dtype(a) == dtype {
            return Ok(a);
        }
        let ty = self.tt(a).with_dtype(dtype);
        self.emit_as(OpKind::Convert, vec![a], ty)
    }

    /// Sums `a` and `b`, treating `None` as zero.
    pub(crate) fn add_opt(
        &mut self,
        a: Option<ValueId>,
        b: Option<ValueId>,
    ) -> Res<Option<ValueId>> {
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(self.add(a, b)?),
            (x, None) | (None, x) => x,
        })
    }

    // ---- shapes

    pub(crate) fn broadcast_in_dim(
        &mut self,
        a: ValueId,
        shape: &[i64],
        dims: &[i64],
    ) -> Res<ValueId> {
        let ty = TensorType::new(shape.to_vec(), self.dtype(a));
        self.emit_as(
            OpKind::BroadcastInDim {
                broadcast_dimensions: dims.to_vec(),
            },
            vec![a],
            ty,
        )
    }

    pub(crate) fn reshape(&mut self, a: ValueId, shape: &[i64]) -> Res<ValueId> {
        if self.shape(a) == shape {
            return Ok(a);
        }
        let ty = TensorType::new(shape.to_vec(), self.dtype(a));
        self.emit_as(OpKind::Reshape, vec![a], ty)
    }

    pub(crate) fn transpose(&mut self, a: ValueId, perm: &[i64]) -> Res<ValueId> {
        if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
            return Ok(a);
        }
        self.emit(
            OpKind::Transpose {
                permutation: perm.to_vec(),
            },
            vec![a],
        )
    }

    pub(crate) fn pad(
        &mut self,
        a: ValueId,
        value: ValueId,
        lo: Vec<i64>,
        hi: Vec<i64>,
        interior: Vec<i64>,
    ) -> Res<ValueId> {
        self.emit(
            OpKind::Pad {
                edge_padding_low: lo,
                edge_padding_high: hi,
                interior_padding: interior,
            },
            vec![a, value],
        )
    }

    pub(crate) fn slice(
        &mut self,
        a: ValueId,
        start: Vec<i64>,
        limit: Vec<i64>,
        strides: Vec<i64>,
    ) -> Res<ValueId> {
        self.emit(
            OpKind::Slice {
                start_indices: start,
                limit_indices: limit,
                strides,
            },
            vec![a],
        )
    }

    /// A scalar binary reducer region (`(a, b) -> a op b`) over `dtype`.
    pub(crate) fn reducer(&mut self, op: BinaryOp, dtype: DType) -> Res<Region> {
        let s = Type::tensor(vec![], dtype);
        let a = self.param(s.clone());
        let b = self.param(s);
        self.region(vec![a, b], |bld| Ok(vec![bld.binary(op, a, b)?]))
    }

    /// `reduce(a, init = 0, +)` over `dims`.
    pub(crate) fn reduce_sum(&mut self, a: ValueId, dims: &[i64]) -> Res<ValueId> {
        if dims.is_empty() {
            return Ok(a);
        }
        let dt = self.dtype(a);
        let zero = self.scalar(dt, 0.0)?;
        let region = self.reducer(BinaryOp::Add, dt)?;
        Ok(self.emit_full(
            OpKind::Reduce {
                dimensions: dims.to_vec(),
            },
            vec![a, zero],
            vec![region],
            None,
        )?[0])
    }

    /// `dot_general` with a result element type `dtype`.
    pub(crate) fn dot_general(
        &mut self,
        a: ValueId,
        b: ValueId,
        dn: DotDimensionNumbers,
        precision: Vec<systolic_ir::Precision>,
        dtype: DType,
    ) -> Res<ValueId> {
        // Infer the shape first (without a declared type the operand dtypes must agree).
        let kind = OpKind::DotGeneral {
            dimension_numbers: dn,
            precision_config: precision,
            algorithm: None,
        };
        let tys = vec![self.f.value_type(a).clone(), self.f.value_type(b).clone()];
        let probe = Type::tensor(vec![], dtype);
        let shape = match infer_result_types(&kind, &tys, &[], Some(&[probe])) {
            Ok(t) => t[0]
                .as_tensor()
                .map(|t| t.shape.clone())
                .unwrap_or_default(),
            Err(m) => return Err(Error::new(format!("internal: dot_general: {m}"))),
        };
        self.emit_as(kind, vec![a, b], TensorType::new(shape, dtype))
    }
}

impl Builder {
    /// A copy of a region of the built function with fresh values (regions that capture no
    /// outer values, such as reducers and comparators).
    pub(crate) fn copy_region(&mut self, r: &Region) -> Res<Region> {
        let arena = self.f.values.clone();
        let holder = Op {
            regions: vec![r.clone()],
            ..Op::new(OpKind::OptimizationBarrier, vec![], vec![])
        };
        let mut map = systolic_ir::walk::ValueMap::new();
        let c = systolic_ir::walk::clone_op_from_arena(&arena, &holder, &mut self.f, &mut map)
            .map_err(|e| Error::new(format!("internal: {}", e.message)))?;
        Ok(c.regions.into_iter().next().unwrap_or_default())
    }
}
