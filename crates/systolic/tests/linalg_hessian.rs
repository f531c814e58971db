//! Second derivatives through `numpy::linalg` and `scipy::linalg` (the decompositions' rules
//! differentiated again) against JAX 0.10.2: per function the loss of the first-order tests
//! (`linalg_grad.rs`, `complex_linalg_grad.rs`), its gradient, and the Hessian-vector product
//! `jvp(grad(loss), x, d)` along a recorded direction (`tests/data/linalg_hessian_jax0.10.2.json`,
//! made by `scripts/linalg_hessian_goldens.py`), float64, complex128, a few float32, one
//! batched case each, eagerly and under `jit`. Then the same product by other routes (reverse
//! over reverse, `hessian`, `vmap`), against central differences of our own gradient
//! (independent of JAX), `eigvals`' refusal as in JAX, and the cost of the first-order
//! programs (one factorisation, as before the rules became differentiable).

use crate::golden_util::{input, value_failures};
use systolic::numpy::linalg;
use systolic::scipy::linalg as sl;
use systolic::{grad, hessian, jit, jvp, numpy as np, vmap, Array};

fn golden() -> &'static serde_json::Value {
    static G: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        serde_json::from_str(include_str!("data/linalg_hessian_jax0.10.2.json")).unwrap()
    })
}

fn is_complex(name: &str) -> bool {
    name.ends_with("_c64") || name.ends_with("_c128")
}

/// How many leading inputs are differentiated (the first-order tests' convention).
fn n_diff(name: &str) -> usize {
    if is_complex(name) {
        crate::complex_linalg_grad::n_diff(name)
    } else {
        crate::linalg_grad::n_diff(name)
    }
}

/// The case's loss on the differentiated inputs `diff` and the weights `consts`.
fn loss(name: &str, diff: &[Array], consts: &[Array]) -> Array {
    let mut x = diff.to_vec();
    x.extend(consts.iter().cloned());
    if is_complex(name) {
        crate::complex_linalg_grad::loss(name, &x)
    } else {
        crate::linalg_grad::loss(name, &x)
    }
}

/// A case's inputs split as (differentiated, weights, directions).
fn split(name: &str) -> (Vec<Array>, Vec<Array>, Vec<Array>) {
    let x: Vec<Array> = golden()["cases"][name]["inputs"]
        .as_array()
        .unwrap_or_else(|| panic!("case {name}"))
        .iter()
        .map(input)
        .collect();
    let k = n_diff(name);
    let dirs = x[x.len() - k..].to_vec();
    (x[..k].to_vec(), x[k..x.len() - k].to_vec(), dirs)
}

/// JAX's outputs: the loss, the gradients and the Hessian-vector products.
fn want(name: &str) -> Vec<Array> {
    golden()["cases"][name]["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(input)
        .collect()
}

fn values(a: &Array) -> Vec<f64> {
    a.to_tensor().unwrap().to_f64_vec()
}

/// The gradient of the case's loss and its derivative along `dirs` (forward over reverse).
fn grads_and_hvp(
    name: &'static str,
    diff: &[Array],
    consts: &[Array],
    dirs: &[Array],
) -> systolic::Result<(Vec<Array>, Vec<Array>)> {
    let consts = consts.to_vec();
    let g = grad(move |d: &Vec<Array>| loss(name, d, &consts));
    jvp(g, &diff.to_vec(), &dirs.to_vec())
}

/// The largest error of `got` against `want`, relative (absolute below 1).
fn error(got: &Array, want: &Array) -> f64 {
    let (g, w) = (values(got), values(want));
    assert_eq!(g.len(), w.len(), "sizes");
    g.iter()
        .zip(&w)
        .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
        .fold(0.0, |m, e| if e.is_nan() { f64::NAN } else { m.max(e) })
}

/// The tolerance of a case: float32 through two levels of factorisation rules, float64 (and
/// complex128) with room for other summation orders.
fn tolerance(name: &str) -> f64 {
    if name.ends_with("_f32") {
        2e-3
    } else {
        1e-9
    }
}

/// Functions that read one triangle of `a` (and whose rules take the whole tangent, as JAX's).
fn reads_one_triangle(name: &str) -> bool {
    name.starts_with("scipy_cho_solve") || name.starts_with("scipy_solve_pos")
}

/// `(d + dᴴ)/2`.
fn symmetric(d: &Array) -> Array {
    let dh = np::conj(&np::swapaxes(d, -1, -2));
    np::multiply(&np::add(d, &dh), &Array::scalar(0.5))
}

fn cases() -> Vec<&'static str> {
    golden()["cases"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !k.starts_with("eigvals_"))
        .map(|k| &*Box::leak(k.clone().into_boxed_str()))
        .collect()
}

/// Compares a case's Hessian-vector products (`how` computed) with JAX's; failures as text.
fn hvp_failures(name: &str, how: &str, got: systolic::Result<Vec<Array>>) -> Vec<String> {
    let k = n_diff(name);
    let want: Vec<Vec<f64>> = want(name)[1 + k..1 + 2 * k].iter().map(values).collect();
    value_failures(
        &format!("{name} ({how})"),
        "hvp",
        got,
        &want,
        tolerance(name),
    )
}

/// Compares a case's gradients and Hessian-vector products with JAX's; failures as text.
fn compare(name: &str, how: &str, grads: &[Array], hvp: &[Array]) -> Vec<String> {
    let want = want(name);
    let k = n_diff(name);
    let mut failures = vec![];
    for i in 0..k {
        for (what, got, w) in [
            ("gradient", &grads[i], &want[1 + i]),
            ("hvp", &hvp[i], &want[1 + k + i]),
        ] {
            let e = error(got, w);
            if e.is_nan() || e > tolerance(name) {
                failures.push(format!("{name} ({how}) {what} {i}: error {e:e}"));
            }
        }
    }
    failures
}

/// Every case's gradient and Hessian-vector product against JAX's, eagerly and under `jit`.
#[test]
fn hessian_vector_products_match_jax() {
    let mut failures = vec![];
    let all = cases();
    assert!(all.len() > 90, "only {} cases", all.len());
    for name in all {
        let (diff, consts, dirs) = split(name);
        match grads_and_hvp(name, &diff, &consts, &dirs) {
            Ok((g, h)) => failures.extend(compare(name, "eager", &g, &h)),
            Err(e) => failures.push(format!("{name} (eager): {e}")),
        }
        let c = consts.clone();
        let jitted =
            jit(move |(d, t): &(Vec<Array>, Vec<Array>)| grads_and_hvp(name, d, &c, t).unwrap());
        match jitted.call(&(diff, dirs)) {
            Ok((g, h)) => failures.extend(compare(name, "jit", &g, &h)),
            Err(e) => failures.push(format!("{name} (jit): {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Reverse over reverse on the real cases: `grad(x ↦ ⟨∇L(x), d⟩)` is `H·d` (the Hessian is
/// symmetric), so the rules' nested custom rules are linearised and transposed too.
#[test]
fn grad_of_grad_matches_jax() {
    let mut failures = vec![];
    for name in cases() {
        // The functions that read one triangle of `a` are differentiated with the whole
        // tangent, as JAX's, which is not the derivative of a function along non-symmetric
        // directions, so their "Hessian" is not symmetric and the reverse pass, which
        // differentiates along every direction, gives `Hᵀ·d`.
        if is_complex(name) || reads_one_triangle(name) {
            continue;
        }
        let (diff, consts, dirs) = split(name);
        let c = consts.clone();
        let d = dirs.clone();
        let directional = move |x: &Vec<Array>| {
            let g = grad(|x: &Vec<Array>| loss(name, x, &c)).call(x).unwrap();
            g.iter()
                .zip(&d)
                .map(|(g, d)| np::sum(&np::multiply(g, d), None, false))
                .reduce(|a, b| np::add(&a, &b))
                .unwrap()
        };
        failures.extend(hvp_failures(
            name,
            "grad of grad",
            grad(directional).call(&diff),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `hessian` (forward over reverse, the whole matrix) of single-matrix losses, contracted with
/// the recorded direction, eagerly and under `jit`.
#[test]
fn whole_hessians_match_jax() {
    let mut failures = vec![];
    for name in [
        "det_f64",
        "slogdet_f64",
        "eigh_f64",
        "svd_tall_f64",
        "qr_reduced_f64",
        "inv_f64",
        "pinv_f64",
        "scipy_lu_f64",
        "scipy_expm_f64",
    ] {
        let (diff, consts, dirs) = split(name);
        let c = consts.clone();
        let f = move |a: &Array| loss(name, std::slice::from_ref(a), &c);
        let eager = hessian(f.clone()).call(&diff[0]).map(|mut h| h.remove(0));
        let jitted =
            jit(move |a: &Array| hessian(f.clone()).call(a).unwrap().remove(0)).call(&diff[0]);
        for (how, h) in [("eager", eager), ("jit", jitted)] {
            let h = match h {
                Ok(h) => h,
                Err(e) => {
                    failures.push(format!("{name} ({how}): {e}"));
                    continue;
                }
            };
            let n = diff[0].size() as i64;
            let hd = np::matmul(&np::reshape(&h, &[n, n]), &np::reshape(&dirs[0], &[n, 1]));
            let e = error(&np::reshape(&hd, diff[0].shape()), &want(name)[2]);
            if e.is_nan() || e > 1e-9 {
                failures.push(format!("{name} ({how}): H·d error {e:e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `vmap` of the per-matrix Hessian-vector product over a batched case equals JAX's product
/// of the summed batch loss (the weights and directions are mapped too).
#[test]
fn vmap_of_hessian_vector_products_matches_the_batched_goldens() {
    let mut failures = vec![];
    let mut n = 0;
    for name in cases() {
        if !name.contains("_batched") || name.ends_with("_f32") {
            continue;
        }
        // jax.scipy.linalg.lu of a batch is vmapped per matrix in the script too, and the
        // real lstsq is 2-D only; every other function reads the batch as it is.
        n += 1;
        let (diff, consts, dirs) = split(name);
        let per_example = move |(d, c, t): &(Vec<Array>, Vec<Array>, Vec<Array>)| {
            grads_and_hvp(name, d, c, t).unwrap().1
        };
        let args = (diff, consts, dirs);
        for (how, got) in [
            ("eager", vmap(per_example).call(&args)),
            ("jit", jit(vmap(per_example)).call(&args)),
        ] {
            failures.extend(hvp_failures(name, how, got));
        }
    }
    assert!(n > 40, "only {n} batched cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The Hessian-vector product of every float64 case against central differences of our own
/// gradient, `(∇L(x + h·d) − ∇L(x − h·d)) / 2h`: independent of JAX, so a rule broken at
/// second order fails here even where the goldens might agree with it.
#[test]
fn hessian_vector_products_match_finite_differences() {
    let mut failures = vec![];
    for name in cases() {
        if !name.ends_with("_f64") || name.contains("_batched") {
            continue;
        }
        let (diff, consts, mut dirs) = split(name);
        // One triangle is read: the differences see only symmetric changes of `a`.
        if reads_one_triangle(name) {
            dirs[0] = symmetric(&dirs[0]);
        }
        let (_, hvp) = grads_and_hvp(name, &diff, &consts, &dirs).unwrap();
        let h = 1e-5;
        let grad_at = |sign: f64| {
            let moved: Vec<Array> = diff
                .iter()
                .zip(&dirs)
                .map(|(x, d)| np::add(x, &np::multiply(d, &Array::scalar(sign * h))))
                .collect();
            let c = consts.clone();
            grad(move |d: &Vec<Array>| loss(name, d, &c))
                .call(&moved)
                .unwrap()
        };
        let (plus, minus) = (grad_at(1.0), grad_at(-1.0));
        for i in 0..n_diff(name) {
            let fd: Vec<f64> = values(&plus[i])
                .iter()
                .zip(values(&minus[i]))
                .map(|(p, m)| (p - m) / (2.0 * h))
                .collect();
            let got = values(&hvp[i]);
            let scale = fd.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            let e = got
                .iter()
                .zip(&fd)
                .map(|(a, b)| (a - b).abs() / scale)
                .fold(0.0, f64::max);
            if e.is_nan() || e > 1e-6 {
                failures.push(format!(
                    "{name} input {i}: hvp differs from differences by {e:e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// As in JAX (which raises `NotImplementedError`), `eigvals` has no second derivative: its rule
/// needs the eigenvectors, which have none. The refusal is an error naming the LAPACK call.
#[test]
fn eigvals_hessian_is_refused_as_in_jax() {
    let name = "eigvals_hessian_is_refused";
    assert_eq!(values(&want(name)[0]), vec![1.0], "JAX refused");
    let a = input(&golden()["cases"][name]["inputs"][0]);
    let f = |a: &Array| np::sum(&np::real(&linalg::eigvals(a)), None, false);
    assert!(grad(f).call(&a).is_ok(), "the first derivative exists");
    let e = hessian(f).call(&a).unwrap_err().to_string();
    assert!(e.contains("geev") && e.contains("no rule"), "{e}");
}

/// LAPACK calls in a lowered program, by routine (`getrf`, `gesdd`, …).
fn lapack_calls(text: &str) -> Vec<String> {
    let mut calls: Vec<String> = text
        .match_indices("@lapack_")
        .map(|(i, _)| {
            let name: String = text[i + "@lapack_".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            // Drop the dtype letter and the `ffi` suffix: `dgetrf` → `getrf`.
            name[1..].trim_end_matches("ffi").to_string()
        })
        .collect();
    calls.sort();
    calls
}

/// The first-order programs stay as cheap as before the rules became differentiable: the
/// jitted gradient of each function stages the LAPACK calls listed here, one factorisation,
/// and the nested rules add none. (Before this change the counts were the same: each rule
/// called the factorisation once, raw.)
#[test]
fn first_order_programs_factor_once() {
    let a = Array::from_vec(
        (0..16)
            .map(|i| ((i * 7 % 11) as f64) / 5.0 + if i % 5 == 0 { 3.0 } else { 0.0 })
            .collect(),
        &[4, 4],
    );
    let spd = np::add(
        &np::matmul(&a, &np::swapaxes(&a, -1, -2)),
        &Array::scalar(4.0),
    );
    let b = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[4, 1]);
    type Case = (
        &'static str,
        fn(&Array, &Array) -> Array,
        &'static [&'static str],
    );
    let cases: [Case; 12] = [
        (
            "det",
            |a, _| np::sum(&linalg::det(a), None, false),
            &["getrf"],
        ),
        (
            "slogdet",
            |a, _| np::sum(&linalg::slogdet(a).1, None, false),
            &["getrf"],
        ),
        (
            "solve",
            |a, b| np::sum(&linalg::solve(a, b), None, false),
            &["getrf"],
        ),
        (
            "inv",
            |a, _| np::sum(&linalg::inv(a), None, false),
            &["getrf", "trsm", "trsm"],
        ),
        (
            "eigh",
            |a, _| np::sum(&np::square(&linalg::eigh(a).1), None, false),
            &["syevd"],
        ),
        (
            "eigvalsh",
            |a, _| np::sum(&linalg::eigvalsh(a), None, false),
            &["syevd"],
        ),
        (
            "svd",
            |a, _| np::sum(&linalg::svd(a, false, false).1, None, false),
            &["gesdd"],
        ),
        (
            "pinv",
            |a, _| np::sum(&linalg::pinv(a), None, false),
            &["gesdd"],
        ),
        (
            "qr",
            |a, _| np::sum(&linalg::qr(a, "reduced").1, None, false),
            &["geqrf", "orgqr"],
        ),
        ("lu", |a, _| np::sum(&sl::lu(a).2, None, false), &["getrf"]),
        (
            "expm",
            |a, _| np::sum(&sl::expm(a), None, false),
            &["getrf"],
        ),
        (
            "cho_solve",
            |a, b| {
                np::sum(
                    &sl::cho_solve((&sl::cho_factor(a, true).0, true), b),
                    None,
                    false,
                )
            },
            &[],
        ),
    ];
    let mut failures = vec![];
    for (what, f, want) in cases {
        let x = if what.starts_with("eig") || what == "cho_solve" {
            &spd
        } else {
            &a
        };
        let b2 = b.clone();
        let g = jit(move |x: &Array| grad(|x: &Array| f(x, &b2)).call(x).unwrap());
        let text = g.lower(x).unwrap().as_text();
        let got = lapack_calls(&text);
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        if got != want {
            failures.push(format!(
                "{what}: the gradient program calls {got:?}, expected {want:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A function of a scalar, shared by the nested derivatives.
type ScalarFn = std::rc::Rc<dyn Fn(&Array) -> systolic::Result<Array>>;

/// `g(t) = L(a + t·d)` of a case's loss along its recorded direction of the first input, and
/// `g`'s `order`-th derivative at `t` by nested `jvp`s.
fn derivative_along(name: &'static str, order: usize, t: f64) -> systolic::Result<f64> {
    let (diff, consts, dirs) = split(name);
    // Along the first input's direction; the others stay where they are.
    let (a, d) = (diff[0].clone(), dirs[0].clone());
    fn nth(f: ScalarFn, order: usize) -> ScalarFn {
        if order == 0 {
            return f;
        }
        let inner = nth(f, order - 1);
        std::rc::Rc::new(move |t: &Array| {
            let inner = inner.clone();
            let one = Array::scalar(1.0f64);
            jvp(systolic::fallible(move |t: &Array| inner(t)), t, &one).map(|(_, dt)| dt)
        })
    }
    let g: ScalarFn = std::rc::Rc::new(move |t: &Array| {
        let mut x = diff.clone();
        x[0] = np::add(&a, &np::multiply(&d, t));
        Ok(loss(name, &x, &consts))
    });
    let v = nth(g, order)(&Array::scalar(t))?;
    Ok(values(&v)[0])
}

/// The rules nest [`MAX_ORDER`](the third order) deep: the third derivative of a loss along a
/// direction equals central differences of its second derivative, and the fourth is refused
/// with the autodiff's error naming the LAPACK call.
#[test]
fn third_derivatives_work_and_the_fourth_is_refused() {
    for (name, routine) in [
        ("det_f64", "getrf"),
        ("eigh_f64", "syevd"),
        ("solve_ab_f64", "getrf"),
        ("svd_tall_f64", "gesdd"),
    ] {
        let third = derivative_along(name, 3, 0.0).unwrap();
        let h = 1e-4;
        let fd = (derivative_along(name, 2, h).unwrap() - derivative_along(name, 2, -h).unwrap())
            / (2.0 * h);
        assert!(
            (third - fd).abs() <= 1e-5 * fd.abs().max(1.0),
            "{name}: third derivative {third}, differences of the second {fd}"
        );
        let e = derivative_along(name, 4, 0.0).unwrap_err().to_string();
        assert!(e.contains(routine) && e.contains("no rule"), "{name}: {e}");
    }
}
