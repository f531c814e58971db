//! [`PartitionSpec`] and its terse constructor [`P!`](crate::P): which mesh axes each
//! dimension of an array is split over, as `jax.sharding.PartitionSpec`.

use std::fmt;

/// Per array dimension, the mesh axes it is split over (major first); an empty entry (JAX's
/// `None`) leaves the dimension whole. Dimensions past the spec's length are whole too, as in
/// JAX. Mesh axes that split no dimension replicate the array.
///
/// ```
/// use systolic::{PartitionSpec, P};
/// let spec = P!("data", None);
/// assert_eq!(spec.to_string(), "PartitionSpec('data', None)");
/// assert_eq!(P!(("x", "y")).dim(0), &["x".to_string(), "y".to_string()]);
/// assert!(P!().dim(3).is_empty());
/// assert_eq!(spec, PartitionSpec::new(vec![vec!["data".into()], vec![]]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartitionSpec {
    dims: Vec<Vec<String>>,
    /// The dimensions left to the compiler ([`PartitionSpec::UNCONSTRAINED`]), ascending.
    unconstrained: Vec<usize>,
}

/// JAX's `P.UNCONSTRAINED`: a dimension whose sharding the compiler chooses (propagation
/// may split it over any axis the spec does not use). Only a sharding *constraint* inside a
/// traced function can leave a dimension so: `jit`'s `in_shardings`/`out_shardings` and the
/// placement of concrete arrays refuse it, as JAX does.
///
/// ```
/// use systolic::{PartitionSpec, P};
/// let spec = P!(PartitionSpec::UNCONSTRAINED, "model");
/// assert_eq!(spec.to_string(), "PartitionSpec(UNCONSTRAINED, 'model')");
/// assert!(spec.is_unconstrained(0) && !spec.is_unconstrained(1));
/// assert!(spec.dim(0).is_empty());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unconstrained;

/// One dimension's entry of a [`PartitionSpec`]: an axis name, `None`, several axes as a
/// tuple, array or vector, or [`PartitionSpec::UNCONSTRAINED`] (what [`P!`](crate::P)
/// accepts).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DimSpec {
    axes: Vec<String>,
    unconstrained: bool,
}

impl DimSpec {
    fn axes(axes: Vec<String>) -> DimSpec {
        DimSpec {
            axes,
            unconstrained: false,
        }
    }
}

impl From<Unconstrained> for DimSpec {
    fn from(_: Unconstrained) -> Self {
        DimSpec {
            axes: vec![],
            unconstrained: true,
        }
    }
}

impl From<&str> for DimSpec {
    fn from(axis: &str) -> Self {
        DimSpec::axes(vec![axis.to_string()])
    }
}

impl From<String> for DimSpec {
    fn from(axis: String) -> Self {
        DimSpec::axes(vec![axis])
    }
}

impl From<Option<&str>> for DimSpec {
    fn from(axis: Option<&str>) -> Self {
        DimSpec::axes(axis.into_iter().map(str::to_string).collect())
    }
}

impl From<(&str, &str)> for DimSpec {
    fn from((a, b): (&str, &str)) -> Self {
        DimSpec::axes(vec![a.to_string(), b.to_string()])
    }
}

impl From<(&str, &str, &str)> for DimSpec {
    fn from((a, b, c): (&str, &str, &str)) -> Self {
        DimSpec::axes(vec![a.to_string(), b.to_string(), c.to_string()])
    }
}

impl<const N: usize> From<[&str; N]> for DimSpec {
    fn from(axes: [&str; N]) -> Self {
        DimSpec::axes(axes.iter().map(|s| s.to_string()).collect())
    }
}

impl From<Vec<&str>> for DimSpec {
    fn from(axes: Vec<&str>) -> Self {
        DimSpec::axes(axes.iter().map(|s| s.to_string()).collect())
    }
}

impl PartitionSpec {
    /// JAX's `P.UNCONSTRAINED`; see [`Unconstrained`].
    pub const UNCONSTRAINED: Unconstrained = Unconstrained;

    /// A spec from per-dimension axis lists (empty: the dimension is whole).
    pub fn new(dims: Vec<Vec<String>>) -> PartitionSpec {
        PartitionSpec {
            dims,
            unconstrained: vec![],
        }
    }

    /// A spec from [`DimSpec`]s (what [`P!`](crate::P) expands to).
    pub fn from_dims(dims: Vec<DimSpec>) -> PartitionSpec {
        let unconstrained = (0..dims.len()).filter(|&d| dims[d].unconstrained).collect();
        PartitionSpec {
            dims: dims.into_iter().map(|d| d.axes).collect(),
            unconstrained,
        }
    }

    /// Whether dimension `d` is [`PartitionSpec::UNCONSTRAINED`].
    pub fn is_unconstrained(&self, d: usize) -> bool {
        self.unconstrained.contains(&d)
    }

    /// Whether any dimension is [`PartitionSpec::UNCONSTRAINED`].
    pub fn has_unconstrained(&self) -> bool {
        !self.unconstrained.is_empty()
    }

    /// The spec with its unconstrained dimensions whole (`None`).
    pub fn constrained(&self) -> PartitionSpec {
        PartitionSpec::new(self.dims.clone())
    }

    /// The fully replicated spec `P()`.
    pub fn replicated() -> PartitionSpec {
        PartitionSpec::default()
    }

    /// The number of dimensions the spec names (the rest are whole).
    pub fn len(&self) -> usize {
        self.dims.len()
    }

    /// True for `P()`.
    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }

    /// The axes dimension `d` is split over (empty when whole or past the spec).
    pub fn dim(&self, d: usize) -> &[String] {
        self.dims.get(d).map_or(&[], |v| v.as_slice())
    }

    /// Every axis the spec names, in order.
    pub fn axes(&self) -> impl Iterator<Item = &String> {
        self.dims.iter().flatten()
    }
}

impl fmt::Display for PartitionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .dims
            .iter()
            .enumerate()
            .map(|(d, axes)| match axes.len() {
                0 if self.is_unconstrained(d) => "UNCONSTRAINED".to_string(),
                0 => "None".to_string(),
                1 => format!("'{}'", axes[0]),
                _ => format!(
                    "({})",
                    axes.iter()
                        .map(|a| format!("'{a}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect();
        write!(f, "PartitionSpec({})", parts.join(", "))
    }
}

/// `P!("data", None)`: a [`PartitionSpec`], as terse as JAX's `P('data', None)`. Each entry
/// is an axis name, `None`, a tuple of names for a dimension split over several axes
/// (`P!(("x", "y"), None)`), or [`PartitionSpec::UNCONSTRAINED`].
///
/// ```
/// use systolic::P;
/// assert_eq!(P!(None, "model").to_string(), "PartitionSpec(None, 'model')");
/// assert_eq!(P!().len(), 0);
/// ```
#[macro_export]
#[allow(non_snake_case)]
macro_rules! P {
    ($($dim:expr),* $(,)?) => {
        $crate::PartitionSpec::from_dims(vec![$($crate::DimSpec::from($dim)),*])
    };
}
