module @jit_ring attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<4x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {"y", ?}]>] out_shardings=[<@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%arg1: tensor<4x2xf32>) {
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
      %4 = sdy.sharding_constraint %3 <@mesh, [{?}, {?}]> : tensor<4x2xf32>
      %5 = stablehlo.multiply %arg1, %4 : tensor<4x2xf32>
      %6 = sdy.sharding_constraint %5 <@mesh, [{?}, {?}]> : tensor<4x2xf32>
      %7 = "stablehlo.collective_permute"(%6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
      sdy.return %7 : tensor<4x2xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x8xf32>
    return %2 : tensor<4x8xf32>
  }
}
