//! numpy elementwise functions (trigonometric, hyperbolic, logarithms, remainders and
//! divisions, hypot, logaddexp, classification, rounding, logical/bitwise ops, shifts,
//! nan_to_num, isclose/allclose) against JAX 0.10.2 (`tests/data/ufuncs_jax0.10.2.json`, made
//! by `tests/data/make_goldens_ufuncs.py`), eagerly and under `jit`, on f32/bf16/f16/i32/u8/
//! bool, signed zeros, infinities and NaN, size-0 and size-1 shapes.

use crate::golden_util::{assert_every_case_is_run, err_of, run_cases, OpFn};
use systolic::numpy as np;
use systolic::Array;

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/ufuncs_jax0.10.2.json")).unwrap())
}

fn unary(name: &str) -> Option<fn(&Array) -> Array> {
    Some(match name {
        "tan" => np::tan,
        "arcsin" => np::arcsin,
        "arccos" => np::arccos,
        "arctan" => np::arctan,
        "sinh" => np::sinh,
        "cosh" => np::cosh,
        "arcsinh" => np::arcsinh,
        "arccosh" => np::arccosh,
        "arctanh" => np::arctanh,
        "log2" => np::log2,
        "log10" => np::log10,
        "exp2" => np::exp2,
        "cbrt" => np::cbrt,
        "reciprocal" => np::reciprocal,
        "isnan" => np::isnan,
        "isinf" => np::isinf,
        "signbit" => np::signbit,
        "trunc" => np::trunc,
        "rint" => np::rint,
        "logical_not" => np::logical_not,
        "deg2rad" => np::deg2rad,
        "rad2deg" => np::rad2deg,
        "bitwise_not" => np::bitwise_not,
        "invert" => np::invert,
        _ => return None,
    })
}

fn binary(name: &str) -> Option<fn(&Array, &Array) -> Array> {
    Some(match name {
        "arctan2" => np::arctan2,
        "remainder" => np::remainder,
        "mod" => np::mod_,
        "fmod" => np::fmod,
        "floor_divide" => np::floor_divide,
        "true_divide" => np::true_divide,
        "hypot" => np::hypot,
        "logaddexp" => np::logaddexp,
        "copysign" => np::copysign,
        "logical_and" => np::logical_and,
        "logical_or" => np::logical_or,
        "logical_xor" => np::logical_xor,
        "bitwise_and" => np::bitwise_and,
        "bitwise_or" => np::bitwise_or,
        "bitwise_xor" => np::bitwise_xor,
        "left_shift" => np::left_shift,
        "right_shift" => np::right_shift,
        _ => return None,
    })
}

/// The longest `_`-delimited prefix of `rest` that `lookup` knows.
fn longest<T>(rest: &str, lookup: impl Fn(&str) -> Option<T>) -> Option<T> {
    (1..rest.len())
        .rev()
        .filter(|&i| rest.as_bytes()[i] == b'_')
        .find_map(|i| lookup(&rest[..i]))
}

fn op(name: &str) -> OpFn {
    if let Some(rest) = name.strip_prefix("u_") {
        let f = longest(rest, unary).unwrap_or_else(|| panic!("{name}"));
        return Box::new(move |x| vec![f(&x[0])]);
    }
    if let Some(rest) = name.strip_prefix("b_") {
        let f = longest(rest, binary).unwrap_or_else(|| panic!("{name}"));
        return Box::new(move |x| vec![f(&x[0], &x[1])]);
    }
    if name.starts_with("nan_to_num_default") {
        return Box::new(|x| vec![np::nan_to_num(&x[0], 0.0, None, None)]);
    }
    if name.starts_with("nan_to_num_custom") {
        return Box::new(|x| vec![np::nan_to_num(&x[0], -1.0, Some(7.0), Some(-7.0))]);
    }
    for (prefix, all) in [("isclose_", false), ("allclose_", true)] {
        if let Some(rest) = name.strip_prefix(prefix) {
            let (rtol, atol, equal_nan) = if rest.starts_with("loose") {
                (1e-2, 1e-3, false)
            } else if rest.starts_with("equal_nan") {
                (1e-5, 1e-8, true)
            } else {
                (1e-5, 1e-8, false)
            };
            let f = if all { np::allclose } else { np::isclose };
            return Box::new(move |x| vec![f(&x[0], &x[1], rtol, atol, equal_nan)]);
        }
    }
    panic!("no systolic expression for golden case {name}")
}

const PREFIXES: &[&str] = &["u_", "b_", "nan_to_num", "isclose", "allclose"];

#[test]
fn unary_functions_match_jax() {
    run_cases(golden(), &["u_"], op);
}

#[test]
fn binary_functions_match_jax() {
    run_cases(golden(), &["b_"], op);
}

#[test]
fn nan_to_num_isclose_allclose_match_jax() {
    run_cases(golden(), &["nan_to_num", "isclose", "allclose"], op);
}

#[test]
fn every_golden_case_has_an_expression_and_a_test() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn bad_operands_are_errors_naming_the_op_shapes_and_dtypes() {
    let f = Array::from_vec(vec![1.0f32; 3], &[3]);
    let i = Array::from_vec(vec![1i32; 3], &[3]);
    let i2 = Array::from_vec(vec![1i32; 2], &[2]);
    let b = Array::from_vec(vec![true; 3], &[3]);
    let cases: Vec<(String, &[&str])> = vec![
        (
            err_of(&np::bitwise_and(&f, &i)),
            &["bitwise_and", "float32[3]", "int32[3]"],
        ),
        (err_of(&np::bitwise_not(&f)), &["bitwise_not", "float32[3]"]),
        (
            err_of(&np::left_shift(&f, &i)),
            &["left_shift", "float32[3]"],
        ),
        (
            err_of(&np::right_shift(&i, &f)),
            &["right_shift", "float32[3]"],
        ),
        (err_of(&np::remainder(&b, &b)), &["remainder", "bool[3]"]),
        (
            err_of(&np::floor_divide(&b, &b)),
            &["floor_divide", "bool[3]"],
        ),
        (
            err_of(&np::fmod(&i, &i2)),
            &["fmod", "int32[3]", "int32[2]"],
        ),
        (
            err_of(&np::arctan2(&f, &i2)),
            &["arctan2", "float32[3]", "int32[2]"],
        ),
        (
            err_of(&np::hypot(&f, &i2)),
            &["hypot", "float32[3]", "int32[2]"],
        ),
        (
            err_of(&np::logaddexp(&f, &i2)),
            &["logaddexp", "float32[3]", "int32[2]"],
        ),
        (
            err_of(&np::isclose(&f, &i2, 1e-5, 1e-8, false)),
            &["isclose", "float32[3]", "int32[2]"],
        ),
        (
            err_of(&np::logical_and(&f, &i2)),
            &["logical_and", "[3]", "[2]"],
        ),
    ];
    for (msg, needles) in cases {
        for n in needles {
            assert!(msg.contains(n), "{msg:?} should mention {n:?}");
        }
    }
}
