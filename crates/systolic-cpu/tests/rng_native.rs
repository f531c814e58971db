//! `stablehlo.rng` and sub-byte `rng_bit_generator` compiled natively against the reference
//! interpreter (whose definition of the implementation-defined `rng` the backend follows):
//! bit for bit, every dtype, sizes 0, 1, odd and large (threads), bounds of every kind.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, Tensor, TensorType};

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

fn rng_case(distribution: &str, a: Tensor, b: Tensor, shape: &[i64]) -> Case {
    let dtype = a.dtype();
    let out = ty(shape, dtype);
    let dims: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    let ops = format!(
        "  %s = stablehlo.constant dense<[{}]> : tensor<{}xi64>\n  %r0 = stablehlo.rng %a0, %a1, %s, distribution = {distribution} : ({}, {}, tensor<{}xi64>) -> {out}",
        dims.join(", "),
        shape.len(),
        a.ty(),
        b.ty(),
        shape.len()
    );
    Case::with_inputs(vec![a, b], &ops, &[out])
}

fn scalar_f64(dtype: DType, x: f64) -> Tensor {
    Tensor::from_f64(vec![], dtype, vec![x]).unwrap()
}

const SHAPES: [&[i64]; 6] = [&[], &[0], &[1], &[7], &[3, 5], &[130, 257]];

/// Every float dtype and shape: `dist` with each fixed parameter pair, then with a random pair
/// (NaN, infinities and huge values among them); native and bit for bit the interpreter's.
fn check_float_distribution(dist: &str, seed: u64, params: &[(f64, f64)]) {
    let mut rng = Rng::new(seed);
    for dtype in [DType::F32, DType::F64, DType::BF16, DType::F16] {
        for shape in SHAPES {
            for &(a, b) in params {
                let case = rng_case(dist, scalar_f64(dtype, a), scalar_f64(dtype, b), shape);
                check(&case, Tolerance::Exact, Expect::Native);
            }
            let (a, b) = (
                random::tensor(&mut rng, &ty(&[], dtype)),
                random::tensor(&mut rng, &ty(&[], dtype)),
            );
            check(
                &rng_case(dist, a, b, shape),
                Tolerance::Exact,
                Expect::Native,
            );
        }
    }
}

#[test]
fn rng_uniform_floats() {
    check_float_distribution(
        "UNIFORM",
        501,
        &[
            (0.0, 1.0),
            (-3.5, 2.25),
            (1.0, 1.0),
            (2.0, -1.0),
            (0.0, 1e-30),
            (1.0, 1.0078125),
        ],
    );
}

#[test]
fn rng_normal_floats() {
    check_float_distribution("NORMAL", 502, &[(0.0, 1.0), (3.0, 0.5), (-1.0, 0.0)]);
}

#[test]
fn rng_uniform_integers_and_booleans() {
    let mut rng = Rng::new(503);
    for dtype in [
        DType::I64,
        DType::I32,
        DType::I16,
        DType::I8,
        DType::I4,
        DType::I2,
        DType::U64,
        DType::U32,
        DType::U16,
        DType::U8,
        DType::U4,
        DType::U2,
        DType::Bool,
    ] {
        for shape in SHAPES {
            for _ in 0..3 {
                let (a, b) = (
                    random::tensor(&mut rng, &ty(&[], dtype)),
                    random::tensor(&mut rng, &ty(&[], dtype)),
                );
                check(
                    &rng_case("UNIFORM", a, b, shape),
                    Tolerance::Exact,
                    Expect::Native,
                );
            }
        }
    }
}

#[test]
fn rng_bit_generator_sub_byte_results() {
    let mut rng = Rng::new(504);
    for dtype in [DType::I4, DType::I2, DType::U4, DType::U2] {
        for shape in SHAPES {
            for (algorithm, words) in [
                ("THREE_FRY", 2),
                ("PHILOX", 2),
                ("PHILOX", 3),
                ("DEFAULT", 2),
            ] {
                let state = ty(&[words], DType::U64);
                let out = ty(shape, dtype);
                let inputs = vec![random::tensor(&mut rng, &state)];
                let ops = format!(
                    "  %r0, %r1 = stablehlo.rng_bit_generator %a0, algorithm = {algorithm} : ({state}) -> ({state}, {out})"
                );
                let case = Case::with_inputs(inputs, &ops, &[state.clone(), out.clone()]);
                check(&case, Tolerance::Exact, Expect::Native);
            }
        }
    }
}
