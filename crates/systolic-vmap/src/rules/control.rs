//! Control flow: while, if, case, optimization_barrier.
//!
//! - `while` with an unbatched predicate stays a loop; a carry is batched when its initial value
//!   is or when the body makes it so (found by iterating to a fixed point).
//! - `while` with a batched predicate (as JAX does): every carry is batched, the loop runs while
//!   any example's predicate holds, and the body keeps the old carry of finished examples by a
//!   select on their predicate.
//! - `if`/`case` with an unbatched predicate stay; results batched in any branch are batched in
//!   all. With a batched predicate every branch runs and the results are selected per example.
//!
//! Regions may use batched values of the enclosing function directly (MLIR's implicit capture).

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::builder::return_region;
use systolic_ir::{BinaryOp, ComparisonDirection, DType, Op, OpKind, Region, Type, ValueId};

impl Cx<'_> {
    /// Batches the ops of `region`'s block into the block under construction.
    fn run_inline(&mut self, region: &Region, args: &[BVal]) -> Result<Vec<BVal>> {
        let block = region
            .entry()
            .ok_or_else(|| self.err("a region has no block"))?;
        for (&a, &b) in block.args.iter().zip(args) {
            self.map.insert(a, b);
        }
        self.run_ops(block)
    }

    /// Fresh block arguments for carries of `op` (batched at 0 where `batched`).
    fn carry_args(&mut self, op: &Op, batched: &[bool]) -> Result<Vec<BVal>> {
        op.operands
            .iter()
            .zip(batched)
            .map(|(&v, &b)| {
                let t = self.src_ty(v)?;
                Ok(if b {
                    let ty = self.batched_type(&t, 0);
                    BVal::at(self.param(Type::Tensor(ty)), 0)
                } else {
                    BVal::un(self.param(Type::Tensor(t)))
                })
            })
            .collect()
    }
}

pub(crate) fn barrier(cx: &mut Cx, args: &[BVal]) -> Result<Vec<BVal>> {
    let rs = cx.emit_full(
        OpKind::OptimizationBarrier,
        args.iter().map(|a| a.v).collect(),
        vec![],
        None,
    )?;
    Ok(rs
        .into_iter()
        .zip(args)
        .map(|(v, a)| BVal { v, bdim: a.bdim })
        .collect())
}

pub(crate) fn while_loop(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let mut batched: Vec<bool> = args.iter().map(BVal::batched).collect();
    loop {
        let cargs = cx.carry_args(op, &batched)?;
        let (cond_ops, cond_out) = cx.run_region(&op.regions[0], &cargs)?;
        if cond_out[0].batched() {
            return batched_while(cx, op, args);
        }
        let bargs = cx.carry_args(op, &batched)?;
        let (body_ops, body_out) = cx.run_region(&op.regions[1], &bargs)?;
        let mut grew = false;
        for (b, o) in batched.iter_mut().zip(&body_out) {
            if o.batched() && !*b {
                *b = true;
                grew = true;
            }
        }
        if grew {
            continue;
        }
        let (body_ops, outs) = cx.extend_block(body_ops, |cx| {
            body_out
                .iter()
                .zip(&batched)
                .map(|(&o, &b)| if b { cx.materialize(o, 0) } else { Ok(o.v) })
                .collect::<Result<Vec<_>>>()
        })?;
        let cond = return_region(
            cargs.iter().map(|a| a.v).collect(),
            cond_ops,
            vec![cond_out[0].v],
        );
        let body = return_region(bargs.iter().map(|a| a.v).collect(), body_ops, outs);
        let inits = args
            .iter()
            .zip(&batched)
            .map(|(&a, &b)| if b { cx.materialize(a, 0) } else { Ok(a.v) })
            .collect::<Result<Vec<_>>>()?;
        let rs = cx.emit_full(OpKind::While, inits, vec![cond, body], None)?;
        return Ok(rs
            .into_iter()
            .zip(&batched)
            .map(|(v, &b)| BVal {
                v,
                bdim: b.then_some(0),
            })
            .collect());
    }
}

/// `any(pred)` of a `[B]` predicate.
fn any(cx: &mut Cx, pred: ValueId) -> Result<ValueId> {
    let f = cx.scalar(DType::Bool, 0.0)?;
    let body = cx.reducer(BinaryOp::Or, DType::Bool)?;
    let r = cx.emit_full(
        OpKind::Reduce {
            dimensions: vec![0],
        },
        vec![pred, f],
        vec![body],
        None,
    )?;
    Ok(r[0])
}

fn batched_while(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let all = vec![true; args.len()];
    let cargs = cx.carry_args(op, &all)?;
    let (cond_ops, pred) = cx.in_block(|cx| {
        let p = cx.run_inline(&op.regions[0], &cargs)?[0];
        let p = cx.materialize(p, 0)?;
        any(cx, p)
    })?;
    let bargs = cx.carry_args(op, &all)?;
    let (body_ops, outs) = cx.in_block(|cx| {
        let p = cx.run_inline(&op.regions[0], &bargs)?[0];
        let p = cx.materialize(p, 0)?;
        let new = cx.run_inline(&op.regions[1], &bargs)?;
        let mut outs = vec![];
        for (n, old) in new.iter().zip(&bargs) {
            let n = cx.materialize(*n, 0)?;
            outs.push(cx.select_batched(p, n, old.v)?);
        }
        Ok(outs)
    })?;
    let cond = return_region(cargs.iter().map(|a| a.v).collect(), cond_ops, vec![pred]);
    let body = return_region(bargs.iter().map(|a| a.v).collect(), body_ops, outs);
    let inits = args
        .iter()
        .map(|&a| cx.materialize(a, 0))
        .collect::<Result<Vec<_>>>()?;
    let rs = cx.emit_full(OpKind::While, inits, vec![cond, body], None)?;
    Ok(rs.into_iter().map(|v| BVal::at(v, 0)).collect())
}

pub(crate) fn branch(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let is_if = matches!(op.kind, OpKind::If);
    if !args[0].batched() {
        let mut branches = vec![];
        for r in &op.regions {
            branches.push(cx.run_region(r, &[])?);
        }
        let n = op.results.len();
        let batched: Vec<bool> = (0..n)
            .map(|j| branches.iter().any(|(_, outs)| outs[j].batched()))
            .collect();
        let mut regions = vec![];
        for (ops, outs) in branches {
            let (ops, vals) = cx.extend_block(ops, |cx| {
                outs.iter()
                    .zip(&batched)
                    .map(|(&o, &b)| if b { cx.materialize(o, 0) } else { Ok(o.v) })
                    .collect::<Result<Vec<_>>>()
            })?;
            regions.push(return_region(vec![], ops, vals));
        }
        let rs = cx.emit_full(op.kind.clone(), vec![args[0].v], regions, None)?;
        return Ok(rs
            .into_iter()
            .zip(&batched)
            .map(|(v, &b)| BVal {
                v,
                bdim: b.then_some(0),
            })
            .collect());
    }
    let mut outs = vec![];
    for r in &op.regions {
        let o = cx.run_inline(r, &[])?;
        outs.push(
            o.into_iter()
                .map(|b| cx.materialize(b, 0))
                .collect::<Result<Vec<_>>>()?,
        );
    }
    let p = cx.move_to(args[0], 0)?;
    let n = op.results.len();
    let mut results = vec![];
    if is_if {
        for (&t, &f) in outs[0].iter().zip(&outs[1]) {
            results.push(cx.select_batched(p, t, f)?);
        }
    } else {
        let k = outs.len() as i64;
        let dt = cx.ty(p)?.dtype;
        // An index out of range runs the last branch.
        let zero = cx.scalar(dt, 0.0)?;
        let last = cx.scalar(dt, (k - 1) as f64)?;
        let shape = cx.ty(p)?.shape;
        let zero = cx.broadcast_in_dim(zero, &shape, &[])?;
        let lastb = cx.broadcast_in_dim(last, &shape, &[])?;
        let neg = cx.compare(ComparisonDirection::Lt, p, zero)?;
        let big = cx.compare(ComparisonDirection::Gt, p, lastb)?;
        let oob = cx.binary(BinaryOp::Or, neg, big)?;
        let idx = cx.select(oob, lastb, p)?;
        for j in 0..n {
            let mut r = outs[k as usize - 1][j];
            for (b, branch_outs) in outs.iter().enumerate().take(k as usize - 1).rev() {
                let kb = cx.scalar(dt, b as f64)?;
                let kb = cx.broadcast_in_dim(kb, &shape, &[])?;
                let eq = cx.compare(ComparisonDirection::Eq, idx, kb)?;
                r = cx.select_batched(eq, branch_outs[j], r)?;
            }
            results.push(r);
        }
    }
    Ok(results.into_iter().map(|v| BVal::at(v, 0)).collect())
}
