//! The state of one transformation: the function being built (`systolic_ir`'s `FuncBuilder`,
//! which emits ops with result types from the verifier's inference and has the common op
//! helpers), where each value's batch dimension is, and the helpers that move and materialise
//! batch dimensions.

use crate::{Result, VmapError};
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use systolic_ir::builder::{BuildError, FuncBuilder};
use systolic_ir::{Func, Op, Tensor, TensorType, Type, ValueId};

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

/// One transformation in progress. It dereferences to its [`FuncBuilder`], so the rules call
/// the builder's helpers (`cx.transpose(…)`, `cx.emit(…)`) as the context's own; the builder's
/// `context` names the op being batched, for errors.
pub(crate) struct Cx<'a> {
    /// The batched function being built (its arena and the block under construction).
    pub builder: FuncBuilder<VmapError>,
    /// The function being batched.
    pub src: &'a Func,
    /// What each source value is in the batched function.
    pub map: HashMap<ValueId, BVal>,
    /// The batch size.
    pub size: i64,
    /// The name collectives use for the axis being batched (JAX's `vmap(axis_name=…)`), if any.
    pub axis_name: Option<String>,
    /// The ids of the custom differentiation rules batched so far: the source function's id
    /// to the batched rule's (`rules/custom_rule.rs`).
    pub custom_rules: HashMap<i64, i64>,
}

impl Deref for Cx<'_> {
    type Target = FuncBuilder<VmapError>;

    fn deref(&self) -> &Self::Target {
        &self.builder
    }
}

impl DerefMut for Cx<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.builder
    }
}

/// A batched op that does not verify is a bug in its rule; the error names the op being
/// batched (the builder's context) and the op that failed.
impl From<BuildError> for VmapError {
    fn from(e: BuildError) -> Self {
        let message = if e.op.is_empty() {
            e.message.clone()
        } else {
            format!(
                "the batched {} is invalid: {} (operands {})",
                e.op,
                e.message,
                e.operand_list()
            )
        };
        VmapError::new(e.context, message)
    }
}

impl<'a> Cx<'a> {
    pub fn new(src: &'a Func, size: i64) -> Self {
        let mut builder = FuncBuilder::new(src.name.clone());
        builder.context = "func".into();
        Cx {
            builder,
            src,
            map: HashMap::new(),
            size,
            axis_name: None,
            custom_rules: HashMap::new(),
        }
    }

    /// An error about the op being batched.
    pub fn err(&self, message: impl Into<String>) -> VmapError {
        VmapError::new(self.context.clone(), message)
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
        match self.func.value_type(v) {
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
        self.extend_block(vec![], f)
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
        self.transpose(b.v, &perm)
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
        self.broadcast_in_dim(b.v, &shape, &dims)
    }

    /// Broadcasts a `[B]` predicate (or any `[B]` value) to `shape` (batch dimension 0).
    pub fn broadcast_batch(&mut self, v: ValueId, shape: Vec<i64>) -> Result<ValueId> {
        if self.ty(v)?.shape == shape {
            return Ok(v);
        }
        self.broadcast_in_dim(v, &shape, &[0])
    }

    /// `select(pred, a, b)` per example: `pred` has shape `[B]`, `a` and `b` are batched at 0.
    pub fn select_batched(&mut self, pred: ValueId, a: ValueId, b: ValueId) -> Result<ValueId> {
        let shape = self.ty(a)?.shape;
        let p = self.broadcast_batch(pred, shape)?;
        self.select(p, a, b)
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
