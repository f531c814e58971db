//! `jit` with shardings on 8 host devices (a 4x2 mesh, "data" × "model"): in/out shardings,
//! sharded arguments, `with_sharding_constraint`, gradients and vmap through constraints, and
//! the errors for shardings that do not fit. Results are compared with the same function
//! jitted without shardings (on one device), and with JAX 0.10.2's goldens
//! (`scripts/jit_shardings_frontend_goldens.py` → `tests/data/jit_shardings/jax0.10.2.json`):
//! the annotations `lower().as_text()` prints, the result shardings, an FSDP + TP MLP's losses.

use serde_json::Value;
use std::sync::Once;
use systolic::{
    device_put, grad, jit, lax, make_mesh, numpy as np, value_and_grad, vmap, Array, Mesh,
    NamedSharding, PartitionSpec, P,
};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| systolic::set_cpu_devices(8).unwrap());
}

/// The mesh of this file (the 2x4 one of the matmul test aside).
fn mesh() -> Mesh {
    init();
    make_mesh(&[4, 2], &["data", "model"]).unwrap()
}

fn ns(spec: PartitionSpec) -> NamedSharding {
    NamedSharding::new(&mesh(), spec).unwrap()
}

fn golden() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/jit_shardings/jax0.10.2.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `((i·a + j·b) mod m − c) / div`, the golden script's inputs (exact in f32).
fn grid(shape: [i64; 2], a: i64, b: i64, m: i64, c: i64, div: f32) -> Array {
    let v = (0..shape[0])
        .flat_map(|i| (0..shape[1]).map(move |j| ((i * a + j * b) % m - c) as f32 / div))
        .collect();
    Array::from_vec(v, &shape)
}

fn values(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn close(got: &[f32], want: &[f32], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: {g} vs {w}"
        );
    }
}

/// Every device's shard has the shape and index range `sharding` gives it, and holds that
/// part of `whole` (row-major values of the global array).
fn check_shards(a: &Array, sharding: &NamedSharding, whole: &[f32]) {
    assert!(
        a.sharding().unwrap().spec() == sharding.spec(),
        "{:?} vs {sharding}",
        a.sharding()
    );
    let shape = a.shape().to_vec();
    let want_shape = sharding.shard_shape(&shape).unwrap();
    let shards = a.addressable_shards();
    assert_eq!(shards.len(), 8);
    for (d, s) in shards.iter().enumerate() {
        assert_eq!(s.data.shape(), want_shape.as_slice(), "device {d}");
        assert_eq!(s.device, sharding.mesh().devices()[d]);
        let piece = values(&s.data);
        let lens: Vec<i64> = s.index.iter().map(|r| r.end - r.start).collect();
        assert_eq!(
            piece.len() as i64,
            lens.iter().product::<i64>(),
            "device {d}"
        );
        for (k, &v) in piece.iter().enumerate() {
            // Element k of the piece (row-major in its box) in the global array.
            let (mut rest, mut flat) = (k as i64, 0);
            for dim in (0..shape.len()).rev() {
                let stride: i64 = shape[dim + 1..].iter().product();
                flat += (s.index[dim].start + rest % lens[dim]) * stride;
                rest /= lens[dim];
            }
            assert_eq!(v, whole[flat as usize], "device {d}, element {k}");
        }
    }
}

/// A matmul under data-parallel, FSDP, tensor-parallel and contraction-split shardings of
/// its operands and result equals the unsharded jit, and each device holds the piece the
/// result's sharding says.
#[test]
fn matmul_under_fsdp_and_tp_shardings_equals_the_unsharded_jit() {
    init();
    let x = grid([16, 32], 7, 3, 11, 5, 8.0);
    let w = grid([32, 8], 3, 5, 13, 6, 32.0);
    let matmul = |(x, w): &(Array, Array)| np::matmul(x, w);
    let want = values(&jit(matmul).call(&(x.clone(), w.clone())).unwrap());
    let cases = [
        // data parallel: rows of x, w whole
        (P!("data"), P!(), P!("data", None)),
        // FSDP: w's contraction dimension split like the batch, gathered for the product
        (P!("data"), P!("data", None), P!("data", None)),
        // tensor parallel: w's columns over model
        (P!(), P!(None, "model"), P!(None, "model")),
        // FSDP + TP
        (P!("data"), P!("data", "model"), P!("data", "model")),
        // the contraction split: partial products summed
        (P!(None, "model"), P!("model", None), P!()),
        // a result laid out across both axes in one dimension
        (P!("data"), P!(None, "model"), P!(("data", "model"))),
    ];
    // The 4x2 mesh and its transpose, 2x4.
    for m in [mesh(), make_mesh(&[2, 4], &["data", "model"]).unwrap()] {
        let ns = |spec: &PartitionSpec| NamedSharding::new(&m, spec.clone()).unwrap();
        for (xs, ws, out) in &cases {
            let what = format!("{m}: x {xs}, w {ws} -> {out}");
            let f = jit(matmul)
                .in_shardings([ns(xs), ns(ws)])
                .out_shardings(ns(out));
            let y = f.call(&(x.clone(), w.clone())).unwrap();
            // Products of multiples of 1/256 summed in any order are exact in f32.
            assert_eq!(values(&y), want, "{what}");
            check_shards(&y, &ns(out), &want);
        }
    }
    // The per-device program of the FSDP case: rows of x, w's rows gathered for the product.
    let fsdp = jit(matmul)
        .in_shardings([ns(P!("data")), ns(P!("data", None))])
        .compile(&(x.clone(), w.clone()))
        .unwrap();
    let text = fsdp.as_text();
    assert!(
        text.contains("%arg0: tensor<4x32xf32>")
            && text.contains("%arg1: tensor<8x8xf32>")
            && text.contains("stablehlo.all_gather"),
        "{text}"
    );
    assert!(fsdp.warnings().is_empty(), "{:?}", fsdp.warnings());
}

/// Without out_shardings a result carries the sharding the partitioner propagated to it, as
/// JAX's do; a committed sharded argument keeps its own sharding; the text JAX prints.
#[test]
fn results_carry_propagated_shardings_and_lower_prints_jax_annotations() {
    init();
    let g = golden();
    let x = grid([8, 16], 7, 3, 11, 5, 8.0);
    let w = grid([16, 4], 3, 5, 13, 6, 32.0);
    let f = |(x, w): &(Array, Array)| {
        let y = np::matmul(x, w);
        let y = lax::with_sharding_constraint(&y, &ns(P!("data", None)));
        (np::tanh(&y), np::sum(&y, None, false))
    };
    let unsharded = jit(f).call(&(x.clone(), w.clone())).unwrap();
    let asked = jit(f)
        .in_shardings([ns(P!("data", None)), ns(P!(None, "model"))])
        .out_shardings([Some(ns(P!("data", "model"))), None]);
    let plain = jit(f);
    let xs = device_put(&x, ns(P!("data", None))).unwrap();
    for (name, out, text) in [
        (
            "in_out",
            asked.call(&(x.clone(), w.clone())).unwrap(),
            asked.lower(&(x.clone(), w.clone())).unwrap().as_text(),
        ),
        (
            "committed",
            plain.call(&(xs.clone(), w.clone())).unwrap(),
            plain.lower(&(xs.clone(), w.clone())).unwrap().as_text(),
        ),
    ] {
        let specs: Vec<String> = [&out.0, &out.1]
            .iter()
            .map(|a| a.sharding().unwrap().spec().to_string())
            .collect();
        let jax_specs: Vec<String> = g["out_specs"][name]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        assert_eq!(specs, jax_specs, "{name}");
        close(&values(&out.0), &values(&unsharded.0), 1e-6, name);
        close(&values(&out.1), &values(&unsharded.1), 1e-5, name);
        let jax_text = g["lowered"][name].as_str().unwrap();
        assert_eq!(
            annotations(&text),
            annotations(jax_text),
            "{name}:\n{text}\nJAX:\n{jax_text}"
        );
    }
}

/// The Shardy annotations of a module's text, in order: the mesh, every `#sdy.sharding<…>`
/// and every constraint's sharding (`<@mesh, […]>`).
fn annotations(text: &str) -> Vec<String> {
    let mut out = vec![];
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("sdy.mesh ") {
            out.push(rest.split(" {").next().unwrap().to_string());
        }
        let mut rest = line;
        while let Some(at) = rest.find("#sdy.sharding<") {
            let tail = &rest[at..];
            let end = tail.find("]>").unwrap() + 2;
            out.push(tail[..end].to_string());
            rest = &tail[end..];
        }
        if let Some(at) = line.find("sdy.sharding_constraint") {
            let tail = &line[at..];
            let start = tail.find('<').unwrap();
            let end = tail.find("]>").unwrap() + 2;
            out.push(format!("constraint {}", &tail[start..end]));
        }
    }
    out
}

/// Constraints in the middle of a program decide how the values between them are held; the
/// results equal the unsharded program's, and an eager constraint is a device_put.
#[test]
fn constraints_in_the_middle() {
    init();
    let x = grid([16, 8], 5, 1, 7, 3, 4.0);
    let w = grid([8, 8], 3, 5, 13, 6, 32.0);
    let f = |(x, w): &(Array, Array)| {
        let h = lax::with_sharding_constraint(&np::matmul(x, w), &ns(P!("data", "model")));
        let h = np::tanh(&h);
        let h = lax::with_sharding_constraint(&h, &ns(P!(None, ("model", "data"))));
        let o = np::matmul(&h, &np::transpose(w, None));
        lax::with_sharding_constraint(&o, &ns(P!("model")))
    };
    let want = values(&jit(f).call(&(x.clone(), w.clone())).unwrap());
    let jf = jit(f);
    let text = jf.lower(&(x.clone(), w.clone())).unwrap().as_text();
    assert_eq!(text.matches("sdy.sharding_constraint").count(), 3, "{text}");
    let y = jf.call(&(x.clone(), w.clone())).unwrap();
    close(&values(&y), &want, 1e-6, "constrained");
    check_shards(&y, &ns(P!("model", None)), &values(&y));
    // Eagerly the constraint splits the array now.
    let e = lax::with_sharding_constraint(&x, &ns(P!("data")));
    assert_eq!(e.sharding().unwrap(), ns(P!("data")));
    check_shards(&e, &ns(P!("data")), &values(&x));
}

/// `P.UNCONSTRAINED` in a constraint leaves the dimension to propagation: it lowers as an
/// open dimension (`{?}`, JAX's text), the other dimension is held as asked, the answer is
/// the unsharded one; jit's in/out shardings and concrete placements refuse it (JAX: "not
/// allowed when passed to in_shardings"), and eagerly it stays whole.
#[test]
fn unconstrained_dimensions_are_left_to_the_compiler() {
    init();
    let x = grid([16, 8], 5, 1, 7, 3, 4.0);
    let free = ns(P!(PartitionSpec::UNCONSTRAINED, "model"));
    let f = |x: &Array| {
        let h = lax::with_sharding_constraint(&(x * 2.0), &free);
        np::tanh(&h)
    };
    let want = values(&jit(|x: &Array| np::tanh(&(x * 2.0))).call(&x).unwrap());
    // The argument split over "data" by rows: propagation keeps that split for the open
    // dimension, so the constrained value is held [data, model].
    let jf = jit(f).in_shardings(ns(P!("data")));
    let text = jf.lower(&x).unwrap().as_text();
    assert!(text.contains(r#"<@mesh, [{?}, {"model"}]>"#), "{text}");
    let y = jf.call(&x).unwrap();
    close(&values(&y), &want, 1e-6, "unconstrained");
    check_shards(&y, &ns(P!("data", "model")), &values(&y));
    for err in [
        jit(|x: &Array| x * 2.0)
            .in_shardings(free.clone())
            .call(&x)
            .unwrap_err()
            .to_string(),
        jit(|x: &Array| x * 2.0)
            .out_shardings(free.clone())
            .call(&x)
            .unwrap_err()
            .to_string(),
        device_put(&x, &free).unwrap_err().to_string(),
    ] {
        assert!(err.contains("UNCONSTRAINED"), "{err}");
    }
    let e = lax::with_sharding_constraint(&x, &free);
    assert_eq!(e.sharding().unwrap(), ns(P!(None, "model")));
    check_shards(&e, &ns(P!(None, "model")), &values(&x));
}

fn mlp_inputs() -> ((Array, Array, Array), (Array, Array)) {
    let x = grid([16, 16], 7, 3, 11, 5, 8.0);
    let y = grid([16, 16], 5, 1, 7, 3, 4.0);
    let w1 = grid([16, 32], 3, 5, 13, 6, 32.0);
    let b1 = Array::from_vec((0..32).map(|j| (j % 5 - 2) as f32 / 16.0).collect(), &[32]);
    let w2 = grid([32, 16], 11, 2, 9, 4, 32.0);
    ((w1, b1, w2), (x, y))
}

type Params = (Array, Array, Array);

fn loss(p: &Params, batch: &(Array, Array)) -> Array {
    let h = np::tanh(&(&np::matmul(&batch.0, &p.0) + &p.1));
    let r = &np::matmul(&h, &p.2) - &batch.1;
    np::mean(&(&r * &r), None, false)
}

fn sgd_step((p, batch): &(Params, (Array, Array))) -> (Params, Array) {
    let b = batch.clone();
    let (l, g) = value_and_grad(move |p: &Params| loss(p, &b))
        .call(p)
        .unwrap();
    let upd = |w: &Array, d: &Array| w - &(d * 0.1);
    ((upd(&p.0, &g.0), upd(&p.1, &g.1), upd(&p.2, &g.2)), l)
}

/// An MLP training step (value_and_grad, then SGD) with FSDP + TP shardings of its
/// parameters and the batch split over "data": the losses and parameters equal the
/// single-device step's over three steps, and JAX's; the parameters stay sharded.
#[test]
fn mlp_training_step_with_fsdp_and_tp_equals_the_single_device_step() {
    init();
    let g = golden();
    let params_s = [
        ns(P!("data", "model")),
        ns(P!("model")),
        ns(P!("model", "data")),
    ];
    let batch_s = [ns(P!("data", None)), ns(P!("data", None))];
    let sharded = jit(sgd_step)
        .in_shardings(params_s.iter().chain(&batch_s).cloned().collect::<Vec<_>>())
        .out_shardings(vec![
            Some(params_s[0].clone()),
            Some(params_s[1].clone()),
            Some(params_s[2].clone()),
            None,
        ]);
    let single = jit(sgd_step);
    let (mut p, batch) = mlp_inputs();
    // Without out_shardings the results take the shardings propagation gives them: JAX's.
    let free = jit(sgd_step)
        .in_shardings(params_s.iter().chain(&batch_s).cloned().collect::<Vec<_>>())
        .call(&(p.clone(), batch.clone()))
        .unwrap();
    let specs: Vec<String> = [&free.0 .0, &free.0 .1, &free.0 .2, &free.1]
        .iter()
        .map(|a| a.sharding().unwrap().spec().to_string())
        .collect();
    let jax_specs: Vec<String> = g["mlp"]["free_out_specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(specs, jax_specs);
    // Each device plans less memory than under the same step with everything replicated.
    let replicated = jit(sgd_step).in_shardings(ns(P!()));
    let (a, b) = (
        sharded.compile(&(p.clone(), batch.clone())).unwrap(),
        replicated.compile(&(p.clone(), batch.clone())).unwrap(),
    );
    assert!(
        a.peak_memory_bytes() * 2 < b.peak_memory_bytes(),
        "{} vs {} bytes",
        a.peak_memory_bytes(),
        b.peak_memory_bytes()
    );
    let mut q = p.clone();
    let mut losses = vec![];
    for step in 0..3 {
        let (np_, l) = sharded.call(&(p, batch.clone())).unwrap();
        let (nq, lq) = single.call(&(q, batch.clone())).unwrap();
        close(&values(&l), &values(&lq), 1e-5, &format!("loss {step}"));
        for (a, b) in [(&np_.0, &nq.0), (&np_.1, &nq.1), (&np_.2, &nq.2)] {
            close(&values(a), &values(b), 1e-5, &format!("params {step}"));
        }
        losses.push(values(&l)[0]);
        p = np_;
        q = nq;
    }
    // One trace for compile, one for the first call: sharded outputs fed back hit the cache.
    assert_eq!(sharded.trace_count(), 2);
    let jax: Vec<f32> = g["mlp"]["losses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    close(&losses, &jax, 1e-5, "losses vs JAX");
    for (a, (s, want)) in [&p.0, &p.1, &p.2].into_iter().zip(
        params_s
            .iter()
            .zip(g["mlp"]["param_sums"].as_array().unwrap()),
    ) {
        assert_eq!(a.sharding().as_ref(), Some(s));
        let sum: f32 = values(a).iter().sum();
        close(
            &[sum],
            &[want.as_f64().unwrap() as f32],
            1e-4,
            "param sum vs JAX",
        );
        assert_eq!(
            a.addressable_shards()[0].data.shape(),
            s.shard_shape(a.shape()).unwrap().as_slice()
        );
    }
}

/// Gradients flow through constraints (their transposes are constraints with the same
/// sharding), under jit and eagerly; vmap keeps them with the batch dimension unsharded.
#[test]
fn grad_and_vmap_through_with_sharding_constraint() {
    init();
    let x = grid([8, 8], 7, 3, 11, 5, 8.0);
    let w = grid([8, 4], 3, 5, 13, 6, 32.0);
    let f = |w: &Array, x: &Array, constrained: bool| {
        let mut h = np::matmul(x, w);
        if constrained {
            h = lax::with_sharding_constraint(&h, &ns(P!("data", "model")));
        }
        np::sum(&np::tanh(&h), None, false)
    };
    let gw = |constrained: bool| {
        move |(w, x): &(Array, Array)| {
            let x = x.clone();
            grad(move |w: &Array| f(w, &x, constrained))
                .call(w)
                .unwrap()
        }
    };
    let want = values(&jit(gw(false)).call(&(w.clone(), x.clone())).unwrap());
    let jg = jit(gw(true));
    let text = jg.lower(&(w.clone(), x.clone())).unwrap().as_text();
    assert!(
        text.matches(r#"sdy.sharding_constraint"#).count() >= 2,
        "forward and transposed constraints: {text}"
    );
    close(
        &values(&jg.call(&(w.clone(), x.clone())).unwrap()),
        &want,
        1e-5,
        "jit(grad)",
    );
    // Eagerly: grad stages the constrained function and runs it on the mesh.
    close(
        &values(&gw(true)(&(w.clone(), x.clone()))),
        &want,
        1e-5,
        "grad",
    );

    // vmap over a leading batch of 2: the constraint gains an unsharded batch dimension.
    let xb = Array::from_vec([values(&x), values(&x)].concat(), &[2, 8, 8]);
    let per = |(w, x): &(Array, Array)| {
        let h = lax::with_sharding_constraint(&np::matmul(x, w), &ns(P!("data")));
        np::tanh(&h)
    };
    let batched = jit(|(w, xb): &(Array, Array)| {
        let w = w.clone();
        vmap(move |x: &Array| per(&(w.clone(), x.clone())))
            .call(xb)
            .unwrap()
    });
    let text = batched.lower(&(w.clone(), xb.clone())).unwrap().as_text();
    assert!(
        text.contains(r#"sdy.sharding_constraint"#) && text.contains(r#"[{?}, {"data"}, {}]"#),
        "{text}"
    );
    let y = batched.call(&(w.clone(), xb.clone())).unwrap();
    let one = values(&jit(per).call(&(w.clone(), x.clone())).unwrap());
    close(&values(&y), &[one.clone(), one].concat(), 1e-6, "vmap");
}

/// A jit with shardings called inside another jit stages its shardings as constraints; a
/// sharded argument's sharding is part of the cache key.
#[test]
fn nested_jit_constrains_and_the_cache_keys_on_shardings() {
    init();
    let x = grid([8, 4], 7, 3, 11, 5, 8.0);
    let inner = jit(|x: &Array| x * 2.0).out_shardings(ns(P!("data", "model")));
    let outer = jit(|x: &Array| &inner.call(x).unwrap() + 1.0);
    // `@mesh` whatever the order the tests staged their meshes in.
    let text = outer.lower(&x).unwrap().as_text();
    assert!(
        text.contains(r#"sdy.sharding_constraint %1 <@mesh, [{"data"}, {"model"}]>"#),
        "{text}"
    );
    let want: Vec<f32> = values(&x).iter().map(|v| v * 2.0 + 1.0).collect();
    assert_eq!(values(&outer.call(&x).unwrap()), want);
    // A mesh staged after the 4x2 one is `@mesh` in its module too, as in JAX.
    let flat = NamedSharding::new(&make_mesh(&[8], &["flat"]).unwrap(), P!("flat")).unwrap();
    let text = jit(move |x: &Array| lax::with_sharding_constraint(x, &flat))
        .lower(&x)
        .unwrap()
        .as_text();
    assert!(
        text.contains(r#"sdy.mesh @mesh = <["flat"=8]>"#)
            && text.contains(r#"sdy.sharding_constraint %arg0 <@mesh, [{"flat"}, {}]>"#),
        "{text}"
    );

    let f = jit(|x: &Array| x * 3.0);
    let rows = device_put(&x, ns(P!("data"))).unwrap();
    let cols = device_put(&x, ns(P!(None, "model"))).unwrap();
    let a = f.call(&rows).unwrap();
    let b = f.call(&cols).unwrap();
    f.call(&rows).unwrap();
    assert_eq!(f.cache_len(), 2);
    assert_eq!(a.sharding().unwrap().spec(), &P!("data", None));
    assert_eq!(b.sharding().unwrap().spec(), &P!(None, "model"));
    assert_eq!(values(&a), values(&b));
}

/// Shardings that do not fit are errors naming the argument or result, its type, the spec and
/// the mesh, in JAX's terms.
#[test]
fn bad_shardings_are_errors_that_name_them() {
    init();
    let m = mesh();
    let x = grid([10, 4], 7, 3, 11, 5, 8.0);
    let y = grid([8, 4], 7, 3, 11, 5, 8.0);
    let double = |x: &Array| x * 2.0;

    // An axis the mesh does not have.
    let e = NamedSharding::new(&m, P!("batch")).unwrap_err().to_string();
    assert!(
        e.contains("no axis 'batch'") && e.contains("'data': 4"),
        "{e}"
    );

    // More dimensions than the argument has.
    let e = jit(double)
        .in_shardings(ns(P!("data", None, None)))
        .call(&y)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("jit(main)") && e.contains("`args`") && e.contains("rank 2"),
        "{e}"
    );

    // A dimension the axes do not divide, argument and result.
    let e = jit(double)
        .in_shardings(ns(P!("data")))
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("dimension 0 of size 10") && e.contains("'data' of size 4"),
        "{e}"
    );
    let e = jit(double)
        .out_shardings(ns(P!(None, ("data", "model"))))
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("result") && e.contains("dimension 1 of size 4"),
        "{e}"
    );

    // A committed argument sharded otherwise than asked.
    let committed = device_put(&y, ns(P!("model"))).unwrap();
    let e = jit(double)
        .in_shardings(ns(P!("data")))
        .call(&committed)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("does not match") && e.contains("PartitionSpec('model')"),
        "{e}"
    );
    // Laid out the same way under another spelling is no mismatch.
    let same = device_put(&y, ns(P!("data", None))).unwrap();
    let ok = jit(double)
        .in_shardings(ns(P!("data")))
        .call(&same)
        .unwrap();
    assert_eq!(values(&ok), values(&(&y * 2.0)));

    // A per-leaf list of the wrong length.
    let e = jit(|(a, b): &(Array, Array)| a + b)
        .in_shardings(vec![ns(P!())])
        .call(&(y.clone(), y.clone()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("1 shardings but there are 2 leaves"), "{e}");

    // A constraint with more dimensions than its value.
    let e = jit(|x: &Array| lax::with_sharding_constraint(x, &ns(P!("data", None, None))))
        .call(&y)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("with_sharding_constraint") && e.contains("rank 2"),
        "{e}"
    );
}

/// A bitcast of a split value is split like it (the partitioner keeps the dimensions it
/// shares with its result; an element-splitting one would stay whole), with sharded
/// arguments alone or asked shardings. (Programs the partitioner refuses run on one device
/// when only their arguments' shardings ask for the mesh, and are an error naming the op
/// when shardings are asked: no front-end op is refused any more to show it.)
#[test]
fn bitcasts_of_split_values_are_split_with_sharded_arguments_or_asked_shardings() {
    init();
    let x = grid([8, 4], 7, 3, 11, 5, 8.0);
    let bits = |x: &Array| lax::bitcast_convert_type(&(x * 2.0), systolic_ir::DType::I32);
    let want = jit(bits).call(&x).unwrap().to_vec::<i32>().unwrap();
    let xs = device_put(&x, ns(P!("data"))).unwrap();
    let y = jit(bits).call(&xs).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), want);
    assert_eq!(y.sharding().unwrap().spec().dim(0), ["data".to_string()]);
    let y = jit(bits).in_shardings(ns(P!("data"))).call(&x).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), want);
    assert_eq!(y.addressable_shards()[0].data.shape(), &[2, 4]);

    // A constraint the mesh axes do not divide holds padded pieces inside; the result comes
    // out replicated, as JAX's do.
    let uneven = grid([10, 4], 7, 3, 11, 5, 8.0);
    let y = jit(|x: &Array| lax::with_sharding_constraint(&(x * 2.0), &ns(P!("data"))))
        .call(&uneven)
        .unwrap();
    let want: Vec<f32> = values(&uneven).iter().map(|v| v * 2.0).collect();
    assert_eq!(values(&y), want);
    assert!(y.sharding().unwrap().is_fully_replicated());
    assert_eq!(y.addressable_shards()[7].data.shape(), &[10, 4]);
}

/// A jit with in_shardings around a shard_map: the manual program takes its argument split as
/// asked (the pieces go straight to the devices) and its result as the out_specs say.
#[test]
fn in_shardings_around_a_shard_map() {
    init();
    let x = grid([8, 4], 7, 3, 11, 5, 8.0);
    let f = jit(|x: &Array| {
        systolic::shard_map(
            |x: &Array| lax::psum(&np::sum(x, Some(&[0][..]), false), "data"),
            &mesh(),
            P!("data", "model"),
            P!("model"),
        )
        .call(x)
        .unwrap()
    })
    .in_shardings(ns(P!("data", "model")));
    let text = f.lower(&x).unwrap().as_text();
    assert!(
        text.contains(
            r#"tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}"#
        ),
        "{text}"
    );
    let y = f.call(&x).unwrap();
    let xs = values(&x);
    let want: Vec<f32> = (0..4)
        .map(|j| (0..8).map(|i| xs[i * 4 + j]).sum())
        .collect();
    close(&values(&y), &want, 1e-6, "column sums");
    assert_eq!(y.sharding().unwrap().spec(), &P!("model"));
}

/// Meshes that differ only in their device order: each call runs on its own mesh's devices
/// (the program compiled for one is not reused for the other), results equal the one-device
/// answer.
#[test]
fn a_mesh_with_its_devices_reordered_is_a_different_program() {
    init();
    let forward = make_mesh(&[8], &["x"]).unwrap();
    let mut devices = forward.devices().to_vec();
    devices.reverse();
    let reversed = Mesh::new(devices, &[8], &["x"]).unwrap();
    let x = Array::from_vec((0..16).map(|v| v as f32).collect(), &[16]);
    let f = jit(|x: &Array| x * 2.0 + 1.0);
    let want: Vec<f32> = (0..16).map(|v| v as f32 * 2.0 + 1.0).collect();
    for mesh in [&forward, &reversed, &forward] {
        let s = NamedSharding::new(mesh, P!("x")).unwrap();
        let y = f.call(&device_put(&x, &s).unwrap()).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), want, "{mesh:?}");
        let shards = y.addressable_shards();
        for (d, shard) in shards.iter().enumerate() {
            // Shard d of a result split like its argument lives on the mesh's device d.
            assert_eq!(shard.device, mesh.devices()[d], "{mesh:?}");
            assert_eq!(
                shard.data.to_vec::<f32>().unwrap(),
                want[2 * d..2 * d + 2],
                "{mesh:?} shard {d}"
            );
        }
    }
}

/// A partly manual shard_map (manual over "model" only) stages open shardings, as JAX writes
/// them (`[{?}, {"model", ?}]`), so the partitioner may split its body over "data" too; the
/// answer is the host's.
#[test]
fn a_partly_manual_shard_map_stages_open_shardings() {
    init();
    let mesh = mesh();
    let x = grid([16, 8], 5, 1, 7, 3, 4.0);
    let w = grid([8, 8], 3, 5, 13, 6, 32.0);
    let block = systolic::shard_map(
        |(x, w): &(Array, Array)| lax::psum(&np::matmul(x, w), "model"),
        &mesh,
        vec![P!(None, "model"), P!("model", None)],
        P!(),
    )
    .axis_names(&["model"]);
    let f = |(x, w): &(Array, Array)| np::tanh(&block.call(&(x.clone(), w.clone())).unwrap());
    let jf = jit(f).in_shardings(vec![Some(ns(P!("data"))), Some(ns(P!("model")))]);
    let text = jf.lower(&(x.clone(), w.clone())).unwrap().as_text();
    assert!(
        text.contains(
            r#"in_shardings=[<@mesh, [{?}, {"model", ?}]>, <@mesh, [{"model", ?}, {?}]>]"#
        ),
        "{text}"
    );
    let want = values(&np::tanh(&np::matmul(&x, &w)));
    close(
        &values(&jf.call(&(x, w)).unwrap()),
        &want,
        1e-5,
        "partly manual",
    );
}
