//! numpy.linalg (norm over vector and matrix orders, cholesky, triangular solves) against JAX
//! 0.10.2 (`tests/data/linalg_jax0.10.2.json`, made by `tests/data/make_goldens_linalg.py`),
//! eagerly and under `jit`.

use crate::golden_util::{assert_every_case_is_run, err_of, one, run_cases, OpFn};
use systolic::numpy::linalg::{self, NormOrd};
use systolic::Array;

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/linalg_jax0.10.2.json")).unwrap())
}

/// The order a case name ends with.
fn ord_of(tag: &str) -> Option<NormOrd> {
    Some(match tag {
        "none" => return None,
        "fro" => NormOrd::Fro,
        "inf" => NormOrd::P(f64::INFINITY),
        "neginf" => NormOrd::P(f64::NEG_INFINITY),
        "m1" => NormOrd::P(-1.0),
        "half" => NormOrd::P(0.5),
        p => NormOrd::P(p.parse().unwrap()),
    })
}

fn op(name: &str) -> OpFn {
    if let Some(rest) = name.strip_prefix("norm_") {
        let fixed: Option<(Option<NormOrd>, Option<Vec<i64>>, bool)> = match rest {
            "vec_i32" | "vec_bf16" | "vec_nan" | "t_all" => Some((None, None, false)),
            "vec_f16_3" => Some((Some(NormOrd::P(3.0)), None, false)),
            "vec_empty_inf" => Some((Some(NormOrd::P(f64::INFINITY)), None, false)),
            "t_all_keep" => Some((None, None, true)),
            "t_ax2_keep" => Some((None, Some(vec![-1]), true)),
            _ => None,
        };
        let (ord, axis, keep) = fixed.unwrap_or_else(|| {
            let tag = rest.rsplit('_').next().unwrap();
            let ord = ord_of(tag);
            if rest.starts_with("vec_") || rest.starts_with("mat_") {
                (ord, None, false)
            } else if rest.starts_with("t_ax1_") {
                (ord, Some(vec![1]), false)
            } else if rest.starts_with("t_ax20_") {
                (ord, Some(vec![2, 0]), false)
            } else if rest.starts_with("t_ax12_keep_") {
                (ord, Some(vec![1, 2]), true)
            } else {
                panic!("norm case {name}")
            }
        });
        return one(move |x| linalg::norm(&x[0], ord, axis.as_deref(), keep));
    }
    match name {
        "cholesky_f32" | "cholesky_batch" | "cholesky_nonsym" | "cholesky_not_pd"
        | "cholesky_one" => one(|x| linalg::cholesky(&x[0])),
        "trisolve_left_lower" | "trisolve_reads_one_triangle" => {
            one(|x| linalg::triangular_solve(&x[0], &x[1], true, true, false, false))
        }
        "trisolve_left_upper_t" => {
            one(|x| linalg::triangular_solve(&x[0], &x[1], true, false, true, false))
        }
        "trisolve_right_lower" => {
            one(|x| linalg::triangular_solve(&x[0], &x[1], false, true, false, false))
        }
        "trisolve_left_lower_unit" => {
            one(|x| linalg::triangular_solve(&x[0], &x[1], true, true, false, true))
        }
        "solve_triangular_vec" => {
            one(|x| linalg::solve_triangular(&x[0], &x[1], false, false, false))
        }
        "solve_triangular_lower_trans" => {
            one(|x| linalg::solve_triangular(&x[0], &x[1], true, true, false))
        }
        other => panic!("no systolic expression for golden case {other}"),
    }
}

const PREFIXES: &[&str] = &["norm", "cholesky", "trisolve", "solve_triangular"];

#[test]
fn norms_match_jax() {
    run_cases(golden(), &["norm"], op);
}

#[test]
fn cholesky_and_triangular_solves_match_jax() {
    run_cases(golden(), &["cholesky", "trisolve", "solve_triangular"], op);
}

#[test]
fn every_golden_case_has_an_expression_and_a_test() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn bad_arguments_are_errors_naming_the_op_shapes_and_dtypes() {
    let v = Array::from_vec(vec![1.0f32; 3], &[3]);
    let m = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let sq = Array::from_vec(vec![1.0f32; 4], &[2, 2]);
    let sqi = Array::from_vec(vec![1i32; 4], &[2, 2]);
    let t = Array::from_vec(vec![1.0f32; 8], &[2, 2, 2]);
    let cases: Vec<(String, &[&str])> = vec![
        (
            err_of(&linalg::norm(&m, Some(NormOrd::P(3.0)), None, false)),
            &["norm", "order 3", "float32[2,3]"],
        ),
        (
            err_of(&linalg::norm(&v, Some(NormOrd::Fro), None, false)),
            &["norm", "two axes", "float32[3]"],
        ),
        (
            err_of(&linalg::norm(&t, Some(NormOrd::P(1.0)), None, false)),
            &["norm", "[0, 1, 2]", "float32[2,2,2]"],
        ),
        (
            err_of(&linalg::norm(&m, None, Some(&[0, 0]), false)),
            &["norm", "[0, 0]"],
        ),
        (
            err_of(&linalg::norm(&m, None, Some(&[2]), false)),
            &["norm", "axis 2", "float32[2,3]"],
        ),
        (
            err_of(&linalg::cholesky(&m)),
            &["cholesky", "square", "float32[2,3]"],
        ),
        (err_of(&linalg::cholesky(&sqi)), &["cholesky", "int32[2,2]"]),
        (
            err_of(&linalg::triangular_solve(
                &sq,
                &m.clone(),
                false,
                true,
                false,
                false,
            )),
            &["triangular_solve", "float32[2,3]", "float32[2,2]", "k, m"],
        ),
        (
            err_of(&linalg::triangular_solve(&sq, &v, true, true, false, false)),
            &["triangular_solve", "float32[3]"],
        ),
        (
            err_of(&linalg::solve_triangular(&sq, &v, false, true, false)),
            &["triangular_solve", "float32[3,1]"],
        ),
    ];
    for (msg, needles) in cases {
        for n in needles {
            assert!(msg.contains(n), "{msg:?} should mention {n:?}");
        }
    }
}
