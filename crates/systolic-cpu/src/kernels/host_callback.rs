//! `systolic.host_callback` ([`systolic_ir::host_callback`]) as a kernel: the operands copied
//! to exact host tensors, the registered closure called, its results copied back. The copy is
//! what a device→host transfer is on a real accelerator; for the prints and checks callbacks
//! are used for it is small.
//!
//! The kernel has a side effect ([`Kernel::has_side_effect`]), so the scheduler keeps it in
//! program order and never runs it beside another step: two callbacks run in the order the
//! program has them, once per execution of their block.

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::lower_ctx::LowerCtx;
use systolic_ir::host_callback::{callback_id, callback_name, invoke, is_host_callback};
use systolic_ir::{Op, OpKind, Type};

/// A kernel for `op` when it is a host callback; `None` for any other op. A callback whose
/// `backend_config` holds no number is an error here; one whose number is not registered is an
/// error when it runs (it may be registered by then).
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    if !is_host_callback(&op.kind) {
        return Ok(None);
    }
    if let Some(Err(e)) = callback_id(&op.kind) {
        return Err(CpuError::new(e));
    }
    let result_types = ctx
        .result_types(op)?
        .into_iter()
        .cloned()
        .map(Type::Tensor)
        .collect();
    Ok(Some(Box::new(HostCallbackKernel {
        kind: op.kind.clone(),
        result_types,
    })))
}

/// A compiled host callback.
#[derive(Debug)]
pub struct HostCallbackKernel {
    kind: OpKind,
    result_types: Vec<Type>,
}

impl Kernel for HostCallbackKernel {
    fn name(&self) -> String {
        format!("host_callback {}", callback_name(&self.kind))
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let tensors: Vec<_> = args.iter().map(|a| a.buffer().to_tensor()).collect();
        let results = invoke(&self.kind, &tensors, &self.result_types).map_err(CpuError::new)?;
        Ok(results.iter().map(CpuBuffer::from_tensor).collect())
    }

    fn has_side_effect(&self) -> bool {
        true
    }
}
