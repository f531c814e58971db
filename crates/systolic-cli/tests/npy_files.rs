//! The `.npy` reader and writer against files numpy itself wrote (`export_npy_fixtures` in
//! `scripts/export_goldens.py`): every layout (C and Fortran order, versions 1-3, big-endian)
//! and every kind of dtype (bool, ints, floats, complex, ml_dtypes' bfloat16 and int4).

use crate::common;

use systolic_ir::{Data, Scalar};

fn fixtures() -> serde_json::Map<String, serde_json::Value> {
    let path = common::data_dir().join("npy").join("expected.json");
    match serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap() {
        serde_json::Value::Object(m) => m,
        _ => panic!("expected.json is an object"),
    }
}

#[test]
fn reads_every_numpy_fixture_exactly() {
    let all = fixtures();
    assert_eq!(all.len(), 16);
    for (name, want) in &all {
        let dtype = common::dtype_from_numpy(want["dtype"].as_str().unwrap());
        let path = common::data_dir().join("npy").join(format!("{name}.npy"));
        let t = systolic_npy::read(&path, Some(dtype)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.dtype(), dtype, "{name}");
        let shape: Vec<i64> = want["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect();
        assert_eq!(t.shape(), shape.as_slice(), "{name}");
        let values = want["values"].as_array().unwrap();
        assert_eq!(t.num_elements(), values.len(), "{name}");
        for (i, v) in values.iter().enumerate() {
            let ok = match t.get(i) {
                Scalar::Float(x) => {
                    let want: f64 = v.as_str().unwrap().parse().unwrap();
                    x.to_bits() == want.to_bits()
                }
                Scalar::Int(x) => Some(x) == v.as_i64(),
                Scalar::UInt(x) => Some(x) == v.as_u64(),
                Scalar::Bool(b) => Some(b as u64) == v.as_u64(),
                // Complex values are written as [re, im], each as its float text.
                Scalar::Complex(z) => {
                    let part = |k: usize| -> f64 { v[k].as_str().unwrap().parse().unwrap() };
                    z.re.to_bits() == part(0).to_bits() && z.im.to_bits() == part(1).to_bits()
                }
            };
            assert!(ok, "{name}[{i}]: got {}, numpy has {v}", t.get(i));
        }
    }
}

#[test]
fn writes_what_numpy_writes() {
    // For C-order little-endian version-1 files, our bytes must equal numpy's exactly.
    let all = fixtures();
    for name in [
        "c_f32",
        "c64",
        "bf16",
        "f16",
        "bool",
        "int4",
        "uint64",
        "scalar_i64",
        "empty_f32",
    ] {
        let dtype = common::dtype_from_numpy(all[name]["dtype"].as_str().unwrap());
        let path = common::data_dir().join("npy").join(format!("{name}.npy"));
        let numpy_bytes = std::fs::read(&path).unwrap();
        let t = systolic_npy::from_bytes(&numpy_bytes, Some(dtype)).unwrap();
        assert_eq!(systolic_npy::to_bytes(&t), numpy_bytes, "{name}");
    }
}

#[test]
fn fortran_order_equals_c_order() {
    let dir = common::data_dir().join("npy");
    let c = systolic_npy::read(&dir.join("c_f32.npy"), None).unwrap();
    let f = systolic_npy::read(&dir.join("fortran_f32.npy"), None).unwrap();
    assert_eq!(c, f);
    let f3 = systolic_npy::read(&dir.join("fortran_3d_i8.npy"), None).unwrap();
    assert_eq!(f3.data(), &Data::Int((0..24).collect()));
}

#[test]
fn raw_one_byte_elements_need_the_expected_dtype() {
    let path = common::data_dir().join("npy").join("int4.npy");
    let err = systolic_npy::read(&path, None).unwrap_err().to_string();
    assert!(
        err.contains("int4.npy") && err.contains("'<V1'"),
        "the error names the file and the raw type: {err}"
    );
}
