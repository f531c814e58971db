module @jit_pinv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xcomplex<f64>>) -> (tensor<3x4xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = call @_pinv(%arg0) : (tensor<4x3xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
    return %0 : tensor<3x4xcomplex<f64>>
  }
  func.func private @_pinv(%arg0: tensor<4x3xcomplex<f64>>) -> tensor<3x4xcomplex<f64>> {
    %0 = stablehlo.real %arg0 : (tensor<4x3xcomplex<f64>>) -> tensor<4x3xf64>
    %1 = stablehlo.imag %arg0 : (tensor<4x3xcomplex<f64>>) -> tensor<4x3xf64>
    %2 = stablehlo.negate %1 : tensor<4x3xf64>
    %3 = stablehlo.complex %0, %2 : tensor<4x3xcomplex<f64>>
    %cst = stablehlo.constant dense<4.000000e+01> : tensor<f64>
    %cst_0 = stablehlo.constant dense<2.2204460492503131E-16> : tensor<f64>
    %4 = stablehlo.multiply %cst, %cst_0 : tensor<f64>
    %5:3 = call @svd(%3) : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>)
    %6 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %7 = stablehlo.slice %5#1 [0:1] : (tensor<3xf64>) -> tensor<1xf64>
    %8 = stablehlo.multiply %6, %7 : tensor<1xf64>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<1xf64>) -> tensor<3xf64>
    %10 = stablehlo.compare GT, %5#1, %9, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %cst_1 = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
    %11 = call @_where(%10, %5#1, %cst_1) : (tensor<3xi1>, tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %12 = stablehlo.convert %11 : (tensor<3xf64>) -> tensor<3xcomplex<f64>>
    %13 = stablehlo.transpose %5#2, dims = [1, 0] : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
    %14 = stablehlo.transpose %5#0, dims = [1, 0] : (tensor<4x3xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
    %15 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<3xcomplex<f64>>) -> tensor<3x1xcomplex<f64>>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<3x1xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
    %17 = stablehlo.divide %14, %16 : tensor<3x4xcomplex<f64>>
    %18 = stablehlo.dot_general %13, %17, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<3x3xcomplex<f64>>, tensor<3x4xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
    return %18 : tensor<3x4xcomplex<f64>>
  }
  func.func private @svd(%arg0: tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>) {
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=4, j=3, k=4, l=3, m=3, n=4, o=3, p=3, q=3}, custom>} : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<4x3xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<4x3xi1>, tensor<4x3xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<3x3xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x3xi1>, tensor<3x3xcomplex<f64>>
    return %10, %6, %14 : tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>
  }
  func.func private @_where(%arg0: tensor<3xi1>, %arg1: tensor<3xf64>, %arg2: tensor<f64>) -> tensor<3xf64> {
    %0 = stablehlo.convert %arg2 : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<3xi1>, tensor<3xf64>
    return %2 : tensor<3xf64>
  }
}
