//! `grad` and `vmap` of functions that call `shard_map`, on 8 host devices (its own test
//! binary: `set_cpu_devices(8)` before the client starts). The staged program holds an
//! `sdy.manual_computation`; systolic-autodiff and systolic-vmap transform it into manual
//! computations again (forward and backward, or batched), which run on the mesh's devices.
//! Expected values were printed by JAX 0.10.2 for the same functions and inputs
//! (`scripts/shard_map_grad_goldens.py`, run with
//! `XLA_FLAGS=--xla_force_host_platform_device_count=8`).

use std::sync::Once;
use systolic::{grad, jit, lax, make_mesh, numpy as np, shard_map, vmap, Array, Mesh, P};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| systolic::set_cpu_devices(8).unwrap());
}

fn values(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn assert_close(got: &Array, want: &[f32], shape: &[i64], what: &str) {
    assert_eq!(got.shape(), shape, "{what}: shape");
    let g = values(got);
    for (i, (a, b)) in g.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 2e-5 * (1.0 + b.abs()),
            "{what}[{i}]: {a} vs JAX {b}\n got {g:?}\nwant {want:?}"
        );
    }
}

// ---- A mesh of 4: psum and ppermute, a replicated and a sharded input.

/// JAX: `w = [0.5, -1.0]`, `x[i, j] = (2i + j) / 8 - 1` of shape [8, 2].
fn inputs_1d() -> (Array, Array) {
    let w = Array::from_vec(vec![0.5f32, -1.0], &[2]);
    let x = Array::from_vec((0..16).map(|k| k as f32 / 8.0 - 1.0).collect(), &[8, 2]);
    (w, x)
}

/// `h = sin(x·w)`; the psum over "i" of the column sums of h², and h moved one device along
/// the ring times x.
fn body_1d((w, x): &(Array, Array)) -> (Array, Array) {
    let perm: Vec<(usize, usize)> = (0..4).map(|j| (j, (j + 1) % 4)).collect();
    let h = np::sin(&(x * w));
    let s = lax::psum(&np::sum(&(&h * &h), Some(&[0]), false), "i");
    let p = lax::ppermute(&h, "i", &perm);
    (s, &p * x)
}

fn sm_1d(mesh: &Mesh, args: &(Array, Array)) -> (Array, Array) {
    shard_map(body_1d, mesh, [P!(), P!("i")], [P!(), P!("i")])
        .call(args)
        .unwrap()
}

fn loss_1d(args: &(Array, Array)) -> Array {
    let mesh = make_mesh(&[4], &["i"]).unwrap();
    let (s, q) = sm_1d(&mesh, args);
    &np::sum(&(&s * &s), None, false) + &np::sum(&np::cos(&q), None, false)
}

const LOSS_1D: f32 = 20.653732;
const GRAD_1D_W: [f32; 2] = [2.815334, -14.505551];
const GRAD_1D_X: [f32; 16] = [
    -0.43568128,
    -3.9005227,
    -0.33420843,
    -3.742372,
    -0.19859791,
    -2.7246387,
    -0.12386741,
    -1.0097908,
    0.0,
    1.0048984,
    0.122598685,
    2.685523,
    0.19378746,
    3.7466953,
    0.33790487,
    3.9551048,
];

#[test]
fn jit_of_grad_through_shard_map_on_4_devices_matches_jax() {
    init();
    let args = inputs_1d();
    assert_close(&jit(loss_1d).call(&args).unwrap(), &[LOSS_1D], &[], "loss");
    let (gw, gx) = jit(|a: &(Array, Array)| grad(loss_1d).call(a).unwrap())
        .call(&args)
        .unwrap();
    assert_close(&gw, &GRAD_1D_W, &[2], "jit(grad) w");
    assert_close(&gx, &GRAD_1D_X, &[8, 2], "jit(grad) x");
}

#[test]
fn eager_grad_through_shard_map_matches_jax() {
    init();
    let (gw, gx) = grad(loss_1d).call(&inputs_1d()).unwrap();
    assert_close(&gw, &GRAD_1D_W, &[2], "grad w");
    assert_close(&gx, &GRAD_1D_X, &[8, 2], "grad x");
}

/// JAX: `jax.vmap(lambda x: sm(w, x))` over `[x, 2x, x²]`.
#[test]
fn vmap_of_a_function_calling_shard_map_matches_jax() {
    init();
    let (w, x) = inputs_1d();
    let batch = || np::stack(&[&x, &(&x * 2.0), &(&x * &x)], 0);
    let want_s: [f32; 6] = [
        0.65166503, 2.1623223, 2.2194514, 4.7892804, 0.4169644, 1.290209,
    ];
    let want_q: [f32; 48] = [
        -0.24740396,
        0.5119601,
        -0.2747044,
        0.4797147,
        0.23971277,
        -0.2878288,
        0.091568135,
        -0.07313716,
        -0.0,
        0.045784067,
        -0.031168683,
        0.046753023,
        0.0,
        -0.0779217,
        0.093506046,
        -0.32048848,
        -0.9588511,
        1.6607231,
        -1.0224582,
        1.2299825,
        0.84147096,
        -0.7379895,
        0.3408194,
        -0.23724616,
        -0.0,
        0.1704097,
        -0.12370198,
        0.18555297,
        0.0,
        -0.30925494,
        0.37110594,
        -1.1928679,
        0.12467473,
        -0.2915243,
        0.15612566,
        -0.27069834,
        0.11985639,
        -0.097451404,
        0.017347297,
        -0.0059494753,
        0.0,
        -0.0021900309,
        0.0019528071,
        -0.0021971762,
        0.0,
        -0.006103267,
        0.017575264,
        -0.10731151,
    ];
    let mesh = make_mesh(&[4], &["i"]).unwrap();
    let f = |x: &Array| sm_1d(&mesh, &(w.clone(), x.clone()));
    let (s, q) = vmap(f).call(&batch()).unwrap();
    assert_close(&s, &want_s, &[3, 2], "vmap s");
    assert_close(&q, &want_q, &[3, 8, 2], "vmap q");
    // Under jit too.
    let (s, q) = jit(|xs: &Array| vmap(f).call(xs).unwrap())
        .call(&batch())
        .unwrap();
    assert_close(&s, &want_s, &[3, 2], "jit(vmap) s");
    assert_close(&q, &want_q, &[3, 8, 2], "jit(vmap) q");
}

// ---- A 2 × 2 mesh: all_gather over "a", psums over "b" and over both axes.

/// `e = tanh(x·v)`; its psum over "b", and the psum over the mesh of the column sums of the
/// all_gather over "a" of e, squared.
fn body_2x2((x, v): &(Array, Array)) -> (Array, Array) {
    let e = np::tanh(&(x * &np::reshape(v, &[1, -1])));
    let g = lax::all_gather(&e, "a", 0, true);
    let t = lax::psum(&np::sum(&(&g * &g), Some(&[0]), false), ("a", "b"));
    (lax::psum(&e, "b"), t)
}

fn loss_2x2(args: &(Array, Array)) -> Array {
    let mesh = make_mesh(&[2, 2], &["a", "b"]).unwrap();
    let (r, t) = shard_map(
        body_2x2,
        &mesh,
        [P!("a", "b"), P!("b")],
        [P!("a", None), P!()],
    )
    .call(args)
    .unwrap();
    &np::sum(&(&r * &r), None, false) + &np::sum(&np::sin(&t), None, false)
}

/// JAX: `x[i, j] = (4i + j) / 16 - 0.5` of shape [4, 4], `v = [1, -0.5, 0.25, 2]`.
#[test]
fn grad_through_shard_map_on_a_2x2_mesh_matches_jax() {
    init();
    let x = Array::from_vec((0..16).map(|k| k as f32 / 16.0 - 0.5).collect(), &[4, 4]);
    let v = Array::from_vec(vec![1.0f32, -0.5, 0.25, 2.0], &[4]);
    let args = (x, v);
    assert_close(
        &jit(loss_2x2).call(&args).unwrap(),
        &[2.5589926],
        &[],
        "loss",
    );
    let want_x: [f32; 16] = [
        -1.980215,
        0.51439035,
        -0.34588584,
        0.48795408,
        -1.2200234,
        0.11672561,
        -0.16169567,
        0.33355397,
        0.062479656,
        -0.35580462,
        0.039355848,
        -0.020720862,
        1.3370299,
        -0.67631835,
        0.23823553,
        -0.21250696,
    ];
    let want_v: [f32; 4] = [1.6293708, 0.9610382, 0.9767078, -0.13509487];
    let (gx, gv) = jit(|a: &(Array, Array)| grad(loss_2x2).call(a).unwrap())
        .call(&args)
        .unwrap();
    assert_close(&gx, &want_x, &[4, 4], "jit(grad) x");
    assert_close(&gv, &want_v, &[4], "jit(grad) v");
}
