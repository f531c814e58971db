//! Region bodies written in Rust: a [`RegionBuilder`] records scalar ops into a
//! [`Body::Graph`](crate::core::body::Body), which becomes the region of a `reduce`,
//! `reduce_window`, `sort` or `scatter` (the same description runs eagerly and under `jit`).

use crate::core::body::{Body, Graph};
use systolic_ir::{BinaryOp, ComparisonDirection, DType, OpKind, UnaryOp};

/// A rank-0 value inside a region being built (a block argument or an op's result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Var {
    index: usize,
    dtype: DType,
}

impl Var {
    /// The value's dtype.
    pub fn dtype(self) -> DType {
        self.dtype
    }
}

/// Records the body of a region as a straight-line program over rank-0 values; the closures
/// given to [`lax::reduce`](crate::lax::reduce) and friends receive one.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![3i32, -7, 5], &[3]);
/// // A max-of-absolute-values reduction written as a closure.
/// let r = lax::reduce(&[&x], &[&Array::scalar(0i32)], &[0], |b, args| {
///     let a = b.abs(args[1]);
///     vec![b.max(args[0], a)]
/// })
/// .unwrap();
/// assert_eq!(r[0].to_vec::<i32>().unwrap(), vec![7]);
/// ```
#[derive(Debug)]
pub struct RegionBuilder {
    graph: Graph,
    error: Option<String>,
}

impl RegionBuilder {
    pub(crate) fn new(args: &[DType]) -> (RegionBuilder, Vec<Var>) {
        let vars = args
            .iter()
            .enumerate()
            .map(|(index, &dtype)| Var { index, dtype })
            .collect();
        (
            RegionBuilder {
                graph: Graph {
                    args: args.to_vec(),
                    ops: vec![],
                    results: vec![],
                },
                error: None,
            },
            vars,
        )
    }

    /// The finished body returning `results`, or why it is malformed.
    pub(crate) fn finish(mut self, results: &[Var]) -> Result<Body, String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let n = self.graph.args.len() + self.graph.ops.len();
        if let Some(v) = results.iter().find(|v| v.index >= n) {
            return Err(format!(
                "the body returns a value of another region ({v:?})"
            ));
        }
        self.graph.results = results.iter().map(|v| v.index).collect();
        Ok(Body::Graph(self.graph))
    }

    fn push(&mut self, kind: OpKind, operands: &[Var], dtype: DType) -> Var {
        let n = self.graph.args.len() + self.graph.ops.len();
        if operands.iter().any(|v| v.index >= n) && self.error.is_none() {
            self.error = Some("an operand comes from another region".into());
        }
        self.graph
            .ops
            .push((kind, operands.iter().map(|v| v.index).collect(), dtype));
        Var { index: n, dtype }
    }

    fn binary(&mut self, op: BinaryOp, a: Var, b: Var) -> Var {
        if a.dtype != b.dtype && self.error.is_none() {
            self.error = Some(format!(
                "{op:?} of {} and {} (region ops do not promote)",
                a.dtype.numpy_name(),
                b.dtype.numpy_name()
            ));
        }
        self.push(OpKind::Binary(op), &[a, b], a.dtype)
    }

    /// `a + b`.
    pub fn add(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::Add, a, b)
    }
    /// `a - b`.
    pub fn sub(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::Subtract, a, b)
    }
    /// `a * b`.
    pub fn mul(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::Multiply, a, b)
    }
    /// `max(a, b)` (NaN propagates).
    pub fn max(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::Maximum, a, b)
    }
    /// `min(a, b)` (NaN propagates).
    pub fn min(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::Minimum, a, b)
    }
    /// `a & b` (logical for bools).
    pub fn and(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::And, a, b)
    }
    /// `a | b` (logical for bools).
    pub fn or(&mut self, a: Var, b: Var) -> Var {
        self.binary(BinaryOp::Or, a, b)
    }
    /// `|a|`.
    pub fn abs(&mut self, a: Var) -> Var {
        self.push(OpKind::Unary(UnaryOp::Abs), &[a], a.dtype)
    }
    /// `-a`.
    pub fn neg(&mut self, a: Var) -> Var {
        self.push(OpKind::Unary(UnaryOp::Negate), &[a], a.dtype)
    }
    /// `!a` (bitwise for integers).
    pub fn not(&mut self, a: Var) -> Var {
        self.push(OpKind::Unary(UnaryOp::Not), &[a], a.dtype)
    }
    /// `a <direction> b`, a bool.
    pub fn compare(&mut self, direction: ComparisonDirection, a: Var, b: Var) -> Var {
        if a.dtype != b.dtype && self.error.is_none() {
            self.error = Some(format!(
                "compare of {} and {}",
                a.dtype.numpy_name(),
                b.dtype.numpy_name()
            ));
        }
        self.push(
            OpKind::Compare {
                direction,
                compare_type: None,
            },
            &[a, b],
            DType::Bool,
        )
    }
    /// `a <direction> b` in the total order of floats (`-NaN < -inf < … < -0 < +0 < … < inf
    /// < NaN`) as JAX's sort comparators compare; integers compare as usual.
    pub fn compare_total(&mut self, direction: ComparisonDirection, a: Var, b: Var) -> Var {
        if !a.dtype.is_float() {
            return self.compare(direction, a, b);
        }
        if a.dtype != b.dtype && self.error.is_none() {
            self.error = Some(format!(
                "compare of {} and {}",
                a.dtype.numpy_name(),
                b.dtype.numpy_name()
            ));
        }
        self.push(
            OpKind::Compare {
                direction,
                compare_type: Some(systolic_ir::ComparisonType::TotalOrder),
            },
            &[a, b],
            DType::Bool,
        )
    }
    /// `pred ? a : b`.
    pub fn select(&mut self, pred: Var, a: Var, b: Var) -> Var {
        self.push(OpKind::Select, &[pred, a, b], a.dtype)
    }
    /// `a` converted to `dtype`.
    pub fn convert(&mut self, a: Var, dtype: DType) -> Var {
        self.push(OpKind::Convert, &[a], dtype)
    }
    /// `a` reinterpreted bit for bit as `dtype` (same width).
    pub fn bitcast(&mut self, a: Var, dtype: DType) -> Var {
        self.push(OpKind::BitcastConvert, &[a], dtype)
    }
    /// A constant of `dtype`.
    pub fn constant(&mut self, value: f64, dtype: DType) -> Var {
        let scalar = crate::ops::creation::scalar_of(dtype, value);
        match systolic_ir::Tensor::splat(systolic_ir::TensorType::scalar(dtype), scalar) {
            Ok(t) => self.push(OpKind::Constant(t), &[], dtype),
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e.to_string());
                }
                self.push(OpKind::Select, &[], dtype)
            }
        }
    }
}

/// Builds a body from a closure over argument vars.
pub(crate) fn build(
    args: &[DType],
    f: impl FnOnce(&mut RegionBuilder, &[Var]) -> Vec<Var>,
) -> Result<Body, String> {
    let (mut b, vars) = RegionBuilder::new(args);
    let results = f(&mut b, &vars);
    b.finish(&results)
}

/// The body `(a, b) -> b` (scatter's `set`).
pub(crate) fn take_second(dtype: DType) -> Body {
    Body::Graph(Graph {
        args: vec![dtype, dtype],
        ops: vec![],
        results: vec![1],
    })
}

/// The body `(a, b) -> a op b`.
pub(crate) fn binary_body(op: BinaryOp, dtype: DType) -> Body {
    Body::Reducer(op, dtype)
}
