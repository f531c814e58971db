//! The interpreter must reject malformed ops with an error, never panic, because it may run
//! modules the verifier has not seen. These tests throw many small random (mostly invalid)
//! attribute combinations at the indexing, window and convolution ops; a panic fails them.

use crate::support;

use support::*;
use systolic_ir::{
    ConvAttrs, ConvDimensionNumbers, DType, DotDimensionNumbers, GatherDimensionNumbers, OpKind,
    ScatterDimensionNumbers, Window,
};

/// A small deterministic generator (64-bit LCG), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A value in lo..=hi.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// Up to `max_len` values in lo..=hi.
    fn list(&mut self, max_len: i64, lo: i64, hi: i64) -> Vec<i64> {
        let n = self.int(0, max_len);
        (0..n).map(|_| self.int(lo, hi)).collect()
    }

    fn shape(&mut self, max_rank: i64) -> Vec<i64> {
        self.list(max_rank, 0, 3)
    }
}

fn tensor_of(shape: &[i64], rng: &mut Rng) -> systolic_ir::Tensor {
    let n: i64 = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|_| rng.int(-3, 3) as f64).collect();
    f32s(shape, &v)
}

fn indices_of(shape: &[i64], rng: &mut Rng) -> systolic_ir::Tensor {
    let n: i64 = shape.iter().product();
    let v: Vec<i64> = (0..n).map(|_| rng.int(-4, 4)).collect();
    ints(shape, DType::I32, &v)
}

/// A valid gather (operand shape, index shape, dimension numbers, slice sizes, result shape)
/// built at random; scatter uses the same numbers the other way round.
fn valid_gather(
    rng: &mut Rng,
) -> (
    Vec<i64>,
    Vec<i64>,
    GatherDimensionNumbers,
    Vec<i64>,
    Vec<i64>,
) {
    let rank = rng.int(1, 3) as usize;
    let operand: Vec<i64> = (0..rank).map(|_| rng.int(0, 3)).collect();
    // Start index map: a random subset of the dimensions, in random order.
    let mut dims: Vec<i64> = (0..rank as i64).collect();
    for i in (1..dims.len()).rev() {
        dims.swap(i, rng.int(0, i as i64) as usize);
    }
    let start_index_map: Vec<i64> = dims[..rng.int(1, rank as i64) as usize].to_vec();
    let slice_sizes: Vec<i64> = operand.iter().map(|&d| rng.int(0, d)).collect();
    let collapsed: Vec<i64> = (0..rank as i64)
        .filter(|&d| slice_sizes[d as usize] <= 1 && rng.int(0, 1) == 1)
        .collect();
    let batch: Vec<i64> = rng.list(2, 0, 2);
    let mut indices = batch.clone();
    indices.push(start_index_map.len() as i64);
    let offset_sizes: Vec<i64> = (0..rank as i64)
        .filter(|d| !collapsed.contains(d))
        .map(|d| slice_sizes[d as usize])
        .collect();
    let result_rank = batch.len() + offset_sizes.len();
    // Offset dims: a sorted random choice of result positions.
    let mut positions: Vec<i64> = (0..result_rank as i64).collect();
    while positions.len() > offset_sizes.len() {
        positions.remove(rng.int(0, positions.len() as i64 - 1) as usize);
    }
    let mut result = vec![0; result_rank];
    let (mut b, mut o) = (0, 0);
    for (d, r) in result.iter_mut().enumerate() {
        if positions.contains(&(d as i64)) {
            *r = offset_sizes[o];
            o += 1;
        } else {
            *r = batch[b];
            b += 1;
        }
    }
    let dn = GatherDimensionNumbers {
        offset_dims: positions,
        collapsed_slice_dims: collapsed,
        start_index_map,
        index_vector_dim: batch.len() as i64,
        ..Default::default()
    };
    (operand, indices, dn, slice_sizes, result)
}

/// Moves one entry of one list by ±1 (or leaves everything alone).
fn perturb(rng: &mut Rng, lists: &mut [&mut Vec<i64>]) {
    let which = rng.int(0, lists.len() as i64 * 2) as usize;
    if let Some(list) = lists.get_mut(which) {
        if !list.is_empty() {
            let i = rng.int(0, list.len() as i64 - 1) as usize;
            list[i] += if rng.int(0, 1) == 0 { -1 } else { 1 };
        }
    }
}

#[test]
fn random_gathers_and_scatters_never_panic() {
    let mut rng = Rng(1);
    let (mut gathers_ok, mut scatters_ok) = (0, 0);
    for _ in 0..3000 {
        let (operand_shape, index_shape, mut dn, mut slice_sizes, mut result_shape) =
            valid_gather(&mut rng);
        let operand = tensor_of(&operand_shape, &mut rng);
        let indices = indices_of(&index_shape, &mut rng);
        let mut ivd = vec![dn.index_vector_dim];
        perturb(
            &mut rng,
            &mut [
                &mut dn.offset_dims,
                &mut dn.collapsed_slice_dims,
                &mut dn.start_index_map,
                &mut slice_sizes,
                &mut result_shape,
                &mut ivd,
            ],
        );
        dn.index_vector_dim = ivd[0];
        let gather = OpKind::Gather {
            dimension_numbers: dn.clone(),
            slice_sizes,
            indices_are_sorted: false,
        };
        let r = run1(
            gather,
            vec![operand.clone(), indices.clone()],
            tt(&result_shape, DType::F32),
        );
        gathers_ok += r.is_ok() as usize;
        let Some(updates_shape) = result_shape.iter().all(|&d| d >= 0).then_some(result_shape)
        else {
            continue;
        };
        let updates = tensor_of(&updates_shape, &mut rng);
        let scatter = OpKind::Scatter {
            dimension_numbers: ScatterDimensionNumbers {
                update_window_dims: dn.offset_dims,
                inserted_window_dims: dn.collapsed_slice_dims,
                scatter_dims_to_operand_dims: dn.start_index_map,
                index_vector_dim: dn.index_vector_dim,
                ..Default::default()
            },
            indices_are_sorted: false,
            unique_indices: false,
        };
        let r = run(
            scatter,
            vec![operand, indices, updates],
            vec![tt(&operand_shape, DType::F32)],
            &mut add_region(DType::F32),
        );
        scatters_ok += r.is_ok() as usize;
    }
    // Most combinations are valid: the evaluation code itself is exercised.
    assert!(gathers_ok > 1000, "only {gathers_ok} gathers were valid");
    assert!(scatters_ok > 1000, "only {scatters_ok} scatters were valid");
}

#[test]
fn random_windows_and_convolutions_never_panic() {
    let mut rng = Rng(2);
    let mut ok = 0;
    for _ in 0..3000 {
        let shape = rng.shape(3);
        let rank = shape.len() as i64;
        let x = tensor_of(&shape, &mut rng);
        let pads = |rng: &mut Rng| -> Vec<(i64, i64)> {
            (0..rng.int(rank.max(1) - 1, rank))
                .map(|_| (rng.int(-3, 3), rng.int(-3, 3)))
                .collect()
        };
        let window = OpKind::ReduceWindow {
            window: Window {
                window_dimensions: rng.list(rank, -1, 3),
                window_strides: Some(rng.list(rank, -1, 3)),
                base_dilations: Some(rng.list(rank, -1, 3)),
                window_dilations: Some(rng.list(rank, -1, 3)),
                padding: Some(pads(&mut rng)),
            },
        };
        let r = run(
            window,
            vec![x.clone(), f32s(&[], &[0.])],
            vec![tt(&rng.shape(3), DType::F32)],
            &mut add_region(DType::F32),
        );
        ok += r.is_ok() as usize;

        let k = tensor_of(&rng.shape(3), &mut rng);
        let conv = OpKind::Convolution(ConvAttrs {
            dimension_numbers: ConvDimensionNumbers {
                input_batch_dimension: rng.int(-1, 2),
                input_feature_dimension: rng.int(-1, 2),
                input_spatial_dimensions: rng.list(1, -1, 2),
                kernel_input_feature_dimension: rng.int(-1, 2),
                kernel_output_feature_dimension: rng.int(-1, 2),
                kernel_spatial_dimensions: rng.list(1, -1, 2),
                output_batch_dimension: rng.int(-1, 2),
                output_feature_dimension: rng.int(-1, 2),
                output_spatial_dimensions: rng.list(1, -1, 2),
            },
            window_strides: Some(rng.list(1, -1, 3)),
            padding: Some(pads(&mut rng)),
            lhs_dilation: Some(rng.list(1, -1, 3)),
            rhs_dilation: Some(rng.list(1, -1, 3)),
            window_reversal: None,
            feature_group_count: rng.int(0, 2),
            batch_group_count: rng.int(0, 2),
            precision_config: vec![],
        });
        let r = run1(
            conv,
            vec![x.clone(), k.clone()],
            tt(&rng.shape(3), DType::F32),
        );
        ok += r.is_ok() as usize;

        let dot = OpKind::DotGeneral {
            dimension_numbers: DotDimensionNumbers {
                lhs_batching_dimensions: rng.list(1, -1, 3),
                rhs_batching_dimensions: rng.list(1, -1, 3),
                lhs_contracting_dimensions: rng.list(2, -1, 3),
                rhs_contracting_dimensions: rng.list(2, -1, 3),
            },
            precision_config: vec![],
            algorithm: None,
        };
        let r = run1(dot, vec![x, k], tt(&rng.shape(4), DType::F32));
        ok += r.is_ok() as usize;
    }
    assert!(ok > 50, "only {ok} valid combinations were generated");
}
