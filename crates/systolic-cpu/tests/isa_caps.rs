//! Every dispatch path against the interpreter on any machine: the suite's product, math,
//! fusion and compiled-versus-interpreter tests run again in child processes of this test
//! binary with `SYSTOLIC_CPU_ISA` capping the kernels ([`systolic_cpu::isa`]) — `portable`
//! always, `avx2` where the CPU has AVX-512, `avx512` where it has AMX — so a Zen 3 EPYC
//! (AVX2) still tests the portable loops, a Zen 4 the AVX2 and portable ones, and an AMX Xeon
//! the `vdpbf16ps` and `vpdpbusd` tiles as well.

use std::process::Command;
use systolic_cpu::isa::{self, IsaCap};
use systolic_cpu::kernels::dot::packed::{amx, bf16::Bf16Kernel, int8::I8Kernel};
use systolic_cpu::kernels::math::simd;
use systolic_cpu::kernels::shape::tile8;

/// The tests the children run (libtest substring filters): those that compare compiled
/// kernels with the interpreter or exact values, plus the check that the cap took effect.
const FILTERS: &[&str] = &[
    "isa_caps::the_cap_is_honoured",
    "dot::",
    "dot_compiled::",
    "dot_epilogue::",
    "math_accuracy::",
    "compiled_vs_interp",
    "fusion_elementwise::",
    "fusion_reduce::",
    "fusion_rows::",
    "conv::",
    "complex_goldens::",
    "lu_native::",
];

/// In a child, the kernels' choices follow the cap.
#[test]
fn the_cap_is_honoured() {
    match isa::cap() {
        IsaCap::Portable => {
            assert_eq!(simd::level(), simd::Level::Plain);
            assert!(!tile8::available() && !amx::available());
            assert_eq!(Bf16Kernel::detect(), Bf16Kernel::Scalar);
            assert_eq!(I8Kernel::detect(), I8Kernel::Scalar);
        }
        IsaCap::Avx2 => {
            assert!(!simd::has_avx512() && !amx::available());
            assert_eq!(Bf16Kernel::detect(), Bf16Kernel::Scalar);
            // The AVX2 copies of the loops run wherever the CPU has them.
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                assert_eq!(simd::level(), simd::Level::V3);
            }
        }
        IsaCap::Avx512 => assert!(!amx::available()),
        IsaCap::Native => {}
    }
}

#[test]
fn every_capped_dispatch_matches_the_interpreter() {
    if std::env::var_os("SYSTOLIC_CPU_ISA").is_some() {
        return; // a child: the parent runs the caps
    }
    let mut caps = vec!["portable"];
    if simd::has_avx512() {
        caps.push("avx2");
    }
    if amx::available() {
        caps.push("avx512");
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    for cap in caps {
        let out = Command::new(&exe)
            .args(FILTERS)
            .env("SYSTOLIC_CPU_ISA", cap)
            .output()
            .expect("running the test binary again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "with SYSTOLIC_CPU_ISA={cap}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let passed: usize = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("test result: ok. "))
            .filter_map(|l| l.split(" ").next()?.parse::<usize>().ok())
            .sum();
        assert!(
            passed > 50,
            "with SYSTOLIC_CPU_ISA={cap} only {passed} tests ran:\n{stdout}"
        );
    }
}
