//! Control flow on pieces: `while`, `if` and `case` keep their structure, their regions
//! partitioned by the same op-by-op machinery as the entry (a nested partition of each
//! region, in the plan's pre-order).
//!
//! Propagation treats these ops as data-flow edges (operand, body return, region arguments
//! and result `i` held alike), so every loop-carried value has one layout, the *carry*: how
//! the plan holds the op's result. Operands are converted to it before the op, each region
//! returns its values converted to it, and a region argument the plan holds otherwise is
//! converted at the top of its region. Values of enclosing regions are used in place
//! (a region sees its ancestors' values); what a region converts stays inside it.

use super::OpPlan;
use super::{located, Held, Local, Partitioner};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Block, Op, OpKind, Region, TensorType, Type, ValueId};

/// How one region's arguments arrive and its returned values leave.
struct RegionIo {
    /// Per block argument: how it arrives (empty for branches, which take none).
    args: Vec<Held>,
    /// Per returned value: how it must leave (`None`: as it is held, for a condition's
    /// predicate, which is a scalar).
    returns: Vec<Option<Held>>,
}

impl<'a> Partitioner<'a> {
    /// `stablehlo.while`: the carry in each result's planned layout; the condition and the
    /// body partitioned with their arguments arriving so and the body's results leaving so.
    pub(super) fn while_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        let mut carry = vec![];
        let mut operands = vec![];
        for (i, (&r, &x)) in op.results.iter().zip(&op.operands).enumerate() {
            let global = self.global_type(r, &located(op, &format!("carried value {i}")))?;
            let held = self.planned(r, &global)?;
            operands.push(self.convert(x, &held)?);
            carry.push(held);
        }
        let [cond, body] = op.regions.as_slice() else {
            return Err(located(op, "expected a condition and a body region"));
        };
        let mut first = plan.index + 1;
        let cond_io = RegionIo {
            args: carry.clone(),
            returns: vec![None],
        };
        let (cond, used) = self.region(op, cond, first, &cond_io)?;
        first += used;
        let body_io = RegionIo {
            args: carry.clone(),
            returns: carry.iter().cloned().map(Some).collect(),
        };
        let (body, _) = self.region(op, body, first, &body_io)?;
        self.structured(op, operands, vec![cond, body], carry)
    }

    /// `stablehlo.if` / `stablehlo.case`: the selector whole, each branch partitioned and
    /// returning its values as the results are held.
    pub(super) fn branches_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        let mut held = vec![];
        for (i, &r) in op.results.iter().enumerate() {
            let global = self.global_type(r, &located(op, &format!("result {i}")))?;
            held.push(self.planned(r, &global)?);
        }
        let mut operands = vec![];
        for &x in &op.operands {
            let global = self.global_type(x, &located(op, "its selector"))?;
            operands.push(self.convert(x, &vec![vec![]; global.rank()])?);
        }
        let io = RegionIo {
            args: vec![],
            returns: held.iter().cloned().map(Some).collect(),
        };
        let mut first = plan.index + 1;
        let mut regions = vec![];
        for r in &op.regions {
            let (region, used) = self.region(op, r, first, &io)?;
            first += used;
            regions.push(region);
        }
        self.structured(op, operands, regions, held)
    }

    /// Emits `op` on local `operands` with partitioned `regions`, its results of the pieces'
    /// types under `held`, recorded as the global results' pieces.
    fn structured(
        &mut self,
        op: &'a Op,
        operands: Vec<ValueId>,
        regions: Vec<Region>,
        held: Vec<Held>,
    ) -> Result<(), String> {
        let mut results = vec![];
        for (j, (&r, h)) in op.results.iter().zip(&held).enumerate() {
            let ty = self.piece_type(r, h, &located(op, &format!("result {j}")))?;
            let v = self.dst.new_value(ty, None);
            results.push(v);
            self.locals.insert(
                r,
                Local {
                    value: v,
                    held: h.clone(),
                },
            );
        }
        let mut new = op.clone();
        new.attrs.retain(|a| a.name != "sdy.sharding");
        new.operands = operands;
        new.results = results;
        new.regions = regions;
        self.ops.push(new);
        Ok(())
    }

    /// The type of the piece of global value `v` held as `held`.
    fn piece_type(&self, v: ValueId, held: &Held, what: &str) -> Result<Type, String> {
        let global = self.global_type(v, what)?;
        let shape = self.local_shape(&global.shape, held, what)?;
        Ok(Type::Tensor(TensorType::new(shape, global.dtype)))
    }

    /// Region `region` of `op` partitioned: its ops are those the plan lists from index
    /// `first` on. Returns the region and how many plan entries it covers.
    fn region(
        &mut self,
        op: &'a Op,
        region: &'a Region,
        first: usize,
        io: &RegionIo,
    ) -> Result<(Region, usize), String> {
        let mut used = 0;
        walk_ops(region, &mut |_, _| used += 1);
        let [block] = region.blocks.as_slice() else {
            return Err(located(op, "a region of several blocks"));
        };
        if block.args.len() != io.args.len() {
            return Err(located(
                op,
                "a region whose arguments do not match its operands",
            ));
        }
        // A nested scope: its ops, conversions and partition id stay inside it.
        let outer_ops = std::mem::take(&mut self.ops);
        let outer_converted = self.converted.clone();
        let outer_partition = self.partition;
        let result = self.region_block(op, block, first, io);
        let ops = std::mem::replace(&mut self.ops, outer_ops);
        self.converted = outer_converted;
        self.partition = outer_partition;
        let args = result?;
        Ok((Region::single(Block { args, ops }), used))
    }

    /// The block of a region: arguments, ops, and the terminator's conversions. Returns the
    /// new block's arguments (its ops are left in `self.ops`).
    fn region_block(
        &mut self,
        op: &'a Op,
        block: &'a Block,
        first: usize,
        io: &RegionIo,
    ) -> Result<Vec<ValueId>, String> {
        let mut args = vec![];
        for (i, (&a, held)) in block.args.iter().zip(&io.args).enumerate() {
            let what = located(op, &format!("region argument {i}"));
            let v = self.dst.new_value(self.piece_type(a, held, &what)?, None);
            args.push(v);
            let arrived = Local {
                value: v,
                held: held.clone(),
            };
            let global = self.global_type(a, &what)?;
            let planned = self.planned(a, &global)?;
            let value = self.convert_local(&arrived, &planned, &global)?;
            self.locals.insert(
                a,
                Local {
                    value,
                    held: planned,
                },
            );
        }
        let mut index = first;
        for inner in &block.ops {
            let plan = self
                .plan
                .ops
                .get(index)
                .filter(|p| p.name == inner.kind.name())
                .ok_or_else(|| located(op, "internal: the sharding plan does not follow it"))?;
            let mut nested = 0;
            for r in &inner.regions {
                walk_ops(r, &mut |_, _| nested += 1);
            }
            index += 1 + nested;
            if let OpKind::Return(_) = inner.kind {
                self.region_return(op, inner, io)?;
                continue;
            }
            for &r in &inner.results {
                self.defs.insert(r, inner);
            }
            self.op(inner, plan)?;
        }
        Ok(args)
    }

    /// A region's terminator, its values converted to how they must leave.
    fn region_return(&mut self, op: &'a Op, ret: &'a Op, io: &RegionIo) -> Result<(), String> {
        self.at = format!("the region return of {}", super::warnings::site(op));
        if ret.operands.len() != io.returns.len() {
            return Err(located(
                op,
                "a region returns other values than the op's results",
            ));
        }
        let mut operands = vec![];
        for (&x, to) in ret.operands.iter().zip(&io.returns) {
            let v = match to {
                Some(held) => self.convert(x, held)?,
                None => {
                    let global = self.global_type(x, &located(op, "a region's result"))?;
                    self.convert(x, &vec![vec![]; global.rank()])?
                }
            };
            operands.push(v);
        }
        let mut new = ret.clone();
        new.operands = operands;
        self.ops.push(new);
        Ok(())
    }
}
