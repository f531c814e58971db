//! rng_bit_generator: the state is one vector per example, and the op takes one state, so a
//! batched state runs the generator once per example (unrolled) and stacks the results.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{Op, OpKind, Type};

pub(crate) fn rng_bit_generator(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    if cx.size == 0 {
        return cx.empty_results(op);
    }
    let state = cx.move_to(args[0], 0)?;
    let st = cx.src_ty(op.results[0])?;
    let bt = cx.src_ty(op.results[1])?;
    let declared = vec![Type::Tensor(st.clone()), Type::Tensor(bt.clone())];
    let words = st.shape[0];
    let (mut states, mut bits) = (vec![], vec![]);
    for i in 0..cx.size {
        let s = cx.emit1(
            OpKind::Slice {
                start_indices: vec![i, 0],
                limit_indices: vec![i + 1, words],
                strides: vec![1, 1],
            },
            vec![state],
            None,
        )?;
        let s = cx.reshape(s, vec![words])?;
        let rs = cx.emit(op.kind.clone(), vec![s], vec![], Some(declared.clone()))?;
        let mut one = vec![1];
        one.extend(&st.shape);
        states.push(cx.reshape(rs[0], one)?);
        let mut one = vec![1];
        one.extend(&bt.shape);
        bits.push(cx.reshape(rs[1], one)?);
    }
    let s = cx.concatenate(states, 0)?;
    let b = cx.concatenate(bits, 0)?;
    Ok(vec![BVal::at(s, 0), BVal::at(b, 0)])
}
