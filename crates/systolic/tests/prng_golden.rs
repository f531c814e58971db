//! The PRNG against JAX 0.10.2 (`tests/data/prng_threefry_jax0.10.2.json`, copied from the
//! workspace's shared goldens): keys, split, fold_in and bits bit-exact; uniform bit-exact;
//! normal within 2 ulp (XLA:CPU's log1p inside erf_inv is not reproduced bit for bit);
//! randint, bernoulli and permutation bit-exact, eagerly and under `jit`. The other
//! distributions are tested in `prng_dists.rs` against `prng_extra_jax0.10.2.json`.

use serde_json::Value;
use systolic::{jit, random, Array};
use systolic_ir::DType;

fn cases() -> Vec<Value> {
    let text = include_str!("data/prng_threefry_jax0.10.2.json");
    let v: Value = serde_json::from_str(text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn u32s(v: &Value) -> Vec<u32> {
    fn walk(v: &Value, out: &mut Vec<u32>) {
        match v {
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            x => out.push(x.as_u64().unwrap() as u32),
        }
    }
    let mut out = vec![];
    walk(v, &mut out);
    out
}

fn hexes(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| u32::from_str_radix(h.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
        .collect()
}

fn key_of(case: &Value) -> Array {
    Array::from_vec(u32s(&case["key"]), &[2])
}

#[test]
fn key_from_seed_matches_prngkey() {
    for case in cases() {
        let seed = case["seed"].as_i64().unwrap();
        assert_eq!(
            random::key(seed).to_vec::<u32>().unwrap(),
            u32s(&case["key"]),
            "seed {seed}"
        );
    }
}

#[test]
fn split_and_fold_in_are_bit_exact() {
    for case in cases() {
        let key = key_of(&case);
        let s2 = random::split_array(&key, 2);
        assert_eq!(s2.shape(), &[2, 2]);
        assert_eq!(s2.to_vec::<u32>().unwrap(), u32s(&case["split2"]));
        let s3: Vec<u32> = random::split(&key, 3)
            .iter()
            .flat_map(|k| k.to_vec::<u32>().unwrap())
            .collect();
        assert_eq!(s3, u32s(&case["split3"]));
        assert_eq!(
            random::fold_in(&key, 0).to_vec::<u32>().unwrap(),
            u32s(&case["fold_in_0"])
        );
        assert_eq!(
            random::fold_in(&key, 7).to_vec::<u32>().unwrap(),
            u32s(&case["fold_in_7"])
        );
    }
}

#[test]
fn bits_are_bit_exact_and_shape_independent() {
    for case in cases() {
        let key = key_of(&case);
        let b = random::bits(&key, &[5], DType::U32)
            .to_vec::<u32>()
            .unwrap();
        assert_eq!(b, u32s(&case["bits_u32_5"]));
        let b23 = random::bits(&key, &[2, 3], DType::U32);
        assert_eq!(b23.shape(), &[2, 3]);
        assert_eq!(b23.to_vec::<u32>().unwrap(), u32s(&case["bits_u32_2x3"]));
        let b8: Vec<u32> = random::bits(&key, &[5], DType::U8)
            .to_vec::<u8>()
            .unwrap()
            .into_iter()
            .map(u32::from)
            .collect();
        assert_eq!(b8, u32s(&case["bits_u8_5"]));
        let b16: Vec<u32> = random::bits(&key, &[5], DType::U16)
            .to_vec::<u16>()
            .unwrap()
            .into_iter()
            .map(u32::from)
            .collect();
        assert_eq!(b16, u32s(&case["bits_u16_5"]));
    }
}

#[test]
fn uniform_is_bit_exact() {
    for case in cases() {
        let key = key_of(&case);
        let u: Vec<u32> = random::uniform(&key, &[5], DType::F32, 0.0, 1.0)
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(u, hexes(&case["uniform_f32_5_hex"]));
        let m: Vec<f64> = random::uniform(&key, &[3], DType::F32, -2.0, 3.0)
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&x| f64::from(x))
            .collect();
        let want: Vec<f64> = case["uniform_f32_m2_3"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(m, want);
        let bf: Vec<u32> = random::uniform(&key, &[5], DType::BF16, 0.0, 1.0)
            .to_vec::<half::bf16>()
            .unwrap()
            .iter()
            .map(|x| u32::from(x.to_bits()))
            .collect();
        assert_eq!(bf, u32s(&case["uniform_bf16_5_bits"]));
        let h: Vec<u32> = random::uniform(&key, &[5], DType::F16, 0.0, 1.0)
            .to_vec::<half::f16>()
            .unwrap()
            .iter()
            .map(|x| u32::from(x.to_bits()))
            .collect();
        assert_eq!(h, u32s(&case["uniform_f16_5_bits"]));
    }
}

/// Distance in units in the last place between two finite f32s of one sign.
fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

#[test]
fn normal_within_two_ulp() {
    for case in cases() {
        let key = key_of(&case);
        let got = random::normal(&key, &[5], DType::F32)
            .to_vec::<f32>()
            .unwrap();
        for (g, w) in got.iter().zip(hexes(&case["normal_f32_5_hex"])) {
            let w = f32::from_bits(w);
            assert!(ulps(*g, w) <= 2, "seed {}: {g} vs JAX {w}", case["seed"]);
        }
    }
}

#[test]
fn draws_inside_jit_equal_eager_draws() {
    let key = random::key(42);
    let f = jit(|k: &Array| random::normal(&random::split(k, 2)[1], &[4, 3], DType::F32));
    let jitted = f.call(&key).unwrap().to_vec::<f32>().unwrap();
    let eager = random::normal(&random::split(&key, 2)[1], &[4, 3], DType::F32)
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(jitted, eager);
    let text = f.lower(&key).unwrap().as_text();
    assert!(
        text.contains("chlo.erf_inv") || text.contains("erf_inv"),
        "{text}"
    );
}

#[test]
fn randint_bernoulli_permutation_are_bit_exact_eager_and_jitted() {
    for case in cases() {
        let key = key_of(&case);
        let seed = &case["seed"];
        type Draw = fn(&Array) -> Array;
        let int_draws: [(&str, Draw); 3] = [
            ("randint_0_10_i32_6", |k| {
                random::randint(k, &[6], 0, 10, DType::I32)
            }),
            ("randint_m5_100_i32_6", |k| {
                random::randint(k, &[6], -5, 100, DType::I32)
            }),
            ("permutation_8", |k| random::permutation(k, 8)),
        ];
        for (name, f) in int_draws {
            let want: Vec<i64> = case[name]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            let eager: Vec<i64> = f(&key)
                .to_vec::<i32>()
                .unwrap()
                .into_iter()
                .map(i64::from)
                .collect();
            assert_eq!(eager, want, "{name} seed {seed}");
            let jitted: Vec<i64> = jit(f)
                .call(&key)
                .unwrap()
                .to_vec::<i32>()
                .unwrap()
                .into_iter()
                .map(i64::from)
                .collect();
            assert_eq!(jitted, want, "{name} seed {seed} (jit)");
        }
        let u8_draw = |k: &Array| random::randint(k, &[6], 0, 256, DType::U8);
        let want: Vec<u8> = u32s(&case["randint_0_256_u8_6"])
            .into_iter()
            .map(|v| v as u8)
            .collect();
        assert_eq!(
            u8_draw(&key).to_vec::<u8>().unwrap(),
            want,
            "u8 seed {seed}"
        );
        assert_eq!(
            jit(u8_draw).call(&key).unwrap().to_vec::<u8>().unwrap(),
            want
        );
        let b_draw = |k: &Array| random::bernoulli(k, 0.3, Some(&[6]));
        let want: Vec<bool> = case["bernoulli_0.3_6"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        assert_eq!(
            b_draw(&key).to_vec::<bool>().unwrap(),
            want,
            "bernoulli seed {seed}"
        );
        assert_eq!(
            jit(b_draw).call(&key).unwrap().to_vec::<bool>().unwrap(),
            want
        );
    }
}
