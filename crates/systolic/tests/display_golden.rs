//! `Display` of arrays equals what `print(x)` shows for the same JAX array (numpy's `str`):
//! float widths and notation, nan/inf, integers, booleans, wrapping at 75 columns, nesting and
//! summaries of large arrays. Goldens: `scripts/display_goldens.py`.

use serde_json::Value;
use systolic::Array;
use systolic_ir::{DType, Tensor};

fn dtype(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "float16" => DType::F16,
        "int32" => DType::I32,
        "uint8" => DType::U8,
        "bool" => DType::Bool,
        other => panic!("no dtype {other} in the goldens"),
    }
}

fn tensor(case: &Value) -> Tensor {
    let dt = dtype(case["dtype"].as_str().unwrap());
    let shape: Vec<i64> = case["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let values = case["values"].as_array().unwrap();
    match dt {
        DType::Bool => {
            Tensor::from_bool(shape, values.iter().map(|v| v.as_bool().unwrap()).collect())
        }
        DType::I32 => Tensor::from_i64(
            shape,
            dt,
            values.iter().map(|v| v.as_i64().unwrap()).collect(),
        ),
        DType::U8 => Tensor::from_u64(
            shape,
            dt,
            values.iter().map(|v| v.as_u64().unwrap()).collect(),
        ),
        _ => Tensor::from_f64(
            shape,
            dt,
            values
                .iter()
                .map(|v| v.as_str().unwrap().parse::<f64>().unwrap())
                .collect(),
        ),
    }
    .unwrap()
}

#[test]
fn arrays_print_as_jax_prints_them() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/display/cases.json"
    ))
    .unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 30);
    let mut wrong = Vec::new();
    for case in &cases {
        let shown = Array::from_tensor(tensor(case)).to_string();
        let expected = case["text"].as_str().unwrap();
        if shown != expected {
            wrong.push(format!(
                "{}:\n--- JAX\n{expected}\n--- Systolic\n{shown}",
                case["name"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn traced_and_failed_arrays_say_what_they_are() {
    let f = systolic::jit(|x: &Array| {
        assert_eq!(x.to_string(), "Traced<float32[3]>");
        x.clone()
    });
    f.call(&Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]))
        .unwrap();
    let bad = systolic::numpy::matmul(&Array::scalar(1.0f32), &Array::scalar(2.0f32));
    assert!(bad.to_string().starts_with("<failed array: "), "{bad}");
}
