//! Many host devices in one process (`set_cpu_devices(8)` before the client starts, so this file
//! is its own test binary): meshes, sharded arrays, `shard_map` with every
//! collective (eagerly and under `jit`), gradients inside a body with JAX's variance rules,
//! and `pmap`. Expected values are computed here on the host, or were printed by JAX 0.10.2
//! for the same programs (noted where so).

use std::sync::Once;
use systolic::{
    device_put, grad, jit, lax, make_mesh, numpy as np, pmap, shard_map, visualize_sharding, vmap,
    Array, NamedSharding, P,
};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| systolic::set_cpu_devices(8).unwrap());
    let cpus = systolic::devices()
        .iter()
        .filter(|d| d.kind() == systolic_runtime::DeviceKind::Cpu)
        .count();
    assert_eq!(cpus, 8, "SYSTOLIC_CPU_DEVICES was not honoured");
}

fn arange(n: usize, shape: &[i64]) -> Array {
    Array::from_vec((0..n).map(|i| i as f32).collect(), shape)
}

fn values(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

#[test]
fn device_put_splits_over_a_2d_mesh() {
    init();
    let mesh = make_mesh(&[4, 2], &["x", "y"]).unwrap();
    let x = arange(32, &[8, 4]);
    let s = NamedSharding::new(&mesh, P!("x", "y")).unwrap();
    let y = device_put(&x, &s).unwrap();
    assert_eq!(y.shape(), &[8, 4]);
    let shards = y.addressable_shards();
    assert_eq!(shards.len(), 8);
    // Mesh device 3 is (x=1, y=1): rows 2..4, columns 2..4.
    assert_eq!(shards[3].index, vec![2..4, 2..4]);
    assert_eq!(shards[3].device, mesh.devices()[3]);
    assert_eq!(values(&shards[3].data), vec![10.0, 11.0, 14.0, 15.0]);
    assert_eq!(values(&y), values(&x));
    let picture = visualize_sharding(&y).unwrap();
    assert_eq!(picture.lines().count(), 9, "{picture}");
    assert!(picture.contains("CPU 5"), "{picture}");
    // Replicated over y: each piece on two devices.
    let r = device_put(&x, NamedSharding::new(&mesh, P!("x")).unwrap()).unwrap();
    let picture = visualize_sharding(&r).unwrap();
    assert!(picture.contains("CPU 0,1"), "{picture}");
}

#[test]
fn uneven_and_unknown_axes_are_errors_that_name_them() {
    init();
    let mesh = make_mesh(&[4, 2], &["x", "y"]).unwrap();
    let x = arange(24, &[6, 4]);
    let err = device_put(&x, NamedSharding::new(&mesh, P!("x")).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dimension 0 of size 6") && err.contains("'x' of size 4"),
        "{err}"
    );
    let err = NamedSharding::new(&mesh, P!("z")).unwrap_err().to_string();
    assert!(
        err.contains("no axis 'z'") && err.contains("'x': 4, 'y': 2"),
        "{err}"
    );
    let f = shard_map(|x: &Array| lax::psum(x, "z"), &mesh, P!("x"), P!());
    let err = f.call(&arange(8, &[8])).unwrap_err().to_string();
    assert!(err.contains("psum") && err.contains("'z'"), "{err}");
    let f = shard_map(
        |x: &Array| lax::psum_scatter(x, "x", 0, true),
        &mesh,
        P!(),
        P!("x"),
    );
    let err = f.call(&arange(6, &[6])).unwrap_err().to_string();
    assert!(
        err.contains("psum_scatter") && err.contains("size 6, which is not divisible by the 4"),
        "{err}"
    );
    // A value that varies over x returned as if it were the same everywhere.
    let f = shard_map(|x: &Array| x * 2.0, &mesh, P!("x"), P!());
    let err = f.call(&arange(8, &[8])).unwrap_err().to_string();
    assert!(err.contains("varies over mesh axis 'x'"), "{err}");
}

/// Each collective once, eagerly and under jit, against the host's answer.
#[test]
fn collectives_on_a_2d_mesh_eagerly_and_under_jit() {
    init();
    let mesh = make_mesh(&[4, 2], &["x", "y"]).unwrap();
    let x = arange(64, &[16, 4]); // pieces of [4, 2] under P("x", "y")
    let xs = values(&x);
    let at = |r: usize, c: usize| xs[r * 4 + c];
    let check = |name: &str, got: Vec<f32>, want: Vec<f32>| assert_eq!(got, want, "{name}");

    // psum over x: the sum of the four row blocks, still split over y.
    let f = shard_map(
        |x: &Array| lax::psum(x, "x"),
        &mesh,
        P!("x", "y"),
        P!(None, "y"),
    );
    let want: Vec<f32> = (0..16)
        .map(|i| (0..4).map(|b| at(b * 4 + i / 4, i % 4)).sum())
        .collect();
    check("psum eager", values(&f.call(&x).unwrap()), want.clone());
    let jf = jit(|x: &Array| {
        shard_map(
            |x: &Array| lax::psum(x, "x"),
            &make_mesh(&[4, 2], &["x", "y"]).unwrap(),
            P!("x", "y"),
            P!(None, "y"),
        )
        .call(x)
        .unwrap()
    });
    let out = jf.call(&x).unwrap();
    assert_eq!(out.sharding().unwrap().spec(), &P!(None, "y"));
    check("psum jit", values(&out), want);

    // pmax over both axes: the elementwise max of all eight pieces (the last one).
    let f = shard_map(
        |x: &Array| lax::pmax(x, ("x", "y")),
        &mesh,
        P!("x", "y"),
        P!(),
    );
    let want: Vec<f32> = (0..8).map(|i| at(12 + i / 2, 2 + i % 2)).collect();
    check("pmax", values(&f.call(&x).unwrap()), want);

    // all_gather over y along columns (tiled) rebuilds each row block. As in JAX 0.10.2, the
    // gathered value still counts as varying over y, so out_specs P("x") is refused unless
    // check_vma is off.
    let gather = |x: &Array| lax::all_gather(x, "y", 1, true);
    let err = shard_map(gather, &mesh, P!("x", "y"), P!("x"))
        .call(&x)
        .unwrap_err();
    assert!(
        err.to_string().contains("varies over mesh axis 'y'"),
        "{err}"
    );
    let f = shard_map(gather, &mesh, P!("x", "y"), P!("x")).check_vma(false);
    check("all_gather", values(&f.call(&x).unwrap()), xs.clone());

    // psum_scatter over x along rows (tiled): device (i, j) keeps row i of the block sum.
    let f = shard_map(
        |x: &Array| lax::psum_scatter(x, "x", 0, true),
        &mesh,
        P!("x", "y"),
        P!("x", "y"),
    );
    let want: Vec<f32> = (0..16)
        .map(|i| (0..4).map(|b| at(b * 4 + i / 4, i % 4)).sum())
        .collect();
    check("psum_scatter", values(&f.call(&x).unwrap()), want);

    // ppermute along x by one: block i moves to i + 1 (the last wraps to 0).
    let perm: Vec<(usize, usize)> = (0..4).map(|i| (i, (i + 1) % 4)).collect();
    let f = shard_map(
        move |x: &Array| lax::ppermute(x, "x", &perm),
        &mesh,
        P!("x", "y"),
        P!("x", "y"),
    );
    let want: Vec<f32> = (0..64).map(|k| at((k / 4 + 12) % 16, k % 4)).collect();
    check("ppermute", values(&f.call(&x).unwrap()), want);

    // axis_index: 100·x + 10·y on every element of the device's piece.
    let f = shard_map(
        |x: &Array| {
            let ix = np::astype(&lax::axis_index("x"), systolic_ir::DType::F32);
            let iy = np::astype(&lax::axis_index("y"), systolic_ir::DType::F32);
            &(&(x * 0.0) + &(&ix * 100.0)) + &(&iy * 10.0)
        },
        &mesh,
        P!("x", "y"),
        P!("x", "y"),
    );
    let want: Vec<f32> = (0..64)
        .map(|k| ((k / 4) / 4 * 100 + (k % 4) / 2 * 10) as f32)
        .collect();
    check("axis_index", values(&f.call(&x).unwrap()), want);
}

#[test]
fn all_to_all_on_a_1d_mesh_transposes_blocks() {
    init();
    let mesh = make_mesh(&[4], &["i"]).unwrap();
    let x = arange(16, &[16]);
    let f = shard_map(
        |x: &Array| lax::all_to_all(x, "i", 0, 0, true),
        &mesh,
        P!("i"),
        P!("i"),
    );
    // Device d receives element d of every device's piece.
    let want: Vec<f32> = (0..16).map(|k| ((k % 4) * 4 + k / 4) as f32).collect();
    assert_eq!(values(&f.call(&x).unwrap()), want);
    let g = shard_map(
        |x: &Array| lax::all_gather(x, "i", 0, false),
        &mesh,
        P!("i"),
        P!("i"),
    );
    let out = g.call(&arange(8, &[8])).unwrap();
    // Untiled: each device holds a [4, 2] stack, so the global result is [16, 2].
    assert_eq!(out.shape(), &[16, 2]);
}

/// JAX 0.10.2 (`jax.shard_map`, check_vma on, 4 devices): the gradient of a per-device loss
/// with respect to replicated weights is summed over the devices: g = [384, 472], and its
/// pmean is the same (the global mean-loss gradient is [96, 118]).
#[test]
fn gradients_of_replicated_inputs_are_summed_as_in_jax() {
    init();
    let mesh = make_mesh(&[4], &["i"]).unwrap();
    let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let x = arange(8, &[4, 2]);
    let body = |(w, x): &(Array, Array)| {
        let x = x.clone();
        let loss = move |w: &Array| {
            let r = np::matmul(&x, w);
            np::mean(&(&r * &r), None, false)
        };
        let g = grad(loss).call(w).unwrap();
        (g.clone(), lax::pmean(&g, "i"))
    };
    let f = shard_map(body, &mesh, [P!(), P!("i")], [P!(), P!()]);
    let (g, gm) = f.call(&(w.clone(), x.clone())).unwrap();
    assert_eq!(values(&g), vec![384.0, 472.0]);
    assert_eq!(values(&gm), vec![384.0, 472.0]);
    let (g, _) = jit(move |(w, x): &(Array, Array)| {
        shard_map(
            body,
            &make_mesh(&[4], &["i"]).unwrap(),
            [P!(), P!("i")],
            [P!(), P!()],
        )
        .call(&(w.clone(), x.clone()))
        .unwrap()
    })
    .call(&(w, x))
    .unwrap();
    assert_eq!(values(&g), vec![384.0, 472.0]);
}

/// JAX 0.10.2 `jax.pmap(..., in_axes=(None, 0))` of the same function: each device keeps its
/// own gradient ([[0, 4], [32, 48], [112, 140], [240, 280]]) and the pmean is the global
/// gradient [96, 118] on every device.
#[test]
fn pmap_keeps_per_device_gradients_and_pmean_averages_them() {
    init();
    let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let x = arange(8, &[4, 1, 2]);
    let f = pmap(
        |(w, x): &(Array, Array)| {
            let x = x.clone();
            let loss = move |w: &Array| {
                let r = np::matmul(&x, w);
                np::mean(&(&r * &r), None, false)
            };
            let g = grad(loss).call(w).unwrap();
            (g.clone(), lax::pmean(&g, "i"))
        },
        "i",
    )
    .in_axes([None, Some(0)]);
    let (g, gm) = f.call(&(w, x)).unwrap();
    assert_eq!(g.shape(), &[4, 2]);
    assert_eq!(
        values(&g),
        vec![0.0, 4.0, 32.0, 48.0, 112.0, 140.0, 240.0, 280.0]
    );
    assert_eq!(values(&gm), [96.0, 118.0].repeat(4));
}

/// A data-parallel SGD step on 8 devices equals the same step on the global batch.
#[test]
fn data_parallel_step_equals_the_single_device_step() {
    init();
    let mesh = make_mesh(&[8], &["batch"]).unwrap();
    let w = Array::from_vec(vec![0.5f32, -0.25, 1.0], &[3]);
    let x = Array::from_vec(
        (0..48).map(|i| ((i * 7) % 11) as f32 / 11.0).collect(),
        &[16, 3],
    );
    let y = Array::from_vec((0..16).map(|i| (i % 3) as f32).collect(), &[16]);
    let loss = |(w, x, y): &(Array, Array, Array)| {
        let r = &np::matmul(x, w) - y;
        np::mean(&(&r * &r), None, false)
    };
    let step = |(w, x, y): &(Array, Array, Array)| {
        let (xl, yl) = (x.clone(), y.clone());
        let g = grad(move |w: &Array| loss(&(w.clone(), xl.clone(), yl.clone())))
            .call(w)
            .unwrap();
        // Replicated w: the gradient is already summed over devices (JAX's vma rule), so the
        // mean over devices is that sum divided by their number.
        w - &(&(&g / 8.0) * 0.1)
    };
    let dp = jit(move |args: &(Array, Array, Array)| {
        shard_map(
            step,
            &make_mesh(&[8], &["batch"]).unwrap(),
            [P!(), P!("batch"), P!("batch")],
            P!(),
        )
        .call(args)
        .unwrap()
    });
    let _ = mesh;
    let single = jit(move |(w, x, y): &(Array, Array, Array)| {
        let g = grad(|w: &Array| loss(&(w.clone(), x.clone(), y.clone())))
            .call(w)
            .unwrap();
        w - &(&g * 0.1)
    });
    let args = (w, x, y);
    let a = values(&dp.call(&args).unwrap());
    let b = values(&single.call(&args).unwrap());
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() < 1e-5, "{a:?} vs {b:?}");
    }
}

/// Loop carries keep their own variance: a carry the body makes varying (an accumulator of
/// each device's data started from zeros) is promoted before the loop, so returning it as if
/// it were the same everywhere is refused, while an invariant carry (the weights) stays
/// invariant and its gradient is summed over the devices once: for
/// L = psum(Σ acc) with acc = 3·w·x_local, dL/dw = 3·Σ x over every device.
#[test]
fn loop_carries_keep_their_own_variance() {
    init();
    let mesh = make_mesh(&[4], &["i"]).unwrap();
    let x = arange(8, &[8]);
    let accumulate = |x: &Array, w: &Array| {
        lax::fori_loop(
            0,
            3,
            |_, (acc, w): &(Array, Array)| (acc + &(x * w), w.clone()),
            &(np::zeros(&[2], systolic_ir::DType::F32), w.clone()),
        )
        .unwrap()
    };
    let f = shard_map(
        move |(w, x): &(Array, Array)| accumulate(x, w).0,
        &mesh,
        [P!(), P!("i")],
        P!(),
    );
    let err = f.call(&(Array::scalar(1.0f32), x.clone())).unwrap_err();
    assert!(
        err.to_string().contains("varies over mesh axis 'i'"),
        "{err}"
    );
    let g = shard_map(
        move |(w, x): &(Array, Array)| {
            let x = x.clone();
            grad(move |w: &Array| {
                let (acc, w_out) = accumulate(&x, w);
                &lax::psum(&np::sum(&acc, None, false), "i") + &(&w_out * 0.0)
            })
            .call(w)
            .unwrap()
        },
        &mesh,
        [P!(), P!("i")],
        P!(),
    );
    let got = values(&g.call(&(Array::scalar(2.0f32), x)).unwrap());
    assert_eq!(got, vec![3.0 * 28.0]);
}

/// Collectives over a named vmap axis run across the examples, eagerly and under jit.
#[test]
fn collectives_over_a_named_vmap_axis() {
    init();
    let x = arange(6, &[3, 2]); // 3 examples of 2
    let f = |x: &Array| {
        let total = lax::psum(x, "b");
        let idx = np::astype(&lax::axis_index("b"), systolic_ir::DType::F32);
        let top = lax::pmax(x, "b");
        let all = lax::all_gather(x, "b", 0, false);
        (&(&total + &idx) + &(&top * 0.0), np::sum(&all, None, false))
    };
    let (a, b) = vmap(f).axis_name("b").call(&x).unwrap();
    // psum = [6, 9] for every example, plus the example's index.
    assert_eq!(values(&a), vec![6.0, 9.0, 7.0, 10.0, 8.0, 11.0]);
    assert_eq!(values(&b), vec![15.0; 3]);
    let (a2, _) = jit(move |x: &Array| vmap(f).axis_name("b").call(x).unwrap())
        .call(&x)
        .unwrap();
    assert_eq!(values(&a2), values(&a));
    let err = vmap(|x: &Array| lax::psum(x, "c"))
        .axis_name("b")
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(err.contains("'c'"), "{err}");
}
