//! Complex arrays in the front end (issue 21): host round trips, lax's and numpy's complex ops,
//! arithmetic, matmul and casts, eagerly and under jit, checked against num-complex on the host.

use systolic::{jit, lax, numpy as np, Array, Complex32, Complex64};
use systolic_ir::DType;

fn c32(re: f32, im: f32) -> Complex32 {
    Complex32::new(re, im)
}

fn close32(got: &[Complex32], want: &[Complex32], tol: f32) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).norm() <= tol * (1.0 + w.norm()),
            "got {g}, want {w}"
        );
    }
}

#[test]
fn complex_arrays_round_trip_and_keep_their_dtype() {
    let v = vec![c32(1.0, -2.0), c32(0.5, 3.0)];
    let a = Array::from_vec(v.clone(), &[2]);
    assert_eq!(a.dtype(), DType::C64);
    assert_eq!(a.to_vec::<Complex32>().unwrap(), v);
    assert!(a.to_vec::<f32>().is_err());
    let b = Array::from_vec(vec![Complex64::new(1.0, 1.0)], &[1, 1]);
    assert_eq!(b.dtype(), DType::C128);
    let shown = format!("{a}");
    assert!(shown.contains('j'), "{shown}");
}

#[test]
fn parts_conj_and_angle() {
    let re = Array::from_vec(vec![3.0f32, -1.0, 0.0], &[3]);
    let im = Array::from_vec(vec![4.0f32, 0.0, -2.0], &[3]);
    let z = lax::complex(&re, &im);
    assert_eq!(z.dtype(), DType::C64);
    assert_eq!(lax::real(&z).to_vec::<f32>().unwrap(), vec![3.0, -1.0, 0.0]);
    assert_eq!(lax::imag(&z).to_vec::<f32>().unwrap(), vec![4.0, 0.0, -2.0]);
    assert_eq!(
        np::conj(&z).to_vec::<Complex32>().unwrap(),
        vec![c32(3.0, -4.0), c32(-1.0, -0.0), c32(0.0, 2.0)]
    );
    let abs = np::abs(&z);
    assert_eq!(abs.dtype(), DType::F32);
    assert_eq!(abs.to_vec::<f32>().unwrap(), vec![5.0, 1.0, 2.0]);
    let ang = np::angle(&z).to_vec::<f32>().unwrap();
    let want = [
        4.0f32.atan2(3.0),
        std::f32::consts::PI,
        -std::f32::consts::FRAC_PI_2,
    ];
    for (g, w) in ang.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
    // numpy's forms accept real arrays; lax's refuse them with the op's name.
    assert_eq!(np::imag(&re).to_vec::<f32>().unwrap(), vec![0.0; 3]);
    assert_eq!(np::real(&re).to_vec::<f32>().unwrap(), vec![3.0, -1.0, 0.0]);
    let err = lax::real(&re).to_vec::<f32>().unwrap_err().to_string();
    assert!(err.contains("real") && err.contains("complex"), "{err}");
    let bad = lax::complex(&re, &Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3]));
    let err = bad.to_vec::<Complex32>().unwrap_err().to_string();
    assert!(err.contains("complex") && err.contains("f64"), "{err}");
}

#[test]
fn arithmetic_transcendentals_and_matmul_match_the_host() {
    let xs = vec![
        c32(1.0, 2.0),
        c32(-0.5, 0.25),
        c32(2.0, -1.0),
        c32(0.1, 0.7),
    ];
    let ys = vec![c32(0.3, -1.0), c32(1.5, 0.5), c32(-2.0, 0.0), c32(0.0, 1.0)];
    let x = Array::from_vec(xs.clone(), &[2, 2]);
    let y = Array::from_vec(ys.clone(), &[2, 2]);
    let pair = |f: fn(Complex32, Complex32) -> Complex32| -> Vec<Complex32> {
        xs.iter().zip(&ys).map(|(a, b)| f(*a, *b)).collect()
    };
    close32(
        &np::multiply(&x, &y).to_vec().unwrap(),
        &pair(|a, b| a * b),
        1e-6,
    );
    close32(
        &np::divide(&x, &y).to_vec().unwrap(),
        &pair(|a, b| a / b),
        1e-6,
    );
    close32(
        &np::subtract(&x, &y).to_vec().unwrap(),
        &pair(|a, b| a - b),
        1e-6,
    );
    let one =
        |f: fn(Complex32) -> Complex32| -> Vec<Complex32> { xs.iter().map(|a| f(*a)).collect() };
    close32(&np::exp(&x).to_vec().unwrap(), &one(|a| a.exp()), 1e-6);
    close32(&np::log(&x).to_vec().unwrap(), &one(|a| a.ln()), 1e-6);
    close32(&np::sqrt(&x).to_vec().unwrap(), &one(|a| a.sqrt()), 1e-6);
    close32(&np::sin(&x).to_vec().unwrap(), &one(|a| a.sin()), 1e-6);
    close32(&np::cos(&x).to_vec().unwrap(), &one(|a| a.cos()), 1e-6);
    let mut mm = vec![c32(0.0, 0.0); 4];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                mm[i * 2 + j] += xs[i * 2 + k] * ys[k * 2 + j];
            }
        }
    }
    close32(&np::matmul(&x, &y).to_vec().unwrap(), &mm, 1e-6);
    close32(
        &np::einsum("ij,jk->ik", &[&x, &y]).to_vec().unwrap(),
        &mm,
        1e-6,
    );
    // The same program staged once and run compiled.
    let f = jit(|a: &(Array, Array)| np::exp(&np::matmul(&a.0, &np::conj(&a.1))));
    let got = f.call(&(x.clone(), y.clone())).unwrap();
    let mut want = vec![c32(0.0, 0.0); 4];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                want[i * 2 + j] += xs[i * 2 + k] * ys[k * 2 + j].conj();
            }
            want[i * 2 + j] = want[i * 2 + j].exp();
        }
    }
    close32(&got.to_vec().unwrap(), &want, 1e-5);
}

#[test]
fn casts_and_promotion_follow_jax() {
    let r = Array::from_vec(vec![1.5f32, -2.0], &[2]);
    let z = np::astype(&r, DType::C64);
    assert_eq!(
        z.to_vec::<Complex32>().unwrap(),
        vec![c32(1.5, 0.0), c32(-2.0, 0.0)]
    );
    let z = Array::from_vec(vec![c32(1.5, 9.0), c32(-2.0, 3.0)], &[2]);
    // Complex to real keeps the real part, as numpy's astype.
    assert_eq!(
        np::astype(&z, DType::F32).to_vec::<f32>().unwrap(),
        vec![1.5, -2.0]
    );
    // f32 with complex<f32> is complex<f32>; f64 with complex<f32> is complex<f64>.
    assert_eq!(np::add(&r, &z).dtype(), DType::C64);
    let d = Array::from_vec(vec![1.0f64, 2.0], &[2]);
    assert_eq!(np::add(&d, &z).dtype(), DType::C128);
    // A weak float scalar keeps the complex dtype.
    assert_eq!((&z * 2.0).dtype(), DType::C64);
    assert_eq!(np::exp(&z).dtype(), DType::C64);
}

#[test]
fn lax_fft_round_trips_and_checks_lengths() {
    use systolic_ir::FftType;
    let xs: Vec<f32> = (0..8).map(|i| (i as f32 * 0.7).sin()).collect();
    let x = Array::from_vec(xs.clone(), &[2, 4]);
    // A real operand of FFT is made complex, as in JAX; IFFT brings it back (scaled by 1/n).
    let y = lax::fft(&x, FftType::Fft, &[4]);
    assert_eq!(y.dtype(), DType::C64);
    let back = lax::fft(&y, FftType::Ifft, &[4])
        .to_vec::<Complex32>()
        .unwrap();
    let want: Vec<Complex32> = xs.iter().map(|&v| c32(v, 0.0)).collect();
    close32(&back, &want, 1e-6);
    // RFFT gives n/2+1 bins per row, IRFFT inverts it, over two dimensions as well.
    let r = lax::fft(&x, FftType::Rfft, &[2, 4]);
    assert_eq!(r.shape(), &[2, 3]);
    let back = lax::fft(&r, FftType::Irfft, &[2, 4])
        .to_vec::<f32>()
        .unwrap();
    for (g, w) in back.iter().zip(&xs) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
    // The direct 2-D DFT at frequencies (0, 1): both rows summed, each against e^(-iπk/2).
    let bin1: Complex32 = (0..8)
        .map(|i| {
            c32(xs[i], 0.0)
                * Complex32::from_polar(1.0, -std::f32::consts::PI * (i % 4) as f32 / 2.0)
        })
        .sum();
    close32(&r.to_vec::<Complex32>().unwrap()[1..2], &[bin1], 1e-6);
    let err = lax::fft(&x, FftType::Fft, &[3])
        .to_vec::<Complex32>()
        .unwrap_err()
        .to_string();
    assert!(err.contains("fft"), "{err}");
}

/// Complex scalars are weakly typed, as Python complex numbers are in JAX (results observed
/// with JAX 0.10.2: f32/f16/bf16 arrays times 1j are strong complex64, complex64 stays,
/// int32 times 1j is a weak complex64).
#[test]
fn complex_scalars_are_weak() {
    let j = Complex32::new(0.0, 1.0);
    for (d, weak) in [
        (DType::F32, false),
        (DType::C64, false),
        (DType::I32, true),
        (DType::F16, false),
        (DType::BF16, false),
    ] {
        let r = &np::ones(&[2], d) * j;
        assert_eq!((r.dtype(), r.weak_type()), (DType::C64, weak), "{d:?}");
        assert_eq!(r.to_vec::<Complex32>().unwrap(), vec![j; 2], "{d:?}");
    }
    let c128 = Array::from_vec(vec![Complex64::new(1.0, 1.0)], &[1]);
    assert_eq!((&c128 * j).dtype(), DType::C128);
    assert_eq!((&np::ones(&[1], DType::F64) * j).dtype(), DType::C128);
    let w = &systolic::weak_float(2.0) * j;
    assert_eq!((w.dtype(), w.weak_type()), (DType::C64, true));
    let f = jit(|x: &Array| x * Complex32::new(0.0, 2.0));
    let y = f.call(&Array::from_vec(vec![1.5f32], &[1])).unwrap();
    assert_eq!(
        y.to_vec::<Complex32>().unwrap(),
        vec![Complex32::new(0.0, 3.0)]
    );
}

/// Sums, products and means of complex arrays (the reductions' identities are complex).
#[test]
fn complex_reductions() {
    let z = Array::from_vec(vec![c32(1.0, 2.0), c32(-0.5, 1.0), c32(2.0, -1.0)], &[3]);
    let s = np::sum(&z, None, false).to_vec::<Complex32>().unwrap();
    assert_eq!(s, vec![c32(2.5, 2.0)]);
    // (1+2i)(-0.5+i) = -2.5, times (2-i) = -5+2.5i
    let p = np::prod(&z, None, false).to_vec::<Complex32>().unwrap();
    close32(&p, &[c32(-5.0, 2.5)], 1e-6);
    let m = jit(|z: &Array| np::mean(z, None, false))
        .call(&z)
        .unwrap()
        .to_vec::<Complex32>()
        .unwrap();
    close32(&m, &[c32(2.5 / 3.0, 2.0 / 3.0)], 1e-6);
}
