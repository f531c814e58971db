//! Loop programs: what the planner ([`super::plan`]) makes of a block of elementwise ops and the
//! executor ([`super::exec`]) runs.
//!
//! A program is a list of stages. A stage loops over the elements of one shape in L1-sized
//! blocks; for each block it runs a straight list of instructions over registers (loads through
//! affine accesses, elementwise bodies, stores to contiguous destinations). Most fusions are one
//! stage; a value that must be viewed (broadcast, transposed, reshaped) after being computed is
//! stored by an earlier stage into a temporary buffer that later stages read.

use super::elementwise::Body;
use super::reg::Lane;
use crate::buffer::Storage;
use systolic_ir::{DType, TensorType};

/// Index of a register of a stage.
pub type RegId = usize;

/// What a load reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Operand `i` of the kernel.
    Arg(usize),
    /// Constant `i` of the program.
    Const(usize),
    /// Temporary buffer `i`, written by an earlier stage.
    Temp(usize),
    /// The element's index along the access strides (an `iota`).
    Iota,
}

/// An affine read: element `idx` of the stage's loop reads `offset + Σ strides[d]·idx[d]` of
/// the source (for `Iota`, that number is the value).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// What is read.
    pub source: Source,
    /// The dtype of the source's elements (of the iota's result for `Iota`).
    pub dtype: DType,
    /// Element offset.
    pub offset: usize,
    /// Stride per loop dimension (0 where the value is broadcast).
    pub strides: Vec<usize>,
}

impl Access {
    /// True when every element reads the same value.
    pub fn is_uniform(&self) -> bool {
        self.source != Source::Iota && self.strides.iter().all(|&s| s == 0)
    }
}

/// Where a store writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    /// Result `i` of the kernel.
    Output(usize),
    /// Temporary buffer `i`.
    Temp(usize),
}

/// One step of a stage's block loop.
#[derive(Clone, Debug)]
pub enum Instr {
    /// Reads the block through an access.
    Load {
        /// What and how.
        access: Access,
        /// Register written.
        dst: RegId,
    },
    /// An elementwise body over input registers.
    Apply {
        /// The body.
        body: Body,
        /// Input registers (1 to 3, as the body takes).
        inputs: Vec<RegId>,
        /// Register written (never one of the inputs).
        dst: RegId,
    },
    /// Folds each row's part of the block into that row's accumulator (row programs only,
    /// see [`super::rows`]): a reduce over the innermost dimensions of the stage's shape.
    Fold {
        /// Register read (the reduce's input).
        src: RegId,
        /// The accumulator (an index into the row program's folds).
        acc: usize,
        /// The fold.
        fold: super::reduce::plan::RowFoldFn,
    },
    /// Writes a register to a contiguous destination at the block's position.
    Store {
        /// Register read.
        src: RegId,
        /// The dtype stored (the register holds it in its lane).
        dtype: DType,
        /// Destination.
        dest: Dest,
    },
}

/// One loop over a shape.
#[derive(Clone, Debug)]
pub struct Stage {
    /// Loop dimensions (after merging dimensions every access walks contiguously).
    pub dims: Vec<usize>,
    /// Number of elements.
    pub len: usize,
    /// Loads of uniform values, run once per worker before the blocks.
    pub prologue: Vec<Instr>,
    /// The block body.
    pub body: Vec<Instr>,
    /// Lane of every register.
    pub regs: Vec<Lane>,
}

/// A compiled block of elementwise ops.
#[derive(Clone, Debug)]
pub struct LoopProgram {
    /// Types of the operands the kernel expects.
    pub arg_types: Vec<TensorType>,
    /// Types of the results.
    pub result_types: Vec<TensorType>,
    /// Constant buffers read by loads.
    pub constants: Vec<Storage>,
    /// Types of the temporary buffers.
    pub temp_types: Vec<TensorType>,
    /// Stages, in the order they run.
    pub stages: Vec<Stage>,
}
