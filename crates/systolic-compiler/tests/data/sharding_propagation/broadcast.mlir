module @jit_broadcast attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.num_partitions = 8 : i32, mhlo.use_auto_spmd_partitioning = false} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func @main(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}, %arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) -> tensor<16x32xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16xf32>) -> tensor<16x1xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<16x1xf32>) -> tensor<16xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<16xf32>) -> tensor<16x32xf32>
    %4 = stablehlo.add %3, %arg1 : tensor<16x32xf32>
    return %4 : tensor<16x32xf32>
  }
}
