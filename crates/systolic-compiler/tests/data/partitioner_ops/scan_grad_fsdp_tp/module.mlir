module @jit_loss attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<3x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, %arg1: tensor<3x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>}, %arg2: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<3x16x32xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, tensor<3x32x16xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x16x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %arg0, %iterArg_5 = %arg1, %iterArg_6 = %c, %iterArg_7 = %arg2, %iterArg_8 = %0) : tensor<3x16x32xf32>, tensor<3x32x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<3x16x16xf32>
    cond {
      %c_9 = stablehlo.constant dense<3> : tensor<i32>
      %10 = stablehlo.compare LT, %iterArg_6, %c_9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_6) : (tensor<3x16x32xf32>, tensor<i32>) -> tensor<16x32xf32>
      %11 = func.call @dynamic_index_in_dim_0(%iterArg_5, %iterArg_6) : (tensor<3x32x16xf32>, tensor<i32>) -> tensor<32x16xf32>
      %12:2 = func.call @closed_call(%iterArg_7, %10, %11) : (tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>)
      %13 = func.call @dynamic_update_index_in_dim(%iterArg_8, %12#1, %iterArg_6) : (tensor<3x16x16xf32>, tensor<16x16xf32>, tensor<i32>) -> tensor<3x16x16xf32>
      %c_9 = stablehlo.constant dense<1> : tensor<i32>
      %14 = stablehlo.add %iterArg_6, %c_9 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_5, %14, %12#0, %13 : tensor<3x16x32xf32>, tensor<3x32x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<3x16x16xf32>
    }
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %4 = stablehlo.multiply %1#3, %3 : tensor<16x16xf32>
    %5 = stablehlo.multiply %3, %1#3 : tensor<16x16xf32>
    %6 = stablehlo.add %4, %5 : tensor<16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x16x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x32x16xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %9:8 = stablehlo.while(%iterArg = %2, %iterArg_5 = %1#4, %iterArg_6 = %arg0, %iterArg_7 = %arg1, %iterArg_8 = %c_4, %iterArg_9 = %6, %iterArg_10 = %7, %iterArg_11 = %8) : tensor<3x16xf32>, tensor<3x16x16xf32>, tensor<3x16x32xf32>, tensor<3x32x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<3x16x32xf32>, tensor<3x32x16xf32>
    cond {
      %c_12 = stablehlo.constant dense<3> : tensor<i32>
      %10 = stablehlo.compare LT, %iterArg_8, %c_12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %c_12 = stablehlo.constant dense<3> : tensor<i32>
      %10 = stablehlo.subtract %c_12, %iterArg_8 : tensor<i32>
      %c_13 = stablehlo.constant dense<1> : tensor<i32>
      %11 = stablehlo.subtract %10, %c_13 : tensor<i32>
      %12 = func.call @dynamic_index_in_dim_1(%iterArg, %11) : (tensor<3x16xf32>, tensor<i32>) -> tensor<16xf32>
      %13 = func.call @dynamic_index_in_dim_2(%iterArg_5, %11) : (tensor<3x16x16xf32>, tensor<i32>) -> tensor<16x16xf32>
      %14 = func.call @dynamic_index_in_dim(%iterArg_6, %11) : (tensor<3x16x32xf32>, tensor<i32>) -> tensor<16x32xf32>
      %15 = func.call @dynamic_index_in_dim_0(%iterArg_7, %11) : (tensor<3x32x16xf32>, tensor<i32>) -> tensor<32x16xf32>
      %16:3 = func.call @closed_call_3(%iterArg_9, %12, %13, %14, %15) : (tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>)
      %17 = func.call @dynamic_update_index_in_dim_4(%iterArg_10, %16#1, %11) : (tensor<3x16x32xf32>, tensor<16x32xf32>, tensor<i32>) -> tensor<3x16x32xf32>
      %18 = func.call @dynamic_update_index_in_dim_5(%iterArg_11, %16#2, %11) : (tensor<3x32x16xf32>, tensor<32x16xf32>, tensor<i32>) -> tensor<3x32x16xf32>
      %c_14 = stablehlo.constant dense<1> : tensor<i32>
      %19 = stablehlo.add %iterArg_8, %c_14 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_5, %iterArg_6, %iterArg_7, %19, %16#0, %17, %18 : tensor<3x16xf32>, tensor<3x16x16xf32>, tensor<3x16x32xf32>, tensor<3x32x16xf32>, tensor<i32>, tensor<16x16xf32>, tensor<3x16x32xf32>, tensor<3x32x16xf32>
    }
    return %9#6, %9#7 : tensor<3x16x32xf32>, tensor<3x32x16xf32>
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
  func.func private @closed_call(%arg0: tensor<16x16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %1 = stablehlo.tanh %0 : tensor<16x32xf32>
    %2 = stablehlo.dot_general %1, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<16x16xf32>
    return %3, %arg0 : tensor<16x16xf32>, tensor<16x16xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3x16x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<i32>) -> tensor<3x16x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<3x16x16xf32>, tensor<1x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x16x16xf32>
    return %1 : tensor<3x16x16xf32>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<3x16xf32>, %arg1: tensor<i32>) -> tensor<16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 16] : (tensor<3x16xf32>, tensor<i32>, tensor<i32>) -> tensor<1x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x16xf32>) -> tensor<16xf32>
    return %1 : tensor<16xf32>
  }
  func.func private @dynamic_index_in_dim_2(%arg0: tensor<3x16x16xf32>, %arg1: tensor<i32>) -> tensor<16x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 16, 16] : (tensor<3x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    return %1 : tensor<16x16xf32>
  }
  func.func private @closed_call_3(%arg0: tensor<16x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<16x32xf32>, %arg4: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) {
    %0:5 = stablehlo.optimization_barrier %arg2, %arg3, %arg4, %arg0, %arg1 : tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %1 = stablehlo.dot_general %0#0, %0#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %2 = stablehlo.tanh %1 : tensor<16x32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<16x32xf32>
    %5 = stablehlo.broadcast_in_dim %0#4, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32>
    %6 = stablehlo.add %0#3, %5 : tensor<16x16xf32>
    %7 = stablehlo.dot_general %6, %2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %8 = stablehlo.transpose %7, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %9 = stablehlo.dot_general %6, %0#2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %10 = stablehlo.multiply %9, %4 : tensor<16x32xf32>
    %11 = stablehlo.multiply %10, %2 : tensor<16x32xf32>
    %12 = stablehlo.add %10, %11 : tensor<16x32xf32>
    %13 = stablehlo.dot_general %12, %0#0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %14 = stablehlo.transpose %13, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %15 = stablehlo.dot_general %12, %0#1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %16 = stablehlo.add %6, %15 : tensor<16x16xf32>
    return %16, %14, %8 : tensor<16x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>
  }
  func.func private @dynamic_update_index_in_dim_4(%arg0: tensor<3x16x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<i32>) -> tensor<3x16x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<3x16x32xf32>, tensor<1x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x16x32xf32>
    return %1 : tensor<3x16x32xf32>
  }
  func.func private @dynamic_update_index_in_dim_5(%arg0: tensor<3x32x16xf32>, %arg1: tensor<32x16xf32>, %arg2: tensor<i32>) -> tensor<3x32x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<32x16xf32>) -> tensor<1x32x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<3x32x16xf32>, tensor<1x32x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x32x16xf32>
    return %1 : tensor<3x32x16xf32>
  }
}
