//! Moving whole pieces between devices: `collective_permute`.
//!
//! Two layouts that cut every dimension into the same number of tiles but give the tiles to
//! devices differently (an axis swapped for another of the same size, the axes of a
//! dimension reordered, two dimensions trading axes of equal size) differ only in who holds
//! which piece: each device needs exactly one piece some device already has, so one permute
//! moves one piece per device where gathering and slicing would move the whole dimension.
//! A `reverse` along a split dimension is the same move after reversing each piece: tile `j`
//! of the operand, reversed, is tile `T-1-j` of the result.
//!
//! The pairs come from the mesh grid, as every other collective's groups do; each device
//! sends at most once and receives exactly once (StableHLO requires distinct sources and
//! distinct targets). Where several devices hold the needed tile (axes the source layout
//! leaves replicated), a device that holds it itself keeps it; the others take the remaining
//! holders in device order.

use super::{located, Held, OpPlan, Partitioner};
use std::collections::BTreeMap;
use systolic_ir::{AxisRef, ChannelHandle, Op, OpKind, Type, ValueId};

/// Per device: the tile it holds along each dimension.
type Tiles = Vec<Vec<i64>>;

impl<'a> Partitioner<'a> {
    /// Whether `from` and `to` cut every dimension into the same number of tiles (then a
    /// conversion between them is one permute).
    pub(super) fn same_tiling(&self, from: &Held, to: &Held) -> Result<bool, String> {
        for (a, b) in from.iter().zip(to) {
            if self.grid.tiles(a)? != self.grid.tiles(b)? {
                return Ok(false);
            }
        }
        Ok(from.len() == to.len())
    }

    /// The piece of `x`, held as `from`, held as `to` instead (same tiling): one
    /// `collective_permute`, or `x` itself when every device already holds its piece.
    pub(super) fn permute(
        &mut self,
        x: ValueId,
        from: &Held,
        to: &Held,
    ) -> Result<ValueId, String> {
        let have = self.tiles_held(from)?;
        let want = self.tiles_held(to)?;
        let pairs = source_target_pairs(&have, &want)?;
        self.collective_permute(x, pairs)
    }

    /// `collective_permute` of `x` over `pairs` (a fresh channel); `x` when every pair is a
    /// device sending to itself.
    pub(super) fn collective_permute(
        &mut self,
        x: ValueId,
        pairs: Vec<(i64, i64)>,
    ) -> Result<ValueId, String> {
        if pairs.iter().all(|(s, t)| s == t) {
            return Ok(x);
        }
        let t = self.local_type(x)?;
        let handle = self.next_channel;
        self.next_channel += 1;
        let kind = OpKind::CollectivePermute {
            source_target_pairs: pairs,
            channel_handle: Some(ChannelHandle { handle, kind: 1 }),
        };
        Ok(self.emit(kind, vec![x], Type::Tensor(t), vec![]))
    }

    /// A layout that cuts every dimension into as many tiles as `to` does, reached from
    /// `cur` by slicing alone (each dimension's axes followed by mesh axes, or major
    /// sub-axes of them, that `cur` does not use): then a conversion is a local slice and
    /// one permute, each device receiving only its final piece. `None` when a dimension
    /// would need fewer tiles than it has, is uneven, or no free axes make up the factor.
    /// Free axes `to` puts on the dimension are preferred (more devices keep their piece).
    pub(super) fn finer_for_permute(
        &self,
        cur: &Held,
        to: &Held,
        shape: &[i64],
    ) -> Result<Option<Held>, String> {
        let mut used: Vec<&str> = cur.iter().flatten().map(|a| a.name.as_str()).collect();
        let mut out = cur.clone();
        for d in 0..cur.len() {
            let (have, want) = (self.grid.tiles(&cur[d])?, self.grid.tiles(&to[d])?);
            if have == want {
                continue;
            }
            if want % have != 0 || self.uneven(shape[d], &to[d])? {
                return Ok(None);
            }
            let mut need = want / have;
            let preferred = to[d].iter().map(|a| a.name.as_str());
            let candidates: Vec<&str> = preferred
                .chain(self.mesh.axes.iter().map(|(n, _)| n.as_str()))
                .collect();
            for name in candidates {
                if need == 1 {
                    break;
                }
                if used.contains(&name) {
                    continue;
                }
                let Some(&(_, size)) = self.mesh.axes.iter().find(|(n, _)| n == name) else {
                    continue;
                };
                let sub_axis = if need % size == 0 {
                    None
                } else if size % need == 0 {
                    Some((1, need))
                } else {
                    continue;
                };
                need /= sub_axis.map_or(size, |(_, k)| k);
                used.push(name);
                out[d].push(AxisRef {
                    name: name.to_string(),
                    sub_axis,
                });
            }
            if need != 1 {
                return Ok(None);
            }
        }
        Ok(Some(out))
    }

    /// Per device, the tile of each dimension it holds under `held`.
    fn tiles_held(&self, held: &Held) -> Result<Tiles, String> {
        let per_dim = held
            .iter()
            .map(|axes| self.grid.tile_index(axes))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((0..self.grid.len())
            .map(|dev| per_dim.iter().map(|t| t[dev]).collect())
            .collect())
    }

    /// `reverse` with a reversed dimension the result is held split along (evenly): each
    /// device reverses its piece of the operand held as the result is, which is the result's
    /// mirrored tile, and one permute sends it to the device holding that tile. Otherwise
    /// (the reversed dimensions held whole, or uneven pieces, whose tiles do not mirror
    /// onto tiles) the plan's way: the reversed dimensions gathered.
    pub(super) fn reverse_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        let OpKind::Reverse { dimensions } = &op.kind else {
            return Err(format!("internal: {} is not a reverse", op.kind.name()));
        };
        let (x, r) = match (op.operands.as_slice(), op.results.as_slice()) {
            ([x], [r]) => (*x, *r),
            _ => return Err(located(op, "expected one operand and one result")),
        };
        let global = self.global_type(r, &located(op, "its result"))?;
        let held = self.planned(r, &global)?;
        let mut mirrored = vec![];
        for &d in dimensions {
            let d = usize::try_from(d)
                .ok()
                .filter(|&d| d < held.len())
                .ok_or_else(|| located(op, &format!("dimension {d} is out of range")))?;
            if held[d].is_empty() {
                continue;
            }
            if self.uneven(global.shape[d], &held[d])? || !plan.notes.is_empty() {
                return self.local_op(op, plan);
            }
            mirrored.push((d, self.grid.tiles(&held[d])?));
        }
        if mirrored.is_empty() {
            return self.local_op(op, plan);
        }
        let piece = self.convert(x, &held)?;
        let ty = Type::Tensor(self.local_type(piece)?);
        let reversed = self.emit(op.kind.clone(), vec![piece], ty, vec![]);
        let want = self.tiles_held(&held)?;
        let mut have = want.clone();
        for tiles in &mut have {
            for &(d, n) in &mirrored {
                tiles[d] = n - 1 - tiles[d];
            }
        }
        let pairs = source_target_pairs(&have, &want)?;
        let v = self.collective_permute(reversed, pairs)?;
        self.locals.insert(r, super::Local { value: v, held });
        Ok(())
    }
}

/// For each device (target), a device that has the tiles it wants (`have`/`want`: per
/// device, a tile per dimension): itself when it has them, otherwise the first holder in
/// device order not yet sending. Pairs sorted by target; an internal error if the layouts
/// do not hold each tile equally often (then no permutation exists).
fn source_target_pairs(have: &Tiles, want: &Tiles) -> Result<Vec<(i64, i64)>, String> {
    let n = want.len();
    let mut holders: BTreeMap<&[i64], Vec<usize>> = BTreeMap::new();
    for (dev, tiles) in have.iter().enumerate() {
        holders.entry(tiles).or_default().push(dev);
    }
    let mut sends = vec![false; n];
    let mut source = vec![None; n];
    for t in 0..n {
        if have[t] == want[t] {
            source[t] = Some(t);
            sends[t] = true;
        }
    }
    for t in 0..n {
        if source[t].is_some() {
            continue;
        }
        let s = holders
            .get(want[t].as_slice())
            .and_then(|h| h.iter().copied().find(|&s| !sends[s]))
            .ok_or_else(|| {
                format!(
                    "internal: no device left to send tiles {:?} to device {t} in a permute",
                    want[t]
                )
            })?;
        sends[s] = true;
        source[t] = Some(s);
    }
    Ok(source
        .into_iter()
        .enumerate()
        .map(|(t, s)| (s.unwrap_or(t) as i64, t as i64))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::source_target_pairs;

    #[test]
    fn pairs_keep_own_pieces_and_use_each_source_once() {
        // Four devices; the source holds tile 0 on devices 0 and 1, tile 1 on 2 and 3 (an
        // axis of 2 over a replicated one); the target wants tile = device % 2.
        let have = vec![vec![0], vec![0], vec![1], vec![1]];
        let want = vec![vec![0], vec![1], vec![0], vec![1]];
        let pairs = source_target_pairs(&have, &want).unwrap();
        assert_eq!(pairs, vec![(0, 0), (2, 1), (1, 2), (3, 3)]);
    }

    #[test]
    fn unequal_holdings_are_an_error() {
        let have = vec![vec![0], vec![0]];
        let want = vec![vec![0], vec![1]];
        assert!(source_target_pairs(&have, &want).is_err());
    }
}
