//! The CPU backend passes (layout, fusion, buffer assignment) after the standard pipeline: on
//! every JAX golden the result is bit for bit what the standard pipeline alone computes, and
//! the fused programs have the expected shape.

use crate::common;

use common::{assert_same_outputs, random_inputs};
use systolic_compiler::backend_pipeline::{cpu_backend_pass_names, cpu_pipeline};
use systolic_compiler::passes::buffer_assignment::PEAK_MEMORY_ATTR;
use systolic_compiler::{standard_pipeline, PipelineOptions};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Attribute, FusionKind, Module, OpKind};

fn options() -> PipelineOptions {
    PipelineOptions {
        dump_dir: None,
        verify_each: true,
    }
}

fn compile(m: &Module) -> (Module, Module) {
    let mut standard = m.clone();
    standard_pipeline(options()).run(&mut standard).unwrap();
    let mut cpu = m.clone();
    cpu_pipeline(options()).run(&mut cpu).unwrap();
    (standard, cpu)
}

fn fusion_kinds(m: &Module) -> Vec<FusionKind> {
    let mut kinds = vec![];
    walk_ops(&m.func("main").unwrap().body, &mut |op, _| {
        if let OpKind::Fusion { kind, .. } = &op.kind {
            kinds.push(*kind);
        }
    });
    kinds
}

#[test]
fn backend_passes_run_in_order() {
    assert_eq!(
        cpu_backend_pass_names(),
        vec!["while-invariants", "layout", "fusion", "buffer-assignment"]
    );
}

#[test]
fn backend_passes_keep_every_golden_bit_exact() {
    for g in common::goldens() {
        let (standard, cpu) = compile(&g.module);
        let what = format!("cpu backend passes on {}", g.name);
        assert_same_outputs(&what, &standard, &cpu, g.inputs.clone());
        for seed in 0..3 {
            assert_same_outputs(&what, &standard, &cpu, random_inputs(&g.module, seed));
        }
        let main = cpu.func("main").unwrap();
        let peak = main.attrs.iter().find(|a| a.name == PEAK_MEMORY_ATTR);
        assert!(
            matches!(peak, Some(a) if matches!(a.value, Attribute::Int(n, _) if n >= 0)),
            "{}: no peak memory attribute",
            g.name
        );
    }
}

#[test]
fn mlp_forward_is_three_product_fusions() {
    let g = common::goldens()
        .into_iter()
        .find(|g| g.name == "mlp_forward")
        .unwrap();
    let (_, cpu) = compile(&g.module);
    assert_eq!(fusion_kinds(&cpu), vec![FusionKind::Product; 3]);
    // Three 8x128 / 8x10 f32 results: the first two alternate in one slab of two buffers.
    let main = cpu.func("main").unwrap();
    let peak = main
        .attrs
        .iter()
        .find(|a| a.name == PEAK_MEMORY_ATTR)
        .unwrap();
    assert_eq!(peak.value, Attribute::Int(2 * 8 * 128 * 4, None));
}
