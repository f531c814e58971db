//! The driver: batches a function's signature, walks its body op by op and hands each op to its
//! rule; copies ops none of whose inputs are batched.

use crate::builder::{BVal, Cx};
use crate::rules;
use crate::{Result, VmapError};
use std::collections::HashSet;
use systolic_ir::walk::walk_ops;
use systolic_ir::{Block, Func, Module, Op, Region, Type, ValueId};

/// Batches `func`: parameter `i` gets a batch dimension of size `axis_size` at `in_axes[i]`
/// (`None`: not mapped, shared by all examples); result `j` has its batch dimension at
/// `out_axes[j]` (`None`: the result must not depend on a mapped input). `out_axes` may have one
/// entry, used for every result.
///
/// Ops that depend on no mapped value are copied unchanged; the others go through their
/// batching rule. An op that has no rule, or a case a rule does not support, is an error naming
/// the op.
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
///        %z = stablehlo.constant dense<0.0> : tensor<f32>
///        %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0]
///             : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
///        return %s : tensor<f32>
///      }",
///     "sum",
/// )
/// .unwrap();
/// let f = systolic_vmap::vmap(&m.funcs[0], &[Some(1)], 3, &[Some(0)]).unwrap();
/// assert_eq!(f.param_types()[0].to_string(), "tensor<4x3xf32>");
/// assert_eq!(f.result_types[0].to_string(), "tensor<3xf32>");
/// ```
pub fn vmap(
    func: &Func,
    in_axes: &[Option<usize>],
    axis_size: usize,
    out_axes: &[Option<usize>],
) -> Result<Func> {
    vmap_named(func, in_axes, axis_size, out_axes, None)
}

/// [`vmap`] over an axis called `axis_name` (JAX's `vmap(f, axis_name="b")`): the
/// `systolic.batch_collective` markers over that name in `func` (`lax::psum(x, "b")` staged
/// by the front end) become the same collective across the batch dimension
/// ([`systolic_ir::batch_collective`]).
pub fn vmap_named(
    func: &Func,
    in_axes: &[Option<usize>],
    axis_size: usize,
    out_axes: &[Option<usize>],
    axis_name: Option<&str>,
) -> Result<Func> {
    let sig_err = |m: String| VmapError::new("func", m);
    let params = func.params().to_vec();
    if in_axes.len() != params.len() {
        return Err(sig_err(format!(
            "@{} has {} parameters but in_axes has {} entries",
            func.name,
            params.len(),
            in_axes.len()
        )));
    }
    let block = func
        .body
        .entry()
        .ok_or_else(|| sig_err(format!("@{} has no body", func.name)))?;
    let mut cx = Cx::new(func, axis_size as i64);
    cx.axis_name = axis_name.map(str::to_string);
    let mut args = vec![];
    for (i, (&p, &axis)) in params.iter().zip(in_axes).enumerate() {
        let ty = func.value_type(p).clone();
        let (ty, bdim) = match (axis, &ty) {
            (None, _) => (ty, None),
            (Some(a), Type::Tensor(t)) => {
                if a > t.rank() {
                    return Err(sig_err(format!(
                        "in_axes[{i}] = {a} is out of range for parameter {i} of type {t}"
                    )));
                }
                (Type::Tensor(cx.batched_type(t, a)), Some(a))
            }
            (Some(_), other) => {
                return Err(sig_err(format!(
                    "parameter {i} has type {other}, which cannot be mapped"
                )))
            }
        };
        let v = cx.func.new_value(ty, func.values[p.index()].name.clone());
        args.push(v);
        cx.map.insert(p, BVal { v, bdim });
    }
    let (ops, outs) = cx.in_block(|cx| {
        let outs = cx.run_ops(block)?;
        cx.context = "func".into();
        if out_axes.len() != outs.len() && out_axes.len() != 1 {
            return Err(cx.err(format!(
                "@{} has {} results but out_axes has {} entries",
                func.name,
                outs.len(),
                out_axes.len()
            )));
        }
        let mut values = vec![];
        for (j, b) in outs.iter().enumerate() {
            let axis = if out_axes.len() == 1 {
                out_axes[0]
            } else {
                out_axes[j]
            };
            match axis {
                None if b.batched() => {
                    return Err(cx.err(format!(
                        "result {j} depends on a mapped input but out_axes[{j}] is None"
                    )))
                }
                None => values.push(b.v),
                Some(a) => {
                    let rank = cx.func.value_type(b.v).as_tensor().map_or(0, |t| t.rank());
                    let rank = if b.batched() { rank } else { rank + 1 };
                    if a >= rank {
                        return Err(cx.err(format!(
                            "out_axes[{j}] = {a} is out of range for a batched result of rank {rank}"
                        )));
                    }
                    values.push(cx.materialize(*b, a)?);
                }
            }
        }
        Ok(values)
    })?;
    cx.ops = ops;
    let mut out = cx.builder.into_func(args, outs);
    out.visibility = func.visibility;
    out.attrs = func.attrs.clone();
    out.loc = func.loc.clone();
    Ok(out)
}

/// [`vmap`] of function `entry` of `module`, with the functions it calls (and the
/// decompositions of its composites) inlined first (JAX's lowerings call private functions).
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
///        %0 = func.call @double(%x) : (tensor<2xf32>) -> tensor<2xf32>
///        return %0 : tensor<2xf32>
///      }
///      func.func private @double(%y: tensor<2xf32>) -> tensor<2xf32> {
///        %0 = stablehlo.add %y, %y : tensor<2xf32>
///        return %0 : tensor<2xf32>
///      }",
///     "calls",
/// )
/// .unwrap();
/// let f = systolic_vmap::vmap_module(&m, "main", &[Some(0)], 4, &[Some(0)]).unwrap();
/// assert_eq!(f.result_types[0].to_string(), "tensor<4x2xf32>");
/// ```
pub fn vmap_module(
    module: &Module,
    entry: &str,
    in_axes: &[Option<usize>],
    axis_size: usize,
    out_axes: &[Option<usize>],
) -> Result<Func> {
    let f = crate::inline::inline_calls(module, entry)?;
    vmap(&f, in_axes, axis_size, out_axes)
}

impl Cx<'_> {
    /// Batches the ops of `block` (whose arguments must already be mapped) into the block under
    /// construction; returns what its terminator returns.
    pub(crate) fn run_ops(&mut self, block: &Block) -> Result<Vec<BVal>> {
        for op in &block.ops {
            if op.kind.is_terminator() {
                return op.operands.iter().map(|&v| self.lookup(v)).collect();
            }
            self.run_op(op)?;
        }
        Err(self.err("a block has no terminator"))
    }

    /// Batches a block with the given arguments into a new region; returns the ops (without
    /// terminator) and the returned values, so that the caller can still adjust them.
    pub(crate) fn run_region(
        &mut self,
        region: &Region,
        args: &[BVal],
    ) -> Result<(Vec<Op>, Vec<BVal>)> {
        let block = region
            .entry()
            .ok_or_else(|| self.err("a region has no block"))?;
        if block.args.len() != args.len() {
            return Err(self.err("internal: region argument count"));
        }
        for (&a, &b) in block.args.iter().zip(args) {
            self.map.insert(a, b);
        }
        self.in_block(|cx| cx.run_ops(block))
    }

    fn run_op(&mut self, op: &Op) -> Result<()> {
        self.context = op.kind.name();
        let args: Vec<BVal> = op
            .operands
            .iter()
            .map(|&v| self.lookup(v))
            .collect::<Result<_>>()?;
        let captures_batched = !op.regions.is_empty() && self.regions_capture_batched(op);
        // A collective over the named axis depends on the batch even when its operands do not
        // (`axis_index`, a psum of an unmapped value).
        let named_collective = systolic_ir::batch_collective::read(&op.kind).is_some();
        // A function with a custom rule whose opening barrier was batched closes batched.
        let custom_close = rules::closes_batched(self, op);
        let results = if args.iter().all(|a| !a.batched())
            && !captures_batched
            && !named_collective
            && !custom_close
        {
            self.copy_op(op, &args)?
        } else {
            rules::batch(self, op, &args, captures_batched)?
        };
        if results.len() != op.results.len() {
            return Err(self.err("internal: a rule returned the wrong number of results"));
        }
        for (&r, b) in op.results.iter().zip(results) {
            self.map.insert(r, b);
        }
        Ok(())
    }

    /// Copies an op none of whose inputs is batched (its regions are copied the same way).
    fn copy_op(&mut self, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
        let mut regions = vec![];
        for r in &op.regions {
            regions.push(self.copy_unbatched_region(r)?);
        }
        let results: Vec<ValueId> = op
            .results
            .iter()
            .map(|&r| {
                let def = &self.src.values[r.index()];
                self.func.new_value(def.ty.clone(), def.name.clone())
            })
            .collect();
        let mut new = op.clone();
        new.operands = args.iter().map(|a| a.v).collect();
        new.results = results.clone();
        new.regions = regions;
        self.ops.push(new);
        Ok(results.into_iter().map(BVal::un).collect())
    }

    /// Copies a region whose values are all unbatched.
    pub(crate) fn copy_unbatched_region(&mut self, r: &Region) -> Result<Region> {
        let saved = self.context.clone();
        let mut blocks = vec![];
        for b in &r.blocks {
            let args: Vec<BVal> = b
                .args
                .iter()
                .map(|&a| {
                    let def = &self.src.values[a.index()];
                    BVal::un(self.func.new_value(def.ty.clone(), def.name.clone()))
                })
                .collect();
            for (&a, &n) in b.args.iter().zip(&args) {
                self.map.insert(a, n);
            }
            let (mut ops, outs) = self.in_block(|cx| cx.run_ops(b))?;
            if outs.iter().any(BVal::batched) {
                return Err(self.err("internal: a copied region became batched"));
            }
            let term = b.ops.last().expect("run_ops checked the terminator");
            let mut t = term.clone();
            t.operands = outs.iter().map(|o| o.v).collect();
            ops.push(t);
            blocks.push(Block {
                args: args.iter().map(|a| a.v).collect(),
                ops,
            });
        }
        self.context = saved;
        Ok(Region { blocks })
    }

    /// True when an op's regions use a batched value defined outside them, or hold a
    /// collective over this vmap's axis.
    fn regions_capture_batched(&self, op: &Op) -> bool {
        let mut defined = HashSet::new();
        let mut used = vec![];
        // A collective over this vmap's axis inside makes the regions depend on the batch
        // even when nothing they capture does (`axis_index` under an unbatched `cond`).
        let mut named_collective = false;
        for r in &op.regions {
            walk_ops(r, &mut |o, _| {
                named_collective |= systolic_ir::batch_collective::read(&o.kind)
                    .is_some_and(|m| self.axis_name.as_deref() == Some(m.axis_name.as_str()));
                defined.extend(o.results.iter().copied());
                for reg in &o.regions {
                    for b in &reg.blocks {
                        defined.extend(b.args.iter().copied());
                    }
                }
                used.extend(o.operands.iter().copied());
            });
            for b in &r.blocks {
                defined.extend(b.args.iter().copied());
            }
        }
        named_collective
            || used
                .iter()
                .filter(|v| !defined.contains(v))
                .any(|v| self.map.get(v).is_some_and(BVal::batched))
    }
}
