module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=8]> {stablehlo.mesh = {axes = [{name = "batch", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<32x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>}, %arg5: tensor<32x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>}) -> (tensor<6x16xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<16xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x4xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<4xf32> {jax.result_info = "result[3]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[4]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0:5 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"batch"}, {}]>, <@mesh, [{"batch"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, []>] manual_axes={"batch"} (%arg6: tensor<6x16xf32>, %arg7: tensor<16xf32>, %arg8: tensor<16x4xf32>, %arg9: tensor<4xf32>, %arg10: tensor<4x6xf32>, %arg11: tensor<4x4xf32>) {
      %1 = stablehlo.dot_general %arg10, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x16xf32>) -> tensor<4x16xf32>
      %2 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
      %4 = stablehlo.add %1, %3 : tensor<4x16xf32>
      %5 = stablehlo.tanh %4 : tensor<4x16xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
      %7 = stablehlo.subtract %6, %5 : tensor<4x16xf32>
      %8 = stablehlo.dot_general %5, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
      %9 = stablehlo.broadcast_in_dim %arg9, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
      %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
      %11 = stablehlo.add %8, %10 : tensor<4x4xf32>
      %12:3 = func.call @log_softmax(%11) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x1xf32>)
      %13 = stablehlo.multiply %12#0, %arg11 : tensor<4x4xf32>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %14 = stablehlo.reduce(%13 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %15 = stablehlo.reduce(%14 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %cst_2 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %16 = stablehlo.divide %15, %cst_2 : tensor<f32>
      %17 = stablehlo.negate %16 : tensor<f32>
      %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %18 = stablehlo.negate %cst_3 : tensor<f32>
      %19 = stablehlo.divide %18, %cst_2 : tensor<f32>
      %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
      %22 = stablehlo.multiply %21, %arg11 : tensor<4x4xf32>
      %23 = func.call @log_softmax_0(%12#1, %12#2, %22) : (tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %24 = stablehlo.reduce(%23 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %25 = stablehlo.reshape %24 : (tensor<4xf32>) -> tensor<1x4xf32>
      %26 = "stablehlo.all_reduce"(%25) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %27 = stablehlo.reduce(%26 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
      %28 = stablehlo.dot_general %23, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
      %29 = stablehlo.transpose %28, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
      %30 = stablehlo.dot_general %23, %arg8, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
      %31 = "stablehlo.all_reduce"(%29) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<16x4xf32>) -> tensor<16x4xf32>
      %32 = stablehlo.multiply %30, %7 : tensor<4x16xf32>
      %33 = stablehlo.multiply %32, %5 : tensor<4x16xf32>
      %34 = stablehlo.add %32, %33 : tensor<4x16xf32>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %35 = stablehlo.reduce(%34 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<4x16xf32>, tensor<f32>) -> tensor<16xf32>
      %36 = stablehlo.reshape %35 : (tensor<16xf32>) -> tensor<1x16xf32>
      %37 = "stablehlo.all_reduce"(%36) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %38 = stablehlo.reduce(%37 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
      %39 = stablehlo.dot_general %34, %arg10, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<4x6xf32>) -> tensor<16x6xf32>
      %40 = stablehlo.transpose %39, dims = [1, 0] : (tensor<16x6xf32>) -> tensor<6x16xf32>
      %41 = "stablehlo.all_reduce"(%40) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<6x16xf32>) -> tensor<6x16xf32>
      %42 = "stablehlo.all_reduce"(%41) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<6x16xf32>) -> tensor<6x16xf32>
      %cst_8 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %43 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
      %44 = stablehlo.divide %42, %43 : tensor<6x16xf32>
      %45 = "stablehlo.all_reduce"(%38) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<16xf32>) -> tensor<16xf32>
      %cst_9 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %46 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %47 = stablehlo.divide %45, %46 : tensor<16xf32>
      %48 = "stablehlo.all_reduce"(%31) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<16x4xf32>) -> tensor<16x4xf32>
      %cst_10 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %49 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
      %50 = stablehlo.divide %48, %49 : tensor<16x4xf32>
      %51 = "stablehlo.all_reduce"(%27) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %cst_11 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %52 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %53 = stablehlo.divide %51, %52 : tensor<4xf32>
      %cst_12 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %54 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
      %55 = stablehlo.multiply %54, %44 : tensor<6x16xf32>
      %56 = stablehlo.subtract %arg6, %55 : tensor<6x16xf32>
      %cst_13 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %57 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %58 = stablehlo.multiply %57, %47 : tensor<16xf32>
      %59 = stablehlo.subtract %arg7, %58 : tensor<16xf32>
      %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %60 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
      %61 = stablehlo.multiply %60, %50 : tensor<16x4xf32>
      %62 = stablehlo.subtract %arg8, %61 : tensor<16x4xf32>
      %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %63 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %64 = stablehlo.multiply %63, %53 : tensor<4xf32>
      %65 = stablehlo.subtract %arg9, %64 : tensor<4xf32>
      %66 = "stablehlo.all_reduce"(%17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %68 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %68 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_16 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %67 = stablehlo.divide %66, %cst_16 : tensor<f32>
      sdy.return %56, %59, %62, %65, %67 : tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>
    } : (tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<32x6xf32>, tensor<32x4xf32>) -> (tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>
  }
  func.func private @log_softmax(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<4xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x4xf32>
    %6 = stablehlo.exponential %5 : tensor<4x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %9 = stablehlo.log %8 : tensor<4x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<4x4xf32>
    return %11, %6, %8 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<4x4xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.negate %arg2 : tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.reshape %1 : (tensor<4xf32>) -> tensor<4x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<4x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x1xf32>, tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<4x4xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<4x4xf32>
    return %7 : tensor<4x4xf32>
  }
}
