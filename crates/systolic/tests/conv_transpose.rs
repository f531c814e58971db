//! `lax::conv_transpose` against JAX 0.10.2 (`tests/data/make_conv_transpose_goldens.py` →
//! `conv_transpose_jax0.10.2.json`): shapes and values for strides, SAME/VALID/explicit
//! padding, kernel dilation, transpose_kernel, 1-d and 2-d, NCHW and bf16; eager and under jit;
//! and errors that name the op.

use half::bf16;
use serde_json::Value as Json;
use systolic::lax::{self, ConvDimensions, Padding};
use systolic::{jit, Array};
use systolic_ir::DType;

fn golden() -> Json {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/conv_transpose_jax0.10.2.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn ints(j: &Json) -> Vec<i64> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect()
}

fn floats(j: &Json) -> Vec<f32> {
    j["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect()
}

fn array(j: &Json) -> Array {
    let shape = ints(&j["shape"]);
    let data = floats(j);
    match j["dtype"].as_str().unwrap() {
        "float32" => Array::from_vec(data, &shape),
        "bfloat16" => Array::from_vec(data.into_iter().map(bf16::from_f32).collect(), &shape),
        d => panic!("dtype {d}"),
    }
}

fn values(a: &Array) -> Vec<f32> {
    match a.dtype() {
        DType::F32 => a.to_vec::<f32>().unwrap(),
        DType::BF16 => a
            .to_vec::<bf16>()
            .unwrap()
            .into_iter()
            .map(f32::from)
            .collect(),
        d => panic!("dtype {d:?}"),
    }
}

/// The case's call, with its arguments as JAX got them.
fn call(case: &Json, x: &Array, k: &Array) -> Array {
    let args = &case["args"];
    let strides = ints(&args["strides"]);
    let padding = match &args["padding"] {
        Json::String(s) if s == "SAME" => Padding::Same,
        Json::String(s) if s == "VALID" => Padding::Valid,
        Json::Array(p) => Padding::Explicit(
            p.iter()
                .map(|lh| {
                    let v = ints(lh);
                    (v[0], v[1])
                })
                .collect(),
        ),
        other => panic!("padding {other}"),
    };
    let dilation = args.get("rhs_dilation").map(ints);
    let dims = args.get("dimension_numbers").map(|d| {
        let s: Vec<&str> = d
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        ConvDimensions::new(s[0], s[1], s[2])
    });
    let transpose_kernel = args
        .get("transpose_kernel")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    lax::conv_transpose(
        x,
        k,
        &strides,
        &padding,
        dilation.as_deref(),
        dims.as_ref(),
        transpose_kernel,
    )
}

#[test]
fn matches_jax_eager_and_under_jit() {
    let g = golden();
    for case in g["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (x, k) = (array(&case["x"]), array(&case["k"]));
        let want = floats(&case["out"]);
        let want_shape = ints(&case["out"]["shape"]);
        // Products of about 9·4 terms of unit normals: f32 to a few ulp of the sum's
        // magnitude, bf16 to its rounding of the output.
        let tol = if x.dtype() == DType::BF16 { 2e-2 } else { 1e-5 };
        let eager = call(case, &x, &k);
        let jitted = jit(|(x, k): &(Array, Array)| call(case, x, k))
            .call(&(x.clone(), k.clone()))
            .unwrap();
        for (how, got) in [("eager", eager), ("jit", jitted)] {
            assert_eq!(got.shape(), want_shape.as_slice(), "{name} {how}");
            let got = values(&got);
            let scale = want.iter().fold(1f32, |m, v| m.max(v.abs()));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= tol * scale,
                    "{name} {how}: element {i} is {g}, JAX {w}"
                );
            }
        }
    }
}

#[test]
fn bad_arguments_are_errors_naming_the_op() {
    let x = Array::from_vec(vec![1.0f32; 8], &[1, 4, 2]);
    let k = Array::from_vec(vec![1.0f32; 12], &[3, 2, 2]);
    let msg = |a: Array| a.check().unwrap_err().to_string();
    let e = msg(lax::conv_transpose(
        &x,
        &k,
        &[1, 1],
        &Padding::Same,
        None,
        None,
        false,
    ));
    assert!(
        e.starts_with("conv_transpose:") && e.contains("strides"),
        "{e}"
    );
    let e = msg(lax::conv_transpose(
        &x,
        &k,
        &[0],
        &Padding::Same,
        None,
        None,
        false,
    ));
    assert!(e.contains("must be positive"), "{e}");
    let e = msg(lax::conv_transpose(
        &x,
        &Array::from_vec(vec![1.0f32; 6], &[3, 2]),
        &[1],
        &Padding::Valid,
        None,
        None,
        false,
    ));
    assert!(
        e.starts_with("conv_transpose:") && e.contains("rank"),
        "{e}"
    );
    // Kernel input features (3) do not match the input's channels (2).
    let k3 = Array::from_vec(vec![1.0f32; 18], &[3, 3, 2]);
    let e = msg(lax::conv_transpose(
        &x,
        &k3,
        &[2],
        &Padding::Same,
        None,
        None,
        false,
    ));
    assert!(e.starts_with("conv_transpose:"), "{e}");
    let e = msg(lax::conv_transpose(
        &x,
        &k,
        &[2],
        &Padding::Explicit(vec![(0, 0), (1, 1)]),
        None,
        None,
        false,
    ));
    assert!(
        e.contains("one (low, high) pair per spatial dimension"),
        "{e}"
    );
}
