//! The cost of one iteration of `while` loops whose bodies are a dozen tiny kernels, where
//! the fixed cost of launching each kernel (argument and result vectors, type checks, result
//! buffers, slot bookkeeping) rather than arithmetic sets the time.
//!
//! Run: `cargo run --release -p systolic-cpu --example small_loop_bench`
//!
//! - `pivots`: the loop that swaps `perm[k]` and `perm[piv[k]]` of an int32[128] vector
//!   (JAX's `lu_pivots_to_permutation`), with a scalar sum picked by a `select` and an
//!   f64[128] vector updated by `dynamic_update_slice` (the program the front end's
//!   `fori_loop_bench` example traces, as its `fori_loop` prints).
//! - `scalar`: a body of int32 and f32 scalar arithmetic and a `select`.
//!
//! Each runs for two trip counts; the difference of their times over the difference of the
//! trip counts is the cost of one iteration, without the call's fixed cost.
//!
//! With arguments `FILE.mlir [INPUT.npy …]`, it times that program instead (e.g. a program
//! written by the front end's `fori_loop_bench` with `SMALL_LOOP_DUMP=dir`).

use std::time::Instant;
use systolic_cpu::{compile, CompileOptions, CpuBuffer, CpuExecutable, Storage};
use systolic_ir::{DType, TensorType};

/// The pivots loop's body, as the front end's `fori_loop` emits it; `TRIPS` is the trip count.
const PIVOTS: &str = r#"
func.func public @main(%arg0: tensor<128xi32>) -> tensor<f64> {
  %0 = stablehlo.iota dim = 0 : tensor<128xi32>
  %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
  %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<128xf64>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %2:5 = stablehlo.while(%i = %c, %perm = %0, %acc = %c, %v = %1, %piv = %arg0) : tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<128xf64>, tensor<128xi32>
  cond {
    %n = stablehlo.constant dense<TRIPS> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c128 = stablehlo.constant dense<128> : tensor<i32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r = stablehlo.remainder %i, %c128 : tensor<i32>
    %rneg = stablehlo.compare LT, %r, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %rw = stablehlo.add %r, %c128 : tensor<i32>
    %k = stablehlo.select %rneg, %rw, %r : tensor<i1>, tensor<i32>
    %pk1 = stablehlo.dynamic_slice %piv, %k, sizes = [1] : (tensor<128xi32>, tensor<i32>) -> tensor<1xi32>
    %pk = stablehlo.reshape %pk1 : (tensor<1xi32>) -> tensor<i32>
    %pneg = stablehlo.compare LT, %pk, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %pw = stablehlo.add %pk, %c128 : tensor<i32>
    %p = stablehlo.select %pneg, %pw, %pk : tensor<i1>, tensor<i32>
    %x = stablehlo.dynamic_slice %perm, %k, sizes = [1] : (tensor<128xi32>, tensor<i32>) -> tensor<1xi32>
    %y = stablehlo.dynamic_slice %perm, %p, sizes = [1] : (tensor<128xi32>, tensor<i32>) -> tensor<1xi32>
    %perm1 = stablehlo.dynamic_update_slice %perm, %y, %k : (tensor<128xi32>, tensor<1xi32>, tensor<i32>) -> tensor<128xi32>
    %perm2 = stablehlo.dynamic_update_slice %perm1, %x, %p : (tensor<128xi32>, tensor<1xi32>, tensor<i32>) -> tensor<128xi32>
    %xs = stablehlo.reshape %x : (tensor<1xi32>) -> tensor<i32>
    %ys = stablehlo.reshape %y : (tensor<1xi32>) -> tensor<i32>
    %gt = stablehlo.compare GT, %xs, %ys : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %sum = stablehlo.add %acc, %xs : tensor<i32>
    %acc1 = stablehlo.select %gt, %sum, %acc : tensor<i1>, tensor<i32>
    %vp = stablehlo.dynamic_slice %v, %p, sizes = [1] : (tensor<128xf64>, tensor<i32>) -> tensor<1xf64>
    %half = stablehlo.constant dense<5.000000e-01> : tensor<1xf64>
    %vh = stablehlo.multiply %vp, %half : tensor<1xf64>
    %v1 = stablehlo.dynamic_update_slice %v, %vh, %k : (tensor<128xf64>, tensor<1xf64>, tensor<i32>) -> tensor<128xf64>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %perm2, %acc1, %v1, %piv : tensor<i32>, tensor<128xi32>, tensor<i32>, tensor<128xf64>, tensor<128xi32>
  }
  %z = stablehlo.constant dense<0> : tensor<i32>
  %3 = stablehlo.reduce(%2#1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<128xi32>, tensor<i32>) -> tensor<i32>
  %4 = stablehlo.add %3, %2#2 : tensor<i32>
  %5 = stablehlo.convert %4 : (tensor<i32>) -> tensor<f64>
  %zf = stablehlo.constant dense<0.000000e+00> : tensor<f64>
  %6 = stablehlo.reduce(%2#3 init: %zf) applies stablehlo.add across dimensions = [0] : (tensor<128xf64>, tensor<f64>) -> tensor<f64>
  %7 = stablehlo.add %5, %6 : tensor<f64>
  return %7 : tensor<f64>
}
"#;

/// A scalar loop: an int32 LCG step and an f32 accumulator picked by a select.
const SCALAR: &str = r#"
func.func public @main(%seed: tensor<i32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0:3 = stablehlo.while(%i = %c, %s = %seed, %acc = %z) : tensor<i32>, tensor<i32>, tensor<f32>
  cond {
    %n = stablehlo.constant dense<TRIPS> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a = stablehlo.constant dense<1103> : tensor<i32>
    %b = stablehlo.constant dense<12345> : tensor<i32>
    %m = stablehlo.constant dense<65536> : tensor<i32>
    %t0 = stablehlo.multiply %s, %a : tensor<i32>
    %t1 = stablehlo.add %t0, %b : tensor<i32>
    %s1 = stablehlo.remainder %t1, %m : tensor<i32>
    %f = stablehlo.convert %s1 : (tensor<i32>) -> tensor<f32>
    %half = stablehlo.constant dense<3.276800e+04> : tensor<f32>
    %gt = stablehlo.compare GT, %f, %half : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %up = stablehlo.add %acc, %f : tensor<f32>
    %h = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %down = stablehlo.multiply %acc, %h : tensor<f32>
    %acc1 = stablehlo.select %gt, %up, %down : tensor<i1>, tensor<f32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %s1, %acc1 : tensor<i32>, tensor<i32>, tensor<f32>
  }
  return %0#2 : tensor<f32>
}
"#;

fn compile_text(text: &str) -> CpuExecutable {
    let module = systolic_ir::text::parse_module(text, "bench").expect("a valid module");
    compile(&module, &CompileOptions::default()).expect("compiles")
}

/// Mean seconds per run of `exe` on `args`, after one warm-up run.
fn per_run(exe: &CpuExecutable, args: &[CpuBuffer], reps: usize) -> f64 {
    let refs: Vec<&CpuBuffer> = args.iter().collect();
    exe.execute_borrowed(&refs).expect("runs");
    let t0 = Instant::now();
    for _ in 0..reps {
        exe.execute_borrowed(&refs).expect("runs");
    }
    t0.elapsed().as_secs_f64() / reps as f64
}

/// Prints the per-iteration cost of the loop `template` (trip count `TRIPS`) on `args`.
fn per_iteration(name: &str, template: &str, args: &[CpuBuffer]) {
    let (short, long) = (128usize, 1152usize);
    let time = |trips: usize| {
        let exe = compile_text(&template.replace("TRIPS", &trips.to_string()));
        per_run(&exe, args, 200)
    };
    let (a, b) = (time(short), time(long));
    println!(
        "{name:6} loop {short:5} iterations {:8.1} µs {long:5} iterations {:8.1} µs   per iteration {:6.2} µs",
        a * 1e6,
        b * 1e6,
        (b - a) / (long - short) as f64 * 1e6
    );
}

/// An int32 buffer.
fn i32_buffer(shape: Vec<i64>, values: Vec<i32>) -> CpuBuffer {
    CpuBuffer::new(TensorType::new(shape, DType::I32), Storage::I32(values)).expect("a valid shape")
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if let Some((file, inputs)) = argv.split_first() {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let exe = compile_text(&text);
        let args: Vec<CpuBuffer> = inputs
            .iter()
            .map(|p| {
                let t = systolic_npy::read(std::path::Path::new(p), None)
                    .unwrap_or_else(|e| panic!("{p}: {e}"));
                CpuBuffer::from_tensor(&t)
            })
            .collect();
        let reps = std::env::var("REPS").map_or(100, |r| r.parse().expect("REPS is a count"));
        let t = per_run(&exe, &args, reps);
        println!("{file}: {:.1} µs per run ({reps} runs)", t * 1e6);
        return;
    }
    let piv: Vec<i32> = (0..128).map(|k| (k * 37 + 11) % 128).collect();
    per_iteration("pivots", PIVOTS, &[i32_buffer(vec![128], piv)]);
    per_iteration("scalar", SCALAR, &[i32_buffer(vec![], vec![7])]);
}
