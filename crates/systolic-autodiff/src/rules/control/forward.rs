//! Control flow in forward mode: `if`/`case` branches and `while` bodies are differentiated
//! in place (tangents become extra branch results and loop carries). Reverse mode's rules for
//! them are in [`super::reverse`] (they recompute what they need).

use crate::ad::{carries_tangent, Ad};
use crate::builder::Res;
use crate::Error;
use systolic_ir::{Block, Op, OpKind, Region, ReturnKind, ValueId};

/// Runs the ops of `blk` into a fresh op list, returning the list and the values the
/// terminator returns (primals, then tangents of the float positions in `float_pos`).
pub(crate) fn jvp_block(
    ad: &mut Ad,
    blk: &Block,
    float_pos: &[usize],
    with_tangents: bool,
) -> Res<Vec<Op>> {
    let saved = std::mem::take(&mut ad.b.ops);
    let top = ad.top_level;
    ad.top_level = false;
    let r = (|| -> Res<()> {
        if with_tangents {
            ad.run_ops(&blk.ops)?;
        } else {
            for op in &blk.ops {
                if !op.kind.is_terminator() {
                    ad.clone_primal(op)?;
                }
            }
        }
        let ret = blk
            .ops
            .last()
            .filter(|o| o.kind.is_terminator())
            .ok_or_else(|| Error::new("a region without a terminator"))?;
        let mut rets = vec![];
        for &v in &ret.operands {
            rets.push(ad.p(v)?);
        }
        if with_tangents {
            for &i in float_pos {
                let t = ad.t_or_zero(ret.operands[i])?;
                rets.push(t);
            }
        }
        ad.b.ops
            .push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
        Ok(())
    })();
    ad.top_level = top;
    let ops = std::mem::replace(&mut ad.b.ops, saved);
    r.map(|_| ops)
}

pub(crate) fn jvp(ad: &mut Ad, op: &Op) -> Res<()> {
    let float_pos: Vec<usize> = op
        .results
        .iter()
        .enumerate()
        .filter(|(_, &r)| carries_tangent(ad.src.value_type(r)))
        .map(|(i, _)| i)
        .collect();
    let (operands, regions) = match &op.kind {
        OpKind::If | OpKind::Case => {
            let operands = op
                .operands
                .iter()
                .map(|&v| ad.p(v))
                .collect::<Res<Vec<_>>>()?;
            let mut regions = vec![];
            for r in &op.regions {
                let blk = r.entry().ok_or_else(|| Error::new("an empty branch"))?;
                let ops = jvp_block(ad, blk, &float_pos, true)?;
                regions.push(Region::single(Block { args: vec![], ops }));
            }
            (operands, regions)
        }
        OpKind::While => {
            let mut operands = vec![];
            for &v in &op.operands {
                operands.push(ad.p(v)?);
            }
            for &i in &float_pos {
                let t = ad.t_or_zero(op.operands[i])?;
                operands.push(t);
            }
            let mut regions = vec![];
            for (ri, r) in op.regions.iter().enumerate() {
                let blk = r
                    .entry()
                    .ok_or_else(|| Error::new("an empty while region"))?;
                let mut args = vec![];
                for &a in &blk.args {
                    let v = ad.b.param(ad.src.value_type(a).clone());
                    ad.primal.insert(a, v);
                    args.push(v);
                }
                for &i in &float_pos {
                    let a = blk.args[i];
                    let v = ad.b.param(ad.src.value_type(a).clone());
                    if ri == 1 {
                        ad.tangent.insert(a, v);
                    }
                    args.push(v);
                }
                let ops = jvp_block(ad, blk, &float_pos, ri == 1)?;
                regions.push(Region::single(Block { args, ops }));
            }
            (operands, regions)
        }
        _ => unreachable!(),
    };
    let outs: Vec<ValueId> = ad.b.emit_full(op.kind.clone(), operands, regions, None)?;
    let n = op.results.len();
    for (i, &r) in op.results.iter().enumerate() {
        ad.primal.insert(r, outs[i]);
    }
    for (k, &i) in float_pos.iter().enumerate() {
        ad.tangent.insert(op.results[i], outs[n + k]);
    }
    Ok(())
}
