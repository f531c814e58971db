module @jit_solve attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf64>, %arg1: tensor<4x2xf64>) -> (tensor<4x2xf64> {jax.result_info = "result"}) {
    %0 = call @solve(%arg0, %arg1) : (tensor<4x4xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
    return %0 : tensor<4x2xf64>
  }
  func.func private @solve(%arg0: tensor<4x4xf64>, %arg1: tensor<4x2xf64>) -> tensor<4x2xf64> {
    %0:3 = stablehlo.custom_call @LuDecomposition(%arg0) {api_version = 2 : i32, backend_config = ""} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>)
    %1 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x2xf64>) -> tensor<2x4xf64>
    %2 = call @_lu_solve(%0#0, %0#2, %1) : (tensor<4x4xf64>, tensor<4xi32>, tensor<2x4xf64>) -> tensor<2x4xf64>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<2x4xf64>) -> tensor<4x2xf64>
    return %3 : tensor<4x2xf64>
  }
  func.func private @_lu_solve(%arg0: tensor<4x4xf64>, %arg1: tensor<4xi32>, %arg2: tensor<2x4xf64>) -> tensor<2x4xf64> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<2x4xf64>) -> tensor<2x4x1xf64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<4xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<4xi1>, tensor<4xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 1>}> : (tensor<2x4x1xf64>, tensor<4x1xi32>) -> tensor<2x4x1xf64>
    %8 = stablehlo.transpose %7, dims = [1, 2, 0] : (tensor<2x4x1xf64>) -> tensor<4x1x2xf64>
    %9 = stablehlo.reshape %8 : (tensor<4x1x2xf64>) -> tensor<4x2xf64>
    %10 = "stablehlo.triangular_solve"(%arg0, %9) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<4x4xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
    %11 = stablehlo.reshape %10 : (tensor<4x2xf64>) -> tensor<4x1x2xf64>
    %12 = stablehlo.reshape %11 : (tensor<4x1x2xf64>) -> tensor<4x2xf64>
    %13 = "stablehlo.triangular_solve"(%arg0, %12) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
    %14 = stablehlo.reshape %13 : (tensor<4x2xf64>) -> tensor<4x1x2xf64>
    %15 = stablehlo.transpose %14, dims = [2, 0, 1] : (tensor<4x1x2xf64>) -> tensor<2x4x1xf64>
    %16 = stablehlo.reshape %15 : (tensor<2x4x1xf64>) -> tensor<2x4xf64>
    return %16 : tensor<2x4xf64>
  }
}
