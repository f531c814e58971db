//! Whole programs: HBM capacity, liveness, loops and calls, and a 70B-parameter layer stack in
//! cost-only mode.

use std::fmt::Write;
use std::time::Instant;
use systolic_ir::text::parse_module;
use systolic_ir::Module;
use systolic_tpu::{chip, simulate, SimOptions, TpuError};

fn parse(src: &str) -> Module {
    parse_module(src, "test.mlir").expect("the test module parses")
}

#[test]
fn hbm_overflow_is_resource_exhausted_naming_the_largest_buffers() {
    // An 8 GiB parameter and an 8 GiB temporary (the add overwrites the exponential's
    // buffer in place) do not fit v5e's 16 GiB with anything else beside them.
    let m = parse(
        "func.func @main(%a: tensor<65536x65536xbf16>, %small: tensor<128x65536xbf16>) -> tensor<65536x65536xbf16> {
  %0 = stablehlo.exponential %a : tensor<65536x65536xbf16>
  %1 = stablehlo.add %0, %a : tensor<65536x65536xbf16>
  return %1 : tensor<65536x65536xbf16>
}",
    );
    let err = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap_err();
    let TpuError::ResourceExhausted {
        needed,
        capacity,
        ref largest,
        ..
    } = err
    else {
        panic!("expected RESOURCE_EXHAUSTED, got {err}");
    };
    let gib = 1u64 << 30;
    // %a, the small parameter and the one buffer %0 and %1 share.
    assert_eq!(needed, 2 * 8 * gib + 128 * 65536 * 2);
    assert_eq!(capacity, 16 * gib);
    let names: Vec<&str> = largest.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(&names[..3], ["%0 (reused by %1)", "%a", "%small"]);
    let msg = err.to_string();
    assert!(msg.starts_with("RESOURCE_EXHAUSTED"), "{msg}");
    assert!(
        msg.contains("%a tensor<65536x65536xbf16> (8.00 GiB)"),
        "{msg}"
    );
    assert!(msg.contains("v5e"), "{msg}");
    // The same program fits on v5p (95 GiB).
    assert!(simulate(&m, &chip("v5p").unwrap(), &SimOptions::default()).is_ok());
}

#[test]
fn peak_hbm_frees_dead_intermediates() {
    // Each intermediate overwrites the one it is computed from (elementwise, in place), so one
    // 4 MiB buffer serves the whole chain beside the parameter.
    let m = parse(
        "func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.exponential %a : tensor<1024x1024xf32>
  %1 = stablehlo.negate %0 : tensor<1024x1024xf32>
  %2 = stablehlo.tanh %1 : tensor<1024x1024xf32>
  %3 = stablehlo.abs %2 : tensor<1024x1024xf32>
  return %3 : tensor<1024x1024xf32>
}",
    );
    let r = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap();
    let mib4 = 4 * 1024 * 1024;
    assert_eq!(r.peak_hbm_bytes, 2 * mib4);
    // Padding counts: a [1000, 100] f32 array occupies [1000, 128].
    let m = parse(
        "func.func @main(%a: tensor<1000x100xf32>) -> tensor<1000x100xf32> {
  %0 = stablehlo.negate %a : tensor<1000x100xf32>
  return %0 : tensor<1000x100xf32>
}",
    );
    let r = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap();
    assert_eq!(r.peak_hbm_bytes, 2 * 1000 * 128 * 4);
    assert_eq!(r.hbm_bytes, (2 * 1000 * 128 * 4) as f64);
}

/// What `jax.jit(lambda x: lax.fori_loop(0, 10, lambda i, c: jnp.tanh(c @ c), x))` prints.
const FORI_LOOP: &str = r#"module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128x128xf32>) -> (tensor<128x128xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<128x128xf32>
    cond {
      %c_1 = stablehlo.constant dense<10> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<128x128xf32>) -> tensor<128x128xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<128x128xf32>
    }
    return %0#1 : tensor<128x128xf32>
  }
  func.func private @closed_call(%arg0: tensor<128x128xf32>) -> tensor<128x128xf32> {
    %0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %1 = stablehlo.tanh %0 : tensor<128x128xf32>
    return %1 : tensor<128x128xf32>
  }
}"#;

#[test]
fn counted_loops_run_their_trip_count_through_calls() {
    let m = parse(FORI_LOOP);
    let r = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap();
    let kinds: Vec<&str> = r.ops.iter().map(|k| k.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "stablehlo.compare",
            "stablehlo.dot_general",
            "stablehlo.tanh",
            "stablehlo.add"
        ]
    );
    assert!(r.ops.iter().all(|k| k.count == 10.0));
    assert!(
        r.ops[1].name.ends_with("@closed_call/%0"),
        "{}",
        r.ops[1].name
    );
    // 10 x (2·128^3 product + 128^2 tanh + compare + add).
    let expected = 10.0 * (2.0 * 128f64.powi(3) + 128.0 * 128.0 + 2.0);
    assert_eq!(r.flops, expected);
    assert!(r.assumptions.is_empty(), "{:?}", r.assumptions);
}

/// A Llama-70B-like stack of `layers` decoder layers on `tokens` tokens (d = 8192, 64 query
/// heads and 8 key/value heads of 128, MLP 28672, SwiGLU), weights as parameters, bf16. The
/// attention mixing itself is left out: the layer stack's weights and products are the point.
fn layer_stack(layers: usize, tokens: usize) -> (String, f64) {
    let (d, kv, mlp) = (8192, 1024, 28672);
    let act = format!("tensor<{tokens}x{d}xbf16>");
    let mut params = format!("%x: {act}");
    let mut body = String::new();
    let mut x = "%x".to_string();
    let mut weight_count = 0.0;
    let mm = |body: &mut String, out: &str, a: &str, w: &str, k: usize, n: usize| {
        let _ = writeln!(
            body,
            "  {out} = stablehlo.dot_general {a}, {w}, contracting_dims = [1] x [0] : (tensor<{tokens}x{k}xbf16>, tensor<{k}x{n}xbf16>) -> tensor<{tokens}x{n}xbf16>"
        );
    };
    for l in 0..layers {
        for (w, k, n) in [
            ("wq", d, d),
            ("wk", d, kv),
            ("wv", d, kv),
            ("wo", d, d),
            ("w1", d, mlp),
            ("w3", d, mlp),
            ("w2", mlp, d),
        ] {
            let _ = write!(params, ", %{w}_{l}: tensor<{k}x{n}xbf16>");
            weight_count += (k * n) as f64;
        }
        let h = format!("%h_{l}");
        mm(&mut body, &format!("%q_{l}"), &x, &format!("%wq_{l}"), d, d);
        mm(
            &mut body,
            &format!("%k_{l}"),
            &x,
            &format!("%wk_{l}"),
            d,
            kv,
        );
        mm(
            &mut body,
            &format!("%v_{l}"),
            &x,
            &format!("%wv_{l}"),
            d,
            kv,
        );
        mm(
            &mut body,
            &format!("%a_{l}"),
            &format!("%q_{l}"),
            &format!("%wo_{l}"),
            d,
            d,
        );
        let _ = writeln!(body, "  {h} = stablehlo.add {x}, %a_{l} : {act}");
        let mlp_t = format!("tensor<{tokens}x{mlp}xbf16>");
        mm(
            &mut body,
            &format!("%g_{l}"),
            &h,
            &format!("%w1_{l}"),
            d,
            mlp,
        );
        mm(
            &mut body,
            &format!("%u_{l}"),
            &h,
            &format!("%w3_{l}"),
            d,
            mlp,
        );
        let _ = writeln!(body, "  %sg_{l} = stablehlo.logistic %g_{l} : {mlp_t}");
        let _ = writeln!(
            body,
            "  %s_{l} = stablehlo.multiply %g_{l}, %sg_{l} : {mlp_t}"
        );
        let _ = writeln!(
            body,
            "  %p_{l} = stablehlo.multiply %s_{l}, %u_{l} : {mlp_t}"
        );
        mm(
            &mut body,
            &format!("%o_{l}"),
            &format!("%p_{l}"),
            &format!("%w2_{l}"),
            mlp,
            d,
        );
        let _ = writeln!(body, "  %x_{l} = stablehlo.add {h}, %o_{l} : {act}");
        x = format!("%x_{l}");
    }
    let src = format!("func.func @main({params}) -> {act} {{\n{body}  return {x} : {act}\n}}\n");
    (src, weight_count)
}

#[test]
fn a_70b_layer_stack_simulates_in_well_under_a_second() {
    let tokens = 2048;
    let (src, weights) = layer_stack(80, tokens);
    assert!(weights > 68e9 && weights < 70e9, "{weights}");
    let m = parse(&src);
    let tpu7x = chip("tpu7x").unwrap();
    let start = Instant::now();
    let r = simulate(&m, &tpu7x, &SimOptions::default()).unwrap();
    let elapsed = start.elapsed().as_secs_f64();
    assert!(elapsed < 0.5, "cost-only simulation took {elapsed} s");
    assert_eq!(r.ops.len(), 80 * 12);
    // The products alone: 2 · tokens · weights FLOPs.
    let product_flops = 2.0 * tokens as f64 * weights;
    assert!(
        r.flops > product_flops && r.flops < product_flops * 1.01,
        "{}",
        r.flops
    );
    // Compute-bound products at 2048 tokens: the step is near the bf16 roofline.
    let floor = product_flops / tpu7x.peak_bf16_flops.value.unwrap();
    assert!(
        r.time_s > floor && r.time_s < floor * 1.3,
        "{} vs {floor}",
        r.time_s
    );
    // bf16 weights (~137 GB) and activations fit in 192 GiB.
    assert!(r.peak_hbm_bytes as f64 > 2.0 * weights);
    // On one v5e the weights alone are 8x its HBM.
    let err = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("RESOURCE_EXHAUSTED") && msg.contains("%w1_"),
        "{msg}"
    );
}

/// `jax.jit(mlp).lower(...)` of `jnp.tanh(jnp.maximum(x @ w1 + b1, 0) @ w2 + b2).sum()`.
const JAX_MLP: &str = r#"module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x512xf32>, %arg1: tensor<512x1024xf32>, %arg2: tensor<1024xf32>, %arg3: tensor<1024x128xf32>, %arg4: tensor<128xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<1024xf32>) -> tensor<1x1024xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x1024xf32>) -> tensor<256x1024xf32>
    %3 = stablehlo.add %0, %2 : tensor<256x1024xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %5 = stablehlo.maximum %3, %4 : tensor<256x1024xf32>
    %6 = stablehlo.dot_general %5, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x1024xf32>, tensor<1024x128xf32>) -> tensor<256x128xf32>
    %7 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<256x128xf32>
    %9 = stablehlo.add %6, %8 : tensor<256x128xf32>
    %10 = stablehlo.tanh %9 : tensor<256x128xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<256x128xf32>, tensor<f32>) -> tensor<f32>
    return %11 : tensor<f32>
  }
}"#;

#[test]
fn flop_count_matches_xla_cost_analysis() {
    // jax 0.10.2, `jax.jit(mlp).lower(*args).cost_analysis()`: flops 336134144,
    // transcendentals 32768. XLA counts transcendental functions apart; our convention counts
    // them as one FLOP per element like every element op.
    let (xla_flops, xla_transcendentals) = (336_134_144.0, 32_768.0);
    let m = parse(JAX_MLP);
    let v5e = chip("v5e").unwrap();
    let r = simulate(&m, &v5e, &SimOptions::default()).unwrap();
    assert_eq!(r.flops, xla_flops + xla_transcendentals);
    // Compiling (fusion) changes kernels and traffic, not FLOPs.
    let compiled =
        systolic_tpu::compile::compile(&m, systolic_compiler::PipelineOptions::default()).unwrap();
    let rc = simulate(&compiled, &v5e, &SimOptions::default()).unwrap();
    assert_eq!(rc.flops, r.flops);
    assert!(rc.ops.len() < r.ops.len() && rc.hbm_bytes < r.hbm_bytes);
}

/// A chain of `depth` functions, each squaring its 128×128 argument with a product and passing
/// the result down; the last returns it.
fn call_chain(depth: usize) -> String {
    let t = "tensor<128x128xf32>";
    let mut text = String::from("module {\n");
    for i in 0..depth {
        let name = if i == 0 {
            "main".to_string()
        } else {
            format!("f{i}")
        };
        let vis = if i == 0 { "" } else { "private " };
        let next = if i + 1 < depth {
            format!("    %1 = func.call @f{}(%0) : ({t}) -> {t}\n", i + 1)
        } else {
            format!("    %1 = stablehlo.negate %0 : {t}\n")
        };
        text += &format!(
            "  func.func {vis}@{name}(%x: {t}) -> {t} {{\n    %0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : ({t}, {t}) -> {t}\n{next}    return %1 : {t}\n  }}\n"
        );
    }
    text + "}\n"
}

/// Issue 20, item 5 (the cost model's part): `simulate --no-compile` refused a chain deeper
/// than 64 calls as "recursion?", and the memory model silently stopped adding the temporaries
/// of callees past depth 64. Any acyclic chain is now walked (its stack grown as it goes),
/// names stay short, and real recursion is refused naming the cycle.
#[test]
fn deep_call_chains_are_costed_whole_and_recursion_is_named() {
    let depth = 5000;
    let m = parse(&call_chain(depth));
    let r = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap();
    // Every level's product, and the last one's negation (one FLOP per element).
    assert_eq!(r.flops, depth as f64 * 2.0 * 128f64.powi(3) + 128.0 * 128.0);
    assert_eq!(r.ops.len(), depth + 1);
    assert!(r.ops.iter().all(|k| k.name.len() < 200), "names stay short");
    let last = &r.ops[depth].name;
    assert!(
        last.starts_with("…/") && last.ends_with("@f4999/%1"),
        "{last}"
    );
    // Every level keeps its product alive while the callees below it run.
    let per_level = 128 * 128 * 4;
    assert!(
        r.peak_hbm_bytes >= depth as u64 * per_level,
        "peak {} < {} levels of {per_level} bytes",
        r.peak_hbm_bytes,
        depth
    );

    let rec = parse(
        "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @a(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\nfunc.func private @a(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @b(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\nfunc.func private @b(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @a(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n",
    );
    let err = simulate(&rec, &chip("v5e").unwrap(), &SimOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("recursion: @a → @b → @a"), "{err}");
}
