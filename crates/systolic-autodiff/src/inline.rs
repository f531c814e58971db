//! Inlining `func.call`s (and `stablehlo.composite`s, by their decomposition), so a module as JAX exports it (with private helper functions) can be
//! differentiated as one function. Calls to a function that carries [`crate::REMAT_ATTR`] get
//! their inlined ops marked as one rematerialisation group.

use crate::Error;
use std::collections::HashMap;
use systolic_ir::walk::{clone_region, ValueMap};
use systolic_ir::{find_attr, Attribute, Block, Func, Module, NamedAttr, OpKind, Region, ValueId};

/// Function `name` of `module` with every `func.call` (at any depth) replaced by the callee's
/// body.
pub fn inline_calls(module: &Module, name: &str) -> Result<Func, Error> {
    let f = module
        .func(name)
        .ok_or_else(|| Error::new(format!("no function @{name} in the module")))?;
    let mut out = f.clone();
    let mut group = 1_000_000;
    let mut body = std::mem::take(&mut out.body);
    let mut renames = HashMap::new();
    inline_region(module, &mut out, &mut body, 0, &mut group, &mut renames)?;
    // Resolve chains (a call returning another inlined call's result).
    let keys: Vec<ValueId> = renames.keys().copied().collect();
    for k in keys {
        let mut v = renames[&k];
        let mut steps = 0;
        while let Some(&n) = renames.get(&v) {
            v = n;
            steps += 1;
            if steps > renames.len() {
                break;
            }
        }
        renames.insert(k, v);
    }
    systolic_ir::walk::replace_uses(&mut body, &renames);
    out.body = body;
    Ok(out)
}

fn inline_region(
    module: &Module,
    f: &mut Func,
    region: &mut Region,
    depth: usize,
    group: &mut i64,
    renames: &mut HashMap<ValueId, ValueId>,
) -> Result<(), Error> {
    if depth > 64 {
        return Err(Error::new("calls nested too deeply (recursion?)"));
    }
    for block in &mut region.blocks {
        let mut ops = Vec::with_capacity(block.ops.len());
        for mut op in std::mem::take(&mut block.ops) {
            for r in &mut op.regions {
                inline_region(module, f, r, depth, group, renames)?;
            }
            // Calls, and composites by their decomposition.
            let callee = match &op.kind {
                OpKind::Call { callee } => callee,
                OpKind::Composite { decomposition, .. } => decomposition,
                _ => {
                    ops.push(op);
                    continue;
                }
            };
            let g = module
                .func(callee)
                .ok_or_else(|| Error::new(format!("func.call of unknown function @{callee}")))?;
            let mut map = ValueMap::new();
            let mut cloned =
                clone_region(g, &g.body, f, &mut map).map_err(|e| Error::new(e.message))?;
            inline_region(module, f, &mut cloned, depth + 1, group, renames)?;
            let Some(Block { args, ops: body }) = cloned.blocks.into_iter().next() else {
                return Err(Error::new(format!("@{callee} has no body")));
            };
            let remat = find_attr(&g.attrs, crate::REMAT_ATTR).is_some();
            if remat {
                *group += 1;
            }
            // Parameters become the call's operands, the returned values its results.
            let mut rename = HashMap::new();
            for (a, &v) in args.iter().zip(&op.operands) {
                rename.insert(*a, v);
            }
            let mut body_ops = body;
            let Some(ret) = body_ops.pop() else {
                return Err(Error::new(format!("@{callee} has an empty body")));
            };
            let mut tmp = Region::single(Block {
                args: vec![],
                ops: body_ops,
            });
            systolic_ir::walk::replace_uses(&mut tmp, &rename);
            let mut body_ops = tmp.blocks.pop().map(|b| b.ops).unwrap_or_default();
            if remat {
                for o in &mut body_ops {
                    o.attrs.push(NamedAttr::new(
                        crate::REMAT_ATTR,
                        Attribute::Int(*group, None),
                    ));
                }
            }
            ops.extend(body_ops);
            // Uses of the call's results become uses of the returned values.
            let results: Vec<_> = ret
                .operands
                .iter()
                .map(|v| rename.get(v).copied().unwrap_or(*v))
                .collect();
            renames.extend(op.results.iter().copied().zip(results));
        }
        block.ops = ops;
    }
    Ok(())
}
