//! `systolic::data::Dataset::prefetch_to_device` over a mesh of eight host devices
//! (`set_cpu_devices(8)` before the client starts, so this file is its own test binary): each
//! device receives its shard of every batch, and a batch the mesh does not divide is an error
//! in its place.

use std::sync::Once;
use systolic::data::{Dataset, HostArray};
use systolic::{make_mesh, NamedSharding, P};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| systolic::set_cpu_devices(8).unwrap());
    let cpus = systolic::devices()
        .iter()
        .filter(|d| d.kind() == systolic_runtime::DeviceKind::Cpu)
        .count();
    assert_eq!(cpus, 8, "SYSTOLIC_CPU_DEVICES was not honoured");
}

/// Example `i` is the row `[i, i + 0.5]`; labels are `i % 3`.
fn examples(n: usize) -> (HostArray, HostArray) {
    let x: Vec<f32> = (0..n).flat_map(|i| [i as f32, i as f32 + 0.5]).collect();
    let y: Vec<i32> = (0..n).map(|i| (i % 3) as i32).collect();
    (
        HostArray::from_vec(x, &[n as i64, 2]).unwrap(),
        HostArray::from_vec(y, &[n as i64]).unwrap(),
    )
}

#[test]
fn each_device_receives_its_shard_of_every_batch() {
    init();
    let mesh = make_mesh(&[8], &["data"]).unwrap();
    let sharding = NamedSharding::new(&mesh, P!("data")).unwrap();
    let ds = Dataset::from_tensor_slices(examples(32))
        .batch(16, true)
        .prefetch_to_device(2, sharding.clone());
    let batches: Vec<_> = ds.iter().map(Result::unwrap).collect();
    assert_eq!(batches.len(), 2);
    for (b, (x, y)) in batches.iter().enumerate() {
        assert_eq!(x.sharding().unwrap(), sharding);
        assert_eq!(x.shape(), &[16, 2]);
        let shards = x.addressable_shards();
        assert_eq!(shards.len(), 8);
        for (d, shard) in shards.iter().enumerate() {
            assert_eq!(shard.device, mesh.devices()[d]);
            assert_eq!(shard.index[0], 2 * d as i64..2 * d as i64 + 2);
            let first = (16 * b + 2 * d) as f32;
            assert_eq!(
                shard.data.to_vec::<f32>().unwrap(),
                vec![first, first + 0.5, first + 1.0, first + 1.5],
                "batch {b}, device {d}"
            );
        }
        let labels = y.addressable_shards();
        assert_eq!(
            labels[7].data.to_vec::<i32>().unwrap(),
            vec![(16 * b as i32 + 14) % 3, (16 * b as i32 + 15) % 3]
        );
    }
}

#[test]
fn a_2d_mesh_replicates_over_the_axis_the_spec_leaves_out() {
    init();
    let mesh = make_mesh(&[4, 2], &["data", "model"]).unwrap();
    let sharding = NamedSharding::new(&mesh, P!("data")).unwrap();
    let (x, _) = examples(8);
    let ds = Dataset::from_tensor_slices(x)
        .batch(8, true)
        .prefetch_to_device(1, sharding);
    let batch = ds.iter().next().unwrap().unwrap();
    let shards = batch.addressable_shards();
    assert_eq!(shards.len(), 8);
    // Mesh devices 2 and 3 are (data=1, model=0) and (data=1, model=1): rows 2..4 on both.
    for d in [2, 3] {
        assert_eq!(shards[d].index[0], 2..4);
        assert_eq!(
            shards[d].data.to_vec::<f32>().unwrap(),
            vec![2.0, 2.5, 3.0, 3.5]
        );
    }
}

#[test]
fn a_batch_the_mesh_does_not_divide_is_an_error_in_place() {
    init();
    let mesh = make_mesh(&[8], &["data"]).unwrap();
    let sharding = NamedSharding::new(&mesh, P!("data")).unwrap();
    let (x, _) = examples(20);
    // Batches of 8, 8 and the remainder 4, which 8 devices cannot split.
    let out: Vec<_> = Dataset::from_tensor_slices(x)
        .batch(8, false)
        .prefetch_to_device(2, sharding)
        .iter()
        .collect();
    assert_eq!(out.len(), 3);
    assert!(out[0].is_ok() && out[1].is_ok());
    let err = out[2].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("data.prefetch_to_device") && err.contains("batch 2"),
        "{err}"
    );
    assert!(err.contains('4') && err.contains("data"), "{err}");
}
