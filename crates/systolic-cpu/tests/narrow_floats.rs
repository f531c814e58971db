//! Narrow floats (f8/f6/f4) compiled: the CPU buffers hold their codes and every op on them
//! runs on the interpreter fallback (`kernels::touches_narrow_float`), so the compiled results
//! must be the interpreter's bit for bit, through the optimising pipeline and without it. Every
//! code of every format goes through `convert` both ways, NaNs included.

use crate::support;
use support::compare::Tolerance::Exact;
use support::harness::{check, check_many, Case, Expect};
use support::random;
use systolic_ir::{DType, Tensor, TensorType};

fn t(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

/// Every code of `d`, in order.
fn every_code(d: DType) -> Tensor {
    let n = 1u64 << d.bit_width();
    Tensor::from_bits(t(&[n as i64], d), &(0..n).collect::<Vec<_>>()).unwrap()
}

#[test]
fn every_code_converts_both_ways() {
    for d in DType::NARROW_FLOATS {
        let x = every_code(d);
        let n = x.num_elements() as i64;
        let c = t(&[n], d);
        for other in [DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32] {
            let o = t(&[n], other);
            let case = Case::with_inputs(
                vec![x.clone()],
                &format!(
                    "  %r0 = stablehlo.convert %a0 : ({c}) -> {o}\n  %r1 = stablehlo.convert %r0 : ({o}) -> {c}"
                ),
                &[o.clone(), c.clone()],
            );
            check(&case, Exact, Expect::Any);
        }
        // To every other narrow float: overflow, NaN and zero rules meet each other.
        for other in DType::NARROW_FLOATS {
            let o = t(&[n], other);
            let case = Case::with_inputs(
                vec![x.clone()],
                &format!("  %r0 = stablehlo.convert %a0 : ({c}) -> {o}"),
                &[o],
            );
            check(&case, Exact, Expect::Any);
        }
    }
}

#[test]
fn arithmetic_products_and_movement_match_the_interpreter() {
    for d in DType::NARROW_FLOATS {
        let x = every_code(d);
        let n = x.num_elements() as i64;
        let c = t(&[n], d);
        let half = n / 2;
        let h = t(&[half], d);
        let m = t(&[2, half], d);
        let mt = t(&[half, 2], d);
        let f = t(&[2, 2], DType::F32);
        let ops = format!(
            "  %rev = stablehlo.reverse %a0, dims = [0] : {c}
  %r0 = stablehlo.add %a0, %rev : {c}
  %r1 = stablehlo.multiply %a0, %rev : {c}
  %r2 = stablehlo.divide %a0, %rev : {c}
  %lo = stablehlo.slice %a0 [0:{half}] : ({c}) -> {h}
  %r3 = stablehlo.sqrt %lo : {h}
  %r4 = stablehlo.reshape %a0 : ({c}) -> {m}
  %r5 = stablehlo.transpose %r4, dims = [1, 0] : ({m}) -> {mt}
  %r6 = stablehlo.dot_general %r4, %r5, contracting_dims = [1] x [0] : ({m}, {mt}) -> {f}
  %r7 = stablehlo.maximum %a0, %rev : {c}"
        );
        let case = Case::with_inputs(
            vec![x],
            &ops,
            &[c.clone(), c.clone(), c.clone(), h, m, mt, f, c.clone()],
        );
        check(&case, Exact, Expect::Any);
    }
}

/// An fp8 matmul as training code writes it: scale to the fp8 range, convert, multiply with
/// f32 accumulation, unscale.
#[test]
fn scaled_fp8_products() {
    check_many(401, 12, Exact, Expect::Any, |rng| {
        let d = *rng.pick(&[DType::F8E4M3FN, DType::F8E5M2, DType::F8E4M3FNUZ]);
        let (a, b, r) = (
            t(&[4, 8], DType::F32),
            t(&[8, 3], DType::F32),
            t(&[4, 3], DType::F32),
        );
        let (a8, b8) = (t(&[4, 8], d), t(&[8, 3], d));
        let s = t(&[], DType::F32);
        let inputs = vec![
            random::tensor(rng, &a),
            random::tensor(rng, &b),
            Tensor::from_f64(vec![], DType::F32, vec![0.5]).unwrap(),
        ];
        let ops = format!(
            "  %sa = stablehlo.broadcast_in_dim %a2, dims = [] : ({s}) -> {a}
  %xa = stablehlo.multiply %a0, %sa : {a}
  %qa = stablehlo.convert %xa : ({a}) -> {a8}
  %qb = stablehlo.convert %a1 : ({b}) -> {b8}
  %p = stablehlo.dot_general %qa, %qb, contracting_dims = [1] x [0] : ({a8}, {b8}) -> {r}
  %sr = stablehlo.broadcast_in_dim %a2, dims = [] : ({s}) -> {r}
  %r0 = stablehlo.divide %p, %sr : {r}"
        );
        Case::with_inputs(inputs, &ops, &[r])
    });
}
