//! Turns a block's [`Plan`] into ops: each live group becomes one `systolic.fusion` whose
//! region holds copies of its members, every other op stays as it was, and the block is put
//! back in an order where every value is defined before it is read.

use super::graph::BlockGraph;
use super::plan::{GroupKind, Home, Plan, Role};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use systolic_ir::{Block, Diagnostic, Func, FusionKind, Op, OpKind, Region, ReturnKind, ValueId};

/// Gives fusions names unique in their function (`fusion.0`, `fusion.1`, …).
#[derive(Default)]
pub struct Namer {
    next: usize,
    taken: HashSet<String>,
}

impl Namer {
    /// A namer that avoids the names already in `func` (a second run of the pass).
    pub fn for_func(func: &Func) -> Namer {
        let mut taken = HashSet::new();
        systolic_ir::walk::walk_ops(&func.body, &mut |op, _| {
            if let OpKind::Fusion { name, .. } = &op.kind {
                taken.insert(name.clone());
            }
        });
        Namer { next: 0, taken }
    }

    fn fresh(&mut self) -> String {
        loop {
            let name = format!("fusion.{}", self.next);
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}

/// One op of the rebuilt block.
struct Item {
    op: Op,
    /// Its place in the original block (the last member's, for a fusion).
    anchor: usize,
    /// Opaque ops keep their relative order (side effects, calls, control flow).
    pinned: bool,
}

/// Rebuilds `ops` (one block of `func`) following `plan`; returns the new ops.
pub fn emit_block(
    func: &mut Func,
    ops: Vec<Op>,
    graph: &BlockGraph,
    plan: &Plan,
    namer: &mut Namer,
) -> Result<Vec<Op>, Diagnostic> {
    let escapes = escaping_values(graph, plan)?;
    let mut items = vec![];
    for (g, group) in plan.groups.iter().enumerate() {
        if !group.alive {
            continue;
        }
        let kind = match group.kind {
            GroupKind::Loop => FusionKind::Loop,
            GroupKind::Reduction { .. } | GroupKind::Rows { .. } => FusionKind::Reduction,
            GroupKind::Product => FusionKind::Product,
        };
        if let Some(op) = build_fusion(func, &ops, graph, plan, g, kind, &escapes) {
            let anchor = *group
                .members
                .keys()
                .last()
                .expect("live groups have members");
            items.push(Item {
                op,
                anchor,
                pinned: false,
            });
        }
    }
    let terminator_at = ops
        .last()
        .filter(|op| op.kind.is_terminator())
        .map(|_| ops.len() - 1);
    let mut terminator = None;
    for (j, op) in ops.into_iter().enumerate() {
        if plan.home[j] != Home::Standalone {
            continue;
        }
        if Some(j) == terminator_at {
            terminator = Some(op);
            continue;
        }
        items.push(Item {
            op,
            anchor: j,
            pinned: graph.cats[j] == super::classify::Category::Opaque,
        });
    }
    let mut out = topological_order(items).ok_or_else(|| {
        Diagnostic::new(format!(
            "fusion made a cyclic block in @{} (an internal error)",
            func.name
        ))
    })?;
    // Names follow the final order, so dumps read `fusion.0`, `fusion.1`, … top to bottom.
    for op in &mut out {
        if let OpKind::Fusion { name, .. } = &mut op.kind {
            if name.is_empty() {
                *name = namer.fresh();
            }
        }
    }
    out.extend(terminator);
    Ok(out)
}

/// The values a group must return: those defined by a member's own instance and read by some
/// instance outside that group.
fn escaping_values(graph: &BlockGraph, plan: &Plan) -> Result<HashSet<ValueId>, Diagnostic> {
    let mut escapes = HashSet::new();
    for j in 0..graph.len() {
        let (groups, outside) = plan.instances(j);
        let readers = groups.into_iter().map(Some).chain(outside.then_some(None));
        for reader in readers {
            for v in &graph.reads[j] {
                let Some(&d) = graph.def.get(v) else {
                    continue;
                };
                if reader.is_some_and(|g| plan.holds(g, d)) {
                    continue;
                }
                match plan.home[d] {
                    Home::Group(_) => {
                        escapes.insert(*v);
                    }
                    Home::Standalone => {}
                    Home::Removed => {
                        return Err(Diagnostic::new(format!(
                            "fusion removed the producer of value #{} that op {j} still reads \
                             (an internal error)",
                            v.0
                        )))
                    }
                }
            }
        }
    }
    Ok(escapes)
}

/// The `systolic.fusion` op of group `g` (named later), or `None` when nothing it computes is
/// read.
fn build_fusion(
    func: &mut Func,
    ops: &[Op],
    graph: &BlockGraph,
    plan: &Plan,
    g: usize,
    kind: FusionKind,
    escapes: &HashSet<ValueId>,
) -> Option<Op> {
    let members = region_order(plan, g);
    let defined: HashSet<ValueId> = members
        .iter()
        .flat_map(|&m| ops[m].results.iter().copied())
        .collect();
    let mut operands: Vec<ValueId> = vec![];
    for &m in &members {
        for v in &graph.reads[m] {
            if !defined.contains(v) && !operands.contains(v) {
                operands.push(*v);
            }
        }
    }
    let results: Vec<ValueId> = members
        .iter()
        .filter(|&&m| plan.home[m] == Home::Group(g))
        .flat_map(|&m| ops[m].results.iter().copied())
        .filter(|r| escapes.contains(r))
        .collect();
    if results.is_empty() {
        return None;
    }
    let mut map = HashMap::new();
    let args: Vec<ValueId> = operands
        .iter()
        .map(|&v| {
            let a = fresh_like(func, v);
            map.insert(v, a);
            a
        })
        .collect();
    let mut body: Vec<Op> = members
        .iter()
        .map(|&m| clone_op(func, &ops[m], &mut map))
        .collect();
    let returned = results.iter().map(|r| map[r]).collect();
    body.push(Op::new(
        OpKind::Return(ReturnKind::Stablehlo),
        returned,
        vec![],
    ));
    let root = &ops[*plan.groups[g].members.keys().last()?];
    let mut fusion = Op::new(
        OpKind::Fusion {
            kind,
            name: String::new(),
        },
        operands,
        results,
    );
    fusion.regions = vec![Region::single(Block { args, ops: body })];
    fusion.loc = root.loc.clone();
    fusion.span = root.span;
    Some(fusion)
}

/// The members of group `g` in the order its region lists them: a reduction's input producers,
/// then its reduce(s), then the epilogue (so sibling reduces sit together, as the kernels
/// expect); block order within each part. Inputs depend only on inputs, anchors on inputs, the
/// epilogue on anchors and itself, so this order defines every value before its use.
fn region_order(plan: &Plan, g: usize) -> Vec<usize> {
    if let GroupKind::Rows { .. } = plan.groups[g].kind {
        // Reduces and the work between them interleave: block order defines every value first.
        return plan.members(g);
    }
    let rank = |r: Role| match r {
        Role::Input => 0,
        Role::Anchor => 1,
        Role::Main => 2,
    };
    let mut members: Vec<(usize, usize)> = plan.groups[g]
        .members
        .iter()
        .map(|(&m, &r)| (rank(r), m))
        .collect();
    members.sort_unstable();
    members.into_iter().map(|(_, m)| m).collect()
}

/// A new value of `v`'s type, named after it.
fn fresh_like(func: &mut Func, v: ValueId) -> ValueId {
    let def = func.values[v.index()].clone();
    func.new_value(def.ty, def.name)
}

/// Copies `op` (and its regions) within `func`: every value it defines gets a fresh value
/// recorded in `map`; operands are renamed through `map` (unmapped ones are kept).
/// (`walk::clone_op` clones between two functions; here source and destination are one.)
fn clone_op(func: &mut Func, op: &Op, map: &mut HashMap<ValueId, ValueId>) -> Op {
    let operands = op
        .operands
        .iter()
        .map(|v| *map.get(v).unwrap_or(v))
        .collect();
    let regions = op
        .regions
        .iter()
        .map(|r| Region {
            blocks: r
                .blocks
                .iter()
                .map(|b| {
                    let args = b
                        .args
                        .iter()
                        .map(|&a| {
                            let n = fresh_like(func, a);
                            map.insert(a, n);
                            n
                        })
                        .collect();
                    let ops = b.ops.iter().map(|o| clone_op(func, o, map)).collect();
                    Block { args, ops }
                })
                .collect(),
        })
        .collect();
    let results = op
        .results
        .iter()
        .map(|&r| {
            let n = fresh_like(func, r);
            map.insert(r, n);
            n
        })
        .collect();
    Op {
        kind: op.kind.clone(),
        operands,
        results,
        regions,
        attrs: op.attrs.clone(),
        loc: op.loc.clone(),
        span: op.span,
    }
}

/// Orders items so that every value is defined before it is read and pinned items keep their
/// relative order; among ready items the earliest anchor goes first (so an unchanged block keeps
/// its order). `None` if the items form a cycle.
fn topological_order(mut items: Vec<Item>) -> Option<Vec<Op>> {
    items.sort_by_key(|it| it.anchor);
    let n = items.len();
    let mut producer: HashMap<ValueId, usize> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        for &r in &it.op.results {
            producer.insert(r, i);
        }
    }
    let mut succs = vec![vec![]; n];
    let mut indegree = vec![0usize; n];
    let mut add_edge = |a: usize, b: usize, succs: &mut Vec<Vec<usize>>| {
        if a != b && !succs[a].contains(&b) {
            succs[a].push(b);
            indegree[b] += 1;
        }
    };
    let mut last_pinned = None;
    for (i, it) in items.iter().enumerate() {
        let mut reads = it.op.operands.clone();
        reads.extend(super::graph::captured_values(&it.op));
        for v in reads {
            if let Some(&p) = producer.get(&v) {
                add_edge(p, i, &mut succs);
            }
        }
        if it.pinned {
            if let Some(p) = last_pinned {
                add_edge(p, i, &mut succs);
            }
            last_pinned = Some(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| indegree[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &s in &succs[i] {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                ready.push(Reverse(s));
            }
        }
    }
    if order.len() != n {
        return None;
    }
    let mut slots: Vec<Option<Op>> = items.into_iter().map(|it| Some(it.op)).collect();
    Some(order.into_iter().filter_map(|i| slots[i].take()).collect())
}
