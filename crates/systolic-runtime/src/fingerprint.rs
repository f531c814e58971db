//! A stable 128-bit fingerprint (XXH3-128) for compile-cache keys.
//!
//! Stable across processes and machines (unlike `std`'s randomly seeded hasher), so it can name
//! files of the disk cache, and fast: a key hashes the module's whole text, which for a program
//! with embedded weights is tens of megabytes. It guards against accidents, not adversaries: a
//! cache entry also carries its full key and a checksum of its body, and both are checked on
//! load.

use xxhash_rust::xxh3::Xxh3;

/// Accumulates bytes into a 128-bit XXH3 hash.
#[derive(Clone)]
pub struct Fingerprint {
    state: Xxh3,
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fingerprint({})", self.hex())
    }
}

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint { state: Xxh3::new() }
    }
}

impl Fingerprint {
    /// An empty fingerprint.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `bytes`.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.state.update(bytes);
        self
    }

    /// Adds a field: its length first, so that ("ab", "c") and ("a", "bc") differ.
    pub fn field(&mut self, text: &str) -> &mut Self {
        self.bytes(&(text.len() as u64).to_le_bytes());
        self.bytes(text.as_bytes())
    }

    /// The hash as 32 lowercase hex digits.
    ///
    /// ```
    /// use systolic_runtime::fingerprint::Fingerprint;
    /// let a = Fingerprint::new().field("module").hex();
    /// assert_eq!(a.len(), 32);
    /// assert_ne!(a, Fingerprint::new().field("modulf").hex());
    /// ```
    pub fn hex(&self) -> String {
        format!("{:032x}", self.state.digest128())
    }
}

/// The fingerprint of one piece of text, as hex.
pub fn of_text(text: &str) -> String {
    Fingerprint::new().bytes(text.as_bytes()).hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer_and_field_boundaries() {
        // XXH3-128 of the empty input, the published value (seed 0).
        assert_eq!(of_text(""), "99aa06d3014798d86001c324468d497f");
        // Streaming in pieces gives the one-shot hash.
        let text = "x".repeat(1000);
        let mut pieces = Fingerprint::new();
        for chunk in text.as_bytes().chunks(37) {
            pieces.bytes(chunk);
        }
        assert_eq!(pieces.hex(), of_text(&text));
        let ab_c = Fingerprint::new().field("ab").field("c").hex();
        let a_bc = Fingerprint::new().field("a").field("bc").hex();
        assert_ne!(ab_c, a_bc);
    }
}
