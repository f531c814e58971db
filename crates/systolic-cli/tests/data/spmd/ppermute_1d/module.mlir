module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x3xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<8x3xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8xi32> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[8]<=[8]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x3xf32>) -> tensor<1x3xf32>
    %2:2 = call @shmap_body(%1) : (tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1xi32>)
    %3 = stablehlo.custom_call @Sharding(%2#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x3xf32>) -> tensor<1x3xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x3xf32>) -> tensor<8x3xf32>
    %5 = stablehlo.custom_call @Sharding(%2#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1xi32>) -> tensor<1xi32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[8]<=[8]}"} : (tensor<1xi32>) -> tensor<8xi32>
    return %4, %6 : tensor<8x3xf32>, tensor<8xi32>
  }
  func.func private @shmap_body(%arg0: tensor<1x3xf32>) -> (tensor<1x3xf32> {jax.result_info = "[('i',), None]"}, tensor<1xi32> {jax.result_info = "[('i',)]"}) {
    %0 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<1x3xf32>) -> tensor<1x3xf32>
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<8> : tensor<ui32>
    %1 = stablehlo.partition_id : tensor<ui32>
    %2 = stablehlo.divide %1, %c : tensor<ui32>
    %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
    %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
    %5 = stablehlo.convert %4 : (tensor<i32>) -> tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<1x3xf32>
    %7 = stablehlo.add %0, %6 : tensor<1x3xf32>
    %c_1 = stablehlo.constant dense<1> : tensor<ui32>
    %c_2 = stablehlo.constant dense<8> : tensor<ui32>
    %8 = stablehlo.partition_id : tensor<ui32>
    %9 = stablehlo.divide %8, %c_1 : tensor<ui32>
    %10 = stablehlo.remainder %9, %c_2 : tensor<ui32>
    %11 = stablehlo.convert %10 : (tensor<ui32>) -> tensor<i32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<i32>) -> tensor<1xi32>
    return %7, %12 : tensor<1x3xf32>, tensor<1xi32>
  }
}
