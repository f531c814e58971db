//! Process groups of collectives, as the StableHLO spec forms them ("Process groups"): pure
//! functions of an op's attributes and the grid of `num_replicas × num_partitions` processes.
//!
//! Shared by everything that runs or costs collectives: the reference interpreter
//! (`interpreter.run_parallel`), the CPU backend's SPMD executables, the TPU cost model. A
//! group is a list of processes in the order the spec gives (the order reductions fold in).
//!
//! ```
//! use systolic_ir::collective_groups::{GroupMode, ProcessGrid, ProcessId};
//! use systolic_ir::{ChannelHandle, CollectiveAttrs};
//! let grid = ProcessGrid::new(2, 2);
//! let attrs = CollectiveAttrs {
//!     replica_groups: vec![vec![0, 1]],
//!     channel_handle: Some(ChannelHandle { handle: 1, kind: 1 }),
//!     ..CollectiveAttrs::default()
//! };
//! // all_reduce with a channel and no use_global_device_ids: replicas across partitions.
//! assert_eq!(GroupMode::of(&attrs, true), Ok(GroupMode::CrossReplicaAndPartition));
//! let me = ProcessId { replica: 1, partition: 0 };
//! let group = grid.group_of(&attrs, true, me).unwrap().unwrap();
//! assert_eq!(group.len(), 4);
//! assert_eq!(group[0], ProcessId { replica: 0, partition: 0 });
//! ```

use crate::attrs::{ChannelHandle, CollectiveAttrs};
use crate::ops::OpKind;
use std::fmt;

/// A process of the grid: `(replica_id, partition_id)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcessId {
    /// The replica.
    pub replica: u32,
    /// The partition.
    pub partition: u32,
}

impl fmt::Display for ProcessId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.replica, self.partition)
    }
}

/// Formats a list of processes: `(0, 0), (1, 0)`.
pub fn list(ids: &[ProcessId]) -> String {
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where `p` is in `group`.
pub fn position(group: &[ProcessId], p: ProcessId) -> Option<usize> {
    group.iter().position(|&q| q == p)
}

/// How a collective's groups are formed (the spec's "Process groups").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Each row of `replica_groups` names replicas; one group per row and partition.
    CrossReplica,
    /// Each row names partitions; one group per row and replica.
    CrossPartition,
    /// Each row names replicas; one group per row, over every partition.
    CrossReplicaAndPartition,
    /// Each row names flattened ids `replica * num_partitions + partition`.
    FlattenedIds,
}

impl GroupMode {
    /// The mode of a collective: from its channel id (`channel_handle`'s handle, 0 when absent)
    /// and `use_global_device_ids`. `partitions_join` is true for all_gather, all_reduce and
    /// reduce_scatter ([`partitions_join`]), whose channel mode groups replicas across
    /// partitions.
    pub fn of(c: &CollectiveAttrs, partitions_join: bool) -> Result<GroupMode, String> {
        let channel = c.channel_handle.map_or(0, |h| h.handle) > 0;
        Ok(match (partitions_join, channel, c.use_global_device_ids) {
            (_, false, true) => {
                return Err(
                    "use_global_device_ids needs a channel_handle with a positive handle".into(),
                )
            }
            (true, false, false) | (false, false, _) => GroupMode::CrossReplica,
            (true, true, false) => GroupMode::CrossReplicaAndPartition,
            (true, true, true) => GroupMode::FlattenedIds,
            (false, true, _) => GroupMode::CrossPartition,
        })
    }
}

/// True for the collectives whose channel mode groups replicas across partitions (all_gather,
/// all_reduce, reduce_scatter); false for all_to_all and collective_broadcast.
pub fn partitions_join(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::AllGather { .. } | OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. }
    )
}

/// The grid of processes a program runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProcessGrid {
    /// `num_replicas`.
    pub replicas: u32,
    /// `num_partitions`.
    pub partitions: u32,
}

impl ProcessGrid {
    /// A grid of `replicas × partitions` processes.
    pub fn new(replicas: u32, partitions: u32) -> ProcessGrid {
        ProcessGrid {
            replicas,
            partitions,
        }
    }

    /// The number of processes.
    pub fn len(&self) -> usize {
        self.replicas as usize * self.partitions as usize
    }

    /// True when the grid has no process.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A process's flat index (`replica * partitions + partition`): the process order.
    pub fn flat(&self, p: ProcessId) -> usize {
        p.replica as usize * self.partitions as usize + p.partition as usize
    }

    /// The process at a flat index.
    pub fn id(&self, flat: usize) -> ProcessId {
        let n = self.partitions.max(1) as usize;
        ProcessId {
            replica: (flat / n) as u32,
            partition: (flat % n) as u32,
        }
    }

    /// Every process, in process order.
    pub fn processes(&self) -> impl Iterator<Item = ProcessId> + '_ {
        (0..self.len()).map(|f| self.id(f))
    }

    /// Describes an id that is outside the grid: `replica 3, but 2 replica(s) run`.
    pub fn outside(&self, id: i64, partition: bool) -> String {
        let (what, limit) = if partition {
            ("partition", self.partitions)
        } else {
            ("replica", self.replicas)
        };
        format!("{what} {id}, but {limit} {what}(s) run")
    }

    /// The process groups of a collective, each in the spec's order.
    pub fn groups(
        &self,
        c: &CollectiveAttrs,
        partitions_join: bool,
    ) -> Result<Vec<Vec<ProcessId>>, String> {
        let mode = GroupMode::of(c, partitions_join)?;
        let (limit, partition) = match mode {
            GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => (self.replicas, false),
            GroupMode::CrossPartition => (self.partitions, true),
            GroupMode::FlattenedIds => (self.replicas * self.partitions, false),
        };
        let mut rows: Vec<Vec<u32>> = vec![];
        let mut seen = vec![false; limit as usize];
        for row in &c.replica_groups {
            let mut ids = vec![];
            for &id in row.iter().filter(|&&id| id != -1) {
                if id < 0 || id >= i64::from(limit) {
                    if mode == GroupMode::FlattenedIds {
                        return Err(format!(
                            "replica_groups names the flattened id {id}, but {limit} process(es) \
                             run"
                        ));
                    }
                    return Err(format!(
                        "replica_groups names {}",
                        self.outside(id, partition)
                    ));
                }
                if std::mem::replace(&mut seen[id as usize], true) {
                    return Err(format!("replica_groups names {id} twice"));
                }
                ids.push(id as u32);
            }
            rows.push(ids);
        }
        if c.replica_groups.is_empty() {
            rows.push((0..limit).collect());
        }
        let pid = |replica, partition| ProcessId { replica, partition };
        let mut groups = vec![];
        for row in &rows {
            match mode {
                GroupMode::CrossReplica => {
                    for p in 0..self.partitions {
                        groups.push(row.iter().map(|&r| pid(r, p)).collect());
                    }
                }
                GroupMode::CrossPartition => {
                    for r in 0..self.replicas {
                        groups.push(row.iter().map(|&p| pid(r, p)).collect());
                    }
                }
                GroupMode::CrossReplicaAndPartition => groups.push(
                    (0..self.partitions)
                        .flat_map(|p| row.iter().map(move |&r| pid(r, p)))
                        .collect(),
                ),
                GroupMode::FlattenedIds => groups.push(
                    row.iter()
                        .map(|&f| pid(f / self.partitions, f % self.partitions))
                        .collect(),
                ),
            }
        }
        Ok(groups)
    }

    /// The group `me` is in, if any.
    pub fn group_of(
        &self,
        c: &CollectiveAttrs,
        partitions_join: bool,
        me: ProcessId,
    ) -> Result<Option<Vec<ProcessId>>, String> {
        Ok(self
            .groups(c, partitions_join)?
            .into_iter()
            .find(|g| g.contains(&me)))
    }

    /// The group `me` is in; an error when it is in none.
    pub fn group(
        &self,
        c: &CollectiveAttrs,
        partitions_join: bool,
        me: ProcessId,
    ) -> Result<Vec<ProcessId>, String> {
        self.group_of(c, partitions_join, me)?.ok_or_else(|| {
            format!(
                "process {me} is in no group of replica_groups {:?}",
                c.replica_groups
            )
        })
    }

    /// The source–target pairs of a `collective_permute` as processes seen from `me`: with a
    /// positive channel id the ids are partitions of `me`'s replica, otherwise replicas of
    /// `me`'s partition.
    pub fn permute_pairs(
        &self,
        source_target_pairs: &[(i64, i64)],
        channel_handle: Option<ChannelHandle>,
        me: ProcessId,
    ) -> Result<Vec<(ProcessId, ProcessId)>, String> {
        let cross_partition = channel_handle.is_some_and(|h| h.handle > 0);
        let limit = if cross_partition {
            self.partitions
        } else {
            self.replicas
        };
        let place = |id: i64| -> Result<ProcessId, String> {
            if id < 0 || id >= i64::from(limit) {
                return Err(format!(
                    "source_target_pairs names {}",
                    self.outside(id, cross_partition)
                ));
            }
            let id = id as u32;
            Ok(if cross_partition {
                ProcessId {
                    replica: me.replica,
                    partition: id,
                }
            } else {
                ProcessId {
                    replica: id,
                    partition: me.partition,
                }
            })
        };
        source_target_pairs
            .iter()
            .map(|&(s, t)| Ok((place(s)?, place(t)?)))
            .collect()
    }
}

/// The processes a `collective_permute` with these pairs involves, sorted and deduplicated:
/// its group.
pub fn permute_group(pairs: &[(ProcessId, ProcessId)]) -> Vec<ProcessId> {
    let mut group: Vec<ProcessId> = pairs.iter().flat_map(|&(s, t)| [s, t]).collect();
    group.sort_unstable();
    group.dedup();
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(groups: Vec<Vec<i64>>, channel: i64, global: bool) -> CollectiveAttrs {
        CollectiveAttrs {
            replica_groups: groups,
            channel_handle: (channel > 0).then_some(ChannelHandle {
                handle: channel,
                kind: 1,
            }),
            use_global_device_ids: global,
            has_dynamic_root: false,
        }
    }

    fn p(replica: u32, partition: u32) -> ProcessId {
        ProcessId { replica, partition }
    }

    #[test]
    fn the_four_modes_form_the_specs_groups() {
        let grid = ProcessGrid::new(2, 2);
        let cr = grid
            .groups(&attrs(vec![vec![0, 1]], 0, false), true)
            .unwrap();
        assert_eq!(cr, vec![vec![p(0, 0), p(1, 0)], vec![p(0, 1), p(1, 1)]]);
        let cp = grid
            .groups(&attrs(vec![vec![1, 0]], 1, false), false)
            .unwrap();
        assert_eq!(cp, vec![vec![p(0, 1), p(0, 0)], vec![p(1, 1), p(1, 0)]]);
        let crp = grid
            .groups(&attrs(vec![vec![0], vec![1]], 1, false), true)
            .unwrap();
        assert_eq!(crp, vec![vec![p(0, 0), p(0, 1)], vec![p(1, 0), p(1, 1)]]);
        let flat = grid
            .groups(&attrs(vec![vec![3, 0], vec![1, 2]], 1, true), true)
            .unwrap();
        assert_eq!(flat, vec![vec![p(1, 1), p(0, 0)], vec![p(0, 1), p(1, 0)]]);
        assert!(grid
            .groups(&attrs(vec![vec![0, 2]], 0, false), true)
            .unwrap_err()
            .contains("replica 2, but 2 replica(s) run"));
        assert!(grid
            .groups(&attrs(vec![], 0, true), true)
            .unwrap_err()
            .contains("use_global_device_ids"));
        assert_eq!(
            grid.group_of(&attrs(vec![vec![0]], 0, false), true, p(1, 0)),
            Ok(None)
        );
    }

    #[test]
    fn permute_pairs_name_replicas_or_partitions() {
        let grid = ProcessGrid::new(2, 3);
        let pairs = grid.permute_pairs(&[(0, 1)], None, p(1, 2)).unwrap();
        assert_eq!(pairs, vec![(p(0, 2), p(1, 2))]);
        let handle = Some(ChannelHandle { handle: 1, kind: 1 });
        let pairs = grid.permute_pairs(&[(2, 0)], handle, p(1, 2)).unwrap();
        assert_eq!(permute_group(&pairs), vec![p(1, 0), p(1, 2)]);
    }
}
