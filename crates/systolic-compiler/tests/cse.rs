//! Common subexpression elimination.

use crate::common;

use common::{count, parse, run_pass};
use systolic_compiler::passes::Cse;

#[test]
fn merges_equal_pure_ops_and_commuted_operands() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.add %b, %a : tensor<2xf32>
  %2 = stablehlo.subtract %a, %b : tensor<2xf32>
  %3 = stablehlo.subtract %b, %a : tensor<2xf32>
  %4 = stablehlo.multiply %0, %2 : tensor<2xf32>
  %5 = stablehlo.multiply %1, %2 : tensor<2xf32>
  %6 = stablehlo.compare NE, %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %7 = stablehlo.compare NE, %b, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %8 = stablehlo.compare LT, %b, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %9 = stablehlo.and %6, %7 : tensor<2xi1>
  %10 = stablehlo.and %9, %8 : tensor<2xi1>
  %11 = stablehlo.add %4, %3 : tensor<2xf32>
  return %5, %11, %10 : tensor<2xf32>, tensor<2xf32>, tensor<2xi1>
}
"#,
    );
    let out = run_pass(&Cse, &m);
    // add once more for %11; both subtracts stay (not commutative); one multiply.
    assert_eq!(count(&out, "main", "stablehlo.add"), 2);
    assert_eq!(count(&out, "main", "stablehlo.subtract"), 2);
    assert_eq!(count(&out, "main", "stablehlo.multiply"), 1);
    assert_eq!(count(&out, "main", "stablehlo.compare"), 2);
    // The and of the two merged compares now reads one value twice.
    let f = &out.funcs[0];
    let and = f.body.blocks[0]
        .ops
        .iter()
        .find(|o| o.kind.name() == "stablehlo.and")
        .unwrap();
    assert_eq!(and.operands[0], and.operands[1]);
}

#[test]
fn constants_compare_bitwise_and_nested_regions_reuse_outer_ops() {
    let m = parse(
        r#"
func.func public @main(%p: tensor<i1>, %a: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %nz = stablehlo.constant dense<-0.0> : tensor<f32>
  %z2 = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %a : tensor<f32>
  %0 = "stablehlo.if"(%p) ({
    %e2 = stablehlo.exponential %a : tensor<f32>
    %s = stablehlo.sine %a : tensor<f32>
    %r = stablehlo.add %e2, %s : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }, {
    %s = stablehlo.sine %a : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %s3 = stablehlo.sine %a : tensor<f32>
  %1 = stablehlo.add %z, %nz : tensor<f32>
  %2 = stablehlo.add %z2, %e : tensor<f32>
  %3 = stablehlo.add %s3, %1 : tensor<f32>
  return %0, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>
}
"#,
    );
    let out = run_pass(&Cse, &m);
    assert_eq!(
        count(&out, "main", "stablehlo.constant"),
        2,
        "0.0 and -0.0 stay apart"
    );
    assert_eq!(count(&out, "main", "stablehlo.exponential"), 1);
    // The sines in the two branches do not dominate each other nor the outer one.
    assert_eq!(count(&out, "main", "stablehlo.sine"), 3);
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&Cse, 300);
}

/// A sort's comparator is a called computation: its constant is not replaced by an equal one
/// outside (which would turn it into a captured value), though equal constants inside it merge.
#[test]
fn computation_regions_start_a_fresh_scope() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.sort"(%a) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %c2 = stablehlo.constant dense<0.0> : tensor<f32>
    %sx = stablehlo.add %x, %c : tensor<f32>
    %sy = stablehlo.add %y, %c2 : tensor<f32>
    %r = stablehlo.compare LT, %sx, %sy, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %r : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %z : tensor<4xf32>, tensor<f32>
}
"#,
    );
    let out = run_pass(&Cse, &m);
    // One constant outside and one inside the comparator (its two merged).
    assert_eq!(count(&out, "main", "stablehlo.constant"), 2);
    let sort = out.funcs[0].body.blocks[0]
        .ops
        .iter()
        .find(|o| o.kind.name() == "stablehlo.sort")
        .unwrap();
    let inner = &sort.regions[0].blocks[0].ops;
    assert_eq!(
        inner
            .iter()
            .filter(|o| o.kind.name() == "stablehlo.constant")
            .count(),
        1
    );
    let block = &sort.regions[0].blocks[0];
    let defined: Vec<_> = block
        .args
        .iter()
        .chain(block.ops.iter().flat_map(|o| o.results.iter()))
        .collect();
    assert!(
        inner
            .iter()
            .flat_map(|o| o.operands.iter())
            .all(|v| defined.contains(&v)),
        "the comparator reads nothing from outside"
    );
}

/// Two equal LAPACK factorisations of one matrix (JAX's `solve` and `det` of it) run once; the
/// triangular solves with different flags stay apart, and a custom call with a side effect or
/// a target the compiler does not know is never merged.
#[test]
fn equal_lapack_calls_merge_and_other_custom_calls_stay() {
    let getrf = |r: &str, effect: bool| {
        format!(
            "{r}:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {{has_side_effect = {effect}, mhlo.backend_config = {{}}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<i32>)"
        )
    };
    let trsm = |r: &str, uplo: u8| {
        format!(
            "{r} = stablehlo.custom_call @lapack_strsm_ffi(%lu, %b) {{mhlo.backend_config = {{diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = {uplo} : ui8}}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]}} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>"
        )
    };
    let text = format!(
        r#"
func.func public @main(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {{
  {}
  %lu = stablehlo.add %f#0, %f#0 : tensor<4x4xf32>
  {}
  {}
  {}
  {}
  %u0 = stablehlo.custom_call @user_kernel(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %u1 = stablehlo.custom_call @user_kernel(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  {}
  {}
  return %f#0, %g#0, %t0, %t1, %t2, %u0, %u1, %e0#0, %e1#0 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}}
"#,
        getrf("%f", false),
        getrf("%g", false),
        trsm("%t0", 76),
        trsm("%t1", 76),
        trsm("%t2", 85),
        getrf("%e0", true),
        getrf("%e1", true),
    );
    let m = parse(&text);
    let out = run_pass(&Cse, &m);
    let calls = |target: &str, effect: bool| {
        out.funcs[0].body.blocks[0]
            .ops
            .iter()
            .filter(|o| {
                matches!(&o.kind, systolic_ir::OpKind::CustomCall { call_target_name, has_side_effect, .. }
                    if call_target_name == target && *has_side_effect == effect)
            })
            .count()
    };
    assert_eq!(
        calls("lapack_sgetrf_ffi", false),
        1,
        "equal factorisations merge"
    );
    assert_eq!(
        calls("lapack_strsm_ffi", false),
        2,
        "solves differing in uplo stay apart"
    );
    assert_eq!(
        calls("user_kernel", false),
        2,
        "an unknown target may hide an effect"
    );
    assert_eq!(
        calls("lapack_sgetrf_ffi", true),
        2,
        "side effects are never merged"
    );
}
