//! What the partitioner's op-coverage tests share: a global program on a mesh, partitioned
//! and run one interpreter process per device (inputs split and outputs assembled by the
//! `SpmdModule`'s layouts), against the same program run whole on one device; a small seeded
//! generator for property-style tests over random shardings.

use systolic_compiler::passes::{partition, SpmdModule};
use systolic_cpu::{shards, CpuBuffer};
use systolic_interp::{run_programs, Interpreter, Value};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::{OpKind, Tensor};

/// `body` (a `func.func @main …`) in a module on `mesh` (`"data"=4, "model"=2`).
pub fn module(mesh: &str, body: &str) -> String {
    format!("module @m {{\n  sdy.mesh @mesh = <[{mesh}]>\n  {body}\n}}")
}

/// The program run whole on one device.
pub fn reference(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let m = parse_module(text, "ref.mlir").unwrap_or_else(|e| panic!("{e}"));
    let args = inputs.iter().cloned().map(Value::Tensor).collect();
    Interpreter::new(&m)
        .call("main", args)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|v| v.into_tensor().unwrap())
        .collect()
}

/// The partitioned module (panics with the error).
pub fn spmd(text: &str) -> SpmdModule {
    let m = parse_module(text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
    partition(&m, "main").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs the partitioned `text` on one interpreter process per device; the global results
/// and the printed per-device module.
pub fn run_partitioned(text: &str, inputs: &[Tensor]) -> (Vec<Tensor>, String) {
    let spmd = spmd(text);
    let printed = print_module(&spmd.module);
    (run_spmd(&spmd, inputs), printed)
}

/// Runs a per-device program on one interpreter process per device: the global inputs split
/// by its parameters' layouts, the global results assembled by its results' (copies checked
/// to agree).
pub fn run_spmd(spmd: &SpmdModule, inputs: &[Tensor]) -> Vec<Tensor> {
    let printed = || print_module(&spmd.module);
    let per_input: Vec<Vec<CpuBuffer>> = inputs
        .iter()
        .zip(&spmd.params)
        .map(|(x, l)| shards::split(&CpuBuffer::from_tensor(x), l).unwrap())
        .collect();
    let args: Vec<Vec<Value>> = (0..spmd.num_devices)
        .map(|d| {
            per_input
                .iter()
                .map(|p| Value::Tensor(p[d].to_tensor()))
                .collect()
        })
        .collect();
    let programs = vec![vec!["main".to_string(); spmd.num_devices]];
    let results = run_programs(&spmd.module, &programs, args)
        .unwrap_or_else(|e| panic!("{e}\n{}", printed()));
    let outputs: Vec<Vec<CpuBuffer>> = results
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| CpuBuffer::from_tensor(&v.into_tensor().unwrap()))
                .collect()
        })
        .collect();
    (0..spmd.results.len())
        .map(|j| {
            let pieces: Vec<CpuBuffer> = outputs.iter().map(|o| o[j].clone()).collect();
            let (global, differing) = shards::assemble(&pieces, &spmd.results[j]).unwrap();
            assert!(
                differing.is_empty(),
                "result {j}: copies differ: {differing:?}\n{}",
                printed()
            );
            global.to_tensor()
        })
        .collect()
}

/// A JAX golden under `tests/data/<folder>/<name>/` (`module.mlir`, `in*.npy`, JAX's
/// `out*.npy`, 8 devices): made per device by `per_device_program`, run on 8 interpreter
/// processes, each output within `tol` (relative and absolute) of JAX's. The per-device
/// module and its text.
pub fn check_jax_golden(folder: &str, name: &str, tol: f64) -> (SpmdModule, String) {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(folder)
        .join(name);
    let text = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
    let module = parse_module(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let read = |prefix: &str| -> Vec<Tensor> {
        (0..)
            .map(|i| dir.join(format!("{prefix}{i}.npy")))
            .take_while(|p| p.exists())
            .map(|p| systolic_npy::read(&p, None).unwrap())
            .collect()
    };
    let (inputs, want) = (read("in"), read("out"));
    let spmd = systolic_compiler::passes::per_device_program(&module, "main")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .expect("an 8-device program");
    assert_eq!(spmd.num_devices, 8);
    let printed = print_module(&spmd.module);
    let got = run_spmd(&spmd, &inputs);
    assert_eq!(got.len(), want.len());
    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "{name} result {j}");
        for (a, b) in g.to_f64_vec().iter().zip(w.to_f64_vec()) {
            assert!(
                (a - b).abs() <= tol + tol * b.abs(),
                "{name} result {j}: {g:?}\nwant {w:?}\n{printed}"
            );
        }
    }
    (spmd, printed)
}

pub fn close(got: &Tensor, want: &Tensor) -> bool {
    got.shape() == want.shape()
        && got.dtype() == want.dtype()
        && got
            .to_f64_vec()
            .iter()
            .zip(want.to_f64_vec())
            .all(|(g, w)| (g - w).abs() <= 1e-4 + 1e-4 * w.abs())
}

/// The partitioned program against the whole one; returns the per-device module's text.
pub fn check(text: &str, inputs: &[Tensor]) -> String {
    let want = reference(text, inputs);
    let (got, printed) = run_partitioned(text, inputs);
    assert_eq!(got.len(), want.len());
    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            close(g, w),
            "result {j}: {g:?}\nwant {w:?}\n{text}\n{printed}"
        );
    }
    printed
}

/// Deterministic data in [-2, 2).
pub fn data(shape: Vec<i64>, seed: u32) -> Tensor {
    let n: i64 = shape.iter().product();
    let values = (0..n)
        .map(|i| {
            let k = (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(seed * 40503);
            (k % 1000) as f32 / 250.0 - 2.0
        })
        .collect();
    Tensor::from_f32(shape, values)
}

/// Ops of the per-device module (every region) of kind `pred`.
pub fn count(text: &str, pred: fn(&OpKind) -> bool) -> usize {
    let spmd = spmd(text);
    let mut n = 0;
    systolic_ir::walk::walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        n += usize::from(pred(&op.kind))
    });
    n
}

/// A small seeded generator (xorshift) for property-style tests.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A random sharding of a tensor of `rank` over `axes` (each axis on at most one dimension,
/// or none; several axes on one dimension in the order drawn), as `[{...}, ...]`.
pub fn random_sharding(rng: &mut Rng, rank: usize, axes: &[&str]) -> String {
    let mut dims: Vec<Vec<&str>> = vec![vec![]; rank];
    for &a in axes {
        let k = rng.below(rank + 1);
        if k < rank {
            dims[k].push(a);
        }
    }
    sharding_text(&dims)
}

/// The axes of each dimension (major first) as a sharding's dimension list, `[{"x"}, {}]`.
pub fn sharding_text(dims: &[Vec<&str>]) -> String {
    let dims: Vec<String> = dims
        .iter()
        .map(|d| {
            let names: Vec<String> = d.iter().map(|a| format!("\"{a}\"")).collect();
            format!("{{{}}}", names.join(", "))
        })
        .collect();
    format!("[{}]", dims.join(", "))
}
