//! Windows along split dimensions: a `convolution`'s spatial dimensions, a `reduce_window`'s
//! and a `select_and_scatter`'s, which the sharding rules pass as windowed factors (the
//! outputs tile the input: `m · stride = n`). Here, where the pieces' sizes are known, each
//! split windowed dimension (input size `n`, output `m`, `t` tiles, pieces `p = ⌈n/t⌉` and
//! `q = ⌈m/t⌉`) is computed one of these ways:
//!
//! - **halo exchange** where `q · stride = p`: the outputs of tile `j` read the inputs of tile
//!   `j` plus `lo` rows before it (the window's low padding) and a few after it; each device
//!   receives those rows from its neighbours along the dimension's axes
//!   (`collective_permute`: the devices at the global edges receive zeros, which is a
//!   convolution's padding; a `reduce_window` replaces them by its init value), joins
//!   [left halo, piece, right halo] and runs the op without that padding, which the halo now
//!   holds. Halos wider than a neighbour's piece are not exchanged (below). Uneven pieces
//!   have their padding made the window's padding value first, so the last pieces read it as
//!   the padding beyond the end. A `select_and_scatter` (max pooling's gradient) runs on its
//!   pieces only where no halo is needed (windows that do not overlap: window = stride);
//! - **cumulative windows** (a `reduce_window` whose window is the whole dimension, padded
//!   `(n-1, 0)` or `(0, n-1)`, stride 1: what `cumsum`, `cumprod`, `cummax` and `cummin` lower
//!   to): a cumulative window over each piece, then each piece's total (its last row;
//!   the first in reverse) is gathered over the axes, those of the earlier pieces (later in
//!   reverse) reduced — the others masked to the init value, which must then be the
//!   reducer's identity — and combined with the local result. Only reducers that are one
//!   add, multiply, maximum, minimum, and or or;
//! - **partial sums** for a convolution whose kernel spans the whole input dimension (a
//!   weight gradient: the output gradient is the kernel), input and kernel split alike: the
//!   input's piece with halos of the padding, the kernel's piece as the window, the partial
//!   results added by the plan's reduction (a reduction factor of the rule);
//! - otherwise the dimension is **gathered**: the input whole along it, the output computed
//!   whole along it and sliced to how it is held (a VALID window whose pieces do not line
//!   up, halos wider than a piece, uneven pieces of strided windows, overlapping
//!   `select_and_scatter` windows).
//!
//! Base-dilated windows (the input gradient of a strided convolution) keep their windowed
//! dimensions whole: their rules block them.

use super::{located, reducer_op, unhandled, Held, Local, OpPlan, Partitioner};
use systolic_ir::walk::{clone_region, ValueMap};
use systolic_ir::{
    AxisRef, BinaryOp, ComparisonDirection, DType, Op, OpKind, Tensor, TensorType, Type, ValueId,
    WindowDim,
};

/// One spatial dimension of a windowed op: where it is in the data operands and results, and
/// its window.
struct Spatial {
    /// The dimension of the data operands.
    input: usize,
    /// The dimension of the results.
    output: usize,
    window: WindowDim,
    /// Its index among the op's window dimensions (the convolution's spatial order).
    index: usize,
    /// A convolution's kernel dimension, when the kernel slides along the whole input
    /// (`size = n`, stride 1: the weight gradient, which sums over the dimension).
    summed: Option<usize>,
}

/// How a split windowed dimension is computed; see the module docs.
enum Mode {
    /// Rows `before` and `after` the piece from the neighbours.
    Halo { before: i64, after: i64 },
    /// A cumulative window, from the start (`reverse` false) or from the end.
    Cumulative { reverse: bool },
    /// Whole along the dimension.
    Gather,
    /// A convolution summing over the dimension (its kernel as long as the input, split
    /// alike): the input piece with halos, the kernel's piece as the window, partial results
    /// completed by the plan's reduction.
    Sum { before: i64, after: i64 },
}

impl<'a> Partitioner<'a> {
    /// A `convolution` or `reduce_window`: its split windowed dimensions by halo exchange,
    /// cumulative windows or gathering, everything else as `local_op` does.
    pub(super) fn windowed_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        if !plan.notes.is_empty() && plan.reduction_axes.is_empty() {
            return self.local_op(op, plan);
        }
        let spatial = self.spatial_dims(op)?;
        // The operands the window slides over (a select_and_scatter's source has one element
        // per window, and the same dimensions).
        let data: Vec<usize> = match op.kind {
            OpKind::ReduceWindow { .. } => (0..op.operands.len() / 2).collect(),
            OpKind::SelectAndScatter { .. } => vec![0, 1],
            _ => vec![0],
        };
        let scatters = matches!(op.kind, OpKind::SelectAndScatter { .. });
        let mut needs = vec![];
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            needs.push(self.needed(plan, k, x, &global)?);
        }
        let mut computed = vec![];
        for (j, &r) in op.results.iter().enumerate() {
            let global = self.global_type(r, &located(op, &format!("result {j}")))?;
            computed.push((self.computed(plan, j, r, &global)?, global));
        }
        let split: Vec<&Spatial> = spatial
            .iter()
            .filter(|s| !needs[0][s.input].is_empty() && !is_pointwise(&s.window))
            .collect();
        if split.is_empty() {
            return self.local_op(op, plan);
        }
        let in_shape = self.global_type(op.operands[0], "an operand")?.shape;
        // The windows' count per dimension: the output's size (the source's for a
        // select_and_scatter, whose result is the operand's size).
        let out_shape = if scatters {
            self.global_type(op.operands[1], "its source")?.shape
        } else {
            computed[0].1.shape.clone()
        };
        let mut modes = vec![];
        let mut cumulative = false;
        // The reduction axes left to complete (less those of summed dimensions gathered).
        let mut reduction = plan.reduction_axes.clone();
        for s in &split {
            let axes = needs[0][s.input].clone();
            if let Some(kd) = s.summed {
                let mode = self.sum_mode(s, &axes, &needs[1][kd], in_shape[s.input])?;
                if let Mode::Gather = mode {
                    needs[0][s.input] = vec![];
                    needs[1][kd] = vec![];
                    reduction.retain(|a| !axes.contains(a));
                }
                modes.push(mode);
                continue;
            }
            let lined_up = computed
                .iter()
                .all(|(held, _)| held.get(s.output) == Some(&axes))
                && data.iter().all(|&k| needs[k][s.input] == axes);
            let mut mode = if lined_up {
                let windows = out_shape[if scatters { s.input } else { s.output }];
                self.mode(op, s, &axes, in_shape[s.input], windows)?
            } else {
                Mode::Gather
            };
            // A select_and_scatter runs on pieces only where its windows do not overlap them
            // (the scatter would have to add into the neighbours' rows otherwise).
            if scatters
                && !matches!(
                    mode,
                    Mode::Halo {
                        before: 0,
                        after: 0
                    }
                )
            {
                mode = Mode::Gather;
            }
            if let Mode::Cumulative { .. } = mode {
                if cumulative {
                    mode = Mode::Gather;
                }
                cumulative = true;
            }
            if let Mode::Gather = mode {
                for &k in &data {
                    needs[k][s.input] = vec![];
                }
                for (held, _) in computed.iter_mut() {
                    held[s.output] = vec![];
                }
            }
            modes.push(mode);
        }
        let mut operands = vec![];
        for (k, &x) in op.operands.iter().enumerate() {
            operands.push(self.convert(x, &needs[k])?);
        }
        let mut operands = self.mask_reduced_padding(op, plan, &needs, operands)?;
        let mut kind = op.kind.clone();
        let mut cumulative = None;
        for (s, mode) in split.iter().zip(&modes) {
            let axes = needs[0][s.input].clone();
            let n = in_shape[s.input];
            match *mode {
                Mode::Gather => continue,
                // The windows read only the piece (whose real outputs read only its real
                // rows): the op runs on it as it is, without the padding it never reads.
                Mode::Halo {
                    before: 0,
                    after: 0,
                } => set_window(&mut kind, s.index, |w| w.padding = (0, 0)),
                Mode::Sum { before, after } => {
                    let fill = self.padding_value(op, &operands, 0)?;
                    operands[0] =
                        self.with_halo(operands[0], s.input, &axes, before, after, fill)?;
                    let p = self.local_type(operands[1])?.shape[s.summed.unwrap_or(0)];
                    set_window(&mut kind, s.index, |w| {
                        w.size = p;
                        w.padding = (0, 0);
                    });
                }
                Mode::Halo { before, after } => {
                    for &k in &data {
                        let fill = self.padding_value(op, &operands, k)?;
                        let global = self.global_type(op.operands[k], "an operand")?;
                        let x = self.mask_uneven(operands[k], &needs[k], &global, s.input, fill)?;
                        operands[k] = self.with_halo(x, s.input, &axes, before, after, fill)?;
                    }
                    set_window(&mut kind, s.index, |w| w.padding = (0, 0));
                }
                Mode::Cumulative { reverse } => {
                    let fill = self.padding_value(op, &operands, 0)?;
                    let global = self.global_type(op.operands[0], "an operand")?;
                    operands[0] =
                        self.mask_uneven(operands[0], &needs[0], &global, s.input, fill)?;
                    let p = self.local_type(operands[0])?.shape[s.input];
                    set_window(&mut kind, s.index, |w| {
                        w.size = p;
                        w.padding = if reverse { (0, p - 1) } else { (p - 1, 0) };
                    });
                    cumulative = Some((s.output, axes, reverse, n));
                }
            }
        }
        let mut results = vec![];
        for (held, global) in &computed {
            let shape = self.local_shape(&global.shape, held, &located(op, "a result"))?;
            let ty = Type::Tensor(TensorType::new(shape, global.dtype));
            results.push(self.dst.new_value(ty, None));
        }
        let regions = self.copy_regions(op)?;
        let mut new = op.clone();
        new.kind = kind;
        new.operands = operands.clone();
        new.results = results.clone();
        new.regions = regions;
        new.attrs.retain(|a| a.name != "sdy.sharding");
        self.ops.push(new);
        if let Some((d, axes, reverse, _)) = cumulative {
            let init = operands[data.len()];
            results[0] = self.with_earlier_totals(op, results[0], d, &axes, reverse, init)?;
        }
        for (j, (&r, (held, global))) in op.results.iter().zip(computed).enumerate() {
            let target = self.planned(r, &global)?;
            let v = self.complete(op, results[j], held, &target, &reduction, &global)?;
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

    /// The op's spatial dimensions with their windows.
    fn spatial_dims(&self, op: &'a Op) -> Result<Vec<Spatial>, String> {
        match &op.kind {
            OpKind::Convolution(attrs) => {
                let dn = &attrs.dimension_numbers;
                let kernel = self.global_type(op.operands[1], &located(op, "its kernel"))?;
                let sizes: Vec<i64> = dn
                    .kernel_spatial_dimensions
                    .iter()
                    .map(|&d| kernel.shape.get(d as usize).copied().unwrap_or(0))
                    .collect();
                let window = attrs
                    .resolve_window(&sizes)
                    .map_err(|e| located(op, &e.to_string()))?;
                Ok(window
                    .dims()
                    .iter()
                    .enumerate()
                    .map(|(i, w)| {
                        let input = dn.input_spatial_dimensions[i] as usize;
                        let kernel_dim = dn.kernel_spatial_dimensions[i] as usize;
                        let reversed = attrs
                            .window_reversal
                            .as_ref()
                            .is_some_and(|r| r.get(i) == Some(&true));
                        let n = self
                            .global_type(op.operands[0], "its input")
                            .map(|t| t.shape[input])
                            .unwrap_or(0);
                        // (A window as long as its output is a windowed factor instead.)
                        let sums = w.size == n
                            && n > 1
                            && w.padding.0 + w.padding.1 + 1 != n
                            && w.padding.0 >= 0
                            && w.padding.1 >= 0
                            && w.stride == 1
                            && w.base_dilation == 1
                            && w.window_dilation == 1
                            && !reversed;
                        Spatial {
                            input,
                            output: dn.output_spatial_dimensions[i] as usize,
                            window: *w,
                            index: i,
                            summed: sums.then_some(kernel_dim),
                        }
                    })
                    .collect())
            }
            OpKind::ReduceWindow { window } | OpKind::SelectAndScatter { window } => {
                let rank = self.global_type(op.operands[0], "an operand")?.rank();
                let window = window
                    .resolve(rank)
                    .map_err(|e| located(op, &e.to_string()))?;
                Ok(window
                    .dims()
                    .iter()
                    .enumerate()
                    .map(|(d, w)| Spatial {
                        input: d,
                        output: d,
                        window: *w,
                        index: d,
                        summed: None,
                    })
                    .collect())
            }
            _ => Err(unhandled(op, " as a windowed op")),
        }
    }

    /// How dimension `s` (input size `n`, output size `m`) split over `axes` is computed.
    fn mode(
        &self,
        op: &'a Op,
        s: &Spatial,
        axes: &[AxisRef],
        n: i64,
        m: i64,
    ) -> Result<Mode, String> {
        let w = &s.window;
        let t = self.grid.tiles(axes)?;
        let (p, q) = ((n + t - 1) / t, (m + t - 1) / t);
        let plain = w.base_dilation == 1 && w.window_dilation == 1 && w.stride == 1;
        if plain && w.size == n && n > 1 && self.cumulative_reducer(op) {
            if w.padding == (n - 1, 0) {
                return Ok(Mode::Cumulative { reverse: false });
            }
            if w.padding == (0, n - 1) {
                return Ok(Mode::Cumulative { reverse: true });
            }
        }
        let (lo, hi) = w.padding;
        if w.base_dilation != 1 || lo < 0 || hi < 0 || q * w.stride != p {
            return Ok(Mode::Gather);
        }
        // The last input row the piece's last window reads, past the piece's end.
        let extent = (w.size - 1) * w.window_dilation + 1;
        let after = (q - 1) * w.stride + extent - lo - p;
        if lo > p || after > p {
            return Ok(Mode::Gather);
        }
        let local = WindowDim {
            padding: (0, 0),
            ..*w
        };
        let rows = lo + p + after.max(0);
        if local.output_size(rows).ok() != Some(q) {
            return Ok(Mode::Gather);
        }
        Ok(Mode::Halo {
            before: lo,
            after: after.max(0),
        })
    }

    /// How a convolution sums over dimension `s` of its input split over `axes` (its kernel's
    /// dimension held over `kernel`): halos of the window's padding from each side where the
    /// input and kernel are split alike, evenly, and the halos fit in a neighbour's piece.
    fn sum_mode(
        &self,
        s: &Spatial,
        axes: &[AxisRef],
        kernel: &[AxisRef],
        n: i64,
    ) -> Result<Mode, String> {
        let t = self.grid.tiles(axes)?;
        let (lo, hi) = s.window.padding;
        let fits = kernel == axes && n % t == 0 && (0..=n / t).contains(&lo);
        if !fits || !(0..=n / t).contains(&hi) {
            return Ok(Mode::Gather);
        }
        Ok(Mode::Sum {
            before: lo,
            after: hi,
        })
    }

    /// Whether `op` is a single-input `reduce_window` whose reducer a cumulative window can
    /// be split under: one commutative combine, with an init value that is its identity (a
    /// constant) unless it is idempotent.
    fn cumulative_reducer(&self, op: &'a Op) -> bool {
        if !matches!(op.kind, OpKind::ReduceWindow { .. }) || op.operands.len() != 2 {
            return false;
        }
        let Some(combine) = reducer_op(&op.regions[0]) else {
            return false;
        };
        let Some(init) = self.constant_of(op.operands[1]) else {
            return matches!(combine, BinaryOp::Maximum | BinaryOp::Minimum);
        };
        let is = |want: f64| init.iter().all(|&x| x == want);
        match combine {
            BinaryOp::Add | BinaryOp::Or => is(0.0),
            BinaryOp::Multiply | BinaryOp::And => is(1.0),
            BinaryOp::Maximum | BinaryOp::Minimum => true,
            _ => false,
        }
    }

    /// The elements of global value `v` if it is a constant, seen through the broadcasts,
    /// reshapes and converts JAX wraps init values in.
    fn constant_of(&self, v: ValueId) -> Option<Vec<f64>> {
        let def = self.defs.get(&v)?;
        match &def.kind {
            OpKind::Constant(t) => Some(t.to_f64_vec()),
            OpKind::BroadcastInDim { .. } | OpKind::Reshape | OpKind::Convert => {
                self.constant_of(*def.operands.first()?)
            }
            _ => None,
        }
    }

    /// The value the window pads input `k` with: the init value of a `reduce_window`, zero
    /// for a convolution.
    fn padding_value(
        &mut self,
        op: &'a Op,
        operands: &[ValueId],
        k: usize,
    ) -> Result<ValueId, String> {
        match op.kind {
            OpKind::ReduceWindow { .. } => Ok(operands[op.operands.len() / 2 + k]),
            _ => {
                let dtype = self.local_type(operands[k])?.dtype;
                self.constant(Ok(Tensor::zeros(TensorType::scalar(dtype))))
            }
        }
    }

    /// `x` (held as `held`) with the padding of an uneven dimension `d` replaced by `fill`.
    fn mask_uneven(
        &mut self,
        x: ValueId,
        held: &Held,
        global: &TensorType,
        d: usize,
        fill: ValueId,
    ) -> Result<ValueId, String> {
        if !self.uneven(global.shape[d], &held[d])? {
            return Ok(x);
        }
        self.fill_padding(x, held, global, &[d], fill)
    }

    /// The piece `x` joined along `d` with the `before` rows that end the previous tile of
    /// the dimension split over `axes` and the `after` rows that start the next; at the
    /// dimension's ends, rows of `fill`.
    fn with_halo(
        &mut self,
        x: ValueId,
        d: usize,
        axes: &[AxisRef],
        before: i64,
        after: i64,
        fill: ValueId,
    ) -> Result<ValueId, String> {
        let p = self.local_type(x)?.shape[d];
        let groups = self.grid.groups(axes)?;
        let t = groups[0].len() as i64;
        let mut parts = vec![];
        if before > 0 {
            let rows = self.rows(x, d, p - before, p)?;
            let pairs = neighbour_pairs(&groups, false);
            let halo = self.collective_permute(rows, pairs)?;
            parts.push(self.edge_fill(halo, axes, 0, fill)?);
        }
        parts.push(x);
        if after > 0 {
            let rows = self.rows(x, d, 0, after)?;
            let pairs = neighbour_pairs(&groups, true);
            let halo = self.collective_permute(rows, pairs)?;
            parts.push(self.edge_fill(halo, axes, t - 1, fill)?);
        }
        if parts.len() == 1 {
            return Ok(x);
        }
        let mut ty = self.local_type(x)?;
        ty.shape[d] = p + before + after;
        Ok(self.emit(
            OpKind::Concatenate {
                dimension: d as i64,
            },
            parts,
            Type::Tensor(ty),
            vec![],
        ))
    }

    /// Rows `start..limit` of `x` along `d`.
    fn rows(&mut self, x: ValueId, d: usize, start: i64, limit: i64) -> Result<ValueId, String> {
        let t = self.local_type(x)?;
        let mut starts = vec![0; t.rank()];
        let mut limits = t.shape.clone();
        starts[d] = start;
        limits[d] = limit;
        let mut shape = t.shape.clone();
        shape[d] = limit - start;
        Ok(self.emit(
            OpKind::Slice {
                start_indices: starts,
                limit_indices: limits,
                strides: vec![1; t.rank()],
            },
            vec![x],
            Type::Tensor(TensorType::new(shape, t.dtype)),
            vec![],
        ))
    }

    /// `x` on the devices holding tile `edge` of the dimension split over `axes` replaced by
    /// the scalar `fill` (a halo that lies beyond the dimension's end: the permute left it
    /// zero, which is already a convolution's padding).
    fn edge_fill(
        &mut self,
        x: ValueId,
        axes: &[AxisRef],
        edge: i64,
        fill: ValueId,
    ) -> Result<ValueId, String> {
        if self.is_zero_constant(fill) {
            return Ok(x);
        }
        let tile = self.offset(axes, 1)?;
        let edge = self.constant(Tensor::from_i64(vec![], DType::I32, vec![edge]))?;
        let scalar_pred = Type::Tensor(TensorType::scalar(DType::Bool));
        let at_edge = self.emit(
            OpKind::Compare {
                direction: ComparisonDirection::Eq,
                compare_type: None,
            },
            vec![tile, edge],
            scalar_pred,
            vec![],
        );
        let t = self.local_type(x)?;
        let preds = self.splat_to(at_edge, &TensorType::new(t.shape.clone(), DType::Bool));
        let fills = self.splat_to(fill, &t);
        Ok(self.emit(
            OpKind::Select,
            vec![preds, fills, x],
            Type::Tensor(t),
            vec![],
        ))
    }

    /// Whether per-device value `v` is a constant zero (a convolution's padding value).
    fn is_zero_constant(&self, v: ValueId) -> bool {
        self.ops.iter().rev().any(|o| {
            o.results.first() == Some(&v)
                && matches!(&o.kind, OpKind::Constant(t)
                    if t.to_f64_vec().iter().all(|&x| x == 0.0))
        })
    }

    /// The scalar `v` broadcast to `ty`.
    fn splat_to(&mut self, v: ValueId, ty: &TensorType) -> ValueId {
        self.emit(
            OpKind::BroadcastInDim {
                broadcast_dimensions: vec![],
            },
            vec![v],
            Type::Tensor(ty.clone()),
            vec![],
        )
    }

    /// The local cumulative result `r` (along `d`, split over `axes`) completed with the
    /// totals of the pieces before this device's (after it, in `reverse`): each piece's
    /// total gathered, the others masked to `init`, reduced, and combined with `r`.
    fn with_earlier_totals(
        &mut self,
        op: &'a Op,
        r: ValueId,
        d: usize,
        axes: &[AxisRef],
        reverse: bool,
        init: ValueId,
    ) -> Result<ValueId, String> {
        let Some(combine) = reducer_op(&op.regions[0]) else {
            return Err(unhandled(op, " as a cumulative window with this reducer"));
        };
        let ty = self.local_type(r)?;
        let p = ty.shape[d];
        let total = if reverse {
            self.rows(r, d, 0, 1)?
        } else {
            self.rows(r, d, p - 1, p)?
        };
        let totals = self.all_gather(total, d, axes)?;
        let tt = self.local_type(totals)?;
        let counts = TensorType::new(tt.shape.clone(), DType::I32);
        let index = self.emit(
            OpKind::Iota {
                dimension: d as i64,
            },
            vec![],
            Type::Tensor(counts.clone()),
            vec![],
        );
        let tile = self.offset(axes, 1)?;
        let tiles = self.splat_to(tile, &counts);
        let direction = if reverse {
            ComparisonDirection::Gt
        } else {
            ComparisonDirection::Lt
        };
        let preds = TensorType::new(tt.shape.clone(), DType::Bool);
        let earlier = self.emit(
            OpKind::Compare {
                direction,
                compare_type: None,
            },
            vec![index, tiles],
            Type::Tensor(preds),
            vec![],
        );
        let inits = self.splat_to(init, &tt);
        let masked = self.emit(
            OpKind::Select,
            vec![earlier, totals, inits],
            Type::Tensor(tt.clone()),
            vec![],
        );
        let mut map = ValueMap::new();
        let body = clone_region(self.src, &op.regions[0], &mut self.dst, &mut map)
            .map_err(|e| located(op, &e.message))?;
        let kept: Vec<i64> = (0..ty.rank())
            .filter(|&k| k != d)
            .map(|k| k as i64)
            .collect();
        let reduced_shape: Vec<i64> = kept.iter().map(|&k| ty.shape[k as usize]).collect();
        let prefix = self.emit(
            OpKind::Reduce {
                dimensions: vec![d as i64],
            },
            vec![masked, init],
            Type::Tensor(TensorType::new(reduced_shape, ty.dtype)),
            vec![body],
        );
        let prefix = self.emit(
            OpKind::BroadcastInDim {
                broadcast_dimensions: kept,
            },
            vec![prefix],
            Type::Tensor(ty.clone()),
            vec![],
        );
        Ok(self.emit(
            OpKind::Binary(combine),
            vec![prefix, r],
            Type::Tensor(ty),
            vec![],
        ))
    }
}

/// Whether a window along a dimension reads only its own output's input (size 1, stride 1,
/// nothing padded or dilated): the split needs nothing from neighbours.
fn is_pointwise(w: &WindowDim) -> bool {
    w.size == 1 && w.is_plain()
}

/// Source-target pairs sending each tile to the device of the next tile in its group
/// (`backward`: of the previous tile).
fn neighbour_pairs(groups: &[Vec<i64>], backward: bool) -> Vec<(i64, i64)> {
    let mut pairs = vec![];
    for g in groups {
        for w in g.windows(2) {
            pairs.push(if backward { (w[1], w[0]) } else { (w[0], w[1]) });
        }
    }
    pairs
}

/// Changes window dimension `i` of a convolution or `reduce_window` (filling in absent
/// attributes with their defaults first).
fn set_window(kind: &mut OpKind, i: usize, change: impl FnOnce(&mut WindowDim)) {
    // A convolution's window size is its kernel's shape, not an attribute to set.
    let (padding, size, rank) = match kind {
        OpKind::Convolution(attrs) => {
            let rank = attrs.dimension_numbers.input_spatial_dimensions.len();
            (&mut attrs.padding, None, rank)
        }
        OpKind::ReduceWindow { window } | OpKind::SelectAndScatter { window } => {
            let rank = window.window_dimensions.len();
            (
                &mut window.padding,
                window.window_dimensions.get_mut(i),
                rank,
            )
        }
        _ => return,
    };
    let padding = padding.get_or_insert_with(|| vec![(0, 0); rank]);
    let mut w = WindowDim {
        size: size.as_deref().copied().unwrap_or(0),
        stride: 1,
        base_dilation: 1,
        window_dilation: 1,
        padding: padding[i],
    };
    change(&mut w);
    padding[i] = w.padding;
    if let Some(size) = size {
        *size = w.size;
    }
}
