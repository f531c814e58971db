//! Which instruction-set extensions the kernels may use: what the CPU has, optionally capped by
//! the `SYSTOLIC_CPU_ISA` environment variable, read once per process.
//!
//! Every kernel with several implementations (AVX-512 loops, `vdpbf16ps`/`vpdpbusd` tiles,
//! AMX tiles, AVX transposes) asks here before taking a faster path, so one switch runs the
//! whole backend as it would run on a smaller CPU. The tests use it to check every path against
//! the interpreter on any machine (an AMX Xeon still tests the AVX-512 and portable paths, an
//! AMD EPYC the portable ones), and a user can rule out a miscompiled fast path with it.
//!
//! Values: `native` (the default: everything the CPU has), `avx512` (no AMX), `avx2` (no
//! AVX-512 either), `portable` (no x86 extension beyond the baseline). An unknown value is
//! reported once on stderr and treated as `native`.

use std::sync::OnceLock;

/// The most the kernels may use, in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IsaCap {
    /// Baseline x86-64 (or any other architecture): portable code only.
    Portable,
    /// Up to AVX2 and FMA (the AVX 8 × 8 transposes).
    Avx2,
    /// Up to AVX-512 with its BF16 and VNNI extensions.
    Avx512,
    /// Everything, AMX included.
    Native,
}

impl IsaCap {
    /// Parses a `SYSTOLIC_CPU_ISA` value.
    pub fn parse(value: &str) -> Option<IsaCap> {
        match value.trim().to_ascii_lowercase().as_str() {
            "portable" => Some(IsaCap::Portable),
            "avx2" => Some(IsaCap::Avx2),
            "avx512" => Some(IsaCap::Avx512),
            "native" | "" => Some(IsaCap::Native),
            _ => None,
        }
    }
}

/// The cap of this process (from `SYSTOLIC_CPU_ISA`, read once).
pub fn cap() -> IsaCap {
    static CAP: OnceLock<IsaCap> = OnceLock::new();
    *CAP.get_or_init(|| match std::env::var("SYSTOLIC_CPU_ISA") {
        Err(_) => IsaCap::Native,
        Ok(value) => IsaCap::parse(&value).unwrap_or_else(|| {
            eprintln!(
                "warning: SYSTOLIC_CPU_ISA={value:?} is not one of native, avx512, avx2, \
                 portable; using native"
            );
            IsaCap::Native
        }),
    })
}

/// True when kernels may use instructions of level `level`.
pub fn allows(level: IsaCap) -> bool {
    cap() >= level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_values() {
        assert_eq!(IsaCap::parse("portable"), Some(IsaCap::Portable));
        assert_eq!(IsaCap::parse(" AVX2 "), Some(IsaCap::Avx2));
        assert_eq!(IsaCap::parse("avx512"), Some(IsaCap::Avx512));
        assert_eq!(IsaCap::parse("native"), Some(IsaCap::Native));
        assert_eq!(IsaCap::parse("sse9"), None);
        assert!(IsaCap::Portable < IsaCap::Avx2 && IsaCap::Avx512 < IsaCap::Native);
    }
}
