//! ConvPlan against the interpreter (the oracle) on random inputs: any dimension numbers,
//! strides, padding (including negative), lhs/rhs dilation, window reversal, feature and batch
//! groups, size-0 dimensions, and the dtype paths of the products.
//!
//! Tolerance for float results as in `tests/dot.rs`: `2 · K · eps_f32 · Σ|a||b|` plus one ulp
//! of the result dtype, with `Σ|a||b|` from the interpreter on absolute values and K the
//! number of products per output element.

use systolic_cpu::kernels::conv::geometry::{ConvGeometry, PatchColumns};
use systolic_cpu::kernels::conv::ConvPlan;
use systolic_cpu::CpuBuffer;
use systolic_interp::ops::linalg::convolution::convolution;
use systolic_ir::{ConvAttrs, ConvDimensionNumbers, DType, Data, Tensor, TensorType};

/// xorshift64*: deterministic inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn random(rng: &mut Rng, shape: &[i64], dtype: DType) -> Tensor {
    let ty = TensorType::new(shape.to_vec(), dtype);
    let n = ty.num_elements();
    let data = if dtype.is_float() {
        Data::Float(
            (0..n)
                .map(|_| (rng.next() >> 11) as f64 / (1u64 << 51) as f64 - 2.0)
                .collect(),
        )
    } else {
        Data::Int((0..n).map(|_| rng.next() as i64).collect())
    };
    Tensor::new(ty, data).unwrap()
}

fn abs(t: &Tensor) -> Tensor {
    let v = t.to_f64_vec().iter().map(|x| x.abs()).collect();
    Tensor::from_f64(t.shape().to_vec(), DType::F64, v).unwrap()
}

/// Dimension numbers from layout strings such as ("b01f", "01io", "b01f").
fn layouts(input: &str, kernel: &str, output: &str) -> ConvDimensionNumbers {
    let pos = |s: &str, c: char| s.find(c).unwrap() as i64;
    let spatial = |s: &str| -> Vec<i64> {
        let mut v: Vec<(char, i64)> = s
            .chars()
            .enumerate()
            .filter(|(_, c)| c.is_ascii_digit())
            .map(|(i, c)| (c, i as i64))
            .collect();
        v.sort();
        v.into_iter().map(|(_, i)| i).collect()
    };
    ConvDimensionNumbers {
        input_batch_dimension: pos(input, 'b'),
        input_feature_dimension: pos(input, 'f'),
        input_spatial_dimensions: spatial(input),
        kernel_input_feature_dimension: pos(kernel, 'i'),
        kernel_output_feature_dimension: pos(kernel, 'o'),
        kernel_spatial_dimensions: spatial(kernel),
        output_batch_dimension: pos(output, 'b'),
        output_feature_dimension: pos(output, 'f'),
        output_spatial_dimensions: spatial(output),
    }
}

fn attrs(dn: ConvDimensionNumbers) -> ConvAttrs {
    ConvAttrs {
        dimension_numbers: dn,
        feature_group_count: 1,
        batch_group_count: 1,
        ..Default::default()
    }
}

/// Runs the plan and compares with the interpreter.
fn check(
    seed: u64,
    lhs_shape: &[i64],
    rhs_shape: &[i64],
    a: &ConvAttrs,
    types: (DType, DType, DType),
) {
    let (lt, rt, ot) = types;
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let lhs = random(&mut rng, lhs_shape, lt);
    let rhs = random(&mut rng, rhs_shape, rt);
    let g = ConvGeometry::new(lhs.ty(), rhs.ty(), a).expect("geometry");
    let out_ty = TensorType::new(g.out_shape.clone(), ot);
    let plan = ConvPlan::new(lhs.ty(), rhs.ty(), a, &out_ty).expect("plan");
    let mut out = CpuBuffer::zeros(out_ty.clone());
    plan.run(
        &CpuBuffer::from_tensor(&lhs),
        &CpuBuffer::from_tensor(&rhs),
        &mut out,
    )
    .expect("run");
    let want = convolution(&lhs, &rhs, a, &out_ty).expect("interpreter");
    let got = out.to_tensor();
    let ctx = format!(
        "{} * {} -> {out_ty} ({})",
        lhs.ty(),
        rhs.ty(),
        plan.describe()
    );
    if ot.is_float() {
        let mag = convolution(
            &abs(&lhs),
            &abs(&rhs),
            a,
            &TensorType::new(g.out_shape.clone(), DType::F64),
        )
        .unwrap()
        .to_f64_vec();
        let k = (g.window_positions() * g.in_features) as f64;
        let ulp = 2f64.powi(-(ot.mantissa_bits().unwrap() as i32));
        for (i, ((x, w), m)) in got
            .to_f64_vec()
            .iter()
            .zip(want.to_f64_vec())
            .zip(mag)
            .enumerate()
        {
            let acc = 2.0 * k * (f32::EPSILON as f64 / 2.0) * m;
            let tol = acc + ulp * (w.abs() + acc) + 1e-30;
            assert!(
                (x - w).abs() <= tol,
                "{ctx}: element {i} is {x}, interpreter {w} (tolerance {tol})"
            );
        }
    } else {
        assert_eq!(got, want, "{ctx}");
    }
}

const F32: (DType, DType, DType) = (DType::F32, DType::F32, DType::F32);

#[test]
fn conv_nhwc_hwio_plain_and_strided() {
    let mut a = attrs(layouts("b01f", "01io", "b01f"));
    check(1, &[2, 7, 6, 3], &[3, 3, 3, 4], &a, F32);
    a.window_strides = Some(vec![2, 3]);
    a.padding = Some(vec![(1, 1), (2, 0)]);
    check(2, &[2, 7, 6, 3], &[3, 2, 3, 5], &a, F32);
}

#[test]
fn conv_nchw_oihw_with_dilations_and_negative_padding() {
    let mut a = attrs(layouts("bf01", "oi01", "bf01"));
    a.lhs_dilation = Some(vec![2, 1]);
    a.rhs_dilation = Some(vec![1, 2]);
    a.padding = Some(vec![(2, -1), (-1, 3)]);
    check(3, &[3, 4, 5, 9], &[6, 4, 2, 3], &a, F32);
}

#[test]
fn conv_window_reversal_and_odd_layouts() {
    let mut a = attrs(layouts("f0b1", "1o0i", "0fb1"));
    a.window_reversal = Some(vec![true, false]);
    a.padding = Some(vec![(1, 2), (0, 1)]);
    check(4, &[5, 6, 2, 7], &[3, 4, 2, 5], &a, F32);
}

#[test]
fn conv_feature_groups_depthwise_and_batch_groups() {
    let mut a = attrs(layouts("b01f", "01io", "b01f"));
    a.feature_group_count = 3;
    check(5, &[2, 6, 5, 6], &[3, 2, 2, 9], &a, F32);
    // Depthwise: one input feature per group.
    a.feature_group_count = 4;
    a.padding = Some(vec![(1, 1), (1, 1)]);
    check(6, &[1, 5, 5, 4], &[3, 3, 1, 8], &a, F32);
    // Batch groups (the weight gradient of a grouped convolution).
    let mut b = attrs(layouts("f01b", "i01o", "01bf"));
    b.batch_group_count = 2;
    check(7, &[3, 6, 5, 4], &[3, 3, 2, 6], &b, F32);
}

#[test]
fn conv_weight_gradients_read_features_major_and_the_kernel_in_place() {
    // JAX's gradient of an NHWC/HWIO convolution with respect to its kernel: the activations
    // with their batch as features, the output gradient `[N, H, W, O]` as the kernel (the
    // patch columns run feature-major and the kernel is the weight matrix as it is).
    let mut a = attrs(layouts("f01b", "i01o", "01bf"));
    a.padding = Some(vec![(1, 1), (1, 1)]);
    check(11, &[4, 9, 8, 3], &[4, 9, 8, 5], &a, F32);
    // A stride-2 forward convolution's kernel gradient: the window dilated by 2.
    a.rhs_dilation = Some(vec![2, 2]);
    a.padding = Some(vec![(1, 0), (0, 1)]);
    check(
        12,
        &[3, 8, 8, 6],
        &[3, 4, 4, 7],
        &a,
        (DType::F64, DType::F64, DType::F64),
    );
    // Feature-major columns with a kernel that must be rearranged (reversed window).
    a.window_reversal = Some(vec![false, true]);
    check(13, &[3, 8, 8, 6], &[3, 4, 4, 7], &a, F32);
    // Channels (the images here) in blocks of eight filled together: 16 of them, padded,
    // and 32 split over two batch groups of 16 output images each.
    let mut b = attrs(layouts("f01b", "i01o", "01bf"));
    b.padding = Some(vec![(1, 1), (2, 0)]);
    check(14, &[3, 6, 5, 16], &[3, 6, 4, 5], &b, F32);
    b.batch_group_count = 2;
    check(15, &[2, 5, 5, 32], &[2, 5, 3, 4], &b, F32);
}

#[test]
fn conv_reads_the_kernel_in_place_only_when_it_is_the_weight_matrix() {
    let geometry = |dn: ConvDimensionNumbers, lhs: &[i64], rhs: &[i64]| {
        let (l, r) = (
            TensorType::new(lhs.to_vec(), DType::F32),
            TensorType::new(rhs.to_vec(), DType::F32),
        );
        ConvGeometry::new(&l, &r, &attrs(dn)).expect("geometry")
    };
    let cases = [
        // Forward NHWC × HWIO: window-major columns, the kernel as it is.
        (
            ("b01f", "01io", "b01f"),
            [2, 7, 6, 3],
            [3, 3, 3, 4],
            PatchColumns::WindowMajor,
            true,
        ),
        // JAX's kernel gradient: feature-major columns, the [N, H, W, O] gradient as it is.
        (
            ("f01b", "i01o", "01bf"),
            [4, 9, 8, 3],
            [4, 7, 6, 5],
            PatchColumns::FeatureMajor,
            true,
        ),
        // NCHW × OIHW: feature-major columns, but O outermost: rearranged.
        (
            ("bf01", "oi01", "bf01"),
            [3, 4, 5, 9],
            [6, 4, 2, 3],
            PatchColumns::FeatureMajor,
            false,
        ),
    ];
    for ((lhs, rhs, out), lhs_shape, rhs_shape, columns, in_place) in cases {
        let g = geometry(layouts(lhs, rhs, out), &lhs_shape, &rhs_shape);
        assert_eq!(g.columns, columns, "{lhs} × {rhs}");
        assert_eq!(g.kernel_is_weights(), in_place, "{lhs} × {rhs}");
    }
}

#[test]
fn conv_1x1_reads_the_input_as_patches() {
    // Channels-last 1×1: the input is the patch matrix; the result written in place.
    let a = attrs(layouts("b01f", "01io", "b01f"));
    check(15, &[3, 5, 4, 6], &[1, 1, 6, 7], &a, F32);
    check(
        16,
        &[3, 5, 4, 6],
        &[1, 1, 6, 7],
        &a,
        (DType::BF16, DType::BF16, DType::F32),
    );
    // Same input path, result scattered into a channels-first layout.
    let a = attrs(layouts("b01f", "io01", "bf01"));
    check(17, &[2, 3, 4, 5], &[5, 6, 1, 1], &a, F32);
    // 1×1 with a stride is not an identity: patches are built.
    let mut a = attrs(layouts("b01f", "01io", "b01f"));
    a.window_strides = Some(vec![2, 2]);
    check(18, &[2, 5, 5, 3], &[1, 1, 3, 4], &a, F32);
}

#[test]
fn conv_1d_and_3d() {
    let mut a = attrs(layouts("bf0", "oi0", "bf0"));
    a.window_strides = Some(vec![2]);
    a.padding = Some(vec![(3, 1)]);
    check(8, &[3, 5, 17], &[4, 5, 4], &a, F32);
    let a = attrs(layouts("b012f", "012io", "b012f"));
    check(9, &[2, 4, 5, 3, 2], &[2, 3, 2, 2, 3], &a, F32);
}

#[test]
fn conv_empty_and_unit_dimensions() {
    let a = attrs(layouts("b01f", "01io", "b01f"));
    check(10, &[0, 4, 4, 2], &[2, 2, 2, 3], &a, F32);
    check(11, &[2, 4, 4, 0], &[2, 2, 0, 3], &a, F32);
    check(12, &[2, 4, 4, 2], &[2, 2, 2, 0], &a, F32);
    check(13, &[1, 1, 1, 1], &[1, 1, 1, 1], &a, F32);
    // Window larger than the input: no output positions.
    check(14, &[2, 2, 2, 2], &[3, 3, 2, 2], &a, F32);
}

#[test]
fn conv_dtype_paths() {
    let mut a = attrs(layouts("b01f", "01io", "b01f"));
    a.padding = Some(vec![(1, 1), (1, 1)]);
    check(
        20,
        &[2, 8, 8, 16],
        &[3, 3, 16, 8],
        &a,
        (DType::BF16, DType::BF16, DType::F32),
    );
    check(
        21,
        &[2, 8, 8, 16],
        &[3, 3, 16, 8],
        &a,
        (DType::BF16, DType::BF16, DType::BF16),
    );
    check(
        22,
        &[2, 8, 8, 16],
        &[3, 3, 16, 8],
        &a,
        (DType::I8, DType::I8, DType::I32),
    );
    check(
        23,
        &[2, 6, 6, 3],
        &[3, 3, 3, 4],
        &a,
        (DType::F16, DType::F16, DType::F16),
    );
    check(
        24,
        &[2, 6, 6, 3],
        &[3, 3, 3, 4],
        &a,
        (DType::F64, DType::F64, DType::F64),
    );
    check(
        25,
        &[2, 6, 6, 3],
        &[3, 3, 3, 4],
        &a,
        (DType::I32, DType::I32, DType::I32),
    );
}

#[test]
fn conv_many_images_run_in_chunks() {
    // 64 images of 32×32×16 with a 3×3 window: more patch elements than one chunk holds.
    let mut a = attrs(layouts("b01f", "01io", "b01f"));
    a.padding = Some(vec![(1, 1), (1, 1)]);
    check(30, &[40, 32, 32, 16], &[3, 3, 16, 2], &a, F32);
}

#[test]
fn conv_bad_attributes_are_errors() {
    let l = TensorType::new(vec![2, 5, 5, 3], DType::F32);
    let k = TensorType::new(vec![3, 3, 4, 2], DType::F32);
    let a = attrs(layouts("b01f", "01io", "b01f"));
    let e = ConvPlan::new(&l, &k, &a, &TensorType::new(vec![2, 3, 3, 2], DType::F32)).unwrap_err();
    assert!(
        e.message.contains("input features 3") && e.message.contains("kernel input features 4"),
        "{e}"
    );
    let mut b = a.clone();
    b.window_strides = Some(vec![0, 1]);
    let e = ConvPlan::new(&l, &k, &b, &TensorType::new(vec![2, 3, 3, 2], DType::F32)).unwrap_err();
    assert!(e.message.contains("window_strides"), "{e}");
}
