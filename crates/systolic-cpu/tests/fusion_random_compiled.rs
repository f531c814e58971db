//! The compiled counterpart of the compiler's `fusion_random` test: random fusion-heavy programs
//! (elementwise webs over a wide shape, reductions to a narrow one, broadcasts back, products,
//! unfusable ops in between, intermediate values returned) over random shapes (sizes 0, 1 and
//! odd sizes included) and dtypes (f32, f64, bf16, i32), compiled for the CPU with the whole
//! pipeline: every result equals the interpreter's within tolerance and no op falls back to
//! the interpreter.
//!
//! The generator is `crates/systolic-compiler/tests/fusion_random.rs`'s, ported to any shape
//! and dtype. It keeps the programs well-conditioned where the two sides legitimately round
//! differently (approximated exp/tanh/sine, sums in another order): a comparison only reads
//! values both sides compute bit for bit, a divisor or a square root's operand likewise, so a
//! tiny rounding difference is never turned into a different branch or blown up by a near-zero
//! divisor. Integers compare exactly; floats within `rtol` of the element plus `rtol` of the
//! output's largest finite magnitude (a sum's rounding error scales with its terms, not with
//! its possibly cancelled value).

use crate::support;

use support::compare::{mismatches, Tolerance};
use support::random::{self, Rng};
use systolic_cpu::CpuBuffer;
use systolic_ir::{DType, Tensor};

/// The corpus: programs `0..PROGRAMS` from generators seeded `SEED + i`.
const SEED: u64 = 0xf05e_d000;
const PROGRAMS: u64 = 1000;

/// The largest finite magnitude of an input (`random::tensor_no_huge`: ordinary values within
/// ±400, besides ±0, ±inf and NaN).
const INPUT_BOUND: f64 = 400.0;

/// A value of the program: whether both sides compute it bit for bit (inputs, correctly
/// rounded arithmetic and data movement of such values; integers always), and a bound on its
/// finite elements' magnitude (infinite when unknown).
#[derive(Clone)]
struct Val {
    name: String,
    exact: bool,
    bound: f64,
}

/// What the generator may combine for one dtype.
struct Rules {
    float: bool,
    /// Half the largest finite value: a sum bounded by it cannot overflow in any order (the
    /// interpreter's products sum in f64, the kernels' in the dtype).
    max: f64,
    /// The largest operand exp and sine may take when it is not exact: a rounding difference
    /// δ·|x| of the operand becomes a relative difference of exp's result, an absolute one of
    /// sine's, which must stay within the tolerance.
    small: f64,
}

impl Rules {
    /// Values whose rounding differences exp and sine keep small.
    fn conditioned(&self, v: &Val) -> bool {
        v.exact || v.bound <= self.small
    }

    /// Values a sum of `terms` products by `factor` cannot overflow with.
    fn summable(&self, v: &Val, terms: i64, factor: f64) -> bool {
        !self.float || v.bound * factor * terms as f64 <= self.max
    }
}

/// One of the values satisfying `ok` (the inputs always do).
fn pick_where(rng: &mut Rng, vals: &[Val], ok: impl Fn(&Val) -> bool) -> Val {
    let fit: Vec<&Val> = vals.iter().filter(|v| ok(v)).collect();
    (*rng.pick(&fit)).clone()
}

/// A program of `n` ops over `%x`, `%y` (rows × cols) and `%w` (cols × cols) of `dtype`.
fn program(rng: &mut Rng, n: usize, rows: i64, cols: i64, dtype: DType) -> String {
    let rules = match dtype {
        DType::F32 | DType::BF16 => Rules {
            float: true,
            max: f32::MAX as f64 / 2.0,
            small: if dtype == DType::BF16 { 1.0 } else { 80.0 },
        },
        DType::F64 => Rules {
            float: true,
            max: f64::MAX / 2.0,
            small: 80.0,
        },
        _ => Rules {
            float: false,
            max: f64::INFINITY,
            small: f64::INFINITY,
        },
    };
    let wide = format!("tensor<{rows}x{cols}x{dtype}>");
    let narrow = format!("tensor<{rows}x{dtype}>");
    let square = format!("tensor<{cols}x{cols}x{dtype}>");
    let pred = format!("tensor<{rows}x{cols}xi1>");
    let scalar = format!("tensor<{dtype}>");
    let (zero, lowest, factor, scale) = match dtype {
        DType::F32 => ("0.0", "0xFF800000", "0.5", 0.5),
        DType::F64 => ("0.0", "0xFFF0000000000000", "0.5", 0.5),
        DType::BF16 => ("0.0", "0xFF80", "0.5", 0.5),
        DType::I32 => ("0", "-2147483648", "3", 3.0),
        _ => unreachable!("dtype {dtype}"),
    };
    let input = |name: &str| Val {
        name: name.into(),
        exact: true,
        bound: INPUT_BOUND,
    };
    let val = |name: &str, exact: bool, bound: f64| Val {
        name: name.into(),
        exact: exact || !rules.float,
        bound,
    };
    let mut wides = vec![input("%x"), input("%y")];
    let mut narrows: Vec<Val> = vec![];
    let mut body = vec![];
    for i in 0..n {
        let v = format!("%v{i}");
        let a = rng.pick(&wides).clone();
        let b = rng.pick(&wides).clone();
        let value = match rng.below(11) {
            0 | 1 => {
                let unary: &[&str] = if rules.float {
                    &["exponential", "negate", "tanh", "abs", "sine", "sqrt"]
                } else {
                    &["negate", "abs", "not"]
                };
                let u = *rng.pick(unary);
                let (a, exact, bound) = match u {
                    "exponential" => {
                        let a = pick_where(rng, &wides, |v| rules.conditioned(v));
                        let bound = a.bound.exp();
                        (a, false, bound)
                    }
                    "sine" => (
                        pick_where(rng, &wides, |v| rules.conditioned(v)),
                        false,
                        1.0,
                    ),
                    "tanh" => (a, false, 1.0),
                    // Near 0 a square root magnifies its operand's rounding difference.
                    "sqrt" => {
                        let a = pick_where(rng, &wides, |v| v.exact);
                        let bound = a.bound.sqrt();
                        (a, true, bound)
                    }
                    _ => {
                        let (exact, bound) = (a.exact, a.bound);
                        (a, exact, bound)
                    }
                };
                body.push(format!("{v} = stablehlo.{u} {} : {wide}", a.name));
                val(&v, a.exact && exact, bound)
            }
            2 | 3 => {
                let op = *rng.pick(&["add", "multiply", "subtract", "maximum", "divide"]);
                let (b, bound) = match op {
                    // A divisor near 0 magnifies the dividend's rounding difference unless
                    // both sides divide by the same value; the quotient is unbounded.
                    "divide" => (pick_where(rng, &wides, |v| v.exact), f64::INFINITY),
                    "multiply" => {
                        let bound = a.bound * b.bound;
                        (b, bound)
                    }
                    "maximum" => {
                        let bound = a.bound.max(b.bound);
                        (b, bound)
                    }
                    _ => {
                        let bound = a.bound + b.bound;
                        (b, bound)
                    }
                };
                body.push(format!(
                    "{v} = stablehlo.{op} {}, {} : {wide}",
                    a.name, b.name
                ));
                val(&v, a.exact && b.exact, bound)
            }
            4 => {
                let (op, init) = *rng.pick(&[("add", zero), ("maximum", lowest)]);
                let a = if op == "add" {
                    pick_where(rng, &wides, |v| rules.summable(v, cols, 1.0))
                } else {
                    a
                };
                body.push(format!(
                    "%i{i} = stablehlo.constant dense<{init}> : {scalar}"
                ));
                body.push(format!(
                    "{v} = stablehlo.reduce({} init: %i{i}) applies stablehlo.{op} across dimensions = [1] : ({wide}, {scalar}) -> {narrow}",
                    a.name
                ));
                // Float sums fold in an order of the kernel's choosing.
                let (exact, bound) = if op == "add" {
                    (false, a.bound * cols as f64)
                } else {
                    (a.exact, a.bound)
                };
                narrows.push(val(&v, exact, bound));
                continue;
            }
            5 if !narrows.is_empty() => {
                let r = rng.pick(&narrows).clone();
                body.push(format!(
                    "{v} = stablehlo.broadcast_in_dim {}, dims = [0] : ({narrow}) -> {wide}",
                    r.name
                ));
                val(&v, r.exact, r.bound)
            }
            6 if !narrows.is_empty() => {
                let r = rng.pick(&narrows).clone();
                let s = rng.pick(&narrows).clone();
                body.push(format!(
                    "{v} = stablehlo.multiply {}, {} : {narrow}",
                    r.name, s.name
                ));
                narrows.push(val(&v, r.exact && s.exact, r.bound * s.bound));
                continue;
            }
            7 => {
                body.push(format!(
                    "{v} = stablehlo.reverse {}, dims = [1] : {wide}",
                    a.name
                ));
                val(&v, a.exact, a.bound)
            }
            8 => {
                let a = pick_where(rng, &wides, |v| rules.summable(v, cols, INPUT_BOUND));
                body.push(format!(
                    "{v} = stablehlo.dot_general {}, %w, contracting_dims = [1] x [0] : ({wide}, {square}) -> {wide}",
                    a.name
                ));
                val(&v, false, a.bound * INPUT_BOUND * cols as f64)
            }
            9 => {
                // A comparison of values both sides round alike: a rounding difference never
                // selects the other operand.
                let p = pick_where(rng, &wides, |v| v.exact);
                let q = pick_where(rng, &wides, |v| v.exact);
                body.push(format!(
                    "%p{i} = stablehlo.compare GT, {}, {} : ({wide}, {wide}) -> {pred}",
                    p.name, q.name
                ));
                body.push(format!(
                    "{v} = stablehlo.select %p{i}, {}, {} : {pred}, {wide}",
                    a.name, b.name
                ));
                val(&v, a.exact && b.exact, a.bound.max(b.bound))
            }
            _ => {
                body.push(format!(
                    "%c{i} = stablehlo.constant dense<{factor}> : {scalar}"
                ));
                body.push(format!(
                    "%b{i} = stablehlo.broadcast_in_dim %c{i}, dims = [] : ({scalar}) -> {wide}"
                ));
                body.push(format!(
                    "{v} = stablehlo.multiply {}, %b{i} : {wide}",
                    a.name
                ));
                val(&v, a.exact, a.bound * scale)
            }
        };
        wides.push(value);
    }
    // Return the last value and a few intermediate ones (readers outside every fusion).
    let mut results = vec![wides.last().unwrap().name.clone()];
    for _ in 0..2 {
        let v = rng.pick(&wides).name.clone();
        if !results.contains(&v) && v.starts_with("%v") {
            results.push(v);
        }
    }
    let mut types = vec![wide.as_str(); results.len()];
    if let Some(r) = narrows.last() {
        results.push(r.name.clone());
        types.push(&narrow);
    }
    format!(
        "func.func public @main(%x: {wide}, %y: {wide}, %w: {square}) -> ({}) {{\n  {}\n  return {} : {}\n}}\n",
        types.join(", "),
        body.join("\n  "),
        results.join(", "),
        types.join(", ")
    )
}

/// Rows and columns: mostly small with 0, 1 and odd sizes, sometimes several of the loop
/// compiler's 512-element blocks, rarely past the 2^16 elements from which a fusion splits
/// over both cores.
fn shape(rng: &mut Rng) -> (i64, i64) {
    if rng.below(40) == 0 {
        return *rng.pick(&[(1031, 67), (520, 129)]);
    }
    let size = |rng: &mut Rng, big: &[i64]| {
        if rng.below(10) == 0 {
            0
        } else if rng.below(3) == 0 {
            *rng.pick(big)
        } else {
            *rng.pick(&[1, 2, 3, 5, 7, 8])
        }
    };
    (size(rng, &[9, 16, 31, 64]), size(rng, &[17, 33, 64, 129]))
}

/// `rtol` per dtype. The generator keeps rounding differences from being magnified, so they
/// stay near the sources' own: an approximated function's ulp or two, an f32 sum of at most
/// 129 terms in another order (≤ 129·eps of its terms' magnitude), bf16 results within about
/// one bf16 rounding (2⁻⁸) of each other. Over 3000 programs the largest difference seen was
/// 6e-7 (f32) and 1.3e-14 (f64) of an output's magnitude, and bf16 results were identical.
fn tolerance(dtype: DType, want: &Tensor) -> Tolerance {
    let rtol = match dtype {
        DType::F64 => 1e-12,
        DType::F32 => 2e-5,
        DType::BF16 => 1e-2,
        _ => return Tolerance::Exact,
    };
    Tolerance::scaled_to(want, rtol)
}

/// Compiles and runs program `index` (owned and borrowed arguments), counting its loop,
/// reduction and product fusion kernels into `kinds`; the failure message when it differs from
/// the interpreter or falls back to it.
fn check_program(index: u64, kinds: &mut [usize; 3]) -> Result<(), String> {
    let seed = SEED + index;
    let mut rng = Rng::new(seed);
    let dtype = *rng.pick(&[DType::F32, DType::F64, DType::BF16, DType::I32]);
    let (rows, cols) = shape(&mut rng);
    let n = 6 + rng.below(30) as usize;
    let text = program(&mut rng, n, rows, cols, dtype);
    let fail = |what: String| format!("program {index} (seed {seed:#x}): {what}\n{text}");
    let module = support::parse(&text);
    let params = module.funcs[0].param_types();
    let inputs: Vec<Tensor> = params
        .iter()
        .map(|t| random::tensor_no_huge(&mut rng, t.as_tensor().expect("tensors")))
        .collect();
    let want = support::interpret(&module, &inputs).map_err(|e| fail(e.to_string()))?;
    let exe = support::compile_main(&module);
    if !exe.fallback_ops().is_empty() {
        let ops: Vec<&str> = exe.fallback_ops().iter().map(|f| f.op.as_str()).collect();
        return Err(fail(format!("fell back to the interpreter: {ops:?}")));
    }
    for step in exe.program().steps() {
        let name = step.kernel_name();
        for (count, kind) in kinds.iter_mut().zip(["(loop)", "(reduction)", "(product)"]) {
            *count += usize::from(name.contains(kind));
        }
    }
    let owned = support::run_compiled(&exe, &inputs).map_err(&fail)?;
    let args: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
    let refs: Vec<&CpuBuffer> = args.iter().collect();
    let borrowed: Vec<Tensor> = exe
        .execute_borrowed(&refs)
        .map_err(|e| fail(e.to_string()))?
        .iter()
        .map(CpuBuffer::to_tensor)
        .collect();
    for (how, got) in [("owned", owned), ("borrowed", borrowed)] {
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let tol = tolerance(dtype, w);
            let bad = mismatches(g, w, tol);
            if !bad.is_empty() {
                let shown = if inputs.iter().all(|t| t.num_elements() <= 64) {
                    let all: Vec<String> = inputs.iter().map(|t| t.to_string()).collect();
                    format!("\ninputs: {}", all.join(" | "))
                } else {
                    String::new()
                };
                return Err(fail(format!(
                    "result {i} ({how} arguments) differs from the interpreter ({tol:?}): {}{shown}",
                    bad[..bad.len().min(4)].join("; ")
                )));
            }
        }
    }
    Ok(())
}

#[test]
fn random_fusion_heavy_programs_compile_to_the_interpreters_results() {
    let mut kinds = [0; 3];
    let failures: Vec<String> = (0..PROGRAMS)
        .filter_map(|i| check_program(i, &mut kinds).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {PROGRAMS} programs failed; the first:\n{}",
        failures.len(),
        failures[0]
    );
    // The corpus exercises every kind of fusion kernel.
    assert!(
        kinds.iter().all(|&n| n >= 50),
        "loop, reduction, product fusions: {kinds:?}"
    );
}
