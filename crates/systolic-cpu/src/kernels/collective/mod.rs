//! Family: collectives of one process of an SPMD set ([`crate::spmd`]).
//!
//! Lowered only for a program compiled for one process of a grid (the lowering context has a
//! process): the process's group is formed at lowering time by
//! [`systolic_ir::collective_groups`] (as the interpreter forms it), and at run time the kernel
//! meets the other members at the execution's rendezvous (found through the process's thread,
//! [`crate::spmd`]). Members hand over their operands as shared references
//! ([`crate::spmd::Payload`]): an owned operand (its last use) moves, a borrowed one is copied
//! once; nobody copies anyone else's. Each member then reads all of them in place, in group
//! order, and writes only its own results, as the interpreter's `ops/collective.rs` computes
//! them:
//!
//! - `all_reduce`: the reduction region, compiled as a scalar region program
//!   ([`crate::kernels::region`], the loop compiler's arithmetic, which is the
//!   interpreter's), folded left to right over the members in group order — not in arrival
//!   order — so every member gets the same bits, and the interpreter's. Above
//!   [`COOPERATIVE_MIN`] elements the members share the work: member `k` folds the `k`-th
//!   slice of the elements, the members meet a second time with their slices, and each
//!   assembles its result from them (each element is folded once, not once per member);
//! - `all_gather`: the members' operands concatenated along `all_gather_dim`;
//! - `reduce_scatter`: this member's part along `scatter_dimension` of the all-reduce, folded
//!   from that part of every operand alone;
//! - `all_to_all`: this member's part of every member's operand, concatenated;
//! - `collective_permute`: what the pair targeting this process sends, zeros when none does;
//! - `collective_broadcast`: the root's operands (the group's first member, or per result the
//!   index the roots operand gives under `has_dynamic_root`); zeros outside every group.
//!
//! Errors the interpreter reports at run time (a process in no group, a split count that is
//! not the group's size) are kept from lowering and reported when the op runs, so that a
//! collective on a path never taken costs nothing.

pub mod data;

use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::region::{RegionProgram, WIDTH};
use crate::lower_ctx::LowerCtx;
use crate::spmd::{current_process, Payload, SpmdProcess};
use data::{concat, copy, split_part};
use std::sync::Arc;
use systolic_interp::parallel::Contribution;
use systolic_ir::collective_groups::{list, partitions_join, permute_group, position};
use systolic_ir::{DType, Data, Op, OpKind, ProcessId, TensorType};

/// A kernel for a collective of `op` on process `p`, or `None` for ops of other families.
pub fn lower(op: &Op, ctx: &LowerCtx, p: SpmdProcess) -> Result<Option<Box<dyn Kernel>>> {
    let operand_types: Vec<TensorType> = ctx.operand_types(op)?.into_iter().cloned().collect();
    let result_types: Vec<TensorType> = ctx.result_types(op)?.into_iter().cloned().collect();
    let plan = match plan(op, ctx, p, &operand_types) {
        Ok(plan) => Ok(plan),
        // Kept for run time, as the interpreter reports it (a compile error for what the
        // backend cannot run at all).
        Err(Problem::AtRun(e)) => Err(e),
        Err(Problem::Unsupported(e)) => return Err(CpuError::new(e)),
    };
    let Some(plan) = plan.transpose() else {
        return Ok(None);
    };
    let data_types: Vec<String> = operand_types
        .iter()
        .take(match &plan {
            Ok(p) if p.kind.has_roots_operand() => operand_types.len().saturating_sub(1),
            _ => operand_types.len(),
        })
        .map(ToString::to_string)
        .collect();
    let types = data_types.join(", ");
    let (summary, signature) = match &plan {
        Ok(Plan {
            group: Some(group), ..
        }) => (
            format!("{} on ({types})", op.kind.name()),
            format!("{:?} on ({types}) over [{}]", op.kind, list(group)),
        ),
        _ => (String::new(), String::new()),
    };
    Ok(Some(Box::new(CollectiveKernel {
        op: op.kind.name(),
        me: p.id,
        plan,
        summary,
        signature,
        result_types,
    })))
}

/// Why a collective cannot be planned.
enum Problem {
    /// Reported when the op runs (as the interpreter does).
    AtRun(String),
    /// The backend cannot run this op at all (a compile error).
    Unsupported(String),
}

impl From<String> for Problem {
    fn from(e: String) -> Problem {
        Problem::AtRun(e)
    }
}

/// What a collective kernel does on its process.
#[derive(Debug)]
struct Plan {
    kind: Kind,
    /// The group (in its order) this process meets, `None` when it is in none (then it
    /// produces zeros: only for collective_permute and collective_broadcast).
    group: Option<Vec<ProcessId>>,
    /// This process's place in the group.
    me: usize,
}

#[derive(Debug)]
enum Kind {
    AllReduce(Reducer),
    AllGather {
        dim: usize,
    },
    ReduceScatter {
        dim: usize,
        reducer: Reducer,
    },
    AllToAll {
        split_dim: usize,
        concat_dim: usize,
    },
    /// `source`: where in the group the process sending to this one is, if any.
    Permute {
        source: Option<usize>,
    },
    Broadcast {
        dynamic_root: bool,
    },
    /// collective_reduce: the root folds every member's operands, the others give zeros.
    Reduce {
        reducer: Reducer,
        dynamic_root: bool,
    },
}

impl Kind {
    /// Whether the last operand is the roots operand, not data.
    fn has_roots_operand(&self) -> bool {
        matches!(
            self,
            Kind::Broadcast { dynamic_root: true }
                | Kind::Reduce {
                    dynamic_root: true,
                    ..
                }
        )
    }
}

fn plan(
    op: &Op,
    ctx: &LowerCtx,
    p: SpmdProcess,
    operands: &[TensorType],
) -> std::result::Result<Option<Plan>, Problem> {
    use OpKind::*;
    let grid = p.grid;
    let me = p.id;
    let joined = partitions_join(&op.kind);
    let at = |group: &[ProcessId]| position(group, me).unwrap_or(0);
    let dimension = |dim: i64, what: &str| -> std::result::Result<usize, Problem> {
        let rank = operands.first().map_or(0, |t| t.shape.len());
        if operands.is_empty() {
            return Err(Problem::AtRun("expects at least one operand".into()));
        }
        if dim < 0 || dim as usize >= rank {
            return Err(Problem::AtRun(format!(
                "{what} {dim} is out of range for rank {rank}"
            )));
        }
        Ok(dim as usize)
    };
    let plan = match &op.kind {
        AllReduce { collective } => {
            let group = grid.group(collective, joined, me)?;
            let reducer = Reducer::compile(op, ctx, operands)?;
            Plan {
                me: at(&group),
                group: Some(group),
                kind: Kind::AllReduce(reducer),
            }
        }
        AllGather {
            all_gather_dim,
            collective,
        } => {
            let group = grid.group(collective, joined, me)?;
            Plan {
                me: at(&group),
                group: Some(group),
                kind: Kind::AllGather {
                    dim: dimension(*all_gather_dim, "all_gather_dim")?,
                },
            }
        }
        ReduceScatter {
            scatter_dimension,
            collective,
        } => {
            let group = grid.group(collective, joined, me)?;
            let reducer = Reducer::compile(op, ctx, operands)?;
            Plan {
                me: at(&group),
                group: Some(group),
                kind: Kind::ReduceScatter {
                    dim: dimension(*scatter_dimension, "scatter_dimension")?,
                    reducer,
                },
            }
        }
        AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            collective,
        } => {
            let group = grid.group(collective, joined, me)?;
            if *split_count != group.len() as i64 {
                return Err(Problem::AtRun(format!(
                    "split_count is {split_count} but the group [{}] has {} processes",
                    list(&group),
                    group.len()
                )));
            }
            Plan {
                me: at(&group),
                kind: Kind::AllToAll {
                    split_dim: dimension(*split_dimension, "split_dimension")?,
                    concat_dim: dimension(*concat_dimension, "concat_dimension")?,
                },
                group: Some(group),
            }
        }
        CollectivePermute {
            source_target_pairs,
            channel_handle,
        } => {
            let pairs = grid.permute_pairs(source_target_pairs, *channel_handle, me)?;
            let group = permute_group(&pairs);
            let source = pairs
                .iter()
                .find(|&&(_, t)| t == me)
                .and_then(|&(s, _)| position(&group, s));
            let inside = group.contains(&me);
            Plan {
                me: at(&group),
                group: inside.then_some(group),
                kind: Kind::Permute { source },
            }
        }
        CollectiveBroadcast { collective } => {
            if collective.has_dynamic_root && operands.is_empty() {
                return Err(Problem::AtRun(
                    "has_dynamic_root needs the roots operand".into(),
                ));
            }
            let group = grid.group_of(collective, joined, me)?;
            Plan {
                me: group.as_deref().map_or(0, at),
                group,
                kind: Kind::Broadcast {
                    dynamic_root: collective.has_dynamic_root,
                },
            }
        }
        CollectiveReduce { collective } => {
            let data = if collective.has_dynamic_root {
                if operands.is_empty() {
                    return Err(Problem::AtRun(
                        "has_dynamic_root needs the roots operand".into(),
                    ));
                }
                &operands[..operands.len() - 1]
            } else {
                operands
            };
            let reducer = Reducer::compile(op, ctx, data)?;
            let group = grid.group_of(collective, joined, me)?;
            Plan {
                me: group.as_deref().map_or(0, at),
                group,
                kind: Kind::Reduce {
                    reducer,
                    dynamic_root: collective.has_dynamic_root,
                },
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(plan))
}

/// An all-reduce's computation as a scalar region program, with the one element type it
/// reduces.
#[derive(Debug)]
struct Reducer {
    program: RegionProgram,
    dtype: DType,
}

impl Reducer {
    fn compile(
        op: &Op,
        ctx: &LowerCtx,
        operands: &[TensorType],
    ) -> std::result::Result<Reducer, Problem> {
        let unsupported = |why: String| Problem::Unsupported(why);
        let [region] = op.regions.as_slice() else {
            return Err(unsupported("expects one region (the computation)".into()));
        };
        let Some(program) = RegionProgram::compile(region, ctx.func()) else {
            return Err(unsupported(
                "the computation is not a region of scalar ops the CPU backend compiles".into(),
            ));
        };
        let Some(dtype) = operands.first().map(|t| t.dtype) else {
            return Err(Problem::AtRun("expects at least one operand".into()));
        };
        let types_fit = program.arg_dtypes == [dtype, dtype]
            && program.result_dtypes == [dtype]
            && operands.iter().all(|t| t.dtype == dtype)
            && op
                .results
                .iter()
                .all(|&r| ctx.tensor_type(r).is_ok_and(|t| t.dtype == dtype));
        if !types_fit {
            return Err(unsupported(format!(
                "the computation ({:?} -> {:?}) does not take and give the operands' element \
                 type {dtype}",
                program.arg_dtypes, program.result_dtypes
            )));
        }
        Ok(Reducer { program, dtype })
    }

    /// Checks that the members' values have the reduction's element type.
    fn check(&self, columns: &[&CpuBuffer]) -> Result<()> {
        match columns.iter().find(|c| c.dtype() != self.dtype) {
            Some(c) => Err(CpuError::new(format!(
                "internal: the reduction of {} got {}",
                self.dtype,
                c.ty()
            ))),
            None => Ok(()),
        }
    }

    /// The members' values (`columns`, in group order) folded left to right, element by
    /// element, over the element ranges `ranges` (`(start, len)`), written one after the other
    /// to `out` from `at` on. A block of [`WIDTH`] elements stays in the region's scratch while
    /// every member's values are folded into it.
    fn fold_ranges(
        &self,
        columns: &[&CpuBuffer],
        ranges: impl Iterator<Item = (usize, usize)>,
        out: &mut Storage,
        mut at: usize,
    ) {
        let mut s = self.program.scratch();
        for (start, len) in ranges {
            let mut done = 0;
            while done < len {
                let m = (len - done).min(WIDTH);
                let from = start + done;
                copy(s.args[0].storage_mut(), 0, columns[0].storage(), from, m);
                for column in &columns[1..] {
                    copy(s.args[1].storage_mut(), 0, column.storage(), from, m);
                    self.program.run(&mut s, m);
                    copy(s.args[0].storage_mut(), 0, &s.outs[0], 0, m);
                }
                copy(out, at, s.args[0].storage(), 0, m);
                at += m;
                done += m;
            }
        }
    }

    /// The members' values folded over elements `[start, start + len)`, as a new storage.
    fn fold_slice(&self, columns: &[&CpuBuffer], start: usize, len: usize) -> Storage {
        let mut out = crate::pool::take(self.dtype, len);
        self.fold_ranges(columns, std::iter::once((start, len)), &mut out, 0);
        out
    }
}

/// All-reduces of fewer elements (times the group's size) than this are folded whole by every
/// member: a second meeting costs more than folding them.
pub const COOPERATIVE_MIN: usize = 1 << 15;

/// One collective of one process.
#[derive(Debug)]
pub struct CollectiveKernel {
    op: String,
    me: ProcessId,
    plan: std::result::Result<Plan, String>,
    /// The op and its operand types, shown when participants disagree.
    summary: String,
    /// What every participant must agree on: the op, its attributes, operand types, group.
    signature: String,
    result_types: Vec<TensorType>,
}

/// The root (an index into `group`) of result `j`: the roots operand's entry, or 0.
fn root_of(roots: Option<&CpuBuffer>, j: usize, group: &[ProcessId]) -> Result<usize> {
    let Some(r) = roots else {
        return Ok(0);
    };
    let i = integer_at(r, j)?;
    if i < 0 || i as usize >= group.len() {
        return Err(CpuError::new(format!(
            "root {i} of result {j} is not an index into the group [{}]",
            list(group)
        )));
    }
    Ok(i as usize)
}

impl CollectiveKernel {
    /// Every member's `data`, in group order (`what` tells the meetings of one op apart).
    fn exchange(
        &self,
        group: &[ProcessId],
        data: Vec<Payload>,
        what: &str,
    ) -> Result<Vec<Vec<Payload>>> {
        let process = current_process().ok_or_else(|| {
            CpuError::new(format!(
                "process {}'s collective runs outside an SPMD execution (only \
                 SpmdExecutable::execute gives it partners)",
                self.me
            ))
        })?;
        if process.id() != self.me {
            return Err(CpuError::new(format!(
                "the collective of process {} runs on process {}'s thread",
                self.me,
                process.id()
            )));
        }
        process
            .exchange(
                group,
                Contribution {
                    op: self.op.clone(),
                    summary: format!("{}{what}", self.summary),
                    signature: format!("{}{what}", self.signature),
                    data,
                },
            )
            .map_err(|e| CpuError::new(e.message))
    }

    fn zeros(&self) -> Vec<CpuBuffer> {
        self.result_types
            .iter()
            .map(|t| CpuBuffer::zeros(t.clone()))
            .collect()
    }
}

impl Kernel for CollectiveKernel {
    fn name(&self) -> String {
        format!("{} on process {}", self.op, self.me)
    }

    fn is_collective(&self) -> bool {
        true
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let plan = self.plan.as_ref().map_err(|e| CpuError::new(e.clone()))?;
        let Some(group) = &plan.group else {
            return Ok(self.zeros());
        };
        let mut span =
            systolic_trace::Span::lazy(systolic_trace::cat::COLLECTIVE, || self.op.clone());
        if span.is_recording() {
            let bytes: usize = args.iter().map(|a| a.buffer().ty().byte_size()).sum();
            span.arg("bytes", bytes as u64);
            span.arg("group", format!("[{}]", list(group)));
            span.arg("process", self.me.to_string());
        }
        let mut data: Vec<Payload> = args.into_iter().map(|a| Arc::new(a.into_owned())).collect();
        let roots = if plan.kind.has_roots_operand() {
            data.pop()
        } else {
            None
        };
        let n = self.result_types.len();
        let wait = systolic_trace::Span::new(systolic_trace::cat::WAIT, "wait for the group");
        let all = self.exchange(group, data, "")?;
        drop(wait);
        // Operand `k` of every member, in group order.
        let column = |k: usize| -> Vec<&CpuBuffer> { all.iter().map(|d| d[k].as_ref()).collect() };
        match &plan.kind {
            Kind::AllReduce(reducer) => self.all_reduce(reducer, group, plan.me, &all),
            Kind::AllGather { dim } => (0..n).map(|k| concat(&column(k), *dim)).collect(),
            Kind::ReduceScatter { dim, reducer } => (0..n)
                .map(|k| reduce_part(reducer, &column(k), *dim, group.len(), plan.me))
                .collect(),
            Kind::AllToAll {
                split_dim,
                concat_dim,
            } => (0..n)
                .map(|k| {
                    let parts = column(k)
                        .into_iter()
                        .map(|d| split_part(d, *split_dim, group.len(), plan.me, "split_dimension"))
                        .collect::<Result<Vec<_>>>()?;
                    concat(&parts.iter().collect::<Vec<_>>(), *concat_dim)
                })
                .collect(),
            Kind::Permute { source } => Ok(match source {
                Some(s) => all[*s].iter().map(|b| b.as_ref().clone()).collect(),
                None => self.zeros(),
            }),
            Kind::Broadcast { .. } => (0..n)
                .map(|j| {
                    Ok(all[root_of(roots.as_deref(), j, group)?][j]
                        .as_ref()
                        .clone())
                })
                .collect(),
            Kind::Reduce { reducer, .. } => (0..n)
                .map(|j| {
                    if root_of(roots.as_deref(), j, group)? != plan.me {
                        return Ok(CpuBuffer::zeros(self.result_types[j].clone()));
                    }
                    let c = column(j);
                    reducer.check(&c)?;
                    let len = c[0].num_elements();
                    data::buffer(c[0].ty().clone(), reducer.fold_slice(&c, 0, len))
                })
                .collect(),
        }
    }
}

impl CollectiveKernel {
    /// The all-reduce of every operand (`all[member][operand]`), this member at `me` of
    /// `group`: folded whole here when small, else cooperatively (see the module docs).
    fn all_reduce(
        &self,
        reducer: &Reducer,
        group: &[ProcessId],
        me: usize,
        all: &[Vec<Payload>],
    ) -> Result<Vec<CpuBuffer>> {
        let columns: Vec<Vec<&CpuBuffer>> = (0..all[0].len())
            .map(|k| all.iter().map(|d| d[k].as_ref()).collect())
            .collect();
        for c in &columns {
            reducer.check(c)?;
        }
        let g = group.len();
        let elements: usize = columns.iter().map(|c| c[0].num_elements()).sum();
        if g == 1 || elements * g < COOPERATIVE_MIN {
            return columns
                .iter()
                .map(|c| {
                    let n = c[0].num_elements();
                    data::buffer(c[0].ty().clone(), reducer.fold_slice(c, 0, n))
                })
                .collect();
        }
        // This member's slice of every operand, handed to the others.
        let slice = |n: usize, member: usize| (member * n / g, (member + 1) * n / g);
        let mine: Vec<Payload> = columns
            .iter()
            .map(|c| {
                let (lo, hi) = slice(c[0].num_elements(), me);
                let ty = TensorType::new(vec![(hi - lo) as i64], reducer.dtype);
                data::buffer(ty, reducer.fold_slice(c, lo, hi - lo)).map(Arc::new)
            })
            .collect::<Result<_>>()?;
        let slices = self.exchange(group, mine, " (folded slices)")?;
        columns
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let n = c[0].num_elements();
                let mut out = crate::pool::take(reducer.dtype, n);
                for (member, theirs) in slices.iter().enumerate() {
                    let (lo, hi) = slice(n, member);
                    copy(&mut out, lo, theirs[k].storage(), 0, hi - lo);
                }
                data::buffer(c[0].ty().clone(), out)
            })
            .collect()
    }
}

/// Part `part` of `parts` along `dim` of the members' values (`columns`) folded: only that
/// part of each is read.
fn reduce_part(
    reducer: &Reducer,
    columns: &[&CpuBuffer],
    dim: usize,
    parts: usize,
    part: usize,
) -> Result<CpuBuffer> {
    reducer.check(columns)?;
    let first = columns[0];
    let shape = first.shape();
    let size = shape[dim] as usize;
    if parts == 0 || !size.is_multiple_of(parts) {
        return Err(CpuError::new(format!(
            "dimension {dim} (scatter_dimension) of {} does not split into {parts} equal parts",
            first.ty()
        )));
    }
    let outer: usize = shape[..dim].iter().map(|&d| d as usize).product();
    let inner: usize = shape[dim + 1..].iter().map(|&d| d as usize).product();
    let each = size / parts;
    let mut part_shape = shape.to_vec();
    part_shape[dim] = each as i64;
    let ty = TensorType::new(part_shape, first.dtype());
    let run = each * inner;
    let mut out = crate::pool::take(ty.dtype, ty.num_elements());
    let ranges = (0..outer).map(|o| ((o * size + part * each) * inner, run));
    reducer.fold_ranges(columns, ranges, &mut out, 0);
    data::buffer(ty, out)
}

/// Element `i` of an integer buffer.
fn integer_at(b: &CpuBuffer, i: usize) -> Result<i64> {
    let t = b.to_tensor();
    let out_of_range = || CpuError::new(format!("the roots operand {} has no element {i}", b.ty()));
    Ok(match t.data() {
        Data::Int(v) => *v.get(i).ok_or_else(out_of_range)?,
        Data::UInt(v) => i64::try_from(*v.get(i).ok_or_else(out_of_range)?).unwrap_or(i64::MAX),
        Data::Bool(v) => i64::from(*v.get(i).ok_or_else(out_of_range)?),
        Data::Float(_) | Data::Complex(_) => {
            return Err(CpuError::new(format!(
                "the roots operand must be an integer, got {}",
                b.ty()
            )))
        }
    })
}
