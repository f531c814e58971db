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
