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
}

/// One dimension's entry of a [`PartitionSpec`]: an axis name, `None`, or several axes as a
/// tuple, array or vector (what [`P!`](crate::P) accepts).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DimSpec(pub Vec<String>);

impl From<&str> for DimSpec {
    fn from(axis: &str) -> Self {
        DimSpec(vec![axis.to_string()])
    }
}

impl From<String> for DimSpec {
    fn from(axis: String) -> Self {
        DimSpec(vec![axis])
    }
}

impl From<Option<&str>> for DimSpec {
    fn from(axis: Option<&str>) -> Self {
        DimSpec(axis.into_iter().map(str::to_string).collect())
    }
}

impl From<(&str, &str)> for DimSpec {
    fn from((a, b): (&str, &str)) -> Self {
        DimSpec(vec![a.to_string(), b.to_string()])
    }
}

impl From<(&str, &str, &str)> for DimSpec {
    fn from((a, b, c): (&str, &str, &str)) -> Self {
        DimSpec(vec![a.to_string(), b.to_string(), c.to_string()])
    }
}

impl<const N: usize> From<[&str; N]> for DimSpec {
    fn from(axes: [&str; N]) -> Self {
        DimSpec(axes.iter().map(|s| s.to_string()).collect())
    }
}

impl From<Vec<&str>> for DimSpec {
    fn from(axes: Vec<&str>) -> Self {
        DimSpec(axes.iter().map(|s| s.to_string()).collect())
    }
}

impl PartitionSpec {
    /// A spec from per-dimension axis lists (empty: the dimension is whole).
    pub fn new(dims: Vec<Vec<String>>) -> PartitionSpec {
        PartitionSpec { dims }
    }

    /// A spec from [`DimSpec`]s (what [`P!`](crate::P) expands to).
    pub fn from_dims(dims: Vec<DimSpec>) -> PartitionSpec {
        PartitionSpec {
            dims: dims.into_iter().map(|d| d.0).collect(),
        }
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
            .map(|axes| match axes.len() {
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
/// is an axis name, `None`, or a tuple of names for a dimension split over several axes
/// (`P!(("x", "y"), None)`).
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
