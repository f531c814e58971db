//! Inlining of `func.call`s (JAX's lowerings call private functions, e.g. a `fori_loop` body)
//! and of `stablehlo.composite`s (by their decomposition), so that the batching rules see one
//! function.

use crate::{Result, VmapError};
use std::collections::HashMap;
use systolic_ir::walk::{clone_op, replace_uses, ValueMap};
use systolic_ir::{Func, Module, Op, OpKind, ValueId};

/// Deepest call nesting inlined before reporting recursion.
const MAX_DEPTH: usize = 64;

/// A copy of `module`'s function `entry` with every `func.call` and `stablehlo.composite` (at
/// any depth) replaced by the body of the function it calls.
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {
///        %0 = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>
///        return %0 : tensor<f32>
///      }
///      func.func private @sq(%y: tensor<f32>) -> tensor<f32> {
///        %0 = stablehlo.multiply %y, %y : tensor<f32>
///        return %0 : tensor<f32>
///      }",
///     "calls",
/// )
/// .unwrap();
/// let f = systolic_vmap::inline_calls(&m, "main").unwrap();
/// let names: Vec<String> = f.body.blocks[0].ops.iter().map(|op| op.kind.name()).collect();
/// assert_eq!(names, ["stablehlo.multiply", "func.return"]);
/// ```
pub fn inline_calls(module: &Module, entry: &str) -> Result<Func> {
    let f = module
        .func(entry)
        .ok_or_else(|| VmapError::new("func", format!("no function @{entry} in the module")))?;
    let mut out = f.clone();
    let mut subst = HashMap::new();
    let mut body = std::mem::take(&mut out.body);
    for b in &mut body.blocks {
        let ops = std::mem::take(&mut b.ops);
        b.ops = inline_ops(module, &mut out, ops, &mut subst, 0)?;
    }
    // Call results may stand for values that are themselves call results: resolve chains.
    let resolved: HashMap<ValueId, ValueId> = subst
        .keys()
        .map(|&k| {
            let mut v = k;
            while let Some(&n) = subst.get(&v) {
                v = n;
            }
            (k, v)
        })
        .collect();
    replace_uses(&mut body, &resolved);
    out.body = body;
    Ok(out)
}

fn inline_ops(
    module: &Module,
    dst: &mut Func,
    ops: Vec<Op>,
    subst: &mut HashMap<ValueId, ValueId>,
    depth: usize,
) -> Result<Vec<Op>> {
    let mut out = vec![];
    for mut op in ops {
        let callee = match &op.kind {
            OpKind::Call { callee } => Some(callee),
            OpKind::Composite { decomposition, .. } => Some(decomposition),
            _ => None,
        };
        if let Some(callee) = callee {
            if depth >= MAX_DEPTH {
                return Err(VmapError::new(
                    "func.call",
                    "calls nested too deep (recursion?)",
                ));
            }
            let g = module.func(callee).ok_or_else(|| {
                VmapError::new(
                    "func.call",
                    format!("calls @{callee}, which is not in the module"),
                )
            })?;
            let block = g
                .body
                .entry()
                .ok_or_else(|| VmapError::new("func.call", format!("@{callee} has no body")))?;
            let mut map = ValueMap::new();
            for (&p, &a) in block.args.iter().zip(&op.operands) {
                map.insert(p, a);
            }
            let mut cloned = vec![];
            let mut returned = vec![];
            for inner in &block.ops {
                if inner.kind.is_terminator() {
                    returned = inner
                        .operands
                        .iter()
                        .map(|&v| map.get(v).unwrap_or(v))
                        .collect();
                    break;
                }
                cloned.push(
                    clone_op(g, inner, dst, &mut map)
                        .map_err(|e| VmapError::new("func.call", e.message))?,
                );
            }
            for (&r, &v) in op.results.iter().zip(&returned) {
                subst.insert(r, v);
            }
            out.extend(inline_ops(module, dst, cloned, subst, depth + 1)?);
            continue;
        }
        for r in &mut op.regions {
            for b in &mut r.blocks {
                let ops = std::mem::take(&mut b.ops);
                b.ops = inline_ops(module, dst, ops, subst, depth)?;
            }
        }
        out.push(op);
    }
    Ok(out)
}
