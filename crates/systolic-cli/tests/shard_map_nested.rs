//! shard_map in `fori_loop`, `scan`, `cond` and `switch`, and nested shard_maps: JAX's exports
//! (`scripts/shard_map_nested_goldens.py`, kept with the compiler's tests) run through
//! `systolic run` on 8 devices, compiled and on the interpreter, against JAX's outputs.

use crate::common;
use std::path::PathBuf;

const GOLDENS: [&str; 11] = [
    "fori_loop",
    "fori_loop_sharded",
    "scan",
    "cond_true",
    "cond_false",
    "switch_0",
    "switch_1",
    "switch_2",
    "nested",
    "nested_under_jit",
    "nested_in_loop",
];

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../systolic-compiler/tests/data/shard_map_nested")
        .join(name)
}

/// `systolic run` of the golden with `extra` flags; each output within 1e-5 of JAX's.
fn run(name: &str, extra: &[&str]) {
    let d = dir(name);
    let out_dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run".to_string(),
        d.join("module.mlir").display().to_string(),
    ];
    for i in 0.. {
        let input = d.join(format!("in{i}.npy"));
        if !input.exists() {
            break;
        }
        args.push("--input".into());
        args.push(input.display().to_string());
    }
    args.push("--out-dir".into());
    args.push(out_dir.path().display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = common::systolic(&refs);
    let (_, stderr) = common::texts(&out);
    assert!(out.status.success(), "{name} {extra:?}: {stderr}");
    let mut outputs = 0;
    while d.join(format!("out{outputs}.npy")).exists() {
        let want = systolic_npy::read(&d.join(format!("out{outputs}.npy")), None).unwrap();
        let got =
            systolic_npy::read(&out_dir.path().join(format!("out{outputs}.npy")), None).unwrap();
        assert_eq!(got.shape(), want.shape(), "{name} {extra:?} out{outputs}");
        for (g, w) in got.to_f64_vec().iter().zip(want.to_f64_vec()) {
            assert!(
                (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
                "{name} {extra:?} out{outputs}: {got:?}\nwant {want:?}"
            );
        }
        outputs += 1;
    }
    assert!(outputs > 0, "{name}: no JAX outputs");
    assert!(
        !out_dir.path().join(format!("out{outputs}.npy")).exists(),
        "{name}: more outputs than JAX returns"
    );
}

#[test]
fn compiled_on_8_cpu_devices() {
    for name in GOLDENS {
        run(name, &[]);
    }
}

#[test]
fn on_8_interpreters() {
    for name in GOLDENS {
        run(name, &["--backend", "interp"]);
    }
}

/// Every golden the script exports is run above.
#[test]
fn every_golden_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(dir(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<&str> = GOLDENS.to_vec();
    listed.sort();
    assert_eq!(on_disk, listed);
}
