//! What one op asks of a TensorCore: the FLOPs it reports, the VPU operations it needs, the
//! matrix products it gives the MXU, and (for an op that is a kernel by itself) the HBM bytes it
//! moves. Control flow, calls and fusions are the schedule's business ([`crate::schedule`]);
//! this module looks at one op at a time.
//!
//! FLOP counting, the convention `systolic simulate` reports:
//! - products (`dot_general`, `dot`, `convolution`): 2·M·N·K (a multiply and an add per term);
//! - elementwise ops (arithmetic, comparisons, selects, converts, transcendental functions):
//!   one per result element;
//! - reductions (`reduce`, `reduce_window`, `scatter`, `map`): one per element visited for every
//!   op of the reducer body;
//! - data movement (broadcast, transpose, slice, concatenate, pad, gather, …) and sorting: none.

use crate::layout::{padded_bytes, padded_elements};
use crate::mxu::{pass_plan, MatmulShape, PassPlan};
use systolic_ir::{
    ConvAttrs, DotAlgorithm, DotDimensionNumbers, ElementCost, Func, Op, OpKind, Precision,
    RaggedDotDimensionNumbers, Region, TensorType, Window,
};

/// VPU operation slots a transcendental function (exp, log, tanh, rsqrt, divide, …) takes per
/// element. An assumption: the EUP's throughput is not published; see `docs/TPU_MODEL.md`.
pub const TRANSCENDENTAL_VPU_OPS: f64 = 4.0;
/// VPU operation slots of the CHLO special functions (erf, lgamma, …), which XLA expands into
/// polynomial evaluations of a dozen or more operations. An assumption.
pub const SPECIAL_FUNCTION_VPU_OPS: f64 = 16.0;
/// VPU operations per element of random bit generation (threefry rounds). An assumption.
pub const RNG_VPU_OPS: f64 = 20.0;

/// One matrix product for the MXU.
#[derive(Clone, Debug, PartialEq)]
pub struct MatmulWork {
    /// Its dimensions.
    pub shape: MatmulShape,
    /// Its rate class and passes.
    pub plan: PassPlan,
    /// The left operand's type.
    pub lhs: TensorType,
    /// The right operand's type.
    pub rhs: TensorType,
    /// The result's type.
    pub out: TensorType,
}

/// The compute an op asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Work {
    /// FLOPs as reported (see the module docs for the convention).
    pub flops: f64,
    /// VPU operation slots (elements × cost per element).
    pub vpu_ops: f64,
    /// Products for the MXU.
    pub matmuls: Vec<MatmulWork>,
}

impl Work {
    /// Adds another op's work (for a fused kernel).
    pub fn add(&mut self, other: Work) {
        self.flops += other.flops;
        self.vpu_ops += other.vpu_ops;
        self.matmuls.extend(other.matmuls);
    }
}

/// The tensor type of a value, if it is a tensor.
pub fn tensor_of(func: &Func, v: systolic_ir::ValueId) -> Option<&TensorType> {
    func.values.get(v.index()).and_then(|d| d.ty.as_tensor())
}

fn elements(ty: Option<&TensorType>) -> f64 {
    ty.map_or(0.0, |t| t.num_elements() as f64)
}

/// Ops in a region that do work (terminators excluded), nested regions included.
fn body_ops(region: &Region) -> f64 {
    let mut n = 0.0;
    systolic_ir::walk::walk_ops(region, &mut |op, _| {
        if !op.kind.is_terminator() {
            n += 1.0;
        }
    });
    n
}

/// VPU operation slots per element of an elementwise op of this cost class.
fn vpu_ops_per_element(cost: ElementCost) -> f64 {
    match cost {
        ElementCost::Cheap => 1.0,
        ElementCost::Transcendental => TRANSCENDENTAL_VPU_OPS,
        ElementCost::Special => SPECIAL_FUNCTION_VPU_OPS,
    }
}

/// The stricter of an op's per-operand precisions (DEFAULT when none is given).
fn strictest(precisions: &[Precision]) -> Precision {
    let rank = |p: &Precision| match p {
        Precision::Default => 0,
        Precision::High => 1,
        Precision::Highest => 2,
    };
    precisions
        .iter()
        .copied()
        .max_by_key(rank)
        .unwrap_or(Precision::Default)
}

fn product(dims: &[i64], pick: impl Fn(usize) -> bool) -> u64 {
    dims.iter()
        .enumerate()
        .filter(|(i, _)| pick(*i))
        .map(|(_, &d)| d.max(0) as u64)
        .product()
}

/// The attributes of a product that decide its matrix shape and passes.
#[derive(Clone, Copy)]
enum Product<'a> {
    DotGeneral {
        dimension_numbers: &'a DotDimensionNumbers,
        precision_config: &'a [Precision],
        algorithm: Option<&'a DotAlgorithm>,
    },
    Dot {
        precision_config: &'a [Precision],
    },
    Convolution(&'a ConvAttrs),
    /// `chlo.ragged_dot`: each lhs row (or each group's slice of `k`) meets one rhs group,
    /// so the work is one dot of lhs with rhs without its group dimension.
    Ragged(&'a RaggedDotDimensionNumbers, &'a [Precision]),
}

/// A `dot_general`'s batch × m × k × n; `rhs_skipped` dimensions of rhs (a ragged dot's group
/// dimension) count in none of them.
fn dot_shape(
    lhs: &TensorType,
    rhs: &TensorType,
    dn: &DotDimensionNumbers,
    rhs_skipped: &[i64],
) -> MatmulShape {
    let in_list = |l: &[i64], i: usize| l.contains(&(i as i64));
    let (lb, lc) = (&dn.lhs_batching_dimensions, &dn.lhs_contracting_dimensions);
    let (rb, rc) = (&dn.rhs_batching_dimensions, &dn.rhs_contracting_dimensions);
    MatmulShape {
        batch: product(&lhs.shape, |i| in_list(lb, i)),
        m: product(&lhs.shape, |i| !in_list(lb, i) && !in_list(lc, i)),
        k: product(&lhs.shape, |i| in_list(lc, i)),
        n: product(&rhs.shape, |i| {
            !in_list(rb, i) && !in_list(rc, i) && !in_list(rhs_skipped, i)
        }),
    }
}

/// The matrix product of a `dot_general`, `dot` or `convolution`, if its types are tensors.
fn matmul_of(func: &Func, op: &Op, attrs: Product) -> Option<MatmulWork> {
    let lhs = tensor_of(func, *op.operands.first()?)?.clone();
    let rhs = tensor_of(func, *op.operands.get(1)?)?.clone();
    let out = tensor_of(func, *op.results.first()?)?.clone();
    let (shape, precision, algorithm_passes) = match attrs {
        Product::DotGeneral {
            dimension_numbers: dn,
            precision_config,
            algorithm,
        } => {
            let shape = dot_shape(&lhs, &rhs, dn, &[]);
            let passes = algorithm.map(|a| a.num_primitive_operations.clamp(1, 64) as u32);
            (shape, strictest(precision_config), passes)
        }
        Product::Ragged(rd, precision_config) => {
            let shape = dot_shape(&lhs, &rhs, &rd.dot, &rd.rhs_group_dimensions);
            (shape, strictest(precision_config), None)
        }
        Product::Dot { precision_config } => {
            let k = *lhs.shape.last().unwrap_or(&1) as u64;
            let m = if lhs.rank() == 2 {
                lhs.shape[0] as u64
            } else {
                1
            };
            let n = if rhs.rank() == 2 {
                rhs.shape[1] as u64
            } else {
                1
            };
            let shape = MatmulShape { batch: 1, m, k, n };
            (shape, strictest(precision_config), None)
        }
        Product::Convolution(c) => {
            let dn = &c.dimension_numbers;
            let groups = c.feature_group_count.max(1) as u64 * c.batch_group_count.max(1) as u64;
            let out_spatial = product(&out.shape, |i| {
                dn.output_spatial_dimensions.contains(&(i as i64))
            });
            let batch = out
                .shape
                .get(dn.output_batch_dimension as usize)
                .copied()
                .unwrap_or(1);
            let kernel_spatial = product(&rhs.shape, |i| {
                dn.kernel_spatial_dimensions.contains(&(i as i64))
            });
            let in_features = rhs
                .shape
                .get(dn.kernel_input_feature_dimension as usize)
                .copied()
                .unwrap_or(1) as u64;
            let out_features = rhs
                .shape
                .get(dn.kernel_output_feature_dimension as usize)
                .copied()
                .unwrap_or(1) as u64;
            // One product per group: [batch·spatial, window·in/group] x [.., out/group].
            let shape = MatmulShape {
                batch: groups,
                m: batch.max(0) as u64 * out_spatial,
                k: kernel_spatial * in_features,
                n: out_features / groups.max(1),
            };
            (shape, strictest(&c.precision_config), None)
        }
    };
    let plan = pass_plan(lhs.dtype, rhs.dtype, precision, algorithm_passes);
    Some(MatmulWork {
        shape,
        plan,
        lhs,
        rhs,
        out,
    })
}

/// Positions per window (its sizes' product; dilations and padding do not change it).
fn window_positions(window: &Window) -> f64 {
    window
        .window_dimensions
        .iter()
        .map(|&d| d.max(0) as f64)
        .product()
}

/// The compute of one op (its nested regions count only as per-element bodies of reductions,
/// sorts and maps; control flow is costed by the schedule).
pub fn op_work(func: &Func, op: &Op) -> Work {
    let result = op.results.first().and_then(|&r| tensor_of(func, r));
    let out_elems = elements(result);
    // The VPU works on whole vector registers, so its work counts the padded elements.
    let out_vpu = result.map_or(0.0, |t| padded_elements(t) as f64);
    let elementwise = |cost: f64| Work {
        flops: out_elems,
        vpu_ops: out_vpu * cost,
        matmuls: vec![],
    };
    let matmul = |p: Product| match matmul_of(func, op, p) {
        Some(mm) => Work {
            flops: mm.shape.flops(),
            vpu_ops: 0.0,
            matmuls: vec![mm],
        },
        None => Work::default(),
    };
    use OpKind::*;
    match &op.kind {
        Unary(_)
        | Binary(_)
        | ChloUnary(_)
        | ChloBinary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | UniformQuantize
        | UniformDequantize
        | ReducePrecision { .. } => {
            elementwise(op.kind.element_cost().map_or(1.0, vpu_ops_per_element))
        }
        Map { .. } => {
            let per = op.regions.first().map_or(1.0, body_ops);
            Work {
                flops: out_elems * per,
                vpu_ops: out_elems * per,
                matmuls: vec![],
            }
        }
        DotGeneral {
            dimension_numbers,
            precision_config,
            algorithm,
        } => matmul(Product::DotGeneral {
            dimension_numbers,
            precision_config,
            algorithm: algorithm.as_ref(),
        }),
        Dot { precision_config } => matmul(Product::Dot { precision_config }),
        Convolution(c) => matmul(Product::Convolution(c)),
        RaggedDot {
            dimension_numbers,
            precision_config,
        } => matmul(Product::Ragged(dimension_numbers, precision_config)),
        Reduce { .. } => {
            let inputs = op.operands.len() / 2;
            let input = op.operands.first().and_then(|&v| tensor_of(func, v));
            let per = (op.regions.first().map_or(1.0, body_ops) / inputs.max(1) as f64).max(1.0);
            let padded = input.map_or(0.0, |t| padded_elements(t) as f64);
            Work {
                flops: elements(input) * per,
                vpu_ops: padded * per,
                matmuls: vec![],
            }
        }
        ReduceWindow { window } => {
            let window = window_positions(window);
            let per = op.regions.first().map_or(1.0, body_ops).max(1.0);
            let n = out_elems * window * per;
            Work {
                flops: n,
                vpu_ops: n,
                matmuls: vec![],
            }
        }
        Scatter { .. } => {
            let updates = elements(op.operands.last().and_then(|&v| tensor_of(func, v)));
            let per = op.regions.first().map_or(1.0, body_ops).max(1.0);
            Work {
                flops: updates * per,
                vpu_ops: updates * per,
                matmuls: vec![],
            }
        }
        SelectAndScatter { window } => {
            let window = window_positions(window);
            let source = elements(op.operands.get(1).and_then(|&v| tensor_of(func, v)));
            let n = source * window * 2.0;
            Work {
                flops: n,
                vpu_ops: n,
                matmuls: vec![],
            }
        }
        Sort { dimension, .. } => {
            // A bitonic network: log2(n)·(log2(n)+1)/2 compare-exchange stages per element.
            let n = result
                .and_then(|t| t.shape.get(*dimension as usize))
                .copied()
                .unwrap_or(1)
                .max(1) as f64;
            let stages = n.log2().ceil();
            let per = op.regions.first().map_or(1.0, body_ops).max(1.0) + 1.0;
            Work {
                flops: 0.0,
                vpu_ops: out_elems * stages * (stages + 1.0) / 2.0 * per,
                matmuls: vec![],
            }
        }
        Cholesky { .. } | TriangularSolve { .. } => {
            // n^3/3 (Cholesky) or n^2·m (solve) per batch, on the VPU.
            let a = op.operands.first().and_then(|&v| tensor_of(func, v));
            let n = a.and_then(|t| t.shape.last()).copied().unwrap_or(1).max(1) as f64;
            let batch = elements(a) / (n * n);
            let f = if matches!(op.kind, Cholesky { .. }) {
                batch * n * n * n / 3.0
            } else {
                out_elems * n
            };
            Work {
                flops: f,
                vpu_ops: f,
                matmuls: vec![],
            }
        }
        // JAX's linear-algebra calls (`systolic_ir::lapack`: the CPU LAPACK targets, and
        // XLA's `Qr`/`Eigh`/`LuDecomposition`/… that a TPU program holds): LAPACK's operation
        // counts, on the VPU (XLA's TPU kernels are blocked, partly on the MXU: an upper
        // bound on their time).
        CustomCall { .. } if systolic_ir::lapack::LapackCall::from_op(op).is_some() => {
            let operands: Vec<TensorType> = op
                .operands
                .iter()
                .filter_map(|&v| tensor_of(func, v).cloned())
                .collect();
            let f = match systolic_ir::lapack::LapackCall::from_op(op) {
                Some(Ok(call)) => match operands.first() {
                    Some(a) => call.with_operand_dtype(a.dtype).flops(&operands),
                    None => 0.0,
                },
                _ => 0.0,
            };
            Work {
                flops: f,
                vpu_ops: f,
                matmuls: vec![],
            }
        }
        Fft { fft_length, .. } => {
            let len: f64 = fft_length.iter().map(|&d| d.max(1) as f64).product();
            let f = 5.0 * out_elems * len.log2().max(1.0);
            Work {
                flops: f,
                vpu_ops: f,
                matmuls: vec![],
            }
        }
        BatchNormInference { .. } => elementwise(4.0),
        BatchNormTraining { .. } => elementwise(8.0),
        BatchNormGrad { .. } => elementwise(12.0),
        RngBitGenerator { .. } | Rng { .. } => {
            let out = op
                .results
                .last()
                .and_then(|&r| tensor_of(func, r))
                .map_or(0.0, |t| t.num_elements() as f64);
            Work {
                flops: 0.0,
                vpu_ops: out * RNG_VPU_OPS,
                matmuls: vec![],
            }
        }
        // Data movement and sorting networks' moves report no FLOPs (the module's convention;
        // their cost is HBM traffic), and control flow, calls and fusions are the schedule's.
        BitcastConvert
        | Constant(_)
        | Iota { .. }
        | BroadcastInDim { .. }
        | Broadcast { .. }
        | Reshape
        | Transpose { .. }
        | Slice { .. }
        | DynamicSlice { .. }
        | DynamicUpdateSlice
        | Concatenate { .. }
        | Pad { .. }
        | Reverse { .. }
        | GetDimensionSize { .. }
        | Gather { .. }
        | TopK { .. }
        | Return(_)
        | Call { .. }
        | While
        | If
        | Case
        | OptimizationBarrier
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | Composite { .. }
        | CustomCall { .. }
        | Fusion { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | Scan { .. }
        | ManualComputation(_)
        | ShardingConstraint(_) => Work::default(),
        // Communication is costed on the interconnect, not the TensorCore.
        AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. }
        | ReplicaId
        | PartitionId
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. } => Work::default(),
    }
}

/// Padded HBM bytes of the tensor values in `values`.
pub fn values_bytes(func: &Func, values: &[systolic_ir::ValueId]) -> u64 {
    values
        .iter()
        .filter_map(|&v| tensor_of(func, v))
        .map(padded_bytes)
        .sum()
}

/// True for ops that launch no kernel: constants (laid out in HBM at load time), tuples and
/// tokens, terminators, and reshapes that keep the tiled layout (a bitcast).
pub fn is_free(func: &Func, op: &Op) -> bool {
    use OpKind::*;
    match &op.kind {
        Constant(_)
        | Return(_)
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | OptimizationBarrier
        | GetDimensionSize { .. }
        | ReplicaId
        | PartitionId
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | ShardingConstraint(_) => true,
        Reshape | BitcastConvert => {
            let (Some(a), Some(b)) = (
                op.operands.first().and_then(|&v| tensor_of(func, v)),
                op.results.first().and_then(|&v| tensor_of(func, v)),
            ) else {
                return true;
            };
            a.shape.last() == b.shape.last() && padded_bytes(a) == padded_bytes(b)
        }
        Call { .. }
        | RaggedDot { .. }
        | Scan { .. }
        | Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | UniformQuantize
        | UniformDequantize
        | ReducePrecision { .. }
        | ChloUnary(_)
        | ChloBinary(_)
        | Iota { .. }
        | BroadcastInDim { .. }
        | Broadcast { .. }
        | Transpose { .. }
        | Slice { .. }
        | DynamicSlice { .. }
        | DynamicUpdateSlice
        | Concatenate { .. }
        | Pad { .. }
        | Reverse { .. }
        | Gather { .. }
        | Scatter { .. }
        | Reduce { .. }
        | ReduceWindow { .. }
        | SelectAndScatter { .. }
        | Sort { .. }
        | Map { .. }
        | DotGeneral { .. }
        | Dot { .. }
        | Convolution(_)
        | TriangularSolve { .. }
        | Cholesky { .. }
        | Fft { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | While
        | If
        | Case
        | RngBitGenerator { .. }
        | Rng { .. }
        | Composite { .. }
        | CustomCall { .. }
        | AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. }
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | TopK { .. }
        | Fusion { .. }
        | ManualComputation(_) => false,
    }
}

/// HBM bytes an op moves when it runs as a kernel of its own: its operands read once and its
/// results written once, except for the ops that touch only part of an operand (slices read
/// what they keep; in-place updates read and write only the update).
pub fn standalone_traffic(func: &Func, op: &Op) -> u64 {
    let results = values_bytes(func, &op.results);
    let operand = |i: usize| {
        op.operands
            .get(i)
            .and_then(|&v| tensor_of(func, v))
            .map_or(0, padded_bytes)
    };
    use OpKind::*;
    match &op.kind {
        Slice { .. } | DynamicSlice { .. } => 2 * results,
        Gather { .. } => 2 * results + operand(1),
        DynamicUpdateSlice => {
            let indices = values_bytes(func, op.operands.get(2..).unwrap_or(&[]));
            2 * operand(1) + indices
        }
        Scatter { .. } => {
            let n = op.operands.len();
            let updates = if n >= 3 { operand(n - 1) } else { 0 };
            let indices = if n >= 3 { operand(n / 2) } else { 0 };
            3 * updates + indices
        }
        Iota { .. } | Rng { .. } => results,
        // An identity: no kernel, no traffic.
        ShardingConstraint(_) => 0,
        // Every operand read once, every result written once.
        Return(_)
        | Call { .. }
        | Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | UniformQuantize
        | UniformDequantize
        | BitcastConvert
        | ReducePrecision { .. }
        | ChloUnary(_)
        | ChloBinary(_)
        | Constant(_)
        | BroadcastInDim { .. }
        | Broadcast { .. }
        | Reshape
        | Transpose { .. }
        | Concatenate { .. }
        | Pad { .. }
        | Reverse { .. }
        | GetDimensionSize { .. }
        | Reduce { .. }
        | ReduceWindow { .. }
        | SelectAndScatter { .. }
        | Sort { .. }
        | Map { .. }
        | DotGeneral { .. }
        | Dot { .. }
        | Convolution(_)
        | TriangularSolve { .. }
        | Cholesky { .. }
        | Fft { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | While
        | If
        | Case
        | OptimizationBarrier
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | RngBitGenerator { .. }
        | Composite { .. }
        | CustomCall { .. }
        | AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. }
        | ReplicaId
        | PartitionId
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | TopK { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | RaggedDot { .. }
        | Scan { .. }
        | Fusion { .. }
        | ManualComputation(_) => values_bytes(func, &op.operands) + results,
    }
}
