//! The seed's MLP (784→1024→1024→10) and its data-parallel SGD step, shared by
//! `examples/pmap_mlp.rs` and the tour's pmap stage (`systolic-cli/src/tour/pmap_training.rs`
//! includes this file by path), so that both train the same model.

use systolic::{lax, nn, numpy as np, random, tree_map, value_and_grad, Array};
use systolic_ir::DType;

/// Layers as (weight, bias).
pub type Params = Vec<(Array, Array)>;

/// The SGD learning rate.
pub const LEARNING_RATE: f64 = 0.1;

/// `init_mlp(key)` of the seed: weights `normal * 0.01`, zero biases.
pub fn init(key: &Array) -> Params {
    let keys = random::split(key, 3);
    [(784, 1024), (1024, 1024), (1024, 10)]
        .iter()
        .zip(&keys)
        .map(|(&(m, n), k)| {
            (
                random::normal(k, &[m, n], DType::F32) * 0.01,
                np::zeros(&[n], DType::F32),
            )
        })
        .collect()
}

/// Mean softmax cross-entropy of the MLP (relu hidden layers) against integer labels.
pub fn loss(params: &Params, x: &Array, labels: &Array) -> Array {
    let mut h = x.clone();
    for (i, (w, b)) in params.iter().enumerate() {
        h = &np::matmul(&h, w) + b;
        if i + 1 < params.len() {
            h = nn::relu(&h);
        }
    }
    let picked = &nn::log_softmax(&h, -1) * &nn::one_hot(labels, 10, DType::F32);
    -np::sum(&picked, None, false) / x.shape()[0] as f64
}

/// One SGD step on this device's batch; with `axis` (inside `pmap`), the gradients and the
/// loss are `pmean`ed over the devices first, so every device takes the same step.
pub fn step(params: &Params, x: &Array, labels: &Array, axis: Option<&str>) -> (Params, Array) {
    let (l, g) = value_and_grad(|p: &Params| loss(p, x, labels))
        .call(params)
        .expect("the loss is a float scalar");
    let (l, g) = match axis {
        Some(a) => (
            lax::pmean(&l, a),
            tree_map(&g, |t| lax::pmean(t, a)).expect("same tree"),
        ),
        None => (l, g),
    };
    let new = params
        .iter()
        .zip(&g)
        .map(|((w, b), (gw, gb))| (w - &(gw * LEARNING_RATE), b - &(gb * LEARNING_RATE)))
        .collect();
    (new, l)
}

/// `n` stacked copies of every leaf (what `pmap` maps over).
pub fn replicate(params: &Params, n: i64) -> Params {
    tree_map(params, |t| {
        let mut shape = vec![n];
        shape.extend_from_slice(t.shape());
        np::broadcast_to(&np::expand_dims(t, 0), &shape)
    })
    .expect("same tree")
}
