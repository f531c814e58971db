//! `while`, `if` and `case` whose regions hold manual computations (a shard_map step in a
//! `fori_loop` or `scan` body, or in a `cond`/`switch` branch), lowered with their regions in
//! place: the regions' ops go through the same lowering as the entry's, in a scope of their
//! own (whole values gathered in a region stay in it).
//!
//! A value carried around a loop is held one way on every iteration, and the loop's result
//! the same way. The form is the body's fixed point: start from how the initial values are
//! held, lower the body, and if it returns a carry held differently, lower it again from the
//! returned form (a shard_map step returns its `out_specs` split, and from that split it
//! returns the same). After two tries the returned values are converted to the form the body
//! started from, which is always right, at the price of communication per iteration.
//!
//! A branch op's results take, per result, the first split form some branch returns (a
//! shard_map branch's; slicing a whole value costs no communication), every branch converting
//! to it.

use super::grid::Held;
use super::{same_held, Lowering, Scope};

use systolic_ir::{Block, Op, OpKind, Region, ReturnKind, ValueId};

/// How many times a loop body is lowered looking for a fixed point of its carries' forms.
const TRIES: usize = 3;

impl Lowering {
    /// A `while` whose regions hold manual computations.
    pub(crate) fn while_loop(&mut self, mut op: Op) -> Result<(), String> {
        let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
        if op.regions.len() != 2 {
            return Err(format!(
                "stablehlo.while{at} has {} regions",
                op.regions.len()
            ));
        }
        let body_region = op.regions.pop().expect("two regions");
        let cond_region = op.regions.pop().expect("two regions");
        let mut carried = self.helds(&op.operands);
        let mut body = None;
        for attempt in 0..TRIES {
            let (block, returned) = self.lower_region(&body_region, &carried, "the while body")?;
            if all_same(&returned, &carried) || attempt + 1 == TRIES {
                body = Some(self.close_region(block, &carried)?);
                break;
            }
            carried = returned;
        }
        let body = body.expect("the last try keeps the body");
        let (cond, _) = self.lower_region(&cond_region, &carried, "the while condition")?;
        let whole = vec![vec![]];
        let cond = self.close_region(cond, &[whole])?;
        for (k, v) in op.operands.iter_mut().enumerate() {
            *v = self.convert_any(*v, &carried[k])?;
        }
        for (k, &r) in op.results.iter().enumerate() {
            self.hold_as_piece(
                r,
                carried[k].clone(),
                &format!("stablehlo.while{at}: result {k}"),
            )?;
        }
        op.regions = vec![cond, body];
        self.push(op);
        Ok(())
    }

    /// An `if` or `case` whose branches hold manual computations.
    pub(crate) fn branches(&mut self, mut op: Op) -> Result<(), String> {
        let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
        let name = op.kind.name();
        let regions = std::mem::take(&mut op.regions);
        let mut lowered = vec![];
        for (i, r) in regions.iter().enumerate() {
            lowered.push(self.lower_region(r, &[], &format!("{name}{at}: branch {i}"))?);
        }
        let mut chosen: Vec<Held> = vec![];
        for j in 0..op.results.len() {
            let split = lowered
                .iter()
                .map(|(_, returned)| &returned[j])
                .find(|h| h.iter().any(|axes| !axes.is_empty()));
            let whole = lowered[0].1[j].iter().map(|_| vec![]).collect();
            chosen.push(split.cloned().unwrap_or(whole));
        }
        for (block, _) in lowered {
            op.regions.push(self.close_region(block, &chosen)?);
        }
        for o in op.operands.iter_mut() {
            *o = self.whole_value(*o)?;
        }
        for (k, &r) in op.results.iter().enumerate() {
            self.hold_as_piece(r, chosen[k].clone(), &format!("{name}{at}: result {k}"))?;
        }
        self.push(op);
        Ok(())
    }

    /// Lowers a copy of `region` (its block arguments held as `args`) in a scope of its own;
    /// the open block (scope, arguments and the untouched terminator) and how the terminator's
    /// operands are held.
    fn lower_region(
        &mut self,
        region: &Region,
        args: &[Held],
        what: &str,
    ) -> Result<(OpenBlock, Vec<Held>), String> {
        let [block] = region.blocks.as_slice() else {
            return Err(format!("{what} has {} blocks", region.blocks.len()));
        };
        for (k, &a) in block.args.iter().enumerate() {
            let held = args.get(k).cloned().unwrap_or_default();
            self.hold_as_piece(a, held, &format!("{what}: argument {k}"))?;
        }
        self.scopes.push(Scope::default());
        let ret = self.lower_ops(block.ops.clone());
        let scope = self.scopes.pop().expect("the region's scope");
        let Some(ret) = ret? else {
            return Err(format!("{what} has no terminator"));
        };
        if !matches!(ret.kind, OpKind::Return(ReturnKind::Stablehlo)) {
            return Err(format!("{what} ends in {}", ret.kind.name()));
        }
        let returned = self.helds(&ret.operands);
        let open = OpenBlock {
            scope,
            args: block.args.clone(),
            ret,
        };
        Ok((open, returned))
    }

    /// The region of an open block whose terminator's operands are converted to `target`.
    fn close_region(&mut self, open: OpenBlock, target: &[Held]) -> Result<Region, String> {
        let OpenBlock {
            scope,
            args,
            mut ret,
        } = open;
        self.scopes.push(scope);
        let converted: Result<Vec<ValueId>, String> = ret
            .operands
            .iter()
            .enumerate()
            .map(|(k, &v)| match target.get(k) {
                Some(t) => self.convert_any(v, t),
                None => Ok(v),
            })
            .collect();
        let scope = self.scopes.pop().expect("the region's scope");
        ret.operands = converted?;
        let mut ops = scope.ops;
        ops.push(ret);
        Ok(Region::single(Block { args, ops }))
    }
}

/// A lowered block before its terminator is converted.
pub(crate) struct OpenBlock {
    scope: Scope,
    args: Vec<ValueId>,
    ret: Op,
}

/// Two lists of held forms alike, value by value.
fn all_same(a: &[Held], b: &[Held]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_held(x, y))
}
