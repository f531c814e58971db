//! Sharding propagation against Shardy's, and the plan's reduction axes and reshards.
//!
//! The goldens in `tests/data/sharding_propagation/` come from
//! `scripts/sharding_propagation_goldens.py` (JAX 0.10.2, 8 host devices, mesh
//! `["data"=4, "model"=2]`): `NAME.mlir` is the module Shardy's propagation received (XLA's
//! dump `01.before_propagation.mlir`), `NAME.propagated.mlir` the module after it
//! (`02.after_propagation.mlir`). Each test runs `propagate_shardings` on the first and
//! compares every op result's sharding (constants aside), and the entry's argument and
//! result shardings, with the second; the annotated module must carry the same.

use super::common::parse;
use systolic_compiler::passes::sharding_propagation::{
    propagate_shardings, FactorKind, OpPlan, ReshardSite, ShardingPlan,
};
use systolic_ir::text::{parse_module, print_module, read_sharding_per_value};
use systolic_ir::walk::walk_ops;
use systolic_ir::{AxisRef, Func, Module, OpKind, SdySharding, Type, ValueId};

fn data(name: &str) -> String {
    let path = format!(
        "{}/tests/data/sharding_propagation/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `[{"data"}, {}]`: a sharding's dimensions (open/closed and priorities aside) and its
/// replicated axes, as text.
fn dims_text(s: &SdySharding) -> String {
    let dims: Vec<String> = s
        .dims
        .iter()
        .map(|d| {
            let axes: Vec<String> = d.axes.iter().map(axis_text).collect();
            format!("{{{}}}", axes.join(", "))
        })
        .collect();
    let mut out = format!("[{}]", dims.join(", "));
    if !s.replicated.is_empty() {
        let r: Vec<String> = s.replicated.iter().map(axis_text).collect();
        out.push_str(&format!(" replicated={{{}}}", r.join(", ")));
    }
    out
}

fn axis_text(a: &AxisRef) -> String {
    match a.sub_axis {
        Some((pre, k)) => format!("\"{}\":({pre}){k}", a.name),
        None => format!("\"{}\"", a.name),
    }
}

fn rank(func: &Func, v: ValueId) -> usize {
    match &func.values[v.index()].ty {
        Type::Tensor(t) => t.shape.len(),
        _ => 0,
    }
}

/// What no sharding means: every dimension unsharded.
fn replicated(rank: usize) -> String {
    format!("[{}]", vec!["{}"; rank].join(", "))
}

fn sharding_of(attrs: Option<&Vec<systolic_ir::NamedAttr>>) -> Option<SdySharding> {
    attrs?.iter().find_map(|a| match &a.value {
        systolic_ir::Attribute::SdySharding(s) if a.name == "sdy.sharding" => Some(s.clone()),
        _ => None,
    })
}

/// Per op of the entry (pre-order) and per result: Shardy's sharding as text; then the
/// entry's arguments and results.
fn shardy_answer(m: &Module) -> Vec<String> {
    let f = &m.funcs[0];
    let mut out = vec![];
    walk_ops(&f.body, &mut |op, _| {
        let listed = op
            .attrs
            .iter()
            .find_map(|a| (a.name == "sdy.sharding").then(|| read_sharding_per_value(&a.value)));
        let shardings: Vec<String> = match (&op.kind, listed) {
            (OpKind::ShardingConstraint(s), _) => vec![dims_text(s)],
            (_, Some(Some(Ok(list)))) => list.iter().map(dims_text).collect(),
            (_, Some(other)) => panic!("malformed sdy.sharding: {other:?}"),
            (_, None) => op.results.iter().map(|&v| replicated(rank(f, v))).collect(),
        };
        out.push(format!("{} -> {}", op.kind.name(), shardings.join(", ")));
    });
    for (i, &p) in f.params().iter().enumerate() {
        let s = sharding_of(f.arg_attrs.get(i));
        out.push(format!(
            "arg {i}: {}",
            s.map_or_else(|| replicated(rank(f, p)), |s| dims_text(&s))
        ));
    }
    for (i, ty) in f.result_types.iter().enumerate() {
        let r = match ty {
            Type::Tensor(t) => t.shape.len(),
            _ => 0,
        };
        let s = sharding_of(f.result_attrs.get(i));
        out.push(format!(
            "result {i}: {}",
            s.map_or_else(|| replicated(r), |s| dims_text(&s))
        ));
    }
    out
}

/// The same lines from a plan.
fn our_answer(m: &Module, plan: &ShardingPlan) -> Vec<String> {
    let f = &m.funcs[0];
    let text = |v: ValueId| {
        plan.sharding(v)
            .map_or_else(|| replicated(rank(f, v)), dims_text)
    };
    let mut out = vec![];
    walk_ops(&f.body, &mut |op, _| {
        let shardings: Vec<String> = op.results.iter().map(|&v| text(v)).collect();
        out.push(format!("{} -> {}", op.kind.name(), shardings.join(", ")));
    });
    for (i, &p) in f.params().iter().enumerate() {
        out.push(format!("arg {i}: {}", text(p)));
    }
    for (i, s) in plan.results.iter().enumerate() {
        out.push(format!(
            "result {i}: {}",
            s.as_ref().map_or_else(|| "none".to_string(), dims_text)
        ));
    }
    out
}

/// Propagates golden `name` and compares with Shardy, line by line; `differences` lists the
/// lines where Systolic decides otherwise on purpose, as (Shardy's line, ours): every line
/// equal to the first is expected to be the second.
fn golden(name: &str, differences: &[(&str, &str)]) -> (Module, ShardingPlan) {
    let input = parse(&data(&format!("{name}.mlir")));
    let expected = parse_module(&data(&format!("{name}.propagated.mlir")), "expected")
        .unwrap_or_else(|d| panic!("{d}"));
    let plan = propagate_shardings(&input, "main").unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut want = shardy_answer(&expected);
    for (theirs, ours) in differences {
        let mut found = false;
        for l in want.iter_mut().filter(|l| l == theirs) {
            *l = ours.to_string();
            found = true;
        }
        assert!(
            found,
            "{name}: no line {theirs:?} in Shardy's answer {want:#?}"
        );
    }
    // Constants are left out: Shardy's pipeline merges equal ones (so the op lists differ)
    // and shards none (a constant is made where it is used).
    let no_constants = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|l| !l.starts_with("stablehlo.constant"))
            .collect()
    };
    let want = no_constants(want);
    let got = no_constants(our_answer(&input, &plan));
    assert_eq!(got, want, "{name}: ours (left) vs Shardy's (right)");
    // The annotated module prints, parses back, verifies, and carries the same shardings.
    let annotated = plan.annotate(&input).expect("annotate");
    let reparsed = parse(&print_module(&annotated));
    assert_eq!(
        no_constants(shardy_answer(&reparsed)),
        want,
        "{name}: annotated module"
    );
    (input, plan)
}

/// The op at pre-order index `i` of the entry is `name`.
fn op_named<'p>(plan: &'p ShardingPlan, name: &str, nth: usize) -> &'p OpPlan {
    plan.ops
        .iter()
        .filter(|o| o.name == name)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {name} #{nth}"))
}

fn axes(list: &[AxisRef]) -> Vec<String> {
    list.iter().map(axis_text).collect()
}

/// MLP: x [B@data, D], w1 [D, H@model] → h [B@data, H@model] (no communication),
/// w2 [H@model, D] → the second product contracts over "model": partial sums.
#[test]
fn mlp_batch_and_model_shardings() {
    let (_, plan) = golden("mlp", &[]);
    let first = op_named(&plan, "stablehlo.dot", 0);
    assert!(first.reduction_axes.is_empty());
    assert!(first.reshards.is_empty(), "{:?}", first.reshards);
    let second = op_named(&plan, "stablehlo.dot", 1);
    assert_eq!(axes(&second.reduction_axes), ["\"model\""]);
    assert!(second.reshards.is_empty(), "{:?}", second.reshards);
    // Factors of (i,k),(k,j)->(i,j): i over "data", k over "model", j unsharded.
    let rule = second.rule.as_ref().expect("a dot computes");
    assert_eq!(rule.factors.len(), 3);
    let by_kind: Vec<(FactorKind, Vec<String>)> = rule
        .factors
        .iter()
        .zip(&second.factor_axes)
        .map(|(f, a)| (f.kind, axes(a)))
        .collect();
    assert!(by_kind.contains(&(FactorKind::Reduction, vec!["\"model\"".to_string()])));
    assert!(by_kind.contains(&(FactorKind::Pass, vec!["\"data\"".to_string()])));
}

#[test]
fn elementwise_chains_forward_and_backward() {
    golden("elementwise_forward", &[]);
    // Arguments without shardings take the result's (propagated backward through `mul` and
    // `sin`).
    golden("elementwise_backward", &[]);
}

/// A sum over the "model"-sharded dimension and a max over the "data"-sharded one.
#[test]
fn reductions_over_sharded_dimensions_report_their_axes() {
    let (_, plan) = golden("reduce_sharded", &[]);
    let sum = op_named(&plan, "stablehlo.reduce", 0);
    assert_eq!(axes(&sum.reduction_axes), ["\"model\""]);
    let max = op_named(&plan, "stablehlo.reduce", 1);
    assert_eq!(axes(&max.reduction_axes), ["\"data\""]);
}

#[test]
fn reshapes_split_and_merge_sharded_dimensions() {
    // [16@data, 8] -> [4, 4, 8]: "data" (4) fills the new major dimension.
    golden("reshape_split", &[]);
    // [16@data, 8] -> [2, 8, 8]: "data" is split into sub-axes "data":(1)2, "data":(2)2;
    // the entry's result takes no sub-axes, so the return reshards.
    let (_, plan) = golden("reshape_subaxes", &[]);
    let ret = op_named(&plan, "func.return", 0);
    assert_eq!(ret.reshards.len(), 1);
    assert_eq!(ret.reshards[0].at, ReshardSite::Operand(0));
    assert_eq!(dims_text(&ret.reshards[0].to), "[{}, {}, {}]");
    // [8@data, 8@model, 8] -> [64, 8]: "data" (4) does not fill dimension 0 (8), so
    // "model" on dimension 1 cannot follow it into the merged dimension: the reshape's
    // operand is resharded (the "model" axis gathered).
    let (_, plan) = golden("reshape_merge", &[]);
    let reshape = op_named(&plan, "stablehlo.reshape", 0);
    assert_eq!(reshape.reshards.len(), 1, "{:?}", reshape.reshards);
    assert_eq!(
        dims_text(&reshape.reshards[0].from),
        "[{\"data\"}, {\"model\"}, {}]"
    );
    assert_eq!(dims_text(&reshape.reshards[0].to), "[{\"data\"}, {}, {}]");
}

#[test]
fn transposes_and_broadcasts_carry_shardings() {
    golden("transpose", &[]);
    golden("broadcast", &[]);
    golden("dot_batch", &[]);
}

/// A constraint in the middle: the value it constrains (used only by it) takes its
/// sharding, so "data" from the argument stops there; an open constraint dimension grows.
#[test]
fn constraints_in_the_middle() {
    let (_, plan) = golden("constraint_middle", &[]);
    // `sin` reads the argument [data, -] and computes [-, model]: a reshard of its operand.
    let sin = op_named(&plan, "stablehlo.sine", 0);
    assert_eq!(sin.reshards.len(), 1);
    assert_eq!(dims_text(&sin.reshards[0].to), "[{}, {\"model\"}]");
    golden("open_constraint", &[]);
}

/// x [16@data, 32] + y [16@model, 32]: the two shardings of one factor conflict, so nothing
/// propagates (as Shardy) and both operands are gathered for the add.
#[test]
fn conflicting_shardings_resolve_deterministically() {
    let (_, plan) = golden("conflict", &[]);
    let add = op_named(&plan, "stablehlo.add", 0);
    let reshards: Vec<(ReshardSite, String, String)> = add
        .reshards
        .iter()
        .map(|r| (r.at, dims_text(&r.from), dims_text(&r.to)))
        .collect();
    assert_eq!(
        reshards,
        [
            (
                ReshardSite::Operand(0),
                "[{\"data\"}, {}]".into(),
                "[{}, {}]".into()
            ),
            (
                ReshardSite::Operand(1),
                "[{\"model\"}, {}]".into(),
                "[{}, {}]".into()
            ),
        ]
    );
}

/// Slices and a concatenate along the "model"-sharded dimension. Shardy propagates through
/// the sliced and concatenated dimension (the partitioner then moves data between devices);
/// Systolic's rules need that dimension whole for now, so it stays unsharded after the
/// slices and the slices' operand is gathered along "model".
#[test]
fn slices_and_concatenates_need_their_dimension_whole() {
    let (_, plan) = golden(
        "slice_concat",
        &[
            (
                "stablehlo.slice -> [{\"data\"}, {\"model\"}]",
                "stablehlo.slice -> [{\"data\"}, {}]",
            ),
            (
                "stablehlo.broadcast_in_dim -> [{\"data\"}, {\"model\"}]",
                "stablehlo.broadcast_in_dim -> [{\"data\"}, {}]",
            ),
            (
                "stablehlo.multiply -> [{\"data\"}, {\"model\"}]",
                "stablehlo.multiply -> [{\"data\"}, {}]",
            ),
            (
                "stablehlo.concatenate -> [{\"data\"}, {\"model\"}]",
                "stablehlo.concatenate -> [{\"data\"}, {}]",
            ),
            (
                "result 0: [{\"data\"}, {\"model\"}]",
                "result 0: [{\"data\"}, {}]",
            ),
        ],
    );
    let slice = op_named(&plan, "stablehlo.slice", 0);
    assert_eq!(dims_text(&slice.reshards[0].to), "[{\"data\"}, {}]");
}

/// a [16@data, 8] @ b [8, 32@data]: the result cannot be sharded over "data" twice; the
/// factor whose source is the larger tensor (b, 256 elements against 128) takes it, as in
/// Shardy's aggressive propagation. a's "data" must then be gathered for the product.
#[test]
fn an_axis_two_factors_want_goes_to_the_larger_source() {
    let (_, plan) = golden("dot_axis_conflict", &[]);
    let dot = op_named(&plan, "stablehlo.dot", 0);
    assert_eq!(dot.reshards.len(), 1);
    assert_eq!(dot.reshards[0].at, ReshardSite::Operand(0));
    assert_eq!(dims_text(&dot.reshards[0].to), "[{}, {}]");
}

/// Softmax over the "model"-sharded dimension: both reductions (max, then the sum of the
/// exponentials) are partial over "model"; everything else stays [data, model].
#[test]
fn softmax_on_a_sharded_axis() {
    let (_, plan) = golden("softmax", &[]);
    let reduces: Vec<Vec<String>> = plan
        .ops
        .iter()
        .filter(|o| o.name == "stablehlo.reduce")
        .map(|o| axes(&o.reduction_axes))
        .collect();
    assert_eq!(reduces, [["\"model\""], ["\"model\""]]);
}

const MESH: &str = r#"sdy.mesh @mesh = <["data"=4, "model"=2]>"#;

fn program(body: &str) -> Module {
    parse(&format!("module {{\n  {MESH}\n{body}\n}}"))
}

fn result_text(m: &Module, plan: &ShardingPlan, nth_op: usize) -> String {
    let mut found = None;
    let mut i = 0;
    walk_ops(&m.funcs[0].body, &mut |op, _| {
        if i == nth_op {
            found = op.results.first().copied();
        }
        i += 1;
    });
    dims_text(
        plan.sharding(found.expect("op has a result"))
            .expect("sharded"),
    )
}

/// Open dimensions grow, closed ones do not: x's open dimension 1 takes "model" from y; y's
/// closed dimension 0 stays unsharded, so the add reshards y.
#[test]
fn open_dimensions_grow_closed_ones_do_not() {
    let m = program(
        r#"  func.func @main(%x: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {?}]>},
                  %y: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) -> tensor<16x32xf32> {
    %0 = stablehlo.add %x, %y : tensor<16x32xf32>
    return %0 : tensor<16x32xf32>
  }"#,
    );
    let plan = propagate_shardings(&m, "main").unwrap();
    assert_eq!(
        dims_text(plan.params[0].as_ref().unwrap()),
        "[{\"data\"}, {\"model\"}]"
    );
    assert_eq!(
        dims_text(plan.params[1].as_ref().unwrap()),
        "[{}, {\"model\"}]"
    );
    assert_eq!(result_text(&m, &plan, 0), "[{\"data\"}, {\"model\"}]");
    let add = &plan.ops[0];
    assert_eq!(add.reshards.len(), 1);
    assert_eq!(add.reshards[0].at, ReshardSite::Operand(1));
    assert_eq!(dims_text(&add.reshards[0].to), "[{\"data\"}, {\"model\"}]");
}

/// User priorities: in round p0 only p0 dimensions propagate, so the p0 sharding wins a
/// conflict that without priorities would leave the result unsharded.
#[test]
fn user_priorities_decide_conflicts() {
    let src = |pa: &str, pb: &str| {
        program(&format!(
            r#"  func.func @main(%a: tensor<16x32xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data", ?}}{pa}, {{?}}]>}},
                  %b: tensor<16x32xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"model", ?}}{pb}, {{?}}]>}}) -> tensor<16x32xf32> {{
    %0 = stablehlo.add %a, %b : tensor<16x32xf32>
    return %0 : tensor<16x32xf32>
  }}"#
        ))
    };
    let run = |m: Module| {
        let plan = propagate_shardings(&m, "main").unwrap();
        result_text(&m, &plan, 0)
    };
    assert_eq!(run(src("", "")), "[{}, {}]");
    assert_eq!(run(src("p1", "p0")), "[{\"model\"}, {}]");
    assert_eq!(run(src("p0", "p1")), "[{\"data\"}, {}]");
}

/// A while loop is a data-flow edge: the body's values take the carried value's sharding,
/// and the result follows.
#[test]
fn while_loops_propagate_through_their_body() {
    let m = program(
        r#"  func.func @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<16x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<16x8xf32>
      cond {
        %k = stablehlo.constant dense<3> : tensor<i32>
        %p = stablehlo.compare LT, %i, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %n = stablehlo.add %i, %one : tensor<i32>
        %t = stablehlo.tanh %v : tensor<16x8xf32>
        stablehlo.return %n, %t : tensor<i32>, tensor<16x8xf32>
      }
    return %0#1 : tensor<16x8xf32>
  }"#,
    );
    let plan = propagate_shardings(&m, "main").unwrap();
    let tanh = plan
        .ops
        .iter()
        .find(|o| o.name == "stablehlo.tanh")
        .expect("tanh");
    assert_eq!(
        dims_text(plan.sharding(tanh.results[0]).unwrap()),
        "[{\"data\"}, {}]"
    );
    assert_eq!(
        dims_text(plan.results[0].as_ref().unwrap()),
        "[{\"data\"}, {}]"
    );
    assert!(plan.ops.iter().all(|o| o.reshards.is_empty()));
}

/// A reshape whose result is sharded on its minor dimension only: the operand's merged
/// dimension cannot be sharded that way (it would stride), which the plan says.
#[test]
fn a_sharding_that_cannot_pass_a_reshape_is_noted() {
    let m = program(
        r#"  func.func @main(%x: tensor<64xf32>) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) {
    %0 = stablehlo.reshape %x : (tensor<64xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }"#,
    );
    let plan = propagate_shardings(&m, "main").unwrap();
    assert_eq!(dims_text(plan.params[0].as_ref().unwrap()), "[{}]");
    assert_eq!(result_text(&m, &plan, 0), "[{}, {\"model\"}]");
    let reshape = &plan.ops[0];
    assert!(
        reshape
            .notes
            .iter()
            .any(|n| n.contains("cannot pass through to operand 0")),
        "{:?}",
        reshape.notes
    );
}

/// A custom call is a barrier: its sharded operand is gathered, nothing propagates across.
#[test]
fn custom_calls_are_barriers() {
    let m = program(
        r#"  func.func @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<16x8xf32> {
    %0 = stablehlo.custom_call @foo(%x) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.negate %0 : tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }"#,
    );
    let plan = propagate_shardings(&m, "main").unwrap();
    assert_eq!(result_text(&m, &plan, 1), "[{}, {}]");
    assert_eq!(plan.ops[0].reshards.len(), 1);
    assert_eq!(dims_text(&plan.ops[0].reshards[0].to), "[{}, {}]");
}

#[test]
fn bad_shardings_are_errors_naming_what_is_wrong() {
    // Parsed without the test helper's verification: propagation checks its input itself.
    let bad = |sharding: &str| {
        let src = format!(
            "module {{\n  {MESH}\n{}\n}}",
            format_args!(
                r#"  func.func @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sharding}>}}) -> tensor<16x8xf32> {{
    return %x : tensor<16x8xf32>
  }}"#
            )
        );
        let m = parse_module(&src, "bad.mlir").unwrap_or_else(|d| panic!("{d}"));
        propagate_shardings(&m, "main").unwrap_err()
    };
    let e = bad(r#"[{"pipe"}, {}]"#);
    assert!(e.contains("parameter #0") && e.contains("pipe"), "{e}");
    let e = bad(r#"[{"data"}, {"data"}]"#);
    assert!(e.contains("more than once"), "{e}");
    let m = program(
        r#"  func.func @main(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
    return %x : tensor<16x8xf32>
  }"#,
    );
    assert!(propagate_shardings(&m, "nope")
        .unwrap_err()
        .contains("no function @nope"));
}

/// A shard_map (manual computation): its operand takes its `in_shardings` backward, its
/// result starts as its `out_shardings` and flows on; the manual body is not propagated.
#[test]
fn manual_computations_fix_their_boundary() {
    let m = program(
        r#"  func.func @main(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
    %n = stablehlo.negate %x : tensor<16x8xf32>
    %0 = sdy.manual_computation(%n) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"data", "model"} (%a: tensor<4x8xf32>) {
      %t = stablehlo.tanh %a : tensor<4x8xf32>
      sdy.return %t : tensor<4x8xf32>
    } : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.exponential %0 : tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }"#,
    );
    let plan = propagate_shardings(&m, "main").unwrap();
    assert_eq!(
        dims_text(plan.params[0].as_ref().unwrap()),
        "[{\"data\"}, {}]"
    );
    assert_eq!(result_text(&m, &plan, 0), "[{\"data\"}, {}]");
    assert_eq!(result_text(&m, &plan, 4), "[{\"data\"}, {}]");
    let tanh = plan
        .ops
        .iter()
        .find(|o| o.name == "stablehlo.tanh")
        .unwrap();
    assert!(tanh.manual && plan.sharding(tanh.results[0]).is_none());
    let annotated = plan.annotate(&m).unwrap();
    parse(&print_module(&annotated));
}

/// Every op of the JAX goldens and the interpreter's check files, on a 2x2 mesh, with the
/// first argument (where there is a tensor one) sharded: propagation finishes without error, every
/// reshard and reduction names mesh axes, and the annotated module verifies.
#[test]
fn every_op_of_the_corpora_propagates() {
    use super::common::{check_file_pieces, goldens};
    use systolic_ir::{DimSharding, NamedAttr, SdyMesh, Visibility};
    let mut corpus: Vec<(String, Module, String)> = goldens()
        .into_iter()
        .map(|g| {
            let entry = super::common::entry_name(&g.module);
            (g.name, g.module, entry)
        })
        .collect();
    for (name, m) in check_file_pieces() {
        for f in &m.funcs {
            if f.visibility == Visibility::Public {
                corpus.push((name.clone(), m.clone(), f.name.clone()));
            }
        }
    }
    assert!(corpus.len() > 100, "{} programs", corpus.len());
    let (mut propagated, mut sharded) = (0, 0);
    for (name, mut m, entry) in corpus {
        if !m.meshes.is_empty() {
            continue;
        }
        m.meshes.push(SdyMesh {
            name: "mesh".into(),
            axes: vec![("x".into(), 2), ("y".into(), 2)],
            device_ids: None,
        });
        let f = m.funcs.iter_mut().find(|f| f.name == entry).unwrap();
        let rank = f
            .params()
            .first()
            .and_then(|&p| match &f.values[p.index()].ty {
                Type::Tensor(t) if !t.shape.is_empty() => Some(t.shape.len()),
                _ => None,
            });
        if let Some(rank) = rank {
            let mut dims = vec![
                DimSharding {
                    axes: vec![],
                    closed: false,
                    priority: None,
                };
                rank
            ];
            dims[0].axes.push(AxisRef {
                name: "x".into(),
                sub_axis: None,
            });
            f.arg_attrs.resize(f.params().len(), vec![]);
            f.arg_attrs[0].push(NamedAttr::new(
                "sdy.sharding",
                systolic_ir::Attribute::SdySharding(SdySharding {
                    mesh: "mesh".into(),
                    dims,
                    replicated: vec![],
                    unreduced: vec![],
                }),
            ));
            sharded += 1;
        }
        let plan =
            propagate_shardings(&m, &entry).unwrap_or_else(|e| panic!("{name} @{entry}: {e}"));
        for op in &plan.ops {
            for a in op.reduction_axes.iter() {
                assert!(["x", "y"].contains(&a.name.as_str()), "{name}: {a:?}");
            }
        }
        let annotated = plan.annotate(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(ds) = systolic_ir::verify::verify_module(&annotated) {
            panic!("{name} @{entry}: {}", ds[0]);
        }
        propagated += 1;
    }
    assert!(
        propagated > 250 && sharded > 25,
        "{propagated} programs propagated, {sharded} with a sharded argument"
    );
}
