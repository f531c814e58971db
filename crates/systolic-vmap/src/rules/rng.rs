//! rng_bit_generator with a batched state: the op takes one state vector, so a loop runs the
//! generator once per example and writes each example's new state and bits into the batched
//! results. Every example gets exactly what it would get alone (JAX instead draws all the bits
//! from the first example's key, which is not per-example equal).

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::builder::return_region;
use systolic_ir::{ComparisonDirection, DType, Op, OpKind, TensorType, Type};

pub(crate) fn rng_bit_generator(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    if cx.size == 0 {
        return cx.empty_results(op);
    }
    let state = cx.move_to(args[0], 0)?;
    let st = cx.src_ty(op.results[0])?;
    let bt = cx.src_ty(op.results[1])?;
    let declared = vec![Type::Tensor(st.clone()), Type::Tensor(bt.clone())];
    let words = st.shape[0];
    let batched_bits = cx.batched_type(&bt, 0);
    let zero = cx.scalar(bt.dtype, 0.0)?;
    let bits0 = cx.broadcast_in_dim(zero, &batched_bits.shape, &[])?;
    let i0 = cx.scalar(DType::I64, 0.0)?;
    let it = Type::Tensor(TensorType::scalar(DType::I64));
    let carry_types = [
        it.clone(),
        Type::Tensor(cx.ty(state)?),
        Type::Tensor(batched_bits.clone()),
    ];
    // cond: i < B
    let c: Vec<_> = carry_types.iter().map(|t| cx.param(t.clone())).collect();
    let (cond_ops, p) = cx.in_block(|cx| {
        let size = cx.size as f64;
        let n = cx.scalar(DType::I64, size)?;
        cx.compare(ComparisonDirection::Lt, c[0], n)
    })?;
    let cond = return_region(c.clone(), cond_ops, vec![p]);
    // body: one example's generator
    let b: Vec<_> = carry_types.iter().map(|t| cx.param(t.clone())).collect();
    let (body_ops, outs) = cx.in_block(|cx| {
        let z = cx.scalar(DType::I64, 0.0)?;
        let s = cx.emit(
            OpKind::DynamicSlice {
                slice_sizes: vec![1, words],
            },
            vec![state, b[0], z],
        )?;
        let s = cx.reshape(s, &[words])?;
        let rs = cx.emit_full(op.kind.clone(), vec![s], vec![], Some(declared.clone()))?;
        let ns = cx.reshape(rs[0], &[1, words])?;
        let states = cx.emit(OpKind::DynamicUpdateSlice, vec![b[1], ns, b[0], z])?;
        let mut one = vec![1];
        one.extend(&bt.shape);
        let nb = cx.reshape(rs[1], &one)?;
        let mut idx = vec![b[2], nb, b[0]];
        idx.extend(std::iter::repeat_n(z, bt.rank()));
        let bits = cx.emit(OpKind::DynamicUpdateSlice, idx)?;
        let one = cx.scalar(DType::I64, 1.0)?;
        let i = cx.binary(systolic_ir::BinaryOp::Add, b[0], one)?;
        Ok(vec![i, states, bits])
    })?;
    let body = return_region(b.clone(), body_ops, outs);
    let rs = cx.emit_full(
        OpKind::While,
        vec![i0, state, bits0],
        vec![cond, body],
        None,
    )?;
    Ok(vec![BVal::at(rs[1], 0), BVal::at(rs[2], 0)])
}
