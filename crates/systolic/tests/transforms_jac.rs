//! `jacfwd`, `jacrev`, `hessian` and `linearize` against JAX 0.10.2
//! (`scripts/transforms_goldens.py`), eagerly, under `jit` and under `vmap`.

use serde_json::Value as Json;
use systolic::{
    hessian, jacfwd, jacrev, jit, linearize, numpy as np, numpy::Idx, vmap, Array, Tree,
};

fn golden() -> Json {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/transforms_jax0.10.2.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn array(j: &Json) -> Array {
    let shape: Vec<i64> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let data = j["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    Array::from_vec(data, &shape)
}

/// `got` equals the golden `want` in shape and (to f32 rounding) in values.
fn check(got: &Array, want: &Json, what: &str) {
    let w = array(want);
    assert_eq!(got.shape(), w.shape(), "{what}: shape");
    let (g, w) = (got.to_vec::<f32>().unwrap(), w.to_vec::<f32>().unwrap());
    for (a, b) in g.iter().zip(&w) {
        assert!(
            (a - b).abs() <= 2e-5 * (1.0 + b.abs()),
            "{what}: {g:?} vs JAX {w:?}"
        );
    }
}

fn at(x: &Array, i: i64) -> Array {
    np::index(x, &[Idx::from(i)])
}

fn vec_fn(x: &Array) -> Array {
    let s = np::sum(&(&np::sin(x) * x), None, false);
    let t = &(&at(x, 0) * &np::exp(&at(x, 1))) + &np::tanh(&at(x, 2));
    np::stack(&[&s, &t], 0)
}

#[derive(Tree, Clone)]
struct Layer {
    w: Array,
    b: Array,
}

#[test]
fn jacobians_of_a_vector_function_match_jax_eagerly_and_under_jit() {
    let g = &golden()["vec_fn"];
    let x = array(&g["x"]);
    check(&jacfwd(vec_fn).call(&x).unwrap(), &g["jacfwd"], "jacfwd");
    check(&jacrev(vec_fn).call(&x).unwrap(), &g["jacrev"], "jacrev");
    let both = jit(|x: &Array| {
        (
            jacfwd(vec_fn).call(x).unwrap(),
            jacrev(vec_fn).call(x).unwrap(),
        )
    });
    let (f, r) = both.call(&x).unwrap();
    check(&f, &g["jacfwd"], "jit(jacfwd)");
    check(&r, &g["jacrev"], "jit(jacrev)");
}

#[test]
fn jacobians_of_a_tree_argument_are_structured_as_the_argument() {
    let g = &golden()["layer"];
    let xin = array(&g["xin"]);
    let p = Layer {
        w: array(&g["w"]),
        b: array(&g["b"]),
    };
    let f = move |p: &Layer| np::tanh(&(&np::matmul(&p.w, &xin) + &p.b));
    let jf = jacfwd(f.clone()).call(&p).unwrap();
    check(&jf.w, &g["jacfwd_w"], "jacfwd w");
    check(&jf.b, &g["jacfwd_b"], "jacfwd b");
    let jr = jacrev(f).call(&p).unwrap();
    check(&jr.w, &g["jacrev_w"], "jacrev w");
    check(&jr.b, &g["jacrev_b"], "jacrev b");
}

#[test]
fn jacrev_of_a_tuple_output_gives_one_jacobian_per_output_leaf() {
    let g = &golden()["two_out"];
    let x = array(&g["x"]);
    let f = |x: &Array| (x * x, np::sum(&np::exp(x), None, false));
    let js = jacrev(f).call_leaves(&x).unwrap();
    check(&js[0], &g["j0"], "jacrev out 0");
    check(&js[1], &g["j1"], "jacrev out 1");
    let js = jacfwd(f).call_leaves(&x).unwrap();
    check(&js[0], &g["j0"], "jacfwd out 0");
    check(&js[1], &g["j1"], "jacfwd out 1");
}

#[test]
fn hessians_match_jax_for_an_array_and_a_tuple_argument() {
    let g = &golden()["softplus_sq"];
    let f = |x: &Array| np::sum(&(&np::log1p(&np::exp(x)) * &(x * x)), None, false);
    let x = array(&g["x"]);
    check(&hessian(f).call(&x).unwrap()[0], &g["hessian"], "hessian");
    let h = jit(move |x: &Array| hessian(f).call(x).unwrap().remove(0))
        .call(&x)
        .unwrap();
    check(&h, &g["hessian"], "jit(hessian)");
    // The hessian of a gradient is the Jacobian of that gradient: jacfwd(grad) agrees too.
    let j = jacfwd(|x: &Array| systolic::grad(f).call(x).unwrap())
        .call(&x)
        .unwrap();
    check(&j, &g["hessian"], "jacfwd(grad)");

    let g = &golden()["pair"];
    let pair = |(a, c): &(Array, Array)| {
        &np::sum(&(&(a * a) * c), None, false)
            + &(&(&(c * c) * c) * &np::sum(&np::cos(a), None, false))
    };
    let h = hessian(pair)
        .call(&(array(&g["a"]), array(&g["c"])))
        .unwrap();
    check(&h[0].0, &g["h00"], "H[0][0]");
    check(&h[0].1, &g["h01"], "H[0][1]");
    check(&h[1].0, &g["h10"], "H[1][0]");
    check(&h[1].1, &g["h11"], "H[1][1]");
}

#[test]
fn linearize_matches_jax_and_is_linear() {
    let g = &golden()["vec_fn"];
    let x = array(&g["x"]);
    let (y, f_jvp) = linearize(vec_fn, &x).unwrap();
    check(&y, &g["linearize_y"], "linearize primal");
    let t = array(&g["linearize_t"]);
    check(
        &f_jvp.call(&t).unwrap(),
        &g["linearize_dy"],
        "linearize tangent",
    );
    // Linear: f_jvp(2t) = 2 f_jvp(t); and it equals J·t.
    let twice = f_jvp.call(&(&t * 2.0)).unwrap().to_vec::<f32>().unwrap();
    let once = f_jvp.call(&t).unwrap().to_vec::<f32>().unwrap();
    for (a, b) in twice.iter().zip(&once) {
        assert!((a - 2.0 * b).abs() < 1e-5);
    }
    let jt = np::matmul(&jacfwd(vec_fn).call(&x).unwrap(), &t)
        .to_vec::<f32>()
        .unwrap();
    for (a, b) in jt.iter().zip(&once) {
        assert!((a - b).abs() < 1e-5);
    }
    // A tangent of the wrong type is an error naming both.
    let err = f_jvp
        .call(&Array::from_vec(vec![1.0f32; 2], &[2]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("linearize") && err.contains("float32[2]") && err.contains("float32[3]"),
        "{err}"
    );
}

#[test]
fn per_example_jacobians_under_vmap() {
    let g = &golden()["vec_fn"];
    let x = array(&g["x"]);
    let xs = np::stack(&[&x, &(&x * 0.5)], 0);
    let per = vmap(|x: &Array| jacrev(vec_fn).call(x).unwrap())
        .call(&xs)
        .unwrap();
    assert_eq!(per.shape(), &[2, 2, 3]);
    let first = np::index(&per, &[Idx::from(0)]);
    check(&first, &g["jacrev"], "vmap(jacrev)[0]");
    let second = jacfwd(vec_fn)
        .call(&(&x * 0.5))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let got = np::index(&per, &[Idx::from(1)]).to_vec::<f32>().unwrap();
    for (a, b) in got.iter().zip(&second) {
        assert!((a - b).abs() < 1e-5);
    }
}

#[test]
fn integer_inputs_are_refused() {
    let err = jacfwd(|x: &Array| np::astype(x, systolic_ir::DType::F32))
        .call(&Array::from_vec(vec![1i32, 2], &[2]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("jacfwd requires real-valued inputs") && err.contains("int32"),
        "{err}"
    );
}
