module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x4xf32>) -> (tensor<6x4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4x4xf32> {jax.result_info = "result[2]"}) {
    %0:3 = call @svd(%arg0) : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>)
    return %0#0, %0#1, %0#2 : tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
  }
  func.func private @svd(%arg0: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>) {
    %0:3 = call @svd_0(%arg0) : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>)
    return %0#0, %0#1, %0#2 : tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
  }
  func.func private @svd_0(%arg0: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>) {
    %0:2 = stablehlo.custom_call @Qr(%arg0) {backend_config = ""} : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>)
    %1 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%0#0, %0#1) {backend_config = ""} : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
    %2 = stablehlo.slice %0#0 [0:4, 0:4] : (tensor<6x4xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %5 = stablehlo.add %3, %4 : tensor<4x4xi64>
    %6 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %9 = stablehlo.select %7, %8, %2 : tensor<4x4xi1>, tensor<4x4xf32>
    %10:3 = call @_svd_tall_and_square_input(%9) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>)
    %11 = stablehlo.dot_general %1, %10#0, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
    %12 = stablehlo.is_finite %9 : (tensor<4x4xf32>) -> tensor<4x4xi1>
    %c_0 = stablehlo.constant dense<true> : tensor<i1>
    %13 = stablehlo.reduce(%12 init: %c_0) applies stablehlo.and across dimensions = [0, 1] : (tensor<4x4xi1>, tensor<i1>) -> tensor<i1>
    %14:4 = stablehlo.while(%iterArg = %13, %iterArg_1 = %11, %iterArg_2 = %10#1, %iterArg_3 = %10#2) : tensor<i1>, tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
    cond {
      %16 = stablehlo.not %iterArg : tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
      %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %17 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %cst_6 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %18 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %c_7 = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %c_7, %16, %17, %18 : tensor<i1>, tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
    }
    %15 = stablehlo.transpose %14#3, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %14#1, %14#2, %15 : tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
  }
  func.func private @_svd_tall_and_square_input(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>) {
    %0:4 = call @qdwh(%arg0) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<i64>, tensor<i1>)
    %1 = stablehlo.transpose %0#1, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.add %0#1, %1 : tensor<4x4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %4 = stablehlo.divide %2, %3 : tensor<4x4xf32>
    %5:2 = stablehlo.custom_call @Eigh(%4) {backend_config = "1,0,100,1e-6"} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.maximum %5#1, %6 : tensor<4xf32>
    %8 = call @argsort(%7) : (tensor<4xf32>) -> tensor<4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %10 = stablehlo.compare LT, %8, %9, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %c_1 = stablehlo.constant dense<4> : tensor<i64>
    %11 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %12 = stablehlo.add %8, %11 : tensor<4xi64>
    %13 = stablehlo.select %10, %12, %8 : tensor<4xi1>, tensor<4xi64>
    %14 = stablehlo.convert %13 : (tensor<4xi64>) -> tensor<4xi32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %16 = "stablehlo.gather"(%7, %15) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<4x1xi32>) -> tensor<4xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %17 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %18 = stablehlo.compare LT, %8, %17, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %c_3 = stablehlo.constant dense<4> : tensor<i64>
    %19 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %20 = stablehlo.add %8, %19 : tensor<4xi64>
    %21 = stablehlo.select %18, %20, %8 : tensor<4xi1>, tensor<4xi64>
    %22 = stablehlo.convert %21 : (tensor<4xi64>) -> tensor<4xi32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %24 = "stablehlo.gather"(%5#0, %23) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x4xf32>, tensor<4x1xi32>) -> tensor<4x4xf32>
    %25 = stablehlo.dot_general %0#0, %24, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %26 = stablehlo.slice %16 [3:4] : (tensor<4xf32>) -> tensor<1xf32>
    %27 = stablehlo.reshape %26 : (tensor<1xf32>) -> tensor<f32>
    %28 = stablehlo.slice %16 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %29 = stablehlo.reshape %28 : (tensor<1xf32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<4.76837158E-7> : tensor<f32>
    %30 = stablehlo.multiply %cst_4, %29 : tensor<f32>
    %31 = stablehlo.compare LE, %27, %30, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %32:2 = stablehlo.while(%iterArg = %25, %iterArg_5 = %31) : tensor<4x4xf32>, tensor<i1>
    cond {
      stablehlo.return %iterArg_5 : tensor<i1>
    } do {
      %33:2 = stablehlo.custom_call @Qr(%iterArg) {backend_config = ""} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
      %34 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%33#0, %33#1) {backend_config = ""} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
      %35 = stablehlo.iota dim = 0 : tensor<4x4xi64>
      %c_6 = stablehlo.constant dense<-1> : tensor<i64>
      %36 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
      %37 = stablehlo.add %35, %36 : tensor<4x4xi64>
      %38 = stablehlo.iota dim = 1 : tensor<4x4xi64>
      %39 = stablehlo.compare GE, %37, %38, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %40 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %41 = stablehlo.select %39, %40, %33#0 : tensor<4x4xi1>, tensor<4x4xf32>
      %42 = func.call @_diag(%41) : (tensor<4x4xf32>) -> tensor<4xf32>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %43 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %44 = stablehlo.compare GE, %42, %43, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %c_9 = stablehlo.constant dense<1> : tensor<i64>
      %c_10 = stablehlo.constant dense<-1> : tensor<i64>
      %45 = func.call @_where_6(%44, %c_9, %c_10) : (tensor<4xi1>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
      %46 = func.call @_diag_7(%45) : (tensor<4xi64>) -> tensor<4x4xi64>
      %47 = stablehlo.dot_general %34, %46, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xi64>) -> tensor<4x4xf32>
      %c_11 = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %47, %c_11 : tensor<4x4xf32>, tensor<i1>
    }
    return %32#0, %16, %24 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>
  }
  func.func private @qdwh(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<i64>, tensor<i1>) {
    %cst = stablehlo.constant dense<[[1.9999615517392721, 52016.457670893942, 0.99996155136969045], [1.9217820851502887, 24.016208769796364, 0.920118285731504]]> : tensor<2x3xf64>
    %cst_0 = stablehlo.constant dense<[[3.7414382875954941, 5.7202775739820115, 0.44326134651331761], [2.6715576806568375, 3.0110110887522445, 0.33394408004792808]]> : tensor<2x3xf64>
    %0 = call @norm(%arg0) : (tensor<4x4xf32>) -> tensor<f32>
    %1 = call @norm_1(%arg0) : (tensor<4x4xf32>) -> tensor<f32>
    %2 = stablehlo.rsqrt %0 : tensor<f32>
    %3 = stablehlo.rsqrt %1 : tensor<f32>
    %4 = stablehlo.multiply %2, %3 : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.compare EQ, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %6 = call @_where(%5, %c, %4) : (tensor<i1>, tensor<i64>, tensor<f32>) -> tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %8 = stablehlo.multiply %arg0, %7 : tensor<4x4xf32>
    %cst_2 = stablehlo.constant dense<5.9604644775390625E-7> : tensor<f64>
    %9 = stablehlo.cbrt %cst_2 : tensor<f64>
    %10 = stablehlo.convert %cst : (tensor<2x3xf64>) -> tensor<2x3xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %c_4 = stablehlo.constant dense<true> : tensor<i1>
    %c_5 = stablehlo.constant dense<0> : tensor<i64>
    %11:5 = stablehlo.while(%iterArg = %10, %iterArg_13 = %c_5, %iterArg_14 = %c_3, %iterArg_15 = %8, %iterArg_16 = %c_4) : tensor<2x3xf32>, tensor<i64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>
    cond {
      %c_17 = stablehlo.constant dense<2> : tensor<i64>
      %30 = stablehlo.compare LT, %iterArg_13, %c_17, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %30 : tensor<i1>
    } do {
      %30:3 = func.call @closed_call(%iterArg, %iterArg_14, %iterArg_15, %iterArg_16) : (tensor<2x3xf32>, tensor<i64>, tensor<4x4xf32>, tensor<i1>) -> (tensor<i64>, tensor<4x4xf32>, tensor<i1>)
      %c_17 = stablehlo.constant dense<1> : tensor<i64>
      %31 = stablehlo.add %iterArg_13, %c_17 : tensor<i64>
      stablehlo.return %iterArg, %31, %30#0, %30#1, %30#2 : tensor<2x3xf32>, tensor<i64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>
    }
    %12 = stablehlo.convert %cst_0 : (tensor<2x3xf64>) -> tensor<2x3xf32>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %c_7 = stablehlo.constant dense<true> : tensor<i1>
    %c_8 = stablehlo.constant dense<0> : tensor<i64>
    %13:6 = stablehlo.while(%iterArg = %12, %iterArg_13 = %9, %iterArg_14 = %c_8, %iterArg_15 = %c_6, %iterArg_16 = %11#3, %iterArg_17 = %c_7) : tensor<2x3xf32>, tensor<f64>, tensor<i64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>
    cond {
      %c_18 = stablehlo.constant dense<2> : tensor<i64>
      %30 = stablehlo.compare LT, %iterArg_14, %c_18, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %30 : tensor<i1>
    } do {
      %30:3 = func.call @closed_call_3(%iterArg, %iterArg_13, %iterArg_15, %iterArg_16, %iterArg_17) : (tensor<2x3xf32>, tensor<f64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>) -> (tensor<i64>, tensor<4x4xf32>, tensor<i1>)
      %c_18 = stablehlo.constant dense<1> : tensor<i64>
      %31 = stablehlo.add %iterArg_14, %c_18 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_13, %31, %30#0, %30#1, %30#2 : tensor<2x3xf32>, tensor<f64>, tensor<i64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>
    }
    %c_9 = stablehlo.constant dense<4> : tensor<i64>
    %14:4 = stablehlo.while(%iterArg = %9, %iterArg_13 = %c_9, %iterArg_14 = %13#4, %iterArg_15 = %13#5) : tensor<f64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>
    cond {
      %c_16 = stablehlo.constant dense<10> : tensor<i64>
      %30 = stablehlo.compare LT, %iterArg_13, %c_16, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %c_17 = stablehlo.constant dense<false> : tensor<i1>
      %31 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<i1>) -> tensor<i1>
      %32 = stablehlo.compare NE, %30, %31, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %33 = stablehlo.convert %32 : tensor<i1>
      %34 = stablehlo.and %iterArg_15, %33 : tensor<i1>
      stablehlo.return %34 : tensor<i1>
    } do {
      %30 = stablehlo.transpose %iterArg_14, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %31 = stablehlo.dot_general %30, %iterArg_14, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %cst_16 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %32 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %33 = stablehlo.multiply %32, %31 : tensor<4x4xf32>
      %34 = stablehlo.iota dim = 0 : tensor<4x4xi64>
      %35 = stablehlo.iota dim = 1 : tensor<4x4xi64>
      %c_17 = stablehlo.constant dense<0> : tensor<i64>
      %36 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
      %37 = stablehlo.add %34, %36 : tensor<4x4xi64>
      %38 = stablehlo.compare EQ, %37, %35, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
      %39 = stablehlo.convert %38 : (tensor<4x4xi1>) -> tensor<4x4xf32>
      %40 = stablehlo.add %33, %39 : tensor<4x4xf32>
      %41 = stablehlo.iota dim = 0 : tensor<4x4xi64>
      %42 = stablehlo.iota dim = 1 : tensor<4x4xi64>
      %c_18 = stablehlo.constant dense<0> : tensor<i64>
      %43 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
      %44 = stablehlo.add %41, %43 : tensor<4x4xi64>
      %45 = stablehlo.compare EQ, %44, %42, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
      %46 = stablehlo.convert %45 : (tensor<4x4xi1>) -> tensor<4x4xf32>
      %47 = stablehlo.iota dim = 0 : tensor<4x4xi32>
      %c_19 = stablehlo.constant dense<4> : tensor<i32>
      %48 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
      %49 = stablehlo.compare LT, %47, %48, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
      %50 = stablehlo.iota dim = 1 : tensor<4x4xi32>
      %c_20 = stablehlo.constant dense<4> : tensor<i32>
      %51 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
      %52 = stablehlo.compare LT, %50, %51, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
      %53 = stablehlo.and %49, %52 : tensor<4x4xi1>
      %54 = func.call @_where_4(%53, %40, %46) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %55 = stablehlo.cholesky %54, lower = true : tensor<4x4xf32>
      %56 = stablehlo.iota dim = 0 : tensor<4x4xi64>
      %c_21 = stablehlo.constant dense<0> : tensor<i64>
      %57 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
      %58 = stablehlo.add %56, %57 : tensor<4x4xi64>
      %59 = stablehlo.iota dim = 1 : tensor<4x4xi64>
      %60 = stablehlo.compare GE, %58, %59, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
      %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %61 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %62 = stablehlo.select %60, %55, %61 : tensor<4x4xi1>, tensor<4x4xf32>
      %63 = stablehlo.transpose %iterArg_14, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %64 = "stablehlo.triangular_solve"(%62, %63) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %65 = "stablehlo.triangular_solve"(%62, %64) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %66 = stablehlo.transpose %65, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %cst_23 = stablehlo.constant dense<0.333333343> : tensor<f32>
      %67 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %68 = stablehlo.multiply %67, %iterArg_14 : tensor<4x4xf32>
      %cst_24 = stablehlo.constant dense<2.66666675> : tensor<f32>
      %69 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %70 = stablehlo.multiply %69, %66 : tensor<4x4xf32>
      %71 = stablehlo.add %68, %70 : tensor<4x4xf32>
      %72 = stablehlo.subtract %71, %iterArg_14 : tensor<4x4xf32>
      %73 = func.call @norm_5(%72) : (tensor<4x4xf32>) -> tensor<f32>
      %74 = stablehlo.convert %iterArg : (tensor<f64>) -> tensor<f32>
      %75 = stablehlo.compare GT, %73, %74, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_25 = stablehlo.constant dense<1> : tensor<i64>
      %76 = stablehlo.add %iterArg_13, %c_25 : tensor<i64>
      stablehlo.return %iterArg, %76, %71, %75 : tensor<f64>, tensor<i64>, tensor<4x4xf32>, tensor<i1>
    }
    %cst_10 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %16 = stablehlo.multiply %15, %14#2 : tensor<4x4xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %18 = stablehlo.multiply %17, %14#2 : tensor<4x4xf32>
    %19 = stablehlo.transpose %14#2, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %20 = stablehlo.dot_general %19, %14#2, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %21 = stablehlo.dot_general %18, %20, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %22 = stablehlo.subtract %16, %21 : tensor<4x4xf32>
    %23 = stablehlo.transpose %22, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %24 = stablehlo.dot_general %23, %arg0, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %25 = stablehlo.transpose %24, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %26 = stablehlo.add %24, %25 : tensor<4x4xf32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %28 = stablehlo.divide %26, %27 : tensor<4x4xf32>
    %29 = stablehlo.not %14#3 : tensor<i1>
    return %22, %28, %14#1, %29 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<i64>, tensor<i1>
  }
  func.func private @norm(%arg0: tensor<4x4xf32>) -> tensor<f32> {
    %0 = stablehlo.abs %arg0 : tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.maximum %cst_1, %2 : tensor<f32>
    return %3 : tensor<f32>
  }
  func.func private @norm_1(%arg0: tensor<4x4xf32>) -> tensor<f32> {
    %0 = stablehlo.abs %arg0 : tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.maximum %cst_1, %2 : tensor<f32>
    return %3 : tensor<f32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<i1>, tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<2x3xf32>, %arg1: tensor<i64>, %arg2: tensor<4x4xf32>, %arg3: tensor<i1>) -> (tensor<i64>, tensor<4x4xf32>, tensor<i1>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg1, %c : tensor<i64>
    %1 = call @dynamic_index_in_dim(%arg0, %arg1) : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32>
    %2 = stablehlo.slice %1 [0:1] : (tensor<3xf32>) -> tensor<1xf32>
    %3 = stablehlo.reshape %2 : (tensor<1xf32>) -> tensor<f32>
    %4 = stablehlo.slice %1 [1:2] : (tensor<3xf32>) -> tensor<1xf32>
    %5 = stablehlo.reshape %4 : (tensor<1xf32>) -> tensor<f32>
    %6 = stablehlo.slice %1 [2:3] : (tensor<3xf32>) -> tensor<1xf32>
    %7 = stablehlo.reshape %6 : (tensor<1xf32>) -> tensor<f32>
    %8 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %9 = stablehlo.multiply %8, %arg2 : tensor<4x4xf32>
    %10 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %11 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %13 = stablehlo.add %10, %12 : tensor<4x4xi64>
    %14 = stablehlo.compare EQ, %13, %11, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %15 = stablehlo.convert %14 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.pad %9, %cst, low = [0, 0], high = [4, 0], interior = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<8x4xf32>
    %c_1 = stablehlo.constant dense<4> : tensor<i64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %17 = stablehlo.dynamic_update_slice %16, %15, %c_1, %c_2 : (tensor<8x4xf32>, tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<8x4xf32>
    %18:2 = stablehlo.custom_call @Qr(%17) {backend_config = ""} : (tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
    %19 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%18#0, %18#1) {backend_config = ""} : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
    %20 = stablehlo.slice %18#0 [0:4, 0:4] : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %21 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %c_3 = stablehlo.constant dense<-1> : tensor<i64>
    %22 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %23 = stablehlo.add %21, %22 : tensor<4x4xi64>
    %24 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %25 = stablehlo.compare GE, %23, %24, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %27 = stablehlo.select %25, %26, %20 : tensor<4x4xi1>, tensor<4x4xf32>
    %28 = stablehlo.slice %19 [0:4, 0:4] : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %29 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %c_5 = stablehlo.constant dense<4> : tensor<i32>
    %30 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %31 = stablehlo.compare LT, %29, %30, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %32 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c_6 = stablehlo.constant dense<4> : tensor<i32>
    %33 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %34 = stablehlo.compare LT, %32, %33, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %35 = stablehlo.and %31, %34 : tensor<4x4xi1>
    %c_7 = stablehlo.constant dense<0> : tensor<i64>
    %36 = call @_where_2(%35, %28, %c_7) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<i64>) -> tensor<4x4xf32>
    %c_8 = stablehlo.constant dense<4> : tensor<i64>
    %c_9 = stablehlo.constant dense<0> : tensor<i64>
    %37 = stablehlo.dynamic_slice %19, %c_8, %c_9, sizes = [4, 4] : (tensor<8x4xf32>, tensor<i64>, tensor<i64>) -> tensor<4x4xf32>
    %38 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %c_10 = stablehlo.constant dense<4> : tensor<i32>
    %39 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %40 = stablehlo.compare LT, %38, %39, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %41 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c_11 = stablehlo.constant dense<4> : tensor<i32>
    %42 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %43 = stablehlo.compare LT, %41, %42, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %44 = stablehlo.and %40, %43 : tensor<4x4xi1>
    %c_12 = stablehlo.constant dense<0> : tensor<i64>
    %45 = call @_where_2(%44, %37, %c_12) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<i64>) -> tensor<4x4xf32>
    %46 = stablehlo.transpose %45, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %47 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %48 = stablehlo.multiply %47, %arg2 : tensor<4x4xf32>
    %49 = stablehlo.dot_general %36, %46, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %50 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %51 = stablehlo.multiply %50, %49 : tensor<4x4xf32>
    %52 = stablehlo.add %48, %51 : tensor<4x4xf32>
    %c_13 = stablehlo.constant dense<true> : tensor<i1>
    return %0, %52, %c_13 : tensor<i64>, tensor<4x4xf32>, tensor<i1>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2x3xf32>, %arg1: tensor<i64>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %1 = stablehlo.convert %arg1 : tensor<i64>
    %c_0 = stablehlo.constant dense<2> : tensor<i64>
    %2 = stablehlo.add %1, %c_0 : tensor<i64>
    %3 = stablehlo.select %0, %2, %arg1 : tensor<i1>, tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.dynamic_slice %arg0, %3, %c_1, sizes = [1, 3] : (tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x3xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %5 : tensor<3xf32>
  }
  func.func private @_where_2(%arg0: tensor<4x4xi1>, %arg1: tensor<4x4xf32>, %arg2: tensor<i64>) -> tensor<4x4xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<i64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4x4xi1>, tensor<4x4xf32>
    return %2 : tensor<4x4xf32>
  }
  func.func private @closed_call_3(%arg0: tensor<2x3xf32>, %arg1: tensor<f64>, %arg2: tensor<i64>, %arg3: tensor<4x4xf32>, %arg4: tensor<i1>) -> (tensor<i64>, tensor<4x4xf32>, tensor<i1>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg2, %c : tensor<i64>
    %1 = call @dynamic_index_in_dim(%arg0, %arg2) : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32>
    %2 = stablehlo.slice %1 [0:1] : (tensor<3xf32>) -> tensor<1xf32>
    %3 = stablehlo.reshape %2 : (tensor<1xf32>) -> tensor<f32>
    %4 = stablehlo.slice %1 [1:2] : (tensor<3xf32>) -> tensor<1xf32>
    %5 = stablehlo.reshape %4 : (tensor<1xf32>) -> tensor<f32>
    %6 = stablehlo.slice %1 [2:3] : (tensor<3xf32>) -> tensor<1xf32>
    %7 = stablehlo.reshape %6 : (tensor<1xf32>) -> tensor<f32>
    %8 = stablehlo.transpose %arg3, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %9 = stablehlo.dot_general %8, %arg3, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %10 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<4x4xf32>
    %12 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %13 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %14 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %15 = stablehlo.add %12, %14 : tensor<4x4xi64>
    %16 = stablehlo.compare EQ, %15, %13, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %17 = stablehlo.convert %16 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %18 = stablehlo.add %11, %17 : tensor<4x4xf32>
    %19 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %20 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %21 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %22 = stablehlo.add %19, %21 : tensor<4x4xi64>
    %23 = stablehlo.compare EQ, %22, %20, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %24 = stablehlo.convert %23 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %25 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %27 = stablehlo.compare LT, %25, %26, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %28 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c_3 = stablehlo.constant dense<4> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %30 = stablehlo.compare LT, %28, %29, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %31 = stablehlo.and %27, %30 : tensor<4x4xi1>
    %32 = call @_where_4(%31, %18, %24) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %33 = stablehlo.cholesky %32, lower = true : tensor<4x4xf32>
    %34 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %c_4 = stablehlo.constant dense<0> : tensor<i64>
    %35 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %36 = stablehlo.add %34, %35 : tensor<4x4xi64>
    %37 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %38 = stablehlo.compare GE, %36, %37, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %40 = stablehlo.select %38, %33, %39 : tensor<4x4xi1>, tensor<4x4xf32>
    %41 = stablehlo.transpose %arg3, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %42 = "stablehlo.triangular_solve"(%40, %41) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %43 = "stablehlo.triangular_solve"(%40, %42) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %44 = stablehlo.transpose %43, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %45 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %46 = stablehlo.multiply %45, %arg3 : tensor<4x4xf32>
    %47 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %48 = stablehlo.multiply %47, %44 : tensor<4x4xf32>
    %49 = stablehlo.add %46, %48 : tensor<4x4xf32>
    %50 = stablehlo.subtract %49, %arg3 : tensor<4x4xf32>
    %51 = call @norm_5(%50) : (tensor<4x4xf32>) -> tensor<f32>
    %52 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %53 = stablehlo.compare GT, %51, %52, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0, %49, %53 : tensor<i64>, tensor<4x4xf32>, tensor<i1>
  }
  func.func private @_where_4(%arg0: tensor<4x4xi1>, %arg1: tensor<4x4xf32>, %arg2: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4x4xi1>, tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
  func.func private @norm_5(%arg0: tensor<4x4xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @argsort(%arg0: tensor<4xf32>) -> tensor<4xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<4xi64>
    %1 = stablehlo.reverse %arg0, dims = [0] : tensor<4xf32>
    %2 = stablehlo.reverse %0, dims = [0] : tensor<4xi64>
    %3:2 = "stablehlo.sort"(%1, %2) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i64>, %arg4: tensor<i64>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_1, %6 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %10 = stablehlo.select %9, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %11 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %12 = stablehlo.select %11, %cst_4, %10 : tensor<i1>, tensor<f32>
      %13 = stablehlo.compare LT, %8, %12, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %13 : tensor<i1>
    }) : (tensor<4xf32>, tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>)
    %4 = stablehlo.reverse %3#1, dims = [0] : tensor<4xi64>
    return %4 : tensor<4xi64>
  }
  func.func private @_diag(%arg0: tensor<4x4xf32>) -> tensor<4xf32> {
    %0 = call @diagonal(%arg0) : (tensor<4x4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @diagonal(%arg0: tensor<4x4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %6 = "stablehlo.case"(%c_0) ({
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }, {
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %8 = stablehlo.iota dim = 0 : tensor<4xi64>
      %9 = stablehlo.iota dim = 0 : tensor<4xi64>
      %c_1 = stablehlo.constant dense<0> : tensor<i64>
      %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %11 = stablehlo.compare LT, %8, %10, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
      %c_2 = stablehlo.constant dense<4> : tensor<i64>
      %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %13 = stablehlo.add %8, %12 : tensor<4xi64>
      %14 = stablehlo.select %11, %13, %8 : tensor<4xi1>, tensor<4xi64>
      %c_3 = stablehlo.constant dense<0> : tensor<i64>
      %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %16 = stablehlo.compare LT, %9, %15, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
      %c_4 = stablehlo.constant dense<4> : tensor<i64>
      %17 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %18 = stablehlo.add %9, %17 : tensor<4xi64>
      %19 = stablehlo.select %16, %18, %9 : tensor<4xi1>, tensor<4xi64>
      %20 = stablehlo.convert %14 : (tensor<4xi64>) -> tensor<4xi32>
      %21 = stablehlo.convert %19 : (tensor<4xi64>) -> tensor<4xi32>
      %22 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
      %23 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
      %24 = stablehlo.concatenate %22, %23, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
      %25 = "stablehlo.gather"(%arg0, %24) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
      stablehlo.return %25 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %7 : tensor<4xf32>
  }
  func.func private @_where_6(%arg0: tensor<4xi1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<4xi64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %2 = stablehlo.select %arg0, %0, %1 : tensor<4xi1>, tensor<4xi64>
    return %2 : tensor<4xi64>
  }
  func.func private @_diag_7(%arg0: tensor<4xi64>) -> tensor<4x4xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.pad %arg0, %c, low = [0], high = [0], interior = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
    %1 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %2 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %4 = stablehlo.add %1, %3 : tensor<4x4xi64>
    %5 = stablehlo.compare EQ, %4, %2, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %6 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xi64>) -> tensor<4x1xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %7 = call @_where_8(%5, %6, %c_1) : (tensor<4x4xi1>, tensor<4x1xi64>, tensor<i64>) -> tensor<4x4xi64>
    return %7 : tensor<4x4xi64>
  }
  func.func private @_where_8(%arg0: tensor<4x4xi1>, %arg1: tensor<4x1xi64>, %arg2: tensor<i64>) -> tensor<4x4xi64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<4x1xi64>) -> tensor<4x4xi64>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %2 = stablehlo.select %arg0, %0, %1 : tensor<4x4xi1>, tensor<4x4xi64>
    return %2 : tensor<4x4xi64>
  }
}
