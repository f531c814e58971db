//! The compile cache on disk: a second process (here: a second client) skips the passes; corrupt
//! or foreign entries are misses, never crashes; concurrent writers leave one whole entry.

use crate::support;

use std::path::Path;
use std::sync::{Arc, Barrier};
use support::{golden, max_abs_diff, upload};
use systolic_runtime::{Client, CompileOptions, CompileSource, DiskCache};

/// The single `.sxc` entry in `dir` (and no leftover temporary files).
fn only_entry(dir: &Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].extension().unwrap(), "sxc");
    files[0].clone()
}

#[test]
fn a_new_client_loads_the_optimised_module_and_gets_the_same_results() {
    let (module, inputs, outputs) = golden("attention");
    let dir = tempfile::tempdir().unwrap();
    let options = CompileOptions::with_cache_dir(dir.path());

    let first = Client::cpu();
    let fresh = first.compile(&module, &options).unwrap();
    assert_eq!(fresh.source(), CompileSource::Compiled);
    assert_eq!(first.cache_stats().disk_writes, 1);
    let entry = only_entry(dir.path());
    assert!(std::fs::read_to_string(&entry)
        .unwrap()
        .contains("stablehlo.dot_general"));

    let second = Client::cpu();
    let cached = second.compile(&module, &options).unwrap();
    assert_eq!(cached.source(), CompileSource::DiskCache);
    let stats = second.cache_stats();
    assert_eq!((stats.compiles, stats.disk_hits), (0, 1));

    let args = upload(&second, &inputs);
    let arg_refs: Vec<_> = args.iter().collect();
    let from_disk = cached.execute(&arg_refs).unwrap();
    let args = upload(&first, &inputs);
    let arg_refs: Vec<_> = args.iter().collect();
    let from_fresh = fresh.execute(&arg_refs).unwrap();
    for ((d, f), want) in from_disk.iter().zip(&from_fresh).zip(&outputs) {
        let (d, f) = (d.to_tensor().unwrap(), f.to_tensor().unwrap());
        assert_eq!(d, f, "the cached program computes what the fresh one does");
        assert!(max_abs_diff(&d, want) < 1e-5, "and agrees with JAX");
    }
}

#[test]
fn a_corrupt_entry_is_a_miss_and_is_rewritten() {
    let (module, inputs, outputs) = golden("softmax_xent");
    let dir = tempfile::tempdir().unwrap();
    let options = CompileOptions::with_cache_dir(dir.path());
    Client::cpu().compile(&module, &options).unwrap();
    let entry = only_entry(dir.path());
    let good = std::fs::read(&entry).unwrap();

    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", good[..good.len() / 2].to_vec()),
        ("flipped byte", {
            let mut bytes = good.clone();
            let last = bytes.len() - 10;
            bytes[last] ^= 0x20;
            bytes
        }),
        ("garbage", vec![0xde, 0xad, 0xbe, 0xef]),
        ("empty", vec![]),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&entry, &bytes).unwrap();
        let client = Client::cpu();
        let exe = client.compile(&module, &options).unwrap();
        assert_eq!(exe.source(), CompileSource::Compiled, "{what}");
        let stats = client.cache_stats();
        assert_eq!((stats.disk_rejected, stats.disk_writes), (1, 1), "{what}");
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            good,
            "{what}: rewritten whole"
        );
        let args = upload(&client, &inputs);
        let out = exe.execute(&args.iter().collect::<Vec<_>>()).unwrap();
        assert!(max_abs_diff(&out[0].to_tensor().unwrap(), &outputs[0]) < 1e-5);
    }
}

#[test]
fn a_well_formed_entry_whose_module_does_not_load_is_a_miss() {
    let (module, _, _) = golden("softmax_xent");
    let dir = tempfile::tempdir().unwrap();
    let options = CompileOptions::with_cache_dir(dir.path());
    let client = Client::cpu();
    let key = systolic_runtime::cache_key::CacheKey::new(
        &systolic_ir::text::print_module(&module),
        &Default::default(),
        systolic_runtime::DeviceKind::Cpu,
    );
    // A consistent entry (right key, right checksum) holding another program without @main.
    DiskCache::new(dir.path())
        .store(&key, "func.func @other() {\n  return\n}\n")
        .unwrap();
    let exe = client.compile(&module, &options).unwrap();
    assert_eq!(exe.source(), CompileSource::Compiled);
    assert_eq!(client.cache_stats().disk_rejected, 1);
}

/// A consistent entry (right key, right checksum) whose module parses, verifies and lowers but
/// is another program — here an elementwise op on 2^60 f32s (the largest power of two whose
/// bytes the verifier accepts; 2^61 once overflowed the lowering's cost estimate) — is a miss: its entry takes and returns other types than the
/// program's. (A panic while loading an entry is a miss too: `load_guarded`.)
#[test]
fn a_verifying_entry_for_another_signature_is_a_miss() {
    let (module, inputs, outputs) = golden("softmax_xent");
    let dir = tempfile::tempdir().unwrap();
    let options = CompileOptions::with_cache_dir(dir.path());
    let key = systolic_runtime::cache_key::CacheKey::new(
        &systolic_ir::text::print_module(&module),
        &Default::default(),
        systolic_runtime::DeviceKind::Cpu,
    );
    let huge = "tensor<1152921504606846976xf32>";
    let body = format!(
        "func.func @main(%a: {huge}) -> {huge} {{\n  %0 = stablehlo.negate %a : {huge}\n  \
         return %0 : {huge}\n}}\n"
    );
    let poisoned = systolic_ir::text::parse_module(&body, "poisoned").unwrap();
    assert!(systolic_ir::verify::verify_module(&poisoned).is_ok());
    let cache = DiskCache::new(dir.path());
    cache.store(&key, &body).unwrap();

    let client = Client::cpu();
    let exe = client.compile(&module, &options).unwrap();
    assert_eq!(exe.source(), CompileSource::Compiled);
    let stats = client.cache_stats();
    assert_eq!((stats.disk_rejected, stats.disk_writes), (1, 1));
    let args = upload(&client, &inputs);
    let out = exe.execute(&args.iter().collect::<Vec<_>>()).unwrap();
    assert!(max_abs_diff(&out[0].to_tensor().unwrap(), &outputs[0]) < 1e-5);
    // The entry was replaced by a good one, which the next client loads.
    let again = Client::cpu().compile(&module, &options).unwrap();
    assert_eq!(again.source(), CompileSource::DiskCache);
}

#[test]
fn concurrent_writers_leave_one_whole_entry() {
    let (module, _, _) = golden("mlp_forward");
    let dir = tempfile::tempdir().unwrap();
    let writers = 4;
    let barrier = Arc::new(Barrier::new(writers));
    let handles: Vec<_> = (0..writers)
        .map(|_| {
            let (module, barrier) = (module.clone(), barrier.clone());
            let options = CompileOptions::with_cache_dir(dir.path());
            std::thread::spawn(move || {
                let client = Client::cpu();
                barrier.wait();
                client.compile(&module, &options).unwrap();
                client.cache_stats()
            })
        })
        .collect();
    let mut writes = 0;
    for h in handles {
        let stats = h.join().unwrap();
        assert_eq!(stats.disk_write_failures, 0);
        writes += stats.disk_writes;
    }
    assert!(writes >= 1);
    only_entry(dir.path());
    let client = Client::cpu();
    let exe = client
        .compile(&module, &CompileOptions::with_cache_dir(dir.path()))
        .unwrap();
    assert_eq!(exe.source(), CompileSource::DiskCache);
}

#[test]
fn an_unwritable_cache_directory_does_not_fail_the_compile() {
    let (module, _, _) = golden("mlp_forward");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "x").unwrap();
    let client = Client::cpu();
    let exe = client
        .compile(&module, &CompileOptions::with_cache_dir(&file))
        .unwrap();
    assert_eq!(exe.source(), CompileSource::Compiled);
    assert_eq!(client.cache_stats().disk_write_failures, 1);
}

#[test]
fn a_module_with_a_host_callback_never_reaches_the_disk_cache() {
    // Its callback number means something only in this process: another process reading the
    // entry could call an unrelated closure under the same number.
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    let id = systolic_ir::host_callback::register(Arc::new(move |_: &[systolic_ir::Tensor]| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(vec![])
    }));
    let text = format!(
        "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {{
  stablehlo.custom_call @systolic.host_callback(%x) {{api_version = 4 : i32, backend_config = {{callback_id = {id} : i64, name = \"t\"}}, has_side_effect = true}} : (tensor<2xf32>) -> ()
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}}"
    );
    let module = support::module(&text);
    let dir = tempfile::tempdir().unwrap();
    let options = CompileOptions::with_cache_dir(dir.path());
    for _ in 0..2 {
        // A fresh client each time: what a second process would see.
        let client = Client::cpu();
        let exe = client.compile(&module, &options).unwrap();
        assert_eq!(exe.source(), CompileSource::Compiled);
        let stats = client.cache_stats();
        assert_eq!((stats.disk_hits, stats.disk_writes), (0, 0));
        let x = upload(
            &client,
            &[
                systolic_ir::Tensor::from_f64(vec![2], systolic_ir::DType::F32, vec![1.0, 2.0])
                    .unwrap(),
            ],
        );
        exe.execute(&[&x[0]]).unwrap();
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
    // Nor can it be serialised ahead of time.
    let Err(err) = Client::cpu().compile_serializable(&module, &options) else {
        panic!("refused")
    };
    assert!(err.to_string().contains("host callback"), "{err}");
    systolic_ir::host_callback::unregister(id);
}
