//! Ops whose regions the CPU backend runs as vector programs (kernels/region.rs) against the
//! reference interpreter: scatter with any update computation, variadic scatter, variadic
//! reduce_window (argmax windows), the sub-byte integers in both, and `stablehlo.rng`. Every
//! case must compile without an interpreter fallback.

mod support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, DTypeKind, Tensor, TensorType};

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

/// Every element type.
const ALL: [DType; 17] = [
    DType::F32,
    DType::F64,
    DType::BF16,
    DType::F16,
    DType::I64,
    DType::I32,
    DType::I16,
    DType::I8,
    DType::I4,
    DType::I2,
    DType::U64,
    DType::U32,
    DType::U16,
    DType::U8,
    DType::U4,
    DType::U2,
    DType::Bool,
];

/// Index values around `0..bound` (some negative, some past the end: dropped).
fn indices(rng: &mut Rng, shape: &[i64], bound: i64) -> Tensor {
    let t = ty(shape, DType::I32);
    let bits: Vec<u64> = (0..t.num_elements())
        .map(|_| (rng.below(bound.max(0) as u64 + 4) as i64 - 2) as u64)
        .collect();
    Tensor::from_bits(t, &bits).unwrap()
}

/// A scatter of `dtypes.len()` inputs of shape `input` with the region body `body` (arguments
/// `%x0…` current values, `%y0…` updates; it returns the new values).
#[allow(clippy::too_many_arguments)]
fn scatter_case(
    rng: &mut Rng,
    input: &[i64],
    dtypes: &[DType],
    idx_shape: &[i64],
    bound: i64,
    dn: &str,
    updates: &[i64],
    body: &str,
    flags: (bool, bool),
) -> Case {
    let n = dtypes.len();
    let mut inputs: Vec<Tensor> = dtypes
        .iter()
        .map(|&d| random::tensor(rng, &ty(input, d)))
        .collect();
    inputs.push(indices(rng, idx_shape, bound));
    for &d in dtypes {
        inputs.push(random::tensor(rng, &ty(updates, d)));
    }
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("%a{i}")).collect();
    let types: Vec<String> = inputs.iter().map(|t| t.ty().to_string()).collect();
    let results: Vec<TensorType> = dtypes.iter().map(|&d| ty(input, d)).collect();
    let result_types: Vec<String> = results.iter().map(|t| t.to_string()).collect();
    let result_names: Vec<String> = (0..n).map(|i| format!("%r{i}")).collect();
    let mut block_args: Vec<String> = dtypes
        .iter()
        .enumerate()
        .map(|(i, d)| format!("%x{i}: tensor<{d}>"))
        .collect();
    block_args.extend(
        dtypes
            .iter()
            .enumerate()
            .map(|(i, d)| format!("%y{i}: tensor<{d}>")),
    );
    let ops = format!(
        "  {} = \"stablehlo.scatter\"({}) <{{indices_are_sorted = {}, scatter_dimension_numbers = #stablehlo.scatter<{dn}>, unique_indices = {}}}> ({{\n  ^bb0({}):\n{body}\n  }}) : ({}) -> ({})",
        result_names.join(", "),
        names.join(", "),
        flags.0,
        flags.1,
        block_args.join(", "),
        types.join(", "),
        result_types.join(", ")
    );
    Case::with_inputs(inputs, &ops, &results)
}

/// `x * y + 1` (`x xor y` on booleans) on one value.
fn mul_add_one(dtype: DType) -> String {
    let t = format!("tensor<{dtype}>");
    if dtype == DType::Bool {
        return format!("    %z = stablehlo.xor %x0, %y0 : {t}\n    stablehlo.return %z : {t}");
    }
    let one = if dtype.is_float() { "1.0" } else { "1" };
    format!(
        "    %m = stablehlo.multiply %x0, %y0 : {t}\n    %c = stablehlo.constant dense<{one}> : {t}\n    %z = stablehlo.add %m, %c : {t}\n    stablehlo.return %z : {t}"
    )
}

fn binary(op: &str, dtype: DType) -> String {
    let t = format!("tensor<{dtype}>");
    format!("    %z = stablehlo.{op} %x0, %y0 : {t}\n    stablehlo.return %z : {t}")
}

const ROWS: &str = "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1";

#[test]
fn scatter_with_general_regions_every_dtype() {
    let mut rng = Rng::new(301);
    for dtype in ALL {
        let mut bodies = vec![mul_add_one(dtype), binary("add", dtype)];
        if dtype != DType::Bool {
            bodies.push(binary("subtract", dtype));
            bodies.push(binary("maximum", dtype));
        }
        for body in &bodies {
            // (rows, row length, updates): duplicates (more updates than rows), sizes 0 and 1,
            // odd sizes, more updates than one batch.
            for (n, f, b) in [
                (5, 4, 9),
                (1, 1, 3),
                (3, 0, 2),
                (4, 3, 0),
                (7, 5, 20),
                (3, 1, 600),
            ] {
                for flags in [(false, false), (true, true)] {
                    let case = scatter_case(
                        &mut rng,
                        &[n, f],
                        &[dtype],
                        &[b, 1],
                        n,
                        ROWS,
                        &[b, f],
                        body,
                        flags,
                    );
                    check(&case, Tolerance::Exact, Expect::Native);
                }
            }
        }
    }
}

#[test]
fn scatter_region_windows_batching_dims_and_edges() {
    let mut rng = Rng::new(302);
    for dtype in [DType::F32, DType::BF16, DType::I4, DType::U8] {
        // Windows straddling the edge are dropped whole.
        let case = scatter_case(
            &mut rng,
            &[6, 5],
            &[dtype],
            &[7, 2],
            6,
            "update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1",
            &[7, 2, 3],
            &mul_add_one(dtype),
            (false, false),
        );
        check(&case, Tolerance::Exact, Expect::Native);
        let case = scatter_case(
            &mut rng,
            &[3, 5, 2],
            &[dtype],
            &[3, 4, 1],
            5,
            "update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2",
            &[3, 4, 2],
            &binary("subtract", dtype),
            (false, true),
        );
        check(&case, Tolerance::Exact, Expect::Native);
        // A scalar input, indexed by empty index vectors.
        let case = scatter_case(
            &mut rng,
            &[],
            &[dtype],
            &[4, 0],
            1,
            "scatter_dims_to_operand_dims = [], index_vector_dim = 1",
            &[4],
            &mul_add_one(dtype),
            (false, false),
        );
        check(&case, Tolerance::Exact, Expect::Native);
    }
}

/// A region that converts: bf16/f16/i4 values accumulated through f32 (or i32).
#[test]
fn scatter_region_with_converts() {
    let mut rng = Rng::new(303);
    for (dtype, wide) in [
        (DType::BF16, DType::F32),
        (DType::F16, DType::F32),
        (DType::I4, DType::I32),
        (DType::U4, DType::F32),
    ] {
        let (t, w) = (format!("tensor<{dtype}>"), format!("tensor<{wide}>"));
        let body = format!(
            "    %a = stablehlo.convert %x0 : ({t}) -> {w}\n    %b = stablehlo.convert %y0 : ({t}) -> {w}\n    %c = stablehlo.multiply %a, %b : {w}\n    %d = stablehlo.add %c, %a : {w}\n    %z = stablehlo.convert %d : ({w}) -> {t}\n    stablehlo.return %z : {t}"
        );
        for (n, f, b) in [(5, 3, 11), (2, 2, 1), (4, 0, 3)] {
            let case = scatter_case(
                &mut rng,
                &[n, f],
                &[dtype],
                &[b, 1],
                n,
                ROWS,
                &[b, f],
                &body,
                (false, false),
            );
            check(&case, Tolerance::Exact, Expect::Native);
        }
    }
}

/// Two inputs: a (value, index) pair kept where the update's value is larger (an argmax
/// scatter), and a plain variadic add.
#[test]
fn variadic_scatter() {
    let mut rng = Rng::new(304);
    for (vd, id) in [
        (DType::F32, DType::I32),
        (DType::BF16, DType::I64),
        (DType::I8, DType::U4),
    ] {
        let (v, i) = (format!("tensor<{vd}>"), format!("tensor<{id}>"));
        let argmax = format!(
            "    %p = stablehlo.compare GT, %y0, %x0 : ({v}, {v}) -> tensor<i1>\n    %s = stablehlo.select %p, %y0, %x0 : tensor<i1>, {v}\n    %k = stablehlo.select %p, %y1, %x1 : tensor<i1>, {i}\n    stablehlo.return %s, %k : {v}, {i}"
        );
        let add = format!(
            "    %s = stablehlo.add %x0, %y0 : {v}\n    %k = stablehlo.add %x1, %y1 : {i}\n    stablehlo.return %s, %k : {v}, {i}"
        );
        for body in [&argmax, &add] {
            for (n, f, b) in [(5, 3, 11), (1, 1, 1), (4, 0, 3), (3, 2, 0), (6, 1, 300)] {
                let case = scatter_case(
                    &mut rng,
                    &[n, f],
                    &[vd, id],
                    &[b, 1],
                    n,
                    ROWS,
                    &[b, f],
                    body,
                    (false, false),
                );
                check(&case, Tolerance::Exact, Expect::Native);
            }
        }
    }
}

#[test]
fn scatter_ignoring_its_inputs_and_returning_constants() {
    let mut rng = Rng::new(305);
    for dtype in [DType::F32, DType::I2, DType::Bool] {
        let t = format!("tensor<{dtype}>");
        let c = if dtype.is_float() { "2.5" } else { "1" };
        let c = if dtype == DType::Bool { "true" } else { c };
        let body =
            format!("    %c = stablehlo.constant dense<{c}> : {t}\n    stablehlo.return %c : {t}");
        let case = scatter_case(
            &mut rng,
            &[4, 2],
            &[dtype],
            &[6, 1],
            4,
            ROWS,
            &[6, 2],
            &body,
            (false, false),
        );
        check(&case, Tolerance::Exact, Expect::Native);
        // Overwrite with the first update (returns the current value: the first write wins).
        let body = format!("    stablehlo.return %x0 : {t}");
        let case = scatter_case(
            &mut rng,
            &[4, 2],
            &[dtype],
            &[6, 1],
            4,
            ROWS,
            &[6, 2],
            &body,
            (false, false),
        );
        check(&case, Tolerance::Exact, Expect::Native);
    }
    let _ = DTypeKind::Bool;
}
