//! Combining transformations: [`chain`] runs several in sequence, [`masked`] runs one on some
//! leaves only.

use super::state::element;
use super::{Flat, GradientTransformation, OptState};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::tree::{DynTree, KeyPath, Tree, TreeDef};
use std::sync::Arc;

/// The transformations one after the other, each getting the previous one's updates
/// (`optax.chain`); the state is the tuple of their states.
///
/// ```
/// use systolic::{optim, Array, Tree};
/// let opt = optim::chain(vec![optim::clip_by_global_norm(1.0), optim::scale(-0.5)]);
/// let p = vec![Array::from_vec(vec![3.0f32, 4.0], &[2])];
/// let state = opt.init(&p).unwrap();
/// assert_eq!(state.structure(), "(EmptyState,EmptyState)");
/// let (u, _) = opt.update(&p, &state, &p).unwrap();
/// assert_eq!(u[0].to_vec::<f32>().unwrap(), vec![-0.3, -0.4]);
/// ```
pub fn chain(transformations: Vec<GradientTransformation>) -> GradientTransformation {
    let ts = Arc::new(transformations);
    let init_ts = ts.clone();
    GradientTransformation::new(
        move |p| {
            let states = init_ts
                .iter()
                .map(|t| t.init_flat(p))
                .collect::<Result<Vec<_>>>()?;
            Ok(DynTree::Tuple(String::new(), states))
        },
        move |mut u, s, p| {
            let mut states = Vec::with_capacity(ts.len());
            for (i, t) in ts.iter().enumerate() {
                let (next, st) = t.update_flat(u, element("chain", s, i, ts.len())?, p)?;
                u = next;
                states.push(st);
            }
            Ok((u, DynTree::Tuple(String::new(), states)))
        },
    )
}

type MaskFn = dyn Fn(&KeyPath, &Array) -> bool + Send + Sync;

/// Which leaves a [`masked`] transformation (or masked weight decay) applies to: a function of
/// each leaf's key path and value, or one flag per leaf.
///
/// ```
/// use systolic::{optim::Mask, PathKey};
/// // No decay on biases and norm scales: leaves named `b` or `scale`.
/// let no_bias = Mask::new(|path, _| {
///     !matches!(path.last(), Some(PathKey::Field(f)) if f == "b" || f == "scale")
/// });
/// // Only matrices.
/// let matrices = Mask::new(|_, leaf| leaf.ndim() >= 2);
/// # let _ = (no_bias, matrices);
/// ```
#[derive(Clone)]
pub enum Mask {
    /// `true` for the leaves to transform.
    Fn(Arc<MaskFn>),
    /// One flag per leaf, in leaf order (optax's mask tree, flattened).
    Leaves(Vec<bool>),
}

impl std::fmt::Debug for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mask::Fn(_) => f.write_str("Mask::Fn"),
            Mask::Leaves(v) => write!(f, "Mask::Leaves({v:?})"),
        }
    }
}

impl Mask {
    /// A mask from a function of each leaf's key path and value.
    pub fn new(f: impl Fn(&KeyPath, &Array) -> bool + Send + Sync + 'static) -> Mask {
        Mask::Fn(Arc::new(f))
    }

    /// The flag of every leaf of `params`.
    fn resolve(&self, params: &Flat) -> Result<Vec<bool>> {
        match self {
            Mask::Fn(f) => Ok(params
                .def
                .key_paths()
                .iter()
                .zip(params.leaves)
                .map(|(k, a)| f(k, a))
                .collect()),
            Mask::Leaves(v) if v.len() == params.leaves.len() => Ok(v.clone()),
            Mask::Leaves(v) => Err(Error::op(
                "optim.masked",
                format!(
                    "the mask has {} flags for {} params ({})",
                    v.len(),
                    params.leaves.len(),
                    params.def
                ),
            )),
        }
    }
}

/// `def` with the leaves whose flag is false replaced by optax's `MaskedNode` (no leaves).
fn mask_def(def: &TreeDef, flags: &mut dyn Iterator<Item = bool>) -> TreeDef {
    let keyed = |c: &[(String, TreeDef)], flags: &mut dyn Iterator<Item = bool>| {
        c.iter()
            .map(|(k, d)| (k.clone(), mask_def(d, flags)))
            .collect()
    };
    match def {
        TreeDef::Leaf if flags.next().unwrap_or(false) => TreeDef::Leaf,
        TreeDef::Leaf => TreeDef::Tuple("MaskedNode".into(), vec![]),
        TreeDef::Static(_) => def.clone(),
        TreeDef::Tuple(n, c) => {
            TreeDef::Tuple(n.clone(), c.iter().map(|d| mask_def(d, flags)).collect())
        }
        TreeDef::List(c) => TreeDef::List(c.iter().map(|d| mask_def(d, flags)).collect()),
        TreeDef::Struct(n, c) => TreeDef::Struct(n.clone(), keyed(c, flags)),
        TreeDef::Map(c) => TreeDef::Map(keyed(c, flags)),
    }
}

/// Runs `inner` on the leaves `mask` selects and passes the others through unchanged
/// (`optax.masked`). `inner` sees the params with the other leaves replaced by `MaskedNode`;
/// the state is `MaskedState{inner_state}`.
///
/// ```
/// use systolic::{optim::{self, Mask}, Array};
/// let p = vec![Array::scalar(1.0f32), Array::scalar(1.0f32)];
/// let t = optim::masked(optim::scale(10.0), Mask::Leaves(vec![true, false]));
/// let (u, _) = t.update(&p, &t.init(&p).unwrap(), &p).unwrap();
/// assert_eq!([u[0].to_vec::<f32>().unwrap()[0], u[1].to_vec::<f32>().unwrap()[0]], [10.0, 1.0]);
/// ```
pub fn masked(inner: GradientTransformation, mask: Mask) -> GradientTransformation {
    let select = |flags: &[bool], leaves: &[Array]| -> Vec<Array> {
        leaves
            .iter()
            .zip(flags)
            .filter(|(_, f)| **f)
            .map(|(a, _)| a.clone())
            .collect()
    };
    let init_inner = inner.clone();
    let init_mask = mask.clone();
    GradientTransformation::new(
        move |p| {
            let flags = init_mask.resolve(p)?;
            let def = mask_def(p.def, &mut flags.iter().copied());
            let leaves = select(&flags, p.leaves);
            let state = init_inner.init_flat(&Flat {
                def: &def,
                leaves: &leaves,
            })?;
            Ok(masked_state(state))
        },
        move |u, s, p| {
            let flags = mask.resolve(p)?;
            let def = mask_def(p.def, &mut flags.iter().copied());
            let leaves = select(&flags, p.leaves);
            let inner_state = match s {
                DynTree::Struct(n, f) if n == "MaskedState" && f.len() == 1 => &f[0].1,
                _ => {
                    return Err(Error::op(
                        "optim.masked",
                        format!("the state {} is not a MaskedState", s.structure()),
                    ));
                }
            };
            let (new, state) = inner.update_flat(
                select(&flags, &u),
                inner_state,
                &Flat {
                    def: &def,
                    leaves: &leaves,
                },
            )?;
            let mut new = new.into_iter();
            let out = u
                .into_iter()
                .zip(&flags)
                .map(|(g, f)| if *f { new.next().unwrap_or(g) } else { g })
                .collect();
            Ok((out, masked_state(state)))
        },
    )
}

fn masked_state(inner: OptState) -> OptState {
    DynTree::Struct("MaskedState".into(), vec![("inner_state".into(), inner)])
}
