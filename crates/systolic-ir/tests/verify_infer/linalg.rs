use super::*;
use systolic_ir::{
    ConvAttrs, ConvDimensionNumbers, DotAlgorithm, DotDimensionNumbers, FftType, Precision,
    PrecisionType, TransposeKind,
};

fn dot_general(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> OpKind {
    OpKind::DotGeneral {
        dimension_numbers: DotDimensionNumbers {
            lhs_batching_dimensions: lb.to_vec(),
            rhs_batching_dimensions: rb.to_vec(),
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
        },
        precision_config: vec![Precision::Default, Precision::Default],
        algorithm: None,
    }
}

#[test]
fn dot_general_orders_batch_then_lhs_then_rhs_dimensions() {
    // The spec's example: batched 2x2x2 matrices.
    let x = i32t(&[2, 2, 2]);
    assert_eq!(
        infer(dot_general(&[0], &[0], &[2], &[1]), &[x.clone(), x.clone()]),
        Ok(vec![x])
    );
    // b x m x k  ·  b x k x n  with the rhs batch dim last: 4x2x3 · 3x5x4 -> 4x2x5.
    let r = infer(
        dot_general(&[0], &[2], &[2], &[0]),
        &[f32t(&[4, 2, 3]), f32t(&[3, 5, 4])],
    );
    assert_eq!(r, Ok(vec![f32t(&[4, 2, 5])]));
    // An outer product: no contraction.
    let r = infer(dot_general(&[], &[], &[], &[]), &[f32t(&[2]), f32t(&[3])]);
    assert_eq!(r, Ok(vec![f32t(&[2, 3])]));
}

#[test]
fn dot_general_takes_the_declared_preferred_element_type() {
    // What JAX prints for a bf16 matmul with preferred_element_type=f32.
    let bf = |s: &[i64]| t(s, DType::BF16);
    let k = dot_general(&[], &[], &[1], &[0]);
    let r = infer_decl(k.clone(), &[bf(&[2, 3]), bf(&[3, 4])], &[f32t(&[2, 4])]);
    assert_eq!(r, Ok(vec![f32t(&[2, 4])]));
    let i8t = |s: &[i64]| t(s, DType::I8);
    let r = infer_decl(k.clone(), &[i8t(&[2, 3]), i8t(&[3, 4])], &[i32t(&[2, 4])]);
    assert_eq!(r, Ok(vec![i32t(&[2, 4])]));
    // Mixed operand types need the declared type.
    expect_err(
        infer(k.clone(), &[bf(&[2, 3]), f32t(&[3, 4])]),
        "the result element type must be declared",
    );
    assert_eq!(
        infer_decl(k.clone(), &[bf(&[2, 3]), f32t(&[3, 4])], &[f32t(&[2, 4])]),
        Ok(vec![f32t(&[2, 4])])
    );
    expect_err(
        infer_decl(k, &[f32t(&[2, 3]), f32t(&[3, 4])], &[i32t(&[2, 4])]),
        "cannot have element type i32",
    );
}

#[test]
fn dot_general_rejects_bad_dimension_numbers() {
    let (a, b) = (f32t(&[2, 3]), f32t(&[4, 5]));
    let e = infer(dot_general(&[], &[], &[1], &[0]), &[a.clone(), b.clone()]).unwrap_err();
    assert_eq!(
        e,
        "contracting dimension 1 of lhs tensor<2x3xf32> (size 3) and 0 of rhs tensor<4x5xf32> (size 4) must be equal"
    );
    expect_err(
        infer(dot_general(&[], &[], &[1], &[]), &[a.clone(), b.clone()]),
        "must have the same length",
    );
    expect_err(
        infer(dot_general(&[0], &[], &[], &[]), &[a.clone(), b.clone()]),
        "must have the same length",
    );
    expect_err(
        infer(dot_general(&[], &[], &[2], &[0]), &[a.clone(), b.clone()]),
        "`lhs_contracting_dimensions` entry 2",
    );
    expect_err(
        infer(
            dot_general(&[0], &[0], &[0], &[1]),
            &[a.clone(), f32t(&[2, 2])],
        ),
        "repeats dimension 0",
    );
    expect_err(
        infer(dot_general(&[0], &[0], &[], &[]), &[a.clone(), b.clone()]),
        "batching dimension 0",
    );
    let bad_precision = OpKind::DotGeneral {
        dimension_numbers: DotDimensionNumbers::default(),
        precision_config: vec![Precision::High],
        algorithm: None,
    };
    expect_err(
        infer(bad_precision, &[a, b]),
        "`precision_config` has 1 entry; it must have 0 or 2",
    );
}

#[test]
fn dot_handles_vectors_and_matrices() {
    let k = OpKind::Dot {
        precision_config: vec![],
    };
    assert_eq!(
        infer(k.clone(), &[f32t(&[3]), f32t(&[3])]),
        Ok(vec![f32t(&[])])
    );
    assert_eq!(
        infer(k.clone(), &[f32t(&[2, 3]), f32t(&[3])]),
        Ok(vec![f32t(&[2])])
    );
    assert_eq!(
        infer(k.clone(), &[f32t(&[3]), f32t(&[3, 4])]),
        Ok(vec![f32t(&[4])])
    );
    assert_eq!(
        infer(k.clone(), &[f32t(&[1, 784]), f32t(&[784, 10])]),
        Ok(vec![f32t(&[1, 10])])
    );
    expect_err(
        infer(k.clone(), &[f32t(&[2, 3]), f32t(&[4])]),
        "contracting dimensions",
    );
    expect_err(
        infer(k, &[f32t(&[2, 3, 4]), f32t(&[4])]),
        "vectors or matrices",
    );
}

fn conv_dn(input: [i64; 4], kernel: [i64; 4], output: [i64; 4]) -> ConvDimensionNumbers {
    // Each array: batch/in-feature/out-feature positions then two spatial dimensions, in the
    // order [b, f, s0, s1] for input/output and [i, o, s0, s1] for the kernel.
    ConvDimensionNumbers {
        input_batch_dimension: input[0],
        input_feature_dimension: input[1],
        input_spatial_dimensions: vec![input[2], input[3]],
        kernel_input_feature_dimension: kernel[0],
        kernel_output_feature_dimension: kernel[1],
        kernel_spatial_dimensions: vec![kernel[2], kernel[3]],
        output_batch_dimension: output[0],
        output_feature_dimension: output[1],
        output_spatial_dimensions: vec![output[2], output[3]],
    }
}

const NHWC: [i64; 4] = [0, 3, 1, 2];
const HWIO: [i64; 4] = [2, 3, 0, 1];
const NCHW: [i64; 4] = [0, 1, 2, 3];
const OIHW: [i64; 4] = [1, 0, 2, 3];

fn conv(dn: ConvDimensionNumbers) -> ConvAttrs {
    ConvAttrs {
        dimension_numbers: dn,
        feature_group_count: 1,
        batch_group_count: 1,
        ..Default::default()
    }
}

#[test]
fn convolution_follows_the_spec_example() {
    let mut a = conv(conv_dn(NHWC, HWIO, NHWC));
    a.window_strides = Some(vec![4, 4]);
    a.padding = Some(vec![(0, 0), (0, 0)]);
    a.lhs_dilation = Some(vec![2, 2]);
    a.rhs_dilation = Some(vec![1, 1]);
    a.window_reversal = Some(vec![false, false]);
    a.precision_config = vec![Precision::Default, Precision::Default];
    let r = infer(
        OpKind::Convolution(a),
        &[i32t(&[1, 4, 4, 1]), i32t(&[3, 3, 1, 1])],
    );
    assert_eq!(r, Ok(vec![i32t(&[1, 2, 2, 1])]));
}

#[test]
fn convolution_shapes_match_jax() {
    // lax.conv_general_dilated(zeros(2,8,10,10), zeros(16,4,3,3), (2,1), ((1,1),(0,0)),
    //   rhs_dilation=(1,2), feature_group_count=2).shape == (2, 16, 5, 6)
    let mut a = conv(conv_dn(NCHW, OIHW, NCHW));
    a.window_strides = Some(vec![2, 1]);
    a.padding = Some(vec![(1, 1), (0, 0)]);
    a.rhs_dilation = Some(vec![1, 2]);
    a.feature_group_count = 2;
    let r = infer(
        OpKind::Convolution(a),
        &[f32t(&[2, 8, 10, 10]), f32t(&[16, 4, 3, 3])],
    );
    assert_eq!(r, Ok(vec![f32t(&[2, 16, 5, 6])]));
    // zeros(4,3,5,5) * zeros(6,3,2,2), VALID, batch_group_count=2 -> (2, 6, 4, 4)
    let mut a = conv(conv_dn(NCHW, OIHW, NCHW));
    a.batch_group_count = 2;
    let r = infer(
        OpKind::Convolution(a),
        &[f32t(&[4, 3, 5, 5]), f32t(&[6, 3, 2, 2])],
    );
    assert_eq!(r, Ok(vec![f32t(&[2, 6, 4, 4])]));
    // NHWC zeros(1,5,5,2) * HWIO zeros(3,3,2,4), padding ((2,-1),(0,0)), lhs_dilation (2,1)
    //   -> (1, 8, 3, 4)
    let mut a = conv(conv_dn(NHWC, HWIO, NHWC));
    a.padding = Some(vec![(2, -1), (0, 0)]);
    a.lhs_dilation = Some(vec![2, 1]);
    let r = infer(
        OpKind::Convolution(a),
        &[f32t(&[1, 5, 5, 2]), f32t(&[3, 3, 2, 4])],
    );
    assert_eq!(r, Ok(vec![f32t(&[1, 8, 3, 4])]));
}

#[test]
fn convolution_rejects_bad_attributes() {
    let ops = [f32t(&[2, 8, 10, 10]), f32t(&[16, 4, 3, 3])];
    let run = |f: &dyn Fn(&mut ConvAttrs)| {
        let mut a = conv(conv_dn(NCHW, OIHW, NCHW));
        a.feature_group_count = 2;
        f(&mut a);
        infer(OpKind::Convolution(a), &ops)
    };
    assert!(run(&|_| {}).is_ok());
    let e = run(&|a| a.feature_group_count = 1).unwrap_err();
    assert_eq!(
        e,
        "the kernel's input feature size 4 must be the input feature size 8 / feature_group_count 1"
    );
    expect_err(
        run(&|a| a.feature_group_count = 3),
        "not divisible by feature_group_count 3",
    );
    expect_err(run(&|a| a.batch_group_count = 2), "cannot both exceed 1");
    expect_err(run(&|a| a.batch_group_count = 0), "must be positive");
    expect_err(
        run(&|a| a.window_strides = Some(vec![1])),
        "`window_strides` has 1 entry but the number of spatial dimensions is 2",
    );
    expect_err(
        run(&|a| a.window_strides = Some(vec![1, 0])),
        "`window_strides` [1, 0] has the entry 0",
    );
    expect_err(
        run(&|a| a.rhs_dilation = Some(vec![0, 1])),
        "`rhs_dilation`",
    );
    expect_err(
        run(&|a| a.window_reversal = Some(vec![true])),
        "`window_reversal` has 1 entry",
    );
    expect_err(
        run(&|a| a.dimension_numbers.input_feature_dimension = 0),
        "repeats dimension 0",
    );
    expect_err(
        run(&|a| a.dimension_numbers.output_spatial_dimensions = vec![2, 4]),
        "entry 4 is out of range",
    );
    expect_err(
        run(&|a| a.dimension_numbers.kernel_spatial_dimensions = vec![2]),
        "kernel has 1 spatial dimensions but rank 4 needs 2",
    );
    expect_err(
        infer(
            OpKind::Convolution(conv(conv_dn(NCHW, OIHW, NCHW))),
            &[f32t(&[2, 8, 10]), f32t(&[16, 4, 3, 3])],
        ),
        "same rank",
    );
}

#[test]
fn triangular_solve_and_cholesky() {
    let k = |left| OpKind::TriangularSolve {
        left_side: left,
        lower: true,
        unit_diagonal: false,
        transpose_a: TransposeKind::NoTranspose,
    };
    let a = f32t(&[2, 3, 3]);
    assert_eq!(
        infer(k(true), &[a.clone(), f32t(&[2, 3, 5])]),
        Ok(vec![f32t(&[2, 3, 5])])
    );
    assert_eq!(
        infer(k(false), &[a.clone(), f32t(&[2, 5, 3])]),
        Ok(vec![f32t(&[2, 5, 3])])
    );
    expect_err(
        infer(k(true), &[a.clone(), f32t(&[2, 5, 3])]),
        "dimension 1 must equal a's matrix size 3",
    );
    expect_err(
        infer(k(true), &[f32t(&[2, 3, 4]), f32t(&[2, 3, 5])]),
        "batch of square matrices",
    );
    expect_err(
        infer(k(true), &[a.clone(), f32t(&[1, 3, 5])]),
        "same batch dimensions",
    );
    expect_err(
        infer(k(true), &[i32t(&[3, 3]), i32t(&[3, 3])]),
        "floating-point",
    );
    let c = OpKind::Cholesky { lower: true };
    assert_eq!(infer(c.clone(), std::slice::from_ref(&a)), Ok(vec![a]));
    expect_err(infer(c.clone(), &[f32t(&[3])]), "batch of square matrices");
    expect_err(infer(c, &[f32t(&[3, 4])]), "batch of square matrices");
}

#[test]
fn fft_types_follow_the_spec() {
    let k = |fft_type: FftType, len: &[i64]| OpKind::Fft {
        fft_type,
        fft_length: len.to_vec(),
    };
    let t = |shape: &[i64], d: DType| Type::tensor(shape.to_vec(), d);
    // RFFT: f32 → complex<f32>, the last transformed dimension n/2 + 1.
    assert_eq!(
        infer(k(FftType::Rfft, &[8]), &[f32t(&[3, 8])]),
        Ok(vec![t(&[3, 5], DType::C64)])
    );
    assert_eq!(
        infer(k(FftType::Rfft, &[4, 7]), &[t(&[4, 7], DType::F64)]),
        Ok(vec![t(&[4, 4], DType::C128)])
    );
    // IRFFT: back, the operand holding n/2 + 1.
    assert_eq!(
        infer(k(FftType::Irfft, &[8]), &[t(&[3, 5], DType::C64)]),
        Ok(vec![f32t(&[3, 8])])
    );
    assert_eq!(
        infer(k(FftType::Irfft, &[7]), &[t(&[4], DType::C64)]),
        Ok(vec![f32t(&[7])])
    );
    // FFT and IFFT keep the type.
    let c = t(&[2, 4, 6], DType::C128);
    assert_eq!(
        infer(k(FftType::Ifft, &[4, 6]), std::slice::from_ref(&c)),
        Ok(vec![c.clone()])
    );
    expect_err(infer(k(FftType::Fft, &[6]), &[f32t(&[6])]), "complex type");
    expect_err(
        infer(k(FftType::Rfft, &[6]), &[t(&[6], DType::C64)]),
        "f32 or f64",
    );
    expect_err(
        infer(k(FftType::Rfft, &[6]), &[t(&[6], DType::BF16)]),
        "f32 or f64",
    );
    expect_err(
        infer(k(FftType::Fft, &[4]), std::slice::from_ref(&c)),
        "must be [4]",
    );
    expect_err(
        infer(k(FftType::Irfft, &[6]), &[t(&[6], DType::C64)]),
        "must be [4]",
    );
    expect_err(
        infer(k(FftType::Rfft, &[]), &[f32t(&[4])]),
        "must have 1 to 3 entries",
    );
    expect_err(
        infer(k(FftType::Rfft, &[2, 2]), &[f32t(&[4])]),
        "fewer dimensions",
    );
}

#[test]
fn batch_norms_follow_the_spec_examples() {
    let x = f32t(&[2, 2, 2]);
    let v = f32t(&[2]);
    let inf = OpKind::BatchNormInference {
        epsilon: 0.0,
        feature_index: 2,
    };
    let five = [x.clone(), v.clone(), v.clone(), v.clone(), v.clone()];
    assert_eq!(infer(inf, &five), Ok(vec![x.clone()]));
    let train = OpKind::BatchNormTraining {
        epsilon: 0.0,
        feature_index: 2,
    };
    assert_eq!(
        infer(train, &[x.clone(), v.clone(), v.clone()]),
        Ok(vec![x.clone(), v.clone(), v.clone()])
    );
    let grad = OpKind::BatchNormGrad {
        epsilon: 0.0,
        feature_index: 2,
    };
    let grad_ops = [x.clone(), v.clone(), v.clone(), v.clone(), x.clone()];
    assert_eq!(
        infer(grad.clone(), &grad_ops),
        Ok(vec![x.clone(), v.clone(), v.clone()])
    );
    let mut bad = grad_ops.clone();
    bad[4] = f32t(&[2, 2, 1]);
    expect_err(infer(grad, &bad), "grad_output has type tensor<2x2x1xf32>");
    let inf3 = OpKind::BatchNormInference {
        epsilon: 0.0,
        feature_index: 3,
    };
    expect_err(
        infer(inf3, &five),
        "`feature_index` entry 3 is out of range",
    );
    let inf0 = OpKind::BatchNormInference {
        epsilon: 0.0,
        feature_index: 0,
    };
    let mut bad = five.clone();
    bad[2] = f32t(&[3]);
    expect_err(
        infer(inf0, &bad),
        "offset has type tensor<3xf32> but must be tensor<2xf32>",
    );
}

#[test]
fn dot_general_algorithms_need_default_precision_and_positive_counts() {
    let algorithm = |components: i64| DotAlgorithm {
        lhs_precision_type: PrecisionType::Type(t(&[], DType::BF16)),
        rhs_precision_type: PrecisionType::Type(t(&[], DType::BF16)),
        accumulation_type: f32t(&[]),
        lhs_component_count: components,
        rhs_component_count: components,
        num_primitive_operations: 6,
        allow_imprecise_accumulation: false,
    };
    let k = |precision: Precision, components: i64| OpKind::DotGeneral {
        dimension_numbers: DotDimensionNumbers {
            lhs_contracting_dimensions: vec![1],
            rhs_contracting_dimensions: vec![0],
            ..Default::default()
        },
        precision_config: vec![precision, precision],
        algorithm: Some(algorithm(components)),
    };
    let ops = [f32t(&[2, 3]), f32t(&[3, 4])];
    assert_eq!(
        infer(k(Precision::Default, 3), &ops),
        Ok(vec![f32t(&[2, 4])])
    );
    expect_err(
        infer(k(Precision::Highest, 3), &ops),
        "must be DEFAULT when an algorithm is given",
    );
    expect_err(
        infer(k(Precision::Default, 0), &ops),
        "lhs_component_count is 0",
    );
}
