//! An MLP training step (784 → 1024 → 1024 → 10, value_and_grad + SGD) jitted with shardings
//! on 8 host devices, against the same step jitted on one device: data parallel (batch split
//! over all 8, weights replicated), and FSDP + tensor parallel on a 4x2 mesh (batch over
//! "data", weights split over "data" and "model"). Prints the median step time of each and the
//! ratio to the one-device step; the losses must agree.
//!
//! `cargo run --release -p systolic --example jit_shardings_step [-- BATCH STEPS]`

use std::time::Instant;
use systolic::{jit, make_mesh, numpy as np, value_and_grad, Array, NamedSharding, Tree, P};

#[derive(Tree, Clone)]
struct Params {
    w1: Array,
    b1: Array,
    w2: Array,
    b2: Array,
    w3: Array,
}

fn init(shape: &[i64], salt: usize) -> Array {
    let n: i64 = shape.iter().product();
    let scale = 1.0 / (shape[0] as f32).sqrt();
    let v = (0..n as usize)
        .map(|i| (((i * 7919 + salt * 104729) % 1000) as f32 / 1000.0 - 0.5) * scale)
        .collect();
    Array::from_vec(v, shape)
}

fn loss(p: &Params, x: &Array, y: &Array) -> Array {
    let h = np::tanh(&(&np::matmul(x, &p.w1) + &p.b1));
    let h = np::tanh(&(&np::matmul(&h, &p.w2) + &p.b2));
    let r = &np::matmul(&h, &p.w3) - y;
    np::mean(&(&r * &r), None, false)
}

fn step((p, x, y): &(Params, Array, Array)) -> (Params, Array) {
    let (x, y) = (x.clone(), y.clone());
    let (l, g) = value_and_grad(move |p: &Params| loss(p, &x, &y))
        .call(p)
        .unwrap();
    let u = |w: &Array, d: &Array| w - &(d * 0.01);
    let next = Params {
        w1: u(&p.w1, &g.w1),
        b1: u(&p.b1, &g.b1),
        w2: u(&p.w2, &g.w2),
        b2: u(&p.b2, &g.b2),
        w3: u(&p.w3, &g.w3),
    };
    (next, l)
}

/// Runs `steps` steps of `f` from `p`; the median seconds per step and the last loss.
fn time<F: Fn(&(Params, Array, Array)) -> systolic::Result<(Params, Array)>>(
    f: F,
    p: Params,
    x: &Array,
    y: &Array,
    steps: usize,
) -> (f64, f32) {
    let mut p = p;
    for _ in 0..3 {
        let (q, l) = f(&(p, x.clone(), y.clone())).unwrap();
        l.block_until_ready().unwrap();
        p = q;
    }
    let mut times = vec![];
    let mut last = 0.0;
    for _ in 0..steps {
        let t = Instant::now();
        let (q, l) = f(&(p, x.clone(), y.clone())).unwrap();
        last = l.to_vec::<f32>().unwrap()[0];
        times.push(t.elapsed().as_secs_f64());
        p = q;
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], last)
}

fn main() {
    systolic::set_cpu_devices(8).unwrap();
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let batch = args.first().copied().unwrap_or(1024) as i64;
    let steps = args.get(1).copied().unwrap_or(10);
    let p = Params {
        w1: init(&[784, 1024], 1),
        b1: Array::from_vec(vec![0.0f32; 1024], &[1024]),
        w2: init(&[1024, 1024], 2),
        b2: Array::from_vec(vec![0.0f32; 1024], &[1024]),
        w3: init(&[1024, 10], 3),
    };
    let x = init(&[batch, 784], 4);
    let y = init(&[batch, 10], 5);

    let single = jit(step);
    let (t1, l1) = time(|a| single.call(a), p.clone(), &x, &y, steps);
    println!("one device      : {:8.2} ms/step  loss {l1:.6}", t1 * 1e3);

    let flat = make_mesh(&[8], &["batch"]).unwrap();
    let rep = NamedSharding::new(&flat, P!()).unwrap();
    let rows = NamedSharding::new(&flat, P!("batch")).unwrap();
    let dp = jit(step)
        .in_shardings(vec![
            rep.clone(),
            rep.clone(),
            rep.clone(),
            rep.clone(),
            rep.clone(),
            rows.clone(),
            rows.clone(),
        ])
        .out_shardings(vec![
            Some(rep.clone()),
            Some(rep.clone()),
            Some(rep.clone()),
            Some(rep.clone()),
            Some(rep.clone()),
            None,
        ]);
    let (t2, l2) = time(|a| dp.call(a), p.clone(), &x, &y, steps);
    println!(
        "8 devices, DP   : {:8.2} ms/step  loss {l2:.6}  ({:.2}x one device)",
        t2 * 1e3,
        t2 / t1
    );

    let mesh = make_mesh(&[4, 2], &["data", "model"]).unwrap();
    let s = |spec| NamedSharding::new(&mesh, spec).unwrap();
    let params_s = vec![
        s(P!("data", "model")),
        s(P!("model")),
        s(P!("model", "data")),
        s(P!("data")),
        s(P!("data", None)),
    ];
    let mut ins: Vec<Option<NamedSharding>> = params_s.iter().cloned().map(Some).collect();
    ins.push(Some(s(P!("data", None))));
    ins.push(Some(s(P!("data", None))));
    let mut outs: Vec<Option<NamedSharding>> = params_s.into_iter().map(Some).collect();
    outs.push(None);
    let fsdp = jit(step).in_shardings(ins).out_shardings(outs);
    let (t3, l3) = time(|a| fsdp.call(a), p, &x, &y, steps);
    println!(
        "8 devices, FSDP+TP: {:6.2} ms/step  loss {l3:.6}  ({:.2}x one device)",
        t3 * 1e3,
        t3 / t1
    );
    for (name, l) in [("DP", l2), ("FSDP+TP", l3)] {
        assert!(
            (l - l1).abs() <= 1e-4 * l1.abs().max(1.0),
            "{name} loss {l} vs one device {l1}"
        );
    }
}
