//! Compiled vs interpreter for the remaining op kinds: reduce_precision, map, the deprecated
//! broadcast and dot, get_dimension_size, composite, replica_id/partition_id and the
//! collectives on one device, and the batch-norm ops. Map, the device ids, the collectives and
//! the batch norms have no kernel family: the optimising pipeline's expanders rewrite them
//! (`Expect::Expanded`). reduce_precision and the deprecated broadcast and dot have kernels
//! (`Expect::Native`).

use crate::support;

use support::compare::Tolerance::{Close, Exact};
use support::harness::{check, check_many, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, TensorType};

const FLOATS: [DType; 4] = [DType::F16, DType::BF16, DType::F32, DType::F64];

fn shape(rng: &mut Rng) -> Vec<i64> {
    let rank = rng.below(3) as usize;
    random::shape(rng, rank)
}

#[test]
fn reduce_precision_to_every_small_format() {
    check_many(3000, 24, Exact, Expect::Native, |rng| {
        let a = TensorType::new(shape(rng), *rng.pick(&FLOATS));
        let (e, m) = *rng.pick(&[(5, 10), (8, 7), (5, 2), (4, 3), (8, 23), (2, 1)]);
        let text = format!("  %r0 = stablehlo.reduce_precision %a0, format = e{e}m{m} : {a}");
        Case::new(
            rng,
            std::slice::from_ref(&a),
            &text,
            std::slice::from_ref(&a),
        )
    });
}

#[test]
fn map_with_a_two_operand_body() {
    check_many(3001, 12, Exact, Expect::Expanded, |rng| {
        let rank = 1 + rng.below(2) as usize;
        let a = TensorType::new(random::shape(rng, rank), *rng.pick(&FLOATS));
        let s = TensorType::scalar(a.dtype);
        let dims: Vec<String> = (0..rank).map(|d| d.to_string()).collect();
        let text = format!(
            "  %r0 = \"stablehlo.map\"(%a0, %a1) <{{dimensions = array<i64: {}>}}> ({{
  ^bb0(%x: {s}, %y: {s}):
    %m = stablehlo.multiply %x, %y : {s}
    %z = stablehlo.subtract %m, %x : {s}
    stablehlo.return %z : {s}
  }}) : ({a}, {a}) -> {a}",
            dims.join(", ")
        );
        Case::new(rng, &[a.clone(), a.clone()], &text, &[a])
    });
}

/// A map body with a constant, a scalar read from outside the region, a comparison and a
/// conversion to another element type.
#[test]
fn map_with_constants_captured_scalars_and_conversions() {
    check_many(3006, 8, Exact, Expect::Expanded, |rng| {
        let rank = rng.below(3) as usize;
        let a = TensorType::new(random::shape(rng, rank), DType::F32);
        let out = a.with_dtype(DType::I32);
        let dims: Vec<String> = (0..rank).map(|d| d.to_string()).collect();
        let text = format!(
            "  %k = stablehlo.constant dense<0.5> : tensor<f32>
  %r0 = \"stablehlo.map\"(%a0, %a1) <{{dimensions = array<i64{}>}}> ({{
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.constant dense<3.0> : tensor<f32>
    %m = stablehlo.multiply %x, %c : tensor<f32>
    %n = stablehlo.add %m, %k : tensor<f32>
    %p = stablehlo.compare GT, %n, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %s = stablehlo.select %p, %n, %y : tensor<i1>, tensor<f32>
    %i = stablehlo.convert %s : (tensor<f32>) -> tensor<i32>
    stablehlo.return %i : tensor<i32>
  }}) : ({a}, {a}) -> {out}",
            if dims.is_empty() {
                String::new()
            } else {
                format!(": {}", dims.join(", "))
            }
        );
        Case::new(rng, &[a.clone(), a.clone()], &text, &[out])
    });
}

#[test]
fn deprecated_broadcast_and_dot() {
    check_many(3002, 12, Exact, Expect::Native, |rng| {
        let a = TensorType::new(shape(rng), *rng.pick(&support::REAL_DTYPES));
        let sizes = [2i64, 0, 3];
        let n = 1 + rng.below(3) as usize;
        let mut out: Vec<i64> = sizes[..n].to_vec();
        out.extend(&a.shape);
        let r = TensorType::new(out, a.dtype);
        let list: Vec<String> = sizes[..n].iter().map(|x| x.to_string()).collect();
        let text = format!(
            "  %r0 = \"stablehlo.broadcast\"(%a0) {{broadcast_sizes = array<i64: {}>}} : ({a}) -> {r}",
            list.join(", ")
        );
        Case::new(rng, std::slice::from_ref(&a), &text, &[r])
    });
    // Matrix × vector with small integers: exact in any order.
    let mut rng = Rng::new(3003);
    let (m, v, r) = (
        TensorType::new(vec![3, 4], DType::I32),
        TensorType::new(vec![4], DType::I32),
        TensorType::new(vec![3], DType::I32),
    );
    let text = format!("  %r0 = \"stablehlo.dot\"(%a0, %a1) : ({m}, {v}) -> {r}");
    check(
        &Case::new(&mut rng, &[m, v], &text, &[r]),
        Exact,
        Expect::Native,
    );
}

#[test]
fn get_dimension_size_composite_and_device_ids() {
    let text = "func.func @main(%a0: tensor<2x5xf32>) -> (tensor<i32>, tensor<2x5xf32>, tensor<ui32>, tensor<ui32>) {
  %r0 = stablehlo.get_dimension_size %a0, dim = 1 : (tensor<2x5xf32>) -> tensor<i32>
  %r1 = \"stablehlo.composite\"(%a0) {name = \"my.double\", decomposition = @double, composite_attributes = {k = 1 : i64}, version = 1 : i32} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %r2 = stablehlo.replica_id : tensor<ui32>
  %r3 = stablehlo.partition_id : tensor<ui32>
  return %r0, %r1, %r2, %r3 : tensor<i32>, tensor<2x5xf32>, tensor<ui32>, tensor<ui32>
}
func.func private @double(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.add %x, %x : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}";
    let mut rng = Rng::new(3004);
    let a = random::tensor(&mut rng, &TensorType::new(vec![2, 5], DType::F32));
    let case = Case {
        text: text.to_string(),
        inputs: vec![a],
    };
    check(&case, Exact, Expect::Expanded);
}

/// Collectives with one participant are identities (a permute nobody sends to gives zeros);
/// sharding annotations are identities.
#[test]
fn collectives_on_one_device() {
    check_many(3007, 6, Exact, Expect::Expanded, |rng| {
        let a = TensorType::new(
            shape(rng),
            *rng.pick(&[DType::F32, DType::I32, DType::BF16]),
        );
        let s = TensorType::scalar(a.dtype);
        let one = "replica_groups = dense<[[0]]> : tensor<1x1xi64>";
        let text = format!(
            "  %r0 = \"stablehlo.all_reduce\"(%a0) ({{
  ^bb0(%x: {s}, %y: {s}):
    %z = stablehlo.add %x, %y : {s}
    stablehlo.return %z : {s}
  }}) {{{one}}} : ({a}) -> {a}
  %g = \"stablehlo.all_gather\"(%a1) {{all_gather_dim = 0 : i64, {one}}} : ({a}) -> {a}
  %r1 = \"stablehlo.reduce_scatter\"(%g) ({{
  ^bb0(%x: {s}, %y: {s}):
    %z = stablehlo.maximum %x, %y : {s}
    stablehlo.return %z : {s}
  }}) {{scatter_dimension = 0 : i64, {one}}} : ({a}) -> {a}
  %t = \"stablehlo.all_to_all\"(%a0) {{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 1 : i64, {one}}} : ({a}) -> {a}
  %r2 = \"stablehlo.collective_broadcast\"(%t) {{{one}}} : ({a}) -> {a}
  %r3 = \"stablehlo.collective_permute\"(%a1) {{source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}} : ({a}) -> {a}
  %r4 = \"stablehlo.collective_permute\"(%a1) {{source_target_pairs = dense<> : tensor<0x2xi64>}} : ({a}) -> {a}
  %h = stablehlo.custom_call @Sharding(%a0) {{backend_config = \"\"}} : ({a}) -> {a}
  %f = stablehlo.custom_call @SPMDFullToShardShape(%h) {{backend_config = \"\"}} : ({a}) -> {a}
  %r5 = stablehlo.custom_call @SPMDShardToFullShape(%f) {{backend_config = \"\"}} : ({a}) -> {a}"
        );
        let scalar_shaped = a.rank() == 0;
        let text = if scalar_shaped {
            // all_gather, reduce_scatter and all_to_all need a dimension.
            text.replace("%g = \"stablehlo.all_gather\"(%a1) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}", "%g = \"stablehlo.collective_broadcast\"(%a1) {replica_groups = dense<[[0]]> : tensor<1x1xi64>}")
                .replace("{scatter_dimension = 0 : i64, ", "{")
                .replace("\"stablehlo.reduce_scatter\"", "\"stablehlo.all_reduce\"")
                .replace("\"stablehlo.all_to_all\"(%a0) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 1 : i64, ", "\"stablehlo.collective_broadcast\"(%a0) {")
        } else {
            text
        };
        Case::new(rng, &[a.clone(), a.clone()], &text, &vec![a.clone(); 6])
    });
}

/// Training, inference and gradient batch norms over a random feature dimension (compared
/// within 1e-4: the kernels may sum in another order).
#[test]
fn batch_norm_ops() {
    let tol = Close {
        rtol: 1e-4,
        atol: 1e-4,
    };
    check_many(3005, 8, tol, Expect::Expanded, |rng| {
        batch_norm_case(rng, TensorType::new(vec![2, 3, 2], DType::F32))
    });
}

/// The batch norms on every float type, ranks 1–4, feature counts 1 and odd, within a few
/// ulps of the type (the expansion computes f16 and bf16 in f32, f32 in f32, the interpreter
/// in f64).
#[test]
fn batch_norm_ops_in_every_float_type() {
    for (i, dtype) in FLOATS.into_iter().enumerate() {
        let t = match dtype {
            DType::F64 => 1e-12,
            DType::F32 => 1e-5,
            DType::F16 => 4e-3,
            _ => 2e-2,
        };
        let tol = Close { rtol: t, atol: t };
        check_many(3008 + i as u64, 6, tol, Expect::Expanded, |rng| {
            let rank = 1 + rng.below(4) as usize;
            let dims: Vec<i64> = (0..rank).map(|_| *rng.pick(&[1, 2, 3, 5, 7])).collect();
            batch_norm_case(rng, TensorType::new(dims, dtype))
        });
    }
}

/// Training on `a`, inference with its statistics, and the gradient, along a random feature
/// dimension.
fn batch_norm_case(rng: &mut Rng, a: TensorType) -> Case {
    let f = rng.below(a.rank() as u64) as i64;
    let v = TensorType::new(vec![a.shape[f as usize]], a.dtype);
    let text = format!(
        "  %r0, %r1, %r2 = \"stablehlo.batch_norm_training\"(%a0, %a1, %a2) {{epsilon = 1.0e-03 : f32, feature_index = {f} : i64}} : ({a}, {v}, {v}) -> ({a}, {v}, {v})
  %r3 = \"stablehlo.batch_norm_inference\"(%a0, %a1, %a2, %r1, %r2) {{epsilon = 1.0e-03 : f32, feature_index = {f} : i64}} : ({a}, {v}, {v}, {v}, {v}) -> {a}
  %r4, %r5, %r6 = \"stablehlo.batch_norm_grad\"(%a0, %a1, %r1, %r2, %a3) {{epsilon = 1.0e-03 : f32, feature_index = {f} : i64}} : ({a}, {v}, {v}, {v}, {a}) -> ({a}, {v}, {v})"
    );
    let inputs = [&a, &v, &v, &a]
        .into_iter()
        .map(|t| {
            let values = (0..t.num_elements())
                .map(|_| rng.unit() * 4.0 - 2.0)
                .collect();
            systolic_ir::Tensor::from_f64(t.shape.clone(), t.dtype, values).unwrap()
        })
        .collect();
    let results = [&a, &v, &v, &a, &a, &v, &v].map(|t| (*t).clone());
    Case::with_inputs(inputs, &text, &results)
}
