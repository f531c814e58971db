//! A `reduce` of several inputs (an argmax: values and their indices) over a split
//! dimension. No collective combines several arrays with one body, so each device reduces
//! its piece, the partial results are all-gathered along a new leading dimension (one entry
//! per device of the reduction's axes) and reduced again over it with the op's own body and
//! init values. The init is folded in once more per device, which the StableHLO spec allows
//! for: a reduce's result is defined only when its init values are the body's identity (the
//! order of its schedule is the implementation's).

use super::{located, Local, OpPlan, Partitioner};
use systolic_ir::walk::{clone_region, ValueMap};
use systolic_ir::{Op, OpKind, TensorType, Type, ValueId};

impl<'a> Partitioner<'a> {
    /// Whether `op` is a reduce of several inputs whose plan splits a reduced dimension.
    pub(super) fn is_split_variadic_reduce(op: &Op, plan: &OpPlan) -> bool {
        matches!(op.kind, OpKind::Reduce { .. })
            && op.operands.len() > 2
            && !plan.reduction_axes.is_empty()
    }

    /// The variadic reduce; see the module docs.
    pub(super) fn variadic_reduce(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        let (operands, needs) = self.needed_operands(op, plan)?;
        let operands = self.mask_reduced_padding(op, plan, &needs, operands)?;
        let inputs = op.operands.len() / 2;
        let inits: Vec<ValueId> = operands[inputs..].to_vec();
        let mut held = vec![];
        let mut partial_types = vec![];
        for (j, &r) in op.results.iter().enumerate() {
            let global = self.global_type(r, &located(op, &format!("result {j}")))?;
            let h = self.computed(plan, j, r, &global)?;
            let shape = self.local_shape(&global.shape, &h, &located(op, "a result"))?;
            partial_types.push(TensorType::new(shape, global.dtype));
            held.push((h, global));
        }
        let partials = self.reduce_op(op, operands, &partial_types)?;
        // One entry per device of the reduction, along a new leading dimension.
        let mut gathered = vec![];
        for (p, t) in partials.iter().zip(&partial_types) {
            let mut one = vec![1];
            one.extend(&t.shape);
            let kind = OpKind::BroadcastInDim {
                broadcast_dimensions: (1..=t.rank() as i64).collect(),
            };
            let ty = Type::Tensor(TensorType::new(one, t.dtype));
            let lifted = self.emit(kind, vec![*p], ty, vec![]);
            gathered.push(self.all_gather(lifted, 0, &plan.reduction_axes)?);
        }
        let mut again = op.clone();
        again.kind = OpKind::Reduce {
            dimensions: vec![0],
        };
        let mut operands = gathered;
        operands.extend(inits);
        let results = self.reduce_op(&again, operands, &partial_types)?;
        for ((&r, v), (h, global)) in op.results.iter().zip(results).zip(held) {
            let target = self.planned(r, &global)?;
            let v = self.convert_local(&Local { value: v, held: h }, &target, &global)?;
            self.locals.insert(
                r,
                Local {
                    value: v,
                    held: target,
                },
            );
        }
        Ok(())
    }

    /// `op` (a reduce) on local `operands`, its body cloned, results of `types`.
    fn reduce_op(
        &mut self,
        op: &Op,
        operands: Vec<ValueId>,
        types: &[TensorType],
    ) -> Result<Vec<ValueId>, String> {
        let mut map = ValueMap::new();
        let body = clone_region(self.src, &op.regions[0], &mut self.dst, &mut map)
            .map_err(|e| located(op, &e.message))?;
        let results: Vec<ValueId> = types
            .iter()
            .map(|t| self.dst.new_value(Type::Tensor(t.clone()), None))
            .collect();
        let mut new = Op::new(op.kind.clone(), operands, results.clone());
        new.regions = vec![body];
        new.span = op.span;
        self.ops.push(new);
        Ok(results)
    }
}
