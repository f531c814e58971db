module @jit_loss attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<3x3x3x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg1: tensor<3x3x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg2: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<2x32x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data", "model"}, {}, {}]>}) -> (tensor<3x3x3x8xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<3x3x8x8xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<8x4xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x32x16x3xf32> {jax.result_info = "result[3]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data", "model"}, {}, {}]>}) {
    %0 = stablehlo.convolution(%arg3, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x16x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x32x16x8xf32>
    %1 = call @relu(%0) : (tensor<2x32x16x8xf32>) -> tensor<2x32x16x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x16x8xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x32x16x8xf32>, tensor<2x32x16x8xf32>) -> tensor<2x32x16x8xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%1, %4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %45 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %45 : tensor<f32>
    }) : (tensor<2x32x16x8xf32>, tensor<f32>) -> tensor<2x16x8x8xf32>
    %6 = stablehlo.convolution(%5, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x16x8x8xf32>
    %7 = call @relu_0(%6) : (tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x16x8x8xf32>
    %9 = stablehlo.compare GT, %6, %8, FLOAT : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xi1>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<f32>
    %11 = "stablehlo.reduce_window"(%7, %10) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %45 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %45 : tensor<f32>
    }) : (tensor<2x16x8x8xf32>, tensor<f32>) -> tensor<2x8x4x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_3) applies stablehlo.add across dimensions = [1, 2] : (tensor<2x8x4x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %14 = stablehlo.divide %12, %13 : tensor<2x8xf32>
    %15 = stablehlo.dot_general %14, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %16 = stablehlo.tanh %15 : tensor<2x4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %18 = stablehlo.subtract %17, %16 : tensor<2x4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<2x4xf32>
    %21 = stablehlo.multiply %20, %16 : tensor<2x4xf32>
    %22 = stablehlo.add %20, %21 : tensor<2x4xf32>
    %23 = stablehlo.dot_general %22, %14, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
    %24 = stablehlo.transpose %23, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %25 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x8xf32>
    %cst_7 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %27 = stablehlo.divide %25, %26 : tensor<2x8xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 3] : (tensor<2x8xf32>) -> tensor<2x8x4x8xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %29 = stablehlo.pad %7, %cst_8, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x16x8x8xf32>, tensor<f32>) -> tensor<2x16x8x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = "stablehlo.select_and_scatter"(%29, %28, %cst_9) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %45 = stablehlo.compare GE, %arg4, %arg5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %45 : tensor<i1>
    }, {
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %45 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %45 : tensor<f32>
    }) : (tensor<2x16x8x8xf32>, tensor<2x8x4x8xf32>, tensor<f32>) -> tensor<2x16x8x8xf32>
    %31 = stablehlo.slice %30 [0:2, 0:16, 0:8, 0:8] : (tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x16x8x8xf32>
    %33 = stablehlo.select %9, %31, %32 : tensor<2x16x8x8xi1>, tensor<2x16x8x8xf32>
    %34 = stablehlo.convolution(%5, %33) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<3x3x8x8xf32>
    %35 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x8x8xf32>
    %36 = stablehlo.convolution(%33, %35) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x16x8x8xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %37 = stablehlo.pad %1, %cst_11, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x32x16x8xf32>, tensor<f32>) -> tensor<2x32x16x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = "stablehlo.select_and_scatter"(%37, %36, %cst_12) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %45 = stablehlo.compare GE, %arg4, %arg5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %45 : tensor<i1>
    }, {
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %45 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %45 : tensor<f32>
    }) : (tensor<2x32x16x8xf32>, tensor<2x16x8x8xf32>, tensor<f32>) -> tensor<2x32x16x8xf32>
    %39 = stablehlo.slice %38 [0:2, 0:32, 0:16, 0:8] : (tensor<2x32x16x8xf32>) -> tensor<2x32x16x8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x32x16x8xf32>
    %41 = stablehlo.select %3, %39, %40 : tensor<2x32x16x8xi1>, tensor<2x32x16x8xf32>
    %42 = stablehlo.convolution(%arg3, %41) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x16x3xf32>, tensor<2x32x16x8xf32>) -> tensor<3x3x3x8xf32>
    %43 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x3x3x8xf32>
    %44 = stablehlo.convolution(%41, %43) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x16x8xf32>, tensor<3x3x3x8xf32>) -> tensor<2x32x16x3xf32>
    return %42, %34, %24, %44 : tensor<3x3x3x8xf32>, tensor<3x3x8x8xf32>, tensor<8x4xf32>, tensor<2x32x16x3xf32>
  }
  func.func private @relu(%arg0: tensor<2x32x16x8xf32>) -> tensor<2x32x16x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x16x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x32x16x8xf32>
    return %1 : tensor<2x32x16x8xf32>
  }
  func.func private @relu_0(%arg0: tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16x8x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x16x8x8xf32>
    return %1 : tensor<2x16x8x8xf32>
  }
}
