//! The arithmetic peaks of one core, measured: what the matrix-product kernels are judged
//! against (the f32 kernels' GFLOP/s from `gemm_bench` over the f32 FMA peak here, the AMX
//! routes' over the AMX peak).
//!
//! Run: `cargo run --release -p systolic-cpu --example peak_bench` on an otherwise idle
//! machine (`chrt -f 50` steadies it). Prints, for one core:
//! - the clock, from a chain of dependent 64-bit multiplies (3 cycles each);
//! - f32 FMA: 12 independent `vfmadd231ps zmm` chains (two FMA units × 16 lanes × 2 flops a
//!   cycle at best), with no loads; on a CPU without AVX-512, the same on ymm registers;
//! - bf16 `vdpbf16ps` and int8 `vpdpbusd` (AVX-512), 12 independent chains each, no loads:
//!   the peaks of the packed bf16 and int8 kernels where AMX is absent;
//! - AMX bf16: `tdpbf16ps` into four accumulator tiles, first with no loads, then with the
//!   2 × 2 blocking's four tile loads per four products from L1 (the best a kernel fed from
//!   L1 can do; this machine's `packed::amx` kernel feeds from L2).
//!
//! Multiply a per-core figure by the cores for the machine's peak. Hand-written assembly
//! throughout: the point is the instructions' rate, which a compiler's scheduling must not
//! blur.

/// Seconds per call of `f`, the best of five.
#[cfg(target_arch = "x86_64")]
fn best_of_five(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::asm;

    /// Runs `iterations` × 4 dependent `imul`s (3 cycles each on every recent x86 core).
    pub fn multiply_chain(iterations: u64) {
        let mut x: u64 = 3;
        // SAFETY: register-only arithmetic.
        unsafe {
            asm!(
                "2:",
                "imul {x}, {x}", "imul {x}, {x}", "imul {x}, {x}", "imul {x}, {x}",
                "dec {n}", "jnz 2b",
                x = inout(reg) x, n = inout(reg) iterations => _,
                options(nostack, nomem)
            );
        }
        std::hint::black_box(x);
    }

    /// Defines `$name(iterations)`: `iterations` × 12 independent `$insn zmm` into zmm0–11,
    /// from two operand registers with every bit set (register-only, no loads).
    macro_rules! independent_chains {
        ($(#[$doc:meta])* $name:ident, $features:literal, $insn:literal) => {
            $(#[$doc])*
            ///
            /// # Safety
            #[doc = concat!("The CPU has ", $features, ".")]
            #[target_feature(enable = $features)]
            pub unsafe fn $name(iterations: u64) {
                // SAFETY: register-only arithmetic on zmm registers the block declares
                // clobbered.
                unsafe {
                    asm!(
                        "vpxord zmm0, zmm0, zmm0", "vpxord zmm1, zmm1, zmm1",
                        "vpxord zmm2, zmm2, zmm2", "vpxord zmm3, zmm3, zmm3",
                        "vpxord zmm4, zmm4, zmm4", "vpxord zmm5, zmm5, zmm5",
                        "vpxord zmm6, zmm6, zmm6", "vpxord zmm7, zmm7, zmm7",
                        "vpxord zmm8, zmm8, zmm8", "vpxord zmm9, zmm9, zmm9",
                        "vpxord zmm10, zmm10, zmm10", "vpxord zmm11, zmm11, zmm11",
                        "vpternlogd zmm14, zmm14, zmm14, 0xff",
                        "vpternlogd zmm15, zmm15, zmm15, 0xff",
                        "2:",
                        concat!($insn, " zmm0, zmm14, zmm15"), concat!($insn, " zmm1, zmm14, zmm15"),
                        concat!($insn, " zmm2, zmm14, zmm15"), concat!($insn, " zmm3, zmm14, zmm15"),
                        concat!($insn, " zmm4, zmm14, zmm15"), concat!($insn, " zmm5, zmm14, zmm15"),
                        concat!($insn, " zmm6, zmm14, zmm15"), concat!($insn, " zmm7, zmm14, zmm15"),
                        concat!($insn, " zmm8, zmm14, zmm15"), concat!($insn, " zmm9, zmm14, zmm15"),
                        concat!($insn, " zmm10, zmm14, zmm15"), concat!($insn, " zmm11, zmm14, zmm15"),
                        "dec {n}", "jnz 2b",
                        n = inout(reg) iterations => _,
                        out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                        out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                        out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                        out("zmm14") _, out("zmm15") _,
                        options(nostack, nomem)
                    );
                }
            }
        };
    }

    /// Runs `iterations` × 12 independent 8-lane f32 FMAs on ymm registers: the peak of a
    /// CPU with AVX2 and FMA but no AVX-512 (a Zen 3 EPYC: two 256-bit FMA units).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn fma_chains_ymm(iterations: u64) {
        // SAFETY: register-only arithmetic on ymm registers the block declares clobbered.
        unsafe {
            asm!(
                "vpxor ymm0, ymm0, ymm0", "vpxor ymm1, ymm1, ymm1",
                "vpxor ymm2, ymm2, ymm2", "vpxor ymm3, ymm3, ymm3",
                "vpxor ymm4, ymm4, ymm4", "vpxor ymm5, ymm5, ymm5",
                "vpxor ymm6, ymm6, ymm6", "vpxor ymm7, ymm7, ymm7",
                "vpxor ymm8, ymm8, ymm8", "vpxor ymm9, ymm9, ymm9",
                "vpxor ymm10, ymm10, ymm10", "vpxor ymm11, ymm11, ymm11",
                "vpcmpeqd ymm14, ymm14, ymm14", "vpcmpeqd ymm15, ymm15, ymm15",
                "2:",
                "vfmadd231ps ymm0, ymm14, ymm15", "vfmadd231ps ymm1, ymm14, ymm15",
                "vfmadd231ps ymm2, ymm14, ymm15", "vfmadd231ps ymm3, ymm14, ymm15",
                "vfmadd231ps ymm4, ymm14, ymm15", "vfmadd231ps ymm5, ymm14, ymm15",
                "vfmadd231ps ymm6, ymm14, ymm15", "vfmadd231ps ymm7, ymm14, ymm15",
                "vfmadd231ps ymm8, ymm14, ymm15", "vfmadd231ps ymm9, ymm14, ymm15",
                "vfmadd231ps ymm10, ymm14, ymm15", "vfmadd231ps ymm11, ymm14, ymm15",
                "dec {n}", "jnz 2b",
                n = inout(reg) iterations => _,
                out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
                out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                out("ymm14") _, out("ymm15") _,
                options(nostack, nomem)
            );
        }
    }

    independent_chains!(
        /// Runs `iterations` × 12 independent 16-lane f32 FMAs (NaN operands: the rate does not
        /// depend on the values).
        fma_chains, "avx512f", "vfmadd231ps"
    );
    independent_chains!(
        /// Runs `iterations` × 12 independent `vdpbf16ps zmm` (32 bf16 pairs, 64 flops each).
        bf16_dot_chains, "avx512f,avx512bf16", "vdpbf16ps"
    );
    independent_chains!(
        /// Runs `iterations` × 12 independent `vpdpbusd zmm` (64 u8 × i8 products, 128 ops each).
        int8_dot_chains, "avx512f,avx512vnni", "vpdpbusd"
    );

    /// Runs `iterations` × 4 `tdpbf16ps` (a 2 × 2 block of 16 × 16 results), reloading the
    /// two A and two B tiles from `operands` (4 KiB, L1-resident) each time when `load`.
    ///
    /// # Safety
    /// Tiles are configured on this thread (`amx::configure`); `operands` holds at least
    /// 4 KiB.
    pub unsafe fn tile_products(iterations: u64, load: bool, operands: &[u8]) {
        assert!(operands.len() >= 4096);
        let (a0, a1) = (operands.as_ptr(), operands[1024..].as_ptr());
        let (b0, b1) = (operands[2048..].as_ptr(), operands[3072..].as_ptr());
        // SAFETY: tiles are configured; loads read 16 rows × 64 bytes at stride 64 from the
        // four 1 KiB quarters of `operands` (asserted above).
        unsafe {
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                options(nostack, nomem)
            );
            // Operand tiles hold the caller's values in both loops (zero tiles multiply
            // faster than real data).
            asm!(
                "tileloadd tmm4, [{a0} + {s}*1]",
                "tileloadd tmm5, [{a1} + {s}*1]",
                "tileloadd tmm6, [{b0} + {s}*1]",
                "tileloadd tmm7, [{b1} + {s}*1]",
                a0 = in(reg) a0, a1 = in(reg) a1, b0 = in(reg) b0, b1 = in(reg) b1,
                s = in(reg) 64usize,
                options(nostack, readonly)
            );
            if load {
                asm!(
                    "2:",
                    "tdpbf16ps tmm0, tmm4, tmm6",
                    "tdpbf16ps tmm1, tmm4, tmm7",
                    "tileloadd tmm4, [{a0} + {s}*1]",
                    "tdpbf16ps tmm2, tmm5, tmm6",
                    "tileloadd tmm6, [{b0} + {s}*1]",
                    "tdpbf16ps tmm3, tmm5, tmm7",
                    "tileloadd tmm5, [{a1} + {s}*1]",
                    "tileloadd tmm7, [{b1} + {s}*1]",
                    "dec {n}", "jnz 2b",
                    a0 = in(reg) a0, a1 = in(reg) a1, b0 = in(reg) b0, b1 = in(reg) b1,
                    s = in(reg) 64usize, n = inout(reg) iterations => _,
                    options(nostack, readonly)
                );
            } else {
                asm!(
                    "2:",
                    "tdpbf16ps tmm0, tmm4, tmm6",
                    "tdpbf16ps tmm1, tmm4, tmm7",
                    "tdpbf16ps tmm2, tmm5, tmm6",
                    "tdpbf16ps tmm3, tmm5, tmm7",
                    "dec {n}", "jnz 2b",
                    n = inout(reg) iterations => _,
                    options(nostack, nomem)
                );
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use systolic_cpu::kernels::dot::packed::amx;
    let chain = 100_000_000u64;
    let seconds = best_of_five(|| x86::multiply_chain(chain));
    let ghz = (chain * 4 * 3) as f64 / seconds / 1e9;
    println!("clock            {ghz:6.2} GHz (dependent imul chain)");

    if std::arch::is_x86_feature_detected!("avx512f") {
        let n = 50_000_000u64;
        // SAFETY: AVX-512F is present (checked above).
        let seconds = best_of_five(|| unsafe { x86::fma_chains(n) });
        let gflops = (n * 12 * 16 * 2) as f64 / seconds / 1e9;
        println!(
            "f32 FMA          {gflops:6.0} GFLOP/s per core ({:.1} flops/cycle; 64 is two FMA units)",
            gflops / ghz
        );
    } else if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        let n = 50_000_000u64;
        // SAFETY: AVX2 and FMA are present (checked above).
        let seconds = best_of_five(|| unsafe { x86::fma_chains_ymm(n) });
        let gflops = (n * 12 * 8 * 2) as f64 / seconds / 1e9;
        println!(
            "f32 FMA (ymm)    {gflops:6.0} GFLOP/s per core ({:.1} flops/cycle; 32 is two 256-bit FMA units)",
            gflops / ghz
        );
    } else {
        println!("f32 FMA          (neither AVX-512F nor AVX2 with FMA)");
    }

    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bf16")
    {
        let n = 50_000_000u64;
        // SAFETY: the features are present (checked above).
        let seconds = best_of_five(|| unsafe { x86::bf16_dot_chains(n) });
        let gflops = (n * 12 * 32 * 2) as f64 / seconds / 1e9;
        println!(
            "bf16 vdpbf16ps   {gflops:6.0} GFLOP/s per core ({:.1} flops/cycle)",
            gflops / ghz
        );
    } else {
        println!("bf16 vdpbf16ps   (no AVX512-BF16)");
    }
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vnni")
    {
        let n = 50_000_000u64;
        // SAFETY: the features are present (checked above).
        let seconds = best_of_five(|| unsafe { x86::int8_dot_chains(n) });
        let gops = (n * 12 * 64 * 2) as f64 / seconds / 1e9;
        println!(
            "int8 vpdpbusd    {gops:6.0} GOP/s per core ({:.1} ops/cycle)",
            gops / ghz
        );
    } else {
        println!("int8 vpdpbusd    (no AVX512-VNNI)");
    }

    if amx::available() {
        // bf16 values near 0.75 (0x3f3f): products of zero tiles run faster than real data.
        let operands = vec![0x3fu8; 4096 + 64];
        let offset = operands.as_ptr().align_offset(64);
        let operands = &operands[offset..offset + 4096];
        let n = 5_000_000u64;
        for (load, what) in [(false, "no loads"), (true, "tile loads from L1")] {
            // SAFETY: `available` enabled AMX for this process; the tiles are configured on
            // this thread before the products and released after them.
            let seconds = best_of_five(|| unsafe {
                amx::configure();
                x86::tile_products(n, load, operands);
                amx::release();
            });
            let products = (n * 4) as f64;
            let gflops = products * (16 * 16 * 32 * 2) as f64 / seconds / 1e9;
            println!(
                "AMX bf16         {gflops:6.0} GFLOP/s per core, {:.1} cycles per tdpbf16ps ({what})",
                seconds * ghz * 1e9 / products
            );
        }
    } else {
        println!("AMX bf16         (not available on this CPU or OS)");
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("peak_bench measures x86-64 instructions only");
}
