//! Control flow in reverse mode. While linearizing, an active `if`/`case`/`while` becomes a
//! placeholder op in the linear program ([`linearize_control`]; a `while` with a static trip
//! count first runs forward with its carries stacked); at transposition the placeholder's
//! backward rule ([`custom_backward`]) emits a backward `case` whose branches recompute their
//! forward values, or a backward loop over the stacked carries.

use crate::ad::{captured, carries_tangent, Ad};
use crate::builder::{AdBuilder, Res};
use crate::vjp::vjp_block_recomputing;
use crate::Error;
use systolic_ir::{
    Attribute, Block, ComparisonDirection, DType, Op, OpKind, Region, ReturnKind, Type, ValueId,
};

/// The call target of the placeholder ops that stand for control flow in the linear program.
const CUSTOM: &str = "systolic.ad.control";

/// A control-flow op (or a manual computation) seen while linearizing: its backward rule runs
/// at transposition.
#[derive(Clone, Debug)]
pub(crate) struct Custom {
    /// The source op.
    pub(crate) op: Op,
    /// Source values whose tangents are the placeholder's operands, in order.
    pub(crate) inputs: Vec<ValueId>,
    /// For each input, the operand position it comes from (`None`: captured by a region).
    pub(crate) in_pos: Vec<Option<usize>>,
    /// For a while loop: the forward loop's stacked carries and the trip count.
    stacks: Vec<ValueId>,
    trip: i64,
    counter: usize,
    /// For a function with a custom VJP (`crate::custom`): its backward rule and what it
    /// reads.
    pub(crate) rule: Option<RuleState>,
}

/// A custom VJP applied while linearizing: the backward function and the built values it
/// reads (residuals, the primal outputs for their types, the captured arrays).
#[derive(Clone, Debug)]
pub(crate) struct RuleState {
    pub(crate) bwd: systolic_ir::Func,
    pub(crate) residuals: Vec<ValueId>,
    pub(crate) primals: Vec<ValueId>,
    pub(crate) captures: Vec<ValueId>,
}

impl Custom {
    /// The record of a custom VJP placeholder (`op` is the function's opening barrier).
    pub(crate) fn rule(
        op: Op,
        inputs: Vec<ValueId>,
        in_pos: Vec<Option<usize>>,
        state: RuleState,
    ) -> Custom {
        Custom {
            op,
            inputs,
            in_pos,
            stacks: vec![],
            trip: 0,
            counter: 0,
            rule: Some(state),
        }
    }
}

/// The placeholder op standing for record `k` of `ad.customs` in the linear program.
pub(crate) fn placeholder(k: usize, lin_in: Vec<ValueId>, lin_out: Vec<ValueId>) -> Op {
    Op::new(
        OpKind::CustomCall {
            call_target_name: CUSTOM.into(),
            has_side_effect: false,
            backend_config: Some(Attribute::Int(k as i64, None)),
            api_version: 0,
            called_computations: vec![],
        },
        lin_in,
        lin_out,
    )
}

pub(crate) fn custom_index(op: &Op) -> Option<usize> {
    match &op.kind {
        OpKind::CustomCall {
            call_target_name,
            backend_config: Some(Attribute::Int(k, _)),
            ..
        } if call_target_name == CUSTOM => Some(*k as usize),
        _ => None,
    }
}

/// Records an active `if`/`case`/`while` (or `sdy.manual_computation`, whose backward rule is
/// in `rules/manual_computation.rs`) in the linear program.
pub(crate) fn linearize_control(ad: &mut Ad, op: &Op) -> Res<()> {
    let mut inputs: Vec<ValueId> = vec![];
    let mut in_pos = vec![];
    if matches!(op.kind, OpKind::While | OpKind::ManualComputation(_)) {
        for (j, v) in op.operands.iter().enumerate() {
            if ad.tangent.contains_key(v) {
                inputs.push(*v);
                in_pos.push(Some(j));
            }
        }
    }
    for v in captured(op) {
        if ad.tangent.contains_key(&v) {
            inputs.push(v);
            in_pos.push(None);
        }
    }
    let mut custom = Custom {
        op: op.clone(),
        inputs: inputs.clone(),
        in_pos,
        stacks: vec![],
        trip: 0,
        counter: 0,
        rule: None,
    };
    if matches!(op.kind, OpKind::While) {
        forward_while(ad, op, &mut custom)?;
    } else {
        ad.clone_primal(op)?;
    }
    let lin_in: Vec<ValueId> = inputs.iter().map(|v| ad.tangent[v]).collect();
    let mut lin_out = vec![];
    for &r in &op.results {
        let ty = ad.src.value_type(r).clone();
        if carries_tangent(&ty) {
            let v = ad.b.param(ty);
            ad.tangent.insert(r, v);
            lin_out.push(v);
        }
    }
    let k = ad.customs.len();
    ad.customs.push(custom);
    ad.b.ops.push(placeholder(k, lin_in, lin_out));
    Ok(())
}

pub(crate) fn custom_backward(
    ad: &mut Ad,
    k: usize,
    cts_out: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let c = ad.customs[k].clone();
    if let Some(state) = &c.rule {
        return crate::custom::backward(ad, &c, state, cts_out);
    }
    match c.op.kind {
        OpKind::If | OpKind::Case => branch_backward(ad, &c, cts_out),
        OpKind::While => while_backward(ad, &c, cts_out),
        OpKind::ManualComputation(_) => crate::rules::manual_computation::backward(ad, &c, cts_out),
        _ => Err(Error::new("internal: unknown control placeholder")),
    }
}

/// Materialised cotangents of the float results of a source op.
pub(crate) fn result_cts(
    ad: &mut Ad,
    op: &Op,
    cts_out: &[Option<ValueId>],
) -> Res<(Vec<usize>, Vec<ValueId>)> {
    let mut pos = vec![];
    let mut cts = vec![];
    let mut k = 0;
    for (i, &r) in op.results.iter().enumerate() {
        if carries_tangent(ad.src.value_type(r)) {
            let c = match cts_out.get(k).copied().flatten() {
                Some(c) => c,
                None => {
                    let ty = ad.b.tt(ad.p(r)?);
                    ad.b.zeros(&ty)?
                }
            };
            pos.push(i);
            cts.push(c);
            k += 1;
        }
    }
    Ok((pos, cts))
}

/// Runs `f` with a fresh op list (not top level); returns the ops.
pub(crate) fn in_region<R>(ad: &mut Ad, f: impl FnOnce(&mut Ad) -> Res<R>) -> Res<(Vec<Op>, R)> {
    let saved = std::mem::take(&mut ad.b.ops);
    let top = ad.top_level;
    ad.top_level = false;
    let r = f(ad);
    ad.top_level = top;
    let ops = std::mem::replace(&mut ad.b.ops, saved);
    Ok((ops, r?))
}

/// `if`/`case`: a backward `case` on the same index whose branches recompute their forward
/// values and return the cotangents of the captured values.
fn branch_backward(
    ad: &mut Ad,
    c: &Custom,
    cts_out: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let op = &c.op;
    let (pos, cts) = result_cts(ad, op, cts_out)?;
    let cts_opt: Vec<Option<ValueId>> = cts.iter().map(|&v| Some(v)).collect();
    let mut regions = vec![];
    for r in &op.regions {
        let blk = r.entry().ok_or_else(|| Error::new("an empty branch"))?;
        let ret = blk
            .ops
            .last()
            .ok_or_else(|| Error::new("a branch without a terminator"))?;
        let outs: Vec<ValueId> = pos.iter().map(|&i| ret.operands[i]).collect();
        let (ops, rets) = in_region(ad, |ad| {
            let res = vjp_block_recomputing(ad, &blk.ops, &c.inputs, &outs, &cts_opt)?;
            let mut rets = vec![];
            for (i, r) in res.into_iter().enumerate() {
                rets.push(match r {
                    Some(v) => v,
                    None => {
                        let ty = ad.b.tt(ad.p(c.inputs[i])?);
                        ad.b.zeros(&ty)?
                    }
                });
            }
            Ok(rets)
        })?;
        let mut ops = ops;
        ops.push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
        regions.push(Region::single(Block { args: vec![], ops }));
    }
    let operands = op
        .operands
        .iter()
        .map(|&v| ad.p(v))
        .collect::<Res<Vec<_>>>()?;
    let outs = ad.b.emit_full(op.kind.clone(), operands, regions, None)?;
    Ok(outs.into_iter().map(Some).collect())
}

/// A loop counting a carry by ±1 between constants.
struct Trip {
    /// Iterations.
    count: i64,
    /// The counter's carry position.
    counter: usize,
    /// +1 when it counts up, -1 when it counts down.
    dir: i64,
}

/// The value of a rank-0 integer constant defined anywhere in `ops` (nested regions too).
fn int_constant(region: &Region, v: ValueId) -> Option<i64> {
    let mut found = None;
    systolic_ir::walk::walk_ops(region, &mut |o, _| {
        if o.results.contains(&v) {
            if let OpKind::Constant(t) = &o.kind {
                if t.num_elements() == 1 {
                    found = match t.get(0) {
                        systolic_ir::Scalar::Int(i) => Some(i),
                        systolic_ir::Scalar::UInt(u) => Some(u as i64),
                        _ => None,
                    };
                }
            }
        }
    });
    found
}

/// The static trip count of a while loop whose condition compares a carry with a constant
/// (or with a carry returned unchanged that starts as a constant) and whose body adds or
/// subtracts one: what `fori_loop` with static bounds and `scan` lower to (and the backward
/// loops this crate emits, so loops can be differentiated twice).
fn static_trip_count(ad: &Ad, op: &Op) -> Option<Trip> {
    use ComparisonDirection as D;
    let cond = op.regions.first()?.entry()?;
    let body = op.regions.get(1)?.entry()?;
    let ret = cond.ops.last()?;
    let cmp = cond.ops.iter().find(|o| o.results == ret.operands)?;
    let OpKind::Compare { direction, .. } = cmp.kind else {
        return None;
    };
    let k = cond.args.iter().position(|&a| a == cmp.operands[0])?;
    let cond_region = &op.regions[0];
    let limit = match int_constant(cond_region, cmp.operands[1]) {
        Some(n) => n,
        None => {
            // The bound is a carry returned unchanged whose initial value is a constant.
            let j = cond.args.iter().position(|&a| a == cmp.operands[1])?;
            let bret = body.ops.last()?;
            if bret.operands.get(j) != Some(&body.args[j]) {
                return None;
            }
            int_constant(&ad.src.body, op.operands[j])?
        }
    };
    let start = int_constant(&ad.src.body, op.operands[k])?;
    // The body adds or subtracts one.
    let bret = body.ops.last()?;
    let next = bret.operands.get(k)?;
    let inc = body.ops.iter().find(|o| o.results.contains(next))?;
    let body_region = &op.regions[1];
    let step = match inc.kind {
        OpKind::Binary(systolic_ir::BinaryOp::Add) => {
            let other = if inc.operands[0] == body.args[k] {
                inc.operands[1]
            } else if inc.operands[1] == body.args[k] {
                inc.operands[0]
            } else {
                return None;
            };
            int_constant(body_region, other)?
        }
        OpKind::Binary(systolic_ir::BinaryOp::Subtract) if inc.operands[0] == body.args[k] => {
            -int_constant(body_region, inc.operands[1])?
        }
        _ => return None,
    };
    let count = match (direction, step) {
        (D::Lt, 1) => limit - start,
        (D::Le, 1) => limit - start + 1,
        (D::Gt, -1) => start - limit,
        (D::Ge, -1) => start - limit + 1,
        _ => return None,
    };
    Some(Trip {
        count: count.max(0),
        counter: k,
        dir: step,
    })
}

/// The forward sweep of a while loop: the loop itself, also stacking every carry as it enters
/// each iteration (the residuals of the backward loop).
fn forward_while(ad: &mut Ad, op: &Op, c: &mut Custom) -> Res<()> {
    let t = static_trip_count(ad, op).ok_or_else(|| {
        Error::new(
            "reverse-mode differentiation of stablehlo.while needs a static trip count (a loop \
             counting a carry by one between constants, as fori_loop with static bounds and \
             scan lower to); use forward mode (jvp) for other loops",
        )
    })?;
    let (trip, k) = (t.count, t.counter);
    c.trip = trip;
    c.counter = k;
    let dir = t.dir;
    let n = op.operands.len();
    let mut init = vec![];
    for &v in &op.operands {
        init.push(ad.p(v)?);
    }
    let mut stacks_init = vec![];
    for &v in &init {
        let t = ad.b.tt(v);
        let mut s = vec![trip.max(1)];
        s.extend(&t.shape);
        let z = ad.b.zeros(&systolic_ir::TensorType::new(s, t.dtype))?;
        stacks_init.push(z);
    }
    let start_counter = init[k];
    let cond_src = op.regions[0]
        .entry()
        .ok_or_else(|| Error::new("empty cond"))?;
    let body_src = op.regions[1]
        .entry()
        .ok_or_else(|| Error::new("empty body"))?;
    // cond: the original one, ignoring the stacks.
    let mut cargs = vec![];
    for &a in &cond_src.args {
        let v = ad.b.param(ad.src.value_type(a).clone());
        ad.primal.insert(a, v);
        cargs.push(v);
    }
    for &s in &stacks_init {
        cargs.push(ad.b.param(ad.b.func.value_type(s).clone()));
    }
    let (cops, _) = in_region(ad, |ad| {
        for o in &cond_src.ops {
            if o.kind.is_terminator() {
                let rets = o
                    .operands
                    .iter()
                    .map(|&v| ad.p(v))
                    .collect::<Res<Vec<_>>>()?;
                ad.b.ops
                    .push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
            } else {
                ad.clone_primal(o)?;
            }
        }
        Ok(())
    })?;
    // body: stack the carries at (counter - start), then the original body.
    let mut bargs = vec![];
    for &a in &body_src.args {
        let v = ad.b.param(ad.src.value_type(a).clone());
        ad.primal.insert(a, v);
        bargs.push(v);
    }
    let mut sargs = vec![];
    for &s in &stacks_init {
        sargs.push(ad.b.param(ad.b.func.value_type(s).clone()));
    }
    let (bops, _) = in_region(ad, |ad| {
        let it = if dir > 0 {
            ad.b.sub(bargs[k], start_counter)?
        } else {
            ad.b.sub(start_counter, bargs[k])?
        };
        let mut new_stacks = vec![];
        for (j, &carry) in bargs.iter().enumerate() {
            let t = ad.b.tt(carry);
            let mut s1 = vec![1];
            s1.extend(&t.shape);
            let r = ad.b.reshape(carry, &s1)?;
            let mut idx = vec![sargs[j], r, it];
            let zero = ad.b.scalar(ad.b.dtype(it), 0.0)?;
            idx.extend(std::iter::repeat_n(zero, t.shape.len()));
            new_stacks.push(ad.b.emit(OpKind::DynamicUpdateSlice, idx)?);
        }
        for o in &body_src.ops {
            if o.kind.is_terminator() {
                let mut rets = o
                    .operands
                    .iter()
                    .map(|&v| ad.p(v))
                    .collect::<Res<Vec<_>>>()?;
                rets.extend(new_stacks.iter().copied());
                ad.b.ops
                    .push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
            } else {
                ad.clone_primal(o)?;
            }
        }
        Ok(())
    })?;
    let mut cargs_all = cargs;
    cargs_all.truncate(n + stacks_init.len());
    let mut bargs_all = bargs;
    bargs_all.extend(sargs);
    let mut operands = init;
    operands.extend(stacks_init);
    let outs = ad.b.emit_full(
        OpKind::While,
        operands,
        vec![
            Region::single(Block {
                args: cargs_all,
                ops: cops,
            }),
            Region::single(Block {
                args: bargs_all,
                ops: bops,
            }),
        ],
        None,
    )?;
    for (i, &r) in op.results.iter().enumerate() {
        ad.primal.insert(r, outs[i]);
    }
    c.stacks = outs[n..].to_vec();
    Ok(())
}

/// The backward loop: iterations in reverse, each reading its carries from the stacks and
/// running the reverse mode of the body (recomputing its forward values); cotangents of the
/// carries flow through the loop, those of captured values accumulate.
fn while_backward(
    ad: &mut Ad,
    c: &Custom,
    cts_out: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let op = &c.op;
    let body = op.regions[1]
        .entry()
        .ok_or_else(|| Error::new("empty body"))?;
    let (pos, cts) = result_cts(ad, op, cts_out)?;
    // Captured active values (those of `inputs` that are not operands).
    let caps: Vec<ValueId> = c
        .inputs
        .iter()
        .zip(&c.in_pos)
        .filter(|(_, p)| p.is_none())
        .map(|(v, _)| *v)
        .collect();
    let mut cap_init = vec![];
    for &v in &caps {
        let ty = ad.b.tt(ad.p(v)?);
        cap_init.push(ad.b.zeros(&ty)?);
    }
    let it_dtype = DType::I32;
    let it0 = ad.b.scalar(it_dtype, (c.trip - 1) as f64)?;
    let mut operands = vec![it0];
    operands.extend(cts.iter().copied());
    operands.extend(cap_init.iter().copied());
    let types: Vec<Type> = operands
        .iter()
        .map(|&v| ad.b.func.value_type(v).clone())
        .collect();
    // cond: it >= 0
    let cargs: Vec<ValueId> = types.iter().map(|t| ad.b.param(t.clone())).collect();
    let (cops, ()) = in_region(ad, |ad| {
        let zero = ad.b.scalar(it_dtype, 0.0)?;
        let ge = ad.b.compare(ComparisonDirection::Ge, cargs[0], zero)?;
        ad.b.ops.push(Op::new(
            OpKind::Return(ReturnKind::Stablehlo),
            vec![ge],
            vec![],
        ));
        Ok(())
    })?;
    let bargs: Vec<ValueId> = types.iter().map(|t| ad.b.param(t.clone())).collect();
    let np = pos.len();
    let (bops, ()) = in_region(ad, |ad| {
        let it = bargs[0];
        // Carries of this iteration.
        for (j, &a) in body.args.iter().enumerate() {
            let stack = c.stacks[j];
            let st = ad.b.tt(stack);
            let mut idx = vec![stack, it];
            let zero = ad.b.scalar(it_dtype, 0.0)?;
            idx.extend(std::iter::repeat_n(zero, st.shape.len() - 1));
            let mut sizes = st.shape.clone();
            sizes[0] = 1;
            let s =
                ad.b.emit(OpKind::DynamicSlice { slice_sizes: sizes }, idx)?;
            let v = ad.b.reshape(s, &st.shape[1..])?;
            ad.primal.insert(a, v);
        }
        let ret = body
            .ops
            .last()
            .ok_or_else(|| Error::new("body without terminator"))?;
        let outs: Vec<ValueId> = pos.iter().map(|&i| ret.operands[i]).collect();
        let ct_in: Vec<Option<ValueId>> = bargs[1..1 + np].iter().map(|&v| Some(v)).collect();
        let mut seeds: Vec<ValueId> = pos.iter().map(|&i| body.args[i]).collect();
        seeds.extend(caps.iter().copied());
        let res = vjp_block_recomputing(ad, &body.ops, &seeds, &outs, &ct_in)?;
        let mut rets = vec![];
        let one = ad.b.scalar(it_dtype, 1.0)?;
        rets.push(ad.b.sub(it, one)?);
        for (i, r) in res.iter().enumerate() {
            let prev = bargs[1 + i];
            if i < np {
                rets.push(match r {
                    Some(v) => *v,
                    None => ad.b.full_like(prev, 0.0)?,
                });
            } else {
                rets.push(match r {
                    Some(v) => ad.b.add(prev, *v)?,
                    None => prev,
                });
            }
        }
        ad.b.ops
            .push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
        Ok(())
    })?;
    let outs = ad.b.emit_full(
        OpKind::While,
        operands,
        vec![
            Region::single(Block {
                args: cargs,
                ops: cops,
            }),
            Region::single(Block {
                args: bargs,
                ops: bops,
            }),
        ],
        None,
    )?;
    // Map back onto the placeholder's inputs.
    let mut res = vec![];
    let mut q = 0;
    for p in &c.in_pos {
        match p {
            Some(j) => res.push(pos.iter().position(|p| p == j).map(|k| outs[1 + k])),
            None => {
                res.push(Some(outs[1 + np + q]));
                q += 1;
            }
        }
    }
    Ok(res)
}
