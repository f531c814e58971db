//! Slices (`slice.rs`) and the cost of collectives on them (`collective_cost.rs`).
//!
//! The validation cases recompute worked answers of the JAX scaling book ("How to Scale Your
//! Model", jax-ml/scaling-book): chapter *Sharded Matrices and How to Multiply Them*
//! (`sharding.md` as of commit 04d8de58, the edition whose Pop Quiz 2 uses the bidirectional
//! 9e10 B/s for v5e) and chapter *How to Think About TPUs* (`tpus.md` as of commit 54e2c439).
//! Where the book rounds a bidirectional ring's `V·(n−1)/n / W` to `V / W`, the test says so
//! and checks our exact value against the book's formula times `(n−1)/n`.

use systolic_tpu::chips::chip;
use systolic_tpu::collective_cost::{
    collective_cost, permute_cost, CollectiveKind, CommBound, GroupShape,
};
use systolic_tpu::interconnect::{collective_s, Collective, RingAxis};
use systolic_tpu::slice::{parse_slices, Slice, SliceError};

use CollectiveKind::*;

fn slice(s: &str) -> Slice {
    Slice::parse(s).unwrap()
}

/// The groups of a mesh axis (or several): devices that differ only along `axes`, for a mesh
/// laid over the slice's shape in device order.
fn groups_over(s: &Slice, axes: &[usize]) -> Vec<Vec<u32>> {
    let mut groups: std::collections::BTreeMap<(u32, Vec<u32>), Vec<u32>> = Default::default();
    for d in 0..s.total_chips() {
        let c = s.coords(d).unwrap();
        let key: Vec<u32> = c
            .coords
            .iter()
            .enumerate()
            .map(|(ax, &x)| if axes.contains(&ax) { 0 } else { x })
            .collect();
        groups.entry((c.slice, key)).or_default().push(d);
    }
    groups.into_values().collect()
}

fn close(ours: f64, want: f64, tol: f64) -> bool {
    (ours - want).abs() <= tol
}

// ---------------------------------------------------------------- the book's worked answers

#[test]
fn book_sharding_pop_quiz_2_all_gather_on_v5e_8x4_without_wraparound() {
    // Sharding chapter, Pop Quiz 2, part 1: AllGather_Y([E_Y, F]) on v5e with mesh
    // {'X': 8, 'Y': 4}, E = 2048, F = 8192, bf16. An axis of 4 has no wraparound on v5e, so the
    // book corrects its first 377 us (V / 9e10) to 3 hops of the 8.4 MB shard at the one-way
    // 4.5e10 B/s: 3 * 8.4e6 / 4.5e10 = 560 us.
    let s = slice("v5e:8x4");
    let v = 2048.0 * 8192.0 * 2.0;
    let c = collective_cost(&s, AllGather, &groups_over(&s, &[1]), v).unwrap();
    assert!(close(c.time_s, 560e-6, 2e-6), "{c:?}");
    assert_eq!(c.bound, CommBound::Bandwidth);
    assert_eq!(c.shape, GroupShape::SubTorus);
    assert_eq!((c.groups, c.group_size), (8, 4));
    assert_eq!(c.axes.len(), 1);
    assert_eq!(
        (c.axes[0].axis, c.axes[0].ring, c.axes[0].members),
        (1, false, 4)
    );
    // The book's first approximation, had the axis wrapped: V / W_bidi = 377 us; our ring
    // keeps the exact (n-1)/n, so a 16-long wrapped axis gives 377 * 15/16.
    let s16 = slice("v5e:8x16");
    let ring = collective_cost(&s16, AllGather, &groups_over(&s16, &[1]), v).unwrap();
    assert!(ring.axes[0].ring);
    assert!(close(ring.time_s, v / 9e10 * 15.0 / 16.0, 1e-9), "{ring:?}");
    // (The book rounds V to 34e6 bytes: 34e6 / 9e10 = 377 us; 33.55e6 / 9e10 = 373 us.)
    assert!(close(34e6 / 9e10, 377e-6, 1e-6) && close(v / 9e10, 377e-6, 5e-6));
}

#[test]
fn book_sharding_pop_quiz_2_small_all_gather_is_latency_bound() {
    // Pop Quiz 2, part 2: E = F = 256. Each shard is 32 kB, 0.7 us at 4.5e10 B/s: latency
    // bound, 3 hops at 1 us = 3 us.
    let s = slice("v5e:8x4");
    let v = 256.0 * 256.0 * 2.0;
    let c = collective_cost(&s, AllGather, &groups_over(&s, &[1]), v).unwrap();
    assert_eq!(c.bound, CommBound::Latency);
    assert_eq!(c.hops, 3);
    assert!(close(c.time_s, 3e-6, 1e-12), "{c:?}");
}

#[test]
fn book_sharding_question_2_all_gathers_on_a_v4_cube() {
    // Sharding chapter, Question 2: v4 4x4x4, mesh {'X': 4, 'Y': 4, 'Z': 4}, B = 1024,
    // D = 4096, bf16. A full cube wraps on every axis: 9e10 B/s bidirectional.
    let s = slice("v4:4x4x4");
    assert!(s.wraparound().iter().all(|&w| w));
    let (b, d) = (1024.0, 4096.0);
    // (1) AllGather_X([B_X, D_Y]): V = 2BD / Y. The book: 2BD / (9e10 * 4) = 23 us, i.e. V / W;
    // the exact ring moves (n-1)/n of it: 23.3 * 3/4 = 17.5 us.
    let v = 2.0 * b * d / 4.0;
    let book = 2.0 * b * d / (9e10 * 4.0);
    assert!(close(book, 23e-6, 0.5e-6));
    for axis in [0, 1] {
        // (2) AllGather_Y is the same on the other axis.
        let c = collective_cost(&s, AllGather, &groups_over(&s, &[axis]), v).unwrap();
        assert!(close(c.time_s, book * 3.0 / 4.0, 1e-9), "{c:?}");
        assert_eq!(c.bound, CommBound::Bandwidth);
        assert!(c.axes[0].ring);
    }
    // (3) AllGather_XY([B_X, D_Y]): twice the bandwidth, the whole array: 2BD / (2 * 9e10)
    // = 46 us (x 15/16 exact); the latency bound is 4 hops (2 per axis of 4) = 4 us.
    let v = 2.0 * b * d;
    let book = v / (2.0 * 9e10);
    assert!(close(book, 46e-6, 0.7e-6));
    let c = collective_cost(&s, AllGather, &groups_over(&s, &[0, 1]), v).unwrap();
    assert!(close(c.time_s, book * 15.0 / 16.0, 1e-9), "{c:?}");
    assert_eq!(c.hops, 4);
    assert!(close(c.latency_s, 4e-6, 1e-12));
    assert_eq!(c.axes.len(), 2);
}

#[test]
fn book_sharding_question_3_latency_bound_all_gather_on_a_v4_cube() {
    // Question 3: AllGather_X([B_X]) with B = 128 in bf16 on v4 4x4x4: 256 bytes, latency bound,
    // 2 hops over the wrapped axis of 4: about 2 us.
    let s = slice("v4:4x4x4");
    let c = collective_cost(&s, AllGather, &groups_over(&s, &[0]), 256.0).unwrap();
    assert_eq!(c.bound, CommBound::Latency);
    assert_eq!(c.hops, 2);
    assert!(close(c.time_s, 2e-6, 1e-12), "{c:?}");
}

#[test]
fn book_tpus_question_5_point_to_point_on_v5e_4x4() {
    // TPUs chapter, Question 5: bf16[8, 128, 8192] from TPU{0,0} to TPU{3,3} of a v5e 4x4 (no
    // wraparound): 6 hops, half the array right and half down at 4.5e10 B/s each:
    // 1.7e7 / 9e10 = 188 us; the first byte after ~6 us.
    let s = slice("v5e:4x4");
    let bytes = 2.0 * 8.0 * 128.0 * 8192.0;
    let c = permute_cost(&s, &[(0, 15)], bytes).unwrap();
    assert_eq!(c.hops, 6);
    assert!(close(c.latency_s, 6e-6, 1e-12));
    assert!(close(c.time_s, 188e-6, 2e-6), "{c:?}");
    assert_eq!(c.bound, CommBound::Bandwidth);
    assert_eq!(c.axes.len(), 2);
}

#[test]
fn book_tpus_question_6_gathering_16_gb_over_a_v5e_4x4() {
    // TPUs chapter, Question 6 (ICI copy): 16 GB spread over a v5e 4x4; gathering it takes at
    // least 15e9 / (4.5e10 * 2) = 167 ms over two axes without wraparound (a full AllGather
    // "roughly 16e9 / (4.5e10 * 2)").
    let s = slice("v5e:4x4");
    let c = collective_cost(&s, AllGather, &[], 16e9).unwrap();
    assert!(close(c.time_s, 167e-3, 1e-3), "{c:?}");
    assert!(c.time_s <= 16e9 / 9e10);
    // And the 4x4 has two 8-chip hosts.
    assert_eq!(s.process_count(), 2);
}

#[test]
fn book_tpus_question_2_hosts_of_full_pods() {
    // TPUs chapter, Question 2: a v5e pod (16x16, 4x2 hosts) has 32 hosts; a v5p pod
    // (16x20x28, 2x2x1 hosts) 2240.
    assert_eq!(slice("v5e:16x16").process_count(), 32);
    assert_eq!(slice("v5p:16x20x28").process_count(), 2240);
    assert_eq!(slice("v5p:16x20x28").total_chips(), 8960);
}

// ------------------------------------------------- agreement with interconnect.rs's formulas

#[test]
fn full_rings_agree_with_the_interconnect_formulas() {
    let s = slice("v5e:16x16");
    let v5e = chip("v5e").unwrap();
    let axis = RingAxis::on(&v5e, 16);
    let v = 1e9;
    for (kind, ring) in [
        (AllGather, Collective::AllGather),
        (ReduceScatter, Collective::ReduceScatter),
        (AllReduce, Collective::AllReduce),
        (AllToAll, Collective::AllToAll),
    ] {
        let ours = collective_cost(&s, kind, &groups_over(&s, &[0]), v).unwrap();
        let theirs = collective_s(&v5e, ring, v, &[axis]).unwrap();
        assert!(close(ours.time_s, theirs, 1e-12), "{kind:?}");
        let both = collective_cost(&s, kind, &[], v).unwrap();
        let theirs = collective_s(&v5e, ring, v, &[axis, axis]).unwrap();
        assert!(close(both.time_s, theirs, 1e-12), "{kind:?} 2 axes");
    }
    // Latency: the book's multi-axis floor sums the axes (8 + 8 hops on a 16x16), where
    // interconnect.rs takes the longest axis.
    let tiny = collective_cost(&s, AllGather, &[], 64.0).unwrap();
    assert_eq!(tiny.hops, 16);
    assert_eq!(tiny.bound, CommBound::Latency);
    // The slice's axes are the interconnect's RingAxis.
    assert_eq!(s.ring_axis(1), axis);
}

#[test]
fn all_reduce_is_two_all_gathers_and_all_to_all_a_quarter() {
    let s = slice("v5p:4x4x4");
    let g = groups_over(&s, &[2]);
    let v = 5e8;
    let ag = collective_cost(&s, AllGather, &g, v).unwrap();
    let rs = collective_cost(&s, ReduceScatter, &g, v).unwrap();
    let ar = collective_cost(&s, AllReduce, &g, v).unwrap();
    let a2a = collective_cost(&s, AllToAll, &g, v).unwrap();
    let bc = collective_cost(&s, CollectiveBroadcast, &g, v).unwrap();
    assert_eq!(ag.time_s, rs.time_s);
    assert!(close(ar.time_s, 2.0 * ag.time_s, 1e-15));
    assert!(close(a2a.time_s, ag.time_s / 4.0, 1e-15));
    assert_eq!(bc.time_s, ag.time_s);
    // v5p: 1.8e11 B/s bidirectional per axis.
    assert!(close(ag.time_s, v * 0.75 / 1.8e11, 1e-15));
}

// ------------------------------------------------------------------------ slices themselves

#[test]
fn device_order_is_row_major_and_slice_major() {
    let s = slice("v5e:8x4");
    assert_eq!(s.coords(0).unwrap().coords, vec![0, 0]);
    assert_eq!(s.coords(1).unwrap().coords, vec![0, 1]);
    assert_eq!(s.coords(4).unwrap().coords, vec![1, 0]);
    assert_eq!(s.coords(31).unwrap().coords, vec![7, 3]);
    assert!(s.coords(32).is_none());
    let m = slice("v5p:2x2x2*2");
    assert_eq!(m.total_chips(), 16);
    let c = m.coords(8).unwrap();
    assert_eq!((c.slice, c.coords), (1, vec![0, 0, 0]));
    assert_eq!(m.coords(5).unwrap().coords, vec![1, 0, 1]);
    for d in 0..m.total_chips() {
        let c = m.coords(d).unwrap();
        assert_eq!(m.device_at(c.slice, &c.coords), Some(d));
    }
    assert_eq!(m.device_at(2, &[0, 0, 0]), None);
    assert_eq!(m.devices_of_slice(1), 8..16);
    assert_eq!(m.hops(0, 8), None);
    assert_eq!(m.hops(0, 7), Some(3));
}

#[test]
fn hosts_own_blocks_of_chips() {
    // v5e: 4x2 blocks.
    let s = slice("v5e:8x4");
    assert_eq!(s.host_shape(), &[4, 2]);
    assert_eq!(s.process_count(), 4);
    assert_eq!(s.devices_of_process(0), vec![0, 1, 4, 5, 8, 9, 12, 13]);
    assert_eq!(s.devices_of_process(1), vec![2, 3, 6, 7, 10, 11, 14, 15]);
    assert_eq!(s.process_index(16), Some(2));
    assert!(s.devices_of_process(4).is_empty());
    // A 2x4 does not take a 4x2 block: it is one host, transposed.
    let one = slice("v5e:2x4");
    assert_eq!((one.host_shape(), one.process_count()), (&[2, 4][..], 1));
    // Smaller than a host: one host.
    assert_eq!(slice("v5e:2x2").process_count(), 1);
    assert_eq!(slice("v6e:1x1").process_count(), 1);
    // v4/v5p: 2x2x1 blocks, slice-major across slices.
    let v4 = slice("v4:2x2x2");
    assert_eq!(v4.process_count(), 2);
    assert_eq!(v4.devices_of_process(0), vec![0, 2, 4, 6]);
    assert_eq!(v4.devices_of_process(1), vec![1, 3, 5, 7]);
    let m = slice("v5p:2x2x2*2");
    assert_eq!(m.process_count(), 4);
    assert_eq!(m.process_index(8), Some(2));
    // Every device has exactly one host, and hosts are all the same size.
    for spec in ["v5e:16x16", "v5p:4x4x8", "v5e:8x2", "v5p:2x2x1*3", "v3:4x4"] {
        let s = slice(spec);
        let per = s.total_chips() / s.process_count();
        let mut all = Vec::new();
        for p in 0..s.process_count() {
            let devs = s.devices_of_process(p);
            assert_eq!(devs.len() as u32, per, "{spec} host {p}");
            all.extend(devs);
        }
        all.sort_unstable();
        assert_eq!(all, (0..s.total_chips()).collect::<Vec<_>>(), "{spec}");
    }
}

#[test]
fn wraparound_follows_each_generation() {
    let w = |s: &str| slice(s).wraparound().to_vec();
    // v5e / v6e: only a full axis of 16.
    assert_eq!(w("v5e:16x16"), [true, true]);
    assert_eq!(w("v5e:8x16"), [false, true]);
    assert_eq!(w("v5e:4x4"), [false, false]);
    assert_eq!(w("v6e:16x8"), [true, false]);
    // v4 / v5p: whole 4x4x4 cubes wrap on every axis, anything else on none.
    assert_eq!(w("v5p:4x4x4"), [true, true, true]);
    assert_eq!(w("v5p:4x4x8"), [true, true, true]);
    assert_eq!(w("v4:8x8x12"), [true, true, true]);
    assert_eq!(w("v5p:2x2x4"), [false, false, false]);
    assert_eq!(w("v4:4x4x2"), [false, false, false]);
    assert_eq!(w("v4:2x2x1"), [false, false, false]);
    // No published rule: no wraparound.
    assert_eq!(w("v3:32x32"), [false, false]);
    // Torus distance uses the wraparound.
    assert_eq!(slice("v5e:16x16").hops(0, 255), Some(2));
    assert_eq!(slice("v5e:8x4").hops(0, 31), Some(10));
}

#[test]
fn parse_errors_name_the_bad_part() {
    for (spec, says) in [
        ("v9:4x4", "unknown TPU chip `v9`"),
        ("v9:4x4", "v5e, v5p"),
        ("v5e:4x4x4", "2D torus"),
        ("v5p:4x4", "3D torus"),
        ("v5e:0x4", "size of zero"),
        ("v5e:32x4", "largest published v5e slice, 16x16"),
        ("v5p:32x4x4", "16x20x28"),
        ("v5e:4xa", "`a` in `4xa` is not a size"),
        ("v5p:4x4x4*0", "at least 1"),
        ("v5p:4x4x4*two", "not a number"),
        ("v5e", "expected CHIP:SHAPE"),
        ("v5e:", "shape after `v5e:` is missing"),
        ("tpu7x:4x4x4", "topology is not published"),
    ] {
        let err = Slice::parse(spec).unwrap_err();
        assert!(matches!(err, SliceError::BadSlice { .. }), "{spec}");
        let msg = err.to_string();
        assert!(msg.contains(says), "{spec}: {msg}");
        assert!(msg.contains(spec.trim()), "{spec}: {msg}");
    }
    // Any orientation of the pod is accepted.
    assert!(Slice::parse("v5p:28x20x16").is_ok());
}

#[test]
fn canonical_strings_and_lists() {
    assert_eq!(slice("V5E:8X4").to_string(), "v5e:8x4");
    assert_eq!(slice("v4p:2x2x2").to_string(), "v4:2x2x2");
    assert_eq!(slice(" v5p:2x2x2*1 ").to_string(), "v5p:2x2x2");
    assert_eq!(slice("trillium:16x16*4").to_string(), "v6e:16x16*4");
    let back: Slice = "v5p:2x2x2*2".parse().unwrap();
    assert_eq!(back, slice(&back.to_string()));
    let list = parse_slices("v5e:8x4, v5p:2x2x2*2").unwrap();
    assert_eq!(
        list.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["v5e:8x4", "v5p:2x2x2*2"]
    );
    assert!(parse_slices("none").unwrap().is_empty());
    assert!(parse_slices("").unwrap().is_empty());
    let err = parse_slices("v5e:8x4,v5p:4").unwrap_err().to_string();
    assert!(err.contains("device count"), "{err}");
    let err = parse_slices("v5e").unwrap_err().to_string();
    assert!(err.contains("needs a shape"), "{err}");
    let s = slice("v5p:4x4x8*2");
    assert_eq!(
        (s.shape(), s.num_slices(), s.chips_per_slice()),
        (&[4, 4, 8][..], 2, 128)
    );
    assert_eq!(s.chip().name, "v5p");
}

// ------------------------------------------------------------------------------- DCN

#[test]
fn groups_across_slices_use_dcn_for_the_cross_slice_part() {
    let s = slice("v5p:2x2x2*2");
    let v = 1e9;
    // One chip per slice: DCN only. V (S-1)/(S k) = V/2 per chip at 6.25e9 B/s.
    let c = collective_cost(&s, AllGather, &[vec![0, 8]], v).unwrap();
    assert_eq!(c.slices_spanned, 2);
    assert!(close(c.time_s, v / 2.0 / 6.25e9, 1e-12), "{c:?}");
    assert_eq!(c.dcn_s, c.time_s);
    assert!(c.axes.is_empty());
    // All 16 devices: all-reduce = 2 x ICI all-gather over the 2x2x2 (no wraparound: one-way
    // bandwidth on three axes) + the DCN all-reduce of V/8 per chip.
    let ar = collective_cost(&s, AllReduce, &[], v).unwrap();
    let ici = 2.0 * v * (7.0 / 8.0) / (3.0 * 9e10);
    let dcn = 2.0 * v * 0.5 / 8.0 / 6.25e9;
    assert!(close(ar.time_s, ici + dcn, 1e-12), "{ar:?}");
    assert!(close(ar.dcn_s, dcn, 1e-12));
    assert_eq!(ar.axes.len(), 3);
    // DCN is far slower than ICI: the same group inside one slice is cheaper.
    let one = slice("v5p:2x2x4");
    let inside = collective_cost(&one, AllReduce, &[], v).unwrap();
    assert!(inside.time_s < ar.time_s);
    // A permute across slices goes over DCN.
    let p = permute_cost(&s, &[(0, 8), (8, 0)], v).unwrap();
    assert!(close(p.time_s, v / 6.25e9, 1e-12));
    // v5e's DCN is half v5p's.
    let e = slice("v5e:2x2*2");
    let c = collective_cost(&e, AllGather, &[vec![0, 4]], v).unwrap();
    assert!(close(c.time_s, v / 2.0 / 3.125e9, 1e-12));
}

// ------------------------------------------------------------------ monotonicity and shapes

#[test]
fn more_bytes_are_never_faster() {
    let cases: Vec<(&str, Vec<usize>)> = vec![
        ("v5e:8x4", vec![1]),
        ("v5e:16x16", vec![0, 1]),
        ("v4:4x4x4", vec![0, 2]),
        ("v5p:2x2x2*2", vec![0, 1, 2]),
    ];
    for (spec, axes) in cases {
        let s = slice(spec);
        let g = groups_over(&s, &axes);
        for kind in CollectiveKind::ALL {
            let groups = if kind == CollectivePermute {
                (0..s.total_chips())
                    .map(|d| vec![d, (d + 1) % s.total_chips()])
                    .collect()
            } else {
                g.clone()
            };
            let mut last = 0.0;
            for e in 0..40 {
                let v = 2f64.powi(e);
                let t = collective_cost(&s, kind, &groups, v).unwrap().time_s;
                assert!(t >= last, "{spec} {kind:?} {v}: {t} < {last}");
                assert!(t > 0.0);
                last = t;
            }
        }
    }
    // Whole multi-slice groups, including DCN.
    let s = slice("v5p:2x2x2*2");
    let g = groups_over(&s, &[0, 1, 2]);
    let whole: Vec<Vec<u32>> = vec![(0..16).collect()];
    for v in [1e3, 1e6, 1e9] {
        let within = collective_cost(&s, AllReduce, &g, v).unwrap().time_s;
        let across = collective_cost(&s, AllReduce, &whole, v).unwrap().time_s;
        assert!(across >= within);
    }
}

#[test]
fn more_axes_are_never_slower_per_byte_than_one() {
    for spec in [
        "v5e:16x16",
        "v5e:8x4",
        "v4:4x4x4",
        "v5p:4x4x8",
        "v6e:16x4",
        "v4:2x2x4",
    ] {
        let s = slice(spec);
        let dims = s.shape().len();
        let v = 1e10;
        let all: Vec<usize> = (0..dims).collect();
        let many = collective_cost(&s, AllGather, &groups_over(&s, &all), v).unwrap();
        for ax in 0..dims {
            if s.shape()[ax] == 1 {
                continue;
            }
            let one = collective_cost(&s, AllGather, &groups_over(&s, &[ax]), v).unwrap();
            // Per byte of the gathered array each chip ends with.
            assert!(
                many.bandwidth_s / v <= one.bandwidth_s / v * (1.0 + 1e-12),
                "{spec} axis {ax}: {} vs {}",
                many.bandwidth_s,
                one.bandwidth_s
            );
            assert!(
                many.time_s <= one.time_s * (1.0 + 1e-12),
                "{spec} axis {ax}"
            );
        }
    }
}

#[test]
fn interleaved_groups_share_links() {
    // Even and odd chips of each row of a v5e 16x16: two rings of 8 interleaved on one
    // wrapped line, each edge 2 hops, every link carrying both rings.
    let s = slice("v5e:16x16");
    let mut groups = Vec::new();
    for row in 0..16u32 {
        for parity in 0..2u32 {
            groups.push(
                (0..8)
                    .map(|i| row * 16 + 2 * i + parity)
                    .collect::<Vec<_>>(),
            );
        }
    }
    let v = 1e9;
    let c = collective_cost(&s, AllGather, &groups, v).unwrap();
    assert_eq!(c.shape, GroupShape::SubTorus);
    let a = &c.axes[0];
    assert_eq!(
        (a.axis, a.members, a.ring, a.congestion, a.hops_per_step),
        (1, 8, true, 2, 2)
    );
    // A ring's 2w shared by two rings: w.
    assert!(close(c.time_s, v * 7.0 / 8.0 / 4.5e10, 1e-12), "{c:?}");
    assert_eq!(c.hops, 8);
    // Contiguous halves of each row instead: lines of 8 without wraparound.
    let halves: Vec<Vec<u32>> = (0..32u32).map(|h| (h * 8..h * 8 + 8).collect()).collect();
    let h = collective_cost(&s, AllGather, &halves, v).unwrap();
    assert!(!h.axes[0].ring);
    assert_eq!(h.axes[0].congestion, 1);
    assert!(close(h.time_s, v * 7.0 / 8.0 / 4.5e10, 1e-12));
}

#[test]
fn arbitrary_device_sets_get_the_conservative_model() {
    let s = slice("v5e:4x4");
    // A diagonal: not a product of per-axis coordinates.
    let diag = vec![vec![0, 5, 10, 15]];
    let c = collective_cost(&s, AllGather, &diag, 1e9).unwrap();
    assert_eq!(c.shape, GroupShape::Arbitrary);
    assert_eq!(c.axes.len(), 2);
    // 3 steps, 2 hops each (neighbours on the diagonal), one link one way.
    assert_eq!(c.hops, 6);
    assert!(close(c.time_s, 1e9 * 0.75 / 4.5e10, 1e-12));
    // Never cheaper than a row of the same size.
    let row = collective_cost(&s, AllGather, &[vec![0, 1, 2, 3]], 1e9).unwrap();
    assert!(c.time_s >= row.time_s);
    for v in [1.0, 1e4, 1e8] {
        let a = collective_cost(&s, AllReduce, &diag, v).unwrap();
        let r = collective_cost(&s, AllReduce, &[vec![0, 1, 2, 3]], v).unwrap();
        assert!(a.time_s >= r.time_s, "{v}");
    }
}

#[test]
fn permutes_route_every_pair_at_once() {
    // A shift around a wrapped axis: every link carries one pair, one hop.
    let s = slice("v5e:16x16");
    let shift: Vec<(u32, u32)> = (0..256u32).map(|d| (d, (d + 16) % 256)).collect();
    let c = permute_cost(&s, &shift, 1e8).unwrap();
    assert_eq!(c.hops, 1);
    assert!(close(c.time_s, 1e8 / 4.5e10, 1e-12));
    assert_eq!(c.axes.len(), 1);
    assert_eq!(c.axes[0].congestion, 1);
    // Without wraparound the last row's pair goes the whole way back.
    let s = slice("v5e:8x4");
    let shift: Vec<(u32, u32)> = (0..32u32).map(|d| (d, (d + 4) % 32)).collect();
    let c = permute_cost(&s, &shift, 1e3).unwrap();
    assert_eq!(c.hops, 7);
    assert_eq!(c.bound, CommBound::Latency);
    // Two pairs over the same links in the same direction share them.
    let one = permute_cost(&s, &[(0, 12)], 1e8).unwrap();
    let two = permute_cost(&s, &[(0, 12), (4, 16)], 1e8).unwrap();
    assert!(close(two.time_s, 2.0 * one.time_s, 1e-12));
    // A pair to itself moves nothing; the group form is the same function.
    assert_eq!(permute_cost(&s, &[(3, 3)], 1e8).unwrap().time_s, 0.0);
    let via = collective_cost(&s, CollectivePermute, &[vec![0, 12]], 1e8).unwrap();
    assert_eq!(via, one);
}

#[test]
fn bad_groups_and_missing_figures() {
    let s = slice("v5e:4x4");
    for (groups, says) in [
        (vec![vec![0, 16]], "past the last"),
        (
            vec![vec![0, 1], vec![1, 2]],
            "device 1 is in more than one place",
        ),
        (vec![vec![]], "group 0 is empty"),
    ] {
        let err = collective_cost(&s, AllReduce, &groups, 1.0)
            .unwrap_err()
            .to_string();
        assert!(err.contains(says) && err.contains("v5e:4x4"), "{err}");
    }
    let err = collective_cost(&s, CollectivePermute, &[vec![0, 1, 2]], 1.0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("two devices"), "{err}");
    let err = permute_cost(&s, &[(0, 1), (0, 2)], 1.0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("source twice"), "{err}");
    // v2 has a topology but no published ICI bandwidth.
    let v2 = slice("v2:4x4");
    let err = collective_cost(&v2, AllGather, &[], 1e6)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("v2") && err.contains("ICI link bandwidth"),
        "{err}"
    );
    // Single-device groups cost nothing.
    let single: Vec<Vec<u32>> = (0..16).map(|d| vec![d]).collect();
    let c = collective_cost(&s, AllReduce, &single, 1e9).unwrap();
    assert_eq!((c.time_s, c.shape), (0.0, GroupShape::Trivial));
}

#[test]
fn op_names_and_the_books_byte_convention() {
    for k in CollectiveKind::ALL {
        assert_eq!(
            CollectiveKind::from_name(&format!("stablehlo.{}", k.name())),
            Some(k)
        );
        assert_eq!(CollectiveKind::from_name(k.name()), Some(k));
    }
    assert_eq!(CollectiveKind::from_name("stablehlo.add"), None);
    // all_gather: the result (n x the operand); reduce_scatter / all_reduce: the operand.
    assert_eq!(AllGather.book_bytes(1e6, 8), 8e6);
    assert_eq!(AllToAll.book_bytes(1e6, 8), 8e6);
    assert_eq!(ReduceScatter.book_bytes(1e6, 8), 1e6);
    assert_eq!(AllReduce.book_bytes(1e6, 8), 1e6);
    let json =
        serde_json::to_value(collective_cost(&slice("v5e:4x4"), AllReduce, &[], 1e6).unwrap())
            .unwrap();
    assert_eq!(json["kind"], "all_reduce");
    assert_eq!(json["bound"], "bandwidth");
}
