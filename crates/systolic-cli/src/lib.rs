//! `systolic`: run JAX-exported programs, run interpreter-test files, take the tour.
//!
//! The binary is `src/main.rs`; this library is the whole command line behind it, so the fuzz
//! target `cli_args` can run argument lists in-process exactly as the binary does. A thin shell over the libraries: every command parses its arguments, calls into the IR,
//! interpreter and `.npy` crates, and reports. Every error is one line on stderr and a non-zero
//! exit status (1 for failures, 2 for bad usage); nothing on the user's path panics.

#![warn(missing_docs)]

/// `println!` that ends the process with a one-line error (exit status 1) instead of a panic
/// when standard output cannot be written (a full disk: `systolic run … > /dev/full`). A
/// closed pipe never gets here: SIGPIPE ends the process first ([`quiet_on_closed_stdout`]).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            $crate::stdout_failed(e);
        }
    }};
}

/// `print!` with [`outln!`]'s handling of write errors.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout();
        if let Err(e) = write!(stdout, $($arg)*).and_then(|()| stdout.flush()) {
            $crate::stdout_failed(e);
        }
    }};
}

mod backend;
mod commands;
mod compare;
mod error;
mod inputs;
mod outputs;
mod program;
mod spmd;
mod timing;
mod tour;
mod trace_file;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Systolic: JAX-style array programs in Rust.
#[derive(Parser, Debug)]
#[command(name = "systolic", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a function of an MLIR (StableHLO) file on .npy inputs.
    Run(commands::run::RunArgs),
    /// Run interpreter-test files (check.expect_* ops) and report each function.
    Check(commands::check::CheckArgs),
    /// Model a program on a simulated TPU chip: kernel times, step time, MFU, HBM use.
    Simulate(commands::simulate::SimulateArgs),
    /// Summarise a trace (from `--trace` or `profiler::stop_trace`): compile vs execute
    /// time, gaps between executions, top ops, collectives, transfers, the memory peak.
    Profile(commands::profile::ProfileArgs),
    /// The simulated TPU chips and their published figures.
    Chips(commands::chips::ChipsArgs),
    /// A tour of what Systolic does, on built-in programs and generated data.
    Tour,
}

/// Runs the command line `args` (the program name first, as `std::env::args_os` gives it)
/// and returns the exit status: 0 on success, 1 when the command failed, 2 on bad usage.
/// Errors are one line on stderr; reports go to stdout.
pub fn main_with<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                out!("{e}");
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!("error: a command is needed: run, check, simulate, profile, chips or tour (see systolic --help)");
                return ExitCode::from(2);
            }
            // clap's first paragraph says what is wrong (it may name the missing arguments on
            // indented lines); the usage block after it is noise here.
            let text = e.to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            eprintln!("{} (see systolic --help)", first.join(" "));
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Run(args) => commands::run::run(args).map(|()| true),
        Command::Check(args) => commands::check::run(args),
        Command::Simulate(args) => commands::simulate::run(args).map(|()| true),
        Command::Profile(args) => commands::profile::run(args).map(|()| true),
        Command::Chips(args) => commands::chips::run(args).map(|()| true),
        Command::Tour => tour::run().map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// Standard output could not be written: says so on stderr and ends the process (what the
/// command wrote before, its output files included, stays).
fn stdout_failed(e: std::io::Error) -> ! {
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1)
}

/// Ends the process quietly when its standard output is closed early (`systolic run … | head`),
/// as Unix tools do: Rust ignores SIGPIPE, so the next `println!` would panic instead.
pub fn quiet_on_closed_stdout() {
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: restores the default disposition of one signal before any thread starts.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}
