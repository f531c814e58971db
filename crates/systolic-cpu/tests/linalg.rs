//! Compiled cholesky and triangular_solve against the reference interpreter. Both compute in
//! f64 with the interpreter's operation order and round once, so the stated tolerance is exact
//! (bit for bit) for every float type; batched, 0- and 1-size, every flag combination, and the
//! NaN matrix of a failed factorisation.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::Rng;
use systolic_ir::{numerics, DType, Tensor, TensorType};

const FLOATS: [DType; 4] = [DType::F32, DType::F64, DType::BF16, DType::F16];

/// A tensor of `shape` from f64 values rounded to `dtype`.
fn tensor(shape: &[i64], dtype: DType, values: &[f64]) -> Tensor {
    let bits: Vec<u64> = values
        .iter()
        .map(|&x| numerics::float_to_bits(dtype, numerics::round_to(dtype, x)))
        .collect();
    Tensor::from_bits(TensorType::new(shape.to_vec(), dtype), &bits).unwrap()
}

/// Batches of n×n matrices: symmetric positive definite (M·Mᵀ + n·I) unless `indefinite`.
fn spd(rng: &mut Rng, batch: usize, n: usize, indefinite: bool) -> Vec<f64> {
    let mut out = vec![];
    for _ in 0..batch {
        let m: Vec<f64> = (0..n * n).map(|_| rng.unit() * 2.0 - 1.0).collect();
        for i in 0..n {
            for j in 0..n {
                let mut s: f64 = (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum();
                if i == j {
                    s += if indefinite {
                        -(n as f64) * 3.0
                    } else {
                        n as f64
                    };
                }
                out.push(s);
            }
        }
    }
    out
}

#[test]
fn cholesky_batched_every_float_type() {
    let mut rng = Rng::new(51);
    for dtype in FLOATS {
        for (batch_shape, n, indefinite) in [
            (vec![], 4, false),
            (vec![3], 5, false),
            (vec![2, 2], 3, false),
            (vec![2], 1, false),
            (vec![2], 0, false),
            (vec![0], 3, false),
            (vec![2], 3, true),
            (vec![4], 17, false),
        ] {
            let batch: usize = batch_shape.iter().product::<i64>() as usize;
            let mut shape = batch_shape.clone();
            shape.extend([n as i64, n as i64]);
            let a = tensor(&shape, dtype, &spd(&mut rng, batch, n, indefinite));
            let ty = a.ty().clone();
            for lower in [true, false] {
                let ops = format!("  %r0 = stablehlo.cholesky %a0, lower = {lower} : {ty}");
                let case = Case::with_inputs(vec![a.clone()], &ops, std::slice::from_ref(&ty));
                check(&case, Tolerance::Exact, Expect::Native);
            }
        }
    }
}

#[test]
fn triangular_solve_every_flag_combination() {
    let mut rng = Rng::new(52);
    for dtype in FLOATS {
        for (batch_shape, m, k) in [
            (vec![], 4, 3),
            (vec![2], 5, 1),
            (vec![3], 1, 2),
            (vec![2], 6, 0),
        ] {
            let batch: usize = batch_shape.iter().product::<i64>() as usize;
            // Diagonally dominant, so every solve is well conditioned.
            let a_vals: Vec<f64> = (0..batch * m * m)
                .map(|i| {
                    let (r, c) = ((i / m) % m, i % m);
                    let x = rng.unit() * 2.0 - 1.0;
                    if r == c {
                        x.signum() * (m as f64 + 1.0) + x
                    } else {
                        x
                    }
                })
                .collect();
            let mut a_shape = batch_shape.clone();
            a_shape.extend([m as i64, m as i64]);
            let a = tensor(&a_shape, dtype, &a_vals);
            for left_side in [true, false] {
                let mut b_shape = batch_shape.clone();
                if left_side {
                    b_shape.extend([m as i64, k as i64]);
                } else {
                    b_shape.extend([k as i64, m as i64]);
                }
                let b_vals: Vec<f64> = (0..batch * m * k).map(|_| rng.unit() * 8.0 - 4.0).collect();
                let b = tensor(&b_shape, dtype, &b_vals);
                for lower in [true, false] {
                    for unit in [true, false] {
                        for transpose in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"] {
                            let ops = format!(
                                "  %r0 = \"stablehlo.triangular_solve\"(%a0, %a1) {{left_side = {left_side}, lower = {lower}, unit_diagonal = {unit}, transpose_a = #stablehlo<transpose {transpose}>}} : ({}, {}) -> {}",
                                a.ty(), b.ty(), b.ty()
                            );
                            let case = Case::with_inputs(
                                vec![a.clone(), b.clone()],
                                &ops,
                                &[b.ty().clone()],
                            );
                            check(&case, Tolerance::Exact, Expect::Native);
                        }
                    }
                }
            }
        }
    }
}

/// The ops of the CLI's JAX golden `name` that run on the interpreter fallback when compiled.
fn golden_fallbacks(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../systolic-cli/tests/data")
        .join(name)
        .join("module.mlir");
    let module = support::parse(&std::fs::read_to_string(path).unwrap());
    let exe = support::compile_main(&module);
    exe.fallback_ops().iter().map(|f| f.op.clone()).collect()
}

#[test]
fn jax_linalg_goldens_run_natively() {
    let fallbacks = golden_fallbacks("linalg");
    assert!(
        !fallbacks
            .iter()
            .any(|op| op.contains("cholesky") || op.contains("triangular")),
        "{fallbacks:?}"
    );
}
