//! The compile cache on disk: one file per key holding the module after the passes, so that a
//! later process skips the passes and only parses and lowers it.
//!
//! An entry is text: a header that names the format, the key and its material, the body's length
//! and fingerprint, then the body. It is written to a temporary file in the same directory and
//! renamed over the entry, so readers see a whole entry or none, and concurrent writers of the
//! same key simply replace each other's identical entries. A truncated, corrupt or foreign entry
//! (another format, another key) is reported as [`Lookup::Rejected`] and treated as a miss.

use crate::cache_key::{CacheKey, FORMAT_VERSION};
use crate::fingerprint;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The first line of every entry.
const MAGIC: &str = "systolic-compile-cache";
/// The extension of entry files.
const EXTENSION: &str = "sxc";

/// The environment variable naming the default cache directory.
pub const CACHE_DIR_ENV: &str = "SYSTOLIC_CACHE_DIR";

/// What looking a key up found.
#[derive(Clone, Debug, PartialEq)]
pub enum Lookup {
    /// The body (the optimised module text).
    Hit(String),
    /// No entry for the key.
    Miss,
    /// An entry that cannot be used, and why (it is ignored and will be overwritten).
    Rejected(String),
}

/// A cache directory.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache in `dir` (created on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`'s entry.
    pub fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}.{EXTENSION}", key.hex()))
    }

    /// Reads `key`'s entry.
    pub fn load(&self, key: &CacheKey) -> Lookup {
        let path = self.entry_path(key);
        match std::fs::read(&path) {
            Ok(bytes) => match decode(&bytes, key) {
                Ok(body) => Lookup::Hit(body),
                Err(why) => Lookup::Rejected(why),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Lookup::Miss,
            Err(e) => Lookup::Rejected(format!("cannot read it: {e}")),
        }
    }

    /// Writes `body` as `key`'s entry atomically (temporary file, then rename).
    pub fn store(&self, key: &CacheKey, body: &str) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.entry_path(key);
        let tmp = self.dir.join(temp_name(key));
        let written = (|| {
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(encode(key, body).as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written.map(|()| path)
    }
}

/// A temporary name unique to this process and write: `.<key>.<pid>.<n>.tmp`.
fn temp_name(key: &CacheKey) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{}.{}.{n}.tmp", key.hex(), std::process::id())
}

/// The entry's text.
fn encode(key: &CacheKey, body: &str) -> String {
    format!(
        "{MAGIC} {FORMAT_VERSION}\nkey {}\nmaterial {}\nbody-bytes {}\nbody-fingerprint {}\n\n{body}",
        key.hex(),
        key.material(),
        body.len(),
        body_fingerprint(key, body),
    )
}

/// The fingerprint of `body` as `key`'s entry: the key's hex and material hashed with the
/// body, so an entry copied under another key (its header edited to match) is rejected as
/// corrupt rather than served as the other program.
fn body_fingerprint(key: &CacheKey, body: &str) -> String {
    fingerprint::Fingerprint::new()
        .field(key.hex())
        .field(key.material())
        .bytes(body.as_bytes())
        .hex()
}

/// The body of an entry, checked against `key`; otherwise why it cannot be used.
fn decode(bytes: &[u8], key: &CacheKey) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())?;
    let (header, body) = text
        .split_once("\n\n")
        .ok_or("it has no header (truncated or not a cache entry)")?;
    let mut lines = header.lines();
    let expected_first = format!("{MAGIC} {FORMAT_VERSION}");
    match lines.next() {
        Some(first) if first == expected_first => {}
        Some(first) if first.starts_with(MAGIC) => {
            return Err(format!(
            "it was written in another format ('{first}', this runtime reads '{expected_first}')"
        ))
        }
        _ => return Err("it is not a cache entry (no magic line)".into()),
    }
    let mut field = |name: &str| -> Result<String, String> {
        lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|v| v.strip_prefix(' '))
            .map(str::to_string)
            .ok_or_else(|| format!("its header lacks '{name}'"))
    };
    let entry_key = field("key")?;
    let material = field("material")?;
    let length = field("body-bytes")?;
    let entry_fingerprint = field("body-fingerprint")?;
    if entry_key != key.hex() || material != key.material() {
        return Err(format!(
            "it belongs to another key ({entry_key}, {material}; looked for {}, {})",
            key.hex(),
            key.material()
        ));
    }
    let length: usize = length
        .parse()
        .map_err(|_| format!("its body length '{length}' is not a number"))?;
    if body.len() != length {
        return Err(format!(
            "its body has {} bytes, the header says {length} (truncated or corrupt)",
            body.len()
        ));
    }
    if body_fingerprint(key, body) != entry_fingerprint {
        return Err("its body does not match its fingerprint (corrupt)".into());
    }
    Ok(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DeviceKind;

    fn key(text: &str) -> CacheKey {
        CacheKey::new(text, &Default::default(), DeviceKind::Cpu)
    }

    #[test]
    fn store_then_load_round_trips_and_leaves_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path().join("nested"));
        let k = key("module A");
        assert_eq!(cache.load(&k), Lookup::Miss);
        let path = cache
            .store(&k, "optimised\n\ntext with a blank line")
            .unwrap();
        assert_eq!(path, cache.entry_path(&k));
        assert_eq!(
            cache.load(&k),
            Lookup::Hit("optimised\n\ntext with a blank line".into())
        );
        let names: Vec<_> = std::fs::read_dir(cache.dir()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn truncated_corrupt_and_foreign_entries_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path());
        let k = key("module B");
        let path = cache.store(&k, "the body of B").unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        let rejected = |contents: &[u8]| {
            std::fs::write(&path, contents).unwrap();
            match cache.load(&k) {
                Lookup::Rejected(why) => why,
                other => panic!("expected a rejection, got {other:?}"),
            }
        };
        assert!(rejected(&good.as_bytes()[..good.len() - 3]).contains("truncated"));
        assert!(rejected(good.replace("body of B", "body of C").as_bytes()).contains("corrupt"));
        assert!(rejected(b"\xff\xfe garbage").contains("UTF-8"));
        assert!(rejected(b"").contains("no header"));
        let format = format!("cache {FORMAT_VERSION}");
        assert!(rejected(good.replace(&format, "cache 99").as_bytes()).contains("another format"));
        // An entry of another key copied under this key's name.
        let other = key("module Z");
        let foreign = encode(&other, "the body of B");
        assert!(rejected(foreign.as_bytes()).contains("another key"));
        // Issue 20, item 8: the same, its header edited to name this key — the fingerprint
        // binds the body to the key it was stored under.
        let disguised = foreign
            .replace(other.hex(), k.hex())
            .replace(other.material(), k.material());
        assert!(rejected(disguised.as_bytes()).contains("corrupt"));
    }

    /// Issue 20, item 8: the key named the crate version alone (`runtime=0.1.0`, which never
    /// changes), so a build with a fixed pass reused entries the old one optimised. It now
    /// names the build: a hash of the compiler's sources and Cargo.lock.
    #[test]
    fn keys_name_the_build() {
        let k = key("module A");
        assert_eq!(crate::cache_key::BUILD_ID.len(), 32);
        assert!(
            k.material()
                .contains(&format!("build={}", crate::cache_key::BUILD_ID)),
            "{}",
            k.material()
        );
    }
}
