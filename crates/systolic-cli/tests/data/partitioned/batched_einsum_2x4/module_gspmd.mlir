module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8x8xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8]}"}, %arg1: tensor<4x8x8xf32> {mhlo.sharding = "{devices=[2,4,1]<=[8]}"}) -> (tensor<4x8x8xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[2,1,1,4]<=[8] last_tile_dim_replicate}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    return %0 : tensor<4x8x8xf32>
  }
}
