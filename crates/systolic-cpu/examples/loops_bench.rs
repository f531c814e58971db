//! Fused loops and reductions on this machine: GB/s and ns per element for typical fused
//! programs, to compare with JAX (XLA:CPU) running the same ones (`loops_bench_jax.py`).
//!
//! Run: `cargo run --release -p systolic-cpu --example loops_bench`
//! JAX: `/root/.cache/systolic-jax-venv/bin/python crates/systolic-cpu/examples/loops_bench_jax.py`
//!
//! Each case is compiled from StableHLO text into one kernel (a loop or a reduction) and timed
//! as the best of several runs after a warm-up; GB/s counts the bytes the fused program must
//! read and write once (inputs + outputs), which is what a perfect fusion moves.

use std::time::Instant;
use systolic_cpu::kernels::fusion::reduce::lower_reduction_block;
use systolic_cpu::kernels::fusion::{lower_block, BlockSpec};
use systolic_cpu::{Arg, CpuBuffer, Kernel, LowerCtx};

/// Compiles the body of `main` in `text` into one kernel.
fn compile(text: &str, reduction: bool) -> Box<dyn Kernel> {
    let module = systolic_ir::text::parse_module(text, "bench").expect("valid module");
    let func = module.func("main").expect("main");
    let ctx = LowerCtx::new(&module, func);
    let body = func.body.entry().expect("body");
    let spec = BlockSpec::of_block(body).expect("a body ending in return");
    if reduction {
        lower_reduction_block("bench".into(), &spec, &ctx)
    } else {
        lower_block("bench".into(), &spec, &ctx)
    }
    .expect("a native kernel")
}

/// Best wall time in seconds of `f` over `reps` runs after one warm-up.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn random_f32(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * scale
        })
        .collect()
}

fn run(kernel: &dyn Kernel, args: &[&CpuBuffer]) -> Vec<CpuBuffer> {
    kernel
        .run(args.iter().map(|b| Arg::Borrowed(b)).collect())
        .expect("kernel runs")
}

/// The cases to run: all, or those whose name contains `LOOPS_BENCH_ONLY` (for profiling one).
fn wanted(name: &str) -> bool {
    std::env::var("LOOPS_BENCH_ONLY").map_or(true, |only| name.contains(&only))
}

fn report(name: &str, seconds: f64, elements: usize, bytes: usize) {
    println!(
        "{name:<44} {:>9.3} ms {:>8.2} GB/s {:>7.3} ns/element",
        seconds * 1e3,
        bytes as f64 / seconds / 1e9,
        seconds * 1e9 / elements as f64
    );
}

/// Throughput of the vectorised f32 math on an L1-resident block (compute bound).
fn math_throughput() {
    use systolic_cpu::kernels::math::F32Unary;
    let x = random_f32(4096, 7, 6.0);
    let mut out = vec![0.0f32; 4096];
    for f in F32Unary::ALL {
        let t = best(200, || f.apply(&x, &mut out));
        println!(
            "math {:<10} {:>7.3} ns/element (L1, one thread)",
            format!("{f:?}"),
            t * 1e9 / 4096.0
        );
    }
}

fn main() {
    let threads = rayon::current_num_threads();
    println!(
        "systolic fused loops ({threads} threads, AVX-512 loops: {})",
        systolic_cpu::kernels::math::simd::has_avx512()
    );
    math_throughput();
    let n = 1 << 24;
    let (a, b, c) = (
        CpuBuffer::from_f32(vec![n as i64], random_f32(n, 1, 4.0)),
        CpuBuffer::from_f32(vec![n as i64], random_f32(n, 2, 4.0)),
        CpuBuffer::from_f32(vec![n as i64], random_f32(n, 3, 4.0)),
    );

    let add = compile(
        &format!(
            "func.func @main(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.add %a, %b : tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}"
        ),
        false,
    );
    let t = best(10, || drop(run(add.as_ref(), &[&a, &b])));
    report("a + b, 16M f32", t, n, 12 * n);

    let chain = compile(
        &format!(
            "func.func @main(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>, %c: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.add %a, %b : tensor<{n}xf32>
  %1 = stablehlo.multiply %0, %c : tensor<{n}xf32>
  %2 = stablehlo.tanh %1 : tensor<{n}xf32>
  return %2 : tensor<{n}xf32>
}}"
        ),
        false,
    );
    let t = best(10, || drop(run(chain.as_ref(), &[&a, &b, &c])));
    report("tanh((a + b) * c), 16M f32", t, n, 16 * n);

    let exp = compile(
        &format!(
            "func.func @main(%a: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.exponential %a : tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}"
        ),
        false,
    );
    let t = best(10, || drop(run(exp.as_ref(), &[&a])));
    report("exp(a), 16M f32", t, n, 8 * n);

    let (rows, cols) = (4096usize, 1000usize);
    let x = CpuBuffer::from_f32(
        vec![rows as i64, cols as i64],
        random_f32(rows * cols, 4, 20.0),
    );
    let shape = format!("{rows}x{cols}");
    let row_sum = compile(
        &format!(
            "func.func @main(%x: tensor<{shape}xf32>) -> tensor<{rows}xf32> {{
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<{shape}xf32>, tensor<f32>) -> tensor<{rows}xf32>
  return %0 : tensor<{rows}xf32>
}}"
        ),
        true,
    );
    if wanted("row sum") {
        let t = best(200, || drop(run(row_sum.as_ref(), &[&x])));
        report("row sum [4096,1000] f32", t, rows * cols, 4 * rows * cols);
        if std::env::var("LOOPS_BENCH_ONLY").is_ok() {
            return;
        }
    }

    let col_sum = compile(
        &format!(
            "func.func @main(%x: tensor<{shape}xf32>) -> tensor<{cols}xf32> {{
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<{shape}xf32>, tensor<f32>) -> tensor<{cols}xf32>
  return %0 : tensor<{cols}xf32>
}}"
        ),
        true,
    );
    let t = best(10, || drop(run(col_sum.as_ref(), &[&x])));
    report(
        "column sum [4096,1000] f32",
        t,
        rows * cols,
        4 * rows * cols,
    );

    // Softmax over rows as XLA fuses it: a max reduction, a fused exp-sum reduction, and a
    // fused normalisation loop.
    let max = compile(
        &format!(
            "func.func @main(%x: tensor<{shape}xf32>) -> tensor<{rows}xf32> {{
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<{shape}xf32>, tensor<f32>) -> tensor<{rows}xf32>
  return %0 : tensor<{rows}xf32>
}}"
        ),
        true,
    );
    let sum = compile(
        &format!(
            "func.func @main(%x: tensor<{shape}xf32>, %m: tensor<{rows}xf32>) -> tensor<{rows}xf32> {{
  %0 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<{rows}xf32>) -> tensor<{shape}xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<{shape}xf32>
  %2 = stablehlo.exponential %1 : tensor<{shape}xf32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<{shape}xf32>, tensor<f32>) -> tensor<{rows}xf32>
  return %3 : tensor<{rows}xf32>
}}"
        ),
        true,
    );
    let normalise = compile(
        &format!(
            "func.func @main(%x: tensor<{shape}xf32>, %m: tensor<{rows}xf32>, %s: tensor<{rows}xf32>) -> tensor<{shape}xf32> {{
  %0 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<{rows}xf32>) -> tensor<{shape}xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<{shape}xf32>
  %2 = stablehlo.exponential %1 : tensor<{shape}xf32>
  %3 = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<{rows}xf32>) -> tensor<{shape}xf32>
  %4 = stablehlo.divide %2, %3 : tensor<{shape}xf32>
  return %4 : tensor<{shape}xf32>
}}"
        ),
        false,
    );
    let t = best(10, || {
        let m = run(max.as_ref(), &[&x]).remove(0);
        let s = run(sum.as_ref(), &[&x, &m]).remove(0);
        drop(run(normalise.as_ref(), &[&x, &m, &s]));
    });
    report(
        "softmax rows [4096,1000] f32 (3 kernels)",
        t,
        rows * cols,
        8 * rows * cols,
    );
    let m = run(max.as_ref(), &[&x]).remove(0);
    let s = run(sum.as_ref(), &[&x, &m]).remove(0);
    let t = best(10, || drop(run(max.as_ref(), &[&x])));
    report("  softmax 1: row max", t, rows * cols, 4 * rows * cols);
    let t = best(10, || drop(run(sum.as_ref(), &[&x, &m])));
    report(
        "  softmax 2: row sum of exp(x - max)",
        t,
        rows * cols,
        4 * rows * cols,
    );
    let t = best(10, || drop(run(normalise.as_ref(), &[&x, &m, &s])));
    report(
        "  softmax 3: exp(x - max) / sum",
        t,
        rows * cols,
        8 * rows * cols,
    );

    // The same softmax as one row program (what the fusion pass now makes of it): each
    // chunk of rows is read from memory once, its later passes hit the cache.
    let softmax_rows = compile(
        &format!(
            "func.func @main(%x: tensor<{shape}xf32>) -> tensor<{shape}xf32> {{
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<{shape}xf32>, tensor<f32>) -> tensor<{rows}xf32>
  %0 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<{rows}xf32>) -> tensor<{shape}xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<{shape}xf32>
  %2 = stablehlo.exponential %1 : tensor<{shape}xf32>
  %s = stablehlo.reduce(%2 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<{shape}xf32>, tensor<f32>) -> tensor<{rows}xf32>
  %3 = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<{rows}xf32>) -> tensor<{shape}xf32>
  %4 = stablehlo.divide %2, %3 : tensor<{shape}xf32>
  return %4 : tensor<{shape}xf32>
}}"
        ),
        true,
    );
    if wanted("softmax rows") {
        let t = best(10, || drop(run(softmax_rows.as_ref(), &[&x])));
        report(
            "softmax rows [4096,1000] f32 (row program)",
            t,
            rows * cols,
            8 * rows * cols,
        );
    }
    let (lr, lc) = (2048, 512);
    let ln = compile(
        &format!(
            "func.func @main(%x: tensor<{lr}x{lc}xf32>, %g: tensor<{lc}xf32>, %b: tensor<{lc}xf32>) -> tensor<{lr}x{lc}xf32> {{
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<{lc}.0> : tensor<f32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<{lr}x{lc}xf32>, tensor<f32>) -> tensor<{lr}xf32>
  %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<{lr}xf32>
  %mu = stablehlo.divide %s, %nb : tensor<{lr}xf32>
  %mub = stablehlo.broadcast_in_dim %mu, dims = [0] : (tensor<{lr}xf32>) -> tensor<{lr}x{lc}xf32>
  %c = stablehlo.subtract %x, %mub : tensor<{lr}x{lc}xf32>
  %sq = stablehlo.multiply %c, %c : tensor<{lr}x{lc}xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<{lr}x{lc}xf32>, tensor<f32>) -> tensor<{lr}xf32>
  %var = stablehlo.divide %v, %nb : tensor<{lr}xf32>
  %epsb = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) -> tensor<{lr}xf32>
  %ve = stablehlo.add %var, %epsb : tensor<{lr}xf32>
  %r = stablehlo.rsqrt %ve : tensor<{lr}xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<{lr}xf32>) -> tensor<{lr}x{lc}xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<{lc}xf32>) -> tensor<{lr}x{lc}xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<{lc}xf32>) -> tensor<{lr}x{lc}xf32>
  %y0 = stablehlo.multiply %c, %rb : tensor<{lr}x{lc}xf32>
  %y1 = stablehlo.multiply %y0, %gb : tensor<{lr}x{lc}xf32>
  %y = stablehlo.add %y1, %bb : tensor<{lr}x{lc}xf32>
  return %y : tensor<{lr}x{lc}xf32>
}}"
        ),
        true,
    );
    if wanted("layer norm") {
        let lx = CpuBuffer::from_f32(vec![lr, lc], random_f32((lr * lc) as usize, 11, 4.0));
        let g = CpuBuffer::from_f32(vec![lc], random_f32(lc as usize, 12, 2.0));
        let b = CpuBuffer::from_f32(vec![lc], random_f32(lc as usize, 13, 2.0));
        let t = best(10, || drop(run(ln.as_ref(), &[&lx, &g, &b])));
        let n = (lr * lc) as usize;
        report("layer norm [2048,512] f32 (row program)", t, n, 8 * n);
    }

    let argmax_text = format!(
        "func.func @main(%arg0: tensor<{shape}xf32>) -> tensor<{rows}xi32> {{
  %0 = stablehlo.iota dim = 1 : tensor<{shape}xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<{shape}xf32>, tensor<{shape}xi32>, tensor<f32>, tensor<i32>) -> (tensor<{rows}xf32>, tensor<{rows}xi32>)
   reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {{
    %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.or %2, %3 : tensor<i1>
    %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %5, %6 : tensor<i1>
    %8 = stablehlo.or %4, %7 : tensor<i1>
    %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }}
  return %1#1 : tensor<{rows}xi32>
}}"
    );
    let argmax = compile(&argmax_text, true);
    let t = best(5, || drop(run(argmax.as_ref(), &[&x])));
    report(
        "argmax rows [4096,1000] f32",
        t,
        rows * cols,
        4 * rows * cols,
    );
}
