//! The pass manager: order, dumps after every pass, verification naming the pass; and the
//! random program generator the pass tests rely on.

use crate::common;

use common::{parse, random_programs};
use systolic_compiler::{Pass, PassManager, PipelineOptions};
use systolic_ir::{Diagnostic, Module, OpKind};

/// A pass that renames the entry function (so each dump differs).
struct Rename(&'static str);

impl Pass for Rename {
    fn name(&self) -> &'static str {
        self.0
    }
    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        module.funcs[0].name = self.0.to_string();
        Ok(true)
    }
}

/// A pass that breaks the module: drops the function's return.
struct Break;

impl Pass for Break {
    fn name(&self) -> &'static str {
        "break"
    }
    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        module.funcs[0].body.blocks[0].ops.pop();
        Ok(true)
    }
}

const SRC: &str = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";

#[test]
fn dumps_input_and_every_pass_in_order() {
    let dir = std::env::temp_dir().join(format!("systolic-pm-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut pm = PassManager::new(PipelineOptions {
        dump_dir: Some(dir.clone()),
        verify_each: true,
    });
    pm.add(Rename("first")).add(Rename("second"));
    let mut m = parse(SRC);
    pm.run(&mut m).unwrap();
    assert_eq!(m.funcs[0].name, "second");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec!["00-input.mlir", "01-first.mlir", "02-second.mlir"]
    );
    let input = std::fs::read_to_string(dir.join("00-input.mlir")).unwrap();
    assert!(input.contains("@main"), "{input}");
    let first = std::fs::read_to_string(dir.join("01-first.mlir")).unwrap();
    assert!(
        first.contains("@first") && !first.contains("@main"),
        "{first}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verify_each_names_the_pass_that_broke_the_module() {
    let mut pm = PassManager::new(PipelineOptions {
        dump_dir: None,
        verify_each: true,
    });
    pm.add(Rename("fine")).add(Break);
    let mut m = parse(SRC);
    let err = pm.run(&mut m).unwrap_err();
    assert!(err.to_string().contains("after pass `break`"), "{err}");
    // Without verification the broken module goes through.
    let mut pm = PassManager::new(PipelineOptions::default());
    pm.add(Break);
    let mut m = parse(SRC);
    assert!(pm.run(&mut m).is_ok());
}

#[test]
fn standard_pipeline_order() {
    let pm = systolic_compiler::standard_pipeline(PipelineOptions::default());
    let names = pm.pass_names();
    let round = ["simplify", "const_fold", "cf_simplify", "cse", "dce"];
    let mut want = vec!["inline", "chlo_legalize"];
    want.extend(round);
    want.extend(round);
    assert_eq!(names, want);
}

/// The standard pipeline without CHLO legalization (the bit-exact part) as one pass.
struct ExactPipeline;

impl Pass for ExactPipeline {
    fn name(&self) -> &'static str {
        "exact_pipeline"
    }
    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut pm = PassManager::new(PipelineOptions {
            dump_dir: None,
            verify_each: true,
        });
        let full = systolic_compiler::standard_pipeline(PipelineOptions::default());
        for name in full.pass_names() {
            use systolic_compiler::passes::*;
            match name {
                "inline" => pm.add(Inline),
                "simplify" => pm.add(Simplify),
                "const_fold" => pm.add(ConstFold),
                "cf_simplify" => pm.add(CfSimplify),
                "cse" => pm.add(Cse),
                "dce" => pm.add(Dce),
                _ => continue,
            };
        }
        pm.run(module)?;
        Ok(true)
    }
}

#[test]
fn pipeline_preserves_semantics_bit_for_bit_without_chlo() {
    common::assert_pass_preserves_semantics(&ExactPipeline, 300);
}

#[test]
fn pipeline_shrinks_the_goldens_and_matches_jax() {
    let mut before_total = 0;
    let mut after_total = 0;
    for g in common::goldens() {
        // Inlined and legalized first: the cleanup rounds must then make it smaller.
        let mut m = g.module.clone();
        let mut expand = PassManager::new(PipelineOptions::default());
        expand
            .add(systolic_compiler::passes::Inline)
            .add(systolic_compiler::passes::ChloLegalize);
        expand.run(&mut m).unwrap();
        let expanded = m.clone();
        let pm = systolic_compiler::standard_pipeline(PipelineOptions {
            dump_dir: None,
            verify_each: true,
        });
        pm.run(&mut m).unwrap_or_else(|d| panic!("{}: {d}", g.name));
        let count = |m: &Module| {
            let mut n = 0;
            for f in &m.funcs {
                systolic_ir::walk::walk_ops(&f.body, &mut |_, _| n += 1);
            }
            n
        };
        assert!(count(&m) <= count(&expanded), "{} grew", g.name);
        before_total += count(&expanded);
        after_total += count(&m);
        if g.inputs.is_empty() {
            continue; // tour_mlp: its inputs are generated, not stored
        }
        let got = common::run_main(&m, g.inputs.clone()).unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../systolic-cli/tests/data")
            .join(&g.name);
        for (i, v) in got.iter().enumerate() {
            let want = systolic_npy::read(&dir.join(format!("out{i}.npy")), None).unwrap();
            let got = v.as_tensor().unwrap();
            assert_eq!(got.ty(), want.ty(), "{} output {i}", g.name);
            let tol = match want.dtype() {
                systolic_ir::DType::BF16 => 2e-2,
                systolic_ir::DType::F16 => 2e-3,
                systolic_ir::DType::F32 => 2e-5,
                systolic_ir::DType::F64 => 1e-12,
                _ => 0.0,
            };
            for (j, (a, b)) in want.to_f64_vec().iter().zip(got.to_f64_vec()).enumerate() {
                let ok =
                    (a.is_nan() && b.is_nan()) || *a == b || (a - b).abs() <= tol * (1.0 + a.abs());
                assert!(ok, "{} output {i}[{j}]: jax {a}, pipelined {b}", g.name);
            }
        }
    }
    eprintln!("ops in the goldens, inlined and legalized: {before_total}; after the pipeline: {after_total}");
    assert!(after_total < before_total);
}

#[test]
fn random_programs_verify_and_run() {
    let mut kinds = std::collections::HashSet::new();
    for seed in 0..200 {
        let m = random_programs::generate(seed);
        let args = common::random_inputs(&m, seed);
        common::run_main(&m, args).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        systolic_ir::walk::walk_ops(&m.funcs[0].body, &mut |op, _| {
            if !matches!(op.kind, OpKind::Return(_)) {
                kinds.insert(op.kind.name());
            }
        });
    }
    // The generator reaches the patterns the passes look for.
    for k in [
        "stablehlo.if",
        "func.call",
        "stablehlo.transpose",
        "stablehlo.pad",
        "stablehlo.reduce",
        "stablehlo.dot_general",
        "stablehlo.select",
        "stablehlo.while",
    ] {
        assert!(kinds.contains(k), "{k} never generated: {kinds:?}");
    }
}

#[test]
fn report_says_which_passes_changed_the_module() {
    let mut pm = PassManager::new(PipelineOptions::default());
    pm.add(systolic_compiler::passes::Cse)
        .add(systolic_compiler::passes::Dce)
        .add(systolic_compiler::passes::Dce);
    let mut m = parse(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  %1 = stablehlo.add %a, %a : tensor<2xf32>\n  %2 = stablehlo.multiply %0, %1 : tensor<2xf32>\n  %3 = stablehlo.negate %a : tensor<2xf32>\n  return %2 : tensor<2xf32>\n}\n",
    );
    let report = pm.run_with_report(&mut m).unwrap();
    let summary: Vec<(&str, bool)> = report.iter().map(|r| (r.name, r.changed)).collect();
    // CSE merges the adds; the first DCE removes the negate; the second finds nothing.
    assert_eq!(summary, vec![("cse", true), ("dce", true), ("dce", false)]);
}
