module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<i1> {sdy.sharding = #sdy.sharding<@empty_mesh, []>}, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %3 = stablehlo.add %arg1, %2 : tensor<8x8xf32>
      stablehlo.return %3 : tensor<8x8xf32>
    }, {
      %2 = sdy.manual_computation(%arg1) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg2: tensor<4x2xf32>) {
        %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
        %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
        %4 = stablehlo.multiply %arg2, %3 : tensor<4x2xf32>
        %5 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %10 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %10 : tensor<f32>
        }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
        %cst_0 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
        %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
        %7 = stablehlo.multiply %6, %5 : tensor<4x2xf32>
        %8 = stablehlo.add %4, %7 : tensor<4x2xf32>
        %9 = stablehlo.tanh %8 : tensor<4x2xf32>
        sdy.return %9 : tensor<4x2xf32>
      } : (tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %2 : tensor<8x8xf32>
    }) : (tensor<i32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}
