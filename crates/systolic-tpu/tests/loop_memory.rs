//! Peak HBM of loops: a `scan` keeps its state in one buffer per carried value and stacks its
//! outputs in place (as XLA does), so a stacked `[L, …]` array counts once, and weights the
//! loop only reads count as the parameter they are.

use systolic_ir::text::parse_module;
use systolic_tpu::{chip, simulate, SimOptions};

/// A scan over `L` layers: the carry `x` [B, D] f32 goes through `tanh(x @ w[i])`, each
/// layer's input is stacked into `ys` [L, B, D] (initialised to zeros), and the stacked weights
/// `w` [L, D, D] are carried through unchanged (JAX's lowering of `scan` over `xs`).
fn scan(l: i64, b: i64, d: i64) -> String {
    format!(
        r#"func.func @main(%x0: tensor<{b}x{d}xf32>, %w: tensor<{l}x{d}x{d}xf32>) -> (tensor<{b}x{d}xf32>, tensor<{l}x{b}x{d}xf32>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ys0 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<{l}x{b}x{d}xf32>
  %r:4 = stablehlo.while(%i = %c0, %x = %x0, %ws = %w, %ys = %ys0) : tensor<i32>, tensor<{b}x{d}xf32>, tensor<{l}x{d}x{d}xf32>, tensor<{l}x{b}x{d}xf32>
  cond {{
    %n = stablehlo.constant dense<{l}> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %z = stablehlo.constant dense<0> : tensor<i32>
    %wi = stablehlo.dynamic_slice %ws, %i, %z, %z, sizes = [1, {d}, {d}] : (tensor<{l}x{d}x{d}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x{d}x{d}xf32>
    %w2 = stablehlo.reshape %wi : (tensor<1x{d}x{d}xf32>) -> tensor<{d}x{d}xf32>
    %h = stablehlo.dot_general %x, %w2, contracting_dims = [1] x [0] : (tensor<{b}x{d}xf32>, tensor<{d}x{d}xf32>) -> tensor<{b}x{d}xf32>
    %t = stablehlo.tanh %h : tensor<{b}x{d}xf32>
    %x3 = stablehlo.reshape %x : (tensor<{b}x{d}xf32>) -> tensor<1x{b}x{d}xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %x3, %i, %z, %z : (tensor<{l}x{b}x{d}xf32>, tensor<1x{b}x{d}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<{l}x{b}x{d}xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t, %ws, %ys2 : tensor<i32>, tensor<{b}x{d}xf32>, tensor<{l}x{d}x{d}xf32>, tensor<{l}x{b}x{d}xf32>
  }}
  return %r#1, %r#3 : tensor<{b}x{d}xf32>, tensor<{l}x{b}x{d}xf32>
}}"#
    )
}

fn peak(src: &str) -> u64 {
    let m = parse_module(src, "scan.mlir").unwrap();
    let options = SimOptions {
        enforce_hbm: false,
        ..SimOptions::default()
    };
    simulate(&m, &chip("v5p").unwrap(), &options)
        .unwrap()
        .peak_hbm_bytes
}

#[test]
fn a_scans_stacked_outputs_and_read_only_weights_count_once() {
    let (l, b, d) = (16i64, 1024i64, 1024i64);
    let stack = (l * b * d * 4) as u64;
    let weights = (l * d * d * 4) as u64;
    let x = (b * d * 4) as u64;
    let p = peak(&scan(l, b, d));
    // Parameters (x0, w), the stack once, and a few [B, D] temporaries (carry, product, tanh).
    assert!(p >= weights + stack + x, "{p}");
    assert!(
        p <= weights + stack + 6 * x,
        "{p} counts a stack or the weights twice"
    );
    // Doubling the layers doubles the stack and weights, nothing else.
    let p2 = peak(&scan(2 * l, b, d));
    assert_eq!(p2 - p, stack + weights, "{p2} vs {p}");
}

#[test]
fn a_stack_read_after_the_loop_is_not_overwritten() {
    // The stack's initial value is also returned: the loop must not update it in place, so
    // both the initial zeros and the loop's stack are live.
    let (l, b, d) = (16i64, 1024i64, 1024i64);
    let src = scan(l, b, d)
        .replace(
            "-> (tensor<1024x1024xf32>, tensor<16x1024x1024xf32>)",
            "-> (tensor<1024x1024xf32>, tensor<16x1024x1024xf32>, tensor<16x1024x1024xf32>)",
        )
        .replace(
            "return %r#1, %r#3 : tensor<1024x1024xf32>, tensor<16x1024x1024xf32>",
            "return %r#1, %r#3, %ys0 : tensor<1024x1024xf32>, tensor<16x1024x1024xf32>, tensor<16x1024x1024xf32>",
        );
    let stack = (l * b * d * 4) as u64;
    assert!(src.contains("%ys0 : "), "the rewrite applied");
    let once = peak(&scan(l, b, d));
    assert!(peak(&src) >= once + stack, "{} vs {once}", peak(&src));
}
