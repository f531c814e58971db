//! Planning a reduction block: producers (elementwise ops computing the reduce inputs), one or
//! more sibling `stablehlo.reduce` ops over the same dimensions, and an epilogue (elementwise
//! ops on the reduced values).
//!
//! The producers become a loop program whose last stage computes the reduce inputs in
//! registers (its stores are intercepted by the driver instead of writing memory). Two modes:
//!
//! - **rows**: the reduced dimensions are the innermost ones and the reducer is a simple one
//!   (see [`Simple`]) on f32, f64, an integer or a boolean: each row is walked contiguously in
//!   blocks and folded with vector accumulators;
//! - **slots**: everything else (outer or mixed dimensions, variadic reducers such as argmax,
//!   any region of elementwise ops, bf16/f16): the loop visits reduced dimensions outside kept
//!   ones, so a block is a run of independent accumulators ("slots") updated by the reducer
//!   region, itself compiled into a register program. This follows the interpreter's fold
//!   order exactly.

use super::reducer::{recognise, row_fold, RowFold};
use crate::buffer::{CpuBuffer, Storage};
use crate::kernels::fusion::plan::{plan, plan_ordered, BlockSpec, Unsupported};
use crate::kernels::fusion::program::{Dest, Instr, LoopProgram};
use systolic_ir::{DType, Op, OpKind, TensorType, ValueId};

/// Where an accumulator's initial value comes from.
#[derive(Clone, Debug)]
pub enum Init {
    /// A rank-0 operand of the kernel.
    Arg(usize),
    /// A constant (one element).
    Const(Storage),
}

/// How the reduction loop runs.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Contiguous rows folded by a simple reducer.
    Rows(RowFoldFn),
    /// Independent accumulators updated by the reducer region's program.
    Slots(LoopProgram),
}

/// A [`RowFold`] with a `Debug` impl.
#[derive(Clone, Copy)]
pub struct RowFoldFn(pub RowFold);

impl std::fmt::Debug for RowFoldFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RowFold")
    }
}

/// A planned reduction block.
#[derive(Clone, Debug)]
pub struct ReducePlan {
    /// Computes the reduce inputs (its last stage's stores to result i are input i).
    pub producer: LoopProgram,
    /// Rows or slots.
    pub mode: Mode,
    /// Number of kept elements (the reduce results' element count).
    pub kept: usize,
    /// Number of elements folded into each result.
    pub reduced: usize,
    /// Initial values, one per accumulator.
    pub inits: Vec<Init>,
    /// Types of the reduce results.
    pub reduce_types: Vec<TensorType>,
    /// Elementwise ops after the reduce: operands are the block's arguments followed by the
    /// reduce results; `None` when the block returns the reduce results as they are.
    pub epilogue: Option<LoopProgram>,
    /// Slots mode folds in the interpreter's tree order (windows of 32, then their partials):
    /// every reduce of the block has one input, of its accumulator's dtype. A variadic reduce
    /// (argmax's value and index) is a left fold, as in the interpreter.
    pub tree: bool,
}

type Plan<T> = Result<T, Unsupported>;

macro_rules! unsupported {
    ($($arg:tt)*) => { return Err(Unsupported(format!($($arg)*))) };
}

/// Plans a block whose ops include `stablehlo.reduce`.
pub fn plan_reduction(
    block: &BlockSpec,
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
    constant_of: &dyn Fn(ValueId) -> Option<Storage>,
) -> Plan<ReducePlan> {
    let ops: Vec<&Op> = block
        .ops
        .iter()
        .filter(|o| !matches!(o.kind, OpKind::Return(_)))
        .collect();
    let reduce_at: Vec<usize> = (0..ops.len())
        .filter(|&i| matches!(ops[i].kind, OpKind::Reduce { .. }))
        .collect();
    let (Some(&first), Some(&last)) = (reduce_at.first(), reduce_at.last()) else {
        unsupported!("no reduce in the block");
    };
    let reduces: Vec<&Op> = reduce_at.iter().map(|&i| ops[i]).collect();
    let OpKind::Reduce { dimensions } = &reduces[0].kind else {
        unsupported!("no reduce in the block");
    };
    let mut inputs: Vec<ValueId> = vec![];
    let mut init_values: Vec<ValueId> = vec![];
    let mut results: Vec<ValueId> = vec![];
    for r in &reduces {
        if !matches!(&r.kind, OpKind::Reduce { dimensions: d } if d == dimensions) {
            unsupported!("sibling reduces over different dimensions");
        }
        let n = r.operands.len() / 2;
        if n == 0 || r.operands.len() != 2 * n || r.results.len() != n || r.regions.len() != 1 {
            unsupported!("a reduce with {} operands", r.operands.len());
        }
        inputs.extend_from_slice(&r.operands[..n]);
        init_values.extend_from_slice(&r.operands[n..]);
        results.extend_from_slice(&r.results);
    }
    let producer_ops: Vec<Op> = ops[..last]
        .iter()
        .enumerate()
        .filter(|(i, _)| !reduce_at.contains(i))
        .map(|(_, o)| (*o).clone())
        .collect();
    if ops[first..last].iter().any(|o| {
        !matches!(o.kind, OpKind::Reduce { .. }) && o.results.iter().any(|r| results.contains(r))
    }) {
        unsupported!("ops between sibling reduces use their results");
    }
    let input_ty = type_of(inputs[0]).ok_or_else(|| Unsupported("reduce input type".into()))?;
    let rank = input_ty.shape.len();
    let mut reduced_dims: Vec<usize> = vec![];
    for &d in dimensions {
        match usize::try_from(d) {
            Ok(d) if d < rank && !reduced_dims.contains(&d) => reduced_dims.push(d),
            _ => unsupported!("reduce dimension {d} of {input_ty}"),
        }
    }
    reduced_dims.sort_unstable();
    let kept_dims: Vec<usize> = (0..rank).filter(|d| !reduced_dims.contains(d)).collect();
    let size = |dims: &[usize]| -> usize {
        dims.iter()
            .map(|&d| input_ty.shape[d].max(0) as usize)
            .product()
    };
    let (kept, reduced) = (size(&kept_dims), size(&reduced_dims));
    for &v in &inputs {
        if type_of(v).map(|t| t.shape) != Some(input_ty.shape.clone()) {
            unsupported!("reduce inputs of different shapes");
        }
    }

    let mut inits = Vec::with_capacity(init_values.len());
    for &v in &init_values {
        if let Some(i) = block.args.iter().position(|&a| a == v) {
            inits.push(Init::Arg(i));
        } else if let Some(s) = constant_of(v) {
            inits.push(Init::Const(s));
        } else {
            unsupported!("a reduce init value that is neither an operand nor a constant");
        }
    }
    let acc_dtypes: Vec<DType> = results
        .iter()
        .map(|&r| type_of(r).map(|t| t.dtype))
        .collect::<Option<_>>()
        .ok_or_else(|| Unsupported("reduce result types".into()))?;
    let reduce_types: Vec<TensorType> = results
        .iter()
        .map(|&r| type_of(r))
        .collect::<Option<_>>()
        .ok_or_else(|| Unsupported("reduce result types".into()))?;

    // Rows mode: one input, a simple reducer, reduced dimensions innermost.
    let innermost = reduced_dims
        .iter()
        .enumerate()
        .all(|(k, &d)| d == rank - reduced_dims.len() + k)
        || kept_dims.iter().all(|&d| input_ty.shape[d] == 1);
    let simple = (reduces.len() == 1 && inputs.len() == 1)
        .then(|| recognise(&reduces[0].regions[0]))
        .flatten()
        .and_then(|s| row_fold(s, acc_dtypes[0]));
    let producer_spec = BlockSpec {
        args: block.args,
        ops: &producer_ops,
        results: &inputs,
    };
    let (producer, mode) = match simple {
        Some(fold) if innermost && reduced > 1 => {
            (plan(&producer_spec, type_of)?, Mode::Rows(RowFoldFn(fold)))
        }
        _ => {
            let order: Vec<usize> = reduced_dims.iter().chain(&kept_dims).copied().collect();
            let producer = plan_ordered(&producer_spec, type_of, Some(&order))?;
            (producer, Mode::Slots(reducer_program(&reduces, type_of)?))
        }
    };
    check_last_stage(&producer, inputs.len())?;

    let epilogue = if block.results == results.as_slice() {
        None
    } else {
        let mut args: Vec<ValueId> = block.args.to_vec();
        args.extend_from_slice(&results);
        let epilogue_ops: Vec<Op> = ops[last + 1..].iter().map(|o| (*o).clone()).collect();
        let spec = BlockSpec {
            args: &args,
            ops: &epilogue_ops,
            results: block.results,
        };
        Some(plan(&spec, type_of)?)
    };
    let tree = reduces.iter().all(|r| r.operands.len() == 2)
        && inputs
            .iter()
            .zip(&acc_dtypes)
            .all(|(&x, &d)| type_of(x).is_some_and(|t| t.dtype == d));
    Ok(ReducePlan {
        producer,
        mode,
        kept,
        reduced,
        inits,
        reduce_types,
        epilogue,
        tree,
    })
}

/// The reducer regions of sibling reduces as one register program: arguments are every
/// accumulator then every input (in the order of the reduces), results every new accumulator.
fn reducer_program(
    reduces: &[&Op],
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
) -> Plan<LoopProgram> {
    let mut accs = vec![];
    let mut xs = vec![];
    let mut ops = vec![];
    let mut results = vec![];
    for r in reduces {
        let Some(body) = r.regions[0].entry() else {
            unsupported!("a reduce without a body");
        };
        let n = r.results.len();
        if body.args.len() != 2 * n {
            unsupported!("a reducer with {} arguments", body.args.len());
        }
        accs.extend_from_slice(&body.args[..n]);
        xs.extend_from_slice(&body.args[n..]);
        let Some((ret, rest)) = body.ops.split_last() else {
            unsupported!("an empty reducer");
        };
        if !matches!(ret.kind, OpKind::Return(_)) || ret.operands.len() != n {
            unsupported!("a reducer that does not return {n} values");
        }
        ops.extend(rest.iter().cloned());
        results.extend_from_slice(&ret.operands);
    }
    let mut args = accs;
    args.extend(xs);
    let spec = BlockSpec {
        args: &args,
        ops: &ops,
        results: &results,
    };
    let program = plan(&spec, type_of)?;
    if program.stages.len() > 1 || program.stages.iter().any(|s| !s.dims.is_empty()) {
        unsupported!("a reducer region that is not a scalar computation");
    }
    Ok(program)
}

/// The driver reads the reduce inputs from the last stage's stores: every store to a result
/// must be there.
fn check_last_stage(producer: &LoopProgram, inputs: usize) -> Plan<()> {
    let Some((last, earlier)) = producer.stages.split_last() else {
        unsupported!("no producer stage");
    };
    let stores_result = |i: &Instr| {
        matches!(
            i,
            Instr::Store {
                dest: Dest::Output(_),
                ..
            }
        )
    };
    if earlier.iter().any(|s| s.body.iter().any(stores_result))
        || last.body.iter().filter(|i| stores_result(i)).count() != inputs
    {
        unsupported!("reduce inputs computed in several stages");
    }
    Ok(())
}

/// A constant's single element, for reduce init values (None unless rank 0 or splat).
pub fn scalar_constant(t: &systolic_ir::Tensor) -> Option<Storage> {
    if t.num_elements() != 1 {
        return None;
    }
    let (_, storage) = CpuBuffer::from_tensor(t).into_parts();
    Some(storage)
}
