module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4096x2xbf16>) -> (tensor<2xbf16> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<4096x2xbf16>, tensor<bf16>) -> tensor<2xbf16>
    return %0 : tensor<2xbf16>
  }
}
