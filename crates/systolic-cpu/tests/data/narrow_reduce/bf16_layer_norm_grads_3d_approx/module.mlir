module @jit_layer_norm_param_grads attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x512x32xbf16>, %arg1: tensor<32xbf16>, %arg2: tensor<32xbf16>) -> (tensor<32xbf16> {jax.result_info = "result[0]"}, tensor<32xbf16> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4x512x32xbf16>) -> tensor<4x512x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x512x32xf32>, tensor<f32>) -> tensor<4x512xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<4x512xf32>) -> tensor<4x512x1xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x512x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<4x512x1xf32>
    %5 = stablehlo.convert %4 : (tensor<4x512x1xf32>) -> tensor<4x512x1xbf16>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<4x512x1xbf16>) -> tensor<4x512x32xbf16>
    %7 = stablehlo.subtract %arg0, %6 : tensor<4x512x32xbf16>
    %8 = chlo.square %7 : tensor<4x512x32xbf16> -> tensor<4x512x32xbf16>
    %9 = stablehlo.convert %8 : (tensor<4x512x32xbf16>) -> tensor<4x512x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<4x512x32xf32>, tensor<f32>) -> tensor<4x512xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<4x512xf32>) -> tensor<4x512x1xf32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x512x1xf32>
    %13 = stablehlo.divide %11, %12 : tensor<4x512x1xf32>
    %14 = stablehlo.convert %13 : (tensor<4x512x1xf32>) -> tensor<4x512x1xbf16>
    %15 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<4x512x1xbf16>) -> tensor<4x512x32xbf16>
    %16 = stablehlo.subtract %arg0, %15 : tensor<4x512x32xbf16>
    %cst_3 = stablehlo.constant dense<1.001360e-05> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<4x512x1xbf16>
    %18 = stablehlo.add %14, %17 : tensor<4x512x1xbf16>
    %19 = stablehlo.rsqrt %18 : tensor<4x512x1xbf16>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<4x512x1xbf16>) -> tensor<4x512x32xbf16>
    %21 = stablehlo.multiply %16, %20 : tensor<4x512x32xbf16>
    %22 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xbf16>) -> tensor<1x1x32xbf16>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x32xbf16>) -> tensor<4x512x32xbf16>
    %24 = stablehlo.multiply %21, %23 : tensor<4x512x32xbf16>
    %25 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xbf16>) -> tensor<1x1x32xbf16>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<1x1x32xbf16>) -> tensor<4x512x32xbf16>
    %27 = stablehlo.add %24, %26 : tensor<4x512x32xbf16>
    %28 = stablehlo.cosine %27 : tensor<4x512x32xbf16>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x512x32xf32>
    %30 = stablehlo.convert %29 : (tensor<4x512x32xf32>) -> tensor<4x512x32xbf16>
    %31 = stablehlo.multiply %30, %28 : tensor<4x512x32xbf16>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %32 = stablehlo.reduce(%31 init: %cst_5) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x512x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %33 = stablehlo.reshape %32 : (tensor<32xbf16>) -> tensor<1x1x32xbf16>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %34 = stablehlo.reduce(%33 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %35 = stablehlo.multiply %21, %31 : tensor<4x512x32xbf16>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %36 = stablehlo.reduce(%35 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x512x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %37 = stablehlo.reshape %36 : (tensor<32xbf16>) -> tensor<1x1x32xbf16>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %38 = stablehlo.reduce(%37 init: %cst_8) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    return %38, %34 : tensor<32xbf16>, tensor<32xbf16>
  }
}
