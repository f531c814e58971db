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
    ds.epoch(epoch)
        .map(|b| b.unwrap().to_vec::<f32>().unwrap())
        .collect()
}

#[test]
fn same_seed_same_batches_and_every_example_once_per_epoch() {
    let ds = pipeline(23, 5);
    let e0 = batches(&ds, 0);
    assert_eq!(e0, batches(&pipeline(23, 5), 0));
    assert_eq!(
        e0.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![4, 4, 4, 4, 4, 3]
    );
    for e in 0..3 {
        let mut all = batches(&ds, e).concat();
        all.sort_by(f32::total_cmp);
        assert_eq!(
            all,
            (0..23).map(|i| i as f32).collect::<Vec<_>>(),
            "epoch {e}"
        );
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
    assert!(
        err.contains("batch 2") && err.contains("element 13") && err.contains("bad record"),
        "{err}"
    );
    assert_eq!(
        out[3].as_ref().unwrap().to_vec::<i32>().unwrap(),
        vec![15, 16, 17, 18, 19]
    );
    assert_eq!(
        out[1].as_ref().unwrap().to_vec::<i32>().unwrap(),
        vec![5, 6, 7, 8, 9]
    );
    // A panic is an error too.
    let p: Vec<_> = Dataset::from_vec(vec![1, 2])
        .map_parallel(|x: i32| if x == 2 { panic!("boom") } else { Ok(x) }, 2)
        .iter()
        .collect();
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
    let ex: Vec<_> = Dataset::from_npz(files().join("xy.npz"))
        .batch(6, false)
        .iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0]["x"].shape(), &[6, 2]);
    assert_eq!(ex[0]["x"].to_vec::<f32>().unwrap(), x);
    assert_eq!(ex[0]["y"].to_vec::<i64>().unwrap(), vec![0, 1, 2, 0, 1, 2]);
    let csv: Vec<_> = Dataset::from_csv(files().join("rows.csv"), CsvOptions::default())
        .iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(csv.len(), 5);
    assert_eq!(csv[3]["a"].to_vec::<f32>().unwrap(), vec![3.75]);
    assert_eq!(csv[3]["b"].to_vec::<f32>().unwrap(), vec![-3.0]);
    let missing = Dataset::from_npy(files().join("nope.npy"))
        .iter()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(missing.to_string().contains("nope.npy"), "{missing}");
    // A list of files, interleaved.
    let two = Dataset::from_files([files().join("x.npy"), files().join("x.npy")]).interleave(
        |p| Ok(Dataset::from_npy(p)),
        2,
        3,
    );
    assert_eq!(two.iter().count(), 12);
}

#[test]
fn prefetch_keeps_order_and_to_device_delivers_arrays() {
    let ds = Dataset::from_vec((0..200).collect::<Vec<i64>>())
        .map_parallel(Ok, 2)
        .prefetch(3);
    assert_eq!(
        ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap(),
        (0..200).collect::<Vec<_>>()
    );
    let dev = pipeline(10, 1).prefetch_to_device(2, systolic::default_device());
    let got: Vec<Vec<f32>> = dev
        .iter()
        .map(|a| a.unwrap().to_vec::<f32>().unwrap())
        .collect();
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
    for x in it.by_ref() {
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
    let c = Costs {
        decode_ns: 3_000,
        transfer_ns: 1_500,
        step_ns: 5_000,
    };
    let none = simulate(c, 100, 0);
    assert_eq!(none.total_ns, 100 * 9_500);
    assert_eq!(none.device_idle_ns, 100 * 4_500);
    for depth in [1, 2, 4] {
        let t = simulate(c, 100, depth);
        assert_eq!(t.total_ns, 4_500 + 100 * 5_000, "depth {depth}");
        assert_eq!(t.device_idle_ns, 4_500);
    }
    // A decode longer than the step bounds the step instead.
    let slow = Costs {
        decode_ns: 7_000,
        ..c
    };
    assert_eq!(simulate(slow, 100, 2).total_ns, 100 * 7_000 + 1_500 + 5_000);
}

/// Writes `text` to a CSV file in a new temporary directory.
fn csv_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.csv");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn csv_quoted_fields_and_errors_with_line_and_column() {
    let (_dir, path) =
        csv_file("\"a\";\"b;c\"\n1.5;\"2\"\n\n\"-3\";\"4\"\"\"\n7; x7 \n8;9;10\n5;6\n");
    let opts = CsvOptions {
        delimiter: ';',
        ..CsvOptions::default()
    };
    let rows: Vec<_> = Dataset::from_csv(&path, opts).iter().collect();
    assert_eq!(rows.len(), 5, "{rows:?}");
    let first = rows[0].as_ref().unwrap();
    assert_eq!(first.keys().collect::<Vec<_>>(), vec!["a", "b;c"]);
    assert_eq!(first["b;c"].to_vec::<f32>().unwrap(), vec![2.0]);
    // `"4"""` is the text `4"`: not a number, reported at its line and column.
    let quote = rows[1].as_ref().unwrap_err().to_string();
    assert!(
        quote.contains("line 4, column 2 (`b;c`)") && quote.contains("`4\"`"),
        "{quote}"
    );
    let bad = rows[2].as_ref().unwrap_err().to_string();
    assert!(
        bad.contains("rows.csv line 5, column 2") && bad.contains("`x7` as float32"),
        "{bad}"
    );
    let wide = rows[3].as_ref().unwrap_err().to_string();
    assert!(
        wide.contains("line 6") && wide.contains("3 fields") && wide.contains("2 columns"),
        "{wide}"
    );
    // The rows after the bad ones still come.
    assert_eq!(
        rows[4].as_ref().unwrap()["a"].to_vec::<f32>().unwrap(),
        vec![5.0]
    );
    assert_eq!(
        rows[4].as_ref().unwrap()["b;c"].to_vec::<f32>().unwrap(),
        vec![6.0]
    );
}

#[test]
fn csv_without_header_integer_ranges_and_missing_files() {
    let (_dir, path) = csv_file("1,2\n3,300\n-4,5\n");
    let opts = CsvOptions {
        header: false,
        dtype: systolic_ir::DType::I8,
        ..CsvOptions::default()
    };
    let rows: Vec<_> = Dataset::from_csv(&path, opts).iter().collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0].as_ref().unwrap()["1"].to_vec::<i8>().unwrap(),
        vec![2]
    );
    // 300 does not fit int8: an error, not a wrapped 44.
    let err = rows[1].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("line 2, column 2 (`1`)") && err.contains("`300` as int8"),
        "{err}"
    );
    assert_eq!(
        rows[2].as_ref().unwrap()["0"].to_vec::<i8>().unwrap(),
        vec![-4]
    );
    let missing = Dataset::from_csv(path.with_file_name("nope.csv"), CsvOptions::default());
    let errs: Vec<_> = missing.iter().collect();
    assert_eq!(errs.len(), 1);
    let err = errs[0].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("data.from_csv") && err.contains("nope.csv"),
        "{err}"
    );
    // Windows line ends and several empty lines: the line is still the file's.
    let (_dir3, crlf) = csv_file("1,2\r\n\r\n\r\n3,x\r\n4,5\r\n");
    let opts = CsvOptions {
        header: false,
        ..CsvOptions::default()
    };
    let rows: Vec<_> = Dataset::from_csv(&crlf, opts).iter().collect();
    assert_eq!(rows.len(), 3);
    let err = rows[1].as_ref().unwrap_err().to_string();
    assert!(err.contains("line 4, column 2"), "{err}");
    assert_eq!(
        rows[2].as_ref().unwrap()["1"].to_vec::<f32>().unwrap(),
        vec![5.0]
    );
    let (_dir2, dup) = csv_file("a,b,a\n1,2,3\n");
    let err = Dataset::from_csv(&dup, CsvOptions::default())
        .iter()
        .next()
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("column 3 repeats the header name `a`"),
        "{err}"
    );
    let bad_delim = CsvOptions {
        delimiter: 'é',
        ..CsvOptions::default()
    };
    let err = Dataset::from_csv(&path, bad_delim)
        .iter()
        .next()
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(err.contains("not ASCII"), "{err}");
}

#[test]
fn shuffle_then_repeat_reshuffles_each_repetition_and_epoch() {
    let ds = Dataset::from_vec((0..16).collect::<Vec<i32>>())
        .shuffle(16, 3)
        .repeat(Some(2));
    let run = |e| ds.epoch(e).collect::<systolic::Result<Vec<i32>>>().unwrap();
    let (e0, e1) = (run(0), run(1));
    assert_eq!(e0, run(0));
    let (a, b) = e0.split_at(16);
    assert_ne!(a, b, "the two repetitions of epoch 0 have one order");
    assert_ne!(e0, e1);
    for part in [a, b, &e1[..16], &e1[16..]] {
        let mut sorted = part.to_vec();
        sorted.sort();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>());
    }
}

#[test]
fn drop_remainder_with_a_failed_element_loses_and_repeats_nothing() {
    let ds = Dataset::from_vec((0..11).collect::<Vec<i32>>())
        .map(|x| {
            if x == 4 {
                Err(Error::Host("torn".into()))
            } else {
                Ok(HostArray::scalar(x))
            }
        })
        .batch(3, true);
    let out: Vec<_> = ds.iter().collect();
    assert_eq!(out.len(), 3);
    assert_eq!(
        out[0].as_ref().unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1, 2]
    );
    let err = out[1].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("batch 1") && err.contains("element 4") && err.contains("torn"),
        "{err}"
    );
    assert_eq!(
        out[2].as_ref().unwrap().to_vec::<i32>().unwrap(),
        vec![6, 7, 8]
    );
    let zero = Dataset::from_vec(vec![HostArray::scalar(1i32)]).batch(0, false);
    assert!(zero
        .iter()
        .next()
        .unwrap()
        .unwrap_err()
        .to_string()
        .contains("batch size"));
}

#[test]
fn interleave_reports_a_bad_file_and_reads_the_others() {
    let good = files().join("x.npy");
    let ds = Dataset::from_files([good.clone(), files().join("missing.npy"), good]).interleave(
        |p| Ok(Dataset::from_npy(p)),
        2,
        2,
    );
    let out: Vec<_> = ds.iter().collect();
    assert_eq!(out.iter().filter(|r| r.is_ok()).count(), 12);
    let errs: Vec<String> = out
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("missing.npy"), "{}", errs[0]);
    // A directory's files by suffix, sorted; a directory that does not exist is one Err.
    let listed: Vec<PathBuf> = Dataset::list_files(files(), ".npy")
        .iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(listed, vec![files().join("x.npy")]);
    let none: Vec<_> = Dataset::list_files(files().join("absent"), ".npy")
        .iter()
        .collect();
    assert_eq!(none.len(), 1);
    let err = none[0].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("data.list_files") && err.contains("absent"),
        "{err}"
    );
    // Rows alternate between the two open files in blocks of two.
    let first: Vec<f32> = out[..2]
        .iter()
        .flat_map(|r| r.as_ref().unwrap().to_vec::<f32>().unwrap())
        .collect();
    assert_eq!(first, vec![-2.0, -1.5, -1.0, -0.5]);
}

/// Counts the live clones of a marker that the pipeline's closures hold: when every thread of a
/// dropped iterator has stopped, only the test's own remains.
#[test]
fn dropping_an_iterator_early_stops_its_threads() {
    let marker = Arc::new(());
    let held = marker.clone();
    // Each epoch's generator holds a clone; it lives in the threads that run the stream.
    let ds = Dataset::from_generator(move || {
        let h = held.clone();
        (0u64..).inspect(move |_| {
            let _ = &h;
        })
    })
    .map_parallel(Ok, 3)
    .prefetch(2)
    .map(Ok)
    .prefetch(1);
    let mut it = ds.iter();
    assert_eq!(it.next().unwrap().unwrap(), 0);
    assert_eq!(it.next().unwrap().unwrap(), 1);
    drop(it);
    // The recipe holds one clone; the epoch's is gone once every thread has stopped.
    assert_eq!(Arc::strong_count(&marker), 2);
    drop(ds);
    assert_eq!(Arc::strong_count(&marker), 1);
}

#[test]
fn a_panic_upstream_of_prefetch_is_an_error_not_a_short_epoch() {
    let ds = Dataset::from_generator(|| {
        (0..5).map(|i| if i == 3 { panic!("generator broke") } else { i })
    })
    .prefetch(2);
    let out: Vec<_> = ds.iter().collect();
    assert_eq!(out.len(), 4);
    assert_eq!(*out[2].as_ref().unwrap(), 2);
    let err = out[3].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("panicked") && err.contains("generator broke"),
        "{err}"
    );
}

/// The producer thread stays exactly `n` batches ahead of the consumer: with batch 0 held,
/// batches 1..=n are made (it gets there: a bounded wait, no timing asserted) and no more.
#[test]
fn prefetch_to_device_keeps_exactly_n_batches_in_flight() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    for depth in [1usize, 2, 4] {
        let made = Arc::new(AtomicUsize::new(0));
        let count = made.clone();
        let x = HostArray::from_vec((0..40).map(|i| i as f32).collect(), &[20, 2]).unwrap();
        let ds = Dataset::from_tensor_slices(x)
            .batch(2, true)
            .map(move |b| {
                count.fetch_add(1, Ordering::SeqCst);
                Ok(b)
            })
            .prefetch_to_device(depth, systolic::default_device());
        let mut it = ds.iter();
        let first = it.next().unwrap().unwrap();
        assert_eq!(first.to_vec::<f32>().unwrap(), vec![0.0, 1.0, 2.0, 3.0]);
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while made.load(Ordering::SeqCst) < depth + 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(made.load(Ordering::SeqCst), depth + 1, "depth {depth}");
        let rest: Vec<_> = it.map(Result::unwrap).collect();
        assert_eq!(rest.len(), 9);
        assert_eq!(
            rest[8].to_vec::<f32>().unwrap(),
            vec![36.0, 37.0, 38.0, 39.0]
        );
    }
}

#[test]
fn prefetch_to_device_passes_errors_in_place() {
    let ds = Dataset::from_vec((0..9).collect::<Vec<i32>>())
        .map(|x| {
            if x == 5 {
                Err(Error::Host("bad jpeg".into()))
            } else {
                Ok(HostArray::scalar(x))
            }
        })
        .batch(3, false)
        .prefetch_to_device(2, systolic::default_device());
    let out: Vec<_> = ds.iter().collect();
    assert_eq!(out.len(), 3);
    let err = out[1].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("element 5") && err.contains("bad jpeg"),
        "{err}"
    );
    assert_eq!(
        out[2].as_ref().unwrap().to_vec::<i32>().unwrap(),
        vec![6, 7, 8]
    );
}

/// The example's simulated v5e case: a batch's PCIe time from the chip's host-link figure, a
/// step longer than decode + transfer. Prefetching (any depth) exposes only the first batch's
/// decode and transfer, so it saves exactly `(batches − 1) × (decode + transfer)`; a transfer
/// longer than the step bounds the step instead.
#[test]
fn simulated_v5e_prefetch_gain_is_exact() {
    let chip = systolic_tpu::chip("v5e").unwrap();
    let pcie = chip.pcie_bandwidth.value.unwrap();
    let bytes = 128 * (256 * 4 + 4);
    let transfer_ns = (systolic_tpu::interconnect::host_transfer_s(&chip, bytes as f64).unwrap()
        * 1e9)
        .round() as u64;
    assert_eq!(transfer_ns, (bytes as f64 / pcie * 1e9).round() as u64);
    let c = Costs {
        decode_ns: 30_000,
        transfer_ns,
        step_ns: 50_000,
    };
    let n = 24;
    let none = simulate(c, n, 0);
    assert_eq!(none.total_ns, n * (30_000 + transfer_ns + 50_000));
    for depth in [2, 4] {
        let t = simulate(c, n, depth);
        assert_eq!(
            none.total_ns - t.total_ns,
            (n - 1) * (30_000 + transfer_ns),
            "depth {depth}"
        );
        assert_eq!(t.device_idle_ns, 30_000 + transfer_ns);
    }
    // Transfer-bound: 6 per batch on the wire against a step of 5.
    let wire = Costs {
        decode_ns: 1,
        transfer_ns: 6,
        step_ns: 5,
    };
    assert_eq!(simulate(wire, 10, 2).total_ns, 1 + 10 * 6 + 5);
    // Depth 1 with a decode as long as the step: each decode starts when the previous step
    // does, so it still hides behind it.
    let even = Costs {
        decode_ns: 5,
        transfer_ns: 0,
        step_ns: 5,
    };
    assert_eq!(simulate(even, 10, 1).total_ns, 5 + 10 * 5);
}

/// Batches put on a simulated TPU from the prefetch thread land on that chip, and its clock is
/// charged the PCIe time of exactly their bytes (one chip no other suite test uses).
#[test]
fn prefetch_to_a_simulated_tpu_charges_its_pcie_time() {
    if std::env::var_os("SYSTOLIC_TPUS").is_some() {
        return; // the default chips are not there
    }
    let device = systolic::device("tpu:v6e:0").unwrap();
    let before = device.simulated_clock().unwrap();
    let x = HostArray::from_vec((0..64 * 32).map(|i| i as f32).collect(), &[64, 32]).unwrap();
    let batches: Vec<systolic::Array> = Dataset::from_tensor_slices(x)
        .batch(16, true)
        .prefetch_to_device(2, device)
        .iter()
        .map(Result::unwrap)
        .collect();
    let after = device.simulated_clock().unwrap();
    assert_eq!(batches.len(), 4);
    assert!(batches.iter().all(|b| b.device() == device));
    let bytes = 64 * 32 * 4;
    assert_eq!(after.bytes_to_device - before.bytes_to_device, bytes);
    let pcie = device.chip().unwrap().pcie_bandwidth.value.unwrap();
    let charged = after.host_to_device_s - before.host_to_device_s;
    assert!((charged - bytes as f64 / pcie).abs() < 1e-12, "{charged}");
    let first = batches[0].to_vec::<f32>().unwrap();
    assert_eq!(first[..3], [0.0, 1.0, 2.0]);
}

/// `map_parallel` really runs its workers at once: each of the first three elements waits until
/// all three are being mapped together (a bounded wait, so a sequential map fails instead of
/// hanging), and the results still come in order.
#[test]
fn map_parallel_runs_its_workers_at_once() {
    use std::sync::{Condvar, Mutex};
    let meeting = Arc::new((Mutex::new(0usize), Condvar::new()));
    let ds = Dataset::from_vec((0..9).collect::<Vec<i32>>()).map_parallel(
        move |x| {
            if x < 3 {
                let (count, cv) = &*meeting;
                let mut n = count.lock().unwrap();
                *n += 1;
                cv.notify_all();
                let deadline = std::time::Instant::now() + Duration::from_secs(20);
                while *n < 3 {
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return Err(Error::Host(format!("only {} of 3 elements met", *n)));
                    }
                    n = cv.wait_timeout(n, left).unwrap().0;
                }
            }
            Ok(x * 2)
        },
        3,
    );
    let out = ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap();
    assert_eq!(out, (0..9).map(|x| x * 2).collect::<Vec<_>>());
}
