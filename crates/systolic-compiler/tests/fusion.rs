//! The fusion pass: what it groups (structure) and that it never changes a result (bit-exact
//! against the interpreter on every JAX golden, check file and random program).

use crate::common;

use common::{assert_same_outputs, count, parse, random_inputs, run_pass};
use systolic_compiler::passes::Fusion;
use systolic_ir::text::print_module;
use systolic_ir::{FusionKind, Module, Op, OpKind};

/// The top-level fusions of `@main`: (kind, names of the ops in the region, number of results).
fn fusions(m: &Module) -> Vec<(FusionKind, Vec<String>, usize)> {
    m.func("main").unwrap().body.blocks[0]
        .ops
        .iter()
        .filter_map(|op| match &op.kind {
            OpKind::Fusion { kind, .. } => Some((*kind, region_names(op), op.results.len())),
            _ => None,
        })
        .collect()
}

fn region_names(op: &Op) -> Vec<String> {
    op.regions[0].blocks[0]
        .ops
        .iter()
        .map(|o| o.kind.name().trim_start_matches("stablehlo.").to_string())
        .collect()
}

fn top_names(m: &Module) -> Vec<String> {
    m.func("main").unwrap().body.blocks[0]
        .ops
        .iter()
        .map(|o| o.kind.name())
        .collect()
}

/// Asserts that `@main` holds `n` ops named `name`, printing the module when it does not.
fn assert_main_count(out: &Module, name: &str, n: usize) {
    assert_eq!(count(out, "main", name), n, "{name}\n{}", print_module(out));
}

fn fuse_and_check(src: &str) -> Module {
    let m = parse(src);
    let out = run_pass(&Fusion, &m);
    for seed in 0..4 {
        assert_same_outputs("fusion", &m, &out, random_inputs(&m, seed));
    }
    out
}

#[test]
fn elementwise_chain_with_broadcast_constant_is_one_loop() {
    let out = fuse_and_check(
        r#"
func.func public @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  %1 = stablehlo.multiply %0, %cb : tensor<4x8xf32>
  %2 = stablehlo.tanh %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
"#,
    );
    assert_eq!(top_names(&out), vec!["systolic.fusion", "func.return"]);
    let f = fusions(&out);
    assert_eq!(f[0].0, FusionKind::Loop);
    assert_eq!(
        f[0].1,
        vec![
            "constant",
            "broadcast_in_dim",
            "add",
            "multiply",
            "tanh",
            "return"
        ]
    );
    // The region takes exactly the two parameters.
    let op = &out.funcs[0].body.blocks[0].ops[0];
    assert_eq!(op.operands, out.funcs[0].params().to_vec());
}

#[test]
fn matmul_bias_relu_is_one_product_fusion() {
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
  %2 = stablehlo.add %0, %1 : tensor<8x32xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
  %3 = stablehlo.maximum %2, %zb : tensor<8x32xf32>
  return %3 : tensor<8x32xf32>
}
"#,
    );
    let f = fusions(&out);
    assert_eq!(f.len(), 1, "{}", print_module(&out));
    assert_eq!(f[0].0, FusionKind::Product);
    assert_eq!(
        f[0].1,
        vec![
            "dot_general",
            "broadcast_in_dim",
            "add",
            "constant",
            "broadcast_in_dim",
            "maximum",
            "return"
        ]
    );
}

#[test]
fn reduction_takes_its_producers_and_epilogue() {
    // mean(exp(x), axis=1)
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4x8xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %n = stablehlo.constant dense<8.0> : tensor<f32>
  %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.divide %1, %nb : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"#,
    );
    let f = fusions(&out);
    assert_eq!(f.len(), 1, "{}", print_module(&out));
    assert_eq!(f[0].0, FusionKind::Reduction);
    assert_eq!(
        f[0].1,
        vec![
            "exponential",
            "constant",
            "reduce",
            "constant",
            "broadcast_in_dim",
            "divide",
            "return"
        ]
    );
}

#[test]
fn softmax_keeps_expensive_shared_values_once() {
    // exp is read by the sum and by the division: computed once, written once.
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %d = stablehlo.subtract %x, %mb : tensor<4x8xf32>
  %e = stablehlo.exponential %d : tensor<4x8xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %r = stablehlo.divide %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
"#,
    );
    assert_eq!(count(&out, "main", "stablehlo.exponential"), 1);
    // One row fusion: the max, exp(x - max), its sum and the division run row by row (the
    // kernel keeps exp's values in cache between the sum and the division).
    let f = fusions(&out);
    assert_eq!(f.len(), 1, "{}", print_module(&out));
    assert_eq!(f[0].0, FusionKind::Reduction);
    assert_eq!(
        f[0].1,
        vec![
            "reduce",
            "broadcast_in_dim",
            "subtract",
            "exponential",
            "reduce",
            "broadcast_in_dim",
            "divide",
            "return"
        ]
    );
    assert!(!top_names(&out).iter().any(|n| n == "stablehlo.reduce"));
}

#[test]
fn layer_norm_is_one_row_fusion_but_outer_reductions_are_not_rows() {
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<6x16xf32>, %g: tensor<16xf32>) -> (tensor<6x16xf32>, tensor<16xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<16.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
  %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<6xf32>
  %mu = stablehlo.divide %s, %nb : tensor<6xf32>
  %mub = stablehlo.broadcast_in_dim %mu, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
  %c = stablehlo.subtract %x, %mub : tensor<6x16xf32>
  %sq = stablehlo.multiply %c, %c : tensor<6x16xf32>
  %v = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
  %var = stablehlo.divide %v, %nb : tensor<6xf32>
  %r = stablehlo.rsqrt %var : tensor<6xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<16xf32>) -> tensor<6x16xf32>
  %y0 = stablehlo.multiply %c, %rb : tensor<6x16xf32>
  %y = stablehlo.multiply %y0, %gb : tensor<6x16xf32>
  %col = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %y, %col : tensor<6x16xf32>, tensor<16xf32>
}
"#,
    );
    let f = fusions(&out);
    let rows: Vec<_> = f
        .iter()
        .filter(|f| f.1.iter().filter(|n| *n == "reduce").count() == 2)
        .collect();
    assert_eq!(rows.len(), 1, "{}", print_module(&out));
    assert!(rows[0].1.contains(&"rsqrt".to_string()));
    // The column sum (over the outer dimension) is a reduction of its own.
    assert_eq!(f.len(), 2, "{}", print_module(&out));
}

#[test]
fn cheap_producers_are_duplicated_expensive_ones_become_extra_outputs() {
    let out = fuse_and_check(
        r#"
func.func public @main(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %cheap = stablehlo.add %a, %b : tensor<16xf32>
  %dear = stablehlo.exponential %a : tensor<16xf32>
  %0 = stablehlo.multiply %cheap, %dear : tensor<16xf32>
  %t = stablehlo.custom_call @opaque(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = stablehlo.subtract %cheap, %t : tensor<16xf32>
  %2 = stablehlo.sine %1 : tensor<16xf32>
  %3 = stablehlo.negate %dear : tensor<16xf32>
  %4 = stablehlo.abs %3 : tensor<16xf32>
  return %0, %2, %4, %dear : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
"#,
    );
    // add is copied into the two fusions that read it; exp is computed once, as a second
    // output of one reader's fusion (negate, abs), which the other fusion and the return read.
    assert_main_count(&out, "stablehlo.add", 2);
    assert_eq!(count(&out, "main", "stablehlo.exponential"), 1);
    let with_exp: Vec<_> = fusions(&out)
        .into_iter()
        .filter(|f| f.1.contains(&"exponential".to_string()))
        .collect();
    assert_eq!(with_exp.len(), 1);
    assert_eq!(
        with_exp[0].1,
        vec!["exponential", "negate", "abs", "return"]
    );
    assert_eq!(with_exp[0].2, 2, "abs and exp");
    assert!(top_names(&out).contains(&"stablehlo.custom_call".to_string()));
}

#[test]
fn a_cheap_value_written_out_anyway_is_read_back_not_recomputed_from_two_arrays() {
    // The backward pass of a relu layer: the masked gradient `s` feeds a product (whose
    // operands are written to memory) and a column sum. Recomputing `s` in the sum would read
    // `pre` and `d` again; reading `s` back reads one array, and `d` then has one reader, so
    // the mask becomes `d`'s product epilogue.
    let out = fuse_and_check(
        r#"
func.func public @main(%g: tensor<8x4xf32>, %w: tensor<16x4xf32>, %pre: tensor<8x16xf32>, %x: tensor<8x6xf32>) -> (tensor<6x16xf32>, tensor<16xf32>) {
  %d = stablehlo.dot_general %g, %w, contracting_dims = [1] x [1] : (tensor<8x4xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
  %p = stablehlo.compare GT, %pre, %zb, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  %s = stablehlo.select %p, %d, %zb : tensor<8x16xi1>, tensor<8x16xf32>
  %dw = stablehlo.dot_general %x, %s, contracting_dims = [0] x [0] : (tensor<8x6xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %db = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %dw, %db : tensor<6x16xf32>, tensor<16xf32>
}
"#,
    );
    assert_main_count(&out, "stablehlo.select", 1);
    let f = fusions(&out);
    let masked: Vec<_> = f
        .iter()
        .filter(|f| f.1.contains(&"select".into()))
        .collect();
    assert_eq!(masked.len(), 1);
    assert_eq!(masked[0].0, FusionKind::Product);
    assert_eq!(masked[0].1[0], "dot_general");
}

#[test]
fn a_cheap_value_of_one_array_is_still_recomputed_where_it_is_read() {
    // `n = -a` is written out for the custom call, and recomputed inside the sum: it reads
    // one array either way, and the sum reads `a` anyway.
    let out = fuse_and_check(
        r#"
func.func public @main(%a: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %n = stablehlo.negate %a : tensor<8x16xf32>
  %m = stablehlo.multiply %n, %a : tensor<8x16xf32>
  %t = stablehlo.custom_call @opaque(%n) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %t, %r : tensor<8x16xf32>, tensor<16xf32>
}
"#,
    );
    assert_main_count(&out, "stablehlo.negate", 2);
}

#[test]
fn a_broadcast_read_by_many_fusions_is_copied_into_each() {
    // Six loops (split by unfusable reverses) read one broadcast zero: none materialises it.
    let mut body = String::new();
    let mut last = "%x".to_string();
    for i in 0..6 {
        body += &format!(
            "  %m{i} = stablehlo.maximum {last}, %zb : tensor<16xf32>\n  %e{i} = stablehlo.exponential %m{i} : tensor<16xf32>\n  %r{i} = stablehlo.reverse %e{i}, dims = [0] : tensor<16xf32>\n"
        );
        last = format!("%r{i}");
    }
    let out = fuse_and_check(&format!(
        "func.func public @main(%x: tensor<16xf32>) -> tensor<16xf32> {{\n  %z = stablehlo.constant dense<0.0> : tensor<f32>\n  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<16xf32>\n{body}  return {last} : tensor<16xf32>\n}}\n"
    ));
    let f = fusions(&out);
    assert_eq!(f.len(), 6, "{}", print_module(&out));
    assert!(f
        .iter()
        .all(|x| x.1.contains(&"broadcast_in_dim".to_string())));
    assert!(!top_names(&out).contains(&"stablehlo.broadcast_in_dim".to_string()));
}

#[test]
fn an_extra_output_is_not_added_when_a_reader_leads_back_into_the_fusion() {
    // exp feeds the custom call, whose result the add needs: exp cannot be an output of the
    // add's fusion (that fusion would wait for itself).
    let out = fuse_and_check(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e = stablehlo.exponential %a : tensor<16xf32>
  %t = stablehlo.custom_call @opaque(%e) : (tensor<16xf32>) -> tensor<16xf32>
  %n = stablehlo.negate %e : tensor<16xf32>
  %u = stablehlo.add %n, %t : tensor<16xf32>
  return %u : tensor<16xf32>
}
"#,
    );
    assert_eq!(
        top_names(&out),
        vec![
            "stablehlo.exponential",
            "stablehlo.custom_call",
            "systolic.fusion",
            "func.return"
        ],
        "{}",
        print_module(&out)
    );
}

#[test]
fn siblings_reading_one_input_become_one_multi_output_fusion() {
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = stablehlo.exponential %x : tensor<64xf32>
  %1 = stablehlo.multiply %0, %y : tensor<64xf32>
  %2 = stablehlo.sine %x : tensor<64xf32>
  %3 = stablehlo.add %2, %y : tensor<64xf32>
  return %1, %3 : tensor<64xf32>, tensor<64xf32>
}
"#,
    );
    let f = fusions(&out);
    assert_eq!(f.len(), 1, "{}", print_module(&out));
    assert_eq!(f[0].2, 2, "two outputs");
    assert_eq!(top_names(&out), vec!["systolic.fusion", "func.return"]);
}

#[test]
fn sibling_reductions_share_one_pass_with_reduces_together() {
    // mean(x) and mean(x*x) over the rows: one reduction fusion, two outputs, its region listing
    // the producers, then both reduces, then both epilogues.
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %n = stablehlo.constant dense<16.0> : tensor<f32>
  %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.divide %s, %nb : tensor<4xf32>
  %x2 = stablehlo.multiply %x, %x : tensor<4x16xf32>
  %s2 = stablehlo.reduce(%x2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %m2 = stablehlo.divide %s2, %nb : tensor<4xf32>
  return %m, %m2 : tensor<4xf32>, tensor<4xf32>
}
"#,
    );
    let f = fusions(&out);
    assert_eq!(f.len(), 1, "{}", print_module(&out));
    assert_eq!(f[0].0, FusionKind::Reduction);
    assert_eq!(f[0].2, 2);
    let names = &f[0].1;
    let reduces: Vec<usize> = (0..names.len()).filter(|&i| names[i] == "reduce").collect();
    assert_eq!(reduces.len(), 2);
    assert_eq!(reduces[1], reduces[0] + 1, "{names:?}");
    assert_eq!(
        names[..reduces[0]]
            .iter()
            .filter(|n| *n == "multiply")
            .count(),
        1
    );
    assert_eq!(
        names[reduces[1]..]
            .iter()
            .filter(|n| *n == "divide")
            .count(),
        2
    );
}

#[test]
fn dependent_siblings_are_not_merged() {
    // The second loop reads the first one's result through a reduce: merging them would
    // make a cycle.
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %2 = stablehlo.sine %x : tensor<8xf32>
  %3 = stablehlo.add %2, %sb : tensor<8xf32>
  return %1, %3 : tensor<8xf32>, tensor<8xf32>
}
"#,
    );
    assert!(fusions(&out).len() >= 2, "{}", print_module(&out));
}

#[test]
fn control_flow_bodies_are_fused_inside_and_nothing_crosses() {
    let out = fuse_and_check(
        r#"
func.func public @main(%x: tensor<8xf32>, %n: tensor<i32>) -> tensor<8xf32> {
  %e = stablehlo.exponential %x : tensor<8xf32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %i0, %v = %x) : tensor<i32>, tensor<8xf32>
   cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %h = stablehlo.constant dense<0.5> : tensor<f32>
    %hb = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %m = stablehlo.multiply %v, %hb : tensor<8xf32>
    %a = stablehlo.add %m, %e : tensor<8xf32>
    stablehlo.return %i1, %a : tensor<i32>, tensor<8xf32>
  }
  %o = stablehlo.negate %r#1 : tensor<8xf32>
  return %o : tensor<8xf32>
}
"#,
    );
    let text = print_module(&out);
    // exp is read inside the loop: it stays outside, computed once.
    assert_eq!(top_names(&out)[0], "stablehlo.exponential", "{text}");
    let while_op = out.funcs[0].body.blocks[0]
        .ops
        .iter()
        .find(|o| o.kind == OpKind::While)
        .unwrap();
    let body_names: Vec<String> = while_op.regions[1].blocks[0]
        .ops
        .iter()
        .map(|o| o.kind.name())
        .collect();
    assert!(
        body_names.contains(&"systolic.fusion".to_string()),
        "{text}"
    );
}

#[test]
fn running_twice_changes_nothing_more() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"#,
    );
    let once = run_pass(&Fusion, &m);
    let twice = run_pass(&Fusion, &once);
    assert_eq!(print_module(&once), print_module(&twice));
}

#[test]
fn preserves_semantics_on_goldens_check_files_and_random_programs() {
    common::assert_pass_preserves_semantics(&Fusion, 200);
}
