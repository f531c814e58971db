//! Projection of dimension shardings onto factors: sub-axes, overflow, what may grow.

use super::project::{dim_axes, project};
use super::rules::{Factor, FactorKind, OpClass, OpRule};
use systolic_ir::{AxisRef, DimSharding, SdyMesh, SdySharding};

fn mesh() -> SdyMesh {
    SdyMesh {
        name: "mesh".into(),
        axes: vec![("x".into(), 4), ("y".into(), 2)],
        device_ids: None,
    }
}

fn full(n: &str) -> AxisRef {
    AxisRef {
        name: n.into(),
        sub_axis: None,
    }
}

fn sub(n: &str, pre: i64, k: i64) -> AxisRef {
    AxisRef {
        name: n.into(),
        sub_axis: Some((pre, k)),
    }
}

fn sharding(dims: Vec<(Vec<AxisRef>, bool)>) -> SdySharding {
    SdySharding {
        mesh: "mesh".into(),
        dims: dims
            .into_iter()
            .map(|(axes, closed)| DimSharding {
                axes,
                closed,
                priority: None,
            })
            .collect(),
        replicated: vec![],
        unreduced: vec![],
    }
}

/// A rule with factors of the given sizes (all pass) and one tensor of `dims`.
fn rule(sizes: &[i64], dims: Vec<Vec<usize>>) -> OpRule {
    OpRule {
        factors: sizes
            .iter()
            .map(|&size| Factor {
                size,
                kind: FactorKind::Pass,
            })
            .collect(),
        operands: vec![dims],
        results: vec![],
        class: OpClass::PassThrough,
    }
}

#[test]
fn an_axis_larger_than_a_factor_is_split_into_sub_axes() {
    // [16] = factors (2, 8), sharded over "x" (4): "x":(1)2 on the first, "x":(2)2 on the
    // second, which may still grow (its size 8 is not used up).
    let r = rule(&[2, 8], vec![vec![0, 1]]);
    let s = sharding(vec![(vec![full("x")], false)]);
    let p = project(&r, &r.operands[0], &s, &mesh(), i64::MAX, true);
    assert_eq!(p.axes[0], Some(vec![sub("x", 1, 2)]));
    assert_eq!(p.axes[1], Some(vec![sub("x", 2, 2)]));
    assert_eq!(p.grow, [false, true]);
    assert_eq!(
        dim_axes(&[0, 1], &p.axes, &p.overflow[0], &mesh()),
        [full("x")]
    );
}

#[test]
fn a_minor_factor_grows_only_once_the_major_one_is_full() {
    // [8] = factors (4, 2) over "y" (2): the first factor is half sharded, so only it may
    // grow; a closed dimension never grows.
    let r = rule(&[4, 2], vec![vec![0, 1]]);
    let p = project(
        &r,
        &r.operands[0],
        &sharding(vec![(vec![full("y")], false)]),
        &mesh(),
        i64::MAX,
        true,
    );
    assert_eq!(p.axes[0], Some(vec![full("y")]));
    assert_eq!(p.grow, [true, false]);
    let p = project(
        &r,
        &r.operands[0],
        &sharding(vec![(vec![full("y")], true)]),
        &mesh(),
        i64::MAX,
        true,
    );
    assert_eq!(p.grow, [false, false]);
}

#[test]
fn axes_that_fit_no_factor_overflow() {
    // [6] = factors (3, 2) over "y" (2): 2 does not divide 3 and 3 is not the last factor.
    let r = rule(&[3, 2], vec![vec![0, 1]]);
    let p = project(
        &r,
        &r.operands[0],
        &sharding(vec![(vec![full("y")], false)]),
        &mesh(),
        i64::MAX,
        true,
    );
    assert_eq!(p.overflow[0], [full("y")]);
    assert_eq!(p.axes[0], Some(vec![]));
    assert_eq!(p.grow, [false, false]);
    assert_eq!(p.used, [full("y")]);
}

#[test]
fn dimensions_of_a_later_priority_are_hidden() {
    let r = rule(&[16], vec![vec![0]]);
    let mut s = sharding(vec![(vec![full("x")], false)]);
    s.dims[0].priority = Some(2);
    let p = project(&r, &r.operands[0], &s, &mesh(), 1, true);
    assert_eq!(p.axes[0], Some(vec![]));
    assert!(!p.grow[0]);
    assert_eq!(p.used, [full("x")]);
    let p = project(&r, &r.operands[0], &s, &mesh(), 2, true);
    assert_eq!(p.axes[0], Some(vec![full("x")]));
}
