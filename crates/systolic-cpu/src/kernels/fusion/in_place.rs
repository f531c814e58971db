//! Which results of a loop program may be written into the storage of an operand that dies at
//! the kernel: in-place updates, as XLA's buffer assignment shares an operand's buffer with an
//! output of an elementwise fusion (`input_output_alias` for a donated parameter).
//!
//! A JAX user donates the parameters of a training step (`donate_argnums`) so that
//! `w - lr * g` overwrites `w` instead of holding both: without this, donating saved nothing
//! inside a call. The executor already hands a kernel the operands whose value dies there by
//! value ([`crate::kernel::Arg::Owned`]), donated arguments among them; this module decides,
//! at lowering time, over which operands each result may be written with the same answer,
//! and [`super::kernel::LoopKernel`] picks, when it runs, an operand it turns out to own.
//!
//! Operand `a` may hold result `r` when:
//! - they have the same dtype and element count, and exactly one stage (`s`) stores `r`,
//!   once, over as many elements as `a` has;
//! - every read of `a` in stage `s` is element-for-element: a body load at offset 0 with the
//!   row-major strides of the stage's loop, so the worker owning block `[at, at + n)` of the
//!   result reads exactly block `[at, at + n)` of `a`, before writing it — no other worker's
//!   write can reach what it reads;
//! - inside the block body, nothing reads `a` after `r` is stored: neither a load (it would see
//!   the new values) nor an instruction reading a register loaded from `a` (such a register
//!   may be a view of `a`'s memory rather than a copy, see [`super::access::view`]);
//! - no later stage reads `a` at all (earlier stages may read it any way they like: a stage
//!   finishes on every worker before the next begins).

use super::program::{Access, Dest, Instr, LoopProgram, Source, Stage};
use systolic_ir::row_major_strides;

/// Per result of `program`, the operands it may be written over when that operand dies at
/// the kernel, in operand order (the kernel takes the first one it owns that no other result
/// took).
pub fn in_place_candidates(program: &LoopProgram) -> Vec<Vec<usize>> {
    program
        .result_types
        .iter()
        .enumerate()
        .map(|(r, result)| {
            let Some(s) = only_stage_storing(program, r) else {
                return vec![];
            };
            (0..program.arg_types.len())
                .filter(|&a| {
                    let arg = &program.arg_types[a];
                    arg.dtype == result.dtype
                        && arg.num_elements() == result.num_elements()
                        && program.stages[s].len == arg.num_elements()
                        && !program.stages[s + 1..].iter().any(|t| reads(t, a))
                        && read_before_overwritten(&program.stages[s], a, r)
                })
                .collect()
        })
        .collect()
}

/// [`in_place_candidates`] for a row program (see [`super::rows`]), whose stages do not
/// finish on every worker before the next begins: each worker runs every stage over its own
/// chunk of rows in turn. Operand `a` may hold result `r` when it may in a loop program and,
/// besides, every stage that reads `a` reads it element-for-element over the whole shape, so a
/// worker reads only the rows it owns — which it writes only after its earlier stages have
/// read them, and which no other worker touches.
pub fn row_in_place_candidates(program: &LoopProgram) -> Vec<Vec<usize>> {
    in_place_candidates(program)
        .into_iter()
        .map(|candidates| {
            candidates
                .into_iter()
                .filter(|&a| {
                    let elements = program.arg_types[a].num_elements();
                    program.stages.iter().all(|stage| {
                        !reads(stage, a)
                            || (stage.len == elements && reads_element_for_element(stage, a))
                    })
                })
                .collect()
        })
        .collect()
}

/// True when every load of operand `a` in `stage` is in the block body and
/// [`element_for_element`].
fn reads_element_for_element(stage: &Stage, a: usize) -> bool {
    let from_a =
        |i: &Instr| matches!(i, Instr::Load { access, .. } if access.source == Source::Arg(a));
    !stage.prologue.iter().any(from_a)
        && stage.body.iter().all(|i| match i {
            Instr::Load { access, .. } if from_a(i) => element_for_element(stage, access),
            _ => true,
        })
}

/// True when `access` reads the block `[at, at + n)` of the stage's loop from exactly elements
/// `[at, at + n)` of its source: offset 0 and the row-major strides of the loop (dimensions of
/// size 1 take any stride).
fn element_for_element(stage: &Stage, access: &Access) -> bool {
    let dims: Vec<i64> = stage.dims.iter().map(|&d| d as i64).collect();
    let identity = row_major_strides(&dims);
    access.offset == 0
        && access.strides.len() == identity.len()
        && stage
            .dims
            .iter()
            .zip(access.strides.iter().zip(&identity))
            .all(|(&d, (&s, &i))| d <= 1 || s == i)
}

/// The one stage storing result `r` when exactly one store anywhere writes it.
fn only_stage_storing(program: &LoopProgram, r: usize) -> Option<usize> {
    let mut found = None;
    for (s, stage) in program.stages.iter().enumerate() {
        for instr in stage.prologue.iter().chain(&stage.body) {
            if matches!(instr, Instr::Store { dest: Dest::Output(o), .. } if *o == r) {
                if found.is_some() {
                    return None;
                }
                found = Some(s);
            }
        }
    }
    found
}

/// True when `stage` loads operand `a` anywhere.
fn reads(stage: &Stage, a: usize) -> bool {
    stage
        .prologue
        .iter()
        .chain(&stage.body)
        .any(|i| matches!(i, Instr::Load { access, .. } if access.source == Source::Arg(a)))
}

/// True when, in `stage`, operand `a` is read only element-for-element in the block body and
/// never after result `r` is stored (directly or through a register loaded from it).
fn read_before_overwritten(stage: &Stage, a: usize, r: usize) -> bool {
    let prologue_reads = stage
        .prologue
        .iter()
        .any(|i| matches!(i, Instr::Load { access, .. } if access.source == Source::Arg(a)));
    if prologue_reads {
        return false;
    }
    // Per register: holds a block of `a` (possibly a view of its memory).
    let mut holds_a = vec![false; stage.regs.len()];
    let mut stored = false;
    let reads_a = |holds: &[bool], reg: usize| holds.get(reg).copied().unwrap_or(false);
    for instr in &stage.body {
        match instr {
            Instr::Load { access, dst } => {
                let from_a = access.source == Source::Arg(a);
                if from_a && (stored || !element_for_element(stage, access)) {
                    return false;
                }
                if let Some(h) = holds_a.get_mut(*dst) {
                    *h = from_a;
                }
            }
            Instr::Apply { inputs, dst, .. } => {
                if stored && inputs.iter().any(|&i| reads_a(&holds_a, i)) {
                    return false;
                }
                if let Some(h) = holds_a.get_mut(*dst) {
                    *h = false;
                }
            }
            Instr::Fold { src, .. } => {
                if stored && reads_a(&holds_a, *src) {
                    return false;
                }
            }
            Instr::Store { src, dest, .. } => {
                if stored && reads_a(&holds_a, *src) {
                    return false;
                }
                if *dest == Dest::Output(r) {
                    stored = true;
                }
            }
        }
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::fusion::elementwise::Body;
    use crate::kernels::fusion::program::Access;
    use crate::kernels::fusion::reg::Lane;
    use systolic_ir::{DType, TensorType};

    fn f32s(shape: &[i64]) -> TensorType {
        TensorType::new(shape.to_vec(), DType::F32)
    }

    fn load(source: Source, strides: Vec<usize>, dst: usize) -> Instr {
        Instr::Load {
            access: Access {
                source,
                dtype: DType::F32,
                offset: 0,
                strides,
            },
            dst,
        }
    }

    fn apply(inputs: Vec<usize>, dst: usize) -> Instr {
        Instr::Apply {
            body: Body::Bitcast {
                from: DType::F32,
                to: DType::F32,
            },
            inputs,
            dst,
        }
    }

    fn store(src: usize, dest: Dest) -> Instr {
        Instr::Store {
            src,
            dtype: DType::F32,
            dest,
        }
    }

    fn program(args: usize, stages: Vec<Vec<Instr>>, dims: Vec<usize>) -> LoopProgram {
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let len = dims.iter().product();
        LoopProgram {
            arg_types: vec![f32s(&shape); args],
            result_types: vec![f32s(&shape)],
            constants: vec![],
            temp_types: vec![f32s(&shape)],
            stages: stages
                .into_iter()
                .map(|body| Stage {
                    dims: dims.clone(),
                    len,
                    prologue: vec![],
                    body,
                    regs: vec![Lane::F32; 4],
                })
                .collect(),
        }
    }

    #[test]
    fn an_elementwise_update_may_overwrite_its_first_dying_operand() {
        // out = f(a, b), a and b read element for element before the store.
        let p = program(
            2,
            vec![vec![
                load(Source::Arg(0), vec![4, 1], 0),
                load(Source::Arg(1), vec![4, 1], 1),
                apply(vec![0, 1], 2),
                store(2, Dest::Output(0)),
            ]],
            vec![3, 4],
        );
        assert_eq!(in_place_candidates(&p), vec![vec![0, 1]]);
    }

    #[test]
    fn a_transposed_or_broadcast_read_keeps_the_operand_apart() {
        let transposed = program(
            1,
            vec![vec![
                load(Source::Arg(0), vec![1, 4], 0),
                store(0, Dest::Output(0)),
            ]],
            vec![4, 4],
        );
        assert_eq!(in_place_candidates(&transposed), vec![Vec::<usize>::new()]);
        // Operand 0 broadcast along a row: operand 1 (read in order) may still hold the result.
        let broadcast = program(
            2,
            vec![vec![
                load(Source::Arg(0), vec![0, 1], 0),
                load(Source::Arg(1), vec![4, 1], 1),
                apply(vec![0, 1], 2),
                store(2, Dest::Output(0)),
            ]],
            vec![3, 4],
        );
        assert_eq!(in_place_candidates(&broadcast), vec![vec![1]]);
    }

    #[test]
    fn a_read_of_the_operand_after_the_store_keeps_it_apart() {
        // The register loaded from operand 0 (maybe a view of its memory) is read after the
        // result is stored: writing in place would change what it sees.
        let late_read = program(
            1,
            vec![vec![
                load(Source::Arg(0), vec![4, 1], 0),
                apply(vec![0], 1),
                store(1, Dest::Output(0)),
                apply(vec![0], 2),
                store(2, Dest::Temp(0)),
            ]],
            vec![2, 4],
        );
        assert_eq!(in_place_candidates(&late_read), vec![Vec::<usize>::new()]);
        // A later stage reading the operand again.
        let later_stage = program(
            1,
            vec![
                vec![
                    load(Source::Arg(0), vec![4, 1], 0),
                    store(0, Dest::Output(0)),
                ],
                vec![load(Source::Arg(0), vec![4, 1], 0), store(0, Dest::Temp(0))],
            ],
            vec![2, 4],
        );
        assert_eq!(in_place_candidates(&later_stage), vec![Vec::<usize>::new()]);
        // An earlier stage may read it any way it likes.
        let earlier_stage = read_then_updated(vec![1, 2]);
        assert_eq!(in_place_candidates(&earlier_stage), vec![vec![0]]);
        // Not in a row program, whose workers run every stage over their own rows in turn:
        // the earlier stage's transposed read reaches rows another worker may have written.
        assert_eq!(
            row_in_place_candidates(&earlier_stage),
            vec![Vec::<usize>::new()]
        );
    }

    /// Two stages over a 4 × 4 operand: the first reads it with `strides` into a temporary,
    /// the second reads it element for element with the temporary and stores the result.
    fn read_then_updated(strides: Vec<usize>) -> LoopProgram {
        program(
            1,
            vec![
                vec![load(Source::Arg(0), strides, 0), store(0, Dest::Temp(0))],
                vec![
                    load(Source::Arg(0), vec![4, 1], 0),
                    load(Source::Temp(0), vec![4, 1], 1),
                    apply(vec![0, 1], 2),
                    store(2, Dest::Output(0)),
                ],
            ],
            vec![4, 4],
        )
    }

    #[test]
    fn a_row_program_reading_its_operand_row_by_row_may_overwrite_it() {
        // softmax's shape: stage 0 folds the operand, stage 1 reads it again and stores the
        // result, both element for element.
        let softmax = read_then_updated(vec![4, 1]);
        assert_eq!(row_in_place_candidates(&softmax), vec![vec![0]]);
        // Read with an offset in the earlier stage (another row's elements): kept apart.
        let mut shifted = softmax.clone();
        if let Instr::Load { access, .. } = &mut shifted.stages[0].body[0] {
            access.offset = 4;
        }
        assert_eq!(in_place_candidates(&shifted), vec![vec![0]]);
        assert_eq!(row_in_place_candidates(&shifted), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn operands_of_another_size_or_dtype_are_not_candidates() {
        let mut p = program(
            1,
            vec![vec![
                load(Source::Arg(0), vec![4, 1], 0),
                store(0, Dest::Output(0)),
            ]],
            vec![2, 4],
        );
        p.arg_types[0] = TensorType::new(vec![2, 4], DType::I32);
        assert_eq!(in_place_candidates(&p), vec![Vec::<usize>::new()]);
    }
}
