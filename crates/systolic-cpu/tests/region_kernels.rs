//! Ops whose regions the CPU backend runs as vector programs (kernels/region.rs) against the
//! reference interpreter: scatter with any update computation, variadic scatter, variadic
//! reduce_window (argmax windows), the sub-byte integers in both, and `stablehlo.rng`. Every
//! case must compile without an interpreter fallback.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, DTypeKind, Tensor, TensorType};

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

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
    let mut inputs: Vec<Tensor> = dtypes
        .iter()
        .map(|&d| random::tensor(rng, &ty(input, d)))
        .collect();
    inputs.push(indices(rng, idx_shape, bound));
    for &d in dtypes {
        inputs.push(random::tensor(rng, &ty(updates, d)));
    }
    let attrs = format!(
        "indices_are_sorted = {}, scatter_dimension_numbers = #stablehlo.scatter<{dn}>, \
         unique_indices = {}",
        flags.0, flags.1
    );
    region_case(inputs, "scatter", &attrs, dtypes, input, body)
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
    for dtype in support::REAL_DTYPES {
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

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Output size of one window dimension (the spec's formula).
#[allow(clippy::too_many_arguments)]
fn out_size(n: i64, w: i64, s: i64, b: i64, wd: i64, lo: i64, hi: i64) -> i64 {
    let dilated = if n == 0 { 0 } else { (n - 1) * b + 1 };
    let padded = dilated + lo + hi;
    let extent = (w - 1) * wd + 1;
    if padded < extent {
        0
    } else {
        (padded - extent) / s + 1
    }
}

/// A reduce_window of inputs of `dtypes` over `shape` with random windows (strides, base and
/// window dilations, negative and positive padding), random init values, body `body`
/// (arguments `%x0…` accumulators, `%y0…` elements).
fn reduce_window_case(rng: &mut Rng, shape: &[i64], dtypes: &[DType], body: &str) -> Case {
    let rank = shape.len();
    let (mut window, mut strides, mut base, mut wdil, mut pad) =
        (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..rank {
        window.push(1 + rng.below(3) as i64);
        strides.push(1 + rng.below(3) as i64);
        base.push(1 + rng.below(2) as i64);
        wdil.push(1 + rng.below(2) as i64);
        pad.push((rng.below(4) as i64 - 1, rng.below(3) as i64));
    }
    let out: Vec<i64> = (0..rank)
        .map(|d| {
            out_size(
                shape[d], window[d], strides[d], base[d], wdil[d], pad[d].0, pad[d].1,
            )
        })
        .collect();
    let pads: Vec<String> = pad.iter().map(|(l, h)| format!("[{l}, {h}]")).collect();
    let attrs = format!(
        "window_dimensions = array<i64: {}>, window_strides = array<i64: {}>, base_dilations = array<i64: {}>, window_dilations = array<i64: {}>, padding = dense<[{}]> : tensor<{rank}x2xi64>",
        list(&window),
        list(&strides),
        list(&base),
        list(&wdil),
        pads.join(", ")
    );
    let attrs = if rank == 0 {
        "window_dimensions = array<i64>".to_string()
    } else {
        attrs
    };
    reduce_window_with(rng, shape, dtypes, body, &attrs, &out)
}

fn reduce_window_with(
    rng: &mut Rng,
    shape: &[i64],
    dtypes: &[DType],
    body: &str,
    attrs: &str,
    out: &[i64],
) -> Case {
    let mut inputs: Vec<Tensor> = dtypes
        .iter()
        .map(|&d| random::tensor(rng, &ty(shape, d)))
        .collect();
    for &d in dtypes {
        inputs.push(random::tensor(rng, &ty(&[], d)));
    }
    region_case(inputs, "reduce_window", attrs, dtypes, out, body)
}

/// One `stablehlo.OP` with a region over `dtypes` (block arguments `%x0…` current values,
/// `%y0…` the other side) applied to `inputs`, giving one result of shape `out` per dtype.
fn region_case(
    inputs: Vec<Tensor>,
    op: &str,
    attrs: &str,
    dtypes: &[DType],
    out: &[i64],
    body: &str,
) -> Case {
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("%a{i}")).collect();
    let types: Vec<String> = inputs.iter().map(|t| t.ty().to_string()).collect();
    let results: Vec<TensorType> = dtypes.iter().map(|&d| ty(out, d)).collect();
    let result_types: Vec<String> = results.iter().map(|t| t.to_string()).collect();
    let result_names: Vec<String> = (0..dtypes.len()).map(|i| format!("%r{i}")).collect();
    let block_args: Vec<String> = ["x", "y"]
        .iter()
        .flat_map(|side| {
            dtypes
                .iter()
                .enumerate()
                .map(move |(i, d)| format!("%{side}{i}: tensor<{d}>"))
        })
        .collect();
    let ops = format!(
        "  {} = \"stablehlo.{op}\"({}) <{{{attrs}}}> ({{\n  ^bb0({}):\n{body}\n  }}) : ({}) -> ({})",
        result_names.join(", "),
        names.join(", "),
        block_args.join(", "),
        types.join(", "),
        result_types.join(", ")
    );
    Case::with_inputs(inputs, &ops, &results)
}

/// Keeps the (value, index) pair with the larger value (the smaller index on ties; NaN wins),
/// as JAX's argmax over windows does.
fn argmax_body(vd: DType, id: DType) -> String {
    let (v, i) = (format!("tensor<{vd}>"), format!("tensor<{id}>"));
    let nan = if vd.is_float() {
        format!("    %n = stablehlo.compare NE, %x0, %x0 : ({v}, {v}) -> tensor<i1>\n    %g0 = stablehlo.compare GT, %x0, %y0 : ({v}, {v}) -> tensor<i1>\n    %g = stablehlo.or %g0, %n : tensor<i1>\n")
    } else {
        format!("    %g = stablehlo.compare GT, %x0, %y0 : ({v}, {v}) -> tensor<i1>\n")
    };
    format!(
        "{nan}    %e = stablehlo.compare EQ, %x0, %y0 : ({v}, {v}) -> tensor<i1>\n    %l = stablehlo.compare LT, %x1, %y1 : ({i}, {i}) -> tensor<i1>\n    %t = stablehlo.and %e, %l : tensor<i1>\n    %k = stablehlo.or %g, %t : tensor<i1>\n    %s = stablehlo.select %k, %x0, %y0 : tensor<i1>, {v}\n    %j = stablehlo.select %k, %x1, %y1 : tensor<i1>, {i}\n    stablehlo.return %s, %j : {v}, {i}"
    )
}

#[test]
fn variadic_reduce_window_argmax() {
    let mut rng = Rng::new(401);
    for (vd, id) in [
        (DType::F32, DType::I32),
        (DType::BF16, DType::I32),
        (DType::F16, DType::U8),
        (DType::I4, DType::I64),
        (DType::U16, DType::I2),
        (DType::F64, DType::U32),
    ] {
        let body = argmax_body(vd, id);
        for rank in [0, 1, 2, 3] {
            for _ in 0..4 {
                let shape = random::shape(&mut rng, rank);
                let case = reduce_window_case(&mut rng, &shape, &[vd, id], &body);
                check(&case, Tolerance::Exact, Expect::Native);
            }
        }
    }
}

#[test]
fn reduce_window_with_general_bodies_every_dtype() {
    let mut rng = Rng::new(402);
    for dtype in support::REAL_DTYPES {
        let mut bodies = vec![
            mul_add_one(dtype),
            binary("add", dtype),
            binary("maximum", dtype),
        ];
        if dtype != DType::Bool {
            bodies.push(binary("multiply", dtype));
        }
        for body in &bodies {
            for rank in [1, 2, 3] {
                for _ in 0..2 {
                    let shape = random::shape(&mut rng, rank);
                    let case = reduce_window_case(&mut rng, &shape, &[dtype], body);
                    check(&case, Tolerance::Exact, Expect::Native);
                }
            }
        }
    }
}

/// Cumulative windows (JAX's cummax with its index), large enough for several batches and
/// threads, and a window larger than one batch of offsets.
#[test]
fn reduce_window_region_prefix_and_large() {
    let mut rng = Rng::new(403);
    let body = argmax_body(DType::F32, DType::I32);
    for (rows, len) in [(3, 700), (1000, 9), (1, 1)] {
        let attrs = format!(
            "window_dimensions = array<i64: 1, {len}>, window_strides = array<i64: 1, 1>, padding = dense<[[0, 0], [{}, 0]]> : tensor<2x2xi64>",
            len - 1
        );
        let case = reduce_window_with(
            &mut rng,
            &[rows, len],
            &[DType::F32, DType::I32],
            &body,
            &attrs,
            &[rows, len],
        );
        check(&case, Tolerance::Exact, Expect::Native);
    }
}
