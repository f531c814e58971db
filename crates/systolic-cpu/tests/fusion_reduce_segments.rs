//! Long rows folded in segments on every core (`reduce/exec.rs`, `Driver::segmented_rows`),
//! and sums to one value in the slots mode folded by top windows in parallel
//! (`slots_binary`): each kernel runs on pools of 1, 2, 3 and 8 threads, whose results must
//! be the same bits, and against the interpreter — exactly where the order cannot matter
//! (integers with wraparound, max/min with NaN and signed zeros, NaN and infinity propagation,
//! the slots mode's tree order), else within n·eps·Σ|x| (the rows mode reassociates sums).

use crate::fusion_support;

use fusion_support::{assert_results, Rng};
use systolic_cpu::kernels::fusion::reduce::exec::SEGMENT;
use systolic_cpu::threads::DenormalMode;
use systolic_cpu::{Arg, CpuBuffer};
use systolic_ir::{DType, Tensor};

/// Thread counts every kernel runs with.
const THREADS: [usize; 4] = [1, 2, 3, 8];

/// A reduce of `x: rows × len` over its last dimension with `op`, from init `%init`.
fn row_reduce(rows: usize, len: usize, dtype: DType, op: &str) -> String {
    let (t, s) = (
        format!("tensor<{rows}x{len}x{dtype}>"),
        format!("tensor<{dtype}>"),
    );
    let r = format!("tensor<{rows}x{dtype}>");
    format!(
        "func.func @main(%x: {t}, %init: {s}) -> {r} {{
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.{op} across dimensions = [1] : ({t}, {s}) -> {r}
  return %0 : {r}
}}"
    )
}

/// Compiles `text`'s body into one reduction kernel and runs it on a pool of each of
/// [`THREADS`] (threads flushing subnormals, as the backend's); asserts that every run gives
/// the same bits and returns them, with the interpreter's results.
fn run_everywhere(text: &str, inputs: &[Tensor]) -> (Vec<Tensor>, Vec<Tensor>) {
    let module = systolic_ir::text::parse_module(text, "t").unwrap_or_else(|e| panic!("{e:?}"));
    let kernel = fusion_support::lower_main(&module, text, true);
    let buffers: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
    let mut first: Option<Vec<Tensor>> = None;
    for threads in THREADS {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .start_handler(|_| std::mem::forget(DenormalMode::flush()))
            .build()
            .unwrap();
        let ours: Vec<Tensor> = pool
            .install(|| kernel.run(buffers.iter().map(Arg::Borrowed).collect()))
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
            .iter()
            .map(CpuBuffer::to_tensor)
            .collect();
        match &first {
            None => first = Some(ours),
            Some(one) => {
                for (a, b) in one.iter().zip(&ours) {
                    assert_eq!(bits(a), bits(b), "1 thread and {threads} differ\n{text}");
                }
            }
        }
    }
    let want = fusion_support::interpret(&module, inputs, text);
    (first.unwrap(), want)
}

/// Every element's bit pattern.
fn bits(t: &Tensor) -> Vec<u128> {
    (0..t.num_elements()).map(|i| t.bits_wide(i)).collect()
}

/// Row lengths around the segment size and a few segments long.
fn lengths() -> [usize; 6] {
    [
        SEGMENT - 1,
        SEGMENT,
        SEGMENT + 1,
        2 * SEGMENT,
        2 * SEGMENT + 511,
        3 * SEGMENT + 5,
    ]
}

/// Uniform values in [lo, hi) as `dtype` (f32 or f64).
fn floats(rng: &mut Rng, shape: &[usize], dtype: DType, lo: f64, hi: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|_| lo + (hi - lo) * ((rng.next() >> 11) as f64 / (1u64 << 53) as f64))
        .map(|x| {
            if dtype == DType::F32 {
                x as f32 as f64
            } else {
                x
            }
        })
        .collect();
    let shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    Tensor::from_f64(shape, dtype, v).unwrap()
}

/// Float sums within n·eps·(Σ|x| + |init|) of the interpreter's, per row.
fn assert_sum_close(ours: &Tensor, want: &Tensor, x: &Tensor, init: f64, dtype: DType) {
    let (o, w, xs) = (ours.to_f64_vec(), want.to_f64_vec(), x.to_f64_vec());
    let len = xs.len() / o.len();
    let eps = if dtype == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    for r in 0..o.len() {
        let magnitude: f64 = xs[r * len..(r + 1) * len].iter().map(|v| v.abs()).sum();
        let bound = len as f64 * eps * (magnitude + init.abs());
        assert!(
            (o[r] - w[r]).abs() <= bound,
            "row {r} of {len}: ours {}, interpreter {}, bound {bound}",
            o[r],
            w[r]
        );
    }
}

/// f32 and f64 sums of one to three long rows: the same bits on any number of threads, within
/// the reassociation bound of the interpreter; values of mixed sign that cancel, and huge ones.
#[test]
fn long_row_sums_are_the_same_on_any_number_of_threads() {
    let mut rng = Rng(41);
    for dtype in [DType::F32, DType::F64] {
        for (k, len) in lengths().into_iter().enumerate() {
            let rows = 1 + k % 3;
            let (lo, hi) = if k % 2 == 0 {
                (-30.0, 70.0)
            } else {
                (-1e30, 1e30)
            };
            let x = floats(&mut rng, &[rows, len], dtype, lo, hi);
            let init = Tensor::from_f64(vec![], dtype, vec![0.25]).unwrap();
            let text = row_reduce(rows, len, dtype, "add");
            let (ours, want) = run_everywhere(&text, &[x.clone(), init]);
            assert_sum_close(&ours[0], &want[0], &x, 0.25, dtype);
        }
    }
}

/// Integer sums and products wrap as the interpreter's (exact in any order), and integer and
/// float maximum and minimum are exact, with NaN winning and maximum(−0, +0) = +0.
#[test]
fn long_row_integer_and_extreme_folds_are_exact() {
    let mut rng = Rng(42);
    for (k, len) in lengths().into_iter().enumerate() {
        let rows = 1 + k % 2;
        for dtype in [DType::I8, DType::I32, DType::U64] {
            for op in ["add", "multiply", "maximum", "minimum"] {
                let ty = systolic_ir::TensorType::new(vec![rows as i64, len as i64], dtype);
                let x = fusion_support::random_tensor(&ty, &mut rng);
                let init =
                    Tensor::from_bits(systolic_ir::TensorType::new(vec![], dtype), &[3]).unwrap();
                let text = row_reduce(rows, len, dtype, op);
                let inputs = [x, init];
                let (ours, want) = run_everywhere(&text, &inputs);
                assert_results(&ours, &want, &inputs, 0, &text);
            }
        }
        for op in ["maximum", "minimum"] {
            // Zeros of both signs, NaN in some rows only.
            let mut v: Vec<f32> = (0..rows * len)
                .map(|_| match rng.below(4) {
                    0 => 0.0,
                    1 => -0.0,
                    _ => -((rng.below(1000)) as f32),
                })
                .collect();
            if k % 2 == 0 {
                v[len - 1 - (k * 7919) % len] = f32::NAN;
            }
            let x = Tensor::from_f32(vec![rows as i64, len as i64], v);
            let text = row_reduce(rows, len, DType::F32, op);
            let inputs = [x, Tensor::scalar_f32(-5000.0)];
            let (ours, want) = run_everywhere(&text, &inputs);
            assert_results(&ours, &want, &inputs, 0, &text);
        }
    }
}

/// NaN and infinities propagate from any segment: a NaN in the last segment, an infinity in
/// the first, infinities of both signs in different segments (NaN), an infinite init.
#[test]
fn long_row_sums_propagate_nan_and_infinities() {
    let len = 2 * SEGMENT + 3;
    let mut rng = Rng(43);
    let base = floats(&mut rng, &[4, len], DType::F32, -1.0, 1.0).to_f64_vec();
    let mut v: Vec<f32> = base.iter().map(|&x| x as f32).collect();
    v[len - 1] = f32::NAN;
    v[len + 5] = f32::INFINITY;
    v[2 * len + SEGMENT] = f32::INFINITY;
    v[2 * len + 2 * SEGMENT + 1] = f32::NEG_INFINITY;
    let x = Tensor::from_f32(vec![4, len as i64], v);
    let text = row_reduce(4, len, DType::F32, "add");
    for init in [0.0, f32::NEG_INFINITY] {
        let inputs = [x.clone(), Tensor::scalar_f32(init)];
        let (ours, want) = run_everywhere(&text, &inputs);
        let (o, w) = (ours[0].to_f64_vec(), want[0].to_f64_vec());
        for r in 0..3 {
            assert!(
                o[r].to_bits() == w[r].to_bits() || (o[r].is_nan() && w[r].is_nan()),
                "row {r}, init {init}: ours {}, interpreter {}",
                o[r],
                w[r]
            );
        }
        assert!(o[0].is_nan() && o[2].is_nan());
        if init == 0.0 {
            assert_eq!(o[1], f64::INFINITY);
        } else {
            assert!(o[1].is_nan());
        }
    }
}

/// A sum to one value feeding an epilogue (a mean): the segmented fold under the epilogue.
#[test]
fn long_row_mean_with_an_epilogue() {
    let len = 3 * SEGMENT + 17;
    let mut rng = Rng(44);
    let x = floats(&mut rng, &[1, len], DType::F32, 0.0, 1.0);
    let text = format!(
        "func.func @main(%x: tensor<1x{len}xf32>, %init: tensor<f32>) -> tensor<1xf32> {{
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1] : (tensor<1x{len}xf32>, tensor<f32>) -> tensor<1xf32>
  %n = stablehlo.constant dense<{len}.0> : tensor<1xf32>
  %1 = stablehlo.divide %0, %n : tensor<1xf32>
  return %1 : tensor<1xf32>
}}"
    );
    let (ours, want) = run_everywhere(&text, &[x, Tensor::scalar_f32(0.0)]);
    let (o, w) = (ours[0].to_f64_vec()[0], want[0].to_f64_vec()[0]);
    assert!((o - w).abs() <= 1e-5 * w.abs(), "ours {o}, interpreter {w}");
}

/// Complex sums to one value (the slots mode's one-op region, top windows in parallel) and
/// bf16 sums (rounded every step): the interpreter's tree order, bit for bit, on any number of
/// threads.
#[test]
fn sums_to_one_value_in_the_slots_mode_are_exact_on_any_number_of_threads() {
    let mut rng = Rng(45);
    for (dtype, len) in [
        (DType::C64, 100_003usize),
        (DType::C128, 70_000),
        (DType::BF16, 1 << 17),
    ] {
        let mut part = || ((rng.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.3) * 1e3;
        let x = if dtype.is_complex() {
            let v = (0..len)
                .map(|_| systolic_ir::Complex64::new(part(), part()))
                .collect();
            Tensor::from_complex(vec![len as i64], dtype, v).unwrap()
        } else {
            let v = (0..len).map(|_| part()).collect();
            Tensor::from_f64(vec![len as i64], dtype, v).unwrap()
        };
        let (t, s) = (format!("tensor<{len}x{dtype}>"), format!("tensor<{dtype}>"));
        let text = format!(
            "func.func @main(%x: {t}, %init: {s}) -> {s} {{
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0] : ({t}, {s}) -> {s}
  return %0 : {s}
}}"
        );
        let init = if dtype.is_complex() {
            Tensor::from_complex(vec![], dtype, vec![systolic_ir::Complex64::new(0.5, -1.0)])
                .unwrap()
        } else {
            Tensor::from_f64(vec![], dtype, vec![0.5]).unwrap()
        };
        let inputs = [x, init];
        let (ours, want) = run_everywhere(&text, &inputs);
        assert_eq!(bits(&ours[0]), bits(&want[0]), "{dtype}");
    }
}
