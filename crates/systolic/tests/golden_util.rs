//! Shared plumbing of the JSON golden tests written by `tests/data/make_goldens_*.py` scripts
//! that record each case as `{"inputs": [...], "outputs": [...]}`: rebuilding inputs, running a
//! case eagerly and under `jit`, and comparing with JAX's dtype, shape, weak type and values.

use serde_json::Value;
use systolic::{jit, Array};
use systolic_ir::{DType, Tensor};

/// A case's systolic expression: inputs to outputs.
pub type OpFn = Box<dyn Fn(&[Array]) -> Vec<Array>>;

fn dtype(name: &str) -> DType {
    DType::ALL
        .into_iter()
        .find(|d| d.numpy_name() == name)
        .unwrap_or_else(|| panic!("dtype {name}"))
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| match x.as_str() {
            Some("inf") => f64::INFINITY,
            Some("-inf") => f64::NEG_INFINITY,
            _ => x.as_f64().unwrap_or(f64::NAN),
        })
        .collect()
}

fn shape(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Rebuilds a recorded input (strongly typed, as `jnp.asarray` of a typed array is).
pub fn input(v: &Value) -> Array {
    let d = dtype(v["dtype"].as_str().unwrap());
    let s = shape(&v["shape"]);
    let vals = nums(&v["values"]);
    let t = match d.kind() {
        systolic_ir::DTypeKind::Float => Tensor::from_f64(s, d, vals),
        systolic_ir::DTypeKind::Signed => {
            Tensor::from_i64(s, d, vals.iter().map(|&x| x as i64).collect())
        }
        systolic_ir::DTypeKind::Unsigned => {
            Tensor::from_u64(s, d, vals.iter().map(|&x| x as u64).collect())
        }
        systolic_ir::DTypeKind::Bool => {
            Tensor::from_bool(s, vals.iter().map(|&x| x != 0.0).collect())
        }
        // Complex values are recorded as (re, im) pairs, flattened.
        systolic_ir::DTypeKind::Complex => Tensor::from_complex(
            s,
            d,
            vals.chunks(2)
                .map(|p| systolic_ir::Complex64::new(p[0], p[1]))
                .collect(),
        ),
    };
    Array::from_tensor(t.unwrap())
}

/// A relative tolerance (absolute below 1) for an output of this dtype in the named case.
pub type Tolerance = fn(DType, &str) -> f64;

/// Relative tolerance (absolute below 1) per dtype: JAX's own test tolerances, with room for
/// a few ulp of f32 transcendental functions.
pub fn default_tolerance(d: DType, _case: &str) -> f64 {
    match d {
        DType::BF16 => 1e-2,
        DType::F16 => 2e-3,
        DType::F32 => 4e-6,
        DType::F64 => 1e-12,
        _ => 0.0,
    }
}

fn compare(name: &str, how: &str, got: &[Array], want: &Value, tolerance: Tolerance) {
    let want = want.as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name} ({how}): number of outputs");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g
            .check()
            .unwrap_or_else(|e| panic!("{name} ({how}) output {k}: {e}"));
        assert_eq!(
            g.dtype().numpy_name(),
            w["dtype"].as_str().unwrap(),
            "{name} ({how}) output {k} dtype"
        );
        assert_eq!(
            g.shape(),
            shape(&w["shape"]).as_slice(),
            "{name} ({how}) output {k} shape"
        );
        if how == "eager" {
            assert_eq!(
                g.weak_type(),
                w["weak"].as_bool().unwrap(),
                "{name} output {k} weak type"
            );
        }
        let vals = g
            .to_tensor()
            .unwrap_or_else(|e| panic!("{name} ({how}): {e}"))
            .to_f64_vec();
        let wv = nums(&w["values"]);
        assert_eq!(vals.len(), wv.len(), "{name} ({how}) output {k} size");
        let tol = tolerance(g.dtype(), name);
        for (i, (a, b)) in vals.iter().zip(&wv).enumerate() {
            let ok =
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * b.abs().max(1.0);
            assert!(ok, "{name} ({how}) output {k}[{i}]: {a} vs JAX {b}");
        }
    }
}

/// One output from a one-output expression.
pub fn one(f: impl Fn(&[Array]) -> Array + 'static) -> OpFn {
    Box::new(move |x| vec![f(x)])
}

/// Runs one case eagerly and under `jit` and compares both with JAX.
pub fn run_case(golden: &Value, name: &str, op: fn(&str) -> OpFn, tolerance: Tolerance) {
    let case = &golden["cases"][name];
    let inputs: Vec<Array> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(input)
        .collect();
    let f = op(name);
    let eager = f(&inputs);
    compare(name, "eager", &eager, &case["outputs"], tolerance);
    let jf = jit(move |x: &Vec<Array>| f(x));
    let jitted = jf
        .call(&inputs)
        .unwrap_or_else(|e| panic!("{name} (jit): {e}"));
    compare(name, "jit", &jitted, &case["outputs"], tolerance);
}

/// Runs every case whose name starts with one of `prefixes`, reporting all failures at once.
pub fn run_cases(golden: &Value, prefixes: &[&str], op: fn(&str) -> OpFn) {
    run_cases_with(golden, prefixes, op, default_tolerance);
}

/// [`run_cases`] with the file's own tolerances.
pub fn run_cases_with(
    golden: &Value,
    prefixes: &[&str],
    op: fn(&str) -> OpFn,
    tolerance: Tolerance,
) {
    let cases = golden["cases"].as_object().unwrap();
    let mut n = 0;
    let mut failures = vec![];
    for name in cases.keys() {
        if prefixes.iter().any(|p| name.starts_with(p)) {
            n += 1;
            if let Err(e) = std::panic::catch_unwind(|| run_case(golden, name, op, tolerance)) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name}: {msg}"));
            }
        }
    }
    assert!(n > 0, "no cases for {prefixes:?}");
    assert!(
        failures.is_empty(),
        "{} of {n} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Checks that every recorded case has an expression (`op` panics on an unknown name) and is
/// run by some test (its name starts with one of `prefixes`): a case added to a script but not
/// to the tests fails here instead of going unchecked.
pub fn assert_every_case_is_run(golden: &Value, prefixes: &[&str], op: fn(&str) -> OpFn) {
    for name in golden["cases"].as_object().unwrap().keys() {
        let _ = op(name);
        assert!(
            prefixes.iter().any(|p| name.starts_with(p)),
            "golden case {name} is run by no test"
        );
    }
}

/// The error an array carries, as text (the array must have failed).
#[track_caller]
pub fn err_of(a: &Array) -> String {
    a.check().unwrap_err().to_string()
}

/// The failures of `got` (the first `want.len()` arrays, computed as `what` says) against JAX's
/// values `want`: per array whose largest error (relative, absolute below 1) is NaN or above
/// `tol`, a line `"{what} {label} {i}: error …"`; an `Err` is one line. Shared by the gradient
/// and Hessian-vector-product golden tests.
pub fn value_failures(
    what: &str,
    label: &str,
    got: systolic::Result<Vec<Array>>,
    want: &[Vec<f64>],
    tol: f64,
) -> Vec<String> {
    let got = match got {
        Ok(g) => g,
        Err(e) => return vec![format!("{what}: {e}")],
    };
    want.iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let g = got[i].to_tensor().unwrap().to_f64_vec();
            assert_eq!(g.len(), w.len(), "{what} {label} {i}: sizes");
            let err = g
                .iter()
                .zip(w)
                .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
                .fold(0.0, |m, e| if e.is_nan() { f64::NAN } else { m.max(e) });
            (err.is_nan() || err > tol).then(|| format!("{what} {label} {i}: error {err:e}"))
        })
        .collect()
}
