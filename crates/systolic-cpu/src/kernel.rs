//! The kernel interface: what one compiled op (or fusion of ops) is at run time.
//!
//! Lowering turns each op of the optimised entry function into a [`Kernel`], preparing at
//! compile time everything that does not depend on the data (strides, loop plans, gemm
//! parameters), so that running is only arithmetic. The executor hands a kernel its operands as
//! [`Arg`]s: an operand whose value dies at this op is passed [`Arg::Owned`], so the kernel may
//! write its result into that storage (in-place update) instead of allocating.

use crate::buffer::CpuBuffer;
use crate::error::Result;
use std::fmt::Debug;

/// One operand of a kernel.
#[derive(Debug)]
pub enum Arg<'a> {
    /// The value lives on after this kernel: read only.
    Borrowed(&'a CpuBuffer),
    /// This is the value's last use: the kernel may reuse its storage.
    Owned(CpuBuffer),
}

impl<'a> Arg<'a> {
    /// The buffer, read only.
    pub fn buffer(&self) -> &CpuBuffer {
        match self {
            Arg::Borrowed(b) => b,
            Arg::Owned(b) => b,
        }
    }

    /// The buffer, writable, when this is its last use (owned); `None` when borrowed.
    pub fn owned_mut(&mut self) -> Option<&mut CpuBuffer> {
        match self {
            Arg::Borrowed(_) => None,
            Arg::Owned(b) => Some(b),
        }
    }

    /// The buffer by value: moved when owned, copied when borrowed.
    pub fn into_owned(self) -> CpuBuffer {
        match self.take() {
            Ok(b) => b,
            Err(b) => b.clone(),
        }
    }

    /// The buffer when it may be reused, else `None`.
    pub fn into_reusable(self) -> Option<CpuBuffer> {
        self.take().ok()
    }

    /// The owned buffer moved out, or the borrowed one; `self` is not dropped (its drop would
    /// recycle what is moved out).
    fn take(self) -> std::result::Result<CpuBuffer, &'a CpuBuffer> {
        let this = std::mem::ManuallyDrop::new(self);
        match &*this {
            Arg::Borrowed(b) => Err(*b),
            // SAFETY: `this` is never dropped, so the buffer is read out exactly once and
            // owned by the caller alone.
            Arg::Owned(b) => Ok(unsafe { std::ptr::read(b) }),
        }
    }
}

/// An owned operand that a kernel neither reused nor handed back goes to the storage pool, as
/// the executor's dying values do: a kernel that simply drops its operands would otherwise
/// free them, and the next run would allocate and fault in fresh memory for them (an MLP
/// training step whose bias-gradient reduce was the last reader of a 1024² gradient took
/// ~300 more page faults per run, 1.5 ms).
impl Drop for Arg<'_> {
    fn drop(&mut self) {
        if let Arg::Owned(b) = self {
            crate::pool::recycle(b.take_storage());
        }
    }
}

/// A compiled op, ready to run.
pub trait Kernel: Send + Sync + Debug {
    /// A short description for logs and profiles (`dot_general f32[1024,784]x[784,1024]`).
    fn name(&self) -> String;

    /// Runs on the operands and returns the results, in the op's order and declared types.
    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>>;

    /// True for a kernel that waits for other processes (a collective of an SPMD set,
    /// [`crate::kernels::collective`]): the scheduler never moves it or pairs it with another
    /// step, and an SPMD execution runs it on the process's own thread, never on the pool.
    fn is_collective(&self) -> bool {
        false
    }

    /// True for a kernel with an effect outside its results (a host callback,
    /// [`crate::kernels::host_callback`]): the scheduler keeps it in program order and never
    /// runs it beside another step.
    fn has_side_effect(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool;
    use systolic_ir::{DType, TensorType};

    fn owned(n: usize) -> Arg<'static> {
        Arg::Owned(CpuBuffer::zeros(TensorType::new(
            vec![n as i64],
            DType::F32,
        )))
    }

    #[test]
    fn an_owned_operand_dropped_by_a_kernel_goes_back_to_the_pool() {
        // Lengths no other test uses (the pool is the process's).
        let n = 70_001;
        let before = pool::pooled(DType::F32, n);
        drop(owned(n));
        assert_eq!(pool::pooled(DType::F32, n), before + 1);
        // Taken by the kernel (moved into a result), it is not recycled as well.
        let m = 70_003;
        let kept = owned(m).into_owned();
        assert_eq!(pool::pooled(DType::F32, m), 0);
        assert_eq!(kept.ty().num_elements(), m);
        let reused = owned(m).into_reusable();
        assert!(reused.is_some());
        assert_eq!(pool::pooled(DType::F32, m), 0);
        // A borrowed operand is the caller's.
        let b = CpuBuffer::zeros(TensorType::new(vec![m as i64], DType::F32));
        drop(Arg::Borrowed(&b));
        assert_eq!(pool::pooled(DType::F32, m), 0);
        assert_eq!(b.ty().num_elements(), m);
    }
}
