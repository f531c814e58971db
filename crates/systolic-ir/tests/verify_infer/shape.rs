use super::*;
use systolic_ir::Tensor;

#[test]
fn constant_has_its_value_type() {
    let v = Tensor::from_f32(vec![2, 2], vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(infer(OpKind::Constant(v), &[]), Ok(vec![f32t(&[2, 2])]));
    let v = Tensor::scalar_f32(1.0);
    expect_err(
        infer(OpKind::Constant(v), &[f32t(&[])]),
        "expects 0 operands",
    );
}

#[test]
fn iota_needs_an_in_range_dimension_of_the_declared_type() {
    let r = infer_decl(OpKind::Iota { dimension: 1 }, &[], &[i32t(&[4, 5])]);
    assert_eq!(r, Ok(vec![i32t(&[4, 5])]));
    let e = infer_decl(OpKind::Iota { dimension: 2 }, &[], &[i32t(&[4, 5])]).unwrap_err();
    assert_eq!(
        e,
        "`iota_dimension` entry 2 is out of range for rank 2 (must be in [0, 2))"
    );
    expect_err(
        infer_decl(OpKind::Iota { dimension: 0 }, &[], &[i32t(&[])]),
        "out of range for rank 0",
    );
    expect_err(
        infer_decl(OpKind::Iota { dimension: 0 }, &[], &[t(&[3], DType::Bool)]),
        "integer, floating-point or complex",
    );
    expect_err(
        infer(OpKind::Iota { dimension: 0 }, &[]),
        "must be declared",
    );
}

fn bcast(dims: &[i64]) -> OpKind {
    OpKind::BroadcastInDim {
        broadcast_dimensions: dims.to_vec(),
    }
}

#[test]
fn broadcast_in_dim_follows_the_spec_example() {
    // tensor<1x3xi32> with dims [2, 1] -> tensor<2x3x2xi32>.
    let r = infer_decl(bcast(&[2, 1]), &[i32t(&[1, 3])], &[i32t(&[2, 3, 2])]);
    assert_eq!(r, Ok(vec![i32t(&[2, 3, 2])]));
    assert_eq!(
        infer_decl(bcast(&[]), &[f32t(&[])], &[f32t(&[4, 4])]),
        Ok(vec![f32t(&[4, 4])])
    );
}

#[test]
fn broadcast_in_dim_rejects_bad_dimensions() {
    let x = i32t(&[2, 3]);
    let e = infer_decl(bcast(&[0, 1]), std::slice::from_ref(&x), &[i32t(&[2, 4])]).unwrap_err();
    assert_eq!(
        e,
        "cannot broadcast tensor<2x3xi32> to tensor<2x4xi32>: operand dimension 1 (size 3) maps to result dimension 1 (size 4)"
    );
    expect_err(
        infer_decl(bcast(&[0]), std::slice::from_ref(&x), &[i32t(&[2, 3])]),
        "`broadcast_dimensions` has 1 entry but the operand's rank is 2",
    );
    expect_err(
        infer_decl(bcast(&[0, 5]), std::slice::from_ref(&x), &[i32t(&[2, 3])]),
        "entry 5 is out of range",
    );
    expect_err(
        infer_decl(bcast(&[1, 1]), std::slice::from_ref(&x), &[i32t(&[3, 3])]),
        "repeats dimension 1",
    );
    expect_err(
        infer_decl(bcast(&[0, 1]), std::slice::from_ref(&x), &[f32t(&[2, 3])]),
        "element types must be equal",
    );
    expect_err(
        infer_decl(bcast(&[0, -1]), &[x], &[i32t(&[2, 3])]),
        "entry -1 is out of range",
    );
}

#[test]
fn broadcast_prepends_sizes() {
    let r = infer(
        OpKind::Broadcast {
            broadcast_sizes: vec![4, 5],
        },
        &[f32t(&[3])],
    );
    assert_eq!(r, Ok(vec![f32t(&[4, 5, 3])]));
    expect_err(
        infer(
            OpKind::Broadcast {
                broadcast_sizes: vec![-4],
            },
            &[f32t(&[3])],
        ),
        "negative size -4",
    );
}

#[test]
fn reshape_keeps_the_element_count() {
    assert_eq!(
        infer_decl(OpKind::Reshape, &[i32t(&[2, 3])], &[i32t(&[3, 2])]),
        Ok(vec![i32t(&[3, 2])])
    );
    assert_eq!(
        infer_decl(OpKind::Reshape, &[i32t(&[1])], &[i32t(&[])]),
        Ok(vec![i32t(&[])])
    );
    let e = infer_decl(OpKind::Reshape, &[i32t(&[2, 3])], &[i32t(&[4])]).unwrap_err();
    assert_eq!(
        e,
        "cannot reshape tensor<2x3xi32> to tensor<4xi32>: the element counts differ"
    );
    expect_err(
        infer_decl(OpKind::Reshape, &[i32t(&[2])], &[f32t(&[2])]),
        "element types must be equal",
    );
    expect_err(
        infer_decl(OpKind::Reshape, &[i32t(&[2])], &[i32t(&[2]), i32t(&[2])]),
        "declares 2 results; expected 1",
    );
    expect_err(
        infer_decl(OpKind::Reshape, &[i32t(&[2])], &[Type::Token]),
        "must be a tensor",
    );
}

#[test]
fn transpose_permutes_dimensions() {
    let p = |v: &[i64]| OpKind::Transpose {
        permutation: v.to_vec(),
    };
    assert_eq!(
        infer(p(&[2, 0, 1]), &[i32t(&[2, 3, 4])]),
        Ok(vec![i32t(&[4, 2, 3])])
    );
    expect_err(
        infer(p(&[0, 0, 1]), &[i32t(&[2, 3, 4])]),
        "repeats dimension 0",
    );
    expect_err(
        infer(p(&[0, 1]), &[i32t(&[2, 3, 4])]),
        "`permutation` has 2 entries",
    );
    expect_err(
        infer(p(&[0, 1, 3]), &[i32t(&[2, 3, 4])]),
        "entry 3 is out of range",
    );
}

fn slice(start: &[i64], limit: &[i64], strides: &[i64]) -> OpKind {
    OpKind::Slice {
        start_indices: start.to_vec(),
        limit_indices: limit.to_vec(),
        strides: strides.to_vec(),
    }
}

#[test]
fn slice_rounds_up_strided_sizes() {
    // The spec's example: [1, 2]..[3, 4] of tensor<3x4xi64> -> tensor<2x2xi64>.
    let x = t(&[3, 4], DType::I64);
    assert_eq!(
        infer(slice(&[1, 2], &[3, 4], &[1, 1]), std::slice::from_ref(&x)),
        Ok(vec![t(&[2, 2], DType::I64)])
    );
    // ceil((4 - 0) / 3) = 2, ceil((3 - 1) / 2) = 1.
    assert_eq!(
        infer(slice(&[1, 0], &[3, 4], &[2, 3]), std::slice::from_ref(&x)),
        Ok(vec![t(&[1, 2], DType::I64)])
    );
    assert_eq!(
        infer(slice(&[2, 4], &[2, 4], &[1, 1]), std::slice::from_ref(&x)),
        Ok(vec![t(&[0, 0], DType::I64)])
    );
}

#[test]
fn slice_rejects_bad_bounds() {
    let x = i32t(&[3, 4]);
    expect_err(
        infer(slice(&[0, 0], &[4, 4], &[1, 1]), std::slice::from_ref(&x)),
        "0 <= start <= limit <= 3",
    );
    expect_err(
        infer(slice(&[2, 0], &[1, 4], &[1, 1]), std::slice::from_ref(&x)),
        "start 2 and limit 1",
    );
    expect_err(
        infer(slice(&[-1, 0], &[1, 4], &[1, 1]), std::slice::from_ref(&x)),
        "start -1",
    );
    expect_err(
        infer(slice(&[0, 0], &[1, 4], &[1, 0]), std::slice::from_ref(&x)),
        "stride 0 must be positive",
    );
    expect_err(
        infer(slice(&[0], &[1, 4], &[1, 1]), &[x]),
        "`start_indices` has 1 entry",
    );
}

#[test]
fn dynamic_slice_has_the_slice_sizes() {
    let k = |s: &[i64]| OpKind::DynamicSlice {
        slice_sizes: s.to_vec(),
    };
    let x = i32t(&[4, 4]);
    let i = t(&[], DType::I64);
    assert_eq!(
        infer(k(&[2, 2]), &[x.clone(), i.clone(), i.clone()]),
        Ok(vec![i32t(&[2, 2])])
    );
    expect_err(
        infer(k(&[2, 5]), &[x.clone(), i.clone(), i.clone()]),
        "entry 5 for dimension 1",
    );
    expect_err(
        infer(k(&[2, 2]), &[x.clone(), i.clone()]),
        "has 1 start index but the operand has rank 2",
    );
    expect_err(
        infer(k(&[2, 2]), &[x.clone(), i.clone(), i32t(&[])]),
        "start indices have types",
    );
    expect_err(
        infer(k(&[2, 2]), &[x.clone(), i.clone(), t(&[1], DType::I64)]),
        "start index #1 must be a 0-dimensional tensor",
    );
    expect_err(infer(k(&[2, 2]), &[x, i, f32t(&[])]), "integer type");
}

#[test]
fn dynamic_update_slice_keeps_the_operand_type() {
    let x = i32t(&[4, 4]);
    let u = i32t(&[2, 2]);
    let i = t(&[], DType::I64);
    assert_eq!(
        infer(
            OpKind::DynamicUpdateSlice,
            &[x.clone(), u.clone(), i.clone(), i.clone()]
        ),
        Ok(vec![x.clone()])
    );
    expect_err(
        infer(
            OpKind::DynamicUpdateSlice,
            &[x.clone(), i32t(&[5, 1]), i.clone(), i.clone()],
        ),
        "does not fit",
    );
    expect_err(
        infer(
            OpKind::DynamicUpdateSlice,
            &[x.clone(), i32t(&[2]), i.clone()],
        ),
        "ranks must be equal",
    );
    expect_err(
        infer(OpKind::DynamicUpdateSlice, &[x, u, i]),
        "has 1 start index but",
    );
}

#[test]
fn concatenate_adds_sizes_along_the_dimension() {
    // The spec's example: tensor<3x2xi64> ++ tensor<1x2xi64> along 0.
    let a = t(&[3, 2], DType::I64);
    let b = t(&[1, 2], DType::I64);
    assert_eq!(
        infer(
            OpKind::Concatenate { dimension: 0 },
            &[a.clone(), b.clone()]
        ),
        Ok(vec![t(&[4, 2], DType::I64)])
    );
    expect_err(
        infer(
            OpKind::Concatenate { dimension: 1 },
            &[a.clone(), b.clone()],
        ),
        "except along dimension 1",
    );
    expect_err(
        infer(OpKind::Concatenate { dimension: 2 }, &[a.clone(), b]),
        "entry 2 is out of range",
    );
    expect_err(
        infer(OpKind::Concatenate { dimension: 0 }, &[]),
        "at least one input",
    );
    expect_err(
        infer(OpKind::Concatenate { dimension: 0 }, &[a, f32t(&[1, 2])]),
        "must be equal except",
    );
}

fn pad(lo: &[i64], hi: &[i64], interior: &[i64]) -> OpKind {
    OpKind::Pad {
        edge_padding_low: lo.to_vec(),
        edge_padding_high: hi.to_vec(),
        interior_padding: interior.to_vec(),
    }
}

#[test]
fn pad_follows_the_spec_example_and_crops_with_negative_padding() {
    // The spec's example: tensor<2x3xi32>, low [0, 1], high [2, 1], interior [1, 2] -> 5x9.
    let x = i32t(&[2, 3]);
    let v = i32t(&[]);
    assert_eq!(
        infer(pad(&[0, 1], &[2, 1], &[1, 2]), &[x.clone(), v.clone()]),
        Ok(vec![i32t(&[5, 9])])
    );
    // Negative edge padding crops: 3 - 1 - 1 = 1.
    assert_eq!(
        infer(pad(&[0, -1], &[0, -1], &[0, 0]), &[x.clone(), v.clone()]),
        Ok(vec![i32t(&[2, 1])])
    );
    expect_err(
        infer(pad(&[0, -2], &[0, -2], &[0, 0]), &[x.clone(), v.clone()]),
        "would be negative",
    );
    expect_err(
        infer(pad(&[0, 0], &[0, 0], &[0, -1]), &[x.clone(), v.clone()]),
        "must not be negative",
    );
    expect_err(
        infer(pad(&[0], &[0, 0], &[0, 0]), &[x.clone(), v.clone()]),
        "`edge_padding_low` has 1 entry",
    );
    expect_err(
        infer(pad(&[0, 0], &[0, 0], &[0, 0]), &[x.clone(), i32t(&[1])]),
        "padding_value must be a 0-dimensional",
    );
    expect_err(
        infer(pad(&[0, 0], &[0, 0], &[0, 0]), &[x, f32t(&[])]),
        "element types must be equal",
    );
}

#[test]
fn pad_with_huge_sizes_reports_overflow_instead_of_panicking() {
    // The padded size overflows i64.
    let x = i32t(&[1 << 40]);
    expect_err(
        infer(pad(&[i64::MAX], &[0], &[0]), &[x, i32t(&[])]),
        "overflows",
    );
    // An operand whose bytes do not fit is refused before any padding is computed.
    let x = i32t(&[i64::MAX]);
    expect_err(infer(pad(&[0], &[0], &[0]), &[x, i32t(&[])]), "too large");
}

#[test]
fn reverse_and_get_dimension_size() {
    let x = i32t(&[3, 2]);
    assert_eq!(
        infer(
            OpKind::Reverse {
                dimensions: vec![1]
            },
            std::slice::from_ref(&x)
        ),
        Ok(vec![x.clone()])
    );
    expect_err(
        infer(
            OpKind::Reverse {
                dimensions: vec![1, 1],
            },
            std::slice::from_ref(&x),
        ),
        "repeats",
    );
    expect_err(
        infer(
            OpKind::Reverse {
                dimensions: vec![2],
            },
            std::slice::from_ref(&x),
        ),
        "out of range",
    );
    assert_eq!(
        infer(
            OpKind::GetDimensionSize { dimension: 1 },
            std::slice::from_ref(&x)
        ),
        Ok(vec![i32t(&[])])
    );
    expect_err(
        infer(OpKind::GetDimensionSize { dimension: 2 }, &[x]),
        "out of range for rank 2",
    );
}
