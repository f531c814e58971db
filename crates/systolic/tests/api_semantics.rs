//! numpy semantics a JAX user expects from the front end: Rust scalars of every numeric type
//! as weak Python scalars, the rest of the operators, N-D `dot`, `precision` and
//! `preferred_element_type` on every product and the `default_matmul_precision` setting.

use systolic::{config, jit, numpy as np, Array, DType, DotOptions, Precision};

fn f32s(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as f32 / 250.0 - 2.0
        })
        .collect()
}

#[test]
fn scalars_of_every_rust_type_are_weak() {
    let b = np::astype(&Array::from_vec(vec![1.0f32, 2.0], &[2]), DType::BF16);
    assert_eq!((&b * 0.5f32).dtype(), DType::BF16);
    assert_eq!((&b * 0.5f64).dtype(), DType::BF16);
    assert_eq!((&b * 2u16).dtype(), DType::BF16);
    let i = Array::from_vec(vec![1i8, -2], &[2]);
    for r in [
        &i + 1u64,
        &i + 1i64,
        &i + 1usize,
        &i - 1u8,
        &i * 3i16,
        &i / 1u32,
    ] {
        assert!(
            matches!(r.dtype(), DType::I8 | DType::F32),
            "{:?}",
            r.dtype()
        );
    }
    assert_eq!((&i + 1u64).dtype(), DType::I8);
    // An int array with a float scalar becomes the default float, as in JAX.
    assert_eq!((&i * 0.5f32).dtype(), DType::F32);
    assert_eq!((&i * 0.5f32).to_vec::<f32>().unwrap(), vec![0.5, -1.0]);
    let err = (&i + u64::MAX).check().unwrap_err().to_string();
    assert!(
        err.contains("18446744073709551615") && err.contains("int64"),
        "{err}"
    );
}

#[test]
fn remainder_bitwise_and_shift_operators_are_jax_dunders() {
    let a = Array::from_vec(vec![-7i32, 7, 5], &[3]);
    let b = Array::from_vec(vec![3i32, -3, 4], &[3]);
    assert_eq!((&a % &b).to_vec::<i32>().unwrap(), vec![2, -2, 1]);
    assert_eq!(
        (&a & &b).to_vec::<i32>().unwrap(),
        vec![-7 & 3, 7 & -3, 5 & 4]
    );
    assert_eq!(
        (&a | 8u8).to_vec::<i32>().unwrap(),
        vec![-7 | 8, 7 | 8, 5 | 8]
    );
    assert_eq!(
        (&a ^ &b).to_vec::<i32>().unwrap(),
        vec![-7 ^ 3, 7 ^ -3, 5 ^ 4]
    );
    assert_eq!((&a >> 1i32).to_vec::<i32>().unwrap(), vec![-4, 3, 2]);
    assert_eq!((!&a).to_vec::<i32>().unwrap(), vec![6, -8, -6]);
    let m = Array::from_vec(vec![true, false], &[2]);
    assert_eq!((!&m).to_vec::<bool>().unwrap(), vec![false, true]);
    let x = Array::from_vec(vec![-7.5f32, 7.5], &[2]);
    assert_eq!((&x % 2.0f32).to_vec::<f32>().unwrap(), vec![0.5, 1.5]);
}

#[test]
fn dot_of_any_ranks_equals_its_einsum() {
    let cases: [(&[i64], &[i64], &str); 4] = [
        (&[2, 3, 4], &[5, 4, 2], "abk,ckd->abcd"),
        (&[3, 4], &[4], "ak,k->a"),
        (&[4], &[2, 4, 3], "k,bkc->bc"),
        (&[2, 3, 4], &[4, 6], "abk,kc->abc"),
    ];
    for (i, (sa, sb, spec)) in cases.into_iter().enumerate() {
        let n = |s: &[i64]| s.iter().product::<i64>() as usize;
        let a = Array::from_vec(f32s(n(sa), i as u32), sa);
        let b = Array::from_vec(f32s(n(sb), 7 + i as u32), sb);
        let d = np::dot(&a, &b);
        let e = np::einsum(spec, &[&a, &b]);
        assert_eq!(d.shape(), e.shape(), "{spec}");
        for (x, y) in d
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .zip(e.to_vec::<f32>().unwrap())
        {
            assert!(
                (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
                "{spec}: {x} vs {y}"
            );
        }
    }
    let s = np::dot(
        &Array::scalar(2.0f32),
        &Array::from_vec(vec![1.0f32, 3.0], &[2]),
    );
    assert_eq!(s.to_vec::<f32>().unwrap(), vec![2.0, 6.0]);
    let bad = np::dot(
        &Array::from_vec(vec![1.0f32; 6], &[2, 3]),
        &Array::from_vec(vec![1.0f32; 6], &[2, 3]),
    );
    let err = bad.check().unwrap_err().to_string();
    assert!(err.contains("dot") && err.contains("float32[2,3]"), "{err}");
}

#[test]
fn products_take_precision_and_preferred_element_type() {
    let a = Array::from_vec(vec![100i8, 100, 100], &[1, 3]);
    let b = Array::from_vec(vec![100i8, 100, 100], &[3, 1]);
    let wide = DotOptions::new().preferred_element_type(DType::I32);
    assert_eq!(
        np::matmul_with(&a, &b, wide).to_vec::<i32>().unwrap(),
        vec![30000]
    );
    assert_eq!(
        np::dot_with(&a, &b, wide).to_vec::<i32>().unwrap(),
        vec![30000]
    );
    assert_eq!(
        np::einsum_with("ik,kj->ij", &[&a, &b], wide)
            .to_vec::<i32>()
            .unwrap(),
        vec![30000]
    );
    let t = np::tensordot_with(&a, &b, np::TensorAxes::Count(1), wide);
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![30000]);
    let x = Array::from_vec(vec![1.0f32; 4], &[2, 2]);
    let high = DotOptions::new().precision(Precision::High);
    let text = jit(move |x: &Array| np::matmul_with(x, x, high))
        .lower(&x)
        .unwrap()
        .as_text();
    assert!(text.contains("HIGH"), "{text}");
}

#[test]
fn default_matmul_precision_is_staged_and_keys_the_jit_cache() {
    let x = Array::from_vec(vec![1.0f32; 4], &[2, 2]);
    let f = jit(|x: &Array| np::matmul(x, x));
    f.call(&x).unwrap();
    assert_eq!(f.trace_count(), 1);
    config::with_default_matmul_precision(Precision::Highest, || f.call(&x).unwrap());
    assert_eq!(f.trace_count(), 2, "a new setting traces again");
    f.call(&x).unwrap();
    assert_eq!(f.trace_count(), 2, "the old setting's entry is reused");
    let text = config::with_default_matmul_precision(Precision::Highest, || {
        f.lower(&x).unwrap().as_text()
    });
    assert!(text.contains("HIGHEST"), "{text}");
    // An explicit precision wins over the default.
    let explicit = config::with_default_matmul_precision(Precision::Highest, || {
        let d = DotOptions::new().precision(Precision::Default);
        jit(move |x: &Array| np::matmul_with(x, x, d))
            .lower(&x)
            .unwrap()
            .as_text()
    });
    assert!(
        explicit.contains("DEFAULT") && !explicit.contains("HIGHEST"),
        "{explicit}"
    );
    assert_eq!(
        config::default_matmul_precision(),
        None,
        "the scope restored the setting"
    );
    assert_eq!(
        config::precision_from_name("bfloat16_3x").unwrap(),
        Precision::High
    );
}

#[test]
fn fold_in_takes_traced_counters_as_jax_does() {
    use systolic::{random, vmap};
    let key = random::key(0);
    let words = |a: Array| a.to_vec::<u32>().unwrap();
    // JAX 0.10.2 (x64 on for the 64-bit data): fold_in folds the low 32 bits.
    assert_eq!(
        words(random::fold_in(&key, 2u64.pow(40) + 5)),
        vec![1524306142, 1887795613]
    );
    assert_eq!(
        words(random::fold_in(&key, -3i64)),
        vec![2313591868, 3981651893]
    );
    let f = jit(|(k, s): &(Array, Array)| random::fold_in(k, s));
    for step in [-3i32, 0, 5, i32::MAX] {
        let traced = words(f.call(&(key.clone(), Array::scalar(step))).unwrap());
        assert_eq!(traced, words(random::fold_in(&key, step)), "step {step}");
    }
    let steps = Array::from_vec(vec![0i32, 1, 2], &[3]);
    let batched = vmap(|s: &Array| random::fold_in(&random::key(1), s))
        .call(&steps)
        .unwrap();
    assert_eq!(
        words(batched),
        vec![507451445, 1853169794, 1948878966, 4237131848, 2441914641, 3819641963]
    );
    let err = random::fold_in(&key, Array::scalar(1.5f32))
        .check()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("random.fold_in") && err.contains("integer scalar"),
        "{err}"
    );
}

#[test]
fn weak_scalars_take_a_float64_arrays_dtype() {
    let x = Array::from_vec(vec![0.5f64, 1.0], &[2]);
    assert_eq!((&x + 1.0).dtype(), DType::F64);
    assert_eq!((&np::exp(&x) + 1.0).dtype(), DType::F64);
    assert_eq!((1.0 - &x).dtype(), DType::F64);
    assert_eq!((&x * 2i32).dtype(), DType::F64);
}

/// JAX refuses to promote 8-bit (and narrower) floats implicitly with other floats, and so do
/// we, naming both dtypes; weak scalars and integers still meet them, as in JAX 0.10.2.
#[test]
fn narrow_floats_do_not_promote_implicitly() {
    let f8 = np::astype(&Array::from_vec(vec![1.0f32, 2.0], &[2]), DType::F8E4M3FN);
    let f32 = Array::from_vec(vec![0.5f32, 0.25], &[2]);
    for (what, r) in [
        ("add", &f8 + &f32),
        ("multiply", &f32 * &f8),
        (
            "add",
            &f8 + &np::astype(&Array::from_vec(vec![1.0f32, 2.0], &[2]), DType::F8E5M2),
        ),
        ("concatenate", np::concatenate(&[&f8, &f32], 0)),
        ("dot_general", np::dot(&f8, &f32)),
    ] {
        let err = r.check().unwrap_err().to_string();
        assert!(
            err.contains(what)
                && err.contains("'float8_e4m3fn'")
                && err.contains("no implicit promotion path"),
            "{what}: {err}"
        );
    }
    assert_eq!((&f8 + 1.0f32).dtype(), DType::F8E4M3FN);
    let i8 = Array::from_vec(vec![1i8, 2], &[2]);
    assert_eq!((&f8 + &i8).dtype(), DType::F8E4M3FN);
    // Explicitly converted, the sum is an ordinary f32 one.
    let sum = &np::astype(&f8, DType::F32) + &f32;
    assert_eq!(sum.to_vec::<f32>().unwrap(), vec![1.5, 2.25]);
}
