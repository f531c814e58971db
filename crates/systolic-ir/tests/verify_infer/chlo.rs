use super::*;
use systolic_ir::{ChloBinaryOp, ChloUnaryOp};

#[test]
fn chlo_unary_ops_keep_the_type_and_is_inf_gives_i1() {
    let x = f32t(&[3]);
    assert_eq!(
        infer(
            OpKind::ChloUnary(ChloUnaryOp::Erf),
            std::slice::from_ref(&x)
        ),
        Ok(vec![x.clone()])
    );
    assert_eq!(
        infer(
            OpKind::ChloUnary(ChloUnaryOp::IsInf),
            std::slice::from_ref(&x)
        ),
        Ok(vec![t(&[3], DType::Bool)])
    );
    assert_eq!(
        infer(OpKind::ChloUnary(ChloUnaryOp::IsNegInf), &[x]),
        Ok(vec![t(&[3], DType::Bool)])
    );
    expect_err(
        infer(OpKind::ChloUnary(ChloUnaryOp::ErfInv), &[i32t(&[3])]),
        "floating-point",
    );
    assert_eq!(
        infer(OpKind::ChloUnary(ChloUnaryOp::Square), &[i32t(&[3])]),
        Ok(vec![i32t(&[3])])
    );
}

#[test]
fn chlo_binary_ops_need_equal_float_types() {
    let x = t(&[2], DType::F64);
    assert_eq!(
        infer(
            OpKind::ChloBinary(ChloBinaryOp::NextAfter),
            &[x.clone(), x.clone()]
        ),
        Ok(vec![x.clone()])
    );
    expect_err(
        infer(OpKind::ChloBinary(ChloBinaryOp::Zeta), &[x, f32t(&[2])]),
        "must be equal",
    );
    expect_err(
        infer(
            OpKind::ChloBinary(ChloBinaryOp::Polygamma),
            &[i32t(&[2]), i32t(&[2])],
        ),
        "floating-point",
    );
}

#[test]
fn mulhi_takes_two_integers_of_one_type() {
    let u = t(&[3], DType::U16);
    assert_eq!(
        infer(
            OpKind::ChloBinary(ChloBinaryOp::Mulhi),
            &[u.clone(), u.clone()]
        ),
        Ok(vec![u])
    );
    expect_err(
        infer(
            OpKind::ChloBinary(ChloBinaryOp::Mulhi),
            &[f32t(&[2]), f32t(&[2])],
        ),
        "integer",
    );
}

#[test]
fn top_k_replaces_the_last_dimension() {
    // What JAX prints for lax.top_k(x: f32[5], 2): (tensor<2xf32>, tensor<2xi32>).
    let k = |k| OpKind::TopK { k, largest: true };
    assert_eq!(infer(k(2), &[f32t(&[5])]), Ok(vec![f32t(&[2]), i32t(&[2])]));
    assert_eq!(
        infer(k(3), &[f32t(&[4, 5])]),
        Ok(vec![f32t(&[4, 3]), i32t(&[4, 3])])
    );
    expect_err(infer(k(6), &[f32t(&[5])]), "k = 6 must be in [0, 5]");
    expect_err(infer(k(1), &[f32t(&[])]), "at least one dimension");
}
