//! Loops that LLVM auto-vectorises, compiled three times: for the baseline x86-64 target, for
//! AVX2 with FMA (x86-64-v3: a Zen 3 EPYC, Haswell to Alder Lake) and for AVX-512
//! (x86-64-v4), the widest the CPU runs picked at run time. The element functions passed in
//! are `#[inline(always)]` closures, so each instantiation becomes one tight vector loop; in
//! the AVX2 and AVX-512 copies `mul_add` is a fused multiply-add instruction instead of a libm
//! call. Every copy computes the same IEEE results (FMA is fused in all), so the choice never
//! changes a bit of the output.

use std::sync::OnceLock;

/// The widest copy of the loops this CPU runs (checked once; capped by [`crate::isa`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Baseline x86-64 (SSE2), or another architecture.
    Plain,
    /// x86-64-v3: AVX, AVX2, FMA, BMI1/2, LZCNT, POPCNT, F16C.
    V3,
    /// x86-64-v4: v3 plus AVX-512 F/BW/DQ/VL.
    V4,
}

/// The copy of the loops this process runs.
pub fn level() -> Level {
    static DETECTED: OnceLock<Level> = OnceLock::new();
    *DETECTED.get_or_init(|| {
        use crate::isa::{allows, IsaCap};
        if allows(IsaCap::Avx512) && detect_v4() {
            Level::V4
        } else if allows(IsaCap::Avx2) && detect_v3() {
            Level::V3
        } else {
            Level::Plain
        }
    })
}

/// True when this CPU runs the AVX-512 copies of the loops.
pub fn has_avx512() -> bool {
    level() == Level::V4
}

/// True when this CPU runs the AVX2-with-FMA copies of the loops or wider ones: fused
/// multiply-adds are instructions.
pub fn has_avx2_fma() -> bool {
    level() >= Level::V3
}

#[cfg(target_arch = "x86_64")]
fn detect_v3() -> bool {
    std::arch::is_x86_feature_detected!("avx")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("f16c")
}

#[cfg(target_arch = "x86_64")]
fn detect_v4() -> bool {
    detect_v3()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_v3() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_v4() -> bool {
    false
}

/// Declares a public dispatching loop `$name`, its portable body `$plain` and its AVX2 and
/// AVX-512 copies.
macro_rules! multiversion {
    ($(#[$doc:meta])* fn $name:ident / $plain:ident / $v3:ident / $v4:ident
        <$($g:ident),*> ($($arg:ident : $ty:ty),*) $(-> $ret:ty)? where $($bounds:tt)*) => {
        $(#[$doc])*
        #[inline]
        pub fn $name<$($g),*>($($arg: $ty),*) $(-> $ret)? where $($bounds)* {
            #[cfg(target_arch = "x86_64")]
            match level() {
                // SAFETY: the CPU supports every feature `$v4` is compiled for (checked by
                // `level`).
                Level::V4 => unsafe { return $v4($($arg),*) },
                // SAFETY: as above, for `$v3`.
                Level::V3 => unsafe { return $v3($($arg),*) },
                Level::Plain => {}
            }
            $plain($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,popcnt,f16c")]
        unsafe fn $v3<$($g),*>($($arg: $ty),*) $(-> $ret)? where $($bounds)* {
            $plain($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
        unsafe fn $v4<$($g),*>($($arg: $ty),*) $(-> $ret)? where $($bounds)* {
            $plain($($arg),*)
        }
    };
}

multiversion! {
    /// `out[i] = f(a[i])` over the common length.
    fn map1 / map1_plain / map1_v3 / map1_v4 <A, B, F>(a: &[A], out: &mut [B], f: F)
        where A: Copy, F: Fn(A) -> B
}

multiversion! {
    /// `out[i] = f(a[i], b[i])` over the common length.
    fn map2 / map2_plain / map2_v3 / map2_v4 <A, B, C, F>(a: &[A], b: &[B], out: &mut [C], f: F)
        where A: Copy, B: Copy, F: Fn(A, B) -> C
}

multiversion! {
    /// `out[i] = f(a[i], b[i], c[i])` over the common length.
    fn map3 / map3_plain / map3_v3 / map3_v4 <A, B, C, D, F>(a: &[A], b: &[B], c: &[C], out: &mut [D], f: F)
        where A: Copy, B: Copy, C: Copy, F: Fn(A, B, C) -> D
}

multiversion! {
    /// `x[i] = f(x[i])` in place.
    fn update / update_plain / update_v3 / update_v4 <A, F>(x: &mut [A], f: F)
        where A: Copy, F: Fn(A) -> A
}

multiversion! {
    /// `out[k] = start + k·step`, wrapping: an i32 iota (one-hot class indices along a row).
    fn iota_i32 / iota_i32_plain / iota_i32_v3 / iota_i32_v4 <>(out: &mut [i32], start: i32, step: i32) where
}

#[inline(always)]
fn iota_i32_plain(out: &mut [i32], start: i32, step: i32) {
    // A running value: a vector induction, no 64-bit products.
    let mut v = start;
    for x in out {
        *x = v;
        v = v.wrapping_add(step);
    }
}

#[inline(always)]
fn map1_plain<A: Copy, B, F: Fn(A) -> B>(a: &[A], out: &mut [B], f: F) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}

#[inline(always)]
fn map2_plain<A: Copy, B: Copy, C, F: Fn(A, B) -> C>(a: &[A], b: &[B], out: &mut [C], f: F) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

#[inline(always)]
fn map3_plain<A: Copy, B: Copy, C: Copy, D, F: Fn(A, B, C) -> D>(
    a: &[A],
    b: &[B],
    c: &[C],
    out: &mut [D],
    f: F,
) {
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(x, y, z);
    }
}

#[inline(always)]
fn update_plain<A: Copy, F: Fn(A) -> A>(x: &mut [A], f: F) {
    for v in x.iter_mut() {
        *v = f(*v);
    }
}

multiversion! {
    /// Folds `x` with `op` from `identity` through 64 independent partial results (four vectors
    /// of f32 lanes, enough to hide the latency of a vector add) combined pairwise at the end:
    /// the order of a vectorised reduction. `identity` must be an identity of `op`
    /// (`op(p, identity)` is `p`): partial results start from it, and the tail is padded with
    /// it.
    fn fold64 / fold64_plain / fold64_v3 / fold64_v4 <T, F>(x: &[T], op: F, identity: T) -> T
        where T: Copy, F: Fn(T, T) -> T + Copy
}

/// Elements per test in [`patch_rare`] and [`patch_rare2`].
const PATCH_CHUNK: usize = 256;

/// `out[i] = fix(x[i])` wherever `rare(x[i])`: the second pass of a function whose vector
/// pass covers all but rare inputs (trig beyond the reduction's range, NaN). Each chunk is
/// tested first and patched only when it holds a rare input. Written as one loop, LLVM
/// vectorises the patch itself, calling `fix` for every lane and selecting after: `sin` of
/// 8 Mi f32 made 8 Mi libm calls (168 ms on an AMD EPYC where the vector pass takes 8).
#[inline]
pub fn patch_rare<A: Copy, B>(
    x: &[A],
    out: &mut [B],
    rare: impl Fn(A) -> bool + Copy,
    fix: impl Fn(A) -> B,
) {
    for (xs, os) in x.chunks(PATCH_CHUNK).zip(out.chunks_mut(PATCH_CHUNK)) {
        if any(xs, rare) {
            for (o, &v) in os.iter_mut().zip(xs) {
                if rare(v) {
                    *o = fix(v);
                }
            }
        }
    }
}

/// [`patch_rare`] for a function of two arguments.
#[inline]
pub fn patch_rare2<A: Copy, B: Copy, C>(
    a: &[A],
    b: &[B],
    out: &mut [C],
    rare: impl Fn(A, B) -> bool + Copy,
    fix: impl Fn(A, B) -> C,
) {
    let chunks = a.chunks(PATCH_CHUNK).zip(b.chunks(PATCH_CHUNK));
    for ((xs, ys), os) in chunks.zip(out.chunks_mut(PATCH_CHUNK)) {
        let flagged = xs.iter().zip(ys).fold(false, |f, (&x, &y)| f | rare(x, y));
        if flagged {
            for ((o, &x), &y) in os.iter_mut().zip(xs).zip(ys) {
                if rare(x, y) {
                    *o = fix(x, y);
                }
            }
        }
    }
}

multiversion! {
    /// True when `pred` holds for some element of `x`: every element tested (no early exit), as
    /// one OR over all of them, so it runs as vector code.
    fn any / any_plain / any_v3 / any_v4 <T, P>(x: &[T], pred: P) -> bool
        where T: Copy, P: Fn(T) -> bool + Copy
}

#[inline(always)]
fn any_plain<T: Copy, P: Fn(T) -> bool + Copy>(x: &[T], pred: P) -> bool {
    // An OR over every element becomes a vector OR of masks; an array of 64 flags (the earlier
    // form) spent its time moving masks into bytes: 133 against 92 ns for 512 f64 lanes, 19
    // against 15 for 512 f32 NaN tests on a Zen 4.
    x.iter().fold(false, |any, &v| any | pred(v))
}

/// Independent partial results of [`fold64`].
const PARTS: usize = 64;

/// Tail elements folded together as one group (an AVX-512 vector of f32).
const GROUP: usize = 16;

/// Folds `rest[AT..AT + GROUP]` into `parts[AT..AT + GROUP]`.
#[inline(always)]
fn fold_group<T: Copy, F: Fn(T, T) -> T + Copy, const AT: usize>(
    parts: &mut [T; PARTS],
    rest: &[T],
    op: F,
) {
    let group: &[T; GROUP] = rest[AT..AT + GROUP].try_into().expect("a whole group");
    for j in 0..GROUP {
        parts[AT + j] = op(parts[AT + j], group[j]);
    }
}

#[inline(always)]
fn fold64_plain<T: Copy, F: Fn(T, T) -> T + Copy>(x: &[T], op: F, identity: T) -> T {
    let mut parts = [identity; PARTS];
    let mut chunks = x.chunks_exact(PARTS);
    for chunk in &mut chunks {
        for j in 0..PARTS {
            parts[j] = op(parts[j], chunk[j]);
        }
    }
    // The tail: element j still goes to part j, in whole groups of 16 read straight from
    // the slice (vector code), then the last few one by one. (Copying the tail into a padded
    // chunk on the stack made every row pay a store-forwarding stall: the chunk's vector
    // loads span the copy's narrower stores — 29% of the fold's time on rows of 1000.)
    let rest = chunks.remainder();
    let groups = rest.len() / GROUP;
    if groups >= 1 {
        fold_group::<T, F, 0>(&mut parts, rest, op);
    }
    if groups >= 2 {
        fold_group::<T, F, GROUP>(&mut parts, rest, op);
    }
    if groups >= 3 {
        fold_group::<T, F, { 2 * GROUP }>(&mut parts, rest, op);
    }
    for j in groups * GROUP..rest.len() {
        parts[j] = op(parts[j], rest[j]);
    }
    let mut width = PARTS;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            parts[j] = op(parts[j], parts[j + width]);
        }
    }
    parts[0]
}
