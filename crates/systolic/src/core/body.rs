//! Region bodies an op can carry (reducers, comparators), described as data so that the same
//! description builds a region inside a traced function or in an eager single-op module.

use systolic_ir::verify::RegionSignature;
use systolic_ir::{
    BinaryOp, Block, ComparisonDirection, DType, Func, Op, OpKind, Region, ReturnKind, Type,
    ValueId,
};

/// What a region computes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Body {
    /// `(acc, x) -> acc op x` on scalars of `dtype` (a reduction's body).
    Reducer(BinaryOp, DType),
    /// `((acc, acc_i), (x, x_i)) -> (value, index)` of an argmax (`max = true`) or argmin:
    /// the greater (lesser) value wins, NaN wins, ties keep the lower index.
    ArgBest {
        /// The value dtype.
        dtype: DType,
        /// The index dtype.
        index: DType,
        /// Argmax (true) or argmin.
        max: bool,
    },
    /// `(a, b) -> a < b` on scalars of `dtype` (an ascending sort's comparator).
    #[allow(dead_code)]
    LessThan(DType),
    /// Any straight-line program over rank-0 values (comparators, scatter combiners, user
    /// reducers built by `ops::region`).
    Graph(Graph),
}

/// A region as data: rank-0 block arguments, ops numbered after them (one result each), and
/// the values returned. Value `i < args.len()` is argument `i`; value `args.len() + j` is the
/// result of `ops[j]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Graph {
    /// The dtypes of the block arguments.
    pub(crate) args: Vec<DType>,
    /// Each op: kind, operand values, result dtype.
    pub(crate) ops: Vec<(OpKind, Vec<usize>, DType)>,
    /// The values returned.
    pub(crate) results: Vec<usize>,
}

impl Graph {
    fn dtype(&self, v: usize) -> DType {
        if v < self.args.len() {
            self.args[v]
        } else {
            self.ops[v - self.args.len()].2
        }
    }
}

impl Body {
    /// The region's signature seen from outside, for shape inference.
    pub(crate) fn signature(&self) -> RegionSignature {
        match self {
            Body::Reducer(_, d) => {
                let s = Type::tensor(vec![], *d);
                RegionSignature::new(vec![s.clone(), s.clone()], vec![s])
            }
            Body::LessThan(d) => {
                let s = Type::tensor(vec![], *d);
                RegionSignature::new(vec![s.clone(), s], vec![Type::tensor(vec![], DType::Bool)])
            }
            Body::ArgBest { dtype, index, .. } => {
                let v = Type::tensor(vec![], *dtype);
                let i = Type::tensor(vec![], *index);
                RegionSignature::new(vec![v.clone(), i.clone(), v.clone(), i.clone()], vec![v, i])
            }
            Body::Graph(g) => RegionSignature::new(
                g.args.iter().map(|d| Type::tensor(vec![], *d)).collect(),
                g.results
                    .iter()
                    .map(|&r| Type::tensor(vec![], g.dtype(r)))
                    .collect(),
            ),
        }
    }

    /// Builds the region with values in `func`'s arena.
    pub(crate) fn build(&self, func: &mut Func) -> Region {
        if let Body::ArgBest { dtype, index, max } = self {
            return build_arg_best(func, *dtype, *index, *max);
        }
        if let Body::Graph(g) = self {
            return build_graph(func, g);
        }
        let (dtype, kind, out) = match self {
            Body::Reducer(op, d) => (*d, OpKind::Binary(*op), *d),
            Body::LessThan(d) => (
                *d,
                OpKind::Compare {
                    direction: ComparisonDirection::Lt,
                    compare_type: None,
                },
                DType::Bool,
            ),
            Body::ArgBest { .. } | Body::Graph(_) => unreachable!("built above"),
        };
        let a = func.new_value(Type::tensor(vec![], dtype), None);
        let b = func.new_value(Type::tensor(vec![], dtype), None);
        let r = func.new_value(Type::tensor(vec![], out), None);
        let ops = vec![
            Op::new(kind, vec![a, b], vec![r]),
            Op::new(OpKind::Return(ReturnKind::Stablehlo), vec![r], vec![]),
        ];
        Region::single(Block {
            args: vec![a, b],
            ops,
        })
    }
}

/// The argmax/argmin reducer, as JAX writes it: pick the incoming value when it compares
/// better or is NaN; pick its index then, or on a tie with a lower index.
fn build_arg_best(func: &mut Func, dtype: DType, index: DType, max: bool) -> Region {
    let v = Type::tensor(vec![], dtype);
    let i = Type::tensor(vec![], index);
    let b = Type::tensor(vec![], DType::Bool);
    let acc_v = func.new_value(v.clone(), None);
    let acc_i = func.new_value(i.clone(), None);
    let x_v = func.new_value(v.clone(), None);
    let x_i = func.new_value(i.clone(), None);
    let mut ops = vec![];
    let mut emit = |func: &mut Func, kind: OpKind, operands: Vec<ValueId>, ty: &Type| {
        let r = func.new_value(ty.clone(), None);
        ops.push(Op::new(kind, operands, vec![r]));
        r
    };
    let cmp = |direction| OpKind::Compare {
        direction,
        compare_type: None,
    };
    let better = emit(
        func,
        cmp(if max {
            ComparisonDirection::Gt
        } else {
            ComparisonDirection::Lt
        }),
        vec![x_v, acc_v],
        &b,
    );
    let nan = emit(func, cmp(ComparisonDirection::Ne), vec![x_v, x_v], &b);
    let pick_v = emit(func, OpKind::Binary(BinaryOp::Or), vec![better, nan], &b);
    let eq = emit(func, cmp(ComparisonDirection::Eq), vec![x_v, acc_v], &b);
    let lower = emit(func, cmp(ComparisonDirection::Lt), vec![x_i, acc_i], &b);
    let tie = emit(func, OpKind::Binary(BinaryOp::And), vec![eq, lower], &b);
    let pick_i = emit(func, OpKind::Binary(BinaryOp::Or), vec![pick_v, tie], &b);
    let out_v = emit(func, OpKind::Select, vec![pick_v, x_v, acc_v], &v);
    let out_i = emit(func, OpKind::Select, vec![pick_i, x_i, acc_i], &i);
    ops.push(Op::new(
        OpKind::Return(ReturnKind::Stablehlo),
        vec![out_v, out_i],
        vec![],
    ));
    Region::single(Block {
        args: vec![acc_v, acc_i, x_v, x_i],
        ops,
    })
}

fn build_graph(func: &mut Func, g: &Graph) -> Region {
    let mut values: Vec<ValueId> = g
        .args
        .iter()
        .map(|d| func.new_value(Type::tensor(vec![], *d), None))
        .collect();
    let args = values.clone();
    let mut ops = vec![];
    for (kind, operands, dtype) in &g.ops {
        let r = func.new_value(Type::tensor(vec![], *dtype), None);
        let ins = operands.iter().map(|&i| values[i]).collect();
        ops.push(Op::new(kind.clone(), ins, vec![r]));
        values.push(r);
    }
    ops.push(Op::new(
        OpKind::Return(ReturnKind::Stablehlo),
        g.results.iter().map(|&i| values[i]).collect(),
        vec![],
    ));
    Region::single(Block { args, ops })
}
