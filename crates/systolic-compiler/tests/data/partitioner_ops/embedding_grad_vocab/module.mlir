module @jit_embed_loss attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg1: tensor<16xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}, %arg2: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<64x16xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %c_0 = stablehlo.constant dense<64> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<16xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<16xi1>, tensor<16xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<16x1xi32>) -> tensor<16x16xf32>
    %7 = stablehlo.tanh %6 : tensor<16x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %9 = stablehlo.subtract %8, %7 : tensor<16x16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %11 = stablehlo.multiply %10, %arg2 : tensor<16x16xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<16x16xf32>
    %13 = stablehlo.multiply %12, %7 : tensor<16x16xf32>
    %14 = stablehlo.add %12, %13 : tensor<16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %16 = "stablehlo.scatter"(%15, %5, %14) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %17 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %17 : tensor<f32>
    }) : (tensor<64x16xf32>, tensor<16x1xi32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    return %16 : tensor<64x16xf32>
  }
}
