module @jit_step attributes {mhlo.num_partitions = 64 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=16, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 16 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<80x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 0 : i32}, %arg1: tensor<128256x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>, tf.aliasing_output = 1 : i32}, %arg2: tensor<8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 2 : i32}, %arg3: tensor<80x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 3 : i32}, %arg4: tensor<8192x128256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>, tf.aliasing_output = 4 : i32}, %arg5: tensor<80x28672x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>, tf.aliasing_output = 5 : i32}, %arg6: tensor<80x8192x28672xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>, tf.aliasing_output = 6 : i32}, %arg7: tensor<80x8192x28672xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>, tf.aliasing_output = 7 : i32}, %arg8: tensor<80x8192x1024xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>, tf.aliasing_output = 8 : i32}, %arg9: tensor<80x8192x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>, tf.aliasing_output = 9 : i32}, %arg10: tensor<80x8192x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>, tf.aliasing_output = 10 : i32}, %arg11: tensor<80x8192x1024xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>, tf.aliasing_output = 11 : i32}, %arg12: tensor<64x4096xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg13: tensor<64x4096xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<80x8192xbf16> {jax.result_info = "result[0]['attn_norm']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<128256x8192xbf16> {jax.result_info = "result[0]['embed']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}, tensor<8192xbf16> {jax.result_info = "result[0]['final_norm']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<80x8192xbf16> {jax.result_info = "result[0]['mlp_norm']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8192x128256xbf16> {jax.result_info = "result[0]['unembed']", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, tensor<80x28672x8192xbf16> {jax.result_info = "result[0]['w_down']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>}, tensor<80x8192x28672xbf16> {jax.result_info = "result[0]['w_gate']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, tensor<80x8192x28672xbf16> {jax.result_info = "result[0]['w_up']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, tensor<80x8192x1024xbf16> {jax.result_info = "result[0]['wk']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, tensor<80x8192x8192xbf16> {jax.result_info = "result[0]['wo']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {"data"}]>}, tensor<80x8192x8192xbf16> {jax.result_info = "result[0]['wq']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, tensor<80x8192x1024xbf16> {jax.result_info = "result[0]['wv']", sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {"model"}]>}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0:2 = call @_take(%arg1, %arg12) : (tensor<128256x8192xbf16>, tensor<64x4096xi32>) -> (tensor<64x4096x8192xbf16>, tensor<64x4096x1xi32>)
    %1 = sdy.sharding_constraint %0#0 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %2 = stablehlo.iota dim = 0 : tensor<4096xi32>
    %3 = stablehlo.iota dim = 0 : tensor<64xf32>
    %cst = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %5 = stablehlo.divide %3, %4 : tensor<64xf32>
    %cst_0 = stablehlo.constant dense<5.000000e+05> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %7 = stablehlo.power %6, %5 : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %9 = stablehlo.divide %8, %7 : tensor<64xf32>
    %10 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4096xi32>) -> tensor<4096x1xi32>
    %11 = stablehlo.convert %10 : (tensor<4096x1xi32>) -> tensor<4096x1xf32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<4096x1xf32>) -> tensor<4096x64xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<4096x64xf32>
    %15 = stablehlo.multiply %13, %14 : tensor<4096x64xf32>
    %16 = stablehlo.cosine %15 : tensor<4096x64xf32>
    %17 = stablehlo.sine %15 : tensor<4096x64xf32>
    %18 = stablehlo.broadcast_in_dim %16, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %19 = stablehlo.broadcast_in_dim %17, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %20 = stablehlo.broadcast_in_dim %16, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %21 = stablehlo.broadcast_in_dim %17, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %22 = stablehlo.iota dim = 0 : tensor<64xf32>
    %cst_2 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %24 = stablehlo.divide %22, %23 : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<5.000000e+05> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %26 = stablehlo.power %25, %24 : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %28 = stablehlo.divide %27, %26 : tensor<64xf32>
    %29 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4096xi32>) -> tensor<4096x1xi32>
    %30 = stablehlo.convert %29 : (tensor<4096x1xi32>) -> tensor<4096x1xf32>
    %31 = stablehlo.broadcast_in_dim %28, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %32 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<4096x1xf32>) -> tensor<4096x64xf32>
    %33 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<4096x64xf32>
    %34 = stablehlo.multiply %32, %33 : tensor<4096x64xf32>
    %35 = stablehlo.cosine %34 : tensor<4096x64xf32>
    %36 = stablehlo.sine %34 : tensor<4096x64xf32>
    %37 = stablehlo.broadcast_in_dim %35, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %38 = stablehlo.broadcast_in_dim %36, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %39 = stablehlo.broadcast_in_dim %35, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %40 = stablehlo.broadcast_in_dim %36, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %41 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4096xi32>) -> tensor<4096x1xi32>
    %42 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<4096xi32>) -> tensor<1x4096xi32>
    %43 = stablehlo.broadcast_in_dim %41, dims = [0, 1] : (tensor<4096x1xi32>) -> tensor<4096x4096xi32>
    %44 = stablehlo.broadcast_in_dim %42, dims = [0, 1] : (tensor<1x4096xi32>) -> tensor<4096x4096xi32>
    %45 = stablehlo.compare GE, %43, %44, SIGNED : (tensor<4096x4096xi32>, tensor<4096x4096xi32>) -> tensor<4096x4096xi1>
    %cst_5 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
    %46:2 = call @_where_0(%45, %cst_5) : (tensor<4096x4096xi1>, tensor<f32>) -> (tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>)
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %47 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %48:22 = stablehlo.while(%iterArg = %arg0, %iterArg_43 = %arg3, %iterArg_44 = %arg5, %iterArg_45 = %arg6, %iterArg_46 = %arg7, %iterArg_47 = %arg8, %iterArg_48 = %arg9, %iterArg_49 = %arg10, %iterArg_50 = %arg11, %iterArg_51 = %18, %iterArg_52 = %19, %iterArg_53 = %20, %iterArg_54 = %21, %iterArg_55 = %37, %iterArg_56 = %38, %iterArg_57 = %39, %iterArg_58 = %40, %iterArg_59 = %46#0, %iterArg_60 = %46#1, %iterArg_61 = %c, %iterArg_62 = %1, %iterArg_63 = %47) : tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x64x4096x8192xbf16>
    cond {
      %c_64 = stablehlo.constant dense<80> : tensor<i32>
      %160 = stablehlo.compare LT, %iterArg_61, %c_64, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %160 : tensor<i1>
    } do {
      %160 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_61) : (tensor<80x8192xbf16>, tensor<i32>) -> tensor<8192xbf16>
      %161 = func.call @dynamic_index_in_dim(%iterArg_43, %iterArg_61) : (tensor<80x8192xbf16>, tensor<i32>) -> tensor<8192xbf16>
      %162 = func.call @dynamic_index_in_dim_1(%iterArg_44, %iterArg_61) : (tensor<80x28672x8192xbf16>, tensor<i32>) -> tensor<28672x8192xbf16>
      %163 = func.call @dynamic_index_in_dim_2(%iterArg_45, %iterArg_61) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %164 = func.call @dynamic_index_in_dim_2(%iterArg_46, %iterArg_61) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %165 = func.call @dynamic_index_in_dim_3(%iterArg_47, %iterArg_61) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %166 = func.call @dynamic_index_in_dim_4(%iterArg_48, %iterArg_61) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %167 = func.call @dynamic_index_in_dim_4(%iterArg_49, %iterArg_61) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %168 = func.call @dynamic_index_in_dim_3(%iterArg_50, %iterArg_61) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %169:2 = func.call @closed_call(%iterArg_51, %iterArg_52, %iterArg_53, %iterArg_54, %iterArg_55, %iterArg_56, %iterArg_57, %iterArg_58, %iterArg_59, %iterArg_60, %iterArg_62, %160, %161, %162, %163, %164, %165, %166, %167, %168) : (tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>)
      %170 = func.call @dynamic_update_index_in_dim(%iterArg_63, %169#1, %iterArg_61) : (tensor<80x64x4096x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<i32>) -> tensor<80x64x4096x8192xbf16>
      %c_64 = stablehlo.constant dense<1> : tensor<i32>
      %171 = stablehlo.add %iterArg_61, %c_64 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %iterArg_51, %iterArg_52, %iterArg_53, %iterArg_54, %iterArg_55, %iterArg_56, %iterArg_57, %iterArg_58, %iterArg_59, %iterArg_60, %171, %169#0, %170 : tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x64x4096x8192xbf16>
    }
    %49 = stablehlo.convert %48#20 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %50 = stablehlo.multiply %49, %49 : tensor<64x4096x8192xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.reduce(%50 init: %cst_7) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_8 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %54 = stablehlo.divide %52, %53 : tensor<64x4096x1xf32>
    %cst_9 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %56 = stablehlo.add %54, %55 : tensor<64x4096x1xf32>
    %57 = stablehlo.rsqrt %56 : tensor<64x4096x1xf32>
    %58 = stablehlo.divide %57, %56 : tensor<64x4096x1xf32>
    %cst_10 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %60 = stablehlo.multiply %59, %58 : tensor<64x4096x1xf32>
    %61 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %62 = stablehlo.multiply %49, %61 : tensor<64x4096x8192xf32>
    %63 = stablehlo.convert %arg2 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %66 = stablehlo.multiply %62, %65 : tensor<64x4096x8192xf32>
    %67 = stablehlo.convert %66 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %68 = sdy.sharding_constraint %arg4 <@mesh, [{}, {"model"}]> : tensor<8192x128256xbf16>
    %69 = stablehlo.dot_general %67, %68, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x128256xbf16>) -> tensor<64x4096x128256xbf16>
    %70 = stablehlo.convert %69 : (tensor<64x4096x128256xbf16>) -> tensor<64x4096x128256xf32>
    %71:3 = call @log_softmax(%70) : (tensor<64x4096x128256xf32>) -> (tensor<64x4096x128256xf32>, tensor<64x4096x128256xf32>, tensor<64x4096x1xf32>)
    %72 = call @_one_hot(%arg13) : (tensor<64x4096xi32>) -> tensor<64x4096x128256xf32>
    %73 = stablehlo.multiply %71#0, %72 : tensor<64x4096x128256xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %74 = stablehlo.reduce(%73 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x128256xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %75 = stablehlo.reduce(%74 init: %cst_12) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096xf32>, tensor<f32>) -> tensor<f32>
    %cst_13 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %76 = stablehlo.divide %75, %cst_13 : tensor<f32>
    %77 = stablehlo.negate %76 : tensor<f32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %78 = stablehlo.negate %cst_14 : tensor<f32>
    %cst_15 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %79 = stablehlo.divide %78, %cst_15 : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %79, dims = [] : (tensor<f32>) -> tensor<64x4096xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x128256xf32>
    %82 = stablehlo.multiply %81, %72 : tensor<64x4096x128256xf32>
    %83 = call @log_softmax_6(%71#1, %71#2, %82) : (tensor<64x4096x128256xf32>, tensor<64x4096x1xf32>, tensor<64x4096x128256xf32>) -> tensor<64x4096x128256xf32>
    %84 = stablehlo.convert %83 : (tensor<64x4096x128256xf32>) -> tensor<64x4096x128256xbf16>
    %85 = stablehlo.dot_general %84, %67, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x128256xbf16>, tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16>
    %86 = stablehlo.transpose %85, dims = [1, 0] : (tensor<128256x8192xbf16>) -> tensor<8192x128256xbf16>
    %87 = stablehlo.dot_general %84, %68, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x128256xbf16>, tensor<8192x128256xbf16>) -> tensor<64x4096x8192xbf16>
    %88 = sdy.sharding_constraint %86 <@mesh, [{}, {"model"}]> : tensor<8192x128256xbf16>
    %89 = stablehlo.convert %87 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %90 = stablehlo.multiply %62, %89 : tensor<64x4096x8192xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %91 = stablehlo.reduce(%90 init: %cst_16) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %92 = stablehlo.reshape %91 : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %93 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %94 = stablehlo.multiply %89, %93 : tensor<64x4096x8192xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %95 = stablehlo.reduce(%92 init: %cst_17) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %96 = stablehlo.convert %95 : (tensor<8192xf32>) -> tensor<8192xbf16>
    %97 = stablehlo.multiply %49, %94 : tensor<64x4096x8192xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.reduce(%97 init: %cst_18) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %99 = stablehlo.reshape %98 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %100 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %101 = stablehlo.multiply %94, %100 : tensor<64x4096x8192xf32>
    %102 = stablehlo.multiply %99, %60 : tensor<64x4096x1xf32>
    %cst_19 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %104 = stablehlo.divide %102, %103 : tensor<64x4096x1xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %105 = stablehlo.reduce(%104 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %106 = stablehlo.broadcast_in_dim %105, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x8192xf32>
    %107 = stablehlo.multiply %49, %106 : tensor<64x4096x8192xf32>
    %108 = stablehlo.add %101, %107 : tensor<64x4096x8192xf32>
    %109 = stablehlo.multiply %106, %49 : tensor<64x4096x8192xf32>
    %110 = stablehlo.add %108, %109 : tensor<64x4096x8192xf32>
    %111 = stablehlo.convert %110 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %112 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %113 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %114 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<bf16>) -> tensor<80x28672x8192xbf16>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %115 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %116 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %117 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %118 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %119 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %120 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %c_30 = stablehlo.constant dense<0> : tensor<i32>
    %121:21 = stablehlo.while(%iterArg = %48#21, %iterArg_43 = %arg0, %iterArg_44 = %arg3, %iterArg_45 = %arg5, %iterArg_46 = %arg6, %iterArg_47 = %arg7, %iterArg_48 = %arg8, %iterArg_49 = %arg9, %iterArg_50 = %arg10, %iterArg_51 = %arg11, %iterArg_52 = %c_30, %iterArg_53 = %111, %iterArg_54 = %112, %iterArg_55 = %113, %iterArg_56 = %114, %iterArg_57 = %115, %iterArg_58 = %116, %iterArg_59 = %117, %iterArg_60 = %118, %iterArg_61 = %119, %iterArg_62 = %120) : tensor<80x64x4096x8192xbf16>, tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>
    cond {
      %c_63 = stablehlo.constant dense<80> : tensor<i32>
      %160 = stablehlo.compare LT, %iterArg_52, %c_63, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %160 : tensor<i1>
    } do {
      %c_63 = stablehlo.constant dense<80> : tensor<i32>
      %160 = stablehlo.subtract %c_63, %iterArg_52 : tensor<i32>
      %c_64 = stablehlo.constant dense<1> : tensor<i32>
      %161 = stablehlo.subtract %160, %c_64 : tensor<i32>
      %162 = func.call @dynamic_index_in_dim_7(%iterArg, %161) : (tensor<80x64x4096x8192xbf16>, tensor<i32>) -> tensor<64x4096x8192xbf16>
      %163 = func.call @dynamic_index_in_dim(%iterArg_43, %161) : (tensor<80x8192xbf16>, tensor<i32>) -> tensor<8192xbf16>
      %164 = func.call @dynamic_index_in_dim(%iterArg_44, %161) : (tensor<80x8192xbf16>, tensor<i32>) -> tensor<8192xbf16>
      %165 = func.call @dynamic_index_in_dim_1(%iterArg_45, %161) : (tensor<80x28672x8192xbf16>, tensor<i32>) -> tensor<28672x8192xbf16>
      %166 = func.call @dynamic_index_in_dim_2(%iterArg_46, %161) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %167 = func.call @dynamic_index_in_dim_2(%iterArg_47, %161) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %168 = func.call @dynamic_index_in_dim_3(%iterArg_48, %161) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %169 = func.call @dynamic_index_in_dim_4(%iterArg_49, %161) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %170 = func.call @dynamic_index_in_dim_4(%iterArg_50, %161) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %171 = func.call @dynamic_index_in_dim_3(%iterArg_51, %161) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %172:10 = func.call @closed_call_8(%iterArg_53, %162, %163, %164, %165, %166, %167, %168, %169, %170, %171) : (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>)
      %173 = func.call @dynamic_update_index_in_dim_13(%iterArg_54, %172#1, %161) : (tensor<80x8192xbf16>, tensor<8192xbf16>, tensor<i32>) -> tensor<80x8192xbf16>
      %174 = func.call @dynamic_update_index_in_dim_13(%iterArg_55, %172#2, %161) : (tensor<80x8192xbf16>, tensor<8192xbf16>, tensor<i32>) -> tensor<80x8192xbf16>
      %175 = func.call @dynamic_update_index_in_dim_14(%iterArg_56, %172#3, %161) : (tensor<80x28672x8192xbf16>, tensor<28672x8192xbf16>, tensor<i32>) -> tensor<80x28672x8192xbf16>
      %176 = func.call @dynamic_update_index_in_dim_15(%iterArg_57, %172#4, %161) : (tensor<80x8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<i32>) -> tensor<80x8192x28672xbf16>
      %177 = func.call @dynamic_update_index_in_dim_15(%iterArg_58, %172#5, %161) : (tensor<80x8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<i32>) -> tensor<80x8192x28672xbf16>
      %178 = func.call @dynamic_update_index_in_dim_16(%iterArg_59, %172#6, %161) : (tensor<80x8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<i32>) -> tensor<80x8192x1024xbf16>
      %179 = func.call @dynamic_update_index_in_dim_17(%iterArg_60, %172#7, %161) : (tensor<80x8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<i32>) -> tensor<80x8192x8192xbf16>
      %180 = func.call @dynamic_update_index_in_dim_17(%iterArg_61, %172#8, %161) : (tensor<80x8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<i32>) -> tensor<80x8192x8192xbf16>
      %181 = func.call @dynamic_update_index_in_dim_16(%iterArg_62, %172#9, %161) : (tensor<80x8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<i32>) -> tensor<80x8192x1024xbf16>
      %c_65 = stablehlo.constant dense<1> : tensor<i32>
      %182 = stablehlo.add %iterArg_52, %c_65 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %iterArg_49, %iterArg_50, %iterArg_51, %182, %172#0, %173, %174, %175, %176, %177, %178, %179, %180, %181 : tensor<80x64x4096x8192xbf16>, tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>
    }
    %122 = sdy.sharding_constraint %121#11 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %123 = call @_take_18(%0#1, %122) : (tensor<64x4096x1xi32>, tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16>
    %cst_31 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %124 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %125 = stablehlo.multiply %124, %121#12 : tensor<80x8192xbf16>
    %126 = stablehlo.subtract %arg0, %125 : tensor<80x8192xbf16>
    %cst_32 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %127 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<bf16>) -> tensor<128256x8192xbf16>
    %128 = stablehlo.multiply %127, %123 : tensor<128256x8192xbf16>
    %129 = stablehlo.subtract %arg1, %128 : tensor<128256x8192xbf16>
    %cst_33 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %130 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<bf16>) -> tensor<8192xbf16>
    %131 = stablehlo.multiply %130, %96 : tensor<8192xbf16>
    %132 = stablehlo.subtract %arg2, %131 : tensor<8192xbf16>
    %cst_34 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %133 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %134 = stablehlo.multiply %133, %121#13 : tensor<80x8192xbf16>
    %135 = stablehlo.subtract %arg3, %134 : tensor<80x8192xbf16>
    %cst_35 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %136 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<bf16>) -> tensor<8192x128256xbf16>
    %137 = stablehlo.multiply %136, %88 : tensor<8192x128256xbf16>
    %138 = stablehlo.subtract %arg4, %137 : tensor<8192x128256xbf16>
    %cst_36 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %139 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<bf16>) -> tensor<80x28672x8192xbf16>
    %140 = stablehlo.multiply %139, %121#14 : tensor<80x28672x8192xbf16>
    %141 = stablehlo.subtract %arg5, %140 : tensor<80x28672x8192xbf16>
    %cst_37 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %142 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %143 = stablehlo.multiply %142, %121#15 : tensor<80x8192x28672xbf16>
    %144 = stablehlo.subtract %arg6, %143 : tensor<80x8192x28672xbf16>
    %cst_38 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %145 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %146 = stablehlo.multiply %145, %121#16 : tensor<80x8192x28672xbf16>
    %147 = stablehlo.subtract %arg7, %146 : tensor<80x8192x28672xbf16>
    %cst_39 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %148 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %149 = stablehlo.multiply %148, %121#17 : tensor<80x8192x1024xbf16>
    %150 = stablehlo.subtract %arg8, %149 : tensor<80x8192x1024xbf16>
    %cst_40 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %151 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %152 = stablehlo.multiply %151, %121#18 : tensor<80x8192x8192xbf16>
    %153 = stablehlo.subtract %arg9, %152 : tensor<80x8192x8192xbf16>
    %cst_41 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %154 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %155 = stablehlo.multiply %154, %121#19 : tensor<80x8192x8192xbf16>
    %156 = stablehlo.subtract %arg10, %155 : tensor<80x8192x8192xbf16>
    %cst_42 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %157 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %158 = stablehlo.multiply %157, %121#20 : tensor<80x8192x1024xbf16>
    %159 = stablehlo.subtract %arg11, %158 : tensor<80x8192x1024xbf16>
    return %126, %129, %132, %135, %138, %141, %144, %147, %150, %153, %156, %159, %77 : tensor<80x8192xbf16>, tensor<128256x8192xbf16>, tensor<8192xbf16>, tensor<80x8192xbf16>, tensor<8192x128256xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<f32>
  }
  func.func private @_take(%arg0: tensor<128256x8192xbf16>, %arg1: tensor<64x4096xi32>) -> (tensor<64x4096x8192xbf16>, tensor<64x4096x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<64x4096xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<64x4096xi32>, tensor<64x4096xi32>) -> tensor<64x4096xi1>
    %c_0 = stablehlo.constant dense<128256> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<64x4096xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<64x4096xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<64x4096xi1>, tensor<64x4096xi32>, tensor<64x4096xi32>) -> tensor<64x4096xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<64x4096xi32>) -> tensor<64x4096x1xi32>
    %c_1 = stablehlo.constant dense<128255> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<64x4096x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<64x4096x1xi32>, tensor<64x4096x1xi32>) -> tensor<64x4096x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<64x4096x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<64x4096x1xi32>, tensor<64x4096x1xi32>) -> tensor<64x4096x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<64x4096x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<64x4096x1xi1>, tensor<i1>) -> tensor<64x4096xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8192>}> : (tensor<128256x8192xbf16>, tensor<64x4096x1xi32>) -> tensor<64x4096x8192xbf16>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<64x4096xi1>) -> tensor<64x4096x8192xi1>
    %cst = stablehlo.constant dense<0x7FC0> : tensor<bf16>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<64x4096x8192xbf16>
    %16 = stablehlo.select %14, %13, %15 : tensor<64x4096x8192xi1>, tensor<64x4096x8192xbf16>
    return %16, %5 : tensor<64x4096x8192xbf16>, tensor<64x4096x1xi32>
  }
  func.func private @_where(%arg0: tensor<64x4096xi1>, %arg1: tensor<64x4096xi32>, %arg2: tensor<64x4096xi32>) -> tensor<64x4096xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<64x4096xi1>, tensor<64x4096xi32>
    return %0 : tensor<64x4096xi32>
  }
  func.func private @_where_0(%arg0: tensor<4096x4096xi1>, %arg1: tensor<f32>) -> (tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>) {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [3, 4] : (tensor<4096x4096xi1>) -> tensor<64x8x8x4096x4096xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    return %1, %2 : tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<80x8192xbf16>, %arg1: tensor<i32>) -> tensor<8192xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 8192] : (tensor<80x8192xbf16>, tensor<i32>, tensor<i32>) -> tensor<1x8192xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x8192xbf16>) -> tensor<8192xbf16>
    return %1 : tensor<8192xbf16>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<80x28672x8192xbf16>, %arg1: tensor<i32>) -> tensor<28672x8192xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 28672, 8192] : (tensor<80x28672x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x28672x8192xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x28672x8192xbf16>) -> tensor<28672x8192xbf16>
    return %1 : tensor<28672x8192xbf16>
  }
  func.func private @dynamic_index_in_dim_2(%arg0: tensor<80x8192x28672xbf16>, %arg1: tensor<i32>) -> tensor<8192x28672xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8192, 28672] : (tensor<80x8192x28672xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8192x28672xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x8192x28672xbf16>) -> tensor<8192x28672xbf16>
    return %1 : tensor<8192x28672xbf16>
  }
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<80x8192x1024xbf16>, %arg1: tensor<i32>) -> tensor<8192x1024xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8192, 1024] : (tensor<80x8192x1024xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8192x1024xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x8192x1024xbf16>) -> tensor<8192x1024xbf16>
    return %1 : tensor<8192x1024xbf16>
  }
  func.func private @dynamic_index_in_dim_4(%arg0: tensor<80x8192x8192xbf16>, %arg1: tensor<i32>) -> tensor<8192x8192xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8192, 8192] : (tensor<80x8192x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8192x8192xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x8192x8192xbf16>) -> tensor<8192x8192xbf16>
    return %1 : tensor<8192x8192xbf16>
  }
  func.func private @closed_call(%arg0: tensor<1x1x1x4096x64xf32>, %arg1: tensor<1x1x1x4096x64xf32>, %arg2: tensor<1x1x1x4096x64xf32>, %arg3: tensor<1x1x1x4096x64xf32>, %arg4: tensor<1x1x4096x64xf32>, %arg5: tensor<1x1x4096x64xf32>, %arg6: tensor<1x1x4096x64xf32>, %arg7: tensor<1x1x4096x64xf32>, %arg8: tensor<64x8x8x4096x4096xi1>, %arg9: tensor<64x8x8x4096x4096xf32>, %arg10: tensor<64x4096x8192xbf16>, %arg11: tensor<8192xbf16>, %arg12: tensor<8192xbf16>, %arg13: tensor<28672x8192xbf16>, %arg14: tensor<8192x28672xbf16>, %arg15: tensor<8192x28672xbf16>, %arg16: tensor<8192x1024xbf16>, %arg17: tensor<8192x8192xbf16>, %arg18: tensor<8192x8192xbf16>, %arg19: tensor<8192x1024xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>) {
    %0 = sdy.sharding_constraint %arg18 <@mesh, [{}, {"model"}]> : tensor<8192x8192xbf16>
    %1 = sdy.sharding_constraint %arg16 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %2 = sdy.sharding_constraint %arg19 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %3 = sdy.sharding_constraint %arg17 <@mesh, [{"model"}, {}]> : tensor<8192x8192xbf16>
    %4 = sdy.sharding_constraint %arg14 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %5 = sdy.sharding_constraint %arg15 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %6 = sdy.sharding_constraint %arg13 <@mesh, [{"model"}, {}]> : tensor<28672x8192xbf16>
    %7 = stablehlo.convert %arg10 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<64x4096x8192xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_0 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<64x4096x1xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %14 = stablehlo.add %12, %13 : tensor<64x4096x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<64x4096x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %17 = stablehlo.multiply %7, %16 : tensor<64x4096x8192xf32>
    %18 = stablehlo.convert %arg11 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %21 = stablehlo.multiply %17, %20 : tensor<64x4096x8192xf32>
    %22 = stablehlo.convert %21 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %23 = stablehlo.dot_general %22, %0, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %24 = stablehlo.reshape %23 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %25 = stablehlo.transpose %24, dims = [0, 2, 3, 1, 4] : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %26 = stablehlo.dot_general %22, %1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x1024xbf16>
    %27 = stablehlo.reshape %26 : (tensor<64x4096x1024xbf16>) -> tensor<64x4096x8x128xbf16>
    %28 = stablehlo.transpose %27, dims = [0, 2, 1, 3] : (tensor<64x4096x8x128xbf16>) -> tensor<64x8x4096x128xbf16>
    %29 = stablehlo.dot_general %22, %2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x1024xbf16>
    %30 = stablehlo.reshape %29 : (tensor<64x4096x1024xbf16>) -> tensor<64x4096x8x128xbf16>
    %31 = stablehlo.transpose %30, dims = [0, 2, 1, 3] : (tensor<64x4096x8x128xbf16>) -> tensor<64x8x4096x128xbf16>
    %32 = stablehlo.convert %25 : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %33 = stablehlo.slice %32 [0:64, 0:8, 0:8, 0:4096, 0:64] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %34 = stablehlo.slice %32 [0:64, 0:8, 0:8, 0:4096, 64:128] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %35 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %36 = stablehlo.multiply %33, %35 : tensor<64x8x8x4096x64xf32>
    %37 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %38 = stablehlo.multiply %34, %37 : tensor<64x8x8x4096x64xf32>
    %39 = stablehlo.subtract %36, %38 : tensor<64x8x8x4096x64xf32>
    %40 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %41 = stablehlo.multiply %34, %40 : tensor<64x8x8x4096x64xf32>
    %42 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %43 = stablehlo.multiply %33, %42 : tensor<64x8x8x4096x64xf32>
    %44 = stablehlo.add %41, %43 : tensor<64x8x8x4096x64xf32>
    %45 = stablehlo.concatenate %39, %44, dim = 4 : (tensor<64x8x8x4096x64xf32>, tensor<64x8x8x4096x64xf32>) -> tensor<64x8x8x4096x128xf32>
    %46 = stablehlo.convert %45 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %47 = stablehlo.convert %28 : (tensor<64x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %48 = stablehlo.slice %47 [0:64, 0:8, 0:4096, 0:64] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %49 = stablehlo.slice %47 [0:64, 0:8, 0:4096, 64:128] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %50 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %51 = stablehlo.multiply %48, %50 : tensor<64x8x4096x64xf32>
    %52 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %53 = stablehlo.multiply %49, %52 : tensor<64x8x4096x64xf32>
    %54 = stablehlo.subtract %51, %53 : tensor<64x8x4096x64xf32>
    %55 = stablehlo.broadcast_in_dim %arg6, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %56 = stablehlo.multiply %49, %55 : tensor<64x8x4096x64xf32>
    %57 = stablehlo.broadcast_in_dim %arg7, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %58 = stablehlo.multiply %48, %57 : tensor<64x8x4096x64xf32>
    %59 = stablehlo.add %56, %58 : tensor<64x8x4096x64xf32>
    %60 = stablehlo.concatenate %54, %59, dim = 3 : (tensor<64x8x4096x64xf32>, tensor<64x8x4096x64xf32>) -> tensor<64x8x4096x128xf32>
    %61 = stablehlo.convert %60 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %62 = stablehlo.dot_general %46, %61, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x4096xf32>
    %cst_2 = stablehlo.constant dense<11.3137083> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %64 = stablehlo.divide %62, %63 : tensor<64x8x8x4096x4096xf32>
    %65 = call @_where_5(%64, %arg8, %arg9) : (tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %66 = stablehlo.reduce(%65 init: %cst_3) applies stablehlo.maximum across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096xf32>
    %68 = stablehlo.maximum %67, %66 : tensor<64x8x8x4096xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %71 = stablehlo.subtract %65, %70 : tensor<64x8x8x4096x4096xf32>
    %72 = stablehlo.exponential %71 : tensor<64x8x8x4096x4096xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %73 = stablehlo.reduce(%72 init: %cst_5) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %76 = stablehlo.divide %72, %75 : tensor<64x8x8x4096x4096xf32>
    %77 = stablehlo.convert %76 : (tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xbf16>
    %78 = stablehlo.dot_general %77, %31, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %79 = stablehlo.transpose %78, dims = [0, 3, 1, 2, 4] : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %80 = stablehlo.reshape %79 : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x4096x8192xbf16>
    %81 = stablehlo.dot_general %80, %3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %82 = stablehlo.add %arg10, %81 : tensor<64x4096x8192xbf16>
    %83 = sdy.sharding_constraint %82 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %84 = stablehlo.convert %83 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %85 = stablehlo.multiply %84, %84 : tensor<64x4096x8192xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %86 = stablehlo.reduce(%85 init: %cst_6) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_7 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %89 = stablehlo.divide %87, %88 : tensor<64x4096x1xf32>
    %cst_8 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %91 = stablehlo.add %89, %90 : tensor<64x4096x1xf32>
    %92 = stablehlo.rsqrt %91 : tensor<64x4096x1xf32>
    %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %94 = stablehlo.multiply %84, %93 : tensor<64x4096x8192xf32>
    %95 = stablehlo.convert %arg12 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %98 = stablehlo.multiply %94, %97 : tensor<64x4096x8192xf32>
    %99 = stablehlo.convert %98 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %100 = stablehlo.dot_general %99, %4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %101 = call @silu(%100) : (tensor<64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %102 = stablehlo.dot_general %99, %5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %103 = stablehlo.multiply %101, %102 : tensor<64x4096x28672xbf16>
    %104 = stablehlo.dot_general %103, %6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<28672x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %105 = stablehlo.add %83, %104 : tensor<64x4096x8192xbf16>
    %106 = sdy.sharding_constraint %105 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    return %106, %arg10 : tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>
  }
  func.func private @_where_5(%arg0: tensor<64x8x8x4096x4096xf32>, %arg1: tensor<64x8x8x4096x4096xi1>, %arg2: tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32> {
    %0 = stablehlo.select %arg1, %arg0, %arg2 : tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>
    return %0 : tensor<64x8x8x4096x4096xf32>
  }
  func.func private @silu(%arg0: tensor<64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16> {
    %0 = stablehlo.negate %arg0 : tensor<64x4096x28672xbf16>
    %1 = stablehlo.exponential %0 : tensor<64x4096x28672xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %3 = stablehlo.add %2, %1 : tensor<64x4096x28672xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %5 = stablehlo.divide %4, %3 : tensor<64x4096x28672xbf16>
    %6 = stablehlo.multiply %arg0, %5 : tensor<64x4096x28672xbf16>
    return %6 : tensor<64x4096x28672xbf16>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<80x64x4096x8192xbf16>, %arg1: tensor<64x4096x8192xbf16>, %arg2: tensor<i32>) -> tensor<80x64x4096x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x4096x8192xbf16>) -> tensor<1x64x4096x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<80x64x4096x8192xbf16>, tensor<1x64x4096x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x4096x8192xbf16>
    return %1 : tensor<80x64x4096x8192xbf16>
  }
  func.func private @log_softmax(%arg0: tensor<64x4096x128256xf32>) -> (tensor<64x4096x128256xf32>, tensor<64x4096x128256xf32>, tensor<64x4096x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<64x4096x128256xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x4096xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<64x4096xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x128256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<64x4096x128256xf32>
    %6 = stablehlo.exponential %5 : tensor<64x4096x128256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x128256xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %9 = stablehlo.log %8 : tensor<64x4096x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x128256xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<64x4096x128256xf32>
    return %11, %6, %8 : tensor<64x4096x128256xf32>, tensor<64x4096x128256xf32>, tensor<64x4096x1xf32>
  }
  func.func private @_one_hot(%arg0: tensor<64x4096xi32>) -> tensor<64x4096x128256xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<64x4096xi32>) -> tensor<64x4096x1xi32>
    %1 = stablehlo.iota dim = 2 : tensor<1x1x128256xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2] : (tensor<64x4096x1xi32>) -> tensor<64x4096x128256xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2] : (tensor<1x1x128256xi32>) -> tensor<64x4096x128256xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<64x4096x128256xi32>, tensor<64x4096x128256xi32>) -> tensor<64x4096x128256xi1>
    %5 = stablehlo.convert %4 : (tensor<64x4096x128256xi1>) -> tensor<64x4096x128256xf32>
    return %5 : tensor<64x4096x128256xf32>
  }
  func.func private @log_softmax_6(%arg0: tensor<64x4096x128256xf32>, %arg1: tensor<64x4096x1xf32>, %arg2: tensor<64x4096x128256xf32>) -> tensor<64x4096x128256xf32> {
    %0 = stablehlo.negate %arg2 : tensor<64x4096x128256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x128256xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %2 = stablehlo.reshape %1 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<64x4096x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x128256xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<64x4096x128256xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<64x4096x128256xf32>
    return %7 : tensor<64x4096x128256xf32>
  }
  func.func private @dynamic_index_in_dim_7(%arg0: tensor<80x64x4096x8192xbf16>, %arg1: tensor<i32>) -> tensor<64x4096x8192xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 4096, 8192] : (tensor<80x64x4096x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4096x8192xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x4096x8192xbf16>) -> tensor<64x4096x8192xbf16>
    return %1 : tensor<64x4096x8192xbf16>
  }
  func.func private @closed_call_8(%arg0: tensor<64x4096x8192xbf16>, %arg1: tensor<64x4096x8192xbf16>, %arg2: tensor<8192xbf16>, %arg3: tensor<8192xbf16>, %arg4: tensor<28672x8192xbf16>, %arg5: tensor<8192x28672xbf16>, %arg6: tensor<8192x28672xbf16>, %arg7: tensor<8192x1024xbf16>, %arg8: tensor<8192x8192xbf16>, %arg9: tensor<8192x8192xbf16>, %arg10: tensor<8192x1024xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) {
    %0 = sdy.sharding_constraint %arg9 <@mesh, [{}, {"model"}]> : tensor<8192x8192xbf16>
    %1 = sdy.sharding_constraint %arg7 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %2 = sdy.sharding_constraint %arg10 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %3 = sdy.sharding_constraint %arg8 <@mesh, [{"model"}, {}]> : tensor<8192x8192xbf16>
    %4 = sdy.sharding_constraint %arg5 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %5 = sdy.sharding_constraint %arg6 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %6 = sdy.sharding_constraint %arg4 <@mesh, [{"model"}, {}]> : tensor<28672x8192xbf16>
    %7 = stablehlo.convert %arg1 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<64x4096x8192xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_0 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<64x4096x1xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %14 = stablehlo.add %12, %13 : tensor<64x4096x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<64x4096x1xf32>
    %16 = stablehlo.divide %15, %14 : tensor<64x4096x1xf32>
    %cst_2 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %18 = stablehlo.multiply %17, %16 : tensor<64x4096x1xf32>
    %19 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %20 = stablehlo.multiply %7, %19 : tensor<64x4096x8192xf32>
    %21 = stablehlo.convert %arg2 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %24 = stablehlo.multiply %20, %23 : tensor<64x4096x8192xf32>
    %25 = stablehlo.convert %24 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %26 = stablehlo.dot_general %25, %0, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %27 = stablehlo.reshape %26 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %28 = stablehlo.transpose %27, dims = [0, 2, 3, 1, 4] : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %29 = stablehlo.dot_general %25, %1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x1024xbf16>
    %30 = stablehlo.reshape %29 : (tensor<64x4096x1024xbf16>) -> tensor<64x4096x8x128xbf16>
    %31 = stablehlo.transpose %30, dims = [0, 2, 1, 3] : (tensor<64x4096x8x128xbf16>) -> tensor<64x8x4096x128xbf16>
    %32 = stablehlo.dot_general %25, %2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x1024xbf16>
    %33 = stablehlo.reshape %32 : (tensor<64x4096x1024xbf16>) -> tensor<64x4096x8x128xbf16>
    %34 = stablehlo.transpose %33, dims = [0, 2, 1, 3] : (tensor<64x4096x8x128xbf16>) -> tensor<64x8x4096x128xbf16>
    %35 = stablehlo.iota dim = 0 : tensor<4096xi32>
    %36 = stablehlo.iota dim = 0 : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %38 = stablehlo.divide %36, %37 : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<5.000000e+05> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %40 = stablehlo.power %39, %38 : tensor<64xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %42 = stablehlo.divide %41, %40 : tensor<64xf32>
    %43 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4096xi32>) -> tensor<4096x1xi32>
    %44 = stablehlo.convert %43 : (tensor<4096x1xi32>) -> tensor<4096x1xf32>
    %45 = stablehlo.broadcast_in_dim %42, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %46 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<4096x1xf32>) -> tensor<4096x64xf32>
    %47 = stablehlo.broadcast_in_dim %45, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<4096x64xf32>
    %48 = stablehlo.multiply %46, %47 : tensor<4096x64xf32>
    %49 = stablehlo.cosine %48 : tensor<4096x64xf32>
    %50 = stablehlo.sine %48 : tensor<4096x64xf32>
    %51 = stablehlo.convert %28 : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %52 = stablehlo.slice %51 [0:64, 0:8, 0:8, 0:4096, 0:64] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %53 = stablehlo.slice %51 [0:64, 0:8, 0:8, 0:4096, 64:128] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %54 = stablehlo.broadcast_in_dim %49, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %56 = stablehlo.multiply %52, %55 : tensor<64x8x8x4096x64xf32>
    %57 = stablehlo.broadcast_in_dim %50, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %59 = stablehlo.multiply %53, %58 : tensor<64x8x8x4096x64xf32>
    %60 = stablehlo.subtract %56, %59 : tensor<64x8x8x4096x64xf32>
    %61 = stablehlo.broadcast_in_dim %49, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %63 = stablehlo.multiply %53, %62 : tensor<64x8x8x4096x64xf32>
    %64 = stablehlo.broadcast_in_dim %50, dims = [3, 4] : (tensor<4096x64xf32>) -> tensor<1x1x1x4096x64xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %66 = stablehlo.multiply %52, %65 : tensor<64x8x8x4096x64xf32>
    %67 = stablehlo.add %63, %66 : tensor<64x8x8x4096x64xf32>
    %68 = stablehlo.concatenate %60, %67, dim = 4 : (tensor<64x8x8x4096x64xf32>, tensor<64x8x8x4096x64xf32>) -> tensor<64x8x8x4096x128xf32>
    %69 = stablehlo.convert %68 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %70 = stablehlo.iota dim = 0 : tensor<64xf32>
    %cst_6 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %72 = stablehlo.divide %70, %71 : tensor<64xf32>
    %cst_7 = stablehlo.constant dense<5.000000e+05> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %74 = stablehlo.power %73, %72 : tensor<64xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %76 = stablehlo.divide %75, %74 : tensor<64xf32>
    %77 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4096xi32>) -> tensor<4096x1xi32>
    %78 = stablehlo.convert %77 : (tensor<4096x1xi32>) -> tensor<4096x1xf32>
    %79 = stablehlo.broadcast_in_dim %76, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %80 = stablehlo.broadcast_in_dim %78, dims = [0, 1] : (tensor<4096x1xf32>) -> tensor<4096x64xf32>
    %81 = stablehlo.broadcast_in_dim %79, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<4096x64xf32>
    %82 = stablehlo.multiply %80, %81 : tensor<4096x64xf32>
    %83 = stablehlo.cosine %82 : tensor<4096x64xf32>
    %84 = stablehlo.sine %82 : tensor<4096x64xf32>
    %85 = stablehlo.convert %31 : (tensor<64x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %86 = stablehlo.slice %85 [0:64, 0:8, 0:4096, 0:64] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %87 = stablehlo.slice %85 [0:64, 0:8, 0:4096, 64:128] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %88 = stablehlo.broadcast_in_dim %83, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %90 = stablehlo.multiply %86, %89 : tensor<64x8x4096x64xf32>
    %91 = stablehlo.broadcast_in_dim %84, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %93 = stablehlo.multiply %87, %92 : tensor<64x8x4096x64xf32>
    %94 = stablehlo.subtract %90, %93 : tensor<64x8x4096x64xf32>
    %95 = stablehlo.broadcast_in_dim %83, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %97 = stablehlo.multiply %87, %96 : tensor<64x8x4096x64xf32>
    %98 = stablehlo.broadcast_in_dim %84, dims = [2, 3] : (tensor<4096x64xf32>) -> tensor<1x1x4096x64xf32>
    %99 = stablehlo.broadcast_in_dim %98, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %100 = stablehlo.multiply %86, %99 : tensor<64x8x4096x64xf32>
    %101 = stablehlo.add %97, %100 : tensor<64x8x4096x64xf32>
    %102 = stablehlo.concatenate %94, %101, dim = 3 : (tensor<64x8x4096x64xf32>, tensor<64x8x4096x64xf32>) -> tensor<64x8x4096x128xf32>
    %103 = stablehlo.convert %102 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %104 = stablehlo.dot_general %69, %103, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x4096xf32>
    %cst_9 = stablehlo.constant dense<11.3137083> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %106 = stablehlo.divide %104, %105 : tensor<64x8x8x4096x4096xf32>
    %107 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<4096xi32>) -> tensor<4096x1xi32>
    %108 = stablehlo.broadcast_in_dim %35, dims = [1] : (tensor<4096xi32>) -> tensor<1x4096xi32>
    %109 = stablehlo.broadcast_in_dim %107, dims = [0, 1] : (tensor<4096x1xi32>) -> tensor<4096x4096xi32>
    %110 = stablehlo.broadcast_in_dim %108, dims = [0, 1] : (tensor<1x4096xi32>) -> tensor<4096x4096xi32>
    %111 = stablehlo.compare GE, %109, %110, SIGNED : (tensor<4096x4096xi32>, tensor<4096x4096xi32>) -> tensor<4096x4096xi1>
    %cst_10 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
    %112:2 = call @_where_9(%111, %106, %cst_10) : (tensor<4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> (tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x4096xi1>)
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %113 = stablehlo.reduce(%112#0 init: %cst_11) applies stablehlo.maximum across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %114 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096xf32>
    %115 = stablehlo.maximum %114, %113 : tensor<64x8x8x4096xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %117 = stablehlo.broadcast_in_dim %116, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %118 = stablehlo.subtract %112#0, %117 : tensor<64x8x8x4096x4096xf32>
    %119 = stablehlo.exponential %118 : tensor<64x8x8x4096x4096xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %120 = stablehlo.reduce(%119 init: %cst_13) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %121 = stablehlo.broadcast_in_dim %120, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %123 = stablehlo.divide %119, %122 : tensor<64x8x8x4096x4096xf32>
    %124 = stablehlo.multiply %121, %121 : tensor<64x8x8x4096x1xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x1xf32>
    %126 = stablehlo.divide %125, %124 : tensor<64x8x8x4096x1xf32>
    %127 = stablehlo.convert %123 : (tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xbf16>
    %128 = stablehlo.dot_general %127, %34, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %129 = stablehlo.transpose %128, dims = [0, 3, 1, 2, 4] : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %130 = stablehlo.reshape %129 : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x4096x8192xbf16>
    %131 = stablehlo.dot_general %130, %3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %132 = stablehlo.add %arg1, %131 : tensor<64x4096x8192xbf16>
    %133 = sdy.sharding_constraint %132 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %134 = stablehlo.convert %133 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %135 = stablehlo.multiply %134, %134 : tensor<64x4096x8192xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.reduce(%135 init: %cst_15) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %137 = stablehlo.broadcast_in_dim %136, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_16 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %139 = stablehlo.divide %137, %138 : tensor<64x4096x1xf32>
    %cst_17 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %141 = stablehlo.add %139, %140 : tensor<64x4096x1xf32>
    %142 = stablehlo.rsqrt %141 : tensor<64x4096x1xf32>
    %143 = stablehlo.divide %142, %141 : tensor<64x4096x1xf32>
    %cst_18 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %145 = stablehlo.multiply %144, %143 : tensor<64x4096x1xf32>
    %146 = stablehlo.broadcast_in_dim %142, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %147 = stablehlo.multiply %134, %146 : tensor<64x4096x8192xf32>
    %148 = stablehlo.convert %arg3 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %149 = stablehlo.broadcast_in_dim %148, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %151 = stablehlo.multiply %147, %150 : tensor<64x4096x8192xf32>
    %152 = stablehlo.convert %151 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %153 = stablehlo.dot_general %152, %4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %154:3 = call @silu_10(%153) : (tensor<64x4096x28672xbf16>) -> (tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>)
    %155 = stablehlo.dot_general %152, %5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %156 = stablehlo.multiply %154#0, %155 : tensor<64x4096x28672xbf16>
    %157 = sdy.sharding_constraint %arg0 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %158 = stablehlo.dot_general %157, %156, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<64x4096x28672xbf16>) -> tensor<8192x28672xbf16>
    %159 = stablehlo.transpose %158, dims = [1, 0] : (tensor<8192x28672xbf16>) -> tensor<28672x8192xbf16>
    %160 = stablehlo.dot_general %157, %6, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<28672x8192xbf16>) -> tensor<64x4096x28672xbf16>
    %161 = stablehlo.multiply %154#0, %160 : tensor<64x4096x28672xbf16>
    %162 = stablehlo.multiply %160, %155 : tensor<64x4096x28672xbf16>
    %163 = stablehlo.dot_general %161, %152, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<64x4096x8192xbf16>) -> tensor<28672x8192xbf16>
    %164 = stablehlo.transpose %163, dims = [1, 0] : (tensor<28672x8192xbf16>) -> tensor<8192x28672xbf16>
    %165 = stablehlo.dot_general %161, %5, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x8192xbf16>
    %166 = call @silu_11(%154#1, %153, %154#2, %162) : (tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %167 = stablehlo.dot_general %166, %152, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<64x4096x8192xbf16>) -> tensor<28672x8192xbf16>
    %168 = stablehlo.transpose %167, dims = [1, 0] : (tensor<28672x8192xbf16>) -> tensor<8192x28672xbf16>
    %169 = stablehlo.dot_general %166, %4, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x8192xbf16>
    %170 = stablehlo.add %165, %169 : tensor<64x4096x8192xbf16>
    %171 = stablehlo.convert %170 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %172 = stablehlo.multiply %147, %171 : tensor<64x4096x8192xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %173 = stablehlo.reduce(%172 init: %cst_19) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %174 = stablehlo.reshape %173 : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %175 = stablehlo.broadcast_in_dim %149, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %176 = stablehlo.multiply %171, %175 : tensor<64x4096x8192xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %177 = stablehlo.reduce(%174 init: %cst_20) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %178 = stablehlo.convert %177 : (tensor<8192xf32>) -> tensor<8192xbf16>
    %179 = stablehlo.multiply %134, %176 : tensor<64x4096x8192xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %180 = stablehlo.reduce(%179 init: %cst_21) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %181 = stablehlo.reshape %180 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %182 = stablehlo.broadcast_in_dim %142, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %183 = stablehlo.multiply %176, %182 : tensor<64x4096x8192xf32>
    %184 = stablehlo.multiply %181, %145 : tensor<64x4096x1xf32>
    %cst_22 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %186 = stablehlo.divide %184, %185 : tensor<64x4096x1xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %187 = stablehlo.reduce(%186 init: %cst_23) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %188 = stablehlo.broadcast_in_dim %187, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x8192xf32>
    %189 = stablehlo.multiply %134, %188 : tensor<64x4096x8192xf32>
    %190 = stablehlo.add %183, %189 : tensor<64x4096x8192xf32>
    %191 = stablehlo.multiply %188, %134 : tensor<64x4096x8192xf32>
    %192 = stablehlo.add %190, %191 : tensor<64x4096x8192xf32>
    %193 = stablehlo.convert %192 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %194 = stablehlo.add %157, %193 : tensor<64x4096x8192xbf16>
    %195 = sdy.sharding_constraint %194 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %196 = stablehlo.dot_general %195, %130, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>) -> tensor<8192x8192xbf16>
    %197 = stablehlo.transpose %196, dims = [1, 0] : (tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
    %198 = stablehlo.dot_general %195, %3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %199 = stablehlo.reshape %198 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %200 = stablehlo.transpose %199, dims = [0, 2, 3, 1, 4] : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %201 = stablehlo.dot_general %200, %127, batching_dims = [0, 1] x [0, 1], contracting_dims = [2, 3] x [2, 3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x8x4096x4096xbf16>) -> tensor<64x8x128x4096xbf16>
    %202 = stablehlo.transpose %201, dims = [0, 1, 3, 2] : (tensor<64x8x128x4096xbf16>) -> tensor<64x8x4096x128xbf16>
    %203 = stablehlo.dot_general %200, %34, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x4096xbf16>
    %204 = stablehlo.convert %203 : (tensor<64x8x8x4096x4096xbf16>) -> tensor<64x8x8x4096x4096xf32>
    %205 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %206 = stablehlo.multiply %204, %205 : tensor<64x8x8x4096x4096xf32>
    %207 = stablehlo.multiply %206, %119 : tensor<64x8x8x4096x4096xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %208 = stablehlo.reduce(%207 init: %cst_24) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %209 = stablehlo.reshape %208 : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %210 = stablehlo.negate %209 : tensor<64x8x8x4096x1xf32>
    %211 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %212 = stablehlo.divide %204, %211 : tensor<64x8x8x4096x4096xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %213 = stablehlo.reduce(%210 init: %cst_25) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x1xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %214 = stablehlo.broadcast_in_dim %213, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    %215 = stablehlo.add %212, %214 : tensor<64x8x8x4096x4096xf32>
    %216 = stablehlo.multiply %215, %119 : tensor<64x8x8x4096x4096xf32>
    %217 = call @_where_12(%112#1, %216) : (tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    %cst_26 = stablehlo.constant dense<11.3137083> : tensor<f32>
    %218 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %219 = stablehlo.divide %217, %218 : tensor<64x8x8x4096x4096xf32>
    %220 = stablehlo.dot_general %219, %69, batching_dims = [0, 1] x [0, 1], contracting_dims = [2, 3] x [2, 3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %221 = stablehlo.convert %220 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %222 = stablehlo.dot_general %219, %103, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xf32>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %223 = stablehlo.convert %222 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %224 = stablehlo.convert %221 : (tensor<64x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %225 = stablehlo.slice %224 [0:64, 0:8, 0:4096, 0:64] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %226 = stablehlo.slice %224 [0:64, 0:8, 0:4096, 64:128] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %227 = stablehlo.broadcast_in_dim %98, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %228 = stablehlo.multiply %226, %227 : tensor<64x8x4096x64xf32>
    %229 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %230 = stablehlo.multiply %226, %229 : tensor<64x8x4096x64xf32>
    %231 = stablehlo.negate %225 : tensor<64x8x4096x64xf32>
    %232 = stablehlo.broadcast_in_dim %91, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %233 = stablehlo.multiply %231, %232 : tensor<64x8x4096x64xf32>
    %234 = stablehlo.add %230, %233 : tensor<64x8x4096x64xf32>
    %235 = stablehlo.broadcast_in_dim %88, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %236 = stablehlo.multiply %225, %235 : tensor<64x8x4096x64xf32>
    %237 = stablehlo.add %228, %236 : tensor<64x8x4096x64xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %238 = stablehlo.pad %234, %cst_27, low = [0, 0, 0, 64], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<64x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x4096x128xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %239 = stablehlo.pad %237, %cst_28, low = [0, 0, 0, 0], high = [0, 0, 0, 64], interior = [0, 0, 0, 0] : (tensor<64x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x4096x128xf32>
    %240 = stablehlo.add %238, %239 : tensor<64x8x4096x128xf32>
    %241 = stablehlo.convert %240 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %242 = stablehlo.convert %223 : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %243 = stablehlo.slice %242 [0:64, 0:8, 0:8, 0:4096, 0:64] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %244 = stablehlo.slice %242 [0:64, 0:8, 0:8, 0:4096, 64:128] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %245 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %246 = stablehlo.multiply %244, %245 : tensor<64x8x8x4096x64xf32>
    %247 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %248 = stablehlo.multiply %244, %247 : tensor<64x8x8x4096x64xf32>
    %249 = stablehlo.negate %243 : tensor<64x8x8x4096x64xf32>
    %250 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %251 = stablehlo.multiply %249, %250 : tensor<64x8x8x4096x64xf32>
    %252 = stablehlo.add %248, %251 : tensor<64x8x8x4096x64xf32>
    %253 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %254 = stablehlo.multiply %243, %253 : tensor<64x8x8x4096x64xf32>
    %255 = stablehlo.add %246, %254 : tensor<64x8x8x4096x64xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %256 = stablehlo.pad %252, %cst_29, low = [0, 0, 0, 0, 64], high = [0, 0, 0, 0, 0], interior = [0, 0, 0, 0, 0] : (tensor<64x8x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x8x4096x128xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %257 = stablehlo.pad %255, %cst_30, low = [0, 0, 0, 0, 0], high = [0, 0, 0, 0, 64], interior = [0, 0, 0, 0, 0] : (tensor<64x8x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x8x4096x128xf32>
    %258 = stablehlo.add %256, %257 : tensor<64x8x8x4096x128xf32>
    %259 = stablehlo.convert %258 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %260 = stablehlo.transpose %202, dims = [0, 2, 1, 3] : (tensor<64x8x4096x128xbf16>) -> tensor<64x4096x8x128xbf16>
    %261 = stablehlo.reshape %260 : (tensor<64x4096x8x128xbf16>) -> tensor<64x4096x1024xbf16>
    %262 = stablehlo.dot_general %261, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<64x4096x8192xbf16>) -> tensor<1024x8192xbf16>
    %263 = stablehlo.transpose %262, dims = [1, 0] : (tensor<1024x8192xbf16>) -> tensor<8192x1024xbf16>
    %264 = stablehlo.dot_general %261, %2, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x8192xbf16>
    %265 = stablehlo.transpose %241, dims = [0, 2, 1, 3] : (tensor<64x8x4096x128xbf16>) -> tensor<64x4096x8x128xbf16>
    %266 = stablehlo.reshape %265 : (tensor<64x4096x8x128xbf16>) -> tensor<64x4096x1024xbf16>
    %267 = stablehlo.dot_general %266, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<64x4096x8192xbf16>) -> tensor<1024x8192xbf16>
    %268 = stablehlo.transpose %267, dims = [1, 0] : (tensor<1024x8192xbf16>) -> tensor<8192x1024xbf16>
    %269 = stablehlo.dot_general %266, %1, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x8192xbf16>
    %270 = stablehlo.add %264, %269 : tensor<64x4096x8192xbf16>
    %271 = stablehlo.transpose %259, dims = [0, 3, 1, 2, 4] : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %272 = stablehlo.reshape %271 : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x4096x8192xbf16>
    %273 = stablehlo.dot_general %272, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>) -> tensor<8192x8192xbf16>
    %274 = stablehlo.transpose %273, dims = [1, 0] : (tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
    %275 = stablehlo.dot_general %272, %0, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %276 = stablehlo.add %270, %275 : tensor<64x4096x8192xbf16>
    %277 = stablehlo.convert %276 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %278 = stablehlo.multiply %20, %277 : tensor<64x4096x8192xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %279 = stablehlo.reduce(%278 init: %cst_31) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %280 = stablehlo.reshape %279 : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %281 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %282 = stablehlo.multiply %277, %281 : tensor<64x4096x8192xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %283 = stablehlo.reduce(%280 init: %cst_32) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %284 = stablehlo.convert %283 : (tensor<8192xf32>) -> tensor<8192xbf16>
    %285 = stablehlo.multiply %7, %282 : tensor<64x4096x8192xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %286 = stablehlo.reduce(%285 init: %cst_33) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %287 = stablehlo.reshape %286 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %288 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %289 = stablehlo.multiply %282, %288 : tensor<64x4096x8192xf32>
    %290 = stablehlo.multiply %287, %18 : tensor<64x4096x1xf32>
    %cst_34 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %291 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %292 = stablehlo.divide %290, %291 : tensor<64x4096x1xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %293 = stablehlo.reduce(%292 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %294 = stablehlo.broadcast_in_dim %293, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x8192xf32>
    %295 = stablehlo.multiply %7, %294 : tensor<64x4096x8192xf32>
    %296 = stablehlo.add %289, %295 : tensor<64x4096x8192xf32>
    %297 = stablehlo.multiply %294, %7 : tensor<64x4096x8192xf32>
    %298 = stablehlo.add %296, %297 : tensor<64x4096x8192xf32>
    %299 = stablehlo.convert %298 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %300 = stablehlo.add %195, %299 : tensor<64x4096x8192xbf16>
    %301 = sdy.sharding_constraint %159 <@mesh, [{"model"}, {}]> : tensor<28672x8192xbf16>
    %302 = sdy.sharding_constraint %164 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %303 = sdy.sharding_constraint %168 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %304 = sdy.sharding_constraint %197 <@mesh, [{"model"}, {}]> : tensor<8192x8192xbf16>
    %305 = sdy.sharding_constraint %263 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %306 = sdy.sharding_constraint %268 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %307 = sdy.sharding_constraint %274 <@mesh, [{}, {"model"}]> : tensor<8192x8192xbf16>
    return %300, %284, %178, %301, %303, %302, %306, %304, %307, %305 : tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>
  }
  func.func private @_where_9(%arg0: tensor<4096x4096xi1>, %arg1: tensor<64x8x8x4096x4096xf32>, %arg2: tensor<f32>) -> (tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x4096xi1>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [3, 4] : (tensor<4096x4096xi1>) -> tensor<64x8x8x4096x4096xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>
    return %3, %1 : tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x4096xi1>
  }
  func.func private @silu_10(%arg0: tensor<64x4096x28672xbf16>) -> (tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>) {
    %0 = stablehlo.negate %arg0 : tensor<64x4096x28672xbf16>
    %1 = stablehlo.exponential %0 : tensor<64x4096x28672xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %3 = stablehlo.add %2, %1 : tensor<64x4096x28672xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %5 = stablehlo.divide %4, %3 : tensor<64x4096x28672xbf16>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %7 = stablehlo.subtract %6, %5 : tensor<64x4096x28672xbf16>
    %8 = stablehlo.multiply %5, %7 : tensor<64x4096x28672xbf16>
    %9 = stablehlo.multiply %arg0, %5 : tensor<64x4096x28672xbf16>
    return %9, %5, %8 : tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>
  }
  func.func private @silu_11(%arg0: tensor<64x4096x28672xbf16>, %arg1: tensor<64x4096x28672xbf16>, %arg2: tensor<64x4096x28672xbf16>, %arg3: tensor<64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16> {
    %0 = stablehlo.multiply %arg1, %arg3 : tensor<64x4096x28672xbf16>
    %1 = stablehlo.multiply %arg3, %arg0 : tensor<64x4096x28672xbf16>
    %2 = stablehlo.multiply %0, %arg2 : tensor<64x4096x28672xbf16>
    %3 = stablehlo.add %1, %2 : tensor<64x4096x28672xbf16>
    return %3 : tensor<64x4096x28672xbf16>
  }
  func.func private @_where_12(%arg0: tensor<64x8x8x4096x4096xi1>, %arg1: tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>
    return %1 : tensor<64x8x8x4096x4096xf32>
  }
  func.func private @dynamic_update_index_in_dim_13(%arg0: tensor<80x8192xbf16>, %arg1: tensor<8192xbf16>, %arg2: tensor<i32>) -> tensor<80x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8192xbf16>) -> tensor<1x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<80x8192xbf16>, tensor<1x8192xbf16>, tensor<i32>, tensor<i32>) -> tensor<80x8192xbf16>
    return %1 : tensor<80x8192xbf16>
  }
  func.func private @dynamic_update_index_in_dim_14(%arg0: tensor<80x28672x8192xbf16>, %arg1: tensor<28672x8192xbf16>, %arg2: tensor<i32>) -> tensor<80x28672x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<28672x8192xbf16>) -> tensor<1x28672x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x28672x8192xbf16>, tensor<1x28672x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x28672x8192xbf16>
    return %1 : tensor<80x28672x8192xbf16>
  }
  func.func private @dynamic_update_index_in_dim_15(%arg0: tensor<80x8192x28672xbf16>, %arg1: tensor<8192x28672xbf16>, %arg2: tensor<i32>) -> tensor<80x8192x28672xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8192x28672xbf16>) -> tensor<1x8192x28672xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x8192x28672xbf16>, tensor<1x8192x28672xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x8192x28672xbf16>
    return %1 : tensor<80x8192x28672xbf16>
  }
  func.func private @dynamic_update_index_in_dim_16(%arg0: tensor<80x8192x1024xbf16>, %arg1: tensor<8192x1024xbf16>, %arg2: tensor<i32>) -> tensor<80x8192x1024xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8192x1024xbf16>) -> tensor<1x8192x1024xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x8192x1024xbf16>, tensor<1x8192x1024xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x8192x1024xbf16>
    return %1 : tensor<80x8192x1024xbf16>
  }
  func.func private @dynamic_update_index_in_dim_17(%arg0: tensor<80x8192x8192xbf16>, %arg1: tensor<8192x8192xbf16>, %arg2: tensor<i32>) -> tensor<80x8192x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8192x8192xbf16>) -> tensor<1x8192x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x8192x8192xbf16>, tensor<1x8192x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x8192x8192xbf16>
    return %1 : tensor<80x8192x8192xbf16>
  }
  func.func private @_take_18(%arg0: tensor<64x4096x1xi32>, %arg1: tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<128256x8192xbf16>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<bf16>, %arg3: tensor<bf16>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<bf16>
      stablehlo.return %2 : tensor<bf16>
    }) : (tensor<128256x8192xbf16>, tensor<64x4096x1xi32>, tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16>
    return %1 : tensor<128256x8192xbf16>
  }
}
