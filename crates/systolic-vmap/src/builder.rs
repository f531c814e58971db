//! The state of one transformation and the small op builders the rules share: emitting an op
//! with its result types from the verifier's shape inference, moving and materialising batch
//! dimensions, constants, broadcasts, selects.

use crate::{Result, VmapError};
use std::collections::HashMap;
use systolic_ir::verify::{infer_result_types, RegionSignature};
use systolic_ir::{
    BinaryOp, Block, ComparisonDirection, DType, Func, Op, OpKind, Region, ReturnKind, Scalar,
    Tensor, TensorType, Type, ValueId,
};

/// A value of the batched function and where its batch dimension is (`None`: not batched, the
/// same for every example).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BVal {
    /// The value in the batched function.
    pub v: ValueId,
    /// The batch dimension, if batched.
    pub bdim: Option<usize>,
}

impl BVal {
    /// An unbatched value.
    pub fn un(v: ValueId) -> Self {
        BVal { v, bdim: None }
    }

    /// A value batched along `d`.
    pub fn at(v: ValueId, d: usize) -> Self {
        BVal { v, bdim: Some(d) }
    }

    /// True when batched.
    pub fn batched(&self) -> bool {
        self.bdim.is_some()
    }
}

/// One transformation in progress.
pub(crate) struct Cx<'a> {
    /// The function being batched.
    pub src: &'a Func,
    /// The batched function being built (its arena; the body is assembled at the end).
    pub dst: Func,
    /// The ops of the block being built.
    pub ops: Vec<Op>,
    /// What each source value is in the batched function.
    pub map: HashMap<ValueId, BVal>,
    /// The batch size.
    pub size: i64,
    /// The op whose rule runs (for error messages).
    pub current: String,
}

impl<'a> Cx<'a> {
    pub fn new(src: &'a Func, size: i64) -> Self {
        Cx {
            src,
            dst: Func::new(src.name.clone()),
            ops: vec![],
            map: HashMap::new(),
            size,
            current: "func".into(),
        }
    }

    /// An error about the op being batched.
    pub fn err(&self, message: impl Into<String>) -> VmapError {
        VmapError::new(self.current.clone(), message)
    }

    /// The batched value standing for source value `v`.
    pub fn lookup(&self, v: ValueId) -> Result<BVal> {
        self.map.get(&v).copied().ok_or_else(|| {
            self.err(format!(
                "uses value #{} which is not defined before it (unverified input?)",
                v.0
            ))
        })
    }

    /// The type of a value of the batched function.
    pub fn ty(&self, v: ValueId) -> Result<TensorType> {
        match self.dst.value_type(v) {
            Type::Tensor(t) => Ok(t.clone()),
            other => Err(self.err(format!("cannot batch a value of type {other}"))),
        }
    }

    /// The type of a value of the source function.
    pub fn src_ty(&self, v: ValueId) -> Result<TensorType> {
        match self.src.value_type(v) {
            Type::Tensor(t) => Ok(t.clone()),
            other => Err(self.err(format!("cannot batch a value of type {other}"))),
        }
    }

    /// Runs `f` with a fresh block under construction; returns the ops it emitted.
    pub fn in_block<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<(Vec<Op>, R)> {
        let saved = std::mem::take(&mut self.ops);
        let r = f(self);
        let ops = std::mem::replace(&mut self.ops, saved);
        Ok((ops, r?))
    }

    /// Runs `f` with `ops` as the block under construction (to append to it); returns the ops.
    pub fn extend_block<R>(
        &mut self,
        ops: Vec<Op>,
        f: impl FnOnce(&mut Self) -> Result<R>,
    ) -> Result<(Vec<Op>, R)> {
        let saved = std::mem::replace(&mut self.ops, ops);
        let r = f(self);
        let ops = std::mem::replace(&mut self.ops, saved);
        Ok((ops, r?))
    }

    /// Emits an op; its result types come from shape inference (`declared` for ops whose result
    /// types do not follow from their operands).
    pub fn emit(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        regions: Vec<Region>,
        declared: Option<Vec<Type>>,
    ) -> Result<Vec<ValueId>> {
        let operand_types: Vec<Type> = operands
            .iter()
            .map(|&v| self.dst.value_type(v).clone())
            .collect();
        let sigs: Vec<RegionSignature> = regions
            .iter()
            .map(|r| {
                let b = r.entry();
                let args = b
                    .map(|b| {
                        b.args
                            .iter()
                            .map(|&a| self.dst.value_type(a).clone())
                            .collect()
                    })
                    .unwrap_or_default();
                let results = b
                    .and_then(|b| b.ops.last())
                    .map(|t| {
                        t.operands
                            .iter()
                            .map(|&a| self.dst.value_type(a).clone())
                            .collect()
                    })
                    .unwrap_or_default();
                RegionSignature::new(args, results)
            })
            .collect();
        let types =
            infer_result_types(&kind, &operand_types, &sigs, declared.as_deref()).map_err(|e| {
                self.err(format!(
                    "the batched {} is invalid: {e} (operands {})",
                    kind.name(),
                    operand_types
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let results: Vec<ValueId> = types
            .into_iter()
            .map(|t| self.dst.new_value(t, None))
            .collect();
        let mut op = Op::new(kind, operands, results.clone());
        op.regions = regions;
        self.ops.push(op);
        Ok(results)
    }

    /// [`Cx::emit`] for an op with one result.
    pub fn emit1(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        declared: Option<TensorType>,
    ) -> Result<ValueId> {
        let r = self.emit(
            kind,
            operands,
            vec![],
            declared.map(|t| vec![Type::Tensor(t)]),
        )?;
        Ok(r[0])
    }

    /// A block argument of type `ty` (a fresh value).
    pub fn new_arg(&mut self, ty: Type) -> ValueId {
        self.dst.new_value(ty, None)
    }

    /// A constant.
    pub fn constant(&mut self, t: Tensor) -> Result<ValueId> {
        self.emit1(OpKind::Constant(t), vec![], None)
    }

    /// A scalar constant of `dtype`.
    pub fn scalar(&mut self, dtype: DType, value: i64) -> Result<ValueId> {
        let s = match dtype {
            d if d.is_bool() => Scalar::Bool(value != 0),
            d if d.is_float() => Scalar::Float(value as f64),
            d if d.is_unsigned_integer() => Scalar::UInt(value.max(0) as u64),
            _ => Scalar::Int(value),
        };
        let t = Tensor::splat(TensorType::scalar(dtype), s).map_err(|e| self.err(e.to_string()))?;
        self.constant(t)
    }

    pub fn transpose(&mut self, v: ValueId, perm: Vec<i64>) -> Result<ValueId> {
        if perm.iter().enumerate().all(|(i, &p)| i as i64 == p) {
            return Ok(v);
        }
        self.emit1(OpKind::Transpose { permutation: perm }, vec![v], None)
    }

    pub fn reshape(&mut self, v: ValueId, shape: Vec<i64>) -> Result<ValueId> {
        let t = self.ty(v)?;
        if t.shape == shape {
            return Ok(v);
        }
        self.emit1(
            OpKind::Reshape,
            vec![v],
            Some(TensorType::new(shape, t.dtype)),
        )
    }

    pub fn broadcast_in_dim(
        &mut self,
        v: ValueId,
        shape: Vec<i64>,
        dims: Vec<i64>,
    ) -> Result<ValueId> {
        let t = self.ty(v)?;
        self.emit1(
            OpKind::BroadcastInDim {
                broadcast_dimensions: dims,
            },
            vec![v],
            Some(TensorType::new(shape, t.dtype)),
        )
    }

    pub fn convert(&mut self, v: ValueId, dtype: DType) -> Result<ValueId> {
        let t = self.ty(v)?;
        if t.dtype == dtype {
            return Ok(v);
        }
        self.emit1(OpKind::Convert, vec![v], Some(t.with_dtype(dtype)))
    }

    pub fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> Result<ValueId> {
        self.emit1(OpKind::Binary(op), vec![a, b], None)
    }

    pub fn compare(&mut self, dir: ComparisonDirection, a: ValueId, b: ValueId) -> Result<ValueId> {
        self.emit1(
            OpKind::Compare {
                direction: dir,
                compare_type: None,
            },
            vec![a, b],
            None,
        )
    }

    pub fn select(&mut self, p: ValueId, a: ValueId, b: ValueId) -> Result<ValueId> {
        self.emit1(OpKind::Select, vec![p, a, b], None)
    }

    pub fn concatenate(&mut self, vs: Vec<ValueId>, dim: i64) -> Result<ValueId> {
        if vs.len() == 1 {
            return Ok(vs[0]);
        }
        self.emit1(OpKind::Concatenate { dimension: dim }, vs, None)
    }

    /// Moves the batch dimension of a batched value to `to`.
    pub fn move_to(&mut self, b: BVal, to: usize) -> Result<ValueId> {
        let from = b.bdim.ok_or_else(|| {
            self.err("internal: moving the batch dimension of an unbatched value")
        })?;
        if from == to {
            return Ok(b.v);
        }
        let rank = self.ty(b.v)?.rank();
        let mut perm: Vec<i64> = (0..rank as i64).filter(|&d| d != from as i64).collect();
        perm.insert(to, from as i64);
        self.transpose(b.v, perm)
    }

    /// The value with its batch dimension at `to`, broadcast along a new one if unbatched.
    pub fn materialize(&mut self, b: BVal, to: usize) -> Result<ValueId> {
        if b.batched() {
            return self.move_to(b, to);
        }
        let t = self.ty(b.v)?;
        let mut shape = t.shape.clone();
        shape.insert(to, self.size);
        let dims: Vec<i64> = (0..t.rank() as i64)
            .map(|d| if d >= to as i64 { d + 1 } else { d })
            .collect();
        self.broadcast_in_dim(b.v, shape, dims)
    }

    /// Broadcasts a `[B]` predicate (or any `[B]` value) to `shape` (batch dimension 0).
    pub fn broadcast_batch(&mut self, v: ValueId, shape: Vec<i64>) -> Result<ValueId> {
        if self.ty(v)?.shape == shape {
            return Ok(v);
        }
        self.broadcast_in_dim(v, shape, vec![0])
    }

    /// `select(pred, a, b)` per example: `pred` has shape `[B]`, `a` and `b` are batched at 0.
    pub fn select_batched(&mut self, pred: ValueId, a: ValueId, b: ValueId) -> Result<ValueId> {
        let shape = self.ty(a)?.shape;
        let p = self.broadcast_batch(pred, shape)?;
        self.select(p, a, b)
    }

    /// A region with one block: `args`, `ops` and a `stablehlo.return` of `results`.
    pub fn region(args: Vec<ValueId>, mut ops: Vec<Op>, results: Vec<ValueId>) -> Region {
        ops.push(Op::new(
            OpKind::Return(ReturnKind::Stablehlo),
            results,
            vec![],
        ));
        Region::single(Block { args, ops })
    }

    /// A scalar binary body `(a, b) -> op(a, b)` of element type `dtype` (reductions).
    pub fn binary_body(&mut self, op: BinaryOp, dtype: DType) -> Result<Region> {
        let t = Type::Tensor(TensorType::scalar(dtype));
        let a = self.new_arg(t.clone());
        let b = self.new_arg(t);
        let (ops, r) = self.in_block(|cx| cx.binary(op, a, b))?;
        Ok(Cx::region(vec![a, b], ops, vec![r]))
    }

    /// For a batch of size 0: the results of `op` as empty constants (batched at 0), for rules
    /// whose batched op cannot take an empty batch (e.g. a gather needs slice sizes ≤ 0).
    pub fn empty_results(&mut self, op: &Op) -> Result<Vec<BVal>> {
        let mut out = vec![];
        for &r in &op.results {
            let t = self.batched_type(&self.src_ty(r)?, 0);
            out.push(BVal::at(self.constant(Tensor::zeros(t))?, 0));
        }
        Ok(out)
    }

    /// The batched type of a per-example type with the batch dimension at `d`.
    pub fn batched_type(&self, t: &TensorType, d: usize) -> TensorType {
        let mut shape = t.shape.clone();
        shape.insert(d, self.size);
        TensorType::new(shape, t.dtype)
    }
}

/// Maps a per-example dimension to the batched value's dimension when the batch dimension is at
/// `bdim`.
pub(crate) fn shift(d: i64, bdim: usize) -> i64 {
    if d >= bdim as i64 {
        d + 1
    } else {
        d
    }
}
