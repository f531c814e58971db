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
    /// The piece of a value held as `from` (of global type `global`) re-laid out as `to`,
    /// in steps that each move no more than gathering would:
    ///
    /// 1. minor axes that move from the end of one dimension to the end of another go by
    ///    `all_to_all`;
    /// 2. axes `to` adds to a dimension that drops none are sliced first (a local
    ///    `dynamic_slice` at a `partition_id`-indexed offset: less to move after);
    /// 3. layouts that now cut every dimension into as many tiles as `to` differ only in who
    ///    holds which piece: one `collective_permute` ([`permute`](super::permute)); so do
    ///    layouts that slicing by free axes makes so (`{"x"}` → `{"y"}` with "y" twice
    ///    "x"'s size: each piece sliced in two, then permuted);
    /// 4. otherwise per dimension: its kept axes are put first in `to`'s order with the axes
    ///    it drops after them (a permute, when that changes anything), the dropped axes
    ///    gathered from the minor end (`all_gather` in tile order), the axes it gains sliced
    ///    at the minor end, and a last permute puts them in `to`'s order.
    ///
    /// Uneven dimensions (padded pieces, [`uneven`](super::uneven)) whose axes change are
    /// gathered whole and cut to size instead. Correct for any pair of layouts.
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
        if self.same_tiling(&from.held, to)? {
            return self.permute(from.value, &from.held, to);
        }
        let mut v = from.value;
        let mut cur = from.held.clone();
        // Minor axes that move whole from the end of one dimension to the end of another:
        // one all_to_all each.
        for a in 0..cur.len() {
            for b in 0..cur.len() {
                let keep = to[a].len();
                let moves = a != b
                    && cur[a].len() > keep
                    && cur[a].starts_with(&to[a])
                    && to[b].starts_with(&cur[b])
                    && to[b][cur[b].len()..] == cur[a][keep..]
                    && !self.uneven(global.shape[a], &cur[a])?
                    && !self.uneven(global.shape[b], &to[b])?;
                if moves {
                    let moved = cur[a].split_off(keep);
                    v = self.all_to_all(v, a, b, &moved)?;
                    cur[b].extend(moved);
                }
            }
        }
        let mut even = vec![];
        for d in 0..cur.len() {
            let n = global.shape[d];
            even.push(!self.uneven(n, &cur[d])? && !self.uneven(n, &to[d])?);
        }
        // Axes a dimension gains without dropping any, free to take (no part of their mesh
        // axis held anywhere): sliced now.
        let mut sliced = cur.clone();
        for d in 0..cur.len() {
            if !even[d] || cur[d].iter().any(|a| !to[d].contains(a)) {
                continue;
            }
            for a in &to[d] {
                if !sliced.iter().flatten().any(|b| b.name == a.name) {
                    sliced[d].push(a.clone());
                }
            }
        }
        if sliced != cur {
            v = self.slice_piece(v, &cur, &sliced, global)?;
            cur = sliced;
        }
        if self.same_tiling(&cur, to)? {
            return self.permute(v, &cur, to);
        }
        if let Some(finer) = self.finer_for_permute(&cur, to, &global.shape)? {
            v = self.slice_piece(v, &cur, &finer, global)?;
            return self.permute(v, &finer, to);
        }
        // Kept axes first (in `to`'s order), dropped ones after: the drop is a gather of
        // the minor end.
        let mut mid = cur.clone();
        for d in 0..cur.len() {
            if even[d] {
                let kept = to[d].iter().filter(|a| cur[d].contains(a));
                let dropped = cur[d].iter().filter(|a| !to[d].contains(a));
                mid[d] = kept.chain(dropped).cloned().collect();
            }
        }
        if mid != cur {
            v = self.permute(v, &cur, &mid)?;
            cur = mid;
        }
        for d in 0..cur.len() {
            let n = global.shape[d];
            if !even[d] {
                if cur[d] != to[d] && !cur[d].is_empty() {
                    // Tiles of uneven tiles do not line up: the whole dimension, cut to size.
                    let dropped = std::mem::take(&mut cur[d]);
                    v = self.all_gather(v, d, &dropped)?;
                    v = self.trim(v, d, n)?;
                }
                continue;
            }
            let keep = cur[d].iter().take_while(|a| to[d].contains(a)).count();
            let dropped = cur[d].split_off(keep);
            if !dropped.is_empty() {
                v = self.all_gather(v, d, &dropped)?;
            }
        }
        // What each dimension gains, at its minor end; then `to`'s order.
        let mut gained = cur.clone();
        for d in 0..cur.len() {
            let missing = to[d].iter().filter(|a| !cur[d].contains(a));
            gained[d].extend(missing.cloned());
        }
        if gained != cur {
            v = self.slice_piece(v, &cur, &gained, global)?;
        }
        if gained != *to {
            v = self.permute(v, &gained, to)?;
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
