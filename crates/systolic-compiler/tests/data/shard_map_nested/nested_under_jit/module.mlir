module @jit_outer2 attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, %arg1: tensor<1x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, tensor<1x8xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{?}, {"x", ?}]>, <@mesh, [{?}, {"x", ?}]>] out_shardings=[<@mesh, [{?}, {"x", ?}]>, <@mesh, [{?}, {"x", ?}]>] manual_axes={"x"} (%arg2: tensor<8x4xf32>, %arg3: tensor<1x4xf32>) {
      %1 = stablehlo.tanh %arg2 : tensor<8x4xf32>
      %2 = sdy.sharding_constraint %1 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %3 = sdy.manual_computation(%2) in_shardings=[<@mesh, [{"y", ?}, {?}]>] out_shardings=[<@mesh, [{"y", ?}, {?}]>] manual_axes={"y"} (%arg4: tensor<2x4xf32>) {
        %12 = "stablehlo.collective_permute"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
        %13 = "stablehlo.all_reduce"(%arg4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
        ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
          %17 = stablehlo.add %arg5, %arg6 : tensor<f32>
          stablehlo.return %17 : tensor<f32>
        }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
        %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
        %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
        %15 = stablehlo.divide %13, %14 : tensor<2x4xf32>
        %16 = stablehlo.subtract %12, %15 : tensor<2x4xf32>
        sdy.return %16 : tensor<2x4xf32>
      } : (tensor<8x4xf32>) -> tensor<8x4xf32>
      %4 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
      %5 = sdy.sharding_constraint %4 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %6 = stablehlo.multiply %3, %5 : tensor<8x4xf32>
      %7 = sdy.sharding_constraint %6 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %8 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
      %9 = sdy.sharding_constraint %8 <@mesh, [{?}]> : tensor<4xf32>
      %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
      %11 = sdy.sharding_constraint %10 <@mesh, [{?}, {?}]> : tensor<1x4xf32>
      sdy.return %7, %11 : tensor<8x4xf32>, tensor<1x4xf32>
    } : (tensor<8x8xf32>, tensor<1x8xf32>) -> (tensor<8x8xf32>, tensor<1x8xf32>)
    return %0#0, %0#1 : tensor<8x8xf32>, tensor<1x8xf32>
  }
}
