//! Compiled rng_bit_generator against the reference interpreter, bit for bit: every algorithm,
//! 2- and 3-word PHILOX states, result shapes whose THREE_FRY word pairing differs (an even
//! dimension, all odd, rank 0, empty), every result width, and the new state.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, TensorType};

fn case(rng: &mut Rng, algorithm: &str, words: i64, state_dtype: DType, out: &TensorType) -> Case {
    let state = TensorType::new(vec![words], state_dtype);
    let inputs = vec![random::tensor(rng, &state)];
    let ops = format!(
        "  %r0, %r1 = stablehlo.rng_bit_generator %a0, algorithm = {algorithm} : ({state}) -> ({state}, {out})"
    );
    Case::with_inputs(inputs, &ops, &[state.clone(), out.clone()])
}

const SHAPES: [&[i64]; 8] = [
    &[],
    &[0],
    &[1],
    &[7],
    &[2, 3],
    &[3, 5],
    &[4, 1, 3],
    &[33, 65],
];
const DTYPES: [DType; 8] = [
    DType::U32,
    DType::U8,
    DType::I16,
    DType::U64,
    DType::I64,
    DType::F32,
    DType::F16,
    DType::BF16,
];

#[test]
fn three_fry_every_shape_and_width() {
    let mut rng = Rng::new(31);
    for shape in SHAPES {
        for dtype in DTYPES {
            let out = TensorType::new(shape.to_vec(), dtype);
            check(
                &case(&mut rng, "THREE_FRY", 2, DType::U64, &out),
                Tolerance::Exact,
                Expect::Native,
            );
        }
    }
}

#[test]
fn philox_two_and_three_word_states_and_default() {
    let mut rng = Rng::new(32);
    for shape in SHAPES {
        for dtype in DTYPES {
            let out = TensorType::new(shape.to_vec(), dtype);
            for (alg, words) in [("PHILOX", 2), ("PHILOX", 3), ("DEFAULT", 2)] {
                check(
                    &case(&mut rng, alg, words, DType::U64, &out),
                    Tolerance::Exact,
                    Expect::Native,
                );
            }
        }
    }
}

#[test]
fn large_draws_run_in_parallel() {
    let mut rng = Rng::new(33);
    let out = TensorType::new(vec![130, 257], DType::U32);
    check(
        &case(&mut rng, "THREE_FRY", 2, DType::U64, &out),
        Tolerance::Exact,
        Expect::Native,
    );
    check(
        &case(&mut rng, "PHILOX", 3, DType::U64, &out),
        Tolerance::Exact,
        Expect::Native,
    );
}
