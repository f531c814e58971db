//! The verifier on MLIR text as JAX and the StableHLO spec write it: parse, verify, and check
//! the located messages. Valid programs are the spec's examples; invalid ones break them.

use systolic_ir::text::parse_module;
use systolic_ir::verify::verify_module;

/// The verifier's messages for a module that must parse.
fn verify(src: &str) -> Vec<String> {
    let m = parse_module(src, "t.mlir").unwrap_or_else(|e| panic!("does not parse: {e}"));
    match verify_module(&m) {
        Ok(()) => vec![],
        Err(d) => d.iter().map(ToString::to_string).collect(),
    }
}

/// Asserts exactly one message, containing `needle`, and returns it.
#[track_caller]
fn one_error(src: &str, needle: &str) -> String {
    let errs = verify(src);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    assert!(
        errs[0].contains(needle),
        "{:?} does not contain {needle:?}",
        errs[0]
    );
    errs[0].clone()
}

#[test]
fn mismatched_add_is_located_at_its_line() {
    let src = r#"
func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"#;
    assert_eq!(
        one_error(src, ""),
        "t.mlir:3:3: error: stablehlo.add: operands have types tensor<2xf32> and tensor<3xf32>; they must be equal"
    );
}

#[test]
fn the_spec_reduce_example_verifies_and_a_wrong_result_does_not() {
    let src = r#"
func.func @main(%input: tensor<1x6xi32>, %init_value: tensor<i32>) -> tensor<1xi32> {
  %result = "stablehlo.reduce"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }) {
    dimensions = array<i64: 1>
  } : (tensor<1x6xi32>, tensor<i32>) -> tensor<1xi32>
  func.return %result : tensor<1xi32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src
        .replace(") -> tensor<1xi32> {", ") -> tensor<6xi32> {")
        .replace(
            "tensor<i32>) -> tensor<1xi32>",
            "tensor<i32>) -> tensor<6xi32>",
        )
        .replace(
            "func.return %result : tensor<1xi32>",
            "func.return %result : tensor<6xi32>",
        );
    assert_eq!(
        one_error(&bad, ""),
        "t.mlir:3:3: error: stablehlo.reduce: the result is declared as tensor<6xi32> but the op produces tensor<1xi32>"
    );
}

#[test]
fn the_spec_sort_example_verifies_and_a_bad_comparator_does_not() {
    let src = r#"
func.func @main(%input0: tensor<2x3xi64>, %input1: tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %result0, %result1 = "stablehlo.sort"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>, %arg3: tensor<i64>):
      %predicate = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction GT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%predicate) : (tensor<i1>) -> ()
  }) {
    dimension = 0 : i64,
    is_stable = true
  } : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  func.return %result0, %result1 : tensor<2x3xi64>, tensor<2x3xi64>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace(
        "\"stablehlo.return\"(%predicate) : (tensor<i1>)",
        "\"stablehlo.return\"(%arg0) : (tensor<i64>)",
    );
    let e = one_error(&bad, "stablehlo.sort");
    assert!(
        e.ends_with("comparator returns (tensor<i64>) but must return (tensor<i1>)"),
        "{e}"
    );
}

#[test]
fn the_spec_select_and_scatter_example_verifies() {
    let src = r#"
func.func @main(%operand: tensor<4x2xi32>, %source: tensor<2x2xi32>, %init_value: tensor<i32>) -> tensor<4x2xi32> {
  %result = "stablehlo.select_and_scatter"(%operand, %source, %init_value) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction GE>
      } : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%0) : (tensor<i1>) -> ()
  }, {
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 2, 1>,
    padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<4x2xi32>, tensor<2x2xi32>, tensor<i32>) -> tensor<4x2xi32>
  func.return %result : tensor<4x2xi32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace(
        "padding = dense<[[0, 1], [0, 0]]>",
        "padding = dense<[[0, 0], [0, 0]]>",
    );
    one_error(&bad, "source has type tensor<2x2xi32> but the windows over tensor<4x2xi32> form the shape [1, 2]");
}

#[test]
fn the_spec_gather_and_scatter_examples_verify() {
    let src = r#"
func.func @main(%operand: tensor<3x4x2xi32>, %start_indices: tensor<2x3x2xi64>, %update: tensor<2x3x2x2xi32>) -> (tensor<2x3x2x2xi32>, tensor<3x4x2xi32>) {
  %g = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [2, 3],
      collapsed_slice_dims = [0],
      start_index_map = [1, 0],
      index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>
  %s = "stablehlo.scatter"(%operand, %start_indices, %update) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [2, 3],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [1, 0],
      index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32>
  func.return %g, %s : tensor<2x3x2x2xi32>, tensor<3x4x2xi32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace(
        "slice_sizes = array<i64: 1, 2, 2>",
        "slice_sizes = array<i64: 2, 2, 2>",
    );
    one_error(&bad, "stablehlo.gather: `slice_sizes` entry 2 for collapsed or batching dimension 0 must be at most 1");
}

#[test]
fn while_loops_check_cond_and_body() {
    let src = r#"
func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %c0, %acc = %c0) : tensor<i64>, tensor<i64>
   cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %i2 = stablehlo.add %i, %c1 : tensor<i64>
    %a2 = stablehlo.add %acc, %i : tensor<i64>
    stablehlo.return %i2, %a2 : tensor<i64>, tensor<i64>
  }
  return %r#1 : tensor<i64>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace(
        "stablehlo.return %p : tensor<i1>",
        "stablehlo.return %i : tensor<i64>",
    );
    one_error(
        &bad,
        "stablehlo.while: cond returns (tensor<i64>) but must return (tensor<i1>)",
    );
    let bad = src.replace("LT, %i, %n, SIGNED", "LT, %i, %n, FLOAT");
    one_error(
        &bad,
        "stablehlo.compare: compare type FLOAT does not apply to element type i64",
    );
}

#[test]
fn shape_ops_in_pretty_form() {
    let src = r#"
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2x4xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x2xf32>) -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace(
        "dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        "dims = [0, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
    );
    assert_eq!(
        one_error(&bad, ""),
        "t.mlir:3:3: error: stablehlo.transpose: the result is declared as tensor<3x2xf32> but the op produces tensor<2x3xf32>"
    );
    let bad = src.replace("dims = [0, 1] :", "dims = [0, 2] :");
    one_error(&bad, "t.mlir:4:3: error: stablehlo.broadcast_in_dim: cannot broadcast tensor<3x2xf32> to tensor<3x2x4xf32>: operand dimension 1 (size 2) maps to result dimension 2 (size 4)");
}

#[test]
fn dominance_errors_name_the_value() {
    let src = r#"
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %1, %x : tensor<f32>
  %1 = stablehlo.add %x, %x : tensor<f32>
  return %0 : tensor<f32>
}
"#;
    // The parser may itself reject a forward reference; if it accepts it, the verifier must.
    match parse_module(src, "t.mlir") {
        Err(e) => assert!(e.to_string().contains("%1"), "{e}"),
        Ok(m) => {
            let errs: Vec<String> = verify_module(&m)
                .unwrap_err()
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(
                errs,
                vec![
                    "t.mlir:3:3: error: stablehlo.add: %1 is used before its definition"
                        .to_string()
                ]
            );
        }
    }
}

#[test]
fn calls_are_checked_against_the_callee() {
    let src = r#"
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @double(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @double(%y: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %y, %y : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace("call @double", "call @triple");
    assert_eq!(
        one_error(&bad, ""),
        "t.mlir:3:3: error: func.call: calls @triple, which is not defined"
    );
    let bad = src
        .replace(
            "call @double(%x) : (tensor<2xf32>) -> tensor<2xf32>",
            "call @double(%x) : (tensor<2xf32>) -> tensor<2xf64>",
        )
        .replace(
            "return %0 : tensor<2xf32>\n}\nfunc.func private",
            "return %0 : tensor<2xf64>\n}\nfunc.func private",
        )
        .replace(
            "-> tensor<2xf32> {\n  %0 = call",
            "-> tensor<2xf64> {\n  %0 = call",
        );
    assert_eq!(
        one_error(&bad, ""),
        "t.mlir:3:3: error: func.call: declares results (tensor<2xf64>) but @double returns (tensor<2xf32>)"
    );
}

const SHARDED: &str = r#"
module @m {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.tanh %arg0 : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
"#;

#[test]
fn sdy_shardings_must_fit_the_mesh_and_the_rank() {
    assert_eq!(verify(SHARDED), Vec::<String>::new());
    let bad = SHARDED.replace(r#"[{"x"}, {"y"}]"#, r#"[{"x"}]"#);
    assert_eq!(
        one_error(&bad, ""),
        "t.mlir:4:3: error: func.func: @main: parameter #0: sdy.sharding: has 1 dimension sharding but tensor<8x16xf32> has rank 2"
    );
    let bad = SHARDED.replace(r#"[{"x"}, {"y"}]"#, r#"[{"x"}, {"z"}]"#);
    one_error(
        &bad,
        r#"uses the axis "z", which mesh @mesh does not have (it has "x", "y")"#,
    );
    let bad = SHARDED.replace(r#"[{"x"}, {"y"}]"#, r#"[{"x"}, {"x"}]"#);
    one_error(
        &bad,
        r#"parameter #0: sdy.sharding: uses the axis "x" more than once"#,
    );
    let bad = SHARDED.replace(r#"<@mesh, [{"x"}, {}]>"#, r#"<@other, [{"x"}, {}]>"#);
    one_error(
        &bad,
        "result #0: sdy.sharding: names the mesh @other, which is not declared",
    );
}

#[test]
fn mhlo_shardings_must_tile_every_dimension() {
    let src = r#"
func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"}) -> (tensor<8x16xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"}) {
  return %arg0 : tensor<8x16xf32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace("{devices=[2,4]<=[8]}", "{devices=[8]<=[8]}");
    one_error(
        &bad,
        "parameter #0: mhlo.sharding: tiles 1 dimensions but tensor<8x16xf32> has rank 2",
    );
    let bad = src.replace(
        "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
        "{devices=[2,1,4]<=[8]}",
    );
    one_error(
        &bad,
        "result #0: mhlo.sharding: tiles 3 dimensions but tensor<8x16xf32> has rank 2",
    );
}

#[test]
fn op_shardings_must_fit_the_op_results() {
    let src = r#"
func.func public @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,4]<=[8]}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let bad = src.replace("{devices=[2,4]<=[8]}", "{devices=[2,2,2]<=[8]}");
    assert_eq!(
        one_error(&bad, ""),
        "t.mlir:3:3: error: stablehlo.custom_call: the results: mhlo.sharding: tiles 3 dimensions but tensor<8x16xf32> has rank 2"
    );
}

/// A scan of `%x: tensor<2x3xf32>` with init `%c: INIT` along `DIM`, body arguments `ARGS`.
fn scan_src(init: &str, dim: i64, args: &str, attrs: &str) -> String {
    format!(
        r#"
func.func @main(%x: tensor<2x3xf32>, %c: {init}) -> tensor<2x3xf32> {{
  %r:2 = chlo.scan(%x) inits(%c) dimension = {dim} {attrs} {{
  ^bb0({args}):
    stablehlo.return %a, %b : tensor<3xf32>, tensor<3xf32>
  }} : (tensor<2x3xf32>, {init}) -> (tensor<2x3xf32>, {init})
  return %r#0 : tensor<2x3xf32>
}}
"#
    )
}

#[test]
fn scan_checks_its_dimension_body_and_size() {
    let ok = "%a: tensor<3xf32>, %b: tensor<3xf32>";
    assert_eq!(
        verify(&scan_src("tensor<3xf32>", 0, ok, "")),
        Vec::<String>::new()
    );
    one_error(
        &scan_src("tensor<3xf32>", 2, ok, ""),
        "chlo.scan: scan dimension of operand 0 is out of bounds",
    );
    one_error(
        &scan_src(
            "tensor<3xf32>",
            0,
            ok,
            "attributes {scan_dim_size = 3 : i64}",
        ),
        "invalid scan dimension size of operand 0",
    );
    one_error(
        &scan_src("tensor<3xi32>", 0, ok, ""),
        "operand and body argument 1 are incompatible",
    );
}

#[test]
fn ragged_dot_checks_its_group_sizes_and_dimensions() {
    let src = |sizes: &str, ragged: &str, group: &str| {
        format!(
            r#"
func.func @main(%l: tensor<2x6x3xf32>, %r: tensor<4x2x3x5xf32>, %g: {sizes}) -> tensor<2x6x5xf32> {{
  %0 = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<
    lhs_batching_dimensions = [0], rhs_batching_dimensions = [1],
    lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2],
    lhs_ragged_dimensions = {ragged}, rhs_group_dimensions = {group}>}}
    : (tensor<2x6x3xf32>, tensor<4x2x3x5xf32>, {sizes}) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}}
"#
        )
    };
    assert_eq!(
        verify(&src("tensor<2x4xi32>", "[1]", "[0]")),
        Vec::<String>::new()
    );
    assert_eq!(
        verify(&src("tensor<4xi64>", "[1]", "[0]")),
        Vec::<String>::new()
    );
    one_error(
        &src("tensor<3x4xi32>", "[1]", "[0]"),
        "group_sizes is tensor<3x4xi32> but must be an integer tensor of shape [2, 4] or [4]",
    );
    one_error(
        &src("tensor<2x4xf32>", "[1]", "[0]"),
        "must be an integer tensor",
    );
    one_error(
        &src("tensor<2x4xi32>", "[1]", "[]"),
        "rhs_group_dimensions must hold exactly one dimension",
    );
    one_error(
        &src("tensor<2x4xi32>", "[1, 0]", "[0]"),
        "lhs_ragged_dimensions is [1, 0] but must hold exactly one dimension",
    );
}

#[test]
fn quantized_types_round_trip_and_their_ops_check_expressed_types() {
    let src = r#"
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.1:-30,0.5,2.0:4}>>
  %r = "stablehlo.uniform_quantize"(%q) : (tensor<2x3x!quant.uniform<i8:f32:1, {0.1:-30,0.5,2.0:4}>>) -> tensor<2x3x!quant.uniform<i8<-127:127>:f32, 0.25:1>>
  %s = stablehlo.add %r, %r : tensor<2x3x!quant.uniform<i8<-127:127>:f32, 0.25:1>>
  %d = "stablehlo.uniform_dequantize"(%s) : (tensor<2x3x!quant.uniform<i8<-127:127>:f32, 0.25:1>>) -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}
"#;
    assert_eq!(verify(src), Vec::<String>::new());
    let m = parse_module(src, "q.mlir").unwrap();
    let printed = systolic_ir::text::print_module(&m);
    assert!(
        printed
            .contains("!quant.uniform<i8:f32:1, {1.000000e-01:-30,5.000000e-01,2.000000e+00:4}>")
            && printed.contains("!quant.uniform<i8<-127:127>:f32, 2.500000e-01:1>"),
        "{printed}"
    );
    let again = parse_module(&printed, "again.mlir").unwrap();
    assert_eq!(systolic_ir::text::print_module(&again), printed);

    // A dequantize of a plain tensor, a quantize to a plain type, an add whose expressed
    // shapes differ.
    one_error(
        &src.replace(
            "\"stablehlo.uniform_dequantize\"(%s) : (tensor<2x3x!quant.uniform<i8<-127:127>:f32, 0.25:1>>)",
            "\"stablehlo.uniform_dequantize\"(%x) : (tensor<2x3xf32>)",
        ),
        "operand tensor<2x3xf32> must be a quantized type",
    );
    let plain = r#"
func.func @main(%x: tensor<2xf32>) -> tensor<2xi8> {
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2xf32>) -> tensor<2xi8>
  return %q : tensor<2xi8>
}
"#;
    one_error(plain, "result tensor<2xi8> must be a quantized type");
    let add = r#"
func.func @main(%a: tensor<2x!quant.uniform<i8:f32, 0.5>>, %b: tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>> {
  %s = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  return %s : tensor<2x!quant.uniform<i8:f32, 0.5>>
}
"#;
    one_error(add, "operands have types tensor<2xf32> and tensor<3xf32>");
}

#[test]
fn quantized_products_and_requantization_check_the_specs_constraints() {
    // One valid module per op, then one broken constraint at a time (spec: uniform_quantize
    // C2, dot_general C14–C20, convolution C28–C34).
    let dot = |lhs: &str, rhs: &str, out: &str, contract: &str| {
        format!(
            r#"
func.func @main(%a: tensor<2x3x{lhs}>, %b: tensor<3x4x{rhs}>) -> tensor<2x4x{out}> {{
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [{contract}] : (tensor<2x3x{lhs}>, tensor<3x4x{rhs}>) -> tensor<2x4x{out}>
  return %p : tensor<2x4x{out}>
}}
"#
        )
    };
    let q8 = "!quant.uniform<i8:f32, 0.5:3>";
    let w8 = "!quant.uniform<i8:f32, 0.25>";
    let w8_axis1 = "!quant.uniform<i8:f32:1, {0.25,0.5,1.0,2.0}>";
    let o32 = "!quant.uniform<i32:f32, 0.125>";
    let o32_axis1 = "!quant.uniform<i32:f32:1, {0.25,0.5,1.0,2.0}>";
    for ok in [
        dot(q8, w8, o32, "0"),
        dot(q8, w8_axis1, o32_axis1, "0"),
        dot(q8, w8_axis1, o32, "0"),
        dot("f32", w8, "f32", "0"),
    ] {
        assert_eq!(verify(&ok), Vec::<String>::new(), "{ok}");
    }
    one_error(
        &dot(q8, "!quant.uniform<i8:f32, 0.25:1>", o32, "0"),
        "must have zero points 0",
    );
    one_error(
        &dot(q8, "!quant.uniform<i8:f32:0, {0.25,0.5,1.0}>", o32, "0"),
        "must not be quantized along its contracting dimension 0",
    );
    one_error(&dot(q8, "f32", o32, "0"), "must be quantized when lhs");
    one_error(
        &dot(q8, w8, "f32", "0"),
        "must be quantized exactly when result",
    );
    one_error(
        &dot(q8, "!quant.uniform<i16:f32, 0.25>", o32, "0"),
        "must have the same storage type",
    );
    one_error(
        &dot(q8, w8, "!quant.uniform<i32:f16, 0.125>", "0"),
        "must have the same expressed type",
    );
    one_error(
        &dot(q8, w8, o32_axis1, "0"),
        "must be quantized per tensor as rhs",
    );
    one_error(&dot("f16", w8, "f16", "0"), "must be of rhs");

    let conv = |rhs: &str, out: &str| {
        format!(
            r#"
func.func @main(%a: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5>>, %b: tensor<3x3x2x5x{rhs}>) -> tensor<1x2x2x5x{out}> {{
  %c = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5>>, tensor<3x3x2x5x{rhs}>) -> tensor<1x2x2x5x{out}>
  return %c : tensor<1x2x2x5x{out}>
}}
"#
        )
    };
    let per5 = |axis: usize| format!("!quant.uniform<i8:f32:{axis}, {{1.0,1.0,1.0,1.0,1.0}}>");
    let out5 = |axis: usize| format!("!quant.uniform<i32:f32:{axis}, {{1.0,1.0,1.0,1.0,1.0}}>");
    assert_eq!(verify(&conv(&per5(3), &out5(3))), Vec::<String>::new());
    let bad_rhs = conv(&per5(3), &out5(3)).replace(
        "tensor<3x3x2x5x!quant.uniform<i8:f32:3, {1.0,1.0,1.0,1.0,1.0}>>",
        "tensor<3x3x2x5x!quant.uniform<i8:f32:0, {1.0,1.0,1.0}>>",
    );
    one_error(
        &bad_rhs,
        "must be quantized along its output feature dimension 3",
    );
    let bad_out = conv(&per5(3), &out5(3)).replace(
        "tensor<1x2x2x5x!quant.uniform<i32:f32:3, {1.0,1.0,1.0,1.0,1.0}>>",
        "tensor<1x2x2x5x!quant.uniform<i32:f32:1, {1.0,1.0}>>",
    );
    one_error(
        &bad_out,
        "result tensor<1x2x2x5x!quant.uniform<i32:f32:1, {1.000000e+00,1.000000e+00}>> must be quantized along its output feature dimension 3",
    );

    // uniform_quantize: re-quantizing keeps the expressed type (C2).
    let requant = r#"
func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f16, 0.5>> {
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f16, 0.5>>
  return %q : tensor<2x!quant.uniform<i8:f16, 0.5>>
}
"#;
    one_error(
        requant,
        "must be expressed in the result's expressed type f16",
    );
}

#[test]
fn broken_quantized_types_are_parse_errors() {
    let err = |ty: &str| {
        let src = format!("func.func @main(%x: {ty}) {{\n  return\n}}\n");
        parse_module(&src, "q.mlir").unwrap_err().to_string()
    };
    let e = err("tensor<2x!quant.uniform<i8:f32, 0.5:300>>");
    assert!(
        e.contains("bad quantized type: zero point 300 is outside the storage range [-128, 127]"),
        "{e}"
    );
    let e = err("tensor<2x!quant.uniform<i8:f32:1, {0.5,0.5}>>");
    assert!(
        e.contains("quantization dimension 1 is not a dimension of a rank-1 tensor"),
        "{e}"
    );
    let e = err("tensor<3x!quant.uniform<i8:f32:0, {0.5,0.5}>>");
    assert!(
        e.contains("quantization dimension 0 has size 3 but 2 scale(s)"),
        "{e}"
    );
    let e = err("tensor<3x!quant.uniform<i8:f32, -1.0>>");
    assert!(e.contains("scale -1 must be positive and finite"), "{e}");
    let e = err("tensor<3x!quant.uniform<i8<3:3>:f32, 1.0>>");
    assert!(e.contains("must have storage_min < storage_max"), "{e}");
    let e = err("tensor<3x!quant.uniform<i8:f32:-1, {1.0}>>");
    assert!(
        e.contains("quantization dimension -1 must be non-negative"),
        "{e}"
    );
    let e = err("tensor<3x!quant.uniform<i8:f16, 1.0e6>>");
    assert!(e.contains("as a value of the expressed type f16"), "{e}");
}
