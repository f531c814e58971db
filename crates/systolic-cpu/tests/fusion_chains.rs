//! Multi-op blocks as one loop kernel against the interpreter: chains, broadcasts (scalar,
//! row, column), transposes, strided slices, iotas, splat and dense constants, reshapes,
//! computed values that are broadcast afterwards (a second stage), and several outputs.

use crate::fusion_support;

use fusion_support::{assert_results, run_both};

fn check(text: &str, ulps: u64) {
    for seed in 0..3 {
        let (ours, want, inputs) = run_both(text, 100 + seed);
        assert_results(&ours, &want, &inputs, ulps, text);
    }
}

#[test]
fn tanh_of_add_times() {
    check(
        "func.func @main(%a: tensor<37x129xf32>, %b: tensor<37x129xf32>, %c: tensor<37x129xf32>) -> tensor<37x129xf32> {
  %0 = stablehlo.add %a, %b : tensor<37x129xf32>
  %1 = stablehlo.multiply %0, %c : tensor<37x129xf32>
  %2 = stablehlo.tanh %1 : tensor<37x129xf32>
  return %2 : tensor<37x129xf32>
}",
        1,
    );
}

#[test]
fn bf16_chain_rounds_after_every_op() {
    check(
        "func.func @main(%a: tensor<1000xbf16>, %b: tensor<1000xbf16>, %c: tensor<1000xbf16>) -> tensor<1000xbf16> {
  %0 = stablehlo.add %a, %b : tensor<1000xbf16>
  %1 = stablehlo.multiply %0, %c : tensor<1000xbf16>
  %2 = stablehlo.subtract %1, %a : tensor<1000xbf16>
  %3 = stablehlo.divide %2, %b : tensor<1000xbf16>
  return %3 : tensor<1000xbf16>
}",
        0,
    );
}

#[test]
fn row_column_and_scalar_broadcasts_with_constants() {
    check(
        "func.func @main(%x: tensor<8x300xf32>, %row: tensor<300xf32>, %col: tensor<8xf32>) -> tensor<8x300xf32> {
  %cst = stablehlo.constant dense<2.5> : tensor<f32>
  %cst_0 = stablehlo.constant dense<[1.0, -2.0, 3.0, 0.5, 0.25, -1.0, 8.0, 0.0]> : tensor<8xf32>
  %0 = stablehlo.broadcast_in_dim %row, dims = [1] : (tensor<300xf32>) -> tensor<8x300xf32>
  %1 = stablehlo.broadcast_in_dim %col, dims = [0] : (tensor<8xf32>) -> tensor<8x300xf32>
  %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x300xf32>
  %3 = stablehlo.broadcast_in_dim %cst_0, dims = [0] : (tensor<8xf32>) -> tensor<8x300xf32>
  %4 = stablehlo.add %x, %0 : tensor<8x300xf32>
  %5 = stablehlo.multiply %4, %1 : tensor<8x300xf32>
  %6 = stablehlo.subtract %5, %2 : tensor<8x300xf32>
  %7 = stablehlo.maximum %6, %3 : tensor<8x300xf32>
  return %7 : tensor<8x300xf32>
}",
        0,
    );
}

/// Blocks that only move one operand's elements (a transpose, a transpose then a reshape, a
/// strided slice then a transpose) become a strided copy, not a loop program; the results
/// are the interpreter's exactly, in every dtype width.
#[test]
fn data_movement_blocks_are_copies() {
    let cases = [
        ("8x4x6x10", "0, 3, 1, 2", "8x10x4x6", "8x10x24"),
        ("3x5x17x9", "0, 2, 1, 3", "3x17x5x9", "3x85x9"),
        ("33x20", "1, 0", "20x33", "660"),
    ];
    for dtype in ["f32", "bf16", "i8", "i1", "f64"] {
        for (from, perm, moved, shaped) in cases {
            let text = format!(
                "func.func @main(%x: tensor<{from}x{dtype}>) -> tensor<{shaped}x{dtype}> {{
  %0 = stablehlo.transpose %x, dims = [{perm}] : (tensor<{from}x{dtype}>) -> tensor<{moved}x{dtype}>
  %1 = stablehlo.reshape %0 : (tensor<{moved}x{dtype}>) -> tensor<{shaped}x{dtype}>
  return %1 : tensor<{shaped}x{dtype}>
}}"
            );
            let kernel = fusion_support::with_main_block(&text, |block, ctx| {
                systolic_cpu::kernels::fusion::kernel::lower_block("t".into(), block, ctx)
            })
            .expect("a kernel");
            assert!(
                format!("{kernel:?}").starts_with("ViewKernel"),
                "not a copy: {kernel:?}\n{text}"
            );
            check(&text, 0);
        }
    }
    let sliced = "func.func @main(%x: tensor<9x40xf32>) -> tensor<20x7xf32> {
  %0 = stablehlo.slice %x [1:8, 0:40:2] : (tensor<9x40xf32>) -> tensor<7x20xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<7x20xf32>) -> tensor<20x7xf32>
  return %1 : tensor<20x7xf32>
}";
    check(sliced, 0);
}

#[test]
fn transpose_and_strided_slice() {
    check(
        "func.func @main(%x: tensor<5x7xf32>, %z: tensor<9x12xf32>) -> tensor<7x5xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %1 = stablehlo.slice %z [1:8, 2:12:2] : (tensor<9x12xf32>) -> tensor<7x5xf32>
  %2 = stablehlo.add %0, %1 : tensor<7x5xf32>
  return %2 : tensor<7x5xf32>
}",
        0,
    );
}

#[test]
fn one_hot_from_iota_compare_select() {
    check(
        "func.func @main(%labels: tensor<6xi32>) -> tensor<6x10xf32> {
  %0 = stablehlo.iota dim = 1 : tensor<6x10xi32>
  %1 = stablehlo.broadcast_in_dim %labels, dims = [0] : (tensor<6xi32>) -> tensor<6x10xi32>
  %2 = stablehlo.compare EQ, %1, %0, SIGNED : (tensor<6x10xi32>, tensor<6x10xi32>) -> tensor<6x10xi1>
  %3 = stablehlo.convert %2 : (tensor<6x10xi1>) -> tensor<6x10xf32>
  %cst = stablehlo.constant dense<0.0> : tensor<6x10xf32>
  %4 = stablehlo.select %2, %3, %cst : tensor<6x10xi1>, tensor<6x10xf32>
  return %4 : tensor<6x10xf32>
}",
        0,
    );
}

#[test]
fn computed_value_broadcast_runs_in_a_second_stage() {
    check(
        "func.func @main(%v: tensor<300xf32>, %x: tensor<8x300xf32>) -> tensor<8x300xf32> {
  %0 = stablehlo.exponential %v : tensor<300xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<300xf32>) -> tensor<8x300xf32>
  %2 = stablehlo.multiply %1, %x : tensor<8x300xf32>
  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<8x300xf32>) -> tensor<300x8xf32>
  %4 = stablehlo.reshape %3 : (tensor<300x8xf32>) -> tensor<2400xf32>
  %5 = stablehlo.negate %4 : tensor<2400xf32>
  %6 = stablehlo.reshape %5 : (tensor<2400xf32>) -> tensor<8x300xf32>
  return %6 : tensor<8x300xf32>
}",
        // exp is within 1 ulp; the product after it can double that.
        2,
    );
}

#[test]
fn several_outputs_and_a_returned_view() {
    check(
        "func.func @main(%a: tensor<3x70001xf32>, %b: tensor<3x70001xf32>) -> (tensor<3x70001xf32>, tensor<3x70001xf32>, tensor<70001x3xf32>) {
  %0 = stablehlo.add %a, %b : tensor<3x70001xf32>
  %1 = stablehlo.multiply %a, %b : tensor<3x70001xf32>
  %2 = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x70001xf32>) -> tensor<70001x3xf32>
  return %0, %1, %2 : tensor<3x70001xf32>, tensor<3x70001xf32>, tensor<70001x3xf32>
}",
        0,
    );
}

#[test]
fn integer_chain_with_shifts_like_a_counter_hash() {
    check(
        "func.func @main(%x: tensor<5000xui32>, %k: tensor<ui32>) -> tensor<5000xui32> {
  %c = stablehlo.constant dense<13> : tensor<5000xui32>
  %c_0 = stablehlo.constant dense<19> : tensor<5000xui32>
  %0 = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<ui32>) -> tensor<5000xui32>
  %1 = stablehlo.add %x, %0 : tensor<5000xui32>
  %2 = stablehlo.shift_left %1, %c : tensor<5000xui32>
  %3 = stablehlo.shift_right_logical %1, %c_0 : tensor<5000xui32>
  %4 = stablehlo.or %2, %3 : tensor<5000xui32>
  %5 = stablehlo.xor %4, %1 : tensor<5000xui32>
  return %5 : tensor<5000xui32>
}",
        0,
    );
}

/// Lowers the first op of `main` (a `systolic.fusion`) through the family's entry point and
/// compares it with the interpreter running the whole function.
fn check_fusion_op(text: &str, ulps: u64) {
    use systolic_cpu::{Arg, CpuBuffer, LowerCtx};
    let module = systolic_ir::text::parse_module(text, "t").unwrap();
    let func = module.func("main").unwrap();
    let ctx = LowerCtx::new(&module, func);
    let op = &func.body.entry().unwrap().ops[0];
    let kernel = systolic_cpu::kernels::fusion::lower(op, &ctx)
        .unwrap()
        .expect("a fused kernel");
    let mut rng = fusion_support::Rng(77);
    let inputs: Vec<systolic_ir::Tensor> = func
        .param_types()
        .iter()
        .map(|t| fusion_support::random_tensor(t.as_tensor().unwrap(), &mut rng))
        .collect();
    let buffers: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
    let ours: Vec<systolic_ir::Tensor> = kernel
        .run(buffers.iter().map(Arg::Borrowed).collect())
        .unwrap()
        .iter()
        .map(CpuBuffer::to_tensor)
        .collect();
    let want: Vec<systolic_ir::Tensor> = systolic_interp::Interpreter::new(&module)
        .call(
            "main",
            inputs
                .iter()
                .cloned()
                .map(systolic_interp::Value::Tensor)
                .collect(),
        )
        .unwrap()
        .into_iter()
        .map(|v| v.into_tensor().unwrap())
        .collect();
    assert_results(&ours, &want, &inputs, ulps, text);
}

#[test]
fn loop_and_reduction_fusion_ops_lower_to_one_kernel() {
    check_fusion_op(
        r#"func.func @main(%a: tensor<64x100xf32>, %b: tensor<100xf32>) -> tensor<64x100xf32> {
  %0 = "systolic.fusion"(%a, %b) ({
  ^bb0(%x: tensor<64x100xf32>, %y: tensor<100xf32>):
    %1 = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<100xf32>) -> tensor<64x100xf32>
    %2 = stablehlo.add %x, %1 : tensor<64x100xf32>
    %3 = stablehlo.logistic %2 : tensor<64x100xf32>
    stablehlo.return %3 : tensor<64x100xf32>
  }) {kind = "loop", name = "fusion.0"} : (tensor<64x100xf32>, tensor<100xf32>) -> tensor<64x100xf32>
  return %0 : tensor<64x100xf32>
}"#,
        1,
    );
    check_fusion_op(
        r#"func.func @main(%a: tensor<64x100xi32>) -> tensor<100xi32> {
  %0 = "systolic.fusion"(%a) ({
  ^bb0(%x: tensor<64x100xi32>):
    %c = stablehlo.constant dense<3> : tensor<64x100xi32>
    %1 = stablehlo.multiply %x, %c : tensor<64x100xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.reduce(%1 init: %c_0) applies stablehlo.add across dimensions = [0] : (tensor<64x100xi32>, tensor<i32>) -> tensor<100xi32>
    %3 = stablehlo.negate %2 : tensor<100xi32>
    stablehlo.return %3 : tensor<100xi32>
  }) {kind = "reduction", name = "fusion.1"} : (tensor<64x100xi32>) -> tensor<100xi32>
  return %0 : tensor<100xi32>
}"#,
        0,
    );
}
