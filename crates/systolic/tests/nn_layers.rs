//! `nn` layers and initializers against flax 0.12.8 and JAX 0.10.2
//! (`scripts/nn_layers_goldens.py`, data in `tests/data/nn_layers/`).
//!
//! Initializers: each of `jax.nn.initializers`' from the same key, eagerly and under `jit`;
//! draws built on uniform bits bit for bit, normal ones within a few ulp (`erf_inv`).
//! Layers: our `init` must make exactly flax's parameter leaves (names and shapes); with
//! flax's (perturbed) parameters loaded into them, `apply` must give flax's output, and the
//! gradient of `sum(y²)` with respect to the parameters and the float inputs flax's gradient,
//! eagerly and under `jit`.

use std::path::PathBuf;

use serde_json::Value;
use systolic::nn::initializers::{self, Distribution, FanMode, Initializer};
use systolic::nn::{self, ConvPadding};
use systolic::{grad, jit, numpy as np, random, Array, Tree};
use systolic_ir::DType;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/nn_layers")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn dtype(name: &str) -> DType {
    DType::ALL
        .into_iter()
        .find(|d| d.numpy_name() == name)
        .unwrap_or_else(|| panic!("dtype {name}"))
}

fn load(rel: &str, d: Option<DType>) -> Array {
    let t = systolic_npy::read(&dir().join(rel), d).unwrap_or_else(|e| panic!("{rel}: {e}"));
    Array::from_tensor(t)
}

fn as_f64(a: &Array) -> Vec<f64> {
    np::astype(a, DType::F64)
        .to_vec::<f64>()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `got` within `rel · max(1, max|want|)` of `want`, element by element.
fn assert_close(what: &str, got: &Array, want: &Array, rel: f64) {
    let g = got.check().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(g.shape(), want.shape(), "{what}: shape");
    assert_eq!(g.dtype(), want.dtype(), "{what}: dtype");
    let (g, w) = (as_f64(g), as_f64(want));
    let scale = w.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a - b).abs() <= rel * scale || (a.is_nan() && b.is_nan());
        assert!(
            ok,
            "{what}[{i}]: {a} vs flax/JAX {b} (tolerance {rel} x {scale})"
        );
    }
}

// ------------------------------------------------------------------ initializers

fn initializer(spec: &Value) -> Initializer {
    let f = |k: &str| spec[k].as_f64().unwrap();
    let axes = |k: &str| -> Option<Vec<i64>> {
        spec.get(k).map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        })
    };
    let init = match spec["init"].as_str().unwrap() {
        "zeros" => initializers::zeros(),
        "ones" => initializers::ones(),
        "constant" => initializers::constant(f("value")),
        "uniform" => initializers::uniform(f("scale")),
        "normal" => initializers::normal(f("stddev")),
        "truncated_normal" => initializers::truncated_normal(f("stddev")),
        "lecun_normal" => initializers::lecun_normal(),
        "lecun_uniform" => initializers::lecun_uniform(),
        "glorot_normal" => initializers::glorot_normal(),
        "glorot_uniform" => initializers::xavier_uniform(),
        "he_normal" => initializers::kaiming_normal(),
        "he_uniform" => initializers::he_uniform(),
        "variance_scaling" => {
            let mode = match spec["mode"].as_str().unwrap() {
                "fan_in" => FanMode::FanIn,
                "fan_out" => FanMode::FanOut,
                "fan_avg" => FanMode::FanAvg,
                "fan_geo_avg" => FanMode::FanGeoAvg,
                m => panic!("mode {m}"),
            };
            let dist = match spec["distribution"].as_str().unwrap() {
                "normal" => Distribution::Normal,
                "uniform" => Distribution::Uniform,
                "truncated_normal" => Distribution::TruncatedNormal,
                d => panic!("distribution {d}"),
            };
            initializers::variance_scaling(f("scale"), mode, dist)
        }
        "orthogonal" => initializers::orthogonal(f("scale"), spec["column_axis"].as_i64().unwrap()),
        other => panic!("initializer {other}"),
    };
    match (axes("in_axis"), axes("out_axis"), axes("batch_axis")) {
        (Some(i), Some(o), Some(b)) => init.with_axes(&i, &o, &b),
        _ => init,
    }
}

/// Whether JAX draws this one from uniform bits alone (then we match bit for bit).
fn bit_exact(spec: &Value) -> bool {
    let name = spec["init"].as_str().unwrap();
    matches!(name, "zeros" | "ones" | "constant" | "uniform")
        || name.ends_with("_uniform")
        || spec.get("distribution").and_then(Value::as_str) == Some("uniform")
}

#[test]
fn initializers_equal_jax_from_the_same_key() {
    let m = manifest();
    let cases = m["initializers"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for spec in cases {
        let name = spec["name"].as_str().unwrap();
        let d = dtype(spec["dtype"].as_str().unwrap());
        let shape: Vec<i64> = spec["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let key = random::key(spec["seed"].as_i64().unwrap());
        let want = load(&format!("init/{name}.npy"), Some(d));
        let init = initializer(spec);
        let eager = init.init(&key, &shape, d);
        let jitted = jit(|k: &Array| init.init(k, &shape, d)).call(&key).unwrap();
        for (how, got) in [("eager", &eager), ("jit", &jitted)] {
            let what = format!("{name} ({how}, {init:?})");
            if bit_exact(spec) {
                let (g, w) = (as_f64(got), as_f64(&want));
                assert_eq!(got.dtype(), d, "{what}");
                assert_eq!(g, w, "{what}: not bit-exact");
            } else {
                // A few ulp: the normal draws go through erf_inv.
                let ulp = match d {
                    // A QR decomposition's rounding on top of the normal draws.
                    DType::F32 if name.starts_with("orthogonal") => 1e-5,
                    DType::F32 => 4.0 * f64::from(f32::EPSILON),
                    DType::BF16 => 2.0 * 2f64.powi(-7),
                    _ => 2.0 * 2f64.powi(-10),
                };
                assert_close(&what, got, &want, ulp);
            }
        }
    }
}

#[test]
fn initializer_errors_name_the_initializer_and_the_shape() {
    let key = random::key(0);
    let e = initializers::lecun_normal()
        .init(&key, &[4], DType::F32)
        .check()
        .unwrap_err()
        .to_string();
    assert!(e.contains("variance_scaling") && e.contains("[4]"), "{e}");
    let e = initializers::he_uniform()
        .with_axes(&[5], &[-1], &[])
        .init(&key, &[2, 3], DType::F32)
        .check()
        .unwrap_err()
        .to_string();
    assert!(e.contains("in_axis 5"), "{e}");
    let e = initializers::normal(1.0)
        .init(&key, &[2], DType::I32)
        .check()
        .unwrap_err()
        .to_string();
    assert!(e.contains("int32"), "{e}");
}

// ------------------------------------------------------------------ layers

/// flax's name for a leaf from our key path: `.query.kernel` → `query.kernel`, and an
/// `Option`'s `Some` position (`.bias[0]` or `.bias.0`) → `bias`.
fn flax_path(p: &str) -> String {
    let p = p.trim_start_matches('.').replace("[0]", "");
    p.split('.')
        .filter(|s| *s != "0")
        .collect::<Vec<_>>()
        .join(".")
}

/// One layer case: `init` makes our parameters for the golden's inputs, `apply` computes the
/// output from parameters and inputs (in the manifest's order).
fn check_layer<P: Tree + Clone>(
    name: &str,
    init: impl Fn(&[Array]) -> P,
    apply: impl Fn(&P, &[Array]) -> Array,
) {
    let m = manifest();
    let case = m["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no golden case {name}"))
        .clone();
    let strs = |k: &str| -> Vec<String> {
        case[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let input_names = strs("inputs");
    let grad_names = strs("grad_inputs");
    let inputs: Vec<Array> = input_names
        .iter()
        .map(|n| load(&format!("{name}/{n}.npy"), None))
        .collect();
    // Our init makes flax's leaves: same paths, same shapes and dtypes.
    let ours = init(&inputs);
    let paths: Vec<String> = ours.def().paths().iter().map(|p| flax_path(p)).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(sorted, strs("params"), "{name}: parameter leaves");
    let mut ours_leaves = vec![];
    ours.leaves(&mut ours_leaves);
    let flax_leaves: Vec<Array> = paths
        .iter()
        .zip(&ours_leaves)
        .map(|(p, mine)| {
            let a = load(&format!("{name}/params.{p}.npy"), Some(mine.dtype()));
            assert_eq!(a.shape(), mine.shape(), "{name}: shape of {p}");
            assert_eq!(a.dtype(), mine.dtype(), "{name}: dtype of {p}");
            a
        })
        .collect();
    let params = ours.rebuild(&mut flax_leaves.into_iter()).unwrap();

    // The output, eagerly and under jit. A bf16 computation anywhere rounds to bf16's 8 bits.
    let want = load(&format!("{name}/y.npy"), None);
    let low = want.dtype() == DType::BF16 || inputs.iter().any(|x| x.dtype() == DType::BF16);
    let (y_tol, grad_tol) = if low { (1e-2, 2e-2) } else { (2e-6, 1e-5) };
    let y = apply(&params, &inputs);
    assert_close(&format!("{name}: y (eager)"), &y, &want, y_tol);
    let f = jit(|(p, xs): &(P, Vec<Array>)| apply(p, xs));
    let yj = f.call(&(params.clone(), inputs.clone())).unwrap();
    assert_close(&format!("{name}: y (jit)"), &yj, &want, y_tol);

    // d sum(y²) / d (params, float inputs); integer inputs are held fixed.
    let is_grad: Vec<bool> = input_names.iter().map(|n| grad_names.contains(n)).collect();
    let merge = |diff: &[Array]| -> Vec<Array> {
        let mut it = diff.iter();
        inputs
            .iter()
            .zip(&is_grad)
            .map(|(x, &g)| {
                if g {
                    it.next().unwrap().clone()
                } else {
                    x.clone()
                }
            })
            .collect()
    };
    let loss =
        |(p, diff): &(P, Vec<Array>)| np::sum(&np::square(&apply(p, &merge(diff))), None, false);
    let diff: Vec<Array> = inputs
        .iter()
        .zip(&is_grad)
        .filter(|(_, g)| **g)
        .map(|(x, _)| x.clone())
        .collect();
    let args = (params.clone(), diff);
    let eager = grad(loss).call(&args).unwrap();
    let jitted = jit(|a: &(P, Vec<Array>)| grad(loss).call(a).unwrap())
        .call(&args)
        .unwrap();
    for (how, (gp, gx)) in [("eager", eager), ("jit", jitted)] {
        let mut leaves = vec![];
        gp.leaves(&mut leaves);
        for (p, g) in paths.iter().zip(&leaves) {
            let w = load(&format!("{name}/grad.{p}.npy"), None);
            assert_close(&format!("{name}: grad {p} ({how})"), g, &w, grad_tol);
        }
        for (n, g) in grad_names.iter().zip(&gx) {
            let w = load(&format!("{name}/grad_{n}.npy"), None);
            assert_close(&format!("{name}: grad {n} ({how})"), g, &w, grad_tol);
        }
    }
}

fn key() -> Array {
    random::key(0)
}

#[test]
fn dense_equals_flax() {
    let l = nn::Dense::new(5);
    check_layer(
        "dense",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    let l = nn::Dense {
        use_bias: false,
        ..nn::Dense::new(3)
    };
    check_layer(
        "dense_nobias",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    // bf16 computation from f32 parameters (flax's `dtype`): the output is bf16.
    let l = nn::Dense {
        dtype: Some(DType::BF16),
        ..nn::Dense::new(4)
    };
    check_layer(
        "dense_bf16",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    let l = nn::DenseGeneral::new(&[2, 3], &[-2, -1]);
    check_layer(
        "dense_general",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
}

#[test]
fn embed_equals_flax() {
    let l = nn::Embed::new(11, 6);
    check_layer(
        "embed",
        |_| l.init(&key()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    check_layer(
        "embed_attend",
        |_| l.init(&key()).unwrap(),
        |p, x| l.attend(p, &x[0]),
    );
}

#[test]
fn norms_equal_flax() {
    let l = nn::LayerNorm::new();
    check_layer(
        "layer_norm",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    let l = nn::LayerNorm {
        use_scale: false,
        epsilon: 1e-3,
        ..nn::LayerNorm::new()
    };
    check_layer(
        "layer_norm_noscale",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    // A bf16 input with f32 parameters: statistics in f32, an f32 output.
    let l = nn::LayerNorm::new();
    check_layer(
        "layer_norm_bf16_input",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
    let l = nn::RMSNorm::new();
    check_layer(
        "rms_norm",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0]),
    );
}

#[test]
fn conv_equals_flax() {
    let cases = [
        ("conv_same", nn::Conv::new(4, &[3, 3])),
        (
            "conv_strided_dilated",
            nn::Conv {
                strides: vec![2],
                padding: ConvPadding::Valid,
                kernel_dilation: vec![1, 2],
                ..nn::Conv::new(4, &[3, 3])
            },
        ),
        (
            "conv_explicit_groups",
            nn::Conv {
                padding: ConvPadding::Explicit(vec![(1, 0), (0, 1)]),
                feature_group_count: 2,
                ..nn::Conv::new(6, &[2, 2])
            },
        ),
        (
            "conv1d_causal",
            nn::Conv {
                padding: ConvPadding::Causal,
                ..nn::Conv::new(3, &[3])
            },
        ),
    ];
    for (name, l) in cases {
        check_layer(
            name,
            |x| l.init(&key(), x[0].shape()).unwrap(),
            |p, x| l.apply(p, &x[0]),
        );
    }
}

#[test]
fn conv_transpose_equals_flax() {
    let cases = [
        (
            "conv_transpose_same",
            nn::ConvTranspose {
                strides: vec![2, 2],
                ..nn::ConvTranspose::new(3, &[3, 3])
            },
        ),
        (
            "conv_transpose_valid_dilated",
            nn::ConvTranspose {
                strides: vec![1, 2],
                padding: ConvPadding::Valid,
                kernel_dilation: vec![2, 1],
                ..nn::ConvTranspose::new(2, &[2, 3])
            },
        ),
        (
            "conv_transpose_kernel",
            nn::ConvTranspose {
                strides: vec![2],
                padding: ConvPadding::Explicit(vec![(1, 2)]),
                transpose_kernel: true,
                ..nn::ConvTranspose::new(4, &[3])
            },
        ),
    ];
    for (name, l) in cases {
        check_layer(
            name,
            |x| l.init(&key(), x[0].shape()).unwrap(),
            |p, x| l.apply(p, &x[0]),
        );
    }
}

#[test]
fn dropout_equals_flax_with_the_same_key() {
    let l = nn::Dropout::new(0.3);
    check_layer(
        "dropout",
        |_| (),
        |_, x| l.apply(&x[0], false, Some(&random::key(42))),
    );
    let l = nn::Dropout {
        rate: 0.5,
        broadcast_dims: vec![0],
    };
    check_layer(
        "dropout_broadcast",
        |_| (),
        |_, x| l.apply(&x[0], false, Some(&random::key(7))),
    );
}

fn causal_mask() -> Array {
    nn::make_causal_mask(&np::zeros(&[2, 5], DType::I32), 0, DType::F32)
}

#[test]
fn attention_equals_flax() {
    let l = nn::MultiHeadDotProductAttention {
        qkv_features: Some(16),
        ..nn::MultiHeadDotProductAttention::new(4)
    };
    check_layer(
        "mha_causal",
        |x| l.init(&key(), x[0].shape(), None).unwrap(),
        |p, x| l.apply(p, &x[0], None, None, Some(&causal_mask()), None),
    );

    let l = nn::MultiHeadDotProductAttention {
        out_features: Some(6),
        ..nn::MultiHeadDotProductAttention::new(2)
    };
    let valid =
        |v: Vec<i32>, s: &[i64]| np::greater(&Array::from_vec(v, s), &systolic::weak_int(0));
    let q_valid = valid(vec![5, 2, 0, 1, 0, 0], &[2, 3]);
    let k_valid = valid(vec![3, 1, 4, 0, 2, 2, 0, 0], &[2, 4]);
    let padding = nn::make_attention_mask(&q_valid, &k_valid, np::multiply, 0, DType::F32);
    check_layer(
        "mha_cross_padding",
        |x| l.init(&key(), x[0].shape(), Some(x[1].shape())).unwrap(),
        |p, x| l.apply(p, &x[0], Some(&x[1]), None, Some(&padding), None),
    );

    let l = nn::MultiHeadDotProductAttention {
        dropout_rate: 0.25,
        ..nn::MultiHeadDotProductAttention::new(2)
    };
    check_layer(
        "mha_dropout",
        |x| l.init(&key(), x[0].shape(), None).unwrap(),
        |p, x| l.apply(p, &x[0], None, None, None, Some(&random::key(3))),
    );

    let l = nn::MultiHeadDotProductAttention {
        normalize_qk: true,
        ..nn::MultiHeadDotProductAttention::new(2)
    };
    check_layer(
        "mha_normalize_qk",
        |x| l.init(&key(), x[0].shape(), None).unwrap(),
        |p, x| l.apply(p, &x[0], None, None, None, None),
    );
}

#[test]
fn grouped_query_attention_equals_flax_with_repeated_heads() {
    let l = nn::MultiHeadDotProductAttention {
        num_kv_heads: Some(2),
        qkv_features: Some(12),
        out_features: Some(8),
        ..nn::MultiHeadDotProductAttention::new(4)
    };
    check_layer(
        "mha_gqa",
        |x| l.init(&key(), x[0].shape(), None).unwrap(),
        |p, x| l.apply(p, &x[0], None, None, Some(&causal_mask()), None),
    );
}

#[test]
fn mlp_equals_flax() {
    let l = nn::Mlp::new(16, Some(6));
    check_layer(
        "mlp",
        |x| l.init(&key(), x[0].shape()).unwrap(),
        |p, x| l.apply(p, &x[0], None),
    );
}

#[test]
fn layer_errors_name_the_layer_and_shapes() {
    let dense = nn::Dense::new(3);
    let p = dense.init(&key(), &[2, 4]).unwrap();
    let e = dense
        .apply(&p, &np::zeros(&[2, 5], DType::F32))
        .check()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("nn.Dense") && e.contains("kernel") && e.contains("[5, 3]"),
        "{e}"
    );
    let attn = nn::MultiHeadDotProductAttention::new(3);
    let e = attn.init(&key(), &[1, 2, 8], None).unwrap_err().to_string();
    assert!(e.contains("divisible") && e.contains('8'), "{e}");
    let gqa = nn::MultiHeadDotProductAttention {
        num_kv_heads: Some(3),
        ..nn::MultiHeadDotProductAttention::new(4)
    };
    assert!(gqa.init(&key(), &[1, 2, 8], None).is_err());
    let conv = nn::Conv {
        feature_group_count: 3,
        ..nn::Conv::new(4, &[3])
    };
    let e = conv.init(&key(), &[1, 5, 4]).unwrap_err().to_string();
    assert!(e.contains("feature_group_count 3"), "{e}");
    let drop = nn::Dropout::new(1.5);
    assert!(drop
        .apply(&np::ones(&[2], DType::F32), false, Some(&key()))
        .check()
        .is_err());
    let embed = nn::Embed::new(4, 2);
    let p = embed.init(&key()).unwrap();
    let e = embed
        .apply(&p, &np::zeros(&[2], DType::F32))
        .check()
        .unwrap_err()
        .to_string();
    assert!(e.contains("nn.Embed") && e.contains("integer"), "{e}");
}
