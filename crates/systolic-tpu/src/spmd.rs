//! SPMD programs on a slice: a module for `num_replicas × num_partitions` processes runs one
//! process per chip of a [`Slice`], each chip on its own clock, its collectives costed on the
//! slice's interconnect ([`crate::collective_cost`]).
//!
//! - **Processes and chips.** Process `(replica, partition)` runs on device
//!   `replica * num_partitions + partition` (XLA's numbering, the flattened id of
//!   `use_global_device_ids`), and device `d` is the slice's chip at row-major position `d`
//!   ([`Slice`]). The counts must match: a module for `N` processes needs a slice of `N` chips.
//! - **Compute.** Every chip runs the same program (the schedule of [`crate::schedule`]) on
//!   shapes alone, so between two collectives every chip spends the same compute time:
//!   data-dependent control flow is costed as on one chip (the costliest branch, counted loops),
//!   the same on every chip.
//! - **Collectives.** The groups are the ones `systolic_ir::collective_groups` forms from the
//!   op's `replica_groups`, `channel_handle` and `use_global_device_ids` (collective_permute: its
//!   pairs, for every replica or partition they apply to); `V` is the book's, from the operand
//!   bytes per device ([`crate::collective_cost::CollectiveKind::book_bytes`]). Each group starts when its slowest
//!   member reaches the op — the members' clocks synchronise there, the others waiting — and
//!   ends [`collective_cost`]'s time later (a collective_permute's groups are the connected
//!   sets of its pairs). A chip in no group goes on. Collectives never overlap compute (XLA's
//!   asynchronous collectives are not modelled).
//! - **Step time** is the slowest chip's clock at the end.
//!
//! A loop whose body holds collectives is replayed trip by trip; once an iteration advances
//! every chip's clocks exactly as the previous one did, the remaining trips are extrapolated.

use crate::collective_cost::{collective_cost, CollectiveCost, CollectiveKind};
use crate::cost::KernelCost;
use crate::error::TpuError;
use crate::schedule::{CollectiveSite, SiteGroups, Step};
use crate::simulate::{simulate_timeline, SimOptions};
use crate::slice::{Slice, SliceError};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use systolic_compiler::passes::single_device_spmd::{NUM_PARTITIONS_ATTR, NUM_REPLICAS_ATTR};
use systolic_ir::collective_groups::{ProcessGrid, ProcessId};
use systolic_ir::{Attribute, Module};

/// The result of simulating an SPMD program on a slice. FLOPs, HBM bytes and peak HBM are per
/// chip (every chip runs the same program).
#[derive(Clone, Debug, Serialize)]
pub struct SpmdReport {
    /// The slice (`v5e:8x4`).
    pub slice: String,
    /// Its chip (`v5e`).
    pub chip: String,
    /// The function simulated.
    pub entry: String,
    /// `mhlo.num_replicas`.
    pub num_replicas: u32,
    /// `mhlo.num_partitions`.
    pub num_partitions: u32,
    /// Chips (= processes).
    pub num_chips: u32,
    /// Step time: the slowest chip's clock at the end, in seconds.
    pub time_s: f64,
    /// Compute time of one chip (the sum of its kernels' times; the same on every chip).
    pub compute_s: f64,
    /// The slowest chip (the lowest device id of those whose clock is the step time).
    pub slowest_chip: u32,
    /// Collective time of the slowest chip (its clock = `compute_s + collective_s + wait_s`).
    pub collective_s: f64,
    /// Time the slowest chip waited at collectives for slower members of its groups.
    pub wait_s: f64,
    /// FLOPs per chip.
    pub flops: f64,
    /// HBM bytes moved per chip.
    pub hbm_bytes: f64,
    /// Peak bytes live in one chip's HBM.
    pub peak_hbm_bytes: u64,
    /// The chip's HBM, if published.
    pub hbm_capacity_bytes: Option<u64>,
    /// FLOPs per chip / step time.
    pub achieved_flops_per_s: f64,
    /// The chip's bf16 peak, FLOP/s.
    pub peak_flops_per_s: f64,
    /// The useful FLOPs of the step on all chips together: those of the global program (each
    /// op once) when the caller partitioned one ([`SpmdReport::set_model_flops`]), else
    /// `flops × num_chips` (every chip's work counted as useful).
    pub model_flops: f64,
    /// Model FLOPs utilisation: `model_flops / (num_chips × step time × peak)`. Work that every
    /// chip repeats (replicated ops) and that a partitioning adds does not count.
    pub mfu: f64,
    /// Hardware FLOPs utilisation: FLOPs per chip (everything it executes, recomputation and
    /// repeated work included) / (step time × peak).
    pub hfu: f64,
    /// Each chip's clock, in device order.
    pub chips: Vec<ChipTime>,
    /// Each collective op of the program, in program order (a loop body's once).
    pub collectives: Vec<CollectiveRun>,
    /// One chip's kernels, in program order.
    pub ops: Vec<KernelCost>,
    /// What the model assumed where figures or facts were missing.
    pub assumptions: Vec<String>,
    /// What the partitioner noticed when the program was partitioned from a global one (a
    /// large array gathered whole on every device, by op and place); empty otherwise.
    pub warnings: Vec<String>,
}

/// Where one chip's time went.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChipTime {
    /// The device id (`replica * num_partitions + partition`).
    pub device: u32,
    /// Its replica.
    pub replica: u32,
    /// Its partition.
    pub partition: u32,
    /// Which slice of a multi-slice it is on.
    pub slice_index: u32,
    /// Its torus coordinates in that slice.
    pub coords: Vec<u32>,
    /// Kernels.
    pub compute_s: f64,
    /// Collectives, from their start to their end.
    pub collective_s: f64,
    /// Waiting at collectives for slower members of a group.
    pub wait_s: f64,
    /// Not busy within the step: waiting at collectives and after its own end.
    pub idle_s: f64,
    /// Its clock at the end of the program.
    pub time_s: f64,
}

/// One collective op of the program and its modelled cost on the slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveRun {
    /// `%name` of its first result.
    pub name: String,
    /// `file:line:col`.
    pub place: String,
    /// How many times it runs (loop trip counts).
    pub count: f64,
    /// `time_s × count`.
    pub total_time_s: f64,
    /// The cost of one execution (`kind`, `group_size`, `bytes` = the book's `V`, `hops`,
    /// `time_s`, `bound`, …), as [`collective_cost`] gives it.
    #[serde(flatten)]
    pub cost: CollectiveCost,
}

/// The process grid a module declares: `mhlo.num_replicas × mhlo.num_partitions` (an absent
/// count is 1).
pub fn process_grid(module: &Module) -> Result<ProcessGrid, TpuError> {
    let count = |name: &'static str| -> Result<u32, TpuError> {
        match module.attrs.iter().find(|a| a.name == name) {
            None => Ok(1),
            Some(a) => match a.value {
                Attribute::Int(n, _) if n >= 1 && n <= i64::from(u32::MAX) => Ok(n as u32),
                ref other => Err(TpuError::BadModuleAttr {
                    name,
                    why: format!("expected a positive integer, found {other:?}"),
                }),
            },
        }
    };
    Ok(ProcessGrid::new(
        count(NUM_REPLICAS_ATTR)?,
        count(NUM_PARTITIONS_ATTR)?,
    ))
}

/// Simulates `options.entry` of `module` on every chip of `slice`, one process per chip (see
/// the module documentation for the rules).
///
/// Fails when the module's process count is not the slice's chip count
/// ([`TpuError::ProcessCount`]), when a collective's groups do not fit the grid or the slice,
/// or as [`crate::simulate`] does (one chip's HBM overflowing, a missing figure).
pub fn simulate_spmd(
    module: &Module,
    slice: &Slice,
    options: &SimOptions,
) -> Result<SpmdReport, TpuError> {
    let grid = process_grid(module)?;
    let chips = slice.total_chips();
    if grid.len() != chips as usize {
        return Err(TpuError::ProcessCount {
            replicas: grid.replicas,
            partitions: grid.partitions,
            slice: slice.to_string(),
            chips,
        });
    }
    let (one, timeline) = simulate_timeline(module, slice.chip(), options, true)?;
    let mut prepared = vec![];
    let plan = prepare(&timeline, slice, grid, &mut prepared, &mut HashMap::new())?;
    let mut clocks = vec![ChipClock::default(); chips as usize];
    run(&plan, &prepared, &mut clocks);
    let time_s = clocks.iter().map(|c| c.clock).fold(0.0, f64::max);
    let chip_times: Vec<ChipTime> = clocks
        .iter()
        .enumerate()
        .map(|(d, c)| {
            let id = grid.id(d);
            let at = slice.coords(d as u32).expect("a device of the slice");
            ChipTime {
                device: d as u32,
                replica: id.replica,
                partition: id.partition,
                slice_index: at.slice,
                coords: at.coords,
                compute_s: c.compute,
                collective_s: c.collective,
                wait_s: c.wait,
                idle_s: (time_s - c.compute - c.collective).max(0.0),
                time_s: c.clock,
            }
        })
        .collect();
    // The first chip whose clock is the step time.
    let slowest_chip = (0..clocks.len())
        .find(|&d| clocks[d].clock == time_s)
        .unwrap_or(0);
    let slowest = clocks.get(slowest_chip).copied().unwrap_or_default();
    let achieved = if time_s > 0.0 {
        one.flops / time_s
    } else {
        0.0
    };
    let peak = slice.chip().peak_bf16_flops.value.unwrap_or(f64::INFINITY);
    let mut report = SpmdReport {
        slice: slice.to_string(),
        chip: one.chip,
        entry: one.entry,
        num_replicas: grid.replicas,
        num_partitions: grid.partitions,
        num_chips: chips,
        time_s,
        compute_s: one.time_s,
        slowest_chip: slowest_chip as u32,
        collective_s: slowest.collective,
        wait_s: slowest.wait,
        flops: one.flops,
        hbm_bytes: one.hbm_bytes,
        peak_hbm_bytes: one.peak_hbm_bytes,
        hbm_capacity_bytes: one.hbm_capacity_bytes,
        achieved_flops_per_s: achieved,
        peak_flops_per_s: peak,
        model_flops: 0.0,
        mfu: 0.0,
        hfu: achieved / peak,
        chips: chip_times,
        collectives: prepared.iter().map(|p| p.run.clone()).collect(),
        ops: one.ops,
        assumptions: one.assumptions,
        warnings: vec![],
    };
    report.set_model_flops(one.flops * f64::from(chips));
    Ok(report)
}

impl SpmdReport {
    /// Sets the step's useful FLOPs on all chips (the global program's, when the simulated
    /// program was partitioned from one) and the MFU that follows from them.
    pub fn set_model_flops(&mut self, flops: f64) {
        self.model_flops = flops;
        let capacity = f64::from(self.num_chips) * self.time_s * self.peak_flops_per_s;
        self.mfu = if capacity > 0.0 {
            flops / capacity
        } else {
            0.0
        };
    }
}

/// The timeline with each collective's cost and synchronising groups worked out.
enum Planned {
    Compute(f64),
    Collective(usize),
    Loop { trips: u64, body: Vec<Planned> },
}

struct Prepared {
    run: CollectiveRun,
    /// Devices whose clocks meet at the op, one list per group.
    sync: Vec<Vec<u32>>,
}

/// Costs already worked out, by kind, device groups and the bytes' bits: a program sends the
/// same sizes over the same groups many times (every layer's weights over the 'data' axis), and
/// costing groups of thousands of chips is the slow part of a large slice.
type CostCache = HashMap<(CollectiveKind, Vec<Vec<u32>>, u64), CollectiveCost>;

fn prepare(
    steps: &[Step],
    slice: &Slice,
    grid: ProcessGrid,
    prepared: &mut Vec<Prepared>,
    cache: &mut CostCache,
) -> Result<Vec<Planned>, TpuError> {
    let mut plan = vec![];
    for step in steps {
        plan.push(match step {
            Step::Compute(t) => Planned::Compute(*t),
            Step::Collective(site) => {
                prepared.push(prepare_site(site, slice, grid, cache)?);
                Planned::Collective(prepared.len() - 1)
            }
            Step::Loop { trips, body } => Planned::Loop {
                trips: *trips,
                body: prepare(body, slice, grid, prepared, cache)?,
            },
        });
    }
    Ok(plan)
}

fn prepare_site(
    site: &CollectiveSite,
    slice: &Slice,
    grid: ProcessGrid,
    cache: &mut CostCache,
) -> Result<Prepared, TpuError> {
    let op_error = |message: String| TpuError::Unsupported {
        op: format!("stablehlo.{}", site.kind.name()),
        place: site.place.clone(),
        message,
    };
    let flat = |p| grid.flat(p) as u32;
    let (cost_groups, sync, group_size) = match &site.groups {
        SiteGroups::Groups {
            attrs,
            partitions_join,
        } => {
            let groups: Vec<Vec<u32>> = grid
                .groups(attrs, *partitions_join)
                .map_err(op_error)?
                .into_iter()
                .map(|g| g.into_iter().map(flat).collect())
                .collect();
            let n = groups.iter().map(Vec::len).max().unwrap_or(0) as u32;
            (groups.clone(), groups, n)
        }
        SiteGroups::Pairs {
            pairs,
            channel_handle,
        } => {
            // The ids name partitions of each replica (with a channel) or replicas of each
            // partition: one process of each replica (or partition) gives that replica's
            // pairs. (Asking every process would repeat each replica's pairs once per member:
            // quadratic in the chips on a slice of thousands.)
            let cross_partition = channel_handle.is_some_and(|h| h.handle > 0);
            let views: Vec<ProcessId> = if cross_partition {
                (0..grid.replicas)
                    .map(|replica| ProcessId {
                        replica,
                        partition: 0,
                    })
                    .collect()
            } else {
                (0..grid.partitions)
                    .map(|partition| ProcessId {
                        replica: 0,
                        partition,
                    })
                    .collect()
            };
            let mut all = BTreeSet::new();
            for me in views {
                for (s, t) in grid
                    .permute_pairs(pairs, *channel_handle, me)
                    .map_err(op_error)?
                {
                    all.insert((flat(s), flat(t)));
                }
            }
            let pairs: Vec<Vec<u32>> = all.iter().map(|&(s, t)| vec![s, t]).collect();
            let sync = connected(&all, grid.len());
            (pairs, sync, 2)
        }
    };
    let bytes = site.kind.book_bytes(site.operand_bytes as f64, group_size);
    let key = (site.kind, cost_groups, bytes.to_bits());
    let cost = match cache.get(&key) {
        Some(c) => c.clone(),
        None => {
            let c = collective_cost(slice, site.kind, &key.1, bytes).map_err(|e| match e {
                SliceError::Model(m) => m,
                other => op_error(other.to_string()),
            })?;
            cache.insert(key, c.clone());
            c
        }
    };
    Ok(Prepared {
        run: CollectiveRun {
            name: site.name.clone(),
            place: site.place.clone(),
            count: site.count,
            total_time_s: cost.time_s * site.count,
            cost,
        },
        sync,
    })
}

/// The connected sets of devices joined by `pairs` (devices in no pair are left out).
fn connected(pairs: &BTreeSet<(u32, u32)>, devices: usize) -> Vec<Vec<u32>> {
    let mut parent: Vec<usize> = (0..devices).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut member = vec![false; devices];
    for &(a, b) in pairs {
        let (a, b) = (a as usize, b as usize);
        member[a] = true;
        member[b] = true;
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<u32>> = Default::default();
    for d in (0..devices).filter(|&d| member[d]) {
        let r = root(&mut parent, d);
        groups.entry(r).or_default().push(d as u32);
    }
    groups.into_values().collect()
}

/// One chip's clock and where its time went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct ChipClock {
    clock: f64,
    compute: f64,
    collective: f64,
    wait: f64,
}

impl ChipClock {
    fn minus(self, o: ChipClock) -> ChipClock {
        ChipClock {
            clock: self.clock - o.clock,
            compute: self.compute - o.compute,
            collective: self.collective - o.collective,
            wait: self.wait - o.wait,
        }
    }

    fn plus_times(self, d: ChipClock, n: f64) -> ChipClock {
        ChipClock {
            clock: self.clock + d.clock * n,
            compute: self.compute + d.compute * n,
            collective: self.collective + d.collective * n,
            wait: self.wait + d.wait * n,
        }
    }

    /// Equal up to rounding in the last bits.
    fn same(self, o: ChipClock) -> bool {
        let eq = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-30);
        eq(self.clock, o.clock)
            && eq(self.compute, o.compute)
            && eq(self.collective, o.collective)
            && eq(self.wait, o.wait)
    }
}

fn run(plan: &[Planned], prepared: &[Prepared], clocks: &mut [ChipClock]) {
    for step in plan {
        match step {
            Planned::Compute(t) => {
                for c in clocks.iter_mut() {
                    c.clock += t;
                    c.compute += t;
                }
            }
            Planned::Collective(i) => {
                let p = &prepared[*i];
                let took = p.run.cost.time_s;
                for group in &p.sync {
                    let start = group
                        .iter()
                        .map(|&d| clocks[d as usize].clock)
                        .fold(f64::NEG_INFINITY, f64::max);
                    for &d in group {
                        let c = &mut clocks[d as usize];
                        c.wait += start - c.clock;
                        c.collective += took;
                        c.clock = start + took;
                    }
                }
            }
            Planned::Loop { trips, body } => {
                let mut last: Option<Vec<ChipClock>> = None;
                for i in 0..*trips {
                    let before = clocks.to_vec();
                    run(body, prepared, clocks);
                    let delta: Vec<ChipClock> = clocks
                        .iter()
                        .zip(&before)
                        .map(|(a, b)| a.minus(*b))
                        .collect();
                    let steady = last
                        .as_ref()
                        .is_some_and(|l| l.iter().zip(&delta).all(|(a, b)| a.same(*b)));
                    if steady {
                        let rest = (*trips - i - 1) as f64;
                        for (c, d) in clocks.iter_mut().zip(&delta) {
                            *c = c.plus_times(*d, rest);
                        }
                        break;
                    }
                    last = Some(delta);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_pairs_sync_in_connected_sets() {
        let pairs: BTreeSet<(u32, u32)> = [(0, 1), (1, 2), (4, 5)].into_iter().collect();
        assert_eq!(connected(&pairs, 6), vec![vec![0, 1, 2], vec![4, 5]]);
    }
}
