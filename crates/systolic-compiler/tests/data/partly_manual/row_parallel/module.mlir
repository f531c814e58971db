module @jit_row_parallel attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>}, %arg1: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{?}, {"x", ?}]>, <@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={"x"} (%arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>) {
      %2 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}]> : tensor<8x8xf32>
      %4 = "stablehlo.all_reduce"(%3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %5 = stablehlo.add %arg4, %arg5 : tensor<f32>
        %6 = sdy.sharding_constraint %5 <@mesh, []> : tensor<f32>
        stablehlo.return %6 : tensor<f32>
      }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      sdy.return %4 : tensor<8x8xf32>
    } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.tanh %0 : tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}
