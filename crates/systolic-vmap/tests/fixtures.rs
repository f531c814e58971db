//! Every JAX-exported program of the repository's test data (systolic-ir's and the CLI's),
//! batched with all parameters mapped (at axis 0, at their last axis, and only the first), checked on the
//! interpreter against per-example runs. Programs with ops that have no rule (opaque custom
//! calls, collectives) must fail with an error naming the op. JAX's LAPACK programs are
//! checked separately ([`jax_lapack_programs`]).

use crate::common;

use common::check_module;
use systolic_ir::text::parse_module;

fn programs() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut out = vec![];
    let ir = format!("{root}/systolic-ir/tests/data");
    for e in std::fs::read_dir(&ir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "mlir") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    let cli = format!("{root}/systolic-cli/tests/data");
    for e in std::fs::read_dir(&cli).unwrap() {
        let p = e.unwrap().path().join("module.mlir");
        if p.exists() {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn repository_programs() {
    let mut report = vec![];
    for (path, src) in programs() {
        let Ok(m) = parse_module(&src, &path) else {
            continue;
        };
        let Some(f) = m.func("main") else { continue };
        let n = f.params().len();
        if n == 0 || f.param_types().iter().any(|t| t.as_tensor().is_none()) {
            continue;
        }
        let all = vec![Some(0); n];
        let mut first = vec![None; n];
        first[0] = Some(0);
        let last: Vec<Option<usize>> = f
            .param_types()
            .iter()
            .map(|t| Some(t.as_tensor().unwrap().rank()))
            .collect();
        for axes in [all, first, last] {
            match systolic_vmap::vmap_module(&m, "main", &axes, 2, &[Some(0)]) {
                Ok(_) => {
                    let r = std::panic::catch_unwind(|| {
                        check_module(&m, "main", &axes, 2, &[Some(0)], 5);
                    });
                    report.push(format!(
                        "{path} {axes:?}: {}",
                        if r.is_ok() { "ok" } else { "MISMATCH" }
                    ));
                }
                Err(e) => report.push(format!("{path} {axes:?}: error {e}")),
            }
        }
    }
    println!("{}", report.join("\n"));
    let bad: Vec<&String> = report
        .iter()
        .filter(|r| {
            r.ends_with("MISMATCH")
                || (r.contains(": error") && !r.contains("stablehlo.custom_call: target @"))
        })
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    let ok = report.iter().filter(|r| r.ends_with(": ok")).count();
    assert!(ok >= 100, "only {ok} batched programs checked");
}

/// JAX's exported `jnp.linalg`/`jax.scipy.linalg` programs (`systolic-cpu`'s LAPACK goldens,
/// `scripts/linalg_custom_call_goldens.py`): the LAPACK custom calls batch (their flags kept
/// from `mhlo.backend_config`, their per-rank layouts dropped), checked on the interpreter
/// against per-example runs with every parameter mapped at axis 0.
#[test]
fn jax_lapack_programs() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../systolic-cpu/tests/data/linalg"
    );
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().join("program.mlir"))
        .filter(|p| p.exists())
        .collect();
    paths.sort();
    let mut failures = vec![];
    let mut n = 0;
    for path in paths {
        let src = std::fs::read_to_string(&path).unwrap();
        if !src.contains("@lapack_") {
            continue;
        }
        let m = parse_module(&src, &path.display().to_string()).unwrap();
        let nparams = m.func("main").unwrap().params().len();
        n += 1;
        let axes = vec![Some(0); nparams];
        let r = std::panic::catch_unwind(|| check_module(&m, "main", &axes, 2, &[Some(0)], 7));
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let first = msg.lines().next().unwrap_or_default().to_string();
            failures.push(format!("{}: {first}", path.display()));
        }
    }
    assert!(n > 50, "only {n} LAPACK programs");
    assert!(
        failures.is_empty(),
        "{} of {n}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
