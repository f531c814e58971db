module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<16x8xf32>
    %2 = sdy.manual_computation(%1, %arg1) in_shardings=[<@mesh, [{?}, {"model", ?}]>, <@mesh, [{"model", ?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={"model"} (%arg2: tensor<16x4xf32>, %arg3: tensor<4x8xf32>) {
      %6 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
      %7 = sdy.sharding_constraint %6 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %8 = "stablehlo.all_reduce"(%7) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %9 = stablehlo.add %arg4, %arg5 : tensor<f32>
        %10 = sdy.sharding_constraint %9 <@mesh, []> : tensor<f32>
        stablehlo.return %10 : tensor<f32>
      }) : (tensor<16x8xf32>) -> tensor<16x8xf32>
      sdy.return %8 : tensor<16x8xf32>
    } : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    %3 = stablehlo.tanh %2 : tensor<16x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %5 = stablehlo.add %3, %4 : tensor<16x8xf32>
    return %5 : tensor<16x8xf32>
  }
}
