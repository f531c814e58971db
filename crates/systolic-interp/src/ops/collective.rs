//! Family: collectives and the process ids.
//!
//! Under `interpreter.run_parallel` an op runs on one process of a replicas × partitions grid
//! ([`crate::parallel`]); elsewhere on the only process, (0, 0), where every group is just that
//! process. The process groups follow the spec's "Process groups" section: `cross_replica`,
//! `cross_partition`, `cross_replica_and_partition` or `flattened_ids`, chosen from the
//! channel id (`channel_handle`'s handle, 0 when absent) and `use_global_device_ids`. Every
//! participant computes its own results from the operands of all, in group order, so that
//! reductions are folded left to right over the group as listed — the same on every process.
//!
//! Under `interpreter.run_parallel`, send/recv pass messages through one queue per channel,
//! infeed reads the run's `infeed` functions and outfeed discards what it writes; elsewhere
//! they need a host or a peer the interpreter does not model, and are reported as such.

use crate::error::{InterpError, Result};
use crate::operands::{into_tensors, make, result_tensor};
use crate::ops::reduce::operands::{convert_scalar, scalars, tensor_from_scalars, ScalarFn};
use crate::parallel::{list, Contribution, Process, ProcessId};
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::collective_groups::{self, permute_group};
use systolic_ir::{CollectiveAttrs, Data, OpKind, ProcessGrid, Tensor, TensorType, Type};

/// Evaluates an op of this family.
pub fn eval(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    use OpKind::*;
    let grid = Grid::of(regions.process().cloned());
    match kind {
        ReplicaId | PartitionId => {
            let out = result_tensor(result_types, 0)?;
            let id = if matches!(kind, ReplicaId) {
                grid.me.replica
            } else {
                grid.me.partition
            };
            Ok(vec![Value::Tensor(make(
                out.clone(),
                Data::UInt(vec![u64::from(id)]),
            )?)])
        }
        AllReduce { collective } => {
            let group = grid.group(collective, true)?;
            let tensors = into_tensors(args)?;
            let all = grid.exchange(kind, &group, tensors)?;
            all_reduce(&all, result_types, regions).map(values)
        }
        AllGather {
            all_gather_dim,
            collective,
        } => {
            let group = grid.group(collective, true)?;
            let all = grid.exchange(kind, &group, into_tensors(args)?)?;
            let dim = dimension(*all_gather_dim, &all[0], "all_gather_dim")?;
            let results = (0..all[0].len())
                .map(|k| {
                    let parts: Vec<&Tensor> = all.iter().map(|d| &d[k]).collect();
                    concat(&parts, dim)
                })
                .collect::<Result<Vec<_>>>()?;
            check_results(&results, result_types)?;
            Ok(values(results))
        }
        ReduceScatter {
            scatter_dimension,
            collective,
        } => {
            let group = grid.group(collective, true)?;
            let me = position(&group, grid.me);
            let all = grid.exchange(kind, &group, into_tensors(args)?)?;
            let dim = dimension(*scatter_dimension, &all[0], "scatter_dimension")?;
            let reduced_types: Vec<Type> = all[0]
                .iter()
                .zip(result_types)
                .map(|(t, r)| match r {
                    Type::Tensor(r) => Type::Tensor(TensorType::new(t.shape().to_vec(), r.dtype)),
                    other => other.clone(),
                })
                .collect();
            let reduced = all_reduce(&all, &reduced_types, regions)?;
            let results = reduced
                .iter()
                .map(|t| Ok(split(t, dim, group.len(), "scatter_dimension")?.swap_remove(me)))
                .collect::<Result<Vec<_>>>()?;
            check_results(&results, result_types)?;
            Ok(values(results))
        }
        AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            collective,
        } => {
            let group = grid.group(collective, false)?;
            if *split_count != group.len() as i64 {
                crate::bail!(
                    "split_count is {split_count} but the group [{}] has {} processes",
                    list(&group),
                    group.len()
                );
            }
            let me = position(&group, grid.me);
            let all = grid.exchange(kind, &group, into_tensors(args)?)?;
            let split_dim = dimension(*split_dimension, &all[0], "split_dimension")?;
            let concat_dim = dimension(*concat_dimension, &all[0], "concat_dimension")?;
            let results = (0..all[0].len())
                .map(|k| {
                    let parts = all
                        .iter()
                        .map(|d| {
                            Ok(split(&d[k], split_dim, group.len(), "split_dimension")?
                                .swap_remove(me))
                        })
                        .collect::<Result<Vec<_>>>()?;
                    concat(&parts.iter().collect::<Vec<_>>(), concat_dim)
                })
                .collect::<Result<Vec<_>>>()?;
            check_results(&results, result_types)?;
            Ok(values(results))
        }
        CollectiveReduce { collective } => {
            let (tensors, roots) = split_roots(into_tensors(args)?, collective)?;
            let Some(group) = grid.group_if_any(collective, false)? else {
                let zeros = tensors.iter().map(|t| Tensor::zeros(t.ty().clone()));
                return Ok(values(zeros.collect()));
            };
            let me = position(&group, grid.me);
            let is_root = (0..tensors.len())
                .map(|j| match &roots {
                    None => Ok(me == 0),
                    Some(r) => Ok(root_index(r, j, &group)? == me),
                })
                .collect::<Result<Vec<bool>>>()?;
            let zeros: Vec<Tensor> = tensors
                .iter()
                .map(|t| Tensor::zeros(t.ty().clone()))
                .collect();
            let all = grid.exchange(kind, &group, tensors)?;
            // A root folds every member's operands in group order; the others only take part.
            let reduced = if is_root.contains(&true) {
                all_reduce(&all, result_types, regions)?
            } else {
                zeros.clone()
            };
            let results: Vec<Tensor> = reduced
                .into_iter()
                .zip(zeros)
                .zip(is_root)
                .map(|((t, zero), root)| if root { t } else { zero })
                .collect();
            check_results(&results, result_types)?;
            Ok(values(results))
        }
        CollectiveBroadcast { collective } => {
            let (tensors, roots) = split_roots(into_tensors(args)?, collective)?;
            let Some(group) = grid.group_if_any(collective, false)? else {
                let zeros = tensors.iter().map(|t| Tensor::zeros(t.ty().clone()));
                return Ok(values(zeros.collect()));
            };
            let n = tensors.len();
            let all = grid.exchange(kind, &group, tensors)?;
            let results = (0..n)
                .map(|j| {
                    let source = match &roots {
                        None => 0,
                        Some(r) => root_index(r, j, &group)?,
                    };
                    Ok(all[source][j].clone())
                })
                .collect::<Result<Vec<_>>>()?;
            check_results(&results, result_types)?;
            Ok(values(results))
        }
        CollectivePermute {
            source_target_pairs,
            channel_handle,
        } => {
            let pairs = grid
                .grid
                .permute_pairs(source_target_pairs, *channel_handle, grid.me)
                .map_err(|e| grid.error(e))?;
            let group = permute_group(&pairs);
            let tensors = into_tensors(args)?;
            if !group.contains(&grid.me) {
                let zeros = tensors.iter().map(|t| Tensor::zeros(t.ty().clone()));
                return Ok(values(zeros.collect()));
            }
            let zeros: Vec<Tensor> = tensors
                .iter()
                .map(|t| Tensor::zeros(t.ty().clone()))
                .collect();
            let all = grid.exchange(kind, &group, tensors)?;
            let results = match pairs.iter().find(|&&(_, t)| t == grid.me) {
                Some(&(s, _)) => all[position(&group, s)].clone(),
                None => zeros,
            };
            check_results(&results, result_types)?;
            Ok(values(results))
        }
        Infeed { .. } => {
            let Some(process) = &grid.process else {
                crate::bail!(
                    "infeed reads from the host; here it needs the infeed functions of \
                     interpreter.run_parallel"
                );
            };
            let Some(func) = process.next_infeed() else {
                crate::bail!("the infeed queue of interpreter.run_parallel is empty");
            };
            let mut out = regions.call(&func, vec![])?;
            out.push(Value::Token);
            let got: Vec<Type> = out.iter().map(Value::ty).collect();
            if got.as_slice() != result_types {
                crate::bail!(
                    "@{func} feeds {} values of other types than the op's {} results",
                    got.len() - 1,
                    result_types.len()
                );
            }
            Ok(out)
        }
        Send { channel_handle, .. } => {
            let Some(process) = &grid.process else {
                crate::bail!(
                    "send talks to another device or the host; it needs the multi-device runtime \
                     or interpreter.run_parallel"
                );
            };
            let mut values = args;
            match values.pop() {
                Some(Value::Token) => {}
                _ => crate::bail!("the last operand must be a token"),
            }
            process.send(channel_handle.handle, into_tensors(values)?);
            Ok(vec![Value::Token])
        }
        Recv { channel_handle, .. } => {
            let Some(process) = &grid.process else {
                crate::bail!(
                    "recv talks to another device or the host; it needs the multi-device runtime \
                     or interpreter.run_parallel"
                );
            };
            let data = process.recv(channel_handle.handle)?;
            let mut out = values(data);
            out.push(Value::Token);
            let got: Vec<Type> = out.iter().map(Value::ty).collect();
            if got.as_slice() != result_types {
                crate::bail!(
                    "received ({}) on channel {}, but the op declares ({})",
                    types(&got),
                    channel_handle.handle,
                    types(result_types)
                );
            }
            Ok(out)
        }
        Outfeed { .. } => {
            if grid.process.is_none() {
                crate::bail!(
                    "outfeed writes to the host; it needs the multi-device runtime or \
                     interpreter.run_parallel"
                );
            }
            // Under run_parallel the host takes whatever is fed out, and nothing reads it.
            Ok(vec![Value::Token])
        }
        other => crate::bail!("{} is not a collective", other.name()),
    }
}

/// The grid the op runs in and the process it runs on.
struct Grid {
    process: Option<Process>,
    me: ProcessId,
    grid: ProcessGrid,
}

impl Grid {
    fn of(process: Option<Process>) -> Grid {
        match process {
            Some(p) => Grid {
                me: p.id(),
                grid: p.grid(),
                process: Some(p),
            },
            None => Grid {
                process: None,
                me: ProcessId {
                    replica: 0,
                    partition: 0,
                },
                grid: ProcessGrid::new(1, 1),
            },
        }
    }

    /// A group-formation error, with a hint when this is the only process.
    fn error(&self, message: String) -> InterpError {
        let outside = message.ends_with("replica(s) run") || message.ends_with("partition(s) run");
        if self.process.is_none() && outside {
            InterpError::new(format!(
                "{message}; a group with other processes needs the multi-device runtime or \
                 interpreter.run_parallel"
            ))
        } else {
            InterpError::new(message)
        }
    }

    /// The group this process is in, if any ([`ProcessGrid::group_of`]).
    fn group_if_any(
        &self,
        c: &CollectiveAttrs,
        partitions_join: bool,
    ) -> Result<Option<Vec<ProcessId>>> {
        self.grid
            .group_of(c, partitions_join, self.me)
            .map_err(|e| self.error(e))
    }

    /// The group this process is in; an error when it is in none.
    fn group(&self, c: &CollectiveAttrs, partitions_join: bool) -> Result<Vec<ProcessId>> {
        self.grid
            .group(c, partitions_join, self.me)
            .map_err(|e| self.error(e))
    }

    /// Every member's operands, in group order.
    fn exchange(
        &self,
        kind: &OpKind,
        group: &[ProcessId],
        data: Vec<Tensor>,
    ) -> Result<Vec<Vec<Tensor>>> {
        let Some(process) = &self.process else {
            // One process: its groups are just itself (the group check above made sure).
            return Ok(vec![data]);
        };
        let types: Vec<String> = data.iter().map(|t| t.ty().to_string()).collect();
        let summary = format!("{} on ({})", kind.name(), types.join(", "));
        let signature = format!("{kind:?} on ({}) over [{}]", types.join(", "), list(group));
        process.exchange(
            group,
            Contribution {
                op: kind.name(),
                summary,
                signature,
                data,
            },
        )
    }
}

fn types(ts: &[Type]) -> String {
    ts.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The data operands and, with `has_dynamic_root`, the roots operand (the last).
fn split_roots(
    mut tensors: Vec<Tensor>,
    collective: &CollectiveAttrs,
) -> Result<(Vec<Tensor>, Option<Tensor>)> {
    if !collective.has_dynamic_root {
        return Ok((tensors, None));
    }
    match tensors.pop() {
        Some(r) => Ok((tensors, Some(r))),
        None => crate::bail!("has_dynamic_root needs the roots operand"),
    }
}

/// The root of result `j`, from the roots operand: an index into `group`.
fn root_index(roots: &Tensor, j: usize, group: &[ProcessId]) -> Result<usize> {
    let i = crate::operands::integer_at(roots, j, "the roots operand")?;
    if i < 0 || i as usize >= group.len() {
        crate::bail!(
            "root {i} of result {j} is not an index into the group [{}]",
            list(group)
        );
    }
    Ok(i as usize)
}

fn position(group: &[ProcessId], p: ProcessId) -> usize {
    collective_groups::position(group, p).unwrap_or(0)
}

fn values(tensors: Vec<Tensor>) -> Vec<Value> {
    tensors.into_iter().map(Value::Tensor).collect()
}

/// A dimension attribute checked against the first operand's rank.
fn dimension(dim: i64, operands: &[Tensor], what: &str) -> Result<usize> {
    let Some(first) = operands.first() else {
        crate::bail!("expects at least one operand");
    };
    let rank = first.shape().len();
    if dim < 0 || dim as usize >= rank {
        crate::bail!("{what} {dim} is out of range for rank {rank}");
    }
    Ok(dim as usize)
}

/// Checks the computed results against the declared types.
fn check_results(results: &[Tensor], result_types: &[Type]) -> Result<()> {
    if results.len() != result_types.len() {
        crate::bail!(
            "computes {} results, the op declares {}",
            results.len(),
            result_types.len()
        );
    }
    for (i, (t, want)) in results.iter().zip(result_types).enumerate() {
        let got = Type::Tensor(t.ty().clone());
        if &got != want {
            crate::bail!("result {i} is declared {want} but computes {got}");
        }
    }
    Ok(())
}

/// Reduces every operand elementwise over the members (left to right, in group order) with the
/// op's region, converting the values to the result's element type first.
fn all_reduce(
    all: &[Vec<Tensor>],
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
    let mut f = ScalarFn::new(regions, 0, "computation")?;
    let n = all[0].len();
    if result_types.len() != n {
        crate::bail!(
            "has {n} operands but declares {} results",
            result_types.len()
        );
    }
    (0..n)
        .map(|k| {
            let out = result_tensor(result_types, k)?;
            let first = &all[0][k];
            if out.shape != first.shape() {
                crate::bail!(
                    "result {k} is declared {out} but operand {k} is {}",
                    first.ty()
                );
            }
            let dtype = out.dtype;
            let columns: Vec<Vec<_>> = all.iter().map(|d| scalars(&d[k])).collect();
            let mut acc: Vec<_> = columns[0]
                .iter()
                .map(|&s| convert_scalar(s, dtype))
                .collect();
            for column in &columns[1..] {
                for (a, &x) in acc.iter_mut().zip(column) {
                    let r = f.call(&[(dtype, *a), (dtype, convert_scalar(x, dtype))], 1)?;
                    *a = r[0].1;
                }
            }
            tensor_from_scalars(out.clone(), acc)
        })
        .collect()
}

/// Concatenates tensors of one rank along `dim`.
fn concat(parts: &[&Tensor], dim: usize) -> Result<Tensor> {
    let first = parts[0];
    let shape = first.shape();
    let outer: usize = shape[..dim].iter().map(|&d| d as usize).product();
    let mut out_shape = shape.to_vec();
    out_shape[dim] = 0;
    for p in parts {
        let s = p.shape();
        if s.len() != shape.len()
            || p.dtype() != first.dtype()
            || s.iter()
                .zip(shape)
                .enumerate()
                .any(|(i, (a, b))| i != dim && a != b)
        {
            crate::bail!(
                "cannot concatenate {} and {} along dimension {dim}",
                first.ty(),
                p.ty()
            );
        }
        out_shape[dim] += s[dim];
    }
    let columns: Vec<Vec<_>> = parts.iter().map(|p| scalars(p)).collect();
    let mut values = Vec::with_capacity(columns.iter().map(Vec::len).sum());
    for o in 0..outer {
        for (p, column) in parts.iter().zip(&columns) {
            // Inside the loop `outer` is positive.
            let chunk = p.num_elements() / outer;
            values.extend_from_slice(&column[o * chunk..(o + 1) * chunk]);
        }
    }
    tensor_from_scalars(TensorType::new(out_shape, first.dtype()), values)
}

/// Splits a tensor into `n` equal parts along `dim`.
fn split(t: &Tensor, dim: usize, n: usize, what: &str) -> Result<Vec<Tensor>> {
    let shape = t.shape();
    let size = shape[dim] as usize;
    if n == 0 || !size.is_multiple_of(n) {
        crate::bail!(
            "dimension {dim} ({what}) of {} does not split into {n} equal parts",
            t.ty()
        );
    }
    let outer: usize = shape[..dim].iter().map(|&d| d as usize).product();
    let inner: usize = shape[dim + 1..].iter().map(|&d| d as usize).product();
    let part = size / n;
    let all = scalars(t);
    let mut part_shape = shape.to_vec();
    part_shape[dim] = part as i64;
    (0..n)
        .map(|k| {
            let mut values = Vec::with_capacity(outer * part * inner);
            for o in 0..outer {
                let start = (o * size + k * part) * inner;
                values.extend_from_slice(&all[start..start + part * inner]);
            }
            tensor_from_scalars(TensorType::new(part_shape.clone(), t.dtype()), values)
        })
        .collect()
}
