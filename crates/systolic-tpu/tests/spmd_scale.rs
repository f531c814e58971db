//! A per-device program on a whole v5p pod (16x20x28 = 8960 chips): collectives over mesh
//! axes and a ring of permutes inside an 80-trip loop, costed on every chip. Every chip runs
//! the same kernels, so the per-device program is costed once; the collectives' groups decide
//! their times. (The wall time at this size is a benchmark, printed, not asserted.)

use std::fmt::Write;
use std::time::Instant;
use systolic_ir::text::parse_module;
use systolic_tpu::collective_cost::{collective_cost, CollectiveKind};
use systolic_tpu::slice::Slice;
use systolic_tpu::spmd::simulate_spmd;
use systolic_tpu::SimOptions;

const CHIPS: u32 = 16 * 20 * 28;
const MODEL: u32 = 4;

/// `dense<[[…], …]>` of `groups`.
fn groups_attr(groups: &[Vec<u32>]) -> String {
    let mut s = String::from("dense<[");
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push('[');
        for (j, d) in g.iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{d}");
        }
        s.push(']');
    }
    let _ = write!(s, "]> : tensor<{}x{}xi64>", groups.len(), groups[0].len());
    s
}

/// Model groups: 4 consecutive devices; data groups: devices equal modulo 4.
fn model_groups() -> Vec<Vec<u32>> {
    (0..CHIPS / MODEL)
        .map(|g| (g * MODEL..(g + 1) * MODEL).collect())
        .collect()
}

fn data_groups() -> Vec<Vec<u32>> {
    (0..MODEL)
        .map(|m| (0..CHIPS / MODEL).map(|k| k * MODEL + m).collect())
        .collect()
}

fn program() -> String {
    let ring: Vec<String> = (0..CHIPS)
        .map(|d| format!("[{d}, {}]", (d + 1) % CHIPS))
        .collect();
    format!(
        r#"module attributes {{mhlo.num_partitions = {CHIPS} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%x: tensor<1024x8192xbf16>, %w: tensor<2048x8192xbf16>) -> tensor<1024x8192xbf16> {{
    %c = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c, %acc = %x) : tensor<i32>, tensor<1024x8192xbf16>
    cond {{
      %n = stablehlo.constant dense<80> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %g = "stablehlo.all_gather"(%w) {{all_gather_dim = 0 : i64, replica_groups = {model}, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<2048x8192xbf16>) -> tensor<8192x8192xbf16>
      %y = stablehlo.dot_general %acc, %g, contracting_dims = [1] x [0] : (tensor<1024x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<1024x8192xbf16>
      %s = "stablehlo.all_reduce"(%y) ({{
      ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
        %t = stablehlo.add %a, %b : tensor<bf16>
        stablehlo.return %t : tensor<bf16>
      }}) {{replica_groups = {data}, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids}} : (tensor<1024x8192xbf16>) -> tensor<1024x8192xbf16>
      %q = "stablehlo.collective_permute"(%s) {{source_target_pairs = dense<[{ring}]> : tensor<{CHIPS}x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}} : (tensor<1024x8192xbf16>) -> tensor<1024x8192xbf16>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %q : tensor<i32>, tensor<1024x8192xbf16>
    }}
    return %r#1 : tensor<1024x8192xbf16>
  }}
}}"#,
        model = groups_attr(&model_groups()),
        data = groups_attr(&data_groups()),
        ring = ring.join(", "),
    )
}

#[test]
fn a_whole_v5p_pod_is_costed_once_per_program_with_its_collectives_per_group() {
    let src = program();
    let m = parse_module(&src, "pod.mlir").unwrap();
    let slice = Slice::parse("v5p:16x20x28").unwrap();
    let start = Instant::now();
    let r = simulate_spmd(&m, &slice, &SimOptions::default()).unwrap();
    eprintln!(
        "simulate_spmd on {CHIPS} chips: {:.3} s",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(r.num_chips, CHIPS);
    assert_eq!(r.chips.len(), CHIPS as usize);
    let kinds: Vec<&str> = r.collectives.iter().map(|c| c.cost.kind.name()).collect();
    assert_eq!(kinds, ["all_gather", "all_reduce", "collective_permute"]);
    let gather = collective_cost(
        &slice,
        CollectiveKind::AllGather,
        &model_groups(),
        8192.0 * 8192.0 * 2.0,
    )
    .unwrap();
    let reduce = collective_cost(
        &slice,
        CollectiveKind::AllReduce,
        &data_groups(),
        1024.0 * 8192.0 * 2.0,
    )
    .unwrap();
    assert_eq!(r.collectives[0].cost, gather);
    assert_eq!(r.collectives[1].cost, reduce);
    assert_eq!(r.collectives[2].cost.groups, CHIPS as usize);
    for c in &r.collectives {
        assert_eq!(c.count, 80.0);
    }
    // Every chip is in every collective: no waits, the same clock everywhere.
    let per_trip: f64 = r.collectives.iter().map(|c| c.cost.time_s).sum();
    let want = r.compute_s + 80.0 * per_trip;
    assert!(
        (r.time_s - want).abs() <= 1e-9 * want,
        "{} vs {want}",
        r.time_s
    );
    assert!(r
        .chips
        .iter()
        .all(|c| c.time_s == r.time_s && c.wait_s == 0.0));
}
