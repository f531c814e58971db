module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<8x8xf32>
    cond {
      %c_1 = stablehlo.constant dense<2> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<8x8xf32>
    }
    return %0#1 : tensor<8x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
      %1 = sdy.manual_computation(%arg1) in_shardings=[<@mesh, [{?}, {"y", ?}]>] out_shardings=[<@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%arg2: tensor<4x2xf32>) {
        %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
        %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
        %7 = stablehlo.multiply %arg2, %6 : tensor<4x2xf32>
        %8 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %12 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %12 : tensor<f32>
        }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
        %9 = stablehlo.add %7, %8 : tensor<4x2xf32>
        %10 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %12 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %12 : tensor<f32>
        }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
        %11 = stablehlo.add %9, %10 : tensor<4x2xf32>
        sdy.return %11 : tensor<4x2xf32>
      } : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}]> : tensor<4x8xf32>
      %4 = stablehlo.add %1, %3 : tensor<4x8xf32>
      %5 = sdy.sharding_constraint %4 <@mesh, [{?}, {?}]> : tensor<4x8xf32>
      sdy.return %5 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}
