//! Every MLIR file elsewhere in the workspace goes through print → parse: the JAX exports the
//! CLI runs (`systolic-cli/tests/data/*/module.mlir`, which must also print back byte for byte),
//! the interpreter's test files (hand-written, several modules per file split by `// -----`)
//! and the verifier's inputs. A chunk the parser rejects is skipped (the parser's and verifier's
//! own tests cover those); whatever parses must print to text that parses back to an
//! equivalent module, and print the same again.

use crate::roundtrip_common;

use roundtrip_common::{equivalent, first_difference};
use systolic_ir::text::{parse_module, print_module};

/// `.mlir` files under `dir` (relative to the workspace root), recursively, sorted.
fn mlir_files_under(dir: &str) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(path) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "mlir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Round-trips each `// -----` chunk of each file; returns (chunks parsed, failures).
fn round_trip_all(dir: &str, exact: bool) -> (usize, Vec<String>) {
    let mut parsed = 0;
    let mut failures = Vec::new();
    for path in mlir_files_under(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        for (i, chunk) in text.split("\n// -----").enumerate() {
            let Ok(module) = parse_module(chunk, &name) else {
                continue;
            };
            parsed += 1;
            let printed = print_module(&module);
            let reparsed = match parse_module(&printed, &name) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{name} #{i}: printed text does not parse: {e}"));
                    continue;
                }
            };
            if let Err(e) = equivalent(&module, &reparsed) {
                failures.push(format!("{name} #{i}: {e}"));
            } else if print_module(&reparsed) != printed {
                failures.push(format!("{name} #{i}: printing is not stable"));
            } else if exact && !chunk.contains("loc(") && printed.trim_end() != chunk.trim_end() {
                failures.push(format!("{name}: {}", first_difference(chunk, &printed)));
            }
        }
    }
    (parsed, failures)
}

#[test]
fn cli_jax_exports_print_back_exactly() {
    let (parsed, failures) = round_trip_all("crates/systolic-cli/tests/data", true);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(parsed >= 10, "only {parsed} CLI modules parsed");
}

#[test]
fn interpreter_tests_round_trip() {
    let (parsed, failures) = round_trip_all("crates/systolic-interp/tests/interpret", false);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(parsed >= 20, "only {parsed} interpreter modules parsed");
}

#[test]
fn verifier_inputs_round_trip() {
    let (parsed, failures) = round_trip_all("crates/systolic-ir/tests/verify_data", false);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(parsed >= 10, "only {parsed} verifier inputs parsed");
}
