//! Batched programs compiled for the CPU: every JAX-exported program of the repository's test
//! data (systolic-ir's and the CLI's), batched by `systolic_vmap` with all parameters mapped,
//! compiled and run on random inputs, equals the per-example program compiled and run on each
//! example, stacked. (The vmap crate checks the same on the interpreter; this checks that the
//! CPU backend runs what vmap emits: gathers and scatters with batching dimensions, loops with
//! selected carries, folded convolutions, …)

use systolic::Array;
use systolic_ir::text::parse_module;
use systolic_ir::{DTypeKind, Data, Module, Tensor, TensorType, Type};
use systolic_runtime::CompileOptions;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn random(ty: &TensorType, rng: &mut Rng) -> Tensor {
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

/// Stacks tensors along a new leading dimension.
fn stack(ts: &[Tensor]) -> Tensor {
    let mut shape = ts[0].shape().to_vec();
    shape.insert(0, ts.len() as i64);
    let ty = TensorType::new(shape, ts[0].dtype());
    let data = match ts[0].data() {
        Data::Bool(_) => Data::Bool(
            ts.iter()
                .flat_map(|t| match t.data() {
                    Data::Bool(v) => v.clone(),
                    _ => unreachable!(),
                })
                .collect(),
        ),
        Data::Int(_) => Data::Int(
            ts.iter()
                .flat_map(|t| match t.data() {
                    Data::Int(v) => v.clone(),
                    _ => unreachable!(),
                })
                .collect(),
        ),
        Data::UInt(_) => Data::UInt(
            ts.iter()
                .flat_map(|t| match t.data() {
                    Data::UInt(v) => v.clone(),
                    _ => unreachable!(),
                })
                .collect(),
        ),
        Data::Float(_) => Data::Float(
            ts.iter()
                .flat_map(|t| match t.data() {
                    Data::Float(v) => v.clone(),
                    _ => unreachable!(),
                })
                .collect(),
        ),
        Data::Complex(_) => Data::Complex(
            ts.iter()
                .flat_map(|t| match t.data() {
                    Data::Complex(v) => v.clone(),
                    _ => unreachable!(),
                })
                .collect(),
        ),
    };
    Tensor::new(ty, data).unwrap()
}

fn run(module: &Module, args: &[Tensor]) -> Vec<Tensor> {
    let exe = systolic::client()
        .compile(module, &CompileOptions::no_disk_cache())
        .unwrap_or_else(|e| panic!("{e}"));
    let arrays: Vec<Array> = args.iter().map(|t| Array::from_tensor(t.clone())).collect();
    let buffers: Vec<_> = arrays.iter().map(|a| a.buffer().unwrap()).collect();
    let refs: Vec<_> = buffers.iter().collect();
    exe.execute(&refs)
        .unwrap()
        .into_iter()
        .map(|b| b.to_tensor().unwrap())
        .collect()
}

fn same(a: &Tensor, b: &Tensor) -> bool {
    a.ty() == b.ty()
        && match (a.data(), b.data()) {
            (Data::Float(x), Data::Float(y)) => x.iter().zip(y).all(|(p, q)| {
                (p.is_nan() && q.is_nan())
                    || p == q
                    || (p - q).abs() <= 1e-4 * (1.0 + p.abs().max(q.abs()))
            }),
            (x, y) => x == y,
        }
}

fn programs() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut out = vec![];
    for e in std::fs::read_dir(format!("{root}/systolic-ir/tests/data")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "mlir") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    for e in std::fs::read_dir(format!("{root}/systolic-cli/tests/data")).unwrap() {
        let p = e.unwrap().path().join("module.mlir");
        if p.exists() {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn batched_repository_programs_run_compiled() {
    let size = 3;
    let mut checked = 0;
    let mut failures = vec![];
    for (path, src) in programs() {
        let Ok(m) = parse_module(&src, &path) else {
            continue;
        };
        let Some(f) = m.func("main") else { continue };
        let types: Vec<TensorType> = match f
            .param_types()
            .iter()
            .map(|t| t.as_tensor().cloned())
            .collect::<Option<Vec<_>>>()
        {
            Some(t) if !t.is_empty() => t,
            _ => continue,
        };
        if f.result_types.iter().any(|t| !matches!(t, Type::Tensor(_))) {
            continue;
        }
        let axes = vec![Some(0); types.len()];
        let Ok(batched) = systolic_vmap::vmap_module(&m, "main", &axes, size, &[Some(0)]) else {
            continue; // no rule (opaque custom calls): the vmap crate's tests check the error
        };
        let mut bm = Module {
            funcs: vec![batched],
            ..Module::default()
        };
        bm.funcs[0].name = "main".into();
        let mut entry = m.clone();
        // Per-example runs compile the program itself (its other functions are called).
        entry.funcs.iter_mut().for_each(|g| {
            if g.name == "main" {
                g.visibility = systolic_ir::Visibility::Public;
            }
        });
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let per: Vec<Vec<Tensor>> = (0..size)
            .map(|_| types.iter().map(|t| random(t, &mut rng)).collect())
            .collect();
        let batched_args: Vec<Tensor> = (0..types.len())
            .map(|i| stack(&per.iter().map(|p| p[i].clone()).collect::<Vec<_>>()))
            .collect();
        let got = std::panic::catch_unwind(|| run(&bm, &batched_args));
        let want =
            std::panic::catch_unwind(|| per.iter().map(|p| run(&entry, p)).collect::<Vec<_>>());
        match (got, want) {
            (Ok(got), Ok(want)) => {
                for (j, g) in got.iter().enumerate() {
                    let w = stack(&want.iter().map(|o| o[j].clone()).collect::<Vec<_>>());
                    if !same(g, &w) {
                        failures.push(format!("{path}: result {j} differs"));
                    }
                }
                checked += 1;
            }
            (Err(_), Ok(_)) => failures.push(format!("{path}: the batched program failed")),
            _ => {} // the program itself does not run compiled: not vmap's concern
        }
    }
    eprintln!("{checked} batched programs checked on the CPU");
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(checked >= 40, "only {checked} programs checked");
}
