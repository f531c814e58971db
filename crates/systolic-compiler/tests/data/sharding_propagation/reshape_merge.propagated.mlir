module @jit_reshape_merge attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.num_partitions = 8 : i32, mhlo.use_auto_spmd_partitioning = false} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func @main(%arg0: tensor<8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}, {}]>}) -> (tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.cosine %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, j, k]) {i=8, j=8, k=8}>} : tensor<8x8x8xf32>
    %1 = stablehlo.reshape %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([ij, k]) {i=8, j=8, k=8}>} : (tensor<8x8x8xf32>) -> tensor<64x8xf32>
    return %1 : tensor<64x8xf32>
  }
}
