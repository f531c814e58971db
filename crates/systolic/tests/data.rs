//! systolic::data: determinism, once-per-epoch coverage, errors in place, file sources, prefetch
//! order, wait statistics on a simulated clock, and the simulated prefetch gain.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use systolic::data::schedule::{simulate, Costs};
use systolic::data::{CsvOptions, Dataset, HostArray, ManualClock};
use systolic::Error;

fn files() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/pipeline")
}

/// 0..n as one f32 column, shuffled, decoded on 3 workers, batched by 4 (remainder kept).
fn pipeline(n: usize, seed: u64) -> Dataset<HostArray> {
    let x = HostArray::from_vec((0..n).map(|i| i as f32).collect(), &[n as i64]).unwrap();
    Dataset::from_tensor_slices(x)
        .shuffle(7, seed)
        .map_parallel(|v: HostArray| Ok(v), 3)
        .batch(4, false)
}

fn batches(ds: &Dataset<HostArray>, epoch: u64) -> Vec<Vec<f32>> {
    ds.epoch(epoch).map(|b| b.unwrap().to_vec::<f32>().unwrap()).collect()
}

#[test]
fn same_seed_same_batches_and_every_example_once_per_epoch() {
    let ds = pipeline(23, 5);
    let e0 = batches(&ds, 0);
    assert_eq!(e0, batches(&pipeline(23, 5), 0));
    assert_eq!(e0.iter().map(Vec::len).collect::<Vec<_>>(), vec![4, 4, 4, 4, 4, 3]);
    for e in 0..3 {
        let mut all = batches(&ds, e).concat();
        all.sort_by(f32::total_cmp);
        assert_eq!(all, (0..23).map(|i| i as f32).collect::<Vec<_>>(), "epoch {e}");
    }
    assert_ne!(e0, batches(&ds, 1));
    assert_ne!(e0, batches(&pipeline(23, 6), 0));
    // repeat reshuffles each repetition.
    let rep = pipeline(23, 5).repeat(Some(2));
    assert_eq!(rep.iter().count(), 12);
}

#[test]
fn a_worker_error_reaches_the_consumer_in_place() {
    let ds = Dataset::from_vec((0..20).collect::<Vec<i32>>())
        .map_parallel(
            |x| {
                if x == 13 {
                    Err(Error::Host("bad record".into()))
                } else {
                    Ok(HostArray::scalar(x))
                }
            },
            4,
        )
        .batch(5, false);
    let out: Vec<_> = ds.iter().collect();
    assert_eq!(out.len(), 4);
    let err = out[2].as_ref().unwrap_err().to_string();
    assert!(err.contains("batch 2") && err.contains("element 13") && err.contains("bad record"), "{err}");
    assert_eq!(out[3].as_ref().unwrap().to_vec::<i32>().unwrap(), vec![15, 16, 17, 18, 19]);
    assert_eq!(out[1].as_ref().unwrap().to_vec::<i32>().unwrap(), vec![5, 6, 7, 8, 9]);
    // A panic is an error too.
    let p: Vec<_> = Dataset::from_vec(vec![1, 2]).map_parallel(|x: i32| if x == 2 { panic!("boom") } else { Ok(x) }, 2).iter().collect();
    assert!(p[1].as_ref().unwrap_err().to_string().contains("boom"));
}

#[test]
fn npy_npz_and_csv_sources_read_numpy_files() {
    let x: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 2.0).collect();
    let rows: Vec<Vec<f32>> = Dataset::from_npy(files().join("x.npy"))
        .iter()
        .map(|r| r.unwrap().to_vec::<f32>().unwrap())
        .collect();
    assert_eq!(rows, x.chunks(2).map(<[f32]>::to_vec).collect::<Vec<_>>());
    let ex: Vec<_> = Dataset::from_npz(files().join("xy.npz")).batch(6, false).iter().map(Result::unwrap).collect();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0]["x"].shape(), &[6, 2]);
    assert_eq!(ex[0]["x"].to_vec::<f32>().unwrap(), x);
    assert_eq!(ex[0]["y"].to_vec::<i64>().unwrap(), vec![0, 1, 2, 0, 1, 2]);
    let csv: Vec<_> = Dataset::from_csv(files().join("rows.csv"), CsvOptions::default()).iter().map(Result::unwrap).collect();
    assert_eq!(csv.len(), 5);
    assert_eq!(csv[3]["a"].to_vec::<f32>().unwrap(), vec![3.75]);
    assert_eq!(csv[3]["b"].to_vec::<f32>().unwrap(), vec![-3.0]);
    let missing = Dataset::from_npy(files().join("nope.npy")).iter().next().unwrap().unwrap_err();
    assert!(missing.to_string().contains("nope.npy"), "{missing}");
    // A list of files, interleaved.
    let two = Dataset::from_files([files().join("x.npy"), files().join("x.npy")])
        .interleave(|p| Ok(Dataset::from_npy(p)), 2, 3);
    assert_eq!(two.iter().count(), 12);
}

#[test]
fn prefetch_keeps_order_and_to_device_delivers_arrays() {
    let ds = Dataset::from_vec((0..200).collect::<Vec<i64>>()).map_parallel(Ok, 2).prefetch(3);
    assert_eq!(ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap(), (0..200).collect::<Vec<_>>());
    let dev = pipeline(10, 1).prefetch_to_device(2, systolic::default_device());
    let got: Vec<Vec<f32>> = dev.iter().map(|a| a.unwrap().to_vec::<f32>().unwrap()).collect();
    assert_eq!(got, batches(&pipeline(10, 1), 0));
}

#[test]
fn wait_stats_on_a_simulated_clock() {
    let clock = ManualClock::default();
    let decode = clock.clone();
    let ds = Dataset::from_vec(vec![0u8; 6]).map(move |x| {
        decode.advance(Duration::from_millis(2));
        Ok(x)
    });
    let mut it = ds.iter().with_clock(Arc::new(clock.clone()));
    while let Some(x) = it.next() {
        x.unwrap();
        clock.advance(Duration::from_millis(6));
    }
    let s = it.stats();
    assert_eq!(s.batches, 6);
    assert_eq!(s.waited, Duration::from_millis(12));
    assert_eq!(s.max_wait, Duration::from_millis(2));
    assert_eq!(s.mean_wait(), Duration::from_millis(2));
    assert_eq!(s.wall, Duration::from_millis(48));
    assert_eq!(s.wait_share(), 0.25);
}

#[test]
fn prefetching_hides_decode_and_transfer_when_the_step_is_longer() {
    let c = Costs { decode_ns: 3_000, transfer_ns: 1_500, step_ns: 5_000 };
    let none = simulate(c, 100, 0);
    assert_eq!(none.total_ns, 100 * 9_500);
    assert_eq!(none.device_idle_ns, 100 * 4_500);
    for depth in [1, 2, 4] {
        let t = simulate(c, 100, depth);
        assert_eq!(t.total_ns, 4_500 + 100 * 5_000, "depth {depth}");
        assert_eq!(t.device_idle_ns, 4_500);
    }
    // A decode longer than the step bounds the step instead.
    let slow = Costs { decode_ns: 7_000, ..c };
    assert_eq!(simulate(slow, 100, 2).total_ns, 100 * 7_000 + 1_500 + 5_000);
}
