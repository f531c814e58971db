//! Scalar regions (the update computation of a scatter, the body of a reduce_window) run as
//! vector programs over batches of independent calls.
//!
//! A region of rank-0 ops is compiled by the loop compiler ([`crate::kernels::fusion`]) as if
//! every value were a vector of [`WIDTH`] lanes: lane `i` of the program's arguments holds the
//! arguments of call `i`, lane `i` of its results that call's results. The kernels that own the
//! region gather a batch of calls whose arguments do not depend on each other (distinct scatter
//! targets, distinct windows) into the argument vectors, run the program once, and scatter the
//! results back. The registers and argument vectors live in a [`Scratch`] made once per run, so
//! nothing is allocated per call. Arithmetic is the loop compiler's, which is the interpreter's
//! per dtype (sub-byte integers wrap, bf16/f16 round after each op, denormals flush).

use crate::buffer::{CpuBuffer, Storage};
use crate::kernels::fusion::access::SharedDest;
use crate::kernels::fusion::exec::{step, Env};
use crate::kernels::fusion::plan::{plan, BlockSpec};
use crate::kernels::fusion::program::{Dest, Instr, LoopProgram};
use crate::kernels::fusion::reg::Reg;
use crate::lower_ctx::captures::region_captures;
use std::collections::HashMap;
use systolic_ir::{DType, Func, Op, OpKind, Region, Tensor, TensorType, Type, ValueId};

/// Calls evaluated by one run of a region program (more than one: a loop over one element is
/// planned with no loop dimension at all).
pub const WIDTH: usize = 256;

/// A region compiled for batches of up to [`WIDTH`] calls.
#[derive(Debug)]
pub struct RegionProgram {
    program: LoopProgram,
    /// The dtypes of the region's arguments.
    pub arg_dtypes: Vec<DType>,
    /// The dtypes of its results.
    pub result_dtypes: Vec<DType>,
}

/// The argument and result vectors and the registers of runs of one [`RegionProgram`].
pub struct Scratch {
    /// One vector of [`WIDTH`] lanes per region argument (lane `i`: call `i`'s argument).
    pub args: Vec<CpuBuffer>,
    /// One vector per region result.
    pub outs: Vec<Storage>,
    regs: Vec<Reg>,
}

impl RegionProgram {
    /// Compiles the single-block region `region` of an op of `func`, or `None` when it is not
    /// a function of rank-0 tensors that the loop compiler covers (or reads outer values).
    pub fn compile(region: &Region, func: &Func) -> Option<RegionProgram> {
        let [block] = region.blocks.as_slice() else {
            return None;
        };
        let ret = block.ops.last()?;
        if !matches!(ret.kind, OpKind::Return(_)) || !region_captures(region).is_empty() {
            return None;
        }
        let scalar = |v: ValueId| match func.value_type(v) {
            Type::Tensor(t) if t.shape.is_empty() => Some(t.dtype),
            _ => None,
        };
        let arg_dtypes: Vec<DType> = block
            .args
            .iter()
            .map(|&v| scalar(v))
            .collect::<Option<_>>()?;
        let result_dtypes: Vec<DType> = ret
            .operands
            .iter()
            .map(|&v| scalar(v))
            .collect::<Option<_>>()?;
        // Constants become splats over the lanes; every other op keeps its operands.
        let mut ops: Vec<Op> = Vec::with_capacity(block.ops.len());
        for op in &block.ops[..block.ops.len() - 1] {
            if !op.regions.is_empty() {
                return None;
            }
            let mut op = op.clone();
            if let OpKind::Constant(t) = &op.kind {
                if !t.shape().is_empty() || t.num_elements() != 1 {
                    return None;
                }
                let ty = TensorType::new(vec![WIDTH as i64], t.dtype());
                op.kind = OpKind::Constant(Tensor::splat(ty, t.get(0)).ok()?);
            }
            ops.push(op);
        }
        let mut types: HashMap<ValueId, TensorType> = HashMap::new();
        let mut note = |v: ValueId| -> Option<()> {
            let dtype = scalar(v)?;
            types.insert(v, TensorType::new(vec![WIDTH as i64], dtype));
            Some(())
        };
        for &a in &block.args {
            note(a)?;
        }
        for op in &ops {
            for &v in op.operands.iter().chain(&op.results) {
                note(v)?;
            }
        }
        let spec = BlockSpec {
            args: &block.args,
            ops: &ops,
            results: &ret.operands,
        };
        let program = plan(&spec, &|v| types.get(&v).cloned()).ok()?;
        let [stage] = program.stages.as_slice() else {
            return None;
        };
        let plain = program.temp_types.is_empty()
            && stage.len == WIDTH
            && stage.dims == [WIDTH]
            && stage.body.iter().all(|i| match i {
                Instr::Load { .. } | Instr::Apply { .. } => true,
                Instr::Store { dest, .. } => matches!(dest, Dest::Output(_)),
                Instr::Fold { .. } => false,
            });
        plain.then_some(RegionProgram {
            program,
            arg_dtypes,
            result_dtypes,
        })
    }

    /// Fresh vectors and registers (the constants loaded once).
    pub fn scratch(&self) -> Scratch {
        let stage = &self.program.stages[0];
        let args: Vec<CpuBuffer> = self
            .arg_dtypes
            .iter()
            .map(|&d| CpuBuffer::zeros(TensorType::new(vec![WIDTH as i64], d)))
            .collect();
        let outs = self
            .result_dtypes
            .iter()
            .map(|&d| Storage::zeros(d, WIDTH))
            .collect();
        let mut regs: Vec<Reg> = stage.regs.iter().map(|&l| Reg::new(l, WIDTH)).collect();
        {
            let refs: Vec<&CpuBuffer> = args.iter().collect();
            let env = Env::reading(&self.program, &refs, &[]);
            for instr in &stage.prologue {
                step(stage, &env, instr, &mut regs, 0, WIDTH);
            }
        }
        Scratch { args, outs, regs }
    }

    /// Runs calls `0..n` (`n ≤ WIDTH`) on the argument vectors of `s`, writing `s.outs`.
    pub fn run(&self, s: &mut Scratch, n: usize) {
        debug_assert!(n <= WIDTH);
        if n == 0 {
            return;
        }
        let stage = &self.program.stages[0];
        let Scratch { args, outs, regs } = s;
        let mut small: [&CpuBuffer; 8] = [&args[0]; 8];
        let large: Vec<&CpuBuffer>;
        let refs: &[&CpuBuffer] = if args.len() <= small.len() {
            for (r, a) in small.iter_mut().zip(args.iter()) {
                *r = a;
            }
            &small[..args.len()]
        } else {
            large = args.iter().collect();
            &large
        };
        let env = Env::reading(&self.program, refs, &[]);
        for instr in &stage.body {
            match instr {
                Instr::Store {
                    src,
                    dtype,
                    dest: Dest::Output(k),
                } => {
                    let dest = SharedDest::new(&mut outs[*k], *dtype);
                    // SAFETY: `outs[k]` holds WIDTH ≥ n elements of `dtype` and is borrowed
                    // mutably here, by this thread only.
                    unsafe { dest.store(&regs[*src], 0, n) }
                }
                other => step(stage, &env, other, regs, 0, n),
            }
        }
    }
}

/// Copies `src[from(i)]` to `dst[i]` for `i` in `0..n`, or `init[0]` where `from` gives `None`
/// (both storages of one type; a mismatch is a planning bug and panics).
pub fn gather_into(
    dst: &mut Storage,
    src: &Storage,
    init: Option<&Storage>,
    n: usize,
    from: impl Fn(usize) -> Option<usize>,
) {
    macro_rules! go {
        ($($v:ident),*) => {
            match (dst, src) {
                $((Storage::$v(d), Storage::$v(s)) => {
                    let fill = match init {
                        Some(Storage::$v(i)) => i.first().copied(),
                        _ => None,
                    };
                    for (i, x) in d[..n].iter_mut().enumerate() {
                        match from(i) {
                            Some(p) => *x = s[p],
                            None => *x = fill.expect("an init value for the holes"),
                        }
                    }
                })*
                _ => panic!("region gather between storages of different types"),
            }
        };
    }
    go!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64)
}

/// Copies `src[i]` to `dst[to(i)]` for `i` in `0..n` (both storages of one type).
pub fn scatter_from(dst: &mut Storage, src: &Storage, n: usize, to: impl Fn(usize) -> usize) {
    macro_rules! go {
        ($($v:ident),*) => {
            match (dst, src) {
                $((Storage::$v(d), Storage::$v(s)) => {
                    for (i, &x) in s[..n].iter().enumerate() {
                        d[to(i)] = x;
                    }
                })*
                _ => panic!("region scatter between storages of different types"),
            }
        };
    }
    go!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64)
}
