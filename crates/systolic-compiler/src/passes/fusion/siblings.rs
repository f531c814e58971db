//! Sibling multi-output fusion: two fusions that read the same non-scalar value, compute over
//! the same index space and do not depend on each other become one fusion with the outputs of
//! both, so the shared input crosses the memory bus once instead of twice.
//!
//! Compatible siblings: two loops of one output shape, or two reductions over the same
//! dimensions of same-shaped inputs (sibling reduces). Products are never merged (each is
//! one gemm). Independence is checked on the block's dataflow graph, with the order of the
//! unfusable ops (calls, side effects, control flow) counted as dependencies.

use super::classify::Category;
use super::graph::BlockGraph;
use super::plan::{GroupKind, Home, Plan};
use std::collections::HashSet;
use systolic_ir::{Func, ValueId};

/// A fusion absorbs at most this many siblings (its kernel's outputs stay few).
pub const MAX_SIBLINGS: usize = 3;

/// Each reader of a shared value is paired with at most this many of the next readers (in
/// block order): siblings are usually close, and this keeps the search linear in the block.
pub const WINDOW: usize = 4;

/// Merges compatible, independent sibling groups of `plan` that share a non-scalar input.
pub fn merge_siblings(func: &Func, graph: &BlockGraph, plan: &mut Plan) {
    let candidates = candidate_pairs(func, graph, plan);
    if candidates.is_empty() {
        return;
    }
    let mut absorbed = vec![0usize; plan.groups.len()];
    let mut dag = Dag::new(graph, plan);
    for (a, b) in candidates {
        let (ga, gb) = (&plan.groups[a], &plan.groups[b]);
        if !ga.alive
            || !gb.alive
            || absorbed[a] + absorbed[b] + 1 > MAX_SIBLINGS
            || !compatible(plan, a, b)
        {
            continue;
        }
        // Merging only adds paths, so a pair found dependent stays dependent.
        if dag.reaches(Node::Group(a), Node::Group(b))
            || dag.reaches(Node::Group(b), Node::Group(a))
        {
            continue;
        }
        merge(plan, a, b);
        absorbed[a] += 1 + absorbed[b];
        dag = Dag::new(graph, plan);
    }
}

/// Pairs of live groups reading a common non-scalar value, each group with the next
/// [`WINDOW`] readers of that value, in block order, without repeats.
fn candidate_pairs(func: &Func, graph: &BlockGraph, plan: &Plan) -> Vec<(usize, usize)> {
    let mut readers: std::collections::BTreeMap<ValueId, Vec<usize>> = Default::default();
    for g in (0..plan.groups.len()).filter(|&g| plan.groups[g].alive) {
        for v in shared_candidates(func, graph, plan, g) {
            readers.entry(v).or_default().push(g);
        }
    }
    let anchor = |g: usize| plan.groups[g].members.keys().last().copied();
    let mut seen = HashSet::new();
    let mut pairs = vec![];
    for (_, mut gs) in readers {
        gs.sort_by_key(|&g| anchor(g));
        for i in 0..gs.len() {
            for &b in gs.iter().skip(i + 1).take(WINDOW) {
                let pair = (gs[i].min(b), gs[i].max(b));
                if seen.insert(pair) {
                    pairs.push(pair);
                }
            }
        }
    }
    pairs.sort_by_key(|&(a, b)| (anchor(a).min(anchor(b)), a, b));
    pairs
}

/// Same kind of fusion over the same index space, with no member in conflicting roles.
fn compatible(plan: &Plan, a: usize, b: usize) -> bool {
    let (ga, gb) = (&plan.groups[a], &plan.groups[b]);
    let same_space = match (&ga.kind, &gb.kind) {
        (GroupKind::Loop, GroupKind::Loop) => true,
        (GroupKind::Reduction { .. }, GroupKind::Reduction { .. }) => ga.kind == gb.kind,
        _ => false,
    };
    same_space
        && ga.shape == gb.shape
        && gb
            .members
            .iter()
            .all(|(m, r)| ga.members.get(m).is_none_or(|ra| ra == r))
}

/// The non-scalar values group `g` reads from outside itself.
fn shared_candidates(func: &Func, graph: &BlockGraph, plan: &Plan, g: usize) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    for m in plan.members(g) {
        for v in &graph.reads[m] {
            let inside = graph.def.get(v).is_some_and(|&d| plan.holds(g, d));
            let large = func
                .value_type(*v)
                .as_tensor()
                .is_some_and(|t| t.num_elements() > 1);
            if !inside && large {
                out.insert(*v);
            }
        }
    }
    out
}

/// Moves every member of group `b` into group `a`.
pub(super) fn merge(plan: &mut Plan, a: usize, b: usize) {
    for m in plan.members(b) {
        let role = plan.groups[b].members[&m];
        plan.copies[m].retain(|&x| x != b);
        if plan.home[m] == Home::Group(b) {
            plan.home[m] = Home::Group(a);
            plan.copies[m].retain(|&x| x != a);
        } else if !plan.holds(a, m) {
            plan.copies[m].push(a);
        }
        plan.groups[a].members.insert(m, role);
    }
    plan.groups[b].members.clear();
    plan.groups[b].alive = false;
}

/// A node of the block's dataflow graph after grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Node {
    Group(usize),
    Op(usize),
}

/// The block's dataflow between groups and standalone ops, with a topological index per node
/// (a path only goes to higher indices, which bounds the searches).
pub(super) struct Dag {
    pub(super) succs: std::collections::HashMap<Node, Vec<Node>>,
    topo: std::collections::HashMap<Node, usize>,
}

impl Dag {
    pub(super) fn new(graph: &BlockGraph, plan: &Plan) -> Dag {
        let mut succs: std::collections::HashMap<Node, Vec<Node>> = Default::default();
        let mut edge = |a: Node, b: Node| {
            if a != b {
                succs.entry(a).or_default().push(b);
            }
        };
        let mut last_pinned = None;
        for j in 0..graph.len() {
            let (groups, outside) = plan.instances(j);
            let readers = groups
                .into_iter()
                .map(Node::Group)
                .chain(outside.then_some(Node::Op(j)));
            for reader in readers {
                for v in &graph.reads[j] {
                    let Some(&d) = graph.def.get(v) else {
                        continue;
                    };
                    if matches!(reader, Node::Group(g) if plan.holds(g, d)) {
                        continue;
                    }
                    match plan.home[d] {
                        Home::Group(h) => edge(Node::Group(h), reader),
                        Home::Standalone => edge(Node::Op(d), reader),
                        Home::Removed => {}
                    }
                }
            }
            if outside && graph.cats[j] == Category::Opaque {
                if let Some(p) = last_pinned {
                    edge(Node::Op(p), Node::Op(j));
                }
                last_pinned = Some(j);
            }
        }
        let topo = topological_index(&succs);
        Dag { succs, topo }
    }

    pub(super) fn reaches(&self, from: Node, to: Node) -> bool {
        let index = |n: &Node| self.topo.get(n).copied().unwrap_or(0);
        let limit = index(&to);
        if index(&from) > limit {
            return false;
        }
        let mut seen = HashSet::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n) {
                let next = self.succs.get(&n).into_iter().flatten();
                stack.extend(next.filter(|m| index(m) <= limit).copied());
            }
        }
        false
    }
}

/// A topological numbering of the nodes of `succs` (Kahn's algorithm; nodes on a cycle, which
/// a valid plan never has, get no number and count as 0).
fn topological_index(
    succs: &std::collections::HashMap<Node, Vec<Node>>,
) -> std::collections::HashMap<Node, usize> {
    let mut indegree: std::collections::HashMap<Node, usize> = Default::default();
    for (n, ms) in succs {
        indegree.entry(*n).or_default();
        for m in ms {
            *indegree.entry(*m).or_default() += 1;
        }
    }
    let mut ready: Vec<Node> = indegree
        .iter()
        .filter(|(_, &d)| d == 0)
        .map(|(n, _)| *n)
        .collect();
    let mut topo = std::collections::HashMap::new();
    while let Some(n) = ready.pop() {
        topo.insert(n, topo.len());
        for m in succs.get(&n).into_iter().flatten() {
            let d = indegree.get_mut(m).expect("every successor has a degree");
            *d -= 1;
            if *d == 0 {
                ready.push(*m);
            }
        }
    }
    topo
}
