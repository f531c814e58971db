//! Tests of `gather` and `scatter` in the reference interpreter. Expected values come from JAX
//! 0.10.2 on CPU (the call is named next to each) or from the StableHLO interpreter tests'
//! examples, or are computed by hand where said.

use crate::support;

use support::*;
use systolic_ir::{DType, GatherDimensionNumbers, OpKind, Scalar, ScatterDimensionNumbers};

fn gather_op(dn: GatherDimensionNumbers, slice_sizes: &[i64]) -> OpKind {
    OpKind::Gather {
        dimension_numbers: dn,
        slice_sizes: slice_sizes.to_vec(),
        indices_are_sorted: false,
    }
}

fn scatter_op(dn: ScatterDimensionNumbers) -> OpKind {
    OpKind::Scatter {
        dimension_numbers: dn,
        indices_are_sorted: false,
        unique_indices: false,
    }
}

#[test]
fn gather_clamps_start_indices() {
    // lax.gather(arange(24.).reshape(3,4,2), [[0,0],[2,3],[-1,1],[1,2]],
    //   GatherDimensionNumbers(offset_dims=(1,2), collapsed_slice_dims=(0,), start_index_map=(0,1)),
    //   (1,2,2), mode=CLIP)
    let dn = GatherDimensionNumbers {
        offset_dims: vec![1, 2],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0, 1],
        index_vector_dim: 1,
        ..Default::default()
    };
    let idx = ints(&[4, 2], DType::I32, &[0, 0, 2, 3, -1, 1, 1, 2]);
    let out = run1(
        gather_op(dn, &[1, 2, 2]),
        vec![iota_f32(&[3, 4, 2]), idx],
        tt(&[4, 2, 2], DType::F32),
    )
    .unwrap();
    assert_eq!(
        values(&out),
        vec![0., 1., 2., 3., 20., 21., 22., 23., 2., 3., 4., 5., 12., 13., 14., 15.]
    );
}

#[test]
fn gather_with_batching_dims() {
    // lax.gather(arange(24).reshape(2,3,4) int32, [[[3],[0],[9]],[[1],[2],[-5]]],
    //   GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(2,), start_index_map=(2,),
    //   operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1,3,1), mode=CLIP)
    let dn = GatherDimensionNumbers {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![2],
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        start_index_map: vec![2],
        index_vector_dim: 2,
    };
    let idx = ints(&[2, 3, 1], DType::I32, &[3, 0, 9, 1, 2, -5]);
    let out = run1(
        gather_op(dn, &[1, 3, 1]),
        vec![iota_int(&[2, 3, 4], DType::I32), idx],
        tt(&[2, 3, 3], DType::I32),
    )
    .unwrap();
    assert_eq!(
        int_values(&out),
        vec![3, 7, 11, 0, 4, 8, 3, 7, 11, 13, 17, 21, 14, 18, 22, 12, 16, 20]
    );
}

#[test]
fn gather_implicit_index_vector_dim_and_unsigned_indices() {
    // lax.gather(int8 [10,20,30,40,50], uint8 [[4,0],[2,200]][..., None], offset_dims=(),
    //   collapsed_slice_dims=(0,), start_index_map=(0,), (1,), mode=CLIP) = [[50,10],[30,50]].
    // Here index_vector_dim = rank(indices) = 2, so each index is a scalar.
    let dn = GatherDimensionNumbers {
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 2,
        ..Default::default()
    };
    let op = ints(&[5], DType::I8, &[10, 20, 30, 40, 50]);
    let idx = uints(&[2, 2], DType::U8, &[4, 0, 2, 200]);
    let out = run1(gather_op(dn, &[1]), vec![op, idx], tt(&[2, 2], DType::I8)).unwrap();
    assert_eq!(int_values(&out), vec![50, 10, 30, 50]);
}

#[test]
fn gather_with_no_indices_gives_an_empty_result() {
    let dn = GatherDimensionNumbers {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let idx = ints(&[0, 1], DType::I64, &[]);
    let out = run1(
        gather_op(dn, &[1, 3]),
        vec![iota_f32(&[2, 3]), idx],
        tt(&[0, 3], DType::F32),
    )
    .unwrap();
    assert_eq!(out.num_elements(), 0);
}

#[test]
fn gather_rejects_bad_attributes() {
    let dn = GatherDimensionNumbers {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 5,
        ..Default::default()
    };
    let r = run1(
        gather_op(dn.clone(), &[1, 3]),
        vec![iota_f32(&[2, 3]), ints(&[1, 1], DType::I32, &[0])],
        tt(&[1, 3], DType::F32),
    );
    assert_err_contains(r, &["index_vector_dim 5"]);
    let dn = GatherDimensionNumbers {
        index_vector_dim: 1,
        ..dn
    };
    let r = run1(
        gather_op(dn.clone(), &[1, 4]),
        vec![iota_f32(&[2, 3]), ints(&[1, 1], DType::I32, &[0])],
        tt(&[1, 4], DType::F32),
    );
    assert_err_contains(r, &["slice_sizes[1] = 4"]);
    let r = run1(
        gather_op(dn, &[1, 3]),
        vec![iota_f32(&[2, 3]), ints(&[1, 1], DType::I32, &[0])],
        tt(&[3, 1], DType::F32),
    );
    assert_err_contains(r, &["declared tensor<3x1xf32>", "tensor<1x3xf32>"]);
}

#[test]
fn scatter_spec_example() {
    // The StableHLO interpreter test scatter_op_test (stablehlo/tests/interpret/scatter.mlir).
    let inputs = ints(&[3, 4, 2], DType::I64, &(1..=24).collect::<Vec<_>>());
    let idx = ints(
        &[2, 3, 2],
        DType::I64,
        &[0, 2, 1, 0, 2, 1, 0, 1, 1, 0, 0, 9],
    );
    let updates = ints(&[2, 3, 2, 2], DType::I64, &[1; 24]);
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![2, 3],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![1, 0],
        index_vector_dim: 2,
        ..Default::default()
    };
    let out = run(
        scatter_op(dn),
        vec![inputs, idx, updates],
        vec![tt(&[3, 4, 2], DType::I64)],
        &mut add_region(DType::I64),
    )
    .unwrap();
    assert_eq!(
        int_values(&out[0]),
        vec![
            1, 2, 5, 6, 7, 8, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 21, 22, 23, 24
        ]
    );
}

#[test]
fn scatter_with_batching_dims_spec_example() {
    // scatter_op_with_batching_dim_test (stablehlo/tests/interpret/scatter.mlir).
    let inputs = ints(&[2, 3, 4, 2], DType::I64, &(1..=48).collect::<Vec<_>>());
    let idx = ints(
        &[2, 2, 3, 2],
        DType::I64,
        &[
            0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0,
        ],
    );
    let updates = ints(&[2, 2, 3, 2, 2], DType::I64, &[1; 48]);
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![3, 4],
        inserted_window_dims: vec![1],
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![1],
        scatter_dims_to_operand_dims: vec![2, 1],
        index_vector_dim: 3,
    };
    let out = run(
        scatter_op(dn),
        vec![inputs, idx, updates],
        vec![tt(&[2, 3, 4, 2], DType::I64)],
        &mut add_region(DType::I64),
    )
    .unwrap();
    assert_eq!(
        int_values(&out[0]),
        vec![
            3, 4, 6, 7, 6, 7, 7, 8, 9, 10, 11, 12, 15, 16, 17, 18, 17, 18, 19, 20, 22, 23, 24, 25,
            25, 26, 28, 29, 30, 31, 31, 32, 35, 36, 38, 39, 38, 39, 39, 40, 41, 42, 44, 45, 46, 47,
            47, 48
        ]
    );
}

#[test]
fn scatter_skips_windows_that_straddle_the_edge() {
    // lax.scatter_add(zeros(6), [[4],[1],[-1]], [[1,2],[3,4],[5,6]],
    //   ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
    //   scatter_dims_to_operand_dims=(0,))) = [0,3,4,0,1,2]: the window at -1 is dropped whole.
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![1],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let out = run(
        scatter_op(dn),
        vec![
            f32s(&[6], &[0.; 6]),
            ints(&[3, 1], DType::I32, &[4, 1, -1]),
            f32s(&[3, 2], &[1., 2., 3., 4., 5., 6.]),
        ],
        vec![tt(&[6], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![0., 3., 4., 0., 1., 2.]);
}

#[test]
fn scatter_applies_updates_in_row_major_order() {
    // A non-commutative computation (10·old + new) with repeated indices shows the order:
    // position 1 gets updates 1, 2, 3 in turn → ((0·10+1)·10+2)·10+3 = 123 (by hand).
    let dn = ScatterDimensionNumbers {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let mut regions = ClosureRegions::none().with(vec![DType::I32], |a| {
        vec![Scalar::Int(f(a[0]) as i64 * 10 + f(a[1]) as i64)]
    });
    let out = run(
        scatter_op(dn),
        vec![
            ints(&[3], DType::I32, &[0, 0, 7]),
            ints(&[4, 1], DType::I32, &[1, 1, 3, 1]),
            ints(&[4], DType::I32, &[1, 2, 9, 3]),
        ],
        vec![tt(&[3], DType::I32)],
        &mut regions,
    )
    .unwrap();
    assert_eq!(int_values(&out[0]), vec![0, 123, 7]);
    assert_eq!(
        regions.calls,
        vec![3],
        "the out-of-bounds update is not applied"
    );
}

#[test]
fn scatter_with_two_inputs() {
    // A max-with-argmax scatter over two inputs (values, positions); by hand:
    // slot 0 sees (5, 10) then (2, 11) → keeps (5, 10); slot 1 sees (1, 12) → (1, 12).
    let dn = ScatterDimensionNumbers {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let mut regions = ClosureRegions::none().with(vec![DType::F32, DType::I32], |a| {
        if f(a[2]) > f(a[0]) {
            vec![a[2], a[3]]
        } else {
            vec![a[0], a[1]]
        }
    });
    let out = run(
        scatter_op(dn),
        vec![
            f32s(&[2], &[f64::NEG_INFINITY; 2]),
            ints(&[2], DType::I32, &[-1, -1]),
            ints(&[3, 1], DType::I64, &[0, 0, 1]),
            f32s(&[3], &[5., 2., 1.]),
            ints(&[3], DType::I32, &[10, 11, 12]),
        ],
        vec![tt(&[2], DType::F32), tt(&[2], DType::I32)],
        &mut regions,
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![5., 1.]);
    assert_eq!(int_values(&out[1]), vec![10, 12]);
}

#[test]
fn scatter_rejects_mismatched_shapes() {
    let dn = ScatterDimensionNumbers {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let r = run(
        scatter_op(dn),
        vec![
            f32s(&[2], &[0.; 2]),
            ints(&[3, 1], DType::I64, &[0, 0, 1]),
            f32s(&[2], &[5., 2.]),
        ],
        vec![tt(&[2], DType::F32)],
        &mut add_region(DType::F32),
    );
    assert_err_contains(r, &["update scatter dimensions", "[2]", "[3]"]);
}

#[test]
fn gather_from_an_empty_operand_is_an_error_not_a_panic() {
    // slice size 0 on a collapsed dimension of a size-0 operand: the spec's constraints allow
    // it, but there is no element to read.
    let dn = GatherDimensionNumbers {
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let r = run1(
        gather_op(dn, &[0]),
        vec![f32s(&[0], &[]), ints(&[1, 1], DType::I32, &[0])],
        tt(&[1], DType::F32),
    );
    assert_err_contains(r, &["outside tensor<0xf32>"]);
}
