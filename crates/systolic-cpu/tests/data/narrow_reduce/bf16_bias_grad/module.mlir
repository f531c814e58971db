module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xbf16>, %arg1: tensor<2048x8xbf16>) -> (tensor<8xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xbf16>) -> tensor<1x8xbf16>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x8xbf16>) -> tensor<2048x8xbf16>
    %2 = stablehlo.add %arg1, %1 : tensor<2048x8xbf16>
    %3 = stablehlo.tanh %2 : tensor<2048x8xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<2048x8xbf16>
    %5 = stablehlo.subtract %4, %3 : tensor<2048x8xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2048x8xf32>
    %7 = stablehlo.convert %6 : (tensor<2048x8xf32>) -> tensor<2048x8xbf16>
    %8 = stablehlo.multiply %7, %5 : tensor<2048x8xbf16>
    %9 = stablehlo.multiply %8, %3 : tensor<2048x8xbf16>
    %10 = stablehlo.add %8, %9 : tensor<2048x8xbf16>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<2048x8xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %12 = stablehlo.reshape %11 : (tensor<8xbf16>) -> tensor<1x8xbf16>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %13 = stablehlo.reduce(%12 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<1x8xbf16>, tensor<bf16>) -> tensor<8xbf16>
    return %13 : tensor<8xbf16>
  }
}
