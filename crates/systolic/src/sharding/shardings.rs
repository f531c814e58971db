//! [`Shardings`]: what [`Jit::in_shardings`](crate::Jit::in_shardings) and
//! [`Jit::out_shardings`](crate::Jit::out_shardings) take — one sharding for every leaf of the
//! argument (or result) tree, or one per leaf, each `None` where the compiler may choose (JAX's
//! tree prefix at its two ends, `None` being JAX's unspecified sharding).

use super::NamedSharding;
use crate::error::{Error, Result};

/// The shardings of a function's inputs or outputs, per leaf in the order
/// [`Tree::leaves`](crate::Tree::leaves) lists them. `None` leaves a leaf to the compiler (an
/// argument keeps its own sharding when it has one; a result takes the propagated one).
///
/// ```
/// use systolic::{make_mesh, NamedSharding, Shardings, P};
/// let mesh = make_mesh(&[1], &["data"]).unwrap();
/// let rows = NamedSharding::new(&mesh, P!("data")).unwrap();
/// assert_eq!(Shardings::from(&rows), Shardings::All(Some(rows.clone())));
/// assert_eq!(
///     Shardings::from([Some(rows.clone()), None]),
///     Shardings::Leaves(vec![Some(rows.clone()), None])
/// );
/// assert_eq!(Shardings::from(vec![rows.clone()]), Shardings::Leaves(vec![Some(rows)]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shardings {
    /// Every leaf the same (`All(None)`: nothing asked, the default).
    All(Option<NamedSharding>),
    /// One per leaf.
    Leaves(Vec<Option<NamedSharding>>),
}

impl Default for Shardings {
    fn default() -> Self {
        Shardings::All(None)
    }
}

impl From<NamedSharding> for Shardings {
    fn from(s: NamedSharding) -> Self {
        Shardings::All(Some(s))
    }
}

impl From<&NamedSharding> for Shardings {
    fn from(s: &NamedSharding) -> Self {
        Shardings::All(Some(s.clone()))
    }
}

impl From<Option<NamedSharding>> for Shardings {
    fn from(s: Option<NamedSharding>) -> Self {
        Shardings::All(s)
    }
}

impl From<Vec<Option<NamedSharding>>> for Shardings {
    fn from(v: Vec<Option<NamedSharding>>) -> Self {
        Shardings::Leaves(v)
    }
}

impl From<Vec<NamedSharding>> for Shardings {
    fn from(v: Vec<NamedSharding>) -> Self {
        Shardings::Leaves(v.into_iter().map(Some).collect())
    }
}

impl<const N: usize> From<[Option<NamedSharding>; N]> for Shardings {
    fn from(v: [Option<NamedSharding>; N]) -> Self {
        Shardings::Leaves(v.to_vec())
    }
}

impl<const N: usize> From<[NamedSharding; N]> for Shardings {
    fn from(v: [NamedSharding; N]) -> Self {
        Shardings::Leaves(v.into_iter().map(Some).collect())
    }
}

impl Shardings {
    /// True when no leaf is asked for anything.
    pub(crate) fn is_unspecified(&self) -> bool {
        match self {
            Shardings::All(s) => s.is_none(),
            Shardings::Leaves(v) => v.iter().all(Option::is_none),
        }
    }

    /// One entry per leaf of `n`; an error naming `what` (`jit(f) in_shardings`) when a
    /// per-leaf list has another length.
    pub(crate) fn per_leaf(&self, n: usize, what: &str) -> Result<Vec<Option<NamedSharding>>> {
        let named = match self {
            Shardings::All(s) => s.iter().collect::<Vec<_>>(),
            Shardings::Leaves(v) => v.iter().flatten().collect(),
        };
        if let Some(s) = named.iter().find(|s| s.spec().has_unconstrained()) {
            // JAX: "Unconstrained dims are not allowed when passed to in_shardings".
            return Err(Error::Trace(format!(
                "{what}: UNCONSTRAINED dimensions are not allowed there ({s}); use \
                 with_sharding_constraint inside the function to leave a dimension to the \
                 compiler"
            )));
        }
        match self {
            Shardings::All(s) => Ok(vec![s.clone(); n]),
            Shardings::Leaves(v) if v.len() == n => Ok(v.clone()),
            Shardings::Leaves(v) => Err(Error::Trace(format!(
                "{what} has {} shardings but there are {n} leaves",
                v.len()
            ))),
        }
    }
}
