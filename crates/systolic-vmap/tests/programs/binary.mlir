module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<3x4xf32>
    %1 = stablehlo.abs %arg1 : tensor<3x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %3 = stablehlo.add %1, %2 : tensor<3x4xf32>
    %4 = stablehlo.divide %arg0, %3 : tensor<3x4xf32>
    %5 = stablehlo.subtract %0, %4 : tensor<3x4xf32>
    %6 = stablehlo.maximum %arg0, %arg1 : tensor<3x4xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<3x4xf32>
    %8 = stablehlo.add %5, %7 : tensor<3x4xf32>
    return %8 : tensor<3x4xf32>
  }
}
