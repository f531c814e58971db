//! Compiled gather and scatter against the reference interpreter: every dimension-number form
//! JAX emits (row and column takes, multi-component indices, batching dimensions, implicit
//! index vectors), clamped and out-of-bounds indices, 0- and 1-size dimensions, every element
//! type; bit-exact.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, Tensor, TensorType};

const DTYPES: [DType; 9] = [
    DType::F32,
    DType::F64,
    DType::BF16,
    DType::F16,
    DType::I32,
    DType::I8,
    DType::U64,
    DType::Bool,
    DType::I64,
];

/// Index values around `0..bound` (some negative, some past the end: clamped or dropped).
fn indices(rng: &mut Rng, shape: &[i64], dtype: DType, bound: i64) -> Tensor {
    let ty = TensorType::new(shape.to_vec(), dtype);
    let bits: Vec<u64> = (0..ty.num_elements())
        .map(|_| {
            let v = rng.below(bound.max(0) as u64 + 5) as i64 - 2;
            let v = if dtype.kind() == systolic_ir::DTypeKind::Unsigned {
                v.max(0)
            } else {
                v
            };
            v as u64
        })
        .collect();
    Tensor::from_bits(ty, &bits).unwrap()
}

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

/// A gather case: `dn` is the body of `#stablehlo.gather<…>`.
#[allow(clippy::too_many_arguments)]
fn gather_case(
    rng: &mut Rng,
    operand: &[i64],
    dtype: DType,
    idx_shape: &[i64],
    bound: i64,
    dn: &str,
    slice: &[i64],
    result: &[i64],
) -> Case {
    let idx_dtype = *rng.pick(&[DType::I32, DType::I64, DType::U32, DType::I8]);
    let inputs = vec![
        random::tensor(rng, &ty(operand, dtype)),
        indices(rng, idx_shape, idx_dtype, bound),
    ];
    let sizes: Vec<String> = slice.iter().map(|s| s.to_string()).collect();
    let ops = format!(
        "  %r0 = \"stablehlo.gather\"(%a0, %a1) <{{dimension_numbers = #stablehlo.gather<{dn}>, indices_are_sorted = false, slice_sizes = array<i64: {}>}}> : ({}, {}) -> {}",
        sizes.join(", "),
        inputs[0].ty(),
        inputs[1].ty(),
        ty(result, dtype)
    );
    Case::with_inputs(inputs, &ops, &[ty(result, dtype)])
}

#[test]
fn gather_rows_every_dtype_and_size() {
    let mut rng = Rng::new(11);
    for dtype in DTYPES {
        for (n, f, b) in [(5, 4, 3), (1, 1, 1), (7, 0, 2), (3, 9, 0), (40, 33, 17)] {
            let case = gather_case(
                &mut rng,
                &[n, f],
                dtype,
                &[b, 1],
                n,
                "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1",
                &[1, f],
                &[b, f],
            );
            check(&case, Tolerance::Exact, Expect::Native);
        }
    }
}

#[test]
fn gather_columns_and_partial_slices() {
    let mut rng = Rng::new(12);
    for dtype in [DType::F32, DType::I16, DType::BF16] {
        let case = gather_case(
            &mut rng,
            &[5, 4],
            dtype,
            &[3, 1],
            4,
            "offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1",
            &[5, 1],
            &[5, 3],
        );
        check(&case, Tolerance::Exact, Expect::Native);
        // Windows of 2x3 at two-component starts, kept uncollapsed: starts clamp to fit.
        let case = gather_case(
            &mut rng,
            &[5, 6, 7],
            dtype,
            &[4, 2],
            7,
            "offset_dims = [1, 2, 3], start_index_map = [0, 2], index_vector_dim = 1",
            &[2, 6, 3],
            &[4, 2, 6, 3],
        );
        check(&case, Tolerance::Exact, Expect::Native);
        // Offset dimensions before the batch dimensions, and an implicit index vector.
        let case = gather_case(
            &mut rng,
            &[6, 3],
            dtype,
            &[2, 5],
            6,
            "offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2",
            &[1, 3],
            &[3, 2, 5],
        );
        check(&case, Tolerance::Exact, Expect::Native);
    }
}

#[test]
fn gather_with_batching_dims_take_along_axis() {
    let mut rng = Rng::new(13);
    for dtype in [DType::F32, DType::U8, DType::F64] {
        for (b, n, k, f) in [(3, 5, 4, 2), (1, 1, 1, 1), (2, 7, 0, 3), (4, 3, 6, 1)] {
            let case = gather_case(
                &mut rng,
                &[b, n, f],
                dtype,
                &[b, k, 1],
                n,
                "offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2",
                &[1, 1, f],
                &[b, k, f],
            );
            check(&case, Tolerance::Exact, Expect::Native);
        }
    }
}

#[test]
fn gather_large_rows_run_in_parallel() {
    let mut rng = Rng::new(14);
    let case = gather_case(
        &mut rng,
        &[300, 257],
        DType::F32,
        &[200, 1],
        300,
        "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1",
        &[1, 257],
        &[200, 257],
    );
    check(&case, Tolerance::Exact, Expect::Native);
}

/// A scatter case with update computation `body` (using `%x`, `%y`, returning a value).
#[allow(clippy::too_many_arguments)]
fn scatter_case(
    rng: &mut Rng,
    input: &[i64],
    dtype: DType,
    idx_shape: &[i64],
    bound: i64,
    dn: &str,
    updates: &[i64],
    body: &str,
) -> Case {
    let inputs = vec![
        random::tensor(rng, &ty(input, dtype)),
        indices(rng, idx_shape, DType::I32, bound),
        random::tensor(rng, &ty(updates, dtype)),
    ];
    let s = ty(&[], dtype);
    let ops = format!(
        "  %r0 = \"stablehlo.scatter\"(%a0, %a1, %a2) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<{dn}>, unique_indices = false}}> ({{\n  ^bb0(%x: {s}, %y: {s}):\n{body}\n  }}) : ({}, {}, {}) -> {}",
        inputs[0].ty(),
        inputs[1].ty(),
        inputs[2].ty(),
        inputs[0].ty()
    );
    Case::with_inputs(inputs, &ops, &[ty(input, dtype)])
}

fn binary_body(op: &str, dtype: DType) -> String {
    format!("    %z = stablehlo.{op} %x, %y : tensor<{dtype}>\n    stablehlo.return %z : tensor<{dtype}>")
}

#[test]
fn scatter_rows_with_every_native_combiner() {
    let mut rng = Rng::new(21);
    for dtype in DTYPES {
        for op in ["add", "multiply", "maximum", "minimum", "replace"] {
            let body = if op == "replace" {
                format!("    stablehlo.return %y : tensor<{dtype}>")
            } else {
                binary_body(op, dtype)
            };
            for (n, f, b) in [(5, 4, 6), (1, 1, 3), (3, 0, 2), (4, 3, 0), (7, 5, 20)] {
                let case = scatter_case(
                    &mut rng,
                    &[n, f],
                    dtype,
                    &[b, 1],
                    n,
                    "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
                    &[b, f],
                    &body,
                );
                check(&case, Tolerance::Exact, Expect::Native);
            }
        }
    }
}

#[test]
fn scatter_windows_straddling_the_edge_are_dropped_whole() {
    let mut rng = Rng::new(22);
    for dtype in [DType::F32, DType::I32, DType::BF16] {
        let case = scatter_case(
            &mut rng,
            &[6, 5],
            dtype,
            &[7, 2],
            6,
            "update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1",
            &[7, 2, 3],
            &binary_body("add", dtype),
        );
        check(&case, Tolerance::Exact, Expect::Native);
    }
}

#[test]
fn scatter_with_batching_dims_and_and_or() {
    let mut rng = Rng::new(23);
    for (dtype, op) in [(DType::I32, "and"), (DType::Bool, "or"), (DType::U16, "or")] {
        let case = scatter_case(
            &mut rng,
            &[3, 5, 2],
            dtype,
            &[3, 4, 1],
            5,
            "update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2",
            &[3, 4, 2],
            &binary_body(op, dtype),
        );
        check(&case, Tolerance::Exact, Expect::Native);
    }
}

/// A subtracting update region is not a recognised combiner: it runs as a vector program of
/// the region (`scatter_region`), natively (it once fell back).
#[test]
fn scatter_with_another_region_runs_as_a_region_program() {
    let mut rng = Rng::new(24);
    let case = scatter_case(
        &mut rng,
        &[5, 3],
        DType::F32,
        &[4, 1],
        5,
        "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
        &[4, 3],
        &binary_body("subtract", DType::F32),
    );
    check(&case, Tolerance::Exact, Expect::Native);
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
fn jax_gather_and_scatter_golden_runs_natively() {
    let fallbacks = golden_fallbacks("gather_scatter");
    assert!(
        !fallbacks
            .iter()
            .any(|op| op.contains("gather") || op.contains("scatter")),
        "{fallbacks:?}"
    );
}
