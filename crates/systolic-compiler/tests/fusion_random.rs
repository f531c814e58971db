//! Random fusion-heavy programs (elementwise webs over two shapes, reductions, broadcasts back,
//! products, unfusable ops in between, intermediate values returned): after fusion every
//! program verifies and computes the same bits as before.

use crate::common;

use common::{assert_same_outputs, parse, random_inputs, run_pass, Lcg};
use systolic_compiler::passes::{BufferAssignmentPass, Fusion, Layout};
use systolic_ir::walk::walk_ops;
use systolic_ir::{FusionKind, Module, OpKind};

/// (loop, reduction, product, multi-output) fusions in `m`.
fn tally(m: &Module) -> [usize; 4] {
    let mut t = [0; 4];
    walk_ops(&m.funcs[0].body, &mut |op, _| {
        if let OpKind::Fusion { kind, .. } = &op.kind {
            t[match kind {
                FusionKind::Loop => 0,
                FusionKind::Reduction => 1,
                FusionKind::Product => 2,
            }] += 1;
            t[3] += usize::from(op.results.len() > 1);
        }
    });
    t
}

const WIDE: &str = "tensor<4x8xf32>";
const NARROW: &str = "tensor<4xf32>";

/// A program of `n` ops over `%x`, `%y` (4x8) and `%w` (8x8).
fn program(seed: u64, n: usize) -> String {
    let mut rng = Lcg(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let mut pick = |k: usize| (rng.next() % k as u64) as usize;
    let mut wide = vec!["%x".to_string(), "%y".to_string()];
    let mut narrow: Vec<String> = vec![];
    let mut body = vec![];
    for i in 0..n {
        let v = format!("%v{i}");
        let a = wide[pick(wide.len())].clone();
        let b = wide[pick(wide.len())].clone();
        let line = match pick(11) {
            0 | 1 => {
                let u = ["exponential", "negate", "tanh", "abs", "sine", "sqrt"][pick(6)];
                format!("{v} = stablehlo.{u} {a} : {WIDE}")
            }
            2 | 3 => {
                let op = ["add", "multiply", "subtract", "maximum", "divide"][pick(5)];
                format!("{v} = stablehlo.{op} {a}, {b} : {WIDE}")
            }
            4 => {
                let (op, init) = [("add", "0.0"), ("maximum", "0xFF800000")][pick(2)];
                body.push(format!(
                    "%i{i} = stablehlo.constant dense<{init}> : tensor<f32>"
                ));
                let line = format!(
                    "{v} = stablehlo.reduce({a} init: %i{i}) applies stablehlo.{op} across dimensions = [1] : ({WIDE}, tensor<f32>) -> {NARROW}"
                );
                body.push(line);
                narrow.push(v);
                continue;
            }
            5 if !narrow.is_empty() => {
                let r = narrow[pick(narrow.len())].clone();
                format!("{v} = stablehlo.broadcast_in_dim {r}, dims = [0] : ({NARROW}) -> {WIDE}")
            }
            6 if !narrow.is_empty() => {
                let r = narrow[pick(narrow.len())].clone();
                let s = narrow[pick(narrow.len())].clone();
                let line = format!("{v} = stablehlo.multiply {r}, {s} : {NARROW}");
                body.push(line);
                narrow.push(v);
                continue;
            }
            7 => format!("{v} = stablehlo.reverse {a}, dims = [1] : {WIDE}"),
            8 => format!(
                "{v} = stablehlo.dot_general {a}, %w, contracting_dims = [1] x [0] : ({WIDE}, tensor<8x8xf32>) -> {WIDE}"
            ),
            9 => {
                body.push(format!(
                    "%p{i} = stablehlo.compare GT, {a}, {b} : ({WIDE}, {WIDE}) -> tensor<4x8xi1>"
                ));
                format!("{v} = stablehlo.select %p{i}, {a}, {b} : tensor<4x8xi1>, {WIDE}")
            }
            _ => {
                body.push(format!("%c{i} = stablehlo.constant dense<0.5> : tensor<f32>"));
                body.push(format!(
                    "%b{i} = stablehlo.broadcast_in_dim %c{i}, dims = [] : (tensor<f32>) -> {WIDE}"
                ));
                format!("{v} = stablehlo.multiply {a}, %b{i} : {WIDE}")
            }
        };
        body.push(line);
        wide.push(v);
    }
    // Return the last value and a few intermediate ones (readers outside every fusion).
    let mut results = vec![wide.last().unwrap().clone()];
    for _ in 0..2 {
        let v = wide[pick(wide.len())].clone();
        if !results.contains(&v) && v.starts_with("%v") {
            results.push(v);
        }
    }
    if let Some(r) = narrow.last() {
        results.push(r.clone());
    }
    let types: Vec<&str> = results
        .iter()
        .map(|r| if narrow.contains(r) { NARROW } else { WIDE })
        .collect();
    format!(
        "func.func public @main(%x: {WIDE}, %y: {WIDE}, %w: tensor<8x8xf32>) -> ({}) {{\n  {}\n  return {} : {}\n}}\n",
        types.join(", "),
        body.join("\n  "),
        results.join(", "),
        types.join(", ")
    )
}

#[test]
fn random_fusion_heavy_programs_keep_their_results() {
    let mut total = [0; 4];
    for seed in 0..400 {
        let src = program(seed, 6 + (seed as usize % 30));
        let m = parse(&src);
        let fused = run_pass(&Fusion, &run_pass(&Layout, &m));
        let assigned = run_pass(&BufferAssignmentPass, &fused);
        for (t, n) in total.iter_mut().zip(tally(&fused)) {
            *t += n;
        }
        for s in 0..2 {
            let what = format!("fusion on random program {seed}");
            assert_same_outputs(&what, &m, &assigned, random_inputs(&m, seed * 3 + s));
        }
    }
    // The corpus exercises every kind of fusion, and multi-output ones.
    assert!(
        total.iter().all(|&n| n >= 20),
        "loop, reduction, product, multi-output: {total:?}"
    );
}
