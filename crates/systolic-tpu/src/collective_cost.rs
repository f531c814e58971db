//! The time of one StableHLO collective on a [`Slice`], from the device groups it runs over.
//!
//! The formulas are the scaling book's (chapter *Sharded Matrices and How to Multiply Them*,
//! the same as [`crate::interconnect`]); what this module adds is working out, from the
//! flattened device ids of the replica groups, which physical torus axes each group spans,
//! whether they form rings, how many groups share a link, and which part crosses DCN.
//! `docs/TPU_MODEL.md` ("Slices and collectives") states every formula and assumption; in
//! short, with `w` the one-way bandwidth of one ICI link and `T` the hop latency:
//!
//! - **Groups that are sub-tori** (the product of one set of coordinates per axis, as a mesh
//!   axis or several mesh axes give): on each axis the group's members form a *closed ring*
//!   (only on a wrapping axis: edges go forward and the last member reaches the first over the
//!   wraparound, bandwidth `2w / c`, `⌊n/2⌋` steps) or a *line* (bandwidth `w / c`, `n − 1`
//!   steps), whichever is faster; `c` is the most ring edges of all groups that share one link
//!   (1 when each group has its own rows), and a step costs the longest edge's hops × `T`.
//!   An all-gather or reduce-scatter of `V` bytes over `n` members takes
//!   `max(V·(n−1)/n / Σ_axes W_axis, T · Σ_axes steps·hops)` — the book's
//!   `max(T_min·Σ|X_i|/2, V / (W_ici·n_axes))`, keeping the exact `(n−1)/n`.
//! - **Other groups** (arbitrary device sets): a line through the members in device order on
//!   one link one way (`w`), shared by as many groups as have a bounding box over one chip,
//!   `n − 1` steps each costing the worst neighbour pair's torus distance. Conservative.
//! - all-reduce = reduce-scatter + all-gather (2x); all-to-all = a quarter of the all-gather's
//!   bandwidth term, the same latency; collective_broadcast = an all-gather of the root's data.
//! - **Groups spanning slices** are hierarchical: the ICI part within each slice as above (on
//!   `k` members per slice), then the cross-slice part over DCN at the per-chip DCN bandwidth:
//!   `V·(S−1)/(S·k)` bytes per chip for an all-gather or reduce-scatter, twice that for an
//!   all-reduce, `(V/n)·(S−1)/S` for an all-to-all. DCN latency is not modelled.
//! - **collective_permute**: every pair at once; a pair's bytes split evenly over the axes it
//!   must cross (the book's "half right, half down"), each part routed dimension-ordered from
//!   its own first axis the shorter way round; the time is the most-loaded directed link's
//!   bytes / `w`, or the farthest pair's hops × `T` if larger. Pairs across slices go over DCN.

use crate::chips::ChipSpec;
use crate::error::TpuError;
use crate::slice::{Slice, SliceError};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A StableHLO collective op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveKind {
    /// `stablehlo.all_reduce`: `V` = the array's bytes (per device, before and after).
    AllReduce,
    /// `stablehlo.all_gather`: `V` = the gathered array's bytes (the result per device).
    AllGather,
    /// `stablehlo.reduce_scatter`: `V` = the unreduced array's bytes (the operand per device).
    ReduceScatter,
    /// `stablehlo.all_to_all`: `V` = the whole array, `n` × the operand per device.
    AllToAll,
    /// `stablehlo.collective_permute`: `V` = the bytes each source sends.
    CollectivePermute,
    /// `stablehlo.collective_broadcast`: `V` = the root's bytes.
    CollectiveBroadcast,
    /// `stablehlo.collective_reduce`: `V` = the bytes each member contributes. Costed as a
    /// broadcast in reverse: a pipelined reduction towards the root carries the array over
    /// each link once.
    CollectiveReduce,
}

impl CollectiveKind {
    /// Every kind.
    pub const ALL: [CollectiveKind; 7] = [
        CollectiveKind::AllReduce,
        CollectiveKind::AllGather,
        CollectiveKind::ReduceScatter,
        CollectiveKind::AllToAll,
        CollectiveKind::CollectivePermute,
        CollectiveKind::CollectiveBroadcast,
        CollectiveKind::CollectiveReduce,
    ];

    /// The op's name without the dialect (`all_reduce`).
    pub fn name(self) -> &'static str {
        match self {
            CollectiveKind::AllReduce => "all_reduce",
            CollectiveKind::AllGather => "all_gather",
            CollectiveKind::ReduceScatter => "reduce_scatter",
            CollectiveKind::AllToAll => "all_to_all",
            CollectiveKind::CollectivePermute => "collective_permute",
            CollectiveKind::CollectiveBroadcast => "collective_broadcast",
            CollectiveKind::CollectiveReduce => "collective_reduce",
        }
    }

    /// The kind of `stablehlo.NAME` or `NAME`.
    pub fn from_name(name: &str) -> Option<CollectiveKind> {
        let bare = name.strip_prefix("stablehlo.").unwrap_or(name);
        CollectiveKind::ALL.into_iter().find(|k| k.name() == bare)
    }

    /// The book's `V` from the bytes of the op's operand on one device and the group size
    /// (see each variant for the convention).
    pub fn book_bytes(self, operand_bytes_per_device: f64, group_size: u32) -> f64 {
        match self {
            CollectiveKind::AllGather | CollectiveKind::AllToAll => {
                operand_bytes_per_device * group_size.max(1) as f64
            }
            _ => operand_bytes_per_device,
        }
    }
}

/// What limits a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommBound {
    /// Bytes over link bandwidth dominate.
    Bandwidth,
    /// Hop latency dominates (small arrays).
    Latency,
}

/// How the groups were modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupShape {
    /// Every group is a single device: nothing moves.
    Trivial,
    /// Every group's part in each slice is a sub-torus (rings or lines per axis).
    SubTorus,
    /// Some group is an arbitrary device set (the conservative line model).
    Arbitrary,
    /// collective_permute's source-target pairs.
    Pairs,
}

/// One torus axis a collective uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AxisUse {
    /// The axis (0 = the first size of the slice's shape).
    pub axis: usize,
    /// Group members along the axis (for a permute: the axis size).
    pub members: u32,
    /// True if the members form a closed ring over the wraparound (bidirectional bandwidth).
    pub ring: bool,
    /// Most ring edges (or permute pairs) sharing one link on this axis.
    pub congestion: u32,
    /// Hops of the longest edge between neighbouring members.
    pub hops_per_step: u32,
    /// Bytes/s the axis contributes (`2w/c` for a ring, `w/c` for a line).
    pub bandwidth: f64,
}

/// The modelled cost of one collective.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveCost {
    /// The op.
    pub kind: CollectiveKind,
    /// Number of groups (or permute pairs).
    pub groups: usize,
    /// Devices in the largest group (2 for a permute).
    pub group_size: u32,
    /// The book's `V` the cost was computed for.
    pub bytes: f64,
    /// ICI hops on the latency path (summed over the steps of the collective).
    pub hops: u32,
    /// Modelled time in seconds.
    pub time_s: f64,
    /// Bandwidth part: bytes over links (ICI and DCN).
    pub bandwidth_s: f64,
    /// Latency part: hops × hop latency.
    pub latency_s: f64,
    /// Of the bandwidth part, the DCN transfer between slices.
    pub dcn_s: f64,
    /// Whether bandwidth or latency dominates.
    pub bound: CommBound,
    /// How the groups were modelled.
    pub shape: GroupShape,
    /// The ICI axes used.
    pub axes: Vec<AxisUse>,
    /// Slices one group spans (1 = ICI only).
    pub slices_spanned: u32,
}

struct Links {
    w: f64,
    hop: f64,
}

fn ici_figures(chip: &ChipSpec) -> Result<Links, TpuError> {
    let missing = |figure| TpuError::MissingFigure {
        chip: chip.name,
        figure,
        needed_for: "collectives",
    };
    Ok(Links {
        w: chip
            .ici_link_bandwidth
            .value
            .ok_or_else(|| missing("ICI link bandwidth"))?,
        hop: chip
            .ici_hop_latency_s
            .value
            .ok_or_else(|| missing("ICI hop latency"))?,
    })
}

fn dcn_bandwidth(chip: &ChipSpec) -> Result<f64, TpuError> {
    chip.dcn_bandwidth.value.ok_or(TpuError::MissingFigure {
        chip: chip.name,
        figure: "DCN bandwidth",
        needed_for: "collectives across slices",
    })
}

/// The cost of `kind` over `groups` (flattened device ids; an empty list is one group of every
/// device, as StableHLO's empty `replica_groups`) for `bytes` = the book's `V` (see
/// [`CollectiveKind`]). For a collective_permute each group is a `[source, target]` pair.
pub fn collective_cost(
    slice: &Slice,
    kind: CollectiveKind,
    groups: &[Vec<u32>],
    bytes: f64,
) -> Result<CollectiveCost, SliceError> {
    if kind == CollectiveKind::CollectivePermute {
        let mut pairs = Vec::with_capacity(groups.len());
        for g in groups {
            match g.as_slice() {
                &[a, b] => pairs.push((a, b)),
                other => {
                    return Err(bad_groups(
                        slice,
                        format!("a collective_permute pair has two devices, not {other:?}"),
                    ))
                }
            }
        }
        return permute_cost(slice, &pairs, bytes);
    }
    let all: Vec<Vec<u32>>;
    let groups = if groups.is_empty() {
        all = vec![(0..slice.total_chips()).collect()];
        &all[..]
    } else {
        groups
    };
    check_groups(slice, groups)?;
    let group_size = groups.iter().map(|g| g.len() as u32).max().unwrap_or(0);
    if group_size <= 1 {
        return Ok(zero(
            kind,
            groups.len(),
            group_size,
            bytes,
            GroupShape::Trivial,
        ));
    }
    let links = ici_figures(slice.chip())?;

    // Split each group by slice: the ICI part is every group's part in each slice.
    let mut parts: Vec<(u32, Vec<Vec<u32>>)> = Vec::new(); // (slice, coords of members)
    let mut spanned = 1u32;
    // Members per slice: the largest part sets the ICI rings, the smallest the DCN share
    // (fewer members per slice put more bytes on each chip's DCN link: conservative).
    let mut k_dcn = u32::MAX;
    let mut k_ici = 1u32;
    for g in groups {
        let mut by_slice: BTreeMap<u32, Vec<Vec<u32>>> = BTreeMap::new();
        for &d in g {
            let c = slice.coords(d).expect("checked");
            by_slice.entry(c.slice).or_default().push(c.coords);
        }
        spanned = spanned.max(by_slice.len() as u32);
        for (s, members) in by_slice {
            k_dcn = k_dcn.min(members.len() as u32);
            k_ici = k_ici.max(members.len() as u32);
            parts.push((s, members));
        }
    }
    let k_dcn = k_dcn.max(1);
    let n = group_size as f64;
    let s = spanned as f64;

    // The bytes the ICI phase moves through its ring formula.
    let v_ici = match kind {
        CollectiveKind::AllToAll => bytes / s,
        _ => bytes,
    };
    let (shape, options) = if k_ici <= 1 {
        (GroupShape::SubTorus, Vec::new())
    } else if parts.iter().all(|(_, m)| is_product(m)) {
        (GroupShape::SubTorus, sub_torus_axes(slice, &parts, &links))
    } else {
        (
            GroupShape::Arbitrary,
            vec![arbitrary_axis(slice, &parts, &links)],
        )
    };

    // Pick, per axis, the ring or the line: the combination with the least ICI time.
    let mut best: Option<(f64, f64, u32, Vec<AxisUse>)> = None;
    let combos = 1usize << options.len();
    for mask in 0..combos {
        let mut chosen = Vec::new();
        let mut ok = true;
        for (i, (ring, line)) in options.iter().enumerate() {
            let pick = if mask & (1 << i) != 0 {
                ring.clone()
            } else {
                Some(line.clone())
            };
            match pick {
                Some((u, steps)) => chosen.push((u, steps)),
                None => ok = false,
            }
        }
        if !ok {
            continue;
        }
        let w_total: f64 = chosen.iter().map(|(u, _)| u.bandwidth).sum();
        let hops: u32 = chosen.iter().map(|(u, st)| st * u.hops_per_step).sum();
        let bw = if k_ici > 1 {
            let k = k_ici as f64;
            v_ici * (k - 1.0) / k / w_total
        } else {
            0.0
        };
        let lat = hops as f64 * links.hop;
        if best
            .as_ref()
            .is_none_or(|(b, l, _, _)| bw.max(lat) < b.max(*l))
        {
            best = Some((bw, lat, hops, chosen.into_iter().map(|(u, _)| u).collect()));
        }
    }
    let (mut bw, mut lat, mut hops, mut axes) = best.unwrap_or((0.0, 0.0, 0, Vec::new()));
    if shape == GroupShape::Arbitrary {
        axes = spanned_axes(slice, &parts, &axes[0]);
    }

    // Kind factors on the ICI phase.
    match kind {
        CollectiveKind::AllReduce => {
            bw *= 2.0;
            lat *= 2.0;
            hops *= 2;
        }
        CollectiveKind::AllToAll => bw /= 4.0,
        _ => {}
    }
    let ici = bw.max(lat);

    // The DCN phase between slices.
    let dcn_s = if spanned > 1 {
        let per_chip = match kind {
            CollectiveKind::AllReduce => 2.0 * bytes * (s - 1.0) / (s * k_dcn as f64),
            CollectiveKind::AllToAll => bytes / n * (s - 1.0) / s,
            _ => bytes * (s - 1.0) / (s * k_dcn as f64),
        };
        per_chip / dcn_bandwidth(slice.chip())?
    } else {
        0.0
    };
    let bandwidth_s = bw + dcn_s;
    Ok(CollectiveCost {
        kind,
        groups: groups.len(),
        group_size,
        bytes,
        hops,
        time_s: ici + dcn_s,
        bandwidth_s,
        latency_s: lat,
        dcn_s,
        bound: if lat > bandwidth_s {
            CommBound::Latency
        } else {
            CommBound::Bandwidth
        },
        shape,
        axes,
        slices_spanned: spanned,
    })
}

/// A directed ICI link: the slice, the chip it leaves, the axis, and forward (+1) or back.
type DirectedLink = (u32, Vec<u32>, usize, bool);

/// The cost of a collective_permute: each `(source, target)` pair sends `bytes`, all at once.
pub fn permute_cost(
    slice: &Slice,
    pairs: &[(u32, u32)],
    bytes: f64,
) -> Result<CollectiveCost, SliceError> {
    let kind = CollectiveKind::CollectivePermute;
    let total = slice.total_chips();
    let (mut sources, mut targets) = (BTreeSet::new(), BTreeSet::new());
    for &(a, b) in pairs {
        if a >= total || b >= total {
            return Err(bad_groups(
                slice,
                format!(
                    "pair ({a}, {b}) names a device past the last ({})",
                    total - 1
                ),
            ));
        }
        if !sources.insert(a) {
            return Err(bad_groups(slice, format!("device {a} is a source twice")));
        }
        if !targets.insert(b) {
            return Err(bad_groups(slice, format!("device {b} is a target twice")));
        }
    }
    let moving: Vec<(u32, u32)> = pairs.iter().copied().filter(|(a, b)| a != b).collect();
    if moving.is_empty() || bytes <= 0.0 {
        let mut z = zero(kind, pairs.len(), 2, bytes, GroupShape::Pairs);
        z.group_size = if pairs.is_empty() { 0 } else { 2 };
        return Ok(z);
    }
    let links = ici_figures(slice.chip())?;
    let dims = slice.shape().len();
    // Bytes on each directed link: (slice, chip coords, axis, forward?).
    let mut load: HashMap<DirectedLink, (f64, u32)> = HashMap::new();
    let mut max_hops = 0u32;
    let mut dcn_s = 0.0f64;
    for &(a, b) in &moving {
        let (ca, cb) = (slice.coords(a).unwrap(), slice.coords(b).unwrap());
        if ca.slice != cb.slice {
            dcn_s = dcn_s.max(bytes / dcn_bandwidth(slice.chip())?);
            continue;
        }
        // Per differing axis: direction (shorter way round) and hop count.
        let moves: Vec<(usize, bool, u32)> = (0..dims)
            .filter(|&ax| ca.coords[ax] != cb.coords[ax])
            .map(|ax| {
                let size = slice.shape()[ax];
                let (from, to) = (ca.coords[ax], cb.coords[ax]);
                let fwd = (to + size - from) % size;
                let forward = if slice.wraps(ax) {
                    fwd <= size - fwd
                } else {
                    to > from
                };
                (ax, forward, slice.axis_distance(ax, from, to))
            })
            .collect();
        max_hops = max_hops.max(moves.iter().map(|m| m.2).sum());
        let part = bytes / moves.len() as f64;
        for start in 0..moves.len() {
            let mut at = ca.coords.clone();
            for j in 0..moves.len() {
                let (ax, forward, steps) = moves[(start + j) % moves.len()];
                let size = slice.shape()[ax];
                for _ in 0..steps {
                    let e = load
                        .entry((ca.slice, at.clone(), ax, forward))
                        .or_insert((0.0, 0));
                    e.0 += part;
                    e.1 += 1;
                    at[ax] = if forward {
                        (at[ax] + 1) % size
                    } else {
                        (at[ax] + size - 1) % size
                    };
                }
            }
        }
    }
    let max_load = load.values().map(|l| l.0).fold(0.0, f64::max);
    let bw_ici = max_load / links.w;
    let lat = max_hops as f64 * links.hop;
    let mut axes: Vec<AxisUse> = Vec::new();
    for ax in 0..dims {
        let on_axis: Vec<&(f64, u32)> = load
            .iter()
            .filter(|(key, _)| key.2 == ax)
            .map(|(_, v)| v)
            .collect();
        if on_axis.is_empty() {
            continue;
        }
        axes.push(AxisUse {
            axis: ax,
            members: slice.shape()[ax],
            ring: slice.wraps(ax),
            congestion: on_axis.iter().map(|l| l.1).max().unwrap_or(0),
            hops_per_step: 1,
            bandwidth: links.w,
        });
    }
    let ici = bw_ici.max(lat);
    let bandwidth_s = bw_ici.max(dcn_s);
    Ok(CollectiveCost {
        kind,
        groups: pairs.len(),
        group_size: 2,
        bytes,
        hops: max_hops,
        time_s: ici.max(dcn_s),
        bandwidth_s,
        latency_s: lat,
        dcn_s,
        bound: if lat > bandwidth_s {
            CommBound::Latency
        } else {
            CommBound::Bandwidth
        },
        shape: GroupShape::Pairs,
        axes,
        slices_spanned: if dcn_s > 0.0 { 2 } else { 1 },
    })
}

fn bad_groups(slice: &Slice, why: String) -> SliceError {
    SliceError::BadGroups {
        slice: slice.to_string(),
        why,
    }
}

fn zero(
    kind: CollectiveKind,
    groups: usize,
    group_size: u32,
    bytes: f64,
    shape: GroupShape,
) -> CollectiveCost {
    CollectiveCost {
        kind,
        groups,
        group_size,
        bytes,
        hops: 0,
        time_s: 0.0,
        bandwidth_s: 0.0,
        latency_s: 0.0,
        dcn_s: 0.0,
        bound: CommBound::Bandwidth,
        shape,
        axes: Vec::new(),
        slices_spanned: 1,
    }
}

fn check_groups(slice: &Slice, groups: &[Vec<u32>]) -> Result<(), SliceError> {
    let total = slice.total_chips();
    let mut seen = BTreeSet::new();
    for (i, g) in groups.iter().enumerate() {
        if g.is_empty() {
            return Err(bad_groups(slice, format!("group {i} is empty")));
        }
        for &d in g {
            if d >= total {
                return Err(bad_groups(
                    slice,
                    format!(
                        "group {i} names device {d}, past the last ({}; {total} chips)",
                        total - 1
                    ),
                ));
            }
            if !seen.insert(d) {
                return Err(bad_groups(
                    slice,
                    format!("device {d} is in more than one place (group {i})"),
                ));
            }
        }
    }
    Ok(())
}

/// Distinct values of each axis among `members`.
fn axis_values(members: &[Vec<u32>], dims: usize) -> Vec<Vec<u32>> {
    (0..dims)
        .map(|ax| {
            members
                .iter()
                .map(|c| c[ax])
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        })
        .collect()
}

/// True if the members are every combination of their per-axis values (a sub-torus).
fn is_product(members: &[Vec<u32>]) -> bool {
    let Some(first) = members.first() else {
        return true;
    };
    let combos: usize = axis_values(members, first.len())
        .iter()
        .map(Vec::len)
        .product();
    combos == members.len()
}

/// A candidate embedding of one axis: its use and the number of steps of the collective.
type Embedding = (AxisUse, u32);

/// For each axis some group spans: (closed ring if the axis wraps, line).
fn sub_torus_axes(
    slice: &Slice,
    parts: &[(u32, Vec<Vec<u32>>)],
    links: &Links,
) -> Vec<(Option<Embedding>, Embedding)> {
    let dims = slice.shape().len();
    let mut out = Vec::new();
    for ax in 0..dims {
        let size = slice.shape()[ax];
        // Per physical line (slice, the other coordinates): the value sets of the parts on it.
        let mut lines: BTreeMap<(u32, Vec<u32>), Vec<Vec<u32>>> = BTreeMap::new();
        let mut members = 1u32;
        for (s, part) in parts {
            let values = axis_values(part, dims);
            if values[ax].len() <= 1 {
                continue;
            }
            members = members.max(values[ax].len() as u32);
            let mut others: BTreeSet<Vec<u32>> = BTreeSet::new();
            for c in part {
                let mut key = c.clone();
                key.remove(ax);
                others.insert(key);
            }
            for key in others {
                lines.entry((*s, key)).or_default().push(values[ax].clone());
            }
        }
        if members <= 1 {
            continue;
        }
        // Link p joins position p and p+1 (mod size); count the edges over each.
        let embed = |closed: bool| -> Embedding {
            let mut congestion = 1u32;
            let mut longest = 1u32;
            for sets in lines.values() {
                let mut count = vec![0u32; size as usize];
                for v in sets {
                    let mut edges: Vec<(u32, u32)> = v.windows(2).map(|p| (p[0], p[1])).collect();
                    if closed {
                        edges.push((*v.last().unwrap(), v[0]));
                    }
                    for (a, b) in edges {
                        let len = (b + size - a) % size;
                        longest = longest.max(len);
                        for i in 0..len {
                            count[((a + i) % size) as usize] += 1;
                        }
                    }
                }
                congestion = congestion.max(count.iter().copied().max().unwrap_or(1));
            }
            let (bandwidth, steps) = if closed {
                (2.0 * links.w / congestion as f64, members / 2)
            } else {
                (links.w / congestion as f64, members - 1)
            };
            (
                AxisUse {
                    axis: ax,
                    members,
                    ring: closed,
                    congestion,
                    hops_per_step: longest,
                    bandwidth,
                },
                steps,
            )
        };
        let ring = slice.wraps(ax).then(|| embed(true));
        out.push((ring, embed(false)));
    }
    out
}

/// The conservative model for arbitrary device sets: one line through each part's members in
/// device order, one link one way, shared by the groups whose bounding boxes overlap.
fn arbitrary_axis(
    slice: &Slice,
    parts: &[(u32, Vec<Vec<u32>>)],
    links: &Links,
) -> (Option<Embedding>, Embedding) {
    let dims = slice.shape().len();
    let mut longest = 1u32;
    let mut members = 1u32;
    let mut cover: HashMap<(u32, Vec<u32>), u32> = HashMap::new();
    for (s, part) in parts {
        members = members.max(part.len() as u32);
        let devices: Vec<u32> = part
            .iter()
            .map(|c| slice.device_at(*s, c).unwrap())
            .collect();
        let mut sorted = devices.clone();
        sorted.sort_unstable();
        for p in sorted.windows(2) {
            longest = longest.max(slice.hops(p[0], p[1]).unwrap_or(0));
        }
        let lo: Vec<u32> = (0..dims)
            .map(|ax| part.iter().map(|c| c[ax]).min().unwrap())
            .collect();
        let hi: Vec<u32> = (0..dims)
            .map(|ax| part.iter().map(|c| c[ax]).max().unwrap())
            .collect();
        let mut at = lo.clone();
        'boxes: loop {
            *cover.entry((*s, at.clone())).or_insert(0) += 1;
            for ax in (0..dims).rev() {
                if at[ax] < hi[ax] {
                    at[ax] += 1;
                    continue 'boxes;
                }
                at[ax] = lo[ax];
            }
            break;
        }
    }
    let congestion = cover.values().copied().max().unwrap_or(1).max(1);
    (
        None,
        (
            AxisUse {
                axis: 0,
                members,
                ring: false,
                congestion,
                hops_per_step: longest,
                bandwidth: links.w / congestion as f64,
            },
            members - 1,
        ),
    )
}

/// For the arbitrary-set model: the axes the groups' bounding boxes span, each with the line's
/// figures (the model still uses one link in total, not one per axis).
fn spanned_axes(slice: &Slice, parts: &[(u32, Vec<Vec<u32>>)], line: &AxisUse) -> Vec<AxisUse> {
    let dims = slice.shape().len();
    (0..dims)
        .filter_map(|ax| {
            let extent = parts
                .iter()
                .map(|(_, p)| axis_values(p, dims)[ax].len() as u32)
                .max()
                .unwrap_or(1);
            (extent > 1).then(|| AxisUse {
                axis: ax,
                members: extent,
                ..line.clone()
            })
        })
        .collect()
}
