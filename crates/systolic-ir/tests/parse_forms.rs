//! The op forms the parser accepts, one small module each: the interpreter-test form (bare
//! `func.func`, `check.*`), the generic form with properties and regions, and the pretty forms
//! of the StableHLO printer. Expected values are written by hand from the StableHLO spec.

use systolic_ir::text::parse_module;
use systolic_ir::*;

fn parse(src: &str) -> Module {
    parse_module(src, "test.mlir").unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The ops of the first function's body.
fn body(m: &Module) -> &[Op] {
    &m.funcs[0].body.blocks[0].ops
}

fn t(shape: &[i64], dtype: DType) -> Type {
    Type::tensor(shape.to_vec(), dtype)
}

#[test]
fn interpreter_test_form_with_checks() {
    let m = parse(
        r#"
// A piece of an interpreter test: no module wrapper, checks at the end.
func.func @add_op_test_si8() {
  %lhs = stablehlo.constant dense<[0, 1, 8, -9, 0]> : tensor<5xi8>
  %rhs = stablehlo.constant dense<[0, 1, 8, 8, -128]> : tensor<5xi8>
  %result = stablehlo.add %lhs, %rhs : tensor<5xi8>
  check.expect_eq_const %result, dense<[0, 2, 16, -1, -128]> : tensor<5xi8>
  check.expect_eq %result, %result : tensor<5xi8>
  check.expect_almost_eq_const %lhs, dense<0> : tensor<5xi8>, tolerance = 0.5
  check.expect_close %lhs, %rhs, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<5xi8>, tensor<5xi8>
  check.expect_serialized_eq %result, probe_id = "probe1", iter = 2 : tensor<5xi8>
  func.return
}
"#,
    );
    assert_eq!(m.name, None);
    let f = &m.funcs[0];
    assert_eq!(f.name, "add_op_test_si8");
    let ops = body(&m);
    assert_eq!(
        ops[3].kind,
        OpKind::Check(CheckOp::ExpectEqConst(
            Tensor::from_i64(vec![5], DType::I8, vec![0, 2, 16, -1, -128]).unwrap()
        ))
    );
    assert_eq!(ops[3].operands, ops[2].results);
    assert_eq!(ops[4].kind, OpKind::Check(CheckOp::ExpectEq));
    assert_eq!(
        ops[5].kind,
        OpKind::Check(CheckOp::ExpectAlmostEqConst {
            expected: Tensor::from_i64(vec![5], DType::I8, vec![0; 5]).unwrap(),
            tolerance: Some(0.5),
        })
    );
    assert_eq!(
        ops[6].kind,
        OpKind::Check(CheckOp::ExpectClose {
            max_ulp_difference: 3,
            min_ulp_difference: 1
        })
    );
    assert_eq!(
        ops[7].kind,
        OpKind::Check(CheckOp::ExpectSerializedEq {
            probe_id: "probe1".into(),
            iteration: 2
        })
    );
    assert_eq!(ops[8].kind, OpKind::Return(ReturnKind::Func));
    assert_eq!(
        f.values[ops[0].results[0].index()].name.as_deref(),
        Some("lhs")
    );
}

#[test]
fn generic_check_ops() {
    let m = parse(
        r#"func.func @main() {
  %0 = "stablehlo.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf64>}> : () -> tensor<2xf64>
  "check.expect_almost_eq_const"(%0) <{value = dense<[1.0, 2.0]> : tensor<2xf64>}> : (tensor<2xf64>) -> ()
  "check.expect_close"(%0, %0) {max_ulp_difference = 4 : ui64} : (tensor<2xf64>, tensor<2xf64>) -> ()
  "func.return"() : () -> ()
}"#,
    );
    let ops = body(&m);
    let expected = Tensor::from_f64(vec![2], DType::F64, vec![1.0, 2.0]).unwrap();
    assert_eq!(ops[0].kind, OpKind::Constant(expected.clone()));
    assert_eq!(
        ops[1].kind,
        OpKind::Check(CheckOp::ExpectAlmostEqConst {
            expected,
            tolerance: None
        })
    );
    assert_eq!(
        ops[2].kind,
        OpKind::Check(CheckOp::ExpectClose {
            max_ulp_difference: 4,
            min_ulp_difference: 0
        })
    );
}

#[test]
fn generic_form_with_properties_regions_and_legacy_dense_dims() {
    let m = parse(
        r#"func.func @f(%arg0: tensor<1x2xf32>, %arg1: tensor<4x6xf32>, %p: tensor<i1>) -> tensor<1x2x3xf32> {
  %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<1x2xf32>) -> tensor<1x2x3xf32>
  %1 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %cst = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %2 = "stablehlo.reduce_window"(%arg1, %cst) <{padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x6xf32>
  %3 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%arg0) : (tensor<1x2xf32>) -> ()
  }, {
    %n = stablehlo.negate %arg0 : tensor<1x2xf32>
    "stablehlo.return"(%n) : (tensor<1x2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<1x2xf32>
  "func.return"(%0) : (tensor<1x2x3xf32>) -> ()
}"#,
    );
    let ops = body(&m);
    assert_eq!(
        ops[0].kind,
        OpKind::BroadcastInDim {
            broadcast_dimensions: vec![0, 1]
        }
    );
    assert_eq!(
        ops[1].kind,
        OpKind::Transpose {
            permutation: vec![1, 0]
        }
    );
    assert_eq!(
        ops[3].kind,
        OpKind::ReduceWindow {
            window: Window {
                window_dimensions: vec![2, 3],
                window_strides: Some(vec![2, 1]),
                base_dilations: None,
                window_dilations: None,
                padding: Some(vec![(0, 0), (1, 1)]),
            }
        }
    );
    assert_eq!(
        ops[3].regions[0].blocks[0].ops[0].kind,
        OpKind::Binary(BinaryOp::Maximum)
    );
    assert_eq!(ops[4].kind, OpKind::If);
    assert_eq!(ops[4].regions.len(), 2);
    // The first branch returns a value from the enclosing function.
    assert_eq!(
        ops[4].regions[0].blocks[0].ops[0].operands,
        vec![m.funcs[0].params()[0]]
    );
    assert_eq!(
        m.funcs[0].value_type(ops[4].results[0]),
        &t(&[1, 2], DType::F32)
    );
}

#[test]
fn pretty_forms_of_the_stablehlo_printer() {
    let m = parse(
        r#"func.func @f(%arg0: tensor<4xf32>, %arg1: tensor<3x4xi32>, %arg2: tensor<i64>, %arg3: tensor<2x2xf32>, %arg4: tensor<3xi64>, %arg5: tensor<1x2xui64>, %arg6: tensor<f32>) {
  %0 = stablehlo.iota dim = 0 : tensor<4xi32>
  %1 = stablehlo.broadcast %arg0, sizes = [1, 2] : (tensor<4xf32>) -> tensor<1x2x4xf32>
  %2 = stablehlo.reverse %arg0, dims = [0] : tensor<4xf32>
  %3 = stablehlo.dynamic_slice %arg1, %arg2, %arg2, sizes = [1, 4] : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>
  %4 = stablehlo.pad %arg0, %arg6, low = [1], high = [-1], interior = [2] : (tensor<4xf32>, tensor<f32>) -> tensor<10xf32>
  %5 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  %6 = stablehlo.compare LT, %arg0, %arg0, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %7 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
  %8 = stablehlo.cholesky %arg3, lower = true : tensor<2x2xf32>
  %9 = stablehlo.dot %arg4, %arg4, precision = [HIGH, HIGHEST] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  %output_state, %output = stablehlo.rng_bit_generator %arg5, algorithm = PHILOX : (tensor<1x2xui64>) -> (tensor<1x2xui64>, tensor<2x2xui32>)
  %10 = stablehlo.tuple %arg0, %arg2 : tuple<tensor<4xf32>, tensor<i64>>
  %11 = stablehlo.get_tuple_element %10[1] : (tuple<tensor<4xf32>, tensor<i64>>) -> tensor<i64>
  %12:2 = stablehlo.optimization_barrier %arg0, %arg2 : tensor<4xf32>, tensor<i64>
  %13 = stablehlo.select %6, %arg0, %2 : tensor<4xi1>, tensor<4xf32>
  %14 = stablehlo.slice %arg0 [1:4:2] : (tensor<4xf32>) -> tensor<2xf32>
  %15 = stablehlo.custom_call @foo(%arg0) {backend_config = "cfg", has_side_effect = true, api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %16 = stablehlo.dot_general %arg3, %arg3, batching_dims = [0] x [0], contracting_dims = [1] x [1], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  stablehlo.return
}"#,
    );
    let ops = body(&m);
    let kinds: Vec<&OpKind> = ops.iter().map(|o| &o.kind).collect();
    assert_eq!(kinds[0], &OpKind::Iota { dimension: 0 });
    assert_eq!(
        kinds[1],
        &OpKind::Broadcast {
            broadcast_sizes: vec![1, 2]
        }
    );
    assert_eq!(
        kinds[2],
        &OpKind::Reverse {
            dimensions: vec![0]
        }
    );
    assert_eq!(
        kinds[3],
        &OpKind::DynamicSlice {
            slice_sizes: vec![1, 4]
        }
    );
    assert_eq!(ops[3].operands.len(), 3);
    assert_eq!(
        kinds[4],
        &OpKind::Pad {
            edge_padding_low: vec![1],
            edge_padding_high: vec![-1],
            interior_padding: vec![2]
        }
    );
    assert_eq!(kinds[5], &OpKind::Concatenate { dimension: 0 });
    assert_eq!(
        kinds[6],
        &OpKind::Compare {
            direction: ComparisonDirection::Lt,
            compare_type: Some(ComparisonType::TotalOrder)
        }
    );
    assert_eq!(
        kinds[7],
        &OpKind::ReducePrecision {
            exponent_bits: 5,
            mantissa_bits: 10
        }
    );
    assert_eq!(kinds[8], &OpKind::Cholesky { lower: true });
    assert_eq!(
        kinds[9],
        &OpKind::Dot {
            precision_config: vec![Precision::High, Precision::Highest]
        }
    );
    assert_eq!(
        kinds[10],
        &OpKind::RngBitGenerator {
            algorithm: RngAlgorithm::Philox
        }
    );
    assert_eq!(ops[10].results.len(), 2);
    let f = &m.funcs[0];
    assert_eq!(f.value_type(ops[10].results[1]), &t(&[2, 2], DType::U32));
    assert_eq!(
        f.value_type(ops[11].results[0]),
        &Type::Tuple(vec![t(&[4], DType::F32), t(&[], DType::I64)])
    );
    assert_eq!(kinds[12], &OpKind::GetTupleElement { index: 1 });
    assert_eq!(kinds[13], &OpKind::OptimizationBarrier);
    assert_eq!(f.value_type(ops[13].results[1]), &t(&[], DType::I64));
    assert_eq!(kinds[14], &OpKind::Select);
    assert_eq!(f.value_type(ops[14].results[0]), &t(&[4], DType::F32));
    assert_eq!(
        kinds[15],
        &OpKind::Slice {
            start_indices: vec![1],
            limit_indices: vec![4],
            strides: vec![2]
        }
    );
    assert_eq!(
        kinds[16],
        &OpKind::CustomCall {
            call_target_name: "foo".into(),
            has_side_effect: true,
            backend_config: Some(Attribute::String("cfg".into())),
            api_version: 2,
            called_computations: vec![],
        }
    );
    let OpKind::DotGeneral {
        dimension_numbers,
        algorithm: Some(alg),
        ..
    } = kinds[17]
    else {
        panic!("{:?}", kinds[17]);
    };
    assert_eq!(dimension_numbers.lhs_batching_dimensions, vec![0]);
    assert_eq!(dimension_numbers.rhs_contracting_dimensions, vec![1]);
    assert_eq!(
        alg.lhs_precision_type,
        PrecisionType::Type(t(&[], DType::BF16))
    );
    assert_eq!(alg.num_primitive_operations, 3);
    assert_eq!(kinds[18], &OpKind::Return(ReturnKind::Stablehlo));
}

#[test]
fn collectives_in_generic_form() {
    let m = parse(
        r#"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.collective_permute"(%0) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.all_to_all"(%1) <{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}"#,
    );
    let ops = body(&m);
    assert_eq!(
        ops[0].kind,
        OpKind::AllReduce {
            collective: CollectiveAttrs {
                replica_groups: vec![vec![0, 1], vec![2, 3]],
                channel_handle: Some(ChannelHandle { handle: 1, kind: 1 }),
                use_global_device_ids: true,
                has_dynamic_root: false,
            }
        }
    );
    assert_eq!(
        ops[1].kind,
        OpKind::CollectivePermute {
            source_target_pairs: vec![(0, 1), (1, 0)],
            channel_handle: None
        }
    );
    assert_eq!(
        ops[2].kind,
        OpKind::AllToAll {
            split_dimension: 0,
            concat_dimension: 0,
            split_count: 2,
            collective: CollectiveAttrs {
                replica_groups: vec![vec![0, 1]],
                ..Default::default()
            }
        }
    );
}

#[test]
fn constants_splats_bools_hex_and_special_floats() {
    let m = parse(
        r#"func.func @f() {
  %0 = stablehlo.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %1 = stablehlo.constant dense<-1.5> : tensor<2x3xbf16>
  %2 = stablehlo.constant dense<[0x7F800000, -inf, nan, 1.0e+00]> : tensor<4xf32>
  %3 = stablehlo.constant dense<"0x0100FFFF"> : tensor<2xi16>
  %4 = stablehlo.constant dense<"0x01000100"> : tensor<4xi1>
  %5 = stablehlo.constant dense<"0x0000803F"> : tensor<3xf32>
  %6 = stablehlo.constant dense<> : tensor<0x3xf32>
  %7 = stablehlo.constant dense<[-9223372036854775808, 18]> : tensor<2xi64>
  %8 = stablehlo.constant dense<0x3C00> : tensor<f16>
  %9 = stablehlo.constant dense<[]> : tensor<0xi32>
  return
}"#,
    );
    let c: Vec<&Tensor> = body(&m)
        .iter()
        .filter_map(|o| match &o.kind {
            OpKind::Constant(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(c[0].data(), &Data::Bool(vec![true, false, false, true]));
    assert_eq!(c[1].to_f64_vec(), vec![-1.5; 6]);
    let v = c[2].to_f64_vec();
    assert_eq!(&v[..2], &[f64::INFINITY, f64::NEG_INFINITY]);
    assert!(v[2].is_nan());
    assert_eq!(v[3], 1.0);
    assert_eq!(c[3].data(), &Data::Int(vec![1, -1]));
    assert_eq!(c[4].data(), &Data::Bool(vec![true, false, true, false]));
    assert_eq!(c[5].to_f64_vec(), vec![1.0; 3]);
    assert_eq!(c[6].num_elements(), 0);
    assert_eq!(c[7].data(), &Data::Int(vec![i64::MIN, 18]));
    assert_eq!(c[8].to_f64_vec(), vec![1.0]);
    assert_eq!(c[9].shape(), &[0]);
}

#[test]
fn named_results_groups_and_module_attributes() {
    let m = parse(
        r#"#loc1 = loc("f.py":3:7)
module @m attributes {mhlo.frontend_attributes = {x = "1"}, sdy.flag} {
  func.func private @decl(tensor<f32>) -> tensor<f32>
  func.func public @main(%arg0: tensor<4xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) attributes {jax.uses_shape_polymorphism = false} {
    %a:2, %b = "stablehlo.while"(%arg0, %arg1, %arg1) ({
    ^bb0(%x: tensor<4xf32>, %i: tensor<i32>, %j: tensor<i32>):
      %c = stablehlo.compare LT, %i, %j : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }, {
    ^bb0(%x: tensor<4xf32>, %i: tensor<i32>, %j: tensor<i32>):
      stablehlo.return %x, %i, %j : tensor<4xf32>, tensor<i32>, tensor<i32>
    }) : (tensor<4xf32>, tensor<i32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>, tensor<i32>) loc(#loc1)
    return %a#0, %b : tensor<4xf32>, tensor<i32> loc(fused<"meta">["a.py":1:2, unknown])
  } loc("main")
} loc(unknown)
"#,
    );
    assert_eq!(m.funcs.len(), 2);
    assert!(m.funcs[0].body.blocks.is_empty());
    assert_eq!(m.funcs[0].param_types(), Vec::<Type>::new());
    let main = &m.funcs[1];
    assert_eq!(
        main.loc,
        Some(Location::Name {
            name: "main".into(),
            child: None
        })
    );
    assert_eq!(
        find_attr(&main.arg_attrs[0], "mhlo.sharding"),
        Some(&Attribute::HloSharding(HloSharding::Replicated))
    );
    assert_eq!(find_attr(&m.attrs, "sdy.flag"), Some(&Attribute::Unit));
    let ops = &main.body.blocks[0].ops;
    assert_eq!(ops[0].results.len(), 3);
    assert_eq!(ops[0].loc, Some(Location::Alias("loc1".into())));
    assert_eq!(ops[1].operands, vec![ops[0].results[0], ops[0].results[2]]);
    assert_eq!(
        ops[1].loc,
        Some(Location::Fused {
            metadata: Some("\"meta\"".into()),
            locations: vec![
                Location::FileLineCol {
                    file: "a.py".into(),
                    line: 1,
                    col: 2
                },
                Location::Unknown
            ]
        })
    );
    assert_eq!(
        m.loc_aliases,
        vec![(
            "loc1".into(),
            Location::FileLineCol {
                file: "f.py".into(),
                line: 3,
                col: 7
            }
        )]
    );
    assert_eq!(
        main.values[ops[0].results[1].index()].name.as_deref(),
        Some("a")
    );
}

#[test]
fn chlo_composite_and_unknown_dialect_attributes() {
    let m = parse(
        r#"func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = chlo.erf_inv %x : tensor<3xf32> -> tensor<3xf32>
  %1 = chlo.next_after %0, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = stablehlo.composite "my.op" %1 {composite_attributes = {k = 1 : i64}, decomposition = @g, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %3 = stablehlo.exponential %2 {result_accuracy = #stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : tensor<3xf32>
  return %3 : tensor<3xf32>
}"#,
    );
    let ops = body(&m);
    assert_eq!(ops[0].kind, OpKind::ChloUnary(ChloUnaryOp::ErfInv));
    assert_eq!(ops[1].kind, OpKind::ChloBinary(ChloBinaryOp::NextAfter));
    assert_eq!(
        ops[2].kind,
        OpKind::Composite {
            name: "my.op".into(),
            decomposition: "g".into(),
            composite_attributes: vec![NamedAttr::new(
                "k",
                Attribute::Int(1, Some(t(&[], DType::I64)))
            )],
            version: 1,
        }
    );
    assert_eq!(
        find_attr(&ops[3].attrs, "result_accuracy"),
        Some(&Attribute::Opaque(
            "#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>".into()
        ))
    );
}

#[test]
fn interpreter_forms_spread_over_lines() {
    let m = parse(
        r#"func.func @main() {
  %a = stablehlo.constant dense<[[[[1], [2]], [[3], [4]]]]> : tensor<1x2x2x1xi64>
  %k = stablehlo.constant dense<1> : tensor<1x1x1x1xi64>
  %r = stablehlo.convolution(%a, %k)
    dim_numbers = [0, f, 1, b]x[i, 0, 1, o]->[b, 1, 0, f],
    window = {
      stride = [2, 1],
      lhs_dilate = [1, 2]
    } {
      batch_group_count = 1 : i64,
      feature_group_count = 1 : i64
    }
  : (tensor<1x2x2x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x1x3x1xi64>
  %s0, %s1 = "stablehlo.sort"(%a, %a) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>, %z: tensor<i64>, %w: tensor<i64>):
      %p = stablehlo.compare  GT, %x, %y,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }) {
    dimension = 1 : i64,
    is_stable = true
  } : (tensor<1x2x2x1xi64>, tensor<1x2x2x1xi64>) -> (tensor<1x2x2x1xi64>, tensor<1x2x2x1xi64>)
  check.expect_almost_eq_const %r, dense<2> : tensor<1x1x3x1xi64> {tolerance = 0.25 : f64}
  check.expect_almost_eq%s0, %s1, tolerance = 0.5 : tensor<1x2x2x1xi64>
  stablehlo.optimization_barrier()
  func.return
}"#,
    );
    let ops = body(&m);
    let OpKind::Convolution(c) = &ops[2].kind else {
        panic!("{:?}", ops[2].kind);
    };
    let d = &c.dimension_numbers;
    assert_eq!((d.input_batch_dimension, d.input_feature_dimension), (3, 1));
    assert_eq!(d.input_spatial_dimensions, vec![0, 2]);
    assert_eq!(d.output_spatial_dimensions, vec![2, 1]);
    assert_eq!(c.window_strides, Some(vec![2, 1]));
    assert_eq!(c.lhs_dilation, Some(vec![1, 2]));
    assert_eq!(c.padding, None);
    assert_eq!(
        ops[3].kind,
        OpKind::Sort {
            dimension: 1,
            is_stable: true
        }
    );
    assert_eq!(ops[3].results.len(), 2);
    assert_eq!(
        ops[4].kind,
        OpKind::Check(CheckOp::ExpectAlmostEqConst {
            expected: Tensor::from_i64(vec![1, 1, 3, 1], DType::I64, vec![2; 3]).unwrap(),
            tolerance: Some(0.25),
        })
    );
    assert_eq!(
        ops[5].kind,
        OpKind::Check(CheckOp::ExpectAlmostEq {
            tolerance: Some(0.5)
        })
    );
    assert_eq!(ops[6].kind, OpKind::OptimizationBarrier);
    assert!(ops[6].operands.is_empty());
}

#[test]
fn fully_generic_module_and_functions() {
    let m = parse(
        r#""builtin.module"() <{sym_name = "g"}> ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "helper", sym_visibility = "private", arg_attrs = [{jax.arg_info = "x"}]}> ({
  ^bb0(%arg0: tensor<2xf32>):
    %0 = "stablehlo.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[-1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %1 = "func.call"(%0) <{callee = @helper}> : (tensor<2xf32>) -> tensor<2xf32>
    "check.expect_eq_const"(%1) <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"#,
    );
    assert_eq!(m.name.as_deref(), Some("g"));
    let helper = m.func("helper").unwrap();
    assert_eq!(helper.visibility, Visibility::Private);
    assert_eq!(helper.param_types(), vec![t(&[2], DType::F32)]);
    assert_eq!(helper.result_types, vec![t(&[2], DType::F32)]);
    assert_eq!(
        find_attr(&helper.arg_attrs[0], "jax.arg_info"),
        Some(&Attribute::String("x".into()))
    );
    let main = m.func("main").unwrap();
    let ops = &main.body.blocks[0].ops;
    assert_eq!(
        ops[1].kind,
        OpKind::Call {
            callee: "helper".into()
        }
    );
    assert_eq!(ops[1].operands, ops[0].results);
    assert_eq!(
        ops[2].kind,
        OpKind::Check(CheckOp::ExpectEqConst(
            Tensor::from_f64(vec![2], DType::F32, vec![1.0, 2.0]).unwrap()
        ))
    );
}

#[test]
fn generic_forms_of_the_remaining_ops() {
    let m = parse(
        r#"func.func @f(%a: tensor<2x2xf32>, %v: tensor<2xf32>, %s: tensor<f32>, %i: tensor<i32>, %t: !stablehlo.token, %sh: tensor<1xi64>) {
  %0 = "stablehlo.map"(%v, %v) <{dimensions = array<i64: 0>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.multiply %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.triangular_solve"(%a, %a) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = "stablehlo.fft"(%v) <{fft_length = array<i64: 2>, fft_type = #stablehlo<fft_type IRFFT>}> : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "stablehlo.batch_norm_inference"(%a, %v, %v, %v, %v) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %4:3 = "stablehlo.batch_norm_training"(%a, %v, %v) <{epsilon = 5.000000e-01 : f32, feature_index = 0 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %5 = "stablehlo.clamp"(%s, %v, %s) : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %6 = "stablehlo.bitcast_convert"(%v) : (tensor<2xf32>) -> tensor<2xi32>
  %7 = "stablehlo.get_dimension_size"(%a) <{dimension = 1 : i64}> : (tensor<2x2xf32>) -> tensor<i32>
  %8 = "stablehlo.dynamic_update_slice"(%a, %a, %i, %i) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %9 = "stablehlo.reshape"(%a) : (tensor<2x2xf32>) -> tensor<4xf32>
  %10 = "stablehlo.after_all"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %11 = "stablehlo.create_token"() : () -> !stablehlo.token
  %12 = "stablehlo.replica_id"() : () -> tensor<ui32>
  %13 = "stablehlo.partition_id"() : () -> tensor<ui32>
  %14 = "stablehlo.reduce_scatter"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<2xf32>) -> tensor<1xf32>
  %15 = "stablehlo.collective_broadcast"(%v) <{replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  %16 = "stablehlo.send"(%v, %t) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %17:2 = "stablehlo.recv"(%t) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %18:2 = "stablehlo.infeed"(%t) <{infeed_config = "cfg", layout = [[0]]}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %19 = "stablehlo.outfeed"(%v, %t) <{outfeed_config = ""}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %20 = "stablehlo.rng"(%s, %s, %sh) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>
  %21 = "stablehlo.round_nearest_even"(%v) : (tensor<2xf32>) -> tensor<2xf32>
  %22 = "chlo.is_inf"(%v) : (tensor<2xf32>) -> tensor<2xi1>
  %23:2 = "chlo.top_k"(%v) <{k = 1 : i64, largest = false}> : (tensor<2xf32>) -> (tensor<1xf32>, tensor<1xi32>)
  "func.return"() : () -> ()
}"#,
    );
    let ops = body(&m);
    let kinds: Vec<&OpKind> = ops.iter().map(|o| &o.kind).collect();
    let expected = [
        OpKind::Map {
            dimensions: vec![0],
        },
        OpKind::TriangularSolve {
            left_side: true,
            lower: true,
            unit_diagonal: false,
            transpose_a: TransposeKind::Transpose,
        },
        OpKind::Fft {
            fft_type: FftType::Irfft,
            fft_length: vec![2],
        },
        OpKind::BatchNormInference {
            epsilon: 1.0e-3f32 as f64,
            feature_index: 1,
        },
        OpKind::BatchNormTraining {
            epsilon: 0.5,
            feature_index: 0,
        },
        OpKind::Clamp,
        OpKind::BitcastConvert,
        OpKind::GetDimensionSize { dimension: 1 },
        OpKind::DynamicUpdateSlice,
        OpKind::Reshape,
        OpKind::AfterAll,
        OpKind::CreateToken,
        OpKind::ReplicaId,
        OpKind::PartitionId,
        OpKind::ReduceScatter {
            scatter_dimension: 0,
            collective: CollectiveAttrs {
                replica_groups: vec![vec![0, 1]],
                channel_handle: Some(ChannelHandle { handle: 3, kind: 1 }),
                use_global_device_ids: false,
                has_dynamic_root: false,
            },
        },
        OpKind::CollectiveBroadcast {
            collective: CollectiveAttrs {
                replica_groups: vec![vec![1, 0]],
                ..Default::default()
            },
        },
        OpKind::Send {
            channel_handle: ChannelHandle { handle: 5, kind: 2 },
            is_host_transfer: true,
        },
        OpKind::Recv {
            channel_handle: ChannelHandle { handle: 5, kind: 3 },
            is_host_transfer: true,
        },
        OpKind::Infeed {
            infeed_config: "cfg".into(),
        },
        OpKind::Outfeed {
            outfeed_config: String::new(),
        },
        OpKind::Rng {
            distribution: RngDistribution::Uniform,
        },
        OpKind::Unary(UnaryOp::RoundNearestEven),
        OpKind::ChloUnary(ChloUnaryOp::IsInf),
        OpKind::TopK {
            k: 1,
            largest: false,
        },
        OpKind::Return(ReturnKind::Func),
    ];
    assert_eq!(kinds.len(), expected.len());
    for (got, want) in kinds.iter().zip(&expected) {
        assert_eq!(*got, want);
    }
    // The infeed layout is not modelled by the op kind, so it stays on the op.
    assert!(find_attr(&ops[18].attrs, "layout").is_some());
    assert_eq!(m.funcs[0].value_type(ops[17].results[1]), &Type::Token);
}

#[test]
fn byte_order_mark_and_entry_label() {
    let m = parse("\u{FEFF}func.func @f(%x: tensor<f32>) -> tensor<f32> {\n^bb0:\n  return %x : tensor<f32>\n}\n");
    assert_eq!(body(&m).len(), 1);
    assert_eq!(body(&m)[0].span, Some(Span { line: 3, col: 3 }));
}

#[test]
fn generic_convolution_with_raw_dimension_numbers() {
    let m = parse(
        r#"func.func @f(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  %0 = "stablehlo.convolution"(%x, %w) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 2>, window_reversal = array<i1: false, true>, window_strides = array<i64: 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  %1 = "stablehlo.dot_general"(%x, %x) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 6, allow_imprecise_accumulation = false>}> : (tensor<1x8x8x3xf32>, tensor<1x8x8x3xf32>) -> tensor<1x8x8x8x8xf32>
  return %0 : tensor<1x6x6x4xf32>
}"#,
    );
    let ops = body(&m);
    let OpKind::Convolution(c) = &ops[0].kind else {
        panic!("{:?}", ops[0].kind);
    };
    assert_eq!(
        c.dimension_numbers,
        ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 3,
            input_spatial_dimensions: vec![1, 2],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 3,
            kernel_spatial_dimensions: vec![0, 1],
            output_batch_dimension: 0,
            output_feature_dimension: 3,
            output_spatial_dimensions: vec![1, 2],
        }
    );
    assert_eq!(c.padding, Some(vec![(0, 0), (0, 0)]));
    assert_eq!(c.rhs_dilation, Some(vec![1, 2]));
    assert_eq!(c.window_reversal, Some(vec![false, true]));
    assert_eq!(
        c.precision_config,
        vec![Precision::Highest, Precision::Default]
    );
    let OpKind::DotGeneral {
        algorithm: Some(alg),
        dimension_numbers,
        ..
    } = &ops[1].kind
    else {
        panic!("{:?}", ops[1].kind);
    };
    assert_eq!(dimension_numbers.lhs_contracting_dimensions, vec![3]);
    assert_eq!(
        alg,
        &DotAlgorithm {
            lhs_precision_type: PrecisionType::Type(t(&[], DType::F32)),
            rhs_precision_type: PrecisionType::Type(t(&[], DType::F32)),
            accumulation_type: t(&[], DType::F32),
            lhs_component_count: 1,
            rhs_component_count: 1,
            num_primitive_operations: 6,
            allow_imprecise_accumulation: false,
        }
    );
}
