//! The printer on modules built in Rust (module.rs API): expected texts are what JAX 0.10.2
//! printed for the same programs (quoted in each test), and every printed module parses back
//! to an equivalent one.

use crate::roundtrip_common;

use roundtrip_common::equivalent;
use systolic_ir::text::{parse_module, print_func, print_module};
use systolic_ir::*;

fn f32s(shape: &[i64]) -> Type {
    Type::tensor(shape.to_vec(), DType::F32)
}

fn i32s(shape: &[i64]) -> Type {
    Type::tensor(shape.to_vec(), DType::I32)
}

fn op(kind: OpKind, operands: Vec<ValueId>, results: Vec<ValueId>) -> Op {
    Op::new(kind, operands, results)
}

fn ret(kind: ReturnKind, values: Vec<ValueId>) -> Op {
    Op::new(OpKind::Return(kind), values, vec![])
}

fn num_attr(name: &str, v: i64, dtype: DType) -> NamedAttr {
    NamedAttr::new(
        name,
        Attribute::Int(v, Some(Type::Tensor(TensorType::scalar(dtype)))),
    )
}

fn jax_module(name: &str, funcs: Vec<Func>) -> Module {
    Module {
        name: Some(name.to_string()),
        attrs: vec![
            num_attr("mhlo.num_partitions", 1, DType::I32),
            num_attr("mhlo.num_replicas", 1, DType::I32),
        ],
        funcs,
        ..Module::default()
    }
}

fn result_info(s: &str) -> Vec<NamedAttr> {
    vec![NamedAttr::new(
        "jax.result_info",
        Attribute::String(s.into()),
    )]
}

/// Prints, checks the text, and checks that it parses back to an equivalent module.
fn assert_prints(module: &Module, want: &str) {
    let got = print_module(module);
    assert_eq!(got, want, "\n--- got ---\n{got}\n--- want ---\n{want}");
    let reparsed = parse_module(&got, "printed").unwrap_or_else(|e| panic!("{e}\n{got}"));
    equivalent(module, &reparsed).unwrap_or_else(|e| panic!("{e}"));
}

/// `jax.jit(lambda a, b: a + b * 2.0).lower(x, x)` with `x: f32[2,3]`. The values are
/// created in an unusual arena order and carry misleading names: printing names them by
/// position, as MLIR does.
#[test]
fn jax_add_module() {
    let t = f32s(&[2, 3]);
    let mut f = Func::new("main");
    let sum = f.new_value(t.clone(), Some("sum".into()));
    let b = f.new_value(t.clone(), Some("x".into()));
    let a = f.new_value(t.clone(), Some("y".into()));
    let two = f.new_value(f32s(&[]), Some("two".into()));
    let bcast = f.new_value(t.clone(), None);
    let prod = f.new_value(t.clone(), None);
    f.result_types = vec![t.clone()];
    f.arg_attrs = vec![vec![], vec![]];
    f.result_attrs = vec![result_info("result")];
    f.body = Region::single(Block {
        args: vec![a, b],
        ops: vec![
            op(OpKind::Constant(Tensor::scalar_f32(2.0)), vec![], vec![two]),
            op(
                OpKind::BroadcastInDim {
                    broadcast_dimensions: vec![],
                },
                vec![two],
                vec![bcast],
            ),
            op(
                OpKind::Binary(BinaryOp::Multiply),
                vec![b, bcast],
                vec![prod],
            ),
            op(OpKind::Binary(BinaryOp::Add), vec![a, prod], vec![sum]),
            ret(ReturnKind::Func, vec![sum]),
        ],
    });
    let m = jax_module("jit__lambda", vec![f]);
    assert_prints(
        &m,
        r#"module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %1 = stablehlo.multiply %arg1, %0 : tensor<2x3xf32>
    %2 = stablehlo.add %arg0, %1 : tensor<2x3xf32>
    return %2 : tensor<2x3xf32>
  }
}
"#,
    );
    assert_eq!(
        print_func(&m, &m.funcs[0]).lines().next().unwrap(),
        r#"func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {"#
    );
}

/// `jax.jit(lambda a: lax.fori_loop(0, 3, lambda i, c: c * 2, a)).lower(x)`: the while form
/// with `%iterArg` names, `%0:2` / `%0#1`, `func.call` inside a region and `call` outside,
/// constant names made unique across regions (`%c_1` in both branches).
#[test]
fn jax_while_module() {
    let t = f32s(&[2, 3]);
    let s = i32s(&[]);
    let pred = Type::tensor(vec![], DType::Bool);
    let mut f = Func::new("main");
    let a = f.new_value(t.clone(), None);
    let zero = f.new_value(s.clone(), None);
    let w0 = f.new_value(s.clone(), None);
    let w1 = f.new_value(t.clone(), None);
    let (ci, cx) = (f.new_value(s.clone(), None), f.new_value(t.clone(), None));
    let three = f.new_value(s.clone(), None);
    let lt = f.new_value(pred, None);
    let (bi, bx) = (f.new_value(s.clone(), None), f.new_value(t.clone(), None));
    let called = f.new_value(t.clone(), None);
    let one = f.new_value(s.clone(), None);
    let next = f.new_value(s.clone(), None);
    let scalar_i32 = |v: i64| Tensor::from_i64(vec![], DType::I32, vec![v]).unwrap();
    let cond = Block {
        args: vec![ci, cx],
        ops: vec![
            op(OpKind::Constant(scalar_i32(3)), vec![], vec![three]),
            op(
                OpKind::Compare {
                    direction: ComparisonDirection::Lt,
                    compare_type: Some(ComparisonType::Signed),
                },
                vec![ci, three],
                vec![lt],
            ),
            ret(ReturnKind::Stablehlo, vec![lt]),
        ],
    };
    let body = Block {
        args: vec![bi, bx],
        ops: vec![
            op(
                OpKind::Call {
                    callee: "closed_call".into(),
                },
                vec![bx],
                vec![called],
            ),
            op(OpKind::Constant(scalar_i32(1)), vec![], vec![one]),
            op(OpKind::Binary(BinaryOp::Add), vec![bi, one], vec![next]),
            ret(ReturnKind::Stablehlo, vec![next, called]),
        ],
    };
    let mut while_op = op(OpKind::While, vec![zero, a], vec![w0, w1]);
    while_op.regions = vec![Region::single(cond), Region::single(body)];
    f.result_types = vec![t.clone()];
    f.result_attrs = vec![result_info("result")];
    f.body = Region::single(Block {
        args: vec![a],
        ops: vec![
            op(OpKind::Constant(scalar_i32(0)), vec![], vec![zero]),
            while_op,
            ret(ReturnKind::Func, vec![w1]),
        ],
    });

    let mut g = Func::new("closed_call");
    g.visibility = Visibility::Private;
    let x = g.new_value(t.clone(), None);
    let two = g.new_value(f32s(&[]), None);
    let b = g.new_value(t.clone(), None);
    let y = g.new_value(t.clone(), None);
    g.result_types = vec![t.clone()];
    g.body = Region::single(Block {
        args: vec![x],
        ops: vec![
            op(OpKind::Constant(Tensor::scalar_f32(2.0)), vec![], vec![two]),
            op(
                OpKind::BroadcastInDim {
                    broadcast_dimensions: vec![],
                },
                vec![two],
                vec![b],
            ),
            op(OpKind::Binary(BinaryOp::Multiply), vec![x, b], vec![y]),
            ret(ReturnKind::Func, vec![y]),
        ],
    });
    assert_prints(
        &jax_module("jit__lambda", vec![f, g]),
        r#"module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<2x3xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<2x3xf32>
    }
    return %0#1 : tensor<2x3xf32>
  }
  func.func private @closed_call(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}
"#,
    );
}

/// The check dialect of the interpreter tests, in the forms those tests write (tolerances as
/// in `systolic-interp/tests/interpret/batch_norm.mlir`).
#[test]
fn check_ops() {
    let t = f32s(&[2]);
    let mut f = Func::new("main");
    let a = f.new_value(t.clone(), None);
    let expected = Tensor::from_f32(vec![2], vec![1.0, 2.5]);
    let checks = vec![
        CheckOp::ExpectEq,
        CheckOp::ExpectAlmostEq { tolerance: None },
        CheckOp::ExpectAlmostEq {
            tolerance: Some(1e-3),
        },
        CheckOp::ExpectClose {
            max_ulp_difference: 3,
            min_ulp_difference: 0,
        },
        CheckOp::ExpectClose {
            max_ulp_difference: 10,
            min_ulp_difference: 1,
        },
    ];
    let mut ops: Vec<Op> = checks
        .into_iter()
        .map(|c| op(OpKind::Check(c), vec![a, a], vec![]))
        .collect();
    ops.push(op(
        OpKind::Check(CheckOp::ExpectEqConst(expected.clone())),
        vec![a],
        vec![],
    ));
    for tolerance in [None, Some(1e-9)] {
        ops.push(op(
            OpKind::Check(CheckOp::ExpectAlmostEqConst {
                expected: expected.clone(),
                tolerance,
            }),
            vec![a],
            vec![],
        ));
    }
    ops.push(op(
        OpKind::Check(CheckOp::ExpectSerializedEq {
            probe_id: "probe1".into(),
            iteration: 2,
        }),
        vec![a],
        vec![],
    ));
    ops.push(ret(ReturnKind::Func, vec![]));
    f.body = Region::single(Block { args: vec![a], ops });
    let m = Module {
        funcs: vec![f],
        ..Module::default()
    };
    assert_eq!(
        print_module(&m),
        r#"module {
  func.func public @main(%arg0: tensor<2xf32>) {
    check.expect_eq %arg0, %arg0 : tensor<2xf32>
    check.expect_almost_eq %arg0, %arg0 : tensor<2xf32>
    check.expect_almost_eq %arg0, %arg0 {tolerance = 1.000000e-03 : f64} : tensor<2xf32>
    check.expect_close %arg0, %arg0, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
    check.expect_close %arg0, %arg0, max_ulp_difference = 10, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
    check.expect_eq_const %arg0, dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>
    check.expect_almost_eq_const %arg0, dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>
    check.expect_almost_eq_const %arg0, dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32> {tolerance = 1.000000e-09 : f64}
    check.expect_serialized_eq %arg0, probe_id = "probe1", iter = 2 : tensor<2xf32>
    return
  }
}
"#
    );
    let printed = print_module(&m);
    let reparsed = parse_module(&printed, "checks").unwrap_or_else(|e| panic!("{e}"));
    equivalent(&m, &reparsed).unwrap_or_else(|e| panic!("{e}"));
}

/// Custom calls leave out MLIR's defaults (version 1, no side effect, no called functions).
#[test]
fn custom_call_defaults() {
    let t = f32s(&[2]);
    let mut f = Func::new("main");
    let a = f.new_value(t.clone(), None);
    let r1 = f.new_value(t.clone(), None);
    let r2 = f.new_value(t.clone(), None);
    let call = |api_version, has_side_effect, called: Vec<String>, config| OpKind::CustomCall {
        call_target_name: "my-target".into(),
        has_side_effect,
        backend_config: config,
        api_version,
        called_computations: called,
    };
    f.result_types = vec![t.clone()];
    f.body = Region::single(Block {
        args: vec![a],
        ops: vec![
            op(call(1, false, vec![], None), vec![a], vec![r1]),
            op(
                call(
                    4,
                    true,
                    vec!["main".into()],
                    Some(Attribute::Dict(vec![NamedAttr::new(
                        "k",
                        Attribute::Int(1, None),
                    )])),
                ),
                vec![r1],
                vec![r2],
            ),
            ret(ReturnKind::Func, vec![r2]),
        ],
    });
    let text = print_module(&Module {
        funcs: vec![f],
        ..Module::default()
    });
    assert!(
        text.contains(
            r#"%0 = stablehlo.custom_call @"my-target"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"%1 = stablehlo.custom_call @"my-target"(%0) {api_version = 4 : i32, backend_config = {k = 1 : i64}, called_computations = [@main], has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>"#),
        "{text}"
    );
}

/// Locations: inline on ops and functions, aliases after the module, the leading unchained
/// ones before it (where JAX's `#loc = loc(unknown)` and argument names go).
#[test]
fn locations_and_aliases() {
    let t = f32s(&[3]);
    let mut f = Func::new("main");
    let a = f.new_value(t.clone(), None);
    let y = f.new_value(t.clone(), None);
    f.result_types = vec![t.clone()];
    let mut cos = op(OpKind::Unary(UnaryOp::Cosine), vec![a], vec![y]);
    cos.loc = Some(Location::Alias("loc4".into()));
    let mut r = ret(ReturnKind::Func, vec![y]);
    r.loc = Some(Location::Name {
        name: "jit(f)".into(),
        child: Some(Box::new(Location::FileLineCol {
            file: "f.py".into(),
            line: 3,
            col: 7,
        })),
    });
    f.body = Region::single(Block {
        args: vec![a],
        ops: vec![cos, r],
    });
    f.loc = Some(Location::Alias("loc".into()));
    let m = Module {
        name: Some("jit_f".into()),
        funcs: vec![f],
        loc_aliases: vec![
            ("loc".into(), Location::Unknown),
            (
                "loc1".into(),
                Location::Name {
                    name: "a".into(),
                    child: None,
                },
            ),
            (
                "loc2".into(),
                Location::FileLineCol {
                    file: "f.py".into(),
                    line: 3,
                    col: 12,
                },
            ),
            (
                "loc3".into(),
                Location::CallSite {
                    callee: Box::new(Location::Alias("loc2".into())),
                    caller: Box::new(Location::Unknown),
                },
            ),
            (
                "loc4".into(),
                Location::Name {
                    name: "jit(f)/cos".into(),
                    child: Some(Box::new(Location::Alias("loc3".into()))),
                },
            ),
        ],
        ..Module::default()
    };
    assert_prints(
        &m,
        r#"#loc = loc(unknown)
#loc1 = loc("a")
module @jit_f {
  func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.cosine %arg0 : tensor<3xf32> loc(#loc4)
    return %0 : tensor<3xf32> loc("jit(f)"("f.py":3:7))
  } loc(#loc)
}
#loc2 = loc("f.py":3:12)
#loc3 = loc(callsite(#loc2 at unknown))
#loc4 = loc("jit(f)/cos"(#loc3))
"#,
    );
}

/// Malformed modules still print (the verifier, not the printer, reports them): undefined
/// values, a reduce without a body, a convolution whose dimension numbers are no layout.
#[test]
fn malformed_modules_print_without_panicking() {
    let t = f32s(&[2]);
    let mut f = Func::new("main");
    let a = f.new_value(t.clone(), None);
    let r = f.new_value(t.clone(), None);
    let ghost = ValueId(99);
    f.body = Region::single(Block {
        args: vec![a],
        ops: vec![
            op(
                OpKind::Reduce {
                    dimensions: vec![0],
                },
                vec![a, ghost],
                vec![r],
            ),
            op(
                OpKind::Convolution(ConvAttrs::default()),
                vec![a, a],
                vec![ghost],
            ),
            op(OpKind::While, vec![a], vec![]),
            ret(ReturnKind::Func, vec![ghost]),
        ],
    });
    let text = print_module(&Module {
        funcs: vec![f],
        ..Module::default()
    });
    assert!(text.contains(r#"%0 = "stablehlo.reduce"(%arg0, %<undefined 99>) <{dimensions = array<i64: 0>}> : (tensor<2xf32>, <<no type for value 99>>) -> tensor<2xf32>"#), "{text}");
    assert!(
        text.contains("#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0"),
        "{text}"
    );
    assert!(
        text.contains(r#""stablehlo.while"(%arg0) : (tensor<2xf32>) -> ()"#),
        "{text}"
    );
}

/// 10 MB of constants print as hex quickly (well under a second in release; the bound here
/// leaves room for unoptimised test builds and a busy machine).
#[test]
fn ten_megabytes_of_constants_print_fast() {
    let n = 10 * 1024 * 1024 / 4;
    let values: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let t = Tensor::from_f32(vec![n as i64], values);
    let mut f = Func::new("main");
    let c = f.new_value(f32s(&[n as i64]), None);
    f.result_types = vec![f32s(&[n as i64])];
    f.body = Region::single(Block {
        args: vec![],
        ops: vec![
            op(OpKind::Constant(t), vec![], vec![c]),
            ret(ReturnKind::Func, vec![c]),
        ],
    });
    let m = Module {
        funcs: vec![f],
        ..Module::default()
    };
    let start = std::time::Instant::now();
    let text = print_module(&m);
    let elapsed = start.elapsed();
    assert!(text.len() > 20 * 1024 * 1024);
    assert!(text.contains("%cst = stablehlo.constant dense<\"0x000000000000803E0000003F"));
    assert!(elapsed.as_secs_f64() < 3.0, "printing took {elapsed:?}");
    eprintln!("printed {} MB in {elapsed:?}", text.len() >> 20);
}

/// `print_func` prints one function and the location aliases it needs.
#[test]
fn print_func_includes_its_aliases() {
    let t = f32s(&[3]);
    let mut f = Func::new("f");
    let a = f.new_value(t.clone(), None);
    let mut r = ret(ReturnKind::Func, vec![a]);
    r.loc = Some(Location::Alias("loc2".into()));
    f.result_types = vec![t];
    f.body = Region::single(Block {
        args: vec![a],
        ops: vec![r],
    });
    let name = |s: &str| Location::Name {
        name: s.into(),
        child: None,
    };
    let named_child = |s: &str, child: &str| Location::Name {
        name: s.into(),
        child: Some(Box::new(Location::Alias(child.into()))),
    };
    let m = Module {
        funcs: vec![f],
        loc_aliases: vec![
            ("loc".into(), Location::Unknown),
            ("loc1".into(), name("x")),
            ("loc2".into(), named_child("y", "loc1")),
        ],
        ..Module::default()
    };
    assert_eq!(
        print_func(&m, &m.funcs[0]),
        r#"func.func public @f(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32> loc(#loc2)
}
#loc1 = loc("x")
#loc2 = loc("y"(#loc1))
"#
    );
}

/// `stablehlo.fft` as MLIR printed it (`stablehlo.fft %arg0, type = RFFT, length = [4] :
/// (tensor<4xf32>) -> tensor<3xcomplex<f32>>`), and an `if` without results.
#[test]
fn fft_and_resultless_if() {
    let mut f = Func::new("main");
    let a = f.new_value(f32s(&[4]), None);
    let p = f.new_value(Type::tensor(vec![], DType::Bool), None);
    let r = f.new_value(Type::tensor(vec![3], DType::C64), None);
    let mut if_op = op(OpKind::If, vec![p], vec![]);
    if_op.regions = vec![
        Region::single(Block {
            args: vec![],
            ops: vec![ret(ReturnKind::Stablehlo, vec![])],
        }),
        Region::single(Block {
            args: vec![],
            ops: vec![ret(ReturnKind::Stablehlo, vec![])],
        }),
    ];
    f.body = Region::single(Block {
        args: vec![a, p],
        ops: vec![
            op(
                OpKind::Fft {
                    fft_type: FftType::Rfft,
                    fft_length: vec![4],
                },
                vec![a],
                vec![r],
            ),
            if_op,
            ret(ReturnKind::Func, vec![]),
        ],
    });
    let m = Module {
        funcs: vec![f],
        ..Module::default()
    };
    assert_prints(
        &m,
        r#"module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i1>) {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
    "stablehlo.if"(%arg1) ({
      stablehlo.return
    }, {
      stablehlo.return
    }) : (tensor<i1>) -> ()
    return
  }
}
"#,
    );
}
