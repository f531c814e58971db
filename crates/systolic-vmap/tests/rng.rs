//! vmap of `stablehlo.rng_bit_generator` against JAX (tests/data/rng_goldens.json, made by
//! tests/make_rng_goldens.py): JAX draws every example's bits from the first example's state
//! and advances only that state. Per-example programs exported by JAX, batched here (nested
//! maps included) and run on the interpreter; states and bits must equal JAX's bit for bit.

use serde_json::Value as Json;
use systolic_interp::{Interpreter, Value};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::verify::verify_module;
use systolic_ir::{DType, Data, Module, Tensor, TensorType};

fn tensor(j: &Json) -> Tensor {
    let shape: Vec<i64> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let dtype = match j["dtype"].as_str().unwrap() {
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        d => panic!("dtype {d}"),
    };
    let data = j["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    Tensor::new(TensorType::new(shape, dtype), Data::UInt(data)).unwrap()
}

fn axes(j: &Json) -> Vec<Option<usize>> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().map(|a| a as usize))
        .collect()
}

fn check_case(c: &Json) {
    let name = c["name"].as_str().unwrap();
    let mut m = parse_module(c["mlir"].as_str().unwrap(), name).unwrap();
    for map in c["maps"].as_array().unwrap() {
        let size = map["size"].as_u64().unwrap() as usize;
        let f = systolic_vmap::vmap_module(
            &m,
            "main",
            &axes(&map["in_axes"]),
            size,
            &axes(&map["out_axes"]),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        m = Module {
            funcs: vec![f],
            ..Module::default()
        };
        m.funcs[0].name = "main".into();
        verify_module(&m).unwrap_or_else(|d| panic!("{name}: {d:?}\n{}", print_module(&m)));
    }
    let args = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| Value::Tensor(tensor(a)))
        .collect();
    let got = Interpreter::new(&m)
        .call("main", args)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", print_module(&m)));
    let want: Vec<Tensor> = c["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(tensor)
        .collect();
    assert_eq!(got.len(), want.len(), "{name}: number of results");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let g = g.as_tensor().unwrap();
        assert_eq!(g.ty(), w.ty(), "{name}: type of result {k}");
        assert_eq!(
            g.data(),
            w.data(),
            "{name}: result {k} differs from JAX\n{}",
            print_module(&m)
        );
    }
}

fn cases() -> Vec<Json> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rng_goldens.json"
    ))
    .unwrap();
    let cases: Json = serde_json::from_str(&text).unwrap();
    cases.as_array().unwrap().clone()
}

fn run(name: &str) {
    let c = cases()
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no golden {name}"));
    check_case(&c);
}

#[test]
fn batched_key_u32() {
    run("u32_2x3");
}

#[test]
fn key_and_bits_at_other_axes() {
    run("u32_key_axis1_bits_axis1");
}

#[test]
fn narrow_and_wide_bits_and_algorithms() {
    run("u8_5");
    run("u64_threefry");
    run("u32_philox_4");
    run("u16_scalar_batch1");
}

#[test]
fn unbatched_key_is_shared() {
    run("unbatched_key");
}

#[test]
fn nested_vmap() {
    run("nested");
}

#[test]
fn every_golden_is_checked() {
    let names: Vec<String> = cases()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    let tested = [
        "u32_2x3",
        "u32_key_axis1_bits_axis1",
        "u8_5",
        "u64_threefry",
        "u32_philox_4",
        "u16_scalar_batch1",
        "unbatched_key",
        "nested",
    ];
    assert_eq!(names, tested);
}

/// An empty batch: empty states and bits, no generator call on a state that does not exist.
#[test]
fn empty_batch() {
    let c = cases().into_iter().next().unwrap();
    let m = parse_module(c["mlir"].as_str().unwrap(), "empty").unwrap();
    let f = systolic_vmap::vmap_module(&m, "main", &[Some(0)], 0, &[Some(0)]).unwrap();
    let mut m = Module {
        funcs: vec![f],
        ..Module::default()
    };
    m.funcs[0].name = "main".into();
    let keys = Tensor::new(TensorType::new(vec![0, 4], DType::U32), Data::UInt(vec![])).unwrap();
    let got = Interpreter::new(&m)
        .call("main", vec![Value::Tensor(keys)])
        .unwrap();
    assert_eq!(got[0].as_tensor().unwrap().shape(), &[0, 4]);
    assert_eq!(got[1].as_tensor().unwrap().shape(), &[0, 2, 3]);
}
