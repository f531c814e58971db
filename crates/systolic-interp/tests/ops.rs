//! Op implementations called directly: every dtype family, size-0 and size-1 shapes, and the
//! errors bad operands get (they name the types and never panic).

use systolic_interp::ops::{elementwise, shape};
use systolic_ir::{BinaryOp, DType, DTypeKind, Data, Tensor, TensorType, UnaryOp};

/// A tensor of `shape` holding 0, 1, 0, 1, … in any dtype.
fn zeros_and_ones(shape: &[i64], dtype: DType) -> Tensor {
    let n = shape.iter().product::<i64>() as usize;
    let bits: Vec<u64> = (0..n as u64).map(|i| i % 2).collect();
    // Bit pattern 1 is the value 1 for integers and booleans; for floats use real ones.
    let t = Tensor::from_bits(TensorType::new(shape.to_vec(), dtype), &bits).unwrap();
    if dtype.is_float() {
        let values = bits.iter().map(|&b| b as f64).collect();
        Tensor::from_f64(shape.to_vec(), dtype, values).unwrap()
    } else if dtype.is_complex() {
        let values = bits
            .iter()
            .map(|&b| systolic_ir::Complex64::new(b as f64, 0.0))
            .collect();
        Tensor::from_complex(shape.to_vec(), dtype, values).unwrap()
    } else {
        t
    }
}

const SHAPES: [&[i64]; 4] = [&[], &[0], &[1], &[2, 3]];

/// Every dtype that holds 0 and 1: all but f8E8M0FNU, a power-of-two scale type with no zero
/// (ml_dtypes reads 0 as NaN in it).
fn with_zero_and_one() -> impl Iterator<Item = DType> {
    DType::ALL.into_iter().filter(|&d| d != DType::F8E8M0FNU)
}

#[test]
fn convert_round_trips_zeros_and_ones_between_all_dtypes() {
    for from in with_zero_and_one() {
        for to in with_zero_and_one() {
            for shape in SHAPES {
                let x = zeros_and_ones(shape, from);
                let there = elementwise::convert(&x, &x.ty().with_dtype(to)).unwrap();
                let back = elementwise::convert(&there, x.ty()).unwrap();
                assert_eq!(back, x, "{from} -> {to} -> {from} on {shape:?}");
            }
        }
    }
}

#[test]
fn unary_ops_either_compute_or_name_the_dtype() {
    for op in UnaryOp::ALL {
        for dtype in DType::ALL {
            let x = zeros_and_ones(&[2], dtype);
            let out_dtype = match op {
                UnaryOp::IsFinite => DType::Bool,
                // The modulus and the parts of a complex number are of its parts' type.
                UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => dtype.component().unwrap_or(dtype),
                _ => dtype,
            };
            match elementwise::unary(op, &x, &x.ty().with_dtype(out_dtype)) {
                Ok(r) => assert_eq!(r.shape(), &[2]),
                Err(e) => assert!(
                    e.message == format!("not defined for element type {dtype}"),
                    "{} on {dtype}: {e}",
                    op.name()
                ),
            }
        }
    }
}

#[test]
fn binary_ops_either_compute_or_name_the_dtype() {
    for op in BinaryOp::ALL {
        for dtype in DType::ALL {
            for shape in SHAPES {
                let x = zeros_and_ones(shape, dtype);
                // `complex` makes complex numbers of its float operands.
                let out = match op {
                    BinaryOp::Complex => x.ty().with_dtype(dtype.complex_of().unwrap_or(dtype)),
                    _ => x.ty().clone(),
                };
                match elementwise::binary(op, &x, &x, &out) {
                    Ok(r) => assert_eq!(r.ty(), &out),
                    Err(e) => assert!(
                        e.message == format!("not defined for element type {dtype}"),
                        "{} on {dtype}: {e}",
                        op.name()
                    ),
                }
            }
        }
    }
}

#[test]
fn add_zero_and_multiply_one_are_identities_in_every_numeric_dtype() {
    for dtype in with_zero_and_one().filter(|d| !d.is_bool()) {
        let x = zeros_and_ones(&[2, 3], dtype);
        let zero = Tensor::zeros(x.ty().clone());
        let one = elementwise::binary(BinaryOp::Maximum, &x, &zero, x.ty()).unwrap();
        assert_eq!(
            elementwise::binary(BinaryOp::Add, &x, &zero, x.ty()).unwrap(),
            x,
            "{dtype}"
        );
        let ones = elementwise::convert(
            &Tensor::from_i64(vec![2, 3], DType::I64, vec![1; 6]).unwrap(),
            x.ty(),
        )
        .unwrap();
        assert_eq!(
            elementwise::binary(BinaryOp::Multiply, &x, &ones, x.ty()).unwrap(),
            x,
            "{dtype}"
        );
        assert_eq!(one, x, "{dtype}");
    }
}

#[test]
fn mismatched_operands_are_errors_naming_the_types() {
    let a = Tensor::zeros(TensorType::new(vec![2], DType::F32));
    let b = Tensor::zeros(TensorType::new(vec![3], DType::F32));
    let err = elementwise::binary(BinaryOp::Add, &a, &b, a.ty()).unwrap_err();
    assert_eq!(
        err.message,
        "operand types tensor<2xf32> and tensor<3xf32> differ"
    );
    let wrong_out = TensorType::new(vec![2], DType::F16);
    let err = elementwise::binary(BinaryOp::Add, &a, &a, &wrong_out).unwrap_err();
    assert!(err.message.contains("tensor<2xf16>"), "{err}");
    let pred = Tensor::zeros(TensorType::new(vec![3], DType::Bool));
    let err = elementwise::select(&pred, &a, &a, a.ty()).unwrap_err();
    assert!(err.message.contains("tensor<3xi1>"), "{err}");
}

#[test]
fn bitcast_round_trips_across_widths() {
    let x = Tensor::from_f64(vec![2], DType::F64, vec![1.5, -3.25e-300]).unwrap();
    for (dtype, pieces) in [(DType::U32, 2), (DType::I16, 4), (DType::U8, 8)] {
        let narrow = TensorType::new(vec![2, pieces], dtype);
        let split = elementwise::bitcast_convert(&x, &narrow).unwrap();
        let joined = elementwise::bitcast_convert(&split, x.ty()).unwrap();
        assert_eq!(joined, x, "via {dtype}");
    }
    let bytes = elementwise::bitcast_convert(&x, &TensorType::new(vec![2, 8], DType::U8)).unwrap();
    // 1.5 = 0x3FF8000000000000, least significant byte first.
    assert_eq!(
        bytes.to_f64_vec()[..8],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 248.0, 63.0]
    );
    let err =
        elementwise::bitcast_convert(&bytes, &TensorType::new(vec![4], DType::U32)).unwrap_err();
    assert!(err.message.contains("dimension of size 4"), "{err}");
}

#[test]
fn reduce_precision_to_bf16_format_matches_bf16_rounding() {
    let values = vec![1.00390625, 1.01171875, 3.4028234663852886e38, -0.1, 1e-40];
    let x = Tensor::from_f64(vec![5], DType::F32, values.clone()).unwrap();
    let r = elementwise::reduce_precision(&x, 8, 7, x.ty()).unwrap();
    let via_bf16: Vec<f64> = values
        .iter()
        .map(|&v| systolic_ir::numerics::round_to(DType::BF16, v as f32 as f64))
        .collect();
    // With all 8 exponent bits kept nothing underflows: subnormals are rounded like bf16's.
    assert_eq!(r.to_f64_vec(), via_bf16);
}

#[test]
fn shape_ops_reject_bad_attributes_with_the_types() {
    let x = Tensor::from_i64(vec![3], DType::I32, vec![1, 2, 3]).unwrap();
    let out = TensorType::new(vec![2], DType::I32);
    let err = shape::slice(&x, &[2], &[4], &[1], &out).unwrap_err();
    assert!(
        err.message.contains("dimension 0 of tensor<3xi32>"),
        "{err}"
    );
    let err = shape::slice(&x, &[0], &[2], &[0], &out).unwrap_err();
    assert!(err.message.contains("stride 0 > 0"), "{err}");

    let m = Tensor::zeros(TensorType::new(vec![2, 3], DType::F32));
    let err = shape::transpose(&m, &[0, 0], &TensorType::new(vec![2, 2], DType::F32)).unwrap_err();
    assert!(err.message.contains("repeats dimension 0"), "{err}");
    let err =
        shape::broadcast_in_dim(&m, &[0, 1], &TensorType::new(vec![2, 4], DType::F32)).unwrap_err();
    assert!(
        err.message.contains("size 3") && err.message.contains("size 4"),
        "{err}"
    );
    let err = shape::reshape(&m, &TensorType::new(vec![5], DType::F32)).unwrap_err();
    assert_eq!(
        err.message,
        "cannot reshape tensor<2x3xf32> to tensor<5xf32>"
    );

    let other = Tensor::zeros(TensorType::new(vec![2, 2], DType::F32));
    let err = shape::concatenate(
        &[m.clone(), other],
        0,
        &TensorType::new(vec![4, 3], DType::F32),
    )
    .unwrap_err();
    assert!(err.message.contains("input 1 tensor<2x2xf32>"), "{err}");

    let index = Tensor::from_i64(vec![], DType::I32, vec![0]).unwrap();
    let err = shape::dynamic_slice(
        &m,
        &[index.clone(), index.clone()],
        &[3, 1],
        &TensorType::new(vec![3, 1], DType::F32),
    )
    .unwrap_err();
    assert!(err.message.contains("size 3 of dimension 0"), "{err}");
    let float_index = Tensor::scalar_f32(0.0);
    let err = shape::dynamic_slice(
        &m,
        &[float_index, index],
        &[1, 1],
        &TensorType::new(vec![1, 1], DType::F32),
    )
    .unwrap_err();
    assert!(
        err.message
            .contains("must be an integer scalar, got tensor<f32>"),
        "{err}"
    );

    let pad_value = Tensor::scalar_f32(0.0);
    let padding = shape::Padding {
        low: &[-2, 0],
        high: &[-1, 0],
        interior: &[0, 0],
    };
    let err = shape::pad(
        &m,
        &pad_value,
        &padding,
        &TensorType::new(vec![0, 3], DType::F32),
    )
    .unwrap_err();
    assert!(err.message.contains("negative size -1"), "{err}");
}

#[test]
fn iota_and_pad_on_size_one_and_empty_shapes() {
    let one = shape::iota(0, &TensorType::new(vec![1], DType::U64)).unwrap();
    assert_eq!(one.data(), &Data::UInt(vec![0]));
    let empty = shape::iota(1, &TensorType::new(vec![3, 0], DType::F16)).unwrap();
    assert_eq!(empty.num_elements(), 0);
    let x = Tensor::from_bool(vec![1], vec![true]).unwrap();
    let pad_value = Tensor::from_bool(vec![], vec![false]).unwrap();
    let padding = shape::Padding {
        low: &[1],
        high: &[1],
        interior: &[5],
    };
    let r = shape::pad(
        &x,
        &pad_value,
        &padding,
        &TensorType::new(vec![3], DType::Bool),
    )
    .unwrap();
    assert_eq!(r.data(), &Data::Bool(vec![false, true, false]));
    assert_eq!(r.dtype().kind(), DTypeKind::Bool);
}

#[test]
fn reduce_precision_works_on_the_dtypes_own_bits() {
    // Observed on XLA:CPU: f16 subnormals are rounded in f16's format (not after widening to
    // f32, where they would keep more bits).
    let x = Tensor::from_bits(
        TensorType::new(vec![3], DType::F16),
        &[0x0155, 0x3C07, 0x0001],
    )
    .unwrap();
    for exponent_bits in [8, 5] {
        let r = elementwise::reduce_precision(&x, exponent_bits, 7, x.ty()).unwrap();
        let bits: Vec<u64> = (0..3).map(|i| r.bits(i)).collect();
        assert_eq!(bits, vec![0x0158, 0x3C08, 0x0000], "e{exponent_bits}m7");
    }
    let b = Tensor::from_bits(TensorType::new(vec![2], DType::BF16), &[0x0055, 0x3F81]).unwrap();
    let r = elementwise::reduce_precision(&b, 5, 3, b.ty()).unwrap();
    assert_eq!((r.bits(0), r.bits(1)), (0x0000, 0x3F80));
}
