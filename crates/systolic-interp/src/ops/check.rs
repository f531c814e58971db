//! The `check` dialect of the StableHLO interpreter tests. The first operand is the actual
//! value, the second (or the attribute) the expected one. A failed check is not an error: it
//! is reported with the expected and actual values and evaluation goes on.

use crate::error::Result;
use crate::index::delinearize;
use crate::operands::tensor;
use crate::value::Value;
use systolic_ir::{numerics, CheckOp, DType, Data, Tensor};

/// Tolerance of `expect_almost_eq` when none is given: the upstream interpreter's 1e-4
/// (absolute, and only between values of the same sign).
pub const DEFAULT_TOLERANCE: f64 = 1e-4;

/// Runs a check: `Ok(None)` when it passes, `Ok(Some(why))` when it fails.
pub fn eval(check: &CheckOp, args: &[Value]) -> Result<Option<String>> {
    let actual = tensor(args, 0)?;
    Ok(match check {
        CheckOp::ExpectEq => compare(actual, tensor(args, 1)?, bitwise_equal),
        CheckOp::ExpectEqConst(expected) => compare(actual, expected, bitwise_equal),
        CheckOp::ExpectAlmostEq { tolerance } => {
            let tol = tolerance.unwrap_or(DEFAULT_TOLERANCE);
            compare(actual, tensor(args, 1)?, |a, e, i| {
                almost_equal(a, e, i, tol)
            })
        }
        CheckOp::ExpectAlmostEqConst {
            expected,
            tolerance,
        } => {
            let tol = tolerance.unwrap_or(DEFAULT_TOLERANCE);
            compare(actual, expected, |a, e, i| almost_equal(a, e, i, tol))
        }
        CheckOp::ExpectClose {
            max_ulp_difference,
            min_ulp_difference,
        } => compare(actual, tensor(args, 1)?, |a, e, i| {
            let d = ulp_distance(a, e, i);
            d >= *min_ulp_difference && d <= *max_ulp_difference
        })
        .map(|why| {
            format!("{why} (allowed ULP distance {min_ulp_difference}..={max_ulp_difference})")
        }),
        CheckOp::ExpectSerializedEq {
            probe_id,
            iteration,
        } => serialized_eq(args, probe_id, *iteration, None)?,
    })
}

/// `check.expect_serialized_eq`: the value equals, bit for bit, what `interpreter.probe`
/// recorded under `probe_id` at `iteration` (`recorded`, looked up by the evaluator, which
/// holds the probes; `None` when there is no such record).
pub fn serialized_eq(
    args: &[Value],
    probe_id: &str,
    iteration: u64,
    recorded: Option<&Tensor>,
) -> Result<Option<String>> {
    let actual = tensor(args, 0)?;
    Ok(match recorded {
        Some(expected) => compare(actual, expected, bitwise_equal)
            .map(|why| format!("probe '{probe_id}' (iteration {iteration}): {why}")),
        None => Some(format!(
            "probe '{probe_id}' has no iteration {iteration}: no interpreter.probe recorded it \
             before this check"
        )),
    })
}

/// Compares element by element; on the first mismatch, describes it with both tensors.
fn compare(
    actual: &Tensor,
    expected: &Tensor,
    equal: impl Fn(&Tensor, &Tensor, usize) -> bool,
) -> Option<String> {
    if actual.ty() != expected.ty() {
        return Some(format!(
            "types differ: expected {}, got {}",
            expected.ty(),
            actual.ty()
        ));
    }
    let mismatch = (0..actual.num_elements()).find(|&i| !equal(actual, expected, i))?;
    Some(format!(
        "element {:?}: expected {}, got {} (expected {expected}, actual {actual})",
        delinearize(mismatch, actual.shape()),
        expected.get(mismatch),
        actual.get(mismatch),
    ))
}

/// Bit-for-bit equality, except that any two NaNs are equal (their payloads and signs depend
/// on the hardware: x86 makes `0xFFC00000` where the spec's examples write `0x7FC00000`).
/// -0 and +0 differ.
/// Complex numbers compare part by part the same way.
fn bitwise_equal(a: &Tensor, e: &Tensor, i: usize) -> bool {
    match (a.data(), e.data()) {
        (Data::Float(x), Data::Float(y)) if x[i].is_nan() && y[i].is_nan() => true,
        (Data::Complex(x), Data::Complex(y)) => {
            let part = a.dtype().component().unwrap_or(DType::F64);
            let same = |p: f64, q: f64| {
                p.is_nan() && q.is_nan()
                    || numerics::float_to_bits(part, p) == numerics::float_to_bits(part, q)
            };
            same(x[i].re, y[i].re) && same(x[i].im, y[i].im)
        }
        _ => a.bits_wide(i) == e.bits_wide(i),
    }
}

/// Upstream's approximate equality of floats: equal values (or two NaNs) pass; otherwise both
/// must be finite, of the same sign, and within `tolerance` of each other. Complex numbers
/// compare so part by part. Other types must be equal.
fn almost_equal(a: &Tensor, e: &Tensor, i: usize, tolerance: f64) -> bool {
    match (a.data(), e.data()) {
        (Data::Float(x), Data::Float(y)) => floats_almost_equal(x[i], y[i], tolerance),
        (Data::Complex(x), Data::Complex(y)) => {
            floats_almost_equal(x[i].re, y[i].re, tolerance)
                && floats_almost_equal(x[i].im, y[i].im, tolerance)
        }
        _ => bitwise_equal(a, e, i),
    }
}

/// [`almost_equal`] of two floats.
fn floats_almost_equal(x: f64, y: f64, tolerance: f64) -> bool {
    if x == y {
        return true;
    }
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if !x.is_finite() || !y.is_finite() {
        return false;
    }
    x.is_sign_negative() == y.is_sign_negative() && (x - y).abs() <= tolerance
}

/// Distance in units in the last place between two floats of the same dtype (0 for two NaNs,
/// the maximum for one NaN; the larger of the parts' distances for complex numbers); for
/// other dtypes the distance between the integer values.
fn ulp_distance(a: &Tensor, e: &Tensor, i: usize) -> u64 {
    let dtype = a.dtype();
    match (a.data(), e.data()) {
        (Data::Float(x), Data::Float(y)) => float_ulps(dtype, x[i], y[i]),
        (Data::Complex(x), Data::Complex(y)) => {
            let part = dtype.component().unwrap_or(DType::F64);
            float_ulps(part, x[i].re, y[i].re).max(float_ulps(part, x[i].im, y[i].im))
        }
        (Data::Int(x), Data::Int(y)) => (x[i] as i128 - y[i] as i128).unsigned_abs() as u64,
        (Data::UInt(x), Data::UInt(y)) => x[i].abs_diff(y[i]),
        _ => !bitwise_equal(a, e, i) as u64,
    }
}

/// [`ulp_distance`] of two values of the float dtype `dtype`.
fn float_ulps(dtype: DType, x: f64, y: f64) -> u64 {
    if x.is_nan() || y.is_nan() {
        return if x.is_nan() && y.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let key = |v: f64| -> i128 {
        let bits = numerics::float_to_bits(dtype, v);
        let sign = 1u64 << (dtype.bit_width() - 1);
        let magnitude = (bits & !sign) as i128;
        if bits & sign != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    (key(x) - key(y)).unsigned_abs().min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Value {
        Value::Tensor(Tensor::from_f32(vec![v.len() as i64], v.to_vec()))
    }

    #[test]
    fn expect_eq_is_bitwise() {
        let nan = f32s(&[f32::NAN, 1.0]);
        let other_nan = f32s(&[f32::from_bits(0xffc0_0001), 1.0]);
        assert_eq!(eval(&CheckOp::ExpectEq, &[nan, other_nan]).unwrap(), None);
        let why = eval(&CheckOp::ExpectEq, &[f32s(&[0.0]), f32s(&[-0.0])])
            .unwrap()
            .unwrap();
        assert!(why.contains("expected -0.0, got 0.0"), "{why}");
    }

    #[test]
    fn almost_eq_default_tolerance() {
        let check = CheckOp::ExpectAlmostEq { tolerance: None };
        assert_eq!(
            eval(&check, &[f32s(&[1.0]), f32s(&[1.00009])]).unwrap(),
            None
        );
        assert!(eval(&check, &[f32s(&[1.0]), f32s(&[1.0002])])
            .unwrap()
            .is_some());
        // Opposite signs never compare close, however small.
        assert!(eval(&check, &[f32s(&[1e-9]), f32s(&[-1e-9])])
            .unwrap()
            .is_some());
        assert!(eval(&check, &[f32s(&[f32::INFINITY]), f32s(&[f32::MAX])])
            .unwrap()
            .is_some());
        let loose = CheckOp::ExpectAlmostEq {
            tolerance: Some(0.5),
        };
        assert_eq!(eval(&loose, &[f32s(&[1.0]), f32s(&[1.4])]).unwrap(), None);
    }

    #[test]
    fn expect_close_counts_ulps() {
        let one = 1.0f32;
        let next = f32::from_bits(one.to_bits() + 2);
        let check = |max, min| CheckOp::ExpectClose {
            max_ulp_difference: max,
            min_ulp_difference: min,
        };
        assert_eq!(
            eval(&check(2, 0), &[f32s(&[one]), f32s(&[next])]).unwrap(),
            None
        );
        assert!(eval(&check(1, 0), &[f32s(&[one]), f32s(&[next])])
            .unwrap()
            .is_some());
        assert!(eval(&check(5, 3), &[f32s(&[one]), f32s(&[next])])
            .unwrap()
            .is_some());
        // Across zero: the smallest subnormals on each side are 2 ULP apart.
        let tiny = f32::from_bits(1);
        assert_eq!(
            eval(&check(2, 2), &[f32s(&[tiny]), f32s(&[-tiny])]).unwrap(),
            None
        );
    }

    #[test]
    fn serialized_eq_reports_missing_probes() {
        let check = CheckOp::ExpectSerializedEq {
            probe_id: "probe0".into(),
            iteration: 1,
        };
        let why = eval(&check, &[f32s(&[1.0])]).unwrap().unwrap();
        assert!(
            why.contains("probe0") && why.contains("no iteration 1"),
            "{why}"
        );
    }

    #[test]
    fn integer_mismatch_names_the_index() {
        let a = Tensor::from_i64(vec![2, 2], DType::I32, vec![1, 2, 3, 4]).unwrap();
        let e = Tensor::from_i64(vec![2, 2], DType::I32, vec![1, 2, 3, 5]).unwrap();
        let why = eval(&CheckOp::ExpectEqConst(e), &[Value::Tensor(a)])
            .unwrap()
            .unwrap();
        assert!(
            why.starts_with("element [1, 1]: expected 5, got 4"),
            "{why}"
        );
    }
}
