//! Building a function op by op, with every op's result types inferred by the verifier's
//! [`infer_result_types`](crate::verify::infer_result_types): an op that would not verify is
//! refused when it is made, not found later in a whole module. The IR→IR transformations
//! (autodiff, vmap) emit their rules' ops through it; each keeps only its own bookkeeping
//! (tangents, batch dimensions) on top.
//!
//! [`FuncBuilder`] is generic over the error type `E` its users want (`E: From<BuildError>`), so
//! a transformation's rules use the builder's helpers with `?` in their own error type.
//!
//! ```
//! use systolic_ir::builder::FuncBuilder;
//! use systolic_ir::{DType, Type};
//!
//! // f(x: f32[2,3]) = transpose(x * 2) as f64
//! let mut b: FuncBuilder = FuncBuilder::new("f");
//! let x = b.param(Type::tensor(vec![2, 3], DType::F32));
//! let twice = b.mul_const(x, 2.0).unwrap();
//! let t = b.transpose(twice, &[1, 0]).unwrap();
//! let y = b.convert(t, DType::F64).unwrap();
//! let f = b.into_func(vec![x], vec![y]);
//! assert_eq!(f.result_types[0].to_string(), "tensor<3x2xf64>");
//! let m = systolic_ir::Module { funcs: vec![f], ..Default::default() };
//! systolic_ir::verify::verify_module(&m).unwrap();
//!
//! // An op that does not verify is an error naming it and its operand types.
//! let mut b: FuncBuilder = FuncBuilder::new("g");
//! let a = b.param(Type::tensor(vec![2], DType::F32));
//! let c = b.param(Type::tensor(vec![3], DType::F32));
//! let err = b.add(a, c).unwrap_err();
//! assert_eq!(err.op, "stablehlo.add");
//! assert!(err.to_string().contains("tensor<2xf32>, tensor<3xf32>"), "{err}");
//! ```

use crate::attrs::{ComparisonDirection, DotDimensionNumbers, Precision};
use crate::dtype::DType;
use crate::module::{Block, Func, Op, Region, ValueId};
use crate::ops::{BinaryOp, OpKind, ReturnKind, UnaryOp};
use crate::tensor::{Scalar, Tensor};
use crate::types::{TensorType, Type};
use crate::verify::{infer_result_types, RegionSignature};
use crate::walk::{clone_op_from_arena, ValueMap};
use std::fmt;
use std::marker::PhantomData;

/// Why an op could not be built. Users convert it into their own error type (`From`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// The op being built (`stablehlo.add`); empty for a value that is not a tensor.
    pub op: String,
    /// What the builder's user was working on ([`FuncBuilder::context`]); may be empty.
    pub context: String,
    /// The types of the op's operands, when they are what is wrong.
    pub operand_types: Vec<Type>,
    /// What is wrong.
    pub message: String,
}

impl BuildError {
    /// The operand types, comma-separated.
    pub fn operand_list(&self) -> String {
        let ts: Vec<String> = self.operand_types.iter().map(Type::to_string).collect();
        ts.join(", ")
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.op.is_empty() {
            return f.write_str(&self.message);
        }
        write!(
            f,
            "building {} on ({}) failed: {}",
            self.op,
            self.operand_list(),
            self.message
        )
    }
}

impl std::error::Error for BuildError {}

/// A function under construction: its value arena and the op list being filled (the body, or
/// a region being built through [`FuncBuilder::nested`]).
pub struct FuncBuilder<E = BuildError> {
    /// The function: its values (its body is assembled by [`FuncBuilder::into_func`]).
    pub func: Func,
    /// Where emitted ops go.
    pub ops: Vec<Op>,
    /// What the user is working on (e.g. the source op a rule transforms), carried in errors.
    pub context: String,
    error: PhantomData<fn() -> E>,
}

/// A region of one block: `args`, `ops` and a `stablehlo.return` of `results`.
pub fn return_region(args: Vec<ValueId>, mut ops: Vec<Op>, results: Vec<ValueId>) -> Region {
    ops.push(Op::new(
        OpKind::Return(ReturnKind::Stablehlo),
        results,
        vec![],
    ));
    Region::single(Block { args, ops })
}

impl<E: From<BuildError>> FuncBuilder<E> {
    /// An empty function named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        FuncBuilder {
            func: Func::new(name),
            ops: vec![],
            context: String::new(),
            error: PhantomData,
        }
    }

    /// The function with body `params` → ops → `func.return returns`; its result types are the
    /// returned values' types.
    pub fn into_func(self, params: Vec<ValueId>, returns: Vec<ValueId>) -> Func {
        let mut f = self.func;
        f.result_types = returns.iter().map(|&v| f.value_type(v).clone()).collect();
        let mut ops = self.ops;
        ops.push(Op::new(OpKind::Return(ReturnKind::Func), returns, vec![]));
        f.body = Region::single(Block { args: params, ops });
        f
    }

    /// An error about building `op` on operands of `operand_types`.
    pub fn error(
        &self,
        op: impl Into<String>,
        operand_types: Vec<Type>,
        message: impl Into<String>,
    ) -> E {
        E::from(BuildError {
            op: op.into(),
            context: self.context.clone(),
            operand_types,
            message: message.into(),
        })
    }

    /// The type of value `v`.
    pub fn value_type(&self, v: ValueId) -> &Type {
        self.func.value_type(v)
    }

    /// The tensor type of value `v` (an error for tuples and tokens).
    pub fn tensor_type(&self, v: ValueId) -> Result<TensorType, E> {
        match self.func.value_type(v) {
            Type::Tensor(t) => Ok(t.clone()),
            other => Err(self.error(
                "",
                vec![],
                format!("value #{} has type {other}, which is not a tensor", v.0),
            )),
        }
    }

    /// A fresh value of type `ty`, for a parameter or a block argument.
    pub fn param(&mut self, ty: Type) -> ValueId {
        self.func.new_value(ty, None)
    }

    /// Emits `kind` on `operands` with `regions`; the result types are inferred (`declared`
    /// gives them for ops whose results do not follow from their operands, e.g. a reshape).
    pub fn emit_full(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        regions: Vec<Region>,
        declared: Option<Vec<Type>>,
    ) -> Result<Vec<ValueId>, E> {
        let types: Vec<Type> = operands
            .iter()
            .map(|&v| self.func.value_type(v).clone())
            .collect();
        let sigs: Vec<RegionSignature> = regions.iter().map(|r| self.signature(r)).collect();
        let results = match infer_result_types(&kind, &types, &sigs, declared.as_deref()) {
            Ok(r) => r,
            Err(m) => return Err(self.error(kind.name(), types, m)),
        };
        let outs: Vec<ValueId> = results
            .into_iter()
            .map(|t| self.func.new_value(t, None))
            .collect();
        let mut op = Op::new(kind, operands, outs.clone());
        op.regions = regions;
        self.ops.push(op);
        Ok(outs)
    }

    /// The argument and result types of a region's entry block.
    fn signature(&self, r: &Region) -> RegionSignature {
        let Some(b) = r.entry() else {
            return RegionSignature::default();
        };
        let types = |vs: &[ValueId]| -> Vec<Type> {
            vs.iter()
                .map(|&v| self.func.value_type(v).clone())
                .collect()
        };
        let results = b.ops.last().map(|t| types(&t.operands)).unwrap_or_default();
        RegionSignature::new(types(&b.args), results)
    }

    /// [`FuncBuilder::emit_full`] for an op without regions and with one inferred result.
    pub fn emit(&mut self, kind: OpKind, operands: Vec<ValueId>) -> Result<ValueId, E> {
        Ok(self.emit_full(kind, operands, vec![], None)?[0])
    }

    /// [`FuncBuilder::emit_full`] for an op without regions whose one result has type `ty`.
    pub fn emit_as(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        ty: TensorType,
    ) -> Result<ValueId, E> {
        Ok(self.emit_full(kind, operands, vec![], Some(vec![Type::Tensor(ty)]))?[0])
    }

    /// Runs `f` with an empty op list; returns the ops it emitted (the body of a region being
    /// built) and what it returned. The op list is restored even when `f` fails.
    pub fn nested<R, F>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<R, F>,
    ) -> Result<(Vec<Op>, R), F> {
        let saved = std::mem::take(&mut self.ops);
        let r = f(self);
        let ops = std::mem::replace(&mut self.ops, saved);
        Ok((ops, r?))
    }

    /// A region with block arguments `args` whose body `f` builds, returning the values the
    /// region yields (`stablehlo.return`).
    pub fn region<F>(
        &mut self,
        args: Vec<ValueId>,
        f: impl FnOnce(&mut Self) -> Result<Vec<ValueId>, F>,
    ) -> Result<Region, F> {
        let (ops, results) = self.nested(f)?;
        Ok(return_region(args, ops, results))
    }

    /// A copy of a region of the built function with fresh values, for regions that capture
    /// no outer values (reducers, comparators) and are needed twice.
    pub fn copy_region(&mut self, r: &Region) -> Result<Region, E> {
        let arena = self.func.values.clone();
        let holder = Op {
            regions: vec![r.clone()],
            ..Op::new(OpKind::OptimizationBarrier, vec![], vec![])
        };
        let mut map = ValueMap::new();
        let c = clone_op_from_arena(&arena, &holder, &mut self.func, &mut map)
            .map_err(|e| self.error("", vec![], e.message))?;
        Ok(c.regions.into_iter().next().unwrap_or_default())
    }

    // ---- constants

    /// A `stablehlo.constant`.
    pub fn constant(&mut self, t: Tensor) -> Result<ValueId, E> {
        self.emit(OpKind::Constant(t), vec![])
    }

    /// A rank-0 constant `x` of `dtype` (booleans: `x != 0`; unsigned: negative values become
    /// 0; complex: `x + 0i`). Exact for integers up to 2^53; larger ones go through
    /// [`FuncBuilder::constant`].
    pub fn scalar(&mut self, dtype: DType, x: f64) -> Result<ValueId, E> {
        let s = if dtype.is_complex() {
            Scalar::Complex(crate::Complex64::new(x, 0.0))
        } else if dtype.is_float() {
            Scalar::Float(x)
        } else if dtype.is_bool() {
            Scalar::Bool(x != 0.0)
        } else if dtype.is_unsigned_integer() {
            Scalar::UInt(x as u64)
        } else {
            Scalar::Int(x as i64)
        };
        match Tensor::splat(TensorType::scalar(dtype), s) {
            Ok(t) => self.constant(t),
            Err(e) => Err(self.error("stablehlo.constant", vec![], e.to_string())),
        }
    }

    /// A tensor of type `ty` filled with `x` (a scalar constant broadcast).
    pub fn full(&mut self, ty: &TensorType, x: f64) -> Result<ValueId, E> {
        let s = self.scalar(ty.dtype, x)?;
        if ty.shape.is_empty() {
            return Ok(s);
        }
        self.broadcast_in_dim(s, &ty.shape, &[])
    }

    /// A tensor filled with `x`, of the shape and dtype of `like`.
    pub fn full_like(&mut self, like: ValueId, x: f64) -> Result<ValueId, E> {
        let ty = self.tensor_type(like)?;
        self.full(&ty, x)
    }

    /// Zeros of type `ty`.
    pub fn zeros(&mut self, ty: &TensorType) -> Result<ValueId, E> {
        self.full(ty, 0.0)
    }

    // ---- elementwise

    /// An elementwise unary op.
    pub fn unary(&mut self, op: UnaryOp, a: ValueId) -> Result<ValueId, E> {
        self.emit(OpKind::Unary(op), vec![a])
    }

    /// An elementwise binary op.
    pub fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> Result<ValueId, E> {
        self.emit(OpKind::Binary(op), vec![a, b])
    }

    /// `a + b`.
    pub fn add(&mut self, a: ValueId, b: ValueId) -> Result<ValueId, E> {
        self.binary(BinaryOp::Add, a, b)
    }

    /// `a - b`.
    pub fn sub(&mut self, a: ValueId, b: ValueId) -> Result<ValueId, E> {
        self.binary(BinaryOp::Subtract, a, b)
    }

    /// `a * b`.
    pub fn mul(&mut self, a: ValueId, b: ValueId) -> Result<ValueId, E> {
        self.binary(BinaryOp::Multiply, a, b)
    }

    /// `a / b`.
    pub fn div(&mut self, a: ValueId, b: ValueId) -> Result<ValueId, E> {
        self.binary(BinaryOp::Divide, a, b)
    }

    /// `-a`.
    pub fn neg(&mut self, a: ValueId) -> Result<ValueId, E> {
        self.unary(UnaryOp::Negate, a)
    }

    /// `a * x` for a constant `x`.
    pub fn mul_const(&mut self, a: ValueId, x: f64) -> Result<ValueId, E> {
        let c = self.full_like(a, x)?;
        self.mul(a, c)
    }

    /// `a + x` for a constant `x`.
    pub fn add_const(&mut self, a: ValueId, x: f64) -> Result<ValueId, E> {
        let c = self.full_like(a, x)?;
        self.add(a, c)
    }

    /// `a <direction> b`, elementwise, with the default comparison type.
    pub fn compare(
        &mut self,
        direction: ComparisonDirection,
        a: ValueId,
        b: ValueId,
    ) -> Result<ValueId, E> {
        let kind = OpKind::Compare {
            direction,
            compare_type: None,
        };
        self.emit(kind, vec![a, b])
    }

    /// `p ? a : b`, elementwise (or one scalar predicate).
    pub fn select(&mut self, p: ValueId, a: ValueId, b: ValueId) -> Result<ValueId, E> {
        self.emit(OpKind::Select, vec![p, a, b])
    }

    /// `a` converted to `dtype` (`a` itself when it already has that dtype).
    pub fn convert(&mut self, a: ValueId, dtype: DType) -> Result<ValueId, E> {
        let t = self.tensor_type(a)?;
        if t.dtype == dtype {
            return Ok(a);
        }
        self.emit_as(OpKind::Convert, vec![a], t.with_dtype(dtype))
    }

    // ---- shapes

    /// `a` broadcast to `shape`, its dimension `i` becoming dimension `dims[i]`.
    pub fn broadcast_in_dim(
        &mut self,
        a: ValueId,
        shape: &[i64],
        dims: &[i64],
    ) -> Result<ValueId, E> {
        let ty = TensorType::new(shape.to_vec(), self.tensor_type(a)?.dtype);
        let kind = OpKind::BroadcastInDim {
            broadcast_dimensions: dims.to_vec(),
        };
        self.emit_as(kind, vec![a], ty)
    }

    /// `a` reshaped to `shape` (`a` itself when it has that shape).
    pub fn reshape(&mut self, a: ValueId, shape: &[i64]) -> Result<ValueId, E> {
        let t = self.tensor_type(a)?;
        if t.shape == shape {
            return Ok(a);
        }
        self.emit_as(
            OpKind::Reshape,
            vec![a],
            TensorType::new(shape.to_vec(), t.dtype),
        )
    }

    /// `a` with its dimensions permuted (`a` itself for the identity permutation).
    pub fn transpose(&mut self, a: ValueId, perm: &[i64]) -> Result<ValueId, E> {
        if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
            return Ok(a);
        }
        let kind = OpKind::Transpose {
            permutation: perm.to_vec(),
        };
        self.emit(kind, vec![a])
    }

    /// `a` padded with `value` (low, high and interior padding per dimension).
    pub fn pad(
        &mut self,
        a: ValueId,
        value: ValueId,
        lo: Vec<i64>,
        hi: Vec<i64>,
        interior: Vec<i64>,
    ) -> Result<ValueId, E> {
        let kind = OpKind::Pad {
            edge_padding_low: lo,
            edge_padding_high: hi,
            interior_padding: interior,
        };
        self.emit(kind, vec![a, value])
    }

    /// A strided slice of `a`.
    pub fn slice(
        &mut self,
        a: ValueId,
        start: Vec<i64>,
        limit: Vec<i64>,
        strides: Vec<i64>,
    ) -> Result<ValueId, E> {
        let kind = OpKind::Slice {
            start_indices: start,
            limit_indices: limit,
            strides,
        };
        self.emit(kind, vec![a])
    }

    /// `vs` joined along `dim` (the value itself when there is one).
    pub fn concatenate(&mut self, vs: Vec<ValueId>, dim: i64) -> Result<ValueId, E> {
        if let [v] = vs[..] {
            return Ok(v);
        }
        self.emit(OpKind::Concatenate { dimension: dim }, vs)
    }

    // ---- reductions and products

    /// A scalar binary region `(a, b) -> a op b` over `dtype` (reducers).
    pub fn reducer(&mut self, op: BinaryOp, dtype: DType) -> Result<Region, E> {
        let s = Type::tensor(vec![], dtype);
        let a = self.param(s.clone());
        let b = self.param(s);
        self.region(vec![a, b], |bld| Ok(vec![bld.binary(op, a, b)?]))
    }

    /// The sum of `a` over `dims` (`a` itself for no dimensions).
    pub fn reduce_sum(&mut self, a: ValueId, dims: &[i64]) -> Result<ValueId, E> {
        if dims.is_empty() {
            return Ok(a);
        }
        let dt = self.tensor_type(a)?.dtype;
        let zero = self.scalar(dt, 0.0)?;
        let region = self.reducer(BinaryOp::Add, dt)?;
        let kind = OpKind::Reduce {
            dimensions: dims.to_vec(),
        };
        Ok(self.emit_full(kind, vec![a, zero], vec![region], None)?[0])
    }

    /// `dot_general(a, b)` with result element type `dtype` (which may differ from the
    /// operands', as a preferred element type does).
    pub fn dot_general(
        &mut self,
        a: ValueId,
        b: ValueId,
        dn: DotDimensionNumbers,
        precision: Vec<Precision>,
        dtype: DType,
    ) -> Result<ValueId, E> {
        let kind = OpKind::DotGeneral {
            dimension_numbers: dn,
            precision_config: precision,
            algorithm: None,
        };
        // The shape first: with a declared type, the rule takes its element type as given.
        let types = vec![self.value_type(a).clone(), self.value_type(b).clone()];
        let probe = Type::tensor(vec![], dtype);
        let shape = match infer_result_types(&kind, &types, &[], Some(&[probe])) {
            Ok(t) => t[0]
                .as_tensor()
                .map(|t| t.shape.clone())
                .unwrap_or_default(),
            Err(m) => return Err(self.error(kind.name(), types, m)),
        };
        self.emit_as(kind, vec![a, b], TensorType::new(shape, dtype))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::verify_module;
    use crate::Module;

    fn verify(f: Func) -> Func {
        let m = Module {
            funcs: vec![f],
            ..Default::default()
        };
        verify_module(&m).unwrap_or_else(|d| panic!("{d:?}"));
        m.funcs.into_iter().next().unwrap()
    }

    fn f32s(shape: &[i64]) -> Type {
        Type::tensor(shape.to_vec(), DType::F32)
    }

    #[test]
    fn helpers_skip_no_op_changes() {
        let mut b: FuncBuilder = FuncBuilder::new("f");
        let x = b.param(f32s(&[2, 3]));
        assert_eq!(b.transpose(x, &[0, 1]).unwrap(), x);
        assert_eq!(b.reshape(x, &[2, 3]).unwrap(), x);
        assert_eq!(b.convert(x, DType::F32).unwrap(), x);
        assert_eq!(b.reduce_sum(x, &[]).unwrap(), x);
        assert_eq!(b.concatenate(vec![x], 0).unwrap(), x);
        assert!(b.ops.is_empty());
    }

    #[test]
    fn built_ops_verify_with_inferred_types() {
        let mut b: FuncBuilder = FuncBuilder::new("f");
        let x = b.param(f32s(&[2, 3]));
        let y = b.param(f32s(&[3]));
        let yb = b.broadcast_in_dim(y, &[2, 3], &[1]).unwrap();
        let s = b.sub(x, yb).unwrap();
        let zero = b.zeros(&TensorType::new(vec![2, 3], DType::F32)).unwrap();
        let p = b.compare(ComparisonDirection::Gt, s, zero).unwrap();
        let r = b.select(p, s, zero).unwrap();
        let sum = b.reduce_sum(r, &[1]).unwrap();
        let r6 = b.reshape(r, &[6]).unwrap();
        let both = b.concatenate(vec![r6, r6], 0).unwrap();
        let pad = b.scalar(DType::F32, 0.0).unwrap();
        let padded = b.pad(both, pad, vec![1], vec![0], vec![0]).unwrap();
        let sl = b.slice(padded, vec![1], vec![13], vec![2]).unwrap();
        let dn = DotDimensionNumbers {
            lhs_contracting_dimensions: vec![1],
            rhs_contracting_dimensions: vec![0],
            ..Default::default()
        };
        let xt = b.transpose(x, &[1, 0]).unwrap();
        let prod = b.dot_general(x, xt, dn, vec![], DType::F64).unwrap();
        let f = verify(b.into_func(vec![x, y], vec![sum, sl, prod]));
        let results: Vec<String> = f.result_types.iter().map(Type::to_string).collect();
        assert_eq!(
            results,
            ["tensor<2xf32>", "tensor<6xf32>", "tensor<2x2xf64>"]
        );
    }

    #[test]
    fn regions_are_built_apart_and_copied_with_fresh_values() {
        let mut b: FuncBuilder = FuncBuilder::new("f");
        let x = b.param(f32s(&[4]));
        let r = b.reducer(BinaryOp::Maximum, DType::F32).unwrap();
        let copy = b.copy_region(&r).unwrap();
        let (old, new) = (&r.blocks[0], &copy.blocks[0]);
        assert_eq!(new.args.len(), 2);
        assert!(new.args.iter().all(|a| !old.args.contains(a)));
        assert!(b.ops.is_empty(), "regions are built apart from the body");
        let init = b.scalar(DType::F32, f64::NEG_INFINITY).unwrap();
        let kind = OpKind::Reduce {
            dimensions: vec![0],
        };
        let m = b.emit_full(kind, vec![x, init], vec![copy], None).unwrap();
        verify(b.into_func(vec![x], m));
    }

    #[test]
    fn a_failing_nested_build_restores_the_op_list() {
        let mut b: FuncBuilder = FuncBuilder::new("f");
        let x = b.param(f32s(&[2]));
        b.neg(x).unwrap();
        let r: Result<(Vec<Op>, ()), BuildError> = b.nested(|b| {
            b.neg(x)?;
            Err(b.error("test.op", vec![], "stop"))
        });
        assert_eq!(r.unwrap_err().message, "stop");
        assert_eq!(b.ops.len(), 1);
    }

    #[test]
    fn errors_name_the_op_operand_types_and_context() {
        let mut b: FuncBuilder = FuncBuilder::new("f");
        b.context = "stablehlo.sine".into();
        let x = b.param(f32s(&[2]));
        let i = b.param(Type::tensor(vec![2], DType::I32));
        let err = b.mul(x, i).unwrap_err();
        assert_eq!(err.op, "stablehlo.multiply");
        assert_eq!(err.context, "stablehlo.sine");
        assert_eq!(err.operand_list(), "tensor<2xf32>, tensor<2xi32>");
        let tok = b.param(Type::Token);
        let err = b.reshape(tok, &[1]).unwrap_err();
        assert!(err.to_string().contains("not a tensor"), "{err}");
    }

    /// A user error type, converted from [`BuildError`] as the transformations do.
    #[derive(Debug, PartialEq)]
    struct Mine(String);

    impl From<BuildError> for Mine {
        fn from(e: BuildError) -> Self {
            Mine(format!("mine: {e}"))
        }
    }

    #[test]
    fn errors_arrive_in_the_users_type() {
        let mut b: FuncBuilder<Mine> = FuncBuilder::new("f");
        let x = b.param(f32s(&[2]));
        let err = b.transpose(x, &[1, 0]).unwrap_err();
        assert!(
            err.0.starts_with("mine: building stablehlo.transpose"),
            "{err:?}"
        );
    }
}
