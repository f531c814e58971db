module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x3xf64>) -> (tensor<2x5x3xf64> {jax.result_info = "result[0]"}, tensor<2x3xi32> {jax.result_info = "result[1]"}, tensor<2x5xi32> {jax.result_info = "result[2]"}) {
    %0:3 = stablehlo.custom_call @LuDecomposition(%arg0) {api_version = 2 : i32, backend_config = ""} : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xi32>, tensor<2x5xi32>)
    return %0#0, %0#1, %0#2 : tensor<2x5x3xf64>, tensor<2x3xi32>, tensor<2x5xi32>
  }
}
