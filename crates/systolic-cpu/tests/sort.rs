//! Compiled sort and top_k against the reference interpreter, bit for bit: LT/GT comparators
//! with FLOAT, TOTALORDER and default comparison types, swapped arguments (descending), JAX's
//! canonicalising float comparator, keys that are not the first operand, several operands of
//! different types, NaN and ±0 everywhere, 0- and 1-size dimensions, every element type.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, DTypeKind, TensorType};

const DTYPES: [DType; 9] = [
    DType::F32,
    DType::F64,
    DType::BF16,
    DType::F16,
    DType::I32,
    DType::I8,
    DType::U16,
    DType::U64,
    DType::Bool,
];

fn compare_types(dtype: DType) -> Vec<&'static str> {
    match dtype.kind() {
        DTypeKind::Float | DTypeKind::Complex => vec!["", ", FLOAT", ", TOTALORDER"],
        DTypeKind::Signed => vec!["", ", SIGNED"],
        DTypeKind::Unsigned | DTypeKind::Bool => vec!["", ", UNSIGNED"],
    }
}

/// Sorts `types` along `dim` by operand `key` with `compare dir, lhs, rhs` (lhs/rhs are the
/// argument names, so swapping them sorts the other way).
fn sort_case(rng: &mut Rng, types: &[TensorType], dim: i64, key: usize, body: &str) -> Case {
    let inputs: Vec<_> = types.iter().map(|t| random::tensor(rng, t)).collect();
    let args: Vec<String> = types
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            let s = TensorType::new(vec![], t.dtype);
            [format!("%l{i}: {s}"), format!("%g{i}: {s}")]
        })
        .collect();
    let names: Vec<String> = (0..types.len()).map(|i| format!("%r{i}")).collect();
    let operands: Vec<String> = (0..types.len()).map(|i| format!("%a{i}")).collect();
    let tys: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    let _ = key;
    let ops = format!(
        "  {} = \"stablehlo.sort\"({}) ({{\n  ^bb0({}):\n{body}\n  }}) {{dimension = {dim} : i64, is_stable = true}} : ({}) -> ({})",
        names.join(", "),
        operands.join(", "),
        args.join(", "),
        tys.join(", "),
        tys.join(", ")
    );
    Case::with_inputs(inputs, &ops, types)
}

fn plain_body(dir: &str, lhs: &str, rhs: &str, dtype: DType, ctype: &str) -> String {
    format!(
        "    %c = stablehlo.compare {dir}, {lhs}, {rhs}{ctype} : (tensor<{dtype}>, tensor<{dtype}>) -> tensor<i1>\n    stablehlo.return %c : tensor<i1>"
    )
}

/// A one-operand sort of `ty` along `dim` with comparator `body`: native, and equal to the
/// interpreter's bit for bit.
fn sorts_natively(rng: &mut Rng, ty: TensorType, dim: i64, body: &str) {
    check(
        &sort_case(rng, &[ty], dim, 0, body),
        Tolerance::Exact,
        Expect::Native,
    );
}

#[test]
fn sort_one_operand_every_dtype_direction_and_comparison_type() {
    let mut rng = Rng::new(61);
    for dtype in DTYPES {
        for ctype in compare_types(dtype) {
            for (dir, lhs, rhs) in [
                ("LT", "%l0", "%g0"),
                ("GT", "%l0", "%g0"),
                ("LT", "%g0", "%l0"),
            ] {
                for shape in [vec![9], vec![3, 7], vec![4, 0], vec![1, 5, 2], vec![2, 33]] {
                    let dim = rng.below(shape.len() as u64) as i64;
                    let body = plain_body(dir, lhs, rhs, dtype, ctype);
                    sorts_natively(&mut rng, TensorType::new(shape, dtype), dim, &body);
                }
            }
        }
    }
}

/// Slices of at least 256 elements in a rank order (TOTALORDER floats, integers, booleans)
/// take the radix path of the kernel: both key widths (u32 up to 32-bit types, u64 beyond),
/// ascending and descending, contiguous and strided slices, ties that must stay in order.
#[test]
fn long_slices_sort_by_radix_in_every_dtype() {
    let mut rng = Rng::new(69);
    for dtype in DTYPES.into_iter().chain([DType::I64, DType::U8]) {
        let ctype = if dtype.is_float() { ", TOTALORDER" } else { "" };
        for (dir, lhs, rhs) in [("LT", "%l0", "%g0"), ("GT", "%l0", "%g0")] {
            for (shape, dim) in [(vec![2, 300], 1), (vec![300, 3], 0), (vec![1000], 0)] {
                let body = plain_body(dir, lhs, rhs, dtype, ctype);
                sorts_natively(&mut rng, TensorType::new(shape, dtype), dim, &body);
            }
        }
    }
    // JAX's argsort (canonicalised key, indices carried along) on long strided slices.
    for dtype in [DType::F32, DType::F64, DType::BF16] {
        for dir in ["LT", "GT"] {
            let shape = vec![2, 257, 3];
            let types = [
                TensorType::new(shape.clone(), dtype),
                TensorType::new(shape, DType::I32),
            ];
            check(
                &sort_case(&mut rng, &types, 1, 0, &jax_body(dtype, dir)),
                Tolerance::Exact,
                Expect::Native,
            );
        }
    }
}

#[test]
fn sort_by_a_later_operand_carries_the_others() {
    let mut rng = Rng::new(62);
    for key_dtype in [DType::F32, DType::I32, DType::BF16] {
        let shape = vec![3, 17];
        let types = [
            TensorType::new(shape.clone(), DType::I64),
            TensorType::new(shape.clone(), key_dtype),
            TensorType::new(shape, DType::F16),
        ];
        let ctype = if key_dtype.is_float() {
            ", TOTALORDER"
        } else {
            ""
        };
        let body = plain_body("GT", "%l1", "%g1", key_dtype, ctype);
        check(
            &sort_case(&mut rng, &types, -1, 1, &body),
            Tolerance::Exact,
            Expect::Native,
        );
    }
}

/// JAX's comparator: −0 → +0, NaN → NaN, then TOTALORDER (as `jnp.sort`/`jnp.argsort` emit).
fn jax_body(dtype: DType, dir: &str) -> String {
    let t = format!("tensor<{dtype}>");
    let nan = match dtype {
        DType::F64 => "0x7FF8000000000000",
        DType::BF16 => "0x7FC0",
        DType::F16 => "0x7E00",
        _ => "0x7FC00000",
    };
    let mut s = String::new();
    for (side, arg) in [("a", "%l0"), ("b", "%g0")] {
        s += &format!(
            "    %z{side} = stablehlo.constant dense<0.000000e+00> : {t}\n    %e{side} = stablehlo.compare EQ, {arg}, %z{side}, FLOAT : ({t}, {t}) -> tensor<i1>\n    %zz{side} = stablehlo.constant dense<0.000000e+00> : {t}\n    %s{side} = stablehlo.select %e{side}, %zz{side}, {arg} : tensor<i1>, {t}\n    %n{side} = stablehlo.compare NE, {arg}, {arg}, FLOAT : ({t}, {t}) -> tensor<i1>\n    %qq{side} = stablehlo.constant dense<{nan}> : {t}\n    %c{side} = stablehlo.select %n{side}, %qq{side}, %s{side} : tensor<i1>, {t}\n"
        );
    }
    s += &format!(
        "    %r = stablehlo.compare {dir}, %ca, %cb, TOTALORDER : ({t}, {t}) -> tensor<i1>\n    stablehlo.return %r : tensor<i1>"
    );
    s
}

#[test]
fn jax_argsort_comparator_is_native() {
    let mut rng = Rng::new(63);
    for dtype in [DType::F32, DType::F64, DType::BF16, DType::F16] {
        for dir in ["LT", "GT"] {
            for shape in [vec![2, 8], vec![40], vec![0], vec![5, 1]] {
                let types = [
                    TensorType::new(shape.clone(), dtype),
                    TensorType::new(shape.clone(), DType::I32),
                ];
                let dim = shape.len() as i64 - 1;
                check(
                    &sort_case(&mut rng, &types, dim, 0, &jax_body(dtype, dir)),
                    Tolerance::Exact,
                    Expect::Native,
                );
            }
        }
    }
}

#[test]
fn other_comparators_fall_back_and_agree() {
    let mut rng = Rng::new(64);
    let ty = TensorType::new(vec![4, 6], DType::F32);
    let body = plain_body("LE", "%l0", "%g0", DType::F32, "");
    // `Any`: a non-strict (LE) comparator is not one `comparator::recognise` accepts, so the
    // sort runs on the interpreter fallback (kernels/sort/mod.rs, "other comparators").
    check(
        &sort_case(&mut rng, &[ty], 1, 0, &body),
        Tolerance::Exact,
        Expect::Any,
    );
}

#[test]
fn large_sorts_run_in_parallel() {
    let mut rng = Rng::new(65);
    let ty = TensorType::new(vec![64, 301], DType::F32);
    let body = plain_body("LT", "%l0", "%g0", DType::F32, ", TOTALORDER");
    check(
        &sort_case(&mut rng, &[ty], 1, 0, &body),
        Tolerance::Exact,
        Expect::Native,
    );
}

#[test]
fn top_k_ties_nan_and_k_range() {
    let mut rng = Rng::new(66);
    for dtype in [
        DType::F32,
        DType::BF16,
        DType::I32,
        DType::U8,
        DType::F64,
        DType::I64,
    ] {
        for (shape, k) in [
            (vec![2, 8], 3),
            (vec![9], 9),
            (vec![3, 5], 0),
            (vec![4, 1], 1),
            (vec![2, 0], 0),
            (vec![3, 40], 7),
            (vec![2, 700], 33),
        ] {
            let ty = TensorType::new(shape.clone(), dtype);
            let mut out = shape.clone();
            *out.last_mut().unwrap() = k;
            let vals = TensorType::new(out.clone(), dtype);
            let idx = TensorType::new(out, DType::I32);
            let inputs = vec![random::tensor(&mut rng, &ty)];
            let ops = format!("  %r0, %r1 = chlo.top_k(%a0, k = {k}) : {ty} -> ({vals}, {idx})");
            check(
                &Case::with_inputs(inputs, &ops, &[vals, idx]),
                Tolerance::Exact,
                Expect::Native,
            );
        }
    }
}

/// The ops of the CLI's JAX golden `name` that run on the interpreter fallback when compiled.
fn golden_fallbacks(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../systolic-cli/tests/data")
        .join(name)
        .join("module.mlir");
    let module = support::parse(&std::fs::read_to_string(path).unwrap());
    let exe = support::compile_main(&module);
    exe.fallback_ops().iter().map(|f| f.op.clone()).collect()
}

#[test]
fn jax_sort_goldens_run_natively() {
    for golden in ["sort", "prng_more"] {
        let fallbacks = golden_fallbacks(golden);
        assert!(
            !fallbacks
                .iter()
                .any(|op| op.contains("sort") || op.contains("top_k")),
            "{golden}: {fallbacks:?}"
        );
    }
}

/// JAX's two-key comparator (`lax.sort(..., num_keys=2)`): the float key canonicalised and
/// compared TOTALORDER, ties broken by the second key, `dir1` its direction.
fn two_key_body(dtype: DType, key1: DType, dir1: &str) -> String {
    let first = jax_body(dtype, "LT");
    let (canon, _) = first.split_once("    %r = ").unwrap();
    let t = format!("tensor<{dtype}>");
    let u = format!("tensor<{key1}>");
    format!(
        "{canon}    %k1 = stablehlo.compare {dir1}, %l1, %g1 : ({u}, {u}) -> tensor<i1>\n    %lt = stablehlo.compare LT, %ca, %cb, TOTALORDER : ({t}, {t}) -> tensor<i1>\n    %eq = stablehlo.compare EQ, %ca, %cb, TOTALORDER : ({t}, {t}) -> tensor<i1>\n    %tie = stablehlo.and %eq, %k1 : tensor<i1>\n    %r = stablehlo.or %lt, %tie : tensor<i1>\n    stablehlo.return %r : tensor<i1>"
    )
}

#[test]
fn lexicographic_two_key_sorts_are_native() {
    let mut rng = Rng::new(67);
    for (dtype, key1) in [
        (DType::F32, DType::I32),
        (DType::BF16, DType::U8),
        (DType::F64, DType::Bool),
        (DType::F16, DType::I64),
    ] {
        for dir1 in ["LT", "GT"] {
            // [2, 300]: slices long enough for the radix sorts.
            for shape in [vec![40], vec![3, 9], vec![0, 2], vec![2, 300]] {
                let types = [
                    TensorType::new(shape.clone(), dtype),
                    TensorType::new(shape.clone(), key1),
                    TensorType::new(shape.clone(), DType::I32),
                ];
                let dim = shape.len() as i64 - 1;
                let body = two_key_body(dtype, key1, dir1);
                check(
                    &sort_case(&mut rng, &types, dim, 0, &body),
                    Tolerance::Exact,
                    Expect::Native,
                );
            }
        }
    }
}

#[test]
fn lexicographic_sort_with_an_ieee_float_key_falls_back_and_agrees() {
    let mut rng = Rng::new(68);
    let t = "tensor<f32>";
    let u = "tensor<i32>";
    let body = format!(
        "    %k1 = stablehlo.compare LT, %l1, %g1 : ({u}, {u}) -> tensor<i1>\n    %lt = stablehlo.compare LT, %l0, %g0, FLOAT : ({t}, {t}) -> tensor<i1>\n    %eq = stablehlo.compare EQ, %l0, %g0, FLOAT : ({t}, {t}) -> tensor<i1>\n    %tie = stablehlo.and %eq, %k1 : tensor<i1>\n    %r = stablehlo.or %lt, %tie : tensor<i1>\n    stablehlo.return %r : tensor<i1>"
    );
    let types = [
        TensorType::new(vec![12], DType::F32),
        TensorType::new(vec![12], DType::I32),
    ];
    // `Any`: a lexicographic comparator with an IEEE (FLOAT, not TOTALORDER) float key is not
    // a strict weak order under NaN, so the sort kernel declines it (kernels/sort/mod.rs).
    check(
        &sort_case(&mut rng, &types, 0, 0, &body),
        Tolerance::Exact,
        Expect::Any,
    );
}
