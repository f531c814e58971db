//! Running a global program that may hold `sdy.manual_computation`s on global arrays: on the
//! interpreter when every manual axis has size 1 (it runs such bodies inline), else lowered by
//! `lower_manual_computations` and run on one interpreter process per device, the inputs
//! split and the results assembled by the lowered entry's layouts.

use std::ops::Range;
use systolic_compiler::passes::lower_manual_computations::lower_manual_computations;
use systolic_interp::{run_programs, Interpreter, Value};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Module, OpKind, ShardLayout, Tensor, TensorType};

/// True when `entry` holds a manual computation over an axis of more than one device.
pub fn needs_devices(module: &Module, entry: &str) -> bool {
    let Some(f) = module.func(entry) else {
        return false;
    };
    let mut found = false;
    walk_ops(&f.body, &mut |op, _| {
        if let OpKind::ManualComputation(a) = &op.kind {
            let mesh = a
                .mesh_name()
                .and_then(|n| module.meshes.iter().find(|m| m.name == n));
            found |= a.check_single_device(mesh).is_err();
        }
    });
    found
}

/// Row-major flat indices of the block `ranges` of an array of `shape`.
fn block_indices(shape: &[i64], ranges: &[Range<i64>]) -> Vec<usize> {
    let mut out = vec![0usize];
    for (d, r) in ranges.iter().enumerate() {
        let stride: i64 = shape[d + 1..].iter().product();
        out = out
            .iter()
            .flat_map(|&base| r.clone().map(move |i| base + (i * stride) as usize))
            .collect();
    }
    out
}

/// Device `d`'s piece of `global`.
pub fn piece(global: &Tensor, layout: &ShardLayout, d: usize) -> Tensor {
    let ranges = layout.piece(d).expect("every device holds a piece");
    let shape: Vec<i64> = ranges.iter().map(|r| r.end - r.start).collect();
    let data = global.data().gather(&block_indices(global.shape(), ranges));
    Tensor::new(TensorType::new(shape, global.dtype()), data).unwrap()
}

/// The global array from the devices' pieces; copies must agree bit for bit.
pub fn assemble(pieces: &[Tensor], layout: &ShardLayout, shape: &[i64]) -> Tensor {
    let n: usize = shape.iter().product::<i64>() as usize;
    let mut bits: Vec<Option<u64>> = vec![None; n];
    for (d, p) in pieces.iter().enumerate() {
        let ranges = layout.piece(d).unwrap();
        for (k, i) in block_indices(shape, ranges).into_iter().enumerate() {
            let b = p.bits(k);
            match bits[i] {
                None => bits[i] = Some(b),
                Some(v) => assert_eq!(v, b, "copies disagree at element {i} (device {d})"),
            }
        }
    }
    let bits: Vec<u64> = bits.into_iter().map(|v| v.expect("covered")).collect();
    Tensor::from_bits(TensorType::new(shape.to_vec(), pieces[0].dtype()), &bits).unwrap()
}

/// `entry` of `module` on global `inputs`; its global results.
pub fn run_global(module: &Module, entry: &str, inputs: Vec<Tensor>) -> Vec<Tensor> {
    if !needs_devices(module, entry) {
        return Interpreter::new(module)
            .call(entry, inputs.into_iter().map(Value::Tensor).collect())
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|v| v.into_tensor().unwrap())
            .collect();
    }
    let spmd = lower_manual_computations(module, entry).unwrap_or_else(|e| panic!("{e}"));
    let n = spmd.num_devices;
    let args: Vec<Vec<Value>> = (0..n)
        .map(|d| {
            inputs
                .iter()
                .zip(&spmd.params)
                .map(|(x, l)| Value::Tensor(piece(x, l, d)))
                .collect()
        })
        .collect();
    let programs = vec![vec![entry.to_string(); n]];
    let results = run_programs(&spmd.module, &programs, args)
        .unwrap_or_else(|e| panic!("{e}\n{}", systolic_ir::text::print_module(&spmd.module)));
    let f = module.func(entry).unwrap();
    (0..spmd.results.len())
        .map(|j| {
            let pieces: Vec<Tensor> = results
                .iter()
                .map(|r| r[j].clone().into_tensor().expect("a tensor"))
                .collect();
            let global = f.result_types[j].as_tensor().unwrap().shape.clone();
            assemble(&pieces, &spmd.results[j], &global)
        })
        .collect()
}
