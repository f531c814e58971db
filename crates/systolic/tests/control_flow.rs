//! Traced control flow (`lax::while_loop`, `fori_loop`, `scan`, `cond`, `switch`) against JAX
//! goldens (`tests/data/make_control_goldens.py` → `control_jax0.10.2.json`): values, grads
//! through fori_loop/scan/cond, vmap of cond, jit vs eager, and error messages.

use serde_json::Value as Json;
use systolic::{grad, jit, lax, numpy as np, vmap, Array};
use systolic_ir::DType;

fn golden() -> Json {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/control_jax0.10.2.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn floats(j: &Json) -> Vec<f32> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect()
}

fn arr(j: &Json, shape: &[i64]) -> Array {
    Array::from_vec(floats(j), shape)
}

fn get(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

#[track_caller]
fn close(got: &[f32], want: &[f32], rtol: f32) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rtol * w.abs().max(1.0),
            "element {i}: got {g}, JAX {w} (got {got:?}, JAX {want:?})"
        );
    }
}

fn newton(a: f32) -> (Array, Array) {
    lax::while_loop(
        |(x, n): &(Array, Array)| {
            let far = np::greater(&np::abs(&(&(x * x) - a as f64)), &Array::scalar(1e-4f32));
            lax::bitwise_and(&far, &np::less(n, &Array::scalar(50i32)))
        },
        |(x, n): &(Array, Array)| ((x + &(a as f64 / x)) * 0.5, n + 1),
        &(Array::scalar(1.0f32), Array::scalar(0i32)),
    )
    .unwrap()
}

#[test]
fn while_newton_and_collatz_match_jax() {
    let g = golden();
    let (x, n) = newton(g["newton"]["a"].as_f64().unwrap() as f32);
    close(&get(&x), &floats(&g["newton"]["x"]), 1e-6);
    assert_eq!(
        n.to_vec::<i32>().unwrap()[0] as f32,
        floats(&g["newton"]["n"])[0]
    );

    let collatz = |n0: &Array| {
        lax::while_loop(
            |(n, _): &(Array, Array)| np::not_equal(n, &Array::scalar(1i32)),
            |(n, k): &(Array, Array)| {
                let even = np::equal(&lax::rem(n, &Array::scalar(2i32)), &Array::scalar(0i32));
                let half = lax::div(n, &Array::scalar(2i32));
                (np::where_(&even, &half, &(&(n * 3) + 1)), k + 1)
            },
            &(n0.clone(), Array::scalar(0i32)),
        )
        .unwrap()
        .1
    };
    let n0 = Array::scalar(g["collatz"]["n0"].as_i64().unwrap() as i32);
    let want = g["collatz"]["steps"][0].as_i64().unwrap() as i32;
    assert_eq!(collatz(&n0).to_vec::<i32>().unwrap(), vec![want]);
    assert_eq!(
        jit(collatz).call(&n0).unwrap().to_vec::<i32>().unwrap(),
        vec![want]
    );
}

fn fori_sum(x: &Array) -> Array {
    lax::fori_loop(
        2,
        10,
        |i, acc: &Array| &(acc + &(i * x)) + &(i * i),
        &np::zeros(&[3], DType::F32),
    )
    .unwrap()
}

fn fori_loss(x: &Array) -> Array {
    let y = lax::fori_loop(0, 4, |i, y: &Array| &(&np::sin(y) * x) + &(i * 0.1), x).unwrap();
    np::sum(&y, None, false)
}

#[test]
fn fori_loop_values_and_grad_match_jax() {
    let g = golden();
    let x = arr(&g["fori_sum"]["x"], &[3]);
    let want = floats(&g["fori_sum"]["out"]);
    close(&get(&fori_sum(&x)), &want, 1e-6);
    close(&get(&jit(fori_sum).call(&x).unwrap()), &want, 1e-6);

    let x = arr(&g["fori_grad"]["x"], &[3]);
    close(&get(&fori_loss(&x)), &floats(&g["fori_grad"]["loss"]), 1e-5);
    let want = floats(&g["fori_grad"]["grad"]);
    close(&get(&grad(fori_loss).call(&x).unwrap()), &want, 1e-5);
    close(
        &get(&jit(|x: &Array| grad(fori_loss).call(x).unwrap())
            .call(&x)
            .unwrap()),
        &want,
        1e-5,
    );
}

#[test]
fn scan_cumulative_ops_match_jax() {
    let g = &golden()["scan_cum"];
    let xs = arr(&g["xs"], &[6]);
    let ((s, p), (cs, cp)) = lax::scan(
        |(s, p): &(Array, Array), x: &Array| {
            let c = (s + x, p * x);
            (c.clone(), c)
        },
        &(Array::scalar(0.0f32), Array::scalar(1.0f32)),
        &xs,
        None,
        false,
    )
    .unwrap();
    close(&get(&s), &floats(&g["sum"]), 1e-6);
    close(&get(&p), &floats(&g["prod"]), 1e-6);
    close(&get(&cs), &floats(&g["cumsum"]), 1e-6);
    close(&get(&cp), &floats(&g["cumprod"]), 1e-6);
    let (_, rcs) = lax::scan(
        |c: &Array, x: &Array| (c + x, c + x),
        &Array::scalar(0.0f32),
        &xs,
        Some(6),
        true,
    )
    .unwrap();
    close(&get(&rcs), &floats(&g["rev_cumsum"]), 1e-6);
}

type Rnn = (Array, Array, Array, Array);

fn rnn(p: &Rnn) -> (Array, (Array, Array)) {
    let (w, u, b, seq) = p;
    lax::scan(
        |h: &Array, x: &Array| {
            let h = np::tanh(&(&(&np::matmul(w, h) + &np::matmul(u, x)) + b));
            let s = np::sum(&h, None, false);
            (h.clone(), (h, s))
        },
        &np::zeros(&[3], DType::F32),
        seq,
        None,
        false,
    )
    .unwrap()
}

fn rnn_loss(p: &Rnn) -> Array {
    let (_, (hs, sums)) = rnn(p);
    &np::sum(&(&hs * &hs), None, false) + &np::sum(&sums, None, false)
}

#[test]
fn rnn_scan_values_and_grads_match_jax() {
    let g = &golden()["rnn"];
    let p: Rnn = (
        arr(&g["W"], &[3, 3]),
        arr(&g["U"], &[3, 2]),
        arr(&g["b"], &[3]),
        arr(&g["seq"], &[5, 2]),
    );
    let (ht, (hs, sums)) = rnn(&p);
    assert_eq!(hs.shape(), &[5, 3]);
    close(&get(&ht), &floats(&g["hT"]), 1e-5);
    close(&get(&hs), &floats(&g["hs"]), 1e-5);
    close(&get(&sums), &floats(&g["sums"]), 1e-5);
    // jit equals eager.
    let (jt, (jhs, _)) = jit(rnn).call(&p).unwrap();
    assert_eq!(get(&jt), get(&ht));
    assert_eq!(get(&jhs), get(&hs));
    close(&get(&rnn_loss(&p)), &floats(&g["loss"]), 1e-5);
    let (gw, gu, gb, _) = grad(rnn_loss).call(&p).unwrap();
    close(&get(&gw), &floats(&g["gW"]), 1e-4);
    close(&get(&gu), &floats(&g["gU"]), 1e-4);
    close(&get(&gb), &floats(&g["gb"]), 1e-4);
}

fn cond_f(x: &Array, t: f32) -> Array {
    let pred = np::greater(&np::sum(x, None, false), &Array::scalar(t));
    lax::cond(
        &pred,
        |x: &Array| np::sin(x) * 2.0,
        |x: &Array| x * x - 1.0,
        x,
    )
    .unwrap()
}

#[test]
fn cond_values_and_grads_match_jax() {
    let g = &golden()["cond"];
    let x = arr(&g["x"], &[3]);
    for case in ["true", "false"] {
        let t = g[case]["t"].as_f64().unwrap() as f32;
        let want = floats(&g[case]["out"]);
        close(&get(&cond_f(&x, t)), &want, 1e-6);
        let jitted = jit(move |x: &Array| cond_f(x, t)).call(&x).unwrap();
        assert_eq!(get(&jitted), get(&cond_f(&x, t)), "jit vs eager ({case})");
        let gr = grad(move |x: &Array| np::sum(&cond_f(x, t), None, false))
            .call(&x)
            .unwrap();
        close(&get(&gr), &floats(&g[case]["grad"]), 1e-5);
    }
}

#[test]
fn switch_clamps_the_index_like_jax() {
    let g = &golden()["switch"];
    let x = arr(&g["x"], &[3]);
    let b0 = |x: &Array| x + 1.0;
    let b1 = |x: &Array| x * 10.0;
    let b2 = |x: &Array| -x;
    let branches: [&dyn Fn(&Array) -> Array; 3] = [&b0, &b1, &b2];
    let jitted = jit(|(i, x): &(Array, Array)| lax::switch(i, &branches, x).unwrap());
    for case in g["cases"].as_array().unwrap() {
        let i = Array::scalar(case["index"].as_i64().unwrap() as i32);
        let want = floats(&case["out"]);
        close(&get(&lax::switch(&i, &branches, &x).unwrap()), &want, 0.0);
        close(&get(&jitted.call(&(i, x.clone())).unwrap()), &want, 0.0);
    }
}

#[test]
fn vmap_of_cond_matches_jax() {
    let g = &golden()["vmap_cond"];
    let x = arr(&g["x"], &[5]);
    let f = vmap(|x: &Array| {
        lax::cond(
            &np::greater(x, &Array::scalar(0.0f32)),
            |x: &Array| x * x,
            |x: &Array| x * -3.0,
            x,
        )
        .unwrap()
    });
    close(&get(&f.call(&x).unwrap()), &floats(&g["out"]), 0.0);
}

#[test]
fn vmap_of_loops() {
    let g = golden();
    // Per-example Newton iterations: the trip count differs per lane.
    let f = vmap(|a: &Array| {
        lax::while_loop(
            |x: &Array| np::greater(&np::abs(&(&(x * x) - a)), &Array::scalar(1e-4f32)),
            |x: &Array| (x + &(a / x)) * 0.5,
            &Array::scalar(1.0f32),
        )
        .unwrap()
    });
    let a = Array::from_vec(vec![2.0f32, 10.0, 100.0], &[3]);
    close(
        &get(&f.call(&a).unwrap()),
        &[2f32.sqrt(), 10f32.sqrt(), 10.0],
        1e-5,
    );
    // vmap of fori_loop sums and of grad through a fori_loop.
    let x = arr(&g["fori_sum"]["x"], &[3]);
    let per =
        vmap(|x: &Array| np::sum(&fori_sum(&(&np::zeros(&[3], DType::F32) + x)), None, false));
    let got = get(&per.call(&x).unwrap());
    for (k, xi) in floats(&g["fori_sum"]["x"]).iter().enumerate() {
        let want: f32 = (2..10)
            .map(|i| 3.0 * (i as f32 * xi + (i * i) as f32))
            .sum();
        close(&got[k..=k], &[want], 1e-6);
    }
    let x = arr(&g["fori_grad"]["x"], &[3]);
    let batched = Array::from_vec(
        [floats(&g["fori_grad"]["x"]), floats(&g["fori_grad"]["x"])].concat(),
        &[2, 3],
    );
    let gv = vmap(|x: &Array| grad(fori_loss).call(x).unwrap())
        .call(&batched)
        .unwrap();
    let want = get(&grad(fori_loss).call(&x).unwrap());
    close(&get(&gv), &[want.clone(), want].concat(), 1e-6);
}

#[test]
fn loops_capture_outer_tracers_under_jit() {
    // The body reads `y`, a tracer of the jit trace: it becomes a loop-invariant carry.
    let f =
        jit(|(x, y): &(Array, Array)| lax::fori_loop(0, 3, |_, acc: &Array| acc + y, x).unwrap());
    let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let y = Array::from_vec(vec![0.5f32, -1.0], &[2]);
    assert_eq!(get(&f.call(&(x, y)).unwrap()), vec![2.5, -1.0]);
    // A large concrete array captured eagerly.
    let big = Array::from_vec((0..64).map(|i| i as f32).collect(), &[64]);
    let r = lax::while_loop(
        |c: &Array| np::less(&np::sum(c, None, false), &Array::scalar(10_000.0f32)),
        |c: &Array| c + &big,
        &np::zeros(&[64], DType::F32),
    )
    .unwrap();
    assert_eq!(get(&r)[1], 5.0);
}

#[test]
fn errors_name_the_leaf_and_types() {
    let x = Array::scalar(1.0f32);
    let e = lax::while_loop(
        |(a, _): &(Array, Array)| np::less(a, &Array::scalar(3.0f32)),
        |(a, b): &(Array, Array)| (np::astype(a, DType::I32), b.clone()),
        &(x.clone(), x.clone()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("[0]") && e.contains("int32") && e.contains("float32"),
        "{e}"
    );

    let e = lax::fori_loop(
        0,
        2,
        |_, v: &Vec<Array>| vec![v[0].clone(); 2],
        &vec![x.clone()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("same structure"), "{e}");

    let e = lax::while_loop(|c: &Array| c * 2.0, |c: &Array| c.clone(), &x)
        .unwrap_err()
        .to_string();
    assert!(e.contains("boolean scalar"), "{e}");

    let pred = Array::from_vec(vec![true, false], &[2]);
    let e = lax::cond(&pred, |x: &Array| x.clone(), |x: &Array| x.clone(), &x)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pred must be a scalar"), "{e}");
    let e = lax::cond(&x, |x: &Array| x.clone(), |x: &Array| x.clone(), &x)
        .unwrap_err()
        .to_string();
    assert!(e.contains("boolean"), "{e}");

    let e = lax::cond(
        &Array::scalar(true),
        |x: &Array| x.clone(),
        |x: &Array| np::astype(x, DType::I32),
        &x,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("true_fun and false_fun") && e.contains("int32[]"),
        "{e}"
    );

    let xs = (
        Array::from_vec(vec![1.0f32; 3], &[3]),
        Array::from_vec(vec![1.0f32; 4], &[4]),
    );
    let e = lax::scan(
        |c: &Array, _: &(Array, Array)| (c.clone(), c.clone()),
        &x,
        &xs,
        None,
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("leading axis"), "{e}");
}

#[test]
fn scan_without_xs_and_over_a_pytree() {
    // `length` with no xs: powers of two.
    let (_, ys) = lax::scan(
        |c: &Array, _: &()| (c * 2, c.clone()),
        &Array::scalar(1i32),
        &(),
        Some(4),
        false,
    )
    .unwrap();
    assert_eq!(ys.to_vec::<i32>().unwrap(), vec![1, 2, 4, 8]);
    // xs a tuple of leaves with different trailing shapes.
    let a = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
    let b = Array::from_vec(vec![1.0f32, 1.0, 2.0, 2.0, 3.0, 3.0], &[3, 2]);
    let (c, ys) = lax::scan(
        |c: &Array, (a, b): &(Array, Array)| {
            let c = c + &(a * &np::sum(b, None, false));
            (c.clone(), c)
        },
        &Array::scalar(0.0f32),
        &(a, b),
        None,
        false,
    )
    .unwrap();
    assert_eq!(get(&c), vec![2.0 + 8.0 + 18.0]);
    assert_eq!(get(&ys), vec![2.0, 10.0, 28.0]);
}

#[test]
fn grad_of_a_dynamic_while_is_an_error() {
    let f = |x: &Array| {
        lax::while_loop(
            |y: &Array| np::less(y, &Array::scalar(10.0f32)),
            |y: &Array| y * 2.0,
            x,
        )
        .unwrap()
    };
    assert_eq!(get(&f(&Array::scalar(3.0f32))), vec![12.0]);
    let e = grad(f)
        .call(&Array::scalar(3.0f32))
        .unwrap_err()
        .to_string();
    assert!(e.contains("static trip count"), "{e}");
}

/// Weakly typed initial carries (Rust/Python scalars) are promoted as JAX does
/// (`_promote_weak_typed_inputs`): the loop is traced again with the carry converted to what
/// the body returns. Values, dtypes and weak types from JAX 0.10.2:
/// `fori_loop(0, 3, lambda i, x: x + jnp.float16(1.5), 0.0)` → f16 4.5, strong;
/// `while_loop(lambda x: x < 10, lambda x: x + jnp.int8(3), 0)` → i8 12;
/// `fori_loop(0, 3, lambda i, x: x * 2.0, 1.0)` → f32 8, still weak;
/// `fori_loop(0, 3, lambda i, x: x + jnp.float32(1), 1.0)` → f32 4, strong;
/// `scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3, dtype=bf16))` → c bf16 3, ys bf16 [0, 0, 1].
#[test]
fn weak_initial_carries_are_promoted_to_the_body_type() {
    use half::{bf16, f16};
    for under_jit in [false, true] {
        let run = |f: &dyn Fn(&Array) -> Array| -> Array {
            if under_jit {
                jit(|x: &Array| f(x)).call(&Array::scalar(0.0f32)).unwrap()
            } else {
                f(&Array::scalar(0.0f32))
            }
        };
        let a = run(&|_| {
            lax::fori_loop(
                0,
                3,
                |_, x: &Array| x + &Array::scalar(f16::from_f32(1.5)),
                &systolic::weak_float(0.0),
            )
            .unwrap()
        });
        assert_eq!(
            (a.dtype(), a.weak_type()),
            (DType::F16, false),
            "jit {under_jit}"
        );
        assert_eq!(a.to_vec::<f16>().unwrap(), vec![f16::from_f32(4.5)]);

        let b = run(&|_| {
            lax::while_loop(
                |x: &Array| np::less(x, &systolic::weak_int(10)),
                |x: &Array| x + &Array::scalar(3i8),
                &systolic::weak_int(0),
            )
            .unwrap()
        });
        assert_eq!(
            (b.dtype(), b.weak_type()),
            (DType::I8, false),
            "jit {under_jit}"
        );
        assert_eq!(b.to_vec::<i8>().unwrap(), vec![12]);

        let c = run(&|_| {
            lax::fori_loop(0, 3, |_, x: &Array| x * 2.0, &systolic::weak_float(1.0)).unwrap()
        });
        // Under jit the output of the traced function is what JAX's jit returns: weak stays.
        assert_eq!(
            (c.dtype(), c.weak_type()),
            (DType::F32, true),
            "jit {under_jit}"
        );
        assert_eq!(get(&c), vec![8.0]);

        let d = run(&|_| {
            lax::fori_loop(
                0,
                3,
                |_, x: &Array| x + &Array::scalar(1.0f32),
                &systolic::weak_float(1.0),
            )
            .unwrap()
        });
        assert_eq!(
            (d.dtype(), d.weak_type()),
            (DType::F32, false),
            "jit {under_jit}"
        );
        assert_eq!(get(&d), vec![4.0]);

        let xs: Vec<bf16> = (0..3).map(|i| bf16::from_f32(i as f32)).collect();
        let xs = Array::from_vec(xs, &[3]);
        let scanned = |_: &Array| {
            let (c, ys) = lax::scan(
                |c: &Array, x: &Array| (c + x, c.clone()),
                &systolic::weak_float(0.0),
                &xs,
                None,
                false,
            )
            .unwrap();
            np::concatenate(&[&np::reshape(&c, &[1]), &ys], 0)
        };
        let e = run(&scanned);
        assert_eq!(
            (e.dtype(), e.weak_type()),
            (DType::BF16, false),
            "jit {under_jit}"
        );
        let want: Vec<bf16> = [3.0, 0.0, 0.0, 1.0]
            .iter()
            .map(|&v| bf16::from_f32(v))
            .collect();
        assert_eq!(e.to_vec::<bf16>().unwrap(), want);
    }
}
