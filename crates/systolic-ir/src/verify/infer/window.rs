//! Window arithmetic shared by reduce_window, select_and_scatter and convolution: how many
//! windows fit along a dimension once the input is dilated and padded.

use super::common::*;

/// The window attributes of an op; absent lists mean their defaults (strides and dilations 1,
/// padding 0).
pub(crate) struct WindowAttrs<'a> {
    /// Window size per dimension.
    pub dimensions: &'a [i64],
    /// Step per dimension.
    pub strides: Option<&'a [i64]>,
    /// Input (base) dilation per dimension.
    pub base_dilations: Option<&'a [i64]>,
    /// Window dilation per dimension.
    pub window_dilations: Option<&'a [i64]>,
    /// (low, high) padding per dimension.
    pub padding: Option<&'a [(i64, i64)]>,
}

/// One dimension's window parameters, defaults filled in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WindowDim {
    /// Window size.
    pub size: i64,
    /// Step.
    pub stride: i64,
    /// Input dilation.
    pub base_dilation: i64,
    /// Window dilation.
    pub window_dilation: i64,
    /// Padding before.
    pub pad_low: i64,
    /// Padding after.
    pub pad_high: i64,
}

impl WindowAttrs<'_> {
    /// Checks every list against the rank and the positivity rules, and returns one
    /// [`WindowDim`] per dimension.
    pub(crate) fn resolve(&self, rank: usize) -> Result<Vec<WindowDim>, String> {
        expect_len(
            self.dimensions.len(),
            rank,
            "window_dimensions",
            "the input rank is",
        )?;
        let ones = vec![1i64; rank];
        let strides = self.strides.unwrap_or(&ones);
        let base = self.base_dilations.unwrap_or(&ones);
        let win = self.window_dilations.unwrap_or(&ones);
        expect_len(strides.len(), rank, "window_strides", "the input rank is")?;
        expect_len(base.len(), rank, "base_dilations", "the input rank is")?;
        expect_len(win.len(), rank, "window_dilations", "the input rank is")?;
        let zeros = vec![(0i64, 0i64); rank];
        let padding = self.padding.unwrap_or(&zeros);
        expect_len(padding.len(), rank, "padding", "the input rank is")?;
        positive(self.dimensions, "window_dimensions")?;
        positive(strides, "window_strides")?;
        positive(base, "base_dilations")?;
        positive(win, "window_dilations")?;
        Ok((0..rank)
            .map(|d| WindowDim {
                size: self.dimensions[d],
                stride: strides[d],
                base_dilation: base[d],
                window_dilation: win[d],
                pad_low: padding[d].0,
                pad_high: padding[d].1,
            })
            .collect())
    }
}

/// Checks that every entry of a list is positive.
pub(crate) fn positive(values: &[i64], attr: &str) -> Result<(), String> {
    match values.iter().find(|&&v| v <= 0) {
        Some(v) => Err(format!(
            "`{attr}` {} has the entry {v}; entries must be positive",
            list(values)
        )),
        None => Ok(()),
    }
}

/// `(size - 1) * dilation + 1`, or 0 for an empty size.
fn dilated(size: i128, dilation: i64) -> i128 {
    if size == 0 {
        0
    } else {
        (size - 1) * i128::from(dilation) + 1
    }
}

/// How many windows fit along a dimension of size `input` (spec: reduce_window (C15),
/// convolution (C26)).
pub(crate) fn num_windows(input: i64, w: &WindowDim) -> Result<i64, String> {
    let padded = i128::from(w.pad_low)
        + dilated(i128::from(input), w.base_dilation)
        + i128::from(w.pad_high);
    let window = dilated(i128::from(w.size), w.window_dilation);
    let count = if padded <= 0 || window > padded {
        0
    } else {
        (padded - window) / i128::from(w.stride) + 1
    };
    to_dim(count, "the number of windows")
}
