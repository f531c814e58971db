//! Peak HBM use, from the compiler's buffer assignment with TPU sizes.
//!
//! The compiler ([`systolic_compiler::passes::buffer_assignment`]) gives every value a live
//! range and lets results take over dying operands' buffers (elementwise ops and loop fusions
//! in place, reshapes as bitcasts); values inside fusions and reducer bodies need no buffer.
//! Here each of its buffers is sized as the TPU lays it out ([`crate::layout`]: tiles of
//! (sublanes, 128)), and the buffers are placed in HBM with the compiler's best-fit allocator.
//! Parameters (the caller's, not donated) and constants (the executable's) are in HBM for the
//! whole run. A call left in the program (with `--no-compile`) adds its callee's peak while it
//! runs. Loops keep their state in one buffer per carried value and update slices in place, as
//! XLA does ([`crate::loop_buffers`]), where the compiler's assignment has separate buffers.

use crate::error::NamedBuffer;
use crate::layout::padded_bytes;
use crate::loop_buffers::join_loop_buffers;
use crate::work::tensor_of;
use std::collections::HashMap;
use systolic_compiler::passes::buffer_assignment::heap::{self, Request};
use systolic_compiler::passes::buffer_assignment::liveness::Liveness;
use systolic_compiler::passes::buffer_assignment::{assign_buffers, Placement};
use systolic_ir::{Func, Module, OpKind, ValueId};

/// The peak of a function's HBM buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPeak {
    /// Bytes the function needs in HBM: parameters, constants and the placed buffers.
    pub bytes: u64,
    /// The top-level op running when the most bytes are live (`%5 = stablehlo.dot_general`).
    pub at: String,
    /// Buffers live then (parameters and constants included), largest first.
    pub buffers: Vec<NamedBuffer>,
    /// Bytes of the parameters among [`MemoryPeak::bytes`] (the caller's buffers, already in
    /// HBM when the program runs).
    pub param_bytes: u64,
}

/// Stack left when a call grows the stack (`stacker`): enough to plan one function.
const STACK_RED_ZONE: usize = 256 << 10;
/// Stack added each time: a chain of thousands of calls is planned without overflowing the
/// thread's stack.
const STACK_GROWTH: usize = 4 << 20;

fn value_name(func: &Func, v: ValueId) -> String {
    match func.values.get(v.index()).and_then(|d| d.name.as_deref()) {
        Some(n) => format!("%{n}"),
        None => format!("%{}", v.0),
    }
}

fn named(func: &Func, v: ValueId, prefix: &str) -> Option<NamedBuffer> {
    let t = tensor_of(func, v)?;
    Some(NamedBuffer {
        name: format!("{prefix}{}", value_name(func, v)),
        ty: t.to_string(),
        bytes: padded_bytes(t),
    })
}

/// Peak HBM use of `func` (a function of `module`).
pub fn function_peak(module: &Module, func: &Func) -> MemoryPeak {
    let mut callees = Callees {
        bytes: HashMap::new(),
        walking: vec![func.name.clone()],
    };
    peak_of(module, func, "", true, &mut callees)
}

/// What to call a buffer the compiler shares between `values`: the first value's name (with
/// the others that reuse it in place), typed and sized by the largest of them.
fn slot_label(func: &Func, values: &[ValueId], prefix: &str) -> Option<NamedBuffer> {
    let first = named(func, *values.first()?, prefix)?;
    let bytes = values
        .iter()
        .filter_map(|&v| named(func, v, prefix))
        .map(|b| b.bytes)
        .max()
        .unwrap_or(first.bytes);
    let others: Vec<String> = values[1..].iter().map(|&v| value_name(func, v)).collect();
    let name = if others.is_empty() {
        first.name
    } else {
        format!("{} (reused by {})", first.name, others.join(", "))
    };
    Some(NamedBuffer {
        name,
        ty: first.ty,
        bytes,
    })
}

/// One buffer for the allocator, with what to call it.
struct Placed {
    request: Request,
    label: NamedBuffer,
}

/// What the walk knows of callees: each one's peak (the same at every call site, so computed
/// once: a call DAG would otherwise be walked once per path), and the functions being walked.
struct Callees {
    bytes: HashMap<String, u64>,
    /// Outermost first. A call to one of these is recursion, which the schedule refuses with
    /// the cycle named; here it adds nothing.
    walking: Vec<String>,
}

fn peak_of(
    module: &Module,
    func: &Func,
    prefix: &str,
    with_params: bool,
    callees: &mut Callees,
) -> MemoryPeak {
    let assignment = assign_buffers(func);
    let live = Liveness::of(func);
    let mut resident: Vec<NamedBuffer> = vec![];
    let mut param_bytes = 0;
    for (i, p) in assignment.placements.iter().enumerate() {
        let v = ValueId(i as u32);
        let (keep, param) = match p {
            Placement::Parameter(_) => (with_params, true),
            Placement::Constant => (true, false),
            _ => (false, false),
        };
        if keep {
            if let Some(b) = named(func, v, prefix) {
                if param {
                    param_bytes += b.bytes;
                }
                resident.push(b);
            }
        }
    }
    // One buffer per group of slots XLA keeps together (loop state, in-place updates): live
    // from the first slot's start to the last one's end, as large as the largest.
    let joined = join_loop_buffers(func, &assignment);
    let mut groups: Vec<(usize, Vec<usize>)> = vec![];
    let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
    for (s, &root) in joined.root.iter().enumerate() {
        if joined.resident[s] {
            continue;
        }
        let g = *group_of.entry(root).or_insert_with(|| {
            groups.push((root, vec![]));
            groups.len() - 1
        });
        groups[g].1.push(s);
    }
    let mut placed: Vec<Placed> = groups
        .iter()
        .filter_map(|(_, members)| {
            let slots: Vec<&systolic_compiler::passes::buffer_assignment::Slot> =
                members.iter().map(|&s| &assignment.slots[s]).collect();
            // Values sharing a slot have one shape and type (in place) or one size (bitcast);
            // the largest padded size covers both.
            let values: Vec<ValueId> = slots
                .iter()
                .flat_map(|s| s.values.iter().copied())
                .collect();
            let label = slot_label(func, &values, prefix)?;
            let size = heap::align(label.bytes as usize);
            Some(Placed {
                request: Request {
                    size,
                    start: slots.iter().map(|s| s.start).min().unwrap_or(0),
                    end: slots.iter().map(|s| s.end).max().unwrap_or(0),
                },
                label,
            })
        })
        .collect();
    // Top-level ops and where they start, for calls and for naming the peak.
    let top: Vec<(u32, &systolic_ir::Op)> = func
        .body
        .entry()
        .map(|b| {
            b.ops
                .iter()
                .enumerate()
                .filter_map(|(k, op)| live.positions.get(&(0, k)).map(|&p| (p, op)))
                .collect()
        })
        .unwrap_or_default();
    for &(pos, op) in &top {
        let callee = match &op.kind {
            OpKind::Call { callee } => callee,
            OpKind::Composite { decomposition, .. } => decomposition,
            _ => continue,
        };
        let Some(f) = module.func(callee) else {
            continue;
        };
        if callees.walking.iter().any(|w| w == callee) {
            continue;
        }
        let bytes = match callees.bytes.get(callee) {
            Some(&b) => b,
            None => {
                let prefix = crate::call_path::enter(prefix, &format!("@{callee}/"));
                callees.walking.push(callee.clone());
                let b = stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
                    peak_of(module, f, &prefix, false, callees).bytes
                });
                callees.walking.pop();
                callees.bytes.insert(callee.clone(), b);
                b
            }
        };
        if bytes > 0 {
            placed.push(Placed {
                request: Request {
                    size: heap::align(bytes as usize),
                    start: pos,
                    end: pos,
                },
                label: NamedBuffer {
                    name: format!("{prefix}@{callee} temporaries"),
                    ty: "(callee buffers)".into(),
                    bytes,
                },
            });
        }
    }
    let requests: Vec<Request> = placed.iter().map(|p| p.request).collect();
    let (_, slab) = heap::place(&requests);
    let resident_bytes: u64 = resident.iter().map(|b| b.bytes).sum();

    // The position with the most bytes live, to say where the peak is and what is live.
    let live_at = |pos: u32| -> u64 {
        requests
            .iter()
            .filter(|r| r.start <= pos && pos <= r.end)
            .map(|r| r.size as u64)
            .sum()
    };
    // Live bytes only grow where a buffer starts, so the peak is at some buffer's start.
    let peak_pos = requests
        .iter()
        .map(|r| r.start)
        .max_by_key(|&p| (live_at(p), std::cmp::Reverse(p)))
        .unwrap_or(0);
    let at = top
        .iter()
        .rev()
        .find(|(p, _)| *p <= peak_pos)
        .map(|(_, op)| {
            let result = op
                .results
                .first()
                .map_or_else(|| "()".to_string(), |&v| value_name(func, v));
            format!("{prefix}{result} = {}", op.kind.name())
        })
        .unwrap_or_else(|| "the start".into());
    let mut buffers = resident;
    buffers.extend(
        placed
            .into_iter()
            .filter(|p| p.request.start <= peak_pos && peak_pos <= p.request.end)
            .map(|p| p.label),
    );
    buffers.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    MemoryPeak {
        bytes: resident_bytes + slab as u64,
        at,
        buffers,
        param_bytes,
    }
}
