//! The `jax.nn` surface (activations, softmax family over several axes, standardize, layer/RMS
//! norm, dot_product_attention) against JAX 0.10.2 (`tests/data/nn_jax0.10.2.json`, made by
//! `tests/data/make_goldens_nn.py`). Every case runs eagerly and under `jit`.

use crate::golden_util::{assert_every_case_is_run, err_of, one, run_cases, OpFn};
use systolic::{nn, Array};

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/nn_jax0.10.2.json")).unwrap())
}

fn activation(name: &str) -> Option<fn(&Array) -> Array> {
    Some(match name {
        "softplus" => nn::softplus,
        "log_sigmoid" => nn::log_sigmoid,
        "elu" => |x| nn::elu(x, 0.5),
        "selu" => nn::selu,
        "celu" => |x| nn::celu(x, 2.0),
        "leaky_relu" => |x| nn::leaky_relu(x, 0.1),
        "relu6" => nn::relu6,
        "hard_tanh" => nn::hard_tanh,
        "hard_sigmoid" => nn::hard_sigmoid,
        "hard_silu" => nn::hard_silu,
        _ => return None,
    })
}

/// The systolic expression of every recorded case.
fn op(name: &str) -> OpFn {
    if let Some(rest) = name.strip_prefix("act_") {
        let f = (0..rest.len())
            .rev()
            .filter(|&i| rest.as_bytes()[i] == b'_')
            .find_map(|i| activation(&rest[..i]))
            .unwrap_or_else(|| panic!("no activation for {name}"));
        return one(move |x| f(&x[0]));
    }
    // softmax family: the axes are the name's last part.
    for (prefix, kind) in [("log_softmax_", 1), ("softmax_", 0), ("logsumexp_", 2)] {
        if let Some(rest) = name.strip_prefix(prefix) {
            let keep = rest.ends_with("_keep");
            let rest = rest.trim_end_matches("_keep");
            let axes: Option<Vec<i64>> = match rest.rsplit('_').next().unwrap() {
                "last" => Some(vec![-1]),
                "02" => Some(vec![0, 2]),
                "12" => Some(vec![1, 2]),
                "m1m3" => Some(vec![-1, -3]),
                "one" | "axis0" => Some(vec![0]),
                "all" | "i32" => None,
                other => panic!("axes {other} of {name}"),
            };
            return one(move |x| {
                let a = axes.as_deref();
                match kind {
                    0 => nn::softmax_axes(&x[0], a),
                    1 => nn::log_softmax_axes(&x[0], a),
                    _ => nn::logsumexp_axes(&x[0], a, keep),
                }
            });
        }
    }
    match name {
        "glu_last" => one(|x| nn::glu(&x[0], -1)),
        "glu_axis1" => one(|x| nn::glu(&x[0], 1)),
        "standardize_last" | "standardize_bf16" | "standardize_i32" => {
            one(|x| nn::standardize(&x[0], Some(&[-1]), 1e-5))
        }
        "standardize_02" => one(|x| nn::standardize(&x[0], Some(&[0, 2]), 1e-5)),
        "standardize_all_eps" => one(|x| nn::standardize(&x[0], None, 0.5)),
        "standardize_f16" => one(|x| nn::standardize(&x[0], Some(&[1]), 1e-5)),
        "standardize_one" => one(|x| nn::standardize(&x[0], Some(&[0]), 1e-5)),
        "layer_norm_f32" | "layer_norm_bf16_f32params" | "layer_norm_bf16" => {
            one(|x| nn::layer_norm(&x[0], Some(&x[1]), Some(&x[2]), Some(&[-1]), 1e-6))
        }
        "layer_norm_f16_noparams" => one(|x| nn::layer_norm(&x[0], None, None, Some(&[-1]), 1e-5)),
        "layer_norm_axes12" => {
            one(|x| nn::layer_norm(&x[0], Some(&x[1]), None, Some(&[1, 2]), 1e-6))
        }
        "layer_norm_const_row" => one(|x| nn::layer_norm(&x[0], None, None, Some(&[-1]), 1e-6)),
        "rms_norm_f32" | "rms_norm_bf16" => {
            one(|x| nn::rms_norm(&x[0], Some(&x[1]), Some(&[-1]), 1e-6))
        }
        "rms_norm_f16_noscale_all" => one(|x| nn::rms_norm(&x[0], None, None, 1e-5)),
        "attn_plain" | "attn_mqa" => {
            one(|x| nn::dot_product_attention(&x[0], &x[1], &x[2], None, None, None, false))
        }
        "attn_scale" => {
            one(|x| nn::dot_product_attention(&x[0], &x[1], &x[2], None, None, Some(0.3), false))
        }
        "attn_bias_mask" => one(|x| {
            nn::dot_product_attention(&x[0], &x[1], &x[2], Some(&x[3]), Some(&x[4]), None, false)
        }),
        "attn_causal" | "attn_f16_causal" | "attn_3d_causal" => {
            one(|x| nn::dot_product_attention(&x[0], &x[1], &x[2], None, None, None, true))
        }
        "attn_3d_bias_2d" | "attn_gqa_bias" => {
            one(|x| nn::dot_product_attention(&x[0], &x[1], &x[2], Some(&x[3]), None, None, false))
        }
        "attn_gqa_mask_causal" => {
            one(|x| nn::dot_product_attention(&x[0], &x[1], &x[2], None, Some(&x[3]), None, true))
        }
        "attn_bf16_mask" | "attn_fully_masked" => {
            one(|x| nn::dot_product_attention(&x[0], &x[1], &x[2], None, Some(&x[3]), None, false))
        }
        other => panic!("no systolic expression for golden case {other}"),
    }
}

/// The name prefixes the tests below run; every golden case falls under one.
const PREFIXES: &[&str] = &[
    "act_",
    "glu",
    "softmax",
    "log_softmax",
    "logsumexp",
    "standardize",
    "layer_norm",
    "rms_norm",
    "attn",
];

#[test]
fn activations_match_jax() {
    run_cases(golden(), &["act_", "glu"], op);
}

#[test]
fn softmax_family_over_several_axes_matches_jax() {
    run_cases(golden(), &["softmax", "log_softmax", "logsumexp"], op);
}

#[test]
fn normalisations_match_jax_and_flax() {
    run_cases(golden(), &["standardize", "layer_norm", "rms_norm"], op);
}

#[test]
fn dot_product_attention_matches_jax() {
    run_cases(golden(), &["attn"], op);
}

#[test]
fn every_golden_case_has_an_expression_and_a_test() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn bad_arguments_are_errors_naming_the_op_shapes_and_dtypes() {
    let x = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let q = Array::from_vec(vec![1.0f32; 8], &[1, 2, 2, 2]);
    let k3 = Array::from_vec(vec![1.0f32; 12], &[1, 2, 3, 2]);
    let qb = Array::from_vec(vec![half::bf16::ONE; 8], &[1, 2, 2, 2]);
    let maskf = Array::from_vec(vec![1.0f32; 4], &[1, 1, 2, 2]);
    let bias_bad = Array::from_vec(vec![1.0f32; 3], &[1, 1, 1, 3]);
    let cases: Vec<(String, &[&str])> = vec![
        (err_of(&nn::glu(&x, 1)), &["glu", "float32[2,3]", "even"]),
        (err_of(&nn::glu(&x, 2)), &["glu", "axis 2", "float32[2,3]"]),
        (
            err_of(&nn::softmax_axes(&x, Some(&[0, 5]))),
            &["axis 5", "float32[2,3]"],
        ),
        (
            err_of(&nn::logsumexp_axes(&x, Some(&[-3]), false)),
            &["axis -3", "float32[2,3]"],
        ),
        (
            err_of(&nn::standardize(&x, Some(&[2]), 1e-5)),
            &["standardize", "axis 2", "float32[2,3]"],
        ),
        (
            err_of(&nn::layer_norm(
                &x,
                Some(&Array::from_vec(vec![1.0f32; 2], &[2])),
                None,
                Some(&[-1]),
                1e-6,
            )),
            &["layer_norm", "scale float32[2]", "float32[2,3]"],
        ),
        (
            err_of(&nn::layer_norm(
                &Array::from_vec(vec![true; 2], &[2]),
                None,
                None,
                None,
                1e-6,
            )),
            &["layer_norm", "bool[2]"],
        ),
        (
            err_of(&nn::rms_norm(&x, None, Some(&[3]), 1e-6)),
            &["rms_norm", "axis 3"],
        ),
        (
            err_of(&nn::dot_product_attention(
                &x, &x, &x, None, None, None, false,
            )),
            &["dot_product_attention", "rank 3", "float32[2,3]"],
        ),
        (
            err_of(&nn::dot_product_attention(
                &q, &k3, &k3, None, None, None, false,
            )),
            &[
                "dot_product_attention",
                "multiple",
                "float32[1,2,2,2]",
                "float32[1,2,3,2]",
            ],
        ),
        (
            err_of(&nn::dot_product_attention(
                &qb, &q, &q, None, None, None, false,
            )),
            &[
                "dot_product_attention",
                "bfloat16[1,2,2,2]",
                "float32[1,2,2,2]",
            ],
        ),
        (
            err_of(&nn::dot_product_attention(
                &q,
                &q,
                &q,
                None,
                Some(&maskf),
                None,
                false,
            )),
            &[
                "dot_product_attention",
                "mask must be bool",
                "float32[1,1,2,2]",
            ],
        ),
        (
            err_of(&nn::dot_product_attention(
                &q,
                &q,
                &q,
                Some(&bias_bad),
                None,
                None,
                false,
            )),
            &[
                "dot_product_attention",
                "bias float32[1,1,1,3]",
                "[1, 2, 2, 2]",
            ],
        ),
    ];
    for (msg, needles) in cases {
        for n in needles {
            assert!(msg.contains(n), "{msg:?} should mention {n:?}");
        }
    }
}

#[test]
fn errors_surface_under_jit_too() {
    let f = systolic::jit(|x: &Array| nn::glu(x, 0));
    let e = f
        .call(&Array::from_vec(vec![1.0f32; 3], &[3]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("glu") && e.contains("float32[3]"), "{e}");
}
