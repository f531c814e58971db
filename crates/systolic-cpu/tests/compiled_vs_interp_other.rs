//! Compiled vs interpreter for the remaining op kinds: reduce_precision, map, the deprecated
//! broadcast and dot, get_dimension_size, composite, replica_id/partition_id on one device, and
//! the batch-norm ops.

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
    check_many(3000, 24, Exact, Expect::Any, |rng| {
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
    check_many(3001, 12, Exact, Expect::Any, |rng| {
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

#[test]
fn deprecated_broadcast_and_dot() {
    check_many(3002, 12, Exact, Expect::Any, |rng| {
        let a = TensorType::new(shape(rng), *rng.pick(&DType::ALL));
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
        Expect::Any,
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
    check(&case, Exact, Expect::Any);
}

/// Training, inference and gradient batch norms over a random feature dimension (compared
/// within 1e-4: the kernels may sum in another order).
#[test]
fn batch_norm_ops() {
    let tol = Close {
        rtol: 1e-4,
        atol: 1e-4,
    };
    check_many(3005, 8, tol, Expect::Any, |rng| {
        let a = TensorType::new(vec![2, 3, 2], DType::F32);
        let f = rng.below(3) as i64;
        let v = TensorType::new(vec![a.shape[f as usize]], DType::F32);
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
    });
}
