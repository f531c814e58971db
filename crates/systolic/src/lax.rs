//! lax-style ops (`jax.lax`): thin, explicit, close to StableHLO.
//!
//! This module only re-exports: the implementations are in `ops/`, one module per family
//! (lax's elementwise ops without promotion in `ops/strict.rs`), so this file is the
//! namespace's table of contents.

pub use crate::ops::collective::{
    all_gather, all_to_all, axis_index, axis_size, pmax, pmean, pmin, ppermute, psum, psum_scatter,
    AxisNames,
};
pub use crate::ops::complex::{complex, lax_conj as conj, lax_imag as imag, lax_real as real};
pub use crate::ops::control::{cond, fori_loop, scan, switch, while_loop};
pub use crate::ops::conv::{conv_general_dilated, conv_transpose, ConvDimensions};
pub use crate::ops::creation::iota;
pub use crate::ops::fft::fft;
pub use crate::ops::indexing::{gather, scatter, scatter_with, GatherScatterMode, ScatterOp};
pub use crate::ops::linalg::{dot_general, dot_general_with};
pub use crate::ops::pad::lax_pad as pad;
pub use crate::ops::ragged_dot::ragged_dot;
pub use crate::ops::region::{RegionBuilder, Var};
pub use crate::ops::shape::{dynamic_slice, dynamic_update_slice, reshape, rev, slice, transpose};
pub use crate::ops::sort::{sort, sort_key_val, top_k};
pub use crate::ops::strict::{
    add, bitcast_convert_type, bitwise_and, bitwise_or, bitwise_xor, clamp, convert_element_type,
    div, max, mul, rem, select, shift_left, shift_right_logical,
};
pub use crate::ops::window::{
    cummax, cummin, lax_cumprod as cumprod, lax_cumsum as cumsum, reduce, reduce_window,
    reduce_window_with, Padding, Window,
};
pub use crate::sharding::with_sharding_constraint;
pub use crate::transforms::stop_gradient::stop_gradient;
pub use systolic_ir::DotDimensionNumbers;
pub use systolic_ir::{GatherDimensionNumbers, ScatterDimensionNumbers};
