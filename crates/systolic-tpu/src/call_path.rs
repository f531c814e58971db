//! Names of ops and buffers inside calls (`%0/@layer/%3`), kept short in deep call chains.
//!
//! The schedule and the memory model name what they find by the chain of calls that leads to
//! it. A chain thousands of calls deep (legal StableHLO, and what some exporters emit) would
//! otherwise give every name the whole chain: quadratic memory and unreadable reports. Past
//! [`MAX_PATH_CHARS`] a path keeps its innermost calls and says that outer ones were elided.

/// The longest call path kept whole.
const MAX_PATH_CHARS: usize = 160;

/// How much of a long path's inner end is kept.
const KEPT_TAIL_CHARS: usize = 120;

/// `prefix` followed by `step`, with the outer calls elided (`…/`) when the result is long.
pub(crate) fn enter(prefix: &str, step: &str) -> String {
    let full = format!("{prefix}{step}");
    if full.len() <= MAX_PATH_CHARS {
        return full;
    }
    let mut cut = full.len() - KEPT_TAIL_CHARS;
    while !full.is_char_boundary(cut) {
        cut += 1;
    }
    // Start at a segment boundary so no name is cut in half.
    let start = full[cut..].find('/').map_or(cut, |i| cut + i + 1);
    format!("…/{}", &full[start..])
}

#[cfg(test)]
mod tests {
    use super::{enter, MAX_PATH_CHARS};

    #[test]
    fn short_paths_are_kept_whole() {
        assert_eq!(enter("%0/@f/", "%1/@g/"), "%0/@f/%1/@g/");
    }

    #[test]
    fn deep_paths_keep_their_inner_calls_and_stay_short() {
        let mut path = String::new();
        for i in 0..5000 {
            path = enter(&path, &format!("%0/@f{i}/"));
            assert!(path.len() <= MAX_PATH_CHARS + 4, "{path}");
        }
        assert!(path.starts_with("…/"), "{path}");
        assert!(path.ends_with("%0/@f4999/"), "{path}");
        // Every kept segment is whole.
        assert!(path["…/".len()..].starts_with('%') || path["…/".len()..].starts_with('@'));
    }

    #[test]
    fn multibyte_names_are_cut_on_char_boundaries() {
        let mut path = String::new();
        for _ in 0..100 {
            path = enter(&path, "%é/@ünïcødé/");
        }
        assert!(path.ends_with("%é/@ünïcødé/"));
    }
}
