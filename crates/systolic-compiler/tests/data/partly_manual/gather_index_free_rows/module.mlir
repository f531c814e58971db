module @jit_gather_index attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x32xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {"y", ?}]>] out_shardings=[<@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%arg1: tensor<8x2xf32>) {
      %1 = sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, []>] manual_axes={"x"} () {
        %c = stablehlo.constant dense<1> : tensor<ui32>
        %c_0 = stablehlo.constant dense<4> : tensor<ui32>
        %9 = stablehlo.partition_id : tensor<ui32>
        %10 = stablehlo.divide %9, %c : tensor<ui32>
        %11 = stablehlo.remainder %10, %c_0 : tensor<ui32>
        %12 = stablehlo.convert %11 : (tensor<ui32>) -> tensor<i32>
        sdy.return %12 : tensor<i32>
      } : () -> tensor<i32>
      %2 = stablehlo.convert %1 : (tensor<i32>) -> tensor<f32>
      %3 = sdy.sharding_constraint %2 <@mesh, []> : tensor<f32>
      %4 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> : (tensor<8x2xf32>) -> tensor<8x8xf32>
      %5 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %6 = sdy.sharding_constraint %5 <@mesh, [{?}, {?}]> : tensor<8x8xf32>
      %7 = stablehlo.add %4, %6 : tensor<8x8xf32>
      %8 = sdy.sharding_constraint %7 <@mesh, [{?}, {?}]> : tensor<8x8xf32>
      sdy.return %8 : tensor<8x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
}
