// StableHLO's dynamic_* ops with static result types: the parser reads each as its static op
// (text/resolve_dynamic.rs). Shape operands the result type fixes may be computed at run time;
// paddings and slice sizes must be constants. Expected values computed by hand.

func.func @dynamic_iota_with_a_shape_computed_at_run_time() {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %shape = stablehlo.add %c, %c : tensor<2xi32>
  %r = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi32>) -> tensor<2x4xui8>
  check.expect_eq_const %r, dense<[[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xui8>
  func.return
}

// -----

func.func @dynamic_reshape_to_the_result_type() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %shape = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %r = stablehlo.dynamic_reshape %x, %shape : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  check.expect_eq_const %r, dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  func.return
}

// -----

func.func @dynamic_broadcast_in_dim_with_hints() {
  %x = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %r = "stablehlo.dynamic_broadcast_in_dim"(%x, %shape) {
    broadcast_dimensions = array<i64: 0, 1>,
    known_expanding_dimensions = array<i64: 0>,
    known_nonexpanding_dimensions = array<i64: 1>
  } : (tensor<1x3xi32>, tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %r, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  func.return
}

// -----

// Interior 1 gives [1, 9, 2, 9, 3]; low -1 drops the first; high 2 appends two 9s.
func.func @dynamic_pad_negative_low_and_interior() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %v = stablehlo.constant dense<9.0> : tensor<f32>
  %low = stablehlo.constant dense<[-1]> : tensor<1xi32>
  %high = stablehlo.constant dense<[2]> : tensor<1xi32>
  %interior = stablehlo.constant dense<[1]> : tensor<1xi32>
  %r = stablehlo.dynamic_pad %x, %v, %low, %high, %interior
    : (tensor<3xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<6xf32>
  check.expect_eq_const %r, dense<[9.0, 2.0, 9.0, 3.0, 9.0, 9.0]> : tensor<6xf32>
  func.return
}

// -----

// Rows 2 and 0, the first two columns of each.
func.func @dynamic_gather_rows() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %sizes = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %r = "stablehlo.dynamic_gather"(%x, %idx, %sizes) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [1],
      collapsed_slice_dims = [0],
      start_index_map = [0],
      index_vector_dim = 1>,
    indices_are_sorted = false
  } : (tensor<3x3xi32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2xi32>
  check.expect_eq_const %r, dense<[[7, 8], [1, 2]]> : tensor<2x2xi32>
  func.return
}

// -----

// A 3-tap box filter over [1, 2, 3, 4] padded by one zero on each side: [3, 6, 9, 7].
func.func @dynamic_conv_pads_from_its_operand() {
  %lhs = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf32>
  %rhs = stablehlo.constant dense<1.0> : tensor<3x1x1xf32>
  %padding = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi64>
  %r = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {
    window_strides = array<i64: 1>,
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x4x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi64>) -> tensor<1x4x1xf32>
  check.expect_eq_const %r, dense<[[[3.0], [6.0], [9.0], [7.0]]]> : tensor<1x4x1xf32>
  func.return
}
