//! Fused elementwise and reduction kernels: a block of elementwise ops (a fusion's region, or
//! one standalone op) compiled into a small register program run over L1-sized blocks of
//! elements, so every input is read once and every output written once.

pub mod elementwise;
pub mod reg;

pub(crate) mod access;
pub mod exec;
pub mod in_place;
pub mod kernel;
pub(crate) mod panels;
pub mod plan;
pub mod program;
pub mod reduce;
pub mod rows;
pub mod view;

pub use kernel::{lower, lower_block, LoopKernel};
pub use plan::BlockSpec;

use elementwise::Body;
use reg::Reg;

/// Runs one elementwise body on registers (`out` is not among `regs`' inputs).
fn convert_body(body: &Body, inputs: &[usize], regs: &[Reg], out: &mut Reg, n: usize) {
    match body {
        Body::One(f) => f(&regs[inputs[0]], out, n),
        Body::Two(f) | Body::TwoSplat(f) => f(&regs[inputs[0]], &regs[inputs[1]], out, n),
        Body::Three(f) => f(&regs[inputs[0]], &regs[inputs[1]], &regs[inputs[2]], out, n),
        Body::Bitcast { from, to } => {
            elementwise::convert::bitcast(*from, *to, &regs[inputs[0]], out, n)
        }
        Body::ReducePrecision(format) => format.run(&regs[inputs[0]], out, n),
    }
}
