module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>) -> (tensor<64xf8E4M3B11FNUZ> {jax.result_info = "result[0]"}, tensor<64xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<64xf32>) -> tensor<64xf8E4M3B11FNUZ>
    %1 = stablehlo.convert %arg0 : (tensor<64xf32>) -> tensor<64xf8E4M3B11FNUZ>
    %2 = stablehlo.convert %1 : (tensor<64xf8E4M3B11FNUZ>) -> tensor<64xf32>
    return %0, %2 : tensor<64xf8E4M3B11FNUZ>, tensor<64xf32>
  }
}
