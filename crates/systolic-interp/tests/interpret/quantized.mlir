// Uniformly quantized types: uniform_quantize/uniform_dequantize and ops on quantized values
// (dequantize, compute, quantize). Expected values by hand: stored = clamp(round_half_even(
// x / scale) + zero_point, storage range).

// A narrowed storage range saturates; 0.26 / 0.5 = 0.52 rounds to 1.
func.func @storage_range_saturates() {
  %x = stablehlo.constant dense<[100.0, -100.0, 0.26]> : tensor<3xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<3x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>) -> tensor<3xi8>
  check.expect_eq_const %s, dense<[127, -127, 1]> : tensor<3xi8>
  func.return
}

// -----

// Halves round to even: 0.5 → 0, 1.5 → 2, -0.5 → 0.
func.func @halves_round_to_even() {
  %x = stablehlo.constant dense<[0.25, 0.75, -0.25]> : tensor<3xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3xi8>
  check.expect_eq_const %s, dense<[0, 2, 0]> : tensor<3xi8>
  func.return
}

// -----

// Per-axis along dimension 1: column 0 has scale 0.5 and zero point 0, column 1 scale 0.25
// and zero point 10.
func.func @per_axis_on_the_second_dimension() {
  %x = stablehlo.constant dense<[[1.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5,0.25:10}>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5,0.25:10}>>) -> tensor<2x2xi8>
  check.expect_eq_const %s, dense<[[2, 14], [4, 18]]> : tensor<2x2xi8>
  %d = "stablehlo.uniform_dequantize"(%q) : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5,0.25:10}>>) -> tensor<2x2xf32>
  check.expect_eq_const %d, dense<[[1.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32>
  func.return
}

// -----

// Unsigned storage with zero point 128 and scale 1/128: 1.0 would be 256, saturated to 255.
func.func @unsigned_storage() {
  %x = stablehlo.constant dense<[-1.0, 0.0, 1.0]> : tensor<3xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<3xf32>) -> tensor<3x!quant.uniform<ui8:f32, 7.812500e-03:128>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<3x!quant.uniform<ui8:f32, 7.812500e-03:128>>) -> tensor<3xui8>
  check.expect_eq_const %s, dense<[0, 128, 255]> : tensor<3xui8>
  func.return
}

// -----

// dot_general on quantized operands: [1, 2] · [[1], [3]] = [7], stored at scale 0.25 as 28.
func.func @quantized_dot_general() {
  %a = stablehlo.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %b = stablehlo.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %qa = "stablehlo.uniform_quantize"(%a) : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.5>>
  %qb = "stablehlo.uniform_quantize"(%b) : (tensor<2x1xf32>) -> tensor<2x1x!quant.uniform<i8:f32, 1.0>>
  %p = stablehlo.dot_general %qa, %qb, contracting_dims = [1] x [0] : (tensor<1x2x!quant.uniform<i8:f32, 0.5>>, tensor<2x1x!quant.uniform<i8:f32, 1.0>>) -> tensor<1x1x!quant.uniform<i32:f32, 0.25>>
  %s = "stablehlo.bitcast_convert"(%p) : (tensor<1x1x!quant.uniform<i32:f32, 0.25>>) -> tensor<1x1xi32>
  check.expect_eq_const %s, dense<[[28]]> : tensor<1x1xi32>
  func.return
}

// -----

// The zero point is added before rounding, in f32, as the spec's `quantize` orders it:
// 0.50000006 / 1.0 + (-30) = -29.49999994 rounds in f32 to -29.5, a half, which rounds to
// even: -30. (Rounding 0.50000006 first would give 1 - 30 = -29.)
func.func @zero_point_added_before_rounding() {
  %x = stablehlo.constant dense<[0.50000006]> : tensor<1xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<1xf32>) -> tensor<1x!quant.uniform<i8:f32, 1.000000e+00:-30>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<1x!quant.uniform<i8:f32, 1.000000e+00:-30>>) -> tensor<1xi8>
  check.expect_eq_const %s, dense<[-30]> : tensor<1xi8>
  func.return
}

// -----

// Per-axis quantize, then re-quantize to other per-axis parameters (the spec's examples):
// [4.0, 15.0] → [4/0.1 - 30, 15/0.5 - 20] = [10, 10]; dequantized back to [4.0, 15.0] and
// quantized again: [4/0.1 - 20, 15/0.2 - 30] = [20, 45].
func.func @per_axis_requantization() {
  %x = stablehlo.constant dense<[4.0, 15.0]> : tensor<2xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2xi8>
  check.expect_eq_const %s, dense<[10, 10]> : tensor<2xi8>
  %r = "stablehlo.uniform_quantize"(%q) : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>
  %t = "stablehlo.bitcast_convert"(%r) : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>) -> tensor<2xi8>
  check.expect_eq_const %t, dense<[20, 45]> : tensor<2xi8>
  func.return
}

// -----

// Per-tensor re-quantization to a coarser scale and a narrowed range: stored [100, -3, 7]
// at scale 0.1 are [10.0, -0.3, 0.7]; at scale 0.2 with i8<-20:20>: [50 → 20, -1.5 → -2
// (even), 3.5 → 4 (even)].
func.func @requantization_saturates_at_the_new_range() {
  %s = stablehlo.constant dense<[100, -3, 7]> : tensor<3xi8>
  %q = "stablehlo.bitcast_convert"(%s) : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8:f32, 0.1>>
  %r = "stablehlo.uniform_quantize"(%q) : (tensor<3x!quant.uniform<i8:f32, 0.1>>) -> tensor<3x!quant.uniform<i8<-20:20>:f32, 0.2>>
  %t = "stablehlo.bitcast_convert"(%r) : (tensor<3x!quant.uniform<i8<-20:20>:f32, 0.2>>) -> tensor<3xi8>
  check.expect_eq_const %t, dense<[20, -2, 4]> : tensor<3xi8>
  func.return
}

// -----

// A quantized add saturates at the storage range: stored [100, -100, 1] at scale 1.0 in
// i8<-127:127> are [100.0, -100.0, 1.0]; doubled, [200.0, -200.0, 2.0] → [127, -127, 2].
func.func @quantized_add_saturates() {
  %s = stablehlo.constant dense<[100, -100, 1]> : tensor<3xi8>
  %q = "stablehlo.bitcast_convert"(%s) : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8<-127:127>:f32, 1.0>>
  %a = stablehlo.add %q, %q : tensor<3x!quant.uniform<i8<-127:127>:f32, 1.0>>
  %t = "stablehlo.bitcast_convert"(%a) : (tensor<3x!quant.uniform<i8<-127:127>:f32, 1.0>>) -> tensor<3xi8>
  check.expect_eq_const %t, dense<[127, -127, 2]> : tensor<3xi8>
  func.return
}

// -----

// Operands of different quantizations meet in the expressed type: stored [4, 8] at 0.5 with
// zero point 2 are [1.0, 3.0]; stored [3, 3] at 0.25 are [0.75, 0.75]; the sum [1.75, 3.75]
// stored at 0.125 with zero point -10 is [14 - 10, 30 - 10] = [4, 20].
func.func @quantized_add_of_different_parameters() {
  %a = stablehlo.constant dense<[4, 8]> : tensor<2xi8>
  %b = stablehlo.constant dense<[3, 3]> : tensor<2xi8>
  %qa = "stablehlo.bitcast_convert"(%a) : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 0.5:2>>
  %qb = "stablehlo.bitcast_convert"(%b) : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 0.25>>
  %c = stablehlo.add %qa, %qb : (tensor<2x!quant.uniform<i8:f32, 0.5:2>>, tensor<2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x!quant.uniform<i8:f32, 0.125:-10>>
  %t = "stablehlo.bitcast_convert"(%c) : (tensor<2x!quant.uniform<i8:f32, 0.125:-10>>) -> tensor<2xi8>
  check.expect_eq_const %t, dense<[4, 20]> : tensor<2xi8>
  func.return
}

// -----

// Weight-only ("hybrid") dot_general: a float lhs times a quantized rhs is computed on the
// rhs's dequantized values, with a float result: [1, 2] · [[2 * 0.5], [6 * 0.5]] = [7].
func.func @hybrid_dot_general() {
  %a = stablehlo.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %w = stablehlo.constant dense<[[2], [6]]> : tensor<2x1xi8>
  %qw = "stablehlo.bitcast_convert"(%w) : (tensor<2x1xi8>) -> tensor<2x1x!quant.uniform<i8:f32, 0.5>>
  %p = stablehlo.dot_general %a, %qw, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x1xf32>
  check.expect_eq_const %p, dense<[[7.0]]> : tensor<1x1xf32>
  func.return
}

// -----

// Per-axis rhs and result along the output dimension: stored [[1, 1], [2, 2]] with column
// scales {1.0, 2.0} are [[1, 2], [2, 4]]; [1, 1] times them is [3, 6], stored with column
// scales {0.5, 3.0} as [6, 2].
func.func @per_axis_dot_general() {
  %a = stablehlo.constant dense<[[2, 2]]> : tensor<1x2xi8>
  %w = stablehlo.constant dense<[[1, 1], [2, 2]]> : tensor<2x2xi8>
  %qa = "stablehlo.bitcast_convert"(%a) : (tensor<1x2xi8>) -> tensor<1x2x!quant.uniform<i8:f32, 0.5>>
  %qw = "stablehlo.bitcast_convert"(%w) : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32:1, {1.0,2.0}>>
  %p = stablehlo.dot_general %qa, %qw, contracting_dims = [1] x [0] : (tensor<1x2x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x!quant.uniform<i8:f32:1, {1.0,2.0}>>) -> tensor<1x2x!quant.uniform<i32:f32:1, {0.5,3.0}>>
  %t = "stablehlo.bitcast_convert"(%p) : (tensor<1x2x!quant.uniform<i32:f32:1, {0.5,3.0}>>) -> tensor<1x2xi32>
  check.expect_eq_const %t, dense<[[6, 2]]> : tensor<1x2xi32>
  func.return
}

// -----

// compare dequantizes both sides (the spec's dequantize_compare): stored 10 at 0.5 is 5.0,
// stored 20 at 0.25 is 5.0, stored 21 is 5.25.
func.func @quantized_compare() {
  %a = stablehlo.constant dense<[10, 10]> : tensor<2xi8>
  %b = stablehlo.constant dense<[20, 21]> : tensor<2xi8>
  %qa = "stablehlo.bitcast_convert"(%a) : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %qb = "stablehlo.bitcast_convert"(%b) : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 0.25>>
  %c = stablehlo.compare EQ, %qa, %qb : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2xi1>
  check.expect_eq_const %c, dense<[true, false]> : tensor<2xi1>
  func.return
}
