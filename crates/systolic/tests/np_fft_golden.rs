//! numpy.fft (every transform with each norm, `n`/`s`/`axes`, complex128, frequencies and
//! shifts) against JAX 0.10.2 (`tests/data/fft_jax0.10.2.json`, made by
//! `scripts/fft_complex_ad_goldens.py`), eagerly and under `jit`. Each case carries the call's
//! arguments under "params", so the call is rebuilt from the data.

use crate::golden_util::{assert_every_case_is_run, err_of, run_cases_with, OpFn};
use serde_json::Value;
use systolic::numpy::{self as np, fft::Norm};
use systolic::{jit, vmap, Array};
use systolic_ir::DType;

fn golden() -> &'static Value {
    static G: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    G.get_or_init(|| serde_json::from_str(include_str!("data/fft_jax0.10.2.json")).unwrap())
}

/// FFTs round like a sum of `n log n` products: looser than an elementwise op, in the
/// element's precision (JAX's own fft tests use 1e-4 for single precision).
fn tolerance(d: DType, _case: &str) -> f64 {
    match d {
        DType::F32 | DType::C64 => 2e-5,
        DType::F64 | DType::C128 => 1e-12,
        _ => 0.0,
    }
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_i64().unwrap()).collect())
}

/// The case's call, under `vmap` over the recorded batch axis when it has one.
fn op(name: &str) -> OpFn {
    let f = base_op(name);
    let Some(axis) = golden()["cases"][name]["params"]["vmap_in"].as_u64() else {
        return f;
    };
    let f = std::rc::Rc::new(f);
    let name = name.to_string();
    Box::new(move |x| {
        let f = f.clone();
        let one = move |a: &Array| f(std::slice::from_ref(a)).remove(0);
        let out = vmap(one)
            .in_axes(axis as usize)
            .call(&x[0])
            .unwrap_or_else(|e| panic!("{name} (vmap): {e}"));
        vec![out]
    })
}

fn base_op(name: &str) -> OpFn {
    let p = &golden()["cases"][name]["params"];
    let fname = p["fn"].as_str().unwrap_or_else(|| panic!("case {name}"));
    let norm = match p["norm"].as_str() {
        None => Norm::Backward,
        Some(s) => Norm::parse(s).unwrap(),
    };
    let n = p["n"].as_i64();
    let axis = p["axis"].as_i64().unwrap_or(-1);
    let s = ints(&p["s"]);
    let axes = ints(&p["axes"]);
    let d = p["d"].as_f64().unwrap_or(1.0);
    let dtype = p["dtype"].as_str().map(|t| match t {
        "float64" => DType::F64,
        "float32" => DType::F32,
        t => panic!("dtype {t}"),
    });
    type One = fn(&Array, Option<i64>, i64, Norm) -> Array;
    type Many = fn(&Array, Option<&[i64]>, Option<&[i64]>, Norm) -> Array;
    type Two = fn(&Array, Option<&[i64]>, &[i64], Norm) -> Array;
    let one: Option<One> = match fname {
        "fft" => Some(np::fft::fft),
        "ifft" => Some(np::fft::ifft),
        "rfft" => Some(np::fft::rfft),
        "irfft" => Some(np::fft::irfft),
        "hfft" => Some(np::fft::hfft),
        "ihfft" => Some(np::fft::ihfft),
        _ => None,
    };
    if let Some(f) = one {
        return Box::new(move |x| vec![f(&x[0], n, axis, norm)]);
    }
    let two: Option<Two> = match fname {
        "fft2" => Some(np::fft::fft2),
        "ifft2" => Some(np::fft::ifft2),
        "rfft2" => Some(np::fft::rfft2),
        "irfft2" => Some(np::fft::irfft2),
        _ => None,
    };
    if let Some(f) = two {
        let axes = axes.unwrap_or(vec![-2, -1]);
        return Box::new(move |x| vec![f(&x[0], s.as_deref(), &axes, norm)]);
    }
    let many: Option<Many> = match fname {
        "fftn" => Some(np::fft::fftn),
        "ifftn" => Some(np::fft::ifftn),
        "rfftn" => Some(np::fft::rfftn),
        "irfftn" => Some(np::fft::irfftn),
        _ => None,
    };
    if let Some(f) = many {
        return Box::new(move |x| vec![f(&x[0], s.as_deref(), axes.as_deref(), norm)]);
    }
    match fname {
        "fftfreq" => {
            let n = n.unwrap();
            Box::new(move |_| vec![np::fft::fftfreq(n, d, dtype)])
        }
        "rfftfreq" => {
            let n = n.unwrap();
            Box::new(move |_| vec![np::fft::rfftfreq(n, d, dtype)])
        }
        "fftshift" => Box::new(move |x| vec![np::fft::fftshift(&x[0], axes.as_deref())]),
        "ifftshift" => Box::new(move |x| vec![np::fft::ifftshift(&x[0], axes.as_deref())]),
        "complex_parts" => Box::new(|x| {
            let z = &x[0];
            let y = np::fft::fft(
                &(z * &np::conj(&np::flip(z, None))),
                None,
                -1,
                Norm::Backward,
            );
            vec![&np::abs(&y) + &np::angle(z)]
        }),
        "spectrum_shifted" => Box::new(|x| {
            vec![np::fft::fftshift(
                &np::abs(&np::fft::fft(&x[0], None, -1, Norm::Ortho)),
                None,
            )]
        }),
        f => panic!("case {name}: no function {f}"),
    }
}

const PREFIXES: &[&str] = &[
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "c128_", "spectrum", "vmap_",
];

#[test]
fn np_fft_every_case_is_run() {
    assert_every_case_is_run(golden(), PREFIXES, op);
}

#[test]
fn np_fft_one_axis() {
    run_cases_with(
        golden(),
        &["fft_", "ifft_", "rfft_", "irfft_", "hfft_", "ihfft_"],
        op,
        tolerance,
    );
}

#[test]
fn np_fft_two_and_n_axes() {
    run_cases_with(
        golden(),
        &[
            "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
        ],
        op,
        tolerance,
    );
}

#[test]
fn np_fft_double_precision() {
    run_cases_with(golden(), &["c128_"], op, tolerance);
}

#[test]
fn np_fft_frequencies_and_shifts() {
    run_cases_with(
        golden(),
        &["fftfreq", "rfftfreq", "fftshift", "ifftshift", "spectrum"],
        op,
        tolerance,
    );
}

#[test]
fn np_fft_under_vmap() {
    run_cases_with(golden(), &["vmap_"], op, tolerance);
}

#[test]
fn np_fft_round_trips_with_every_norm() {
    let x = Array::from_vec(
        (0..24).map(|i| (i as f32 * 0.7).sin()).collect(),
        &[2, 3, 4],
    );
    for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
        let back = np::fft::irfftn(
            &np::fft::rfftn(&x, None, Some(&[0, 2]), norm),
            Some(&[2, 4]),
            Some(&[0, 2]),
            norm,
        );
        let diff = np::max(&np::abs(&(&back - &x)), None, false);
        assert!(diff.to_vec::<f32>().unwrap()[0] < 1e-6, "{norm:?}");
        let c = np::fft::ifft(&np::fft::fft(&x, None, 1, norm), None, 1, norm);
        let diff = np::max(&np::abs(&(&np::real(&c) - &x)), None, false);
        assert!(diff.to_vec::<f32>().unwrap()[0] < 1e-6, "{norm:?}");
    }
}

#[test]
fn np_fft_converts_integers_and_refuses_bad_arguments() {
    let i = Array::from_vec(vec![1i32, 2, 3, 4], &[4]);
    assert_eq!(
        np::fft::fft(&i, None, -1, Norm::Backward).dtype(),
        DType::C64
    );
    assert_eq!(
        np::fft::rfft(&i, None, -1, Norm::Backward).dtype(),
        DType::C64
    );
    let z = np::fft::fft(&i, None, -1, Norm::Backward);
    let e = err_of(&np::fft::rfft(&z, None, -1, Norm::Backward));
    assert!(e.contains("fft") && e.contains("real"), "{e}");
    let e = err_of(&np::fft::fft(&i, Some(0), -1, Norm::Backward));
    assert!(e.contains("fft") && e.contains("positive"), "{e}");
    let e = err_of(&np::fft::fft(&i, None, 1, Norm::Backward));
    assert!(e.contains("fft") && e.contains("axis 1"), "{e}");
    let m = np::zeros(&[2, 3], DType::F32);
    let e = err_of(&np::fft::fftn(&m, None, Some(&[0, -2]), Norm::Backward));
    assert!(e.contains("fftn") && e.contains("repeated"), "{e}");
    let e = err_of(&np::fft::fftn(
        &m,
        Some(&[2]),
        Some(&[0, 1]),
        Norm::Backward,
    ));
    assert!(e.contains("different lengths"), "{e}");
    let e = err_of(&np::fft::fft2(&m, None, &[0], Norm::Backward));
    assert!(e.contains("fft2") && e.contains("2 axes"), "{e}");
    assert!(Norm::parse("backwards").is_err());
    let e = err_of(&np::fft::fftfreq(-1, 1.0, None));
    assert!(e.contains("fftfreq"), "{e}");
}

#[test]
fn np_fft_stages_stablehlo_fft_with_transposes_and_pads() {
    let f = jit(|x: &Array| np::fft::rfft(x, Some(10), 0, Norm::Ortho));
    let text = f.lower(&np::zeros(&[8, 3], DType::F32)).unwrap().as_text();
    for piece in [
        "stablehlo.fft",
        "RFFT",
        "stablehlo.transpose",
        "stablehlo.pad",
    ] {
        assert!(text.contains(piece), "{piece} missing in\n{text}");
    }
    // Four axes are two stablehlo.fft ops: the op takes at most three.
    let g = jit(|x: &Array| np::fft::fftn(x, None, None, Norm::Backward));
    let text = g
        .lower(&np::zeros(&[2, 2, 2, 2], DType::C64))
        .unwrap()
        .as_text();
    assert_eq!(text.matches("stablehlo.fft").count(), 2, "{text}");
}
