//! Simulated TPU devices: TPU numerics (bf16 passes), the simulated clock (PCIe transfers,
//! modelled step time) and HBM capacity.

use systolic_ir::text::parse_module;
use systolic_ir::{DType, Tensor};
use systolic_runtime::{Client, CompileOptions, Device};

const M: usize = 64;
const K: usize = 256;
const N: usize = 32;

fn matmul(precision: &str, dtype: &str, out: &str) -> systolic_ir::Module {
    let text = format!(
        "func.func @main(%a: tensor<{M}x{K}x{dtype}>, %b: tensor<{K}x{N}x{dtype}>) -> tensor<{M}x{N}x{out}> {{
           %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [{precision}, {precision}] : (tensor<{M}x{K}x{dtype}>, tensor<{K}x{N}x{dtype}>) -> tensor<{M}x{N}x{out}>
           return %0 : tensor<{M}x{N}x{out}>
         }}"
    );
    parse_module(&text, "matmul").unwrap()
}

/// Deterministic values in [-1, 1) with full f32 mantissas.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f64 / (1u64 << 24) as f64 * 2.0 - 1.0) as f32
        })
        .collect()
}

/// f32 → bf16, round to nearest even (finite values), as f32.
fn bf16(x: f32) -> f32 {
    let bits = x.to_bits();
    let rounded = bits.wrapping_add(0x7fff + ((bits >> 16) & 1));
    f32::from_bits(rounded & 0xffff_0000)
}

fn run(
    client: &Client,
    device: Device,
    module: &systolic_ir::Module,
    a: &Tensor,
    b: &Tensor,
) -> Vec<f64> {
    let options = CompileOptions {
        device: Some(device),
        ..CompileOptions::no_disk_cache()
    };
    let exe = client.compile(module, &options).unwrap();
    let a = client.buffer_from_tensor(a.clone(), device).unwrap();
    let b = client.buffer_from_tensor(b.clone(), device).unwrap();
    exe.execute(&[&a, &b]).unwrap()[0]
        .to_tensor()
        .unwrap()
        .to_f64_vec()
}

#[test]
fn f32_matmul_numerics_follow_the_precision() {
    let client = Client::with_tpus(&[("v5e", 1)]).unwrap();
    let (cpu, tpu) = (client.devices()[0], client.device("tpu:v5e:0").unwrap());
    let (av, bv) = (values(M * K, 1), values(K * N, 2));
    let a = Tensor::from_f32(vec![M as i64, K as i64], av.clone());
    let b = Tensor::from_f32(vec![K as i64, N as i64], bv.clone());
    let a16 = Tensor::from_f32(
        vec![M as i64, K as i64],
        av.iter().map(|&x| bf16(x)).collect(),
    );
    let b16 = Tensor::from_f32(
        vec![K as i64, N as i64],
        bv.iter().map(|&x| bf16(x)).collect(),
    );

    let cpu_f32 = run(&client, cpu, &matmul("DEFAULT", "f32", "f32"), &a, &b);
    // The bf16-rounded inputs' product, accumulated in f32 by the CPU's f32 product.
    let cpu_rounded = run(&client, cpu, &matmul("HIGHEST", "f32", "f32"), &a16, &b16);
    // In f64, to bound the f32 accumulation's own error.
    let exact_rounded: Vec<f64> = (0..M * N)
        .map(|ij| {
            let (i, j) = (ij / N, ij % N);
            (0..K)
                .map(|k| f64::from(bf16(av[i * K + k])) * f64::from(bf16(bv[k * N + j])))
                .sum()
        })
        .collect();

    let default = run(&client, tpu, &matmul("DEFAULT", "f32", "f32"), &a, &b);
    assert_eq!(
        default, cpu_rounded,
        "DEFAULT = one bf16 pass, f32 accumulation"
    );
    let max_diff = |x: &[f64], y: &[f64]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max)
    };
    assert!(max_diff(&default, &exact_rounded) < 1e-5);
    let bf16_error = max_diff(&default, &cpu_f32);
    assert!(
        bf16_error > 1e-3,
        "DEFAULT on the TPU should differ from the CPU's f32 ({bf16_error})"
    );

    let highest = run(&client, tpu, &matmul("HIGHEST", "f32", "f32"), &a, &b);
    assert_eq!(highest, cpu_f32, "HIGHEST = f32");

    // HIGH (bf16_3x) is far closer to f32 than one pass, not equal to it.
    let high = run(&client, tpu, &matmul("HIGH", "f32", "f32"), &a, &b);
    let high_error = max_diff(&high, &cpu_f32);
    assert!(
        high_error < bf16_error / 100.0,
        "{high_error} vs {bf16_error}"
    );
}

#[test]
fn bf16_products_accumulate_in_f32() {
    let client = Client::with_tpus(&[("v6e", 1)]).unwrap();
    let tpu = client.device("tpu:v6e").unwrap();
    let (av, bv) = (values(M * K, 3), values(K * N, 4));
    let a = Tensor::from_f64(
        vec![M as i64, K as i64],
        DType::BF16,
        av.iter().map(|&x| f64::from(x)).collect(),
    )
    .unwrap();
    let b = Tensor::from_f64(
        vec![K as i64, N as i64],
        DType::BF16,
        bv.iter().map(|&x| f64::from(x)).collect(),
    )
    .unwrap();
    let (a64, b64) = (a.to_f64_vec(), b.to_f64_vec());
    let got = run(&client, tpu, &matmul("DEFAULT", "bf16", "bf16"), &a, &b);
    for (ij, &g) in got.iter().enumerate() {
        let (i, j) = (ij / N, ij % N);
        let sum: f64 = (0..K).map(|k| a64[i * K + k] * b64[k * N + j]).sum();
        // The f32 sum rounded once to bf16: within half a bf16 ulp plus the f32 sum's error.
        let want = f64::from(bf16(sum as f32));
        assert!(
            (g - want).abs() <= want.abs() * 2f64.powi(-8) + 1e-6,
            "{ij}: {g} vs {want}"
        );
    }
}

#[test]
fn clock_advances_by_transfers_and_modelled_steps() {
    let client = Client::with_tpus(&[("v5p", 2)]).unwrap();
    let tpu = client.device("tpu:v5p:1").unwrap();
    let other = client.device("tpu:v5p:0").unwrap();
    let pcie = tpu.chip().unwrap().pcie_bandwidth.value.unwrap();
    assert_eq!(tpu.simulated_time(), Some(0.0));
    let a = Tensor::from_f32(vec![M as i64, K as i64], values(M * K, 5));
    let b = Tensor::from_f32(vec![K as i64, N as i64], values(K * N, 6));
    let a = client.buffer_from_tensor(a, tpu).unwrap();
    let b = client.buffer_from_tensor(b, tpu).unwrap();
    let in_bytes = ((M * K + K * N) * 4) as f64;
    let t0 = tpu.simulated_time().unwrap();
    assert!((t0 - in_bytes / pcie).abs() <= 1e-12 * t0.max(1.0), "{t0}");
    assert_eq!(
        tpu.simulated_clock().unwrap().bytes_to_device,
        in_bytes as u64
    );

    let options = CompileOptions {
        device: Some(tpu),
        ..CompileOptions::no_disk_cache()
    };
    let exe = client
        .compile(&matmul("DEFAULT", "f32", "f32"), &options)
        .unwrap();
    // Compiling costs no device time.
    assert_eq!(tpu.simulated_time(), Some(t0));
    let cost = exe
        .tpu_cost()
        .expect("a TPU executable has a modelled cost");
    let step = cost.step_time_s();
    assert!(step > 0.0);
    assert_eq!(cost.report.chip, "v5p");
    let out = exe.execute(&[&a, &b]).unwrap();
    let out = exe.execute_donating(vec![out[0].clone(), out[0].clone()]);
    assert!(out.is_err(), "the same buffer twice");
    let y = exe.execute(&[&a, &b]).unwrap().remove(0);
    let t1 = tpu.simulated_time().unwrap();
    assert!(
        (t1 - (t0 + 2.0 * step)).abs() <= 1e-15,
        "{t1} vs {t0} + 2×{step}"
    );
    assert_eq!(tpu.simulated_clock().unwrap().executions, 2);
    y.to_tensor().unwrap();
    let t2 = tpu.simulated_time().unwrap();
    let out_bytes = (M * N * 4) as f64;
    assert!((t2 - t1 - out_bytes / pcie).abs() <= 1e-15);
    // Each device has its own clock.
    assert_eq!(other.simulated_time(), Some(0.0));
    // The product is one kernel: modelled time, a bound, MXU utilisation in (0, 1].
    let dot = cost
        .report
        .ops
        .iter()
        .find(|k| k.mxu_utilization.is_some())
        .unwrap();
    let u = dot.mxu_utilization.unwrap();
    assert!(u > 0.0 && u <= 1.0, "{u}");
    assert!(cost.mxu_utilization() > 0.0 && cost.mxu_utilization() <= 1.0);
}

#[test]
fn hbm_holds_live_buffers_and_overflow_names_them() {
    let client = Client::with_tpus(&[("v5e", 1)]).unwrap();
    let tpu = client.device("tpu:v5e").unwrap();
    // A rank-1 array pads to whole 128-lane rows: [3] f32 takes 512 bytes.
    let x = client
        .buffer_from_tensor(Tensor::from_f32(vec![3], vec![1.0, 2.0, 3.0]), tpu)
        .unwrap();
    assert_eq!(tpu.hbm_in_use(), Some(128 * 4));
    // The transfer thread lets go of the buffer just after the copy is done.
    x.block_until_ready().unwrap();
    drop(x);
    let start = std::time::Instant::now();
    while tpu.hbm_in_use() != Some(0) && start.elapsed().as_secs() < 5 {
        std::thread::yield_now();
    }
    assert_eq!(tpu.hbm_in_use(), Some(0));

    // Two 60000² f32 results of 14.4 GB each: more than v5e's 16 GiB at once.
    let module = parse_module(
        "func.func @main(%x: tensor<f32>) -> (tensor<60000x60000xf32>, tensor<60000x60000xf32>) {
           %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<60000x60000xf32>
           %1 = stablehlo.exponential %0 : tensor<60000x60000xf32>
           %2 = stablehlo.negate %0 : tensor<60000x60000xf32>
           return %1, %2 : tensor<60000x60000xf32>, tensor<60000x60000xf32>
         }",
        "big",
    )
    .unwrap();
    let options = CompileOptions {
        device: Some(tpu),
        ..CompileOptions::no_disk_cache()
    };
    let err = client.compile(&module, &options).unwrap_err().to_string();
    assert!(err.contains("RESOURCE_EXHAUSTED"), "{err}");
    assert!(err.contains("tensor<60000x60000xf32>"), "{err}");
    eprintln!("{err}");
    // The CPU's limit is the host memory budget, not a chip's HBM: under a 1 TiB budget the
    // same program compiles there (a larger budget only loosens the other tests' checks).
    let cpu = CompileOptions {
        device: Some(client.devices()[0]),
        ..CompileOptions::no_disk_cache()
    };
    systolic_ir::memory_budget::set_budget(Some(1 << 40));
    let compiled = client.compile(&module, &cpu);
    systolic_ir::memory_budget::set_budget(None);
    compiled.unwrap();
}
