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
    %47 = call @silu() : () -> tensor<bf16>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<80x64x4096x8192xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<80x64x4096x1xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<80x64x4096x1xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<80x1x1x8192xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<80x64x4096x8192xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %53 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %54 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x8192xbf16>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %55 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %56 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %57 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<80x64x8x4096x128xbf16>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %58 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<bf16>) -> tensor<80x64x8x8x4096x128xbf16>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<80x64x8x8x4096x4096xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<80x64x8x8x4096x1xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<80x64x8x8x4096x1xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %62 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<80x64x8x4096x128xbf16>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %63 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<80x64x8x8x4096x4096xbf16>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %64 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %65 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x8192xbf16>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<80x64x4096x8192xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<80x64x4096x1xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<80x64x4096x1xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<80x1x1x8192xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<80x64x4096x8192xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %71 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %72 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x8192xbf16>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %73 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x28672xbf16>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %74 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x28672xbf16>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %75 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x28672xbf16>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %76 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %77 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x28672xbf16>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %78 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x28672xbf16>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %79 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<bf16>) -> tensor<80x28672x8192xbf16>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %80 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<bf16>) -> tensor<80x64x4096x28672xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %81:55 = stablehlo.while(%iterArg = %arg0, %iterArg_75 = %arg3, %iterArg_76 = %arg5, %iterArg_77 = %arg6, %iterArg_78 = %arg7, %iterArg_79 = %arg8, %iterArg_80 = %arg9, %iterArg_81 = %arg10, %iterArg_82 = %arg11, %iterArg_83 = %18, %iterArg_84 = %19, %iterArg_85 = %20, %iterArg_86 = %21, %iterArg_87 = %37, %iterArg_88 = %38, %iterArg_89 = %39, %iterArg_90 = %40, %iterArg_91 = %46#0, %iterArg_92 = %46#1, %iterArg_93 = %47, %iterArg_94 = %c, %iterArg_95 = %1, %iterArg_96 = %48, %iterArg_97 = %49, %iterArg_98 = %50, %iterArg_99 = %51, %iterArg_100 = %52, %iterArg_101 = %53, %iterArg_102 = %54, %iterArg_103 = %55, %iterArg_104 = %56, %iterArg_105 = %57, %iterArg_106 = %58, %iterArg_107 = %59, %iterArg_108 = %60, %iterArg_109 = %61, %iterArg_110 = %62, %iterArg_111 = %63, %iterArg_112 = %64, %iterArg_113 = %65, %iterArg_114 = %66, %iterArg_115 = %67, %iterArg_116 = %68, %iterArg_117 = %69, %iterArg_118 = %70, %iterArg_119 = %71, %iterArg_120 = %72, %iterArg_121 = %73, %iterArg_122 = %74, %iterArg_123 = %75, %iterArg_124 = %76, %iterArg_125 = %77, %iterArg_126 = %78, %iterArg_127 = %79, %iterArg_128 = %80) : tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<bf16>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x1024xbf16>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xbf16>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x28672x8192xbf16>, tensor<80x64x4096x28672xbf16>
    cond {
      %c_129 = stablehlo.constant dense<80> : tensor<i32>
      %193 = stablehlo.compare LT, %iterArg_94, %c_129, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %193 : tensor<i1>
    } do {
      %193 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_94) : (tensor<80x8192xbf16>, tensor<i32>) -> tensor<8192xbf16>
      %194 = func.call @dynamic_index_in_dim(%iterArg_75, %iterArg_94) : (tensor<80x8192xbf16>, tensor<i32>) -> tensor<8192xbf16>
      %195 = func.call @dynamic_index_in_dim_1(%iterArg_76, %iterArg_94) : (tensor<80x28672x8192xbf16>, tensor<i32>) -> tensor<28672x8192xbf16>
      %196 = func.call @dynamic_index_in_dim_2(%iterArg_77, %iterArg_94) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %197 = func.call @dynamic_index_in_dim_2(%iterArg_78, %iterArg_94) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %198 = func.call @dynamic_index_in_dim_3(%iterArg_79, %iterArg_94) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %199 = func.call @dynamic_index_in_dim_4(%iterArg_80, %iterArg_94) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %200 = func.call @dynamic_index_in_dim_4(%iterArg_81, %iterArg_94) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %201 = func.call @dynamic_index_in_dim_3(%iterArg_82, %iterArg_94) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %202:34 = func.call @closed_call(%iterArg_83, %iterArg_84, %iterArg_85, %iterArg_86, %iterArg_87, %iterArg_88, %iterArg_89, %iterArg_90, %iterArg_91, %iterArg_92, %iterArg_93, %iterArg_95, %193, %194, %195, %196, %197, %198, %199, %200, %201) : (tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<bf16>, tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x128xbf16>, tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x28672xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<28672x8192xbf16>, tensor<64x4096x28672xbf16>)
      %203 = func.call @dynamic_update_index_in_dim(%iterArg_96, %202#1, %iterArg_94) : (tensor<80x64x4096x8192xf32>, tensor<64x4096x8192xf32>, tensor<i32>) -> tensor<80x64x4096x8192xf32>
      %204 = func.call @dynamic_update_index_in_dim_7(%iterArg_97, %202#2, %iterArg_94) : (tensor<80x64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<i32>) -> tensor<80x64x4096x1xf32>
      %205 = func.call @dynamic_update_index_in_dim_7(%iterArg_98, %202#3, %iterArg_94) : (tensor<80x64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<i32>) -> tensor<80x64x4096x1xf32>
      %206 = func.call @dynamic_update_index_in_dim_8(%iterArg_99, %202#4, %iterArg_94) : (tensor<80x1x1x8192xf32>, tensor<1x1x8192xf32>, tensor<i32>) -> tensor<80x1x1x8192xf32>
      %207 = func.call @dynamic_update_index_in_dim(%iterArg_100, %202#5, %iterArg_94) : (tensor<80x64x4096x8192xf32>, tensor<64x4096x8192xf32>, tensor<i32>) -> tensor<80x64x4096x8192xf32>
      %208 = func.call @dynamic_update_index_in_dim_9(%iterArg_101, %202#6, %iterArg_94) : (tensor<80x8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<i32>) -> tensor<80x8192x8192xbf16>
      %209 = func.call @dynamic_update_index_in_dim_10(%iterArg_102, %202#7, %iterArg_94) : (tensor<80x64x4096x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<i32>) -> tensor<80x64x4096x8192xbf16>
      %210 = func.call @dynamic_update_index_in_dim_11(%iterArg_103, %202#8, %iterArg_94) : (tensor<80x8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<i32>) -> tensor<80x8192x1024xbf16>
      %211 = func.call @dynamic_update_index_in_dim_11(%iterArg_104, %202#9, %iterArg_94) : (tensor<80x8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<i32>) -> tensor<80x8192x1024xbf16>
      %212 = func.call @dynamic_update_index_in_dim_12(%iterArg_105, %202#10, %iterArg_94) : (tensor<80x64x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>, tensor<i32>) -> tensor<80x64x8x4096x128xbf16>
      %213 = func.call @dynamic_update_index_in_dim_13(%iterArg_106, %202#11, %iterArg_94) : (tensor<80x64x8x8x4096x128xbf16>, tensor<64x8x8x4096x128xbf16>, tensor<i32>) -> tensor<80x64x8x8x4096x128xbf16>
      %214 = func.call @dynamic_update_index_in_dim_14(%iterArg_107, %202#12, %iterArg_94) : (tensor<80x64x8x8x4096x4096xf32>, tensor<64x8x8x4096x4096xf32>, tensor<i32>) -> tensor<80x64x8x8x4096x4096xf32>
      %215 = func.call @dynamic_update_index_in_dim_15(%iterArg_108, %202#13, %iterArg_94) : (tensor<80x64x8x8x4096x1xf32>, tensor<64x8x8x4096x1xf32>, tensor<i32>) -> tensor<80x64x8x8x4096x1xf32>
      %216 = func.call @dynamic_update_index_in_dim_15(%iterArg_109, %202#14, %iterArg_94) : (tensor<80x64x8x8x4096x1xf32>, tensor<64x8x8x4096x1xf32>, tensor<i32>) -> tensor<80x64x8x8x4096x1xf32>
      %217 = func.call @dynamic_update_index_in_dim_12(%iterArg_110, %202#15, %iterArg_94) : (tensor<80x64x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>, tensor<i32>) -> tensor<80x64x8x4096x128xbf16>
      %218 = func.call @dynamic_update_index_in_dim_16(%iterArg_111, %202#16, %iterArg_94) : (tensor<80x64x8x8x4096x4096xbf16>, tensor<64x8x8x4096x4096xbf16>, tensor<i32>) -> tensor<80x64x8x8x4096x4096xbf16>
      %219 = func.call @dynamic_update_index_in_dim_9(%iterArg_112, %202#17, %iterArg_94) : (tensor<80x8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<i32>) -> tensor<80x8192x8192xbf16>
      %220 = func.call @dynamic_update_index_in_dim_10(%iterArg_113, %202#18, %iterArg_94) : (tensor<80x64x4096x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<i32>) -> tensor<80x64x4096x8192xbf16>
      %221 = func.call @dynamic_update_index_in_dim(%iterArg_114, %202#19, %iterArg_94) : (tensor<80x64x4096x8192xf32>, tensor<64x4096x8192xf32>, tensor<i32>) -> tensor<80x64x4096x8192xf32>
      %222 = func.call @dynamic_update_index_in_dim_7(%iterArg_115, %202#20, %iterArg_94) : (tensor<80x64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<i32>) -> tensor<80x64x4096x1xf32>
      %223 = func.call @dynamic_update_index_in_dim_7(%iterArg_116, %202#21, %iterArg_94) : (tensor<80x64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<i32>) -> tensor<80x64x4096x1xf32>
      %224 = func.call @dynamic_update_index_in_dim_8(%iterArg_117, %202#22, %iterArg_94) : (tensor<80x1x1x8192xf32>, tensor<1x1x8192xf32>, tensor<i32>) -> tensor<80x1x1x8192xf32>
      %225 = func.call @dynamic_update_index_in_dim(%iterArg_118, %202#23, %iterArg_94) : (tensor<80x64x4096x8192xf32>, tensor<64x4096x8192xf32>, tensor<i32>) -> tensor<80x64x4096x8192xf32>
      %226 = func.call @dynamic_update_index_in_dim_17(%iterArg_119, %202#24, %iterArg_94) : (tensor<80x8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<i32>) -> tensor<80x8192x28672xbf16>
      %227 = func.call @dynamic_update_index_in_dim_10(%iterArg_120, %202#25, %iterArg_94) : (tensor<80x64x4096x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<i32>) -> tensor<80x64x4096x8192xbf16>
      %228 = func.call @dynamic_update_index_in_dim_18(%iterArg_121, %202#26, %iterArg_94) : (tensor<80x64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
      %229 = func.call @dynamic_update_index_in_dim_18(%iterArg_122, %202#27, %iterArg_94) : (tensor<80x64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
      %230 = func.call @dynamic_update_index_in_dim_18(%iterArg_123, %202#28, %iterArg_94) : (tensor<80x64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
      %231 = func.call @dynamic_update_index_in_dim_17(%iterArg_124, %202#29, %iterArg_94) : (tensor<80x8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<i32>) -> tensor<80x8192x28672xbf16>
      %232 = func.call @dynamic_update_index_in_dim_18(%iterArg_125, %202#30, %iterArg_94) : (tensor<80x64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
      %233 = func.call @dynamic_update_index_in_dim_18(%iterArg_126, %202#31, %iterArg_94) : (tensor<80x64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
      %234 = func.call @dynamic_update_index_in_dim_19(%iterArg_127, %202#32, %iterArg_94) : (tensor<80x28672x8192xbf16>, tensor<28672x8192xbf16>, tensor<i32>) -> tensor<80x28672x8192xbf16>
      %235 = func.call @dynamic_update_index_in_dim_18(%iterArg_128, %202#33, %iterArg_94) : (tensor<80x64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
      %c_129 = stablehlo.constant dense<1> : tensor<i32>
      %236 = stablehlo.add %iterArg_94, %c_129 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_75, %iterArg_76, %iterArg_77, %iterArg_78, %iterArg_79, %iterArg_80, %iterArg_81, %iterArg_82, %iterArg_83, %iterArg_84, %iterArg_85, %iterArg_86, %iterArg_87, %iterArg_88, %iterArg_89, %iterArg_90, %iterArg_91, %iterArg_92, %iterArg_93, %236, %202#0, %203, %204, %205, %206, %207, %208, %209, %210, %211, %212, %213, %214, %215, %216, %217, %218, %219, %220, %221, %222, %223, %224, %225, %226, %227, %228, %229, %230, %231, %232, %233, %234, %235 : tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>, tensor<bf16>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x1024xbf16>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xbf16>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x28672x8192xbf16>, tensor<80x64x4096x28672xbf16>
    }
    %82 = stablehlo.convert %81#21 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %83 = stablehlo.multiply %82, %82 : tensor<64x4096x8192xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.reduce(%83 init: %cst_39) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_40 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %87 = stablehlo.divide %85, %86 : tensor<64x4096x1xf32>
    %cst_41 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %89 = stablehlo.add %87, %88 : tensor<64x4096x1xf32>
    %90 = stablehlo.rsqrt %89 : tensor<64x4096x1xf32>
    %91 = stablehlo.divide %90, %89 : tensor<64x4096x1xf32>
    %cst_42 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %93 = stablehlo.multiply %92, %91 : tensor<64x4096x1xf32>
    %94 = stablehlo.broadcast_in_dim %90, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %95 = stablehlo.multiply %82, %94 : tensor<64x4096x8192xf32>
    %96 = stablehlo.convert %arg2 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %99 = stablehlo.multiply %95, %98 : tensor<64x4096x8192xf32>
    %100 = stablehlo.convert %99 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %101 = sdy.sharding_constraint %arg4 <@mesh, [{}, {"model"}]> : tensor<8192x128256xbf16>
    %102 = stablehlo.dot_general %100, %101, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x128256xbf16>) -> tensor<64x4096x128256xbf16>
    %103 = stablehlo.convert %102 : (tensor<64x4096x128256xbf16>) -> tensor<64x4096x128256xf32>
    %104:3 = call @log_softmax(%103) : (tensor<64x4096x128256xf32>) -> (tensor<64x4096x128256xf32>, tensor<64x4096x128256xf32>, tensor<64x4096x1xf32>)
    %105 = call @_one_hot(%arg13) : (tensor<64x4096xi32>) -> tensor<64x4096x128256xf32>
    %106 = stablehlo.multiply %104#0, %105 : tensor<64x4096x128256xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %107 = stablehlo.reduce(%106 init: %cst_43) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x128256xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %108 = stablehlo.reduce(%107 init: %cst_44) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096xf32>, tensor<f32>) -> tensor<f32>
    %cst_45 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %109 = stablehlo.divide %108, %cst_45 : tensor<f32>
    %110 = stablehlo.negate %109 : tensor<f32>
    %cst_46 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %111 = stablehlo.negate %cst_46 : tensor<f32>
    %cst_47 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %112 = stablehlo.divide %111, %cst_47 : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %112, dims = [] : (tensor<f32>) -> tensor<64x4096xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x128256xf32>
    %115 = stablehlo.multiply %114, %105 : tensor<64x4096x128256xf32>
    %116 = call @log_softmax_20(%104#1, %104#2, %115) : (tensor<64x4096x128256xf32>, tensor<64x4096x1xf32>, tensor<64x4096x128256xf32>) -> tensor<64x4096x128256xf32>
    %117 = stablehlo.convert %116 : (tensor<64x4096x128256xf32>) -> tensor<64x4096x128256xbf16>
    %118 = stablehlo.dot_general %117, %100, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x128256xbf16>, tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16>
    %119 = stablehlo.transpose %118, dims = [1, 0] : (tensor<128256x8192xbf16>) -> tensor<8192x128256xbf16>
    %120 = stablehlo.dot_general %117, %101, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x128256xbf16>, tensor<8192x128256xbf16>) -> tensor<64x4096x8192xbf16>
    %121 = sdy.sharding_constraint %119 <@mesh, [{}, {"model"}]> : tensor<8192x128256xbf16>
    %122 = stablehlo.convert %120 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %123 = stablehlo.multiply %95, %122 : tensor<64x4096x8192xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.reduce(%123 init: %cst_48) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %125 = stablehlo.reshape %124 : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %126 = stablehlo.broadcast_in_dim %97, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %127 = stablehlo.multiply %122, %126 : tensor<64x4096x8192xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.reduce(%125 init: %cst_49) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %129 = stablehlo.convert %128 : (tensor<8192xf32>) -> tensor<8192xbf16>
    %130 = stablehlo.multiply %82, %127 : tensor<64x4096x8192xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %131 = stablehlo.reduce(%130 init: %cst_50) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %132 = stablehlo.reshape %131 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %133 = stablehlo.broadcast_in_dim %90, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %134 = stablehlo.multiply %127, %133 : tensor<64x4096x8192xf32>
    %135 = stablehlo.multiply %132, %93 : tensor<64x4096x1xf32>
    %cst_51 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %137 = stablehlo.divide %135, %136 : tensor<64x4096x1xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.reduce(%137 init: %cst_52) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %139 = stablehlo.broadcast_in_dim %138, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x8192xf32>
    %140 = stablehlo.multiply %82, %139 : tensor<64x4096x8192xf32>
    %141 = stablehlo.add %134, %140 : tensor<64x4096x8192xf32>
    %142 = stablehlo.multiply %139, %82 : tensor<64x4096x8192xf32>
    %143 = stablehlo.add %141, %142 : tensor<64x4096x8192xf32>
    %144 = stablehlo.convert %143 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %cst_53 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %145 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %146 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %147 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<bf16>) -> tensor<80x28672x8192xbf16>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %148 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %149 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %150 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %151 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %152 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %153 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %c_62 = stablehlo.constant dense<0> : tensor<i32>
    %154:53 = stablehlo.while(%iterArg = %81#22, %iterArg_75 = %81#23, %iterArg_76 = %81#24, %iterArg_77 = %81#25, %iterArg_78 = %81#26, %iterArg_79 = %81#27, %iterArg_80 = %81#28, %iterArg_81 = %81#29, %iterArg_82 = %81#30, %iterArg_83 = %81#31, %iterArg_84 = %81#32, %iterArg_85 = %81#33, %iterArg_86 = %81#34, %iterArg_87 = %81#35, %iterArg_88 = %81#36, %iterArg_89 = %81#37, %iterArg_90 = %81#38, %iterArg_91 = %81#39, %iterArg_92 = %81#40, %iterArg_93 = %81#41, %iterArg_94 = %81#42, %iterArg_95 = %81#43, %iterArg_96 = %81#44, %iterArg_97 = %81#45, %iterArg_98 = %81#46, %iterArg_99 = %81#47, %iterArg_100 = %81#48, %iterArg_101 = %81#49, %iterArg_102 = %81#50, %iterArg_103 = %81#51, %iterArg_104 = %81#52, %iterArg_105 = %81#53, %iterArg_106 = %81#54, %iterArg_107 = %18, %iterArg_108 = %19, %iterArg_109 = %20, %iterArg_110 = %21, %iterArg_111 = %37, %iterArg_112 = %38, %iterArg_113 = %39, %iterArg_114 = %40, %iterArg_115 = %46#0, %iterArg_116 = %c_62, %iterArg_117 = %144, %iterArg_118 = %145, %iterArg_119 = %146, %iterArg_120 = %147, %iterArg_121 = %148, %iterArg_122 = %149, %iterArg_123 = %150, %iterArg_124 = %151, %iterArg_125 = %152, %iterArg_126 = %153) : tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x1024xbf16>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xbf16>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x28672x8192xbf16>, tensor<80x64x4096x28672xbf16>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>
    cond {
      %c_127 = stablehlo.constant dense<80> : tensor<i32>
      %193 = stablehlo.compare LT, %iterArg_116, %c_127, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %193 : tensor<i1>
    } do {
      %c_127 = stablehlo.constant dense<80> : tensor<i32>
      %193 = stablehlo.subtract %c_127, %iterArg_116 : tensor<i32>
      %c_128 = stablehlo.constant dense<1> : tensor<i32>
      %194 = stablehlo.subtract %193, %c_128 : tensor<i32>
      %195 = func.call @dynamic_index_in_dim_21(%iterArg, %194) : (tensor<80x64x4096x8192xf32>, tensor<i32>) -> tensor<64x4096x8192xf32>
      %196 = func.call @dynamic_index_in_dim_22(%iterArg_75, %194) : (tensor<80x64x4096x1xf32>, tensor<i32>) -> tensor<64x4096x1xf32>
      %197 = func.call @dynamic_index_in_dim_22(%iterArg_76, %194) : (tensor<80x64x4096x1xf32>, tensor<i32>) -> tensor<64x4096x1xf32>
      %198 = func.call @dynamic_index_in_dim_23(%iterArg_77, %194) : (tensor<80x1x1x8192xf32>, tensor<i32>) -> tensor<1x1x8192xf32>
      %199 = func.call @dynamic_index_in_dim_21(%iterArg_78, %194) : (tensor<80x64x4096x8192xf32>, tensor<i32>) -> tensor<64x4096x8192xf32>
      %200 = func.call @dynamic_index_in_dim_4(%iterArg_79, %194) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %201 = func.call @dynamic_index_in_dim_24(%iterArg_80, %194) : (tensor<80x64x4096x8192xbf16>, tensor<i32>) -> tensor<64x4096x8192xbf16>
      %202 = func.call @dynamic_index_in_dim_3(%iterArg_81, %194) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %203 = func.call @dynamic_index_in_dim_3(%iterArg_82, %194) : (tensor<80x8192x1024xbf16>, tensor<i32>) -> tensor<8192x1024xbf16>
      %204 = func.call @dynamic_index_in_dim_25(%iterArg_83, %194) : (tensor<80x64x8x4096x128xbf16>, tensor<i32>) -> tensor<64x8x4096x128xbf16>
      %205 = func.call @dynamic_index_in_dim_26(%iterArg_84, %194) : (tensor<80x64x8x8x4096x128xbf16>, tensor<i32>) -> tensor<64x8x8x4096x128xbf16>
      %206 = func.call @dynamic_index_in_dim_27(%iterArg_85, %194) : (tensor<80x64x8x8x4096x4096xf32>, tensor<i32>) -> tensor<64x8x8x4096x4096xf32>
      %207 = func.call @dynamic_index_in_dim_28(%iterArg_86, %194) : (tensor<80x64x8x8x4096x1xf32>, tensor<i32>) -> tensor<64x8x8x4096x1xf32>
      %208 = func.call @dynamic_index_in_dim_28(%iterArg_87, %194) : (tensor<80x64x8x8x4096x1xf32>, tensor<i32>) -> tensor<64x8x8x4096x1xf32>
      %209 = func.call @dynamic_index_in_dim_25(%iterArg_88, %194) : (tensor<80x64x8x4096x128xbf16>, tensor<i32>) -> tensor<64x8x4096x128xbf16>
      %210 = func.call @dynamic_index_in_dim_29(%iterArg_89, %194) : (tensor<80x64x8x8x4096x4096xbf16>, tensor<i32>) -> tensor<64x8x8x4096x4096xbf16>
      %211 = func.call @dynamic_index_in_dim_4(%iterArg_90, %194) : (tensor<80x8192x8192xbf16>, tensor<i32>) -> tensor<8192x8192xbf16>
      %212 = func.call @dynamic_index_in_dim_24(%iterArg_91, %194) : (tensor<80x64x4096x8192xbf16>, tensor<i32>) -> tensor<64x4096x8192xbf16>
      %213 = func.call @dynamic_index_in_dim_21(%iterArg_92, %194) : (tensor<80x64x4096x8192xf32>, tensor<i32>) -> tensor<64x4096x8192xf32>
      %214 = func.call @dynamic_index_in_dim_22(%iterArg_93, %194) : (tensor<80x64x4096x1xf32>, tensor<i32>) -> tensor<64x4096x1xf32>
      %215 = func.call @dynamic_index_in_dim_22(%iterArg_94, %194) : (tensor<80x64x4096x1xf32>, tensor<i32>) -> tensor<64x4096x1xf32>
      %216 = func.call @dynamic_index_in_dim_23(%iterArg_95, %194) : (tensor<80x1x1x8192xf32>, tensor<i32>) -> tensor<1x1x8192xf32>
      %217 = func.call @dynamic_index_in_dim_21(%iterArg_96, %194) : (tensor<80x64x4096x8192xf32>, tensor<i32>) -> tensor<64x4096x8192xf32>
      %218 = func.call @dynamic_index_in_dim_2(%iterArg_97, %194) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %219 = func.call @dynamic_index_in_dim_24(%iterArg_98, %194) : (tensor<80x64x4096x8192xbf16>, tensor<i32>) -> tensor<64x4096x8192xbf16>
      %220 = func.call @dynamic_index_in_dim_30(%iterArg_99, %194) : (tensor<80x64x4096x28672xbf16>, tensor<i32>) -> tensor<64x4096x28672xbf16>
      %221 = func.call @dynamic_index_in_dim_30(%iterArg_100, %194) : (tensor<80x64x4096x28672xbf16>, tensor<i32>) -> tensor<64x4096x28672xbf16>
      %222 = func.call @dynamic_index_in_dim_30(%iterArg_101, %194) : (tensor<80x64x4096x28672xbf16>, tensor<i32>) -> tensor<64x4096x28672xbf16>
      %223 = func.call @dynamic_index_in_dim_2(%iterArg_102, %194) : (tensor<80x8192x28672xbf16>, tensor<i32>) -> tensor<8192x28672xbf16>
      %224 = func.call @dynamic_index_in_dim_30(%iterArg_103, %194) : (tensor<80x64x4096x28672xbf16>, tensor<i32>) -> tensor<64x4096x28672xbf16>
      %225 = func.call @dynamic_index_in_dim_30(%iterArg_104, %194) : (tensor<80x64x4096x28672xbf16>, tensor<i32>) -> tensor<64x4096x28672xbf16>
      %226 = func.call @dynamic_index_in_dim_1(%iterArg_105, %194) : (tensor<80x28672x8192xbf16>, tensor<i32>) -> tensor<28672x8192xbf16>
      %227 = func.call @dynamic_index_in_dim_30(%iterArg_106, %194) : (tensor<80x64x4096x28672xbf16>, tensor<i32>) -> tensor<64x4096x28672xbf16>
      %228:10 = func.call @closed_call_31(%iterArg_107, %iterArg_108, %iterArg_109, %iterArg_110, %iterArg_111, %iterArg_112, %iterArg_113, %iterArg_114, %iterArg_115, %iterArg_117, %195, %196, %197, %198, %199, %200, %201, %202, %203, %204, %205, %206, %207, %208, %209, %210, %211, %212, %213, %214, %215, %216, %217, %218, %219, %220, %221, %222, %223, %224, %225, %226, %227) : (tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x128xbf16>, tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x28672xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<28672x8192xbf16>, tensor<64x4096x28672xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>)
      %229 = func.call @dynamic_update_index_in_dim_34(%iterArg_118, %228#1, %194) : (tensor<80x8192xbf16>, tensor<8192xbf16>, tensor<i32>) -> tensor<80x8192xbf16>
      %230 = func.call @dynamic_update_index_in_dim_34(%iterArg_119, %228#2, %194) : (tensor<80x8192xbf16>, tensor<8192xbf16>, tensor<i32>) -> tensor<80x8192xbf16>
      %231 = func.call @dynamic_update_index_in_dim_19(%iterArg_120, %228#3, %194) : (tensor<80x28672x8192xbf16>, tensor<28672x8192xbf16>, tensor<i32>) -> tensor<80x28672x8192xbf16>
      %232 = func.call @dynamic_update_index_in_dim_17(%iterArg_121, %228#4, %194) : (tensor<80x8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<i32>) -> tensor<80x8192x28672xbf16>
      %233 = func.call @dynamic_update_index_in_dim_17(%iterArg_122, %228#5, %194) : (tensor<80x8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<i32>) -> tensor<80x8192x28672xbf16>
      %234 = func.call @dynamic_update_index_in_dim_11(%iterArg_123, %228#6, %194) : (tensor<80x8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<i32>) -> tensor<80x8192x1024xbf16>
      %235 = func.call @dynamic_update_index_in_dim_9(%iterArg_124, %228#7, %194) : (tensor<80x8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<i32>) -> tensor<80x8192x8192xbf16>
      %236 = func.call @dynamic_update_index_in_dim_9(%iterArg_125, %228#8, %194) : (tensor<80x8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<i32>) -> tensor<80x8192x8192xbf16>
      %237 = func.call @dynamic_update_index_in_dim_11(%iterArg_126, %228#9, %194) : (tensor<80x8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<i32>) -> tensor<80x8192x1024xbf16>
      %c_129 = stablehlo.constant dense<1> : tensor<i32>
      %238 = stablehlo.add %iterArg_116, %c_129 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_75, %iterArg_76, %iterArg_77, %iterArg_78, %iterArg_79, %iterArg_80, %iterArg_81, %iterArg_82, %iterArg_83, %iterArg_84, %iterArg_85, %iterArg_86, %iterArg_87, %iterArg_88, %iterArg_89, %iterArg_90, %iterArg_91, %iterArg_92, %iterArg_93, %iterArg_94, %iterArg_95, %iterArg_96, %iterArg_97, %iterArg_98, %iterArg_99, %iterArg_100, %iterArg_101, %iterArg_102, %iterArg_103, %iterArg_104, %iterArg_105, %iterArg_106, %iterArg_107, %iterArg_108, %iterArg_109, %iterArg_110, %iterArg_111, %iterArg_112, %iterArg_113, %iterArg_114, %iterArg_115, %238, %228#0, %229, %230, %231, %232, %233, %234, %235, %236, %237 : tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x1024xbf16>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x8x4096x1xf32>, tensor<80x64x8x4096x128xbf16>, tensor<80x64x8x8x4096x4096xbf16>, tensor<80x8192x8192xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x8192xf32>, tensor<80x64x4096x1xf32>, tensor<80x64x4096x1xf32>, tensor<80x1x1x8192xf32>, tensor<80x64x4096x8192xf32>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x8192xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x64x4096x28672xbf16>, tensor<80x28672x8192xbf16>, tensor<80x64x4096x28672xbf16>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32>, tensor<64x8x8x4096x4096xi1>, tensor<i32>, tensor<64x4096x8192xbf16>, tensor<80x8192xbf16>, tensor<80x8192xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>
    }
    %155 = sdy.sharding_constraint %154#43 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %156 = call @_take_35(%0#1, %155) : (tensor<64x4096x1xi32>, tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16>
    %cst_63 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %157 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %158 = stablehlo.multiply %157, %154#44 : tensor<80x8192xbf16>
    %159 = stablehlo.subtract %arg0, %158 : tensor<80x8192xbf16>
    %cst_64 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %160 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<bf16>) -> tensor<128256x8192xbf16>
    %161 = stablehlo.multiply %160, %156 : tensor<128256x8192xbf16>
    %162 = stablehlo.subtract %arg1, %161 : tensor<128256x8192xbf16>
    %cst_65 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %163 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<bf16>) -> tensor<8192xbf16>
    %164 = stablehlo.multiply %163, %129 : tensor<8192xbf16>
    %165 = stablehlo.subtract %arg2, %164 : tensor<8192xbf16>
    %cst_66 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %166 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<bf16>) -> tensor<80x8192xbf16>
    %167 = stablehlo.multiply %166, %154#45 : tensor<80x8192xbf16>
    %168 = stablehlo.subtract %arg3, %167 : tensor<80x8192xbf16>
    %cst_67 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %169 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<bf16>) -> tensor<8192x128256xbf16>
    %170 = stablehlo.multiply %169, %121 : tensor<8192x128256xbf16>
    %171 = stablehlo.subtract %arg4, %170 : tensor<8192x128256xbf16>
    %cst_68 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %172 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<bf16>) -> tensor<80x28672x8192xbf16>
    %173 = stablehlo.multiply %172, %154#46 : tensor<80x28672x8192xbf16>
    %174 = stablehlo.subtract %arg5, %173 : tensor<80x28672x8192xbf16>
    %cst_69 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %175 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %176 = stablehlo.multiply %175, %154#47 : tensor<80x8192x28672xbf16>
    %177 = stablehlo.subtract %arg6, %176 : tensor<80x8192x28672xbf16>
    %cst_70 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %178 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<bf16>) -> tensor<80x8192x28672xbf16>
    %179 = stablehlo.multiply %178, %154#48 : tensor<80x8192x28672xbf16>
    %180 = stablehlo.subtract %arg7, %179 : tensor<80x8192x28672xbf16>
    %cst_71 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %181 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %182 = stablehlo.multiply %181, %154#49 : tensor<80x8192x1024xbf16>
    %183 = stablehlo.subtract %arg8, %182 : tensor<80x8192x1024xbf16>
    %cst_72 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %184 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %185 = stablehlo.multiply %184, %154#50 : tensor<80x8192x8192xbf16>
    %186 = stablehlo.subtract %arg9, %185 : tensor<80x8192x8192xbf16>
    %cst_73 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %187 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<bf16>) -> tensor<80x8192x8192xbf16>
    %188 = stablehlo.multiply %187, %154#51 : tensor<80x8192x8192xbf16>
    %189 = stablehlo.subtract %arg10, %188 : tensor<80x8192x8192xbf16>
    %cst_74 = stablehlo.constant dense<1.001360e-04> : tensor<bf16>
    %190 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<bf16>) -> tensor<80x8192x1024xbf16>
    %191 = stablehlo.multiply %190, %154#52 : tensor<80x8192x1024xbf16>
    %192 = stablehlo.subtract %arg11, %191 : tensor<80x8192x1024xbf16>
    return %159, %162, %165, %168, %171, %174, %177, %180, %183, %186, %189, %192, %110 : tensor<80x8192xbf16>, tensor<128256x8192xbf16>, tensor<8192xbf16>, tensor<80x8192xbf16>, tensor<8192x128256xbf16>, tensor<80x28672x8192xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x28672xbf16>, tensor<80x8192x1024xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x8192xbf16>, tensor<80x8192x1024xbf16>, tensor<f32>
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
  func.func private @silu() -> tensor<bf16> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    return %cst : tensor<bf16>
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
  func.func private @closed_call(%arg0: tensor<1x1x1x4096x64xf32>, %arg1: tensor<1x1x1x4096x64xf32>, %arg2: tensor<1x1x1x4096x64xf32>, %arg3: tensor<1x1x1x4096x64xf32>, %arg4: tensor<1x1x4096x64xf32>, %arg5: tensor<1x1x4096x64xf32>, %arg6: tensor<1x1x4096x64xf32>, %arg7: tensor<1x1x4096x64xf32>, %arg8: tensor<64x8x8x4096x4096xi1>, %arg9: tensor<64x8x8x4096x4096xf32>, %arg10: tensor<bf16>, %arg11: tensor<64x4096x8192xbf16>, %arg12: tensor<8192xbf16>, %arg13: tensor<8192xbf16>, %arg14: tensor<28672x8192xbf16>, %arg15: tensor<8192x28672xbf16>, %arg16: tensor<8192x28672xbf16>, %arg17: tensor<8192x1024xbf16>, %arg18: tensor<8192x8192xbf16>, %arg19: tensor<8192x8192xbf16>, %arg20: tensor<8192x1024xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x128xbf16>, tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x28672xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<28672x8192xbf16>, tensor<64x4096x28672xbf16>) {
    %0 = sdy.sharding_constraint %arg19 <@mesh, [{}, {"model"}]> : tensor<8192x8192xbf16>
    %1 = sdy.sharding_constraint %arg17 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %2 = sdy.sharding_constraint %arg20 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %3 = sdy.sharding_constraint %arg18 <@mesh, [{"model"}, {}]> : tensor<8192x8192xbf16>
    %4 = sdy.sharding_constraint %arg15 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %5 = sdy.sharding_constraint %arg16 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %6 = sdy.sharding_constraint %arg14 <@mesh, [{"model"}, {}]> : tensor<28672x8192xbf16>
    %7 = stablehlo.convert %arg11 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
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
    %21 = stablehlo.convert %arg12 : (tensor<8192xbf16>) -> tensor<8192xf32>
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
    %35 = stablehlo.convert %28 : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %36 = stablehlo.slice %35 [0:64, 0:8, 0:8, 0:4096, 0:64] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %37 = stablehlo.slice %35 [0:64, 0:8, 0:8, 0:4096, 64:128] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %38 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %39 = stablehlo.multiply %36, %38 : tensor<64x8x8x4096x64xf32>
    %40 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %41 = stablehlo.multiply %37, %40 : tensor<64x8x8x4096x64xf32>
    %42 = stablehlo.subtract %39, %41 : tensor<64x8x8x4096x64xf32>
    %43 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %44 = stablehlo.multiply %37, %43 : tensor<64x8x8x4096x64xf32>
    %45 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %46 = stablehlo.multiply %36, %45 : tensor<64x8x8x4096x64xf32>
    %47 = stablehlo.add %44, %46 : tensor<64x8x8x4096x64xf32>
    %48 = stablehlo.concatenate %42, %47, dim = 4 : (tensor<64x8x8x4096x64xf32>, tensor<64x8x8x4096x64xf32>) -> tensor<64x8x8x4096x128xf32>
    %49 = stablehlo.convert %48 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %50 = stablehlo.convert %31 : (tensor<64x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %51 = stablehlo.slice %50 [0:64, 0:8, 0:4096, 0:64] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %52 = stablehlo.slice %50 [0:64, 0:8, 0:4096, 64:128] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %53 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %54 = stablehlo.multiply %51, %53 : tensor<64x8x4096x64xf32>
    %55 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %56 = stablehlo.multiply %52, %55 : tensor<64x8x4096x64xf32>
    %57 = stablehlo.subtract %54, %56 : tensor<64x8x4096x64xf32>
    %58 = stablehlo.broadcast_in_dim %arg6, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %59 = stablehlo.multiply %52, %58 : tensor<64x8x4096x64xf32>
    %60 = stablehlo.broadcast_in_dim %arg7, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %61 = stablehlo.multiply %51, %60 : tensor<64x8x4096x64xf32>
    %62 = stablehlo.add %59, %61 : tensor<64x8x4096x64xf32>
    %63 = stablehlo.concatenate %57, %62, dim = 3 : (tensor<64x8x4096x64xf32>, tensor<64x8x4096x64xf32>) -> tensor<64x8x4096x128xf32>
    %64 = stablehlo.convert %63 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %65 = stablehlo.dot_general %49, %64, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x4096xf32>
    %cst_3 = stablehlo.constant dense<11.3137083> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %67 = stablehlo.divide %65, %66 : tensor<64x8x8x4096x4096xf32>
    %68 = call @_where_5(%67, %arg8, %arg9) : (tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %69 = stablehlo.reduce(%68 init: %cst_4) applies stablehlo.maximum across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096xf32>
    %71 = stablehlo.maximum %70, %69 : tensor<64x8x8x4096xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %74 = stablehlo.subtract %68, %73 : tensor<64x8x8x4096x4096xf32>
    %75 = stablehlo.exponential %74 : tensor<64x8x8x4096x4096xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.reduce(%75 init: %cst_6) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %79 = stablehlo.divide %75, %78 : tensor<64x8x8x4096x4096xf32>
    %80 = stablehlo.multiply %77, %77 : tensor<64x8x8x4096x1xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x1xf32>
    %82 = stablehlo.divide %81, %80 : tensor<64x8x8x4096x1xf32>
    %83 = stablehlo.convert %79 : (tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xbf16>
    %84 = stablehlo.dot_general %83, %34, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %85 = stablehlo.transpose %84, dims = [0, 3, 1, 2, 4] : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %86 = stablehlo.reshape %85 : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x4096x8192xbf16>
    %87 = stablehlo.dot_general %86, %3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %88 = stablehlo.add %arg11, %87 : tensor<64x4096x8192xbf16>
    %89 = sdy.sharding_constraint %88 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %90 = stablehlo.convert %89 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %91 = stablehlo.multiply %90, %90 : tensor<64x4096x8192xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %92 = stablehlo.reduce(%91 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %cst_9 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %95 = stablehlo.divide %93, %94 : tensor<64x4096x1xf32>
    %cst_10 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %97 = stablehlo.add %95, %96 : tensor<64x4096x1xf32>
    %98 = stablehlo.rsqrt %97 : tensor<64x4096x1xf32>
    %99 = stablehlo.divide %98, %97 : tensor<64x4096x1xf32>
    %cst_11 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<64x4096x1xf32>
    %102 = stablehlo.broadcast_in_dim %98, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %103 = stablehlo.multiply %90, %102 : tensor<64x4096x8192xf32>
    %104 = stablehlo.convert %arg13 : (tensor<8192xbf16>) -> tensor<8192xf32>
    %105 = stablehlo.broadcast_in_dim %104, dims = [2] : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %106 = stablehlo.broadcast_in_dim %105, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %107 = stablehlo.multiply %103, %106 : tensor<64x4096x8192xf32>
    %108 = stablehlo.convert %107 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %109 = stablehlo.dot_general %108, %4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %110:3 = call @silu_6(%109, %arg10) : (tensor<64x4096x28672xbf16>, tensor<bf16>) -> (tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>)
    %111 = stablehlo.dot_general %108, %5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %112 = stablehlo.multiply %110#0, %111 : tensor<64x4096x28672xbf16>
    %113 = stablehlo.dot_general %112, %6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<28672x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %114 = stablehlo.add %89, %113 : tensor<64x4096x8192xbf16>
    %115 = sdy.sharding_constraint %114 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    return %115, %7, %18, %15, %22, %20, %0, %25, %1, %2, %64, %49, %75, %77, %82, %34, %83, %3, %86, %90, %101, %98, %105, %103, %4, %108, %110#1, %110#2, %109, %5, %111, %110#0, %6, %112 : tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x128xbf16>, tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x8x4096x1xf32>, tensor<64x8x4096x128xbf16>, tensor<64x8x8x4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x8192xf32>, tensor<64x4096x1xf32>, tensor<64x4096x1xf32>, tensor<1x1x8192xf32>, tensor<64x4096x8192xf32>, tensor<8192x28672xbf16>, tensor<64x4096x8192xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<28672x8192xbf16>, tensor<64x4096x28672xbf16>
  }
  func.func private @_where_5(%arg0: tensor<64x8x8x4096x4096xf32>, %arg1: tensor<64x8x8x4096x4096xi1>, %arg2: tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32> {
    %0 = stablehlo.select %arg1, %arg0, %arg2 : tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>
    return %0 : tensor<64x8x8x4096x4096xf32>
  }
  func.func private @silu_6(%arg0: tensor<64x4096x28672xbf16>, %arg1: tensor<bf16>) -> (tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>) {
    %0 = stablehlo.negate %arg0 : tensor<64x4096x28672xbf16>
    %1 = stablehlo.exponential %0 : tensor<64x4096x28672xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %3 = stablehlo.add %2, %1 : tensor<64x4096x28672xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %5 = stablehlo.divide %4, %3 : tensor<64x4096x28672xbf16>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<bf16>) -> tensor<64x4096x28672xbf16>
    %7 = stablehlo.subtract %6, %5 : tensor<64x4096x28672xbf16>
    %8 = stablehlo.multiply %5, %7 : tensor<64x4096x28672xbf16>
    %9 = stablehlo.multiply %arg0, %5 : tensor<64x4096x28672xbf16>
    return %9, %8, %5 : tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<80x64x4096x8192xf32>, %arg1: tensor<64x4096x8192xf32>, %arg2: tensor<i32>) -> tensor<80x64x4096x8192xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x4096x8192xf32>) -> tensor<1x64x4096x8192xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<80x64x4096x8192xf32>, tensor<1x64x4096x8192xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x4096x8192xf32>
    return %1 : tensor<80x64x4096x8192xf32>
  }
  func.func private @dynamic_update_index_in_dim_7(%arg0: tensor<80x64x4096x1xf32>, %arg1: tensor<64x4096x1xf32>, %arg2: tensor<i32>) -> tensor<80x64x4096x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x4096x1xf32>) -> tensor<1x64x4096x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<80x64x4096x1xf32>, tensor<1x64x4096x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x4096x1xf32>
    return %1 : tensor<80x64x4096x1xf32>
  }
  func.func private @dynamic_update_index_in_dim_8(%arg0: tensor<80x1x1x8192xf32>, %arg1: tensor<1x1x8192xf32>, %arg2: tensor<i32>) -> tensor<80x1x1x8192xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<1x1x8192xf32>) -> tensor<1x1x1x8192xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<80x1x1x8192xf32>, tensor<1x1x1x8192xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x1x1x8192xf32>
    return %1 : tensor<80x1x1x8192xf32>
  }
  func.func private @dynamic_update_index_in_dim_9(%arg0: tensor<80x8192x8192xbf16>, %arg1: tensor<8192x8192xbf16>, %arg2: tensor<i32>) -> tensor<80x8192x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8192x8192xbf16>) -> tensor<1x8192x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x8192x8192xbf16>, tensor<1x8192x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x8192x8192xbf16>
    return %1 : tensor<80x8192x8192xbf16>
  }
  func.func private @dynamic_update_index_in_dim_10(%arg0: tensor<80x64x4096x8192xbf16>, %arg1: tensor<64x4096x8192xbf16>, %arg2: tensor<i32>) -> tensor<80x64x4096x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x4096x8192xbf16>) -> tensor<1x64x4096x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<80x64x4096x8192xbf16>, tensor<1x64x4096x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x4096x8192xbf16>
    return %1 : tensor<80x64x4096x8192xbf16>
  }
  func.func private @dynamic_update_index_in_dim_11(%arg0: tensor<80x8192x1024xbf16>, %arg1: tensor<8192x1024xbf16>, %arg2: tensor<i32>) -> tensor<80x8192x1024xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8192x1024xbf16>) -> tensor<1x8192x1024xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x8192x1024xbf16>, tensor<1x8192x1024xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x8192x1024xbf16>
    return %1 : tensor<80x8192x1024xbf16>
  }
  func.func private @dynamic_update_index_in_dim_12(%arg0: tensor<80x64x8x4096x128xbf16>, %arg1: tensor<64x8x4096x128xbf16>, %arg2: tensor<i32>) -> tensor<80x64x8x4096x128xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<64x8x4096x128xbf16>) -> tensor<1x64x8x4096x128xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<80x64x8x4096x128xbf16>, tensor<1x64x8x4096x128xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x8x4096x128xbf16>
    return %1 : tensor<80x64x8x4096x128xbf16>
  }
  func.func private @dynamic_update_index_in_dim_13(%arg0: tensor<80x64x8x8x4096x128xbf16>, %arg1: tensor<64x8x8x4096x128xbf16>, %arg2: tensor<i32>) -> tensor<80x64x8x8x4096x128xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4, 5] : (tensor<64x8x8x4096x128xbf16>) -> tensor<1x64x8x8x4096x128xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2, %c_3 : (tensor<80x64x8x8x4096x128xbf16>, tensor<1x64x8x8x4096x128xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x8x8x4096x128xbf16>
    return %1 : tensor<80x64x8x8x4096x128xbf16>
  }
  func.func private @dynamic_update_index_in_dim_14(%arg0: tensor<80x64x8x8x4096x4096xf32>, %arg1: tensor<64x8x8x4096x4096xf32>, %arg2: tensor<i32>) -> tensor<80x64x8x8x4096x4096xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4, 5] : (tensor<64x8x8x4096x4096xf32>) -> tensor<1x64x8x8x4096x4096xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2, %c_3 : (tensor<80x64x8x8x4096x4096xf32>, tensor<1x64x8x8x4096x4096xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x8x8x4096x4096xf32>
    return %1 : tensor<80x64x8x8x4096x4096xf32>
  }
  func.func private @dynamic_update_index_in_dim_15(%arg0: tensor<80x64x8x8x4096x1xf32>, %arg1: tensor<64x8x8x4096x1xf32>, %arg2: tensor<i32>) -> tensor<80x64x8x8x4096x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4, 5] : (tensor<64x8x8x4096x1xf32>) -> tensor<1x64x8x8x4096x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2, %c_3 : (tensor<80x64x8x8x4096x1xf32>, tensor<1x64x8x8x4096x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x8x8x4096x1xf32>
    return %1 : tensor<80x64x8x8x4096x1xf32>
  }
  func.func private @dynamic_update_index_in_dim_16(%arg0: tensor<80x64x8x8x4096x4096xbf16>, %arg1: tensor<64x8x8x4096x4096xbf16>, %arg2: tensor<i32>) -> tensor<80x64x8x8x4096x4096xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4, 5] : (tensor<64x8x8x4096x4096xbf16>) -> tensor<1x64x8x8x4096x4096xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2, %c_3 : (tensor<80x64x8x8x4096x4096xbf16>, tensor<1x64x8x8x4096x4096xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x8x8x4096x4096xbf16>
    return %1 : tensor<80x64x8x8x4096x4096xbf16>
  }
  func.func private @dynamic_update_index_in_dim_17(%arg0: tensor<80x8192x28672xbf16>, %arg1: tensor<8192x28672xbf16>, %arg2: tensor<i32>) -> tensor<80x8192x28672xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8192x28672xbf16>) -> tensor<1x8192x28672xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x8192x28672xbf16>, tensor<1x8192x28672xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x8192x28672xbf16>
    return %1 : tensor<80x8192x28672xbf16>
  }
  func.func private @dynamic_update_index_in_dim_18(%arg0: tensor<80x64x4096x28672xbf16>, %arg1: tensor<64x4096x28672xbf16>, %arg2: tensor<i32>) -> tensor<80x64x4096x28672xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<64x4096x28672xbf16>) -> tensor<1x64x4096x28672xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1 : (tensor<80x64x4096x28672xbf16>, tensor<1x64x4096x28672xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x64x4096x28672xbf16>
    return %1 : tensor<80x64x4096x28672xbf16>
  }
  func.func private @dynamic_update_index_in_dim_19(%arg0: tensor<80x28672x8192xbf16>, %arg1: tensor<28672x8192xbf16>, %arg2: tensor<i32>) -> tensor<80x28672x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<28672x8192xbf16>) -> tensor<1x28672x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<80x28672x8192xbf16>, tensor<1x28672x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<80x28672x8192xbf16>
    return %1 : tensor<80x28672x8192xbf16>
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
  func.func private @log_softmax_20(%arg0: tensor<64x4096x128256xf32>, %arg1: tensor<64x4096x1xf32>, %arg2: tensor<64x4096x128256xf32>) -> tensor<64x4096x128256xf32> {
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
  func.func private @dynamic_index_in_dim_21(%arg0: tensor<80x64x4096x8192xf32>, %arg1: tensor<i32>) -> tensor<64x4096x8192xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 4096, 8192] : (tensor<80x64x4096x8192xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4096x8192xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x4096x8192xf32>) -> tensor<64x4096x8192xf32>
    return %1 : tensor<64x4096x8192xf32>
  }
  func.func private @dynamic_index_in_dim_22(%arg0: tensor<80x64x4096x1xf32>, %arg1: tensor<i32>) -> tensor<64x4096x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 4096, 1] : (tensor<80x64x4096x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4096x1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x4096x1xf32>) -> tensor<64x4096x1xf32>
    return %1 : tensor<64x4096x1xf32>
  }
  func.func private @dynamic_index_in_dim_23(%arg0: tensor<80x1x1x8192xf32>, %arg1: tensor<i32>) -> tensor<1x1x8192xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 1, 1, 8192] : (tensor<80x1x1x8192xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x1x8192xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x1x1x8192xf32>) -> tensor<1x1x8192xf32>
    return %1 : tensor<1x1x8192xf32>
  }
  func.func private @dynamic_index_in_dim_24(%arg0: tensor<80x64x4096x8192xbf16>, %arg1: tensor<i32>) -> tensor<64x4096x8192xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 4096, 8192] : (tensor<80x64x4096x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4096x8192xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x4096x8192xbf16>) -> tensor<64x4096x8192xbf16>
    return %1 : tensor<64x4096x8192xbf16>
  }
  func.func private @dynamic_index_in_dim_25(%arg0: tensor<80x64x8x4096x128xbf16>, %arg1: tensor<i32>) -> tensor<64x8x4096x128xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 64, 8, 4096, 128] : (tensor<80x64x8x4096x128xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x8x4096x128xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x8x4096x128xbf16>) -> tensor<64x8x4096x128xbf16>
    return %1 : tensor<64x8x4096x128xbf16>
  }
  func.func private @dynamic_index_in_dim_26(%arg0: tensor<80x64x8x8x4096x128xbf16>, %arg1: tensor<i32>) -> tensor<64x8x8x4096x128xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, %c_3, sizes = [1, 64, 8, 8, 4096, 128] : (tensor<80x64x8x8x4096x128xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x8x8x4096x128xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x8x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    return %1 : tensor<64x8x8x4096x128xbf16>
  }
  func.func private @dynamic_index_in_dim_27(%arg0: tensor<80x64x8x8x4096x4096xf32>, %arg1: tensor<i32>) -> tensor<64x8x8x4096x4096xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, %c_3, sizes = [1, 64, 8, 8, 4096, 4096] : (tensor<80x64x8x8x4096x4096xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x8x8x4096x4096xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    return %1 : tensor<64x8x8x4096x4096xf32>
  }
  func.func private @dynamic_index_in_dim_28(%arg0: tensor<80x64x8x8x4096x1xf32>, %arg1: tensor<i32>) -> tensor<64x8x8x4096x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, %c_3, sizes = [1, 64, 8, 8, 4096, 1] : (tensor<80x64x8x8x4096x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x8x8x4096x1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x1xf32>
    return %1 : tensor<64x8x8x4096x1xf32>
  }
  func.func private @dynamic_index_in_dim_29(%arg0: tensor<80x64x8x8x4096x4096xbf16>, %arg1: tensor<i32>) -> tensor<64x8x8x4096x4096xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, %c_3, sizes = [1, 64, 8, 8, 4096, 4096] : (tensor<80x64x8x8x4096x4096xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x8x8x4096x4096xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x8x8x4096x4096xbf16>) -> tensor<64x8x8x4096x4096xbf16>
    return %1 : tensor<64x8x8x4096x4096xbf16>
  }
  func.func private @dynamic_index_in_dim_30(%arg0: tensor<80x64x4096x28672xbf16>, %arg1: tensor<i32>) -> tensor<64x4096x28672xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, sizes = [1, 64, 4096, 28672] : (tensor<80x64x4096x28672xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4096x28672xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16>
    return %1 : tensor<64x4096x28672xbf16>
  }
  func.func private @closed_call_31(%arg0: tensor<1x1x1x4096x64xf32>, %arg1: tensor<1x1x1x4096x64xf32>, %arg2: tensor<1x1x1x4096x64xf32>, %arg3: tensor<1x1x1x4096x64xf32>, %arg4: tensor<1x1x4096x64xf32>, %arg5: tensor<1x1x4096x64xf32>, %arg6: tensor<1x1x4096x64xf32>, %arg7: tensor<1x1x4096x64xf32>, %arg8: tensor<64x8x8x4096x4096xi1>, %arg9: tensor<64x4096x8192xbf16>, %arg10: tensor<64x4096x8192xf32>, %arg11: tensor<64x4096x1xf32>, %arg12: tensor<64x4096x1xf32>, %arg13: tensor<1x1x8192xf32>, %arg14: tensor<64x4096x8192xf32>, %arg15: tensor<8192x8192xbf16>, %arg16: tensor<64x4096x8192xbf16>, %arg17: tensor<8192x1024xbf16>, %arg18: tensor<8192x1024xbf16>, %arg19: tensor<64x8x4096x128xbf16>, %arg20: tensor<64x8x8x4096x128xbf16>, %arg21: tensor<64x8x8x4096x4096xf32>, %arg22: tensor<64x8x8x4096x1xf32>, %arg23: tensor<64x8x8x4096x1xf32>, %arg24: tensor<64x8x4096x128xbf16>, %arg25: tensor<64x8x8x4096x4096xbf16>, %arg26: tensor<8192x8192xbf16>, %arg27: tensor<64x4096x8192xbf16>, %arg28: tensor<64x4096x8192xf32>, %arg29: tensor<64x4096x1xf32>, %arg30: tensor<64x4096x1xf32>, %arg31: tensor<1x1x8192xf32>, %arg32: tensor<64x4096x8192xf32>, %arg33: tensor<8192x28672xbf16>, %arg34: tensor<64x4096x8192xbf16>, %arg35: tensor<64x4096x28672xbf16>, %arg36: tensor<64x4096x28672xbf16>, %arg37: tensor<64x4096x28672xbf16>, %arg38: tensor<8192x28672xbf16>, %arg39: tensor<64x4096x28672xbf16>, %arg40: tensor<64x4096x28672xbf16>, %arg41: tensor<28672x8192xbf16>, %arg42: tensor<64x4096x28672xbf16>) -> (tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) {
    %0 = sdy.sharding_constraint %arg9 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %1 = stablehlo.dot_general %0, %arg42, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<64x4096x28672xbf16>) -> tensor<8192x28672xbf16>
    %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<8192x28672xbf16>) -> tensor<28672x8192xbf16>
    %3 = stablehlo.dot_general %0, %arg41, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<28672x8192xbf16>) -> tensor<64x4096x28672xbf16>
    %4 = stablehlo.multiply %arg40, %3 : tensor<64x4096x28672xbf16>
    %5 = stablehlo.multiply %3, %arg39 : tensor<64x4096x28672xbf16>
    %6 = stablehlo.dot_general %4, %arg34, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<64x4096x8192xbf16>) -> tensor<28672x8192xbf16>
    %7 = stablehlo.transpose %6, dims = [1, 0] : (tensor<28672x8192xbf16>) -> tensor<8192x28672xbf16>
    %8 = stablehlo.dot_general %4, %arg38, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x8192xbf16>
    %9 = call @silu_32(%arg35, %arg36, %arg37, %5) : (tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>, tensor<64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16>
    %10 = stablehlo.dot_general %9, %arg34, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<64x4096x8192xbf16>) -> tensor<28672x8192xbf16>
    %11 = stablehlo.transpose %10, dims = [1, 0] : (tensor<28672x8192xbf16>) -> tensor<8192x28672xbf16>
    %12 = stablehlo.dot_general %9, %arg33, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x28672xbf16>, tensor<8192x28672xbf16>) -> tensor<64x4096x8192xbf16>
    %13 = stablehlo.add %8, %12 : tensor<64x4096x8192xbf16>
    %14 = stablehlo.convert %13 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %15 = stablehlo.multiply %arg32, %14 : tensor<64x4096x8192xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %17 = stablehlo.reshape %16 : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %18 = stablehlo.broadcast_in_dim %arg31, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %19 = stablehlo.multiply %14, %18 : tensor<64x4096x8192xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%17 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %21 = stablehlo.convert %20 : (tensor<8192xf32>) -> tensor<8192xbf16>
    %22 = stablehlo.multiply %arg28, %19 : tensor<64x4096x8192xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %24 = stablehlo.reshape %23 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %25 = stablehlo.broadcast_in_dim %arg30, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %26 = stablehlo.multiply %19, %25 : tensor<64x4096x8192xf32>
    %27 = stablehlo.multiply %24, %arg29 : tensor<64x4096x1xf32>
    %cst_2 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %29 = stablehlo.divide %27, %28 : tensor<64x4096x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x8192xf32>
    %32 = stablehlo.multiply %arg28, %31 : tensor<64x4096x8192xf32>
    %33 = stablehlo.add %26, %32 : tensor<64x4096x8192xf32>
    %34 = stablehlo.multiply %31, %arg28 : tensor<64x4096x8192xf32>
    %35 = stablehlo.add %33, %34 : tensor<64x4096x8192xf32>
    %36 = stablehlo.convert %35 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %37 = stablehlo.add %0, %36 : tensor<64x4096x8192xbf16>
    %38 = sdy.sharding_constraint %37 <@mesh, [{"data"}, {}, {}]> : tensor<64x4096x8192xbf16>
    %39 = stablehlo.dot_general %38, %arg27, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>) -> tensor<8192x8192xbf16>
    %40 = stablehlo.transpose %39, dims = [1, 0] : (tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
    %41 = stablehlo.dot_general %38, %arg26, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %42 = stablehlo.reshape %41 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %43 = stablehlo.transpose %42, dims = [0, 2, 3, 1, 4] : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x8x8x4096x128xbf16>
    %44 = stablehlo.dot_general %43, %arg25, batching_dims = [0, 1] x [0, 1], contracting_dims = [2, 3] x [2, 3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x8x4096x4096xbf16>) -> tensor<64x8x128x4096xbf16>
    %45 = stablehlo.transpose %44, dims = [0, 1, 3, 2] : (tensor<64x8x128x4096xbf16>) -> tensor<64x8x4096x128xbf16>
    %46 = stablehlo.dot_general %43, %arg24, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x4096xbf16>
    %47 = stablehlo.convert %46 : (tensor<64x8x8x4096x4096xbf16>) -> tensor<64x8x8x4096x4096xf32>
    %48 = stablehlo.broadcast_in_dim %arg23, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %49 = stablehlo.multiply %47, %48 : tensor<64x8x8x4096x4096xf32>
    %50 = stablehlo.multiply %49, %arg21 : tensor<64x8x8x4096x4096xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.reduce(%50 init: %cst_4) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x4096xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %52 = stablehlo.reshape %51 : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x1xf32>
    %53 = stablehlo.negate %52 : tensor<64x8x8x4096x1xf32>
    %54 = stablehlo.broadcast_in_dim %arg22, dims = [0, 1, 2, 3, 4] : (tensor<64x8x8x4096x1xf32>) -> tensor<64x8x8x4096x4096xf32>
    %55 = stablehlo.divide %47, %54 : tensor<64x8x8x4096x4096xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%53 init: %cst_5) applies stablehlo.add across dimensions = [4] : (tensor<64x8x8x4096x1xf32>, tensor<f32>) -> tensor<64x8x8x4096xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1, 2, 3] : (tensor<64x8x8x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    %58 = stablehlo.add %55, %57 : tensor<64x8x8x4096x4096xf32>
    %59 = stablehlo.multiply %58, %arg21 : tensor<64x8x8x4096x4096xf32>
    %60 = call @_where_33(%arg8, %59) : (tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32>
    %cst_6 = stablehlo.constant dense<11.3137083> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %62 = stablehlo.divide %60, %61 : tensor<64x8x8x4096x4096xf32>
    %63 = stablehlo.dot_general %62, %arg20, batching_dims = [0, 1] x [0, 1], contracting_dims = [2, 3] x [2, 3], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xf32>, tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %64 = stablehlo.convert %63 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %65 = stablehlo.dot_general %62, %arg19, batching_dims = [0, 1] x [0, 1], contracting_dims = [4] x [2], precision = [DEFAULT, DEFAULT] : (tensor<64x8x8x4096x4096xf32>, tensor<64x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %66 = stablehlo.convert %65 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %67 = stablehlo.convert %64 : (tensor<64x8x4096x128xbf16>) -> tensor<64x8x4096x128xf32>
    %68 = stablehlo.slice %67 [0:64, 0:8, 0:4096, 0:64] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %69 = stablehlo.slice %67 [0:64, 0:8, 0:4096, 64:128] : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x64xf32>
    %70 = stablehlo.broadcast_in_dim %arg7, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %71 = stablehlo.multiply %69, %70 : tensor<64x8x4096x64xf32>
    %72 = stablehlo.broadcast_in_dim %arg6, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %73 = stablehlo.multiply %69, %72 : tensor<64x8x4096x64xf32>
    %74 = stablehlo.negate %68 : tensor<64x8x4096x64xf32>
    %75 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %76 = stablehlo.multiply %74, %75 : tensor<64x8x4096x64xf32>
    %77 = stablehlo.add %73, %76 : tensor<64x8x4096x64xf32>
    %78 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1, 2, 3] : (tensor<1x1x4096x64xf32>) -> tensor<64x8x4096x64xf32>
    %79 = stablehlo.multiply %68, %78 : tensor<64x8x4096x64xf32>
    %80 = stablehlo.add %71, %79 : tensor<64x8x4096x64xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.pad %77, %cst_7, low = [0, 0, 0, 64], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<64x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x4096x128xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %82 = stablehlo.pad %80, %cst_8, low = [0, 0, 0, 0], high = [0, 0, 0, 64], interior = [0, 0, 0, 0] : (tensor<64x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x4096x128xf32>
    %83 = stablehlo.add %81, %82 : tensor<64x8x4096x128xf32>
    %84 = stablehlo.convert %83 : (tensor<64x8x4096x128xf32>) -> tensor<64x8x4096x128xbf16>
    %85 = stablehlo.convert %66 : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x8x8x4096x128xf32>
    %86 = stablehlo.slice %85 [0:64, 0:8, 0:8, 0:4096, 0:64] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %87 = stablehlo.slice %85 [0:64, 0:8, 0:8, 0:4096, 64:128] : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x64xf32>
    %88 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %89 = stablehlo.multiply %87, %88 : tensor<64x8x8x4096x64xf32>
    %90 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %91 = stablehlo.multiply %87, %90 : tensor<64x8x8x4096x64xf32>
    %92 = stablehlo.negate %86 : tensor<64x8x8x4096x64xf32>
    %93 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %94 = stablehlo.multiply %92, %93 : tensor<64x8x8x4096x64xf32>
    %95 = stablehlo.add %91, %94 : tensor<64x8x8x4096x64xf32>
    %96 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3, 4] : (tensor<1x1x1x4096x64xf32>) -> tensor<64x8x8x4096x64xf32>
    %97 = stablehlo.multiply %86, %96 : tensor<64x8x8x4096x64xf32>
    %98 = stablehlo.add %89, %97 : tensor<64x8x8x4096x64xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %99 = stablehlo.pad %95, %cst_9, low = [0, 0, 0, 0, 64], high = [0, 0, 0, 0, 0], interior = [0, 0, 0, 0, 0] : (tensor<64x8x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x8x4096x128xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %100 = stablehlo.pad %98, %cst_10, low = [0, 0, 0, 0, 0], high = [0, 0, 0, 0, 64], interior = [0, 0, 0, 0, 0] : (tensor<64x8x8x4096x64xf32>, tensor<f32>) -> tensor<64x8x8x4096x128xf32>
    %101 = stablehlo.add %99, %100 : tensor<64x8x8x4096x128xf32>
    %102 = stablehlo.convert %101 : (tensor<64x8x8x4096x128xf32>) -> tensor<64x8x8x4096x128xbf16>
    %103 = stablehlo.transpose %45, dims = [0, 2, 1, 3] : (tensor<64x8x4096x128xbf16>) -> tensor<64x4096x8x128xbf16>
    %104 = stablehlo.reshape %103 : (tensor<64x4096x8x128xbf16>) -> tensor<64x4096x1024xbf16>
    %105 = stablehlo.dot_general %104, %arg16, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<64x4096x8192xbf16>) -> tensor<1024x8192xbf16>
    %106 = stablehlo.transpose %105, dims = [1, 0] : (tensor<1024x8192xbf16>) -> tensor<8192x1024xbf16>
    %107 = stablehlo.dot_general %104, %arg18, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x8192xbf16>
    %108 = stablehlo.transpose %84, dims = [0, 2, 1, 3] : (tensor<64x8x4096x128xbf16>) -> tensor<64x4096x8x128xbf16>
    %109 = stablehlo.reshape %108 : (tensor<64x4096x8x128xbf16>) -> tensor<64x4096x1024xbf16>
    %110 = stablehlo.dot_general %109, %arg16, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<64x4096x8192xbf16>) -> tensor<1024x8192xbf16>
    %111 = stablehlo.transpose %110, dims = [1, 0] : (tensor<1024x8192xbf16>) -> tensor<8192x1024xbf16>
    %112 = stablehlo.dot_general %109, %arg17, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x1024xbf16>, tensor<8192x1024xbf16>) -> tensor<64x4096x8192xbf16>
    %113 = stablehlo.add %107, %112 : tensor<64x4096x8192xbf16>
    %114 = stablehlo.transpose %102, dims = [0, 3, 1, 2, 4] : (tensor<64x8x8x4096x128xbf16>) -> tensor<64x4096x8x8x128xbf16>
    %115 = stablehlo.reshape %114 : (tensor<64x4096x8x8x128xbf16>) -> tensor<64x4096x8192xbf16>
    %116 = stablehlo.dot_general %115, %arg16, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<64x4096x8192xbf16>) -> tensor<8192x8192xbf16>
    %117 = stablehlo.transpose %116, dims = [1, 0] : (tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
    %118 = stablehlo.dot_general %115, %arg15, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<64x4096x8192xbf16>
    %119 = stablehlo.add %113, %118 : tensor<64x4096x8192xbf16>
    %120 = stablehlo.convert %119 : (tensor<64x4096x8192xbf16>) -> tensor<64x4096x8192xf32>
    %121 = stablehlo.multiply %arg14, %120 : tensor<64x4096x8192xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%121 init: %cst_11) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %123 = stablehlo.reshape %122 : (tensor<8192xf32>) -> tensor<1x1x8192xf32>
    %124 = stablehlo.broadcast_in_dim %arg13, dims = [0, 1, 2] : (tensor<1x1x8192xf32>) -> tensor<64x4096x8192xf32>
    %125 = stablehlo.multiply %120, %124 : tensor<64x4096x8192xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %126 = stablehlo.reduce(%123 init: %cst_12) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %127 = stablehlo.convert %126 : (tensor<8192xf32>) -> tensor<8192xbf16>
    %128 = stablehlo.multiply %arg10, %125 : tensor<64x4096x8192xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %129 = stablehlo.reduce(%128 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x8192xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %130 = stablehlo.reshape %129 : (tensor<64x4096xf32>) -> tensor<64x4096x1xf32>
    %131 = stablehlo.broadcast_in_dim %arg12, dims = [0, 1, 2] : (tensor<64x4096x1xf32>) -> tensor<64x4096x8192xf32>
    %132 = stablehlo.multiply %125, %131 : tensor<64x4096x8192xf32>
    %133 = stablehlo.multiply %130, %arg11 : tensor<64x4096x1xf32>
    %cst_14 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<64x4096x1xf32>
    %135 = stablehlo.divide %133, %134 : tensor<64x4096x1xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.reduce(%135 init: %cst_15) applies stablehlo.add across dimensions = [2] : (tensor<64x4096x1xf32>, tensor<f32>) -> tensor<64x4096xf32>
    %137 = stablehlo.broadcast_in_dim %136, dims = [0, 1] : (tensor<64x4096xf32>) -> tensor<64x4096x8192xf32>
    %138 = stablehlo.multiply %arg10, %137 : tensor<64x4096x8192xf32>
    %139 = stablehlo.add %132, %138 : tensor<64x4096x8192xf32>
    %140 = stablehlo.multiply %137, %arg10 : tensor<64x4096x8192xf32>
    %141 = stablehlo.add %139, %140 : tensor<64x4096x8192xf32>
    %142 = stablehlo.convert %141 : (tensor<64x4096x8192xf32>) -> tensor<64x4096x8192xbf16>
    %143 = stablehlo.add %38, %142 : tensor<64x4096x8192xbf16>
    %144 = sdy.sharding_constraint %2 <@mesh, [{"model"}, {}]> : tensor<28672x8192xbf16>
    %145 = sdy.sharding_constraint %7 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %146 = sdy.sharding_constraint %11 <@mesh, [{}, {"model"}]> : tensor<8192x28672xbf16>
    %147 = sdy.sharding_constraint %40 <@mesh, [{"model"}, {}]> : tensor<8192x8192xbf16>
    %148 = sdy.sharding_constraint %106 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %149 = sdy.sharding_constraint %111 <@mesh, [{}, {"model"}]> : tensor<8192x1024xbf16>
    %150 = sdy.sharding_constraint %117 <@mesh, [{}, {"model"}]> : tensor<8192x8192xbf16>
    return %143, %127, %21, %144, %146, %145, %149, %147, %150, %148 : tensor<64x4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>, tensor<28672x8192xbf16>, tensor<8192x28672xbf16>, tensor<8192x28672xbf16>, tensor<8192x1024xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x1024xbf16>
  }
  func.func private @silu_32(%arg0: tensor<64x4096x28672xbf16>, %arg1: tensor<64x4096x28672xbf16>, %arg2: tensor<64x4096x28672xbf16>, %arg3: tensor<64x4096x28672xbf16>) -> tensor<64x4096x28672xbf16> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<64x4096x28672xbf16>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<64x4096x28672xbf16>
    %2 = stablehlo.multiply %0, %arg0 : tensor<64x4096x28672xbf16>
    %3 = stablehlo.add %1, %2 : tensor<64x4096x28672xbf16>
    return %3 : tensor<64x4096x28672xbf16>
  }
  func.func private @_where_33(%arg0: tensor<64x8x8x4096x4096xi1>, %arg1: tensor<64x8x8x4096x4096xf32>) -> tensor<64x8x8x4096x4096xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x8x8x4096x4096xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<64x8x8x4096x4096xi1>, tensor<64x8x8x4096x4096xf32>
    return %1 : tensor<64x8x8x4096x4096xf32>
  }
  func.func private @dynamic_update_index_in_dim_34(%arg0: tensor<80x8192xbf16>, %arg1: tensor<8192xbf16>, %arg2: tensor<i32>) -> tensor<80x8192xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8192xbf16>) -> tensor<1x8192xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<80x8192xbf16>, tensor<1x8192xbf16>, tensor<i32>, tensor<i32>) -> tensor<80x8192xbf16>
    return %1 : tensor<80x8192xbf16>
  }
  func.func private @_take_35(%arg0: tensor<64x4096x1xi32>, %arg1: tensor<64x4096x8192xbf16>) -> tensor<128256x8192xbf16> {
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
