//! Every elementwise op of the IR, for every dtype it accepts, run as a one-op loop kernel and
//! compared with the reference interpreter on random inputs (specials, subnormals, edge
//! integers): bit for bit, except the transcendental functions (within 1 ulp of the dtype).

use crate::fusion_support;

use fusion_support::{assert_results, run_both};
use systolic_ir::{BinaryOp, ChloUnaryOp, DType, UnaryOp};

const FLOATS: [DType; 4] = [DType::F32, DType::F64, DType::BF16, DType::F16];
const INTS: [DType; 12] = [
    DType::I2,
    DType::I4,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U2,
    DType::U4,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
];

/// Shapes covering size 0, 1, odd sizes, several blocks and the threaded path.
const SHAPES: [&str; 5] = ["0", "1", "7x13", "3x1000", "70001"];

fn ty(shape: &str, dtype: DType) -> String {
    if shape.is_empty() {
        format!("tensor<{dtype}>")
    } else {
        format!("tensor<{shape}x{dtype}>")
    }
}

fn unary_module(op: &str, shape: &str, a: DType, r: DType, chlo: bool) -> String {
    let (ta, tr) = (ty(shape, a), ty(shape, r));
    let line = if chlo {
        format!("%0 = chlo.{op} %arg0 : {ta} -> {tr}")
    } else if a == r {
        format!("%0 = stablehlo.{op} %arg0 : {ta}")
    } else {
        format!("%0 = stablehlo.{op} %arg0 : ({ta}) -> {tr}")
    };
    format!("func.func @main(%arg0: {ta}) -> {tr} {{\n  {line}\n  return %0 : {tr}\n}}")
}

fn binary_module(op: &str, shape: &str, d: DType) -> String {
    let t = ty(shape, d);
    format!(
        "func.func @main(%arg0: {t}, %arg1: {t}) -> {t} {{\n  %0 = stablehlo.{op} %arg0, %arg1 : {t}\n  return %0 : {t}\n}}"
    )
}

fn transcendental(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(
        op,
        Cosine
            | Exponential
            | ExponentialMinusOne
            | Log
            | LogPlusOne
            | Logistic
            | Sine
            | Tan
            | Tanh
            | Cbrt
    )
}

fn unary_dtypes(op: UnaryOp) -> Vec<DType> {
    use UnaryOp::*;
    match op {
        Abs | Negate | Sign => FLOATS.iter().chain(&INTS).copied().collect(),
        Not => INTS.iter().copied().chain([DType::Bool]).collect(),
        Popcnt | CountLeadingZeros => INTS.to_vec(),
        Imag | Real => vec![],
        _ => FLOATS.to_vec(),
    }
}

#[test]
fn unary_ops_match_interpreter() {
    let mut seed = 1;
    for op in UnaryOp::ALL {
        for dtype in unary_dtypes(op) {
            let result = if op == UnaryOp::IsFinite {
                DType::Bool
            } else {
                dtype
            };
            for shape in SHAPES {
                let text = unary_module(op.name(), shape, dtype, result, false);
                let (ours, want, inputs) = run_both(&text, seed);
                seed += 1;
                let ulps = if transcendental(op) { 1 } else { 0 };
                assert_results(
                    &ours,
                    &want,
                    &inputs,
                    ulps,
                    &format!("{} {dtype} {shape}", op.name()),
                );
            }
        }
    }
}

fn binary_dtypes(op: BinaryOp) -> Vec<DType> {
    use BinaryOp::*;
    match op {
        Add | Multiply | Maximum | Minimum => FLOATS
            .iter()
            .chain(&INTS)
            .copied()
            .chain([DType::Bool])
            .collect(),
        Subtract | Divide | Remainder | Power => FLOATS.iter().chain(&INTS).copied().collect(),
        And | Or | Xor => INTS.iter().copied().chain([DType::Bool]).collect(),
        ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => INTS.to_vec(),
        Atan2 => FLOATS.to_vec(),
        Complex => vec![],
    }
}

#[test]
fn binary_ops_match_interpreter() {
    let mut seed = 1000;
    for op in BinaryOp::ALL {
        for dtype in binary_dtypes(op) {
            // Size 0 too: an empty loop kernel (no blocks) must still give an empty result.
            for shape in ["0", "1", "7x13", "70001"] {
                let text = binary_module(op.name(), shape, dtype);
                let (ours, want, inputs) = run_both(&text, seed);
                seed += 1;
                let ulps = if op == BinaryOp::Power && dtype.is_float() {
                    1
                } else {
                    0
                };
                assert_results(
                    &ours,
                    &want,
                    &inputs,
                    ulps,
                    &format!("{} {dtype} {shape}", op.name()),
                );
            }
        }
    }
}

#[test]
fn compare_every_direction_and_type() {
    let mut seed = 2000;
    let all: Vec<DType> = FLOATS
        .iter()
        .chain(&INTS)
        .copied()
        .chain([DType::Bool])
        .collect();
    for dtype in all {
        let types: Vec<&str> = if dtype.is_float() {
            vec!["FLOAT", "TOTALORDER"]
        } else if dtype.is_bool() {
            vec!["UNSIGNED"]
        } else {
            vec!["SIGNED", "UNSIGNED"]
        };
        for dir in ["EQ", "NE", "LT", "LE", "GT", "GE"] {
            for ct in &types {
                let t = ty("9x11", dtype);
                let r = ty("9x11", DType::Bool);
                let text = format!(
                    "func.func @main(%arg0: {t}, %arg1: {t}) -> {r} {{\n  %0 = stablehlo.compare {dir}, %arg0, %arg1, {ct} : ({t}, {t}) -> {r}\n  return %0 : {r}\n}}"
                );
                let (ours, want, inputs) = run_both(&text, seed);
                seed += 1;
                assert_results(
                    &ours,
                    &want,
                    &inputs,
                    0,
                    &format!("compare {dir} {ct} {dtype}"),
                );
            }
        }
    }
}

#[test]
fn convert_between_every_pair() {
    let mut seed = 3000;
    let all: Vec<DType> = FLOATS
        .iter()
        .chain(&INTS)
        .copied()
        .chain([DType::Bool])
        .collect();
    for &from in &all {
        for &to in &all {
            let text = unary_module("convert", "5x41", from, to, false);
            let (ours, want, inputs) = run_both(&text, seed);
            seed += 1;
            assert_results(&ours, &want, &inputs, 0, &format!("convert {from} -> {to}"));
        }
    }
}

#[test]
fn bitcast_between_equal_widths() {
    let groups: [&[DType]; 3] = [
        &[DType::F16, DType::BF16, DType::I16, DType::U16],
        &[DType::F32, DType::I32, DType::U32],
        &[DType::F64, DType::I64, DType::U64],
    ];
    let mut seed = 4000;
    for group in groups {
        for &from in group {
            for &to in group {
                let text = unary_module("bitcast_convert", "33", from, to, false);
                let (ours, want, inputs) = run_both(&text, seed);
                seed += 1;
                assert_results(&ours, &want, &inputs, 0, &format!("bitcast {from} -> {to}"));
            }
        }
    }
}

#[test]
fn reduce_precision_formats() {
    let mut seed = 5000;
    for dtype in FLOATS {
        for format in ["e5m2", "e4m3", "e8m7", "e5m10", "e8m23", "e11m52"] {
            let t = ty("257", dtype);
            let text = format!(
                "func.func @main(%arg0: {t}) -> {t} {{\n  %0 = stablehlo.reduce_precision %arg0, format = {format} : {t}\n  return %0 : {t}\n}}"
            );
            let (ours, want, inputs) = run_both(&text, seed);
            seed += 1;
            assert_results(
                &ours,
                &want,
                &inputs,
                0,
                &format!("reduce_precision {format} {dtype}"),
            );
        }
    }
}

#[test]
fn select_and_clamp_with_scalar_operands() {
    let mut seed = 6000;
    let all: Vec<DType> = FLOATS
        .iter()
        .chain(&INTS)
        .copied()
        .chain([DType::Bool])
        .collect();
    for dtype in all {
        let (t, p, s) = (ty("6x35", dtype), ty("6x35", DType::Bool), ty("", dtype));
        let ps = ty("", DType::Bool);
        let texts = [
            format!("func.func @main(%arg0: {p}, %arg1: {t}, %arg2: {t}) -> {t} {{\n  %0 = stablehlo.select %arg0, %arg1, %arg2 : {p}, {t}\n  return %0 : {t}\n}}"),
            format!("func.func @main(%arg0: {ps}, %arg1: {t}, %arg2: {t}) -> {t} {{\n  %0 = stablehlo.select %arg0, %arg1, %arg2 : ({ps}, {t}, {t}) -> {t}\n  return %0 : {t}\n}}"),
            format!("func.func @main(%arg0: {t}, %arg1: {t}, %arg2: {t}) -> {t} {{\n  %0 = stablehlo.clamp %arg0, %arg1, %arg2 : {t}\n  return %0 : {t}\n}}"),
            format!("func.func @main(%arg0: {s}, %arg1: {t}, %arg2: {s}) -> {t} {{\n  %0 = stablehlo.clamp %arg0, %arg1, %arg2 : ({s}, {t}, {s}) -> {t}\n  return %0 : {t}\n}}"),
        ];
        for text in texts {
            let (ours, want, inputs) = run_both(&text, seed);
            seed += 1;
            assert_results(&ours, &want, &inputs, 0, &format!("{dtype}: {text}"));
        }
    }
}

#[test]
fn chlo_unary_ops_match_interpreter() {
    let mut seed = 7000;
    for op in ChloUnaryOp::ALL {
        let dtypes: Vec<DType> = match op {
            ChloUnaryOp::Square => FLOATS.iter().chain(&INTS).copied().collect(),
            _ => FLOATS.to_vec(),
        };
        for dtype in dtypes {
            let result = if matches!(
                op,
                ChloUnaryOp::IsInf | ChloUnaryOp::IsNegInf | ChloUnaryOp::IsPosInf
            ) {
                DType::Bool
            } else {
                dtype
            };
            let text = unary_module(op.name(), "3x67", dtype, result, true);
            let (ours, want, inputs) = run_both(&text, seed);
            seed += 1;
            let ulps = if matches!(
                op,
                ChloUnaryOp::Erf | ChloUnaryOp::ErfInv | ChloUnaryOp::Tan
            ) {
                2
            } else {
                0
            };
            assert_results(
                &ours,
                &want,
                &inputs,
                ulps,
                &format!("chlo.{} {dtype}", op.name()),
            );
        }
    }
}

#[test]
fn chlo_next_after() {
    for (seed, dtype) in (8000..).zip(FLOATS) {
        let t = ty("129", dtype);
        let text = format!(
            "func.func @main(%arg0: {t}, %arg1: {t}) -> {t} {{\n  %0 = chlo.next_after %arg0, %arg1 : {t}, {t} -> {t}\n  return %0 : {t}\n}}"
        );
        let (ours, want, inputs) = run_both(&text, seed);
        assert_results(&ours, &want, &inputs, 0, &format!("next_after {dtype}"));
    }
}
