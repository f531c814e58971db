//! The trace context: a thread-local stack of traces, as in JAX's autodidax. While a trace is
//! on the stack every op is staged into it (omnistaging) instead of running, so one user
//! function runs eagerly on concrete arrays and symbolically under [`jit`](crate::jit).
//!
//! A trace owns the function being built; traced arrays name their trace by id and their value
//! by `ValueId`, so a traced array used after its trace ended is reported, not misread.

use crate::array::Array;
use crate::core::body::Body;
use crate::error::{Error, Result};
use crate::transforms::shard_map::axis_env as vma;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use systolic_ir::{Func, Op, OpKind, Tensor, TensorType, Type, ValueId};
use systolic_runtime::Device;

/// A function under construction.
pub(crate) struct Trace {
    pub(crate) id: u64,
    pub(crate) func: Func,
    pub(crate) params: Vec<ValueId>,
    pub(crate) ops: Vec<Op>,
    pub(crate) device: Device,
    /// Ids of the traces this one is nested in (outermost first): their arrays may be used
    /// here, and become [`Trace::captures`].
    pub(crate) outer: Vec<u64>,
    /// Arrays from outside the function (an enclosing trace's values, or concrete arrays when
    /// [`Trace::capture_concrete`] is set) that the function reads, with the parameter each
    /// became. They follow the ordinary parameters in the finished function.
    pub(crate) captures: Vec<(ValueId, Array)>,
    /// Whether concrete arrays read by the function (other than small ones) become parameters
    /// rather than constants: a compiled function then takes them as arguments instead of
    /// carrying their data in its text.
    pub(crate) capture_concrete: bool,
}

/// Concrete arrays up to this many elements are staged as constants even when captures are on:
/// constants that small help folding and cost nothing to carry.
pub(crate) const SMALL_CONSTANT_ELEMENTS: usize = 16;

thread_local! {
    static STACK: RefCell<Vec<Trace>> = const { RefCell::new(Vec::new()) };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Pushes a new trace for a function called `name` on `device`; returns its id.
pub(crate) fn push(name: &str, device: Device) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        let outer = s.iter().map(|t| t.id).collect();
        s.push(Trace {
            id,
            func: Func::new(name),
            params: vec![],
            ops: vec![],
            device,
            outer,
            captures: vec![],
            capture_concrete: false,
        })
    });
    id
}

/// Pops the top trace (which must be `id`).
pub(crate) fn pop(id: u64) -> Option<Trace> {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        if s.last().map(|t| t.id) == Some(id) {
            s.pop()
        } else {
            None
        }
    })
}

/// The id and device of the innermost trace, if any is active.
pub(crate) fn current() -> Option<(u64, Device)> {
    STACK.with(|s| s.borrow().last().map(|t| (t.id, t.device)))
}

/// Runs `f` on the innermost trace, which must be `id`.
pub(crate) fn with_trace<R>(id: u64, f: impl FnOnce(&mut Trace) -> Result<R>) -> Result<R> {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        match s.last_mut() {
            Some(t) if t.id == id => f(t),
            _ => Err(Error::Trace(
                "a traced array was used outside the jit trace that made it (did it escape \
                 through a closure or a global?)"
                    .into(),
            )),
        }
    })
}

impl Trace {
    /// Adds a parameter of type `ty`.
    pub(crate) fn param(&mut self, ty: &TensorType) -> ValueId {
        let v = self.func.new_value(Type::Tensor(ty.clone()), None);
        self.params.push(v);
        v
    }

    /// The parameter standing for `a`, an array from outside this function; made on first use.
    pub(crate) fn capture(&mut self, a: &Array) -> ValueId {
        if let Some((v, _)) = self
            .captures
            .iter()
            .find(|(_, c)| std::sync::Arc::ptr_eq(&c.inner, &a.inner))
        {
            return *v;
        }
        let v = self.func.new_value(Type::Tensor(a.aval().clone()), None);
        self.captures.push((v, a.clone()));
        vma::inherit(self.id, v, a);
        v
    }

    /// Stages one op; returns its result values.
    pub(crate) fn stage(
        &mut self,
        kind: OpKind,
        mut operands: Vec<ValueId>,
        bodies: &[Body],
        results: &[TensorType],
    ) -> Vec<ValueId> {
        vma::before_stage(self, &kind, &mut operands);
        let outs: Vec<ValueId> = results
            .iter()
            .map(|t| self.func.new_value(Type::Tensor(t.clone()), None))
            .collect();
        let regions = bodies.iter().map(|b| b.build(&mut self.func)).collect();
        vma::after_stage(self.id, &kind, &operands, &outs);
        let loc = super::scope::location(&kind);
        let mut op = Op::new(kind, operands, outs.clone());
        op.regions = regions;
        op.loc = loc;
        self.ops.push(op);
        outs
    }

    /// Stages a constant holding `tensor`.
    pub(crate) fn constant(&mut self, tensor: Tensor) -> ValueId {
        let ty = tensor.ty().clone();
        self.stage(OpKind::Constant(tensor), vec![], &[], &[ty])[0]
    }
}
