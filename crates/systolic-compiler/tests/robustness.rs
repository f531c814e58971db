//! No pass panics on any verified module of the workspace (every `.mlir` under a crate's
//! `tests/`, split at `// -----`), and every pass that succeeds leaves a module that verifies.
//! A pass may refuse a module (recursion for `inline`, an element type `chlo_legalize` cannot
//! decompose) with an error naming the op; it may not crash or produce an invalid module.

use std::path::{Path, PathBuf};
use systolic_compiler::passes::{CfSimplify, ChloLegalize, ConstFold, Cse, Dce, Inline, Simplify};
use systolic_compiler::{standard_pipeline, Pass, PipelineOptions};
use systolic_ir::text::parse_module;
use systolic_ir::verify::verify_module;
use systolic_ir::Module;

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            mlir_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "mlir") {
            out.push(p);
        }
    }
}

/// Every verified module in the workspace's test data, named `path#piece`.
fn verified_modules() -> Vec<(String, Module)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![];
    for c in std::fs::read_dir(&crates).unwrap().flatten() {
        mlir_files(&c.path().join("tests"), &mut files);
    }
    files.sort();
    let mut out = vec![];
    for f in files {
        let Ok(src) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (i, piece) in src.split("\n// -----").enumerate() {
            if let Ok(m) = parse_module(piece, "piece") {
                if verify_module(&m).is_ok() {
                    out.push((format!("{}#{i}", f.display()), m));
                }
            }
        }
    }
    out
}

#[test]
fn every_pass_on_every_verified_module() {
    let modules = verified_modules();
    assert!(modules.len() >= 150, "only {} modules found", modules.len());
    let passes: Vec<Box<dyn Pass>> = vec![
        Box::new(Inline),
        Box::new(ChloLegalize),
        Box::new(Simplify),
        Box::new(ConstFold),
        Box::new(CfSimplify),
        Box::new(Cse),
        Box::new(Dce),
    ];
    let mut refusals = vec![];
    for (name, m) in &modules {
        for pass in &passes {
            let mut copy = m.clone();
            match pass.run(&mut copy) {
                Ok(_) => {
                    if let Err(ds) = verify_module(&copy) {
                        panic!("{} broke {name}: {}", pass.name(), ds[0]);
                    }
                }
                Err(d) => {
                    assert!(
                        !d.message.contains("internal"),
                        "{} on {name}: {d}",
                        pass.name()
                    );
                    refusals.push(format!("{} on {name}: {d}", pass.name()));
                }
            }
        }
        let pm = standard_pipeline(PipelineOptions {
            dump_dir: None,
            verify_each: true,
        });
        let mut copy = m.clone();
        if let Err(d) = pm.run(&mut copy) {
            assert!(
                !d.message.contains("invalid after"),
                "pipeline on {name}: {d}"
            );
        }
    }
    eprintln!(
        "{} modules; refusals:\n{}",
        modules.len(),
        refusals.join("\n")
    );
}
