//! [`Regions`]: what an op being evaluated may ask of the interpreter — run its regions, call a
//! function of the module, and learn which process of an `interpreter.run_parallel` grid it
//! runs on. Op families depend on this trait only, not on the evaluator.

use crate::error::Result;
use crate::parallel::Process;
use crate::value::Value;

/// Lets an op run its regions (and call functions) while it is being evaluated.
pub trait Regions {
    /// Number of regions the op has.
    fn count(&self) -> usize;
    /// Runs region `index` with these block arguments; returns the values its terminator
    /// returns.
    fn run(&mut self, index: usize, args: Vec<Value>) -> Result<Vec<Value>>;
    /// Calls a function of the module by name.
    fn call(&mut self, func: &str, args: Vec<Value>) -> Result<Vec<Value>>;
    /// The process the op runs on when it runs under `interpreter.run_parallel`; `None`
    /// otherwise (one process: replica 0 of partition 0, every group just that process).
    fn process(&self) -> Option<&Process> {
        None
    }
    /// The module's `sdy.mesh @name`, if the op runs inside a module that declares it
    /// (`sdy.manual_computation` needs its axis sizes).
    fn mesh(&self, _name: &str) -> Option<&systolic_ir::SdyMesh> {
        None
    }
}
