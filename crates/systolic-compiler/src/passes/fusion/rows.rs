//! Row fusion: a reduce over the innermost dimensions of a shape (the *rows*), the work that
//! computes its input, the work on its per-row results, and further reduces and elementwise
//! work over the same rows that read them back through broadcasts, become one fusion (kind
//! `reduction`), which a backend runs row block by row block while the rows are in cache
//! (XLA's "softmax-like" multi-output fusions). Softmax (max → subtract → exp → sum → divide)
//! and layer norm (mean → variance → normalise) each become one kernel instead of four or
//! five passes over memory.
//!
//! Starting from each eligible reduce, the fusion absorbs neighbouring units (fusions or
//! standalone ops linked to it by dataflow) while the result stays *row-local* and acyclic.
//! Row-local ([`row_local`]): every value computed inside is either over the rows' full
//! shape (`rows × row length` elements) or one value per row (`rows` elements, any shape),
//! and flows only elementwise, through reshapes that keep the element count, or through a
//! `broadcast_in_dim` from one value per row to the rows' shape that gives each row its own
//! value; every reduce reads the rows' shape over the same innermost dimensions with a simple
//! reducer (add, multiply, maximum, minimum) on f32 or f64. Values that do not depend on
//! computed ones (operands, iotas, constants and their views) may be read in any pattern.
//! Acyclic: no path leaves the fusion and comes back (checked on the block's dataflow graph,
//! as for siblings).

use super::classify::Category;
use super::graph::BlockGraph;
use super::plan::{dissolve, Group, GroupKind, Home, Plan, Role};
use super::siblings::{merge, Dag, Node};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use systolic_ir::{BinaryOp, DType, Func, Op, OpKind, Region, ValueId};

/// Rows a fusion runs over: the shape its reduces read and the innermost dimensions reduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    /// The reduces' input shape.
    pub shape: Vec<i64>,
    /// The reduced dimensions, sorted (the innermost ones).
    pub dims: Vec<i64>,
}

impl Space {
    fn rows(&self) -> i64 {
        self.shape[..self.shape.len() - self.dims.len()]
            .iter()
            .product()
    }

    fn row_len(&self) -> i64 {
        self.shape[self.shape.len() - self.dims.len()..]
            .iter()
            .product()
    }
}

/// A unit that may join a row fusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Group(usize),
    Op(usize),
}

/// Grows row fusions around the eligible reduces of the block (see the module documentation).
pub fn merge_rows(func: &Func, ops: &[Op], graph: &BlockGraph, plan: &mut Plan) {
    for j in 0..ops.len() {
        let Some(space) = row_space(func, &ops[j]) else {
            continue;
        };
        let (g, fresh) = match plan.home[j] {
            Home::Group(g) => match &plan.groups[g].kind {
                GroupKind::Reduction { .. } => (g, false),
                _ => continue, // already part of a row fusion, or of something else
            },
            Home::Standalone => (standalone_group(plan, j, &space), true),
            Home::Removed => continue,
        };
        let mut grew = false;
        loop {
            let mut merged = false;
            for unit in neighbours(graph, plan, g) {
                if try_merge(func, ops, graph, plan, g, unit, &space) {
                    merged = true;
                    break;
                }
            }
            if !merged {
                break;
            }
            grew = true;
        }
        if grew {
            plan.groups[g].kind = GroupKind::Rows {
                dimensions: space.dims.clone(),
                input_shape: space.shape.clone(),
            };
            plan.groups[g].shape = space.shape.clone();
        } else if fresh {
            dissolve(plan, g);
        }
    }
}

/// A new group holding standalone op `j` (a reduce or an elementwise op) alone.
fn standalone_group(plan: &mut Plan, j: usize, space: &Space) -> usize {
    plan.groups.push(Group {
        kind: GroupKind::Reduction {
            dimensions: space.dims.clone(),
            input_shape: space.shape.clone(),
        },
        shape: space.shape.clone(),
        members: BTreeMap::from([(j, Role::Anchor)]),
        alive: true,
    });
    let g = plan.groups.len() - 1;
    plan.home[j] = Home::Group(g);
    g
}

/// The units linked to group `g` by dataflow (producers of what it reads, consumers of what
/// it computes), in block order.
fn neighbours(graph: &BlockGraph, plan: &Plan, g: usize) -> Vec<Unit> {
    let mut out = BTreeSet::new();
    let unit_of = |x: usize| match plan.home[x] {
        Home::Group(h) => Some(Unit::Group(h)),
        Home::Standalone => Some(Unit::Op(x)),
        Home::Removed => None,
    };
    for m in plan.members(g) {
        for v in &graph.reads[m] {
            out.extend(graph.def.get(v).and_then(|&d| unit_of(d)));
        }
        if plan.home[m] != Home::Group(g) {
            continue;
        }
        for u in &graph.uses[m] {
            // A view or cheap op may exist only as copies in its readers' groups.
            let (groups, outside) = plan.instances(u.user);
            out.extend(groups.into_iter().map(Unit::Group));
            if outside {
                out.insert(Unit::Op(u.user));
            }
        }
    }
    out.into_iter()
        .filter(|u| match *u {
            Unit::Group(h) => h != g && plan.groups[h].alive,
            Unit::Op(_) => true,
        })
        .collect()
}

/// Merges `unit` into `g` when the result is row-local and acyclic; returns whether it did.
fn try_merge(
    func: &Func,
    ops: &[Op],
    graph: &BlockGraph,
    plan: &mut Plan,
    g: usize,
    unit: Unit,
    space: &Space,
) -> bool {
    let (h, fresh) = match unit {
        Unit::Group(h) => {
            if matches!(plan.groups[h].kind, GroupKind::Product) {
                return false;
            }
            (h, false)
        }
        Unit::Op(d) => {
            let joinable = graph.cats[d].is_elementwise() || row_space(func, &ops[d]).is_some();
            if !joinable {
                return false;
            }
            (standalone_group(plan, d, space), true)
        }
    };
    let mut members: BTreeSet<usize> = plan.groups[g].members.keys().copied().collect();
    members.extend(plan.groups[h].members.keys().copied());
    let ok = row_local(func, ops, graph, &members, space) && !cyclic(graph, plan, g, h);
    if ok {
        merge(plan, g, h);
    } else if fresh {
        dissolve(plan, h);
    }
    ok
}

/// Would merging groups `a` and `b` make a cycle (a path from one to the other through
/// something outside both)?
fn cyclic(graph: &BlockGraph, plan: &Plan, a: usize, b: usize) -> bool {
    let dag = Dag::new(graph, plan);
    let through = |from: usize, to: usize| {
        dag.succs
            .get(&Node::Group(from))
            .into_iter()
            .flatten()
            .any(|&s| s != Node::Group(to) && dag.reaches(s, Node::Group(to)))
    };
    through(a, b) || through(b, a)
}

/// The rows a reduce can anchor: one f32/f64 input over its innermost dimensions (at least
/// two rows of at least two elements), a simple reducer, a scalar init.
pub fn row_space(func: &Func, op: &Op) -> Option<Space> {
    let OpKind::Reduce { dimensions } = &op.kind else {
        return None;
    };
    let ([x, _init], [_result], [region]) = (
        op.operands.as_slice(),
        op.results.as_slice(),
        op.regions.as_slice(),
    ) else {
        return None;
    };
    let t = func.value_type(*x).as_tensor()?;
    if !matches!(t.dtype, DType::F32 | DType::F64) || !simple_reducer(region) {
        return None;
    }
    let rank = t.shape.len();
    let mut dims = dimensions.clone();
    dims.sort_unstable();
    let innermost = !dims.is_empty()
        && dims.len() <= rank
        && dims
            .iter()
            .enumerate()
            .all(|(k, &d)| d == (rank - dims.len() + k) as i64);
    let space = Space {
        shape: t.shape.clone(),
        dims,
    };
    // Several rows, each of several elements: one long row would run on one core, and rows
    // of one element are elementwise work.
    (innermost && space.row_len() > 1 && space.rows() > 1).then_some(space)
}

/// A region `(acc, x) -> op(acc, x)` with op add, multiply, maximum or minimum.
fn simple_reducer(region: &Region) -> bool {
    let Some(block) = region.entry() else {
        return false;
    };
    let ([acc, x], [op, ret]) = (block.args.as_slice(), block.ops.as_slice()) else {
        return false;
    };
    let simple = matches!(
        op.kind,
        OpKind::Binary(BinaryOp::Add | BinaryOp::Multiply | BinaryOp::Maximum | BinaryOp::Minimum)
    );
    simple
        && (op.operands == [*acc, *x] || op.operands == [*x, *acc])
        && matches!(ret.kind, OpKind::Return(_))
        && ret.operands == op.results
}

/// How a value inside a candidate row fusion relates to the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Depends on no computed value (operands, constants, iotas, their views).
    Free,
    /// Computed: `rows × row length` elements in row-major order.
    Full,
    /// Computed: one element per row.
    PerRow,
}

/// Can `members` (ops of the block) run as one row program over `space`?
pub fn row_local(
    func: &Func,
    ops: &[Op],
    graph: &BlockGraph,
    members: &BTreeSet<usize>,
    space: &Space,
) -> bool {
    let (rows, row_len) = (space.rows(), space.row_len());
    let elements = |v: ValueId| -> Option<i64> {
        func.value_type(v)
            .as_tensor()
            .map(|t| t.shape.iter().product())
    };
    let class_of_size = |n: i64| -> Option<Class> {
        if n == rows * row_len {
            Some(Class::Full)
        } else if n == rows {
            Some(Class::PerRow)
        } else {
            None
        }
    };
    let mut class: HashMap<ValueId, Class> = HashMap::new();
    for &m in members {
        let op = &ops[m];
        let operand_class = |v: &ValueId| class.get(v).copied().unwrap_or(Class::Free);
        let computed = op.operands.iter().any(|v| operand_class(v) != Class::Free);
        let result_class = match graph.cats[m] {
            Category::Generator => Class::Free,
            Category::Broadcast | Category::Movement if !computed => {
                // A reshape the kernel cannot express as a view would need a copy stage of
                // its own shape: only reshapes of the block's own values.
                if op.kind == OpKind::Reshape
                    && op.operands.iter().any(|v| graph.def.contains_key(v))
                {
                    return false;
                }
                Class::Free
            }
            Category::Broadcast | Category::Movement => {
                let (Some(&x), Some(&r)) = (op.operands.first(), op.results.first()) else {
                    return false;
                };
                let (Some(nx), Some(nr)) = (elements(x), elements(r)) else {
                    return false;
                };
                match &op.kind {
                    OpKind::Reshape if nx == nr => match class_of_size(nr) {
                        Some(c) => c,
                        None => return false,
                    },
                    OpKind::BroadcastInDim {
                        broadcast_dimensions,
                    } => {
                        if operand_class(&x) != Class::PerRow {
                            return false;
                        }
                        let xs = &func.value_type(x).as_tensor().expect("sized").shape;
                        let rs = &func.value_type(r).as_tensor().expect("sized").shape;
                        let increasing = broadcast_dimensions.windows(2).all(|w| w[0] < w[1]);
                        if nr == rows && increasing {
                            Class::PerRow
                        } else if *rs == space.shape
                            && per_row_broadcast(xs, broadcast_dimensions, space)
                        {
                            Class::Full
                        } else {
                            return false;
                        }
                    }
                    _ => return false,
                }
            }
            Category::Elementwise { .. } => {
                let Some(&r) = op.results.first() else {
                    return false;
                };
                let Some(c) = elements(r).and_then(class_of_size) else {
                    return false;
                };
                // Scalar operands (a select predicate, clamp bounds) must not be computed.
                let n = elements(r);
                if op
                    .operands
                    .iter()
                    .any(|v| elements(*v) != n && operand_class(v) != Class::Free)
                {
                    return false;
                }
                c
            }
            Category::Reduce => {
                if row_space(func, op).as_ref() != Some(space)
                    || operand_class(&op.operands[1]) != Class::Free
                {
                    return false;
                }
                Class::PerRow
            }
            Category::Product | Category::Opaque => return false,
        };
        for &r in &op.results {
            class.insert(r, result_class);
        }
    }
    true
}

/// Does `broadcast_in_dim` of a per-row value of shape `from` with `dims` give every element
/// of a row its row's value? Each non-unit dimension of `from` must land, in order, on the
/// outer (kept) dimensions, covering every non-unit outer dimension.
fn per_row_broadcast(from: &[i64], dims: &[i64], space: &Space) -> bool {
    let outer = space.shape.len() - space.dims.len();
    let mut targets = vec![];
    for (i, &d) in dims.iter().enumerate() {
        if from[i] == 1 {
            continue;
        }
        let Ok(d) = usize::try_from(d) else {
            return false;
        };
        if d >= outer || space.shape[d] != from[i] {
            return false;
        }
        targets.push(d);
    }
    let wanted: Vec<usize> = (0..outer).filter(|&d| space.shape[d] != 1).collect();
    targets == wanted
}
