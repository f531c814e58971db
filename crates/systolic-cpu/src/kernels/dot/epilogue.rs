//! Product fusions with their epilogue as one fused loop: the product (`dot_general`, `dot` or
//! `convolution`) runs on its kernel, and every other op of the fusion (bias add through a
//! broadcast, activation, residual adds, converts) is compiled by the loop compiler
//! ([`crate::kernels::fusion`]) into one register program whose first operand is the product's
//! result — one pass over the result instead of one pass per op.
//!
//! When that program is a single loop reading the product's result element for element (the
//! usual epilogue), it runs straight over the result ranges, spread over the pool, writing the
//! results into recycled storage without a zero-fill pass; otherwise through the loop
//! executor. (Interleaving the two — the epilogue over each block of rows right after the
//! product wrote it — was measured on the f32 `gemm` route: row blocks small enough to stay
//! in L2 cost 10–45% more multiply time than one parallel `gemm` call, more than a second
//! pass over the result costs.)
//!
//! The results are those of the ops run one by one: the loop compiler runs the same
//! elementwise bodies, and the product's result is materialised in its own dtype first.

use crate::buffer::{CpuBuffer, Storage};
use crate::cpu_bail;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::fusion::access::{fence_streams, SharedDest};
use crate::kernels::fusion::exec::{self, step, Env, BLOCK, PARALLEL_MIN};
use crate::kernels::fusion::plan::{plan, BlockSpec};
use crate::kernels::fusion::program::{Dest, Instr, LoopProgram, Source, Stage};
use crate::kernels::fusion::reg::Reg;
use crate::lower_ctx::LowerCtx;
use rayon::prelude::*;
use systolic_ir::{Op, OpKind};

/// A product fusion: the product's kernel, then the epilogue as one loop program.
#[derive(Debug)]
pub struct EpilogueKernel {
    name: String,
    /// The product's kernel.
    anchor: Box<dyn Kernel>,
    /// For each operand of the product: which operand of the fusion it is.
    anchor_operands: Vec<usize>,
    /// The epilogue: operand 0 is the product's result, then the fusion's operands.
    program: LoopProgram,
    /// The epilogue is one loop over the product's result, reading it element for element.
    ranged: bool,
}

/// Lowers a product fusion whose ops other than the product all have a loop form; `Ok(None)`
/// when it is not such a fusion (the caller then tries the step-by-step kernel).
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let Some(super::ProductFusion {
        name,
        block,
        body,
        ret,
    }) = super::product_fusion(op)
    else {
        return Ok(None);
    };
    let is_product = |o: &Op| {
        matches!(
            o.kind,
            OpKind::DotGeneral { .. } | OpKind::Dot { .. } | OpKind::Convolution(_)
        )
    };
    let mut anchors = body.iter().enumerate().filter(|(_, o)| is_product(o));
    let (Some((at, anchor)), None) = (anchors.next(), anchors.next()) else {
        return Ok(None);
    };
    let [result] = anchor.results.as_slice() else {
        return Ok(None);
    };
    let Some(anchor_operands) = anchor
        .operands
        .iter()
        .map(|v| block.args.iter().position(|a| a == v))
        .collect::<Option<Vec<usize>>>()
    else {
        return Ok(None);
    };
    let Some(anchor_kernel) = crate::kernels::lower_native(anchor, ctx)? else {
        return Ok(None);
    };
    let len = ctx.tensor_type(*result)?.num_elements();
    let mut args = Vec::with_capacity(block.args.len() + 1);
    args.push(*result);
    args.extend(block.args.iter().copied());
    let ops: Vec<Op> = body
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != at)
        .map(|(_, o)| o.clone())
        .collect();
    let spec = BlockSpec {
        args: &args,
        ops: &ops,
        results: &ret.operands,
    };
    let Ok(program) = plan(&spec, &|v| ctx.tensor_type(v).ok().cloned()) else {
        return Ok(None);
    };
    let ranged = is_ranged(&program, len);
    Ok(Some(Box::new(EpilogueKernel {
        name: format!("{name} (product)"),
        anchor: anchor_kernel,
        anchor_operands,
        program,
        ranged,
    })))
}

/// True when `program` is one loop over `len` elements with no temporaries, storing every
/// result, and reading operand 0 (the product's result) only at each element's own position.
fn is_ranged(program: &LoopProgram, len: usize) -> bool {
    let [stage] = program.stages.as_slice() else {
        return false;
    };
    if len == 0
        || stage.len != len
        || !program.temp_types.is_empty()
        || program.result_types.iter().any(|t| t.num_elements() != len)
    {
        return false;
    }
    let reads_product =
        |i: &Instr| matches!(i, Instr::Load { access, .. } if access.source == Source::Arg(0));
    if stage.prologue.iter().any(reads_product) {
        return false;
    }
    let mut stored = vec![false; program.result_types.len()];
    let dense = row_major(&stage.dims);
    for instr in &stage.body {
        match instr {
            Instr::Load { access, .. } if access.source == Source::Arg(0) => {
                let identity = access.offset == 0
                    && access.strides.len() == stage.dims.len()
                    && stage
                        .dims
                        .iter()
                        .zip(access.strides.iter().zip(&dense))
                        .all(|(&d, (&s, &want))| d == 1 || s == want);
                if !identity {
                    return false;
                }
            }
            Instr::Store {
                dest: Dest::Output(i),
                ..
            } => match stored.get_mut(*i) {
                Some(s) => *s = true,
                None => return false,
            },
            Instr::Store {
                dest: Dest::Temp(_),
                ..
            } => return false,
            _ => {}
        }
    }
    stored.iter().all(|&s| s)
}

/// Row-major strides of `dims`.
fn row_major(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    strides
}

impl Kernel for EpilogueKernel {
    fn name(&self) -> String {
        format!("{}: {}; fused epilogue", self.name, self.anchor.name())
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let fusion_args = self.program.arg_types.len() - 1;
        if args.len() != fusion_args {
            cpu_bail!(
                "{} takes {fusion_args} operands, got {}",
                self.name,
                args.len()
            );
        }
        let results = {
            let buffers: Vec<&CpuBuffer> = args.iter().map(Arg::buffer).collect();
            self.run_after(&buffers)?
        };
        Ok(results)
    }
}

impl EpilogueKernel {
    /// The product whole, then the epilogue over its result.
    fn run_after(&self, buffers: &[&CpuBuffer]) -> Result<Vec<CpuBuffer>> {
        let operands = self
            .anchor_operands
            .iter()
            .map(|&i| Arg::Borrowed(buffers[i]))
            .collect();
        let product = self.anchor.run(operands)?;
        let [product] = <[CpuBuffer; 1]>::try_from(product).map_err(|v| {
            CpuError::new(format!(
                "{}: the product gave {} results, expected 1",
                self.name,
                v.len()
            ))
        })?;
        let mut all = Vec::with_capacity(buffers.len() + 1);
        all.push(&product);
        all.extend_from_slice(buffers);
        let results = if self.ranged {
            exec::check_args(&self.program, &all)?;
            let mut outputs = self.outputs();
            let dests = dests(&self.program, &mut outputs);
            let env = Env::reading(&self.program, &all, &[]);
            let stage = &self.program.stages[0];
            run_parallel(stage.len, &|start, end| {
                run_range(stage, &env, &dests, start, end)
            });
            drop(dests);
            self.wrap(outputs)?
        } else {
            exec::run(&self.program, &all)?
        };
        crate::pool::recycle(product.into_parts().1);
        Ok(results)
    }

    /// Storage for every result (each element is stored by the loop).
    fn outputs(&self) -> Vec<Storage> {
        self.program
            .result_types
            .iter()
            .map(|t| crate::pool::take(t.dtype, t.num_elements()))
            .collect()
    }

    fn wrap(&self, outputs: Vec<Storage>) -> Result<Vec<CpuBuffer>> {
        outputs
            .into_iter()
            .zip(&self.program.result_types)
            .map(|(s, t)| {
                CpuBuffer::new(t.clone(), s)
                    .map_err(|e| CpuError::new(format!("{}: {e}", self.name)))
            })
            .collect()
    }
}

/// The results as destinations shared by the workers.
fn dests(program: &LoopProgram, outputs: &mut [Storage]) -> Vec<SharedDest> {
    outputs
        .iter_mut()
        .zip(&program.result_types)
        .map(|(s, t)| SharedDest::streaming(s, t.dtype))
        .collect()
}

/// Runs `f` over `[0, len)` in ranges spread over the pool when `len` is large.
fn run_parallel(len: usize, f: &(dyn Fn(usize, usize) + Sync)) {
    let threads = rayon::current_num_threads();
    if len < PARALLEL_MIN || threads < 2 {
        f(0, len);
        return;
    }
    let blocks = len.div_ceil(BLOCK);
    let tasks = (threads * 4).min(blocks);
    let per_task = blocks.div_ceil(tasks) * BLOCK;
    (0..len.div_ceil(per_task)).into_par_iter().for_each(|t| {
        let start = t * per_task;
        f(start, (start + per_task).min(len))
    });
}

/// Runs the epilogue's one stage over `[start, end)` on this thread, storing into `dests`.
fn run_range(stage: &Stage, env: &Env, dests: &[SharedDest], start: usize, end: usize) {
    if start >= end {
        return;
    }
    let width = BLOCK.min(end - start);
    let mut regs: Vec<Reg> = stage.regs.iter().map(|&l| Reg::new(l, width)).collect();
    for instr in &stage.prologue {
        step(stage, env, instr, &mut regs, 0, width);
    }
    let mut at = start;
    while at < end {
        let n = BLOCK.min(end - at);
        for instr in &stage.body {
            match instr {
                Instr::Store { src, dest, .. } => {
                    let Dest::Output(i) = dest else {
                        unreachable!("a ranged epilogue has no temporaries")
                    };
                    // SAFETY: this worker owns `[at, at + n)` of every result, whose length
                    // is the stage's element count (checked when lowering).
                    unsafe { dests[*i].store(&regs[*src], at, n) }
                }
                _ => step(stage, env, instr, &mut regs, at, n),
            }
        }
        at += n;
    }
    fence_streams();
}
