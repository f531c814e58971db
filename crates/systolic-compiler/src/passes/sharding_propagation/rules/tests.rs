//! The factor rules of single ops, checked by their einsum-like shape.

use super::*;
use systolic_ir::text::parse_module;
use systolic_ir::Module;

/// The steps of the first op of `@main` in a module built around `body`.
fn steps_of(args: &str, body: &str, ret: &str) -> Vec<Step> {
    let src = format!(
        "module {{\n  func.func @main({args}) -> {ret} {{\n    {body}\n    return %0 : {ret}\n  }}\n}}"
    );
    let m: Module = parse_module(&src, "t.mlir").unwrap_or_else(|d| panic!("{d}\n{src}"));
    let f = &m.funcs[0];
    op_steps(&f.body.blocks[0].ops[0], f, true).unwrap()
}

/// A rule as text: `([a, b], [b, c]) -> ([a, c]) reduction={b}`, factors named a, b, c, … in
/// order of first appearance (operands first), compound dimensions written `ab`, blocked
/// factors upper case.
fn einsum(rule: &OpRule) -> String {
    let mut names: Vec<Option<char>> = vec![None; rule.factors.len()];
    let mut next = b'a';
    let mut name = |f: usize, names: &mut Vec<Option<char>>| {
        *names[f].get_or_insert_with(|| {
            let c = next as char;
            next += 1;
            if rule.factors[f].kind == FactorKind::Blocked {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
    };
    let mut side = |tensors: &[Vec<Vec<usize>>], names: &mut Vec<Option<char>>| {
        let ts: Vec<String> = tensors
            .iter()
            .map(|dims| {
                let ds: Vec<String> = dims
                    .iter()
                    .map(|fs| fs.iter().map(|&f| name(f, names)).collect())
                    .collect();
                format!("[{}]", ds.join(", "))
            })
            .collect();
        ts.join(", ")
    };
    let ins = side(&rule.operands, &mut names);
    let outs = side(&rule.results, &mut names);
    let reductions: String = (0..rule.factors.len())
        .filter(|&f| rule.factors[f].kind == FactorKind::Reduction)
        .filter_map(|f| names[f])
        .collect();
    let mut s = format!("({ins}) -> ({outs})");
    if !reductions.is_empty() {
        s.push_str(&format!(" reduction={{{reductions}}}"));
    }
    s
}

fn sizes(rule: &OpRule) -> Vec<i64> {
    rule.factors.iter().map(|f| f.size).collect()
}

#[test]
fn dot_general_batch_free_and_contracting() {
    let steps = steps_of(
        "%a: tensor<4x8x16xf32>, %b: tensor<4x16x32xf32>",
        "%0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>",
        "tensor<4x8x32xf32>",
    );
    assert_eq!(
        einsum(&steps[0].rule),
        "([a, b, c], [a, c, d]) -> ([a, b, d]) reduction={c}"
    );
    assert_eq!(steps[0].rule.class, OpClass::Other);
}

#[test]
fn reshape_compound_factors() {
    // Shardy's documentation example: ((ij), k) -> (i, (jk)) with i=2, j=4, k=4.
    let steps = steps_of(
        "%x: tensor<8x4xf32>",
        "%0 = stablehlo.reshape %x : (tensor<8x4xf32>) -> tensor<2x16xf32>",
        "tensor<2x16xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([ab, c]) -> ([a, bc])");
    assert_eq!(sizes(&steps[0].rule), [2, 4, 4]);
    // No common structure: 2x3 -> 3x2 is blocked on the operand, free on the result.
    let steps = steps_of(
        "%x: tensor<2x3xf32>",
        "%0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        "tensor<3x2xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([A, B]) -> ([c, d])");
    // 12 -> 8 shares its major 4; the rest (3 then 1x2 against 2x3) has no common
    // structure.
    let steps = steps_of(
        "%x: tensor<12x1x2xf32>",
        "%0 = stablehlo.reshape %x : (tensor<12x1x2xf32>) -> tensor<8x3xf32>",
        "tensor<8x3xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([aB, C, D]) -> ([ae, f])");
    assert_eq!(steps[0].rule.factors[0].size, 4);
}

#[test]
fn broadcasts_transposes_and_reductions() {
    let steps = steps_of(
        "%x: tensor<16x1xf32>",
        "%0 = stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<16x1xf32>) -> tensor<16x8x4xf32>",
        "tensor<16x8x4xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([a, ]) -> ([a, b, c])");
    assert_eq!(steps[0].rule.class, OpClass::Broadcast);
    let steps = steps_of(
        "%x: tensor<2x3x4xf32>",
        "%0 = stablehlo.transpose %x, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
        "tensor<4x2x3xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([a, b, c]) -> ([c, a, b])");
    let steps = steps_of(
        "%x: tensor<16x32xf32>, %z: tensor<f32>",
        "%0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>",
        "tensor<16xf32>",
    );
    assert_eq!(
        einsum(&steps[0].rule),
        "([a, b], []) -> ([a]) reduction={b}"
    );
}

#[test]
fn touched_dimensions_are_blocked() {
    let steps = steps_of(
        "%x: tensor<16x8xf32>",
        "%0 = stablehlo.slice %x [0:16, 2:6] : (tensor<16x8xf32>) -> tensor<16x4xf32>",
        "tensor<16x4xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([a, B]) -> ([a, c])");
    let steps = steps_of(
        "%x: tensor<16x8xf32>, %y: tensor<16x8xf32>",
        "%0 = stablehlo.concatenate %x, %y, dim = 1 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>",
        "tensor<16x16xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([a, B], [a, C]) -> ([a, d])");
}

#[test]
fn gather_passes_whole_operand_dimensions_and_index_batches() {
    // An embedding lookup: table [V, D] indexed by ids [B, 1] -> [B, D]; D passes, B passes
    // from the indices, V (indexed one row at a time) is a reduction factor.
    let steps = steps_of(
        "%t: tensor<64x16xf32>, %i: tensor<8x1xi32>",
        r#"%0 = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>} : (tensor<64x16xf32>, tensor<8x1xi32>) -> tensor<8x16xf32>"#,
        "tensor<8x16xf32>",
    );
    assert_eq!(
        einsum(&steps[0].rule),
        "([a, b], [c, D]) -> ([c, b]) reduction={a}"
    );
}

#[test]
fn custom_calls_block_and_control_flow_is_data_flow() {
    let steps = steps_of(
        "%x: tensor<4x4xf32>",
        "%0 = stablehlo.custom_call @foo(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>",
        "tensor<4x4xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([A, B]) -> ([c, d])");
    let steps = steps_of(
        "%x: tensor<4x4xf32>",
        "%0 = stablehlo.optimization_barrier %x : tensor<4x4xf32>",
        "tensor<4x4xf32>",
    );
    assert_eq!(einsum(&steps[0].rule), "([a, b]) -> ([a, b])");
    assert_eq!(steps[0].rule.class, OpClass::PassThrough);
}
