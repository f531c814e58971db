//! Helpers shared by the CLI's integration tests: running the `systolic` binary and comparing
//! its `.npy` outputs with JAX's.

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use systolic_ir::{DType, Tensor};

/// The folder of the golden programs.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
}

/// Runs the CLI binary with `args`.
pub fn systolic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_systolic"))
        .args(args)
        .output()
        .expect("the systolic binary starts")
}

/// stdout and stderr as text.
pub fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The dtype whose numpy name is `name` (`float32`, `bfloat16`, `bool`).
pub fn dtype_from_numpy(name: &str) -> DType {
    DType::ALL
        .into_iter()
        .find(|d| d.numpy_name() == name)
        .unwrap_or_else(|| panic!("meta.json names an unknown dtype {name}"))
}

/// Tolerances for the float outputs of a golden, per numpy dtype name, from its meta.json.
#[derive(Clone, Debug)]
pub struct Tolerance(serde_json::Value);

impl Tolerance {
    /// (rtol, atol) for outputs of `dtype`; meta.json lists every float dtype it returns.
    pub fn for_dtype(&self, dtype: DType) -> (f64, f64) {
        let entry = &self.0[dtype.numpy_name()];
        match (entry["rtol"].as_f64(), entry["atol"].as_f64()) {
            (Some(rtol), Some(atol)) => (rtol, atol),
            _ => panic!("meta.json has no tolerance for {}", dtype.numpy_name()),
        }
    }
}

/// A golden program's description.
pub struct Golden {
    pub name: String,
    pub dir: PathBuf,
    pub inputs: Vec<PathBuf>,
    pub outputs: Vec<(PathBuf, DType, Vec<i64>)>,
    pub tolerance: Tolerance,
}

/// Reads `tests/data/<name>/meta.json`.
pub fn golden(name: &str) -> Golden {
    let dir = data_dir().join(name);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let files = |key: &str| -> Vec<serde_json::Value> { meta[key].as_array().unwrap().clone() };
    let inputs = files("inputs")
        .iter()
        .map(|i| dir.join(i["file"].as_str().unwrap()))
        .collect();
    let outputs = files("outputs")
        .iter()
        .map(|o| {
            let shape = o["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_i64().unwrap())
                .collect();
            (
                dir.join(o["file"].as_str().unwrap()),
                dtype_from_numpy(o["dtype"].as_str().unwrap()),
                shape,
            )
        })
        .collect();
    let tolerance = Tolerance(meta["tolerance"]["per_dtype"].clone());
    Golden {
        name: name.to_string(),
        dir,
        inputs,
        outputs,
        tolerance,
    }
}

/// Mismatches between `got` and `expected`, worded for a failure message (empty when they
/// agree): floats within `|g - e| <= atol + rtol·|e|` (NaN matches NaN, infinities must be
/// equal), integers and booleans exactly.
pub fn mismatches(got: &Tensor, expected: &Tensor, rtol: f64, atol: f64) -> Vec<String> {
    if got.ty() != expected.ty() {
        return vec![format!("type {} but JAX gives {}", got.ty(), expected.ty())];
    }
    let (g, e) = (got.to_f64_vec(), expected.to_f64_vec());
    let exact = !expected.dtype().is_float();
    let mut bad = vec![];
    for (i, (&g, &e)) in g.iter().zip(&e).enumerate() {
        let ok = if exact {
            got.get(i) == expected.get(i)
        } else if e.is_nan() || g.is_nan() {
            e.is_nan() && g.is_nan()
        } else if e.is_infinite() || g.is_infinite() {
            g == e
        } else {
            (g - e).abs() <= atol + rtol * e.abs()
        };
        if !ok {
            bad.push(format!(
                "[{i}] got {} expected {}",
                got.get(i),
                expected.get(i)
            ));
        }
    }
    bad
}

/// Runs a golden through the CLI and checks every output against JAX's; panics with a report
/// naming each differing output and its first mismatches.
pub fn check_golden(name: &str) {
    check_golden_on(name, &[]);
}

/// [`check_golden`] with extra arguments for `systolic run` (`--backend interp`).
pub fn check_golden_on(name: &str, extra: &[&str]) {
    check_golden_module(name, "module.mlir", extra);
}

/// [`check_golden_on`] with the program in `module_file` of the golden's folder.
pub fn check_golden_module(name: &str, module_file: &str, extra: &[&str]) {
    let g = golden(name);
    let out_dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["run".into(), g.dir.join(module_file).display().to_string()];
    for input in &g.inputs {
        args.push("--input".into());
        args.push(input.display().to_string());
    }
    args.push("--out-dir".into());
    args.push(out_dir.path().display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = systolic(&arg_refs);
    let (stdout, stderr) = texts(&out);
    assert!(
        out.status.success(),
        "golden {name}: systolic run failed ({}):\n{stderr}",
        out.status
    );
    let mut report = vec![];
    for (i, (expected_file, dtype, shape)) in g.outputs.iter().enumerate() {
        let got_file = out_dir.path().join(format!("out{i}.npy"));
        let got = systolic_npy::read(&got_file, Some(*dtype))
            .unwrap_or_else(|e| panic!("golden {name}: output {i} not written: {e}\n{stdout}"));
        let expected = systolic_npy::read(expected_file, Some(*dtype)).unwrap();
        assert_eq!(
            expected.shape(),
            shape.as_slice(),
            "{name}: meta.json and out{i}.npy"
        );
        let (rtol, atol) = if dtype.is_float() {
            g.tolerance.for_dtype(*dtype)
        } else {
            (0.0, 0.0)
        };
        let bad = mismatches(&got, &expected, rtol, atol);
        if !bad.is_empty() {
            report.push(format!(
                "out{i} ({}): {} of {} elements differ (rtol {rtol}, atol {atol}): {}",
                expected.ty(),
                bad.len(),
                expected.num_elements(),
                bad.iter().take(4).cloned().collect::<Vec<_>>().join("; ")
            ));
        } else if !dtype.is_float() {
            // Exact results: the file we write must be byte for byte the one numpy wrote.
            assert_eq!(
                std::fs::read(&got_file).unwrap(),
                std::fs::read(expected_file).unwrap(),
                "{name}: out{i}.npy differs from numpy's bytes"
            );
        }
    }
    let extra = out_dir.path().join(format!("out{}.npy", g.outputs.len()));
    assert!(!extra.exists(), "{name}: more outputs than JAX returns");
    assert!(
        report.is_empty(),
        "golden {name} differs from JAX:\n{}",
        report.join("\n")
    );
}
