//! The window of `reduce_window` and `select_and_scatter` (and the window geometry
//! `convolution` shares): the attributes as the text writes them ([`Window`]), and, once
//! checked against a rank with the defaults filled in, the geometry every user needs
//! ([`ResolvedWindow`], one [`WindowDim`] per dimension).
//!
//! Along one dimension the input of size `n` is dilated to `(n - 1) · base_dilation + 1`
//! elements (holes between them; 0 for an empty input), padded with `low` and `high` positions
//! (negative padding crops), and window `o` covers the padded positions
//! `o · stride + w · window_dilation` for `w` in `0..size`. Holes and padding hold no input
//! element. The arithmetic is done in `i128`, so no attribute or shape can overflow it.
//!
//! ```
//! use systolic_ir::Window;
//!
//! // A 3-wide window, stride 2, one element of padding on each side, over 7 elements.
//! let w = Window::new(vec![3]).with_strides(vec![2]).with_padding(vec![(1, 1)]);
//! let r = w.resolve(1).unwrap();
//! assert_eq!(r.output_shape(&[7]).unwrap(), vec![4]);
//! // Window 0 starts on the low padding; its second position is input element 0.
//! assert_eq!(r.input_index(&[7], &[0], &[0]), None);
//! assert_eq!(r.input_index(&[7], &[0], &[1]), Some(vec![0]));
//! // Absent attributes stay absent (printing is unchanged) and mean their defaults.
//! assert_eq!(w.base_dilations, None);
//! assert_eq!(r.dims()[0].base_dilation, 1);
//! // Errors name the attribute.
//! let bad = Window::new(vec![2]).with_strides(vec![0]).resolve(1).unwrap_err();
//! assert_eq!(bad.to_string(), "`window_strides` [0] has the entry 0; entries must be positive");
//! ```

use crate::attrs::ConvAttrs;
use std::fmt;

/// The window attributes of `reduce_window` and `select_and_scatter`, as the text writes them:
/// an absent attribute stays `None` (and prints as absent); [`Window::resolve`] gives it its
/// default (strides and dilations 1, padding 0).
///
/// `select_and_scatter` has no dilations in StableHLO: its window keeps `base_dilations` and
/// `window_dilations` `None` (the parser never sets them, the verifier refuses them).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    /// `window_dimensions`: the window size per dimension.
    pub window_dimensions: Vec<i64>,
    /// `window_strides`: the step per dimension (default 1).
    pub window_strides: Option<Vec<i64>>,
    /// `base_dilations`: the input dilation per dimension (default 1).
    pub base_dilations: Option<Vec<i64>>,
    /// `window_dilations`: the window dilation per dimension (default 1).
    pub window_dilations: Option<Vec<i64>>,
    /// `padding`: (low, high) per dimension (default 0; negative crops).
    pub padding: Option<Vec<(i64, i64)>>,
}

impl Window {
    /// A window of these sizes, every other attribute absent.
    pub fn new(window_dimensions: impl Into<Vec<i64>>) -> Window {
        Window {
            window_dimensions: window_dimensions.into(),
            ..Window::default()
        }
    }

    /// With `window_strides`.
    pub fn with_strides(mut self, strides: impl Into<Vec<i64>>) -> Window {
        self.window_strides = Some(strides.into());
        self
    }

    /// With `base_dilations`.
    pub fn with_base_dilations(mut self, dilations: impl Into<Vec<i64>>) -> Window {
        self.base_dilations = Some(dilations.into());
        self
    }

    /// With `window_dilations`.
    pub fn with_window_dilations(mut self, dilations: impl Into<Vec<i64>>) -> Window {
        self.window_dilations = Some(dilations.into());
        self
    }

    /// With `padding`.
    pub fn with_padding(mut self, padding: impl Into<Vec<(i64, i64)>>) -> Window {
        self.padding = Some(padding.into());
        self
    }

    /// True when either dilation attribute is present (which `select_and_scatter` lacks).
    pub fn has_dilations(&self) -> bool {
        self.base_dilations.is_some() || self.window_dilations.is_some()
    }

    /// The same window with a new leading dimension of size 1 that moves nothing (stride 1,
    /// no dilation or padding): the window of a batched operand. Absent attributes stay absent.
    pub fn with_leading_unit_dimension(&self) -> Window {
        fn front<T: Clone>(v: &Option<Vec<T>>, x: T) -> Option<Vec<T>> {
            v.as_ref()
                .map(|v| std::iter::once(x).chain(v.iter().cloned()).collect())
        }
        Window {
            window_dimensions: std::iter::once(1)
                .chain(self.window_dimensions.iter().copied())
                .collect(),
            window_strides: front(&self.window_strides, 1),
            base_dilations: front(&self.base_dilations, 1),
            window_dilations: front(&self.window_dilations, 1),
            padding: front(&self.padding, (0, 0)),
        }
    }

    /// Checks every attribute against `rank` (one entry per dimension; sizes, strides and
    /// dilations positive) and fills in the defaults.
    pub fn resolve(&self, rank: usize) -> Result<ResolvedWindow, WindowError> {
        resolve(self, rank, &REDUCE_WINDOW)
    }
}

impl ConvAttrs {
    /// The convolution's window over a kernel whose spatial sizes are `kernel_spatial`
    /// (`lhs_dilation` is the base dilation, `rhs_dilation` the window dilation).
    pub fn window(&self, kernel_spatial: impl Into<Vec<i64>>) -> Window {
        Window {
            window_dimensions: kernel_spatial.into(),
            window_strides: self.window_strides.clone(),
            base_dilations: self.lhs_dilation.clone(),
            window_dilations: self.rhs_dilation.clone(),
            padding: self.padding.clone(),
        }
    }

    /// [`ConvAttrs::window`], checked against the number of spatial dimensions (that of
    /// `kernel_spatial`) with the defaults filled in; errors name the convolution's attributes.
    /// A kernel size of 0 is allowed (it has no window positions).
    pub fn resolve_window(&self, kernel_spatial: &[i64]) -> Result<ResolvedWindow, WindowError> {
        resolve(
            &self.window(kernel_spatial),
            kernel_spatial.len(),
            &CONVOLUTION,
        )
    }
}

/// The attribute names an op gives the window's parts, for errors.
struct Names {
    dimensions: &'static str,
    strides: &'static str,
    base: &'static str,
    window: &'static str,
    padding: &'static str,
    /// Ends "… but {rank_is} {rank}".
    rank_is: &'static str,
    /// Whether the sizes must be positive (they are attributes) or not (kernel sizes).
    positive_sizes: bool,
}

const REDUCE_WINDOW: Names = Names {
    dimensions: "window_dimensions",
    strides: "window_strides",
    base: "base_dilations",
    window: "window_dilations",
    padding: "padding",
    rank_is: "the input rank is",
    positive_sizes: true,
};

const CONVOLUTION: Names = Names {
    dimensions: "kernel spatial dimensions",
    strides: "window_strides",
    base: "lhs_dilation",
    window: "rhs_dilation",
    padding: "padding",
    rank_is: "the number of spatial dimensions is",
    positive_sizes: false,
};

fn resolve(w: &Window, rank: usize, names: &Names) -> Result<ResolvedWindow, WindowError> {
    let length = |attr: &'static str, len: usize| {
        if len == rank {
            Ok(())
        } else {
            Err(WindowError::Length {
                attr,
                len,
                rank,
                rank_is: names.rank_is,
            })
        }
    };
    let ones = vec![1i64; rank];
    let strides = w.window_strides.as_deref().unwrap_or(&ones);
    let base = w.base_dilations.as_deref().unwrap_or(&ones);
    let wdil = w.window_dilations.as_deref().unwrap_or(&ones);
    let zeros = vec![(0i64, 0i64); rank];
    let padding = w.padding.as_deref().unwrap_or(&zeros);
    length(names.dimensions, w.window_dimensions.len())?;
    length(names.strides, strides.len())?;
    length(names.base, base.len())?;
    length(names.window, wdil.len())?;
    length(names.padding, padding.len())?;
    let positive = |attr: &'static str, values: &[i64]| match values.iter().find(|&&v| v <= 0) {
        Some(&entry) => Err(WindowError::NotPositive {
            attr,
            values: values.to_vec(),
            entry,
        }),
        None => Ok(()),
    };
    if names.positive_sizes {
        positive(names.dimensions, &w.window_dimensions)?;
    } else if let Some(&entry) = w.window_dimensions.iter().find(|&&v| v < 0) {
        return Err(WindowError::Negative {
            attr: names.dimensions,
            values: w.window_dimensions.clone(),
            entry,
        });
    }
    positive(names.strides, strides)?;
    positive(names.base, base)?;
    positive(names.window, wdil)?;
    Ok(ResolvedWindow {
        dims: (0..rank)
            .map(|d| WindowDim {
                size: w.window_dimensions[d],
                stride: strides[d],
                base_dilation: base[d],
                window_dilation: wdil[d],
                padding: padding[d],
            })
            .collect(),
    })
}

/// Why a window does not fit its operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowError {
    /// An attribute does not have one entry per dimension.
    Length {
        /// The attribute.
        attr: &'static str,
        /// Its number of entries.
        len: usize,
        /// The number of dimensions.
        rank: usize,
        /// What the rank is ("the input rank is").
        rank_is: &'static str,
    },
    /// An attribute that must be positive has an entry that is not.
    NotPositive {
        /// The attribute.
        attr: &'static str,
        /// Its entries.
        values: Vec<i64>,
        /// The first bad entry.
        entry: i64,
    },
    /// A list of sizes has a negative entry.
    Negative {
        /// The attribute.
        attr: &'static str,
        /// Its entries.
        values: Vec<i64>,
        /// The first bad entry.
        entry: i64,
    },
    /// The number of windows along a dimension does not fit an `i64`.
    Overflow {
        /// The number.
        count: i128,
    },
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |values: &[i64]| {
            let items: Vec<String> = values.iter().map(i64::to_string).collect();
            format!("[{}]", items.join(", "))
        };
        match self {
            WindowError::Length {
                attr,
                len,
                rank,
                rank_is,
            } => {
                let entries = if *len == 1 { "entry" } else { "entries" };
                write!(f, "`{attr}` has {len} {entries} but {rank_is} {rank}")
            }
            WindowError::NotPositive {
                attr,
                values,
                entry,
            } => write!(
                f,
                "`{attr}` {} has the entry {entry}; entries must be positive",
                list(values)
            ),
            WindowError::Negative {
                attr,
                values,
                entry,
            } => write!(
                f,
                "`{attr}` {} has the entry {entry}; entries must not be negative",
                list(values)
            ),
            WindowError::Overflow { count } => {
                write!(f, "the number of windows overflows ({count})")
            }
        }
    }
}

impl std::error::Error for WindowError {}

/// `(size - 1) · dilation + 1`, or 0 for an empty size: the extent of `size` elements with
/// `dilation - 1` holes between neighbours.
pub fn dilated_size(size: i64, dilation: i64) -> i128 {
    if size <= 0 {
        0
    } else {
        (i128::from(size) - 1) * i128::from(dilation) + 1
    }
}

/// One dimension of a [`ResolvedWindow`]: its attributes with the defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowDim {
    /// Window size (positive for reduce_window and select_and_scatter; a convolution's kernel
    /// may be empty).
    pub size: i64,
    /// Step between windows (positive).
    pub stride: i64,
    /// Input dilation (positive).
    pub base_dilation: i64,
    /// Window dilation (positive).
    pub window_dilation: i64,
    /// (low, high) padding of the dilated input; negative crops.
    pub padding: (i64, i64),
}

impl WindowDim {
    /// The input's extent once dilated (0 for an empty input).
    pub fn dilated_base(&self, input: i64) -> i128 {
        dilated_size(input, self.base_dilation)
    }

    /// The window's extent once dilated (0 for an empty window).
    pub fn dilated_window(&self) -> i128 {
        dilated_size(self.size, self.window_dilation)
    }

    /// The dilated input's extent once padded (may be negative when padding crops it all).
    pub fn padded(&self, input: i64) -> i128 {
        i128::from(self.padding.0) + self.dilated_base(input) + i128::from(self.padding.1)
    }

    /// How many windows fit along an input of size `input` (spec: reduce_window (C15),
    /// convolution (C26)).
    pub fn output_size(&self, input: i64) -> Result<i64, WindowError> {
        let padded = self.padded(input);
        let window = self.dilated_window();
        let count = if padded <= 0 || window > padded {
            0
        } else {
            (padded - window) / i128::from(self.stride) + 1
        };
        i64::try_from(count).map_err(|_| WindowError::Overflow { count })
    }

    /// The input coordinate at position `offset` (in `0..size`) of window `output`, over an
    /// input of size `input`, or `None` when it falls on padding or a base-dilation hole.
    pub fn input_coordinate(&self, input: i64, output: i64, offset: i64) -> Option<i64> {
        let padded = i128::from(output) * i128::from(self.stride)
            + i128::from(offset) * i128::from(self.window_dilation);
        let dilated = padded - i128::from(self.padding.0);
        let base = i128::from(self.base_dilation);
        if dilated < 0 || dilated % base != 0 {
            return None;
        }
        let i = dilated / base;
        (i < i128::from(input)).then_some(i as i64)
    }

    /// True when the window steps by one over the undilated, unpadded input.
    pub fn is_plain(&self) -> bool {
        self.stride == 1
            && self.base_dilation == 1
            && self.window_dilation == 1
            && self.padding == (0, 0)
    }
}

/// A [`Window`] checked against a rank, with the defaults filled in ([`Window::resolve`],
/// [`ConvAttrs::resolve_window`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedWindow {
    dims: Vec<WindowDim>,
}

impl ResolvedWindow {
    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Every dimension.
    pub fn dims(&self) -> &[WindowDim] {
        &self.dims
    }

    /// The window sizes.
    pub fn sizes(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.size).collect()
    }

    /// The strides.
    pub fn strides(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.stride).collect()
    }

    /// The base (input) dilations.
    pub fn base_dilations(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.base_dilation).collect()
    }

    /// The window dilations.
    pub fn window_dilations(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.window_dilation).collect()
    }

    /// The (low, high) paddings.
    pub fn padding(&self) -> Vec<(i64, i64)> {
        self.dims.iter().map(|d| d.padding).collect()
    }

    /// The number of windows along each dimension of an input of shape `input`: the result
    /// shape of reduce_window, the source shape of select_and_scatter.
    ///
    /// # Panics
    /// When `input` does not have the window's rank.
    pub fn output_shape(&self, input: &[i64]) -> Result<Vec<i64>, WindowError> {
        assert_eq!(
            input.len(),
            self.rank(),
            "a window over a shape of another rank"
        );
        self.dims
            .iter()
            .zip(input)
            .map(|(d, &n)| d.output_size(n))
            .collect()
    }

    /// The input index at position `offset` of window `output`, over an input of shape
    /// `input`, or `None` when it falls on padding or a base-dilation hole.
    pub fn input_index(&self, input: &[i64], output: &[i64], offset: &[i64]) -> Option<Vec<i64>> {
        (0..self.rank())
            .map(|d| self.dims[d].input_coordinate(input[d], output[d], offset[d]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_attributes_take_their_defaults() {
        let r = Window::new(vec![2, 3]).resolve(2).unwrap();
        assert_eq!(r.sizes(), vec![2, 3]);
        assert_eq!(r.strides(), vec![1, 1]);
        assert_eq!(r.base_dilations(), vec![1, 1]);
        assert_eq!(r.window_dilations(), vec![1, 1]);
        assert_eq!(r.padding(), vec![(0, 0), (0, 0)]);
        assert!(r.dims().iter().all(WindowDim::is_plain));
        assert_eq!(r.output_shape(&[4, 5]).unwrap(), vec![3, 3]);
    }

    #[test]
    fn given_attributes_are_kept() {
        let w = Window::new(vec![2])
            .with_strides(vec![3])
            .with_base_dilations(vec![4])
            .with_window_dilations(vec![5])
            .with_padding(vec![(6, -7)]);
        let d = w.resolve(1).unwrap().dims()[0];
        assert_eq!(
            d,
            WindowDim {
                size: 2,
                stride: 3,
                base_dilation: 4,
                window_dilation: 5,
                padding: (6, -7),
            }
        );
        assert!(!d.is_plain());
    }

    #[test]
    fn errors_name_the_attribute() {
        let err = |w: Window, rank| w.resolve(rank).unwrap_err().to_string();
        assert_eq!(
            err(Window::new(vec![2]), 2),
            "`window_dimensions` has 1 entry but the input rank is 2"
        );
        assert_eq!(
            err(Window::new(vec![2, 2]).with_strides(vec![1]), 2),
            "`window_strides` has 1 entry but the input rank is 2"
        );
        assert_eq!(
            err(Window::new(vec![2]).with_base_dilations(vec![1, 1]), 1),
            "`base_dilations` has 2 entries but the input rank is 1"
        );
        assert_eq!(
            err(Window::new(vec![2]).with_window_dilations(vec![]), 1),
            "`window_dilations` has 0 entries but the input rank is 1"
        );
        assert_eq!(
            err(Window::new(vec![2]).with_padding(vec![(0, 0); 3]), 1),
            "`padding` has 3 entries but the input rank is 1"
        );
        assert_eq!(
            err(Window::new(vec![2, 0]), 2),
            "`window_dimensions` [2, 0] has the entry 0; entries must be positive"
        );
        assert_eq!(
            err(Window::new(vec![2]).with_strides(vec![-1]), 1),
            "`window_strides` [-1] has the entry -1; entries must be positive"
        );
        assert_eq!(
            err(Window::new(vec![2]).with_base_dilations(vec![0]), 1),
            "`base_dilations` [0] has the entry 0; entries must be positive"
        );
        assert_eq!(
            err(Window::new(vec![2]).with_window_dilations(vec![0]), 1),
            "`window_dilations` [0] has the entry 0; entries must be positive"
        );
    }

    #[test]
    fn convolution_errors_use_its_names() {
        let attrs = ConvAttrs {
            lhs_dilation: Some(vec![1, 0]),
            ..ConvAttrs::default()
        };
        assert_eq!(
            attrs.resolve_window(&[3, 3]).unwrap_err().to_string(),
            "`lhs_dilation` [1, 0] has the entry 0; entries must be positive"
        );
        let attrs = ConvAttrs {
            window_strides: Some(vec![1]),
            ..ConvAttrs::default()
        };
        assert_eq!(
            attrs.resolve_window(&[3, 3]).unwrap_err().to_string(),
            "`window_strides` has 1 entry but the number of spatial dimensions is 2"
        );
        // An empty kernel is a window without positions.
        let r = ConvAttrs::default().resolve_window(&[0]).unwrap();
        assert_eq!(r.output_shape(&[4]).unwrap(), vec![5]);
    }

    #[test]
    fn output_sizes_with_padding_and_dilation() {
        // lax.reduce_window(x of 3x4, (2, 2), (1, 2), ((1, 0), (0, 1)),
        //   base_dilation=(2, 1), window_dilation=(1, 2)): 5 rows dilated + 1 padded = 6,
        //   window 2 → 5; 4 + 1 = 5 columns, window 3 (dilated), stride 2 → 2.
        let w = Window::new(vec![2, 2])
            .with_strides(vec![1, 2])
            .with_base_dilations(vec![2, 1])
            .with_window_dilations(vec![1, 2])
            .with_padding(vec![(1, 0), (0, 1)]);
        let r = w.resolve(2).unwrap();
        let d = r.dims();
        assert_eq!((d[0].dilated_base(3), d[0].padded(3)), (5, 6));
        assert_eq!((d[1].dilated_window(), d[1].padded(4)), (3, 5));
        assert_eq!(r.output_shape(&[3, 4]).unwrap(), vec![5, 2]);
        // A window larger than the padded input, and an empty input.
        let r = Window::new(vec![5]).resolve(1).unwrap();
        assert_eq!(r.output_shape(&[4]).unwrap(), vec![0]);
        assert_eq!(r.output_shape(&[0]).unwrap(), vec![0]);
        // Padding an empty input still gives windows.
        let r = Window::new(vec![1])
            .with_padding(vec![(1, 1)])
            .resolve(1)
            .unwrap();
        assert_eq!(r.output_shape(&[0]).unwrap(), vec![2]);
    }

    #[test]
    fn negative_padding_crops() {
        // StableHLO allows negative padding (it crops the dilated input).
        let r = Window::new(vec![2])
            .with_padding(vec![(-1, -2)])
            .resolve(1)
            .unwrap();
        assert_eq!(r.dims()[0].padded(6), 3);
        assert_eq!(r.output_shape(&[6]).unwrap(), vec![2]);
        // Window 0 starts at input element 1.
        assert_eq!(r.input_index(&[6], &[0], &[0]), Some(vec![1]));
        assert_eq!(r.input_index(&[6], &[1], &[1]), Some(vec![3]));
        // Cropping everything leaves no window.
        let r = Window::new(vec![1])
            .with_padding(vec![(-4, -3)])
            .resolve(1)
            .unwrap();
        assert_eq!(r.output_shape(&[6]).unwrap(), vec![0]);
    }

    #[test]
    fn input_index_skips_holes_and_padding() {
        // Base dilation 2 over 3 elements: x . x . x, padded by one on the left.
        let r = Window::new(vec![3])
            .with_base_dilations(vec![2])
            .with_padding(vec![(1, 0)])
            .resolve(1)
            .unwrap();
        let hits: Vec<Option<Vec<i64>>> = (0..3).map(|w| r.input_index(&[3], &[0], &[w])).collect();
        assert_eq!(hits, vec![None, Some(vec![0]), None]);
        let hits: Vec<Option<Vec<i64>>> = (0..3).map(|w| r.input_index(&[3], &[3], &[w])).collect();
        assert_eq!(hits, vec![Some(vec![1]), None, Some(vec![2])]);
        assert_eq!(r.output_shape(&[3]).unwrap(), vec![4]);
    }

    #[test]
    fn huge_attributes_do_not_overflow() {
        let r = Window::new(vec![1])
            .with_strides(vec![i64::MAX])
            .with_padding(vec![(i64::MIN, i64::MAX)])
            .resolve(1)
            .unwrap();
        assert_eq!(r.output_shape(&[3]).unwrap(), vec![1]);
        assert_eq!(r.input_index(&[3], &[0], &[0]), None);
        let r = Window::new(vec![1])
            .with_base_dilations(vec![i64::MAX])
            .with_padding(vec![(i64::MAX, i64::MAX)])
            .resolve(1)
            .unwrap();
        assert!(matches!(
            r.output_shape(&[i64::MAX]),
            Err(WindowError::Overflow { .. })
        ));
    }

    #[test]
    fn a_leading_unit_dimension_keeps_absent_attributes_absent() {
        let w = Window::new(vec![2]).with_padding(vec![(1, 0)]);
        assert_eq!(
            w.with_leading_unit_dimension(),
            Window::new(vec![1, 2]).with_padding(vec![(0, 0), (1, 0)])
        );
    }
}
