//! Complex element types: `complex<f32>`/`complex<f64>` in types and `(re, im)` constants, as
//! JAX 0.10.2 printed them, parsed, verified, printed back, and the verifier's type rules of
//! the ops that make, take apart or keep complex numbers.

use systolic_ir::text::{parse_module, print_module};
use systolic_ir::verify::verify_module;
use systolic_ir::*;

/// Printed by `jax.jit(f).lower(np.ones(2, np.complex64)).as_text()` for
/// `f = lambda x: x * jnp.array([1+2j, 3-4j], jnp.complex64) + jnp.complex64(2+0.5j)`
/// (attributes dropped), with an RFFT and the part ops added.
const JAX_TEXT: &str = r#"module @jit_f {
  func.func public @main(%arg0: tensor<2xcomplex<f32>>, %arg1: tensor<8xf32>) -> (tensor<2xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %cst = stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>
    %0 = stablehlo.multiply %arg0, %cst : tensor<2xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(2.000000e+00,5.000000e-01)> : tensor<complex<f32>>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
    %2 = stablehlo.add %0, %1 : tensor<2xcomplex<f32>>
    %3 = stablehlo.fft %arg1, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    %4 = stablehlo.real %2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    %5 = stablehlo.imag %2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    %6 = stablehlo.abs %2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    return %2, %3, %4, %5, %6 : tensor<2xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
"#;

fn parse(src: &str) -> Module {
    parse_module(src, "complex.mlir").unwrap_or_else(|e| panic!("{e}\n{src}"))
}

#[test]
fn jax_text_parses_verifies_and_prints_back() {
    let m = parse(JAX_TEXT);
    verify_module(&m).unwrap_or_else(|e| panic!("{e:?}"));
    let ops = &m.funcs[0].body.blocks[0].ops;
    let OpKind::Constant(c) = &ops[0].kind else {
        panic!("a constant first")
    };
    assert_eq!(c.dtype(), DType::C64);
    assert_eq!(
        c.data(),
        &Data::Complex(vec![Complex64::new(1.0, 2.0), Complex64::new(3.0, -4.0)])
    );
    let printed = print_module(&m);
    assert!(
        printed.contains(
            "dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>"
        ),
        "{printed}"
    );
    assert!(printed.contains("-> tensor<5xcomplex<f32>>"), "{printed}");
    assert_eq!(print_module(&parse(&printed)), printed);
}

#[test]
fn constants_take_every_element_spelling() {
    let m = parse(
        r#"func.func @f() {
  %a = stablehlo.constant dense<(0x7FF0000000000001, -0.0)> : tensor<complex<f64>>
  %b = stablehlo.constant dense<[(1, -2), (inf, 1.5E-1)]> : tensor<2xcomplex<f64>>
  %c = stablehlo.constant dense<"0x0000C03F000000C0"> : tensor<complex<f32>>
  func.return
}"#,
    );
    let ops = &m.funcs[0].body.blocks[0].ops;
    let value = |i: usize| match &ops[i].kind {
        OpKind::Constant(t) => t.clone(),
        other => panic!("{other:?}"),
    };
    let a = value(0).get(0);
    let Scalar::Complex(a) = a else { panic!("{a}") };
    assert!(a.re.is_nan() && a.im == 0.0 && a.im.is_sign_negative());
    assert_eq!(
        value(1).data(),
        &Data::Complex(vec![
            Complex64::new(1.0, -2.0),
            Complex64::new(f64::INFINITY, 0.15)
        ])
    );
    assert_eq!(value(2).get(0), Scalar::Complex(Complex64::new(1.5, -2.0)));
}

#[test]
fn malformed_complex_constants_are_errors() {
    for (src, want) in [
        (
            "dense<[1.0, 2.0]> : tensor<2xcomplex<f32>>",
            "write (re, im)",
        ),
        ("dense<(1.0, 2.0)> : tensor<f32>", "does not fit f32"),
        ("dense<(1.0 2.0)> : tensor<complex<f32>>", "','"),
        (
            "dense<(1.0, 1e39)> : tensor<complex<f32>>",
            "too large for f32",
        ),
        ("dense<(1.0, 2.0)> : tensor<complex<bf16>>", "complex<bf16>"),
    ] {
        let text = format!("func.func @f() {{\n  %a = stablehlo.constant {src}\n  func.return\n}}");
        let e = parse_module(&text, "bad.mlir").unwrap_err().to_string();
        assert!(e.contains(want), "{src}: {e}");
    }
}

fn infer(kind: OpKind, operands: &[Type]) -> Result<Vec<Type>, String> {
    systolic_ir::verify::infer_result_types(&kind, operands, &[], None)
}

#[test]
fn the_verifier_types_complex_ops_as_the_spec() {
    let t = |shape: &[i64], d: DType| Type::tensor(shape.to_vec(), d);
    let c64 = t(&[3], DType::C64);
    let f32s = t(&[3], DType::F32);
    // complex(f32, f32) → complex<f32>; real/imag/abs of complex → f32.
    assert_eq!(
        infer(
            OpKind::Binary(BinaryOp::Complex),
            &[f32s.clone(), f32s.clone()]
        ),
        Ok(vec![c64.clone()])
    );
    for u in [UnaryOp::Real, UnaryOp::Imag, UnaryOp::Abs] {
        assert_eq!(
            infer(OpKind::Unary(u), std::slice::from_ref(&c64)),
            Ok(vec![f32s.clone()]),
            "{u:?}"
        );
    }
    // real/imag of a float keep it.
    assert_eq!(
        infer(OpKind::Unary(UnaryOp::Imag), std::slice::from_ref(&f32s)),
        Ok(vec![f32s.clone()])
    );
    // Complex operands where the spec lists them, and not elsewhere.
    for u in [
        UnaryOp::Exponential,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Tanh,
        UnaryOp::Sign,
        UnaryOp::Negate,
        UnaryOp::Cosine,
    ] {
        assert_eq!(
            infer(OpKind::Unary(u), std::slice::from_ref(&c64)),
            Ok(vec![c64.clone()]),
            "{u:?}"
        );
    }
    for u in [UnaryOp::Floor, UnaryOp::IsFinite, UnaryOp::Popcnt] {
        assert!(
            infer(OpKind::Unary(u), std::slice::from_ref(&c64)).is_err(),
            "{u:?}"
        );
    }
    for b in [
        BinaryOp::Divide,
        BinaryOp::Power,
        BinaryOp::Atan2,
        BinaryOp::Maximum,
    ] {
        assert_eq!(
            infer(OpKind::Binary(b), &[c64.clone(), c64.clone()]),
            Ok(vec![c64.clone()]),
            "{b:?}"
        );
    }
    assert!(infer(
        OpKind::Binary(BinaryOp::Remainder),
        &[c64.clone(), c64.clone()]
    )
    .is_err());
    assert!(infer(
        OpKind::Binary(BinaryOp::Complex),
        &[c64.clone(), c64.clone()]
    )
    .is_err());
    let bf = t(&[3], DType::BF16);
    assert!(infer(OpKind::Binary(BinaryOp::Complex), &[bf.clone(), bf]).is_err());
}

/// The CHLO ops JAX emits on complex values (`jnp.square`, `jnp.sinh`, `jnp.arcsin`, … and
/// `conj`) take them; the special functions defined on reals only do not.
#[test]
fn chlo_ops_jax_emits_on_complex_values_verify() {
    use systolic_ir::ChloUnaryOp::*;
    let c128 = Type::tensor(vec![2, 3], DType::C128);
    for u in [
        Square, Conj, Sinh, Cosh, Tan, Asin, Acos, Atan, Asinh, Acosh, Atanh,
    ] {
        assert_eq!(
            infer(OpKind::ChloUnary(u), std::slice::from_ref(&c128)),
            Ok(vec![c128.clone()]),
            "{u:?}"
        );
    }
    for u in [Erf, Lgamma, Digamma, BesselI1e, IsInf] {
        assert!(
            infer(OpKind::ChloUnary(u), std::slice::from_ref(&c128)).is_err(),
            "{u:?}"
        );
    }
}
