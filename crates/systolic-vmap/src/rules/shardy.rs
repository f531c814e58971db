//! Shardy's ops. `sdy.sharding_constraint` keeps its layout request on the batched value,
//! with the batch dimension left open (`{?}`) for the partitioner to decide.
//! `sdy.manual_computation` (JAX's `shard_map`) becomes the manual computation of the batched
//! body: a batched operand enters with the batch dimension where it has it and that dimension
//! unsharded (an empty, closed dimension sharding inserted at its position), so every device
//! sees every example of its piece; the body is batched as any function is (its collectives by
//! their own rules), and each batched result leaves the same way, its batch dimension
//! unsharded. Unbatched operands and results keep their shardings.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{
    Block, DimSharding, ManualComputationAttrs, Op, OpKind, Region, ReturnKind, SdySharding, Type,
};

pub(crate) fn sharding_constraint(
    cx: &mut Cx,
    args: &[BVal],
    sharding: &SdySharding,
) -> Result<Vec<BVal>> {
    let d = args[0].bdim.expect("batched");
    let batched = with_batch_dim(cx, sharding, d, false)?;
    let r = cx.emit(
        OpKind::ShardingConstraint(Box::new(batched)),
        vec![args[0].v],
    )?;
    Ok(vec![BVal::at(r, d)])
}

/// `sharding` with an unsharded dimension at `d` (closed, or open to the partitioner).
fn with_batch_dim(cx: &Cx, sharding: &SdySharding, d: usize, closed: bool) -> Result<SdySharding> {
    if d > sharding.dims.len() {
        return Err(cx.err(format!(
            "batch dimension {d} is past the {} dimensions its sharding describes",
            sharding.dims.len()
        )));
    }
    let mut batched = sharding.clone();
    batched.dims.insert(
        d,
        DimSharding {
            axes: vec![],
            closed,
            priority: None,
        },
    );
    Ok(batched)
}

/// `sdy.manual_computation` over batched operands; see the module docs.
pub(crate) fn manual_computation(
    cx: &mut Cx,
    op: &Op,
    args: &[BVal],
    attrs: &ManualComputationAttrs,
) -> Result<Vec<BVal>> {
    let body = op
        .regions
        .first()
        .and_then(|r| r.entry())
        .ok_or_else(|| cx.err("has no body"))?;
    if body.args.len() != args.len() || attrs.in_shardings.len() != args.len() {
        return Err(cx.err(format!(
            "has {} operands, {} body arguments and {} in_shardings",
            args.len(),
            body.args.len(),
            attrs.in_shardings.len()
        )));
    }
    let mut in_shardings = vec![];
    let mut block_args = vec![];
    for ((&a, arg), s) in body.args.iter().zip(args).zip(&attrs.in_shardings) {
        let local = cx.src_ty(a)?;
        let (ty, sharding) = match arg.bdim {
            Some(d) => (cx.batched_type(&local, d), with_batch_dim(cx, s, d, true)?),
            None => (local, s.clone()),
        };
        let v = cx.param(Type::Tensor(ty));
        block_args.push(BVal { v, bdim: arg.bdim });
        in_shardings.push(sharding);
    }
    let (ops, outs) = cx.run_region(&op.regions[0], &block_args)?;
    if outs.len() != op.results.len() || attrs.out_shardings.len() != op.results.len() {
        return Err(cx.err(format!(
            "returns {} values for {} results and {} out_shardings",
            outs.len(),
            op.results.len(),
            attrs.out_shardings.len()
        )));
    }
    let mut out_shardings = vec![];
    let mut declared = vec![];
    for ((o, &r), s) in outs.iter().zip(&op.results).zip(&attrs.out_shardings) {
        let global = cx.src_ty(r)?;
        let (ty, sharding) = match o.bdim {
            Some(d) => (cx.batched_type(&global, d), with_batch_dim(cx, s, d, true)?),
            None => (global, s.clone()),
        };
        declared.push(Type::Tensor(ty));
        out_shardings.push(sharding);
    }
    let mut ops = ops;
    ops.push(Op::new(
        OpKind::Return(ReturnKind::Sdy),
        outs.iter().map(|o| o.v).collect(),
        vec![],
    ));
    let region = Region::single(Block {
        args: block_args.iter().map(|a| a.v).collect(),
        ops,
    });
    let kind = OpKind::ManualComputation(Box::new(ManualComputationAttrs {
        in_shardings,
        out_shardings,
        manual_axes: attrs.manual_axes.clone(),
    }));
    let results = cx.emit_full(
        kind,
        args.iter().map(|a| a.v).collect(),
        vec![region],
        Some(declared),
    )?;
    Ok(results
        .into_iter()
        .zip(&outs)
        .map(|(v, o)| BVal { v, bdim: o.bdim })
        .collect())
}
