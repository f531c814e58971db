//! Long reductions in bf16 and f16 as JAX computes them on XLA:CPU
//! (`scripts/narrow_reduce_goldens.py`, data in `tests/data/narrow_reduce/<case>/`).
//!
//! A narrow-float reduce rounds after every step, so its order decides the answer: both the
//! interpreter and the compiled fold must use XLA:CPU's tree (windows of 32, then their
//! partials). The interpreter matches JAX bit for bit; so does the compiled path when one
//! dimension is reduced. With several reduced dimensions (`_multi` cases) the compiled path
//! folds the flattened dimensions in windows — another tree of the same depth — and is held to
//! 5% of the largest magnitude, where a left fold is off by 30–50%. `_approx` cases (LayerNorm
//! parameter gradients: sibling reduces fused into one kernel) compute bf16 `sin`/`rsqrt`
//! before the sums, which may round an ulp apart from XLA's: every path is held to the 5%.

use crate::support;

use support::compare::Tolerance;
use support::golden::{arrays, case_dir, cases, compare};
use systolic_cpu::CpuBuffer;
use systolic_ir::Tensor;

const SET: &str = "narrow_reduce";

/// Bit for bit, or within 5% of the largest magnitude.
fn within(exact: bool) -> impl Fn(&Tensor) -> Tolerance {
    move |w| {
        if exact {
            Tolerance::Exact
        } else {
            Tolerance::scaled_to(w, 0.05)
        }
    }
}

#[test]
fn long_bf16_and_f16_reductions_round_as_jax_does() {
    let names = cases(SET);
    assert!(names.len() >= 9, "only {} cases", names.len());
    let mut report = vec![];
    for name in &names {
        let dir = case_dir(SET, name);
        let module = support::parse(&std::fs::read_to_string(dir.join("module.mlir")).unwrap());
        let (inputs, want) = (arrays(&dir, "in"), arrays(&dir, "out"));
        let approx = name.ends_with("_approx");
        match support::interpret(&module, &inputs) {
            Ok(got) => compare(
                name,
                "interpreter",
                &got,
                &want,
                within(!approx),
                &mut report,
            ),
            Err(e) => report.push(format!("{name} (interpreter): {e}")),
        }
        let one_dim = !name.ends_with("_multi") && !approx;
        for optimize in [true, false] {
            let exe = support::compile_main_with(&module, optimize);
            let args: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
            let how = if optimize { "compiled" } else { "unoptimised" };
            match exe.execute(args) {
                Ok(out) => {
                    let got: Vec<Tensor> = out.iter().map(CpuBuffer::to_tensor).collect();
                    compare(name, how, &got, &want, within(one_dim), &mut report);
                }
                Err(e) => report.push(format!("{name} ({how}): {e}")),
            }
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}
