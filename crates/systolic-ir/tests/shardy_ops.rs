//! Shardy's ops (`sdy.manual_computation`, `sdy.sharding_constraint`, `sdy.return`): the
//! forms JAX exports parse, verify and print back exactly; the generic form reads the same
//! op; the verifier names the op, operand, shapes and axes of a wrong per-device type.

use crate::roundtrip_common::{equivalent, first_difference};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::verify::verify_module;
use systolic_ir::{OpKind, ReturnKind};

/// The Shardy exports of the multi-device goldens (JAX's `shard_map` on 1D, 2D and 3D meshes).
fn cli_goldens() -> Vec<(String, String)> {
    let dir = format!(
        "{}/../systolic-cli/tests/data/spmd",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().join("module_shardy.mlir"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert_eq!(out.len(), 8, "{dir}");
    out
}

#[test]
fn jax_shard_map_exports_parse_verify_and_print_back_exactly() {
    for (name, text) in cli_goldens() {
        let m = parse_module(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        verify_module(&m).unwrap_or_else(|d| panic!("{name}: {}", d[0]));
        let printed = print_module(&m);
        assert!(
            printed.trim_end() == text.trim_end(),
            "{name}: {}",
            first_difference(&text, &printed)
        );
        let again = parse_module(&printed, &name).unwrap();
        equivalent(&m, &again).unwrap_or_else(|e| panic!("{name}: {e}"));
        let main = m.func("main").unwrap();
        let mc = &main.body.blocks[0].ops[0];
        let OpKind::ManualComputation(attrs) = &mc.kind else {
            panic!("{name}: first op is {}", mc.kind.name());
        };
        assert_eq!(attrs.in_shardings.len(), mc.operands.len(), "{name}");
        assert_eq!(attrs.out_shardings.len(), mc.results.len(), "{name}");
        assert!(!attrs.manual_axes.is_empty(), "{name}");
        let body = &mc.regions[0].blocks[0];
        assert_eq!(body.args.len(), mc.operands.len(), "{name}");
        let ret = body.ops.last().unwrap();
        assert_eq!(ret.kind, OpKind::Return(ReturnKind::Sdy), "{name}");
    }
}

const PRETTY: &str = r#"module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}], replicated={"y"}> : tensor<8x8xf32>
    %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x", "y"}, {}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<1x8xf32>) {
      %2 = stablehlo.negate %arg1 : tensor<1x8xf32>
      %3 = stablehlo.reshape %2 : (tensor<1x8xf32>) -> tensor<4x2xf32>
      sdy.return %3 : tensor<4x2xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}"#;

#[test]
fn generic_form_reads_the_same_ops() {
    let generic = r#"module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = "sdy.sharding_constraint"(%arg0) <{sharding = #sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = "sdy.manual_computation"(%0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x", "y"}, {}]>]>, manual_axes = #sdy<manual_axes{"x", "y"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>}> ({
    ^bb0(%arg1: tensor<1x8xf32>):
      %2 = "stablehlo.negate"(%arg1) : (tensor<1x8xf32>) -> tensor<1x8xf32>
      %3 = "stablehlo.reshape"(%2) : (tensor<1x8xf32>) -> tensor<4x2xf32>
      "sdy.return"(%3) : (tensor<4x2xf32>) -> ()
    }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    "func.return"(%1) : (tensor<8x8xf32>) -> ()
  }
}"#;
    let a = parse_module(PRETTY, "pretty.mlir").unwrap_or_else(|e| panic!("{e}"));
    let b = parse_module(generic, "generic.mlir").unwrap_or_else(|e| panic!("{e}"));
    verify_module(&a).unwrap_or_else(|d| panic!("{}", d[0]));
    equivalent(&a, &b).unwrap();
    assert_eq!(print_module(&b), print_module(&a));
}

/// The verifier's messages for a module that must parse.
fn errors(src: &str) -> Vec<String> {
    let m = parse_module(src, "t.mlir").unwrap_or_else(|e| panic!("does not parse: {e}"));
    match verify_module(&m) {
        Ok(()) => vec![],
        Err(d) => d.iter().map(ToString::to_string).collect(),
    }
}

#[track_caller]
fn one_error(src: &str, needles: &[&str]) {
    let errs = errors(src);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    for n in needles {
        assert!(errs[0].contains(n), "{:?} does not contain {n:?}", errs[0]);
    }
}

#[test]
fn wrong_piece_shapes_name_the_operand_shapes_and_axes() {
    // "x" and "y" split dimension 0 of 8 into 8 pieces of 1, not 2.
    let src = PRETTY.replace("tensor<1x8xf32>", "tensor<2x4xf32>");
    one_error(
        &src,
        &[
            "sdy.manual_computation",
            "operand #0 is tensor<8x8xf32>",
            "must have shape [1, 8]",
            "tensor<2x4xf32>",
            "{\"x\", \"y\"}",
        ],
    );
    // A result piece: [{"x"}, {"y"}] of 8x8 is 4x2 per device.
    let src = PRETTY.replace("tensor<4x2xf32>", "tensor<2x4xf32>");
    one_error(
        &src,
        &[
            "result #0 is tensor<8x8xf32>",
            "must have shape [4, 2]",
            "tensor<2x4xf32>",
        ],
    );
}

#[test]
fn structure_and_axes_are_checked() {
    let wrong_return = PRETTY.replace("sdy.return %3", "stablehlo.return %3");
    one_error(&wrong_return, &["stablehlo.return", "use sdy.return"]);
    let unknown_axis = PRETTY.replace("manual_axes={\"x\", \"y\"}", "manual_axes={\"x\", \"z\"}");
    one_error(
        &unknown_axis,
        &["manual axis \"z\" is not an axis of mesh @mesh"],
    );
    let dtype = PRETTY.replace(
        "(%arg1: tensor<1x8xf32>) {\n      %2 = stablehlo.negate %arg1 : tensor<1x8xf32>",
        "(%arg1: tensor<1x8xf16>) {\n      %c = stablehlo.convert %arg1 : (tensor<1x8xf16>) -> tensor<1x8xf32>\n      %2 = stablehlo.negate %c : tensor<1x8xf32>",
    );
    one_error(
        &dtype,
        &["operand #0 is tensor<8x8xf32>", "tensor<1x8xf16>"],
    );
    let constraint_rank = PRETTY.replace(
        "<@mesh, [{\"x\"}, {}], replicated={\"y\"}>",
        "<@mesh, [{\"x\"}], replicated={\"y\"}>",
    );
    one_error(&constraint_rank, &["sdy.sharding_constraint", "rank 2"]);
}
