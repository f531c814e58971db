//! Buffer assignment: where every value of a function lives in memory, and how much memory
//! the function needs at its peak (XLA's buffer assignment and heap simulation, simplified).
//!
//! 1. [`liveness`]: ops are numbered in program order (control-flow bodies inline) and every
//!    value gets a live range from its definition to its last read.
//! 2. Sharing: a result may take over an operand's buffer when that buffer dies at the op —
//!    **in place** for elementwise ops and loop fusions reading the operand elementwise, with
//!    the same shape and element type ([`in_place`]); and a `reshape` is a **bitcast** in the
//!    row-major layout, so its result always shares its operand's buffer.
//! 3. [`heap`]: the remaining buffers (slots) are placed in one slab by a best-fit offset
//!    allocator; the slab size is the function's peak memory.
//!
//! Parameters (owned by the caller) and constants (owned by the executable) are not in the
//! slab and are never written in place; block arguments of control-flow regions get buffers
//! live for the whole op and are not written in place either. Values computed inside fusions,
//! reduce and sort bodies need no buffer. The pass records the peak as the function attribute
//! `systolic.peak_memory_bytes`; backends call [`assign_buffers`] for the full assignment.

pub mod heap;
pub mod in_place;
pub mod liveness;

use crate::pass::Pass;
use liveness::{is_control_flow, Liveness, Origin};
use systolic_ir::{Attribute, Diagnostic, Func, Module, NamedAttr, OpKind, Region, ValueId};

/// The function attribute the pass writes.
pub const PEAK_MEMORY_ATTR: &str = "systolic.peak_memory_bytes";

/// Where a value's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Not a tensor (token, tuple) or not defined by the function's program.
    Nowhere,
    /// Function parameter `i`: the caller's buffer.
    Parameter(usize),
    /// A constant: held by the executable.
    Constant,
    /// Computed inside a fusion, reduce or sort body: no buffer.
    Internal,
    /// In slot `i` of [`BufferAssignment::slots`].
    Slot(usize),
}

/// A buffer in the slab, shared by one or more values over its lifetime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Byte offset in the slab (a multiple of [`heap::ALIGNMENT`]).
    pub offset: usize,
    /// Bytes reserved (the values' size rounded up to [`heap::ALIGNMENT`]).
    pub size: usize,
    /// Bytes of the values it holds.
    pub bytes: usize,
    /// First position it is live at.
    pub start: u32,
    /// Last position it is live at.
    pub end: u32,
    /// The values it holds, in order of definition.
    pub values: Vec<ValueId>,
}

/// Why a value shares another's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareKind {
    /// The op overwrites its dying operand (elementwise or loop fusion).
    InPlace,
    /// A reshape: the same bytes seen with another shape.
    Bitcast,
}

/// A value stored in the buffer of an operand of the op that computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// The value computed.
    pub value: ValueId,
    /// The operand whose buffer it takes.
    pub over: ValueId,
    /// Why.
    pub kind: ShareKind,
}

/// The buffers of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferAssignment {
    /// Where each value lives (indexed by [`ValueId::index`]).
    pub placements: Vec<Placement>,
    /// The slab's buffers.
    pub slots: Vec<Slot>,
    /// Values written over an operand's buffer.
    pub shares: Vec<Share>,
    /// Size of the slab: the bytes the function needs for its temporaries and results.
    pub peak_bytes: usize,
    /// The most bytes live at one moment (a lower bound of `peak_bytes`; equal when the
    /// allocator wastes nothing to fragmentation).
    pub live_peak_bytes: usize,
}

impl BufferAssignment {
    /// Where `v` lives.
    pub fn placement(&self, v: ValueId) -> Placement {
        self.placements
            .get(v.index())
            .copied()
            .unwrap_or(Placement::Nowhere)
    }

    /// The slot holding `v`, if it is in the slab.
    pub fn slot_of(&self, v: ValueId) -> Option<&Slot> {
        match self.placement(v) {
            Placement::Slot(s) => self.slots.get(s),
            _ => None,
        }
    }

    /// The byte offset of `v` in the slab.
    pub fn offset_of(&self, v: ValueId) -> Option<usize> {
        self.slot_of(v).map(|s| s.offset)
    }

    /// The operand `v` is written over in place, if any.
    pub fn in_place_of(&self, v: ValueId) -> Option<ValueId> {
        self.shares
            .iter()
            .find(|s| s.value == v && s.kind == ShareKind::InPlace)
            .map(|s| s.over)
    }
}

/// Slots being formed, before placement.
struct Builder<'f> {
    func: &'f Func,
    live: Liveness,
    placements: Vec<Placement>,
    slots: Vec<Slot>,
    /// Slots that may be written in place (not block arguments of control flow).
    writable: Vec<bool>,
    shares: Vec<Share>,
    block_counter: u32,
}

/// Assigns buffers to every value of `func`.
pub fn assign_buffers(func: &Func) -> BufferAssignment {
    let live = Liveness::of(func);
    let n = func.values.len();
    let mut placements = vec![Placement::Nowhere; n];
    for (i, p) in placements.iter_mut().enumerate() {
        let is_tensor = func.values[i].ty.as_tensor().is_some();
        *p = match live.origin[i] {
            Some(Origin::Param(k)) => Placement::Parameter(k),
            Some(Origin::Constant) if is_tensor => Placement::Constant,
            Some(Origin::Internal) => Placement::Internal,
            _ => Placement::Nowhere,
        };
    }
    let mut b = Builder {
        func,
        live,
        placements,
        slots: vec![],
        writable: vec![],
        shares: vec![],
        block_counter: 0,
    };
    b.visit_region(&func.body);
    let requests: Vec<heap::Request> = b
        .slots
        .iter()
        .map(|s| heap::Request {
            size: s.size,
            start: s.start,
            end: s.end,
        })
        .collect();
    let (offsets, peak_bytes) = heap::place(&requests);
    for (slot, off) in b.slots.iter_mut().zip(offsets) {
        slot.offset = off;
    }
    BufferAssignment {
        placements: b.placements,
        slots: b.slots,
        shares: b.shares,
        peak_bytes,
        live_peak_bytes: heap::live_peak(&requests),
    }
}

impl Builder<'_> {
    fn visit_region(&mut self, region: &Region) {
        for block in &region.blocks {
            let id = self.block_counter;
            self.block_counter += 1;
            for (k, op) in block.ops.iter().enumerate() {
                let pos = self.live.positions[&(id, k)];
                let mut taken = vec![];
                for &r in &op.results {
                    if self.live.origin(r) != Some(Origin::Computed) {
                        continue;
                    }
                    if self.func.value_type(r).as_tensor().is_none() {
                        continue;
                    }
                    if let Some((slot, over, kind)) = self.shareable(op, r, pos, &taken) {
                        taken.push(slot);
                        self.join(slot, r);
                        self.shares.push(Share {
                            value: r,
                            over,
                            kind,
                        });
                    } else {
                        self.new_slot(r, true);
                    }
                }
                if is_control_flow(&op.kind) {
                    for region in &op.regions {
                        for b in &region.blocks {
                            for &a in &b.args {
                                if self.func.value_type(a).as_tensor().is_some() {
                                    self.new_slot(a, false);
                                }
                            }
                        }
                        self.visit_region(region);
                    }
                }
            }
        }
    }

    /// The slot `r` (a result of `op` at `pos`) can take over, the operand it belongs to and
    /// why; `taken` are slots already given to other results of this op.
    fn shareable(
        &self,
        op: &systolic_ir::Op,
        r: ValueId,
        pos: u32,
        taken: &[usize],
    ) -> Option<(usize, ValueId, ShareKind)> {
        let slot_of = |v: ValueId| match self.placements[v.index()] {
            Placement::Slot(s) => Some(s),
            _ => None,
        };
        if op.kind == OpKind::Reshape {
            let v = *op.operands.first()?;
            let s = slot_of(v)?;
            let same_bytes = self.func.value_type(v).as_tensor()?.byte_size()
                == self.func.value_type(r).as_tensor()?.byte_size();
            return (same_bytes && !taken.contains(&s)).then_some((s, v, ShareKind::Bitcast));
        }
        let block = self.live.block_of[r.index()];
        let safe = in_place::candidate_operands(self.func, op, r);
        safe.iter().map(|&i| op.operands[i]).find_map(|v| {
            let s = slot_of(v)?;
            // Every operand in these bytes (`v` again, or a bitcast of it) must be read
            // elementwise, or the op could overwrite elements it has yet to read.
            let all_safe = (0..op.operands.len())
                .filter(|&k| slot_of(op.operands[k]) == Some(s))
                .all(|k| safe.contains(&k));
            let ok = all_safe
                && self.writable[s]
                && !taken.contains(&s)
                && self.slots[s].end == pos
                && self.live.block_of[v.index()] == block;
            ok.then_some((s, v, ShareKind::InPlace))
        })
    }

    fn new_slot(&mut self, v: ValueId, writable: bool) {
        let Some(range) = self.live.range(v) else {
            return;
        };
        let bytes = self
            .func
            .value_type(v)
            .as_tensor()
            .map_or(0, |t| t.byte_size());
        self.placements[v.index()] = Placement::Slot(self.slots.len());
        self.slots.push(Slot {
            offset: 0,
            size: heap::align(bytes),
            bytes,
            start: range.def,
            end: range.last_use,
            values: vec![v],
        });
        self.writable.push(writable);
    }

    fn join(&mut self, slot: usize, v: ValueId) {
        if let Some(range) = self.live.range(v) {
            let s = &mut self.slots[slot];
            s.end = s.end.max(range.last_use);
            s.values.push(v);
        }
        self.placements[v.index()] = Placement::Slot(slot);
    }
}

/// The bytes `func` needs for its temporaries and results: what [`BufferAssignmentPass`]
/// recorded, or computed now when the pass has not run (a module compiled without
/// optimisation).
pub fn peak_memory_bytes(func: &Func) -> u64 {
    let recorded = func.attrs.iter().find_map(|a| match a.value {
        Attribute::Int(bytes, _) if a.name == PEAK_MEMORY_ATTR => u64::try_from(bytes).ok(),
        _ => None,
    });
    recorded.unwrap_or_else(|| assign_buffers(func).peak_bytes as u64)
}

/// Records each function's peak memory as the attribute `systolic.peak_memory_bytes`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BufferAssignmentPass;

impl Pass for BufferAssignmentPass {
    fn name(&self) -> &'static str {
        "buffer-assignment"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            if func.body.blocks.is_empty() {
                continue;
            }
            let peak = assign_buffers(func).peak_bytes;
            let value = Attribute::Int(i64::try_from(peak).unwrap_or(i64::MAX), None);
            match func.attrs.iter_mut().find(|a| a.name == PEAK_MEMORY_ATTR) {
                Some(a) if a.value == value => {}
                Some(a) => {
                    a.value = value;
                    changed = true;
                }
                None => {
                    func.attrs.push(NamedAttr::new(PEAK_MEMORY_ATTR, value));
                    changed = true;
                }
            }
        }
        Ok(changed)
    }
}
