module @jit_det attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<complex<f32>> {jax.result_info = "result"}) {
    %0 = call @det(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func private @det(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<complex<f32>> {
    %0:2 = call @slogdet(%arg0) : (tensor<4x4xcomplex<f32>>) -> (tensor<complex<f32>>, tensor<f32>)
    %1 = stablehlo.exponential %0#1 : tensor<f32>
    %2 = stablehlo.convert %1 : (tensor<f32>) -> tensor<complex<f32>>
    %3 = stablehlo.multiply %0#0, %2 : tensor<complex<f32>>
    return %3 : tensor<complex<f32>>
  }
  func.func private @slogdet(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<complex<f32>>, tensor<f32>) {
    %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=4, j=4, k=4, l=4, m=4}, custom>} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<i32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<4xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    %9 = stablehlo.iota dim = 0 : tensor<4xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_12 = %c_2, %iterArg_13 = %c_1, %iterArg_14 = %9) : tensor<4xi32>, tensor<i64>, tensor<i64>, tensor<4xi32>
    cond {
      %c_15 = stablehlo.constant dense<4> : tensor<i64>
      %34 = stablehlo.compare LT, %iterArg_12, %c_15, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %34 : tensor<i1>
    } do {
      %34:2 = func.call @closed_call(%iterArg, %iterArg_13, %iterArg_14) : (tensor<4xi32>, tensor<i64>, tensor<4xi32>) -> (tensor<i64>, tensor<4xi32>)
      %c_15 = stablehlo.constant dense<1> : tensor<i64>
      %35 = stablehlo.add %iterArg_12, %c_15 : tensor<i64>
      stablehlo.return %iterArg, %35, %34#0, %34#1 : tensor<4xi32>, tensor<i64>, tensor<i64>, tensor<4xi32>
    }
    %11 = call @diagonal(%8) : (tensor<4x4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %cst_3 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %13 = stablehlo.compare EQ, %11, %12, FLOAT : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
    %c_4 = stablehlo.constant dense<false> : tensor<i1>
    %14 = stablehlo.reduce(%13 init: %c_4) applies stablehlo.or across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
    %15 = stablehlo.iota dim = 0 : tensor<4xi32>
    %16 = stablehlo.compare NE, %2, %15, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %17 = call @count_nonzero(%16) : (tensor<4xi1>) -> tensor<i64>
    %18 = stablehlo.abs %11 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %19 = stablehlo.convert %18 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %20 = stablehlo.divide %11, %19 : tensor<4xcomplex<f32>>
    %cst_5 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %21 = stablehlo.reduce(%20 init: %cst_5) applies stablehlo.multiply across dimensions = [0] : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    %c_6 = stablehlo.constant dense<2> : tensor<i64>
    %22 = call @remainder(%17, %c_6) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %c_7 = stablehlo.constant dense<-2> : tensor<i64>
    %23 = stablehlo.multiply %c_7, %22 : tensor<i64>
    %c_8 = stablehlo.constant dense<1> : tensor<i64>
    %24 = stablehlo.add %23, %c_8 : tensor<i64>
    %25 = stablehlo.convert %24 : (tensor<i64>) -> tensor<complex<f32>>
    %26 = stablehlo.multiply %21, %25 : tensor<complex<f32>>
    %cst_9 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %27 = call @_where_0(%14, %cst_9, %26) : (tensor<i1>, tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    %28 = stablehlo.abs %11 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %29 = stablehlo.log %28 : tensor<4xf32>
    %30 = stablehlo.convert %29 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %cst_10 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %31 = stablehlo.reduce(%30 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    %cst_11 = stablehlo.constant dense<(0xFF800000,0.000000e+00)> : tensor<complex<f32>>
    %32 = call @_where_0(%14, %cst_11, %31) : (tensor<i1>, tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    %33 = stablehlo.real %32 : (tensor<complex<f32>>) -> tensor<f32>
    return %27, %33 : tensor<complex<f32>>, tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<4xi32>, %arg1: tensor<i64>, %arg2: tensor<4xi32>) -> (tensor<i64>, tensor<4xi32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg1, %c : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i64>
    %c_1 = stablehlo.constant dense<4> : tensor<i64>
    %3 = stablehlo.add %2, %c_1 : tensor<i64>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i64>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<4xi32>, tensor<i64>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i64>
    %c_3 = stablehlo.constant dense<4> : tensor<i64>
    %9 = stablehlo.add %8, %c_3 : tensor<i64>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i64>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<4xi32>, tensor<i64>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<4> : tensor<i32>
    %14 = stablehlo.add %6, %c_5 : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<4xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %18 = stablehlo.compare LT, %arg1, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_7 = stablehlo.constant dense<4> : tensor<i64>
    %19 = stablehlo.add %arg1, %c_7 : tensor<i64>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i64>
    %21 = stablehlo.convert %20 : (tensor<i64>) -> tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.compare LT, %6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_9 = stablehlo.constant dense<4> : tensor<i32>
    %25 = stablehlo.add %6, %c_9 : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
    return %0, %28 : tensor<i64>, tensor<4xi32>
  }
  func.func private @diagonal(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
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
      %25 = "stablehlo.gather"(%arg0, %24) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x4xcomplex<f32>>, tensor<4x2xi32>) -> tensor<4xcomplex<f32>>
      stablehlo.return %25 : tensor<4xcomplex<f32>>
    }) : (tensor<i32>) -> tensor<4xcomplex<f32>>
    return %7 : tensor<4xcomplex<f32>>
  }
  func.func private @count_nonzero(%arg0: tensor<4xi1>) -> tensor<i64> {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %1 = stablehlo.compare NE, %arg0, %0, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %2 = stablehlo.convert %1 : (tensor<4xi1>) -> tensor<4xi32>
    %3 = stablehlo.convert %2 : (tensor<4xi32>) -> tensor<4xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.reduce(%3 init: %c_0) applies stablehlo.add across dimensions = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    return %4 : tensor<i64>
  }
  func.func private @remainder(%arg0: tensor<i64>, %arg1: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = stablehlo.remainder %arg0, %2 : tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.compare NE, %3, %c_1, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.compare LT, %3, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %7 = stablehlo.compare NE, %5, %6, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %8 = stablehlo.and %7, %4 : tensor<i1>
    %9 = stablehlo.add %3, %2 : tensor<i64>
    %10 = stablehlo.select %8, %9, %3 : tensor<i1>, tensor<i64>
    return %10 : tensor<i64>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
}
