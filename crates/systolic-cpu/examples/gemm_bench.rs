//! Matrix-product throughput of the CPU backend's `DotPlan`, in GFLOP/s (2·M·N·K per product),
//! for f32, bf16 → f32, bf16 → bf16 and int8 → i32 at several square sizes.
//!
//! Run: `cargo run --release -p systolic-cpu --example gemm_bench [sizes…] [cases…]`
//! (a size is `N` for N × N · N × N or `MxKxN` for M × K · K × N, e.g. `4096x256x1024`, the
//! MLP product of `examples/train_lm`; cases: f32, bf16->f32, bf16->bf16, i8->i32, conv;
//! default all).
//! The JAX side (same sizes and dtypes, jitted `lax.dot`) is `examples/gemm_bench_jax.py`:
//! `/root/.cache/systolic-jax-venv/bin/python crates/systolic-cpu/examples/gemm_bench_jax.py`.
//! Both report the best of several runs after a warm-up; run them one after the other on an
//! otherwise idle machine. `GFLOP/cpu-s` divides by the CPU time the process used (all
//! threads), i.e. throughput per busy core — the figure to compare on a shared machine.
//! f32 products run on faer or on `gemm` as `kernels::dot::float::faer_route` chooses for
//! this CPU; `SYSTOLIC_CPU_GEMM=faer` or `=gemm` fixes it, to compare the two.

use std::time::Instant;
use systolic_cpu::kernels::conv::ConvPlan;
use systolic_cpu::kernels::dot::DotPlan;
use systolic_cpu::CpuBuffer;
use systolic_ir::{
    ConvAttrs, ConvDimensionNumbers, DType, Data, DotDimensionNumbers, Tensor, TensorType,
};

/// A product's size: `m × k · k × n`.
#[derive(Clone, Copy)]
struct Size {
    m: usize,
    k: usize,
    n: usize,
}

impl Size {
    /// `N` (square) or `MxKxN`.
    fn parse(arg: &str) -> Option<Size> {
        let dims: Vec<usize> = arg
            .split('x')
            .map(|d| d.parse().ok())
            .collect::<Option<_>>()?;
        match dims.as_slice() {
            [n] => Some(Size {
                m: *n,
                k: *n,
                n: *n,
            }),
            [m, k, n] => Some(Size {
                m: *m,
                k: *k,
                n: *n,
            }),
            _ => None,
        }
    }

    fn label(&self) -> String {
        if self.m == self.k && self.k == self.n {
            self.n.to_string()
        } else {
            format!("{}x{}x{}", self.m, self.k, self.n)
        }
    }
}

/// A buffer of `shape` and `dtype` with values from a fixed pseudo-random sequence.
fn shaped(shape: Vec<i64>, dtype: DType, seed: u64) -> CpuBuffer {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let ty = TensorType::new(shape, dtype);
    let count = ty.num_elements();
    let data = if dtype.is_float() {
        Data::Float(
            (0..count)
                .map(|_| (next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
                .collect(),
        )
    } else {
        Data::Int((0..count).map(|_| next() as i64).collect())
    };
    CpuBuffer::from_tensor(&Tensor::new(ty, data).expect("random tensor"))
}

/// CPU seconds this process has used (user + system, from /proc/self/stat; Linux only),
/// so that throughput per busy core can be told apart from a machine shared with others.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user + system) / 100.0)
}

/// Best wall seconds per product over `reps` runs after one warm-up, and the mean CPU seconds
/// per product.
fn time(
    plan: &DotPlan,
    a: &CpuBuffer,
    b: &CpuBuffer,
    out: &mut CpuBuffer,
    reps: usize,
) -> (f64, Option<f64>) {
    plan.run(a, b, out).expect("warm-up run");
    let cpu0 = cpu_seconds();
    let best = (0..reps)
        .map(|_| {
            let t = Instant::now();
            plan.run(a, b, out).expect("run");
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    let cpu = cpu0.zip(cpu_seconds()).map(|(x, y)| (y - x) / reps as f64);
    (best, cpu)
}

fn main() {
    let sizes: Vec<Size> = {
        let args: Vec<Size> = std::env::args()
            .skip(1)
            .filter_map(|a| Size::parse(&a))
            .collect();
        if args.is_empty() {
            [256, 512, 1024, 2048]
                .map(|n| Size { m: n, k: n, n })
                .to_vec()
        } else {
            args
        }
    };
    #[cfg(target_arch = "x86_64")]
    println!(
        "cpu: avx512f={} avx512bf16={} avx512vnni={} threads={}",
        std::arch::is_x86_feature_detected!("avx512f"),
        std::arch::is_x86_feature_detected!("avx512bf16"),
        std::arch::is_x86_feature_detected!("avx512vnni"),
        rayon::current_num_threads()
    );
    println!(
        "f32/f64 products on: {}",
        if systolic_cpu::kernels::dot::float::faer_route() {
            "faer"
        } else {
            "gemm"
        }
    );
    println!(
        "blocking of the packed bf16 kernel: {:?}",
        systolic_cpu::kernels::dot::packed::Blocking::detect::<
            systolic_cpu::kernels::dot::packed::bf16::Bf16Kernel,
        >()
    );
    let cases = [
        ("f32", DType::F32, DType::F32),
        ("bf16->f32", DType::BF16, DType::F32),
        ("bf16->bf16", DType::BF16, DType::BF16),
        ("i8->i32", DType::I8, DType::I32),
    ];
    let dims = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![1],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    };
    println!(
        "{:<12}{:>15}{:>10}{:>14}  route",
        "case", "size", "GFLOP/s", "GFLOP/cpu-s"
    );
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| Size::parse(a).is_none())
        .collect();
    for (name, input, output) in cases {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        for size in &sizes {
            let Size { m, k, n } = *size;
            let (lhs_ty, rhs_ty) = (
                TensorType::new(vec![m as i64, k as i64], input),
                TensorType::new(vec![k as i64, n as i64], input),
            );
            let out_ty = TensorType::new(vec![m as i64, n as i64], output);
            let plan = DotPlan::new(&lhs_ty, &rhs_ty, &dims, &out_ty).expect("plan");
            let a = shaped(lhs_ty.shape.clone(), input, 1);
            let b = shaped(rhs_ty.shape.clone(), input, 2);
            let mut out = CpuBuffer::zeros(out_ty);
            let flops = 2.0 * (m * k * n) as f64;
            let reps = ((4e10 / flops) as usize).clamp(5, 100);
            let (t, cpu) = time(&plan, &a, &b, &mut out, reps);
            let per_cpu = cpu.map_or("-".to_string(), |c| format!("{:.1}", flops / c / 1e9));
            println!(
                "{name:<12}{:>15}{:>10.1}{per_cpu:>14}  {:?}",
                size.label(),
                flops / t / 1e9,
                plan.route()
            );
        }
    }
    if only.is_empty() || only.iter().any(|o| o == "conv") {
        conv_cases();
    }
}

/// A ResNet-like 3×3 convolution (NHWC, HWIO, padding 1) and a 1×1 one, f32 and bf16.
fn conv_cases() {
    let dn = ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 3,
        input_spatial_dimensions: vec![1, 2],
        kernel_input_feature_dimension: 2,
        kernel_output_feature_dimension: 3,
        kernel_spatial_dimensions: vec![0, 1],
        output_batch_dimension: 0,
        output_feature_dimension: 3,
        output_spatial_dimensions: vec![1, 2],
    };
    let cases = [
        (8, 56, 64, 64, 3),
        (8, 28, 128, 128, 3),
        (8, 56, 64, 256, 1),
    ];
    for dtype in [DType::F32, DType::BF16] {
        for (n, hw, ci, co, k) in cases {
            let attrs = ConvAttrs {
                dimension_numbers: dn.clone(),
                padding: Some(vec![(k / 2, k / 2); 2]),
                feature_group_count: 1,
                batch_group_count: 1,
                ..Default::default()
            };
            let x = shaped(vec![n, hw, hw, ci], dtype, 3);
            let w = shaped(vec![k, k, ci, co], dtype, 4);
            let out_ty = TensorType::new(vec![n, hw, hw, co], DType::F32);
            let plan = ConvPlan::new(x.ty(), w.ty(), &attrs, &out_ty).expect("conv plan");
            let mut out = CpuBuffer::zeros(out_ty);
            plan.run(&x, &w, &mut out).expect("warm-up");
            let reps = 5;
            let t = (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    plan.run(&x, &w, &mut out).expect("run");
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min);
            let flops = 2.0 * (n * hw * hw * co * k * k * ci) as f64;
            println!(
                "conv {dtype:<5} n{n} {hw}x{hw}x{ci} k{k}x{k} ->{co}: {:>8.1} GFLOP/s ({:.2} ms)",
                flops / t / 1e9,
                t * 1e3
            );
        }
    }
}
