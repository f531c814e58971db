//! Narrow float element types (f8, f6, f4): JAX 0.10.2's text for them parses, verifies and
//! prints back; dense literals in decimal and hex as MLIR writes them; every name.

use systolic_ir::text::{parse_module, print_module};
use systolic_ir::verify::verify_module;
use systolic_ir::*;

/// Printed by `jax.jit(f).lower(...).as_text()` (JAX 0.10.2; attributes dropped) for
/// `f(x, a, b) = (x.astype(f8e4m3fn), that.astype(f32), jnp.array([1.5, -448, 0.1], f8e4m3fn),
/// jnp.dot(a, b, preferred_element_type=f32), x.astype(f4e2m1fn))` with `a` f8E4M3FN and `b`
/// f8E5M2.
const JAX_TEXT: &str = r#"module @jit_f {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<2x3xf8E4M3FN>, %arg2: tensor<3x2xf8E5M2>) -> (tensor<3xf8E4M3FN>, tensor<3xf32>, tensor<3xf8E4M3FN>, tensor<2x2xf32>, tensor<3xf4E2M1FN>) {
    %cst = stablehlo.constant dense<[1.500000e+00, -4.480000e+02, 1.015630e-01]> : tensor<3xf8E4M3FN>
    %0 = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
    %1 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf8E4M3FN>, tensor<3x2xf8E5M2>) -> tensor<2x2xf32>
    %2 = stablehlo.convert %0 : (tensor<3xf8E4M3FN>) -> tensor<3xf32>
    %3 = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf4E2M1FN>
    return %0, %2, %cst, %1, %3 : tensor<3xf8E4M3FN>, tensor<3xf32>, tensor<3xf8E4M3FN>, tensor<2x2xf32>, tensor<3xf4E2M1FN>
  }
}
"#;

fn parse(src: &str) -> Module {
    parse_module(src, "narrow.mlir").unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn constant(m: &Module, i: usize) -> &Tensor {
    match &m.funcs[0].body.blocks[0].ops[i].kind {
        OpKind::Constant(c) => c,
        other => panic!("op {i} is {other:?}"),
    }
}

#[test]
fn jax_text_parses_verifies_and_prints_back() {
    let m = parse(JAX_TEXT);
    verify_module(&m).unwrap_or_else(|e| panic!("{e:?}"));
    let c = constant(&m, 0);
    assert_eq!(c.dtype(), DType::F8E4M3FN);
    // 0.1 is held as the f8 value nearest it, 0.1015625.
    assert_eq!(c.data(), &Data::Float(vec![1.5, -448.0, 0.1015625]));
    let printed = print_module(&m);
    assert!(
        printed.contains("dense<[1.500000e+00, -4.480000e+02, 1.015630e-01]> : tensor<3xf8E4M3FN>"),
        "{printed}"
    );
    assert!(printed.contains("-> tensor<3xf4E2M1FN>"), "{printed}");
    assert_eq!(print_module(&parse(&printed)), printed);
}

#[test]
fn every_name_parses_and_prints() {
    for d in DType::NARROW_FLOATS {
        let src = format!(
            "func.func @f(%x: tensor<2x{d}>) -> tensor<2x{d}> {{\n  return %x : tensor<2x{d}>\n}}\n"
        );
        let m = parse(&src);
        verify_module(&m).unwrap_or_else(|e| panic!("{d}: {e:?}"));
        assert!(print_module(&m).contains(&format!("tensor<2x{d}>")), "{d}");
    }
}

#[test]
fn hex_elements_are_bit_patterns_and_specials_print_as_hex() {
    // As in StableHLO's interpreter tests: 0x7F is E4M3FN's NaN, 0x07 is f4E2M1FN's 6.0.
    let m = parse(
        r#"func.func @f() {
  %a = stablehlo.constant dense<[0x7F, 0xFF, 0x01, 0x81, 3.1415]> : tensor<5xf8E4M3FN>
  %b = stablehlo.constant dense<[0x07, 0x0F, 0x09, 0.1]> : tensor<4xf4E2M1FN>
  %c = stablehlo.constant dense<[0x80, -0.0, 0x7F]> : tensor<3xf8E5M2FNUZ>
  %d = stablehlo.constant dense<[0x00, 0xFF, 3.1415]> : tensor<3xf8E8M0FNU>
  %e = stablehlo.constant dense<[0x7C, 0x7E]> : tensor<2xf8E5M2>
  return
}
"#,
    );
    let a = constant(&m, 0);
    assert_eq!(a.bits(0), 0x7F);
    assert_eq!(a.bits(1), 0xFF);
    assert_eq!(a.to_f64_vec()[2], 2f64.powi(-9));
    assert_eq!(a.to_f64_vec()[4], 3.25);
    let b = constant(&m, 1);
    assert_eq!(b.to_f64_vec(), vec![6.0, -6.0, -0.5, 0.0]);
    let c = constant(&m, 2);
    assert!(c.to_f64_vec()[0].is_nan());
    assert_eq!(c.bits(1), 0x00, "FNUZ has no negative zero");
    assert_eq!(c.to_f64_vec()[2], 57344.0);
    let d = constant(&m, 3);
    assert_eq!(d.to_f64_vec()[0], 2f64.powi(-127));
    assert!(d.to_f64_vec()[1].is_nan());
    assert_eq!(d.to_f64_vec()[2], 4.0);
    let printed = print_module(&m);
    for want in [
        "dense<[0x7F, 0xFF, 1.953130e-03, -1.953130e-03, 3.250000e+00]> : tensor<5xf8E4M3FN>",
        "dense<[6.000000e+00, -6.000000e+00, -5.000000e-01, 0.000000e+00]> : tensor<4xf4E2M1FN>",
        "dense<[0x80, 0.000000e+00, 5.734400e+04]> : tensor<3xf8E5M2FNUZ>",
        "dense<[5.877470e-39, 0xFF, 4.000000e+00]> : tensor<3xf8E8M0FNU>",
        "dense<[0x7C, 0x7E]> : tensor<2xf8E5M2>",
    ] {
        assert!(printed.contains(want), "{want}\n{printed}");
    }
    assert_eq!(print_module(&parse(&printed)), printed);
}

#[test]
fn literals_out_of_range_are_refused_and_bytes_round_trip() {
    let e = parse_module(
        "func.func @f() {\n  %a = stablehlo.constant dense<500.0> : tensor<f8E4M3FN>\n  return\n}\n",
        "bad.mlir",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("too large for f8E4M3FN"), "{e}");
    // The finite-only MX formats saturate, as ml_dtypes converts.
    let m = parse(
        "func.func @f() {\n  %a = stablehlo.constant dense<100.0> : tensor<f6E3M2FN>\n  return\n}\n",
    );
    assert_eq!(constant(&m, 0).to_f64_vec(), vec![28.0]);
    for d in DType::NARROW_FLOATS {
        let n = 1usize << d.bit_width();
        let bytes: Vec<u8> = (0..n as u32).map(|b| b as u8).collect();
        let t = Tensor::from_le_bytes(TensorType::new(vec![n as i64], d), &bytes).unwrap();
        let back = t.to_le_bytes();
        for (i, (&a, &b)) in bytes.iter().zip(&back).enumerate() {
            let nan = t.to_f64_vec()[i].is_nan();
            // NaN codes come back as the format's NaN of that sign; -0 of FNUZ is its NaN.
            assert!(a == b || nan, "{d} byte {a:#x} came back {b:#x}");
        }
    }
}
