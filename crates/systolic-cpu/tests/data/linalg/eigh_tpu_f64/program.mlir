module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4xf64>) -> (tensor<2x4xf64> {jax.result_info = "result[0]"}, tensor<2x4x4xf64> {jax.result_info = "result[1]"}) {
    %0:2 = call @eigh(%arg0) : (tensor<2x4x4xf64>) -> (tensor<2x4xf64>, tensor<2x4x4xf64>)
    return %0#0, %0#1 : tensor<2x4xf64>, tensor<2x4x4xf64>
  }
  func.func private @eigh(%arg0: tensor<2x4x4xf64>) -> (tensor<2x4xf64>, tensor<2x4x4xf64>) {
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<2x4x4xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x4x4xf64>
    %3 = stablehlo.divide %1, %2 : tensor<2x4x4xf64>
    %4:2 = stablehlo.custom_call @Eigh(%3) {backend_config = "1,1,100,1e-6"} : (tensor<2x4x4xf64>) -> (tensor<2x4x4xf64>, tensor<2x4xf64>)
    return %4#1, %4#0 : tensor<2x4xf64>, tensor<2x4x4xf64>
  }
}
