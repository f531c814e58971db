module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x6xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<6xf32> {jax.result_info = "result[0]", mhlo.sharding = "{replicated}"}, tensor<6xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}, tensor<32xf32> {jax.result_info = "result[2]", mhlo.sharding = "{devices=[8]<=[8]}"}, tensor<f32> {jax.result_info = "result[3]", mhlo.sharding = "{replicated}"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<32x6xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<32x6xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<32x6xf32>, tensor<f32>) -> tensor<32xf32>
    %cst_2 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %4 = stablehlo.divide %2, %3 : tensor<32xf32>
    %cst_3 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %5 = stablehlo.reduce(%arg0 init: %cst_3) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<32x6xf32>, tensor<f32>) -> tensor<f32>
    return %0, %1, %4, %5 : tensor<6xf32>, tensor<6xf32>, tensor<32xf32>, tensor<f32>
  }
}
