//! The JVP driver, shared by forward mode and by linearization (the first half of reverse
//! mode): it walks a function's ops in order, clones each op into the function being built
//! (the primal) and asks the op's rule for the tangents of its results.

use crate::builder::{AdBuilder, Builder, Res};
use crate::rules;
use crate::{dce, Error};
use std::collections::{HashMap, HashSet};
use systolic_ir::walk::{clone_op, clone_region, ValueMap};
use systolic_ir::{find_attr, Attribute, Func, Op, OpKind, Region, Type, ValueId};

/// Forward mode emits tangent ops next to the primal ones; linearization also marks control
/// flow for its own backward rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Jvp,
    Linearize,
}

/// The transformation state over one source function.
pub(crate) struct Ad<'s> {
    pub(crate) src: &'s Func,
    pub(crate) b: Builder,
    /// Source value → its primal value in the function being built.
    pub(crate) primal: ValueMap,
    /// Source value → its tangent (absent = symbolically zero).
    pub(crate) tangent: HashMap<ValueId, ValueId>,
    pub(crate) mode: Mode,
    /// Control-flow ops whose backward rules are their own (linearize mode).
    pub(crate) customs: Vec<crate::rules::control::reverse::Custom>,
    /// Rematerialisation group of the ops of `b.ops`, by position (top level only).
    pub(crate) remat_tags: Vec<Option<i64>>,
    /// Whether `b.ops` is the top-level list (remat tags are only kept there).
    pub(crate) top_level: bool,
    /// Whether the forward values being emitted are a backward rule's recomputation (of a
    /// branch, a loop iteration, a manual computation's body): host callbacks are left out
    /// there, since the forward program already ran them (JAX's `debug.print` prints the
    /// primal values once under `grad`).
    pub(crate) recomputing: bool,
    /// How often each source value is used.
    uses: Vec<u32>,
}

/// True for element types that carry tangents: floats and complex numbers (JAX's
/// `np.inexact`). A complex value's tangent is complex; transposes do not conjugate (JAX's
/// convention, so `grad` of a real function of complex inputs is the conjugate of the
/// gradient steepest ascent would use).
pub(crate) fn carries_tangent(t: &Type) -> bool {
    matches!(t, Type::Tensor(tt) if tt.dtype.is_float_or_complex())
}

/// Values used inside `op`'s regions but defined outside them.
pub(crate) fn captured(op: &Op) -> Vec<ValueId> {
    let mut defined = HashSet::new();
    let mut used = vec![];
    for r in &op.regions {
        collect_region(r, &mut defined, &mut used);
    }
    let mut seen = HashSet::new();
    used.into_iter()
        .filter(|v| !defined.contains(v) && seen.insert(*v))
        .collect()
}

fn collect_region(r: &Region, defined: &mut HashSet<ValueId>, used: &mut Vec<ValueId>) {
    for b in &r.blocks {
        defined.extend(b.args.iter().copied());
        for op in &b.ops {
            used.extend(op.operands.iter().copied());
            defined.extend(op.results.iter().copied());
            for r in &op.regions {
                collect_region(r, defined, used);
            }
        }
    }
}

impl<'s> Ad<'s> {
    pub(crate) fn new(src: &'s Func, mode: Mode) -> Ad<'s> {
        Ad {
            src,
            b: Builder::new(&src.name),
            primal: ValueMap::new(),
            tangent: HashMap::new(),
            mode,
            customs: vec![],
            remat_tags: vec![],
            top_level: true,
            recomputing: false,
            uses: systolic_ir::walk::use_counts(src),
        }
    }

    /// The primal of a source value.
    pub(crate) fn p(&self, v: ValueId) -> Res<ValueId> {
        self.primal
            .get(v)
            .ok_or_else(|| Error::new(format!("internal: source value #{} not mapped", v.0)))
    }

    /// The tangent of a source value, if not zero.
    pub(crate) fn t(&self, v: ValueId) -> Option<ValueId> {
        self.tangent.get(&v).copied()
    }

    /// The tangent of a source value, materialised (zeros) when symbolically zero.
    pub(crate) fn t_or_zero(&mut self, v: ValueId) -> Res<ValueId> {
        if let Some(t) = self.t(v) {
            return Ok(t);
        }
        let ty = self.b.tt(self.p(v)?);
        self.b.zeros(&ty)
    }

    /// Clones a source op into the built function (primal only).
    pub(crate) fn clone_primal(&mut self, op: &Op) -> Res<Vec<ValueId>> {
        let mut c = clone_op(self.src, op, &mut self.b.func, &mut self.primal)
            .map_err(|e| Error::new(e.message))?;
        c.attrs.retain(|a| a.name != crate::REMAT_ATTR);
        let results = c.results.clone();
        self.b.ops.push(c);
        Ok(results)
    }

    /// Processes source ops in order (the terminator, if any, is skipped).
    pub(crate) fn run_ops(&mut self, ops: &[Op]) -> Res<()> {
        // A function with a custom rule being skipped: its id and what the rule computed.
        let mut custom: Option<(i64, crate::custom::Applied)> = None;
        for op in ops {
            if op.kind.is_terminator() {
                continue;
            }
            if let Some((id, _)) = &custom {
                if crate::custom::closes(op, *id) {
                    if let Some((_, applied)) = custom.take() {
                        crate::custom::finish(self, op, applied)?;
                    }
                }
                continue;
            }
            if let Some(id) = crate::custom::opens(op) {
                let n = crate::custom::nargs(id)?.min(op.operands.len());
                if op.operands[..n]
                    .iter()
                    .any(|v| self.tangent.contains_key(v))
                {
                    custom = Some((id, crate::custom::apply(self, op, id)?));
                    continue;
                }
            }
            let start = self.b.ops.len();
            self.op(op)?;
            if self.top_level && self.mode == Mode::Linearize {
                let tag = match find_attr(&op.attrs, crate::REMAT_ATTR) {
                    Some(Attribute::Int(g, _)) => Some(*g),
                    Some(_) => Some(0),
                    None => None,
                };
                self.remat_tags.resize(start, None);
                self.remat_tags.resize(self.b.ops.len(), tag);
            }
        }
        if custom.is_some() {
            return Err(Error::new(
                "a function with a custom rule is not closed in its block",
            ));
        }
        Ok(())
    }

    fn op(&mut self, op: &Op) -> Res<()> {
        let control = matches!(op.kind, OpKind::While | OpKind::If | OpKind::Case);
        let mut active = op.operands.iter().any(|v| self.tangent.contains_key(v));
        if control && !active {
            active = captured(op).iter().any(|v| self.tangent.contains_key(v));
        }
        if !active {
            self.clone_primal(op)?;
            return Ok(());
        }
        if matches!(op.kind, OpKind::ManualComputation(_)) {
            // A region op like control flow: its rules run the rules of its body.
            return match self.mode {
                Mode::Jvp => rules::manual_computation::jvp(self, op),
                Mode::Linearize => rules::control::linearize_control(self, op),
            };
        }
        if control {
            return match self.mode {
                Mode::Jvp => rules::control::jvp(self, op),
                Mode::Linearize => rules::control::linearize_control(self, op),
            };
        }
        if matches!(op.kind, OpKind::Reduce { .. } | OpKind::ReduceWindow { .. })
            && op.results.len() > 1
            && op.results.iter().any(|&r| {
                carries_tangent(self.src.value_type(r))
                    && self.uses.get(r.index()).copied().unwrap_or(0) > 0
            })
        {
            return Err(Error::new(format!(
                "cannot differentiate a {} of several operands whose float results are used \
                 (argmax-style reductions are differentiable only through their indices)",
                op.kind.name()
            )));
        }
        let x = op
            .operands
            .iter()
            .map(|&v| self.p(v))
            .collect::<Res<Vec<_>>>()?;
        let t: Vec<Option<ValueId>> = op.operands.iter().map(|&v| self.t(v)).collect();
        let mut y = self.clone_primal(op)?;
        let ts = rules::jvp(&mut self.b, op, &x, &t, &mut y)?;
        for (i, &r) in op.results.iter().enumerate() {
            self.primal.insert(r, y[i]);
            if let Some(Some(tv)) = ts.get(i) {
                if carries_tangent(self.src.value_type(r)) {
                    self.tangent.insert(r, *tv);
                }
            }
        }
        Ok(())
    }
}

/// Puts a body together: parameters, ops and the returned values, then removes dead code and
/// renumbers the value arena.
pub(crate) fn assemble(
    src: &Func,
    b: Builder,
    params: Vec<ValueId>,
    returns: Vec<ValueId>,
) -> Res<Func> {
    let mut f = b.into_func(params, returns);
    dce(&mut f);
    // Renumber: clone the body into a fresh arena.
    let mut out = Func::new(src.name.clone());
    out.visibility = src.visibility;
    let mut map = ValueMap::new();
    out.body = clone_region(&f, &f.body, &mut out, &mut map).map_err(|e| Error::new(e.message))?;
    out.result_types = f.result_types;
    Ok(out)
}

/// Forward mode over a whole function.
pub(crate) fn jvp_func(src: &Func) -> Res<Func> {
    let mut ad = Ad::new(src, Mode::Jvp);
    let body = src
        .body
        .entry()
        .ok_or_else(|| Error::new(format!("@{} has no body", src.name)))?;
    let mut params = vec![];
    for &p in &body.args {
        let v = ad.b.param(src.value_type(p).clone());
        ad.primal.insert(p, v);
        params.push(v);
    }
    for &p in &body.args {
        let ty = src.value_type(p).clone();
        let v = ad.b.param(ty.clone());
        if carries_tangent(&ty) {
            ad.tangent.insert(p, v);
        }
        params.push(v);
    }
    ad.run_ops(&body.ops)?;
    let ret = body
        .ops
        .last()
        .filter(|o| o.kind.is_terminator())
        .ok_or_else(|| Error::new("the function has no return"))?;
    let mut returns = vec![];
    for &v in &ret.operands {
        returns.push(ad.p(v)?);
    }
    for &v in &ret.operands {
        let t = ad.t_or_zero(v)?;
        returns.push(t);
    }
    assemble(src, ad.b, params, returns)
}
