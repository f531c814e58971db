module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x8xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg1: tensor<16x8xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<16x8xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<16x8xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.tanh %arg0 : tensor<16x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<16x8xf32>
    %3 = stablehlo.add %2, %arg1 : tensor<16x8xf32>
    %4 = stablehlo.negate %3 : tensor<16x8xf32>
    %5 = stablehlo.exponential %4 : tensor<16x8xf32>
    return %3, %5 : tensor<16x8xf32>, tensor<16x8xf32>
  }
}
