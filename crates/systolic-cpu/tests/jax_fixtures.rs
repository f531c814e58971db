//! Every JAX-exported program of the IR's test data (`crates/systolic-ir/tests/data/jax_*.mlir`)
//! compiled for the CPU with the optimisation pipeline, run on random inputs and compared with
//! the reference interpreter; the ops that fall back to the interpreter are exactly each
//! fixture's allow-list. Fixtures that cannot run at all are listed with the reason, and must
//! still fail with that error (so the list cannot go stale).
//!
//! Tolerances, per fixture ([`Tol`]): integers and booleans always exact; floats exact where
//! every op is correctly rounded and folds in a fixed order; 2 ulps for the approximated
//! transcendental functions; a relative tolerance scaled to each output's magnitude where sums
//! (reductions, products, convolutions) may be reassociated; the CHLO functions, which the
//! compiler decomposes as XLA does, as in `compiled_vs_interp_elementwise`.

use crate::support;

use support::compare::{mismatches, Tolerance};
use support::random::{self, Rng};
use systolic_cpu::{compile, CompileOptions, CpuExecutable};
use systolic_ir::{DTypeKind, Module, Tensor, TensorType};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../systolic-ir/tests/data");

/// Random input sets per fixture.
const RUNS: u64 = 8;

/// How close the compiled floats must be to the interpreter's.
#[derive(Clone, Copy, Debug)]
enum Tol {
    /// Bit for bit (NaN payloads aside).
    Exact,
    /// Approximated transcendental functions (documented within 1 ulp of the correctly rounded
    /// result; the interpreter rounds an f64 value once), composed with correctly rounded ops.
    Ulps2,
    /// Sums in an order of the kernel's choosing: `rtol` of the element plus `rtol` of the
    /// output's largest finite magnitude (a sum's rounding error scales with its terms, not
    /// with its possibly cancelled value).
    Sums,
    /// CHLO special functions decomposed as XLA does, against the interpreter's direct f64
    /// evaluation (see `compiled_vs_interp_elementwise::chlo_decomposed`).
    Chlo,
}

/// How a fixture's inputs are drawn.
#[derive(Clone, Copy, Debug)]
enum Inputs {
    /// The harness's values, the largest finite floats included.
    All,
    /// Without the largest finite floats: whether a sum of them overflows depends on the
    /// summation order.
    NoHuge,
    /// Finite floats in [-4, 4): the convolution kernel (im2col) multiplies padding and
    /// dilation holes by the weights, so 0·inf = NaN where the interpreter skips them (the
    /// divergence `dot_compiled` documents).
    Finite,
    /// Integers in `lo..=hi` (loop trip counts), other dtypes as `NoHuge`.
    Ints(i64, i64),
}

/// A fixture that runs: its input kind, tolerance and the ops allowed to fall back.
struct Runs {
    name: &'static str,
    inputs: Inputs,
    tol: Tol,
    fallbacks: &'static [&'static str],
}

const fn runs(name: &'static str, inputs: Inputs, tol: Tol) -> Runs {
    Runs {
        name,
        inputs,
        tol,
        fallbacks: &[],
    }
}

/// Where a fixture that cannot run fails.
#[derive(Clone, Copy, Debug)]
enum FailsAt {
    /// The parser rejects it (no fixture at the moment: the Shardy ones parse since
    /// `sdy.manual_computation` and `sdy.sharding_constraint` are ops).
    #[allow(dead_code)]
    Parse,
    /// It parses and compiles, but neither the interpreter nor the compiled executable runs it.
    Run,
}

/// A fixture that cannot run: where it fails, a piece of the error, and why.
struct Skip {
    name: &'static str,
    at: FailsAt,
    error: &'static str,
    why: &'static str,
}

use Inputs::{All, Finite, Ints, NoHuge};
use Tol::{Chlo, Exact, Sums, Ulps2};

const RUNNING: &[Runs] = &[
    runs("jax_argmin_debug_locs", NoHuge, Exact),
    runs("jax_big_constant", All, Exact),
    runs("jax_categorical", All, Exact),
    runs("jax_cond", All, Ulps2),
    runs("jax_conv", Finite, Sums),
    runs("jax_conv_grad", Finite, Sums),
    runs("jax_cumsum_argmax", NoHuge, Sums),
    runs("jax_custom_jvp", All, Ulps2),
    runs("jax_dilated_grouped_conv", Finite, Sums),
    runs("jax_dtypes", All, Exact),
    // LAPACK custom calls (syevd; potrf and trsm): both paths run the same faer-based
    // implementation (systolic_interp::ops::lapack), on finite inputs (an infinite matrix
    // entry makes the eigensolver's iteration meaningless).
    runs("jax_eigh", Finite, Sums),
    runs("jax_export_sin", All, Ulps2),
    // Indices over the whole i32 range too: gather clamps, scatter drops out-of-bounds updates.
    runs("jax_gather_scatter", All, Exact),
    runs("jax_int8_dot_i32", All, Exact),
    runs("jax_linalg", Finite, Sums),
    runs("jax_max_pool", All, Exact),
    runs("jax_max_pool_grad", All, Exact),
    runs("jax_mlp", NoHuge, Sums),
    runs("jax_mlp_debug_locs", NoHuge, Sums),
    runs("jax_mlp_grad", NoHuge, Sums),
    runs("jax_random", All, Chlo),
    runs("jax_remat", All, Ulps2),
    runs("jax_scan", NoHuge, Sums),
    runs("jax_scan_debug_locs", NoHuge, Sums),
    runs("jax_scatter_kinds", All, Exact),
    runs("jax_sharded_jit", NoHuge, Sums),
    runs("jax_sharded_jit_mhlo", NoHuge, Sums),
    Runs {
        name: "jax_sharding_constraint_mhlo",
        inputs: All,
        tol: Ulps2,
        // The program declares 8 partitions, so the single-device rewrite leaves its
        // `custom_call @Sharding`, which runs on the interpreter (an identity there).
        fallbacks: &["stablehlo.custom_call"],
    },
    // `sdy.sharding_constraint` is an identity on one device.
    runs("jax_sharding_constraint", All, Ulps2),
    runs("jax_sort_multi", All, Exact),
    runs("jax_sort_topk", All, Exact),
    runs("jax_special", All, Chlo),
    runs("jax_special_more", All, Chlo),
    // The branch index is clamped to [0, 2]: -1 and 3 exercise the clamp.
    runs("jax_switch", Ints(-1, 3), Ulps2),
    // The argument is the trip count; past 128 the f32 doubling overflows to inf.
    runs("jax_while_loop", Ints(-2, 140), Exact),
];

const SKIPPED: &[Skip] = &[
    Skip {
        name: "jax_ppermute",
        at: FailsAt::Run,
        error: "sdy.manual_computation must be lowered to a per-device program first",
        why: "an 8-device shard_map (Shardy): it runs on 8 devices after \
              lower_manual_computations (systolic run does that), not on one",
    },
    Skip {
        name: "jax_shard_map",
        at: FailsAt::Run,
        error: "sdy.manual_computation must be lowered to a per-device program first",
        why: "an 8-device shard_map (Shardy): it runs on 8 devices after \
              lower_manual_computations (systolic run does that), not on one",
    },
    Skip {
        name: "jax_ppermute_mhlo",
        at: FailsAt::Run,
        error: "'SPMDFullToShardShape' is an identity on one device, but its operands",
        why: "an 8-partition shard_map: the per-device shard shape needs a partitioner",
    },
    Skip {
        name: "jax_shard_map_mhlo",
        at: FailsAt::Run,
        error: "'SPMDFullToShardShape' is an identity on one device, but its operands",
        why: "an 8-partition shard_map: the per-device shard shape needs a partitioner",
    },
];

fn source(name: &str) -> String {
    let path = format!("{DATA}/{name}.mlir");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Compiles `main` as users do: optimisation on (and the verifier after every pass).
fn compile_main(module: &Module) -> Result<CpuExecutable, String> {
    let options = CompileOptions {
        verify_each: true,
        ..CompileOptions::default()
    };
    compile(module, &options).map_err(|e| e.to_string())
}

fn input(rng: &mut Rng, ty: &TensorType, kind: Inputs) -> Tensor {
    let is_int = matches!(ty.dtype.kind(), DTypeKind::Signed | DTypeKind::Unsigned);
    match kind {
        All => random::tensor(rng, ty),
        NoHuge => random::tensor_no_huge(rng, ty),
        Finite if ty.dtype.is_float() => {
            let values = (0..ty.num_elements())
                .map(|_| 8.0 * rng.unit() - 4.0)
                .collect();
            Tensor::from_f64(ty.shape.clone(), ty.dtype, values).expect("float tensor")
        }
        Finite => random::tensor_no_huge(rng, ty),
        Ints(lo, hi) if is_int => {
            let bits: Vec<u64> = (0..ty.num_elements())
                .map(|_| (lo + rng.below((hi - lo + 1) as u64) as i64) as u64)
                .collect();
            let mask = u64::MAX >> (64 - ty.dtype.bit_width());
            let bits: Vec<u64> = bits.into_iter().map(|b| b & mask).collect();
            Tensor::from_bits(ty.clone(), &bits).expect("integer tensor")
        }
        Ints(..) => random::tensor_no_huge(rng, ty),
    }
}

fn tolerance(tol: Tol, want: &Tensor) -> Tolerance {
    match tol {
        Tol::Exact => Tolerance::Exact,
        Tol::Ulps2 => Tolerance::Ulps(2),
        Tol::Sums => Tolerance::scaled_to(want, 1e-5),
        Tol::Chlo => Tolerance::Close {
            rtol: 1e-5,
            atol: 1e-5,
        },
    }
}

/// Runs one fixture on [`RUNS`] random input sets; returns what went wrong (empty when all
/// matched).
fn check_fixture(fixture: &Runs) -> Vec<String> {
    let name = fixture.name;
    let module = support::parse(&source(name));
    let exe = match compile_main(&module) {
        Ok(exe) => exe,
        Err(e) => return vec![format!("{name}: compile failed: {e}")],
    };
    let mut problems = vec![];
    let fell_back: Vec<&str> = exe.fallback_ops().iter().map(|f| f.op.as_str()).collect();
    if fell_back != fixture.fallbacks {
        problems.push(format!(
            "{name}: fell back to the interpreter: {fell_back:?}, allowed {:?}",
            fixture.fallbacks
        ));
    }
    let params = module.func("main").expect("@main").param_types();
    for run in 0..RUNS {
        let mut rng = Rng::new(0x5eed_0000 + run);
        let inputs: Vec<Tensor> = params
            .iter()
            .map(|t| {
                input(
                    &mut rng,
                    t.as_tensor().expect("tensor parameters"),
                    fixture.inputs,
                )
            })
            .collect();
        let want = match support::interpret(&module, &inputs) {
            Ok(want) => want,
            Err(e) => {
                problems.push(format!("{name} run {run}: the interpreter fails: {e}"));
                continue;
            }
        };
        let got = match support::run_compiled(&exe, &inputs) {
            Ok(got) => got,
            Err(e) => {
                problems.push(format!("{name} run {run}: the compiled run fails: {e}"));
                continue;
            }
        };
        if got.len() != want.len() {
            problems.push(format!(
                "{name}: {} results, the interpreter gives {}",
                got.len(),
                want.len()
            ));
            continue;
        }
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let tol = tolerance(fixture.tol, w);
            let bad = mismatches(g, w, tol);
            if !bad.is_empty() {
                let shown: Vec<String> = inputs.iter().map(|t| t.to_string()).collect();
                problems.push(format!(
                    "{name} run {run}: result {i} ({}) differs ({tol:?}): {}\n  inputs: {}",
                    w.ty(),
                    bad[..bad.len().min(4)].join("; "),
                    shown.join(" | ")
                ));
            }
        }
    }
    problems
}

/// The error a skipped fixture fails with, at the stage the list says; `Ok` when it runs.
fn check_skip(skip: &Skip) -> Result<(), String> {
    let name = skip.name;
    let text = source(name);
    let parsed = systolic_ir::text::parse_module(&text, name);
    let fails_with = |what: &str, e: &str| {
        if e.contains(skip.error) {
            Ok(())
        } else {
            Err(format!(
                "{name}: {what} fails with `{e}`, expected `{}` ({})",
                skip.error, skip.why
            ))
        }
    };
    match (skip.at, parsed) {
        (FailsAt::Parse, Err(e)) => fails_with("parsing", &e.to_string()),
        (FailsAt::Parse, Ok(_)) => Err(format!(
            "{name} now parses: move it from SKIPPED to RUNNING (was: {})",
            skip.why
        )),
        (FailsAt::Run, Err(e)) => Err(format!("{name}: parse error {e}")),
        (FailsAt::Run, Ok(module)) => {
            let params = module.func("main").expect("@main").param_types();
            let mut rng = Rng::new(1);
            let inputs: Vec<Tensor> = params
                .iter()
                .map(|t| random::tensor(&mut rng, t.as_tensor().expect("tensor parameters")))
                .collect();
            let interpreted = support::interpret(&module, &inputs);
            let compiled =
                compile_main(&module).and_then(|exe| support::run_compiled(&exe, &inputs));
            match (interpreted, compiled) {
                (Err(i), Err(c)) => {
                    fails_with("the interpreter", &i)?;
                    fails_with("the compiled run", &c)
                }
                (i, c) => Err(format!(
                    "{name} now runs (interpreter ok: {}, compiled ok: {}): move it from SKIPPED to RUNNING (was: {})",
                    i.is_ok(),
                    c.is_ok(),
                    skip.why
                )),
            }
        }
    }
}

/// Every fixture file is listed exactly once, as running or as skipped.
#[test]
fn every_fixture_is_listed_once() {
    let mut files: Vec<String> = std::fs::read_dir(DATA)
        .expect("the IR's test data")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("jax_") && n.ends_with(".mlir"))
        .map(|n| n.trim_end_matches(".mlir").to_string())
        .collect();
    files.sort();
    let mut listed: Vec<String> = RUNNING
        .iter()
        .map(|r| r.name)
        .chain(SKIPPED.iter().map(|s| s.name))
        .map(String::from)
        .collect();
    listed.sort();
    assert_eq!(files, listed, "the fixtures on disk and the lists differ");
    assert_eq!(files.len(), 39, "the fixtures of the IR's test data");
}

/// Each running fixture, compiled, gives the interpreter's results; all failures together.
#[test]
fn jax_fixtures_compiled_match_the_interpreter() {
    let problems: Vec<String> = RUNNING.iter().flat_map(check_fixture).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Each skipped fixture still fails, with the listed error.
#[test]
fn skipped_fixtures_still_fail_as_listed() {
    let problems: Vec<String> = SKIPPED.iter().filter_map(|s| check_skip(s).err()).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
