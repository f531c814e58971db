//! JAX's linear algebra as JAX 0.10.2 lowers it on CPU — LAPACK custom calls — run on the
//! interpreter and compiled, against JAX's outputs (tests/data/linalg/, made by
//! scripts/linalg_custom_call_goldens.py: `jnp.linalg` inv, solve, det, slogdet, cholesky, qr,
//! eigh, eigvalsh, svd, lstsq, pinv, matrix_power; `jax.scipy.linalg` lu, lu_factor, lu_solve,
//! cho_factor/cho_solve, solve_triangular, expm; f32 and f64, unbatched and batched).
//!
//! Outputs that are unique are compared with JAX's (pivots exactly, floats within a tolerance
//! scaled to each output's magnitude). Eigenvectors and singular vectors are unique only up to
//! sign, so for them the invariants are checked: `A·v = v·diag(w)`, `vᵀv = I`, `U·S·Vᵀ = A`,
//! `UᵀU = I`, `V·Vᵀ = I`; QR's factors follow LAPACK's conventions and are compared directly,
//! with `Q·R = A` and `QᵀQ = I` besides. The compiled program must run every op natively and
//! agree with the interpreter.

use crate::support;

use std::path::{Path, PathBuf};
use support::compare::{mismatches, Tolerance};
use systolic_ir::lapack::LapackCall;
use systolic_ir::{DType, Module, Tensor};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/linalg")
}

/// Every case directory, sorted.
fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .expect("tests/data/linalg exists")
        .filter_map(|e| {
            let e = e.ok()?;
            e.file_type()
                .ok()?
                .is_dir()
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    names
}

struct Case {
    name: String,
    module: Module,
    inputs: Vec<Tensor>,
    want: Vec<Tensor>,
}

fn load(name: &str) -> Case {
    let dir = data_dir().join(name);
    let module = support::parse(&std::fs::read_to_string(dir.join("program.mlir")).unwrap());
    let read_all = |prefix: &str| {
        (0..)
            .map(|i| dir.join(format!("{prefix}{i}.npy")))
            .take_while(|p| p.exists())
            .map(|p| systolic_npy::read(&p, None).unwrap())
            .collect::<Vec<_>>()
    };
    Case {
        name: name.to_string(),
        module,
        inputs: read_all("in"),
        want: read_all("out"),
    }
}

/// The tolerance for outputs of `dtype` (relative to the output's largest magnitude).
fn rtol(dtype: DType) -> f64 {
    if dtype == DType::F32 {
        2e-4
    } else {
        1e-10
    }
}

/// A batch of row-major matrices in f64.
struct Mats {
    batch: usize,
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Mats {
    fn of(t: &Tensor) -> Mats {
        let s = t.shape();
        let r = s.len();
        let (rows, cols) = (s[r - 2] as usize, s[r - 1] as usize);
        Mats {
            batch: s[..r - 2].iter().product::<i64>() as usize,
            rows,
            cols,
            data: t.to_f64_vec(),
        }
    }

    fn at(&self, b: usize, i: usize, j: usize) -> f64 {
        self.data[(b * self.rows + i) * self.cols + j]
    }
}

/// Largest `|x·y (first k of x's columns / y's rows) − want|` over a batch, relative to
/// `want`'s largest magnitude (`want` = None means the identity).
fn product_error(x: &Mats, scale: Option<&[f64]>, y: &Mats, k: usize, want: Option<&Mats>) -> f64 {
    let (m, n) = (x.rows, y.cols);
    let mut worst: f64 = 0.0;
    let mut size: f64 = 1.0;
    for b in 0..x.batch {
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for p in 0..k {
                    let d = scale.map_or(1.0, |sc| sc[b * k + p]);
                    s += x.at(b, i, p) * d * y.at(b, p, j);
                }
                let w = match want {
                    Some(w) => w.at(b, i, j),
                    None => f64::from(u8::from(i == j)),
                };
                size = size.max(w.abs());
                worst = worst.max((s - w).abs());
            }
        }
    }
    worst / size
}

/// The transpose of each matrix.
fn transpose(a: &Mats) -> Mats {
    let mut data = Vec::with_capacity(a.data.len());
    for b in 0..a.batch {
        for j in 0..a.cols {
            for i in 0..a.rows {
                data.push(a.at(b, i, j));
            }
        }
    }
    Mats {
        batch: a.batch,
        rows: a.cols,
        cols: a.rows,
        data,
    }
}

/// Compares outputs that are unique with JAX's; returns the problems.
fn compare(case: &Case, got: &[Tensor], which: &[usize]) -> Vec<String> {
    let mut report = vec![];
    for &i in which {
        let want = &case.want[i];
        let tol = if want.dtype().is_float() {
            Tolerance::scaled_to(want, rtol(want.dtype()))
        } else {
            Tolerance::Exact
        };
        let bad = mismatches(&got[i], want, tol);
        if !bad.is_empty() {
            report.push(format!(
                "out{i} {}: {} of {} differ: {}",
                want.ty(),
                bad.len(),
                want.num_elements(),
                bad[..bad.len().min(3)].join("; ")
            ));
        }
    }
    report
}

/// Checks one run's outputs (`got`) of `case`.
fn check(case: &Case, got: &[Tensor]) -> Vec<String> {
    if got.len() != case.want.len() {
        return vec![format!(
            "{} outputs, JAX has {}",
            got.len(),
            case.want.len()
        )];
    }
    let dtype = case.want[0].dtype();
    // Invariants hold to a few ulps times the size: generous multiples of the type's epsilon.
    let eps = if dtype == DType::F32 { 1e-4 } else { 1e-11 };
    let mut report = vec![];
    let mut invariant = |what: &str, err: f64| {
        if err.is_nan() || err > eps {
            report.push(format!("{what}: relative error {err:e} > {eps:e}"));
        }
    };
    let name = case.name.as_str();
    if name.starts_with("qr_") {
        let (a, q, r) = (
            Mats::of(&case.inputs[0]),
            Mats::of(&got[0]),
            Mats::of(&got[1]),
        );
        invariant("Q·R = A", product_error(&q, None, &r, q.cols, Some(&a)));
        invariant(
            "QᵀQ = I",
            product_error(&transpose(&q), None, &q, q.rows, None),
        );
        let mut more = compare(case, got, &[0, 1]);
        report.append(&mut more);
    } else if name.starts_with("eigh_") {
        // jnp.linalg.eigh returns (eigenvalues, eigenvectors).
        let (a, v) = (Mats::of(&case.inputs[0]), Mats::of(&got[1]));
        let w = got[0].to_f64_vec();
        // A·v = v·diag(w), i.e. vᵀ·A·v = diag(w): checked as A = v·diag(w)·vᵀ.
        invariant(
            "v·diag(w)·vᵀ = A",
            product_error(&v, Some(&w), &transpose(&v), v.cols, Some(&a)),
        );
        invariant(
            "vᵀv = I",
            product_error(&transpose(&v), None, &v, v.rows, None),
        );
        let mut more = compare(case, got, &[0]);
        report.append(&mut more);
    } else if name.starts_with("svd_") && !name.starts_with("svd_values") {
        let (a, u, vt) = (
            Mats::of(&case.inputs[0]),
            Mats::of(&got[0]),
            Mats::of(&got[2]),
        );
        let s = got[1].to_f64_vec();
        let k = a.rows.min(a.cols);
        invariant("U·S·Vᵀ = A", product_error(&u, Some(&s), &vt, k, Some(&a)));
        invariant(
            "UᵀU = I",
            product_error(&transpose(&u), None, &u, u.rows, None),
        );
        invariant(
            "V·Vᵀ = I",
            product_error(&vt, None, &transpose(&vt), vt.cols, None),
        );
        let mut more = compare(case, got, &[1]);
        report.append(&mut more);
    } else {
        let all: Vec<usize> = (0..case.want.len()).collect();
        report = compare(case, got, &all);
    }
    report
}

/// Every exported program, interpreted and compiled (optimised and not), matches JAX; the
/// compiled program runs everything natively. All failures are reported together.
#[test]
fn jax_linalg_programs_match_jax_on_both_paths() {
    let names = cases();
    assert!(
        names.len() >= 60,
        "expected the exported cases, found {}",
        names.len()
    );
    let mut failures = vec![];
    for name in &names {
        let case = load(name);
        match support::interpret(&case.module, &case.inputs) {
            Ok(got) => {
                for problem in check(&case, &got) {
                    failures.push(format!("{name} (interpreter): {problem}"));
                }
            }
            Err(e) => failures.push(format!("{name} (interpreter): {e}")),
        }
        for optimize in [true, false] {
            let exe = support::compile_main_with(&case.module, optimize);
            if optimize && !exe.fallback_ops().is_empty() {
                let ops: Vec<&str> = exe.fallback_ops().iter().map(|f| f.op.as_str()).collect();
                failures.push(format!(
                    "{name}: on the interpreter fallback: {}",
                    ops.join(", ")
                ));
            }
            match support::run_compiled(&exe, &case.inputs) {
                Ok(got) => {
                    for problem in check(&case, &got) {
                        failures.push(format!("{name} (compiled, optimize {optimize}): {problem}"));
                    }
                }
                Err(e) => failures.push(format!("{name} (compiled, optimize {optimize}): {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The manifest names the targets each case holds; every one is a LAPACK call both backends
/// read, and together they are the real routines JAX emits for these functions.
#[test]
fn every_exported_target_is_read() {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data_dir().join("manifest.json")).unwrap())
            .unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for name in cases() {
        let case = load(&name);
        let mut targets = vec![];
        for f in &case.module.funcs {
            systolic_ir::walk::walk_ops(&f.body, &mut |op, _| {
                if let Some(call) = LapackCall::from_op(op) {
                    let call = call.unwrap_or_else(|e| panic!("{name}: {e}"));
                    targets.push(call.target.clone());
                    seen.insert(call.routine.name());
                }
            });
        }
        targets.sort();
        targets.dedup();
        let listed: Vec<String> = manifest[&name]["targets"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} is not in manifest.json"))
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        assert_eq!(targets, listed, "{name}");
    }
    let want = ["geqrf", "gesdd", "getrf", "orgqr", "potrf", "syevd", "trsm"];
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), want);
}

/// A factorisation that fails is not an error: `info` reports it and JAX's program turns the
/// factor into NaN (`jnp.linalg.cholesky` of an indefinite matrix is NaN on and below the
/// diagonal, zero above, in JAX 0.10.2 and on both paths here).
#[test]
fn a_failed_cholesky_is_nan_as_in_jax() {
    let case = load("cholesky_f64");
    let mut a = vec![0.0; 16];
    (0..4).for_each(|i| a[i * 4 + i] = 1.0);
    (a[1], a[4]) = (2.0, 2.0);
    let inputs = [Tensor::from_f64(vec![4, 4], DType::F64, a).unwrap()];
    let interp = support::interpret(&case.module, &inputs).unwrap();
    let exe = support::compile_main(&case.module);
    let compiled = support::run_compiled(&exe, &inputs).unwrap();
    for got in [&interp[0], &compiled[0]] {
        let v = got.to_f64_vec();
        for i in 0..4 {
            for j in 0..4 {
                let x = v[i * 4 + j];
                assert!(if j <= i { x.is_nan() } else { x == 0.0 }, "{v:?}");
            }
        }
    }
}
