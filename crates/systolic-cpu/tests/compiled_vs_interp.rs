//! Compiled vs interpreter, shape and data-movement ops and control flow: random shapes (with
//! size-0 and size-1 dimensions), every dtype, edge-case values; results must be bit-exact and
//! the ops must run on native kernels (not the interpreter fallback).

use crate::support;

use support::compare::Tolerance::Exact;
use support::harness::{check, check_many, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, Tensor, TensorType};

const CASES: u64 = 40;

fn any_dtype(rng: &mut Rng) -> DType {
    *rng.pick(&support::REAL_DTYPES)
}

fn ty(shape: Vec<i64>, dtype: DType) -> TensorType {
    TensorType::new(shape, dtype)
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn permutation(rng: &mut Rng, n: usize) -> Vec<i64> {
    let mut p: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(i as u64 + 1) as usize);
    }
    p
}

#[test]
fn transpose() {
    check_many(1, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(5) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let perm = permutation(rng, rank);
        let r = ty(perm.iter().map(|&p| a.shape[p as usize]).collect(), a.dtype);
        let op = format!(
            "  %r0 = stablehlo.transpose %a0, dims = [{}] : ({a}) -> {r}",
            list(&perm)
        );
        Case::new(rng, &[a], &op, &[r])
    });
}

#[test]
fn transpose_large_enough_to_tile() {
    let mut rng = Rng::new(7);
    for (shape, perm) in [
        (vec![40, 70], vec![1, 0]),
        (vec![3, 33, 48], vec![2, 1, 0]),
        (vec![33, 2, 40], vec![0, 2, 1]),
    ] {
        let a = ty(shape, DType::F32);
        let r = ty(
            perm.iter().map(|&p: &i64| a.shape[p as usize]).collect(),
            a.dtype,
        );
        let op = format!(
            "  %r0 = stablehlo.transpose %a0, dims = [{}] : ({a}) -> {r}",
            list(&perm)
        );
        check(&Case::new(&mut rng, &[a], &op, &[r]), Exact, Expect::Native);
    }
}

/// A loop fusion reading an operand transposed (`(a + aᵀ) / 2`, `a · bᵀ` elementwise) takes
/// the grouped-rows load; rows a multiple of its group of 8 and not, square and not, blocks
/// that start mid-row (large enough to run in several blocks).
#[test]
fn fusions_reading_an_operand_transposed() {
    let mut rng = Rng::new(23);
    for (m, n, dtype) in [
        (64, 64, DType::F32),
        (37, 37, DType::F64),
        (300, 257, DType::F32),
        (19, 1000, DType::I32),
    ] {
        let a = ty(vec![m, n], dtype);
        let t = ty(vec![n, m], dtype);
        let half = if dtype == DType::I32 { "2" } else { "2.0" };
        let op = format!(
            "  %t = stablehlo.transpose %a1, dims = [1, 0] : ({t}) -> {a}
  %s = stablehlo.add %a0, %t : {a}
  %p = stablehlo.multiply %s, %t : {a}
  %c = stablehlo.constant dense<{half}> : {a}
  %r0 = stablehlo.divide %p, %c : {a}"
        );
        check(
            &Case::new(&mut rng, &[a.clone(), t], &op, &[a]),
            Exact,
            Expect::Native,
        );
    }
}

#[test]
fn broadcast_in_dim() {
    check_many(2, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(5) as usize;
        let out = random::shape(rng, rank);
        // Keep an increasing subset of result dimensions; each kept one is full size or 1.
        let dims: Vec<i64> = (0..rank as i64).filter(|_| rng.below(2) == 0).collect();
        let shape: Vec<i64> = dims
            .iter()
            .map(|&d| {
                if rng.below(3) == 0 {
                    1
                } else {
                    out[d as usize]
                }
            })
            .collect();
        let dtype = any_dtype(rng);
        let (a, r) = (ty(shape, dtype), ty(out, dtype));
        let op = format!(
            "  %r0 = stablehlo.broadcast_in_dim %a0, dims = [{}] : ({a}) -> {r}",
            list(&dims)
        );
        Case::new(rng, &[a], &op, &[r])
    });
}

#[test]
fn reshape() {
    check_many(3, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(4) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let mut out = a.shape.clone();
        out.reverse();
        if rng.below(2) == 0 {
            out = vec![a.num_elements() as i64];
        }
        let r = ty(out, a.dtype);
        let op = format!("  %r0 = stablehlo.reshape %a0 : ({a}) -> {r}");
        Case::new(rng, &[a], &op, &[r])
    });
}

#[test]
fn slice() {
    check_many(4, CASES, Exact, Expect::Native, |rng| {
        let rank = 1 + rng.below(4) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let mut parts = vec![];
        let mut out = vec![];
        for &n in &a.shape {
            let start = rng.below(n as u64 + 1) as i64;
            let limit = start + rng.below((n - start) as u64 + 1) as i64;
            let step = 1 + rng.below(3) as i64;
            parts.push(format!("{start}:{limit}:{step}"));
            out.push((limit - start + step - 1) / step);
        }
        let r = ty(out, a.dtype);
        let op = format!(
            "  %r0 = stablehlo.slice %a0 [{}] : ({a}) -> {r}",
            parts.join(", ")
        );
        Case::new(rng, &[a], &op, &[r])
    });
}

#[test]
fn reverse() {
    check_many(5, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(5) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let dims: Vec<i64> = (0..rank as i64).filter(|_| rng.below(2) == 0).collect();
        let op = format!(
            "  %r0 = stablehlo.reverse %a0, dims = [{}] : {a}",
            list(&dims)
        );
        Case::new(rng, std::slice::from_ref(&a), &op, std::slice::from_ref(&a))
    });
}

#[test]
fn concatenate() {
    check_many(6, CASES, Exact, Expect::Native, |rng| {
        let rank = 1 + rng.below(4) as usize;
        let base = random::shape(rng, rank);
        let dim = rng.below(rank as u64) as usize;
        let dtype = any_dtype(rng);
        let n = 1 + rng.below(3) as usize;
        let operands: Vec<TensorType> = (0..n)
            .map(|_| {
                let mut s = base.clone();
                s[dim] = rng.below(4) as i64;
                ty(s, dtype)
            })
            .collect();
        let mut out = base.clone();
        out[dim] = operands.iter().map(|t| t.shape[dim]).sum();
        let r = ty(out, dtype);
        let names: Vec<String> = (0..n).map(|i| format!("%a{i}")).collect();
        let types: Vec<String> = operands.iter().map(|t| t.to_string()).collect();
        let op = format!(
            "  %r0 = stablehlo.concatenate {}, dim = {dim} : ({}) -> {r}",
            names.join(", "),
            types.join(", ")
        );
        Case::new(rng, &operands, &op, &[r])
    });
}

#[test]
fn pad_with_negative_and_interior_padding() {
    check_many(7, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(4) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let (mut low, mut high, mut interior, mut out) = (vec![], vec![], vec![], vec![]);
        for &n in &a.shape {
            let i = rng.below(3) as i64;
            let base = n + (n - 1).max(0) * i;
            let l = rng.below(6) as i64 - 2;
            // Keep the result size non-negative.
            let h = (rng.below(6) as i64 - 2).max(-(base + l));
            low.push(l);
            high.push(h);
            interior.push(i);
            out.push(base + l + h);
        }
        let r = ty(out, a.dtype);
        let v = ty(vec![], a.dtype);
        let op = format!(
            "  %r0 = stablehlo.pad %a0, %a1, low = [{}], high = [{}], interior = [{}] : ({a}, {v}) -> {r}",
            list(&low),
            list(&high),
            list(&interior)
        );
        Case::new(rng, &[a, v], &op, &[r])
    });
}

/// Start indices of every integer type, in range, out of range and negative (clamped).
fn start_index(rng: &mut Rng, dtype: DType, n: i64) -> Tensor {
    let i = rng.below(n as u64 + 5) as i64 - 2;
    match dtype {
        DType::U32 | DType::U64 => Tensor::from_u64(vec![], dtype, vec![i.max(0) as u64]).unwrap(),
        _ => Tensor::from_i64(vec![], dtype, vec![i]).unwrap(),
    }
}

#[test]
fn dynamic_slice() {
    check_many(8, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(4) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let sizes: Vec<i64> = a
            .shape
            .iter()
            .map(|&n| rng.below(n as u64 + 1) as i64)
            .collect();
        let idx_dtype = *rng.pick(&[DType::I32, DType::I64, DType::U32]);
        let mut inputs = vec![random::tensor(rng, &a)];
        for &n in &a.shape {
            inputs.push(start_index(rng, idx_dtype, n));
        }
        let r = ty(sizes.clone(), a.dtype);
        let names: Vec<String> = (1..=rank).map(|i| format!(", %a{i}")).collect();
        let types: Vec<String> = (0..rank)
            .map(|_| format!(", {}", ty(vec![], idx_dtype)))
            .collect();
        let op = format!(
            "  %r0 = stablehlo.dynamic_slice %a0{}, sizes = [{}] : ({a}{}) -> {r}",
            names.concat(),
            list(&sizes),
            types.concat()
        );
        Case::with_inputs(inputs, &op, &[r])
    });
}

#[test]
fn dynamic_update_slice() {
    check_many(9, CASES, Exact, Expect::Native, |rng| {
        let rank = rng.below(4) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let u = ty(
            a.shape
                .iter()
                .map(|&n| rng.below(n as u64 + 1) as i64)
                .collect(),
            a.dtype,
        );
        let mut inputs = vec![random::tensor(rng, &a), random::tensor(rng, &u)];
        for &n in &a.shape {
            inputs.push(start_index(rng, DType::I32, n));
        }
        let names: Vec<String> = (2..rank + 2).map(|i| format!(", %a{i}")).collect();
        let types: Vec<String> = (0..rank).map(|_| ", tensor<i32>".to_string()).collect();
        let op = format!(
            "  %r0 = stablehlo.dynamic_update_slice %a0, %a1{} : ({a}, {u}{}) -> {a}",
            names.concat(),
            types.concat()
        );
        Case::with_inputs(inputs, &op, &[a])
    });
}

/// A box that is one contiguous run of the operand (single indices, then one dimension of
/// any extent, then whole dimensions: `x[i]`, `x[i:i+k]`, whole rows), which both kernels copy
/// as one slice; random boxes (above) mostly take the strided copy.
fn contiguous_box(rng: &mut Rng, shape: &[i64]) -> Vec<i64> {
    let k = rng.below(shape.len() as u64 + 1) as usize;
    (0..shape.len())
        .map(|d| match d.cmp(&k) {
            std::cmp::Ordering::Less => shape[d].min(1),
            std::cmp::Ordering::Equal => rng.below(shape[d] as u64 + 1) as i64,
            std::cmp::Ordering::Greater => shape[d],
        })
        .collect()
}

#[test]
fn dynamic_slice_and_update_of_contiguous_boxes() {
    check_many(31, CASES, Exact, Expect::Native, |rng| {
        let rank = 1 + rng.below(3) as usize;
        let a = ty(random::shape(rng, rank), any_dtype(rng));
        let sizes = contiguous_box(rng, &a.shape);
        let u = ty(contiguous_box(rng, &a.shape), a.dtype);
        let s = ty(sizes.clone(), a.dtype);
        let mut inputs = vec![random::tensor(rng, &a), random::tensor(rng, &u)];
        for &n in &a.shape {
            inputs.push(start_index(rng, DType::I32, n));
        }
        let names: Vec<String> = (2..rank + 2).map(|i| format!(", %a{i}")).collect();
        let types: Vec<String> = (0..rank).map(|_| ", tensor<i32>".to_string()).collect();
        let op = format!(
            "  %r0 = stablehlo.dynamic_slice %a0{n}, sizes = [{}] : ({a}{t}) -> {s}\n  \
             %r1 = stablehlo.dynamic_update_slice %a0, %a1{n} : ({a}, {u}{t}) -> {a}",
            list(&sizes),
            n = names.concat(),
            t = types.concat(),
        );
        Case::with_inputs(inputs, &op, &[s, a])
    });
}

/// A loop whose body writes the next value of a carried vector with `dynamic_update_slice`
/// while the previous one lives on (carried out as another value): the update must not be
/// written over the previous value's storage, iteration after iteration.
#[test]
fn while_loop_keeping_the_previous_value_alive() {
    let text = "
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %c0, %prev = %a0, %cur = %a0) : tensor<i32>, tensor<6xi32>, tensor<6xi32>
    cond {
      %n = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x = stablehlo.dynamic_slice %cur, %i, sizes = [2] : (tensor<6xi32>, tensor<i32>) -> tensor<2xi32>
      %y = stablehlo.add %x, %x : tensor<2xi32>
      %next = stablehlo.dynamic_update_slice %cur, %y, %i : (tensor<6xi32>, tensor<2xi32>, tensor<i32>) -> tensor<6xi32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %cur, %next : tensor<i32>, tensor<6xi32>, tensor<6xi32>
    }
  %r0 = stablehlo.add %w#1, %w#1 : tensor<6xi32>
  %r1 = stablehlo.subtract %w#2, %w#1 : tensor<6xi32>";
    let a0 = Tensor::from_i64(vec![6], DType::I32, vec![1, 2, 3, 4, 5, 6]).unwrap();
    let t = ty(vec![6], DType::I32);
    let case = Case::with_inputs(vec![a0], text, &[t.clone(), t]);
    check(&case, Exact, Expect::Native);
    // Iteration k doubles elements k and k + 1 of the current vector: after 4 iterations the
    // previous vector is [2, 8, 12, 8, 5, 6], the last [2, 8, 12, 16, 10, 6].
    let module = support::parse(&case.text);
    let out = support::run_compiled(&support::compile_main(&module), &case.inputs).unwrap();
    assert_eq!(
        out[0],
        Tensor::from_i64(vec![6], DType::I32, vec![4, 16, 24, 16, 10, 12]).unwrap()
    );
    assert_eq!(
        out[1],
        Tensor::from_i64(vec![6], DType::I32, vec![0, 0, 0, 8, 5, 0]).unwrap()
    );
}

#[test]
fn iota() {
    check_many(10, CASES, Exact, Expect::Native, |rng| {
        let rank = 1 + rng.below(3) as usize;
        let dtype = *rng.pick(&[
            DType::I8,
            DType::I32,
            DType::U8,
            DType::U64,
            DType::F16,
            DType::BF16,
            DType::F32,
            DType::F64,
        ]);
        let mut shape = random::shape(rng, rank);
        if rng.below(3) == 0 {
            shape[0] = 300; // wraps in 8-bit types, rounds in bf16
        }
        let r = ty(shape, dtype);
        let dim = rng.below(rank as u64);
        let op = format!("  %r0 = stablehlo.iota dim = {dim} : {r}");
        Case::with_inputs(vec![], &op, &[r])
    });
}

/// A scan-like loop: a counter, an accumulator updated in place with dynamic_update_slice, a
/// value captured from outside the loop, and a pass-through value.
#[test]
fn while_loop_with_captures_and_in_place_updates() {
    let text = "
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %zeros = stablehlo.constant dense<0.0> : tensor<5xf32>
  %w:3 = stablehlo.while(%i = %c0, %acc = %zeros, %p = %a1) : tensor<i32>, tensor<5xf32>, tensor<2xi8>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x = stablehlo.dynamic_slice %a0, %i, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
      %y = stablehlo.add %x, %x : tensor<1xf32>
      %acc2 = stablehlo.dynamic_update_slice %acc, %y, %i : (tensor<5xf32>, tensor<1xf32>, tensor<i32>) -> tensor<5xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %acc2, %p : tensor<i32>, tensor<5xf32>, tensor<2xi8>
    }
  %r0 = stablehlo.reverse %w#1, dims = [0] : tensor<5xf32>
  %r1 = stablehlo.add %w#2, %w#2 : tensor<2xi8>";
    let a0 = Tensor::from_f32(vec![5], vec![1.0, -2.0, 3.5, 0.0, 8.0]);
    let a1 = Tensor::from_i64(vec![2], DType::I8, vec![100, -3]).unwrap();
    let case = Case::with_inputs(
        vec![a0, a1],
        text,
        &[ty(vec![5], DType::F32), ty(vec![2], DType::I8)],
    );
    check(&case, Exact, Expect::Native);
    // And the values themselves: doubled and reversed; 100 + 100 wraps to -56 in i8.
    let module = support::parse(&case.text);
    let out = support::run_compiled(&support::compile_main(&module), &case.inputs).unwrap();
    assert_eq!(
        out[0],
        Tensor::from_f32(vec![5], vec![16.0, 0.0, 7.0, -4.0, 2.0])
    );
    assert_eq!(
        out[1],
        Tensor::from_i64(vec![2], DType::I8, vec![-56, -6]).unwrap()
    );
}

/// `if` and `case` in the generic form JAX prints, branches capturing outer values; case
/// indices out of range run the last branch.
#[test]
fn if_and_case_pick_the_right_branch() {
    let text = r#"
  %r0 = "stablehlo.if"(%a0) ({
    %t = stablehlo.add %a2, %a2 : tensor<3xf32>
    stablehlo.return %t : tensor<3xf32>
  }, {
    stablehlo.return %a2 : tensor<3xf32>
  }) : (tensor<i1>) -> tensor<3xf32>
  %r1 = "stablehlo.case"(%a1) ({
    %c = stablehlo.constant dense<10.0> : tensor<3xf32>
    stablehlo.return %c : tensor<3xf32>
  }, {
    stablehlo.return %a2 : tensor<3xf32>
  }, {
    %n = stablehlo.negate %a2 : tensor<3xf32>
    stablehlo.return %n : tensor<3xf32>
  }) : (tensor<i32>) -> tensor<3xf32>"#;
    let x = Tensor::from_f32(vec![3], vec![1.0, -2.0, 0.5]);
    let f3 = ty(vec![3], DType::F32);
    for (pred, index, want_if, want_case) in [
        (true, 0, [2.0, -4.0, 1.0], [10.0, 10.0, 10.0]),
        (false, 1, [1.0, -2.0, 0.5], [1.0, -2.0, 0.5]),
        (true, 2, [2.0, -4.0, 1.0], [-1.0, 2.0, -0.5]),
        (false, 7, [1.0, -2.0, 0.5], [-1.0, 2.0, -0.5]),
        (true, -1, [2.0, -4.0, 1.0], [-1.0, 2.0, -0.5]),
    ] {
        let inputs = vec![
            Tensor::from_bool(vec![], vec![pred]).unwrap(),
            Tensor::from_i64(vec![], DType::I32, vec![index]).unwrap(),
            x.clone(),
        ];
        let case = Case::with_inputs(inputs, text, &[f3.clone(), f3.clone()]);
        check(&case, Exact, Expect::Native);
        let module = support::parse(&case.text);
        let out = support::run_compiled(&support::compile_main(&module), &case.inputs).unwrap();
        assert_eq!(
            out[0],
            Tensor::from_f32(vec![3], want_if.to_vec()),
            "if {pred}"
        );
        assert_eq!(
            out[1],
            Tensor::from_f32(vec![3], want_case.to_vec()),
            "case {index}"
        );
    }
}

/// `func.call`s of private functions (the callee lowered once), a tuple round trip and an
/// optimization_barrier.
#[test]
fn calls_tuples_and_barriers() {
    let text =
        "func.func @main(%a: tensor<2x3xf32>, %b: tensor<i32>) -> (tensor<3x2xf32>, tensor<i32>) {
  %0 = func.call @twice_t(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = func.call @twice_t(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %t = stablehlo.tuple %0, %b : tuple<tensor<3x2xf32>, tensor<i32>>
  %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<3x2xf32>, tensor<i32>>) -> tensor<i32>
  %2:2 = stablehlo.optimization_barrier %1, %e : tensor<3x2xf32>, tensor<i32>
  return %2#0, %2#1 : tensor<3x2xf32>, tensor<i32>
}
func.func private @twice_t(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.add %0, %0 : tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}";
    let inputs = vec![
        Tensor::from_f32(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        Tensor::from_i64(vec![], DType::I32, vec![i32::MIN as i64]).unwrap(),
    ];
    let case = Case {
        text: text.to_string(),
        inputs,
    };
    check(&case, Exact, Expect::Native);
    let module = support::parse(text);
    let out = support::run_compiled(&support::compile_main(&module), &case.inputs).unwrap();
    assert_eq!(
        out[0],
        Tensor::from_f32(vec![3, 2], vec![2.0, 8.0, 4.0, 10.0, 6.0, 12.0])
    );
    assert_eq!(out[1], case.inputs[1]);
}
