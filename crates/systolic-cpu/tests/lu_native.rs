//! The CPU backend's own `getrf` (real LU with partial pivoting, `kernels/lapack/lu.rs`)
//! against the interpreter, which runs faer's: random matrices of f32 and f64, square, tall
//! and wide, batched and alone, below, at and above the panel width. The two factor in other
//! orders of the same sums, so the pivots and `info` must be equal and the packed `L\U`
//! within a tolerance scaled to its magnitude; `P·A = L·U` is checked too, so a wrong factor
//! that both agreed on could not pass.

use crate::support;

use support::compare::{mismatches, Tolerance};
use support::random::Rng;
use systolic_ir::{numerics, DType, Tensor, TensorType};

/// JAX's CPU lowering of `lu` for a `shape` matrix of `dtype`: LAPACK's `getrf`.
fn getrf_module(shape: &[i64], dtype: DType) -> String {
    let r = shape.len();
    let (m, n) = (shape[r - 2], shape[r - 1]);
    let batch = &shape[..r - 2];
    let dims = |s: &[i64]| -> String { s.iter().map(|d| format!("{d}x")).collect::<String>() };
    let ty = |s: &[i64], t: &str| format!("tensor<{}{t}>", dims(s));
    let a = ty(shape, &dtype.to_string());
    let mut ipiv_shape = batch.to_vec();
    ipiv_shape.push(m.min(n));
    let ipiv = ty(&ipiv_shape, "i32");
    let info = ty(batch, "i32");
    let target = if dtype == DType::F32 {
        "sgetrf"
    } else {
        "dgetrf"
    };
    // Column-major matrices, batch dimensions outermost; row-major vectors: JAX's layouts.
    let index_list = |l: Vec<usize>| {
        let l: Vec<String> = l.iter().map(|d| d.to_string()).collect();
        if l.is_empty() {
            "dense<> : tensor<0xindex>".to_string()
        } else {
            format!("dense<[{}]> : tensor<{}xindex>", l.join(", "), l.len())
        }
    };
    let matrix_layout = |rank: usize| {
        let mut l = vec![rank - 2, rank - 1];
        l.extend((0..rank - 2).rev());
        index_list(l)
    };
    let row_major = |rank: usize| index_list((0..rank).rev().collect());
    format!(
        "func.func @main(%a0: {a}) -> ({a}, {ipiv}, {info}) {{\n  %r:3 = stablehlo.custom_call @lapack_{target}_ffi(%a0) {{mhlo.backend_config = {{}}, operand_layouts = [{}], result_layouts = [{}, {}, {}]}} : ({a}) -> ({a}, {ipiv}, {info})\n  return %r#0, %r#1, %r#2 : {a}, {ipiv}, {info}\n}}\n",
        matrix_layout(r),
        matrix_layout(r),
        row_major(ipiv_shape.len()),
        row_major(batch.len()),
    )
}

/// Uniform values in [-1, 1) of `shape`, rounded to `dtype`.
fn random_matrix(rng: &mut Rng, shape: &[i64], dtype: DType) -> Tensor {
    let n: i64 = shape.iter().product();
    let bits: Vec<u64> = (0..n)
        .map(|_| {
            let x = rng.unit() * 2.0 - 1.0;
            numerics::float_to_bits(dtype, numerics::round_to(dtype, x))
        })
        .collect();
    Tensor::from_bits(TensorType::new(shape.to_vec(), dtype), &bits).unwrap()
}

/// The largest `|P·A - L·U|` relative to `A`'s largest element, over the batch.
fn reconstruction_error(a: &Tensor, lu: &Tensor, ipiv: &Tensor) -> f64 {
    let shape = a.shape();
    let r = shape.len();
    let (m, n) = (shape[r - 2] as usize, shape[r - 1] as usize);
    let k = m.min(n);
    let (a, lu, ipiv) = (a.to_f64_vec(), lu.to_f64_vec(), ipiv.to_f64_vec());
    let scale = a
        .iter()
        .fold(0.0f64, |s, v| s.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let mut worst = 0.0f64;
    for b in 0..a.len() / (m * n).max(1) {
        let mut pa = a[b * m * n..(b + 1) * m * n].to_vec();
        let lu = &lu[b * m * n..(b + 1) * m * n];
        for (i, &p) in ipiv[b * k..(b + 1) * k].iter().enumerate() {
            let p = p as usize - 1;
            for c in 0..n {
                pa.swap(i * n + c, p * n + c);
            }
        }
        for i in 0..m {
            for j in 0..n {
                let s: f64 = (0..k.min(i + 1).min(j + 1))
                    .map(|t| {
                        if t == i {
                            lu[t * n + j]
                        } else {
                            lu[i * n + t] * lu[t * n + j]
                        }
                    })
                    .sum();
                worst = worst.max((s - pa[i * n + j]).abs() / scale);
            }
        }
    }
    worst
}

#[test]
fn native_getrf_matches_the_interpreter_on_random_matrices() {
    let mut rng = Rng::new(19);
    let shapes: [&[i64]; 9] = [
        &[4, 4],
        &[3, 7, 7],
        &[2, 9, 4],
        &[2, 4, 9],
        &[32, 32],
        &[2, 70, 70],
        &[3, 100, 45],
        &[2, 45, 100],
        &[4, 1, 1],
    ];
    for dtype in [DType::F32, DType::F64] {
        for shape in shapes {
            let module = support::parse(&getrf_module(shape, dtype));
            let a = random_matrix(&mut rng, shape, dtype);
            let inputs = vec![a.clone()];
            let want = support::interpret(&module, &inputs).unwrap();
            let exe = support::compile_main(&module);
            assert!(
                exe.fallback_ops().is_empty(),
                "{shape:?} {dtype}: getrf on the fallback"
            );
            let got = support::run_compiled(&exe, &inputs).unwrap();
            let what = format!("{shape:?} {dtype}");
            // Pivots and info exactly; the factors to a tolerance scaled to their magnitude.
            for i in [1, 2] {
                let bad = mismatches(&got[i], &want[i], Tolerance::Exact);
                assert!(bad.is_empty(), "{what}: out{i} differs: {bad:?}");
            }
            let rtol = if dtype == DType::F32 { 1e-4 } else { 1e-12 };
            let bad = mismatches(&got[0], &want[0], Tolerance::scaled_to(&want[0], rtol));
            assert!(
                bad.is_empty(),
                "{what}: L\\U differs: {:?}",
                &bad[..bad.len().min(3)]
            );
            let err = reconstruction_error(&a, &got[0], &got[1]);
            let bound = if dtype == DType::F32 { 1e-5 } else { 1e-13 };
            assert!(err < bound, "{what}: P·A = L·U off by {err:e}");
        }
    }
}

#[test]
fn native_getrf_reports_a_singular_matrix_as_lapack_does() {
    // The second column is twice the first: U[1,1] is exactly zero after one step (the
    // multipliers are powers of two, so every step is exact).
    let values = [1.0, 2.0, 3.0, 2.0, 4.0, 1.0, 4.0, 8.0, 2.0];
    for dtype in [DType::F32, DType::F64] {
        let bits: Vec<u64> = values
            .iter()
            .map(|&x| numerics::float_to_bits(dtype, x))
            .collect();
        let a = Tensor::from_bits(TensorType::new(vec![3, 3], dtype), &bits).unwrap();
        let module = support::parse(&getrf_module(&[3, 3], dtype));
        let inputs = vec![a];
        let want = support::interpret(&module, &inputs).unwrap();
        let got = support::run_compiled(&support::compile_main(&module), &inputs).unwrap();
        assert_eq!(got[2].to_f64_vec(), [2.0], "{dtype}: info");
        assert_eq!(got[2].to_f64_vec(), want[2].to_f64_vec(), "{dtype}: info");
        assert_eq!(got[1].to_f64_vec(), [3.0, 2.0, 3.0], "{dtype}: pivots");
        assert_eq!(got[1].to_f64_vec(), want[1].to_f64_vec(), "{dtype}: pivots");
        // LAPACK leaves the zero column's multipliers unscaled (finite); faer, under the
        // interpreter, divides them by the zero pivot. U's rows agree.
        let lu = got[0].to_f64_vec();
        assert!(lu.iter().all(|v| v.is_finite()), "{dtype}: {lu:?}");
        assert_eq!(
            lu,
            [4.0, 8.0, 2.0, 0.5, 0.0, 0.0, 0.25, 0.0, 2.5],
            "{dtype}"
        );
    }
}
