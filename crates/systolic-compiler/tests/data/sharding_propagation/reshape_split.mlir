module @jit_reshape_split attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.num_partitions = 8 : i32, mhlo.use_auto_spmd_partitioning = false} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<4x4x8xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16x8xf32>) -> tensor<4x4x8xf32>
    %1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4x4x8xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<4x4x8xf32>
    return %3 : tensor<4x4x8xf32>
  }
}
