module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12x6xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<6x4xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<10x4xf32> {jax.result_info = "result[0]", mhlo.sharding = "{replicated}"}, tensor<6xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.slice %arg0 [0:10, 0:6] : (tensor<12x6xf32>) -> tensor<10x6xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"} : (tensor<10x6xf32>) -> tensor<10x6xf32>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10x6xf32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %3 = stablehlo.tanh %2 : tensor<10x4xf32>
    %4 = stablehlo.custom_call @Sharding(%3) {backend_config = "", mhlo.sharding = "{devices=[4,2]<=[8]}"} : (tensor<10x4xf32>) -> tensor<10x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<10x6xf32>, tensor<f32>) -> tensor<6xf32>
    return %4, %5 : tensor<10x4xf32>, tensor<6xf32>
  }
}
