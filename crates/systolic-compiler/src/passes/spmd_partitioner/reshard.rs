//! Moving a value between layouts, and completing partial results: the collectives and local
//! slices the partitioner emits. Device groups and offsets come from the mesh grid
//! (`lower_manual_computations::grid`), so both passes agree on which device holds which
//! tile.

use super::{Held, Local, Partitioner};
use systolic_ir::builder::return_region;
use systolic_ir::{
    AxisRef, ChannelHandle, CollectiveAttrs, DType, Op, OpKind, Region, Tensor, TensorType, Type,
    ValueId,
};

impl Partitioner<'_> {
    /// The piece of a value held as `from` (of global type `global`) re-laid out as `to`:
    /// axes that only change dimension move by `all_to_all`; then per dimension: axes `to` drops from the minor end are gathered (`all_gather` over
    /// them, in tile order), otherwise a dimension whose axes change is gathered whole; then
    /// axes `to` adds at the minor end are sliced at this device's offset (`dynamic_slice` at
    /// a `partition_id`-indexed offset). Correct for any pair of layouts; moves more data
    /// than an all-to-all would where an axis only changes dimension.
    pub(super) fn convert_local(
        &mut self,
        from: &Local,
        to: &Held,
        global: &TensorType,
    ) -> Result<ValueId, String> {
        if from.held == *to {
            return Ok(from.value);
        }
        self.note_full_gather(&from.held, to, global);
        let mut v = from.value;
        let mut cur = from.held.clone();
        // Axes that move whole from one dimension to another that `to` otherwise leaves
        // whole: one all_to_all each.
        for a in 0..cur.len() {
            for b in 0..cur.len() {
                let moves = a != b
                    && !cur[a].is_empty()
                    && to[a].is_empty()
                    && cur[b].is_empty()
                    && to[b] == cur[a]
                    && !self.uneven(global.shape[a], &cur[a])?
                    && !self.uneven(global.shape[b], &cur[a])?;
                if moves {
                    v = self.all_to_all(v, a, b, &cur[a].clone())?;
                    cur[b] = std::mem::take(&mut cur[a]);
                }
            }
        }
        for d in 0..cur.len() {
            let n = global.shape[d];
            let uneven = self.uneven(n, &cur[d])? || self.uneven(n, &to[d])?;
            if uneven && cur[d] != to[d] && !cur[d].is_empty() {
                // Tiles of uneven tiles do not line up: the whole dimension, cut to size.
                let dropped = std::mem::take(&mut cur[d]);
                v = self.all_gather(v, d, &dropped)?;
                v = self.trim(v, d, n)?;
                continue;
            }
            if to[d].starts_with(&cur[d]) {
                continue;
            }
            let keep = if cur[d].starts_with(&to[d]) {
                to[d].len()
            } else {
                0
            };
            let dropped = cur[d].split_off(keep);
            v = self.all_gather(v, d, &dropped)?;
        }
        if cur != *to {
            v = self.slice_piece(v, &cur, to, global)?;
        }
        Ok(v)
    }

    /// `all_gather` of dimension `d` split over `axes`: the devices holding its tiles, in tile
    /// order, a fresh channel.
    pub(super) fn all_gather(
        &mut self,
        x: ValueId,
        d: usize,
        axes: &[AxisRef],
    ) -> Result<ValueId, String> {
        let groups = self.grid.groups(axes)?;
        let mut t = self.local_type(x)?;
        t.shape[d] *= groups[0].len() as i64;
        let kind = OpKind::AllGather {
            all_gather_dim: d as i64,
            collective: self.collective(groups),
        };
        Ok(self.emit(kind, vec![x], Type::Tensor(t), vec![]))
    }

    /// `all_to_all` moving the split over `axes` from dimension `a` to dimension `b`: each
    /// device cuts its piece along `b` into one part per device of its group (tile order) and
    /// joins what it receives along `a`.
    fn all_to_all(
        &mut self,
        x: ValueId,
        a: usize,
        b: usize,
        axes: &[AxisRef],
    ) -> Result<ValueId, String> {
        let groups = self.grid.groups(axes)?;
        let n = groups[0].len() as i64;
        let mut t = self.local_type(x)?;
        if t.shape[b] % n != 0 {
            return Err(format!(
                "a reshard moves {n} tiles onto a dimension of size {} that they do not divide",
                t.shape[b]
            ));
        }
        t.shape[a] *= n;
        t.shape[b] /= n;
        let kind = OpKind::AllToAll {
            split_dimension: b as i64,
            concat_dimension: a as i64,
            split_count: n,
            collective: self.collective(groups),
        };
        Ok(self.emit(kind, vec![x], Type::Tensor(t), vec![]))
    }

    /// `all_reduce` of `x` over the devices that differ only in `axes`, combining with
    /// `reducer` (a region of two scalar arguments).
    pub(super) fn all_reduce(
        &mut self,
        x: ValueId,
        axes: &[AxisRef],
        reducer: Region,
    ) -> Result<ValueId, String> {
        let groups = self.grid.groups(axes)?;
        let t = self.local_type(x)?;
        let kind = OpKind::AllReduce {
            collective: self.collective(groups),
        };
        Ok(self.emit(kind, vec![x], Type::Tensor(t), vec![reducer]))
    }

    /// The region `(a, b) -> a + b` on scalars of `dtype`.
    pub(super) fn sum_region(&mut self, dtype: DType) -> Region {
        let scalar = Type::Tensor(TensorType::scalar(dtype));
        let a = self.dst.new_value(scalar.clone(), None);
        let b = self.dst.new_value(scalar.clone(), None);
        let s = self.dst.new_value(scalar, None);
        let add = Op::new(
            OpKind::Binary(systolic_ir::BinaryOp::Add),
            vec![a, b],
            vec![s],
        );
        return_region(vec![a, b], vec![add], vec![s])
    }

    pub(super) fn collective(&mut self, groups: Vec<Vec<i64>>) -> CollectiveAttrs {
        let handle = self.next_channel;
        self.next_channel += 1;
        CollectiveAttrs {
            replica_groups: groups,
            channel_handle: Some(ChannelHandle { handle, kind: 1 }),
            use_global_device_ids: true,
            has_dynamic_root: false,
        }
    }

    /// This device's piece under `target` of `x`, held as `cur`, whose axes start each
    /// dimension's axes in `target` (the rest split the device's piece further).
    fn slice_piece(
        &mut self,
        x: ValueId,
        cur: &Held,
        target: &Held,
        global: &TensorType,
    ) -> Result<ValueId, String> {
        let local = self.local_shape(&global.shape, target, "a resharded value")?;
        // Every tile's extent in bounds (uneven dimensions end short of the last tiles).
        let mut extent = vec![];
        for (d, axes) in target.iter().enumerate() {
            extent.push(self.grid.tiles(&axes[cur[d].len()..])? * local[d]);
        }
        let x = self.pad_to(x, &extent)?;
        let mut offsets = vec![];
        for (d, axes) in target.iter().enumerate() {
            let added = &axes[cur[d].len()..];
            let offset = if added.is_empty() {
                self.constant(Tensor::from_i64(vec![], DType::I32, vec![0]))?
            } else {
                self.offset(added, local[d])?
            };
            offsets.push(offset);
        }
        let mut operands = vec![x];
        operands.extend(offsets);
        let kind = OpKind::DynamicSlice {
            slice_sizes: local.clone(),
        };
        let ty = Type::Tensor(TensorType::new(local, global.dtype));
        Ok(self.emit(kind, operands, ty, vec![]))
    }

    /// Where this device's tile of a dimension split over `axes` into tiles of `size` starts,
    /// as `tensor<i32>`.
    pub(super) fn offset(&mut self, axes: &[AxisRef], size: i64) -> Result<ValueId, String> {
        let table: Vec<i64> = self
            .grid
            .tile_index(axes)?
            .into_iter()
            .map(|t| t * size)
            .collect();
        self.device_entry(table)
    }

    /// `table[partition_id]` as `tensor<i32>`.
    fn device_entry(&mut self, table: Vec<i64>) -> Result<ValueId, String> {
        let n = table.len() as i64;
        let table = self.constant(Tensor::from_i64(vec![n], DType::I32, table))?;
        let pid = self.partition_id();
        let one = self.emit(
            OpKind::DynamicSlice {
                slice_sizes: vec![1],
            },
            vec![table, pid],
            Type::Tensor(TensorType::new(vec![1], DType::I32)),
            vec![],
        );
        let scalar = Type::Tensor(TensorType::scalar(DType::I32));
        Ok(self.emit(OpKind::Reshape, vec![one], scalar, vec![]))
    }

    /// This device's id as `tensor<i32>` (emitted once, at the first use).
    pub(super) fn partition_id(&mut self) -> ValueId {
        if let Some(p) = self.partition {
            return p;
        }
        let scalar = |d| Type::Tensor(TensorType::scalar(d));
        let p = self.emit(OpKind::PartitionId, vec![], scalar(DType::U32), vec![]);
        let p = self.emit(OpKind::Convert, vec![p], scalar(DType::I32), vec![]);
        self.partition = Some(p);
        p
    }

    pub(super) fn constant(
        &mut self,
        t: Result<Tensor, systolic_ir::TensorError>,
    ) -> Result<ValueId, String> {
        let t = t.map_err(|e| format!("internal: an offset table: {e}"))?;
        let ty = Type::Tensor(t.ty().clone());
        Ok(self.emit(OpKind::Constant(t), vec![], ty, vec![]))
    }

    pub(super) fn emit(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        ty: Type,
        regions: Vec<Region>,
    ) -> ValueId {
        let r = self.dst.new_value(ty, None);
        let mut op = Op::new(kind, operands, vec![r]);
        op.regions = regions;
        self.ops.push(op);
        r
    }

    /// The type of a value of the per-device program.
    pub(super) fn local_type(&self, v: ValueId) -> Result<TensorType, String> {
        self.dst
            .value_type(v)
            .as_tensor()
            .cloned()
            .ok_or_else(|| "internal: a per-device value is not a tensor".to_string())
    }
}
