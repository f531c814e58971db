//! numpy constructs (tril/triu, diag/diagonal/trace, ravel, outer/inner/tensordot/kron,
//! meshgrid, diff, searchsorted, bincount, nonzero/argwhere/flatnonzero with `size`) against
//! JAX 0.10.2 (`tests/data/constructs_jax0.10.2.json`, made by
//! `tests/data/make_goldens_constructs.py`), eagerly and under `jit`.

use crate::golden_util::{assert_every_case_is_run, err_of, one, run_cases, OpFn};
use systolic::numpy::{self as np, TensorAxes};
use systolic::{jit, Array};

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/constructs_jax0.10.2.json")).unwrap())
}

/// The trailing `k<N>` of a case name.
fn k_of(name: &str) -> i64 {
    name.rsplit_once("_k").unwrap().1.parse().unwrap()
}

fn op(name: &str) -> OpFn {
    if name.starts_with("tril_f32_k") || name.starts_with("triu_i32_k") {
        let k = k_of(name);
        let upper = name.starts_with("triu");
        return one(move |x| {
            if upper {
                np::triu(&x[0], k)
            } else {
                np::tril(&x[0], k)
            }
        });
    }
    if name.starts_with("diagonal_f32_k") {
        let k = k_of(name);
        return one(move |x| np::diagonal(&x[0], k, 0, 1));
    }
    if name.starts_with("diag_vec_k") || name.starts_with("diag_mat_k") {
        let k = k_of(name);
        return one(move |x| np::diag(&x[0], k));
    }
    match name {
        "tril_bf16" | "tril_empty" => one(|x| np::tril(&x[0], 0)),
        "triu_nan" => one(|x| np::triu(&x[0], 0)),
        "diagonal_i32_ax02" => one(|x| np::diagonal(&x[0], 1, 0, 2)),
        "diagonal_i32_axm1m2" => one(|x| np::diagonal(&x[0], 0, -1, -2)),
        "trace_f32" | "trace_3d" => one(|x| np::trace(&x[0], 0)),
        "trace_i8_k1" => one(|x| np::trace(&x[0], 1)),
        "ravel_3d" => one(|x| np::ravel(&x[0])),
        "outer_f32" | "outer_i32_f32" => one(|x| np::outer(&x[0], &x[1])),
        "inner_vec" | "inner_mat" => one(|x| np::inner(&x[0], &x[1])),
        "tensordot_count2" | "tensordot_bf16" => {
            one(|x| np::tensordot(&x[0], &x[1], TensorAxes::Count(2)))
        }
        "tensordot_count0" => one(|x| np::tensordot(&x[0], &x[1], TensorAxes::Count(0))),
        "tensordot_pairs" => {
            one(|x| np::tensordot(&x[0], &x[1], TensorAxes::Pairs(vec![1], vec![0])))
        }
        "tensordot_pairs_neg" => {
            one(|x| np::tensordot(&x[0], &x[1], TensorAxes::Pairs(vec![-1, 0], vec![0, 1])))
        }
        "kron_2d" | "kron_1d_2d" => one(|x| np::kron(&x[0], &x[1])),
        "meshgrid_xy" | "meshgrid_xy3" => Box::new(|x| {
            let r: Vec<&Array> = x.iter().collect();
            np::meshgrid(&r, true).unwrap()
        }),
        "meshgrid_ij3" => Box::new(|x| {
            let r: Vec<&Array> = x.iter().collect();
            np::meshgrid(&r, false).unwrap()
        }),
        "diff_f32" | "diff_bool" | "diff_u8" => one(|x| np::diff(&x[0], 1, -1)),
        "diff_n2_ax0" => one(|x| np::diff(&x[0], 2, 0)),
        "diff_n3_short" => one(|x| np::diff(&x[0], 3, -1)),
        "searchsorted_left" | "searchsorted_i32_left" => {
            one(|x| np::searchsorted(&x[0], &x[1], false))
        }
        "searchsorted_right" | "searchsorted_i32_right" => {
            one(|x| np::searchsorted(&x[0], &x[1], true))
        }
        "bincount_len5" => one(|x| np::bincount(&x[0], None, 5)),
        "bincount_weights" => one(|x| np::bincount(&x[0], Some(&x[1]), 4)),
        "bincount_u8" => one(|x| np::bincount(&x[0], None, 3)),
        "nonzero_size_exact" | "nonzero_bool_size" => {
            Box::new(|x| np::nonzero(&x[0], Some(3), 0).unwrap())
        }
        "nonzero_size_pad" => Box::new(|x| np::nonzero(&x[0], Some(5), -1).unwrap()),
        "nonzero_size_trunc" | "nonzero_empty_size" => {
            Box::new(|x| np::nonzero(&x[0], Some(2), 0).unwrap())
        }
        "nonzero_f32_size" => Box::new(|x| np::nonzero(&x[0], Some(4), 9).unwrap()),
        "argwhere_size" => one(|x| np::argwhere(&x[0], Some(4), 7).unwrap()),
        "flatnonzero_size" => one(|x| np::flatnonzero(&x[0], Some(4), -3).unwrap()),
        other => panic!("no systolic expression for golden case {other}"),
    }
}

const PREFIXES: &[&str] = &[
    "tril",
    "triu",
    "diag",
    "trace",
    "ravel",
    "outer",
    "inner",
    "tensordot",
    "kron",
    "meshgrid",
    "diff",
    "searchsorted",
    "bincount",
    "nonzero",
    "argwhere",
    "flatnonzero",
];

#[test]
fn triangles_diagonals_trace_match_jax() {
    run_cases(golden(), &["tril", "triu", "diag", "trace", "ravel"], op);
}

#[test]
fn products_match_jax() {
    run_cases(golden(), &["outer", "inner", "tensordot", "kron"], op);
}

#[test]
fn grids_differences_searches_match_jax() {
    run_cases(
        golden(),
        &["meshgrid", "diff", "searchsorted", "bincount"],
        op,
    );
}

#[test]
fn nonzero_family_with_size_matches_jax() {
    run_cases(golden(), &["nonzero", "argwhere", "flatnonzero"], op);
}

#[test]
fn every_golden_case_has_an_expression_and_a_test() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn nonzero_without_size_reads_concrete_arrays_and_refuses_traced_ones() {
    let x = Array::from_vec(vec![0i32, 3, 0, 1, 0, 2], &[2, 3]);
    let nz = np::nonzero(&x, None, 0).unwrap();
    assert_eq!(nz[0].to_vec::<i32>().unwrap(), vec![0, 1, 1]);
    assert_eq!(nz[1].to_vec::<i32>().unwrap(), vec![1, 0, 2]);
    assert_eq!(np::argwhere(&x, None, 0).unwrap().shape(), &[3, 2]);
    assert_eq!(
        np::flatnonzero(&x, None, 0)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![1, 3, 5]
    );
    let seen = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
    let s = seen.clone();
    let f = jit(move |x: &Array| {
        for r in [
            np::nonzero(x, None, 0).map(|_| ()),
            np::argwhere(x, None, 0).map(|_| ()),
            np::flatnonzero(x, None, 0).map(|_| ()),
        ] {
            s.lock().unwrap().push(r.unwrap_err().to_string());
        }
        x.clone()
    });
    f.call(&x).unwrap();
    let msgs = seen.lock().unwrap();
    assert_eq!(msgs.len(), 3);
    for m in msgs.iter() {
        assert!(
            m.contains("nonzero") && m.contains("size") && m.contains("int32"),
            "{m}"
        );
    }
}

#[test]
fn bad_arguments_are_errors_naming_the_op_shapes_and_dtypes() {
    let v = Array::from_vec(vec![1.0f32; 3], &[3]);
    let m = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let t = Array::from_vec(vec![1.0f32; 8], &[2, 2, 2]);
    let cases: Vec<(String, &[&str])> = vec![
        (
            err_of(&np::tril(&v, 0)),
            &["tril", "rank >= 2", "float32[3]"],
        ),
        (err_of(&np::triu(&v, 0)), &["triu", "float32[3]"]),
        (
            err_of(&np::diagonal(&m, 0, 0, 0)),
            &["diagonal", "differ", "float32[2,3]"],
        ),
        (
            err_of(&np::diagonal(&m, 0, 0, 2)),
            &["diagonal", "axis 2", "float32[2,3]"],
        ),
        (
            err_of(&np::diag(&t, 0)),
            &["diag", "1-D or 2-D", "float32[2,2,2]"],
        ),
        (err_of(&np::trace(&v, 0)), &["trace", "float32[3]"]),
        (
            err_of(&np::tensordot(&m, &m, TensorAxes::Count(1))),
            &["tensordot", "float32[2,3]"],
        ),
        (
            err_of(&np::tensordot(&m, &v, TensorAxes::Count(3))),
            &["tensordot", "3 axes"],
        ),
        (
            err_of(&np::tensordot(
                &m,
                &v,
                TensorAxes::Pairs(vec![0, 1], vec![0]),
            )),
            &["tensordot", "[0, 1]", "[0]"],
        ),
        (
            err_of(&np::diff(&v, 1, 1)),
            &["diff", "axis 1", "float32[3]"],
        ),
        (
            err_of(&np::searchsorted(&m, &v, false)),
            &["searchsorted", "1-D", "float32[2,3]"],
        ),
        (
            err_of(&np::bincount(&v, None, 3)),
            &["bincount", "integer", "float32[3]"],
        ),
        (
            err_of(&np::bincount(
                &Array::from_vec(vec![1i32; 2], &[2]),
                Some(&v),
                3,
            )),
            &["bincount", "weights float32[3]", "int32[2]"],
        ),
        (
            np::meshgrid(&[&m], true).unwrap_err().to_string(),
            &["meshgrid", "float32[2,3]"],
        ),
        (
            np::nonzero(&Array::scalar(1i32), Some(1), 0)
                .unwrap_err()
                .to_string(),
            &["nonzero", "int32[]"],
        ),
        (
            np::nonzero(&v, Some(-1), 0).unwrap_err().to_string(),
            &["nonzero", "-1"],
        ),
    ];
    for (msg, needles) in cases {
        for n in needles {
            assert!(msg.contains(n), "{msg:?} should mention {n:?}");
        }
    }
}
