//! Compiled vs interpreter for the kernel families with structure: products (dot_general,
//! convolution), sort and top_k, reduce_window and select_and_scatter, rng_bit_generator,
//! cholesky and triangular_solve. Random shapes and dimension numbers; every op is compared with
//! the interpreter and must run on its family's native kernel (`Expect::Native`): every case
//! generated here is one the families claim (recognised sort comparators, simple window
//! reducers, comparison selects on byte-sized types).
//!
//! Products use integer-valued float inputs small enough that every partial sum is exact, so
//! any summation order gives the interpreter's values; only the sign of a zero sum may differ
//! ([`PRODUCT`]). The linear algebra is compared within a relative tolerance (its operation
//! order is the kernel's choice).

use crate::support;

use support::compare::Tolerance::{self, Close, Exact};
use support::harness::{check_many, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, Tensor, TensorType};

const CASES: u64 = 16;

/// Exact values, with +0 and -0 equal: the sign of a sum of zero products depends on where the
/// accumulation starts (JAX on CPU gives -0.0 for [-2, 0]·[0, -3], the interpreter +0.0).
const PRODUCT: Tolerance = Close {
    rtol: 0.0,
    atol: 0.0,
};

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Integer values in [-3, 3] ([0, 6] unsigned; exact in every float type; products and sums stay exact).
fn small_ints(rng: &mut Rng, ty: &TensorType) -> Tensor {
    let values: Vec<i64> = (0..ty.num_elements())
        .map(|_| rng.below(7) as i64 - 3)
        .collect();
    if ty.dtype.is_float() {
        let f = values.into_iter().map(|v| v as f64).collect();
        Tensor::from_f64(ty.shape.clone(), ty.dtype, f).unwrap()
    } else if ty.dtype.is_unsigned_integer() {
        let u = values.into_iter().map(|v| (v + 3) as u64).collect();
        Tensor::from_u64(ty.shape.clone(), ty.dtype, u).unwrap()
    } else {
        Tensor::from_i64(ty.shape.clone(), ty.dtype, values).unwrap()
    }
}

fn dim(rng: &mut Rng) -> i64 {
    *rng.pick(&[0, 1, 2, 3, 5, 8])
}

/// dot_general with random batch, free and contracting dimensions, operands transposed at
/// random, in every dtype JAX multiplies.
#[test]
fn dot_general_random_dimension_numbers() {
    check_many(2000, 40, PRODUCT, Expect::Native, |rng| {
        let dtype = *rng.pick(&[
            DType::F32,
            DType::F64,
            DType::BF16,
            DType::F16,
            DType::I32,
            DType::I8,
        ]);
        let (nb, nm, nn, nk) = (
            rng.below(2),
            rng.below(2) + 1,
            rng.below(2),
            1 + rng.below(2),
        );
        let b: Vec<i64> = (0..nb).map(|_| dim(rng)).collect();
        let m: Vec<i64> = (0..nm).map(|_| dim(rng)).collect();
        let n: Vec<i64> = (0..nn).map(|_| dim(rng)).collect();
        let k: Vec<i64> = (0..nk).map(|_| dim(rng)).collect();
        // lhs dims: batch, m, k (then shuffled); rhs: batch, k, n (then shuffled)
        let lhs_logical: Vec<i64> = b.iter().chain(&m).chain(&k).copied().collect();
        let rhs_logical: Vec<i64> = b.iter().chain(&k).chain(&n).copied().collect();
        let lp = permutation(rng, lhs_logical.len());
        let rp = permutation(rng, rhs_logical.len());
        let pos =
            |p: &[usize], logical: usize| p.iter().position(|&x| x == logical).unwrap() as i64;
        let lhs = TensorType::new(lp.iter().map(|&i| lhs_logical[i]).collect(), dtype);
        let rhs = TensorType::new(rp.iter().map(|&i| rhs_logical[i]).collect(), dtype);
        let nb = nb as usize;
        let lb: Vec<i64> = (0..nb).map(|i| pos(&lp, i)).collect();
        let rb: Vec<i64> = (0..nb).map(|i| pos(&rp, i)).collect();
        let lc: Vec<i64> = (0..k.len()).map(|i| pos(&lp, nb + m.len() + i)).collect();
        let rc: Vec<i64> = (0..k.len()).map(|i| pos(&rp, nb + i)).collect();
        // Result: batch dimensions, then the free dimensions of each operand in its own order.
        let free = |shape: &[i64], used: &[i64]| -> Vec<i64> {
            (0..shape.len() as i64)
                .filter(|d| !used.contains(d))
                .map(|d| shape[d as usize])
                .collect()
        };
        let lhs_used: Vec<i64> = lb.iter().chain(&lc).copied().collect();
        let rhs_used: Vec<i64> = rb.iter().chain(&rc).copied().collect();
        let mut out_shape = b.clone();
        out_shape.extend(free(&lhs.shape, &lhs_used));
        out_shape.extend(free(&rhs.shape, &rhs_used));
        let out = TensorType::new(out_shape, dtype);
        let batching = if nb > 0 {
            format!("batching_dims = [{}] x [{}], ", list(&lb), list(&rb))
        } else {
            String::new()
        };
        let text = format!(
            "  %r0 = stablehlo.dot_general %a0, %a1, {batching}contracting_dims = [{}] x [{}] : ({lhs}, {rhs}) -> {out}",
            list(&lc),
            list(&rc)
        );
        let inputs = vec![small_ints(rng, &lhs), small_ints(rng, &rhs)];
        Case::with_inputs(inputs, &text, &[out])
    });
}

fn permutation(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(i as u64 + 1) as usize);
    }
    p
}

/// 2-D NHWC convolutions with strides, padding (negative too), dilations and feature groups.
#[test]
fn convolution_random_windows() {
    check_many(2100, 30, PRODUCT, Expect::Native, |rng| {
        let dtype = *rng.pick(&[DType::F32, DType::F64, DType::BF16]);
        let groups = 1 + rng.below(2) as i64;
        let (n, c_per, o_per) = (
            1 + rng.below(2) as i64,
            1 + rng.below(3) as i64,
            1 + rng.below(3) as i64,
        );
        let (ci, co) = (c_per * groups, o_per * groups);
        let (mut spatial_in, mut window, mut stride, mut pad, mut ld, mut rd, mut out_sp) =
            (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..2 {
            let x = 1 + rng.below(7) as i64;
            let w = 1 + rng.below(3) as i64;
            let s = 1 + rng.below(2) as i64;
            let l = 1 + rng.below(2) as i64;
            let r = 1 + rng.below(2) as i64;
            let (plo, phi) = (rng.below(4) as i64 - 1, rng.below(4) as i64 - 1);
            let dilated_in = (x - 1) * l + 1 + plo + phi;
            let dilated_w = (w - 1) * r + 1;
            let o = if dilated_in >= dilated_w {
                (dilated_in - dilated_w) / s + 1
            } else {
                0
            };
            spatial_in.push(x);
            window.push(w);
            stride.push(s);
            pad.push(format!("[{plo}, {phi}]"));
            ld.push(l);
            rd.push(r);
            out_sp.push(o);
        }
        let lhs = TensorType::new(vec![n, spatial_in[0], spatial_in[1], ci], dtype);
        let rhs = TensorType::new(vec![window[0], window[1], c_per, co], dtype);
        let out = TensorType::new(vec![n, out_sp[0], out_sp[1], co], dtype);
        let text = format!(
            "  %r0 = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{}], pad = [{}], lhs_dilate = [{}], rhs_dilate = [{}]}} {{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : ({lhs}, {rhs}) -> {out}",
            list(&stride),
            pad.join(", "),
            list(&ld),
            list(&rd)
        );
        let inputs = vec![small_ints(rng, &lhs), small_ints(rng, &rhs)];
        Case::with_inputs(inputs, &text, &[out])
    });
}

/// Sorts along a random dimension: one operand in total order (NaN, ±0, ±inf included), or a
/// key with a payload (stable, so ties keep the payload's order).
#[test]
fn sort_keys_and_payloads() {
    check_many(2200, CASES * 2, Exact, Expect::Native, |rng| {
        let rank = 1 + rng.below(3) as usize;
        let dtype = *rng.pick(&[
            DType::F32,
            DType::BF16,
            DType::F64,
            DType::I32,
            DType::U8,
            DType::I64,
        ]);
        let a = TensorType::new(random::shape(rng, rank), dtype);
        let d = rng.below(rank as u64);
        let s = TensorType::scalar(dtype);
        let kind = match dtype {
            d if d.is_float() => "TOTALORDER",
            d if d.is_signed_integer() => "SIGNED",
            _ => "UNSIGNED",
        };
        let dir = rng.pick(&["LT", "GT"]);
        let p = a.with_dtype(DType::I32);
        let text = format!(
            "  %r0, %r1 = \"stablehlo.sort\"(%a0, %a1) <{{dimension = {d} : i64, is_stable = true}}> ({{
  ^bb0(%x: {s}, %y: {s}, %i: tensor<i32>, %j: tensor<i32>):
    %c = stablehlo.compare {dir}, %x, %y, {kind} : ({s}, {s}) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}) : ({a}, {p}) -> ({a}, {p})"
        );
        let keys = if rng.below(2) == 0 {
            random::tensor(rng, &a)
        } else {
            small_ints(rng, &a)
        };
        let inputs = vec![keys, random::tensor(rng, &p)];
        Case::with_inputs(inputs, &text, &[a.clone(), p])
    });
}

#[test]
fn top_k_of_the_last_dimension() {
    check_many(2300, CASES, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&[DType::F32, DType::BF16, DType::I32]);
        let rows = *rng.pick(&[1, 2, 3]);
        let n = 1 + rng.below(9) as i64;
        let k = 1 + rng.below(n as u64) as i64;
        let a = TensorType::new(vec![rows, n], dtype);
        let (v, i) = (
            TensorType::new(vec![rows, k], dtype),
            TensorType::new(vec![rows, k], DType::I32),
        );
        let text = format!("  %r0, %r1 = chlo.top_k(%a0, k = {k}) : {a} -> ({v}, {i})");
        // Distinct values: ties may be broken either way by a correct top_k.
        let values: Vec<i64> = permutation(rng, (rows * n) as usize)
            .into_iter()
            .map(|x| x as i64 - 4)
            .collect();
        let x = if dtype.is_float() {
            Tensor::from_f64(
                a.shape.clone(),
                dtype,
                values.iter().map(|&x| x as f64 / 2.0).collect(),
            )
            .unwrap()
        } else {
            Tensor::from_i64(a.shape.clone(), dtype, values).unwrap()
        };
        Case::with_inputs(vec![x], &text, &[v, i])
    });
}

/// reduce_window with random window sizes, strides, padding and dilations: sums (exact on
/// small integers), max and min.
#[test]
fn reduce_window_random_windows() {
    check_many(2400, CASES * 2, Exact, Expect::Native, |rng| {
        let dtype = *rng.pick(&[DType::F32, DType::BF16, DType::I32]);
        let reducer = *rng.pick(&["add", "maximum", "minimum"]);
        let rank = 1 + rng.below(2) as usize;
        let (mut shape, mut win, mut strides, mut bd, mut wd, mut pad, mut out) =
            (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..rank {
            let x = 1 + rng.below(6) as i64;
            let w = 1 + rng.below(3) as i64;
            let s = 1 + rng.below(2) as i64;
            let b = 1 + rng.below(2) as i64;
            let dl = 1 + rng.below(2) as i64;
            let (lo, hi) = (rng.below(3) as i64, rng.below(3) as i64);
            let padded = (x - 1) * b + 1 + lo + hi;
            let dw = (w - 1) * dl + 1;
            shape.push(x);
            win.push(w);
            strides.push(s);
            bd.push(b);
            wd.push(dl);
            pad.push(format!("[{lo}, {hi}]"));
            out.push(if padded >= dw {
                (padded - dw) / s + 1
            } else {
                0
            });
        }
        let a = TensorType::new(shape, dtype);
        let s = TensorType::scalar(dtype);
        let r = TensorType::new(out, dtype);
        let text = format!(
            "  %r0 = \"stablehlo.reduce_window\"(%a0, %a1) <{{base_dilations = array<i64: {}>, padding = dense<[{}]> : tensor<{rank}x2xi64>, window_dilations = array<i64: {}>, window_dimensions = array<i64: {}>, window_strides = array<i64: {}>}}> ({{
  ^bb0(%x: {s}, %y: {s}):
    %z = stablehlo.{reducer} %x, %y : {s}
    stablehlo.return %z : {s}
  }}) : ({a}, {s}) -> {r}",
            list(&bd),
            pad.join(", "),
            list(&wd),
            list(&win),
            list(&strides)
        );
        let inputs = vec![small_ints(rng, &a), small_ints(rng, &s)];
        Case::with_inputs(inputs, &text, &[r])
    });
}

/// The max-pool gradient form JAX emits: select the first maximum (GE), scatter by adding.
#[test]
fn select_and_scatter_max_pool_gradient() {
    check_many(2500, CASES, Exact, Expect::Native, |rng| {
        let (h, w) = (1 + rng.below(6) as i64, 1 + rng.below(6) as i64);
        // Windows no larger than the input, so every output position has one.
        let (wh, ww) = (
            1 + rng.below(h.min(2) as u64) as i64,
            1 + rng.below(w.min(2) as u64) as i64,
        );
        let (sh, sw) = (1 + rng.below(2) as i64, 1 + rng.below(2) as i64);
        let (oh, ow) = ((h - wh) / sh + 1, (w - ww) / sw + 1);
        let a = TensorType::new(vec![h, w], DType::F32);
        let src = TensorType::new(vec![oh, ow], DType::F32);
        let s = TensorType::scalar(DType::F32);
        let text = format!(
            "  %r0 = \"stablehlo.select_and_scatter\"(%a0, %a1, %a2) <{{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: {wh}, {ww}>, window_strides = array<i64: {sh}, {sw}>}}> ({{
  ^bb0(%x: {s}, %y: {s}):
    %c = stablehlo.compare GE, %x, %y, FLOAT : ({s}, {s}) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}, {{
  ^bb0(%x: {s}, %y: {s}):
    %z = stablehlo.add %x, %y : {s}
    stablehlo.return %z : {s}
  }}) : ({a}, {src}, {s}) -> {a}"
        );
        let inputs = vec![
            small_ints(rng, &a),
            small_ints(rng, &src),
            small_ints(rng, &s),
        ];
        Case::with_inputs(inputs, &text, &[a])
    });
}

#[test]
fn rng_bit_generator_every_algorithm() {
    check_many(2600, CASES, Exact, Expect::Native, |rng| {
        let alg = *rng.pick(&["THREE_FRY", "PHILOX", "DEFAULT"]);
        let state = if alg == "THREE_FRY" {
            TensorType::new(vec![2], DType::U64)
        } else {
            TensorType::new(vec![*rng.pick(&[2, 3]) as i64], DType::U64)
        };
        let dtype = *rng.pick(&[DType::U32, DType::U64, DType::U8, DType::U16]);
        let rank = 1 + rng.below(2) as usize;
        let out = TensorType::new(random::shape(rng, rank), dtype);
        let text = format!(
            "  %r0, %r1 = stablehlo.rng_bit_generator %a0, algorithm = {alg} : ({state}) -> ({state}, {out})"
        );
        Case::new(
            rng,
            std::slice::from_ref(&state),
            &text,
            &[state.clone(), out],
        )
    });
}

/// A symmetric positive definite matrix (A·Aᵀ + n·I) factored, then solved against.
#[test]
fn cholesky_and_triangular_solve() {
    let tol = Close {
        rtol: 1e-4,
        atol: 1e-4,
    };
    check_many(2700, CASES, tol, Expect::Native, |rng| {
        let n = 1 + rng.below(6) as i64;
        let m = 1 + rng.below(4) as i64;
        let lower = rng.below(2) == 0;
        let left = rng.below(2) == 0;
        let transpose = *rng.pick(&["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]);
        let a = TensorType::new(vec![n, n], DType::F32);
        let b = TensorType::new(if left { vec![n, m] } else { vec![m, n] }, DType::F32);
        let text = format!(
            "  %t = stablehlo.transpose %a0, dims = [1, 0] : ({a}) -> {a}
  %g = stablehlo.dot_general %a0, %t, contracting_dims = [1] x [0] : ({a}, {a}) -> {a}
  %i = stablehlo.iota dim = 0 : tensor<{n}x{n}xi32>
  %j = stablehlo.iota dim = 1 : tensor<{n}x{n}xi32>
  %e = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<{n}x{n}xi32>, tensor<{n}x{n}xi32>) -> tensor<{n}x{n}xi1>
  %one = stablehlo.convert %e : (tensor<{n}x{n}xi1>) -> {a}
  %k = stablehlo.constant dense<{n}.0> : tensor<f32>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> {a}
  %d = stablehlo.multiply %one, %kb : {a}
  %spd = stablehlo.add %g, %d : {a}
  %r0 = stablehlo.cholesky %spd, lower = {lower} : {a}
  %r1 = \"stablehlo.triangular_solve\"(%r0, %a1) <{{left_side = {left}, lower = {lower}, transpose_a = #stablehlo<transpose {transpose}>, unit_diagonal = false}}> : ({a}, {b}) -> {b}"
        );
        let inputs = vec![small_ints(rng, &a), small_ints(rng, &b)];
        Case::with_inputs(inputs, &text, &[a, b])
    });
}
