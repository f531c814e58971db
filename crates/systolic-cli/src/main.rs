//! The `systolic` binary: the command line of [`systolic_cli`], with the process-wide
//! allocator and signal setup that only a binary should choose.

use std::process::ExitCode;

/// Large arrays on cache-line boundaries (see [`systolic_cpu::alloc`]).
#[global_allocator]
static ALLOCATOR: systolic_cpu::alloc::CacheLineAligned = systolic_cpu::alloc::CacheLineAligned;

fn main() -> ExitCode {
    systolic_cli::quiet_on_closed_stdout();
    systolic_cli::main_with(std::env::args_os())
}
