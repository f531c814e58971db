module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7x7xf32>) -> (tensor<7x7xf32> {jax.result_info = "result[0]"}, tensor<7x7xf32> {jax.result_info = "result[1]"}) {
    %0:2 = call @_schur(%arg0) : (tensor<7x7xf32>) -> (tensor<7x7xf32>, tensor<7x7xf32>)
    return %0#0, %0#1 : tensor<7x7xf32>, tensor<7x7xf32>
  }
  func.func private @_schur(%arg0: tensor<7x7xf32>) -> (tensor<7x7xf32>, tensor<7x7xf32>) {
    %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m, n], [o], [p], [], []) {i=7, j=7, k=7, l=7, m=7, n=7, o=7, p=7}, custom>} : (tensor<7x7xf32>) -> (tensor<7x7xf32>, tensor<7x7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<i32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#5, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7x7xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<7x7xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<7x7xi1>, tensor<7x7xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<7x7xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<7x7xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<7x7xi1>, tensor<7x7xf32>
    return %6, %10 : tensor<7x7xf32>, tensor<7x7xf32>
  }
}
