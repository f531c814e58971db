//! Tests of `reduce`, `reduce_window`, `select_and_scatter`, `sort`, `map` and `chlo.top_k` in
//! the reference interpreter. Regions are Rust closures (see `support`). Expected values come
//! from JAX 0.10.2 on CPU (the call is named next to each), the StableHLO spec's examples, or
//! hand computation where said.

use crate::support;

use support::*;
use systolic_ir::{DType, OpKind, Scalar, Window};

fn max_region(d: DType) -> ClosureRegions {
    ClosureRegions::none().with(vec![d], |a| vec![Scalar::Float(f(a[0]).max(f(a[1])))])
}

fn reduce_window(
    window: &[i64],
    strides: &[i64],
    base: &[i64],
    dil: &[i64],
    padding: &[(i64, i64)],
) -> OpKind {
    OpKind::ReduceWindow {
        window: Window {
            window_dimensions: window.to_vec(),
            window_strides: Some(strides.to_vec()),
            base_dilations: Some(base.to_vec()),
            window_dilations: Some(dil.to_vec()),
            padding: Some(padding.to_vec()),
        },
    }
}

#[test]
fn reduce_sums_over_two_dimensions() {
    // Hand computation: iota(2x3x4) summed over dims 0 and 2 gives, per middle index j,
    // sum_{i,k} (12i + 4j + k) = 8·(4j) + 2·6 + 4·12 = 32j + 60.
    let out = run(
        OpKind::Reduce {
            dimensions: vec![0, 2],
        },
        vec![iota_f32(&[2, 3, 4]), f32s(&[], &[0.])],
        vec![tt(&[3], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![60., 92., 124.]);
}

#[test]
fn reduce_is_a_left_fold_in_row_major_order() {
    // Reduced dimensions of at most 32 elements are one left fold.
    // body(acc, x) = 10·acc + x is not associative, so it reveals the order (by hand):
    // over both dims of [[1,2],[3,4]] → 1234; over dim 0 → [13, 24].
    let fold = || {
        ClosureRegions::none().with(vec![DType::I32], |a| {
            vec![Scalar::Int(f(a[0]) as i64 * 10 + f(a[1]) as i64)]
        })
    };
    let x = ints(&[2, 2], DType::I32, &[1, 2, 3, 4]);
    let zero = ints(&[], DType::I32, &[0]);
    let all = run(
        OpKind::Reduce {
            dimensions: vec![0, 1],
        },
        vec![x.clone(), zero.clone()],
        vec![tt(&[], DType::I32)],
        &mut fold(),
    )
    .unwrap();
    assert_eq!(int_values(&all[0]), vec![1234]);
    let cols = run(
        OpKind::Reduce {
            dimensions: vec![0],
        },
        vec![x, zero],
        vec![tt(&[2], DType::I32)],
        &mut fold(),
    )
    .unwrap();
    assert_eq!(int_values(&cols[0]), vec![13, 24]);
}

#[test]
fn reduce_rounds_bf16_after_every_step() {
    // bf16 has 8 significand bits: 256 + 1 rounds back to 256 at each step, so summing
    // [256, 1, 1, 1, 1] from 0 stays 256 (by hand), while f32 would give 260.
    let x = floats(&[5], DType::BF16, &[256., 1., 1., 1., 1.]);
    let out = run(
        OpKind::Reduce {
            dimensions: vec![0],
        },
        vec![x, floats(&[], DType::BF16, &[0.])],
        vec![tt(&[], DType::BF16)],
        &mut add_region(DType::BF16),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![256.]);
}

#[test]
fn long_reduce_folds_windows_of_32_then_their_partials() {
    // XLA:CPU's order (by hand). 100 elements make 4 windows of 32 with 28 padding positions,
    // 14 of them before the data: windows hold elements 0..18, 18..50, 50..82, 82..100.
    // f32 spacing at 2^24 is 2, so 2^24 + 1 rounds back to 2^24: the first window (2^24 and
    // 17 ones) stays 2^24, the others sum their ones exactly (32, 32, 18), and the partials
    // add up to 2^24 + 82. A left fold would lose every one: 2^24.
    let mut v = vec![16777216.0];
    v.extend(std::iter::repeat_n(1.0, 99));
    let out = run(
        OpKind::Reduce {
            dimensions: vec![0],
        },
        vec![f32s(&[100], &v), f32s(&[], &[0.])],
        vec![tt(&[], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![16777298.]);
}

#[test]
fn long_reduce_folds_a_non_identity_init_once() {
    // The tree's windows start from their first element; only the first starts from the init
    // value, so 1000 ones from 5 sum to 1005 (XLA would add the 5 into every window).
    let out = run(
        OpKind::Reduce {
            dimensions: vec![1],
        },
        vec![f32s(&[2, 1000], &vec![1.0; 2000]), f32s(&[], &[5.])],
        vec![tt(&[2], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![1005., 1005.]);
}

#[test]
fn reduce_of_an_empty_dimension_gives_the_init_value() {
    let out = run(
        OpKind::Reduce {
            dimensions: vec![1],
        },
        vec![f32s(&[3, 0], &[]), f32s(&[], &[-7.])],
        vec![tt(&[3], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![-7., -7., -7.]);
}

#[test]
fn reduce_with_two_inputs_computes_argmax() {
    // (value, index) pairs reduced with "keep the larger value, the lower index on ties" as
    // jnp.argmax does: argmax([[3,9,9],[4,1,0]], axis=1) = [1, 0].
    let mut regions = ClosureRegions::none().with(vec![DType::F32, DType::I32], |a| {
        let (v0, i0, v1, i1) = (f(a[0]), f(a[1]), f(a[2]), f(a[3]));
        if v1 > v0 || (v1 == v0 && i1 < i0) {
            vec![a[2], a[3]]
        } else {
            vec![a[0], a[1]]
        }
    });
    let out = run(
        OpKind::Reduce {
            dimensions: vec![1],
        },
        vec![
            f32s(&[2, 3], &[3., 9., 9., 4., 1., 0.]),
            ints(&[2, 3], DType::I32, &[0, 1, 2, 0, 1, 2]),
            f32s(&[], &[f64::NEG_INFINITY]),
            ints(&[], DType::I32, &[0]),
        ],
        vec![tt(&[2], DType::F32), tt(&[2], DType::I32)],
        &mut regions,
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![9., 4.]);
    assert_eq!(int_values(&out[1]), vec![1, 0]);
}

#[test]
fn reduce_rejects_out_of_range_dimensions() {
    let r = run(
        OpKind::Reduce {
            dimensions: vec![2],
        },
        vec![iota_f32(&[2, 2]), f32s(&[], &[0.])],
        vec![tt(&[2], DType::F32)],
        &mut add_region(DType::F32),
    );
    assert_err_contains(r, &["dimension 2 is out of range for rank 2"]);
}

#[test]
fn reduce_window_with_dilations_and_padding() {
    // lax.reduce_window(arange(12.).reshape(3,4) + 1, 0., lax.add, (2,2), (1,2),
    //   ((1,0),(0,1)), base_dilation=(2,1), window_dilation=(1,2))
    let x = f32s(&[3, 4], &(1..=12).map(f64::from).collect::<Vec<_>>());
    let out = run(
        reduce_window(&[2, 2], &[1, 2], &[2, 1], &[1, 2], &[(1, 0), (0, 1)]),
        vec![x, f32s(&[], &[0.])],
        vec![tt(&[5, 2], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(
        values(&out[0]),
        vec![4., 3., 4., 3., 12., 7., 12., 7., 20., 11.]
    );
}

#[test]
fn reduce_window_max_pool_with_padding() {
    // lax.reduce_window(arange(12.).reshape(3,4) + 1, -inf, lax.max, (2,3), (2,1),
    //   ((0,1),(1,1)))
    let x = f32s(&[3, 4], &(1..=12).map(f64::from).collect::<Vec<_>>());
    let out = run(
        reduce_window(&[2, 3], &[2, 1], &[1, 1], &[1, 1], &[(0, 1), (1, 1)]),
        vec![x, f32s(&[], &[f64::NEG_INFINITY])],
        vec![tt(&[2, 4], DType::F32)],
        &mut max_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![6., 7., 8., 8., 10., 11., 12., 12.]);
}

#[test]
fn reduce_window_larger_than_the_input_gives_an_empty_result() {
    let out = run(
        reduce_window(&[4], &[1], &[1], &[1], &[(0, 0)]),
        vec![f32s(&[3], &[1., 2., 3.]), f32s(&[], &[0.])],
        vec![tt(&[0], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(out[0].num_elements(), 0);
    let r = run(
        reduce_window(&[4], &[0], &[1], &[1], &[(0, 0)]),
        vec![f32s(&[3], &[1., 2., 3.]), f32s(&[], &[0.])],
        vec![tt(&[0], DType::F32)],
        &mut add_region(DType::F32),
    );
    assert_err_contains(r, &["`window_strides` [0]", "entries must be positive"]);
}

fn select_ge_scatter_add(d: DType) -> ClosureRegions {
    ClosureRegions::none()
        .with(vec![DType::Bool], |a| {
            vec![Scalar::Bool(f(a[0]) >= f(a[1]))]
        })
        .with(vec![d], |a| vec![add(a[0], a[1])])
}

#[test]
fn select_and_scatter_spec_example() {
    // The StableHLO spec's example for select_and_scatter.
    let out = run(
        OpKind::SelectAndScatter {
            window: Window {
                window_dimensions: vec![3, 1],
                window_strides: Some(vec![2, 1]),
                padding: Some(vec![(0, 1), (0, 0)]),
                ..Window::default()
            },
        },
        vec![
            ints(&[4, 2], DType::I32, &[1, 5, 2, 5, 3, 6, 4, 4]),
            ints(&[2, 2], DType::I32, &[5, 6, 7, 8]),
            ints(&[], DType::I32, &[0]),
        ],
        vec![tt(&[4, 2], DType::I32)],
        &mut select_ge_scatter_add(DType::I32),
    )
    .unwrap();
    assert_eq!(int_values(&out[0]), vec![0, 0, 0, 0, 5, 14, 7, 0]);
}

#[test]
fn select_and_scatter_is_the_gradient_of_max_pooling() {
    // The VJP of lax.reduce_window(y, -inf, lax.max, (2,3), (2,2), ((0,0),(1,1))) for
    // y = [[1,5,2,7,3],[4,0,6,6,1],[9,2,3,8,8],[0,1,5,2,4]] and cotangent [[1,2,3],[4,5,6]]
    // (JAX pads explicitly; here the padding is the op's own, never selected).
    let y = f32s(
        &[4, 5],
        &[
            1., 5., 2., 7., 3., 4., 0., 6., 6., 1., 9., 2., 3., 8., 8., 0., 1., 5., 2., 4.,
        ],
    );
    let out = run(
        OpKind::SelectAndScatter {
            window: Window {
                window_dimensions: vec![2, 3],
                window_strides: Some(vec![2, 2]),
                padding: Some(vec![(0, 0), (1, 1)]),
                ..Window::default()
            },
        },
        vec![
            y,
            f32s(&[2, 3], &[1., 2., 3., 4., 5., 6.]),
            f32s(&[], &[0.]),
        ],
        vec![tt(&[4, 5], DType::F32)],
        &mut select_ge_scatter_add(DType::F32),
    )
    .unwrap();
    assert_eq!(
        values(&out[0]),
        vec![0., 1., 0., 5., 0., 0., 0., 0., 0., 0., 4., 0., 0., 11., 0., 0., 0., 0., 0., 0.]
    );
}

#[test]
fn select_and_scatter_checks_the_source_shape() {
    let r = run(
        OpKind::SelectAndScatter {
            window: Window {
                window_dimensions: vec![2],
                window_strides: None,
                padding: None,
                ..Window::default()
            },
        },
        vec![
            f32s(&[3], &[1., 2., 3.]),
            f32s(&[3], &[1., 2., 3.]),
            f32s(&[], &[0.]),
        ],
        vec![tt(&[3], DType::F32)],
        &mut select_ge_scatter_add(DType::F32),
    );
    assert_err_contains(r, &["source tensor<3xf32>", "[2]"]);
}

fn less_on_first() -> ClosureRegions {
    // Comparator over (lhs0, rhs0, lhs1, rhs1): compares the first input only.
    ClosureRegions::none().with(vec![DType::Bool], |a| vec![Scalar::Bool(f(a[0]) < f(a[1]))])
}

#[test]
fn sort_two_inputs_stably_along_the_last_dimension() {
    // lax.sort((keys, values), num_keys=1, is_stable=True) with keys [[3,1,3,1,2],[0,0,-1,5,0]]
    // and values iota: keys [[1,1,2,3,3],[-1,0,0,0,5]], values [[1,3,4,0,2],[7,5,6,9,8]].
    let keys = ints(&[2, 5], DType::I32, &[3, 1, 3, 1, 2, 0, 0, -1, 5, 0]);
    let vals = iota_f32(&[2, 5]);
    let out = run(
        OpKind::Sort {
            dimension: -1,
            is_stable: true,
        },
        vec![keys, vals],
        vec![tt(&[2, 5], DType::I32), tt(&[2, 5], DType::F32)],
        &mut less_on_first(),
    )
    .unwrap();
    assert_eq!(int_values(&out[0]), vec![1, 1, 2, 3, 3, -1, 0, 0, 0, 5]);
    assert_eq!(
        values(&out[1]),
        vec![1., 3., 4., 0., 2., 7., 5., 6., 9., 8.]
    );
}

#[test]
fn sort_along_the_first_dimension() {
    // jnp.sort([[3,0],[1,2],[2,1]], axis=0) = [[1,0],[2,1],[3,2]].
    let out = run(
        OpKind::Sort {
            dimension: 0,
            is_stable: false,
        },
        vec![ints(&[3, 2], DType::I64, &[3, 0, 1, 2, 2, 1])],
        vec![tt(&[3, 2], DType::I64)],
        &mut less_on_first(),
    )
    .unwrap();
    assert_eq!(int_values(&out[0]), vec![1, 0, 2, 1, 3, 2]);
}

#[test]
fn sort_of_size_zero_and_one() {
    for shape in [[0i64, 3], [1, 3]] {
        let n = (shape[0] * shape[1]) as usize;
        let x = f32s(&shape, &[5., 4., 3.][..n]);
        let out = run(
            OpKind::Sort {
                dimension: 0,
                is_stable: true,
            },
            vec![x.clone()],
            vec![tt(&shape, DType::F32)],
            &mut less_on_first(),
        )
        .unwrap();
        assert_eq!(out[0], x);
    }
    let r = run(
        OpKind::Sort {
            dimension: 2,
            is_stable: true,
        },
        vec![f32s(&[1, 3], &[5., 4., 3.])],
        vec![tt(&[1, 3], DType::F32)],
        &mut less_on_first(),
    );
    assert_err_contains(r, &["dimension 2 is out of range"]);
}

#[test]
fn map_applies_the_region_elementwise() {
    // By hand: map (a, b) -> a·b + 1 over [1,2,3] and [4,5,6] = [5, 11, 19].
    let mut regions = ClosureRegions::none().with(vec![DType::F32], |a| {
        vec![Scalar::Float(f(a[0]) * f(a[1]) + 1.)]
    });
    let out = run(
        OpKind::Map {
            dimensions: vec![0],
        },
        vec![f32s(&[3], &[1., 2., 3.]), f32s(&[3], &[4., 5., 6.])],
        vec![tt(&[3], DType::F32)],
        &mut regions,
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![5., 11., 19.]);
}

#[test]
fn top_k_orders_nan_and_signed_zeros_as_jax() {
    // lax.top_k([0., -0., 1., -nan, nan, -1., 0., -0.], 8)
    //   = values [nan, 1, 0, 0, -0, -0, -1, -nan], indices [4, 2, 0, 6, 1, 7, 5, 3].
    let x = f32s(&[8], &[0., -0., 1., -f64::NAN, f64::NAN, -1., 0., -0.]);
    let out = run(
        OpKind::TopK {
            k: 8,
            largest: true,
        },
        vec![x],
        vec![tt(&[8], DType::F32), tt(&[8], DType::I32)],
        &mut ClosureRegions::none(),
    )
    .unwrap();
    assert_eq!(int_values(&out[1]), vec![4, 2, 0, 6, 1, 7, 5, 3]);
    let v = values(&out[0]);
    assert!(v[0].is_nan() && v[0].is_sign_positive());
    assert!(v[7].is_nan() && v[7].is_sign_negative());
    let signs: Vec<bool> = v[1..7].iter().map(|x| x.is_sign_negative()).collect();
    assert_eq!(v[1..7], [1., 0., 0., 0., 0., -1.]);
    assert_eq!(signs, vec![false, false, false, true, true, true]);
}

#[test]
fn top_k_of_integers_prefers_lower_indices_on_ties() {
    // lax.top_k(int8 [[3,1,3,-2,7]], 3) = ([[7,3,3]], [[4,0,2]]).
    let out = run(
        OpKind::TopK {
            k: 3,
            largest: true,
        },
        vec![ints(&[1, 5], DType::I8, &[3, 1, 3, -2, 7])],
        vec![tt(&[1, 3], DType::I8), tt(&[1, 3], DType::I32)],
        &mut ClosureRegions::none(),
    )
    .unwrap();
    assert_eq!(int_values(&out[0]), vec![7, 3, 3]);
    assert_eq!(int_values(&out[1]), vec![4, 0, 2]);
    // Smallest first, lower index first on ties (by hand): [-2, 1, 3] at [3, 1, 0].
    let out = run(
        OpKind::TopK {
            k: 3,
            largest: false,
        },
        vec![ints(&[1, 5], DType::I8, &[3, 1, 3, -2, 7])],
        vec![tt(&[1, 3], DType::I8), tt(&[1, 3], DType::I32)],
        &mut ClosureRegions::none(),
    )
    .unwrap();
    assert_eq!(int_values(&out[0]), vec![-2, 1, 3]);
    assert_eq!(int_values(&out[1]), vec![3, 1, 0]);
}

#[test]
fn top_k_rejects_k_larger_than_the_dimension() {
    let r = run(
        OpKind::TopK {
            k: 4,
            largest: true,
        },
        vec![f32s(&[3], &[1., 2., 3.])],
        vec![tt(&[4], DType::F32), tt(&[4], DType::I32)],
        &mut ClosureRegions::none(),
    );
    assert_err_contains(r, &["k = 4"]);
    // k = 0 of an empty row is fine: lax.top_k(zeros((2,0)), 0) has shape (2, 0).
    let out = run(
        OpKind::TopK {
            k: 0,
            largest: true,
        },
        vec![f32s(&[2, 0], &[])],
        vec![tt(&[2, 0], DType::F32), tt(&[2, 0], DType::I32)],
        &mut ClosureRegions::none(),
    )
    .unwrap();
    assert_eq!(out[1].shape(), &[2, 0]);
}

#[test]
fn reduce_window_takes_huge_attributes_without_overflow() {
    // The window arithmetic (systolic_ir::ResolvedWindow) is exact in i128, so extreme
    // attributes give the spec's answer: one window at stride i64::MAX, none once the padding
    // crops everything.
    let out = run(
        reduce_window(&[1], &[i64::MAX], &[1], &[1], &[(0, 0)]),
        vec![f32s(&[3], &[1., 2., 3.]), f32s(&[], &[0.])],
        vec![tt(&[1], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![1.]);
    let out = run(
        reduce_window(&[1], &[1], &[1], &[1], &[(i64::MIN, 0)]),
        vec![f32s(&[3], &[1., 2., 3.]), f32s(&[], &[0.])],
        vec![tt(&[0], DType::F32)],
        &mut add_region(DType::F32),
    )
    .unwrap();
    assert_eq!(out[0].num_elements(), 0);
}
