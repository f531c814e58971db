module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8x16xf32>, %arg1: tensor<4x8x16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16x4x4xf32>, %arg4: tensor<16x4x4xf32>, %arg5: tensor<16x4x4xf32>, %arg6: tensor<4x4x16xf32>, %arg7: tensor<16xf32>, %arg8: tensor<16x32xf32>, %arg9: tensor<32x16xf32>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<16x4x4xf32> {jax.result_info = "result[1]"}, tensor<16x4x4xf32> {jax.result_info = "result[2]"}, tensor<16x4x4xf32> {jax.result_info = "result[3]"}, tensor<4x4x16xf32> {jax.result_info = "result[4]"}, tensor<16xf32> {jax.result_info = "result[5]"}, tensor<16x32xf32> {jax.result_info = "result[6]"}, tensor<32x16xf32> {jax.result_info = "result[7]"}, tensor<f32> {jax.result_info = "result[8]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4x8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x8x16xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<4x8x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<4x8x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<4x8x16xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<4x8x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<4x8x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<4x8x16xf32>
    %18 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<4x8x16xf32>
    %21 = stablehlo.dot_general %20, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x4x4xf32>) -> tensor<4x8x4x4xf32>
    %22 = stablehlo.dot_general %20, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x4x4xf32>) -> tensor<4x8x4x4xf32>
    %23 = stablehlo.dot_general %20, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x4x4xf32>) -> tensor<4x8x4x4xf32>
    %24 = stablehlo.dot_general %21, %22, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x8x4x4xf32>) -> tensor<4x4x8x8xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %26 = stablehlo.divide %24, %25 : tensor<4x4x8x8xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %27 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %28 = call @tril(%27) : (tensor<8x8xi1>) -> tensor<8x8xi1>
    %cst_5 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %29:2 = call @_where(%28, %26, %cst_5) : (tensor<8x8xi1>, tensor<4x4x8x8xf32>, tensor<f32>) -> (tensor<4x4x8x8xf32>, tensor<4x4x8x8xi1>)
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %30 = stablehlo.reduce(%29#0 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x4x8xf32>
    %32 = stablehlo.maximum %31, %30 : tensor<4x4x8xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %35 = stablehlo.subtract %29#0, %34 : tensor<4x4x8x8xf32>
    %36 = stablehlo.exponential %35 : tensor<4x4x8x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %40 = stablehlo.divide %36, %39 : tensor<4x4x8x8xf32>
    %41 = stablehlo.multiply %38, %38 : tensor<4x4x8x1xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x4x8x1xf32>
    %43 = stablehlo.divide %42, %41 : tensor<4x4x8x1xf32>
    %44 = stablehlo.dot_general %23, %40, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x4x8x8xf32>) -> tensor<4x4x4x8xf32>
    %45 = stablehlo.transpose %44, dims = [0, 3, 1, 2] : (tensor<4x4x4x8xf32>) -> tensor<4x8x4x4xf32>
    %46 = stablehlo.dot_general %45, %arg6, contracting_dims = [2, 3] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x4x16xf32>) -> tensor<4x8x16xf32>
    %47 = stablehlo.add %arg0, %46 : tensor<4x8x16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.reduce(%47 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_11 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %51 = stablehlo.divide %49, %50 : tensor<4x8x1xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %53 = stablehlo.subtract %47, %52 : tensor<4x8x16xf32>
    %54 = stablehlo.multiply %53, %53 : tensor<4x8x16xf32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x8x16xf32>
    %56 = stablehlo.multiply %55, %53 : tensor<4x8x16xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%54 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %cst_14 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %60 = stablehlo.divide %58, %59 : tensor<4x8x1xf32>
    %61 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %62 = stablehlo.subtract %47, %61 : tensor<4x8x16xf32>
    %cst_15 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %64 = stablehlo.add %60, %63 : tensor<4x8x1xf32>
    %65 = stablehlo.rsqrt %64 : tensor<4x8x1xf32>
    %66 = stablehlo.divide %65, %64 : tensor<4x8x1xf32>
    %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %68 = stablehlo.multiply %67, %66 : tensor<4x8x1xf32>
    %69 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %70 = stablehlo.multiply %62, %69 : tensor<4x8x16xf32>
    %71 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %73 = stablehlo.multiply %70, %72 : tensor<4x8x16xf32>
    %74 = stablehlo.dot_general %73, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x32xf32>) -> tensor<4x8x32xf32>
    %75 = call @relu(%74) : (tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %77 = stablehlo.compare GT, %74, %76, FLOAT : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xi1>
    %78 = stablehlo.dot_general %75, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<32x16xf32>) -> tensor<4x8x16xf32>
    %79 = stablehlo.add %47, %78 : tensor<4x8x16xf32>
    %80 = stablehlo.subtract %79, %arg1 : tensor<4x8x16xf32>
    %81 = stablehlo.multiply %80, %80 : tensor<4x8x16xf32>
    %cst_18 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x8x16xf32>
    %83 = stablehlo.multiply %82, %80 : tensor<4x8x16xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.reduce(%81 init: %cst_19) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_20 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %85 = stablehlo.divide %84, %cst_20 : tensor<f32>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_22 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %86 = stablehlo.divide %cst_21, %cst_22 : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<4x8x16xf32>
    %88 = stablehlo.multiply %87, %83 : tensor<4x8x16xf32>
    %89 = stablehlo.dot_general %88, %75, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<4x8x32xf32>) -> tensor<16x32xf32>
    %90 = stablehlo.transpose %89, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %91 = stablehlo.dot_general %88, %arg9, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<32x16xf32>) -> tensor<4x8x32xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %93 = stablehlo.select %77, %91, %92 : tensor<4x8x32xi1>, tensor<4x8x32xf32>
    %94 = stablehlo.dot_general %93, %73, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<4x8x16xf32>) -> tensor<32x16xf32>
    %95 = stablehlo.transpose %94, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %96 = stablehlo.dot_general %93, %arg8, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<16x32xf32>) -> tensor<4x8x16xf32>
    %97 = stablehlo.multiply %70, %96 : tensor<4x8x16xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.reduce(%97 init: %cst_24) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %99 = stablehlo.reshape %98 : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %100 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %101 = stablehlo.multiply %96, %100 : tensor<4x8x16xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %102 = stablehlo.reduce(%99 init: %cst_25) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %103 = stablehlo.multiply %62, %101 : tensor<4x8x16xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %104 = stablehlo.reduce(%103 init: %cst_26) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %105 = stablehlo.reshape %104 : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %106 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %107 = stablehlo.multiply %101, %106 : tensor<4x8x16xf32>
    %108 = stablehlo.multiply %105, %68 : tensor<4x8x1xf32>
    %109 = stablehlo.negate %107 : tensor<4x8x16xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %110 = stablehlo.reduce(%109 init: %cst_27) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %111 = stablehlo.reshape %110 : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %112 = stablehlo.add %88, %107 : tensor<4x8x16xf32>
    %cst_28 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %114 = stablehlo.divide %108, %113 : tensor<4x8x1xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %115 = stablehlo.reduce(%114 init: %cst_29) applies stablehlo.add across dimensions = [2] : (tensor<4x8x1xf32>, tensor<f32>) -> tensor<4x8xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x16xf32>
    %117 = stablehlo.multiply %116, %56 : tensor<4x8x16xf32>
    %118 = stablehlo.negate %117 : tensor<4x8x16xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %119 = stablehlo.reduce(%118 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %120 = stablehlo.reshape %119 : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %121 = stablehlo.add %112, %117 : tensor<4x8x16xf32>
    %122 = stablehlo.add %111, %120 : tensor<4x8x1xf32>
    %cst_31 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %124 = stablehlo.divide %122, %123 : tensor<4x8x1xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %125 = stablehlo.reduce(%124 init: %cst_32) applies stablehlo.add across dimensions = [2] : (tensor<4x8x1xf32>, tensor<f32>) -> tensor<4x8xf32>
    %126 = stablehlo.broadcast_in_dim %125, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x16xf32>
    %127 = stablehlo.add %121, %126 : tensor<4x8x16xf32>
    %128 = stablehlo.dot_general %127, %45, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<4x8x4x4xf32>) -> tensor<16x4x4xf32>
    %129 = stablehlo.transpose %128, dims = [1, 2, 0] : (tensor<16x4x4xf32>) -> tensor<4x4x16xf32>
    %130 = stablehlo.dot_general %127, %arg6, contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<4x4x16xf32>) -> tensor<4x8x4x4xf32>
    %131 = stablehlo.transpose %130, dims = [0, 2, 3, 1] : (tensor<4x8x4x4xf32>) -> tensor<4x4x4x8xf32>
    %132 = stablehlo.dot_general %131, %23, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4x8xf32>, tensor<4x8x4x4xf32>) -> tensor<4x4x8x8xf32>
    %133 = stablehlo.dot_general %131, %40, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4x8xf32>, tensor<4x4x8x8xf32>) -> tensor<4x4x4x8xf32>
    %134 = stablehlo.transpose %133, dims = [0, 3, 1, 2] : (tensor<4x4x4x8xf32>) -> tensor<4x8x4x4xf32>
    %135 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %136 = stablehlo.multiply %132, %135 : tensor<4x4x8x8xf32>
    %137 = stablehlo.multiply %136, %36 : tensor<4x4x8x8xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.reduce(%137 init: %cst_33) applies stablehlo.add across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %139 = stablehlo.reshape %138 : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %140 = stablehlo.negate %139 : tensor<4x4x8x1xf32>
    %141 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %142 = stablehlo.divide %132, %141 : tensor<4x4x8x8xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %143 = stablehlo.reduce(%140 init: %cst_34) applies stablehlo.add across dimensions = [3] : (tensor<4x4x8x1xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %144 = stablehlo.broadcast_in_dim %143, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x8xf32>
    %145 = stablehlo.add %142, %144 : tensor<4x4x8x8xf32>
    %146 = stablehlo.multiply %145, %36 : tensor<4x4x8x8xf32>
    %147 = call @_where_0(%29#1, %146) : (tensor<4x4x8x8xi1>, tensor<4x4x8x8xf32>) -> tensor<4x4x8x8xf32>
    %cst_35 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %148 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %149 = stablehlo.divide %147, %148 : tensor<4x4x8x8xf32>
    %150 = stablehlo.dot_general %149, %21, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x8x8xf32>, tensor<4x8x4x4xf32>) -> tensor<4x4x8x4xf32>
    %151 = stablehlo.transpose %150, dims = [0, 2, 1, 3] : (tensor<4x4x8x4xf32>) -> tensor<4x8x4x4xf32>
    %152 = stablehlo.dot_general %149, %22, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x8x8xf32>, tensor<4x8x4x4xf32>) -> tensor<4x4x8x4xf32>
    %153 = stablehlo.transpose %152, dims = [0, 2, 1, 3] : (tensor<4x4x8x4xf32>) -> tensor<4x8x4x4xf32>
    %154 = stablehlo.dot_general %134, %20, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x8x16xf32>) -> tensor<4x4x16xf32>
    %155 = stablehlo.transpose %154, dims = [2, 0, 1] : (tensor<4x4x16xf32>) -> tensor<16x4x4xf32>
    %156 = stablehlo.dot_general %134, %arg5, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<16x4x4xf32>) -> tensor<4x8x16xf32>
    %157 = stablehlo.dot_general %151, %20, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x8x16xf32>) -> tensor<4x4x16xf32>
    %158 = stablehlo.transpose %157, dims = [2, 0, 1] : (tensor<4x4x16xf32>) -> tensor<16x4x4xf32>
    %159 = stablehlo.dot_general %151, %arg4, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<16x4x4xf32>) -> tensor<4x8x16xf32>
    %160 = stablehlo.add %156, %159 : tensor<4x8x16xf32>
    %161 = stablehlo.dot_general %153, %20, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<4x8x16xf32>) -> tensor<4x4x16xf32>
    %162 = stablehlo.transpose %161, dims = [2, 0, 1] : (tensor<4x4x16xf32>) -> tensor<16x4x4xf32>
    %163 = stablehlo.dot_general %153, %arg3, contracting_dims = [2, 3] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x4x4xf32>, tensor<16x4x4xf32>) -> tensor<4x8x16xf32>
    %164 = stablehlo.add %160, %163 : tensor<4x8x16xf32>
    %165 = stablehlo.multiply %17, %164 : tensor<4x8x16xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %166 = stablehlo.reduce(%165 init: %cst_36) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %167 = stablehlo.reshape %166 : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %168 = stablehlo.reduce(%167 init: %cst_37) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_38 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %170 = stablehlo.multiply %169, %168 : tensor<16xf32>
    %171 = stablehlo.subtract %arg2, %170 : tensor<16xf32>
    %cst_39 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<16x4x4xf32>
    %173 = stablehlo.multiply %172, %162 : tensor<16x4x4xf32>
    %174 = stablehlo.subtract %arg3, %173 : tensor<16x4x4xf32>
    %cst_40 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<16x4x4xf32>
    %176 = stablehlo.multiply %175, %158 : tensor<16x4x4xf32>
    %177 = stablehlo.subtract %arg4, %176 : tensor<16x4x4xf32>
    %cst_41 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %178 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<16x4x4xf32>
    %179 = stablehlo.multiply %178, %155 : tensor<16x4x4xf32>
    %180 = stablehlo.subtract %arg5, %179 : tensor<16x4x4xf32>
    %cst_42 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<4x4x16xf32>
    %182 = stablehlo.multiply %181, %129 : tensor<4x4x16xf32>
    %183 = stablehlo.subtract %arg6, %182 : tensor<4x4x16xf32>
    %cst_43 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %184 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %185 = stablehlo.multiply %184, %102 : tensor<16xf32>
    %186 = stablehlo.subtract %arg7, %185 : tensor<16xf32>
    %cst_44 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %187 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %188 = stablehlo.multiply %187, %95 : tensor<16x32xf32>
    %189 = stablehlo.subtract %arg8, %188 : tensor<16x32xf32>
    %cst_45 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %190 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %191 = stablehlo.multiply %190, %90 : tensor<32x16xf32>
    %192 = stablehlo.subtract %arg9, %191 : tensor<32x16xf32>
    return %171, %174, %177, %180, %183, %186, %189, %192, %85 : tensor<16xf32>, tensor<16x4x4xf32>, tensor<16x4x4xf32>, tensor<16x4x4xf32>, tensor<4x4x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<f32>
  }
  func.func private @tril(%arg0: tensor<8x8xi1>) -> tensor<8x8xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %2 = stablehlo.add %0, %1 : tensor<8x8xi32>
    %3 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<8x8xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<8x8xi1>, tensor<8x8xi1>
    return %6 : tensor<8x8xi1>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<4x4x8x8xf32>, %arg2: tensor<f32>) -> (tensor<4x4x8x8xf32>, tensor<4x4x8x8xi1>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<4x4x8x8xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<4x4x8x8xi1>, tensor<4x4x8x8xf32>
    return %3, %1 : tensor<4x4x8x8xf32>, tensor<4x4x8x8xi1>
  }
  func.func private @relu(%arg0: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x8x32xf32>
    return %1 : tensor<4x8x32xf32>
  }
  func.func private @_where_0(%arg0: tensor<4x4x8x8xi1>, %arg1: tensor<4x4x8x8xf32>) -> tensor<4x4x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<4x4x8x8xi1>, tensor<4x4x8x8xf32>
    return %1 : tensor<4x4x8x8xf32>
  }
}
