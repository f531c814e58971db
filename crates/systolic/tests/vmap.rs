//! `vmap` in the front end: eagerly, under `jit`, nested, over pytrees, and against JAX's
//! `vmap` on the programs of `data/vmap_jax0.10.2.json` (made by `data/make_vmap_goldens.py`):
//! through the front end where the program can be written with its ops, and for every program
//! by batching JAX's per-example StableHLO with `systolic_vmap` and running it compiled.

use serde_json::Value as Json;
use systolic::{jit, lax, numpy as np, vmap, Array};
use systolic_ir::{DType, Module, Tensor};

fn goldens() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/vmap_jax0.10.2.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn case<'a>(g: &'a Json, name: &str) -> &'a Json {
    g["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no golden case {name}"))
}

fn tensor(j: &Json) -> Tensor {
    let shape: Vec<i64> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let data = j["data"].as_array().unwrap();
    match j["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_f32(
            shape,
            data.iter().map(|x| x.as_f64().unwrap() as f32).collect(),
        ),
        "int32" => Tensor::from_i64(
            shape,
            DType::I32,
            data.iter().map(|x| x.as_i64().unwrap()).collect(),
        )
        .unwrap(),
        other => panic!("dtype {other}"),
    }
}

fn inputs(c: &Json) -> Vec<Array> {
    c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| Array::from_tensor(tensor(j)))
        .collect()
}

fn assert_close(got: &Tensor, want: &Tensor, what: &str) {
    assert_eq!(got.ty(), want.ty(), "{what}: type");
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            (a - b).abs() <= 2e-5 * (1.0 + b.abs()),
            "{what}: element {i}: got {a}, JAX {b}\n got {g:?}\nwant {w:?}"
        );
    }
}

fn check_outputs(c: &Json, outs: &[Array], what: &str) {
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(outs.len(), want.len(), "{what}: number of outputs");
    for (k, (o, w)) in outs.iter().zip(want).enumerate() {
        assert_close(
            &o.to_tensor().unwrap(),
            &tensor(w),
            &format!("{what} output {k}"),
        );
    }
}

fn axes(j: &Json) -> Vec<Option<usize>> {
    match j {
        Json::Array(v) => v.iter().map(|a| a.as_u64().map(|a| a as usize)).collect(),
        a => vec![a.as_u64().map(|a| a as usize)],
    }
}

/// Every golden program: JAX's per-example StableHLO, batched by systolic_vmap, compiled for the
/// CPU and run on the golden inputs, equals JAX's vmap.
#[test]
fn jax_programs_batched_in_ir_match_jax_vmap() {
    let g = goldens();
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let m = systolic_ir::text::parse_module(c["mlir"].as_str().unwrap(), name).unwrap();
        let ins = inputs(c);
        let in_axes = axes(&c["in_axes"]);
        let size = ins
            .iter()
            .zip(&in_axes)
            .find_map(|(x, a)| a.map(|a| x.shape()[a] as usize))
            .unwrap();
        let f = systolic_vmap::vmap_module(&m, "main", &in_axes, size, &axes(&c["out_axes"]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = Module {
            funcs: vec![f],
            ..Module::default()
        };
        let options = systolic_runtime::CompileOptions::no_disk_cache();
        let exe = systolic::client()
            .compile(&module, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let buffers: Vec<_> = ins.iter().map(|a| a.buffer().unwrap()).collect();
        let refs: Vec<_> = buffers.iter().collect();
        let outs: Vec<Array> = exe
            .execute(&refs)
            .unwrap()
            .into_iter()
            .map(|b| Array::from_tensor(b.to_tensor().unwrap()))
            .collect();
        check_outputs(c, &outs, name);
    }
}

/// The gradient of `mean((tanh(x·w + b) - y)²)` for one example, written out.
fn loss_grad((w, b, x, y): &(Array, Array, Array, Array)) -> (Array, Array) {
    let h = np::tanh(&(&np::matmul(x, w) + b));
    let dh = &(&h - y) * (2.0 / 3.0);
    let dz = &dh * &(&(&h * &h) * -1.0 + 1.0);
    let dw = &np::reshape(x, &[4, 1]) * &np::reshape(&dz, &[1, 3]);
    (dw, dz)
}

#[test]
fn per_example_gradients_match_jax() {
    let g = goldens();
    let c = case(&g, "per_example_grads");
    let i = inputs(c);
    let args = (i[0].clone(), i[1].clone(), i[2].clone(), i[3].clone());
    let f = vmap(loss_grad).in_axes([None, None, Some(0), Some(0)]);
    let (dw, db) = f.call(&args).unwrap();
    check_outputs(c, &[dw, db], "eager");
    let jf = jit(|a: &(Array, Array, Array, Array)| {
        vmap(loss_grad)
            .in_axes([None, None, Some(0), Some(0)])
            .call(a)
            .unwrap()
    });
    let (dw, db) = jf.call(&args).unwrap();
    check_outputs(c, &[dw, db], "jit");
}

#[test]
fn batched_matmul_matches_jax() {
    let g = goldens();
    let mm = |(a, b): &(Array, Array)| np::matmul(a, b);
    let c = case(&g, "batched_matmul");
    let i = inputs(c);
    let out = vmap(mm)
        .in_axes([Some(0), None])
        .call(&(i[0].clone(), i[1].clone()))
        .unwrap();
    check_outputs(c, &[out], "batched_matmul");
    let c = case(&g, "batched_matmul_both");
    let i = inputs(c);
    let f = vmap(mm).in_axes([Some(0), Some(1)]).out_axes(1);
    let out = f.call(&(i[0].clone(), i[1].clone())).unwrap();
    check_outputs(c, &[out], "batched_matmul_both");
    let jf = jit(move |a: &(Array, Array)| {
        vmap(mm)
            .in_axes([Some(0), Some(1)])
            .out_axes(1)
            .call(a)
            .unwrap()
    });
    let out = jf.call(&(i[0].clone(), i[1].clone())).unwrap();
    check_outputs(c, &[out], "batched_matmul_both under jit");
}

#[test]
fn batched_indices_match_jax() {
    let g = goldens();
    let c = case(&g, "dynamic_slice");
    let i = inputs(c);
    // JAX's lax.dynamic_slice wraps negative starts (systolic's lax does not): written out.
    let wrap = |s: &Array, n: i32| {
        let neg = np::less(s, &Array::scalar(0i32));
        lax::select(&neg, &(s + &Array::scalar(n)), s)
    };
    let ds = move |(x, s): &(Array, Array)| lax::dynamic_slice(x, &[wrap(s, 6)], &[2]);
    let out = vmap(ds).call(&(i[0].clone(), i[1].clone())).unwrap();
    check_outputs(c, &[out], "dynamic_slice");
    let c = case(&g, "dynamic_update_slice");
    let i = inputs(c);
    let dus = move |(x, s, u): &(Array, Array, Array)| {
        lax::dynamic_update_slice(x, u, &[wrap(s, 4), Array::scalar(0i32)])
    };
    let f = vmap(dus).in_axes([Some(0), Some(0), None]);
    let out = f.call(&(i[0].clone(), i[1].clone(), i[2].clone())).unwrap();
    check_outputs(c, &[out], "dynamic_update_slice");
}

fn rows(n: i64, m: i64) -> Array {
    Array::from_vec((0..n * m).map(|v| v as f32 * 0.5 - 1.0).collect(), &[n, m])
}

#[test]
fn pytrees_axes_and_nesting() {
    let x = rows(3, 4);
    let y = rows(4, 3);
    // Tuple in, tuple out, per-leaf in_axes and out_axes; y mapped along its axis 1.
    let f = |(a, b): &(Array, Array)| (a + b, np::sum(&(a * b), None, false));
    let (s, p) = vmap(f)
        .in_axes([Some(0), Some(1)])
        .out_axes([Some(1), Some(0)])
        .call(&(x.clone(), y.clone()))
        .unwrap();
    assert_eq!(s.shape(), &[4, 3]);
    assert_eq!(p.shape(), &[3]);
    let yt = np::transpose(&y, None);
    let (xs, ys) = (x.to_vec::<f32>().unwrap(), yt.to_vec::<f32>().unwrap());
    let sv = s.to_vec::<f32>().unwrap();
    let pv = p.to_vec::<f32>().unwrap();
    for e in 0..3 {
        let mut dot = 0.0;
        for k in 0..4 {
            assert_eq!(sv[k * 3 + e], xs[e * 4 + k] + ys[e * 4 + k]);
            dot += xs[e * 4 + k] * ys[e * 4 + k];
        }
        assert!((pv[e] - dot).abs() < 1e-5);
    }
    // Vec inputs and nested vmap: an outer product by vmap of vmap.
    let outer = |v: &Vec<Array>| {
        vmap(|w: &Vec<Array>| &w[0] * &w[1])
            .in_axes([None, Some(0)])
            .call(v)
            .unwrap()
    };
    let a = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
    let b = Array::from_vec(vec![10.0f32, 20.0], &[2]);
    let o = vmap(outer)
        .in_axes([Some(0), None])
        .call(&vec![a, b])
        .unwrap();
    assert_eq!(o.shape(), &[3, 2]);
    assert_eq!(
        o.to_vec::<f32>().unwrap(),
        vec![10.0, 20.0, 20.0, 40.0, 30.0, 60.0]
    );
    // vmap of a jitted function, and an unmapped output.
    let jf = jit(|v: &Array| np::sum(v, None, false));
    let f = vmap(|(v, c): &(Array, Array)| (jf.call(v).unwrap(), c * 2.0))
        .in_axes([Some(0), None])
        .out_axes([Some(0), None]);
    let (sums, c2) = f.call(&(x.clone(), Array::scalar(4.0f32))).unwrap();
    assert_eq!(sums.to_vec::<f32>().unwrap(), vec![-1.0, 7.0, 15.0]);
    assert_eq!(c2.to_vec::<f32>().unwrap(), vec![8.0]);
}

#[test]
fn captured_arrays_and_errors() {
    // A closure capturing a concrete array (a captured parameter of the staged function).
    let w = rows(4, 2);
    let f = vmap(|v: &Array| np::matmul(v, &w));
    let out = f.call(&rows(5, 4)).unwrap();
    assert_eq!(out.shape(), &[5, 2]);
    let want = np::matmul(&rows(5, 4), &w).to_vec::<f32>().unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), want);
    // Size-0 batch.
    let out = vmap(|v: &Array| v * 2.0).call(&rows(0, 3)).unwrap();
    assert_eq!(out.shape(), &[0, 3]);
    // Mismatched sizes, out-of-range axes, an output that must be unmapped but is not.
    let add = |(a, b): &(Array, Array)| a + b;
    let e = vmap(add).call(&(rows(3, 2), rows(2, 2))).unwrap_err();
    assert!(e.to_string().contains("mapped sizes differ"), "{e}");
    let e = vmap(|v: &Array| v * 1.0)
        .in_axes(2)
        .call(&rows(3, 2))
        .unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    let e = vmap(|v: &Array| v * 1.0)
        .out_axes(None)
        .call(&rows(3, 2))
        .unwrap_err();
    assert!(e.to_string().contains("out_axes"), "{e}");
    let e = vmap(|v: &Array| v * 1.0)
        .in_axes(None)
        .call(&rows(3, 2))
        .unwrap_err();
    assert!(e.to_string().contains("axis_size"), "{e}");
    let e = vmap(add)
        .in_axes([Some(0)])
        .call(&(rows(3, 2), rows(3, 2)))
        .unwrap_err();
    assert!(e.to_string().contains("in_axes has 1 entries"), "{e}");
}

#[test]
fn vmap_over_prng_keys_equals_each_key_alone() {
    use systolic::random;
    let keys = random::split_array(&random::key(0), 5);
    let normals = vmap(|k: &Array| random::normal(k, &[3], DType::F32))
        .call(&keys)
        .unwrap();
    let splits = vmap(|k: &Array| random::split_array(k, 2))
        .call(&keys)
        .unwrap();
    assert_eq!(normals.shape(), &[5, 3]);
    assert_eq!(splits.shape(), &[5, 2, 2]);
    let (nv, sv) = (
        normals.to_vec::<f32>().unwrap(),
        splits.to_vec::<u32>().unwrap(),
    );
    for (i, k) in random::split(&random::key(0), 5).iter().enumerate() {
        let n = random::normal(k, &[3], DType::F32).to_vec::<f32>().unwrap();
        for (a, b) in nv[i * 3..i * 3 + 3].iter().zip(&n) {
            assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
        }
        let s = random::split_array(k, 2).to_vec::<u32>().unwrap();
        assert_eq!(&sv[i * 4..i * 4 + 4], &s[..]);
    }
}

#[test]
fn closures_capturing_tracers_of_enclosing_traces() {
    // Under jit: the mapped function reads a tracer of the jit trace.
    let f = jit(|(x, w): &(Array, Array)| vmap(|r: &Array| r * w).call(x).unwrap());
    let out = f
        .call(&(rows(2, 3), Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3])))
        .unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        vec![-1.0, -1.0, 0.0, 0.5, 2.0, 4.5]
    );
    // Nested: the inner mapped function reads the outer one's per-example value.
    let a = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let b = Array::from_vec(vec![3.0f32, 4.0, 5.0], &[3]);
    let outer = vmap(|x: &Array| vmap(|y: &Array| x - y).call(&b).unwrap());
    let o = outer.call(&a).unwrap();
    assert_eq!(o.shape(), &[2, 3]);
    assert_eq!(
        o.to_vec::<f32>().unwrap(),
        vec![-2.0, -3.0, -4.0, -1.0, -2.0, -3.0]
    );
    // The same inside jit.
    let j = jit(|(a, b): &(Array, Array)| {
        vmap(|x: &Array| vmap(|y: &Array| x - y).call(b).unwrap())
            .call(a)
            .unwrap()
    });
    assert_eq!(
        j.call(&(a.clone(), b.clone()))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        o.to_vec::<f32>().unwrap()
    );
}

#[test]
#[ignore]
fn timing_of_repeated_eager_calls() {
    let x = rows(64, 32);
    let w = rows(32, 16);
    let f = vmap(|r: &Array| np::tanh(&np::matmul(r, &w)));
    f.call(&x).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..100 {
        f.call(&x).unwrap().block_until_ready().unwrap();
    }
    eprintln!("eager vmap call: {:?}", t.elapsed() / 100);
    let j = jit(|x: &Array| {
        vmap(|r: &Array| np::tanh(&np::matmul(r, &w)))
            .call(x)
            .unwrap()
    });
    j.call(&x).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..100 {
        j.call(&x).unwrap().block_until_ready().unwrap();
    }
    eprintln!("jit(vmap) call: {:?}", t.elapsed() / 100);
}
