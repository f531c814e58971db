//! shard_map where JAX users put it, on eight host devices (its own test binary, as
//! many_devices): inside `lax::fori_loop`, `lax::scan`, `lax::cond` and `lax::switch` bodies
//! under `jit`, and nested shard_maps; each against the same computation on one device.

use std::sync::Once;
use systolic::{jit, lax, make_mesh, numpy as np, shard_map, Array, P};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| systolic::set_cpu_devices(8).unwrap());
}

fn data(shape: &[i64], seed: u32) -> Array {
    let n: i64 = shape.iter().product();
    let v = (0..n)
        .map(|i| {
            let k = (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(seed * 40503);
            (k % 1000) as f32 / 250.0 - 2.0
        })
        .collect();
    Array::from_vec(v, shape)
}

fn values(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn assert_close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "element {i}: {g} vs {w}\n{got:?}\n{want:?}"
        );
    }
}

/// `psum(w, "y")` of an 8x8 array split `P("x", "y")` over a 2x4 mesh: each element replaced
/// by the sum of the same position in the four 2-column blocks of its row.
fn psum_y(w: &[f32]) -> Vec<f32> {
    (0..64)
        .map(|k| {
            let (r, c) = (k / 8, k % 8);
            (0..4).map(|b| w[r * 8 + b * 2 + c % 2]).sum()
        })
        .collect()
}

fn step_on_host(w: &[f32]) -> Vec<f32> {
    let s = psum_y(w);
    w.iter()
        .zip(&s)
        .map(|(a, b)| (a * 0.5 + b * 0.25).tanh())
        .collect()
}

#[test]
fn a_shard_map_step_in_a_fori_loop_under_jit() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let step = shard_map(
        |w: &Array| np::tanh(&(w * 0.5 + lax::psum(w, "y") * 0.25)),
        &mesh,
        P!("x", "y"),
        P!("x", "y"),
    );
    let f = jit(|w: &Array| lax::fori_loop(0, 3, |_, w: &Array| step.call(w).unwrap(), w).unwrap());
    let w = data(&[8, 8], 1);
    let got = f.call(&w).unwrap();
    // On the host: the psum over "y" sums the four 2-column blocks of each row.
    let mut want = values(&w);
    for _ in 0..3 {
        want = step_on_host(&want);
    }
    assert_close(&values(&got), &want);
}

/// The step as a shard_map on a 2x4 mesh.
fn sharded_step(
    mesh: &systolic::Mesh,
) -> systolic::ShardMap<Array, Array, impl Fn(&Array) -> Array> {
    shard_map(
        |w: &Array| np::tanh(&(w * 0.5 + lax::psum(w, "y") * 0.25)),
        mesh,
        P!("x", "y"),
        P!("x", "y"),
    )
}

#[test]
fn a_fori_loop_over_a_shard_map_outside_jit() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let step = sharded_step(&mesh);
    let w = data(&[8, 8], 2);
    let got = lax::fori_loop(0, 2, |_, w: &Array| step.call(w).unwrap(), &w).unwrap();
    let want = step_on_host(&step_on_host(&values(&w)));
    assert_close(&values(&got), &want);
}

#[test]
fn a_scan_whose_body_runs_a_shard_map() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let step = sharded_step(&mesh);
    let f = jit(|(w, xs): &(Array, Array)| {
        lax::scan(
            |w: &Array, x: &Array| {
                let w = step.call(&(w + x)).unwrap();
                let total = np::sum(&w, None, false);
                (w, total)
            },
            w,
            xs,
            None,
            false,
        )
        .unwrap()
    });
    let (w, xs) = (data(&[8, 8], 3), data(&[3, 8, 8], 4));
    let (got_w, got_totals) = f.call(&(w.clone(), xs.clone())).unwrap();
    let xs_host = values(&xs);
    let mut want = values(&w);
    let mut totals = vec![];
    for t in 0..3 {
        let input: Vec<f32> = want
            .iter()
            .zip(&xs_host[t * 64..(t + 1) * 64])
            .map(|(a, b)| a + b)
            .collect();
        want = step_on_host(&input);
        totals.push(want.iter().sum::<f32>());
    }
    assert_close(&values(&got_w), &want);
    let got_totals = values(&got_totals);
    for (g, w) in got_totals.iter().zip(&totals) {
        assert!(
            (g - w).abs() <= 1e-4 + 1e-4 * w.abs(),
            "{got_totals:?} vs {totals:?}"
        );
    }
}

#[test]
fn cond_and_switch_branches_running_shard_maps() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let step = sharded_step(&mesh);
    // Rows gathered over "x" inside the body: each device's block, then the whole column
    // strip, sliced back to its rows (the identity, times three).
    let rows = shard_map(
        |w: &Array| {
            let all = lax::all_gather(w, "x", 0, true);
            let i = lax::axis_index("x");
            let zero = Array::scalar(0i32);
            lax::dynamic_slice(&all, &[&i * 4, zero], &[4, 2]) * 3.0
        },
        &mesh,
        P!("x", "y"),
        P!("x", "y"),
    );
    let w = data(&[8, 8], 5);
    let host = values(&w);
    let c = jit(|(p, w): &(Array, Array)| {
        lax::cond(p, |w: &Array| step.call(w).unwrap(), |w: &Array| w + 1.0, w).unwrap()
    });
    let got = c.call(&(Array::scalar(true), w.clone())).unwrap();
    assert_close(&values(&got), &step_on_host(&host));
    let got = c.call(&(Array::scalar(false), w.clone())).unwrap();
    assert_close(
        &values(&got),
        &host.iter().map(|v| v + 1.0).collect::<Vec<_>>(),
    );
    let s = jit(|(i, w): &(Array, Array)| {
        let branches: [&dyn Fn(&Array) -> Array; 3] = [
            &|w: &Array| step.call(w).unwrap(),
            &|w: &Array| rows.call(w).unwrap(),
            &|w: &Array| -w,
        ];
        lax::switch(i, &branches, w).unwrap()
    });
    let want: [Vec<f32>; 3] = [
        step_on_host(&host),
        host.iter().map(|v| v * 3.0).collect(),
        host.iter().map(|v| -v).collect(),
    ];
    for (i, want) in want.iter().enumerate() {
        let got = s.call(&(Array::scalar(i as i32), w.clone())).unwrap();
        assert_close(&values(&got), want);
    }
}

/// `inner(w) = 2w + psum(w, "y") + psum(w, "x")` on the 2x4 mesh's 8x8 split `P("x", "y")`,
/// plus one (the outer body's own op): what the nested shard_maps compute.
fn nested_on_host(w: &[f32]) -> Vec<f32> {
    let py = psum_y(w);
    (0..64)
        .map(|k| {
            let (r, c) = (k / 8, k % 8);
            let px = w[(r % 4) * 8 + c] + w[(r % 4 + 4) * 8 + c];
            2.0 * w[k] + py[k] + px + 1.0
        })
        .collect()
}

/// The shard_map over "x" whose body runs a shard_map over "y" (JAX's nesting: the inner one
/// on the same mesh, `axis_names` disjoint).
fn nested(mesh: &systolic::Mesh) -> systolic::ShardMap<Array, Array, impl Fn(&Array) -> Array> {
    let inner = shard_map(
        |b: &Array| b * 2.0 + lax::psum(b, "y") + lax::psum(b, "x"),
        mesh,
        P!(None, "y"),
        P!(None, "y"),
    )
    .axis_names(&["y"]);
    shard_map(
        move |r: &Array| inner.call(r).unwrap() + 1.0,
        mesh,
        P!("x"),
        P!("x"),
    )
    .axis_names(&["x"])
}

#[test]
fn a_shard_map_over_y_nested_in_one_over_x() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let outer = nested(&mesh);
    let w = data(&[8, 8], 6);
    let want = nested_on_host(&values(&w));
    let got = jit(|w: &Array| outer.call(w).unwrap()).call(&w).unwrap();
    assert_close(&values(&got), &want);
    // Called eagerly too.
    assert_close(&values(&outer.call(&w).unwrap()), &want);
    // Staged as JAX stages it: two manual computations, the inner one over "y" in the outer
    // one's body.
    let text = jit(|w: &Array| outer.call(w).unwrap())
        .lower(&w)
        .unwrap()
        .as_text();
    assert!(text.contains("manual_axes={\"x\"}"), "{text}");
    assert!(text.contains("manual_axes={\"y\"}"), "{text}");
}

#[test]
fn nested_shard_maps_in_a_fori_loop() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let outer = nested(&mesh);
    let w = data(&[8, 8], 7);
    let f = jit(|w: &Array| {
        lax::fori_loop(0, 2, |_, w: &Array| outer.call(&(w * 0.125)).unwrap(), w).unwrap()
    });
    let scaled = |v: Vec<f32>| v.into_iter().map(|x| x * 0.125).collect::<Vec<_>>();
    let want = nested_on_host(&scaled(nested_on_host(&scaled(values(&w)))));
    assert_close(&values(&f.call(&w).unwrap()), &want);
}

#[test]
fn what_jax_rejects_in_nested_shard_maps_is_an_error() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let w = data(&[8, 8], 8);
    // An inner shard_map over the axis the outer one already made manual.
    let inner = shard_map(|b: &Array| b * 2.0, &mesh, P!("x"), P!("x")).axis_names(&["x"]);
    let outer = shard_map(
        move |r: &Array| inner.call(r).unwrap(),
        &mesh,
        P!("x"),
        P!("x"),
    )
    .axis_names(&["x"]);
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        jit(|w: &Array| outer.call(w).unwrap()).call(&w)
    }));
    let message = match e {
        Ok(r) => r.err().map(|e| e.to_string()).unwrap_or_default(),
        Err(p) => p
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "a panic".into()),
    };
    assert!(message.contains("already manual"), "{message}");
    // A spec naming an axis outside axis_names, and a collective over an automatic axis.
    let f = shard_map(|b: &Array| b * 2.0, &mesh, P!("x", "y"), P!("x")).axis_names(&["x"]);
    let e = f.call(&w).unwrap_err().to_string();
    assert!(e.contains("'y'") && e.contains("axis_names"), "{e}");
    let g = shard_map(|b: &Array| lax::psum(b, "y"), &mesh, P!("x"), P!("x")).axis_names(&["x"]);
    let e = g.call(&w).unwrap_err().to_string();
    assert!(e.contains("'y'") && e.contains("not manual"), "{e}");
}

#[test]
fn grad_through_a_fori_loop_over_a_shard_map_step() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let step = sharded_step(&mesh);
    let loss = |w: &Array| {
        let w = lax::fori_loop(0, 2, |_, w: &Array| step.call(w).unwrap(), w).unwrap();
        np::sum(&(&w * &w), None, false)
    };
    let w = data(&[8, 8], 9);
    let g = values(&systolic::grad(loss).call(&w).unwrap());
    // Central differences of the host loss at a few elements.
    let host_loss = |v: &[f32]| -> f64 { sum_of_squares(&step_on_host(&step_on_host(v))) };
    check_central_differences(&g, &values(&w), host_loss, &[0, 9, 37, 63]);
}

#[test]
fn grad_through_nested_shard_maps() {
    init();
    let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    let outer = nested(&mesh);
    let loss = |w: &Array| {
        let y = outer.call(w).unwrap();
        np::sum(&(&y * &y), None, false)
    };
    let w = data(&[8, 8], 10);
    let grad = systolic::grad(loss);
    let g = values(&jit(|w: &Array| grad.call(w).unwrap()).call(&w).unwrap());
    let host_loss = |v: &[f32]| -> f64 { sum_of_squares(&nested_on_host(v)) };
    check_central_differences(&g, &values(&w), host_loss, &[0, 12, 40, 63]);
}

/// Σ x² in f64.
fn sum_of_squares(v: &[f32]) -> f64 {
    v.iter().map(|&x| f64::from(x) * f64::from(x)).sum()
}

/// `g` (the gradient at `base`) agrees at elements `ks` with central differences of
/// `loss`.
fn check_central_differences(g: &[f32], base: &[f32], loss: impl Fn(&[f32]) -> f64, ks: &[usize]) {
    for &k in ks {
        let (mut plus, mut minus) = (base.to_vec(), base.to_vec());
        plus[k] += 1e-2;
        minus[k] -= 1e-2;
        let numeric = (loss(&plus) - loss(&minus)) / 2e-2;
        assert!(
            (f64::from(g[k]) - numeric).abs() <= 2e-2 + 2e-2 * numeric.abs(),
            "element {k}: {} vs {numeric}",
            g[k]
        );
    }
}
