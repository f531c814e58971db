//! Replacing scatters whose indices repeat (`x.at[i].set(u)` with `i` repeating): one update
//! wins each location, and the gradient must reach that update only, never the losers nor the
//! overwritten operand element. JAX's winner is unspecified, so these programs (distinct
//! updates at duplicate indices) have no JAX golden; each one's reverse-mode gradient is
//! checked coordinate by coordinate against central differences of ⟨ȳ, f(x)⟩, its forward
//! mode against central differences along a direction, on the reference interpreter and on
//! the CPU backend (the winner the gradient assumes must be the one the forward scatter
//! picks on the backend that runs it). 1-d and windowed 2-d (overlapping windows, a window
//! out of bounds), scatter batching dimensions, f32 and f64; and a scatter with maximum.

use crate::pairing::dot;
use systolic_interp::{Interpreter, Value};
use systolic_ir::text::parse_module;
use systolic_ir::{DType, Data, Func, Module, Tensor, TensorType};

/// Where a program runs.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Interp,
    Cpu,
}

fn run(f: &Func, args: &[Tensor], on: Backend) -> Vec<Tensor> {
    let mut f = f.clone();
    f.name = "main".into();
    let m = Module {
        funcs: vec![f],
        ..Module::default()
    };
    match on {
        Backend::Interp => Interpreter::new(&m)
            .call("main", args.iter().cloned().map(Value::Tensor).collect())
            .unwrap()
            .into_iter()
            .map(|v| v.into_tensor().unwrap())
            .collect(),
        Backend::Cpu => {
            let exe = systolic_cpu::compile(&m, &systolic_cpu::CompileOptions::default())
                .unwrap_or_else(|e| panic!("compile: {e}"));
            exe.execute(
                args.iter()
                    .map(systolic_cpu::CpuBuffer::from_tensor)
                    .collect(),
            )
            .unwrap_or_else(|e| panic!("execute: {e}"))
            .iter()
            .map(|b| b.to_tensor())
            .collect()
        }
    }
}

fn floats(ty: &TensorType, v: Vec<f64>) -> Tensor {
    Tensor::new(ty.clone(), Data::Float(v)).unwrap()
}

/// Deterministic values in [-1, 1) of the given type.
fn values(ty: &TensorType, seed: u64) -> Tensor {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v = (0..ty.num_elements())
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Rounded to a multiple of 1/64 so f32 holds them exactly.
            ((s >> 11) % 128) as f64 / 64.0 - 1.0
        })
        .collect();
    floats(ty, v)
}

/// Checks the program `text` (float parameters first, then integer ones given in `ints`).
fn check(text: &str, ints: Vec<Tensor>, on: Backend) {
    let m = parse_module(text, "scatter").unwrap();
    let f = &m.funcs[0];
    let param_types: Vec<TensorType> = f
        .param_types()
        .iter()
        .map(|t| t.as_tensor().unwrap().clone())
        .collect();
    let nf = param_types.len() - ints.len();
    let dtype = param_types[0].dtype;
    let (eps, tol) = if dtype == DType::F64 {
        (1e-5, 1e-8)
    } else {
        (1.0 / 64.0, 2e-4)
    };
    let mut args: Vec<Tensor> = param_types[..nf]
        .iter()
        .enumerate()
        .map(|(k, t)| values(t, 1 + k as u64))
        .collect();
    args.extend(ints);
    let y = run(f, &args, on);
    let cts: Vec<Tensor> = y
        .iter()
        .enumerate()
        .map(|(k, o)| values(o.ty(), 50 + k as u64))
        .collect();
    let loss = |args: &[Tensor]| -> f64 {
        run(f, args, on)
            .iter()
            .zip(&cts)
            .map(|(o, c)| dot(o, c))
            .sum()
    };
    // Reverse mode: every coordinate of every float input against central differences.
    let wrt: Vec<usize> = (0..nf).collect();
    let df = systolic_autodiff::vjp(f, &wrt).unwrap();
    let mut ins = args.clone();
    ins.extend(cts.iter().cloned());
    let back = run(&df, &ins, on);
    for (k, o) in y.iter().enumerate() {
        assert_eq!(
            back[k].to_f64_vec(),
            o.to_f64_vec(),
            "{on:?}: vjp's primal output {k} differs from the function's"
        );
    }
    for i in 0..nf {
        let g = back[y.len() + i].to_f64_vec();
        let x = args[i].to_f64_vec();
        for j in 0..x.len() {
            let at = |s: f64| {
                let mut a = args.clone();
                let mut v = x.clone();
                v[j] += s;
                a[i] = floats(args[i].ty(), v);
                loss(&a)
            };
            let fd = (at(eps) - at(-eps)) / (2.0 * eps);
            assert!(
                (g[j] - fd).abs() <= tol * (1.0 + fd.abs()),
                "{on:?}: d/d(arg {i})[{j}]: vjp {} vs central differences {fd}\n{:?}",
                g[j],
                g
            );
        }
    }
    // Forward mode along a direction, and ⟨vjp(ȳ), ẋ⟩ = ⟨ȳ, jvp(ẋ)⟩.
    let jf = systolic_autodiff::jvp(f).unwrap();
    let mut tangents: Vec<Tensor> = param_types[..nf]
        .iter()
        .enumerate()
        .map(|(k, t)| values(t, 90 + k as u64))
        .collect();
    tangents.extend(args[nf..].iter().map(|a| Tensor::zeros(a.ty().clone())));
    let mut ins = args.clone();
    ins.extend(tangents.iter().cloned());
    let out = run(&jf, &ins, on);
    let shifted = |s: f64| -> Vec<Tensor> {
        args.iter()
            .zip(&tangents)
            .enumerate()
            .map(|(k, (a, t))| {
                if k >= nf {
                    return a.clone();
                }
                let v = a
                    .to_f64_vec()
                    .iter()
                    .zip(t.to_f64_vec())
                    .map(|(a, t)| a + s * t)
                    .collect();
                floats(a.ty(), v)
            })
            .collect()
    };
    let (plus, minus) = (run(f, &shifted(eps), on), run(f, &shifted(-eps), on));
    for k in 0..y.len() {
        let got = out[y.len() + k].to_f64_vec();
        let (p, q) = (plus[k].to_f64_vec(), minus[k].to_f64_vec());
        for (g, (p, q)) in got.iter().zip(p.iter().zip(q)) {
            let fd = (p - q) / (2.0 * eps);
            assert!(
                (g - fd).abs() <= tol * (1.0 + fd.abs()),
                "{on:?}: jvp {g} vs central differences {fd}\n{got:?}"
            );
        }
    }
    let lhs: f64 = (0..nf).map(|i| dot(&back[y.len() + i], &tangents[i])).sum();
    let rhs: f64 = (0..y.len()).map(|k| dot(&cts[k], &out[y.len() + k])).sum();
    assert!(
        (lhs - rhs).abs() <= tol * (1.0 + lhs.abs()),
        "{on:?}: <vjp, t> = {lhs}, <ct, jvp> = {rhs}"
    );
}

fn ints(shape: &[i64], v: &[i64]) -> Tensor {
    Tensor::new(
        TensorType::new(shape.to_vec(), DType::I32),
        Data::Int(v.to_vec()),
    )
    .unwrap()
}

const SET: &str = r#"({
    ^bb0(%a: tensor<T>, %b: tensor<T>):
      stablehlo.return %b : tensor<T>
    })"#;

/// `x.at[i].set(u * u) * x` on a vector, `i` = [1, 4, 1, 1, 7]: index 1 is written three
/// times, 7 is out of bounds (dropped).
fn one_d(t: &str) -> String {
    format!(
        r#"func.func @main(%x: tensor<6xT>, %u: tensor<5xT>, %i: tensor<5x1xi32>) -> tensor<6xT> {{
  %uu = stablehlo.multiply %u, %u : tensor<5xT>
  %s = "stablehlo.scatter"(%x, %i, %uu) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}}> {SET} : (tensor<6xT>, tensor<5x1xi32>, tensor<5xT>) -> tensor<6xT>
  %y = stablehlo.multiply %s, %x : tensor<6xT>
  return %y : tensor<6xT>
}}"#
    )
    .replace('T', t)
}

/// 2x3 windows of `u * u` into a 4x6 `x`, at (1, 1), (0, 2), (1, 1), (2, 3), (3, 5): the
/// windows overlap (the first and third coincide, the second covers part of them), and the
/// last does not fit (skipped whole). Multiplied by `x` so the operand has a gradient of its
/// own where nothing is written.
fn windowed(t: &str) -> String {
    format!(
        r#"func.func @main(%x: tensor<4x6xT>, %u: tensor<5x2x3xT>, %i: tensor<5x2xi32>) -> tensor<4x6xT> {{
  %uu = stablehlo.multiply %u, %u : tensor<5x2x3xT>
  %s = "stablehlo.scatter"(%x, %i, %uu) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}}> {SET} : (tensor<4x6xT>, tensor<5x2xi32>, tensor<5x2x3xT>) -> tensor<4x6xT>
  %y = stablehlo.multiply %s, %x : tensor<4x6xT>
  return %y : tensor<4x6xT>
}}"#
    )
    .replace('T', t)
}

/// As `vmap(lambda x, u, i: x.at[i].set(u))` lowers: dimension 0 is a batching dimension of
/// the operand and of the indices; each example has its own duplicates. The updates are an
/// operand's window of 2 along the last dimension.
fn batched(t: &str) -> String {
    format!(
        r#"func.func @main(%x: tensor<2x5x2xT>, %u: tensor<2x3x2xT>, %i: tensor<2x3x1xi32>) -> (tensor<2x5x2xT>, tensor<2x5x2xT>) {{
  %s = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}}> {SET} : (tensor<2x5x2xT>, tensor<2x3x1xi32>, tensor<2x3x2xT>) -> tensor<2x5x2xT>
  %y = stablehlo.multiply %s, %s : tensor<2x5x2xT>
  %e = stablehlo.exponential %x : tensor<2x5x2xT>
  %z = stablehlo.multiply %s, %e : tensor<2x5x2xT>
  return %y, %z : tensor<2x5x2xT>, tensor<2x5x2xT>
}}"#
    )
    .replace('T', t)
}

fn one_d_indices() -> Tensor {
    ints(&[5, 1], &[1, 4, 1, 1, 7])
}

fn windowed_indices() -> Tensor {
    ints(&[5, 2], &[1, 1, 0, 2, 1, 1, 2, 3, 3, 5])
}

fn batched_indices() -> Tensor {
    ints(&[2, 3, 1], &[4, 1, 4, 0, 0, 0])
}

#[test]
fn duplicates_1d_f64() {
    check(&one_d("f64"), vec![one_d_indices()], Backend::Interp);
}

#[test]
fn duplicates_1d_f32() {
    check(&one_d("f32"), vec![one_d_indices()], Backend::Interp);
}

#[test]
fn duplicates_windowed_f64() {
    check(&windowed("f64"), vec![windowed_indices()], Backend::Interp);
}

#[test]
fn duplicates_windowed_f32() {
    check(&windowed("f32"), vec![windowed_indices()], Backend::Interp);
}

#[test]
fn duplicates_batching_dims_f64() {
    check(&batched("f64"), vec![batched_indices()], Backend::Interp);
}

#[test]
fn duplicates_batching_dims_f32() {
    check(&batched("f32"), vec![batched_indices()], Backend::Interp);
}

/// The same programs compiled for the CPU backend: its scatter kernels pick the winner, and
/// the gradient must agree with them.
#[test]
fn duplicates_on_the_cpu_backend() {
    for t in ["f32", "f64"] {
        check(&one_d(t), vec![one_d_indices()], Backend::Cpu);
        check(&windowed(t), vec![windowed_indices()], Backend::Cpu);
        check(&batched(t), vec![batched_indices()], Backend::Cpu);
    }
}

/// Only the winner gets a cotangent: with ȳ = 1, x.at[i].set(u) gives u[j] a cotangent of 1
/// if update j won its location and 0 if it lost or was dropped, and x one of 1 exactly where
/// nothing was written (the last of equal indices wins on our backends, as the scatter
/// kernels document).
#[test]
fn only_the_winning_update_gets_a_cotangent() {
    let text = r#"func.func @main(%x: tensor<6xf32>, %u: tensor<5xf32>, %i: tensor<5x1xi32>) -> tensor<6xf32> {
  %s = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      stablehlo.return %b : tensor<f32>
    }) : (tensor<6xf32>, tensor<5x1xi32>, tensor<5xf32>) -> tensor<6xf32>
  return %s : tensor<6xf32>
}"#;
    let m = parse_module(text, "winner").unwrap();
    let df = systolic_autodiff::vjp(&m.funcs[0], &[0, 1]).unwrap();
    let args = vec![
        values(&TensorType::new(vec![6], DType::F32), 3),
        values(&TensorType::new(vec![5], DType::F32), 4),
        one_d_indices(),
        floats(&TensorType::new(vec![6], DType::F32), vec![1.0; 6]),
    ];
    for on in [Backend::Interp, Backend::Cpu] {
        let out = run(&df, &args, on);
        assert_eq!(
            out[1].to_f64_vec(),
            [1.0, 0.0, 1.0, 1.0, 0.0, 1.0],
            "{on:?}: x̄"
        );
        assert_eq!(out[2].to_f64_vec(), [0.0, 1.0, 0.0, 1.0, 0.0], "{on:?}: ū");
    }
}

/// Declared unique indices keep the direct rule (a replacing scatter of the tangents,
/// transposed into a gather), as JAX does when `unique_indices` is set: checked on a program
/// whose indices are indeed unique.
#[test]
fn declared_unique_indices() {
    let text = one_d("f64").replace("unique_indices = false", "unique_indices = true");
    check(
        &text,
        vec![ints(&[5, 1], &[1, 4, 0, 3, 7])],
        Backend::Interp,
    );
}

const MAX: &str = r#"({
    ^bb0(%a: tensor<T>, %b: tensor<T>):
      %m = stablehlo.maximum %a, %b : tensor<T>
      stablehlo.return %m : tensor<T>
    })"#;

/// `x.at[i].max(u * u) * x` with the duplicates of [`one_d`] (no ties at these values: the
/// tangent at a location is that of its maximum).
#[test]
fn maximum_with_duplicates() {
    for t in ["f64", "f32"] {
        let text = one_d(t).replace(&SET.replace('T', t), &MAX.replace('T', t));
        assert!(text.contains("stablehlo.maximum"));
        for on in [Backend::Interp, Backend::Cpu] {
            check(&text, vec![one_d_indices()], on);
        }
    }
}

/// A multiplying scatter: differentiable in its operand for any indices, in its updates
/// only with `unique_indices` (JAX refuses the same); the refusal names the op and types.
#[test]
fn multiply_updates_need_unique_indices() {
    let mul = r#"({
    ^bb0(%a: tensor<T>, %b: tensor<T>):
      %m = stablehlo.multiply %a, %b : tensor<T>
      stablehlo.return %m : tensor<T>
    })"#;
    let text = one_d("f64").replace(&SET.replace('T', "f64"), &mul.replace('T', "f64"));
    let m = parse_module(&text, "mul").unwrap();
    let e = systolic_autodiff::vjp(&m.funcs[0], &[0, 1]).unwrap_err();
    assert!(
        e.message.contains("stablehlo.scatter")
            && e.message.contains("unique_indices")
            && e.message.contains("6xf64"),
        "{e}"
    );
    systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap();
    let unique = text.replace("unique_indices = false", "unique_indices = true");
    check(
        &unique,
        vec![ints(&[5, 1], &[1, 4, 0, 3, 7])],
        Backend::Interp,
    );
    check(&unique, vec![ints(&[5, 1], &[1, 4, 0, 3, 7])], Backend::Cpu);
}
