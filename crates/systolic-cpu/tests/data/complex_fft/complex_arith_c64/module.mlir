module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x7xcomplex<f32>>, %arg1: tensor<2x7xcomplex<f32>>) -> (tensor<2x7xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<2x7xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<2x7xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<2x7xf32> {jax.result_info = "result[3]"}, tensor<2x7xcomplex<f32>> {jax.result_info = "result[4]"}, tensor<2x7xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<2x7xcomplex<f32>>
    %1 = stablehlo.divide %arg0, %arg1 : tensor<2x7xcomplex<f32>>
    %2 = stablehlo.exponential %arg0 : tensor<2x7xcomplex<f32>>
    %3 = stablehlo.abs %arg0 : (tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32>
    %4 = stablehlo.real %arg1 : (tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32>
    %5 = stablehlo.imag %arg1 : (tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32>
    %6 = stablehlo.negate %5 : tensor<2x7xf32>
    %7 = stablehlo.complex %4, %6 : tensor<2x7xcomplex<f32>>
    %8 = call @angle(%arg0) : (tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32>
    return %0, %1, %2, %3, %7, %8 : tensor<2x7xcomplex<f32>>, tensor<2x7xcomplex<f32>>, tensor<2x7xcomplex<f32>>, tensor<2x7xf32>, tensor<2x7xcomplex<f32>>, tensor<2x7xf32>
  }
  func.func private @angle(%arg0: tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32> {
    %0 = stablehlo.real %arg0 : (tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32>
    %1 = stablehlo.imag %arg0 : (tensor<2x7xcomplex<f32>>) -> tensor<2x7xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<2x7xf32>
    return %2 : tensor<2x7xf32>
  }
}
