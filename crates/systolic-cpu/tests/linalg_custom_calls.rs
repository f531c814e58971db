//! JAX's linear algebra as JAX 0.10.2 lowers it on CPU — LAPACK custom calls — run on the
//! interpreter and compiled, against JAX's outputs (tests/data/linalg/, made by
//! scripts/linalg_custom_call_goldens.py: `jnp.linalg` inv, solve, det, slogdet, cholesky, qr,
//! eigh, eigvalsh, svd, lstsq, pinv, matrix_power; `jax.scipy.linalg` lu, lu_factor, lu_solve,
//! cho_factor/cho_solve, solve_triangular, expm; f32 and f64, unbatched and batched; most of
//! them again on complex64 and complex128; `jnp.linalg.eig`/`eigvals` and `jax.lax.linalg.eig`
//! with left eigenvectors on all four types; `jax.scipy.linalg.hessenberg` and
//! `jax.lax.linalg.tridiagonal`, whose packed reflectors are compared as they are;
//! `jax.scipy.linalg.schur`, by its invariants (`a = z·t·zᴴ`, `z` unitary, `t` in Schur form,
//! the eigenvalues of `t` as JAX's); and the same functions lowered for TPUs, whose
//! programs hold XLA's targets `Qr`, `ProductOfElementaryHouseholderReflectors`, `Eigh` and
//! `LuDecomposition`, against JAX's outputs on CPU).
//!
//! Outputs that are unique are compared with JAX's (pivots exactly, floats within a tolerance
//! scaled to each output's magnitude). Eigenvectors and singular vectors are unique only up to
//! sign (a unit factor for complex types), so for them the invariants are checked:
//! `A = v·diag(w)·vᴴ`, `vᴴv = I`, `U·S·Vᴴ = A`, `UᴴU = I`, `V·Vᴴ = I`; for the general
//! eigenproblem `A·v = v·diag(w)`, `uᴴ·A = diag(w)·uᴴ`, unit columns, and the eigenvalues
//! matched to JAX's as a set (neither orders them). QR's factors follow LAPACK's conventions and
//! are compared directly, with `Q·R = A` and `QᴴQ = I` besides. The compiled program must run
//! every op natively and agree with the interpreter.

use crate::support;

use std::path::{Path, PathBuf};
use support::compare::{mismatches, Tolerance};
use systolic_ir::lapack::LapackCall;
use systolic_ir::{Complex64, DType, Module, Tensor};

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
    if matches!(dtype, DType::F32 | DType::C64) {
        2e-4
    } else {
        1e-10
    }
}

/// The elements of `t` as complex numbers (real tensors with zero imaginary parts).
fn complex_values(t: &Tensor) -> Vec<Complex64> {
    match t.data() {
        systolic_ir::Data::Complex(v) => v.clone(),
        _ => t
            .to_f64_vec()
            .into_iter()
            .map(|x| Complex64::new(x, 0.0))
            .collect(),
    }
}

/// A batch of row-major matrices in complex f64 (real ones with zero imaginary parts).
struct Mats {
    batch: usize,
    rows: usize,
    cols: usize,
    data: Vec<Complex64>,
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
            data: complex_values(t),
        }
    }

    fn at(&self, b: usize, i: usize, j: usize) -> Complex64 {
        self.data[(b * self.rows + i) * self.cols + j]
    }
}

/// Largest `|x·diag(scale)·y (first k of x's columns / y's rows) − want|` over a batch,
/// relative to `want`'s largest magnitude (`want` = None means the identity).
fn product_error(
    x: &Mats,
    scale: Option<&[Complex64]>,
    y: &Mats,
    k: usize,
    want: Option<&Mats>,
) -> f64 {
    let (m, n) = (x.rows, y.cols);
    let mut worst: f64 = 0.0;
    let mut size: f64 = 1.0;
    let one = Complex64::new(1.0, 0.0);
    for b in 0..x.batch {
        for i in 0..m {
            for j in 0..n {
                let mut s = Complex64::new(0.0, 0.0);
                for p in 0..k {
                    let d = scale.map_or(one, |sc| sc[b * k + p]);
                    s += x.at(b, i, p) * d * y.at(b, p, j);
                }
                let w = match want {
                    Some(w) => w.at(b, i, j),
                    None => Complex64::new(f64::from(u8::from(i == j)), 0.0),
                };
                size = size.max(w.norm());
                worst = worst.max((s - w).norm());
            }
        }
    }
    worst / size
}

/// The conjugate transpose of each matrix (the transpose of a real one).
fn adjoint(a: &Mats) -> Mats {
    let mut data = Vec::with_capacity(a.data.len());
    for b in 0..a.batch {
        for j in 0..a.cols {
            for i in 0..a.rows {
                data.push(a.at(b, i, j).conj());
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

/// Largest distance from each of JAX's eigenvalues to the nearest unused one of ours (each of
/// ours is used once), relative to the largest modulus, per matrix of the batch.
fn eigenvalue_set_error(got: &[Complex64], want: &[Complex64], n: usize) -> f64 {
    let size = want.iter().fold(1.0f64, |m, z| m.max(z.norm()));
    let mut worst: f64 = 0.0;
    for (g, w) in got.chunks(n.max(1)).zip(want.chunks(n.max(1))) {
        let mut used = vec![false; g.len()];
        for wz in w {
            let best = (0..g.len())
                .filter(|&i| !used[i])
                .min_by(|&a, &b| (g[a] - wz).norm().total_cmp(&(g[b] - wz).norm()));
            match best {
                Some(i) => {
                    used[i] = true;
                    worst = worst.max((g[i] - wz).norm());
                }
                None => return f64::INFINITY,
            }
        }
    }
    worst / size
}

/// Largest `|‖column‖ − 1|` of each matrix.
fn unit_columns_error(v: &Mats) -> f64 {
    let mut worst: f64 = 0.0;
    for b in 0..v.batch {
        for j in 0..v.cols {
            let norm = (0..v.rows)
                .map(|i| v.at(b, i, j).norm_sqr())
                .sum::<f64>()
                .sqrt();
            worst = worst.max((norm - 1.0).abs());
        }
    }
    worst
}

/// The product of two batches of matrices.
fn multiply(x: &Mats, y: &Mats) -> Mats {
    let mut data = Vec::with_capacity(x.batch * x.rows * y.cols);
    for b in 0..x.batch {
        for i in 0..x.rows {
            for j in 0..y.cols {
                data.push((0..x.cols).map(|p| x.at(b, i, p) * y.at(b, p, j)).sum());
            }
        }
    }
    Mats {
        batch: x.batch,
        rows: x.rows,
        cols: y.cols,
        data,
    }
}

/// How far `t` is from a Schur form: entries below the diagonal (complex) or below a real
/// Schur form's 2×2 blocks (real: a nonzero subdiagonal entry opens a block whose diagonal
/// entries are equal and whose off-diagonal entries have opposite signs, and no two blocks
/// touch), relative to `t`'s largest entry.
fn schur_shape_error(t: &Mats, complex: bool) -> f64 {
    let size = t.data.iter().fold(1.0f64, |m, z| m.max(z.norm()));
    let mut worst: f64 = 0.0;
    for b in 0..t.batch {
        let n = t.rows;
        for i in 0..n {
            for j in 0..i {
                let allowed = !complex && i == j + 1;
                if !allowed {
                    worst = worst.max(t.at(b, i, j).norm());
                }
            }
        }
        if !complex {
            for i in 0..n.saturating_sub(1) {
                let c = t.at(b, i + 1, i).re;
                if c != 0.0 {
                    let (a, d, bb) = (
                        t.at(b, i, i).re,
                        t.at(b, i + 1, i + 1).re,
                        t.at(b, i, i + 1).re,
                    );
                    worst = worst.max((a - d).abs());
                    if bb * c >= 0.0 {
                        worst = worst.max(f64::INFINITY);
                    }
                    if i + 2 < n && t.at(b, i + 2, i + 1).re != 0.0 {
                        worst = worst.max(f64::INFINITY);
                    }
                }
            }
        }
    }
    worst / size
}

/// The eigenvalues of Schur forms: the diagonal, and each real 2×2 block's pair.
fn schur_eigenvalues(t: &Mats) -> Vec<Complex64> {
    let mut out = vec![];
    for b in 0..t.batch {
        let n = t.rows;
        let mut i = 0;
        while i < n {
            let c = if i + 1 < n {
                t.at(b, i + 1, i)
            } else {
                Complex64::new(0.0, 0.0)
            };
            if c.norm() != 0.0 && c.im == 0.0 && t.at(b, i, i).im == 0.0 {
                let (a, bb, d) = (t.at(b, i, i), t.at(b, i, i + 1), t.at(b, i + 1, i + 1));
                let half = (a - d) * 0.5;
                let root = (half * half + bb * c).sqrt();
                out.push((a + d) * 0.5 + root);
                out.push((a + d) * 0.5 - root);
                i += 2;
            } else {
                out.push(t.at(b, i, i));
                i += 1;
            }
        }
    }
    out
}

/// `v·diag(w)`: each column `j` of matrix `b` scaled by `w[b·n + j]`.
fn scaled(v: &Mats, w: &[Complex64]) -> Mats {
    let mut data = v.data.clone();
    for b in 0..v.batch {
        for i in 0..v.rows {
            for j in 0..v.cols {
                data[(b * v.rows + i) * v.cols + j] *= w[b * v.cols + j];
            }
        }
    }
    Mats {
        batch: v.batch,
        rows: v.rows,
        cols: v.cols,
        data,
    }
}

/// Compares outputs that are unique with JAX's; returns the problems.
fn compare(case: &Case, got: &[Tensor], which: &[usize]) -> Vec<String> {
    let mut report = vec![];
    for &i in which {
        let want = &case.want[i];
        let tol = if want.dtype().is_float_or_complex() {
            let magnitude = complex_values(want)
                .iter()
                .filter(|z| z.re.is_finite() && z.im.is_finite())
                .fold(0.0f64, |m, z| m.max(z.norm()));
            let rtol = rtol(want.dtype());
            Tolerance::Close {
                rtol,
                atol: rtol * magnitude,
            }
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
    let eps = if matches!(dtype, DType::F32 | DType::C64) {
        1e-4
    } else {
        1e-11
    };
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
            "QᴴQ = I",
            product_error(&adjoint(&q), None, &q, q.rows, None),
        );
        let mut more = compare(case, got, &[0, 1]);
        report.append(&mut more);
    } else if name.starts_with("eigh_") {
        // jnp.linalg.eigh returns (eigenvalues, eigenvectors).
        let (a, v) = (Mats::of(&case.inputs[0]), Mats::of(&got[1]));
        let w = complex_values(&got[0]);
        // A·v = v·diag(w), i.e. vᴴ·A·v = diag(w): checked as A = v·diag(w)·vᴴ.
        invariant(
            "v·diag(w)·vᴴ = A",
            product_error(&v, Some(&w), &adjoint(&v), v.cols, Some(&a)),
        );
        invariant(
            "vᴴv = I",
            product_error(&adjoint(&v), None, &v, v.rows, None),
        );
        let mut more = compare(case, got, &[0]);
        report.append(&mut more);
    } else if name.starts_with("svd_") && !name.starts_with("svd_values") {
        let (a, u, vt) = (
            Mats::of(&case.inputs[0]),
            Mats::of(&got[0]),
            Mats::of(&got[2]),
        );
        let s = complex_values(&got[1]);
        let k = a.rows.min(a.cols);
        invariant("U·S·Vᴴ = A", product_error(&u, Some(&s), &vt, k, Some(&a)));
        invariant(
            "UᴴU = I",
            product_error(&adjoint(&u), None, &u, u.rows, None),
        );
        invariant(
            "V·Vᴴ = I",
            product_error(&vt, None, &adjoint(&vt), vt.cols, None),
        );
        let mut more = compare(case, got, &[1]);
        report.append(&mut more);
    } else if name.starts_with("schur_") {
        // jax.scipy.linalg.schur: (t, z) with a = z·t·zᴴ.
        let (a, t, z) = (
            Mats::of(&case.inputs[0]),
            Mats::of(&got[0]),
            Mats::of(&got[1]),
        );
        let zt = multiply(&z, &t);
        invariant(
            "z·t·zᴴ = a",
            product_error(&zt, None, &adjoint(&z), z.cols, Some(&a)),
        );
        invariant(
            "zᴴz = I",
            product_error(&adjoint(&z), None, &z, z.rows, None),
        );
        let complex = dtype.is_complex();
        invariant("t is (quasi-)triangular", schur_shape_error(&t, complex));
        let n = a.rows;
        invariant(
            "eigenvalues as a set",
            eigenvalue_set_error(
                &schur_eigenvalues(&t),
                &schur_eigenvalues(&Mats::of(&case.want[0])),
                n,
            ),
        );
    } else if name.starts_with("eig_") || name.starts_with("eigvals_") {
        // eig: (w, v); eig_left (jax.lax.linalg.eig): (w, vl, vr); eigvals: w.
        let a = Mats::of(&case.inputs[0]);
        let n = a.rows;
        let w = complex_values(&got[0]);
        if got[0].ty() != case.want[0].ty() {
            // An infinite error reports the mismatched type through the invariant.
            invariant("w has JAX's type", f64::INFINITY);
        }
        invariant(
            "eigenvalues as a set",
            eigenvalue_set_error(&w, &complex_values(&case.want[0]), n),
        );
        let right = got.last().filter(|_| got.len() > 1).map(Mats::of);
        if let Some(v) = &right {
            // A·v = v·diag(w).
            let av = product_error(&a, None, v, n, Some(&scaled(v, &w)));
            invariant("A·v = v·diag(w)", av);
            invariant("‖v‖ = 1", unit_columns_error(v));
        }
        if got.len() == 3 {
            // uᴴ·A = diag(w)·uᴴ, i.e. Aᴴ·u = u·diag(w̄).
            let u = Mats::of(&got[1]);
            let conj_w: Vec<Complex64> = w.iter().map(|z| z.conj()).collect();
            let au = product_error(&adjoint(&a), None, &u, n, Some(&scaled(&u, &conj_w)));
            invariant("uᴴ·A = diag(w)·uᴴ", au);
            invariant("‖u‖ = 1", unit_columns_error(&u));
        }
    } else {
        let all: Vec<usize> = (0..case.want.len()).collect();
        report = compare(case, got, &all);
    }
    report
}

/// Every exported program, interpreted and compiled (optimised and not), matches JAX; the
/// compiled program runs everything natively (complex programs: every LAPACK call). All failures are reported together.
#[test]
fn jax_linalg_programs_match_jax_on_both_paths() {
    let names = cases();
    assert!(
        names.len() >= 150,
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
            // Complex programs' elementwise ops have no native kernels yet (they run on the
            // fallback); their LAPACK calls must be native all the same.
            let complex = name.contains("_c64") || name.contains("_c128") || name.contains("eig");
            let fallback: Vec<&str> = exe
                .fallback_ops()
                .iter()
                .map(|f| f.op.as_str())
                .filter(|op| !complex || *op == "stablehlo.custom_call")
                .collect();
            if optimize && !fallback.is_empty() {
                let ops = fallback;
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
/// read, and together they are the routines JAX emits for these functions (the complex
/// targets `heevd`/`ungqr` are read as `syevd`/`orgqr`).
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
    let want = [
        "gees", "geev", "gehrd", "geqrf", "gesdd", "getrf", "orgqr", "potrf", "syevd", "sytrd",
        "trsm",
    ];
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
