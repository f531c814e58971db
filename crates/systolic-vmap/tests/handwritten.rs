//! Rules for ops JAX's CPU lowering does not emit (or not in the shapes wanted), regions that
//! capture batched values, nested vmap, and the errors.

use crate::common;

use common::{check_module, load, parse};
use systolic_ir::Module;

fn check_src(src: &str, in_axes_list: &[&[Option<usize>]]) {
    let m = parse(src);
    for (k, axes) in in_axes_list.iter().enumerate() {
        for (size, out) in [(3usize, Some(0)), (1, Some(1)), (0, Some(0)), (4, Some(1))] {
            let out_rank_ok = m.funcs[0]
                .result_types
                .iter()
                .all(|t| t.as_tensor().unwrap().rank() >= out.unwrap());
            let out = if out_rank_ok { out } else { Some(0) };
            check_module(&m, "main", axes, size, &[out], 100 + k as u64 + size as u64);
        }
    }
}

#[test]
fn cholesky_and_triangular_solve() {
    let src = r#"
func.func @main(%x: tensor<3x3xf32>, %b: tensor<3x2xf32>) -> (tensor<3x3xf32>, tensor<3x2xf32>) {
  %p = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %i = stablehlo.iota dim = 0 : tensor<3x3xi32>
  %j = stablehlo.iota dim = 1 : tensor<3x3xi32>
  %e = stablehlo.compare EQ, %i, %j : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  %three = stablehlo.constant dense<3.0> : tensor<3x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<3x3xf32>
  %d = stablehlo.select %e, %three, %zero : tensor<3x3xi1>, tensor<3x3xf32>
  %a = stablehlo.add %p, %d : tensor<3x3xf32>
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %l, %s : tensor<3x3xf32>, tensor<3x2xf32>
}"#;
    check_src(
        src,
        &[&[Some(0), Some(0)], &[Some(1), None], &[None, Some(2)]],
    );
}

#[test]
fn map_reduce_precision_chlo_binary_deprecated_ops() {
    let src = r#"
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %m = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %p = stablehlo.multiply %x, %y : tensor<f32>
    %s = stablehlo.add %p, %one : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = stablehlo.reduce_precision %m, format = e5m2 : tensor<3xf32>
  %n = chlo.next_after %r, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %c = "stablehlo.broadcast"(%n) {broadcast_sizes = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %d = "stablehlo.dot"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %n, %c, %d : tensor<3xf32>, tensor<2x3xf32>, tensor<f32>
}"#;
    check_src(
        src,
        &[&[Some(0), Some(0)], &[Some(1), None], &[None, Some(0)]],
    );
}

#[test]
fn if_and_case_with_captured_values_and_out_of_range_index() {
    let src = r#"
func.func @main(%pred: tensor<i1>, %i: tensor<i32>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r = "stablehlo.if"(%pred) ({
    stablehlo.return %a : tensor<2xf32>
  }, {
    %s = stablehlo.add %a, %b : tensor<2xf32>
    stablehlo.return %s : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %c = "stablehlo.case"(%i) ({
    stablehlo.return %b : tensor<2xf32>
  }, {
    %m = stablehlo.multiply %a, %b : tensor<2xf32>
    stablehlo.return %m : tensor<2xf32>
  }, {
    %n = stablehlo.negate %r : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  return %r, %c : tensor<2xf32>, tensor<2xf32>
}"#;
    check_src(
        src,
        &[
            &[Some(0), Some(0), Some(0), Some(0)],
            &[None, None, Some(1), None],
            &[None, None, None, Some(0)],
            &[Some(0), None, None, None],
            &[None, Some(0), None, None],
        ],
    );
}

#[test]
fn while_capturing_a_batched_value() {
    let src = r#"
func.func @main(%x: tensor<2xf32>, %n: tensor<i32>) -> (tensor<i32>, tensor<2xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<2xf32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %z) : tensor<i32>, tensor<2xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    %s = stablehlo.add %acc, %x : tensor<2xf32>
    stablehlo.return %j, %s : tensor<i32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<2xf32>
}"#;
    check_src(
        src,
        &[&[Some(0), None], &[None, Some(0)], &[Some(1), Some(0)]],
    );
}

fn as_main(f: systolic_ir::Func) -> Module {
    let mut f = f;
    f.name = "main".into();
    Module {
        funcs: vec![f],
        ..Module::default()
    }
}

#[test]
fn nested_vmap() {
    for (name, inner, outer) in [
        ("matmul", vec![Some(0), None], vec![Some(1), Some(0)]),
        ("matmul", vec![Some(1), Some(0)], vec![None, Some(2)]),
        ("while_data", vec![Some(0)], vec![Some(1)]),
        (
            "dynamic_slice",
            vec![Some(0), Some(0), None],
            vec![Some(0), None, Some(0)],
        ),
        ("gather2", vec![None, Some(0)], vec![Some(0), Some(1)]),
        (
            "scatter_add",
            vec![Some(0), None, Some(0)],
            vec![None, Some(0), Some(1)],
        ),
        ("conv", vec![Some(0), None], vec![Some(0), Some(0)]),
        ("switch", vec![Some(0), None], vec![None, Some(0)]),
        (
            "batch_group_conv",
            vec![Some(0), None],
            vec![Some(0), Some(2)],
        ),
        ("grouped_conv", vec![None, Some(0)], vec![Some(0), Some(0)]),
        ("sort", vec![Some(0), Some(0)], vec![Some(1), None]),
        (
            "mlp_loss_grad",
            vec![None, None, Some(0), Some(0)],
            vec![Some(0), Some(0), None, Some(0)],
        ),
    ] {
        let m = load(name);
        let f1 = check_module(&m, "main", &inner, 3, &[Some(0)], 7);
        let m1 = as_main(f1);
        let f2 = check_module(&m1, "main", &outer, 2, &[Some(1)], 8);
        // A third level.
        let axes: Vec<Option<usize>> = outer.iter().map(|_| Some(0)).collect();
        check_module(&as_main(f2), "main", &axes, 2, &[Some(0)], 9);
    }
}

#[test]
fn unbatched_ops_are_copied_even_without_a_rule() {
    let src = r#"
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c = stablehlo.custom_call @my_kernel(%y) : (tensor<2xf32>) -> tensor<2xf32>
  %r = stablehlo.add %x, %c : tensor<2xf32>
  return %r : tensor<2xf32>
}"#;
    let m = parse(src);
    let f = systolic_vmap::vmap(&m.funcs[0], &[Some(0), None], 4, &[Some(0)]).unwrap();
    let text = systolic_ir::text::print_module(&as_main(f));
    assert!(text.contains("custom_call @my_kernel"), "{text}");
    let err = systolic_vmap::vmap(&m.funcs[0], &[None, Some(0)], 4, &[Some(0)]).unwrap_err();
    assert!(err.to_string().contains("stablehlo.custom_call"), "{err}");
    assert!(
        err.to_string().contains("@my_kernel has no batching rule"),
        "{err}"
    );
    // Annotations pass batched values through.
    let src = r#"
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %s = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
  %r = stablehlo.add %s, %s : tensor<2xf32>
  return %r : tensor<2xf32>
}"#;
    check_module(&parse(src), "main", &[Some(1)], 3, &[Some(0)], 1);
}

#[test]
fn errors_name_the_problem() {
    let m = load("reduce_sum");
    let f = &m.funcs[0];
    let e = systolic_vmap::vmap(f, &[Some(0), None], 2, &[Some(0)]).unwrap_err();
    assert!(e.to_string().contains("in_axes"), "{e}");
    let e = systolic_vmap::vmap(f, &[Some(3)], 2, &[Some(0)]).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    let e = systolic_vmap::vmap(f, &[Some(0)], 2, &[None]).unwrap_err();
    assert!(e.to_string().contains("out_axes[0] is None"), "{e}");
    let e = systolic_vmap::vmap(f, &[Some(0)], 2, &[Some(2)]).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    // Unmapped everything: the function is copied and out_axes None is fine.
    systolic_vmap::vmap(f, &[None], 2, &[None]).unwrap();
    let src = r#"
func.func @main(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<f32> {
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}"#;
    let m = parse(src);
    let e = systolic_vmap::vmap(&m.funcs[0], &[None, Some(0)], 2, &[Some(0)]).unwrap_err();
    assert!(
        e.to_string().contains("stablehlo.reduce: batched init"),
        "{e}"
    );
}

#[test]
fn sort_along_a_negative_dimension_and_multi_operand_reduce() {
    let src = r#"
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>) {
  %s:2 = "stablehlo.sort"(%x, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %p = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) {dimension = -1 : i64, is_stable = true} : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zi = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %z), (%y init: %zi) across dimensions = [0] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      %n = stablehlo.add %c, %d : tensor<i32>
      stablehlo.return %m, %n : tensor<f32>, tensor<i32>
    }
  return %s#0, %s#1, %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>
}"#;
    check_src(
        src,
        &[&[Some(0), Some(0)], &[Some(2), None], &[None, Some(1)]],
    );
}

#[test]
fn optimization_barrier_and_get_dimension_size() {
    let src = r#"
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<i32>) {
  %b:2 = stablehlo.optimization_barrier %x, %y : tensor<2x3xf32>, tensor<3xf32>
  %d = stablehlo.get_dimension_size %b#0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  return %b#0, %b#1, %d : tensor<2x3xf32>, tensor<3xf32>, tensor<i32>
}"#;
    check_src(
        src,
        &[&[Some(1), None], &[None, Some(0)], &[Some(2), Some(1)]],
    );
}

#[test]
fn calls_are_inlined_by_vmap_module_and_named_by_vmap() {
    let m = load("fori");
    let e = systolic_vmap::vmap(&m.funcs[0], &[Some(0), None], 2, &[Some(0)]).unwrap_err();
    assert!(e.to_string().contains("inline calls first"), "{e}");
    check_module(&m, "main", &[Some(0), None], 2, &[Some(0)], 3);
}

#[test]
#[ignore]
fn show() {
    let name = std::env::var("VMAP_SHOW").unwrap_or("mlp_loss_grad".into());
    let m = load(&name);
    let n = m.func("main").unwrap().params().len();
    let mut axes = vec![None; n];
    for a in std::env::var("VMAP_AXES").unwrap_or("0".into()).split(',') {
        axes[a.parse::<usize>().unwrap()] = Some(0);
    }
    let f = systolic_vmap::vmap_module(&m, "main", &axes, 8, &[Some(0)]).unwrap();
    println!("{}", systolic_ir::text::print_module(&as_main(f)));
}

#[test]
fn composites_are_inlined_by_their_decomposition() {
    let src = r#"
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = stablehlo.composite "my.square" %x {decomposition = @my.square} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @my.square(%y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %y, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}"#;
    check_module(&parse(src), "main", &[Some(0)], 4, &[Some(1)], 2);
}

#[test]
fn inlining_errors_name_the_callee_or_the_cycle() {
    let src = r#"
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = func.call @missing(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}"#;
    let e = systolic_vmap::vmap_module(&parse(src), "main", &[Some(0)], 2, &[Some(0)]).unwrap_err();
    assert_eq!(e.op, "func.call");
    assert!(e.message.contains("@main calls @missing"), "{e}");
    let src = r#"
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = func.call @again(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @again(%y: tensor<3xf32>) -> tensor<3xf32> {
  %r = func.call @again(%y) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}"#;
    let e = systolic_vmap::vmap_module(&parse(src), "main", &[Some(0)], 2, &[Some(0)]).unwrap_err();
    assert!(e.message.contains("@again -> @again"), "{e}");
    let e =
        systolic_vmap::vmap_module(&parse(src), "absent", &[Some(0)], 2, &[Some(0)]).unwrap_err();
    assert_eq!(e.op, "func");
}

/// `sdy.sharding_constraint` keeps its layout request on the batched value, with the batch
/// dimension open (`{?}`) at its place, and stays an identity.
#[test]
fn sharding_constraint_opens_the_batch_dimension() {
    let m = parse(
        r#"module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<4x3xf32>
    %n = stablehlo.negate %c : tensor<4x3xf32>
    return %n : tensor<4x3xf32>
  }
}"#,
    );
    for (axis, expected) in [(0usize, "[{?}, {\"x\"}, {}]"), (2, "[{\"x\"}, {}, {?}]")] {
        let batched = systolic_vmap::vmap_module(&m, "main", &[Some(axis)], 5, &[Some(axis)])
            .unwrap_or_else(|e| panic!("{e}"));
        let bm = Module {
            meshes: m.meshes.clone(),
            funcs: vec![batched],
            ..Module::default()
        };
        systolic_ir::verify::verify_module(&bm).unwrap_or_else(|d| panic!("{}", d[0]));
        let text = systolic_ir::text::print_module(&bm);
        assert!(text.contains(&format!("<@mesh, {expected}>")), "{text}");
        // Still the identity: the batched function negates its input.
        let mut shape = vec![4, 3];
        shape.insert(axis, 5);
        let x = systolic_ir::Tensor::from_f32(shape.clone(), (0..60).map(|i| i as f32).collect());
        let out = systolic_interp::Interpreter::new(&bm)
            .call(&bm.funcs[0].name, vec![systolic_interp::Value::Tensor(x)])
            .unwrap();
        let got = out[0].clone().into_tensor().unwrap().to_f64_vec();
        assert_eq!(got, (0..60).map(|i| -(i as f64)).collect::<Vec<_>>());
    }
}
