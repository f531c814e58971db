module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x16xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<16xf32> {mhlo.sharding = "{replicated}"}, %arg2: tensor<16x4xf32> {mhlo.sharding = "{replicated}"}, %arg3: tensor<4xf32> {mhlo.sharding = "{replicated}"}, %arg4: tensor<32x6xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg5: tensor<32x4xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<6x16xf32> {jax.result_info = "result[0]", mhlo.sharding = "{replicated}"}, tensor<16xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}, tensor<16x4xf32> {jax.result_info = "result[2]", mhlo.sharding = "{replicated}"}, tensor<4xf32> {jax.result_info = "result[3]", mhlo.sharding = "{replicated}"}, tensor<f32> {jax.result_info = "result[4]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<6x16xf32>) -> tensor<6x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<6x16xf32>) -> tensor<6x16xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<16xf32>) -> tensor<16xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16xf32>) -> tensor<16xf32>
    %4 = stablehlo.custom_call @Sharding(%arg2) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %5 = stablehlo.custom_call @SPMDFullToShardShape(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %6 = stablehlo.custom_call @Sharding(%arg3) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %7 = stablehlo.custom_call @SPMDFullToShardShape(%6) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %8 = stablehlo.custom_call @Sharding(%arg4) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x6xf32>) -> tensor<32x6xf32>
    %9 = stablehlo.custom_call @SPMDFullToShardShape(%8) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x6xf32>) -> tensor<4x6xf32>
    %10 = stablehlo.custom_call @Sharding(%arg5) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<32x4xf32>) -> tensor<32x4xf32>
    %11 = stablehlo.custom_call @SPMDFullToShardShape(%10) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x4xf32>) -> tensor<4x4xf32>
    %12:5 = call @shmap_body(%1, %3, %5, %7, %9, %11) : (tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<4x6xf32>, tensor<4x4xf32>) -> (tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>)
    %13 = stablehlo.custom_call @Sharding(%12#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<6x16xf32>) -> tensor<6x16xf32>
    %14 = stablehlo.custom_call @SPMDShardToFullShape(%13) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<6x16xf32>) -> tensor<6x16xf32>
    %15 = stablehlo.custom_call @Sharding(%12#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16xf32>) -> tensor<16xf32>
    %16 = stablehlo.custom_call @SPMDShardToFullShape(%15) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<16xf32>) -> tensor<16xf32>
    %17 = stablehlo.custom_call @Sharding(%12#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %18 = stablehlo.custom_call @SPMDShardToFullShape(%17) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %19 = stablehlo.custom_call @Sharding(%12#3) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %20 = stablehlo.custom_call @SPMDShardToFullShape(%19) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %21 = stablehlo.custom_call @Sharding(%12#4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<f32>) -> tensor<f32>
    %22 = stablehlo.custom_call @SPMDShardToFullShape(%21) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<f32>) -> tensor<f32>
    return %14, %16, %18, %20, %22 : tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>
  }
  func.func private @shmap_body(%arg0: tensor<6x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<4x6xf32>, %arg5: tensor<4x4xf32>) -> (tensor<6x16xf32> {jax.result_info = "[None, None]"}, tensor<16xf32> {jax.result_info = "[None]"}, tensor<16x4xf32> {jax.result_info = "[None, None]"}, tensor<4xf32> {jax.result_info = "[None]"}, tensor<f32> {jax.result_info = "[]"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x16xf32>
    %4 = stablehlo.tanh %3 : tensor<4x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<4x16xf32>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %10 = stablehlo.add %7, %9 : tensor<4x4xf32>
    %11:3 = call @log_softmax(%10) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x1xf32>)
    %12 = stablehlo.multiply %11#0, %arg5 : tensor<4x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %15 = stablehlo.divide %14, %cst_2 : tensor<f32>
    %16 = stablehlo.negate %15 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.negate %cst_3 : tensor<f32>
    %18 = stablehlo.divide %17, %cst_2 : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
    %21 = stablehlo.multiply %20, %arg5 : tensor<4x4xf32>
    %22 = call @log_softmax_0(%11#1, %11#2, %21) : (tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %24 = stablehlo.reshape %23 : (tensor<4xf32>) -> tensor<1x4xf32>
    %25 = "stablehlo.all_reduce"(%24) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %27 = stablehlo.dot_general %22, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %29 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
    %30 = "stablehlo.all_reduce"(%28) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %31 = stablehlo.multiply %29, %6 : tensor<4x16xf32>
    %32 = stablehlo.multiply %31, %4 : tensor<4x16xf32>
    %33 = stablehlo.add %31, %32 : tensor<4x16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %35 = stablehlo.reshape %34 : (tensor<16xf32>) -> tensor<1x16xf32>
    %36 = "stablehlo.all_reduce"(%35) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %38 = stablehlo.dot_general %33, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<4x6xf32>) -> tensor<16x6xf32>
    %39 = stablehlo.transpose %38, dims = [1, 0] : (tensor<16x6xf32>) -> tensor<6x16xf32>
    %40 = "stablehlo.all_reduce"(%39) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<6x16xf32>) -> tensor<6x16xf32>
    %41 = "stablehlo.all_reduce"(%40) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<6x16xf32>) -> tensor<6x16xf32>
    %cst_8 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %43 = stablehlo.divide %41, %42 : tensor<6x16xf32>
    %44 = "stablehlo.all_reduce"(%37) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<16xf32>) -> tensor<16xf32>
    %cst_9 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %46 = stablehlo.divide %44, %45 : tensor<16xf32>
    %47 = "stablehlo.all_reduce"(%30) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %cst_10 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %49 = stablehlo.divide %47, %48 : tensor<16x4xf32>
    %50 = "stablehlo.all_reduce"(%26) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %cst_11 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %52 = stablehlo.divide %50, %51 : tensor<4xf32>
    %cst_12 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %54 = stablehlo.multiply %53, %43 : tensor<6x16xf32>
    %55 = stablehlo.subtract %arg0, %54 : tensor<6x16xf32>
    %cst_13 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %57 = stablehlo.multiply %56, %46 : tensor<16xf32>
    %58 = stablehlo.subtract %arg1, %57 : tensor<16xf32>
    %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %60 = stablehlo.multiply %59, %49 : tensor<16x4xf32>
    %61 = stablehlo.subtract %arg2, %60 : tensor<16x4xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %63 = stablehlo.multiply %62, %52 : tensor<4xf32>
    %64 = stablehlo.subtract %arg3, %63 : tensor<4xf32>
    %65 = "stablehlo.all_reduce"(%16) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %67 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<f32>) -> tensor<f32>
    %cst_16 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %66 = stablehlo.divide %65, %cst_16 : tensor<f32>
    return %55, %58, %61, %64, %66 : tensor<6x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>
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
