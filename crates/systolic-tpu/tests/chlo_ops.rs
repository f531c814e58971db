//! CHLO ops with structure the cost model must not take for free: `chlo.ragged_dot` (one dot
//! of lhs with one rhs group per row) and `chlo.scan` (its body once per step).

use systolic_ir::text::parse_module;
use systolic_tpu::{chip, simulate, SimOptions};

fn flops(src: &str) -> f64 {
    let m = parse_module(src, "chlo.mlir").unwrap();
    simulate(&m, &chip("v5e").unwrap(), &SimOptions::default())
        .unwrap()
        .flops
}

#[test]
fn ragged_dot_costs_one_dot_without_the_group_dimension() {
    let f = flops(
        "func.func @main(%l: tensor<512x256xbf16>, %r: tensor<8x256x1024xbf16>, %g: tensor<8xi32>) -> tensor<512x1024xf32> {
  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<
    lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
    lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}
    : (tensor<512x256xbf16>, tensor<8x256x1024xbf16>, tensor<8xi32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}",
    );
    // 2·m·k·n: each row meets one group, not all eight.
    let want = 2.0 * 512.0 * 256.0 * 1024.0;
    assert!((f - want).abs() <= 1e-9 * want, "{f} vs {want}");
}

#[test]
fn scan_costs_its_body_per_step() {
    let src = |n: usize| {
        format!(
            "func.func @main(%x: tensor<{n}x64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {{
  %o, %last = chlo.scan(%x) inits(%c) dimension = 0 {{
  ^bb0(%xi: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %p = stablehlo.dot_general %s, %xi, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    stablehlo.return %p, %p : tensor<64x64xf32>, tensor<64x64xf32>
  }} : (tensor<{n}x64x64xf32>, tensor<64x64xf32>) -> (tensor<{n}x64x64xf32>, tensor<64x64xf32>)
  return %last : tensor<64x64xf32>
}}"
        )
    };
    let (one, ten) = (flops(&src(1)), flops(&src(10)));
    let step = 2.0 * 64f64.powi(3);
    assert!(one >= step, "{one}");
    assert!(
        (ten - 10.0 * one).abs() <= 1e-9 * ten,
        "{ten} vs 10 × {one}"
    );
}
