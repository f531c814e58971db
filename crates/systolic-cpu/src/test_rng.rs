//! A small deterministic generator for unit tests: xorshift64, enough to vary shapes and
//! pick values; the integration tests have their own in `tests/support`.

/// Successive xorshift64 values from `seed` (non-zero).
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
