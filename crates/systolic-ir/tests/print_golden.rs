//! The printer against MLIR's own printer: each `tests/print_golden/NAME.mlir` is what MLIR
//! (jaxlib 0.10.2) printed for `src/NAME.mlir` (see `make_goldens.py`); parsing it and printing
//! it again must give the same text, byte for byte, and a module equivalent to the parsed one.
//! Together the goldens use every op kind with a pretty or generic form MLIR knows; the
//! `jax_*.mlir` ones are whole programs as JAX lowers them (`make_jax_goldens.py`).

use crate::roundtrip_common;

use roundtrip_common::{equivalent, first_difference, mlir_files};
use systolic_ir::text::{parse_module, print_module};

fn golden(name: &str) -> String {
    let path = format!("{}/tests/print_golden/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn goldens_print_back_exactly() {
    let names = mlir_files("print_golden");
    assert!(names.len() >= 30, "goldens missing: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let text = golden(name);
        let module = match parse_module(&text, name) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        let printed = print_module(&module);
        if printed.trim_end() != text.trim_end() {
            failures.push(format!("{name}: {}", first_difference(&text, &printed)));
            continue;
        }
        let reparsed = parse_module(&printed, name).expect("printed text parses");
        if let Err(e) = equivalent(&module, &reparsed) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
