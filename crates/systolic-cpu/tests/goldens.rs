//! Every JAX golden of the CLI (crates/systolic-cli/tests/data/<name>/) compiled for the CPU and
//! run: outputs match JAX's within the tolerances its meta.json gives (integers and booleans
//! exactly).

use crate::support;

use std::path::{Path, PathBuf};
use support::compare::{mismatches, Tolerance};
use systolic_cpu::CpuBuffer;
use systolic_ir::DType;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../systolic-cli/tests/data")
}

fn dtype_from_numpy(name: &str) -> DType {
    DType::ALL
        .into_iter()
        .find(|d| d.numpy_name() == name)
        .unwrap_or_else(|| panic!("meta.json names an unknown dtype {name}"))
}

/// Compiles and runs the golden `name`; returns a report of the differences (empty when it
/// matches JAX).
fn run_golden(name: &str, optimize: bool) -> Vec<String> {
    let dir = data_dir().join(name);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let module = support::parse(&std::fs::read_to_string(dir.join("module.mlir")).unwrap());
    let exe = support::compile_main_with(&module, optimize);
    let mut report = vec![];
    // Optimised, as users run them, every JAX program runs compiled: nothing on the interpreter.
    if optimize && !exe.fallback_ops().is_empty() {
        let ops: Vec<&str> = exe.fallback_ops().iter().map(|f| f.op.as_str()).collect();
        report.push(format!("on the interpreter fallback: {}", ops.join(", ")));
    }
    let inputs: Vec<CpuBuffer> = meta["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let t = systolic_npy::read(&dir.join(i["file"].as_str().unwrap()), None).unwrap();
            CpuBuffer::from_tensor(&t)
        })
        .collect();
    let outputs = exe
        .execute(inputs)
        .unwrap_or_else(|e| panic!("golden {name}: {e}"));
    let expected = meta["outputs"].as_array().unwrap();
    assert_eq!(outputs.len(), expected.len(), "{name}: number of outputs");
    for (i, (got, o)) in outputs.iter().zip(expected).enumerate() {
        let dtype = dtype_from_numpy(o["dtype"].as_str().unwrap());
        let want = systolic_npy::read(&dir.join(o["file"].as_str().unwrap()), Some(dtype)).unwrap();
        let tol = if dtype.is_float() {
            let t = &meta["tolerance"]["per_dtype"][dtype.numpy_name()];
            Tolerance::Close {
                rtol: t["rtol"].as_f64().unwrap(),
                atol: t["atol"].as_f64().unwrap(),
            }
        } else {
            Tolerance::Exact
        };
        let bad = mismatches(&got.to_tensor(), &want, tol);
        if !bad.is_empty() {
            report.push(format!(
                "out{i} ({}): {} of {} differ ({tol:?}): {}",
                want.ty(),
                bad.len(),
                want.num_elements(),
                bad[..bad.len().min(4)].join("; ")
            ));
        }
    }
    report
}

/// Every golden with outputs, compiled with and without the optimisation pipeline and checked;
/// all failures are reported together.
#[test]
fn every_jax_golden_runs_compiled_and_matches_jax() {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("out0.npy").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 20, "goldens found: {names:?}");
    let failures: Vec<String> = names
        .iter()
        .flat_map(|n| {
            [true, false].into_iter().flat_map(move |optimize| {
                run_golden(n, optimize)
                    .into_iter()
                    .map(move |r| format!("{n} (optimize {optimize}): {r}"))
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
