//! Tests of the linear algebra ops in the reference interpreter. Expected values come from JAX
//! 0.10.2 on CPU (the call is named next to each) or are computed by hand where said.

use crate::support;

use support::*;
use systolic_ir::{DType, DotDimensionNumbers, OpKind};

fn dot_general(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> OpKind {
    OpKind::DotGeneral {
        dimension_numbers: DotDimensionNumbers {
            lhs_batching_dimensions: lb.to_vec(),
            rhs_batching_dimensions: rb.to_vec(),
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
        },
        precision_config: vec![],
        algorithm: None,
    }
}

#[test]
fn dot_general_with_batch_dims_in_the_middle() {
    // l = (arange(24.).reshape(2,3,4) - 7) / 4; r = arange(40.).reshape(4,2,5) % 7 - 3
    // lax.dot_general(l, r, (((2,),(0,)), ((0,),(1,)))) → shape (2,3,5)
    let l: Vec<f64> = (0..24).map(|x| (x as f64 - 7.) / 4.).collect();
    let r: Vec<f64> = (0..40).map(|x| (x % 7) as f64 - 3.).collect();
    let out = run1(
        dot_general(&[0], &[1], &[2], &[0]),
        vec![f32s(&[2, 3, 4], &l), f32s(&[4, 2, 5], &r)],
        tt(&[2, 3, 5], DType::F32),
    )
    .unwrap();
    assert_eq!(
        values(&out),
        vec![
            2.5, 5.75, 0.25, -5.25, -0.25, 1.5, 1.75, 0.25, -1.25, 0.75, 0.5, -2.25, 0.25, 2.75,
            1.75, -4.75, 1.75, -0.5, -6.25, 0.25, -6.75, 3.75, -1.5, -10.25, 0.25, -8.75, 5.75,
            -2.5, -14.25, 0.25
        ]
    );
}

#[test]
fn dot_general_int8_accumulates_in_the_result_type() {
    // a = int8 [[100,-128,127],[3,4,5]], b = int8 [[100,2],[-128,3],[127,-1]]
    // lax.dot_general(a, b, (((1,),(0,)),((),())), preferred_element_type=int32)
    //   = [42513, -311, 423, 13]; without it (int8 result) = [17, -55, -89, 13].
    let a = ints(&[2, 3], DType::I8, &[100, -128, 127, 3, 4, 5]);
    let b = ints(&[3, 2], DType::I8, &[100, 2, -128, 3, 127, -1]);
    let wide = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![a.clone(), b.clone()],
        tt(&[2, 2], DType::I32),
    )
    .unwrap();
    assert_eq!(int_values(&wide), vec![42513, -311, 423, 13]);
    let narrow = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![a, b],
        tt(&[2, 2], DType::I8),
    )
    .unwrap();
    assert_eq!(int_values(&narrow), vec![17, -55, -89, 13]);
}

#[test]
fn dot_general_bf16_rounds_once() {
    // x = bf16 [[1, 2^-8, 2^-8, 2^-8]], y = ones((4,1), bf16):
    // preferred_element_type=float32 → 1.01171875; bf16 result → 1.015625 (one rounding of the
    // f32 sum; rounding after every add would give 1.0).
    let x = floats(&[1, 4], DType::BF16, &[1., 1. / 256., 1. / 256., 1. / 256.]);
    let y = floats(&[4, 1], DType::BF16, &[1.; 4]);
    let f32_out = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![x.clone(), y.clone()],
        tt(&[1, 1], DType::F32),
    )
    .unwrap();
    assert_eq!(values(&f32_out), vec![1.01171875]);
    let bf16_out = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![x, y],
        tt(&[1, 1], DType::BF16),
    )
    .unwrap();
    assert_eq!(values(&bf16_out), vec![1.015625]);
}

#[test]
fn dot_general_with_two_contracting_dims() {
    // lax.dot_general(arange(12.).reshape(2,3,2), arange(12.).reshape(3,2,2) - 5,
    //   (((2,1),(1,0)),((),()))) = [[35, 50], [35, 86]]
    let q: Vec<f64> = (0..12).map(|x| x as f64 - 5.).collect();
    let out = run1(
        dot_general(&[], &[], &[2, 1], &[1, 0]),
        vec![iota_f32(&[2, 3, 2]), f32s(&[3, 2, 2], &q)],
        tt(&[2, 2], DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out), vec![35., 50., 35., 86.]);
}

#[test]
fn dot_general_over_an_empty_contracting_dim_is_zero() {
    let out = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![f32s(&[2, 0], &[]), f32s(&[0, 3], &[])],
        tt(&[2, 3], DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out), vec![0.; 6]);
}

#[test]
fn dot_general_rejects_mismatched_contracting_sizes() {
    let r = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![iota_f32(&[2, 3]), iota_f32(&[2, 3])],
        tt(&[2, 3], DType::F32),
    );
    assert_err_contains(
        r,
        &["contracting dimensions differ in size", "tensor<2x3xf32>"],
    );
    let r = run1(
        dot_general(&[], &[], &[2], &[0]),
        vec![iota_f32(&[2, 3]), iota_f32(&[3, 2])],
        tt(&[2, 2], DType::F32),
    );
    assert_err_contains(r, &["lhs_contracting_dimensions [2]", "out of range"]);
}

#[test]
fn legacy_dot_matrix_vector() {
    // By hand: [[1,2,3],[4,5,6]] · [1,0,-1] = [-2, -2].
    let out = run1(
        OpKind::Dot {
            precision_config: vec![],
        },
        vec![
            f32s(&[2, 3], &[1., 2., 3., 4., 5., 6.]),
            f32s(&[3], &[1., 0., -1.]),
        ],
        tt(&[2], DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out), vec![-2., -2.]);
    let r = run1(
        OpKind::Dot {
            precision_config: vec![],
        },
        vec![iota_f32(&[1, 1, 1]), f32s(&[1], &[1.])],
        tt(&[1, 1], DType::F32),
    );
    assert_err_contains(r, &["rank 1 or 2"]);
}

#[test]
fn rfft_computes_and_checks_its_result_type() {
    let rfft = OpKind::Fft {
        fft_type: systolic_ir::FftType::Rfft,
        fft_length: vec![4],
    };
    let x = || vec![f32s(&[4], &[1., 2., 3., 4.])];
    let r = run1(rfft.clone(), x(), tt(&[3], DType::C64)).unwrap();
    let want = [(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)];
    let want = want.map(|(re, im)| systolic_ir::Complex64::new(re, im));
    assert_eq!(r.data(), &systolic_ir::Data::Complex(want.to_vec()));
    assert_err_contains(
        run1(rfft, x(), tt(&[3], DType::F32)),
        &["RFFT", "tensor<3xf32>"],
    );
}

fn conv(
    dn: systolic_ir::ConvDimensionNumbers,
    strides: &[i64],
    padding: &[(i64, i64)],
    lhs_dilation: &[i64],
    rhs_dilation: &[i64],
    groups: (i64, i64),
) -> systolic_ir::ConvAttrs {
    systolic_ir::ConvAttrs {
        dimension_numbers: dn,
        window_strides: Some(strides.to_vec()),
        padding: Some(padding.to_vec()),
        lhs_dilation: Some(lhs_dilation.to_vec()),
        rhs_dilation: Some(rhs_dilation.to_vec()),
        window_reversal: None,
        feature_group_count: groups.0,
        batch_group_count: groups.1,
        precision_config: vec![],
    }
}

/// `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]`.
fn nchw() -> systolic_ir::ConvDimensionNumbers {
    systolic_ir::ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 1,
        input_spatial_dimensions: vec![2, 3],
        kernel_input_feature_dimension: 1,
        kernel_output_feature_dimension: 0,
        kernel_spatial_dimensions: vec![2, 3],
        output_batch_dimension: 0,
        output_feature_dimension: 1,
        output_spatial_dimensions: vec![2, 3],
    }
}

/// `[b, 0, f]x[0, i, o]->[b, 0, f]`.
fn nwc() -> systolic_ir::ConvDimensionNumbers {
    systolic_ir::ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 2,
        input_spatial_dimensions: vec![1],
        kernel_input_feature_dimension: 1,
        kernel_output_feature_dimension: 2,
        kernel_spatial_dimensions: vec![0],
        output_batch_dimension: 0,
        output_feature_dimension: 2,
        output_spatial_dimensions: vec![1],
    }
}

/// `(i % m) - s` for i in 0..n, as f32.
fn sawtooth(shape: &[i64], m: i64, s: i64) -> systolic_ir::Tensor {
    let n: i64 = shape.iter().product();
    f32s(
        shape,
        &(0..n).map(|i| (i % m - s) as f64).collect::<Vec<_>>(),
    )
}

#[test]
fn convolution_with_groups_strides_padding_and_dilations() {
    // x = arange(160.).reshape(2,4,5,4) % 11 - 5; k = arange(72.).reshape(6,2,3,2) % 5 - 2
    // lax.conv_general_dilated(x, k, window_strides=(2,1), padding=((1,2),(0,1)),
    //   lhs_dilation=(1,2), rhs_dilation=(2,1), dimension_numbers=('NCHW','OIHW','NCHW'),
    //   feature_group_count=2) → shape (2,6,2,7)
    let attrs = conv(nchw(), &[2, 1], &[(1, 2), (0, 1)], &[1, 2], &[2, 1], (2, 1));
    let out = run1(
        OpKind::Convolution(attrs),
        vec![
            sawtooth(&[2, 4, 5, 4], 11, 5),
            sawtooth(&[6, 2, 3, 2], 5, 2),
        ],
        tt(&[2, 6, 2, 7], DType::F32),
    )
    .unwrap();
    let want: Vec<f64> = [
        -21, 7, 2, 7, 3, 7, 4, 10, -13, -3, -11, -5, -9, -7, 8, -3, 7, -5, 6, -7, 5, -21, 7, 2, 7,
        3, 7, 4, 7, 2, -13, 3, -11, 4, -9, 8, -3, 7, -5, 6, -7, 5, -4, -22, -4, -1, -26, 9, -4, 10,
        9, 12, -1, 14, -22, 5, 7, 12, 5, 14, 14, 5, 12, -4, -22, -4, -1, -26, 9, -4, 8, -4, 9, -26,
        -1, -4, -22, 7, 12, 5, 14, 14, 5, 12, 4, 7, 5, 7, 6, 7, 7, -7, -7, -9, -5, -11, -3, -13, 5,
        -9, 4, -11, 3, -13, 2, 4, 7, 5, 7, 6, 7, 7, -9, 5, -7, 6, -5, 7, -3, 5, -9, 4, -11, 3, -13,
        2, -4, 8, -4, 7, 7, 6, 7, 5, -21, 7, 2, -13, 3, -11, 12, 7, 10, -13, -3, -11, -5, -4, 8,
        -4, 7, 7, 6, 7, -22, -4, -21, 7, 2, 7, 3, 12, 7, 10, -13, -3, -11, -5,
    ]
    .iter()
    .map(|&v| v as f64)
    .collect();
    assert_eq!(values(&out), want);
}

#[test]
fn convolution_with_batch_groups() {
    // x = arange(72.).reshape(4,6,3) % 7 - 3; k = arange(36.).reshape(3,3,4) % 5 - 2
    // lax.conv_general_dilated(x, k, (1,), ((0,0),), dimension_numbers=('NWC','WIO','NWC'),
    //   batch_group_count=2) → shape (2,4,4)
    let attrs = conv(nwc(), &[1], &[(0, 0)], &[1], &[1], (1, 2));
    let out = run1(
        OpKind::Convolution(attrs),
        vec![sawtooth(&[4, 6, 3], 7, 3), sawtooth(&[3, 3, 4], 5, 2)],
        tt(&[2, 4, 4], DType::F32),
    )
    .unwrap();
    let want: Vec<f64> = [
        -1, -11, 10, 7, 9, 10, -14, -6, -9, -4, 4, 9, 1, 10, 1, -18, 10, 3, -1, -1, -1, -11, 10, 7,
        9, 10, -14, -6, -9, -4, 4, 9,
    ]
    .iter()
    .map(|&v| v as f64)
    .collect();
    assert_eq!(values(&out), want);
}

#[test]
fn convolution_window_reversal_flips_the_kernel() {
    // A convolution with window_reversal equals one with the kernel reversed by hand:
    // x = [1,2,3,4], k = [1,10,100] → with reversal the taps are [100,10,1]:
    // [1·100+2·10+3, 2·100+3·10+4] = [123, 234]; without: [321, 432].
    let x = f32s(&[1, 4, 1], &[1., 2., 3., 4.]);
    let k = f32s(&[3, 1, 1], &[1., 10., 100.]);
    let mut attrs = conv(nwc(), &[1], &[(0, 0)], &[1], &[1], (1, 1));
    let plain = run1(
        OpKind::Convolution(attrs.clone()),
        vec![x.clone(), k.clone()],
        tt(&[1, 2, 1], DType::F32),
    )
    .unwrap();
    assert_eq!(values(&plain), vec![321., 432.]);
    attrs.window_reversal = Some(vec![true]);
    let reversed = run1(
        OpKind::Convolution(attrs),
        vec![x, k],
        tt(&[1, 2, 1], DType::F32),
    )
    .unwrap();
    assert_eq!(values(&reversed), vec![123., 234.]);
}

#[test]
fn convolution_of_int8_accumulates_in_i32() {
    // By hand: x = int8 [100, 100, 100], k = int8 [100, 100] → [20000, 20000] in i32.
    let x = ints(&[1, 3, 1], DType::I8, &[100, 100, 100]);
    let k = ints(&[2, 1, 1], DType::I8, &[100, 100]);
    let out = run1(
        OpKind::Convolution(conv(nwc(), &[1], &[(0, 0)], &[1], &[1], (1, 1))),
        vec![x, k],
        tt(&[1, 2, 1], DType::I32),
    )
    .unwrap();
    assert_eq!(int_values(&out), vec![20000, 20000]);
}

#[test]
fn convolution_rejects_bad_feature_counts() {
    let r = run1(
        OpKind::Convolution(conv(nwc(), &[1], &[(0, 0)], &[1], &[1], (2, 1))),
        vec![sawtooth(&[1, 3, 3], 5, 2), sawtooth(&[2, 3, 2], 5, 2)],
        tt(&[1, 2, 2], DType::F32),
    );
    assert_err_contains(r, &["feature_group_count 2", "tensor<1x3x3xf32>"]);
    let mut bad = nwc();
    bad.input_spatial_dimensions = vec![0];
    let r = run1(
        OpKind::Convolution(conv(bad, &[1], &[(0, 0)], &[1], &[1], (1, 1))),
        vec![sawtooth(&[1, 3, 3], 5, 2), sawtooth(&[2, 3, 2], 5, 2)],
        tt(&[1, 2, 2], DType::F32),
    );
    assert_err_contains(r, &["input dimension numbers"]);
}

fn f64s(shape: &[i64], v: &[f64]) -> systolic_ir::Tensor {
    floats(shape, DType::F64, v)
}

/// a = [[2, ·, ·], [1, 4, ·], [-1, 3, 5]] with garbage (99, 98, 97) in the unread triangle.
const A_LOWER: [f64; 9] = [2., 99., 98., 1., 4., 97., -1., 3., 5.];

fn transpose3(m: &[f64; 9]) -> Vec<f64> {
    (0..9).map(|k| m[(k % 3) * 3 + k / 3]).collect()
}

#[test]
fn triangular_solve_every_side_triangle_transpose_and_diagonal() {
    // With jax_enable_x64: for a = A_LOWER (or its transpose for lower=False),
    // b = [[1,2],[3,4],[5,6]] (or its transpose for left_side=False):
    // lax.linalg.triangular_solve(a, b, left_side, lower, transpose_a, unit_diagonal)
    use systolic_ir::TransposeKind::*;
    let cases: [(bool, bool, bool, bool, [f64; 6]); 16] = [
        (
            true,
            true,
            false,
            false,
            [0.5, 1.0, 0.625, 0.75, 0.725, 0.95],
        ),
        (true, true, false, true, [1.0, 2.0, 2.0, 2.0, 0.0, 2.0]),
        (true, true, true, false, [1.0, 1.55, 0.0, 0.1, 1.0, 1.2]),
        (true, true, true, true, [18.0, 22.0, -12.0, -14.0, 5.0, 6.0]),
        (true, false, false, false, [1.0, 1.55, 0.0, 0.1, 1.0, 1.2]),
        (
            true,
            false,
            false,
            true,
            [18.0, 22.0, -12.0, -14.0, 5.0, 6.0],
        ),
        (
            true,
            false,
            true,
            false,
            [0.5, 1.0, 0.625, 0.75, 0.725, 0.95],
        ),
        (true, false, true, true, [1.0, 2.0, 2.0, 2.0, 0.0, 2.0]),
        (false, true, false, false, [1.0, 0.0, 1.0, 1.55, 0.1, 1.2]),
        (
            false,
            true,
            false,
            true,
            [18.0, -12.0, 5.0, 22.0, -14.0, 6.0],
        ),
        (
            false,
            true,
            true,
            false,
            [0.5, 0.625, 0.725, 1.0, 0.75, 0.95],
        ),
        (false, true, true, true, [1.0, 2.0, 0.0, 2.0, 2.0, 2.0]),
        (
            false,
            false,
            false,
            false,
            [0.5, 0.625, 0.725, 1.0, 0.75, 0.95],
        ),
        (false, false, false, true, [1.0, 2.0, 0.0, 2.0, 2.0, 2.0]),
        (false, false, true, false, [1.0, 0.0, 1.0, 1.55, 0.1, 1.2]),
        (
            false,
            false,
            true,
            true,
            [18.0, -12.0, 5.0, 22.0, -14.0, 6.0],
        ),
    ];
    for (left_side, lower, transpose, unit_diagonal, want) in cases {
        let a = if lower {
            A_LOWER.to_vec()
        } else {
            transpose3(&A_LOWER)
        };
        let (b, b_shape) = if left_side {
            (vec![1., 2., 3., 4., 5., 6.], [3, 2])
        } else {
            (vec![1., 3., 5., 2., 4., 6.], [2, 3])
        };
        let out = run1(
            OpKind::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a: if transpose { Transpose } else { NoTranspose },
            },
            vec![f64s(&[3, 3], &a), f64s(&b_shape, &b)],
            tt(&b_shape, DType::F64),
        )
        .unwrap();
        let case =
            format!("left={left_side} lower={lower} transpose={transpose} unit={unit_diagonal}");
        let got = values(&out);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{case}: got {got:?}, want {want:?}");
        }
    }
}

#[test]
fn triangular_solve_batched_f32() {
    // Two batches: the first as the left/lower case above, the second with b doubled, so its
    // solution doubles (by linearity) — [0.5, 1, .625, .75, .725, .95] and twice that.
    let mut a = A_LOWER.to_vec();
    a.extend_from_slice(&A_LOWER);
    let b = [1., 2., 3., 4., 5., 6., 2., 4., 6., 8., 10., 12.];
    let out = run1(
        OpKind::TriangularSolve {
            left_side: true,
            lower: true,
            unit_diagonal: false,
            transpose_a: systolic_ir::TransposeKind::Adjoint,
        },
        vec![f32s(&[2, 3, 3], &a), f32s(&[2, 3, 2], &b)],
        tt(&[2, 3, 2], DType::F32),
    )
    .unwrap();
    // Adjoint of a real matrix is its transpose: the left/lower/transpose case above.
    let want = [1.0, 1.55, 0.0, 0.1, 1.0, 1.2, 2.0, 3.1, 0.0, 0.2, 2.0, 2.4];
    assert_close(&values(&out), &want, 1e-6);
    let r = run1(
        OpKind::TriangularSolve {
            left_side: true,
            lower: true,
            unit_diagonal: false,
            transpose_a: systolic_ir::TransposeKind::NoTranspose,
        },
        vec![f32s(&[3, 3], &A_LOWER), f32s(&[2, 2], &[1., 2., 3., 4.])],
        tt(&[2, 2], DType::F32),
    );
    assert_err_contains(r, &["must have 3 rows"]);
}

/// Two symmetric positive definite matrices.
const SPD: [f64; 18] = [
    4., 2., 0.6, 2., 5., 1., 0.6, 1., 3., 9., -3., 1., -3., 5., 2., 1., 2., 7.,
];

/// jnp.linalg.cholesky(SPD) with jax_enable_x64.
const SPD_L: [f64; 18] = [
    2.0,
    0.0,
    0.0,
    1.0,
    2.0,
    0.0,
    0.3,
    0.35,
    1.6695807857064,
    3.0,
    0.0,
    0.0,
    -1.0,
    2.0,
    0.0,
    0.3333333333333333,
    1.1666666666666667,
    2.351122663277647,
];

#[test]
fn cholesky_lower_batched() {
    // Garbage in the strict upper triangle must be ignored.
    let mut a = SPD;
    for m in 0..2 {
        a[m * 9 + 1] = 77.;
        a[m * 9 + 5] = -77.;
    }
    let out = run1(
        OpKind::Cholesky { lower: true },
        vec![f64s(&[2, 3, 3], &a)],
        tt(&[2, 3, 3], DType::F64),
    )
    .unwrap();
    assert_close(&values(&out), &SPD_L, 1e-14);
}

#[test]
fn cholesky_upper_is_the_transposed_factor() {
    let mut a = SPD;
    for m in 0..2 {
        a[m * 9 + 3] = 55.;
    }
    let out = run1(
        OpKind::Cholesky { lower: false },
        vec![f64s(&[2, 3, 3], &a)],
        tt(&[2, 3, 3], DType::F64),
    )
    .unwrap();
    let want: Vec<f64> = (0..18)
        .map(|k| {
            let (m, i, j) = (k / 9, (k % 9) / 3, k % 3);
            SPD_L[m * 9 + j * 3 + i]
        })
        .collect();
    assert_close(&values(&out), &want, 1e-14);
}

#[test]
fn cholesky_of_a_non_positive_definite_matrix_is_nan() {
    // jnp.linalg.cholesky([[4, 2], [2, -3]]) is NaN; the second (identity) batch is unaffected.
    let out = run1(
        OpKind::Cholesky { lower: true },
        vec![f32s(&[2, 2, 2], &[4., 2., 2., -3., 1., 0., 0., 1.])],
        tt(&[2, 2, 2], DType::F32),
    )
    .unwrap();
    let v = values(&out);
    assert!(v[..4].iter().all(|x| x.is_nan()), "{v:?}");
    assert_eq!(v[4..], [1., 0., 0., 1.]);
    let r = run1(
        OpKind::Cholesky { lower: true },
        vec![f32s(&[2, 3], &[1.; 6])],
        tt(&[2, 3], DType::F32),
    );
    assert_err_contains(r, &["square"]);
}

/// x = arange(12.).reshape(2,3,2) ** 1.5 / 3 (feature dimension 1).
fn bn_x() -> Vec<f64> {
    (0..12).map(|i| (i as f64).powf(1.5) / 3.).collect()
}

const BN_SCALE: [f64; 3] = [1.5, -0.5, 2.0];
const BN_OFFSET: [f64; 3] = [0.1, 0.2, -0.3];
const BN_MEAN: [f64; 3] = [2.851433136179267, 4.8043330454518625, 7.273832431924346];
const BN_VAR: [f64; 3] = [7.424884625454426, 12.362828432823683, 17.09136175228557];

#[test]
fn batch_norm_training_matches_jax() {
    // With jax_enable_x64: m = x.mean((0,2)), v = x.var((0,2)),
    // out = scale·(x − m)/sqrt(v + 1e-3) + offset.
    let out = run(
        OpKind::BatchNormTraining {
            epsilon: 1e-3,
            feature_index: 1,
        },
        vec![
            f64s(&[2, 3, 2], &bn_x()),
            f64s(&[3], &BN_SCALE),
            f64s(&[3], &BN_OFFSET),
        ],
        vec![
            tt(&[2, 3, 2], DType::F64),
            tt(&[3], DType::F64),
            tt(&[3], DType::F64),
        ],
        &mut ClosureRegions::none(),
    )
    .unwrap();
    let want = [
        -1.4695687832215303,
        -1.2860857522611002,
        0.7491010298030465,
        0.636872421089846,
        -2.528757389568475,
        -2.0159181599308575,
        1.227070030652521,
        1.9285845048301093,
        -0.18935795837123198,
        -0.39661549252166034,
        1.280485327516131,
        2.0641902219832007,
    ];
    assert_close(&values(&out[0]), &want, 1e-12);
    assert_close(&values(&out[1]), &BN_MEAN, 1e-12);
    assert_close(&values(&out[2]), &BN_VAR, 1e-12);

    // Inference with the batch's statistics gives the same output.
    let inferred = run1(
        OpKind::BatchNormInference {
            epsilon: 1e-3,
            feature_index: 1,
        },
        vec![
            f64s(&[2, 3, 2], &bn_x()),
            f64s(&[3], &BN_SCALE),
            f64s(&[3], &BN_OFFSET),
            f64s(&[3], &BN_MEAN),
            f64s(&[3], &BN_VAR),
        ],
        tt(&[2, 3, 2], DType::F64),
    )
    .unwrap();
    assert_close(&values(&inferred), &want, 1e-12);
}

#[test]
fn batch_norm_grad_matches_jax_autodiff() {
    // jax.vjp of the training function above at (x, scale, offset), cotangent
    // g = sin(arange(12.)).reshape(2,3,2).
    let g: Vec<f64> = (0..12).map(|i| (i as f64).sin()).collect();
    let out = run(
        OpKind::BatchNormGrad {
            epsilon: 1e-3,
            feature_index: 1,
        },
        vec![
            f64s(&[2, 3, 2], &bn_x()),
            f64s(&[3], &BN_SCALE),
            f64s(&[3], &BN_MEAN),
            f64s(&[3], &BN_VAR),
            f64s(&[2, 3, 2], &g),
        ],
        vec![
            tt(&[2, 3, 2], DType::F64),
            tt(&[3], DType::F64),
            tt(&[3], DType::F64),
        ],
        &mut ClosureRegions::none(),
    )
    .unwrap();
    let gx = [
        -0.194626109556537,
        0.2717020531315007,
        -0.047613522214487766,
        0.06273917125280593,
        0.03541175594911211,
        -0.06404385782234823,
        -0.3022637645708557,
        0.22518782099589202,
        -0.04963761355529926,
        0.03451196451698111,
        0.12588728246212788,
        -0.09725518058889177,
    ];
    assert_close(&values(&out[0]), &gx, 1e-12);
    assert_close(
        &values(&out[1]),
        &[
            -0.18661084186998678,
            0.14028637400047606,
            0.05409013936430074,
        ],
        1e-12,
    );
    assert_close(
        &values(&out[2]),
        &[1.2190420853277597, 2.4518941667506873, -3.2597380874111397],
        1e-12,
    );
}

#[test]
fn batch_norm_rejects_a_bad_feature_index() {
    let r = run1(
        OpKind::BatchNormInference {
            epsilon: 1e-3,
            feature_index: 3,
        },
        vec![
            f64s(&[2, 3, 2], &bn_x()),
            f64s(&[3], &BN_SCALE),
            f64s(&[3], &BN_OFFSET),
            f64s(&[3], &BN_MEAN),
            f64s(&[3], &BN_VAR),
        ],
        tt(&[2, 3, 2], DType::F64),
    );
    assert_err_contains(r, &["feature_index 3"]);
    let r = run1(
        OpKind::BatchNormInference {
            epsilon: 1e-3,
            feature_index: 2,
        },
        vec![
            f64s(&[2, 3, 2], &bn_x()),
            f64s(&[3], &BN_SCALE),
            f64s(&[3], &BN_OFFSET),
            f64s(&[3], &BN_MEAN),
            f64s(&[3], &BN_VAR),
        ],
        tt(&[2, 3, 2], DType::F64),
    );
    assert_err_contains(r, &["scale must be tensor<2xf64>"]);
}

/// Signed zeros as XLA:CPU gives them (`np.signbit(jnp.dot(a, b))`, jax 0.10.2, f32):
/// `jnp.dot([-2., 0.], [0., -3.])` = +0 and `jnp.dot([-0., -0.], [1., 1.])` = +0 (sums start
/// from +0), but a one-term contraction is a plain product: `jnp.dot([-1.], [0.])` = -0, and
/// `jnp.outer([-1., 2.], [0., 1.])` has signbits [[1, 1], [0, 0]].
#[test]
fn dot_general_signed_zeros_match_xla() {
    let sign_bits = |out: &systolic_ir::Tensor| -> Vec<bool> {
        values(out).iter().map(|v| v.is_sign_negative()).collect()
    };
    let vector = |lhs: &[f64], rhs: &[f64]| {
        let k = lhs.len() as i64;
        run1(
            dot_general(&[], &[], &[0], &[0]),
            vec![f32s(&[k], lhs), f32s(&[k], rhs)],
            tt(&[], DType::F32),
        )
        .unwrap()
    };
    assert_eq!(sign_bits(&vector(&[-2., 0.], &[0., -3.])), vec![false]);
    assert_eq!(sign_bits(&vector(&[-0., -0.], &[1., 1.])), vec![false]);
    assert_eq!(sign_bits(&vector(&[-1.], &[0.])), vec![true]);
    let outer = run1(
        dot_general(&[], &[], &[1], &[0]),
        vec![f32s(&[2, 1], &[-1., 2.]), f32s(&[1, 2], &[0., 1.])],
        tt(&[2, 2], DType::F32),
    )
    .unwrap();
    assert_eq!(sign_bits(&outer), vec![true, true, false, false]);
}

/// `[b, f, 0]x[o, i, 0]->[b, f, 0]`, jax's default for 1-D `lax.conv_general_dilated`.
fn ncw() -> systolic_ir::ConvDimensionNumbers {
    systolic_ir::ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 1,
        input_spatial_dimensions: vec![2],
        kernel_input_feature_dimension: 1,
        kernel_output_feature_dimension: 0,
        kernel_spatial_dimensions: vec![2],
        output_batch_dimension: 0,
        output_feature_dimension: 1,
        output_spatial_dimensions: vec![2],
    }
}

/// Where XLA:CPU multiplies the zero padding by the weights and where it skips it. jax 0.10.2
/// (`inf = np.inf`, x = [[[1., 2., 3.]]], `lax.conv_general_dilated(x, w, strides, padding,
/// lhs_dilation=…)`, with jax_enable_x64 for f64):
/// - f32, w = [[[inf, 1, 1]]], padding [(1, 1)] → [nan, inf, inf] (0·inf in the padding);
/// - f64, same → [3, inf, inf] (padding skipped);
/// - f32, w = [[[inf, 1, 1]]], no padding, lhs_dilation (2,) → [inf, 2, inf] (holes skipped);
/// - f32, w = [[[1, 1, inf]]], padding [(1, 1)], lhs_dilation (2,) → [1, inf, 2, inf, 3];
/// - f32, w = [[[inf]]], padding [(1, 1)] → [0, inf, inf, inf, 0] (a 1-element kernel).
#[test]
fn convolution_multiplies_padding_only_where_xla_does() {
    let inf = f64::INFINITY;
    let x = |dtype| systolic_ir::Tensor::from_f64(vec![1, 1, 3], dtype, vec![1., 2., 3.]).unwrap();
    let w = |dtype, v: &[f64]| {
        systolic_ir::Tensor::from_f64(vec![1, 1, v.len() as i64], dtype, v.to_vec()).unwrap()
    };
    let run = |dtype, weights: &[f64], pad: (i64, i64), dilation: i64, out: i64| {
        values(
            &run1(
                OpKind::Convolution(conv(ncw(), &[1], &[pad], &[dilation], &[1], (1, 1))),
                vec![x(dtype), w(dtype, weights)],
                tt(&[1, 1, out], dtype),
            )
            .unwrap(),
        )
    };
    let got = run(DType::F32, &[inf, 1., 1.], (1, 1), 1, 3);
    assert!(got[0].is_nan() && got[1] == inf && got[2] == inf, "{got:?}");
    let got = run(DType::F16, &[inf, 1., 1.], (1, 1), 1, 3);
    assert!(got[0].is_nan(), "{got:?}");
    assert_eq!(
        run(DType::F64, &[inf, 1., 1.], (1, 1), 1, 3),
        vec![3., inf, inf]
    );
    assert_eq!(
        run(DType::F32, &[inf, 1., 1.], (0, 0), 2, 3),
        vec![inf, 2., inf]
    );
    assert_eq!(
        run(DType::F32, &[1., 1., inf], (1, 1), 2, 5),
        vec![1., inf, 2., inf, 3.]
    );
    assert_eq!(
        run(DType::F32, &[inf], (1, 1), 1, 5),
        vec![0., inf, inf, inf, 0.]
    );
}
