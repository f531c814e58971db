//! The test harness: batch a function, run it on the reference interpreter on random inputs and
//! compare with the per-example function run on each example and stacked.

#![allow(dead_code)]

pub mod spmd;

use systolic_interp::{Interpreter, Value};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::verify::verify_module;
use systolic_ir::{DType, DTypeKind, Data, Func, Module, Tensor, TensorType, Type};

/// A small deterministic generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Random values: small floats in multiples of 1/8 in [-2.5, 2.5], ints in [-2, 4] (so that
/// indices are sometimes out of range), any unsigned bits, random booleans.
pub fn random(ty: &TensorType, rng: &mut Rng) -> Tensor {
    let n = ty.num_elements();
    let data = match ty.dtype.kind() {
        DTypeKind::Float => Data::Float(
            (0..n)
                .map(|_| (rng.next() % 41) as f64 / 8.0 - 2.5)
                .collect(),
        ),
        DTypeKind::Signed => Data::Int((0..n).map(|_| (rng.next() % 7) as i64 - 2).collect()),
        DTypeKind::Unsigned => Data::UInt((0..n).map(|_| rng.next()).collect()),
        DTypeKind::Bool => Data::Bool((0..n).map(|_| rng.next() & 1 == 1).collect()),
        DTypeKind::Complex => Data::Complex(
            (0..n)
                .map(|_| {
                    let mut part = || (rng.next() % 41) as f64 / 8.0 - 2.5;
                    systolic_ir::Complex64::new(part(), part())
                })
                .collect(),
        ),
    };
    Tensor::new(ty.clone(), data).unwrap()
}

fn concat_data(parts: &[&Data], kind: DTypeKind) -> Data {
    let mut out = Data::zeros(kind, 0);
    for p in parts {
        match (&mut out, p) {
            (Data::Bool(a), Data::Bool(b)) => a.extend(b),
            (Data::Int(a), Data::Int(b)) => a.extend(b),
            (Data::UInt(a), Data::UInt(b)) => a.extend(b),
            (Data::Float(a), Data::Float(b)) => a.extend(b),
            (Data::Complex(a), Data::Complex(b)) => a.extend(b),
            _ => panic!("kind mismatch"),
        }
    }
    out
}

/// Stacks per-example tensors of type `ty` along a new dimension `axis`.
pub fn stack(ts: &[Tensor], ty: &TensorType, axis: usize) -> Tensor {
    let b = ts.len();
    let mut shape = ty.shape.clone();
    shape.insert(axis, b as i64);
    let out_ty = TensorType::new(shape.clone(), ty.dtype);
    let per = ty.num_elements();
    let data = concat_data(
        &ts.iter().map(|t| t.data()).collect::<Vec<_>>(),
        ty.dtype.kind(),
    );
    let outer: usize = ty.shape[..axis].iter().product::<i64>() as usize;
    let inner: usize = ty.shape[axis..].iter().product::<i64>() as usize;
    let mut idx = Vec::with_capacity(per * b);
    for o in 0..outer {
        for e in 0..b {
            for i in 0..inner {
                idx.push(e * per + o * inner + i);
            }
        }
    }
    Tensor::new(out_ty, data.gather(&idx)).unwrap()
}

fn same(a: &Tensor, b: &Tensor) -> bool {
    if a.ty() != b.ty() {
        return false;
    }
    let close = |p: f64, q: f64| {
        (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= 1e-6 * p.abs().max(q.abs())
    };
    match (a.data(), b.data()) {
        (Data::Float(x), Data::Float(y)) => x.iter().zip(y).all(|(p, q)| close(*p, *q)),
        // Parts compared as floats, so a NaN (a failed factorisation's) equals a NaN.
        (Data::Complex(x), Data::Complex(y)) => x
            .iter()
            .zip(y)
            .all(|(p, q)| close(p.re, q.re) && close(p.im, q.im)),
        (x, y) => x == y,
    }
}

fn tensor_ty(t: &Type) -> TensorType {
    t.as_tensor().expect("tensor").clone()
}

/// Batches `entry` of `module` and checks it against per-example runs; returns the batched
/// function.
pub fn check_module(
    module: &Module,
    entry: &str,
    in_axes: &[Option<usize>],
    size: usize,
    out_axes: &[Option<usize>],
    seed: u64,
) -> Func {
    let f = module.func(entry).unwrap();
    let batched = systolic_vmap::vmap_module(module, entry, in_axes, size, out_axes)
        .unwrap_or_else(|e| panic!("{e}"));
    // The module's meshes and attributes stay: Shardy ops name the mesh.
    let mut bm = Module {
        funcs: vec![batched.clone()],
        ..module.clone()
    };
    bm.funcs[0].name = "main".into();
    let text = print_module(&bm);
    if let Err(d) = verify_module(&bm) {
        panic!("batched function does not verify: {d:?}\n{text}");
    }
    // The printed batched function parses back (so the front end can print/compile it).
    parse_module(&text, "batched").unwrap_or_else(|d| panic!("{d}\n{text}"));
    let mut rng = Rng::new(seed);
    let params = f.param_types();
    let mut per_example: Vec<Vec<Value>> = vec![vec![]; size];
    let mut batched_args = vec![];
    for (p, axis) in params.iter().zip(in_axes) {
        let t = tensor_ty(p);
        match axis {
            Some(a) => {
                let xs: Vec<Tensor> = (0..size).map(|_| random(&t, &mut rng)).collect();
                batched_args.push(Value::Tensor(stack(&xs, &t, *a)));
                for (i, x) in xs.into_iter().enumerate() {
                    per_example[i].push(Value::Tensor(x));
                }
            }
            None => {
                let x = random(&t, &mut rng);
                for e in per_example.iter_mut() {
                    e.push(Value::Tensor(x.clone()));
                }
                batched_args.push(Value::Tensor(x));
            }
        }
    }
    let (got, outs) = if spmd::needs_devices(module, entry) {
        // Manual computations over several devices: each run lowered to the per-device
        // programs, the batched one and each example's.
        let tensors = |vs: Vec<Value>| -> Vec<Tensor> {
            vs.into_iter().map(|v| v.into_tensor().unwrap()).collect()
        };
        let got: Vec<Value> = spmd::run_global(&bm, "main", tensors(batched_args))
            .into_iter()
            .map(Value::Tensor)
            .collect();
        let mut outs: Vec<Vec<Tensor>> = vec![vec![]; f.result_types.len()];
        for args in per_example {
            for (j, t) in spmd::run_global(module, entry, tensors(args))
                .into_iter()
                .enumerate()
            {
                outs[j].push(t);
            }
        }
        (got, outs)
    } else {
        let got = Interpreter::new(&bm)
            .call("main", batched_args)
            .unwrap_or_else(|e| panic!("batched run failed: {e}\n{text}"));
        let mut outs: Vec<Vec<Tensor>> = vec![vec![]; f.result_types.len()];
        for args in per_example {
            let r = Interpreter::new(module).call(entry, args).unwrap();
            for (j, v) in r.into_iter().enumerate() {
                outs[j].push(v.into_tensor().unwrap());
            }
        }
        (got, outs)
    };
    for (j, rt) in f.result_types.iter().enumerate() {
        let t = tensor_ty(rt);
        let axis = if out_axes.len() == 1 {
            out_axes[0]
        } else {
            out_axes[j]
        };
        let g = got[j].as_tensor().unwrap();
        match axis {
            Some(a) => {
                let want = stack(&outs[j], &t, a);
                assert!(
                    same(g, &want),
                    "result {j} differs\n got {g:?}\nwant {want:?}\n{text}"
                );
            }
            None => {
                for w in &outs[j] {
                    assert!(same(g, w), "unmapped result {j} differs\n{text}");
                }
            }
        }
    }
    batched
}

pub fn load(name: &str) -> Module {
    let path = format!("{}/tests/programs/{name}.mlir", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    parse_module(&src, &path).unwrap_or_else(|d| panic!("{d}"))
}

pub fn parse(src: &str) -> Module {
    parse_module(src, "test").unwrap_or_else(|d| panic!("{d}"))
}

/// Checks program `name` with every parameter mapped along `in_axis` (None for the ones listed
/// in `unmapped`), at several batch sizes, with results along `out_axis`.
pub fn check(name: &str, in_axes: &[Option<usize>], out_axes: &[Option<usize>]) {
    let m = load(name);
    for (seed, size) in [(1u64, 3usize), (2, 1), (3, 0), (4, 5)] {
        check_module(&m, "main", in_axes, size, out_axes, seed);
    }
}

/// Every combination of mapping each parameter at axis 0, at its last axis, or not at all
/// (except all unmapped), at batch size 3.
pub fn check_all_axes(name: &str) {
    let m = load(name);
    let f = m.func("main").unwrap();
    let ranks: Vec<usize> = f
        .param_types()
        .iter()
        .map(|t| t.as_tensor().unwrap().rank())
        .collect();
    let n = ranks.len();
    let mut count = 0;
    for code in 1..3usize.pow(n as u32) {
        let mut c = code;
        let axes: Vec<Option<usize>> = ranks
            .iter()
            .map(|&r| {
                let k = c % 3;
                c /= 3;
                match k {
                    0 => None,
                    1 => Some(0),
                    _ => Some(r),
                }
            })
            .collect();
        let out_rank = f
            .result_types
            .iter()
            .map(|t| t.as_tensor().unwrap().rank())
            .min()
            .unwrap_or(0);
        for out in [Some(0), Some(out_rank)] {
            check_module(&m, "main", &axes, 3, &[out], 10 + code as u64);
            count += 1;
        }
    }
    assert!(count > 0);
    let _ = DType::F32;
}
