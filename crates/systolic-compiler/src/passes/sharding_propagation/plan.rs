//! The result of propagation, shaped for the partitioner that reads it next: every value's
//! sharding, and per op what it means to compute it sharded.
//!
//! What a partitioner needs, and where it is:
//!
//! - the layout of every value of the entry ([`ShardingPlan::values`], by `ValueId`; the
//!   entry's parameters and results in [`ShardingPlan::params`] / [`ShardingPlan::results`]),
//!   from which each device's piece follows (`systolic_ir::ShardLayout`);
//! - per op ([`ShardingPlan::ops`], in the pre-order of `systolic_ir::walk::walk_ops` over the
//!   entry's body): its rule and the axes each factor is computed over
//!   ([`OpPlan::factor_axes`]), so the local op is the global op on the pieces those axes
//!   give;
//! - the *reduction axes* ([`OpPlan::reduction_axes`]): contracting or reduced factors that
//!   are sharded, so each device holds a partial result that an all-reduce (or, when the
//!   result is sharded over the same axes, a reduce-scatter) completes;
//! - the *reshards* ([`OpPlan::reshards`]): operands held otherwise than the op's factor
//!   shardings need (to be converted before the op: all-gather where axes are dropped, local
//!   slicing where axes are added, all-to-all where an axis moves, collective-permute where
//!   tiles only change devices), and results computed otherwise than they are held
//!   (converted after the op; an op that needs a dimension whole may compute with its split
//!   moved onto another dimension, `moves_split_aside`);
//! - notes where a sharding could not pass through an op ([`OpPlan::notes`]: a reshape whose
//!   sharded minor factor has an unsharded major one).

use super::axes;
use super::project::Projected;
use super::propagate::{compatible, tensor, State};
use super::rules::{Factor, FactorKind, OpClass, OpRule, Site, Step, TensorRef};
use systolic_ir::text::sharding_per_value_attr;
use systolic_ir::walk::walk_ops_mut;
use systolic_ir::{
    Attribute, AxisRef, DimSharding, Module, NamedAttr, OpKind, SdyMesh, SdySharding, ValueId,
};

/// Propagated shardings of one entry function; see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardingPlan {
    /// The entry function.
    pub entry: String,
    /// The mesh every sharding names.
    pub mesh: SdyMesh,
    /// Per value of the entry (by `ValueId::index`): its sharding, every dimension closed.
    /// `None` for values that are not tensors and for the insides of manual computations.
    pub values: Vec<Option<SdySharding>>,
    /// Per entry parameter: its sharding.
    pub params: Vec<Option<SdySharding>>,
    /// Per entry result: its sharding (the returned value may differ: then the return has a
    /// reshard).
    pub results: Vec<Option<SdySharding>>,
    /// Per op of the entry, in pre-order (nested regions after their op).
    pub ops: Vec<OpPlan>,
}

/// What computing one op sharded means.
#[derive(Clone, Debug, PartialEq)]
pub struct OpPlan {
    /// Its position in the pre-order walk of the entry.
    pub index: usize,
    /// The op's name (`stablehlo.dot_general`).
    pub name: String,
    /// Its results.
    pub results: Vec<ValueId>,
    /// Inside an `sdy.manual_computation` body: manual code, not propagated (nothing else
    /// here is filled in).
    pub manual: bool,
    /// Its sharding rule, for ops that compute (`None` for data-flow ops and terminators,
    /// which pass values along).
    pub rule: Option<OpRule>,
    /// Per factor of `rule`: the axes the op computes it over.
    pub factor_axes: Vec<Vec<AxisRef>>,
    /// The axes of sharded reduction factors: the local results are partial over these.
    pub reduction_axes: Vec<AxisRef>,
    /// Values to convert at this op.
    pub reshards: Vec<Reshard>,
    /// Where a sharding could not pass through.
    pub notes: Vec<String>,
}

/// A value held one way and needed another at an op.
#[derive(Clone, Debug, PartialEq)]
pub struct Reshard {
    /// Where: an operand (convert before the op) or a result (convert after).
    pub at: ReshardSite,
    /// The value.
    pub value: ValueId,
    /// How it is held (for a result: how the op computes it).
    pub from: SdySharding,
    /// How it is needed (for a result: how it is held).
    pub to: SdySharding,
}

/// An operand or result position of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReshardSite {
    /// Operand `k`.
    Operand(usize),
    /// Result `k`.
    Result(usize),
}

impl ShardingPlan {
    /// The propagated sharding of `v`.
    pub fn sharding(&self, v: ValueId) -> Option<&SdySharding> {
        self.values.get(v.index())?.as_ref()
    }

    /// The plan of the op that defines `v`.
    pub fn op_defining(&self, v: ValueId) -> Option<&OpPlan> {
        self.ops.iter().find(|o| o.results.contains(&v))
    }

    /// `module` with the plan written into its entry as Shardy writes propagated shardings:
    /// `sdy.sharding` on the entry's arguments and results, `{sdy.sharding =
    /// #sdy.sharding_per_value<[…]>}` on every op with a sharded result, constraints holding
    /// their propagated sharding. Print it with `systolic_ir::text::print_module`.
    pub fn annotate(&self, module: &Module) -> Result<Module, String> {
        let mut out = module.clone();
        let func = out
            .funcs
            .iter_mut()
            .find(|f| f.name == self.entry)
            .ok_or_else(|| format!("no function @{}", self.entry))?;
        let nparams = func.params().len();
        func.arg_attrs.resize(nparams, vec![]);
        for (attrs, s) in func.arg_attrs.iter_mut().zip(&self.params) {
            set_sharding(attrs, s.as_ref());
        }
        func.result_attrs.resize(func.result_types.len(), vec![]);
        for (attrs, s) in func.result_attrs.iter_mut().zip(&self.results) {
            set_sharding(attrs, s.as_ref());
        }
        let mut count = 0;
        systolic_ir::walk::walk_ops(&func.body, &mut |_, _| count += 1);
        if count != self.ops.len() {
            return Err(format!(
                "@{}: the plan covers {} ops, the function has {count}: not the module it was \
                 propagated on",
                self.entry,
                self.ops.len()
            ));
        }
        let mut index = 0;
        walk_ops_mut(&mut func.body, &mut |op, _| {
            let plan = &self.ops[index];
            index += 1;
            if plan.manual || op.results.is_empty() {
                return;
            }
            let shardings: Option<Vec<SdySharding>> = op
                .results
                .iter()
                .map(|&v| self.sharding(v).cloned())
                .collect();
            let Some(shardings) = shardings else { return };
            match &mut op.kind {
                OpKind::ShardingConstraint(s) => **s = shardings[0].clone(),
                OpKind::ManualComputation(_) => {}
                _ if shardings.iter().all(trivial) => {}
                _ => {
                    op.attrs.retain(|a| a.name != "sdy.sharding");
                    op.attrs.push(NamedAttr::new(
                        "sdy.sharding",
                        sharding_per_value_attr(&shardings),
                    ));
                }
            }
        });
        Ok(out)
    }
}

/// Fully replicated without explicit replication: what no annotation means.
fn trivial(s: &SdySharding) -> bool {
    s.dims.iter().all(|d| d.axes.is_empty()) && s.replicated.is_empty() && s.unreduced.is_empty()
}

/// Sets (or, for a trivial sharding where none was written, leaves out) `sdy.sharding`.
fn set_sharding(attrs: &mut Vec<NamedAttr>, s: Option<&SdySharding>) {
    let Some(s) = s else { return };
    let had = attrs.iter().any(|a| a.name == "sdy.sharding");
    if !had && trivial(s) {
        return;
    }
    attrs.retain(|a| a.name != "sdy.sharding");
    attrs.push(NamedAttr::new(
        "sdy.sharding",
        Attribute::SdySharding(s.clone()),
    ));
}

/// The sharding `s` with every dimension closed and priorities dropped: the final form.
pub(crate) fn closed(s: &SdySharding) -> SdySharding {
    SdySharding {
        dims: s
            .dims
            .iter()
            .map(|d| DimSharding {
                axes: d.axes.clone(),
                closed: true,
                priority: None,
            })
            .collect(),
        ..s.clone()
    }
}

/// What one step of an op decided, before it is filed under its op.
pub(crate) struct StepPlan {
    pub factor_axes: Vec<Vec<AxisRef>>,
    pub reduction_axes: Vec<AxisRef>,
    /// Reshards with their site (a region return's site is filed under the terminator).
    pub reshards: Vec<(Site, Reshard)>,
    pub notes: Vec<String>,
}

/// Ops that need a dimension whole only to compute along it (sorting, transforming,
/// selecting the top k, factoring a matrix) and pass their other dimensions through: a split
/// of the whole dimension may move aside onto one of those ([`move_split_aside`]) instead of
/// being gathered. (A reverse along a split dimension is one permute in the partitioner.)
pub(crate) fn moves_split_aside(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Sort { .. }
            | OpKind::Fft { .. }
            | OpKind::TopK { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
    )
}

/// The factor shardings `step` computes with in the final `state`, and what must be
/// converted for it. `aside`: the op may compute with the split of a dimension it needs
/// whole moved onto another ([`moves_split_aside`]).
pub(crate) fn plan_step(state: &State, step: &Step, aside: bool) -> StepPlan {
    let mesh = state.mesh;
    let n_ops = step.operands.len();
    let count = n_ops + step.results.len();
    let projected: Vec<_> = (0..count)
        .map(|k| state.projected(step, k, i64::MAX).map(|(p, _)| p))
        .collect();
    let nf = step.rule.factors.len();
    // Result-side tensors decide the factors they have (the first that has it). Computed
    // whole whatever the results hold (a result held split along one is sliced after the
    // op): blocked factors, and factors only results have (a slice's or a window's output
    // dimension, a convolution's output spatial ones) but for a broadcast's new dimensions,
    // which each device makes its piece of.
    let on_operand: Vec<bool> = (0..nf)
        .map(|f| step.rule.operands.iter().flatten().any(|d| d.contains(&f)))
        .collect();
    let mut chosen: Vec<Option<Vec<AxisRef>>> = (0..nf)
        .map(|f| match step.rule.factors[f].kind {
            FactorKind::Blocked => Some(vec![]),
            _ if !on_operand[f] && step.rule.class != OpClass::Broadcast => Some(vec![]),
            FactorKind::Pass | FactorKind::Windowed | FactorKind::Reduction => projected[n_ops..]
                .iter()
                .flatten()
                .find_map(|p| p.axes[f].clone()),
        })
        .collect();
    yield_to_reductions(step, &projected[..n_ops], mesh, &mut chosen);
    yield_to_operands(step, &projected[..n_ops], mesh, &mut chosen);
    let mut claimed: Vec<AxisRef> = chosen.iter().flatten().flatten().cloned().collect();
    for (f, slot) in chosen.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        let axes_f = match step.rule.factors[f].kind {
            FactorKind::Blocked => vec![],
            FactorKind::Pass | FactorKind::Windowed | FactorKind::Reduction => {
                let lists: Vec<&[AxisRef]> = projected[..n_ops]
                    .iter()
                    .flatten()
                    .filter_map(|p| p.axes[f].as_deref())
                    .collect();
                let mut c = compatible(&lists, mesh);
                let keep = c
                    .iter()
                    .take_while(|a| !axes::overlaps_any(a, &claimed, mesh))
                    .count();
                c.truncate(keep);
                c
            }
        };
        claimed.extend(axes_f.iter().cloned());
        *slot = Some(axes_f);
    }
    let mut factor_axes: Vec<Vec<AxisRef>> =
        chosen.into_iter().map(Option::unwrap_or_default).collect();
    if aside {
        move_split_aside(step, &projected, mesh, &mut factor_axes);
    }
    let reduction_axes = (0..nf)
        .filter(|&f| step.rule.factors[f].kind == FactorKind::Reduction)
        .flat_map(|f| factor_axes[f].iter().cloned())
        .collect();
    let mut plan = StepPlan {
        factor_axes,
        reduction_axes,
        reshards: vec![],
        notes: vec![],
    };
    for k in 0..count {
        let (t, dims) = tensor(step, k);
        let site = if k < n_ops {
            step.operand_sites[k]
        } else {
            step.result_sites[k - n_ops]
        };
        let (TensorRef::Value(v), Some(held)) = (t, state.get(t)) else {
            continue;
        };
        let at = match site {
            Site::Operand(i) | Site::RegionReturn(_, i) => ReshardSite::Operand(i),
            Site::Result(i) => ReshardSite::Result(i),
            Site::None => continue,
        };
        if held.dims.len() != dims.len() {
            continue;
        }
        let needed = required(
            step,
            dims,
            held,
            &plan.factor_axes,
            mesh,
            k,
            &mut plan.notes,
        );
        let same = held
            .dims
            .iter()
            .zip(&needed.dims)
            .all(|(a, b)| axes::merge_adjacent(a.axes.clone(), mesh) == b.axes);
        if same {
            continue;
        }
        let (from, to) = if k < n_ops {
            (closed(held), needed)
        } else {
            (needed, closed(held))
        };
        plan.reshards.push((
            site,
            Reshard {
                at,
                value: *v,
                from,
                to,
            },
        ));
    }
    plan
}

/// The sharding tensor `k` of `step` needs under the chosen factor axes. A dimension takes
/// its factors' axes major to minor, and stops after a factor that is not fully sharded
/// (what follows would stride the dimension): that is noted.
fn required(
    step: &Step,
    dims: &[Vec<usize>],
    held: &SdySharding,
    factor_axes: &[Vec<AxisRef>],
    mesh: &SdyMesh,
    k: usize,
    notes: &mut Vec<String>,
) -> SdySharding {
    let side = if k < step.operands.len() {
        format!("operand {k}")
    } else {
        format!("result {}", k - step.operands.len())
    };
    let dims = dims
        .iter()
        .enumerate()
        .map(|(d, factors)| {
            let mut out: Vec<AxisRef> = vec![];
            let mut open = true;
            for &f in factors {
                let fa = &factor_axes[f];
                if !open && !fa.is_empty() {
                    notes.push(format!(
                        "the sharding over {} cannot pass through to {side} dimension {d}: a \
                         more major part of that dimension is not fully sharded",
                        axes::describe(fa)
                    ));
                    break;
                }
                out.extend(fa.iter().cloned());
                open = axes::product(fa, mesh) == step.rule.factors[f].size;
            }
            DimSharding {
                axes: axes::merge_adjacent(out, mesh),
                closed: true,
                priority: None,
            }
        })
        .collect();
    SdySharding {
        mesh: held.mesh.clone(),
        dims,
        replicated: held.replicated.clone(),
        unreduced: held.unreduced.clone(),
    }
}

/// Elements of a tensor made of `dims` (per dimension, its factors).
fn elements(factors: &[Factor], dims: &[Vec<usize>]) -> i64 {
    dims.iter().flatten().map(|&f| factors[f].size).product()
}

/// A result-side factor that takes the minor-most axis an operand's reduction factor is
/// split over leaves it to the reduction when that moves less data: the op then computes
/// partial results, completed by a reduce-scatter onto the result's sharding (moving about
/// the results, plus the operands that hold the result's factor over the axis, which must
/// then be gathered), where otherwise the operands split along the reduction would be
/// gathered — XLA's choice for a row-parallel product whose result is split (sequence
/// parallelism), and not for an FSDP weight (gathered, the activations left alone).
fn yield_to_reductions(
    step: &Step,
    operands: &[Option<Projected>],
    mesh: &SdyMesh,
    chosen: &mut [Option<Vec<AxisRef>>],
) {
    let factors = &step.rule.factors;
    let size = |dims: &[Vec<usize>]| elements(factors, dims);
    let results: i64 = step.rule.results.iter().map(|t| size(t)).sum();
    // The operands whose factor `f` is split over an axis overlapping `a`, by size.
    let holding = |f: usize, a: &AxisRef| -> i64 {
        operands
            .iter()
            .zip(&step.rule.operands)
            .filter_map(|(p, dims)| {
                let axes = p.as_ref()?.axes.get(f)?.as_ref()?;
                axes::overlaps_any(a, axes, mesh).then(|| size(dims))
            })
            .sum()
    };
    for g in (0..factors.len()).filter(|&g| factors[g].kind == FactorKind::Reduction) {
        let lists: Vec<&[AxisRef]> = operands
            .iter()
            .flatten()
            .filter_map(|p| p.axes[g].as_deref())
            .collect();
        let reduction = compatible(&lists, mesh);
        // A result factor holding all the reduction's axes as its minor end (an FSDP weight's
        // gradient split over two axes like the batch it contracts) yields them together
        // when that moves less: the axes one by one would stop at the first, not minor.
        if reduction.len() > 1 {
            let n = reduction.len();
            let taker = (0..chosen.len()).find(|&f| {
                factors[f].kind == FactorKind::Pass
                    && chosen[f]
                        .as_ref()
                        .is_some_and(|c| c.len() >= n && c[c.len() - n..] == reduction[..])
            });
            if let Some(f) = taker {
                let held = |f: usize| -> i64 {
                    reduction.iter().map(|a| holding(f, a)).max().unwrap_or(0)
                };
                if results + held(f) <= held(g) {
                    if let Some(c) = chosen[f].as_mut() {
                        c.truncate(c.len() - n);
                    }
                    continue;
                }
            }
        }
        for a in reduction {
            let taker = (0..chosen.len()).find(|&f| {
                factors[f].kind == FactorKind::Pass
                    && chosen[f].as_ref().is_some_and(|c| c.last() == Some(&a))
            });
            if let Some(f) = taker {
                if results + holding(f, &a) > holding(g, &a) {
                    break;
                }
                chosen[f].as_mut().map(Vec::pop);
                continue;
            }
            // An axis taken otherwise than at a minor end: the reduction stops before it.
            let one = std::slice::from_ref(&a);
            if chosen
                .iter()
                .flatten()
                .flatten()
                .any(|x| axes::overlaps_any(x, one, mesh))
            {
                break;
            }
        }
    }
}

/// A factor the results hold whole but large operands hold split over an axis that another
/// result factor takes last (an FSDP embedding table split along its features, looked up
/// by ids split over the same axis) is computed split over it instead, when that moves less
/// per device: the operands are then used where they lie and the result is moved by one
/// all-to-all (plus the operands holding the other factor over the axis, gathered), where
/// otherwise the large operands would be gathered whole along the factor.
fn yield_to_operands(
    step: &Step,
    operands: &[Option<Projected>],
    mesh: &SdyMesh,
    chosen: &mut [Option<Vec<AxisRef>>],
) {
    let factors = &step.rule.factors;
    let size = |dims: &[Vec<usize>]| elements(factors, dims);
    // Per-device elements of each operand as it is held, of the results as now chosen.
    let local = |dims: &[Vec<usize>], axes_of: &dyn Fn(usize) -> Vec<AxisRef>| -> i64 {
        let tiles: i64 = dims
            .iter()
            .flatten()
            .map(|&f| axes::product(&axes_of(f), mesh))
            .product();
        size(dims) / tiles.max(1)
    };
    // The per-device elements of the operands whose factor `f` is split over `a`.
    let holding = |f: usize, a: &AxisRef| -> i64 {
        operands
            .iter()
            .zip(&step.rule.operands)
            .filter_map(|(p, dims)| {
                let p = p.as_ref()?;
                let axes = p.axes.get(f)?.as_ref()?;
                axes::overlaps_any(a, axes, mesh).then(|| {
                    local(dims, &|g| {
                        p.axes.get(g).cloned().flatten().unwrap_or_default()
                    })
                })
            })
            .sum()
    };
    for g in (0..factors.len()).filter(|&g| factors[g].kind == FactorKind::Pass) {
        let Some(held) = chosen[g].clone() else {
            continue;
        };
        let lists: Vec<&[AxisRef]> = operands
            .iter()
            .flatten()
            .filter_map(|p| p.axes[g].as_deref())
            .collect();
        let wanted = compatible(&lists, mesh);
        let Some(a) = wanted.get(held.len()).cloned() else {
            continue;
        };
        if !wanted.starts_with(&held)
            || factors[g].size % (axes::product(&held, mesh) * axes::size(&a, mesh)) != 0
        {
            continue;
        }
        let taker = (0..chosen.len()).find(|&f| {
            f != g
                && factors[f].kind == FactorKind::Pass
                && chosen[f].as_ref().is_some_and(|c| c.last() == Some(&a))
        });
        let Some(f) = taker else { continue };
        let others = chosen
            .iter()
            .enumerate()
            .filter(|&(h, _)| h != f)
            .flat_map(|(_, c)| c.iter().flatten())
            .any(|x| axes::overlaps_any(x, std::slice::from_ref(&a), mesh));
        if others {
            continue;
        }
        let results: i64 = step
            .rule
            .results
            .iter()
            .map(|dims| local(dims, &|h| chosen[h].clone().unwrap_or_default()))
            .sum();
        let k = axes::size(&a, mesh);
        if results / k + holding(f, &a) >= holding(g, &a) {
            continue;
        }
        chosen[f].as_mut().map(Vec::pop);
        if let Some(c) = chosen[g].as_mut() {
            c.push(a);
        }
    }
}

/// The axes the operands hold a blocked factor split over (a dimension the op needs whole),
/// moved onto a factor every operand and result has as a dimension of its own, that is
/// computed whole (or else split, the axes joining its minor end) and that the tiles divide — XLA's sort handler's move: each operand
/// goes there by one all-to-all and the result comes back by another, each device holding
/// 1/T of the array throughout, where gathering the dimension would hold and move all of it.
/// Nothing moves when those axes are taken by another factor, no dimension fits, or no
/// result is held split over them (`tensors`: the operands' then the results' projections):
/// a result held whole is gathered anyway, and gathering the operand instead is one
/// collective, not two.
fn move_split_aside(
    step: &Step,
    tensors: &[Option<Projected>],
    mesh: &SdyMesh,
    factor_axes: &mut [Vec<AxisRef>],
) {
    let factors = &step.rule.factors;
    let (operands, results) = tensors.split_at(step.operands.len());
    let mut moving: Vec<AxisRef> = vec![];
    for (p, dims) in operands.iter().zip(&step.rule.operands) {
        let Some(p) = p else { continue };
        for &f in dims.iter().flatten() {
            if factors[f].kind != FactorKind::Blocked {
                continue;
            }
            for a in p.axes.get(f).cloned().flatten().unwrap_or_default() {
                if !axes::overlaps_any(&a, &moving, mesh) {
                    moving.push(a);
                }
            }
        }
    }
    let taken = factor_axes
        .iter()
        .flatten()
        .any(|a| axes::overlaps_any(a, &moving, mesh));
    let wanted = results
        .iter()
        .flatten()
        .any(|p| p.used.iter().any(|a| axes::overlaps_any(a, &moving, mesh)));
    if moving.is_empty() || taken || !wanted {
        return;
    }
    let tiles = axes::product(&moving, mesh);
    let own_dimension = |f: usize| {
        let tensors = step.rule.operands.iter().chain(&step.rule.results);
        tensors.clone().all(|dims| dims.iter().any(|d| d == &[f]))
    };
    // Whole dimensions first; else one split already, the moved axes joining its minor end.
    let fits = |f: &usize, whole: bool| {
        factors[*f].kind == FactorKind::Pass
            && factor_axes[*f].is_empty() == whole
            && factors[*f].size % (axes::product(&factor_axes[*f], mesh) * tiles) == 0
            && own_dimension(*f)
    };
    let found = (0..factors.len())
        .find(|f| fits(f, true))
        .or_else(|| (0..factors.len()).find(|f| fits(f, false)));
    if let Some(f) = found {
        factor_axes[f].extend(moving);
    }
}
