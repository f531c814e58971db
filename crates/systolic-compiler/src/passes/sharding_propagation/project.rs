//! Between dimension shardings and factor shardings. A dimension made of factors
//! `(f1, f2, …)` (major to minor) sharded over axes `a1, a2, …` gives its axes to `f1` until
//! `f1`'s size is used up, then to `f2`, splitting an axis into sub-axes where a factor needs
//! only its major part (`"x"=4` over factors of sizes 2 and 8: `"x":(1)2` and `"x":(2)2`).
//! Axes that fit no factor (they would split a factor unevenly before the last) stay on the
//! dimension as *overflow*: kept, but nothing can be added to that dimension.

use super::axes;
use super::rules::OpRule;
use systolic_ir::{AxisRef, SdyMesh, SdySharding};

/// One tensor of a rule seen through its factors.
#[derive(Clone, Debug)]
pub(crate) struct Projected {
    /// Per factor of the rule: the axes this tensor shards it over (`None`: the tensor does
    /// not have the factor). Axes of dimensions hidden by a user priority are not shown.
    pub axes: Vec<Option<Vec<AxisRef>>>,
    /// Per factor: whether propagation may add axes to it in this tensor.
    pub grow: Vec<bool>,
    /// Every axis the tensor uses (hidden dimensions, overflow and replicated axes too).
    pub used: Vec<AxisRef>,
    /// Per dimension: axes that fit no factor.
    pub overflow: Vec<Vec<AxisRef>>,
}

/// Projects `s` (a tensor whose dimensions are `dims`, factor lists) onto the rule's factors.
/// `threshold` is the user-priority round: dimensions with a larger priority are hidden.
/// `mutable` is false for a fixed sharding.
pub(crate) fn project(
    rule: &OpRule,
    dims: &[Vec<usize>],
    s: &SdySharding,
    mesh: &SdyMesh,
    threshold: i64,
    mutable: bool,
) -> Projected {
    let n = rule.factors.len();
    let mut p = Projected {
        axes: vec![None; n],
        grow: vec![false; n],
        used: s.replicated.clone(),
        overflow: vec![vec![]; dims.len()],
    };
    p.used.extend(s.unreduced.iter().cloned());
    for (d, factors) in dims.iter().enumerate() {
        let Some(dim) = s.dims.get(d) else { continue };
        p.used.extend(dim.axes.iter().cloned());
        let hidden = dim.priority.unwrap_or(-1) > threshold;
        let mut per: Vec<Vec<AxisRef>> = vec![vec![]; factors.len()];
        let mut caps: Vec<i64> = factors.iter().map(|&f| rule.factors[f].size).collect();
        let mut k = 0;
        let mut overflow = vec![];
        for a in &dim.axes {
            let mut a = a.clone();
            loop {
                if !overflow.is_empty() || k >= factors.len() {
                    overflow.push(a);
                    break;
                }
                let (cap, size) = (caps[k], axes::size(&a, mesh));
                if cap <= 1 {
                    k += 1;
                    continue;
                }
                if cap % size == 0 {
                    per[k].push(a);
                    caps[k] /= size;
                    break;
                }
                if size % cap == 0 {
                    let (major, minor) = axes::split(&a, cap, mesh);
                    per[k].push(major);
                    caps[k] = 1;
                    k += 1;
                    a = minor;
                    continue;
                }
                if k + 1 == factors.len() {
                    // Uneven on the last factor: allowed (the partitioner pads).
                    per[k].push(a);
                    caps[k] = 1;
                    break;
                }
                overflow.push(a);
                break;
            }
        }
        let sharded: Vec<bool> = per.iter().map(|x| !x.is_empty()).collect();
        for (k, &f) in factors.iter().enumerate() {
            p.axes[f] = Some(if hidden { vec![] } else { per[k].clone() });
            p.grow[f] = mutable
                && !dim.closed
                && !hidden
                && overflow.is_empty()
                && caps[k] > 1
                && caps[..k].iter().all(|&c| c <= 1)
                && !sharded[k + 1..].iter().any(|&x| x);
        }
        p.overflow[d] = overflow;
    }
    p
}

/// The dimension axes of a tensor from its factor axes (overflow kept at the end), with
/// adjacent sub-axes merged.
pub(crate) fn dim_axes(
    factors: &[usize],
    factor_axes: &[Option<Vec<AxisRef>>],
    overflow: &[AxisRef],
    mesh: &SdyMesh,
) -> Vec<AxisRef> {
    let mut out: Vec<AxisRef> = factors
        .iter()
        .flat_map(|&f| factor_axes[f].clone().unwrap_or_default())
        .collect();
    out.extend(overflow.iter().cloned());
    axes::merge_adjacent(out, mesh)
}
