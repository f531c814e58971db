//! The grouping decisions for one block: which ops go into which fusion, which cheap ops are
//! duplicated into several, and which stay alone.
//!
//! Ops are visited last to first, so when an op is decided every op that reads it already has
//! been: the op joins the one group all its readers belong to (if that group can take it), is
//! copied into every reading group when it is cheap, becomes an extra output of a loop that
//! reads it, or starts a group of its own. A group takes a producer whose every reader is in
//! the group (copies aside), or, as an extra output, one none of whose other readers leads back
//! into the group (checked through fusions as units); so a group never has a path that leaves it and comes back
//! and the fused program stays acyclic.

use super::classify::Category;
use super::graph::BlockGraph;
use std::collections::BTreeMap;
use systolic_ir::{Func, Op, OpKind, ValueId};

/// A cheap elementwise op is copied into at most this many fusions (past that, writing it once
/// is cheaper than recomputing it everywhere). Views (broadcasts, iotas, scalar constants,
/// reshapes, transposes, slices) compute nothing and are copied into every reader.
pub const MAX_COPIES: usize = 4;

/// What a member does in its group: which index space it runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Over the group's output shape (a loop, or the epilogue of a reduce or product).
    Main,
    /// Over a reduce's input shape (producers fused into a reduction's inputs).
    Input,
    /// The reduce or product the group is built around.
    Anchor,
}

/// What a group computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// Elementwise work over one shape.
    Loop,
    /// A reduce over `dimensions` of `input_shape`, its input producers and epilogue.
    Reduction {
        /// Dimensions reduced.
        dimensions: Vec<i64>,
        /// Shape of the reduce's inputs.
        input_shape: Vec<i64>,
    },
    /// A dot_general or convolution and its epilogue.
    Product,
    /// Reduces over the innermost `dimensions` of `input_shape` whose results feed later work
    /// over the same rows (softmax, layer norm; see [`super::rows`]).
    Rows {
        /// Dimensions reduced (the innermost ones).
        dimensions: Vec<i64>,
        /// Shape every reduce reads.
        input_shape: Vec<i64>,
    },
}

/// A set of ops of the block that becomes one fusion.
#[derive(Clone, Debug)]
pub struct Group {
    /// What it computes.
    pub kind: GroupKind,
    /// The output shape (of the loop or of the anchor's results).
    pub shape: Vec<i64>,
    /// Members (op index in the block) and their roles.
    pub members: BTreeMap<usize, Role>,
    /// False once the group is dissolved or merged into another.
    pub alive: bool,
}

impl Group {
    fn domain(&self, role: Role) -> Option<&[i64]> {
        match (role, &self.kind) {
            (Role::Main, _) => Some(&self.shape),
            (Role::Input, GroupKind::Reduction { input_shape, .. }) => Some(input_shape),
            _ => None,
        }
    }
}

/// Where an op's own instance lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// Stays an op of the block.
    Standalone,
    /// A member of this group.
    Group(usize),
    /// Only its copies exist (every reader has one).
    Removed,
}

/// The decisions for one block.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The groups (dead ones have `alive == false`).
    pub groups: Vec<Group>,
    /// Each op's own instance.
    pub home: Vec<Home>,
    /// The groups holding a copy of each op.
    pub copies: Vec<Vec<usize>>,
}

impl Plan {
    /// True when group `g` computes op `j` (its own instance or a copy).
    pub fn holds(&self, g: usize, j: usize) -> bool {
        self.home[j] == Home::Group(g) || self.copies[j].contains(&g)
    }

    /// The groups in which op `j` is computed, and whether it also exists outside any group.
    pub fn instances(&self, j: usize) -> (Vec<usize>, bool) {
        let mut gs = self.copies[j].clone();
        match self.home[j] {
            Home::Group(g) => gs.insert(0, g),
            Home::Standalone => return (gs, true),
            Home::Removed => {}
        }
        (gs, false)
    }

    /// The members of live group `g`, in block order.
    pub fn members(&self, g: usize) -> Vec<usize> {
        self.groups[g].members.keys().copied().collect()
    }
}

fn shape_of(func: &Func, v: ValueId) -> Option<&[i64]> {
    func.value_type(v).as_tensor().map(|t| t.shape.as_slice())
}

/// Decides the groups of one block.
pub fn plan_block(func: &Func, ops: &[Op], graph: &BlockGraph) -> Plan {
    let n = graph.len();
    let mut plan = Plan {
        groups: vec![],
        home: vec![Home::Standalone; n],
        copies: vec![vec![]; n],
    };
    for j in (0..n).rev() {
        decide(func, ops, graph, &mut plan, j);
    }
    dissolve_small_groups(ops, &mut plan);
    plan
}

/// Where a reader of `j` wants it: a group (through consumer `user` in `role`) or outside.
enum Site {
    Outside(usize),
    Group {
        g: usize,
        user: usize,
        operand: usize,
    },
}

fn decide(func: &Func, ops: &[Op], graph: &BlockGraph, plan: &mut Plan, j: usize) {
    let cat = graph.cats[j];
    if cat == Category::Opaque {
        return;
    }
    let mut sites = vec![];
    for u in &graph.uses[j] {
        let (gs, outside) = plan.instances(u.user);
        if outside {
            sites.push(Site::Outside(u.user));
        }
        for g in gs {
            match u.operand {
                Some(k) => sites.push(Site::Group {
                    g,
                    user: u.user,
                    operand: k,
                }),
                None => sites.push(Site::Outside(u.user)),
            }
        }
    }
    if sites.is_empty() {
        return; // dead: left to DCE
    }
    // Per reading group: the role `j` would take (None = the group cannot take it).
    let mut per_group: BTreeMap<usize, Option<(Role, Option<GroupKind>)>> = BTreeMap::new();
    let mut outside = false;
    for s in &sites {
        match *s {
            Site::Outside(_) => outside = true,
            Site::Group { g, user, operand } => {
                let verdict = accept(func, ops, graph, &plan.groups[g], user, operand, j);
                let entry = per_group.entry(g).or_insert(verdict.clone());
                if *entry != verdict {
                    *entry = None;
                }
            }
        }
    }
    let accepting: Vec<(usize, Role, Option<GroupKind>)> = per_group
        .iter()
        .filter_map(|(&g, v)| v.clone().map(|(r, k)| (g, r, k)))
        .collect();
    let refused = outside || accepting.len() < per_group.len();
    if !refused && accepting.len() == 1 {
        let (g, role, kind) = accepting.into_iter().next().expect("one group");
        let group = &mut plan.groups[g];
        if let Some(kind) = kind {
            group.kind = kind;
        }
        group.members.insert(j, role);
        plan.home[j] = Home::Group(g);
        return;
    }
    let copies_allowed = cat.is_view() || accepting.len() <= MAX_COPIES;
    // A value that is written to memory anyway (a reader cannot fuse it) is cheaper to read
    // back (one stream) than to recompute from two or more arrays in each other reader.
    let recompute_costs_more =
        refused && !cat.is_view() && full_size_streams(func, ops, graph, j) >= 2;
    if cat.duplicable() && !accepting.is_empty() && copies_allowed && !recompute_costs_more {
        for (g, role, _) in &accepting {
            plan.groups[*g].members.insert(j, *role);
            plan.copies[j].push(*g);
        }
        plan.home[j] = if refused {
            start_group(func, ops, plan, j)
        } else {
            Home::Removed
        };
        return;
    }
    if let Some(g) = multi_output_home(graph, plan, j, &accepting, &sites) {
        plan.groups[g].members.insert(j, Role::Main);
        plan.home[j] = Home::Group(g);
        return;
    }
    plan.home[j] = start_group(func, ops, plan, j);
}

/// How many distinct arrays of `j`'s own size a fused copy of `j` reads from memory: the
/// operands of `j` and of the cheap elementwise producers it would bring along, where
/// broadcasts of smaller values, iotas and scalar constants read nothing and anything else
/// (a block argument, a reduce, a product, an expensive op, a view of a full array) is one
/// array read.
fn full_size_streams(func: &Func, ops: &[Op], graph: &BlockGraph, j: usize) -> usize {
    let elements = |v: ValueId| -> Option<i64> {
        func.value_type(v)
            .as_tensor()
            .map(|t| t.shape.iter().product())
    };
    let Some(size) = ops[j].results.first().and_then(|&r| elements(r)) else {
        return 0;
    };
    let mut streams = std::collections::BTreeSet::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut stack: Vec<ValueId> = ops[j].operands.clone();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || elements(v) != Some(size) {
            continue;
        }
        match graph.def.get(&v).map(|&d| (d, graph.cats[d])) {
            Some((d, Category::Elementwise { expensive: false } | Category::Broadcast)) => {
                stack.extend(ops[d].operands.iter().copied());
            }
            Some((_, Category::Generator)) => {}
            _ => {
                streams.insert(v);
            }
        }
    }
    streams.len()
}

/// Producer-consumer multi-output fusion: an elementwise op that cannot be duplicated but that
/// a loop fusion reads over its own shape joins that loop as an extra output, which its other
/// readers then read. Not when one of those readers leads back into the loop (the loop would
/// then wait for itself).
fn multi_output_home(
    graph: &BlockGraph,
    plan: &Plan,
    j: usize,
    accepting: &[(usize, Role, Option<GroupKind>)],
    sites: &[Site],
) -> Option<usize> {
    if !graph.cats[j].is_elementwise() {
        return None;
    }
    let &(g, _, _) = accepting.iter().find(|(g, role, kind)| {
        *role == Role::Main && kind.is_none() && plan.groups[*g].kind == GroupKind::Loop
    })?;
    let readers: Vec<usize> = sites
        .iter()
        .filter_map(|s| match *s {
            Site::Outside(user) => Some(user),
            Site::Group { g: h, user, .. } => (h != g).then_some(user),
        })
        .collect();
    (!leads_into(graph, plan, &readers, g)).then_some(g)
}

/// Does a path from one of the ops `from` reach an op that group `g` computes? Paths follow
/// dataflow, the fixed order of opaque ops (each leads to the next one), and groups as units:
/// reaching one member of a fusion reaches all its outputs, so every member counts as reached.
/// Ops past the group's last member cannot feed it; their uses are not followed.
fn leads_into(graph: &BlockGraph, plan: &Plan, from: &[usize], g: usize) -> bool {
    let Some(&last) = plan.groups[g].members.keys().last() else {
        return false;
    };
    let mut seen = vec![false; graph.len()];
    let mut seen_groups = vec![false; plan.groups.len()];
    let mut stack: Vec<usize> = from.to_vec();
    while let Some(x) = stack.pop() {
        if std::mem::replace(&mut seen[x], true) {
            continue;
        }
        if plan.holds(g, x) {
            return true;
        }
        for k in plan.instances(x).0 {
            if !std::mem::replace(&mut seen_groups[k], true) {
                stack.extend(plan.groups[k].members.keys());
            }
        }
        if x > last {
            continue;
        }
        stack.extend(graph.uses[x].iter().map(|u| u.user));
        if graph.cats[x] == Category::Opaque {
            let next = (x + 1..=last).find(|&y| graph.cats[y] == Category::Opaque);
            stack.extend(next);
        }
    }
    false
}

/// A new group made of `j` alone.
fn start_group(func: &Func, ops: &[Op], plan: &mut Plan, j: usize) -> Home {
    let op = &ops[j];
    let Some(shape) = op.results.first().and_then(|&r| shape_of(func, r)) else {
        return Home::Standalone;
    };
    let (kind, role) = match &op.kind {
        OpKind::Reduce { dimensions } => {
            let Some(input_shape) = op.operands.first().and_then(|&v| shape_of(func, v)) else {
                return Home::Standalone;
            };
            (
                GroupKind::Reduction {
                    dimensions: dimensions.clone(),
                    input_shape: input_shape.to_vec(),
                },
                Role::Anchor,
            )
        }
        OpKind::DotGeneral { .. } | OpKind::Convolution(_) => (GroupKind::Product, Role::Anchor),
        _ => (GroupKind::Loop, Role::Main),
    };
    plan.groups.push(Group {
        kind,
        shape: shape.to_vec(),
        members: BTreeMap::from([(j, role)]),
        alive: true,
    });
    Home::Group(plan.groups.len() - 1)
}

/// Can group `group` compute producer `j` for its member `user`, which reads `j`'s result as
/// operand `operand`? Returns `j`'s role there, and the group's new kind when `j` becomes its
/// anchor (a loop turning into a reduction or product epilogue).
fn accept(
    func: &Func,
    ops: &[Op],
    graph: &BlockGraph,
    group: &Group,
    user: usize,
    operand: usize,
    j: usize,
) -> Option<(Role, Option<GroupKind>)> {
    let cat = graph.cats[j];
    let user_cat = graph.cats[user];
    let role = *group.members.get(&user)?;
    let result_shape = shape_of(func, *ops[j].results.first()?)?;
    if role == Role::Anchor {
        return match group.kind {
            GroupKind::Reduction {
                ref input_shape, ..
            } => {
                let is_input = operand < ops[user].operands.len() / 2;
                let fits = cat.is_view() || cat.is_elementwise() && result_shape == input_shape;
                (fits && (is_input || cat == Category::Generator)).then_some((Role::Input, None))
            }
            _ => None, // product operands stay materialised
        };
    }
    let domain = group.domain(role)?;
    match cat {
        c if c.is_view() => Some((role, None)),
        Category::Elementwise { .. } => {
            (user_cat.is_elementwise() && result_shape == domain).then_some((role, None))
        }
        Category::Reduce | Category::Product => {
            let loop_of_plain_elementwise = group.kind == GroupKind::Loop
                && role == Role::Main
                && user_cat.is_elementwise()
                && group
                    .members
                    .keys()
                    .all(|&m| graph.cats[m] != Category::Movement);
            let all_results_fit = ops[j]
                .results
                .iter()
                .all(|&r| shape_of(func, r) == Some(domain));
            if !(loop_of_plain_elementwise && all_results_fit) {
                return None;
            }
            let kind = match &ops[j].kind {
                OpKind::Reduce { dimensions } => GroupKind::Reduction {
                    dimensions: dimensions.clone(),
                    input_shape: shape_of(func, *ops[j].operands.first()?)?.to_vec(),
                },
                _ => GroupKind::Product,
            };
            Some((Role::Anchor, Some(kind)))
        }
        _ => None,
    }
}

/// True for ops that do no work worth a kernel of their own inside a fusion (scalar constants).
fn is_trivial(op: &Op) -> bool {
    matches!(&op.kind, OpKind::Constant(t) if t.num_elements() <= 1)
}

/// Groups with fewer than two non-trivial ops are not worth a fusion: their members go back to
/// being ops of the block.
fn dissolve_small_groups(ops: &[Op], plan: &mut Plan) {
    for g in 0..plan.groups.len() {
        let work = plan.groups[g]
            .members
            .keys()
            .filter(|&&m| !is_trivial(&ops[m]))
            .count();
        if work < 2 {
            dissolve(plan, g);
        }
    }
}

/// Drops group `g`: its own members become standalone ops, its copies vanish.
pub fn dissolve(plan: &mut Plan, g: usize) {
    plan.groups[g].alive = false;
    for m in plan.members(g) {
        if plan.home[m] == Home::Group(g) {
            plan.home[m] = Home::Standalone;
        }
        plan.copies[m].retain(|&x| x != g);
    }
    plan.groups[g].members.clear();
}

/// After groups were dissolved, an op that existed only as copies may be read by an op that is
/// now outside every group: it gets its own instance back. Readers come later in the block, so
/// one backward sweep settles every op.
pub fn restore_needed_ops(graph: &BlockGraph, plan: &mut Plan) {
    for j in (0..graph.len()).rev() {
        if plan.home[j] != Home::Removed {
            continue;
        }
        let needed = graph.uses[j].iter().any(|u| {
            let (gs, outside) = plan.instances(u.user);
            outside || u.operand.is_none() || gs.iter().any(|&g| !plan.holds(g, j))
        });
        if needed {
            plan.home[j] = Home::Standalone;
        }
    }
}
