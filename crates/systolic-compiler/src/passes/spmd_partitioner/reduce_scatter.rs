//! Completing partial results: an op whose reduction factors are split leaves each device a
//! partial result; where the value is then held split over some of those same axes (the
//! plan gave a result dimension's minor axis to the reduction, see
//! `sharding_propagation::plan`), a `reduce_scatter` along that dimension completes and
//! splits it at once — each device receives only its tile of the sum, where an all-reduce
//! followed by a slice would move the whole result. The other reduction axes are completed
//! by an `all_reduce`.

use super::{Held, Local, Partitioner};
use systolic_ir::{AxisRef, Op, OpKind, TensorType, Type, ValueId};

impl<'a> Partitioner<'a> {
    /// Partial result `v` of `op`, computed as `held` and partial over `reduction`, completed
    /// and converted to `target`.
    pub(super) fn complete(
        &mut self,
        op: &'a Op,
        v: ValueId,
        held: Held,
        target: &Held,
        reduction: &[AxisRef],
        global: &TensorType,
    ) -> Result<ValueId, String> {
        let mut v = v;
        let mut held = held;
        let mut rest = reduction.to_vec();
        for d in 0..held.len() {
            let grows = target[d].len() > held[d].len() && target[d].starts_with(&held[d]);
            if !grows {
                continue;
            }
            let added = target[d][held[d].len()..].to_vec();
            let n = global.shape[d];
            let even = !self.uneven(n, &held[d])? && !self.uneven(n, &target[d])?;
            if !even || !added.iter().all(|a| rest.contains(a)) {
                continue;
            }
            let reducer = self.reducer(op, global.dtype)?;
            v = self.reduce_scatter(v, d, &added, reducer)?;
            held[d] = target[d].clone();
            rest.retain(|a| !added.contains(a));
        }
        if !rest.is_empty() {
            let reducer = self.reducer(op, global.dtype)?;
            v = self.all_reduce(v, &rest, reducer)?;
        }
        self.convert_local(&Local { value: v, held }, target, global)
    }

    /// `reduce_scatter` of `x` along dimension `d` over the devices that differ only in
    /// `axes` (in tile order: the device at position `i` of its group keeps tile `i`).
    fn reduce_scatter(
        &mut self,
        x: ValueId,
        d: usize,
        axes: &[AxisRef],
        reducer: systolic_ir::Region,
    ) -> Result<ValueId, String> {
        let groups = self.grid.groups(axes)?;
        let n = groups[0].len() as i64;
        let mut t = self.local_type(x)?;
        if t.shape[d] % n != 0 {
            return Err(format!(
                "internal: a reduce-scatter of {n} tiles along a dimension of size {}",
                t.shape[d]
            ));
        }
        t.shape[d] /= n;
        let kind = OpKind::ReduceScatter {
            scatter_dimension: d as i64,
            collective: self.collective(groups),
        };
        Ok(self.emit(kind, vec![x], Type::Tensor(t), vec![reducer]))
    }
}
