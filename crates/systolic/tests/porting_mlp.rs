//! The porting example's model (`examples/porting_mlp.rs`) against JAX: same init from
//! `PRNGKey(0)`, same input, forward output within f32 tolerance
//! (`tests/data/ops_jax0.10.2.json`, `mlp` entry); and the example's per-device report on the
//! CPU (measured) and on a simulated TPU (TPU numerics, modelled time).

#[path = "../examples/porting_mlp.rs"]
mod example;

use example::{forward, init_mlp, input, run_on};
use serde_json::Value;
use systolic::{jit, random};

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn mlp_output_equals_jax() {
    let g: Value = serde_json::from_str(include_str!("data/ops_jax0.10.2.json")).unwrap();
    let g = &g["mlp"];
    let params = init_mlp(&random::key(0));
    let x = input();
    // The draws are JAX's (normal within 2 ulp).
    let w1 = params[0].0.to_vec::<f32>().unwrap();
    for (a, b) in w1.iter().zip(floats(&g["w1_first3"])) {
        assert!(
            (f64::from(*a) - b).abs() <= 2.5e-7 * b.abs(),
            "w1: {a} vs JAX {b}"
        );
    }
    let xs = x.to_vec::<f32>().unwrap();
    for (a, b) in xs.iter().zip(floats(&g["x_first3"])) {
        assert!(
            (f64::from(*a) - b).abs() <= 2.5e-7 * b.abs(),
            "x: {a} vs JAX {b}"
        );
    }
    let f = jit(forward);
    let y = f.call(&(params, x)).unwrap();
    assert_eq!(y.shape(), &[1024, 10]);
    let out = y.to_vec::<f32>().unwrap();
    for (a, b) in out.iter().zip(floats(&g["output_first5"])) {
        assert!(
            (f64::from(*a) - b).abs() <= 1e-6 + 1e-4 * b.abs(),
            "output: {a} vs JAX {b}"
        );
    }
    let sum: f64 = out.iter().map(|&v| f64::from(v)).sum();
    let want = g["output_sum"].as_f64().unwrap();
    assert!((sum - want).abs() <= 1e-3, "output sum {sum} vs JAX {want}");
}

#[test]
fn mlp_on_a_simulated_tpu_uses_bf16_passes_and_modelled_time() {
    // The default devices include one v5e (unless SYSTOLIC_TPUS says otherwise).
    let Ok(tpu) = systolic::device("tpu:v5e:0") else {
        eprintln!("no tpu:v5e:0 (SYSTOLIC_TPUS is set); skipped");
        return;
    };
    let cpu = systolic::default_device();
    assert_eq!(cpu.to_string(), "cpu:0");
    let params = init_mlp(&random::key(0));
    let x = input();
    let f = jit(forward);
    let y_cpu = f.call(&(params.clone(), x.clone())).unwrap();
    let on_tpu = |a: &systolic::Array| a.device_put(tpu).unwrap();
    let tpu_params: Vec<_> = params.iter().map(|(w, b)| (on_tpu(w), on_tpu(b))).collect();
    let before = tpu.simulated_clock().unwrap();
    let y_tpu = f.call(&(tpu_params, on_tpu(&x))).unwrap();
    assert_eq!(y_tpu.device(), tpu);
    let (a, b) = (
        y_cpu.to_vec::<f32>().unwrap(),
        y_tpu.to_vec::<f32>().unwrap(),
    );
    let scale = a.iter().fold(0f32, |m, v| m.max(v.abs()));
    let diff = a
        .iter()
        .zip(&b)
        .fold(0f32, |m, (p, q)| m.max((p - q).abs()));
    // One bf16 pass per matmul: close to the f32 result, not equal to it.
    assert!(diff > 0.0, "the TPU output equals the CPU's f32 output");
    assert!(diff <= 2e-2 * scale, "max diff {diff} vs scale {scale}");
    let after = tpu.simulated_clock().unwrap();
    assert_eq!(after.executions, before.executions + 1);
    assert!(after.compute_s > before.compute_s);

    // Eager ops on TPU arrays run on the TPU too: the first layer's product in one bf16 pass.
    let (w, xt) = (on_tpu(&params[0].0), on_tpu(&x));
    let eager = systolic::numpy::matmul(&xt, &w);
    assert_eq!(eager.device(), tpu);
    let eager = eager.to_vec::<f32>().unwrap();
    let cpu_product = systolic::numpy::matmul(&x, &params[0].0)
        .to_vec::<f32>()
        .unwrap();
    assert_ne!(eager, cpu_product);
    let rounded = |a: &systolic::Array| {
        use systolic::numpy::astype;
        astype(
            &astype(a, systolic_ir::DType::BF16),
            systolic_ir::DType::F32,
        )
    };
    let reference = systolic::numpy::matmul(&rounded(&x), &rounded(&params[0].0))
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(eager, reference);
    assert!(tpu.simulated_clock().unwrap().executions > after.executions);

    // The example's report: measured on the CPU, modelled on the TPU.
    let cpu_run: Value =
        serde_json::from_str(&run_on(cpu, &params, &x, 1).unwrap().json()).unwrap();
    assert_eq!(cpu_run["timing"], "measured");
    assert!(cpu_run.get("mxu_utilization").is_none());
    let tpu_run: Value =
        serde_json::from_str(&run_on(tpu, &params, &x, 1).unwrap().json()).unwrap();
    assert_eq!(tpu_run["device"], "tpu:v5e:0");
    assert_eq!(tpu_run["timing"], "modelled");
    let step_ms = tpu_run["step_ms"].as_f64().unwrap();
    let mxu = tpu_run["mxu_utilization"].as_f64().unwrap();
    assert!(step_ms > 0.0 && step_ms < 10.0, "{step_ms}");
    assert!(mxu > 0.0 && mxu <= 1.0, "{mxu}");
    assert!(tpu_run["peak_hbm_bytes"].as_u64().unwrap() > 0);
    let sum = tpu_run["output_sum"].as_f64().unwrap();
    let cpu_sum = cpu_run["output_sum"].as_f64().unwrap();
    assert!(
        sum != cpu_sum && (sum - cpu_sum).abs() < 1.0,
        "{sum} vs {cpu_sum}"
    );
    assert_eq!(tpu_run["output_first5"].as_array().unwrap().len(), 5);
}
