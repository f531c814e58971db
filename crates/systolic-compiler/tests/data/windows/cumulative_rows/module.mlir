module @jit_cumulative attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<32x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}) -> (tensor<32x6xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}, tensor<32x6xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}, tensor<32x6xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}, tensor<32x6xf32> {jax.result_info = "result[3]", sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}) {
    %0 = call @cumsum(%arg0) : (tensor<32x6xf32>) -> tensor<32x6xf32>
    %1 = call @cumsum_1(%arg0) : (tensor<32x6xf32>) -> tensor<32x6xf32>
    %2 = call @cummax(%arg0) : (tensor<32x6xf32>) -> tensor<32x6xf32>
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x6xf32>
    %4 = stablehlo.multiply %3, %arg0 : tensor<32x6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x6xf32>
    %6 = stablehlo.add %5, %4 : tensor<32x6xf32>
    %7 = call @cumprod(%6) : (tensor<32x6xf32>) -> tensor<32x6xf32>
    return %0, %1, %2, %7 : tensor<32x6xf32>, tensor<32x6xf32>, tensor<32x6xf32>, tensor<32x6xf32>
  }
  func.func private @cumsum(%arg0: tensor<32x6xf32>) -> tensor<32x6xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<32x6xf32>) -> tensor<32x6xf32>
    return %0 : tensor<32x6xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<32x6xf32>) -> tensor<32x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[31, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 32, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<32x6xf32>, tensor<f32>) -> tensor<32x6xf32>
    return %1 : tensor<32x6xf32>
  }
  func.func private @cumsum_1(%arg0: tensor<32x6xf32>) -> tensor<32x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 31], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 32, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<32x6xf32>, tensor<f32>) -> tensor<32x6xf32>
    return %1 : tensor<32x6xf32>
  }
  func.func private @cummax(%arg0: tensor<32x6xf32>) -> tensor<32x6xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[31, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 32, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<32x6xf32>, tensor<f32>) -> tensor<32x6xf32>
    return %1 : tensor<32x6xf32>
  }
  func.func private @cumprod(%arg0: tensor<32x6xf32>) -> tensor<32x6xf32> {
    %0 = call @cumprod_2(%arg0) : (tensor<32x6xf32>) -> tensor<32x6xf32>
    return %0 : tensor<32x6xf32>
  }
  func.func private @cumprod_2(%arg0: tensor<32x6xf32>) -> tensor<32x6xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[31, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 32, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<32x6xf32>, tensor<f32>) -> tensor<32x6xf32>
    return %0 : tensor<32x6xf32>
  }
}
