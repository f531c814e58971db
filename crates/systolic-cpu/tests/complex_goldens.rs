//! JAX's FFTs and complex arithmetic (`scripts/complex_fft_goldens.py`, data in
//! `tests/data/complex_fft/<case>/`): each exported program run on the interpreter and compiled
//! for the CPU (with and without the optimising pipeline), compared with what JAX computed on
//! XLA:CPU.
//!
//! Tolerances are JAX's own test tolerances scaled to the data: XLA:CPU transforms f32 data in
//! f32 (ducc), the interpreter in f64 and rounds once, so an FFT of length n differs by about
//! log2(n) f32 roundings of the largest magnitudes; elementwise complex math by a few ulp.

use crate::support;

use support::compare::Tolerance;
use support::golden::{arrays, case_dir, cases, compare};
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Tensor};

/// Relative to the largest magnitude of the expected values (the scale of an FFT's rounding
/// errors), per part dtype.
fn tolerance(want: &Tensor) -> Tolerance {
    let part = want.dtype().component().unwrap_or(want.dtype());
    match part {
        DType::F32 => Tolerance::scaled_to(want, 2e-6),
        DType::F64 => Tolerance::scaled_to(want, 1e-13),
        _ => Tolerance::Exact,
    }
}

#[test]
fn jax_ffts_and_complex_math_match_on_the_interpreter_and_compiled() {
    let names = cases("complex_fft");
    assert!(names.len() >= 12, "only {} cases", names.len());
    let mut report = vec![];
    let mut complex_outputs = 0;
    for name in &names {
        let dir = case_dir("complex_fft", name);
        let module = support::parse(&std::fs::read_to_string(dir.join("module.mlir")).unwrap());
        let (inputs, want) = (arrays(&dir, "in"), arrays(&dir, "out"));
        complex_outputs += want.iter().filter(|t| t.dtype().is_complex()).count();
        match support::interpret(&module, &inputs) {
            Ok(got) => compare(name, "interpreter", &got, &want, tolerance, &mut report),
            Err(e) => report.push(format!("{name} (interpreter): {e}")),
        }
        for optimize in [true, false] {
            let exe = support::compile_main_with(&module, optimize);
            let args: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
            match exe.execute(args) {
                Ok(out) => {
                    let got: Vec<Tensor> = out.iter().map(CpuBuffer::to_tensor).collect();
                    let how = if optimize { "compiled" } else { "unoptimised" };
                    compare(name, how, &got, &want, tolerance, &mut report);
                }
                Err(e) => report.push(format!("{name} (compiled): {e}")),
            }
        }
    }
    assert!(
        complex_outputs >= 15,
        "only {complex_outputs} complex outputs"
    );
    assert!(report.is_empty(), "{}", report.join("\n"));
}
