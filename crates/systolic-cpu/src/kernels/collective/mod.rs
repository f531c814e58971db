//! Family: collectives of one process of an SPMD set ([`crate::spmd`]).
//!
//! Lowered only for a program compiled for one process of a grid (the lowering context has a
//! process): the process's group is formed at lowering time by
//! [`systolic_ir::collective_groups`] (as the interpreter forms it), and at run time the kernel
//! meets the other members at the execution's rendezvous (found through the process's thread,
//! [`crate::spmd`]), leaving its operands and taking everyone's in group order. Each member
//! computes its own results from all of them as the interpreter's `ops/collective.rs` does:
//!
//! - `all_reduce`: the reduction region, compiled as a scalar region program
//!   ([`crate::kernels::region`], the loop compiler's arithmetic, which is the
//!   interpreter's), folded left to right over the members in group order — not in arrival
//!   order — so every member gets the same bits, and the interpreter's;
//! - `all_gather`: the members' operands concatenated along `all_gather_dim`;
//! - `reduce_scatter`: the all-reduce, then this member's part along `scatter_dimension`;
//! - `all_to_all`: this member's part of every member's operand, concatenated;
//! - `collective_permute`: what the pair targeting this process sends, zeros when none does;
//! - `collective_broadcast`: the root's operands (the group's first member, or per result the
//!   index the roots operand gives under `has_dynamic_root`); zeros outside every group.
//!
//! Errors the interpreter reports at run time (a process in no group, a split count that is
//! not the group's size) are kept from lowering and reported when the op runs, so that a
//! collective on a path never taken costs nothing. Data moves as [`CpuBuffer`] copies through
//! shared memory.

pub mod data;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::region::{RegionProgram, WIDTH};
use crate::lower_ctx::LowerCtx;
use crate::spmd::{current_process, SpmdProcess};
use data::{concat, copy, split_part};
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
            Ok(Plan {
                kind: Kind::Broadcast { dynamic_root: true },
                ..
            }) => operand_types.len().saturating_sub(1),
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

    /// The members' values folded left to right, in the given (group) order.
    fn reduce(&self, columns: &[&CpuBuffer]) -> Result<CpuBuffer> {
        let first = columns[0];
        if first.dtype() != self.dtype {
            return Err(CpuError::new(format!(
                "internal: the reduction of {} got {}",
                self.dtype,
                first.ty()
            )));
        }
        let n = first.num_elements();
        let mut acc = first.storage().clone();
        let mut s = self.program.scratch();
        for column in &columns[1..] {
            let mut start = 0;
            while start < n {
                let m = (n - start).min(WIDTH);
                copy(s.args[0].storage_mut(), 0, &acc, start, m);
                copy(s.args[1].storage_mut(), 0, column.storage(), start, m);
                self.program.run(&mut s, m);
                copy(&mut acc, start, &s.outs[0], 0, m);
                start += m;
            }
        }
        data::buffer(first.ty().clone(), acc)
    }

    /// Operand `k` of every member reduced, one result per operand.
    fn reduce_all(&self, all: &[Vec<CpuBuffer>]) -> Result<Vec<CpuBuffer>> {
        (0..all[0].len())
            .map(|k| {
                let columns: Vec<&CpuBuffer> = all.iter().map(|d| &d[k]).collect();
                self.reduce(&columns)
            })
            .collect()
    }
}

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

impl CollectiveKernel {
    /// Every member's operands, in group order.
    fn exchange(&self, group: &[ProcessId], data: Vec<CpuBuffer>) -> Result<Vec<Vec<CpuBuffer>>> {
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
                    summary: self.summary.clone(),
                    signature: self.signature.clone(),
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
        let mut data: Vec<CpuBuffer> = args.into_iter().map(Arg::into_owned).collect();
        let roots = match plan.kind {
            Kind::Broadcast { dynamic_root: true } => data.pop(),
            _ => None,
        };
        let Some(group) = &plan.group else {
            return Ok(self.zeros());
        };
        let n = self.result_types.len();
        let all = self.exchange(group, data)?;
        match &plan.kind {
            Kind::AllReduce(reducer) => reducer.reduce_all(&all),
            Kind::AllGather { dim } => (0..n)
                .map(|k| concat(&all.iter().map(|d| &d[k]).collect::<Vec<_>>(), *dim))
                .collect(),
            Kind::ReduceScatter { dim, reducer } => reducer
                .reduce_all(&all)?
                .iter()
                .map(|t| split_part(t, *dim, group.len(), plan.me, "scatter_dimension"))
                .collect(),
            Kind::AllToAll {
                split_dim,
                concat_dim,
            } => (0..n)
                .map(|k| {
                    let parts = all
                        .iter()
                        .map(|d| {
                            split_part(&d[k], *split_dim, group.len(), plan.me, "split_dimension")
                        })
                        .collect::<Result<Vec<_>>>()?;
                    concat(&parts.iter().collect::<Vec<_>>(), *concat_dim)
                })
                .collect(),
            Kind::Permute { source } => Ok(match source {
                Some(s) => all.into_iter().nth(*s).unwrap_or_default(),
                None => self.zeros(),
            }),
            Kind::Broadcast { .. } => (0..n)
                .map(|j| {
                    let source = match &roots {
                        None => 0,
                        Some(r) => {
                            let i = integer_at(r, j)?;
                            if i < 0 || i as usize >= group.len() {
                                return Err(CpuError::new(format!(
                                    "root {i} of result {j} is not an index into the group [{}]",
                                    list(group)
                                )));
                            }
                            i as usize
                        }
                    };
                    Ok(all[source][j].clone())
                })
                .collect(),
        }
    }
}

/// Element `i` of an integer buffer.
fn integer_at(b: &CpuBuffer, i: usize) -> Result<i64> {
    let t = b.to_tensor();
    let out_of_range = || CpuError::new(format!("the roots operand {} has no element {i}", b.ty()));
    Ok(match t.data() {
        Data::Int(v) => *v.get(i).ok_or_else(out_of_range)?,
        Data::UInt(v) => i64::try_from(*v.get(i).ok_or_else(out_of_range)?).unwrap_or(i64::MAX),
        Data::Bool(v) => i64::from(*v.get(i).ok_or_else(out_of_range)?),
        Data::Float(_) => {
            return Err(CpuError::new(format!(
                "the roots operand must be an integer, got {}",
                b.ty()
            )))
        }
    })
}
