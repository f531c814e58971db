module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>) -> (tensor<4x4xf32> {jax.result_info = "result[0]"}, tensor<4x3xf32> {jax.result_info = "result[1]"}) {
    %0:2 = call @qr(%arg0) : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>)
    return %0#0, %0#1 : tensor<4x4xf32>, tensor<4x3xf32>
  }
  func.func private @qr(%arg0: tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>) {
    %0:2 = stablehlo.custom_call @Qr(%arg0) {backend_config = ""} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.pad %0#0, %cst, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x4xf32>
    %2 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%1, %0#1) {backend_config = ""} : (tensor<4x4xf32>, tensor<3xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.iota dim = 0 : tensor<4x3xi64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x3xi64>
    %5 = stablehlo.add %3, %4 : tensor<4x3xi64>
    %6 = stablehlo.iota dim = 1 : tensor<4x3xi64>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<4x3xi64>, tensor<4x3xi64>) -> tensor<4x3xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %9 = stablehlo.select %7, %8, %0#0 : tensor<4x3xi1>, tensor<4x3xf32>
    return %2, %9 : tensor<4x4xf32>, tensor<4x3xf32>
  }
}
