//! Shared helpers for the op-family tests: tensors from literals, running one op through
//! `systolic_interp::ops::eval`, and regions written as Rust closures (so these tests do not
//! depend on the elementwise family or the parser).

#![allow(dead_code)]

use systolic_interp::{ops, InterpError, Regions, Value};
use systolic_ir::{DType, Data, OpKind, Scalar, Tensor, TensorType, Type};

/// A region body as a Rust function of scalar arguments.
pub type Body = Box<dyn FnMut(&[Scalar]) -> Vec<Scalar>>;

/// Regions implemented by closures over scalars; results take the dtype of `out_dtypes`.
pub struct ClosureRegions {
    bodies: Vec<(Body, Vec<DType>)>,
    /// How many times each region ran.
    pub calls: Vec<usize>,
}

impl ClosureRegions {
    /// No regions.
    pub fn none() -> Self {
        ClosureRegions {
            bodies: vec![],
            calls: vec![],
        }
    }

    /// Adds a region returning values of the given dtypes.
    pub fn with(
        mut self,
        out_dtypes: Vec<DType>,
        body: impl FnMut(&[Scalar]) -> Vec<Scalar> + 'static,
    ) -> Self {
        self.bodies.push((Box::new(body), out_dtypes));
        self.calls.push(0);
        self
    }
}

impl Regions for ClosureRegions {
    fn count(&self) -> usize {
        self.bodies.len()
    }

    fn run(&mut self, index: usize, args: Vec<Value>) -> Result<Vec<Value>, InterpError> {
        let scalars: Vec<Scalar> = args
            .iter()
            .map(|v| {
                let t = v.as_tensor().expect("region arguments are tensors");
                assert!(t.shape().is_empty(), "region arguments are rank 0");
                t.get(0)
            })
            .collect();
        self.calls[index] += 1;
        let (body, dtypes) = &mut self.bodies[index];
        let out = body(&scalars);
        Ok(out
            .into_iter()
            .zip(dtypes.iter())
            .map(|(s, &d)| Value::Tensor(Tensor::splat(TensorType::scalar(d), s).unwrap()))
            .collect())
    }

    fn call(&mut self, func: &str, _args: Vec<Value>) -> Result<Vec<Value>, InterpError> {
        Err(InterpError::new(format!(
            "no function @{func} in these tests"
        )))
    }
}

/// `a + b` on floats (f64 then rounded by the tensor), ints or unsigned ints.
pub fn add(a: Scalar, b: Scalar) -> Scalar {
    match (a, b) {
        (Scalar::Float(x), Scalar::Float(y)) => Scalar::Float(x + y),
        (Scalar::Int(x), Scalar::Int(y)) => Scalar::Int(x.wrapping_add(y)),
        (Scalar::UInt(x), Scalar::UInt(y)) => Scalar::UInt(x.wrapping_add(y)),
        (Scalar::Bool(x), Scalar::Bool(y)) => Scalar::Bool(x | y),
        (Scalar::Complex(x), Scalar::Complex(y)) => Scalar::Complex(x + y),
        _ => panic!("add of mixed kinds {a:?} {b:?}"),
    }
}

/// The value as f64 (the real part of a complex number).
pub fn f(s: Scalar) -> f64 {
    match s {
        Scalar::Float(x) => x,
        Scalar::Complex(z) => z.re,
        Scalar::Int(x) => x as f64,
        Scalar::UInt(x) => x as f64,
        Scalar::Bool(b) => b as u8 as f64,
    }
}

/// A region `(a, b) -> a + b` of dtype `d`.
pub fn add_region(d: DType) -> ClosureRegions {
    ClosureRegions::none().with(vec![d], |a| vec![add(a[0], a[1])])
}

/// An f32 tensor.
pub fn f32s(shape: &[i64], v: &[f64]) -> Tensor {
    Tensor::from_f64(shape.to_vec(), DType::F32, v.to_vec()).unwrap()
}

/// A tensor of a float dtype.
pub fn floats(shape: &[i64], d: DType, v: &[f64]) -> Tensor {
    Tensor::from_f64(shape.to_vec(), d, v.to_vec()).unwrap()
}

/// A tensor of a signed integer dtype.
pub fn ints(shape: &[i64], d: DType, v: &[i64]) -> Tensor {
    Tensor::from_i64(shape.to_vec(), d, v.to_vec()).unwrap()
}

/// A tensor of an unsigned integer dtype.
pub fn uints(shape: &[i64], d: DType, v: &[u64]) -> Tensor {
    Tensor::from_u64(shape.to_vec(), d, v.to_vec()).unwrap()
}

/// 0, 1, 2, … as an f32 tensor of `shape`.
pub fn iota_f32(shape: &[i64]) -> Tensor {
    let n: i64 = shape.iter().product();
    f32s(shape, &(0..n).map(|x| x as f64).collect::<Vec<_>>())
}

/// 0, 1, 2, … as a tensor of integer dtype `d`.
pub fn iota_int(shape: &[i64], d: DType) -> Tensor {
    let n: i64 = shape.iter().product();
    ints(shape, d, &(0..n).collect::<Vec<_>>())
}

/// A tensor type.
pub fn tt(shape: &[i64], d: DType) -> Type {
    Type::tensor(shape.to_vec(), d)
}

/// Runs one op.
pub fn run(
    kind: OpKind,
    args: Vec<Tensor>,
    result_types: Vec<Type>,
    regions: &mut ClosureRegions,
) -> Result<Vec<Tensor>, InterpError> {
    let args = args.into_iter().map(Value::from).collect();
    let out = ops::eval(&kind, args, &result_types, regions)?;
    Ok(out
        .into_iter()
        .map(|v| v.into_tensor().expect("tensor result"))
        .collect())
}

/// Runs one op that has no regions and one result.
pub fn run1(kind: OpKind, args: Vec<Tensor>, result: Type) -> Result<Tensor, InterpError> {
    Ok(run(kind, args, vec![result], &mut ClosureRegions::none())?.remove(0))
}

/// The elements as f64.
pub fn values(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec()
}

/// The elements of an integer tensor.
pub fn int_values(t: &Tensor) -> Vec<i64> {
    match t.data() {
        Data::Int(v) => v.clone(),
        Data::UInt(v) => v.iter().map(|&x| x as i64).collect(),
        other => panic!("not an integer tensor: {other:?}"),
    }
}

/// Asserts two float lists agree within `tol` (absolute + relative), NaNs matching NaNs.
pub fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(
        got.len(),
        want.len(),
        "lengths differ: got {got:?}, want {want:?}"
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * (1.0 + w.abs());
        assert!(
            ok,
            "element {i}: got {g}, want {w}\n got {got:?}\nwant {want:?}"
        );
    }
}

/// Asserts the error message contains every fragment.
pub fn assert_err_contains(r: Result<impl std::fmt::Debug, InterpError>, fragments: &[&str]) {
    match r {
        Ok(v) => panic!("expected an error containing {fragments:?}, got {v:?}"),
        Err(e) => {
            let text = e.to_string();
            for f in fragments {
                assert!(text.contains(f), "error {text:?} does not contain {f:?}");
            }
        }
    }
}
