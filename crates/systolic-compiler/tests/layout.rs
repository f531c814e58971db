//! The layout pass: transposes folded into dot_general dimension numbers, transposed dots
//! computed with swapped operands, bitcast transposes turned into reshapes — each checked
//! bit for bit against the interpreter.

use crate::common;

use common::{assert_same_outputs, count, parse, random_inputs, run_pass};
use systolic_compiler::passes::layout::{layout_func, LayoutStats};
use systolic_compiler::passes::Layout;
use systolic_ir::text::print_module;
use systolic_ir::{DotDimensionNumbers, Module, OpKind};

fn apply(src: &str) -> (Module, LayoutStats) {
    let m = parse(src);
    let out = run_pass(&Layout, &m);
    for seed in 0..4 {
        assert_same_outputs("layout", &m, &out, random_inputs(&m, seed));
    }
    let mut again = m.clone();
    let stats = layout_func(again.func_mut("main").unwrap());
    (out, stats)
}

fn dot_dims(m: &Module) -> DotDimensionNumbers {
    m.func("main").unwrap().body.blocks[0]
        .ops
        .iter()
        .find_map(|op| match &op.kind {
            OpKind::DotGeneral {
                dimension_numbers, ..
            } => Some(dimension_numbers.clone()),
            _ => None,
        })
        .expect("a dot_general")
}

#[test]
fn transposed_lhs_is_read_through_its_strides() {
    // x: 3x4 (K x M); x^T · y with y: 3x5 → 4x5.
    let (out, stats) = apply(
        r#"
func.func public @main(%x: tensor<3x4xf32>, %y: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %0 = stablehlo.dot_general %t, %y, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
"#,
    );
    assert_eq!(stats.dot_operands, 1);
    assert_eq!(count(&out, "main", "stablehlo.transpose"), 0);
    let dn = dot_dims(&out);
    assert_eq!(dn.lhs_contracting_dimensions, vec![0]);
    assert_eq!(dn.rhs_contracting_dimensions, vec![0]);
}

#[test]
fn batched_transposed_rhs_keeps_its_batch_pairing() {
    let (out, stats) = apply(
        r#"
func.func public @main(%a: tensor<2x3x4xf32>, %b: tensor<5x2x4xf32>) -> tensor<2x3x5xf32> {
  %t = stablehlo.transpose %b, dims = [1, 2, 0] : (tensor<5x2x4xf32>) -> tensor<2x4x5xf32>
  %0 = stablehlo.dot_general %a, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
"#,
    );
    assert_eq!(stats.dot_operands, 1, "{}", print_module(&out));
    let dn = dot_dims(&out);
    assert_eq!(dn.rhs_batching_dimensions, vec![1]);
    assert_eq!(dn.rhs_contracting_dimensions, vec![2]);
}

#[test]
fn a_transpose_that_reorders_free_dims_stays() {
    let (out, stats) = apply(
        r#"
func.func public @main(%x: tensor<2x3x4xf32>, %y: tensor<4x5xf32>) -> tensor<3x2x5xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %0 = stablehlo.dot_general %t, %y, contracting_dims = [2] x [0] : (tensor<3x2x4xf32>, tensor<4x5xf32>) -> tensor<3x2x5xf32>
  return %0 : tensor<3x2x5xf32>
}
"#,
    );
    assert_eq!(stats, LayoutStats::default());
    assert_eq!(count(&out, "main", "stablehlo.transpose"), 1);
}

#[test]
fn transposed_product_swaps_its_operands() {
    // (aᵀ·b)ᵀ as JAX's gradients write it: dot over dim 0, then transpose.
    let (out, stats) = apply(
        r#"
func.func public @main(%a: tensor<8x3xf32>, %b: tensor<8x5xf32>) -> tensor<5x3xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  return %1 : tensor<5x3xf32>
}
"#,
    );
    assert_eq!(stats.swapped_dots, 1);
    assert_eq!(count(&out, "main", "stablehlo.transpose"), 0);
    let f = out.func("main").unwrap();
    let dot = &f.body.blocks[0].ops[0];
    assert_eq!(dot.operands, vec![f.params()[1], f.params()[0]]);
}

#[test]
fn a_product_read_twice_is_not_swapped() {
    let (_, stats) = apply(
        r#"
func.func public @main(%a: tensor<8x3xf32>, %b: tensor<8x5xf32>) -> (tensor<5x3xf32>, tensor<3x5xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  return %1, %0 : tensor<5x3xf32>, tensor<3x5xf32>
}
"#,
    );
    assert_eq!(stats.swapped_dots, 0);
}

#[test]
fn transposes_of_unit_dims_become_reshapes() {
    let (out, stats) = apply(
        r#"
func.func public @main(%x: tensor<1x6xf32>, %y: tensor<2x3xf32>) -> (tensor<6x1xf32>, tensor<3x2xf32>) {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<1x6xf32>) -> tensor<6x1xf32>
  %1 = stablehlo.transpose %y, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<6x1xf32>, tensor<3x2xf32>
}
"#,
    );
    assert_eq!(stats.bitcasts, 1);
    assert_eq!(count(&out, "main", "stablehlo.reshape"), 1);
    assert_eq!(count(&out, "main", "stablehlo.transpose"), 1);
}

#[test]
fn convolutions_read_and_write_through_transposes() {
    // NCHW input and OIHW kernel transposed to NHWC / HWIO, and the NHWC result transposed back
    // to NCHW: all three transposes fold into the dimension numbers.
    let (out, stats) = apply(
        r#"
func.func public @main(%x: tensor<1x3x5x5xf32>, %k: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %xt = stablehlo.transpose %x, dims = [0, 2, 3, 1] : (tensor<1x3x5x5xf32>) -> tensor<1x5x5x3xf32>
  %kt = stablehlo.transpose %k, dims = [2, 3, 1, 0] : (tensor<2x3x3x3xf32>) -> tensor<3x3x3x2xf32>
  %0 = stablehlo.convolution(%xt, %kt) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %1 = stablehlo.transpose %0, dims = [0, 3, 1, 2] : (tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}
"#,
    );
    assert_eq!((stats.conv_operands, stats.conv_results), (2, 1));
    assert_eq!(
        count(&out, "main", "stablehlo.transpose"),
        0,
        "{}",
        print_module(&out)
    );
    let f = out.func("main").unwrap();
    let OpKind::Convolution(attrs) = &f.body.blocks[0].ops[0].kind else {
        panic!("{}", print_module(&out));
    };
    let dn = &attrs.dimension_numbers;
    // NCHW, OIHW, NCHW.
    assert_eq!(
        (dn.input_batch_dimension, dn.input_feature_dimension),
        (0, 1)
    );
    assert_eq!(dn.input_spatial_dimensions, vec![2, 3]);
    assert_eq!(
        (
            dn.kernel_output_feature_dimension,
            dn.kernel_input_feature_dimension
        ),
        (0, 1)
    );
    assert_eq!(dn.kernel_spatial_dimensions, vec![2, 3]);
    assert_eq!(
        (dn.output_batch_dimension, dn.output_feature_dimension),
        (0, 1)
    );
    assert_eq!(dn.output_spatial_dimensions, vec![2, 3]);
}

#[test]
fn mlp_gradient_loses_its_transposes() {
    let g = common::goldens()
        .into_iter()
        .find(|g| g.name == "mlp_grad")
        .expect("mlp_grad golden");
    let before = count(&g.module, "main", "stablehlo.transpose");
    let out = run_pass(&Layout, &g.module);
    let after = count(&out, "main", "stablehlo.transpose");
    assert!(before >= 3 && after + 3 <= before, "{before} → {after}");
    assert_same_outputs("layout on mlp_grad", &g.module, &out, g.inputs.clone());
}

#[test]
fn preserves_semantics_on_goldens_check_files_and_random_programs() {
    common::assert_pass_preserves_semantics(&Layout, 150);
}
