//! The fixed point: shardings flow along each rule's factors, forward and backward, until
//! nothing changes. The order is Shardy's hierarchy:
//!
//! 1. **User priorities**: a round per priority written on a dimension (`{"x"}p1`), lowest
//!    first; in round `p`, dimensions of priority above `p` neither give nor take (a
//!    dimension without a priority counts as the highest priority);
//! 2. within a round, **op-based stages**: (0) pass-through ops (elementwise, reshape,
//!    transpose, data-flow edges; dynamic slices forward only) whose operands have one use,
//!    (1) pass-through ops, (2) every op along its pass factors, broadcasts backward only,
//!    (3) every factor, broadcasts backward only, (4) everything;
//! 3. within a stage, sweeps over the ops (program order, then reverse) until no sharding
//!    changes.
//!
//! One step on one op: each tensor is projected onto the rule's factors; per factor, the
//! *longest compatible major axes* of its sources (the longest axis list every source's list
//! is a prefix of or extends: `["a"]`, `["a","b"]` → `["a","b"]`; `["c","d"]`, `["c","e"]` →
//! `["c"]`); factors that would claim the same axis are served in order of their source
//! tensor's size (larger first), then tensor and factor index, the later one cut before the
//! axis; each target then takes the candidate where its own axes are a prefix of it, up to
//! the first axis it already uses elsewhere, only in open dimensions, and only axes whose
//! product divides the factor's size (Shardy's "conservative" choice: no padded shards are
//! created by propagation; shardings the user writes may still be uneven). Shardings only
//! grow, so the sweeps end.

use super::axes;
use super::project::{dim_axes, project, Projected};
use super::rules::{FactorKind, OpClass, Step, TensorRef};
use systolic_ir::{AxisRef, SdyMesh, SdySharding};

/// Which way a factor may flow in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Direction {
    forward: bool,
    backward: bool,
}

const BOTH: Direction = Direction {
    forward: true,
    backward: true,
};
const FORWARD: Direction = Direction {
    forward: true,
    backward: false,
};
const BACKWARD: Direction = Direction {
    forward: false,
    backward: true,
};
const NONE: Direction = Direction {
    forward: false,
    backward: false,
};

/// The number of op-based stages.
pub(crate) const STAGES: usize = 5;

/// The direction a factor of `kind` of an op of `class` flows in at `stage` (the union of
/// what every stage up to it allows).
fn direction(class: OpClass, kind: FactorKind, single_use: bool, stage: usize) -> Direction {
    let one = |s: usize| match s {
        0 | 1 => match (class, single_use || s == 1) {
            (OpClass::PassThrough, true) => BOTH,
            (OpClass::ForwardPassThrough, true) => FORWARD,
            _ => NONE,
        },
        2 if kind != FactorKind::Pass => NONE,
        2 | 3 if class == OpClass::Broadcast => BACKWARD,
        _ => BOTH,
    };
    (0..=stage).fold(NONE, |acc, s| {
        let d = one(s);
        Direction {
            forward: acc.forward || d.forward,
            backward: acc.backward || d.backward,
        }
    })
}

/// The shardings being propagated.
pub(crate) struct State<'a> {
    pub mesh: &'a SdyMesh,
    /// Per value of the entry (by index): its sharding; `None` for values propagation does
    /// not shard (non-tensors, manual computation bodies).
    pub values: Vec<Option<SdySharding>>,
    /// Per entry result: its sharding.
    pub results: Vec<Option<SdySharding>>,
    /// Per value (by index): an entry parameter. Parameters and results are the program's
    /// boundary, which propagation gives no sub-axes (a caller cannot express them: JAX's
    /// `NamedSharding` names whole axes); a value sharded over a sub-axis is then
    /// resharded at the boundary, as XLA's Shardy pipeline does for JAX.
    pub boundary: Vec<bool>,
}

impl State<'_> {
    pub(crate) fn get<'s>(&'s self, t: &'s TensorRef) -> Option<&'s SdySharding> {
        match t {
            TensorRef::Value(v) => self.values.get(v.index())?.as_ref(),
            TensorRef::FuncResult(i) => self.results.get(*i)?.as_ref(),
            TensorRef::Fixed(s) => Some(s),
        }
    }

    fn get_mut(&mut self, t: &TensorRef) -> Option<&mut SdySharding> {
        match t {
            TensorRef::Value(v) => self.values.get_mut(v.index())?.as_mut(),
            TensorRef::FuncResult(i) => self.results.get_mut(*i)?.as_mut(),
            TensorRef::Fixed(_) => None,
        }
    }

    /// A tensor of `step` projected onto its rule (`None` if it has no sharding or its rank
    /// does not match the rule).
    pub(crate) fn projected(
        &self,
        step: &Step,
        k: usize,
        threshold: i64,
    ) -> Option<(Projected, i64)> {
        let (t, dims) = tensor(step, k);
        let s = self.get(t)?;
        if s.dims.len() != dims.len() {
            return None;
        }
        let p = project(
            &step.rule,
            dims,
            s,
            self.mesh,
            threshold,
            !matches!(t, TensorRef::Fixed(_)),
        );
        let elements = dims
            .iter()
            .flatten()
            .map(|&f| step.rule.factors[f].size)
            .product();
        Some((p, elements))
    }

    /// One propagation step; whether any sharding changed.
    pub(crate) fn apply(
        &mut self,
        step: &Step,
        single_use: bool,
        stage: usize,
        threshold: i64,
    ) -> bool {
        let n_ops = step.operands.len();
        let count = n_ops + step.results.len();
        let mut tensors: Vec<Option<(Projected, i64)>> = (0..count)
            .map(|k| self.projected(step, k, threshold))
            .collect();
        let nf = step.rule.factors.len();
        let mut candidates: Vec<Vec<AxisRef>> = vec![vec![]; nf];
        let mut source_rank: Vec<(i64, usize)> = vec![(0, 0); nf];
        let mut dirs = vec![NONE; nf];
        for f in 0..nf {
            let dir = direction(
                step.rule.class,
                step.rule.factors[f].kind,
                single_use,
                stage,
            );
            dirs[f] = dir;
            if dir == NONE {
                continue;
            }
            let sources: Vec<(usize, &Vec<AxisRef>, i64)> = tensors
                .iter()
                .enumerate()
                .filter(|(k, _)| {
                    if *k < n_ops {
                        dir.forward
                    } else {
                        dir.backward
                    }
                })
                .filter_map(|(k, t)| {
                    let (p, elements) = t.as_ref()?;
                    Some((k, p.axes[f].as_ref()?, *elements))
                })
                .collect();
            let lists: Vec<&[AxisRef]> = sources.iter().map(|(_, l, _)| l.as_slice()).collect();
            candidates[f] = compatible(&lists, self.mesh);
            let len = candidates[f].len();
            source_rank[f] = sources
                .iter()
                .filter(|(_, l, _)| l.len() == len)
                .map(|&(k, _, e)| (-e, k))
                .min()
                .unwrap_or((0, 0));
        }
        // Factors that would claim one axis: larger source first.
        let mut order: Vec<usize> = (0..nf).filter(|&f| !candidates[f].is_empty()).collect();
        order.sort_by_key(|&f| (source_rank[f], f));
        let mut claimed: Vec<AxisRef> = vec![];
        for &f in &order {
            let keep = candidates[f]
                .iter()
                .take_while(|a| !axes::overlaps_any(a, &claimed, self.mesh))
                .count();
            candidates[f].truncate(keep);
            claimed.extend(candidates[f].iter().cloned());
        }
        // Each target takes what it can.
        let mut changed = vec![false; count];
        for &f in &order {
            let dir = dirs[f];
            let size = step.rule.factors[f].size;
            for (k, t) in tensors.iter_mut().enumerate() {
                let is_target = if k < n_ops { dir.backward } else { dir.forward };
                let Some((p, _)) = t.as_mut() else { continue };
                if !is_target || !p.grow[f] {
                    continue;
                }
                let boundary = match tensor(step, k).0 {
                    TensorRef::Value(v) => self.boundary.get(v.index()).copied().unwrap_or(false),
                    TensorRef::FuncResult(_) => true,
                    TensorRef::Fixed(_) => false,
                };
                let Some(current) = p.axes[f].clone() else {
                    continue;
                };
                let cand = &candidates[f];
                if cand.len() <= current.len()
                    || !current
                        .iter()
                        .zip(cand)
                        .all(|(a, b)| axes::same(a, b, self.mesh))
                {
                    continue;
                }
                let mut product = axes::product(&current, self.mesh);
                let mut taken = vec![];
                for a in &cand[current.len()..] {
                    let s = axes::size(a, self.mesh);
                    if axes::overlaps_any(a, &p.used, self.mesh)
                        || size % (product * s) != 0
                        || (boundary && a.sub_axis.is_some())
                    {
                        break;
                    }
                    product *= s;
                    taken.push(a.clone());
                    p.used.push(a.clone());
                }
                if !taken.is_empty() {
                    p.axes[f].as_mut().expect("has the factor").extend(taken);
                    changed[k] = true;
                }
            }
        }
        // Write back the dimensions that grew.
        let mut any = false;
        for k in 0..count {
            if !changed[k] {
                continue;
            }
            let Some((p, _)) = &tensors[k] else { continue };
            let (t, dims) = tensor(step, k);
            let mesh = self.mesh;
            let Some(s) = self.get_mut(t) else { continue };
            for (d, factors) in dims.iter().enumerate() {
                if factors.iter().any(|&f| p.grow[f]) {
                    let new = dim_axes(factors, &p.axes, &p.overflow[d], mesh);
                    if s.dims[d].axes != new {
                        s.dims[d].axes = new;
                        any = true;
                    }
                }
            }
        }
        any
    }
}

/// Tensor `k` of a step (operands first) and its dimensions' factors.
pub(crate) fn tensor(step: &Step, k: usize) -> (&TensorRef, &[Vec<usize>]) {
    let n = step.operands.len();
    if k < n {
        (&step.operands[k], &step.rule.operands[k])
    } else {
        (&step.results[k - n], &step.rule.results[k - n])
    }
}

/// The longest axis list that every list is a prefix of or extends; the lists stop agreeing
/// at the first position where two of them name different axes.
pub(crate) fn compatible(lists: &[&[AxisRef]], mesh: &SdyMesh) -> Vec<AxisRef> {
    let mut out: Vec<AxisRef> = vec![];
    loop {
        let n = out.len();
        let mut next: Option<&AxisRef> = None;
        for l in lists {
            if let Some(a) = l.get(n) {
                match next {
                    None => next = Some(a),
                    Some(b) if axes::same(a, b, mesh) => {}
                    Some(_) => return out,
                }
            }
        }
        match next {
            Some(a) => out.push(a.clone()),
            None => return out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ax(n: &str) -> AxisRef {
        AxisRef {
            name: n.into(),
            sub_axis: None,
        }
    }

    #[test]
    fn longest_compatible_major_axes() {
        let mesh = SdyMesh {
            name: "m".into(),
            axes: ["a", "b", "c", "d", "e"]
                .iter()
                .map(|n| (n.to_string(), 2))
                .collect(),
            device_ids: None,
        };
        let (a, b, c, d, e) = (ax("a"), ax("b"), ax("c"), ax("d"), ax("e"));
        let t0 = [a.clone()];
        let t1 = [a.clone(), b.clone()];
        assert_eq!(compatible(&[&t0, &t1, &[]], &mesh), vec![a.clone(), b]);
        let t1 = [c.clone(), d];
        let t2 = [c.clone(), e];
        assert_eq!(compatible(&[&[], &t1, &t2], &mesh), vec![c]);
        assert_eq!(compatible(&[&t0, &[ax("f")]], &mesh), vec![]);
    }

    #[test]
    fn op_priorities_open_up_stage_by_stage() {
        use FactorKind::*;
        use OpClass::*;
        assert_eq!(direction(PassThrough, Pass, true, 0), BOTH);
        assert_eq!(direction(PassThrough, Pass, false, 0), NONE);
        assert_eq!(direction(PassThrough, Pass, false, 1), BOTH);
        assert_eq!(direction(ForwardPassThrough, Pass, true, 1), FORWARD);
        assert_eq!(direction(Other, Pass, true, 1), NONE);
        assert_eq!(direction(Other, Reduction, true, 2), NONE);
        assert_eq!(direction(Other, Pass, true, 2), BOTH);
        assert_eq!(direction(Broadcast, Pass, true, 3), BACKWARD);
        assert_eq!(direction(ForwardPassThrough, Pass, true, 3), BOTH);
        assert_eq!(direction(Broadcast, Pass, true, 4), BOTH);
        assert_eq!(direction(Other, Reduction, true, 3), BOTH);
    }
}
