//! Every `lax` collective over a named vmap axis (`vmap(f).axis_name("b")`), eagerly and under
//! `jit`, and gradients through them in both orders — `vmap(grad(f))` and `grad` of the
//! vmapped function summed — against JAX 0.10.2 (`scripts/vmap_collective_goldens.py`) and
//! against central differences.

use serde_json::Value as Json;
use systolic::{grad, jit, jvp, lax, make_mesh, numpy as np, shard_map, vmap, Array, P};
use systolic_ir::DType;

const N: usize = 4;

/// Two host devices (for the shard_map case), set before any test touches a device: every
/// test calls this first, since the process's tests run in any order.
fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| systolic::set_cpu_devices(2).unwrap());
}

fn golden() -> Vec<Json> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/vmap_collectives_jax0.10.2.json"
    );
    let g: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(g["examples"], N);
    g["cases"].as_array().unwrap().clone()
}

fn cases(kind: &str) -> Vec<Json> {
    init();
    let all: Vec<Json> = golden().into_iter().filter(|c| c["kind"] == kind).collect();
    assert!(!all.is_empty(), "no {kind} cases");
    all
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

fn close(got: &Array, want: &Json, what: &str) {
    let shape: Vec<i64> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    assert_eq!(got.shape(), shape.as_slice(), "{what}: shape");
    let g = got.to_vec::<f32>().unwrap();
    for (i, (a, b)) in g.iter().zip(want["data"].as_array().unwrap()).enumerate() {
        let b = b.as_f64().unwrap();
        assert!(
            (*a as f64 - b).abs() <= 2e-5 * (1.0 + b.abs()),
            "{what}: element {i}: got {a}, JAX {b}"
        );
    }
}

/// The per-example collective the script calls `name`, over vmap axis "b".
fn collective(name: &str, x: &Array) -> Array {
    let cycle: Vec<(usize, usize)> = (0..N).map(|i| (i, (i + 1) % N)).collect();
    match name {
        "psum" => lax::psum(x, "b"),
        "pmean" => lax::pmean(x, "b"),
        "pmax" => lax::pmax(x, "b"),
        "pmin" => lax::pmin(x, "b"),
        "all_gather_0" => lax::all_gather(x, "b", 0, false),
        "all_gather_1" => lax::all_gather(x, "b", 1, false),
        "all_gather_tiled" => lax::all_gather(x, "b", 1, true),
        "psum_scatter_tiled" => lax::psum_scatter(x, "b", 0, true),
        "psum_scatter_1" => lax::psum_scatter(x, "b", 1, false),
        "ppermute_cycle" => lax::ppermute(x, "b", &cycle),
        "ppermute_swap" => lax::ppermute(x, "b", &[(0, 3), (3, 0), (1, 2), (2, 1)]),
        "all_to_all_00" => lax::all_to_all(x, "b", 0, 0, false),
        "all_to_all_01" => lax::all_to_all(x, "b", 0, 1, false),
        "all_to_all_10" => lax::all_to_all(x, "b", 1, 0, false),
        "all_to_all_tiled" => lax::all_to_all(x, "b", 1, 0, true),
        "axis_index" => x * &np::astype(&lax::axis_index("b"), DType::F32),
        other => panic!("no collective {other}"),
    }
}

/// The script's per-example loss: nonlinear on both sides of the collective, weighted by `c`.
fn loss(name: &str, x: &Array, c: &Array) -> Array {
    np::sum(
        &(c * &np::sin(&collective(name, &np::tanh(x)))),
        None,
        false,
    )
}

fn name_of(c: &Json) -> String {
    c["name"].as_str().unwrap().to_string()
}

#[test]
fn every_collective_over_a_vmap_axis_matches_jax() {
    for c in cases("forward") {
        let name = name_of(&c);
        let x = array(&c["inputs"][0]);
        let f = {
            let name = name.clone();
            move |x: &Array| collective(&name, x)
        };
        let y = vmap(f.clone()).axis_name("b").call(&x).unwrap();
        close(&y, &c["outputs"][0], &name);
        let jf = jit(move |x: &Array| vmap(f.clone()).axis_name("b").call(x).unwrap());
        close(
            &jf.call(&x).unwrap(),
            &c["outputs"][0],
            &format!("jit {name}"),
        );
    }
}

#[test]
fn unmapped_operands_are_the_same_in_every_example() {
    for c in cases("unmapped") {
        let name = name_of(&c);
        let w = array(&c["inputs"][0]);
        let n2 = name.clone();
        let y = vmap(move |w: &Array| collective(&n2, w))
            .in_axes(None)
            .axis_size(N)
            .axis_name("b")
            .call(&w)
            .unwrap();
        close(&y, &c["outputs"][0], &format!("unmapped {name}"));
    }
    // A psum is the same in every example, so it can leave the vmap unbatched.
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    let y = vmap(|x: &Array| lax::psum(x, "b"))
        .axis_name("b")
        .out_axes(None)
        .call(&x)
        .unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![9.0, 12.0]);
}

/// `vmap(grad(loss))`: per-example gradients whose collectives are transposed per example.
fn vmap_of_grad(name: &str, x: &Array, c: &Array) -> Array {
    let name = name.to_string();
    vmap(move |(x, c): &(Array, Array)| {
        let (name, c) = (name.clone(), c.clone());
        grad(move |x: &Array| loss(&name, x, &c)).call(x).unwrap()
    })
    .axis_name("b")
    .call(&(x.clone(), c.clone()))
    .unwrap()
}

/// The batch total of the vmapped loss (what `grad` of the vmapped function differentiates).
fn total(name: &str, x: &Array, c: &Array) -> Array {
    let name = name.to_string();
    let per = vmap(move |(x, c): &(Array, Array)| loss(&name, x, c))
        .axis_name("b")
        .call(&(x.clone(), c.clone()))
        .unwrap();
    np::sum(&per, None, false)
}

fn grad_of_vmap(name: &str, x: &Array, c: &Array) -> Array {
    let (name, c) = (name.to_string(), c.clone());
    grad(move |x: &Array| total(&name, x, &c)).call(x).unwrap()
}

#[test]
fn vmap_of_grad_matches_jax() {
    for case in cases("grad") {
        let name = name_of(&case);
        let (x, c) = (array(&case["inputs"][0]), array(&case["inputs"][1]));
        close(
            &vmap_of_grad(&name, &x, &c),
            &case["outputs"][0],
            &format!("vmap(grad) {name}"),
        );
        let n2 = name.clone();
        let jf = jit(move |(x, c): &(Array, Array)| vmap_of_grad(&n2, x, c));
        close(
            &jf.call(&(x, c)).unwrap(),
            &case["outputs"][0],
            &format!("jit(vmap(grad)) {name}"),
        );
    }
}

#[test]
fn grad_of_vmap_matches_jax() {
    for case in cases("grad") {
        let name = name_of(&case);
        let (x, c) = (array(&case["inputs"][0]), array(&case["inputs"][1]));
        close(
            &grad_of_vmap(&name, &x, &c),
            &case["outputs"][1],
            &format!("grad(vmap) {name}"),
        );
        let n2 = name.clone();
        let jf = jit(move |(x, c): &(Array, Array)| grad_of_vmap(&n2, x, c));
        close(
            &jf.call(&(x, c)).unwrap(),
            &case["outputs"][1],
            &format!("jit(grad(vmap)) {name}"),
        );
    }
}

/// A deterministic direction in [-1, 1] of `shape`.
fn direction(shape: &[i64], seed: u64) -> Array {
    let n: i64 = shape.iter().product();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let data: Vec<f32> = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect();
    Array::from_vec(data, shape)
}

fn scalar(a: &Array) -> f64 {
    a.to_vec::<f32>().unwrap()[0] as f64
}

/// Both orders of differentiation against central differences of the batch total (f32, as
/// JAX without x64; a step of 1e-2, so truncation and rounding stay near 1e-4), along three
/// directions — including pmax/pmin, whose `grad(vmap)` differentiates the batch
/// reduction (JAX has no rule for them; `vmap(grad)` refuses, tested below).
#[test]
fn gradients_match_central_differences() {
    let forwards = cases("forward");
    for case in &forwards {
        let name = name_of(case);
        let x = array(&case["inputs"][0]);
        let y = vmap({
            let name = name.clone();
            move |x: &Array| collective(&name, x)
        })
        .axis_name("b")
        .call(&x)
        .unwrap();
        let c = direction(y.shape(), 7);
        let differentiable = !matches!(name.as_str(), "pmax" | "pmin");
        let mut grads = vec![("grad(vmap)", grad_of_vmap(&name, &x, &c))];
        if differentiable {
            grads.push(("vmap(grad)", vmap_of_grad(&name, &x, &c)));
        }
        let n2 = name.clone();
        let cc = c.clone();
        let f = jit(move |x: &Array| total(&n2, x, &cc));
        for seed in 0..3 {
            let v = direction(x.shape(), 100 + seed);
            let eps = 1e-2;
            let up = scalar(&f.call(&(&x + &(&v * eps))).unwrap());
            let down = scalar(&f.call(&(&x - &(&v * eps))).unwrap());
            let numeric = (up - down) / (2.0 * eps);
            for (order, g) in &grads {
                let analytic = scalar(&np::sum(&(g * &v), None, false));
                assert!(
                    (analytic - numeric).abs() <= 2e-3 * (1.0 + numeric.abs()),
                    "{order} {name} direction {seed}: {analytic} vs central difference {numeric}"
                );
            }
        }
    }
}

/// Forward mode inside vmap (`vmap(jvp(f))`): each example's tangent, the collective of the
/// tangents, against central differences of the vmapped function along the same tangents.
#[test]
fn vmap_of_jvp_matches_central_differences() {
    for case in cases("forward") {
        let name = name_of(&case);
        if matches!(name.as_str(), "pmax" | "pmin") {
            continue;
        }
        let x = array(&case["inputs"][0]);
        let v = direction(x.shape(), 3);
        let f = move |name: &str, x: &Array| np::sin(&collective(name, &np::tanh(x)));
        let n2 = name.clone();
        let tangent =
            vmap(move |(x, v): &(Array, Array)| jvp(|x: &Array| f(&n2, x), x, v).unwrap().1)
                .axis_name("b")
                .call(&(x.clone(), v.clone()))
                .unwrap();
        let eps = 1e-2;
        let n3 = name.clone();
        let batched = jit(move |x: &Array| {
            let n3 = n3.clone();
            vmap(move |x: &Array| f(&n3, x))
                .axis_name("b")
                .call(x)
                .unwrap()
        });
        let up = batched.call(&(&x + &(&v * eps))).unwrap();
        let down = batched.call(&(&x - &(&v * eps))).unwrap();
        let numeric = (&(&up - &down) / (2.0 * eps)).to_vec::<f32>().unwrap();
        let analytic = tangent.to_vec::<f32>().unwrap();
        assert_eq!(analytic.len(), numeric.len(), "{name}");
        for (i, (a, n)) in analytic.iter().zip(&numeric).enumerate() {
            assert!(
                (a - n).abs() <= 2e-3 * (1.0 + n.abs()),
                "vmap(jvp) {name} element {i}: {a} vs central difference {n}"
            );
        }
    }
}

#[test]
fn pmax_and_pmin_have_no_rule_under_vmap_of_grad() {
    init();
    let x = Array::from_vec(vec![1.0f32, -2.0, 3.0, 0.5], &[4]);
    for name in ["pmax", "pmin"] {
        // The error surfaces where `grad` is called, inside the vmapped function.
        let seen = std::cell::RefCell::new(None);
        vmap(|x: &Array| {
            match grad(move |x: &Array| np::sum(&collective(name, x), None, false)).call(x) {
                Ok(g) => g,
                Err(e) => {
                    *seen.borrow_mut() = Some(e.to_string());
                    x.clone()
                }
            }
        })
        .axis_name("b")
        .call(&x)
        .unwrap();
        let msg = seen
            .into_inner()
            .unwrap_or_else(|| panic!("{name}: vmap(grad) was differentiated"));
        assert!(msg.contains(name) && msg.contains("'b'"), "{msg}");
    }
}

#[test]
fn collectives_over_an_enclosing_vmaps_axis() {
    let case = cases("nested").remove(0);
    let x = array(&case["inputs"][0]);
    let inner = |x: &Array| {
        let f32 = |a: &Array| np::astype(a, DType::F32);
        let gathered = np::sum(&lax::all_gather(x, "o", 0, false), Some(&[0]), false);
        &(&(&(&lax::psum(x, "o") - &lax::pmean(x, "i")) + &f32(&lax::axis_index("o")))
            + &(&f32(&lax::axis_index("i")) * 10.0))
            + &(&gathered * 0.5)
    };
    let f = move |x: &Array| vmap(inner).axis_name("i").call(x).unwrap();
    let y = vmap(f).axis_name("o").call(&x).unwrap();
    close(&y, &case["outputs"][0], "nested");
    let y = jit(move |x: &Array| vmap(f).axis_name("o").call(x).unwrap())
        .call(&x)
        .unwrap();
    close(&y, &case["outputs"][0], "jit nested");
    let loss = |x: &Array| {
        let inside = &lax::psum(x, "o") + &lax::pmean(&(x * x), "i");
        np::sum(&(&np::sin(&inside) * x), None, false)
    };
    let per_example = |x: &Array| grad(loss).call(x).unwrap();
    let g = vmap(move |x: &Array| vmap(per_example).axis_name("i").call(x).unwrap())
        .axis_name("o")
        .call(&x)
        .unwrap();
    close(&g, &case["outputs"][1], "nested vmap(vmap(grad))");
}

/// A partial permutation (JAX's vmap asserts a full one): examples no pair targets get zeros,
/// as ppermute inside shard_map; under grad, examples that sent nothing get zero cotangents.
#[test]
fn partial_ppermute_sends_zeros_to_untargeted_examples() {
    init();
    let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4, 1]);
    let f = |x: &Array| lax::ppermute(x, "b", &[(0, 2), (2, 1)]);
    let y = vmap(f).axis_name("b").call(&x).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 1.0, 0.0]);
    let g = vmap(|x: &Array| {
        grad(|x: &Array| np::sum(&(&f(x) * 2.0), None, false))
            .call(x)
            .unwrap()
    })
    .axis_name("b")
    .call(&x)
    .unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![2.0, 0.0, 2.0, 0.0]);
    // An empty batch has nothing to move.
    let empty = Array::from_vec(Vec::<f32>::new(), &[0, 3]);
    let y = vmap(|x: &Array| lax::ppermute(x, "b", &[]))
        .axis_name("b")
        .call(&empty)
        .unwrap();
    assert_eq!(y.shape(), &[0, 3]);
}

#[test]
fn errors_name_the_axis_and_its_size() {
    init();
    let x = Array::from_vec(vec![0.0f32; 12], &[4, 3]);
    let err = vmap(|x: &Array| lax::psum(x, "c"))
        .axis_name("b")
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(err.contains("'c'") && err.contains("psum"), "{err}");
    let err = vmap(|x: &Array| lax::ppermute(x, "b", &[(0, 1), (1, 4)]))
        .axis_name("b")
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ppermute")
            && err.contains("(1, 4)")
            && err.contains("4 examples")
            && err.contains("'b'"),
        "{err}"
    );
    let err = vmap(|x: &Array| lax::psum_scatter(x, "b", 0, true))
        .axis_name("b")
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("psum_scatter") && err.contains("4 examples of vmap axis 'b'"),
        "{err}"
    );
    let err = vmap(|x: &Array| lax::all_to_all(x, "b", 0, 0, false))
        .axis_name("b")
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("all_to_all") && err.contains("4 examples of vmap axis 'b'"),
        "{err}"
    );
}

/// Collectives over two vmap axes at once: row-major over the axes as listed, a reduction
/// over both, and `grad` through it. (JAX 0.10.2 refuses all_gather over two vmap axes; its
/// expected values are the batch row-major, as inside a shard_map.)
#[test]
fn collectives_over_several_vmap_axes() {
    let case = cases("multi").remove(0);
    let x = array(&case["inputs"][0]);
    let inner = |x: &Array| {
        let f32 = |a: &Array| np::astype(a, DType::F32);
        (
            lax::psum(x, ("o", "i")),
            lax::pmax(x, ("i", "o")),
            f32(&lax::axis_index(("o", "i"))),
            lax::pmean(x, ("o", "i")),
            lax::all_gather(x, ("o", "i"), 0, false),
            lax::all_gather(x, ("i", "o"), 0, true),
        )
    };
    let f = move |x: &Array| vmap(inner).axis_name("i").call(x).unwrap();
    let (sum, max, index, mean, gathered, tiled) = vmap(f).axis_name("o").call(&x).unwrap();
    let want = |k: usize| &case["outputs"][k];
    close(&sum, want(0), "psum over (o, i)");
    close(&max, want(1), "pmax over (i, o)");
    close(&index, want(2), "axis_index over (o, i)");
    close(&mean, want(3), "pmean over (o, i)");
    close(&gathered, want(5), "all_gather over (o, i)");
    close(&tiled, want(6), "tiled all_gather over (i, o)");
    let loss = |x: &Array| {
        let s = lax::psum(&(x * x), ("o", "i"));
        np::sum(&(&np::sin(&s) * x), None, false)
    };
    let per_example = |x: &Array| grad(loss).call(x).unwrap();
    let g = vmap(move |x: &Array| vmap(per_example).axis_name("i").call(x).unwrap())
        .axis_name("o")
        .call(&x)
        .unwrap();
    close(&g, want(4), "vmap(vmap(grad)) of a psum over (o, i)");
    // Collectives without a composed form over a vmap axis and another axis say so.
    let err = vmap(|x: &Array| lax::ppermute(x, ("b", "c"), &[(0, 1)]))
        .axis_name("b")
        .call(&x)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ppermute") && err.contains("one vmap axis"),
        "{err}"
    );
}

/// A shard_map mesh axis and a vmap axis in one collective (a vmap inside the body):
/// the all_reduce over the devices, then the sum over the examples; positions row-major.
#[test]
fn collectives_over_a_mesh_axis_and_a_vmap_axis() {
    let case = cases("mixed").remove(0);
    let x = array(&case["inputs"][0]);
    let mixed = |x: &Array| {
        let index = np::astype(&lax::axis_index(("d", "b")), DType::F32);
        &(&lax::psum(x, ("d", "b")) + &(&index * 100.0)) + &(&lax::pmean(x, ("b", "d")) * 0.5)
    };
    let mesh = make_mesh(&[2], &["d"]).unwrap();
    let f = shard_map(
        move |x: &Array| vmap(mixed).axis_name("b").call(x).unwrap(),
        &mesh,
        P!("d"),
        P!("d"),
    );
    close(&f.call(&x).unwrap(), &case["outputs"][0], "shard_map(vmap)");
}

/// pmax/pmin/psum of int32 examples (JAX reduces integers too).
#[test]
fn integer_reductions_over_a_vmap_axis() {
    let case = cases("int").remove(0);
    let x = np::astype(&array(&case["inputs"][0]), DType::I32);
    let f = |x: &Array| (lax::pmax(x, "b"), lax::pmin(x, "b"), lax::psum(x, "b"));
    let (max, min, sum) = vmap(f).axis_name("b").call(&x).unwrap();
    for (k, (y, what)) in [(max, "pmax"), (min, "pmin"), (sum, "psum")]
        .into_iter()
        .enumerate()
    {
        assert_eq!(y.dtype(), DType::I32, "{what}");
        close(&np::astype(&y, DType::F32), &case["outputs"][k], what);
    }
}

/// A collective over the vmap axis inside a `cond` whose predicate and operand are the same in
/// every example: the branches still depend on the batch (`axis_index`).
#[test]
fn collectives_inside_an_unbatched_cond() {
    let case = cases("cond").remove(0);
    let (x, w) = (array(&case["inputs"][0]), array(&case["inputs"][1]));
    let f = |(x, w): &(Array, Array)| {
        let branch = |w: &Array| {
            let index = np::astype(&lax::axis_index("b"), DType::F32);
            &(w + &index) + &lax::psum(w, "b")
        };
        let p = np::greater(w, &Array::scalar(0.0f32));
        x + &lax::cond(&p, branch, |w: &Array| w.clone(), w).unwrap()
    };
    let y = vmap(f)
        .in_axes([Some(0), None])
        .axis_name("b")
        .call(&(x, w))
        .unwrap();
    close(&y, &case["outputs"][0], "cond");
}

/// Both orders of `grad` through a `fori_loop` whose body holds a psum over the vmap axis
/// (reverse mode recomputes the loop, markers and all, before vmap lowers them).
#[test]
fn gradients_through_a_loop_with_a_psum() {
    let case = cases("loop").remove(0);
    let x = array(&case["inputs"][0]);
    let loss = |x: &Array| {
        let body = |_i: &Array, v: &Array| np::sin(&lax::psum(v, "b")) * 0.5;
        let y = lax::fori_loop(0, 3, body, x).unwrap();
        np::sum(&(&y * x), None, false)
    };
    let vg = vmap(move |x: &Array| grad(loss).call(x).unwrap())
        .axis_name("b")
        .call(&x)
        .unwrap();
    close(&vg, &case["outputs"][0], "vmap(grad) through fori_loop");
    let total = move |x: &Array| {
        let per = vmap(loss).axis_name("b").call(x).unwrap();
        np::sum(&per, None, false)
    };
    let gv = grad(total).call(&x).unwrap();
    close(&gv, &case["outputs"][1], "grad(vmap) through fori_loop");
}
