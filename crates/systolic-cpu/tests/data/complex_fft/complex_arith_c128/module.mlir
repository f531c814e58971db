module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xcomplex<f64>>, %arg1: tensor<5xcomplex<f64>>) -> (tensor<5xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<5xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<5xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<5xf64> {jax.result_info = "result[3]"}, tensor<5xcomplex<f64>> {jax.result_info = "result[4]"}, tensor<5xf64> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<5xcomplex<f64>>
    %1 = stablehlo.divide %arg0, %arg1 : tensor<5xcomplex<f64>>
    %2 = stablehlo.exponential %arg0 : tensor<5xcomplex<f64>>
    %3 = stablehlo.abs %arg0 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %4 = stablehlo.real %arg1 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %5 = stablehlo.imag %arg1 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %6 = stablehlo.negate %5 : tensor<5xf64>
    %7 = stablehlo.complex %4, %6 : tensor<5xcomplex<f64>>
    %8 = call @angle(%arg0) : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    return %0, %1, %2, %3, %7, %8 : tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>, tensor<5xf64>, tensor<5xcomplex<f64>>, tensor<5xf64>
  }
  func.func private @angle(%arg0: tensor<5xcomplex<f64>>) -> tensor<5xf64> {
    %0 = stablehlo.real %arg0 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %1 = stablehlo.imag %arg0 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %2 = stablehlo.atan2 %1, %0 : tensor<5xf64>
    return %2 : tensor<5xf64>
  }
}
