//! JAX's narrow-float programs (`scripts/narrow_float_goldens.py`, data in
//! `tests/data/narrow_float/<case>/`): `astype` from f32 to each f8 type and f4 and back, f8
//! matmuls with f32 accumulation and a scaled fp8 product, run on the interpreter and compiled
//! (with and without the optimising pipeline) and compared with what JAX computed on XLA:CPU.
//!
//! Conversions are exactly rounded, so they must agree bit for bit. Products of f8 values are
//! exact in f32, but XLA:CPU sums them in f32 in its own order while the interpreter sums in
//! f64 and rounds once: those agree to a few f32 roundings of the largest partial sums.

use crate::support;

use support::compare::Tolerance;
use support::golden::{arrays_typed, case_dir, cases, compare};
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Module, Tensor};

fn tolerance(name: &str, want: &Tensor) -> Tolerance {
    if name.starts_with("astype_") {
        Tolerance::Exact
    } else {
        Tolerance::scaled_to(want, 1e-6)
    }
}

fn signature(module: &Module) -> (Vec<DType>, Vec<DType>) {
    let main = module.func("main").expect("@main");
    let dtypes = |ts: &[systolic_ir::Type]| {
        ts.iter()
            .map(|t| t.as_tensor().map(|t| t.dtype).unwrap_or(DType::F32))
            .collect()
    };
    (dtypes(&main.param_types()), dtypes(&main.result_types))
}

#[test]
fn jax_narrow_float_programs_match_on_the_interpreter_and_compiled() {
    let names = cases("narrow_float");
    assert!(names.len() >= 12, "only {} cases", names.len());
    let mut report = vec![];
    for name in &names {
        let dir = case_dir("narrow_float", name);
        let module = support::parse(&std::fs::read_to_string(dir.join("module.mlir")).unwrap());
        let (params, results) = signature(&module);
        let inputs = arrays_typed(&dir, "in", &params);
        let want = arrays_typed(&dir, "out", &results);
        match support::interpret(&module, &inputs) {
            Ok(got) => compare(
                name,
                "interpreter",
                &got,
                &want,
                |w| tolerance(name, w),
                &mut report,
            ),
            Err(e) => report.push(format!("{name} (interpreter): {e}")),
        }
        for optimize in [true, false] {
            let exe = support::compile_main_with(&module, optimize);
            let args: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
            match exe.execute(args) {
                Ok(out) => {
                    let got: Vec<Tensor> = out.iter().map(CpuBuffer::to_tensor).collect();
                    let how = if optimize { "compiled" } else { "unoptimised" };
                    compare(name, how, &got, &want, |w| tolerance(name, w), &mut report);
                }
                Err(e) => report.push(format!("{name} (compiled): {e}")),
            }
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}
