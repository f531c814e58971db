//! Writing a checkpoint all or nothing: into a temporary file beside the destination, synced,
//! then renamed over it (as `systolic_npy::stage_raw` does for the command line's outputs).
//! A crash or a failed write leaves the previous checkpoint whole; the rename replaces a
//! symlink at the destination instead of writing through it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `path` through `write` atomically. Errors are messages (the caller names the file).
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> Result<(), String>,
) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut staged = tempfile::Builder::new()
        .prefix(".systolic-checkpoint-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a temporary file in {}: {e}", dir.display()))?;
    {
        let mut out = BufWriter::new(staged.as_file_mut());
        write(&mut out)?;
        out.flush().map_err(|e| format!("cannot write: {e}"))?;
    }
    staged
        .as_file()
        .sync_all()
        .map_err(|e| format!("cannot write: {e}"))?;
    staged
        .persist(path)
        .map_err(|e| format!("cannot move the written file into place: {}", e.error))?;
    // Make the rename itself durable where the platform allows syncing a directory.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_atomically(path, |w| {
        w.write_all(bytes).map_err(|e| format!("cannot write: {e}"))
    })
}
