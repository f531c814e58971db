//! `systolic chips`: the simulated TPU chips and their published figures, each with its source.

use crate::error::CliError;

/// Arguments of `systolic chips`.
#[derive(clap::Args, Debug)]
pub struct ChipsArgs {
    /// Show one chip only (`v5e`, `v5p`, `tpu7x`, …).
    pub chip: Option<String>,
    /// Print the registry as JSON on one line: every figure with its value, source and note.
    #[arg(long)]
    pub json: bool,
}

/// Prints the registry as a table, or as JSON.
pub fn run(args: &ChipsArgs) -> Result<(), CliError> {
    let chips = match &args.chip {
        Some(name) => vec![systolic_tpu::chip(name).map_err(|e| CliError::msg(e.to_string()))?],
        None => systolic_tpu::all_chips(),
    };
    if args.json {
        let line = serde_json::to_string(&chips)
            .map_err(|e| CliError::msg(format!("cannot write the chip registry as JSON: {e}")))?;
        outln!("{line}");
    } else {
        out!("{}", systolic_tpu::report::render_chips(&chips));
    }
    Ok(())
}
