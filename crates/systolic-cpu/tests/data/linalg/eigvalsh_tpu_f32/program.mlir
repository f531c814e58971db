module @jit_eigvalsh attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = call @eigvalsh(%arg0) : (tensor<5x5xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
  func.func private @eigvalsh(%arg0: tensor<5x5xf32>) -> tensor<5xf32> {
    %0 = call @eigh(%arg0) : (tensor<5x5xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
  func.func private @eigh(%arg0: tensor<5x5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<5x5xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %3 = stablehlo.divide %1, %2 : tensor<5x5xf32>
    %4:2 = stablehlo.custom_call @Eigh(%3) {backend_config = "1,1,100,1e-6"} : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5xf32>)
    return %4#1 : tensor<5xf32>
  }
}
