module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4x2xf32> {mhlo.sharding = "{devices=[2,2,2]<=[8]}"}) -> (tensor<4x4x1xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[2,2,1,2]<=[8] last_tile_dim_replicate}"}, tensor<2x2x2xf32> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}, tensor<2x2x1xf32> {jax.result_info = "result[2]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,2,2]<=[8]}"} : (tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x4x2xf32>) -> tensor<2x2x1xf32>
    %2:3 = call @shmap_body(%1) : (tensor<2x2x1xf32>) -> (tensor<2x2x1xf32>, tensor<2x2x1xf32>, tensor<2x2x1xf32>)
    %3 = stablehlo.custom_call @Sharding(%2#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[2,2,1,2]<=[8] last_tile_dim_replicate}"} : (tensor<2x2x1xf32>) -> tensor<4x4x1xf32>
    %5 = stablehlo.custom_call @Sharding(%2#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"} : (tensor<2x2x1xf32>) -> tensor<2x2x2xf32>
    %7 = stablehlo.custom_call @Sharding(%2#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    return %4, %6, %8 : tensor<4x4x1xf32>, tensor<2x2x2xf32>, tensor<2x2x1xf32>
  }
  func.func private @shmap_body(%arg0: tensor<2x2x1xf32>) -> (tensor<2x2x1xf32> {jax.result_info = "[('a',), ('b',), None]"}, tensor<2x2x1xf32> {jax.result_info = "[None, None, ('c',)]"}, tensor<2x2x1xf32> {jax.result_info = "[None, None, None]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %13 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %13 : tensor<f32>
    }) : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    %c = stablehlo.constant dense<2> : tensor<ui32>
    %c_0 = stablehlo.constant dense<2> : tensor<ui32>
    %1 = stablehlo.partition_id : tensor<ui32>
    %2 = stablehlo.divide %1, %c : tensor<ui32>
    %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
    %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %5 = stablehlo.add %4, %c_1 : tensor<i32>
    %6 = stablehlo.convert %5 : (tensor<i32>) -> tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<2x2x1xf32>
    %8 = stablehlo.multiply %0, %7 : tensor<2x2x1xf32>
    %9 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %13 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %13 : tensor<f32>
    }) : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    %10 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %13 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %13 : tensor<f32>
    }) : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<2x2x1xf32>
    return %8, %9, %12 : tensor<2x2x1xf32>, tensor<2x2x1xf32>, tensor<2x2x1xf32>
  }
}
