//! Properties of the transformed programs: rematerialisation (recomputation behind an
//! optimization_barrier), dead-code removal, errors naming unsupported ops, integer paths.

use systolic_interp::{Interpreter, Value};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::{DType, Func, Module, OpKind, Tensor};

fn module(text: &str) -> Module {
    parse_module(text, "test").unwrap()
}

fn text_of(f: &Func) -> String {
    print_module(&Module {
        funcs: vec![f.clone()],
        ..Module::default()
    })
}

fn count(f: &Func, pred: impl Fn(&OpKind) -> bool) -> usize {
    let mut n = 0;
    systolic_ir::walk::walk_ops(&f.body, &mut |op, _| {
        if pred(&op.kind) {
            n += 1;
        }
    });
    n
}

fn run(f: &Func, args: Vec<Tensor>) -> Vec<Vec<f64>> {
    let m = Module {
        funcs: vec![f.clone()],
        ..Module::default()
    };
    Interpreter::new(&m)
        .call(&f.name, args.into_iter().map(Value::Tensor).collect())
        .unwrap()
        .into_iter()
        .map(|v| v.into_tensor().unwrap().to_f64_vec())
        .collect()
}

const REMAT: &str = r#"
func.func @main(%x: tensor<4xf64>) -> tensor<f64> {
  %0 = func.call @block(%x) : (tensor<4xf64>) -> tensor<4xf64>
  %1 = stablehlo.multiply %0, %0 : tensor<4xf64>
  %c = stablehlo.constant dense<0.0> : tensor<f64>
  %2 = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf64>, tensor<f64>) -> tensor<f64>
  return %2 : tensor<f64>
}
func.func private @block(%a: tensor<4xf64>) -> tensor<4xf64> attributes {systolic.remat} {
  %0 = stablehlo.sine %a : tensor<4xf64>
  %1 = stablehlo.sine %0 : tensor<4xf64>
  %2 = stablehlo.tanh %1 : tensor<4xf64>
  return %2 : tensor<4xf64>
}
"#;

#[test]
fn remat_recomputes_behind_a_barrier() {
    let m = module(REMAT);
    let plain_m = module(&REMAT.replace(" attributes {systolic.remat}", ""));
    let remat = systolic_autodiff::vjp_in_module(&m, "main", &[0]).unwrap();
    let plain = systolic_autodiff::vjp_in_module(&plain_m, "main", &[0]).unwrap();
    let text = text_of(&remat);
    assert_eq!(
        count(&remat, |k| matches!(k, OpKind::OptimizationBarrier)),
        1,
        "{text}"
    );
    assert_eq!(
        count(&plain, |k| matches!(k, OpKind::OptimizationBarrier)),
        0
    );
    // The forward sines run twice: once forward, once recomputed for the backward sweep.
    let sines = |f: &Func| {
        count(f, |k| {
            matches!(k, OpKind::Unary(systolic_ir::UnaryOp::Sine))
        })
    };
    assert_eq!(sines(&remat), 4, "{text}");
    assert_eq!(sines(&plain), 2);
    // The recomputation reads the barrier's results, not the forward values.
    let body = &remat.body.blocks[0].ops;
    let barrier = body
        .iter()
        .position(|o| matches!(o.kind, OpKind::OptimizationBarrier))
        .unwrap();
    let later_sine = body[barrier..]
        .iter()
        .find(|o| matches!(o.kind, OpKind::Unary(systolic_ir::UnaryOp::Sine)))
        .unwrap();
    assert_eq!(later_sine.operands, body[barrier].results);
    // Same numbers.
    let x = Tensor::from_f64(vec![4], DType::F64, vec![0.1, -0.7, 1.3, 2.0]).unwrap();
    let ct = Tensor::from_f64(vec![], DType::F64, vec![1.5]).unwrap();
    assert_eq!(
        run(&remat, vec![x.clone(), ct.clone()]),
        run(&plain, vec![x, ct])
    );
}

/// The group id of every op of `f`'s body marked as rematerialised, in order.
fn remat_groups(f: &Func) -> Vec<i64> {
    f.body.blocks[0]
        .ops
        .iter()
        .filter_map(
            |op| match systolic_ir::find_attr(&op.attrs, systolic_autodiff::REMAT_ATTR) {
                Some(systolic_ir::Attribute::Int(g, _)) => Some(*g),
                _ => None,
            },
        )
        .collect()
}

#[test]
fn each_inlined_remat_call_is_its_own_group() {
    // Two calls of @block, the second through a composite whose decomposition calls it.
    let text = REMAT.replace(
        "%1 = stablehlo.multiply %0, %0 : tensor<4xf64>",
        "%5 = stablehlo.composite \"my.block\" %0 {decomposition = @wrap} : (tensor<4xf64>) -> tensor<4xf64>\n  \
         %1 = stablehlo.multiply %5, %5 : tensor<4xf64>",
    ) + "func.func private @wrap(%a: tensor<4xf64>) -> tensor<4xf64> {\n  \
           %0 = func.call @block(%a) : (tensor<4xf64>) -> tensor<4xf64>\n  \
           return %0 : tensor<4xf64>\n}\n";
    let m = module(&text);
    let f = systolic_autodiff::inline_calls(&m, "main").unwrap();
    assert_eq!(
        count(&f, |k| matches!(
            k,
            OpKind::Call { .. } | OpKind::Composite { .. }
        )),
        0
    );
    // Three ops per copy of @block; the copies get consecutive, distinct groups.
    let groups = remat_groups(&f);
    assert_eq!(groups.len(), 6, "{}", text_of(&f));
    assert!(groups[..3].iter().all(|&g| g == groups[0]));
    assert!(groups[3..].iter().all(|&g| g == groups[0] + 1));
    // Both copies are recomputed: two barriers, and the gradient is unchanged.
    let remat = systolic_autodiff::vjp(&f, &[0]).unwrap();
    assert_eq!(
        count(&remat, |k| matches!(k, OpKind::OptimizationBarrier)),
        2
    );
    let plain_m = module(&text.replace(" attributes {systolic.remat}", ""));
    let plain = systolic_autodiff::vjp_in_module(&plain_m, "main", &[0]).unwrap();
    let x = Tensor::from_f64(vec![4], DType::F64, vec![0.3, -0.2, 0.9, 1.1]).unwrap();
    let ct = Tensor::from_f64(vec![], DType::F64, vec![0.5]).unwrap();
    assert_eq!(
        run(&remat, vec![x.clone(), ct.clone()]),
        run(&plain, vec![x, ct])
    );
}

#[test]
fn recursion_is_refused_naming_the_cycle() {
    let m = module(
        "func.func @main(%x: tensor<f64>) -> tensor<f64> {
           %0 = func.call @main(%x) : (tensor<f64>) -> tensor<f64>
           return %0 : tensor<f64>
         }",
    );
    let err = systolic_autodiff::vjp_in_module(&m, "main", &[0]).unwrap_err();
    assert!(err.message.contains("@main -> @main"), "{err}");
}

#[test]
fn mark_remat_groups_ops_of_a_function() {
    let m = module(&REMAT.replace(" attributes {systolic.remat}", ""));
    let mut f = systolic_autodiff::inline_calls(&m, "main").unwrap();
    // Mark the whole function: everything is recomputed in the backward sweep.
    systolic_autodiff::mark_remat(&mut f, 7);
    let df = systolic_autodiff::vjp(&f, &[0]).unwrap();
    assert_eq!(count(&df, |k| matches!(k, OpKind::OptimizationBarrier)), 1);
}

#[test]
fn unused_forward_values_vanish() {
    // Only the cotangent is asked for; the forward product of y is not needed by it.
    let m = module(
        r#"
func.func @main(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = stablehlo.exponential %y : tensor<3xf64>
  %1 = stablehlo.add %x, %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}"#,
    );
    let df = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap();
    // The cotangent of x is the output cotangent itself: no op but the forward add and exp.
    let text = text_of(&df);
    assert_eq!(count(&df, |k| !k.is_terminator()), 2, "{text}");
    assert_eq!(
        df.body.blocks[0].ops.last().unwrap().operands[1],
        df.params()[2]
    );
}

#[test]
fn repeated_uses_sum_cotangents() {
    let m = module(
        r#"
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf64>
  %1 = stablehlo.add %0, %x : tensor<2xf64>
  return %1 : tensor<2xf64>
}"#,
    );
    let df = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap();
    let x = Tensor::from_f64(vec![2], DType::F64, vec![3.0, -1.0]).unwrap();
    let ct = Tensor::from_f64(vec![2], DType::F64, vec![1.0, 2.0]).unwrap();
    let out = run(&df, vec![x, ct]);
    assert_eq!(out[1], vec![7.0, -2.0]); // (2x + 1)·ȳ
}

#[test]
fn integer_paths_get_zero_cotangents() {
    let m = module(
        r#"
func.func @main(%x: tensor<3xf64>, %i: tensor<3xi32>) -> (tensor<3xf64>, tensor<3xi32>) {
  %0 = stablehlo.convert %i : (tensor<3xi32>) -> tensor<3xf64>
  %1 = stablehlo.multiply %x, %0 : tensor<3xf64>
  %2 = stablehlo.convert %x : (tensor<3xf64>) -> tensor<3xi32>
  %3 = stablehlo.add %2, %i : tensor<3xi32>
  return %1, %3 : tensor<3xf64>, tensor<3xi32>
}"#,
    );
    let df = systolic_autodiff::vjp(&m.funcs[0], &[0, 1]).unwrap();
    let x = Tensor::from_f64(vec![3], DType::F64, vec![1.5, 2.5, -3.5]).unwrap();
    let i = Tensor::from_i64(vec![3], DType::I32, vec![1, 2, 3]).unwrap();
    let ct = Tensor::from_f64(vec![3], DType::F64, vec![1.0, 1.0, 1.0]).unwrap();
    let cti = Tensor::from_i64(vec![3], DType::I32, vec![5, 5, 5]).unwrap();
    let out = run(&df, vec![x, i, ct, cti]);
    assert_eq!(out[2], vec![1.0, 2.0, 3.0]);
    assert_eq!(out[3], vec![0.0, 0.0, 0.0]);
}

#[test]
fn unsupported_ops_are_named() {
    let m = module(
        r#"
func.func @main(%x: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %0 = stablehlo.custom_call @mystery(%x) : (tensor<3x3xf64>) -> tensor<3x3xf64>
  return %0 : tensor<3x3xf64>
}"#,
    );
    let e = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap_err();
    assert!(e.to_string().contains("stablehlo.custom_call"), "{e}");
    let e = systolic_autodiff::jvp(&m.funcs[0]).unwrap_err();
    assert!(e.to_string().contains("stablehlo.custom_call"), "{e}");
}

#[test]
fn non_differentiable_ops_pass_unchanged() {
    // No float input depends on x: the cotangent is zero and no backward op is emitted.
    let m = module(
        r#"
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = stablehlo.iota dim = 0 : tensor<3xf64>
  %1 = stablehlo.sign %x : tensor<3xf64>
  %2 = stablehlo.add %0, %1 : tensor<3xf64>
  return %2 : tensor<3xf64>
}"#,
    );
    let df = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap();
    let x = Tensor::from_f64(vec![3], DType::F64, vec![1.0, -2.0, 0.5]).unwrap();
    let out = run(&df, vec![x.clone(), x]);
    assert_eq!(out[1], vec![0.0, 0.0, 0.0]);
}

#[test]
fn random_bits_carry_no_gradient() {
    // Dropout-like: y = x * mask with mask from rng_bit_generator; x̄ = ȳ * mask.
    let m = module(
        r#"
func.func @main(%x: tensor<6xf64>, %s: tensor<2xui64>) -> (tensor<6xf64>, tensor<2xui64>) {
  %st, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<6xui32>)
  %one = stablehlo.constant dense<1> : tensor<6xui32>
  %b = stablehlo.and %bits, %one : tensor<6xui32>
  %m = stablehlo.convert %b : (tensor<6xui32>) -> tensor<6xf64>
  %y = stablehlo.multiply %x, %m : tensor<6xf64>
  return %y, %st : tensor<6xf64>, tensor<2xui64>
}"#,
    );
    let df = systolic_autodiff::vjp(&m.funcs[0], &[0, 1]).unwrap();
    let x = Tensor::from_f64(vec![6], DType::F64, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let s = Tensor::from_u64(vec![2], DType::U64, vec![7, 9]).unwrap();
    let ct = Tensor::from_f64(vec![6], DType::F64, vec![10.0; 6]).unwrap();
    let cs = Tensor::from_u64(vec![2], DType::U64, vec![1, 1]).unwrap();
    let out = run(&df, vec![x, s, ct, cs]);
    let (y, gx, gs) = (&out[0], &out[2], &out[3]);
    for i in 0..6 {
        let mask = y[i] / (i as f64 + 1.0);
        assert!(mask == 0.0 || mask == 1.0);
        assert_eq!(gx[i], 10.0 * mask);
    }
    assert_eq!(gs, &vec![0.0, 0.0]);
}

/// `sdy.sharding_constraint` is an identity whose tangent and cotangent keep the layout
/// request: the gradient of sum(c(x)·x) is 2x, and the backward sweep constrains the
/// cotangent too.
#[test]
fn sharding_constraint_differentiates_as_an_identity() {
    let m = module(
        r#"module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<4xf64>) -> tensor<f64> {
    %c = sdy.sharding_constraint %x <@mesh, [{"x"}]> : tensor<4xf64>
    %p = stablehlo.multiply %c, %x : tensor<4xf64>
    %z = stablehlo.constant dense<0.0> : tensor<f64>
    %s = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf64>, tensor<f64>) -> tensor<f64>
    return %s : tensor<f64>
  }
}"#,
    );
    let grad = systolic_autodiff::vjp_in_module(&m, "main", &[0]).unwrap();
    let text = text_of(&grad);
    let constraints = count(&grad, |k| matches!(k, OpKind::ShardingConstraint(_)));
    assert!(constraints >= 2, "{text}");
    let x = Tensor::from_f64(vec![4], DType::F64, vec![0.3, -0.2, 0.9, 1.1]).unwrap();
    let ct = Tensor::from_f64(vec![], DType::F64, vec![1.0]).unwrap();
    let out = run(&grad, vec![x, ct]);
    assert_eq!(out.last().unwrap(), &vec![0.6, -0.4, 1.8, 2.2], "{text}");
    let tangent = systolic_autodiff::jvp_in_module(&m, "main").unwrap();
    assert!(
        count(&tangent, |k| matches!(k, OpKind::ShardingConstraint(_))) >= 2,
        "{}",
        text_of(&tangent)
    );
}
