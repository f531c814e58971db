//! Loading a program: read the file, parse it, verify it, find the entry function.

use crate::error::CliError;
use std::path::Path;
use systolic_ir::{Func, Module};

/// Reads, parses and verifies an MLIR file. Errors name the file and, for diagnostics, the line.
pub fn load_module(path: &Path) -> Result<Module, CliError> {
    let name = path.display().to_string();
    let src = read_source(path)?;
    parse_and_verify(&src, &name)
}

/// The text of a program file; a file that is not UTF-8 is an error naming the first byte
/// that is not and where it is (line and column), like a parse error.
pub fn read_source(path: &Path) -> Result<String, CliError> {
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| CliError::msg(format!("cannot read {name}: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // Columns count characters, as the parser's do.
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        CliError::located(format!(
            "{name}:{line}:{column}: error: the file is not UTF-8 text (byte 0x{:02X})",
            bytes[at]
        ))
    })
}

/// Parses and verifies MLIR text; `name` names it in errors.
pub fn parse_and_verify(src: &str, name: &str) -> Result<Module, CliError> {
    let module = systolic_ir::text::parse_module(src, name).map_err(|d| {
        let d = if d.source_name.is_none() {
            d.in_source(Some(name))
        } else {
            d
        };
        CliError::located(d.to_string())
    })?;
    systolic_ir::verify::verify_module(&module).map_err(|diags| {
        let count = diags.len();
        match diags.into_iter().next() {
            Some(first) => {
                let first = if first.source_name.is_none() {
                    first.in_source(Some(name))
                } else {
                    first
                };
                let more = if count > 1 {
                    format!(" (and {} more problems)", count - 1)
                } else {
                    String::new()
                };
                CliError::located(format!("{first}{more}"))
            }
            None => CliError::msg(format!("{name}: the module does not verify")),
        }
    })?;
    Ok(module)
}

/// The function named `entry`, or an error listing the functions there are.
pub fn entry_func<'m>(module: &'m Module, entry: &str, file: &str) -> Result<&'m Func, CliError> {
    module.func(entry).ok_or_else(|| {
        let names: Vec<String> = module
            .funcs
            .iter()
            .map(|f| format!("@{}", f.name))
            .collect();
        CliError::msg(format!(
            "{file}: no function @{entry} (the module has {})",
            if names.is_empty() {
                "no functions".to_string()
            } else {
                names.join(", ")
            }
        ))
    })
}
