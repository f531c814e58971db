module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xcomplex<f32>>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3x3xcomplex<f32>> {jax.result_info = "result[1]"}) {
    %0:2 = call @eigh(%arg0) : (tensor<3x3xcomplex<f32>>) -> (tensor<3xf32>, tensor<3x3xcomplex<f32>>)
    return %0#0, %0#1 : tensor<3xf32>, tensor<3x3xcomplex<f32>>
  }
  func.func private @eigh(%arg0: tensor<3x3xcomplex<f32>>) -> (tensor<3xf32>, tensor<3x3xcomplex<f32>>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %2 = stablehlo.imag %0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %3 = stablehlo.negate %2 : tensor<3x3xf32>
    %4 = stablehlo.complex %1, %3 : tensor<3x3xcomplex<f32>>
    %5 = stablehlo.add %arg0, %4 : tensor<3x3xcomplex<f32>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x3xcomplex<f32>>
    %7 = stablehlo.divide %5, %6 : tensor<3x3xcomplex<f32>>
    %8:2 = stablehlo.custom_call @Eigh(%7) {backend_config = "1,1,100,1e-6"} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>)
    return %8#1, %8#0 : tensor<3xf32>, tensor<3x3xcomplex<f32>>
  }
}
