//! Remat policies of `checkpoint` (issue 18, item 4), checked by counting what the
//! differentiated program computes (ops in the lowered IR), not by timing; every policy gives
//! the same gradients.

use systolic::{checkpoint, checkpoint_name, grad, jit, numpy as np, Array, RematPolicy};

type Args = (Array, Array, Array);

/// A two-layer block: tanh(tanh(x·w1)·w2), the hidden layer named "h".
fn block(a: &Args) -> Array {
    let (w1, w2, x) = a;
    let h = checkpoint_name(&np::tanh(&np::matmul(x, w1)), "h");
    np::tanh(&np::matmul(&h, w2))
}

fn args() -> Args {
    let w1 = Array::from_vec((0..12).map(|i| 0.1 * i as f32 - 0.5).collect(), &[3, 4]);
    let w2 = Array::from_vec((0..8).map(|i| 0.2 - 0.05 * i as f32).collect(), &[4, 2]);
    let x = Array::from_vec((0..6).map(|i| 0.3 * i as f32).collect(), &[2, 3]);
    (w1, w2, x)
}

/// (dot_general count, tanh count) of the jitted gradient, and the gradient.
fn measure(policy: Option<RematPolicy>) -> (usize, usize, Vec<Vec<f32>>) {
    let g = move |a: &Args| {
        let loss = |a: &Args| {
            let y = match &policy {
                Some(p) => checkpoint(block).policy(p.clone()).call(a).unwrap(),
                None => block(a),
            };
            np::sum(&(&y * &y), None, false)
        };
        grad(loss).call(a).unwrap()
    };
    let f = jit(g);
    let text = f.lower(&args()).unwrap().as_text();
    let dots = text.matches("stablehlo.dot_general").count();
    let tanhs = text.matches("stablehlo.tanh").count();
    let (a, b, c) = f.call(&args()).unwrap();
    let grads = [a, b, c]
        .iter()
        .map(|x| x.to_vec::<f32>().unwrap())
        .collect();
    (dots, tanhs, grads)
}

#[test]
fn policies_choose_what_the_backward_pass_recomputes() {
    let (d0, t0, g0) = measure(None);
    let (d_all, t_all, g_all) = measure(Some(RematPolicy::EverythingSaveable));
    let (d_none, t_none, g_none) = measure(Some(RematPolicy::NothingSaveable));
    let (d_dots, t_dots, g_dots) = measure(Some(RematPolicy::DotsSaveable));
    let (d_nb, t_nb, g_nb) = measure(Some(RematPolicy::DotsWithNoBatchDimsSaveable));
    let (d_h, t_h, g_h) = measure(Some(RematPolicy::save_only_these_names(&["h"])));
    let (d_other, t_other, _) = measure(Some(RematPolicy::save_only_these_names(&["other"])));
    eprintln!(
        "dot_general/tanh: none {d0}/{t0}, nothing_saveable {d_none}/{t_none}, dots_saveable \
         {d_dots}/{t_dots}, names[h] {d_h}/{t_h}, no-batch {d_nb}/{t_nb}"
    );
    // Saving everything is not checkpointing.
    assert_eq!((d_all, t_all), (d0, t0));
    // Saving nothing: the backward pass needs h = tanh(x·w1) (for w2's gradient and tanh's
    // derivative) and the output y = tanh(h·w2) (tanh's derivative reads it), so it
    // recomputes both products and both tanh.
    assert_eq!((d_none, t_none), (d0 + 2, t0 + 2));
    // dots_saveable: the products are read saved, both tanh are recomputed from them.
    assert_eq!((d_dots, t_dots), (d0, t0 + 2));
    // These products have no batch dimensions: the same as dots_saveable.
    assert_eq!((d_nb, t_nb), (d_dots, t_dots));
    // Saving the named h: only what follows it (h·w2 and its tanh) is recomputed.
    assert_eq!((d_h, t_h), (d0 + 1, t0 + 1));
    // An unknown name saves nothing.
    assert_eq!((d_other, t_other), (d_none, t_none));
    for g in [&g_all, &g_none, &g_dots, &g_nb, &g_h] {
        for (a, b) in g.iter().flatten().zip(g0.iter().flatten()) {
            assert!((a - b).abs() < 1e-5, "{g:?} vs {g0:?}");
        }
    }
}

#[test]
fn batched_products_are_recomputed_by_dots_with_no_batch_dims() {
    // einsum with a batch dimension: dots_saveable saves it, the no-batch policy does not.
    let f = |policy: RematPolicy| {
        let g = move |(a, b): &(Array, Array)| {
            let p = policy.clone();
            grad(move |(a, b): &(Array, Array)| {
                let y = checkpoint(|(a, b): &(Array, Array)| np::sin(&np::matmul(a, b)))
                    .policy(p.clone())
                    .call(&(a.clone(), b.clone()))
                    .unwrap();
                np::sum(&y, None, false)
            })
            .call(&(a.clone(), b.clone()))
            .unwrap()
        };
        let a = Array::from_vec(vec![0.5f32; 12], &[2, 2, 3]);
        let b = Array::from_vec(vec![0.25f32; 12], &[2, 3, 2]);
        jit(g)
            .lower(&(a, b))
            .unwrap()
            .as_text()
            .matches("stablehlo.dot_general")
            .count()
    };
    let saved = f(RematPolicy::DotsSaveable);
    let unbatched_only = f(RematPolicy::DotsWithNoBatchDimsSaveable);
    assert_eq!(unbatched_only, saved + 1, "{unbatched_only} vs {saved}");
}
