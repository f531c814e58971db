module @jit_scanned attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<3x8x8xf32>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:4 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %c, %iterArg_1 = %arg0, %iterArg_2 = %0) : tensor<3x8x8xf32>, tensor<i32>, tensor<8x8xf32>, tensor<3xf32>
    cond {
      %c_3 = stablehlo.constant dense<3> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_0, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_0) : (tensor<3x8x8xf32>, tensor<i32>) -> tensor<8x8xf32>
      %3:2 = func.call @closed_call(%iterArg_1, %2) : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<f32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_2, %3#1, %iterArg_0) : (tensor<3xf32>, tensor<f32>, tensor<i32>) -> tensor<3xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_0, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %5, %3#0, %4 : tensor<3x8x8xf32>, tensor<i32>, tensor<8x8xf32>, tensor<3xf32>
    }
    return %1#2, %1#3 : tensor<8x8xf32>, tensor<3xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x8x8xf32>, %arg1: tensor<i32>) -> tensor<8x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8, 8] : (tensor<3x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<f32>) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg2: tensor<4x2xf32>, %arg3: tensor<4x2xf32>) {
      %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
      %3 = stablehlo.multiply %arg2, %2 : tensor<4x2xf32>
      %4 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %6 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %6 : tensor<f32>
      }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
      %5 = stablehlo.add %3, %4 : tensor<4x2xf32>
      sdy.return %5 : tensor<4x2xf32>
    } : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
    return %0, %1 : tensor<8x8xf32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<3xf32>, tensor<1xf32>, tensor<i32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
