module @jit_tp_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg2: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{?}, {?}]>, <@mesh, [{?}, {"y", ?}]>, <@mesh, [{"y", ?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={"y"} (%arg3: tensor<16x8xf32>, %arg4: tensor<8x8xf32>, %arg5: tensor<8x8xf32>) {
      %3 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
      %4 = sdy.sharding_constraint %3 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %5 = stablehlo.multiply %4, %4 : tensor<16x8xf32>
      %6 = stablehlo.multiply %5, %4 : tensor<16x8xf32>
      %7 = sdy.sharding_constraint %6 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %9 = sdy.sharding_constraint %8 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %10 = stablehlo.multiply %9, %7 : tensor<16x8xf32>
      %11 = sdy.sharding_constraint %10 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %12 = stablehlo.add %4, %11 : tensor<16x8xf32>
      %13 = sdy.sharding_constraint %12 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
      %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %15 = sdy.sharding_constraint %14 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %16 = stablehlo.multiply %15, %13 : tensor<16x8xf32>
      %17 = sdy.sharding_constraint %16 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %18 = stablehlo.tanh %17 : tensor<16x8xf32>
      %19 = sdy.sharding_constraint %18 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %21 = sdy.sharding_constraint %20 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %22 = stablehlo.add %21, %19 : tensor<16x8xf32>
      %23 = sdy.sharding_constraint %22 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %24 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %25 = sdy.sharding_constraint %24 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %26 = stablehlo.multiply %25, %23 : tensor<16x8xf32>
      %27 = sdy.sharding_constraint %26 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %28 = stablehlo.multiply %4, %27 : tensor<16x8xf32>
      %29 = sdy.sharding_constraint %28 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %30 = stablehlo.dot_general %29, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
      %31 = sdy.sharding_constraint %30 <@mesh, [{?}, {?}]> : tensor<16x8xf32>
      %32 = "stablehlo.all_reduce"(%31) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
        %33 = stablehlo.add %arg6, %arg7 : tensor<f32>
        %34 = sdy.sharding_constraint %33 <@mesh, []> : tensor<f32>
        stablehlo.return %34 : tensor<f32>
      }) : (tensor<16x8xf32>) -> tensor<16x8xf32>
      sdy.return %32 : tensor<16x8xf32>
    } : (tensor<16x8xf32>, tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<16x8xf32>
    return %2 : tensor<16x8xf32>
  }
}
