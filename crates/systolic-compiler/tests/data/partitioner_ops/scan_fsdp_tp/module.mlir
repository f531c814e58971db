module @jit_scan_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<3x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, %arg2: tensor<3x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>}) -> (tensor<16x16xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, tensor<3x16xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %arg2, %iterArg_1 = %c, %iterArg_2 = %arg0, %iterArg_3 = %0) : tensor<3x16x32xf32>, tensor<3x32x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<3x16xf32>
    cond {
      %c_4 = stablehlo.constant dense<3> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<3x16x32xf32>, tensor<i32>) -> tensor<16x32xf32>
      %3 = func.call @dynamic_index_in_dim_0(%iterArg_0, %iterArg_1) : (tensor<3x32x16xf32>, tensor<i32>) -> tensor<32x16xf32>
      %4:2 = func.call @closed_call(%iterArg_2, %2, %3) : (tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_3, %4#1, %iterArg_1) : (tensor<3x16xf32>, tensor<16xf32>, tensor<i32>) -> tensor<3x16xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %6, %4#0, %5 : tensor<3x16x32xf32>, tensor<3x32x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<3x16xf32>
    }
    return %1#3, %1#4 : tensor<16x16xf32>, tensor<3x16xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x16x32xf32>, %arg1: tensor<i32>) -> tensor<16x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 16, 32] : (tensor<3x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x16x32xf32>) -> tensor<16x32xf32>
    return %1 : tensor<16x32xf32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<3x32x16xf32>, %arg1: tensor<i32>) -> tensor<32x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 32, 16] : (tensor<3x32x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
    return %1 : tensor<32x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<16x16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %1 = stablehlo.tanh %0 : tensor<16x32xf32>
    %2 = stablehlo.dot_general %1, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<16x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    return %3, %4 : tensor<16x16xf32>, tensor<16xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<i32>) -> tensor<3x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<3x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<3x16xf32>
    return %1 : tensor<3x16xf32>
  }
}
