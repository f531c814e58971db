module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xf32>, %arg3: tensor<3xf32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    %1 = stablehlo.add %0, %arg1 : tensor<3xf32>
    %2 = stablehlo.tanh %1 : tensor<3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<3xf32>
    %5 = stablehlo.subtract %2, %arg3 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<3xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %8 = stablehlo.divide %cst_1, %cst_2 : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<3xf32>
    %11 = stablehlo.multiply %10, %4 : tensor<3xf32>
    %12 = stablehlo.multiply %11, %2 : tensor<3xf32>
    %13 = stablehlo.add %11, %12 : tensor<3xf32>
    %14 = stablehlo.dot_general %13, %arg2, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<3xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %15 = stablehlo.transpose %14, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    return %15, %13 : tensor<4x3xf32>, tensor<3xf32>
  }
}
