//! `systolic profile TRACE.json`: what a trace says, without a viewer — compile against
//! execute time, idle gaps between executions, the top ops, the collective share, transfers
//! and the memory peak, per process (the host, each simulated chip).

use crate::error::CliError;
use std::path::PathBuf;

/// Arguments of `systolic profile`.
#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    /// A trace written by `--trace`, `profiler::stop_trace`, or any Chrome trace-event JSON
    /// file (`.json` or `.json.gz`).
    pub trace: PathBuf,
    /// Also write the SVG timeline and memory plot here.
    #[arg(long, value_name = "FILE.svg")]
    pub svg: Option<PathBuf>,
}

/// Prints the summary.
pub fn run(args: &ProfileArgs) -> Result<(), CliError> {
    let trace =
        systolic_trace::Trace::read(&args.trace).map_err(|e| CliError::msg(e.to_string()))?;
    out!("{}", trace.summary_text());
    if let Some(svg) = &args.svg {
        systolic_trace::write_atomically(svg, trace.svg().as_bytes())
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", svg.display())))?;
        outln!("wrote {}", svg.display());
    }
    Ok(())
}
