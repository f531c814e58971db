//! rng_bit_generator with a batched state, as JAX batches it
//! (`_rng_bit_generator_batching_rule` in `jax/_src/lax/control_flow/loops.py`, jax 0.10.2):
//! one generator runs on the *first* example's state for bits of shape `(B, *shape)`, and the
//! new states are the old ones with the first example's replaced by the generator's new state
//! (the other examples' states come back unchanged). So example `i` does not get what it
//! would get alone, but `vmap` of a JAX program gives JAX's numbers bit for bit (checked
//! against JAX's outputs in tests/rng.rs); one generator call also costs one call, not `B`.
//! An unbatched state stays unbatched (the op is copied; its results are shared).

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{OpKind, Type};

pub(crate) fn rng_bit_generator(
    cx: &mut Cx,
    op: &systolic_ir::Op,
    args: &[BVal],
) -> Result<Vec<BVal>> {
    if cx.size == 0 {
        return cx.empty_results(op);
    }
    let states = cx.move_to(args[0], 0)?;
    let st = cx.src_ty(op.results[0])?;
    let bt = cx.src_ty(op.results[1])?;
    let words = st.shape[0];
    let first = cx.emit(
        OpKind::Slice {
            start_indices: vec![0, 0],
            limit_indices: vec![1, words],
            strides: vec![1, 1],
        },
        vec![states],
    )?;
    let first = cx.reshape(first, &[words])?;
    let declared = vec![
        Type::Tensor(st.clone()),
        Type::Tensor(cx.batched_type(&bt, 0)),
    ];
    let rs = cx.emit_full(op.kind.clone(), vec![first], vec![], Some(declared))?;
    let new_first = cx.reshape(rs[0], &[1, words])?;
    let zero = cx.scalar(systolic_ir::DType::I64, 0.0)?;
    let new_states = cx.emit(
        OpKind::DynamicUpdateSlice,
        vec![states, new_first, zero, zero],
    )?;
    Ok(vec![BVal::at(new_states, 0), BVal::at(rs[1], 0)])
}
