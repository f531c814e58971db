use super::*;
use systolic_ir::Window;

fn reduce(dims: &[i64]) -> OpKind {
    OpKind::Reduce {
        dimensions: dims.to_vec(),
    }
}

#[test]
fn reduce_drops_the_reduced_dimensions() {
    // The spec's example: tensor<1x6xi32> summed over [1] -> tensor<1xi32>.
    let r = infer_regions(
        reduce(&[1]),
        &[i32t(&[1, 6]), i32t(&[])],
        &[reducer(&[DType::I32])],
    );
    assert_eq!(r, Ok(vec![i32t(&[1])]));
    // Variadic (argmax style): values and indices together, over dims [0, 2].
    let r = infer_regions(
        reduce(&[0, 2]),
        &[f32t(&[2, 3, 4]), i32t(&[2, 3, 4]), f32t(&[]), i32t(&[])],
        &[reducer(&[DType::F32, DType::I32])],
    );
    assert_eq!(r, Ok(vec![f32t(&[3]), i32t(&[3])]));
}

#[test]
fn reduce_rejects_bad_bodies_and_dimensions() {
    let ops = [f32t(&[2, 3]), f32t(&[])];
    let body = [reducer(&[DType::F32])];
    let e = infer_regions(reduce(&[1]), &ops, &[reducer(&[DType::I32])]).unwrap_err();
    assert_eq!(
        e,
        "body takes (tensor<i32>, tensor<i32>) but must take (tensor<f32>, tensor<f32>)"
    );
    let wrong_result = RegionSignature::new(vec![f32t(&[]), f32t(&[])], vec![f32t(&[1])]);
    expect_err(
        infer_regions(reduce(&[1]), &ops, &[wrong_result]),
        "body returns (tensor<1xf32>)",
    );
    expect_err(
        infer_regions(reduce(&[2]), &ops, &body),
        "`dimensions` entry 2 is out of range",
    );
    expect_err(
        infer_regions(reduce(&[1, 1]), &ops, &body),
        "repeats dimension 1",
    );
    expect_err(
        infer_regions(reduce(&[1]), &[f32t(&[2, 3]), f32t(&[1])], &body),
        "init value #0 must be a 0-dimensional",
    );
    expect_err(
        infer_regions(reduce(&[1]), &[f32t(&[2, 3]), i32t(&[])], &body),
        "element types must be equal",
    );
    expect_err(
        infer_regions(reduce(&[1]), &[f32t(&[2, 3])], &body),
        "N inputs followed by N init values",
    );
    expect_err(
        infer_regions(
            reduce(&[1]),
            &[f32t(&[2, 3]), f32t(&[3, 2]), f32t(&[]), f32t(&[])],
            &[reducer(&[DType::F32; 2])],
        ),
        "shapes must be equal",
    );
}

fn reduce_window(
    dims: &[i64],
    strides: Option<&[i64]>,
    base: Option<&[i64]>,
    win: Option<&[i64]>,
    padding: Option<&[(i64, i64)]>,
) -> OpKind {
    OpKind::ReduceWindow {
        window: Window {
            window_dimensions: dims.to_vec(),
            window_strides: strides.map(<[i64]>::to_vec),
            base_dilations: base.map(<[i64]>::to_vec),
            window_dilations: win.map(<[i64]>::to_vec),
            padding: padding.map(<[(i64, i64)]>::to_vec),
        },
    }
}

#[test]
fn reduce_window_follows_the_spec_example() {
    let k = reduce_window(
        &[2, 1],
        Some(&[4, 1]),
        Some(&[2, 1]),
        Some(&[3, 1]),
        Some(&[(2, 1), (0, 0)]),
    );
    let r = infer_regions(k, &[i32t(&[3, 2]), i32t(&[])], &[reducer(&[DType::I32])]);
    assert_eq!(r, Ok(vec![i32t(&[2, 2])]));
}

#[test]
fn reduce_window_max_pool_shape() {
    // 2x2 max pool, stride 2, on NHWC 1x4x4x3 -> 1x2x2x3.
    let k = reduce_window(&[1, 2, 2, 1], Some(&[1, 2, 2, 1]), None, None, None);
    let r = infer_regions(
        k,
        &[f32t(&[1, 4, 4, 3]), f32t(&[])],
        &[reducer(&[DType::F32])],
    );
    assert_eq!(r, Ok(vec![f32t(&[1, 2, 2, 3])]));
    // A window larger than the padded input gives no windows.
    let k = reduce_window(&[5], None, None, None, None);
    let r = infer_regions(k, &[f32t(&[4]), f32t(&[])], &[reducer(&[DType::F32])]);
    assert_eq!(r, Ok(vec![f32t(&[0])]));
}

#[test]
fn reduce_window_rejects_bad_attributes() {
    let ops = [f32t(&[4, 4]), f32t(&[])];
    let body = [reducer(&[DType::F32])];
    let run = |k: OpKind| infer_regions(k, &ops, &body);
    expect_err(
        run(reduce_window(&[2], None, None, None, None)),
        "`window_dimensions` has 1 entry but the input rank is 2",
    );
    expect_err(
        run(reduce_window(&[2, 0], None, None, None, None)),
        "`window_dimensions` [2, 0] has the entry 0",
    );
    expect_err(
        run(reduce_window(&[2, 2], Some(&[1, 0]), None, None, None)),
        "`window_strides` [1, 0]",
    );
    expect_err(
        run(reduce_window(&[2, 2], None, Some(&[1]), None, None)),
        "`base_dilations` has 1 entry",
    );
    expect_err(
        run(reduce_window(&[2, 2], None, None, Some(&[-1, 1]), None)),
        "`window_dilations` [-1, 1]",
    );
    expect_err(
        run(reduce_window(&[2, 2], None, None, None, Some(&[(0, 0)]))),
        "`padding` has 1 entry",
    );
}

fn select_and_scatter(padding: &[(i64, i64)]) -> OpKind {
    OpKind::SelectAndScatter {
        window: Window {
            window_dimensions: vec![3, 1],
            window_strides: Some(vec![2, 1]),
            padding: Some(padding.to_vec()),
            ..Window::default()
        },
    }
}

fn select_and_scatter_regions(d: DType) -> [RegionSignature; 2] {
    let s = t(&[], d);
    [
        RegionSignature::new(vec![s.clone(), s.clone()], vec![t(&[], DType::Bool)]),
        RegionSignature::new(vec![s.clone(), s.clone()], vec![s]),
    ]
}

#[test]
fn select_and_scatter_follows_the_spec_example() {
    let k = select_and_scatter(&[(0, 1), (0, 0)]);
    let ops = [i32t(&[4, 2]), i32t(&[2, 2]), i32t(&[])];
    let r = infer_regions(k, &ops, &select_and_scatter_regions(DType::I32));
    assert_eq!(r, Ok(vec![i32t(&[4, 2])]));
}

#[test]
fn select_and_scatter_checks_source_and_regions() {
    let ops = [i32t(&[4, 2]), i32t(&[2, 2]), i32t(&[])];
    // Without padding only one window fits along dimension 0.
    let e = infer_regions(
        select_and_scatter(&[(0, 0), (0, 0)]),
        &ops,
        &select_and_scatter_regions(DType::I32),
    )
    .unwrap_err();
    assert_eq!(
        e,
        "source has type tensor<2x2xi32> but the windows over tensor<4x2xi32> form the shape [1, 2]"
    );
    let k = select_and_scatter(&[(0, 1), (0, 0)]);
    let [select, scatter] = select_and_scatter_regions(DType::I32);
    expect_err(
        infer_regions(k.clone(), &ops, &[scatter.clone(), scatter.clone()]),
        "select returns (tensor<i32>) but must return (tensor<i1>)",
    );
    expect_err(
        infer_regions(k.clone(), &ops, &[select.clone(), select]),
        "scatter returns (tensor<i1>)",
    );
    expect_err(
        infer_regions(k.clone(), &ops, &[scatter]),
        "expects 2 regions (select, scatter), got 1",
    );
    expect_err(
        infer_regions(
            k,
            &[i32t(&[4, 2]), f32t(&[2, 2]), i32t(&[])],
            &select_and_scatter_regions(DType::I32),
        ),
        "must have one element type",
    );
}

fn comparator(dtypes: &[DType]) -> RegionSignature {
    let args = dtypes
        .iter()
        .flat_map(|&d| [t(&[], d), t(&[], d)])
        .collect();
    RegionSignature::new(args, vec![t(&[], DType::Bool)])
}

#[test]
fn sort_keeps_the_input_types() {
    let x = t(&[2, 3], DType::I64);
    let k = OpKind::Sort {
        dimension: 0,
        is_stable: true,
    };
    let r = infer_regions(
        k,
        &[x.clone(), x.clone()],
        &[comparator(&[DType::I64, DType::I64])],
    );
    assert_eq!(r, Ok(vec![x.clone(), x.clone()]));
    // Negative dimensions count from the end.
    let k = OpKind::Sort {
        dimension: -1,
        is_stable: false,
    };
    assert_eq!(
        infer_regions(k, std::slice::from_ref(&x), &[comparator(&[DType::I64])]),
        Ok(vec![x.clone()])
    );
}

#[test]
fn sort_rejects_bad_dimensions_and_comparators() {
    let x = f32t(&[2, 3]);
    let k = |d| OpKind::Sort {
        dimension: d,
        is_stable: false,
    };
    let e =
        infer_regions(k(2), std::slice::from_ref(&x), &[comparator(&[DType::F32])]).unwrap_err();
    assert_eq!(
        e,
        "dimension 2 is out of range for rank 2 (must be in [-2, 2))"
    );
    expect_err(
        infer_regions(
            k(-3),
            std::slice::from_ref(&x),
            &[comparator(&[DType::F32])],
        ),
        "dimension -3",
    );
    expect_err(
        infer_regions(k(0), std::slice::from_ref(&x), &[reducer(&[DType::F32])]),
        "comparator returns (tensor<f32>) but must return (tensor<i1>)",
    );
    expect_err(
        infer_regions(
            k(0),
            &[x.clone(), i32t(&[2, 3])],
            &[comparator(&[DType::F32])],
        ),
        "comparator takes",
    );
    expect_err(
        infer_regions(k(0), &[x, f32t(&[3, 2])], &[comparator(&[DType::F32; 2])]),
        "shapes must be equal",
    );
    expect_err(
        infer_regions(k(0), &[], &[comparator(&[])]),
        "at least one input",
    );
}
