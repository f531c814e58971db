module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2, "c"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 2 : i64}, {name = "c", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<4x4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}, {"c"}]>}) -> (tensor<4x4x1xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}, {}]>}, tensor<2x2x2xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"c"}]>}, tensor<2x2x1xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %0:3 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {"b"}, {"c"}]>] out_shardings=[<@mesh, [{"a"}, {"b"}, {}]>, <@mesh, [{}, {}, {"c"}]>, <@mesh, [{}, {}, {}]>] manual_axes={"a", "b", "c"} (%arg1: tensor<2x2x1xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
      %c = stablehlo.constant dense<2> : tensor<ui32>
      %c_0 = stablehlo.constant dense<2> : tensor<ui32>
      %2 = stablehlo.partition_id : tensor<ui32>
      %3 = stablehlo.divide %2, %c : tensor<ui32>
      %4 = stablehlo.remainder %3, %c_0 : tensor<ui32>
      %5 = stablehlo.convert %4 : (tensor<ui32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %5, %c_1 : tensor<i32>
      %7 = stablehlo.convert %6 : (tensor<i32>) -> tensor<f32>
      %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<2x2x1xf32>
      %9 = stablehlo.multiply %1, %8 : tensor<2x2x1xf32>
      %10 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
      %11 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
      %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x1xf32>
      %13 = stablehlo.divide %11, %12 : tensor<2x2x1xf32>
      sdy.return %9, %10, %13 : tensor<2x2x1xf32>, tensor<2x2x1xf32>, tensor<2x2x1xf32>
    } : (tensor<4x4x2xf32>) -> (tensor<4x4x1xf32>, tensor<2x2x2xf32>, tensor<2x2x1xf32>)
    return %0#0, %0#1, %0#2 : tensor<4x4x1xf32>, tensor<2x2x2xf32>, tensor<2x2x1xf32>
  }
}
