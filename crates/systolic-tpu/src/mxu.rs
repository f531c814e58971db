//! MXU time of a matrix product: how many systolic-array passes it takes once its operands are
//! padded to the array, and how many cycles those passes take with weight loading, the
//! diagonal wavefront's fill and drain, and the bf16 passes its precision asks for.
//!
//! One pass (weights stationary) holds a `d x d` tile of the right operand in the array and
//! streams the rows of the left operand through it, one row per cycle. The next tile's weights
//! shift in (d cycles) while the current rows stream, so passes overlap; only the first load and
//! the last drain show. The closed form here is checked against the register-level simulation in
//! [`crate::systolic_array`].

use crate::chips::{ChipSpec, MatmulClass};
use crate::layout::round_up;
use serde::Serialize;
use systolic_ir::{DType, Precision};

/// Rows the MXU takes from the left operand at a time: the left operand's row count is padded
/// to a multiple of this (one (8, 128) vector register).
pub const MXU_ROW_GRANULE: u64 = 8;

/// A (batched) matrix product `[batch, m, k] x [batch, k, n]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MatmulShape {
    /// Independent products.
    pub batch: u64,
    /// Rows of the left operand (and of the result).
    pub m: u64,
    /// The contracted size.
    pub k: u64,
    /// Columns of the right operand (and of the result).
    pub n: u64,
}

impl MatmulShape {
    /// 2·batch·m·n·k: the FLOPs of the product as written.
    pub fn flops(&self) -> f64 {
        2.0 * self.batch as f64 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// The shape the MXU actually computes: k and n padded to the array size, m to whole
    /// row granules.
    pub fn padded(&self, mxu_dim: u64) -> MatmulShape {
        MatmulShape {
            batch: self.batch,
            m: round_up(self.m, MXU_ROW_GRANULE),
            k: round_up(self.k, mxu_dim),
            n: round_up(self.n, mxu_dim),
        }
    }
}

/// How a product's inputs map to MXU passes: the rate class and how many passes of that class
/// one logical product needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PassPlan {
    /// Which peak rate applies.
    pub class: MatmulClass,
    /// bf16 passes per product: 1 for bf16 (and f32 at DEFAULT), 3 for f32 at HIGH (bf16_3x),
    /// 6 for f32 at HIGHEST (bf16_6x).
    pub passes: u32,
}

/// The passes a product of `lhs` and `rhs` takes at `precision` (the stricter of the two
/// operands' precisions), or with an explicit algorithm's primitive-operation count.
pub fn pass_plan(
    lhs: DType,
    rhs: DType,
    precision: Precision,
    algorithm_passes: Option<u32>,
) -> PassPlan {
    let eight_bit_int = |d: DType| d.is_integer() && d.bit_width() <= 8;
    if eight_bit_int(lhs) && eight_bit_int(rhs) {
        return PassPlan {
            class: MatmulClass::Int8,
            passes: 1,
        };
    }
    // f8 (and f6/f4) × the same family: the chip's fp8 rate, which `ChipSpec::peak_matmul`
    // takes as the bf16 rate on chips without an fp8 MXU mode (XLA converts the operands to
    // bf16 there; an int8 mode does not take floats).
    if lhs.is_narrow_float() && rhs.is_narrow_float() {
        return PassPlan {
            class: MatmulClass::Fp8,
            passes: 1,
        };
    }
    if let Some(p) = algorithm_passes {
        return PassPlan {
            class: MatmulClass::Bf16,
            passes: p.max(1),
        };
    }
    // Narrow floats (bf16, f16) and narrow integers take one bf16 pass; everything wider is
    // split into bf16 pieces as f32 is.
    let wide = |d: DType| d.bit_width() > 16;
    let passes = if wide(lhs) || wide(rhs) {
        match precision {
            Precision::Default => 1,
            Precision::High => 3,
            Precision::Highest => 6,
        }
    } else {
        1
    };
    PassPlan {
        class: MatmulClass::Bf16,
        passes,
    }
}

/// Cycles one systolic array takes for `tiles` weight tiles in a row, each streaming `rows`
/// left-operand rows, on a `dim x dim` array: the first weight load (dim cycles), then one tile
/// per max(rows, dim) cycles (a tile cannot start before its weights are in), then the last
/// tile's rows and the wavefront's drain through the array (rows + 2·dim − 2).
pub fn pass_sequence_cycles(tiles: u64, rows: u64, dim: u64) -> u64 {
    if tiles == 0 || rows == 0 {
        return 0;
    }
    dim + (tiles - 1) * rows.max(dim) + rows + 2 * dim - 2
}

/// The MXU side of one product on one chip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MxuEstimate {
    /// The product as written.
    pub shape: MatmulShape,
    /// The product as the MXU computes it (after padding).
    pub padded: MatmulShape,
    /// The rate class and passes.
    pub plan: PassPlan,
    /// Seconds of MXU time.
    pub time_s: f64,
    /// FLOPs the MXU spends, padding and extra passes included.
    pub mxu_flops: f64,
}

/// MXU time of `shape` on `chip`. With the chip's MXU count and clock known, the cycles of
/// [`pass_sequence_cycles`] on the busiest MXU (tiles are dealt out round-robin); without them,
/// the padded FLOPs at the peak rate (no fill/drain), which `chip` reports among its assumptions.
pub fn mxu_time(chip: &ChipSpec, shape: MatmulShape, plan: PassPlan) -> Option<MxuEstimate> {
    let dim = chip.mxu_dim.value? as u64;
    let padded = shape.padded(dim);
    let peak = chip.peak_matmul(plan.class)?;
    let mxu_flops = padded.flops() * plan.passes as f64;
    // The rate class's speed-up over bf16 (int8 doubles the rows per cycle on chips with a
    // faster int8 mode).
    let class_speedup = peak / chip.peak_bf16_flops.value?;
    let time_s = match (chip.total_mxus(), chip.effective_clock_hz()) {
        (Some(mxus), Some(clock)) => {
            let tiles = padded.batch * (padded.k / dim) * (padded.n / dim) * plan.passes as u64;
            let per_mxu = tiles.div_ceil(mxus as u64);
            pass_sequence_cycles(per_mxu, padded.m, dim) as f64 / clock / class_speedup
        }
        _ => mxu_flops / peak,
    };
    Some(MxuEstimate {
        shape,
        padded,
        plan,
        time_s,
        mxu_flops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chips::chip;

    #[test]
    fn passes_per_precision() {
        let f32_at = |p| pass_plan(DType::F32, DType::F32, p, None).passes;
        assert_eq!(f32_at(Precision::Default), 1);
        assert_eq!(f32_at(Precision::High), 3);
        assert_eq!(f32_at(Precision::Highest), 6);
        assert_eq!(
            pass_plan(DType::BF16, DType::BF16, Precision::Highest, None).passes,
            1
        );
        let int8 = pass_plan(DType::I8, DType::I8, Precision::Default, None);
        assert_eq!(int8.class, MatmulClass::Int8);
        let fp8 = pass_plan(DType::F8E4M3FN, DType::F8E5M2, Precision::Highest, None);
        assert_eq!((fp8.class, fp8.passes), (MatmulClass::Fp8, 1));
        let mixed = pass_plan(DType::F8E4M3FN, DType::BF16, Precision::Default, None);
        assert_eq!(mixed.class, MatmulClass::Bf16);
    }

    #[test]
    fn closed_form_cycles() {
        // One tile: weights in (d), rows through (m), drain (2d - 2).
        assert_eq!(pass_sequence_cycles(1, 8, 128), 128 + 8 + 254);
        // Many tall tiles: one tile per m cycles.
        assert_eq!(pass_sequence_cycles(3, 512, 128), 128 + 2 * 512 + 512 + 254);
        // Short tiles wait for their weights: one tile per d cycles.
        assert_eq!(pass_sequence_cycles(3, 8, 128), 128 + 2 * 128 + 8 + 254);
    }

    #[test]
    fn padding_shows_for_dims_off_the_mxu_size() {
        let v5e = chip("v5e").unwrap();
        let plan = pass_plan(DType::BF16, DType::BF16, Precision::Default, None);
        let big = |k, n| MatmulShape {
            batch: 1,
            m: 4096,
            k,
            n,
        };
        let aligned = mxu_time(&v5e, big(1024, 1024), plan).unwrap();
        let off = mxu_time(&v5e, big(1025, 1025), plan).unwrap();
        // 1025 pads to 1152 in both k and n: (1152/1024)^2 = 1.27x the MXU work for 0.2% more
        // FLOPs.
        let work_ratio = off.mxu_flops / aligned.mxu_flops;
        assert!((work_ratio - (1152.0f64 / 1024.0).powi(2)).abs() < 1e-9);
        assert!(off.time_s / aligned.time_s > 1.25, "{off:?} {aligned:?}");
        // v6e's 256 array pads 1025 to 1280 instead.
        let v6e = chip("v6e").unwrap();
        assert_eq!(
            mxu_time(&v6e, big(1025, 1025), plan).unwrap().padded.k,
            1280
        );
    }

    #[test]
    fn f32_highest_takes_six_times_default() {
        let v5e = chip("v5e").unwrap();
        let shape = MatmulShape {
            batch: 1,
            m: 8192,
            k: 8192,
            n: 8192,
        };
        let t = |p| {
            mxu_time(&v5e, shape, pass_plan(DType::F32, DType::F32, p, None))
                .unwrap()
                .time_s
        };
        let ratio = t(Precision::Highest) / t(Precision::Default);
        assert!((ratio - 6.0).abs() < 0.01, "{ratio}");
    }
}
