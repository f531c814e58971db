//! Rematerialisation policies for [`checkpoint`](crate::checkpoint) (JAX's
//! `jax.checkpoint_policies`) and [`checkpoint_name`].
//!
//! A checkpointed function's ops are marked for recomputation in the backward sweep
//! (`systolic_autodiff::REMAT_ATTR`). A policy leaves some of them unmarked: those are
//! computed once in the forward sweep and their results saved (they become inputs of the
//! recomputation), so the backward sweep recomputes only the rest. Only the function's
//! top-level ops are chosen; a control-flow op is recomputed or saved whole.

use crate::array::{Array, Repr};
use crate::core::trace;
use systolic_ir::{find_attr, Attribute, Func, NamedAttr, Op, OpKind};

/// The attribute [`checkpoint_name`] puts on the op it stages (value: the name).
pub(crate) const NAME_ATTR: &str = "systolic.checkpoint_name";

/// What a [`checkpoint`](crate::checkpoint)ed function may save for the backward pass instead
/// of recomputing it (JAX's `jax.checkpoint_policies`).
///
/// ```
/// use systolic::RematPolicy;
/// assert_eq!(RematPolicy::default(), RematPolicy::NothingSaveable);
/// let p = RematPolicy::save_only_these_names(&["attn_out"]);
/// assert_eq!(p, RematPolicy::SaveOnlyTheseNames(vec!["attn_out".to_string()]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RematPolicy {
    /// Recompute everything (JAX's default for `checkpoint`).
    #[default]
    NothingSaveable,
    /// Save everything: the same as not checkpointing.
    EverythingSaveable,
    /// Save the results of matrix products and convolutions; recompute the rest.
    DotsSaveable,
    /// Save the results of matrix products without batch dimensions (and convolutions'
    /// are recomputed); recompute the rest.
    DotsWithNoBatchDimsSaveable,
    /// Save the values named by [`checkpoint_name`] with one of these names.
    SaveOnlyTheseNames(Vec<String>),
}

impl RematPolicy {
    /// [`RematPolicy::SaveOnlyTheseNames`] from string slices.
    pub fn save_only_these_names(names: &[&str]) -> RematPolicy {
        RematPolicy::SaveOnlyTheseNames(names.iter().map(|s| s.to_string()).collect())
    }

    /// Whether the results of `op` are saved rather than recomputed.
    fn saves(&self, op: &Op) -> bool {
        match self {
            RematPolicy::NothingSaveable => false,
            RematPolicy::EverythingSaveable => true,
            RematPolicy::DotsSaveable => matches!(
                op.kind,
                OpKind::DotGeneral { .. } | OpKind::Dot { .. } | OpKind::Convolution(_)
            ),
            RematPolicy::DotsWithNoBatchDimsSaveable => match &op.kind {
                OpKind::DotGeneral {
                    dimension_numbers, ..
                } => dimension_numbers.lhs_batching_dimensions.is_empty(),
                OpKind::Dot { .. } => true,
                _ => false,
            },
            RematPolicy::SaveOnlyTheseNames(names) => matches!(
                find_attr(&op.attrs, NAME_ATTR),
                Some(Attribute::String(n)) if names.contains(n)
            ),
        }
    }

    /// Marks `func`'s ops as remat group `group`, except those this policy saves.
    pub(crate) fn mark(&self, func: &mut Func, group: i64) {
        if *self == RematPolicy::EverythingSaveable {
            return;
        }
        systolic_autodiff::mark_remat(func, group);
        for block in &mut func.body.blocks {
            for op in &mut block.ops {
                if self.saves(op) {
                    op.attrs.retain(|a| a.name != systolic_autodiff::REMAT_ATTR);
                }
            }
        }
    }
}

/// `jax.ad_checkpoint.checkpoint_name`: `x` itself, named so that a
/// [`RematPolicy::SaveOnlyTheseNames`] policy saves it instead of recomputing it. The name is
/// put on the op that computed `x` in the function being traced; outside a trace (nothing is
/// differentiated) it does nothing.
///
/// ```
/// use systolic::{checkpoint, checkpoint_name, grad, jit, numpy as np, Array, RematPolicy};
/// let block = checkpoint(|x: &Array| {
///     let h = checkpoint_name(&np::sin(x), "h");
///     np::sin(&h)
/// })
/// .policy(RematPolicy::save_only_these_names(&["h"]));
/// let g = |x: &Array| grad(|x: &Array| np::sum(&block.call(x).unwrap(), None, false)).call(x).unwrap();
/// let x = Array::from_vec(vec![0.5f32], &[1]);
/// let want = 0.5f32.sin().cos() * 0.5f32.cos();
/// assert!((g(&x).to_vec::<f32>().unwrap()[0] - want).abs() < 1e-6);
/// // The backward pass reads the saved h: sin(x) is computed once (the forward one).
/// let text = jit(g).lower(&x).unwrap().as_text();
/// assert_eq!(text.matches("stablehlo.sine").count(), 2, "{text}");
/// ```
pub fn checkpoint_name(x: &Array, name: &str) -> Array {
    // The op that made `x` in the active trace carries the name (an input of the function
    // needs none: inputs are never recomputed).
    let y = x.clone();
    let (Some((tid, _)), Repr::Traced { value, .. }) = (trace::current(), &y.inner.repr) else {
        return y;
    };
    let value = *value;
    let tagged = trace::with_trace(tid, |t| {
        if let Some(op) = t.ops.iter_mut().rev().find(|o| o.results.contains(&value)) {
            op.attrs.retain(|a| a.name != NAME_ATTR);
            op.attrs.push(NamedAttr::new(
                NAME_ATTR,
                Attribute::String(name.to_string()),
            ));
        }
        Ok(())
    });
    match tagged {
        Ok(()) => y,
        Err(e) => Array::failed(e),
    }
}
