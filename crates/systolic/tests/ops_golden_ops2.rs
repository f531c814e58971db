//! Indexing, sorting, windows, convolution, einsum and the other issue-4 ops against JAX
//! 0.10.2 (`tests/data/ops2_jax0.10.2.json`, made by `tests/data/make_goldens_ops2.py`).
//! Every case runs eagerly and under `jit` on the inputs recorded with JAX's outputs.

use crate::golden_util::{assert_every_case_is_run, err_of, one, run_cases_with, OpFn};
use serde_json::Value;
use systolic::lax::{self, ConvDimensions, GatherScatterMode, Padding, ScatterOp, Window};
use systolic::numpy::{self as np, Idx, PadMode, Split, TakeMode};
use systolic::{jit, nn, weak_float, weak_int, Array};
use systolic_ir::{BinaryOp, DType, GatherDimensionNumbers, ScatterDimensionNumbers};

fn golden() -> &'static Value {
    static G: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/ops2_jax0.10.2.json")).unwrap())
}

fn tolerance(d: DType, name: &str) -> f64 {
    let loose = name.starts_with("conv") || name.starts_with("einsum");
    match d {
        DType::BF16 => 1e-2,
        DType::F16 => 1e-3,
        DType::F32 if loose => 1e-5,
        DType::F32 => 1e-6,
        DType::F64 => 1e-15,
        _ => 0.0,
    }
}

/// The systolic expression of every recorded case.
fn op(name: &str) -> OpFn {
    let nhwc = ConvDimensions::new("NHWC", "HWIO", "NHWC");
    match name {
        "cumsum_f32_ax1" => one(|x| np::cumsum(&x[0], Some(1))),
        "cumsum_f32_axm2" => one(|x| np::cumsum(&x[0], Some(-2))),
        "cumsum_f32_flat" => one(|x| np::cumsum(&x[0], None)),
        "cumsum_i8" => one(|x| np::cumsum(&x[0], None)),
        "cumsum_bf16" => one(|x| np::cumsum(&x[0], Some(1))),
        "cumsum_empty" => one(|x| np::cumsum(&x[0], Some(0))),
        "cumprod_i32" => one(|x| np::cumprod(&x[0], Some(1))),
        "cummax_f32" => one(|x| lax::cummax(&x[0], 0, false)),
        "cummax_i32_rev" => one(|x| lax::cummax(&x[0], 1, true)),
        "cummin_i32" => one(|x| lax::cummin(&x[0], 0, false)),
        "lax_cumsum_rev" => one(|x| lax::cumsum(&x[0], 1, true)),
        "sort_nan" => one(|x| np::sort(&x[0], -1, false)),
        "sort_desc" => one(|x| np::sort(&x[0], -1, true)),
        "sort_i32_ax0" => one(|x| np::sort(&x[0], 0, false)),
        "sort_bf16" => one(|x| np::sort(&x[0], -1, false)),
        "argsort_dup" => one(|x| np::argsort(&x[0], -1, false)),
        "argsort_dup_desc" => one(|x| np::argsort(&x[0], -1, true)),
        "argsort_f32_ax0" => one(|x| np::argsort(&x[0], 0, false)),
        "lax_sort_2keys" => Box::new(|x| {
            let r: Vec<&Array> = x.iter().collect();
            lax::sort(&r, -1, true, 2).unwrap()
        }),
        "top_k" => Box::new(|x| {
            let (v, i) = lax::top_k(&x[0], 3).unwrap();
            vec![v, i]
        }),
        "top_k_i32" => Box::new(|x| {
            let (v, i) = lax::top_k(&x[0], 2).unwrap();
            vec![v, i]
        }),
        "take_flat_default" => one(|x| np::take(&x[0], &x[1], None, TakeMode::Fill)),
        "take_ax1_fill" => one(|x| np::take(&x[0], &x[1], Some(1), TakeMode::Fill)),
        "take_ax1_clip" => one(|x| np::take(&x[0], &x[1], Some(1), TakeMode::Clip)),
        "take_ax1_wrap" => one(|x| np::take(&x[0], &x[1], Some(1), TakeMode::Wrap)),
        "take_i32_2d_idx" | "take_ax0_oob_fill_int" => {
            one(|x| np::take(&x[0], &x[1], Some(0), TakeMode::Fill))
        }
        "take_along_axis1" | "take_along_oob" => one(|x| np::take_along_axis(&x[0], &x[1], 1)),
        "take_along_axis0" => one(|x| np::take_along_axis(&x[0], &x[1], 0)),
        "gather_explicit" => one(|x| {
            let dn = GatherDimensionNumbers {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0, 1],
                index_vector_dim: 1,
                ..Default::default()
            };
            lax::gather(&x[0], &x[1], dn, &[1, 2], GatherScatterMode::Clip)
        }),
        "scatter_add_explicit" => one(|x| {
            let dn = ScatterDimensionNumbers {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
                ..Default::default()
            };
            lax::scatter(
                &x[0],
                &x[1],
                &x[2],
                dn,
                ScatterOp::Add,
                GatherScatterMode::FillOrDrop,
            )
        }),
        "index_int_slice_step" => one(|x| {
            np::index(
                &x[0],
                &[
                    Idx::from(1),
                    Idx::slice(None, None, Some(-2)),
                    Idx::slice(Some(1), Some(4), Some(2)),
                ],
            )
        }),
        "index_ellipsis_newaxis" => {
            one(|x| np::index(&x[0], &[Idx::Ellipsis, Idx::NewAxis, Idx::from(-1)]))
        }
        "index_neg_int" => one(|x| np::index(&x[0], &[Idx::from(-1)])),
        "index_empty_slice" => {
            one(|x| np::index(&x[0], &[Idx::full(), Idx::slice(Some(2), Some(1), None)]))
        }
        "index_array" | "index_array_oob" => {
            one(|x| np::index(&x[0], &[Idx::full(), Idx::from(&x[1])]))
        }
        "index_two_arrays_split" => {
            one(|x| np::index(&x[0], &[Idx::from(&x[1]), Idx::full(), Idx::from(&x[2])]))
        }
        "at_set" => one(|x| np::at(&x[0], &[Idx::from(&x[1])]).set(&x[2])),
        "at_add_dup" => one(|x| np::at(&x[0], &[Idx::from(&x[1])]).add(&x[2])),
        "at_mul" => one(|x| np::at(&x[0], &[Idx::from(&x[1])]).mul(&x[2])),
        "at_min" => one(|x| np::at(&x[0], &[Idx::from(&x[1])]).min(&x[2])),
        "at_max" => one(|x| np::at(&x[0], &[Idx::from(&x[1])]).max(&x[2])),
        "at_slice_set" => one(|x| {
            np::at(
                &x[0],
                &[
                    Idx::full(),
                    Idx::from(1..3),
                    Idx::slice(None, None, Some(2)),
                ],
            )
            .set(&weak_int(-7))
        }),
        "at_int_add_scalar" => {
            one(|x| np::at(&x[0], &[Idx::from(1), Idx::from(0)]).add(&weak_int(100)))
        }
        "at_set_bf16" => {
            one(|x| np::at(&x[0], &[Idx::full(), Idx::from(&x[1])]).set(&weak_float(9.5)))
        }
        "at_add_i8_2d" => one(|x| np::at(&x[0], &[Idx::from(&x[1])]).add(&x[2])),
        "split_sections" => Box::new(|x| np::split(&x[0], Split::Sections(3), 1).unwrap()),
        "split_indices" => Box::new(|x| np::split(&x[0], Split::Indices(vec![1, 3]), -1).unwrap()),
        "tile" => one(|x| np::tile(&x[0], &[2, 1, 2])),
        "repeat_ax0" => one(|x| np::repeat(&x[0], 2, Some(0))),
        "repeat_flat" => one(|x| np::repeat(&x[0], 3, None)),
        "flip_ax" => one(|x| np::flip(&x[0], Some(&[0, 2]))),
        "roll_ax" => one(|x| np::roll(&x[0], -5, Some(2))),
        "roll_flat" => one(|x| np::roll(&x[0], 4, None)),
        "moveaxis" => one(|x| np::moveaxis(&x[0], 0, -1)),
        "swapaxes" => one(|x| np::swapaxes(&x[0], 0, 2)),
        "squeeze_all" => one(|x| np::squeeze_axes(&x[0], None)),
        "expand_dims_neg" => one(|x| np::expand_dims(&x[0], -1)),
        "clip_i32" => one(|x| np::clip(&x[0], &weak_int(-1), &weak_int(3))),
        "clip_f32_weak" => one(|x| np::clip(&x[0], &weak_float(0.0), &weak_float(1.0))),
        "where_int_float" => one(|x| np::where_(&x[0], &x[1], &weak_float(0.5))),
        "pad_constant" => one(|x| np::pad(&x[0], &[(1, 0), (2, 1)], PadMode::Constant(9.0))),
        "pad_reflect" => one(|x| np::pad(&x[0], &[(1, 1), (2, 2)], PadMode::Reflect)),
        "pad_symmetric" => one(|x| np::pad(&x[0], &[(1, 1), (2, 3)], PadMode::Symmetric)),
        "pad_edge" => one(|x| np::pad(&x[0], &[(0, 2), (1, 1)], PadMode::Edge)),
        "pad_wrap" => one(|x| np::pad(&x[0], &[(1, 2), (3, 1)], PadMode::Wrap)),
        "one_hot" => one(|x| nn::one_hot(&x[0], 3, DType::F32)),
        "iota_i32" => one(|_| lax::iota(DType::I32, &[5], 0)),
        "bitcast_f32_i32" => one(|x| lax::bitcast_convert_type(&x[0], DType::I32)),
        "convert_f32_bf16" => one(|x| lax::convert_element_type(&x[0], DType::BF16)),
        "dynamic_slice_clamp" => one(|x| {
            let s = [
                Array::scalar(1i32),
                Array::scalar(2i32),
                Array::scalar(-1i32),
            ];
            lax::dynamic_slice(&x[0], &s, &[1, 2, 3])
        }),
        "dynamic_update_slice" => one(|x| {
            let s = [
                Array::scalar(0i32),
                Array::scalar(2i32),
                Array::scalar(3i32),
            ];
            lax::dynamic_update_slice(&x[0], &x[1], &s)
        }),
        "select" => one(|x| lax::select(&x[0], &x[1], &x[2])),
        "reduce_window_max_valid" => one(|x| {
            let w = Window::new(&[2, 3]).strides(&[1, 2]);
            lax::reduce_window(
                &x[0],
                &Array::scalar(f32::NEG_INFINITY),
                BinaryOp::Maximum,
                &w,
            )
        }),
        "reduce_window_add_same" => one(|x| {
            let w = Window::new(&[3, 3]).strides(&[2, 1]).padding(Padding::Same);
            lax::reduce_window(&x[0], &Array::scalar(0.0f32), BinaryOp::Add, &w)
        }),
        "reduce_window_add_explicit_dil" => one(|x| {
            let w = Window::new(&[2, 2])
                .padding(Padding::Explicit(vec![(1, 0), (0, 2)]))
                .base_dilation(&[1, 2])
                .window_dilation(&[2, 1]);
            lax::reduce_window(&x[0], &Array::scalar(0.0f32), BinaryOp::Add, &w)
        }),
        "reduce_max_i32" => Box::new(|x| {
            lax::reduce(&[&x[0]], &[&Array::scalar(-100i32)], &[1], |b, a| {
                vec![b.max(a[0], a[1])]
            })
            .unwrap()
        }),
        "conv_nhwc_valid" => one(move |x| {
            lax::conv_general_dilated(
                &x[0],
                &x[1],
                &[1, 1],
                &Padding::Valid,
                None,
                None,
                Some(&nhwc),
                1,
            )
        }),
        "conv_nhwc_same_stride" => one(move |x| {
            let d = ConvDimensions::new("NHWC", "HWIO", "NHWC");
            lax::conv_general_dilated(
                &x[0],
                &x[1],
                &[2, 2],
                &Padding::Same,
                None,
                None,
                Some(&d),
                1,
            )
        }),
        "conv_nhwc_explicit_dil" => one(move |x| {
            let d = ConvDimensions::new("NHWC", "HWIO", "NHWC");
            lax::conv_general_dilated(
                &x[0],
                &x[1],
                &[1, 2],
                &Padding::Explicit(vec![(1, 2), (0, 1)]),
                Some(&[2, 1]),
                Some(&[1, 2]),
                Some(&d),
                1,
            )
        }),
        "conv_ncw_groups" => one(|x| {
            let d = ConvDimensions::new("NCW", "OIW", "NCW");
            lax::conv_general_dilated(&x[0], &x[1], &[1], &Padding::Same, None, None, Some(&d), 2)
        }),
        "conv_bf16" => one(|x| {
            let d = ConvDimensions::new("NHWC", "HWIO", "NHWC");
            lax::conv_general_dilated(
                &x[0],
                &x[1],
                &[1, 1],
                &Padding::Same,
                None,
                None,
                Some(&d),
                1,
            )
        }),
        "einsum_matmul" => one(|x| np::einsum("bij,jk->bik", &[&x[0], &x[1]])),
        "einsum_batch" => one(|x| np::einsum("bij,bjk->bik", &[&x[0], &x[1]])),
        "einsum_implicit" => one(|x| np::einsum("bij,jk", &[&x[0], &x[1]])),
        "einsum_ellipsis" => one(|x| np::einsum("...j,jk->...k", &[&x[0], &x[1]])),
        "einsum_trace" => one(|x| np::einsum("ii", &[&x[0]])),
        "einsum_diag" => one(|x| np::einsum("ii->i", &[&x[0]])),
        "einsum_sum" => one(|x| np::einsum("ijk->j", &[&x[0]])),
        "einsum_transpose" => one(|x| np::einsum("ijk->kij", &[&x[0]])),
        "einsum_outer" => one(|x| np::einsum("i,j->ij", &[&x[0], &x[1]])),
        "einsum_three" => one(|x| np::einsum("bij,jk,ii->bk", &[&x[0], &x[1], &x[2]])),
        "einsum_int8" | "einsum_mixed" => one(|x| np::einsum("ij,jk->ik", &[&x[0], &x[1]])),
        "cumsum_bool" => one(|x| np::cumsum(&x[0], None)),
        "cumsum_u8" => one(|x| np::cumsum(&x[0], Some(1))),
        "cumprod_f16" => one(|x| np::cumprod(&x[0], Some(0))),
        "cummax_bf16_rev" => one(|x| lax::cummax(&x[0], 1, true)),
        "sort_u8" => one(|x| np::sort(&x[0], 1, false)),
        "sort_f16_desc" => one(|x| np::sort(&x[0], 0, true)),
        "sort_bool" => one(|x| np::sort(&x[0], -1, false)),
        "argsort_i8_desc" => one(|x| np::argsort(&x[0], -1, true)),
        "top_k_bf16" => Box::new(|x| {
            let (v, i) = lax::top_k(&x[0], 2).unwrap();
            vec![v, i]
        }),
        "take_bool_fill" => one(|x| np::take(&x[0], &x[1], None, TakeMode::Fill)),
        "take_u8_fill" => one(|x| np::take(&x[0], &x[1], Some(1), TakeMode::Fill)),
        "take_f16_i8idx" => one(|x| np::take(&x[0], &x[1], Some(-1), TakeMode::Fill)),
        "gather_fill_explicit" => one(|x| {
            let dn = GatherDimensionNumbers {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0, 1],
                index_vector_dim: 1,
                ..Default::default()
            };
            lax::gather(&x[0], &x[1], dn, &[1, 2], GatherScatterMode::FillOrDrop)
        }),
        "scatter_set_clip" | "scatter_max_i32" => {
            let (op, mode) = if name == "scatter_set_clip" {
                (ScatterOp::Set, GatherScatterMode::Clip)
            } else {
                (ScatterOp::Max, GatherScatterMode::FillOrDrop)
            };
            one(move |x| {
                let dn = ScatterDimensionNumbers {
                    update_window_dims: vec![1],
                    inserted_window_dims: vec![0],
                    scatter_dims_to_operand_dims: vec![0],
                    index_vector_dim: 1,
                    ..Default::default()
                };
                lax::scatter(&x[0], &x[1], &x[2], dn, op, mode)
            })
        }
        "at_mixed_set" => one(|x| {
            let v = Array::from_vec(vec![-1i32, -2], &[2, 1]);
            np::at(
                &x[0],
                &[
                    Idx::from(1),
                    Idx::slice(None, None, Some(-1)),
                    Idx::from(&x[1]),
                ],
            )
            .set(&v)
        }),
        "at_two_arrays_max" => one(|x| {
            np::at(&x[0], &[Idx::from(&x[1]), Idx::full(), Idx::from(&x[2])]).max(&weak_int(13))
        }),
        "at_newaxis_ellipsis_mul" => one(|x| {
            np::at(&x[0], &[Idx::NewAxis, Idx::Ellipsis, Idx::from(1)]).mul(&weak_float(2.0))
        }),
        "index_u8_newaxis_arr" => {
            one(|x| np::index(&x[0], &[Idx::NewAxis, Idx::full(), Idx::from(&x[1])]))
        }
        "einsum_bf16" => one(|x| np::einsum("ij,kj->ik", &[&x[0], &x[1]])),
        "einsum_f16_batch_sum" => one(|x| np::einsum("ij,ij->j", &[&x[0], &x[1]])),
        "reduce_window_i32_max_same" => one(|x| {
            let w = Window::new(&[2, 2]).padding(Padding::Same);
            lax::reduce_window(&x[0], &Array::scalar(i32::MIN), BinaryOp::Maximum, &w)
        }),
        "reduce_window_bf16_add" => one(|x| {
            let w = Window::new(&[1, 2]);
            lax::reduce_window(&x[0], &Array::scalar(half::bf16::ZERO), BinaryOp::Add, &w)
        }),
        "pad_bf16_reflect_big" => one(|x| np::pad(&x[0], &[(3, 4), (0, 5)], PadMode::Reflect)),
        "pad_u8_constant" => one(|x| np::pad(&x[0], &[(2, 2)], PadMode::Constant(7.0))),
        "roll_bf16_neg_axis" => one(|x| np::roll(&x[0], 7, Some(-1))),
        "tile_u8_short_reps" => one(|x| np::tile(&x[0], &[3])),
        "repeat_bool" => one(|x| np::repeat(&x[0], 2, None)),
        "flip_all" => one(|x| np::flip(&x[0], None)),
        "split_f16_axis0" => Box::new(|x| np::split(&x[0], Split::Sections(2), 0).unwrap()),
        other => panic!("no systolic expression for golden case {other}"),
    }
}

fn run_prefix(prefixes: &[&str]) {
    run_cases_with(golden(), prefixes, op, tolerance);
}

#[test]
fn cumulative_reductions_match_jax() {
    run_prefix(&["cumsum", "cumprod", "cummax", "cummin", "lax_cumsum"]);
}

#[test]
fn sorting_matches_jax() {
    run_prefix(&["sort", "argsort", "lax_sort", "top_k"]);
}

#[test]
fn take_gather_scatter_match_jax() {
    run_prefix(&["take", "gather", "scatter"]);
}

#[test]
fn indexing_and_at_updates_match_jax() {
    run_prefix(&["index", "at_"]);
}

#[test]
fn numpy_shape_ops_match_jax() {
    run_prefix(&[
        "split", "tile", "repeat", "flip", "roll", "moveaxis", "swapaxes", "squeeze", "expand",
        "clip", "where", "pad", "one_hot",
    ]);
}

#[test]
fn lax_ops_match_jax() {
    run_prefix(&[
        "iota",
        "bitcast",
        "convert",
        "dynamic",
        "select",
        "reduce_window",
        "reduce_max",
    ]);
}

#[test]
fn convolutions_match_jax() {
    run_prefix(&["conv"]);
}

#[test]
fn einsum_matches_jax() {
    run_prefix(&["einsum"]);
}

/// The name prefixes the tests above run; every golden case falls under one.
const PREFIXES: &[&str] = &[
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "lax_cumsum",
    "sort",
    "argsort",
    "lax_sort",
    "top_k",
    "take",
    "gather",
    "scatter",
    "index",
    "at_",
    "split",
    "tile",
    "repeat",
    "flip",
    "roll",
    "moveaxis",
    "swapaxes",
    "squeeze",
    "expand",
    "clip",
    "where",
    "pad",
    "one_hot",
    "iota",
    "bitcast",
    "convert",
    "dynamic",
    "select",
    "reduce_window",
    "reduce_max",
    "conv",
    "einsum",
];

#[test]
fn every_golden_case_has_an_expression_and_a_test() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn bad_arguments_are_errors_naming_the_op() {
    let x = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let i = Array::from_vec(vec![0i32, 1], &[2]);
    let cases: Vec<(String, &[&str])> = vec![
        (
            err_of(&np::einsum("ij,jk->ik", &[&x])),
            &["einsum", "2 operands"],
        ),
        (
            err_of(&np::einsum("ij,jk->ik", &[&x, &x])),
            &["einsum", "sizes 3 and 2"],
        ),
        (
            err_of(&np::einsum("ij->iz", &[&x])),
            &["einsum", "does not appear"],
        ),
        (
            err_of(&np::einsum("i$->i", &[&x])),
            &["einsum", "invalid character"],
        ),
        (err_of(&np::einsum("ijk", &[&x])), &["einsum", "rank 2"]),
        (
            err_of(&np::einsum("...i...", &[&x])),
            &["einsum", "ellipsis"],
        ),
        (
            err_of(&np::cumsum(&x, Some(2))),
            &["cumsum", "axis 2", "float32[2,3]"],
        ),
        (
            err_of(&lax::cummax(&Array::from_vec(vec![true], &[1]), 0, false)),
            &["cummax", "bool"],
        ),
        (err_of(&np::sort(&x, -3, false)), &["sort", "axis -3"]),
        (err_of(&np::argsort(&x, 5, true)), &["argsort", "axis 5"]),
        (
            err_of(&np::take(&x, &i, Some(2), TakeMode::Fill)),
            &["take", "axis 2"],
        ),
        (
            err_of(&np::take(&x, &x, None, TakeMode::Fill)),
            &["take", "integers"],
        ),
        (
            err_of(&np::take_along_axis(&x, &i, 1)),
            &["take_along_axis", "same rank"],
        ),
        (
            err_of(&np::index(&x, &[Idx::from(2)])),
            &["index", "out of bounds"],
        ),
        (
            err_of(&np::index(&x, &[Idx::from(0), Idx::from(0), Idx::from(0)])),
            &["index", "too many"],
        ),
        (
            err_of(&np::index(&x, &[Idx::Ellipsis, Idx::Ellipsis])),
            &["index", "ellipsis"],
        ),
        (
            err_of(&np::index(&x, &[Idx::slice(None, None, Some(0))])),
            &["index", "step"],
        ),
        (
            err_of(&np::at(&x, &[Idx::from(&i)]).set(&Array::from_vec(vec![1.0f32; 4], &[4]))),
            &["at.set", "float32[4]"],
        ),
        (err_of(&np::tile(&x, &[-1])), &["tile", "non-negative"]),
        (err_of(&np::repeat(&x, 2, Some(-3))), &["repeat", "axis -3"]),
        (err_of(&np::roll(&x, 1, Some(2))), &["roll", "axis 2"]),
        (err_of(&np::moveaxis(&x, 0, 2)), &["moveaxis", "axis 2"]),
        (err_of(&np::swapaxes(&x, 0, -3)), &["swapaxes"]),
        (
            err_of(&np::squeeze_axes(&x, Some(&[0]))),
            &["squeeze", "size not equal to one"],
        ),
        (err_of(&np::flip(&x, Some(&[2]))), &["flip", "axis 2"]),
        (
            err_of(&np::pad(&x, &[(1, 1), (1, -1)], PadMode::Edge)),
            &["pad", "non-negative"],
        ),
        (
            err_of(&np::pad(
                &np::zeros(&[0], DType::F32),
                &[(1, 1)],
                PadMode::Reflect,
            )),
            &["pad", "empty axis"],
        ),
        (
            err_of(&lax::reduce_window(
                &x,
                &Array::scalar(0.0f32),
                BinaryOp::Add,
                &Window::new(&[2]),
            )),
            &["reduce_window", "one entry per dimension"],
        ),
        (
            err_of(&lax::conv_general_dilated(
                &x,
                &Array::from_vec(vec![1i32; 6], &[2, 3]),
                &[],
                &Padding::Valid,
                None,
                None,
                None,
                1,
            )),
            &["conv_general_dilated", "one dtype", "int32[2,3]"],
        ),
        (
            err_of(&lax::conv_general_dilated(
                &np::zeros(&[1, 4, 3], DType::F32),
                &np::zeros(&[2, 2, 5], DType::F32),
                &[1],
                &Padding::Valid,
                None,
                None,
                Some(&ConvDimensions::new("NWC", "WIO", "NWC")),
                1,
            )),
            &["conv_general_dilated"],
        ),
        (
            err_of(&lax::conv_general_dilated(
                &np::zeros(&[1, 4, 3], DType::F32),
                &np::zeros(&[2, 3, 5], DType::F32),
                &[1],
                &Padding::Valid,
                None,
                None,
                Some(&ConvDimensions::new("NWC", "WXO", "NWC")),
                1,
            )),
            &["conv_general_dilated", "is missing from dimension numbers"],
        ),
        (
            err_of(&lax::gather(
                &x,
                &Array::from_vec(vec![0i32], &[1, 1]),
                GatherDimensionNumbers {
                    start_index_map: vec![0],
                    index_vector_dim: 1,
                    ..Default::default()
                },
                &[1, 3],
                GatherScatterMode::Clip,
            )),
            &["gather"],
        ),
        (
            err_of(&lax::scatter(
                &x,
                &Array::from_vec(vec![0i32], &[1, 1]),
                &Array::from_vec(vec![1.0f32; 4], &[1, 4]),
                ScatterDimensionNumbers {
                    update_window_dims: vec![1],
                    inserted_window_dims: vec![0],
                    scatter_dims_to_operand_dims: vec![0],
                    index_vector_dim: 1,
                    ..Default::default()
                },
                ScatterOp::Add,
                GatherScatterMode::FillOrDrop,
            )),
            &["scatter"],
        ),
    ];
    for (e, needles) in &cases {
        for n in needles.iter() {
            assert!(e.contains(n), "{e:?} should mention {n:?}");
        }
    }
    let bools = Array::from_vec(vec![true, false], &[2]);
    let b = np::at(&bools, &[Idx::from(0)]).add(&Array::scalar(true));
    assert!(err_of(&b).contains("bool"), "{}", err_of(&b));
    let s = lax::sort(&[&x, &i], 0, true, 1).unwrap_err().to_string();
    assert!(s.contains("sort") && s.contains("int32[2]"), "{s}");
    let k = lax::sort(&[&x], 0, true, 2).unwrap_err().to_string();
    assert!(k.contains("num_keys"), "{k}");
    let t = lax::top_k(&x, 4).unwrap_err().to_string();
    assert!(t.contains("top_k") && t.contains("k = 4"), "{t}");
    let sp = np::split(&x, Split::Sections(2), 1)
        .unwrap_err()
        .to_string();
    assert!(
        sp.contains("split") && sp.contains("equal division"),
        "{sp}"
    );
    let r = lax::reduce(&[&x], &[&Array::scalar(0i32)], &[0], |b, a| {
        vec![b.add(a[0], a[1])]
    });
    assert!(r.unwrap_err().to_string().contains("reduce"));
    // Under jit, the error comes back from call().
    let bad = jit(|x: &Array| np::einsum("ij,jk->ik", &[x, x]));
    let e = bad.call(&x).err().unwrap().to_string();
    assert!(e.contains("einsum"), "{e}");
}

#[test]
fn size_zero_and_size_one_dims() {
    let e = np::zeros(&[0, 3], DType::F32);
    assert_eq!(np::sort(&e, 0, false).shape(), &[0, 3]);
    assert_eq!(np::argsort(&e, 1, true).shape(), &[0, 3]);
    assert_eq!(np::cumsum(&e, Some(1)).shape(), &[0, 3]);
    let none = Array::from_vec(Vec::<i32>::new(), &[0]);
    assert_eq!(
        np::take(&np::ones(&[4], DType::F32), &none, None, TakeMode::Fill).shape(),
        &[0]
    );
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[1, 3]);
    let y = Array::from_vec(vec![1.0f32, 10.0], &[2, 1]);
    // Size-1 ellipsis dims broadcast in einsum.
    let b = np::einsum("...i,...j->...ij", &[&x, &y]);
    assert_eq!(b.shape(), &[2, 3, 1]);
    assert_eq!(
        b.to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 3.0, 10.0, 20.0, 30.0]
    );
    assert_eq!(
        np::index(&x, &[Idx::from(0), Idx::slice(Some(3), Some(3), None)]).shape(),
        &[0]
    );
    assert_eq!(
        np::at(&e, &[Idx::full()]).add(&weak_float(1.0)).shape(),
        &[0, 3]
    );
    assert_eq!(np::tile(&x, &[0]).shape(), &[1, 0]);
    assert_eq!(np::repeat(&x, 0, Some(1)).shape(), &[1, 0]);
    assert_eq!(np::roll(&e, 2, Some(0)).shape(), &[0, 3]);
    let (v, i) = lax::top_k(&x, 0).unwrap();
    assert_eq!((v.shape(), i.shape()), (&[1i64, 0][..], &[1i64, 0][..]));
}

#[test]
fn ops_lower_to_the_stablehlo_ops_jax_uses() {
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let lowered = |f: fn(&Array) -> Array| jit(f).lower(&x).unwrap().as_text();
    let expect = [
        (
            lowered(|x| np::cumsum(x, Some(1))),
            "stablehlo.reduce_window",
        ),
        (lowered(|x| np::sort(x, 0, false)), "stablehlo.sort"),
        (
            lowered(|x| {
                np::take(
                    x,
                    &Array::from_vec(vec![1i32], &[1]),
                    Some(1),
                    TakeMode::Fill,
                )
            }),
            "stablehlo.gather",
        ),
        (
            lowered(|x| np::at(x, &[Idx::from(1)]).add(&weak_float(1.0))),
            "stablehlo.scatter",
        ),
        (
            lowered(|x| np::einsum("ij,kj->ik", &[x, x])),
            "stablehlo.dot_general",
        ),
        (
            lowered(|x| {
                let k = np::ones(&[1, 3, 2], DType::F32);
                let d = ConvDimensions::new("NWC", "WIO", "NWC");
                let x3 = np::reshape(x, &[1, 2, 3]);
                lax::conv_general_dilated(&x3, &k, &[1], &Padding::Same, None, None, Some(&d), 1)
            }),
            "stablehlo.convolution",
        ),
        (lowered(|x| lax::top_k(x, 2).unwrap().0), "chlo.top_k"),
    ];
    for (text, op) in &expect {
        assert!(text.contains(op), "expected {op} in\n{text}");
    }
}
