//! Narrow floats (f8/f6/f4) on the interpreter: `convert` of every code both ways, overflow
//! and NaN as each format defines them (checked against values ml_dtypes 0.6.0 gives), one
//! rounding per arithmetic op, `dot_general` accumulating in f32, and the dot algorithm's tf32
//! input rounding.

use systolic_interp::{Interpreter, Value};
use systolic_ir::minifloat::Format;
use systolic_ir::text::parse_module;
use systolic_ir::{DType, Tensor, TensorType};

/// Runs `@main` of `src` on `args`, returning its tensors.
fn run(src: &str, args: Vec<Tensor>) -> Vec<Tensor> {
    let m = parse_module(src, "narrow.mlir").unwrap_or_else(|e| panic!("{e}\n{src}"));
    systolic_ir::verify::verify_module(&m).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    let out = Interpreter::new(&m)
        .call("main", args.into_iter().map(Value::Tensor).collect())
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    out.into_iter()
        .map(|v| match v {
            Value::Tensor(t) => t,
            other => panic!("{other:?}"),
        })
        .collect()
}

fn every_code(d: DType) -> Tensor {
    let n = 1u64 << d.bit_width();
    let codes: Vec<u64> = (0..n).collect();
    Tensor::from_bits(TensorType::new(vec![n as i64], d), &codes).unwrap()
}

#[test]
fn convert_every_code_to_f32_and_back() {
    for d in DType::NARROW_FLOATS {
        let f = d.narrow_format().unwrap();
        let n = 1i64 << d.bit_width();
        let src = format!(
            "func.func @main(%x: tensor<{n}x{d}>) -> (tensor<{n}xf32>, tensor<{n}x{d}>) {{\n  \
             %0 = stablehlo.convert %x : (tensor<{n}x{d}>) -> tensor<{n}xf32>\n  \
             %1 = stablehlo.convert %0 : (tensor<{n}xf32>) -> tensor<{n}x{d}>\n  \
             return %0, %1 : tensor<{n}xf32>, tensor<{n}x{d}>\n}}\n"
        );
        let out = run(&src, vec![every_code(d)]);
        let wide = out[0].to_f64_vec();
        for (code, &got) in wide.iter().enumerate() {
            let want = f.decode(code as u8);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{d} code {code:#x}: {got} != {want}"
            );
            let back = out[1].bits(code);
            if want.is_nan() {
                assert!(out[1].to_f64_vec()[code].is_nan(), "{d} code {code:#x}");
            } else {
                assert_eq!(back, code as u64, "{d} code {code:#x} came back {back:#x}");
            }
        }
    }
}

#[test]
fn convert_from_f32_rounds_overflows_and_keeps_nan_as_ml_dtypes() {
    // Inputs and the codes ml_dtypes 0.6.0 gives for them (`np.float32(x).astype(t)`).
    let xs = [
        f32::NAN,
        f32::INFINITY,
        -1e9,
        1.5,
        3.0,
        -1.0,
        1e-30,
        0.75,
        470.0,
    ];
    let cases: [(DType, [u64; 9]); 5] = [
        (
            DType::F8E4M3FN,
            [0x7f, 0x7f, 0xff, 0x3c, 0x44, 0xb8, 0x00, 0x34, 0x7f],
        ),
        (
            DType::F8E5M2,
            [0x7e, 0x7c, 0xfc, 0x3e, 0x42, 0xbc, 0x00, 0x3a, 0x5f],
        ),
        (
            DType::F8E4M3FNUZ,
            [0x80, 0x80, 0x80, 0x44, 0x4c, 0xc0, 0x00, 0x3c, 0x80],
        ),
        (
            DType::F8E8M0FNU,
            [0xff, 0xff, 0xff, 0x80, 0x81, 0xff, 0x1b, 0x7f, 0x88],
        ),
        (
            DType::F6E2M3FN,
            [0x20, 0x1f, 0x3f, 0x0c, 0x14, 0x28, 0x00, 0x06, 0x1f],
        ),
    ];
    let n = xs.len();
    let input = Tensor::from_f64(
        vec![n as i64],
        DType::F32,
        xs.iter().map(|&x| x as f64).collect(),
    )
    .unwrap();
    for (d, want) in cases {
        let src = format!(
            "func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}x{d}> {{\n  \
             %0 = stablehlo.convert %x : (tensor<{n}xf32>) -> tensor<{n}x{d}>\n  \
             return %0 : tensor<{n}x{d}>\n}}\n"
        );
        let out = &run(&src, vec![input.clone()])[0];
        let got: Vec<u64> = (0..n).map(|i| out.bits(i)).collect();
        assert_eq!(got, want, "{d}");
    }
}

#[test]
fn arithmetic_rounds_once_to_the_format() {
    let d = DType::F8E4M3FN;
    let x = Tensor::from_f64(vec![4], d, vec![1.0, 1.0, 448.0, 0.125]).unwrap();
    let y = Tensor::from_f64(vec![4], d, vec![0.0625, 0.1875, 448.0, 3.0]).unwrap();
    let src = "func.func @main(%x: tensor<4xf8E4M3FN>, %y: tensor<4xf8E4M3FN>) -> (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) {
  %0 = stablehlo.add %x, %y : tensor<4xf8E4M3FN>
  %1 = stablehlo.multiply %x, %y : tensor<4xf8E4M3FN>
  %2 = stablehlo.divide %x, %y : tensor<4xf8E4M3FN>
  return %0, %1, %2 : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>
}
";
    let out = run(src, vec![x, y]);
    let sum = out[0].to_f64_vec();
    // 1 + 1/16 is a tie (to 1.0), 1 + 3/16 rounds up to 1.25, 896 overflows to NaN.
    assert_eq!(&sum[..2], &[1.0, 1.25]);
    assert!(sum[2].is_nan());
    assert_eq!(sum[3], 3.0); // 3.125 ties to 3.0 (mantissa 100 is even)
    let product = out[1].to_f64_vec();
    assert_eq!(product[0], 0.0625);
    assert_eq!(product[3], 0.375);
    let quotient = out[2].to_f64_vec();
    assert_eq!(quotient[2], 1.0);
    assert_eq!(quotient[3], Format::F8E4M3FN.round(0.125 / 3.0));
}

#[test]
fn f8_products_accumulate_exactly_into_f32() {
    let a = Tensor::from_f64(
        vec![2, 3],
        DType::F8E4M3FN,
        vec![448.0, 0.001953125, -3.5, 1.0, 2.0, 3.0],
    )
    .unwrap();
    let b = Tensor::from_f64(
        vec![3, 2],
        DType::F8E5M2,
        vec![57344.0, 1.0, 0.5, -2.0, 1.5, 0.25],
    )
    .unwrap();
    let src = "func.func @main(%a: tensor<2x3xf8E4M3FN>, %b: tensor<3x2xf8E5M2>) -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf8E4M3FN>, tensor<3x2xf8E5M2>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
";
    let out = run(src, vec![a, b]).remove(0).to_f64_vec();
    let want = [
        448.0 * 57344.0 + 0.001953125 * 0.5 - 3.5 * 1.5,
        448.0 - 0.001953125 * 2.0 - 3.5 * 0.25,
        57344.0 + 1.0 + 4.5,
        1.0 - 4.0 + 0.75,
    ];
    let want: Vec<f64> = want.iter().map(|&x| x as f32 as f64).collect();
    assert_eq!(out, want);
}

#[test]
fn tf32_algorithm_rounds_inputs_to_ten_mantissa_bits() {
    let one_plus = 1.0 + 2f64.powi(-12); // not a tf32 value: rounds to 1.0
    let x = Tensor::from_f64(vec![2], DType::F32, vec![one_plus, 1.0 + 2f64.powi(-10)]).unwrap();
    let src = |alg: &str| {
        format!(
            "func.func @main(%x: tensor<2xf32>) -> tensor<f32> {{
  %0 = stablehlo.dot_general %x, %x, contracting_dims = [0] x [0]{alg} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}}
"
        )
    };
    let tf32 = ", algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>";
    let exact = run(&src(""), vec![x.clone()]).remove(0).to_f64_vec()[0];
    let rounded = run(&src(tf32), vec![x]).remove(0).to_f64_vec()[0];
    let b = 1.0 + 2f64.powi(-10);
    assert_eq!(rounded, (1.0 + b * b) as f32 as f64);
    assert_eq!(exact, (one_plus * one_plus + b * b) as f32 as f64);
    assert_ne!(exact, rounded);
    // The printer writes the algorithm back with tf32.
    let m = parse_module(&src(tf32), "tf32.mlir").unwrap();
    assert!(systolic_ir::text::print_module(&m).contains("lhs_precision_type = tf32"));
}

#[test]
fn reduce_precision_and_bitcast_on_f8() {
    let x = Tensor::from_f64(vec![3], DType::F8E5M2, vec![1.5, -0.75, 57344.0]).unwrap();
    let src = "func.func @main(%x: tensor<3xf8E5M2>) -> (tensor<3xf8E5M2>, tensor<3xui8>) {
  %0 = stablehlo.reduce_precision %x, format = e5m1 : tensor<3xf8E5M2>
  %1 = stablehlo.bitcast_convert %x : (tensor<3xf8E5M2>) -> tensor<3xui8>
  return %0, %1 : tensor<3xf8E5M2>, tensor<3xui8>
}
";
    let out = run(src, vec![x]);
    // One mantissa bit: 1.5 stays, -0.75 stays, 57344 = 1.75 * 2^15 ties up to 2^16 = inf.
    let r = out[0].to_f64_vec();
    assert_eq!(&r[..2], &[1.5, -0.75]);
    assert_eq!(r[2], f64::INFINITY);
    assert_eq!(out[1].to_f64_vec(), vec![62.0, 186.0, 123.0]);
}
