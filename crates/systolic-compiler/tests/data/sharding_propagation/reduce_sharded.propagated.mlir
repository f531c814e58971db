module @jit_reduce_sharded attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.num_partitions = 8 : i32, mhlo.use_auto_spmd_partitioning = false} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}, tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}) {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [])->([i]) {i=16, j=32} reduction={j}>} : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%arg0 init: %2) applies stablehlo.maximum across dimensions = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"model"}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [])->([j]) {i=16, j=32} reduction={i}>} : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    return %1, %3 : tensor<16xf32>, tensor<32xf32>
  }
}
