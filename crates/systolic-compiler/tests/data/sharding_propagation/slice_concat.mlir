module @jit_slice_concat attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.num_partitions = 8 : i32, mhlo.use_auto_spmd_partitioning = false} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> tensor<16x8xf32> {
    %0 = stablehlo.slice %arg0 [0:16, 0:4] : (tensor<16x8xf32>) -> tensor<16x4xf32>
    %1 = stablehlo.slice %arg0 [0:16, 4:8] : (tensor<16x8xf32>) -> tensor<16x4xf32>
    %2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<16x4xf32>
    %5 = stablehlo.concatenate %0, %4, dim = 1 : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x8xf32>
    return %5 : tensor<16x8xf32>
  }
}
