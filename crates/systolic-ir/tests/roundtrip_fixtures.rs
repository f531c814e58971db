//! Printing the JAX-exported fixtures of `tests/data` back:
//! - parse(print(m)) is equivalent to m (up to spans and value names);
//! - printing is stable: print(parse(print(m))) == print(m);
//! - without debug locations, print(parse(jax_text)) is exactly the text JAX printed.

use crate::roundtrip_common;

use roundtrip_common::{equivalent, first_difference, fixture, mlir_files};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::Module;

/// The fixtures with their parsed modules, leaving out those with ops the IR does not model
/// (none at the moment), which the parser rejects and its own tests cover.
fn parsed_fixtures() -> Vec<(String, String, Module)> {
    let mut parsed = Vec::new();
    for name in mlir_files("data") {
        let text = fixture(&name);
        match parse_module(&text, &name) {
            Ok(module) => parsed.push((name, text, module)),
            Err(e) if e.to_string().contains("unknown op") => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(parsed.len() >= 20, "fixtures missing: {}", parsed.len());
    parsed
}

#[test]
fn reparsing_printed_fixtures_gives_the_same_module() {
    for (name, _, module) in parsed_fixtures() {
        let printed = print_module(&module);
        let reparsed = parse_module(&printed, &name)
            .unwrap_or_else(|e| panic!("{name}: printed text does not parse: {e}\n{printed}"));
        equivalent(&module, &reparsed).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            print_module(&reparsed),
            printed,
            "{name}: printing is not stable"
        );
    }
}

#[test]
fn fixtures_without_debug_info_print_back_exactly() {
    let mut exact = 0;
    for (name, text, module) in parsed_fixtures() {
        if text.contains("loc(") {
            continue;
        }
        let printed = print_module(&module);
        assert!(
            printed.trim_end() == text.trim_end(),
            "{name}: {}",
            first_difference(&text, &printed)
        );
        exact += 1;
    }
    assert!(exact >= 18, "only {exact} fixtures compared");
}
