//! SPMD programs on a slice (`spmd.rs`): one process per chip, collectives costed by
//! `collective_cost` on the groups `systolic_ir::collective_groups` forms, clocks meeting at
//! collectives, the step time the slowest chip's.

use systolic_ir::text::parse_module;
use systolic_ir::Module;
use systolic_tpu::collective_cost::{collective_cost, CollectiveKind, CommBound};
use systolic_tpu::slice::Slice;
use systolic_tpu::spmd::{process_grid, simulate_spmd};
use systolic_tpu::{simulate, SimOptions, TpuError};

fn parse(src: &str) -> Module {
    parse_module(src, "spmd.mlir").expect("the test module parses")
}

fn slice(s: &str) -> Slice {
    Slice::parse(s).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-30)
}

const REGION: &str = "({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })";

/// Data parallelism on 8 partitions: each chip's 256 examples of x [256, 4096] and the
/// upstream gradient dy [256, 1024] give the weight gradient x^T·dy (f32 [4096, 1024], 16 MiB),
/// summed over every chip by one all_reduce.
fn data_parallel_grad() -> String {
    format!(
        r#"module @dp attributes {{mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<256x4096xbf16>, %dy: tensor<256x1024xbf16>) -> tensor<4096x1024xf32> {{
    %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<256x4096xbf16>, tensor<256x1024xbf16>) -> tensor<4096x1024xf32>
    %sum = "stablehlo.all_reduce"(%g) {REGION} {{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
    return %sum : tensor<4096x1024xf32>
  }}
}}"#
    )
}

#[test]
fn data_parallel_all_reduce_on_v5e_4x2_costs_what_collective_cost_says() {
    let m = parse(&data_parallel_grad());
    let s = slice("v5e:4x2");
    let r = simulate_spmd(&m, &s, &SimOptions::default()).unwrap();
    assert_eq!((r.num_replicas, r.num_partitions, r.num_chips), (1, 8, 8));
    assert_eq!(r.slice, "v5e:4x2");
    // One chip's compute is the single-chip simulation of the same program.
    let one = simulate(&m, s.chip(), &SimOptions::default()).unwrap();
    assert_eq!(r.compute_s, one.time_s);
    assert_eq!(r.flops, one.flops);
    assert_eq!(r.flops, 2.0 * 256.0 * 4096.0 * 1024.0);
    assert_eq!(r.peak_hbm_bytes, one.peak_hbm_bytes);
    // On one chip the all_reduce is listed, untimed; on the slice it is timed instead.
    assert!(
        one.assumptions
            .iter()
            .any(|a| a.contains("stablehlo.all_reduce is not timed on one chip")),
        "{:?}",
        one.assumptions
    );
    assert!(!r.assumptions.iter().any(|a| a.contains("all_reduce")));
    // The all_reduce: one group of every device, V = the gradient's 16 MiB.
    assert_eq!(r.collectives.len(), 1);
    let c = &r.collectives[0];
    let want = collective_cost(
        &s,
        CollectiveKind::AllReduce,
        &[(0..8).collect()],
        4096.0 * 1024.0 * 4.0,
    )
    .unwrap();
    assert_eq!(c.cost, want);
    assert_eq!((c.cost.groups, c.cost.group_size), (1, 8));
    assert_eq!(c.cost.bound, CommBound::Bandwidth);
    assert_eq!(c.count, 1.0);
    assert_eq!(c.name, "%sum");
    // Every chip computes, then all meet at the all_reduce at once: no waiting.
    assert!(close(r.time_s, r.compute_s + want.time_s), "{r:?}");
    assert_eq!((r.collective_s, r.wait_s), (want.time_s, 0.0));
    assert_eq!(r.chips.len(), 8);
    for chip in &r.chips {
        assert_eq!(chip.time_s, r.time_s);
        assert_eq!(chip.compute_s, r.compute_s);
        assert_eq!(chip.collective_s, want.time_s);
        assert_eq!((chip.wait_s, chip.idle_s), (0.0, 0.0));
    }
    // Devices are partitions in the slice's row-major order.
    assert_eq!(r.chips[5].coords, vec![2, 1]);
    assert_eq!((r.chips[5].replica, r.chips[5].partition), (0, 5));
}

/// All-gather over the size-4 axis of a v5e 8x4 (the scaling book's Sharding Pop Quiz 2):
/// each chip holds `rows` rows of a [4·rows, cols] bf16 array and gathers its row of chips'.
fn all_gather_over_y(rows: u64, cols: u64) -> String {
    let groups: Vec<String> = (0..8)
        .map(|g| {
            let ids: Vec<String> = (0..4).map(|i| (4 * g + i).to_string()).collect();
            format!("[{}]", ids.join(", "))
        })
        .collect();
    let full = 4 * rows;
    format!(
        r#"module @ag attributes {{mhlo.num_partitions = 32 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<{rows}x{cols}xbf16>) -> tensor<{full}x{cols}xbf16> {{
    %y = stablehlo.tanh %x : tensor<{rows}x{cols}xbf16>
    %g = "stablehlo.all_gather"(%y) {{all_gather_dim = 0 : i64, replica_groups = dense<[{}]> : tensor<8x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<{rows}x{cols}xbf16>) -> tensor<{full}x{cols}xbf16>
    return %g : tensor<{full}x{cols}xbf16>
  }}
}}"#,
        groups.join(", ")
    )
}

fn y_groups() -> Vec<Vec<u32>> {
    (0..8).map(|g| (4 * g..4 * g + 4).collect()).collect()
}

#[test]
fn all_gather_over_one_axis_of_v5e_8x4_is_the_books_pop_quiz() {
    let s = slice("v5e:8x4");
    let m = parse(&all_gather_over_y(512, 8192));
    let r = simulate_spmd(&m, &s, &SimOptions::default()).unwrap();
    let c = &r.collectives[0];
    // V = the gathered bf16[2048, 8192]: 4 × the operand per device.
    let v = 2048.0 * 8192.0 * 2.0;
    let want = collective_cost(&s, CollectiveKind::AllGather, &y_groups(), v).unwrap();
    assert_eq!(c.cost, want);
    assert_eq!((c.cost.groups, c.cost.group_size), (8, 4));
    // The book: 3 hops of the 8.4 MB shard at the one-way 4.5e10 B/s ≈ 560 us.
    assert!((c.cost.time_s - 560e-6).abs() < 2e-6, "{c:?}");
    assert_eq!(c.cost.bound, CommBound::Bandwidth);
    assert!(close(r.time_s, r.compute_s + want.time_s));
    assert!(r.compute_s > 0.0);
}

#[test]
fn small_collectives_are_latency_bound() {
    // Pop Quiz 2, part 2: the same gather of a bf16[256, 256] takes ~3 us of hop latency.
    let s = slice("v5e:8x4");
    let m = parse(&all_gather_over_y(64, 256));
    let r = simulate_spmd(&m, &s, &SimOptions::default()).unwrap();
    let c = &r.collectives[0];
    let want = collective_cost(
        &s,
        CollectiveKind::AllGather,
        &y_groups(),
        256.0 * 256.0 * 2.0,
    )
    .unwrap();
    assert_eq!(c.cost, want);
    assert_eq!(c.cost.bound, CommBound::Latency);
    assert!((c.cost.time_s - 3e-6).abs() < 0.5e-6, "{c:?}");
    assert!(close(r.time_s, r.compute_s + want.time_s));
}

#[test]
fn a_process_count_other_than_the_slices_chips_is_an_error_naming_both() {
    let m = parse(&data_parallel_grad());
    let err = simulate_spmd(&m, &slice("v5e:8x4"), &SimOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            TpuError::ProcessCount {
                replicas: 1,
                partitions: 8,
                chips: 32,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    for part in [
        "8 process(es)",
        "v5e:8x4 has 32 chip(s)",
        "mhlo.num_partitions = 8",
    ] {
        assert!(text.contains(part), "{text}");
    }
    // A module without the attributes is one process.
    let single = parse(
        "func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.tanh %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}",
    );
    assert_eq!(process_grid(&single).unwrap().len(), 1);
    let err = simulate_spmd(&single, &slice("v5e:2x2"), &SimOptions::default()).unwrap_err();
    assert!(err.to_string().contains("1 process(es)"), "{err}");
}

#[test]
fn replica_groups_without_a_channel_group_replicas_of_each_partition() {
    // 2 replicas × 4 partitions on v5e:4x2: device = replica * 4 + partition, so the
    // cross-replica groups are {p, 4 + p}: the two rows of the slice, column by column.
    let m = parse(&format!(
        r#"module attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32}} {{
  func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {{
    %s = "stablehlo.all_reduce"(%x) {REGION} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %s : tensor<1024x1024xf32>
  }}
}}"#
    ));
    let s = slice("v5e:4x2");
    let r = simulate_spmd(&m, &s, &SimOptions::default()).unwrap();
    let groups = vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]];
    let want = collective_cost(
        &s,
        CollectiveKind::AllReduce,
        &groups,
        1024.0 * 1024.0 * 4.0,
    )
    .unwrap();
    assert_eq!(r.collectives[0].cost, want);
    assert_eq!(r.chips[6].replica, 1);
    assert_eq!(r.chips[6].partition, 2);
}

#[test]
fn chips_outside_a_permute_wait_for_it_at_the_next_collective() {
    // Partition 0 sends to partition 1 only; then everybody all-reduces. Chips 2..7 reach the
    // all_reduce early and wait there for chips 0 and 1.
    let m = parse(&format!(
        r#"module attributes {{mhlo.num_partitions = 8 : i32}} {{
  func.func @main(%x: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {{
    %p = "stablehlo.collective_permute"(%x) {{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
    %s = "stablehlo.all_reduce"(%p) {REGION} {{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids}} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
    return %s : tensor<2048x2048xf32>
  }}
}}"#
    ));
    let s = slice("v5e:4x2");
    let r = simulate_spmd(&m, &s, &SimOptions::default()).unwrap();
    let bytes = 2048.0 * 2048.0 * 4.0;
    let permute =
        collective_cost(&s, CollectiveKind::CollectivePermute, &[vec![0, 1]], bytes).unwrap();
    let reduce =
        collective_cost(&s, CollectiveKind::AllReduce, &[(0..8).collect()], bytes).unwrap();
    assert_eq!(r.collectives[0].cost, permute);
    assert_eq!(r.collectives[1].cost, reduce);
    assert!(permute.time_s > 0.0);
    assert_eq!(r.compute_s, 0.0);
    assert!(close(r.time_s, permute.time_s + reduce.time_s));
    for chip in &r.chips[..2] {
        assert!(close(chip.collective_s, permute.time_s + reduce.time_s));
        assert_eq!(chip.wait_s, 0.0);
    }
    for chip in &r.chips[2..] {
        assert_eq!(chip.collective_s, reduce.time_s);
        assert!(close(chip.wait_s, permute.time_s), "{chip:?}");
        assert!(close(chip.idle_s, permute.time_s));
        assert!(close(chip.time_s, r.time_s));
    }
}

#[test]
fn collectives_in_counted_loops_run_every_trip() {
    // A fori_loop of 10 trips, each a product and an all_reduce over the 4 chips of v5e:2x2.
    let m = parse(&format!(
        r#"module attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {{
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c, %acc = %x) : tensor<i32>, tensor<512x512xf32>
    cond {{
      %n = stablehlo.constant dense<10> : tensor<i32>
      %1 = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }} do {{
      %d = stablehlo.dot_general %acc, %acc, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
      %r = "stablehlo.all_reduce"(%d) {REGION} {{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<512x512xf32>) -> tensor<512x512xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %2, %r : tensor<i32>, tensor<512x512xf32>
    }}
    return %0#1 : tensor<512x512xf32>
  }}
}}"#
    ));
    let s = slice("v5e:2x2");
    let r = simulate_spmd(&m, &s, &SimOptions::default()).unwrap();
    let want = collective_cost(
        &s,
        CollectiveKind::AllReduce,
        &[(0..4).collect()],
        512.0 * 512.0 * 4.0,
    )
    .unwrap();
    let c = &r.collectives[0];
    assert_eq!(c.cost, want);
    assert_eq!(c.count, 10.0);
    assert!(close(c.total_time_s, 10.0 * want.time_s));
    assert!(close(r.collective_s, 10.0 * want.time_s));
    assert!(close(r.time_s, r.compute_s + 10.0 * want.time_s), "{r:?}");
    assert!(r.compute_s > 0.0);
}

#[test]
fn group_errors_name_the_op_and_its_place() {
    let m = parse(&format!(
        r#"module attributes {{mhlo.num_partitions = 4 : i32}} {{
  func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {{
    %s = "stablehlo.all_reduce"(%x) {REGION} {{replica_groups = dense<[[0, 9]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<8xf32>) -> tensor<8xf32>
    return %s : tensor<8xf32>
  }}
}}"#
    ));
    let err = simulate_spmd(&m, &slice("v5e:2x2"), &SimOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("spmd.mlir:") && text.contains("stablehlo.all_reduce"),
        "{text}"
    );
    assert!(text.contains("flattened id 9"), "{text}");
}
