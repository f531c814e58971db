//! User-defined differentiation rules, JAX's `custom_jvp` and `custom_vjp`.
//!
//! A function with a custom rule is staged as its ordinary primal ops between two
//! `optimization_barrier`s: the first, tagged [`CUSTOM_RULE_ATTR`] `= id`, takes the
//! function's inputs (its arguments, then the arrays its primal and its rules read from
//! outside); the second, tagged [`CUSTOM_RULE_END_ATTR`] `= id`, takes its outputs. Compilers
//! see ordinary ops, so an undifferentiated call costs nothing but the barriers; `vmap` batches
//! the rule along with the ops and retags the barriers with the batched rule's id.
//! The rule itself is IR registered under `id` ([`register_custom_rule`]), because the ops
//! cannot hold functions.
//!
//! When a differentiation reaches the first barrier with a tangent on one of the function's
//! arguments, it skips the primal ops up to the second barrier and applies the rule instead:
//! - a JVP rule is inlined on the primals and tangents, in both modes (in reverse mode its
//!   tangent ops are the linear program, transposed as any other, so the rule must be linear
//!   in the tangents, as JAX requires);
//! - a VJP rule's forward function is inlined on the primals (its residuals are forward-sweep
//!   values) and a placeholder stands in the linear program; at transposition the backward
//!   function is inlined on the residuals and the output cotangents. Forward mode of a VJP
//!   rule is an error, as in JAX.
//!
//! Arrays the rules read from outside are not differentiated (JAX's `nondiff_argnums` are
//! such values); they get no tangent and no cotangent.

use crate::ad::{carries_tangent, Ad, Mode};
use crate::builder::{AdBuilder, Res};
use crate::rules::control::reverse::Custom;
use crate::Error;
use std::sync::Mutex;
use systolic_ir::walk::{clone_op, ValueMap};
use systolic_ir::{find_attr, Attribute, Func, Op, OpKind, Type, ValueId};

/// The attribute of the barrier that opens a function with a custom rule (value: the rule's
/// id from [`register_custom_rule`]).
pub const CUSTOM_RULE_ATTR: &str = "systolic.custom_rule";

/// The attribute of the barrier that closes it (same id).
pub const CUSTOM_RULE_END_ATTR: &str = "systolic.custom_rule_end";

/// A custom differentiation rule as IR.
///
/// The opening barrier's operands are `nargs` arguments, then `primal_captures` arrays the
/// primal reads from outside, then the arrays the rule's functions read from outside (their
/// last parameters, in order: the JVP's; or the forward function's `fwd_captures`, then the
/// backward function's).
#[derive(Clone, Debug)]
pub enum CustomRule {
    /// `jvp(primals…, tangents…, captures…) -> (outputs…, output tangents…)`.
    Jvp {
        /// The function's arguments.
        nargs: usize,
        /// Arrays the primal reads from outside.
        primal_captures: usize,
        /// The rule.
        jvp: Box<Func>,
    },
    /// `fwd(primals…, captures…) -> (outputs…, residuals…)` and
    /// `bwd(residuals…, output cotangents…, captures…) -> argument cotangents…`.
    Vjp {
        /// The function's arguments.
        nargs: usize,
        /// Arrays the primal reads from outside.
        primal_captures: usize,
        /// Arrays the forward function reads from outside.
        fwd_captures: usize,
        /// The function's outputs (the forward function's first results; residuals follow).
        nout: usize,
        /// The forward function.
        fwd: Box<Func>,
        /// The backward function.
        bwd: Box<Func>,
    },
}

static RULES: Mutex<Vec<CustomRule>> = Mutex::new(Vec::new());

/// Registers a rule for the process; the id to tag the barriers with. (Rules are kept for the
/// process's lifetime: a traced function registers its rules once per trace.)
pub fn register_custom_rule(rule: CustomRule) -> i64 {
    let mut rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
    rules.push(rule);
    (rules.len() - 1) as i64
}

/// The rule registered under `id`, if any (a copy: transformations that rewrite a function
/// with custom rules, as `vmap` does, register the rewritten rule under a new id).
pub fn custom_rule(id: i64) -> Option<CustomRule> {
    let rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
    usize::try_from(id).ok().and_then(|i| rules.get(i).cloned())
}

fn rule(id: i64) -> Res<CustomRule> {
    custom_rule(id).ok_or_else(|| Error::new(format!("custom rule {id} is not registered")))
}

impl CustomRule {
    /// The number of the function's arguments (the first operands of its opening barrier).
    pub fn nargs(&self) -> usize {
        match self {
            CustomRule::Jvp { nargs, .. } | CustomRule::Vjp { nargs, .. } => *nargs,
        }
    }

    /// The number of operands of the opening barrier before the rule's own captures.
    pub fn first_rule_capture(&self) -> usize {
        match self {
            CustomRule::Jvp {
                nargs,
                primal_captures,
                ..
            }
            | CustomRule::Vjp {
                nargs,
                primal_captures,
                ..
            } => nargs + primal_captures,
        }
    }
}

/// The rule id `attr` (`CUSTOM_RULE_ATTR` or `CUSTOM_RULE_END_ATTR`) tags `op` with, if `op` is
/// a barrier tagged so (shared with `systolic-vmap`, which batches the rules).
pub fn tag(op: &Op, attr: &str) -> Option<i64> {
    if !matches!(op.kind, OpKind::OptimizationBarrier) {
        return None;
    }
    match find_attr(&op.attrs, attr) {
        Some(Attribute::Int(id, _)) => Some(*id),
        _ => None,
    }
}

/// The rule id if `op` opens a function with a custom rule.
pub(crate) fn opens(op: &Op) -> Option<i64> {
    tag(op, CUSTOM_RULE_ATTR)
}

/// True if `op` closes the function with rule `id`.
pub(crate) fn closes(op: &Op, id: i64) -> bool {
    tag(op, CUSTOM_RULE_END_ATTR) == Some(id)
}

/// What a rule computed for the function's outputs: primal values and tangents (built
/// function values).
pub(crate) struct Applied {
    primals: Vec<ValueId>,
    tangents: Vec<Option<ValueId>>,
}

/// The number of arguments of rule `id`, to decide whether the call is active.
pub(crate) fn nargs(id: i64) -> Res<usize> {
    Ok(rule(id)?.nargs())
}

/// Inlines `f`'s body into the built function with its parameters bound to `args`; returns
/// the values it returns.
fn inline(ad: &mut Ad, what: &str, f: &Func, args: &[ValueId]) -> Res<Vec<ValueId>> {
    let params = f.params();
    if params.len() != args.len() {
        return Err(Error::new(format!(
            "{what}: the rule takes {} values, {} were given",
            params.len(),
            args.len()
        )));
    }
    let mut map = ValueMap::new();
    for (i, (&p, &a)) in params.iter().zip(args).enumerate() {
        let want = f.value_type(p);
        let got = ad.b.func.value_type(a);
        if want != got {
            return Err(Error::new(format!(
                "{what}: the rule was traced for {want} but argument {i} is {got} (the \
                 function's operands were rewritten without its rule)"
            )));
        }
        map.insert(p, a);
    }
    let body = f
        .body
        .entry()
        .ok_or_else(|| Error::new(format!("{what}: the rule has no body")))?;
    let Some((ret, ops)) = body.ops.split_last() else {
        return Err(Error::new(format!("{what}: the rule has an empty body")));
    };
    for op in ops {
        let c = clone_op(f, op, &mut ad.b.func, &mut map).map_err(|e| Error::new(e.message))?;
        ad.b.ops.push(c);
    }
    ret.operands
        .iter()
        .map(|&v| {
            map.get(v)
                .ok_or_else(|| Error::new(format!("{what}: the rule returns an unknown value")))
        })
        .collect()
}

/// Applies rule `id` at the opening barrier `open` (whose arguments carry tangents).
pub(crate) fn apply(ad: &mut Ad, open: &Op, id: i64) -> Res<Applied> {
    let inputs = &open.operands;
    match rule(id)? {
        CustomRule::Jvp {
            nargs,
            primal_captures,
            jvp,
        } => {
            let mut args = vec![];
            for &v in &inputs[..nargs] {
                args.push(ad.p(v)?);
            }
            for &v in &inputs[..nargs] {
                args.push(ad.t_or_zero(v)?);
            }
            for &v in &inputs[nargs + primal_captures..] {
                args.push(ad.p(v)?);
            }
            let outs = inline(ad, "custom_jvp", &jvp, &args)?;
            let m = outs.len() / 2;
            let tangents = outs[m..]
                .iter()
                .map(|&t| carries_tangent(ad.b.func.value_type(t)).then_some(t))
                .collect();
            Ok(Applied {
                primals: outs[..m].to_vec(),
                tangents,
            })
        }
        CustomRule::Vjp {
            nargs,
            primal_captures,
            fwd_captures,
            nout,
            fwd,
            bwd,
        } => {
            if ad.mode == Mode::Jvp {
                return Err(Error::new(
                    "custom_vjp: a function with a custom VJP cannot be differentiated in \
                     forward mode (jvp, jacfwd, hessian, linearize); give it a custom_jvp \
                     rule instead",
                ));
            }
            let first_capture = nargs + primal_captures;
            let mut args = vec![];
            for &v in &inputs[..nargs] {
                args.push(ad.p(v)?);
            }
            for &v in &inputs[first_capture..first_capture + fwd_captures] {
                args.push(ad.p(v)?);
            }
            let outs = inline(ad, "custom_vjp", &fwd, &args)?;
            if nout > outs.len() {
                return Err(Error::new(
                    "custom_vjp: the forward rule returns too few values",
                ));
            }
            let m = nout;
            let (primals, residuals) = outs.split_at(m);
            let mut lin_in = vec![];
            let mut in_pos = vec![];
            let mut live = vec![];
            for (i, &v) in inputs[..nargs].iter().enumerate() {
                if let Some(t) = ad.t(v) {
                    lin_in.push(t);
                    in_pos.push(Some(i));
                    live.push(v);
                }
            }
            let mut tangents = vec![];
            let mut lin_out = vec![];
            for &p in primals {
                let ty = ad.b.func.value_type(p).clone();
                if carries_tangent(&ty) {
                    let v = ad.b.param(ty);
                    lin_out.push(v);
                    tangents.push(Some(v));
                } else {
                    tangents.push(None);
                }
            }
            let mut captures = vec![];
            for &v in &inputs[first_capture + fwd_captures..] {
                captures.push(ad.p(v)?);
            }
            let k = ad.customs.len();
            ad.customs.push(Custom::rule(
                open.clone(),
                live,
                in_pos,
                crate::rules::control::reverse::RuleState {
                    bwd: *bwd,
                    residuals: residuals.to_vec(),
                    primals: primals.to_vec(),
                    captures,
                },
            ));
            ad.b.ops.push(crate::rules::control::reverse::placeholder(
                k, lin_in, lin_out,
            ));
            Ok(Applied {
                primals: primals.to_vec(),
                tangents,
            })
        }
    }
}

/// Maps the closing barrier's results to what the rule computed.
pub(crate) fn finish(ad: &mut Ad, close: &Op, applied: Applied) -> Res<()> {
    if close.results.len() != applied.primals.len() {
        return Err(Error::new(format!(
            "custom rule: the function returns {} values, its rule {}",
            close.results.len(),
            applied.primals.len()
        )));
    }
    for ((&r, p), t) in close
        .results
        .iter()
        .zip(applied.primals)
        .zip(applied.tangents)
    {
        ad.primal.insert(r, p);
        match t {
            Some(t) if carries_tangent(ad.src.value_type(r)) => {
                ad.tangent.insert(r, t);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The backward rule of a VJP placeholder: `bwd(residuals, cotangents, captures)`, returned
/// for the placeholder's operands (the arguments that carry tangents).
pub(crate) fn backward(
    ad: &mut Ad,
    c: &Custom,
    state: &crate::rules::control::reverse::RuleState,
    cts_out: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let mut args = state.residuals.clone();
    let mut k = 0;
    for &p in &state.primals {
        let ty = ad.b.tt(p);
        if carries_tangent(&Type::Tensor(ty.clone())) {
            let ct = match cts_out.get(k).copied().flatten() {
                Some(c) => c,
                None => ad.b.zeros(&ty)?,
            };
            args.push(ct);
            k += 1;
        } else {
            args.push(ad.b.zeros(&ty)?);
        }
    }
    args.extend(state.captures.iter().copied());
    let cts = inline(ad, "custom_vjp", &state.bwd, &args)?;
    c.in_pos
        .iter()
        .map(|pos| {
            let i = pos.ok_or_else(|| Error::new("internal: custom_vjp input position"))?;
            cts.get(i).copied().map(Some).ok_or_else(|| {
                Error::new(format!(
                    "custom_vjp: the backward rule returned {} cotangents for more arguments",
                    cts.len()
                ))
            })
        })
        .collect()
}
