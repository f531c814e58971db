module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6x6x3xf32> {mhlo.sharding = "{devices=[4,1,1,1,2]<=[8] last_tile_dim_replicate}"}, %arg1: tensor<3x3x3x4xf32> {mhlo.sharding = "{devices=[1,1,1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<4x6x6x4xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1,1,2]<=[8]}"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x6x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<4x6x6x4xf32>
    return %0 : tensor<4x6x6x4xf32>
  }
}
