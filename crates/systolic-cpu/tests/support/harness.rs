//! The compiled-vs-interpreter harness: a case is a one-function module and its inputs; the
//! compiled executable must give the interpreter's results (within a tolerance).

use super::compare::{mismatches, Tolerance};
use super::random::{self, Rng};
use systolic_ir::{Tensor, TensorType};

/// One program to run both ways.
pub struct Case {
    /// The module text (`func.func @main`).
    pub text: String,
    /// The arguments.
    pub inputs: Vec<Tensor>,
}

impl Case {
    /// A case whose body is `ops` (using `%a0`, `%a1`, … for the parameters and defining
    /// `%r0`, … returned at the end) with random arguments of `params`.
    pub fn new(rng: &mut Rng, params: &[TensorType], ops: &str, results: &[TensorType]) -> Case {
        let inputs = params.iter().map(|t| random::tensor(rng, t)).collect();
        Case::with_inputs(inputs, ops, results)
    }

    /// A case with given arguments.
    pub fn with_inputs(inputs: Vec<Tensor>, ops: &str, results: &[TensorType]) -> Case {
        let params: Vec<String> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%a{i}: {}", t.ty()))
            .collect();
        let types: Vec<String> = results.iter().map(|t| t.to_string()).collect();
        let names: Vec<String> = (0..results.len()).map(|i| format!("%r{i}")).collect();
        let text = format!(
            "func.func @main({}) -> ({}) {{\n{ops}\n  return {} : {}\n}}\n",
            params.join(", "),
            types.join(", "),
            names.join(", "),
            types.join(", ")
        );
        Case { text, inputs }
    }
}

/// Whether the op under test must have a native kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// It must not run on the interpreter fallback.
    Native,
    /// An expander pass of the optimising pipeline rewrites it into ops with kernels: it must
    /// not run on the fallback when optimised (without the pipeline it still does).
    Expanded,
    /// Either way (a family not written yet, or a kind it declines).
    Any,
}

/// Runs `case` interpreted and compiled twice — through the optimisation pipeline, and without
/// it (each op on its own kernel, calls kept) — and panics with the module, the inputs and the
/// first differences when a compiled result differs from the interpreter's.
pub fn check(case: &Case, tol: Tolerance, expect: Expect) {
    let module = super::parse(&case.text);
    let want = super::interpret(&module, &case.inputs)
        .unwrap_or_else(|e| panic!("the interpreter rejects the case: {e}\n{}", case.text));
    for optimize in [true, false] {
        let exe = super::compile_main_with(&module, optimize);
        let native = expect == Expect::Native || (expect == Expect::Expanded && optimize);
        check_executable(case, &exe, &want, tol, native);
    }
}

/// Compares one executable's results (owned and borrowed runs) with `want`.
fn check_executable(
    case: &Case,
    exe: &systolic_cpu::CpuExecutable,
    want: &[Tensor],
    tol: Tolerance,
    native: bool,
) {
    if native {
        assert!(
            exe.fallback_ops().is_empty(),
            "expected native kernels, these fell back: {:?}\n{}",
            exe.fallback_ops(),
            case.text
        );
    }
    let got = super::run_compiled(exe, &case.inputs)
        .unwrap_or_else(|e| panic!("compiled run failed: {e}\n{}", case.text));
    // Also run with borrowed arguments: kernels must not depend on owning their operands.
    let borrowed_args: Vec<systolic_cpu::CpuBuffer> = case
        .inputs
        .iter()
        .map(systolic_cpu::CpuBuffer::from_tensor)
        .collect();
    let refs: Vec<&systolic_cpu::CpuBuffer> = borrowed_args.iter().collect();
    let got_borrowed: Vec<Tensor> = exe
        .execute_borrowed(&refs)
        .unwrap_or_else(|e| panic!("compiled run (borrowed) failed: {e}\n{}", case.text))
        .iter()
        .map(systolic_cpu::CpuBuffer::to_tensor)
        .collect();
    assert_eq!(got.len(), want.len(), "number of results\n{}", case.text);
    for (i, ((g, gb), w)) in got.iter().zip(&got_borrowed).zip(want).enumerate() {
        for (how, g) in [("owned", g), ("borrowed", gb)] {
            let bad = mismatches(g, w, tol);
            assert!(
                bad.is_empty(),
                "result {i} ({how} args) differs from the interpreter ({tol:?}): {}\n{}\ninputs: {}{}",
                bad[..bad.len().min(5)].join("; "),
                case.text,
                case.inputs
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" | "),
                elementwise_inputs(&case.inputs, w, &bad)
            );
        }
    }
    // The arguments of the borrowed run are untouched.
    for (a, t) in borrowed_args.iter().zip(&case.inputs) {
        assert!(
            a.to_tensor().to_le_bytes() == t.to_le_bytes(),
            "a borrowed argument was modified\n{}",
            case.text
        );
    }
}

/// Runs `make` for `count` seeds derived from `seed`, checking each case.
pub fn check_many(
    seed: u64,
    count: u64,
    tol: Tolerance,
    expect: Expect,
    make: impl Fn(&mut Rng) -> Case,
) {
    for i in 0..count {
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i));
        let case = make(&mut rng);
        check(&case, tol, expect);
    }
}

/// For elementwise-shaped cases, the input elements at the first mismatching positions.
fn elementwise_inputs(inputs: &[Tensor], result: &Tensor, bad: &[String]) -> String {
    let n = result.num_elements();
    let positions: Vec<usize> = bad
        .iter()
        .take(5)
        .filter_map(|b| b.strip_prefix('[')?.split(']').next()?.parse().ok())
        .collect();
    let mut out = String::new();
    for p in positions {
        let args: Vec<String> = inputs
            .iter()
            .filter(|t| t.num_elements() == n)
            .map(|t| t.get(p).to_string())
            .collect();
        if !args.is_empty() {
            out += &format!("\n  at [{p}] the inputs are ({})", args.join(", "));
        }
    }
    out
}
