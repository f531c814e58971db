//! Folders of JAX exports (`tests/data/<set>/<case>/`: `module.mlir`, `in<i>.npy`,
//! `out<i>.npy`), as the scripts under `scripts/*_goldens.py` write them.

use std::path::{Path, PathBuf};
use systolic_ir::Tensor;

/// The folder of case `name` of golden set `set`.
pub fn case_dir(set: &str, name: &str) -> PathBuf {
    set_dir(set).join(name)
}

fn set_dir(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(set)
}

/// Every case folder of golden set `set` (those with a `module.mlir`), sorted.
pub fn cases(set: &str) -> Vec<String> {
    let dir = set_dir(set);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("module.mlir").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `in0.npy`, `in1.npy`, … (or `out…`) of a case folder.
pub fn arrays(dir: &Path, prefix: &str) -> Vec<Tensor> {
    (0..)
        .map(|i| dir.join(format!("{prefix}{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| systolic_npy::read(&p, None).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// Like [`arrays`], reading each file as the dtype the module's signature gives it (`types[i]`):
/// ml_dtypes' narrow floats are saved as raw `'<V1'` bytes that only the type names.
pub fn arrays_typed(dir: &Path, prefix: &str, types: &[systolic_ir::DType]) -> Vec<Tensor> {
    (0..)
        .map(|i| (i, dir.join(format!("{prefix}{i}.npy"))))
        .take_while(|(_, p)| p.exists())
        .map(|(i, p)| {
            systolic_npy::read(&p, types.get(i).copied())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

/// Compares a case's outputs `got` (computed `how`: "interpreter", "compiled", …) with JAX's
/// `want`, each output within `tolerance(want_i)`, adding a line per differing output to
/// `report` (a test gathers every case's lines and fails once, listing them all).
pub fn compare(
    name: &str,
    how: &str,
    got: &[Tensor],
    want: &[Tensor],
    tolerance: impl Fn(&Tensor) -> super::compare::Tolerance,
    report: &mut Vec<String>,
) {
    if got.len() != want.len() {
        report.push(format!(
            "{name} ({how}): {} outputs, JAX has {}",
            got.len(),
            want.len()
        ));
        return;
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = tolerance(w);
        let bad = super::compare::mismatches(g, w, tol);
        if !bad.is_empty() {
            report.push(format!(
                "{name} ({how}) out{i} {}: {} of {} differ ({tol:?}): {}",
                w.ty(),
                bad.len(),
                w.num_elements(),
                bad[..bad.len().min(3)].join("; ")
            ));
        }
    }
}
