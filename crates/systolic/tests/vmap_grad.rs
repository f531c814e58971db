//! `vmap` composed with `grad` (per-example gradients, as JAX's `vmap(grad(loss))`), with `jit`
//! around it, and `grad` of a vmapped function; against the JAX goldens of `vmap.rs`.

use serde_json::Value as Json;
use systolic::{grad, jit, numpy as np, vmap, Array};

fn golden() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/vmap_jax0.10.2.json"
    );
    let g: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    g["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "per_example_grads")
        .unwrap()
        .clone()
}

fn array(j: &Json) -> Array {
    let shape: Vec<i64> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let data: Vec<f32> = j["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    Array::from_vec(data, &shape)
}

fn close(got: &Array, want: &[f64], what: &str) {
    let g = got.to_vec::<f32>().unwrap();
    assert_eq!(g.len(), want.len(), "{what}");
    for (i, (a, b)) in g.iter().zip(want).enumerate() {
        assert!(
            (*a as f64 - b).abs() <= 2e-5 * (1.0 + b.abs()),
            "{what}: element {i}: got {a}, JAX {b}"
        );
    }
}

fn want(c: &Json, k: usize) -> Vec<f64> {
    c["outputs"][k]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn loss(w: &Array, b: &Array, x: &Array, y: &Array) -> Array {
    let r = &np::tanh(&(&np::matmul(x, w) + b)) - y;
    np::mean(&(&r * &r), None, false)
}

/// Per-example gradients of one example (x, y) at parameters (w, b).
fn example_grad((w, b, x, y): &(Array, Array, Array, Array)) -> (Array, Array) {
    let (x, y) = (x.clone(), y.clone());
    grad(move |(w, b): &(Array, Array)| loss(w, b, &x, &y))
        .call(&(w.clone(), b.clone()))
        .unwrap()
}

#[test]
fn vmap_of_grad_gives_jax_per_example_gradients() {
    let c = golden();
    let i: Vec<Array> = c["inputs"].as_array().unwrap().iter().map(array).collect();
    let args = (i[0].clone(), i[1].clone(), i[2].clone(), i[3].clone());
    let f = vmap(example_grad).in_axes([None, None, Some(0), Some(0)]);
    let (dw, db) = f.call(&args).unwrap();
    assert_eq!(dw.shape(), &[6, 4, 3]);
    close(&dw, &want(&c, 0), "vmap(grad) dw");
    close(&db, &want(&c, 1), "vmap(grad) db");
    let jf = jit(|a: &(Array, Array, Array, Array)| {
        vmap(example_grad)
            .in_axes([None, None, Some(0), Some(0)])
            .call(a)
            .unwrap()
    });
    let (dw, db) = jf.call(&args).unwrap();
    close(&dw, &want(&c, 0), "jit(vmap(grad)) dw");
    close(&db, &want(&c, 1), "jit(vmap(grad)) db");
}

#[test]
fn grad_of_vmap_sums_the_per_example_gradients() {
    let c = golden();
    let i: Vec<Array> = c["inputs"].as_array().unwrap().iter().map(array).collect();
    let (xs, ys) = (i[2].clone(), i[3].clone());
    let total = move |(w, b): &(Array, Array)| {
        let per = vmap(|(w, b, x, y): &(Array, Array, Array, Array)| loss(w, b, x, y))
            .in_axes([None, None, Some(0), Some(0)])
            .call(&(w.clone(), b.clone(), xs.clone(), ys.clone()))
            .unwrap();
        np::sum(&per, None, false)
    };
    let (dw, db) = grad(total).call(&(i[0].clone(), i[1].clone())).unwrap();
    let sum_over = |k: usize, per: usize| {
        let v = want(&c, k);
        (0..per)
            .map(|j| v.iter().skip(j).step_by(per).sum::<f64>())
            .collect::<Vec<_>>()
    };
    close(&dw, &sum_over(0, 12), "grad(vmap) dw");
    close(&db, &sum_over(1, 3), "grad(vmap) db");
}
