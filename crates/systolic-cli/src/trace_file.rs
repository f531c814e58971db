//! `--trace FILE` of `systolic run` and `systolic simulate`: record while the command runs,
//! then write the trace (Chrome trace-event JSON, gzipped for `.gz`), its SVG picture beside
//! it, and print the summary `systolic profile` would.

use crate::error::CliError;
use std::path::Path;

/// Starts recording when a trace file was asked for.
pub fn start(path: Option<&Path>) -> Result<(), CliError> {
    let Some(path) = path else {
        return Ok(());
    };
    if path.is_dir() {
        return Err(CliError::msg(format!(
            "--trace {} is a directory; give a file such as out.json or out.json.gz",
            path.display()
        )));
    }
    systolic_trace::start().map_err(|e| CliError::msg(format!("--trace: {e}")))
}

/// Stops recording, writes the trace and its picture, prints the summary (to stderr when
/// `quiet_stdout`, so that a `--json` report stays the last line of stdout).
pub fn finish(path: Option<&Path>, quiet_stdout: bool) -> Result<(), CliError> {
    let Some(path) = path else {
        return Ok(());
    };
    let trace =
        systolic_trace::Trace::stop().map_err(|e| CliError::msg(format!("--trace: {e}")))?;
    let svg = trace
        .write_with_svg(path)
        .map_err(|e| CliError::msg(format!("--trace: {e}")))?;
    let text = format!(
        "trace: {} ({} events; open in ui.perfetto.dev or chrome://tracing), picture: {}\n{}",
        path.display(),
        trace.events.len(),
        svg.display(),
        trace.summary_text()
    );
    if quiet_stdout {
        eprint!("{text}");
    } else {
        out!("{text}");
    }
    Ok(())
}
