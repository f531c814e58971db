module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<3x3xcomplex<f64>> {jax.result_info = "result[1]"}) {
    %0:2 = call @qr(%arg0) : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
    return %0#0, %0#1 : tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>
  }
  func.func private @qr(%arg0: tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>) {
    %0:2 = stablehlo.custom_call @Qr(%arg0) {backend_config = ""} : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3xcomplex<f64>>)
    %1 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%0#0, %0#1) {backend_config = ""} : (tensor<4x3xcomplex<f64>>, tensor<3xcomplex<f64>>) -> tensor<4x3xcomplex<f64>>
    %2 = stablehlo.slice %0#0 [0:3, 0:3] : (tensor<4x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
    %3 = stablehlo.iota dim = 0 : tensor<3x3xi64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x3xi64>
    %5 = stablehlo.add %3, %4 : tensor<3x3xi64>
    %6 = stablehlo.iota dim = 1 : tensor<3x3xi64>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi1>
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<3x3xcomplex<f64>>
    %9 = stablehlo.select %7, %8, %2 : tensor<3x3xi1>, tensor<3x3xcomplex<f64>>
    return %1, %9 : tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>
  }
}
