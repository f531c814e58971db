module @jit_scaled_fp8_matmul attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32x16xf32>) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.abs %arg0 : tensor<8x32xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %2 = stablehlo.divide %cst_0, %1 : tensor<f32>
    %3 = stablehlo.abs %arg1 : tensor<32x16xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<32x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %5 = stablehlo.divide %cst_2, %4 : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %7 = stablehlo.multiply %arg0, %6 : tensor<8x32xf32>
    %8 = stablehlo.convert %7 : (tensor<8x32xf32>) -> tensor<8x32xf8E4M3FN>
    %9 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %10 = stablehlo.multiply %arg1, %9 : tensor<32x16xf32>
    %11 = stablehlo.convert %10 : (tensor<32x16xf32>) -> tensor<32x16xf8E4M3FN>
    %12 = stablehlo.dot_general %8, %11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>) -> tensor<8x16xf32>
    %13 = stablehlo.multiply %2, %5 : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %15 = stablehlo.divide %12, %14 : tensor<8x16xf32>
    return %15 : tensor<8x16xf32>
  }
}
