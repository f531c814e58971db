//! Finite-difference and consistency checks of rules with no JAX export on CPU (JAX lowers
//! these to LAPACK custom calls): triangular_solve and cholesky, real and complex; and of
//! select_and_scatter (which JAX's max-pool gradients contain) and deprecated ops.

use crate::pairing::{dot, shifted};
use systolic_interp::{Interpreter, Value};
use systolic_ir::text::parse_module;
use systolic_ir::{Complex64, DType, Data, Func, Module, Tensor, TensorType};

fn run(f: &Func, args: Vec<Tensor>) -> Vec<Tensor> {
    let m = Module {
        funcs: vec![f.clone()],
        ..Module::default()
    };
    Interpreter::new(&m)
        .call(&f.name, args.into_iter().map(Value::Tensor).collect())
        .unwrap()
        .into_iter()
        .map(|v| v.into_tensor().unwrap())
        .collect()
}

/// A deterministic pseudo-random f64 tensor.
fn rand(shape: &[i64], seed: u64) -> Tensor {
    let n: i64 = shape.iter().product();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let v = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect();
    Tensor::from_f64(shape.to_vec(), DType::F64, v).unwrap()
}

/// A deterministic pseudo-random tensor of `like`'s type (f64 or complex128).
fn rand_like(like: &Tensor, seed: u64) -> Tensor {
    if !like.dtype().is_complex() {
        return rand(like.shape(), seed);
    }
    let re = rand(like.shape(), seed).to_f64_vec();
    let im = rand(like.shape(), seed + 1000).to_f64_vec();
    let z = re
        .iter()
        .zip(im)
        .map(|(&a, b)| Complex64::new(a, b))
        .collect();
    Tensor::new(like.ty().clone(), Data::Complex(z)).unwrap()
}

/// Checks forward mode against central differences and reverse mode against forward mode.
fn check(text: &str, args: Vec<Tensor>) {
    let m = parse_module(text, "numeric").unwrap();
    let f = &m.funcs[0];
    let n = args.len();
    let tangents: Vec<Tensor> = args
        .iter()
        .enumerate()
        .map(|(i, a)| rand_like(a, 100 + i as u64))
        .collect();
    let jf = systolic_autodiff::jvp(f).unwrap();
    let mut ins = args.clone();
    ins.extend(tangents.iter().cloned());
    let out = run(&jf, ins);
    let nout = out.len() / 2;
    let eps = 1e-6;
    let plus = run(
        f,
        args.iter()
            .zip(&tangents)
            .map(|(a, t)| shifted(a, t, eps))
            .collect(),
    );
    let minus = run(
        f,
        args.iter()
            .zip(&tangents)
            .map(|(a, t)| shifted(a, t, -eps))
            .collect(),
    );
    for k in 0..nout {
        let fd: Vec<f64> = plus[k]
            .to_f64_vec()
            .iter()
            .zip(minus[k].to_f64_vec())
            .map(|(p, m)| (p - m) / (2.0 * eps))
            .collect();
        let got = out[nout + k].to_f64_vec();
        for (g, w) in got.iter().zip(&fd) {
            assert!(
                (g - w).abs() < 1e-5 * (1.0 + w.abs()),
                "jvp {g} vs fd {w}\n{got:?}\n{fd:?}"
            );
        }
    }
    let wrt: Vec<usize> = (0..n).collect();
    let df = systolic_autodiff::vjp(f, &wrt).unwrap();
    let cts: Vec<Tensor> = out[..nout]
        .iter()
        .enumerate()
        .map(|(k, o)| rand_like(o, 200 + k as u64))
        .collect();
    let mut ins = args.clone();
    ins.extend(cts.iter().cloned());
    let back = run(&df, ins);
    let lhs: f64 = (0..n).map(|i| dot(&back[nout + i], &tangents[i])).sum();
    let rhs: f64 = (0..nout).map(|k| dot(&cts[k], &out[nout + k])).sum();
    assert!(
        (lhs - rhs).abs() < 1e-9 * (1.0 + lhs.abs()),
        "<vjp, t> = {lhs}, <ct, jvp> = {rhs}"
    );
}

/// A well-conditioned lower-triangular-ish matrix (full: solves read one triangle).
fn well_conditioned(n: i64, seed: u64) -> Tensor {
    let r = rand(&[n, n], seed).to_f64_vec();
    let v = (0..n * n)
        .map(|i| {
            let (a, b) = (i / n, i % n);
            if a == b {
                2.0 + r[i as usize].abs()
            } else {
                0.3 * r[i as usize]
            }
        })
        .collect();
    Tensor::from_f64(vec![n, n], DType::F64, v).unwrap()
}

#[test]
fn triangular_solve_all_forms() {
    for left in [true, false] {
        for lower in [true, false] {
            for (trans, unit) in [
                ("NO_TRANSPOSE", false),
                ("TRANSPOSE", true),
                ("ADJOINT", false),
            ] {
                let bshape = if left { "3x2" } else { "2x3" };
                let text = format!(
                    r#"func.func @main(%a: tensor<3x3xf64>, %b: tensor<{bshape}xf64>) -> tensor<{bshape}xf64> {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {left}, lower = {lower}, unit_diagonal = {unit}, transpose_a = #stablehlo<transpose {trans}>}} : (tensor<3x3xf64>, tensor<{bshape}xf64>) -> tensor<{bshape}xf64>
  return %0 : tensor<{bshape}xf64>
}}"#
                );
                let b = if left {
                    rand(&[3, 2], 7)
                } else {
                    rand(&[2, 3], 7)
                };
                check(&text, vec![well_conditioned(3, 3), b]);
            }
        }
    }
}

#[test]
fn cholesky_lower_and_upper() {
    // A = M Mᵀ + 3 I, symmetric positive definite.
    let m = rand(&[3, 3], 11).to_f64_vec();
    let mut a = vec![0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            a[i * 3 + j] = (0..3).map(|k| m[i * 3 + k] * m[j * 3 + k]).sum::<f64>()
                + if i == j { 3.0 } else { 0.0 };
        }
    }
    let a = Tensor::from_f64(vec![3, 3], DType::F64, a).unwrap();
    for lower in [true, false] {
        // Symmetrise the input so the perturbed matrix stays symmetric, as JAX's rule assumes.
        let text = format!(
            r#"func.func @main(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {{
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %s = stablehlo.add %a, %t : tensor<3x3xf64>
  %0 = "stablehlo.cholesky"(%s) {{lower = {lower}}} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %c = stablehlo.constant dense<0.0> : tensor<f64>
  %z = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f64>) -> tensor<3x3xf64>
  %r = stablehlo.iota dim = 0 : tensor<3x3xi32>
  %k = stablehlo.iota dim = 1 : tensor<3x3xi32>
  %m = stablehlo.compare {dir}, %r, %k : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  %1 = stablehlo.select %m, %0, %z : tensor<3x3xi1>, tensor<3x3xf64>
  return %1 : tensor<3x3xf64>
}}"#,
            dir = if lower { "GE" } else { "LE" }
        );
        check(&text, vec![a.clone()]);
    }
}

/// `a` as complex128 with an imaginary part, kept well conditioned (the diagonal's real part
/// dominates).
fn complexified(a: &Tensor, seed: u64) -> Tensor {
    let im = rand(a.shape(), seed).to_f64_vec();
    let z = a
        .to_f64_vec()
        .iter()
        .zip(im)
        .map(|(&re, im)| Complex64::new(re, 0.3 * im))
        .collect();
    Tensor::new(
        TensorType::new(a.shape().to_vec(), DType::C128),
        Data::Complex(z),
    )
    .unwrap()
}

#[test]
fn complex_triangular_solve_all_forms() {
    for left in [true, false] {
        for lower in [true, false] {
            for trans in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"] {
                let bshape = if left { "3x2" } else { "2x3" };
                let text = format!(
                    r#"func.func @main(%a: tensor<3x3xcomplex<f64>>, %b: tensor<{bshape}xcomplex<f64>>) -> tensor<{bshape}xcomplex<f64>> {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {left}, lower = {lower}, unit_diagonal = false, transpose_a = #stablehlo<transpose {trans}>}} : (tensor<3x3xcomplex<f64>>, tensor<{bshape}xcomplex<f64>>) -> tensor<{bshape}xcomplex<f64>>
  return %0 : tensor<{bshape}xcomplex<f64>>
}}"#
                );
                let shape = if left { [3, 2] } else { [2, 3] };
                let b = complexified(&rand(&shape, 7), 8);
                check(&text, vec![complexified(&well_conditioned(3, 3), 4), b]);
            }
        }
    }
}

#[test]
fn complex_cholesky_lower_and_upper() {
    // A = M Mᴴ + 3 I, Hermitian positive definite.
    let m = complexified(&rand(&[3, 3], 11), 12);
    let Data::Complex(mv) = m.data() else {
        unreachable!()
    };
    let mut a = vec![Complex64::new(0.0, 0.0); 9];
    for i in 0..3 {
        for j in 0..3 {
            a[i * 3 + j] = (0..3)
                .map(|k| mv[i * 3 + k] * mv[j * 3 + k].conj())
                .sum::<Complex64>()
                + if i == j {
                    Complex64::new(3.0, 0.0)
                } else {
                    Complex64::new(0.0, 0.0)
                };
        }
    }
    let a = Tensor::new(TensorType::new(vec![3, 3], DType::C128), Data::Complex(a)).unwrap();
    let c = "complex<f64>";
    for lower in [true, false] {
        // Hermitise the input (a + aᴴ) so the perturbed matrix stays Hermitian.
        let text = format!(
            r#"func.func @main(%a: tensor<3x3x{c}>) -> tensor<3x3x{c}> {{
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x3x{c}>) -> tensor<3x3x{c}>
  %re = stablehlo.real %t : (tensor<3x3x{c}>) -> tensor<3x3xf64>
  %im = stablehlo.imag %t : (tensor<3x3x{c}>) -> tensor<3x3xf64>
  %nim = stablehlo.negate %im : tensor<3x3xf64>
  %h = stablehlo.complex %re, %nim : tensor<3x3x{c}>
  %s = stablehlo.add %a, %h : tensor<3x3x{c}>
  %0 = "stablehlo.cholesky"(%s) {{lower = {lower}}} : (tensor<3x3x{c}>) -> tensor<3x3x{c}>
  %cz = stablehlo.constant dense<(0.0, 0.0)> : tensor<{c}>
  %z = stablehlo.broadcast_in_dim %cz, dims = [] : (tensor<{c}>) -> tensor<3x3x{c}>
  %r = stablehlo.iota dim = 0 : tensor<3x3xi32>
  %k = stablehlo.iota dim = 1 : tensor<3x3xi32>
  %m = stablehlo.compare {dir}, %r, %k : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  %1 = stablehlo.select %m, %0, %z : tensor<3x3xi1>, tensor<3x3x{c}>
  return %1 : tensor<3x3x{c}>
}}"#,
            dir = if lower { "GE" } else { "LE" }
        );
        check(&text, vec![a.clone()]);
    }
}

#[test]
fn select_and_scatter_is_linear_in_its_source() {
    let text = r#"func.func @main(%x: tensor<4x6xf64>, %s: tensor<2x3xf64>) -> tensor<4x6xf64> {
  %c = stablehlo.constant dense<0.0> : tensor<f64>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %c) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %p = stablehlo.compare GE, %a, %b : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %p = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %p : tensor<f64>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf64>, tensor<2x3xf64>, tensor<f64>) -> tensor<4x6xf64>
  %1 = stablehlo.multiply %0, %0 : tensor<4x6xf64>
  return %1 : tensor<4x6xf64>
}"#;
    check(text, vec![rand(&[4, 6], 5), rand(&[2, 3], 6)]);
}

#[test]
fn deprecated_dot_and_broadcast() {
    let text = r#"func.func @main(%x: tensor<3x4xf64>, %y: tensor<4xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.dot %x, %y : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64>
  %1 = stablehlo.broadcast %0, sizes = [2] : (tensor<3xf64>) -> tensor<2x3xf64>
  %2 = stablehlo.multiply %1, %1 : tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}"#;
    check(text, vec![rand(&[3, 4], 1), rand(&[4], 2)]);
}

#[test]
fn reduce_product_with_zeros() {
    let text = r#"func.func @main(%x: tensor<3x4x2xf64>) -> tensor<4xf64> {
  %c = stablehlo.constant dense<1.5> : tensor<f64>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.multiply across dimensions = [0, 2] : (tensor<3x4x2xf64>, tensor<f64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}"#;
    let mut v = rand(&[3, 4, 2], 9).to_f64_vec();
    v[0] = 0.0; // one zero in column 0
    v[3] = 0.0; // two zeros in column 1
    v[11] = 0.0;
    let x = Tensor::from_f64(vec![3, 4, 2], DType::F64, v).unwrap();
    check(text, vec![x]);
}

#[test]
fn variadic_reduce_with_used_values_is_refused() {
    let text = r#"func.func @main(%x: tensor<4xf64>, %i: tensor<4xi32>) -> tensor<f64> {
  %c = stablehlo.constant dense<0.0> : tensor<f64>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [0] : (tensor<4xf64>, tensor<4xi32>, tensor<f64>, tensor<i32>) -> (tensor<f64>, tensor<i32>)
   reducer(%a: tensor<f64>, %b: tensor<f64>) (%p: tensor<i32>, %q: tensor<i32>) {
    %s = stablehlo.add %a, %b : tensor<f64>
    %t = stablehlo.add %p, %q : tensor<i32>
    stablehlo.return %s, %t : tensor<f64>, tensor<i32>
  }
  return %0#0 : tensor<f64>
}"#;
    let m = parse_module(text, "variadic").unwrap();
    let e = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap_err();
    assert!(
        e.message.contains("stablehlo.reduce of several operands"),
        "{e}"
    );
}

#[test]
fn loops_and_branches_capturing_outer_values() {
    // The while body and the branches read %w from outside (not as carries/operands): its
    // cotangent accumulates across iterations.
    let text = r#"func.func @main(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<3xf64>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %s = stablehlo.sine %a : tensor<3xf64>
    %m = stablehlo.multiply %s, %w : tensor<3xf64>
    %q = stablehlo.add %m, %a : tensor<3xf64>
    stablehlo.return %i2, %q : tensor<i32>, tensor<3xf64>
  }
  %k = stablehlo.constant dense<1> : tensor<i32>
  %b = "stablehlo.case"(%k) ({
    %e = stablehlo.exponential %w : tensor<3xf64>
    stablehlo.return %e : tensor<3xf64>
  }, {
    %e = stablehlo.multiply %r#1, %w : tensor<3xf64>
    stablehlo.return %e : tensor<3xf64>
  }) : (tensor<i32>) -> tensor<3xf64>
  return %b : tensor<3xf64>
}"#;
    check(text, vec![rand(&[3], 21), rand(&[3], 22)]);
}

/// `chlo.ragged_dot` in `lax.ragged_dot`'s form (rows 0–1 in the first group, 2–4 in the
/// second, none in the third, row 5 in no group): forward mode against central differences and reverse mode (the
/// free-mode and contracting-mode transposes) against forward mode.
#[test]
fn ragged_dot_free_mode() {
    let text = "func.func @main(%l: tensor<6x3xf64>, %r: tensor<3x3x2xf64>) -> tensor<6x2xf64> {
  %g = stablehlo.constant dense<[2, 3, 0]> : tensor<3xi32>
  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<
    lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
    lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}
    : (tensor<6x3xf64>, tensor<3x3x2xf64>, tensor<3xi32>) -> tensor<6x2xf64>
  %1 = stablehlo.sine %0 : tensor<6x2xf64>
  return %1 : tensor<6x2xf64>
}";
    check(text, vec![rand(&[6, 3], 1), rand(&[3, 3, 2], 2)]);
}
