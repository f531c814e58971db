//! Every JAX-exported program of the repository's test data (systolic-ir's and the CLI's),
//! batched with all parameters mapped (at axis 0, at their last axis, and only the first), checked on the
//! interpreter against per-example runs. Programs with ops that have no rule (custom calls of
//! LAPACK kernels, collectives) must fail with an error naming the op.

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
