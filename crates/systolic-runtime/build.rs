//! The build's identity for the compile cache (`SYSTOLIC_BUILD_ID`): a hash of the sources
//! that decide what a cached body means — the IR, the compiler's passes, the CPU and TPU
//! backends, this runtime — and of `Cargo.lock`, so a build whose passes changed never reads
//! entries an older build optimised (the crate version alone never changes between them).
//! Outside this workspace (the sibling crates absent) the hash covers what there is.

use std::path::{Path, PathBuf};

/// The source directories, relative to `crates/`.
const SOURCES: [&str; 5] = [
    "systolic-ir/src",
    "systolic-compiler/src",
    "systolic-cpu/src",
    "systolic-tpu/src",
    "systolic-runtime/src",
];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let crates = manifest.parent().unwrap_or(&manifest).to_path_buf();
    let lock = crates.parent().map(|root| root.join("Cargo.lock"));
    let mut files = vec![];
    for dir in SOURCES {
        let dir = crates.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        collect(&dir, &mut files);
    }
    if let Some(lock) = lock.filter(|l| l.exists()) {
        println!("cargo:rerun-if-changed={}", lock.display());
        files.push(lock);
    }
    files.sort();
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for file in &files {
        let name = file.strip_prefix(&crates).unwrap_or(file);
        hasher.update(name.to_string_lossy().as_bytes());
        hasher.update(&[0]);
        if let Ok(bytes) = std::fs::read(file) {
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
    }
    println!(
        "cargo:rustc-env=SYSTOLIC_BUILD_ID={:032x}",
        hasher.digest128()
    );
}

/// Every `.rs` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
