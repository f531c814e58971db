//! The front end's differentiation against JAX (`tests/data/make_grad_goldens.py`): an MLP
//! trained by value_and_grad + SGD eagerly and under jit, grad of grad, jvp, vjp, has_aux and
//! checkpoint.

use serde_json::Value as Json;
use systolic::{
    checkpoint, grad, jit, jvp, nn, numpy as np, value_and_grad, value_and_grad_with_aux, vjp,
    Array,
};
use systolic_ir::DType;

fn golden() -> Json {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/grad_jax0.10.2.json"
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
    let data = j["data"].as_array().unwrap();
    match j["dtype"].as_str().unwrap() {
        "float32" => Array::from_vec(
            data.iter().map(|v| v.as_f64().unwrap() as f32).collect(),
            &shape,
        ),
        "int32" => Array::from_vec(
            data.iter().map(|v| v.as_i64().unwrap() as i32).collect(),
            &shape,
        ),
        d => panic!("dtype {d}"),
    }
}

fn values(j: &Json) -> Vec<f32> {
    j["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect()
}

#[track_caller]
fn close(got: &Array, want: &[f32], tol: f32) {
    let got = got.to_vec::<f32>().unwrap();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {i}: got {g}, JAX {w}"
        );
    }
}

type Params = Vec<(Array, Array)>;

fn forward(params: &Params, x: &Array) -> Array {
    let mut h = x.clone();
    for (w, b) in &params[..params.len() - 1] {
        h = nn::relu(&(&np::matmul(&h, w) + b));
    }
    let (w, b) = &params[params.len() - 1];
    &np::matmul(&h, w) + b
}

fn loss(params: &Params, x: &Array, labels: &Array) -> Array {
    let logits = forward(params, x);
    let ll = &nn::log_softmax(&logits, -1) * &nn::one_hot(labels, 10, DType::F32);
    -np::mean(&np::sum(&ll, Some(&[-1]), false), None, false)
}

fn sgd(params: &Params, grads: &Params, lr: f64) -> Params {
    params
        .iter()
        .zip(grads)
        .map(|((w, b), (gw, gb))| (w - &(gw * lr), b - &(gb * lr)))
        .collect()
}

fn mlp_inputs(g: &Json) -> (Params, Array, Array) {
    let params = g["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (array(&p[0]), array(&p[1])))
        .collect();
    (params, array(&g["x"]), array(&g["labels"]))
}

#[test]
fn mlp_value_and_grad_matches_jax() {
    let g = &golden()["mlp"];
    let (params, x, labels) = mlp_inputs(g);
    let (l, grads) = value_and_grad(|p: &Params| loss(p, &x, &labels))
        .call(&params)
        .unwrap();
    close(&l, &[g["loss0"].as_f64().unwrap() as f32], 1e-5);
    for (i, (gw, gb)) in grads.iter().enumerate() {
        close(gw, &values(&g["grads0"][i][0]), 1e-4);
        close(gb, &values(&g["grads0"][i][1]), 1e-4);
    }
}

#[test]
fn mlp_sgd_steps_match_jax_eagerly_and_under_jit() {
    let g = &golden()["mlp"];
    let (params, x, labels) = mlp_inputs(g);
    let lr = g["lr"].as_f64().unwrap();
    let losses: Vec<f32> = g["losses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    // Eager.
    let mut p = params.clone();
    for want in &losses {
        let (l, gr) = value_and_grad(|p: &Params| loss(p, &x, &labels))
            .call(&p)
            .unwrap();
        close(&l, &[*want], 1e-4);
        p = sgd(&p, &gr, lr);
    }
    // Under jit: the whole training step is one compiled program.
    let step = jit(|(p, x, labels): &(Params, Array, Array)| {
        let (l, gr) = value_and_grad(|p: &Params| loss(p, x, labels))
            .call(p)
            .unwrap();
        (l, sgd(p, &gr, lr))
    });
    let mut q = params;
    for want in &losses {
        let (l, next) = step.call(&(q, x.clone(), labels.clone())).unwrap();
        close(&l, &[*want], 1e-4);
        q = next;
    }
    assert_eq!(step.trace_count(), 1);
    for (i, (w, b)) in q.iter().enumerate() {
        close(w, &values(&g["final"][i][0]), 1e-4);
        close(b, &values(&g["final"][i][1]), 1e-4);
        close(&p[i].0, &values(&g["final"][i][0]), 1e-4);
    }
}

#[test]
fn grad_of_grad_matches_jax() {
    let g = &golden()["d2"];
    let f = |x: &Array| &np::sin(x) * &(&(x * x) * x);
    let x = Array::scalar(g["x"].as_f64().unwrap() as f32);
    let d1 = grad(f).call(&x).unwrap();
    close(&d1, &[g["d1"].as_f64().unwrap() as f32], 1e-5);
    let d2 = grad(|x: &Array| grad(f).call(x).unwrap()).call(&x).unwrap();
    close(&d2, &[g["d2"].as_f64().unwrap() as f32], 1e-5);
    // And under jit.
    let d2j = jit(|x: &Array| grad(|x: &Array| grad(f).call(x).unwrap()).call(x).unwrap());
    close(
        &d2j.call(&x).unwrap(),
        &[g["d2"].as_f64().unwrap() as f32],
        1e-5,
    );
}

#[test]
fn jvp_and_vjp_match_jax() {
    let g = &golden()["jvp_vjp"];
    let f = |(x, y): &(Array, Array)| (np::tanh(&np::matmul(x, y)), np::sum(&(x * x), None, false));
    let (x, y) = (array(&g["x"]), array(&g["y"]));
    let (tx, ty) = (array(&g["tx"]), array(&g["ty"]));
    let ((o1, o2), (t1, t2)) = jvp(f, &(x.clone(), y.clone()), &(tx, ty)).unwrap();
    close(&o1, &values(&g["out1"]), 1e-5);
    close(&o2, &values(&g["out2"]), 1e-5);
    close(&t1, &values(&g["t1"]), 1e-5);
    close(&t2, &values(&g["t2"]), 1e-5);
    let ((p1, _), pullback) = vjp(f, &(x, y)).unwrap();
    close(&p1, &values(&g["out1"]), 1e-5);
    let ct = (
        array(&g["c1"]),
        Array::scalar(g["c2"].as_f64().unwrap() as f32),
    );
    let (vx, vy) = pullback.call(&ct).unwrap();
    close(&vx, &values(&g["vx"]), 1e-5);
    close(&vy, &values(&g["vy"]), 1e-5);
}

#[test]
fn aux_and_checkpoint_match_jax() {
    let g = &golden()["aux_remat"];
    let (w, x) = (array(&g["w"]), array(&g["x"]));
    let h = |x: &Array| {
        let t = np::tanh(&np::matmul(x, &w));
        (np::sum(&(&t * &t), None, false), t)
    };
    let ((v, aux), gr) = value_and_grad_with_aux(h).call(&x).unwrap();
    close(&v, &[g["value"].as_f64().unwrap() as f32], 1e-5);
    close(&aux, &values(&g["aux"]), 1e-5);
    close(&gr, &values(&g["grad"]), 1e-5);
    let block = checkpoint(|x: &Array| np::sin(&np::sin(&np::matmul(x, &w))));
    let f = |x: &Array| {
        let y = block.call(&block.call(x).unwrap()).unwrap();
        np::sum(&(&y * &y), None, false)
    };
    close(&grad(f).call(&x).unwrap(), &values(&g["remat_grad"]), 1e-5);
    // Called eagerly, a checkpointed function is just the function.
    let eager = block.call(&x).unwrap().to_vec::<f32>().unwrap();
    close(&np::sin(&np::sin(&np::matmul(&x, &w))), &eager, 1e-6);
    let lowered = jit(|x: &Array| grad(f).call(x).unwrap()).lower(&x).unwrap();
    let text = lowered.as_text();
    assert!(text.contains("stablehlo.optimization_barrier"), "{text}");
}

#[test]
fn errors_name_the_problem() {
    let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let e = grad(|x: &Array| x * 2.0).call(&x).unwrap_err().to_string();
    assert!(e.contains("scalar") && e.contains("float32[2]"), "{e}");
}
