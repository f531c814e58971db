//! Text renderings for people: the per-kernel table and summary of a simulation, and the chip
//! registry as a table. (JSON comes straight from the types' `Serialize`.)

use crate::chips::{ChipSpec, Figure};
use crate::cost::KernelCost;
use crate::error::human_bytes;
use crate::simulate::SimReport;
use crate::spmd::SpmdReport;
use std::fmt::Write;

/// Seconds with a readable unit (`12.3 us`).
pub fn human_time(s: f64) -> String {
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "us")
    } else {
        (s * 1e9, "ns")
    };
    format!("{v:.3} {unit}")
}

/// A count in engineering form (`4.40e12`).
pub fn sci(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.3e}")
    }
}

/// Time per kernel kind, largest first: (kind, kernels, seconds).
pub fn time_by_kind(r: &SimReport) -> Vec<(String, f64, f64)> {
    kinds(&r.ops)
}

fn kinds(ops: &[KernelCost]) -> Vec<(String, f64, f64)> {
    let mut by: Vec<(String, f64, f64)> = vec![];
    for k in ops {
        match by.iter_mut().find(|(kind, _, _)| *kind == k.kind) {
            Some(e) => {
                e.1 += k.count;
                e.2 += k.time_s;
            }
            None => by.push((k.kind.clone(), k.count, k.time_s)),
        }
    }
    by.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    by
}

/// The per-kernel table (all kernels in program order, or with `top` the `top` slowest, slowest
/// first), then time per kernel kind and the summary lines.
pub fn render_simulation(r: &SimReport, top: Option<usize>) -> String {
    let mut out = kernel_table(&r.ops, r.time_s, top);
    let _ = writeln!(out, "chip: {}  entry: @{}", r.chip, r.entry);
    let _ = writeln!(out, "step time: {}", human_time(r.time_s));
    write_chip_summary(&mut out, "", &ChipSummary::of_simulation(r));
    out
}

/// The kernel rows and the time per kernel kind (shares of `total_s`).
fn kernel_table(ops: &[KernelCost], total_s: f64, top: Option<usize>) -> String {
    let mut out = String::new();
    let mut rows: Vec<&KernelCost> = ops.iter().collect();
    if let Some(n) = top {
        rows.sort_by(|a, b| b.time_s.total_cmp(&a.time_s));
        rows.truncate(n);
    }
    let name_w = rows
        .iter()
        .map(|k| k.name.len())
        .max()
        .unwrap_or(2)
        .clamp(2, 40);
    let kind_w = rows
        .iter()
        .map(|k| k.kind.len())
        .max()
        .unwrap_or(4)
        .clamp(4, 32);
    let _ = writeln!(
        out,
        "{:<name_w$}  {:<kind_w$}  {:>10}  {:>10}  {:>12}  {:<8}  {:>5}",
        "op", "kind", "FLOPs", "bytes", "time", "bound", "MXU%"
    );
    for k in &rows {
        let util = k
            .mxu_utilization
            .map_or("-".to_string(), |u| format!("{:.1}", u * 100.0));
        let name: String = k.name.chars().take(name_w).collect();
        let _ = writeln!(
            out,
            "{name:<name_w$}  {:<kind_w$}  {:>10}  {:>10}  {:>12}  {:<8}  {:>5}",
            k.kind,
            sci(k.flops),
            sci(k.bytes),
            human_time(k.time_s),
            k.bound.as_str(),
            util
        );
    }
    if top.is_some_and(|n| n < ops.len()) {
        let _ = writeln!(out, "({} of {} kernels shown)", rows.len(), ops.len());
    }
    for (kind, count, time) in kinds(ops) {
        let share = if total_s > 0.0 {
            time / total_s * 100.0
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "time in {kind}: {} ({share:.1}%, {count} runs)",
            human_time(time)
        );
    }
    out
}

/// An SPMD simulation: one chip's kernels (as [`render_simulation`]), then one row per
/// collective op, the chips' clocks (chips with the same times share a row), and the summary.
pub fn render_spmd(r: &SpmdReport, top: Option<usize>) -> String {
    let mut out = kernel_table(&r.ops, r.compute_s, top);
    if !r.collectives.is_empty() {
        let name_w = r
            .collectives
            .iter()
            .map(|c| c.name.len())
            .max()
            .unwrap_or(10)
            .clamp(10, 40);
        let _ = writeln!(
            out,
            "{:<name_w$}  {:<20}  {:>5}  {:>9}  {:>10}  {:>4}  {:>12}  {:<9}  {:>12}",
            "collective", "kind", "runs", "groups", "bytes (V)", "hops", "time", "bound", "total"
        );
        for c in &r.collectives {
            let name: String = c.name.chars().take(name_w).collect();
            let _ = writeln!(
                out,
                "{name:<name_w$}  {:<20}  {:>5}  {:>9}  {:>10}  {:>4}  {:>12}  {:<9}  {:>12}",
                c.cost.kind.name(),
                c.count,
                format!("{}x{}", c.cost.groups, c.cost.group_size),
                sci(c.cost.bytes),
                c.cost.hops,
                human_time(c.cost.time_s),
                match c.cost.bound {
                    crate::collective_cost::CommBound::Bandwidth => "bandwidth",
                    crate::collective_cost::CommBound::Latency => "latency",
                },
                human_time(c.total_time_s),
            );
        }
    }
    let _ = writeln!(
        out,
        "{:<24}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}",
        "chips", "compute", "collectives", "wait", "idle", "end"
    );
    let mut rows: Vec<(Vec<u32>, [f64; 5])> = vec![];
    for c in &r.chips {
        let key = [c.compute_s, c.collective_s, c.wait_s, c.idle_s, c.time_s];
        match rows.iter_mut().find(|(_, k)| *k == key) {
            Some((ds, _)) => ds.push(c.device),
            None => rows.push((vec![c.device], key)),
        }
    }
    for (devices, [compute, collective, wait, idle, end]) in &rows {
        let _ = writeln!(
            out,
            "{:<24}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}",
            ranges(devices),
            human_time(*compute),
            human_time(*collective),
            human_time(*wait),
            human_time(*idle),
            human_time(*end)
        );
    }
    let _ = writeln!(
        out,
        "slice: {} ({} chips: {} replica(s) x {} partition(s))  entry: @{}",
        r.slice, r.num_chips, r.num_replicas, r.num_partitions, r.entry
    );
    let _ = writeln!(
        out,
        "step time: {} (slowest chip, device {}: {} compute + {} collectives + {} wait)",
        human_time(r.time_s),
        r.slowest_chip,
        human_time(r.compute_s),
        human_time(r.collective_s),
        human_time(r.wait_s)
    );
    let _ = writeln!(
        out,
        "model FLOPs (all {} chips): {}  MFU (model FLOPs / (chips × peak × step)): {:.1}%  \
         HFU (FLOPs each chip executes / (peak × step)): {:.1}%",
        r.num_chips,
        sci(r.model_flops),
        r.mfu * 100.0,
        r.hfu * 100.0
    );
    write_chip_summary(&mut out, " per chip", &ChipSummary::of_spmd(r));
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The figures of one chip's step that both reports end with.
struct ChipSummary<'r> {
    flops: f64,
    achieved_flops_per_s: f64,
    mfu: f64,
    hbm_bytes: f64,
    peak_hbm_bytes: u64,
    hbm_capacity_bytes: Option<u64>,
    assumptions: &'r [String],
}

impl<'r> ChipSummary<'r> {
    fn of_simulation(r: &'r SimReport) -> Self {
        ChipSummary {
            flops: r.flops,
            achieved_flops_per_s: r.achieved_flops_per_s,
            mfu: r.mfu,
            hbm_bytes: r.hbm_bytes,
            peak_hbm_bytes: r.peak_hbm_bytes,
            hbm_capacity_bytes: r.hbm_capacity_bytes,
            assumptions: &r.assumptions,
        }
    }

    fn of_spmd(r: &'r SpmdReport) -> Self {
        ChipSummary {
            flops: r.flops,
            achieved_flops_per_s: r.achieved_flops_per_s,
            mfu: r.mfu,
            hbm_bytes: r.hbm_bytes,
            peak_hbm_bytes: r.peak_hbm_bytes,
            hbm_capacity_bytes: r.hbm_capacity_bytes,
            assumptions: &r.assumptions,
        }
    }
}

/// FLOPs and MFU, HBM traffic, peak HBM against capacity, and the assumptions; `per` qualifies
/// the figures (`" per chip"` on a slice).
fn write_chip_summary(out: &mut String, per: &str, c: &ChipSummary) {
    let _ = writeln!(
        out,
        "FLOPs{per}: {}  achieved: {} FLOP/s  MFU: {:.1}%",
        sci(c.flops),
        sci(c.achieved_flops_per_s),
        c.mfu * 100.0
    );
    let _ = writeln!(out, "HBM traffic{per}: {}", human_bytes(c.hbm_bytes));
    let cap = c
        .hbm_capacity_bytes
        .map_or("unknown".to_string(), |b| human_bytes(b as f64));
    let _ = writeln!(
        out,
        "peak HBM{per}: {} of {}",
        human_bytes(c.peak_hbm_bytes as f64),
        cap
    );
    for a in c.assumptions {
        let _ = writeln!(out, "assumed: {a}");
    }
}

/// Device ids as ranges: `0-3, 8, 10-11`.
fn ranges(ids: &[u32]) -> String {
    let mut parts: Vec<String> = vec![];
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

fn fig_f64(f: &Figure<f64>, fmt: impl Fn(f64) -> String) -> String {
    f.value.map_or("?".into(), fmt)
}

fn fig_u32(f: &Figure<u32>) -> String {
    f.value.map_or("?".into(), |v| v.to_string())
}

/// The registry as a table, one chip per row; `?` marks an unpublished figure.
pub fn render_chips(chips: &[ChipSpec]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<6} {:>5} {:>9} {:>10} {:>10} {:>10} {:>10} {:>11} {:>10} {:>9} {:>10}",
        "chip",
        "cores",
        "MXUs",
        "bf16",
        "int8",
        "fp8",
        "HBM",
        "HBM B/s",
        "VMEM/core",
        "ICI",
        "ICI B/s"
    );
    for c in chips {
        let mxus = format!(
            "{}x{}",
            fig_u32(&c.mxus_per_core),
            c.mxu_dim.value.map_or("?".into(), |d| format!("{d}^2"))
        );
        let links = match (c.ici_links.value, c.topology.value) {
            (Some(l), Some(t)) => format!("{l} ({}D)", t.dims),
            (Some(l), None) => l.to_string(),
            _ => "?".into(),
        };
        let _ = writeln!(
            out,
            "{:<6} {:>5} {:>9} {:>10} {:>10} {:>10} {:>10} {:>11} {:>10} {:>9} {:>10}",
            c.name,
            fig_u32(&c.tensor_cores),
            mxus,
            fig_f64(&c.peak_bf16_flops, sci),
            fig_f64(&c.peak_int8_ops, sci),
            fig_f64(&c.peak_fp8_flops, sci),
            fig_f64(&c.hbm_bytes, human_bytes),
            fig_f64(&c.hbm_bandwidth, sci),
            fig_f64(&c.vmem_bytes_per_core, human_bytes),
            links,
            fig_f64(&c.ici_link_bandwidth, sci),
        );
    }
    let _ = writeln!(
        out,
        "Per chip; ICI B/s is one way per link; ? = not published. Sources and notes: systolic chips --json"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(human_time(0.0223), "22.300 ms");
        assert_eq!(human_time(5e-7), "500.000 ns");
        assert_eq!(sci(4.398e12), "4.398e12");
        assert_eq!(ranges(&[0, 1, 2, 3, 8, 10, 11]), "0-3, 8, 10-11");
    }
}
