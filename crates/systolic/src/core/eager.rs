//! Eager execution: an op on concrete arrays runs at once as a single-op executable, compiled
//! once per op signature (kind, attributes, operand and result types, device) and kept in a
//! process-wide cache, so a training loop written eagerly compiles each distinct op once.

use crate::core::body::Body;
use crate::device::client;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::Mutex;
use systolic_ir::{Block, Func, Module, Op, OpKind, Region, ReturnKind, TensorType, Type};
use systolic_runtime::{Buffer, CompileOptions, Device, Executable};

static CACHE: Mutex<Option<HashMap<String, Executable>>> = Mutex::new(None);

/// How many single-op executables are cached (for tests and diagnostics).
///
/// ```
/// let a = systolic::Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// let _ = (&a + &a).to_vec::<f32>().unwrap();
/// assert!(systolic::eager_cache_len() >= 1);
/// ```
pub fn eager_cache_len() -> usize {
    CACHE
        .lock()
        .map(|c| c.as_ref().map_or(0, |m| m.len()))
        .unwrap_or(0)
}

/// A module `@main(operands...) -> results` holding the one op.
pub(crate) fn single_op_module(
    kind: &OpKind,
    operands: &[TensorType],
    bodies: &[Body],
    results: &[TensorType],
) -> Module {
    let mut func = Func::new("main");
    let params: Vec<_> = operands
        .iter()
        .map(|t| func.new_value(Type::Tensor(t.clone()), None))
        .collect();
    let outs: Vec<_> = results
        .iter()
        .map(|t| func.new_value(Type::Tensor(t.clone()), None))
        .collect();
    let regions: Vec<Region> = bodies.iter().map(|b| b.build(&mut func)).collect();
    let mut op = Op::new(kind.clone(), params.clone(), outs.clone());
    op.regions = regions;
    let ret = Op::new(OpKind::Return(ReturnKind::Func), outs, vec![]);
    func.result_types = results.iter().cloned().map(Type::Tensor).collect();
    func.body = Region::single(Block {
        args: params,
        ops: vec![op, ret],
    });
    Module {
        funcs: vec![func],
        ..Module::default()
    }
}

/// Runs one op on `args` (all on `device`). A compilation or execution failure is an error of
/// the op (`stablehlo.add: runtime: …`), since it surfaces later, when a result is read.
pub(crate) fn run(
    kind: &OpKind,
    args: &[&Buffer],
    bodies: &[Body],
    results: &[TensorType],
    device: Device,
) -> Result<Vec<Buffer>> {
    let operand_types: Vec<TensorType> = args.iter().map(|b| b.ty().clone()).collect();
    let key = format!("{device}|{kind:?}|{operand_types:?}|{bodies:?}|{results:?}");
    let cached = CACHE
        .lock()
        .ok()
        .and_then(|c| c.as_ref().and_then(|m| m.get(&key).cloned()));
    let exe = match cached {
        Some(e) => e,
        None => {
            let module = single_op_module(kind, &operand_types, bodies, results);
            let options = CompileOptions {
                device: Some(device),
                ..CompileOptions::no_disk_cache()
            };
            let exe = client()
                .compile(&module, &options)
                .map_err(|e| Error::op(&kind.name(), Error::from(e).to_string()))?;
            if let Ok(mut c) = CACHE.lock() {
                c.get_or_insert_with(HashMap::new).insert(key, exe.clone());
            }
            exe
        }
    };
    exe.execute(args)
        .map_err(|e| Error::op(&kind.name(), Error::from(e).to_string()))
}
