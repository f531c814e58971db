module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = chlo.erf %arg0 : tensor<5xf32> -> tensor<5xf32>
    %1 = chlo.sinh %arg0 : tensor<5xf32> -> tensor<5xf32>
    %2 = stablehlo.add %0, %1 : tensor<5xf32>
    %3 = chlo.atan %arg0 : tensor<5xf32> -> tensor<5xf32>
    %4 = stablehlo.add %2, %3 : tensor<5xf32>
    %5 = stablehlo.abs %arg0 : tensor<5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %7 = stablehlo.add %5, %6 : tensor<5xf32>
    %8 = chlo.lgamma %7 : tensor<5xf32> -> tensor<5xf32>
    %9 = stablehlo.add %4, %8 : tensor<5xf32>
    return %9 : tensor<5xf32>
  }
}
