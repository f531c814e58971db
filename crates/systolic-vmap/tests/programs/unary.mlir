module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.exponential %arg0 : tensor<3x4xf32>
    %1 = stablehlo.tanh %0 : tensor<3x4xf32>
    %2 = stablehlo.floor %arg0 : tensor<3x4xf32>
    %3 = stablehlo.add %1, %2 : tensor<3x4xf32>
    %4 = stablehlo.abs %arg0 : tensor<3x4xf32>
    %5 = stablehlo.sqrt %4 : tensor<3x4xf32>
    %6 = stablehlo.subtract %3, %5 : tensor<3x4xf32>
    return %6 : tensor<3x4xf32>
  }
}
