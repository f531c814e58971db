//! numpy reductions (prod, all, any, count_nonzero, ptp, var/std, average, median/quantile,
//! nan-reductions) against JAX 0.10.2 (`tests/data/reductions_jax0.10.2.json`, made by
//! `tests/data/make_goldens_reductions.py`), eagerly and under `jit`, over one, several,
//! negative and all axes, with and without keepdims, on f32/bf16/f16/i32/i8/u8/bool, NaN and
//! infinities, size-0 and size-1 dimensions.

use crate::golden_util::{assert_every_case_is_run, err_of, run_cases, OpFn};
use systolic::numpy as np;
use systolic::Array;

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/reductions_jax0.10.2.json")).unwrap())
}

/// The axes and keepdims a case name's input tag stands for (see the script's `shapes`).
fn tag(t: &str) -> (Option<Vec<i64>>, bool) {
    let axes = |a: &[i64]| Some(a.to_vec());
    match t {
        "f32_ax1" | "i32_ax1" | "i8_ax1" | "nan_ax1" | "nanbf16_ax1" => (axes(&[1]), false),
        "f32_ax02" => (axes(&[0, 2]), false),
        "f32_neg_keep" => (axes(&[-1]), true),
        "f32_all" | "u8_all" | "nanbf16_all" | "nan_all" => (None, false),
        "bf16_ax2" => (axes(&[2]), false),
        "f16_ax0" | "one_ax0" => (axes(&[0]), true),
        "bool_ax0" | "empty_ax0" | "size1" => (axes(&[0]), false),
        other => panic!("unknown tag {other}"),
    }
}

type Reduce = fn(&Array, Option<&[i64]>, bool) -> Array;

fn plain(f: &str) -> Option<Reduce> {
    Some(match f {
        "prod" => np::prod,
        "all" => np::all,
        "any" => np::any,
        "count_nonzero" => np::count_nonzero,
        "ptp" => np::ptp,
        "median" => np::median,
        "nansum" => np::nansum,
        "nanmean" => np::nanmean,
        "nanmax" => np::nanmax,
        "nanmin" => np::nanmin,
        _ => return None,
    })
}

fn op(name: &str) -> OpFn {
    if let Some(rest) = name.strip_prefix("average_") {
        return match rest {
            "noweights_ax1" => Box::new(|x| vec![np::average(&x[0], Some(&[1]), None, false)]),
            "same_ax02" => {
                Box::new(|x| vec![np::average(&x[0], Some(&[0, 2]), Some(&x[1]), false)])
            }
            "1d_ax1_keep" => Box::new(|x| vec![np::average(&x[0], Some(&[1]), Some(&x[1]), true)]),
            "int_1d" => Box::new(|x| vec![np::average(&x[0], Some(&[-2]), Some(&x[1]), false)]),
            "bf16_all" => Box::new(|x| vec![np::average(&x[0], None, Some(&x[1]), false)]),
            other => panic!("average case {other}"),
        };
    }
    if let Some(rest) = name.strip_prefix("quantile_q") {
        let (q, t) = rest.split_once('_').unwrap();
        let q: f64 = q.parse().unwrap();
        let (ax, kd) = tag(t);
        return Box::new(move |x| vec![np::quantile(&x[0], q, ax.as_deref(), kd)]);
    }
    for (prefix, is_std) in [("var_", false), ("std_", true)] {
        if let Some(rest) = name.strip_prefix(prefix) {
            let (t, ddof) = match rest.rsplit_once("_ddof") {
                Some((t, d)) => (t, d.parse::<i64>().unwrap()),
                None => (rest, 1),
            };
            let (ax, kd) = tag(t);
            return Box::new(move |x| {
                let f = if is_std { np::std } else { np::var };
                vec![f(&x[0], ax.as_deref(), ddof, kd)]
            });
        }
    }
    // The longest function name that prefixes the case name.
    let (f, t) = (1..name.len())
        .rev()
        .filter(|&i| name.as_bytes()[i] == b'_')
        .find_map(|i| plain(&name[..i]).map(|f| (f, &name[i + 1..])))
        .unwrap_or_else(|| panic!("no expression for {name}"));
    let (ax, kd) = tag(t);
    Box::new(move |x| vec![f(&x[0], ax.as_deref(), kd)])
}

const PREFIXES: &[&str] = &[
    "prod",
    "all",
    "any",
    "count_nonzero",
    "ptp",
    "var",
    "std",
    "average",
    "median",
    "quantile",
    "nansum",
    "nanmean",
    "nanmax",
    "nanmin",
];

#[test]
fn prod_all_any_count_nonzero_ptp_match_jax() {
    run_cases(
        golden(),
        &["prod", "all", "any", "count_nonzero", "ptp"],
        op,
    );
}

#[test]
fn var_std_average_match_jax() {
    run_cases(golden(), &["var", "std", "average"], op);
}

#[test]
fn median_quantile_match_jax() {
    run_cases(golden(), &["median", "quantile"], op);
}

#[test]
fn nan_reductions_match_jax() {
    run_cases(golden(), &["nansum", "nanmean", "nanmax", "nanmin"], op);
}

#[test]
fn every_golden_case_has_an_expression_and_a_test() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn bad_axes_and_arguments_are_errors_naming_the_op() {
    let x = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let w = Array::from_vec(vec![1.0f32; 4], &[4]);
    let e = Array::from_vec(Vec::<f32>::new(), &[0]);
    let reds: [(&str, Reduce); 10] = [
        ("prod", np::prod),
        ("all", np::all),
        ("any", np::any),
        ("count_nonzero", np::count_nonzero),
        ("ptp", np::ptp),
        ("median", np::median),
        ("nansum", np::nansum),
        ("nanmean", np::nanmean),
        ("nanmax", np::nanmax),
        ("nanmin", np::nanmin),
    ];
    for (name, f) in reds {
        let m = err_of(&f(&x, Some(&[2]), false));
        assert!(
            m.contains("axis 2") && m.contains("float32[2,3]"),
            "{name}: {m}"
        );
        let m = err_of(&f(&x, Some(&[-3]), true));
        assert!(m.contains("axis -3"), "{name}: {m}");
    }
    let cases: Vec<(String, &[&str])> = vec![
        (
            err_of(&np::var(&x, Some(&[5]), 0, false)),
            &["var", "axis 5", "float32[2,3]"],
        ),
        (
            err_of(&np::std(&x, Some(&[5]), 0, false)),
            &["var", "axis 5"],
        ),
        (
            err_of(&np::average(&x, Some(&[1]), Some(&w), false)),
            &["average", "weights float32[4]", "float32[2,3]"],
        ),
        (
            err_of(&np::quantile(&x, -0.1, None, false)),
            &["quantile", "-0.1"],
        ),
        (
            err_of(&np::quantile(&e, 0.5, None, false)),
            &["quantile", "empty", "float32[0]"],
        ),
        (
            err_of(&np::median(&x, Some(&[7]), false)),
            &["median", "axis 7"],
        ),
    ];
    for (msg, needles) in cases {
        for n in needles {
            assert!(msg.contains(n), "{msg:?} should mention {n:?}");
        }
    }
}
