module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<12x6xf32>, %arg1: tensor<6x4xf32>) -> (tensor<10x4xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.slice %arg0 [0:10, 0:6] : (tensor<12x6xf32>) -> tensor<10x6xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<10x6xf32>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10x6xf32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %3 = stablehlo.tanh %2 : tensor<10x4xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}, {"model"}]> : tensor<10x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<10x6xf32>, tensor<f32>) -> tensor<6xf32>
    return %4, %5 : tensor<10x4xf32>, tensor<6xf32>
  }
}
