//! Shared by the fusion tests: random inputs of every dtype, running a function's body as one
//! fused loop and on the reference interpreter, and comparing the results.

#![allow(dead_code)]

use systolic_cpu::kernels::fusion::{lower_block, BlockSpec};
use systolic_cpu::{Arg, CpuBuffer, Kernel, LowerCtx};
use systolic_interp::{Interpreter, Value};
use systolic_ir::{numerics, DType, Data, Module, Tensor, TensorType};

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random elements of `ty`: for floats a mix of special values (±0, ±inf, NaN, subnormals,
/// ±1, huge), small values and raw bit patterns; for integers edge values and raw bits.
pub fn random_tensor(ty: &TensorType, rng: &mut Rng) -> Tensor {
    let n = ty.num_elements();
    let dtype = ty.dtype;
    if dtype.is_float() {
        let tiny = match dtype {
            DType::F64 => 1e-310,
            DType::F16 => 3e-6,
            _ => 1e-40,
        };
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            tiny,
            -tiny,
            1.0,
            -1.0,
            0.5,
            2.0,
            3.0,
            1e30,
            -7.25,
        ];
        let values: Vec<f64> = (0..n)
            .map(|_| match rng.below(8) {
                0 => specials[rng.below(specials.len() as u64) as usize],
                1 => numerics::float_from_bits(dtype, rng.next() & mask(dtype.bit_width())),
                2 => (rng.below(41) as f64) - 20.0,
                _ => ((rng.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 20.0,
            })
            .collect();
        Tensor::from_f64(ty.shape.clone(), dtype, values).unwrap()
    } else {
        let bits = dtype.bit_width();
        let patterns: Vec<u64> = (0..n)
            .map(|_| match rng.below(4) {
                0 => [
                    0u64,
                    1,
                    u64::MAX,
                    1u64 << (bits - 1),
                    (1u64 << (bits - 1)).wrapping_sub(1),
                    2,
                    3,
                ][rng.below(7) as usize],
                1 => rng.below(9),
                _ => rng.next(),
            })
            .map(|b| b & mask(bits))
            .collect();
        Tensor::from_bits(ty.clone(), &patterns).unwrap()
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Parses `text`, compiles the body of `main` into one loop kernel, runs it and the
/// interpreter on the same random inputs; returns (ours, interpreter's, inputs).
pub fn run_both(text: &str, seed: u64) -> (Vec<Tensor>, Vec<Tensor>, Vec<Tensor>) {
    run_block(text, seed, None, false)
}

/// As [`run_both`] with a choice of inputs (random when `None`) and of kernel (a reduction
/// kernel when `reduction`).
pub fn run_block(
    text: &str,
    seed: u64,
    given: Option<Vec<Tensor>>,
    reduction: bool,
) -> (Vec<Tensor>, Vec<Tensor>, Vec<Tensor>) {
    let module =
        systolic_ir::text::parse_module(text, "test").unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let func = module.func("main").expect("a main function");
    let kernel = lower_main(&module, text, reduction);
    let mut rng = Rng(seed);
    let inputs: Vec<Tensor> = given.unwrap_or_else(|| {
        func.param_types()
            .iter()
            .map(|t| random_tensor(t.as_tensor().unwrap(), &mut rng))
            .collect()
    });
    let buffers: Vec<CpuBuffer> = inputs.iter().map(CpuBuffer::from_tensor).collect();
    // Kernels run on the backend's threads (they flush subnormals in hardware).
    let ours =
        systolic_cpu::threads::run(|| kernel.run(buffers.iter().map(Arg::Borrowed).collect()))
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
            .iter()
            .map(CpuBuffer::to_tensor)
            .collect();
    let want = interpret(&module, &inputs, text);
    (ours, want, inputs)
}

/// The kernel for the body of `module`'s `main` (the text `text`, for messages), lowered as
/// one block: a reduction kernel when `reduction`, else a loop kernel.
pub fn lower_main(module: &Module, text: &str, reduction: bool) -> Box<dyn Kernel> {
    let func = module.func("main").expect("a main function");
    let ctx = LowerCtx::new(module, func);
    let body = func.body.entry().expect("a body");
    let spec = BlockSpec::of_block(body).expect("a body ending in return");
    if reduction {
        systolic_cpu::kernels::fusion::reduce::lower_reduction_block("test".into(), &spec, &ctx)
    } else {
        lower_block("test".into(), &spec, &ctx)
    }
    .unwrap_or_else(|| panic!("no kernel for\n{text}"))
}

/// The interpreter's results of `module`'s `main` on `inputs` (the oracle).
pub fn interpret(module: &Module, inputs: &[Tensor], text: &str) -> Vec<Tensor> {
    Interpreter::new(module)
        .call("main", inputs.iter().cloned().map(Value::Tensor).collect())
        .unwrap_or_else(|e| panic!("interpreter: {e:?}\n{text}"))
        .into_iter()
        .map(|v| v.into_tensor().unwrap())
        .collect()
}

/// Distance in units in the last place between two values of a float dtype (NaN = NaN).
pub fn ulps(dtype: DType, a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let order = |x: f64| -> i128 {
        let bits = numerics::float_to_bits(dtype, x) as i128;
        let sign = 1i128 << (dtype.bit_width() - 1);
        if bits & sign != 0 {
            -(bits & (sign - 1))
        } else {
            bits
        }
    };
    (order(a) - order(b)).unsigned_abs().min(u64::MAX as u128) as u64
}

/// Asserts equal results: bit for bit (NaNs equal), or within `max_ulps` for floats.
pub fn assert_results(
    ours: &[Tensor],
    want: &[Tensor],
    inputs: &[Tensor],
    max_ulps: u64,
    what: &str,
) {
    assert_eq!(ours.len(), want.len(), "{what}: result count");
    for (k, (o, w)) in ours.iter().zip(want).enumerate() {
        assert_eq!(o.ty(), w.ty(), "{what}: result {k} type");
        match (o.data(), w.data()) {
            (Data::Float(a), Data::Float(b)) => {
                for i in 0..a.len() {
                    let d = ulps(o.dtype(), a[i], b[i]);
                    let same_zero = a[i] == 0.0
                        && b[i] == 0.0
                        && a[i].is_sign_negative() == b[i].is_sign_negative();
                    assert!(
                        d <= max_ulps && (a[i] != 0.0 || b[i] != 0.0 || same_zero || max_ulps > 0),
                        "{what}: result {k} element {i}: ours {:e}, interpreter {:e} ({d} ulp); inputs {}",
                        a[i],
                        b[i],
                        inputs.iter().map(|t| format!("{}", t.get(i.min(t.num_elements().saturating_sub(1))))).collect::<Vec<_>>().join(", ")
                    );
                }
            }
            (a, b) => assert_eq!(a, b, "{what}: result {k}"),
        }
    }
}

/// Calls `plan` with the block of `@main` in `text` (its ops up to the `return`, which gives
/// the results) and the lowering context that types and folds its values: for tests that plan
/// a body the way the fusion kernels do.
pub fn with_main_block<R>(text: &str, plan: impl FnOnce(&BlockSpec, &LowerCtx) -> R) -> R {
    let module = systolic_ir::text::parse_module(text, "t").unwrap();
    let func = module.func("main").unwrap();
    let ctx = LowerCtx::new(&module, func);
    let body = func.body.entry().unwrap();
    let ret = body.ops.last().unwrap();
    let spec = BlockSpec {
        args: &body.args,
        ops: &body.ops,
        results: &ret.operands,
    };
    plan(&spec, &ctx)
}
