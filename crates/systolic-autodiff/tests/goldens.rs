//! JAX golden gradients: each case is a forward program exported by JAX
//! (`tests/data/make_grad_goldens.py`, and `make_complex_grad_goldens.py` for complex values)
//! with JAX's VJP and JVP values. The program is differentiated here (reverse and forward
//! mode), run on the reference interpreter and compared with JAX; f64/c128 cases are also
//! checked against central finite differences, and every case for the consistency
//! ⟨vjp(ȳ), ẋ⟩ = ⟨ȳ, jvp(ẋ)⟩ under the pairing ⟨a, b⟩ = Re Σ a·b (no conjugation: JAX's).

use crate::pairing::{dot, from_f64s, shifted};
use serde_json::Value as Json;
use systolic_interp::{Interpreter, Value};
use systolic_ir::{Complex64, DType, Data, Func, Module, Tensor, TensorType};

fn tensor(j: &Json) -> Tensor {
    let shape: Vec<i64> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let dtype = match j["dtype"].as_str().unwrap() {
        "float64" => DType::F64,
        "float32" => DType::F32,
        "complex128" => DType::C128,
        "complex64" => DType::C64,
        "bfloat16" => DType::BF16,
        "float16" => DType::F16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "bool" => DType::Bool,
        d => panic!("dtype {d}"),
    };
    let data = j["data"].as_array().unwrap();
    let data = if dtype.is_complex() {
        Data::Complex(
            data.iter()
                .map(|z| {
                    let part = |k: usize| z[k].as_f64().unwrap_or(f64::NAN);
                    Complex64::new(part(0), part(1))
                })
                .collect(),
        )
    } else if dtype.is_float() {
        Data::Float(
            data.iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN))
                .collect(),
        )
    } else if dtype.is_bool() {
        Data::Bool(data.iter().map(|x| x.as_bool().unwrap()).collect())
    } else {
        Data::Int(data.iter().map(|x| x.as_i64().unwrap()).collect())
    };
    Tensor::new(TensorType::new(shape, dtype), data).unwrap()
}

fn run(f: &Func, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
    let m = Module {
        funcs: vec![f.clone()],
        ..Module::default()
    };
    let mut it = Interpreter::new(&m);
    let out = it
        .call(&f.name, args.into_iter().map(Value::Tensor).collect())
        .map_err(|e| e.to_string())?;
    Ok(out.into_iter().map(|v| v.into_tensor().unwrap()).collect())
}

/// Largest |a - b| / (tol + tol·|b|) over the elements; ≤ 1 passes.
fn mismatch(a: &Tensor, b: &Tensor, tol: f64) -> f64 {
    let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
    assert_eq!(x.len(), y.len());
    x.iter()
        .zip(&y)
        .map(|(p, q)| {
            if p == q || (p.is_nan() && q.is_nan()) {
                0.0
            } else {
                (p - q).abs() / (tol + tol * q.abs())
            }
        })
        .fold(0.0, f64::max)
}

/// Whether values of this type carry tangents (floats and complex numbers).
fn inexact(t: &Tensor) -> bool {
    t.dtype().is_float_or_complex()
}

fn check_case(c: &Json) -> Result<(), String> {
    let name = c["name"].as_str().unwrap();
    let tol = c["tol"].as_f64().unwrap();
    let module = systolic_ir::text::parse_module(c["mlir"].as_str().unwrap(), name)
        .map_err(|e| format!("parse: {e:?}"))?;
    let args: Vec<Tensor> = c["args"].as_array().unwrap().iter().map(tensor).collect();
    let outputs: Vec<Tensor> = c["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(tensor)
        .collect();
    let cts: Vec<Tensor> = c["cts"].as_array().unwrap().iter().map(tensor).collect();
    let n = args.len();
    let wrt: Vec<usize> = (0..n).collect();
    let floats: Vec<bool> = args.iter().map(inexact).collect();
    let fwd_only = name.starts_with("fwd_");
    let mut vjp_grads = vec![];
    if fwd_only {
        // Reverse mode refuses loops without a static trip count, naming the op.
        match systolic_autodiff::vjp_in_module(&module, "main", &wrt) {
            Err(e)
                if e.message.contains("stablehlo.while")
                    && e.message.contains("static trip count") => {}
            Err(e) => return Err(format!("{name}: unexpected error {e}")),
            Ok(_) => return Err(format!("{name}: reverse mode should refuse this loop")),
        }
    } else {
        // Reverse mode vs JAX.
        let df =
            systolic_autodiff::vjp_in_module(&module, "main", &wrt).map_err(|e| e.to_string())?;
        let mut inputs = args.clone();
        inputs.extend(cts.iter().cloned());
        let res = run(&df, inputs).map_err(|e| {
            format!(
                "vjp run: {e}\n{}",
                systolic_ir::text::print_module(&Module {
                    funcs: vec![df.clone()],
                    ..Module::default()
                })
            )
        })?;
        for (i, o) in outputs.iter().enumerate() {
            let m = mismatch(&res[i], o, tol);
            if m > 1.0 {
                return Err(format!("{name}: output {i} differs from JAX ({m:.3e})"));
            }
        }
        let grads = c["grads"].as_array().unwrap();
        for i in 0..n {
            let g = &res[outputs.len() + i];
            vjp_grads.push(g.clone());
            // (`jvponly_` cases: JAX has no reverse mode there; consistency checks ours.)
            if floats[i] && !grads[i].is_null() {
                let want = tensor(&grads[i]);
                let m = mismatch(g, &want, tol);
                if m > 1.0 {
                    return Err(format!(
                    "{name}: cotangent of argument {i} differs from JAX ({m:.3e} x tol)\n  got  {:?}\n  want {:?}",
                    &g.to_f64_vec()[..g.num_elements().min(8)],
                    &want.to_f64_vec()[..want.num_elements().min(8)]
                ));
                }
            }
        }
    }
    // Forward mode vs JAX.
    let jf = systolic_autodiff::jvp_in_module(&module, "main").map_err(|e| e.to_string())?;
    let tangents: Vec<Tensor> = c["tangents"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&args)
        .map(|(t, a)| {
            if t.is_null() {
                Tensor::zeros(a.ty().clone())
            } else {
                tensor(t)
            }
        })
        .collect();
    let mut inputs = args.clone();
    inputs.extend(tangents.iter().cloned());
    let res = run(&jf, inputs).map_err(|e| format!("jvp run: {e}"))?;
    let touts: Vec<Tensor> = c["tangent_outs"]
        .as_array()
        .unwrap()
        .iter()
        .map(tensor)
        .collect();
    for (i, t) in touts.iter().enumerate() {
        let got = &res[outputs.len() + i];
        if !inexact(got) {
            continue;
        }
        let m = mismatch(got, t, tol);
        if m > 1.0 {
            return Err(format!(
                "{name}: output tangent {i} differs from JAX ({m:.3e} x tol)\n  got  {:?}\n  want {:?}",
                &got.to_f64_vec()[..got.num_elements().min(8)],
                &t.to_f64_vec()[..t.num_elements().min(8)]
            ));
        }
    }
    // Consistency: <vjp(ct), t> = <ct, jvp(t)>.
    let lhs: f64 = (0..vjp_grads.len())
        .filter(|&i| floats[i])
        .map(|i| dot(&vjp_grads[i], &tangents[i]))
        .sum();
    let rhs: f64 = cts
        .iter()
        .enumerate()
        .filter(|(_, c)| inexact(c))
        .map(|(i, c)| dot(c, &res[outputs.len() + i]))
        .sum();
    // (u_convert's tangents pass through f32.)
    let ctol = if name == "u_convert" {
        1e-6
    } else {
        tol.max(1e-9) * 10.0
    };
    if !fwd_only && !name.ends_with("_oob") && (lhs - rhs).abs() > ctol * (1.0 + lhs.abs()) {
        return Err(format!("{name}: <vjp, t> = {lhs} but <ct, jvp> = {rhs}"));
    }
    // Central differences (f64 programs).
    // (u_convert rounds through f32: not smooth at the scale of the differences. JAX gives
    // `sign` a zero derivative, also on complex numbers where z/|z| does vary: c_sign_times
    // matches JAX, not the differences.)
    if args
        .iter()
        .all(|a| !inexact(a) || matches!(a.dtype(), DType::F64 | DType::C128))
        && name != "u_convert"
        && name != "c_sign_times"
    {
        let eps = 1e-6;
        let shift = |s: f64| -> Vec<Tensor> {
            args.iter()
                .zip(&tangents)
                .map(|(a, t)| {
                    if inexact(a) {
                        shifted(a, t, s)
                    } else {
                        a.clone()
                    }
                })
                .collect()
        };
        let inl = systolic_autodiff::inline_calls(&module, "main").map_err(|e| e.to_string())?;
        let plus = run(&inl, shift(eps))?;
        let minus = run(&inl, shift(-eps))?;
        for i in 0..outputs.len() {
            if !inexact(&plus[i]) {
                continue;
            }
            let fd: Vec<f64> = plus[i]
                .to_f64_vec()
                .iter()
                .zip(minus[i].to_f64_vec())
                .map(|(p, m)| (p - m) / (2.0 * eps))
                .collect();
            let fd = from_f64s(&plus[i], fd);
            let m = mismatch(&res[outputs.len() + i], &fd, 1e-5);
            if m > 1.0 {
                return Err(format!(
                    "{name}: output tangent {i} differs from central differences ({m:.3e})"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn jax_grad_goldens() {
    check_golden_file("grad_goldens.json");
}

/// Complex values: JAX's conventions (complex tangents, transposes without conjugation,
/// real/imag/complex/abs between the worlds, every FFT type).
#[test]
fn jax_complex_grad_goldens() {
    check_golden_file("complex_grad_goldens.json");
}

fn check_golden_file(file: &str) {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let cases: Json = serde_json::from_str(&text).unwrap();
    let only = std::env::var("GOLDEN").ok();
    let mut failures = vec![];
    let mut count = 0;
    for c in cases.as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        count += 1;
        if let Err(e) = check_case(c) {
            failures.push(format!("[{name}] {e}"));
        }
    }
    for f in &failures {
        eprintln!("{f}\n");
    }
    eprintln!("checked {count} programs");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed",
        failures.len()
    );
}

/// Second order through control flow: the reverse-mode program of each case (with its forward
/// loop stacking carries and its backward loop counting down, or its backward branches) is
/// itself differentiated in both modes and checked against central differences and for
/// consistency.
#[test]
fn second_order_of_control_flow() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/grad_goldens.json"
    ))
    .unwrap();
    let cases: Json = serde_json::from_str(&text).unwrap();
    let names = [
        "cond",
        "cond_capture",
        "switch",
        "fori",
        "fori_cos",
        "fori_nested",
        "scan",
        "scan_cond",
        "remat",
    ];
    let mut checked = 0;
    for c in cases.as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        if !names.contains(&name) {
            continue;
        }
        let module = systolic_ir::text::parse_module(c["mlir"].as_str().unwrap(), name).unwrap();
        let mut args: Vec<Tensor> = c["args"].as_array().unwrap().iter().map(tensor).collect();
        let cts: Vec<Tensor> = c["cts"].as_array().unwrap().iter().map(tensor).collect();
        let wrt: Vec<usize> = (0..args.len()).collect();
        let df = systolic_autodiff::vjp_in_module(&module, "main", &wrt).unwrap();
        args.extend(cts);
        let n = args.len();
        let floats: Vec<bool> = args.iter().map(|a| a.dtype().is_float()).collect();
        // Tangents: reuse the values of other float inputs' shapes deterministically.
        let tangents: Vec<Tensor> = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if !a.dtype().is_float() {
                    return Tensor::zeros(a.ty().clone());
                }
                let v = (0..a.num_elements())
                    .map(|j| ((i * 7 + j * 13) % 11) as f64 / 11.0 - 0.5)
                    .collect();
                Tensor::new(a.ty().clone(), Data::Float(v)).unwrap()
            })
            .collect();
        let jf = systolic_autodiff::jvp(&df).unwrap_or_else(|e| panic!("{name}: jvp: {e}"));
        let mut ins = args.clone();
        ins.extend(tangents.iter().cloned());
        let res = run(&jf, ins).unwrap_or_else(|e| panic!("{name}: {e}"));
        let nout = res.len() / 2;
        let eps = 1e-6;
        let shift = |s: f64| -> Vec<Tensor> {
            args.iter()
                .zip(&tangents)
                .map(|(a, t)| {
                    if a.dtype().is_float() {
                        shifted(a, t, s)
                    } else {
                        a.clone()
                    }
                })
                .collect()
        };
        let plus = run(&df, shift(eps)).unwrap();
        let minus = run(&df, shift(-eps)).unwrap();
        for k in 0..nout {
            if !plus[k].dtype().is_float() {
                continue;
            }
            let fd: Vec<f64> = plus[k]
                .to_f64_vec()
                .iter()
                .zip(minus[k].to_f64_vec())
                .map(|(p, m)| (p - m) / (2.0 * eps))
                .collect();
            let fd = Tensor::new(plus[k].ty().clone(), Data::Float(fd)).unwrap();
            let m = mismatch(&res[nout + k], &fd, 1e-5);
            assert!(
                m <= 1.0,
                "{name}: second-order tangent {k} vs differences ({m:.3e})"
            );
        }
        let wrt2: Vec<usize> = (0..n).filter(|&i| floats[i]).collect();
        let ddf = systolic_autodiff::vjp(&df, &wrt2).unwrap_or_else(|e| panic!("{name}: vjp: {e}"));
        let cts2: Vec<Tensor> = res[..nout]
            .iter()
            .map(|o| {
                let v = (0..o.num_elements())
                    .map(|j| ((j * 5) % 7) as f64 / 7.0 - 0.4)
                    .collect();
                if o.dtype().is_float() {
                    Tensor::new(o.ty().clone(), Data::Float(v)).unwrap()
                } else {
                    Tensor::zeros(o.ty().clone())
                }
            })
            .collect();
        let mut ins = args.clone();
        ins.extend(cts2.iter().cloned());
        let back = run(&ddf, ins).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lhs: f64 = wrt2
            .iter()
            .enumerate()
            .map(|(q, &i)| dot(&back[nout + q], &tangents[i]))
            .sum();
        let rhs: f64 = (0..nout)
            .filter(|&k| res[k].dtype().is_float())
            .map(|k| dot(&cts2[k], &res[nout + k]))
            .sum();
        assert!(
            (lhs - rhs).abs() < 1e-9 * (1.0 + lhs.abs()),
            "{name}: second order <vjp, t> = {lhs}, <ct, jvp> = {rhs}"
        );
        checked += 1;
    }
    assert_eq!(checked, names.len());
}
