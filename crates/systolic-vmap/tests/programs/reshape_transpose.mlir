module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<2x2x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<2x3x2xf32>
    %1 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x3xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<2x2x3xf32>
    return %3 : tensor<2x2x3xf32>
  }
}
