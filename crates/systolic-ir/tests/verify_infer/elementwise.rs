use super::*;
use systolic_ir::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};

#[test]
fn add_of_equal_types_keeps_the_type() {
    let x = f32t(&[2, 3]);
    assert_eq!(
        infer(OpKind::Binary(BinaryOp::Add), &[x.clone(), x.clone()]),
        Ok(vec![x])
    );
}

#[test]
fn add_of_different_shapes_is_rejected_with_both_types() {
    let e = infer(OpKind::Binary(BinaryOp::Add), &[f32t(&[2]), f32t(&[3])]).unwrap_err();
    assert_eq!(
        e,
        "operands have types tensor<2xf32> and tensor<3xf32>; they must be equal"
    );
}

#[test]
fn binary_ops_check_their_element_types() {
    let f = f32t(&[4]);
    let i = i32t(&[4]);
    let b = t(&[4], DType::Bool);
    expect_err(
        infer(OpKind::Binary(BinaryOp::And), &[f.clone(), f.clone()]),
        "boolean or integer",
    );
    assert_eq!(
        infer(OpKind::Binary(BinaryOp::And), &[b.clone(), b.clone()]),
        Ok(vec![b.clone()])
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::ShiftLeft), &[b.clone(), b.clone()]),
        "integer type",
    );
    assert_eq!(
        infer(OpKind::Binary(BinaryOp::ShiftLeft), &[i.clone(), i.clone()]),
        Ok(vec![i.clone()])
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::Atan2), &[i.clone(), i.clone()]),
        "floating-point",
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::Subtract), &[b.clone(), b.clone()]),
        "integer, floating-point or complex",
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::Complex), &[i.clone(), i.clone()]),
        "f32 or f64 type",
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::Add), &[f.clone(), i.clone()]),
        "must be equal",
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::Add), std::slice::from_ref(&f)),
        "expects 2 operands (lhs, rhs), got 1",
    );
    expect_err(
        infer(OpKind::Binary(BinaryOp::Add), &[f, Type::Token]),
        "rhs must be a tensor, got !stablehlo.token",
    );
}

#[test]
fn unary_ops_check_domains_and_is_finite_gives_i1() {
    let f = f32t(&[2, 2]);
    let i = i32t(&[2, 2]);
    assert_eq!(
        infer(
            OpKind::Unary(UnaryOp::Exponential),
            std::slice::from_ref(&f)
        ),
        Ok(vec![f.clone()])
    );
    assert_eq!(
        infer(OpKind::Unary(UnaryOp::IsFinite), std::slice::from_ref(&f)),
        Ok(vec![t(&[2, 2], DType::Bool)])
    );
    expect_err(
        infer(OpKind::Unary(UnaryOp::Sqrt), std::slice::from_ref(&i)),
        "expected a tensor of floating-point or complex type",
    );
    assert_eq!(
        infer(OpKind::Unary(UnaryOp::Popcnt), std::slice::from_ref(&i)),
        Ok(vec![i.clone()])
    );
    expect_err(
        infer(OpKind::Unary(UnaryOp::Popcnt), std::slice::from_ref(&f)),
        "integer type",
    );
    expect_err(
        infer(OpKind::Unary(UnaryOp::Abs), &[t(&[2], DType::U8)]),
        "signed integer, floating-point or complex",
    );
    assert_eq!(
        infer(OpKind::Unary(UnaryOp::Not), &[t(&[], DType::Bool)]),
        Ok(vec![t(&[], DType::Bool)])
    );
    expect_err(
        infer(OpKind::Unary(UnaryOp::Negate), &[t(&[], DType::Bool)]),
        "integer, floating-point or complex",
    );
}

#[test]
fn negative_dimension_sizes_are_rejected_not_panicked_on() {
    let bad = f32t(&[-1]);
    expect_err(
        infer(OpKind::Unary(UnaryOp::Abs), &[bad]),
        "negative dimension size",
    );
}

fn compare(ct: Option<ComparisonType>) -> OpKind {
    OpKind::Compare {
        direction: ComparisonDirection::Lt,
        compare_type: ct,
    }
}

#[test]
fn compare_gives_i1_of_the_operand_shape() {
    let x = f32t(&[2]);
    assert_eq!(
        infer(
            compare(Some(ComparisonType::Float)),
            &[x.clone(), x.clone()]
        ),
        Ok(vec![t(&[2], DType::Bool)])
    );
    let u = t(&[3], DType::U32);
    assert_eq!(
        infer(
            compare(Some(ComparisonType::Unsigned)),
            &[u.clone(), u.clone()]
        ),
        Ok(vec![t(&[3], DType::Bool)])
    );
}

#[test]
fn compare_type_must_suit_the_element_type() {
    let i = i32t(&[2]);
    let e = infer(
        compare(Some(ComparisonType::Float)),
        &[i.clone(), i.clone()],
    )
    .unwrap_err();
    assert_eq!(e, "compare type FLOAT does not apply to element type i32");
    let b = t(&[2], DType::Bool);
    expect_err(
        infer(compare(Some(ComparisonType::Signed)), &[b.clone(), b]),
        "SIGNED",
    );
    expect_err(infer(compare(None), &[i, f32t(&[2])]), "must be equal");
}

#[test]
fn select_accepts_a_scalar_or_full_predicate() {
    let x = i32t(&[2, 2]);
    let p = t(&[2, 2], DType::Bool);
    let ps = t(&[], DType::Bool);
    assert_eq!(
        infer(OpKind::Select, &[p, x.clone(), x.clone()]),
        Ok(vec![x.clone()])
    );
    assert_eq!(
        infer(OpKind::Select, &[ps, x.clone(), x.clone()]),
        Ok(vec![x.clone()])
    );
    expect_err(
        infer(
            OpKind::Select,
            &[t(&[2], DType::Bool), x.clone(), x.clone()],
        ),
        "must be a scalar or have the shape",
    );
    expect_err(
        infer(OpKind::Select, &[i32t(&[]), x.clone(), x.clone()]),
        "expected a tensor of i1",
    );
    expect_err(
        infer(OpKind::Select, &[t(&[], DType::Bool), x, i32t(&[2])]),
        "on_true has type tensor<2x2xi32> and on_false tensor<2xi32>",
    );
}

#[test]
fn clamp_accepts_scalar_or_full_bounds() {
    let x = i32t(&[3]);
    assert_eq!(
        infer(OpKind::Clamp, &[i32t(&[]), x.clone(), x.clone()]),
        Ok(vec![x.clone()])
    );
    expect_err(
        infer(OpKind::Clamp, &[i32t(&[2]), x.clone(), x.clone()]),
        "min has type tensor<2xi32>",
    );
    expect_err(
        infer(OpKind::Clamp, &[x.clone(), x.clone(), f32t(&[3])]),
        "element types must be equal",
    );
}

#[test]
fn convert_takes_the_declared_element_type_and_keeps_the_shape() {
    let r = infer_decl(OpKind::Convert, &[i32t(&[3])], &[f32t(&[3])]);
    assert_eq!(r, Ok(vec![f32t(&[3])]));
    expect_err(
        infer_decl(OpKind::Convert, &[i32t(&[3])], &[f32t(&[4])]),
        "shapes must be equal",
    );
    expect_err(infer(OpKind::Convert, &[i32t(&[3])]), "must be declared");
}

#[test]
fn bitcast_convert_changes_the_minor_dimension_with_the_width() {
    // The spec's example: tensor<2xf32> -> tensor<2x4xi8>.
    let r = infer_decl(
        OpKind::BitcastConvert,
        &[f32t(&[2])],
        &[t(&[2, 4], DType::I8)],
    );
    assert_eq!(r, Ok(vec![t(&[2, 4], DType::I8)]));
    // And back.
    let r = infer_decl(
        OpKind::BitcastConvert,
        &[t(&[2, 4], DType::I8)],
        &[f32t(&[2])],
    );
    assert_eq!(r, Ok(vec![f32t(&[2])]));
    // JAX's key handling: tensor<2x2xui32> -> tensor<2xui64>.
    let r = infer_decl(
        OpKind::BitcastConvert,
        &[t(&[2, 2], DType::U32)],
        &[t(&[2], DType::U64)],
    );
    assert_eq!(r, Ok(vec![t(&[2], DType::U64)]));
    assert_eq!(
        infer_decl(OpKind::BitcastConvert, &[f32t(&[3])], &[i32t(&[3])]),
        Ok(vec![i32t(&[3])])
    );
    expect_err(
        infer_decl(
            OpKind::BitcastConvert,
            &[f32t(&[2])],
            &[t(&[2, 2], DType::I8)],
        ),
        "result shape must be [2, 4]",
    );
    expect_err(
        infer_decl(
            OpKind::BitcastConvert,
            &[t(&[2, 3], DType::I8)],
            &[f32t(&[2])],
        ),
        "last dimension must hold 4",
    );
    expect_err(
        infer_decl(OpKind::BitcastConvert, &[f32t(&[])], &[t(&[], DType::F64)]),
        "last dimension",
    );
}

#[test]
fn reduce_precision_checks_its_bit_counts() {
    let x = f32t(&[6]);
    let ok = OpKind::ReducePrecision {
        exponent_bits: 5,
        mantissa_bits: 2,
    };
    assert_eq!(infer(ok, std::slice::from_ref(&x)), Ok(vec![x.clone()]));
    let e0 = OpKind::ReducePrecision {
        exponent_bits: 0,
        mantissa_bits: 2,
    };
    expect_err(infer(e0, std::slice::from_ref(&x)), "exponent_bits is 0");
    let m = OpKind::ReducePrecision {
        exponent_bits: 5,
        mantissa_bits: -1,
    };
    expect_err(infer(m, &[x]), "mantissa_bits is -1");
    let i = OpKind::ReducePrecision {
        exponent_bits: 5,
        mantissa_bits: 2,
    };
    expect_err(infer(i, &[i32t(&[1])]), "floating-point");
}

#[test]
fn map_applies_a_scalar_computation() {
    // The spec's example: two tensor<2x2xi64> multiplied elementwise.
    let x = t(&[2, 2], DType::I64);
    let s = t(&[], DType::I64);
    let body = RegionSignature::new(vec![s.clone(), s.clone()], vec![s.clone()]);
    let kind = OpKind::Map {
        dimensions: vec![0, 1],
    };
    assert_eq!(
        infer_regions(
            kind.clone(),
            &[x.clone(), x.clone()],
            std::slice::from_ref(&body)
        ),
        Ok(vec![x.clone()])
    );
    // A computation returning i1 gives an i1 result.
    let to_bool = RegionSignature::new(vec![s.clone(), s.clone()], vec![t(&[], DType::Bool)]);
    assert_eq!(
        infer_regions(kind.clone(), &[x.clone(), x.clone()], &[to_bool]),
        Ok(vec![t(&[2, 2], DType::Bool)])
    );
    expect_err(
        infer_regions(
            OpKind::Map {
                dimensions: vec![1, 0],
            },
            &[x.clone(), x.clone()],
            std::slice::from_ref(&body),
        ),
        "`dimensions` is [1, 0] but must be [0, 1]",
    );
    expect_err(
        infer_regions(
            kind.clone(),
            std::slice::from_ref(&x),
            std::slice::from_ref(&body),
        ),
        "computation takes",
    );
    expect_err(
        infer_regions(kind.clone(), &[x.clone(), x.clone()], &[]),
        "expects 1 region (computation), got 0",
    );
    expect_err(
        infer_regions(kind, &[x, t(&[2], DType::I64)], &[body]),
        "shapes must be equal",
    );
}

#[test]
fn ops_without_regions_reject_regions() {
    let x = f32t(&[2]);
    let r = infer_result_types(
        &OpKind::Binary(BinaryOp::Add),
        &[x.clone(), x],
        &[RegionSignature::default()],
        None,
    );
    expect_err(r, "takes no regions, got 1");
}
