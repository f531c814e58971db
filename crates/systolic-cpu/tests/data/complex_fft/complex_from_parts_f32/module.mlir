module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<6xf32>) -> (tensor<6xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<6xcomplex<f32>>
    %1 = stablehlo.multiply %0, %0 : tensor<6xcomplex<f32>>
    %2 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xcomplex<f32>>
    %cst = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<6xcomplex<f32>>
    %4 = stablehlo.multiply %3, %2 : tensor<6xcomplex<f32>>
    %5 = stablehlo.add %1, %4 : tensor<6xcomplex<f32>>
    %6 = stablehlo.abs %5 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    return %6 : tensor<6xf32>
  }
}
