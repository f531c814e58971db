module @jit_softmax attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.num_partitions = 8 : i32, mhlo.use_auto_spmd_partitioning = false} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.maximum across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [])->([i]) {i=16, j=32} reduction={j}>} : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([])->([i]) {i=16}>} : (tensor<f32>) -> tensor<16xf32>
    %3 = stablehlo.maximum %1, %2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i], [i])->([i]) {i=16}>} : tensor<16xf32>
    %4 = stablehlo.reshape %3 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i, j]) {i=16, j=1}>} : (tensor<16xf32>) -> tensor<16x1xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=1}>} : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %6 = stablehlo.reshape %5 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=16, j=1}>} : (tensor<16x1xf32>) -> tensor<16xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i, j]) {i=16, j=32}>} : (tensor<16xf32>) -> tensor<16x32xf32>
    %8 = stablehlo.subtract %arg0, %7 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=16, j=32}>} : tensor<16x32xf32>
    %9 = stablehlo.exponential %8 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}>} : tensor<16x32xf32>
    %10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%9 init: %10) applies stablehlo.add across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [])->([i]) {i=16, j=32} reduction={j}>} : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %12 = stablehlo.reshape %11 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i, j]) {i=16, j=1}>} : (tensor<16xf32>) -> tensor<16x1xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=1}>} : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %14 = stablehlo.reshape %13 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=16, j=1}>} : (tensor<16x1xf32>) -> tensor<16xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i, j]) {i=16, j=32}>} : (tensor<16xf32>) -> tensor<16x32xf32>
    %16 = stablehlo.divide %9, %15 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=16, j=32}>} : tensor<16x32xf32>
    return %16 : tensor<16x32xf32>
  }
}
