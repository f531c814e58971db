//! Large constants parse in time linear in their size: a 10 MB module with a hex blob, and one
//! with a long decimal list. Run `cargo test --release -p systolic-ir --test suite parse_perf::` for the
//! figure that matters (well under a second each); debug builds get a looser bound.

use std::fmt::Write;
use std::time::{Duration, Instant};
use systolic_ir::text::parse_module;
use systolic_ir::OpKind;

fn limit() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(20)
    } else {
        Duration::from_secs(1)
    }
}

fn constant_values(src: &str) -> (Vec<f64>, Duration) {
    let start = Instant::now();
    let m = parse_module(src, "big.mlir").unwrap();
    let elapsed = start.elapsed();
    let OpKind::Constant(t) = &m.funcs[0].body.blocks[0].ops[0].kind else {
        panic!("expected a constant");
    };
    (t.to_f64_vec(), elapsed)
}

#[test]
fn ten_megabyte_hex_constant() {
    let n: usize = 5 << 20 >> 2; // 5 MiB of f32 data is 10 MiB of hex digits
    let mut hex = String::with_capacity(n * 8);
    for i in 0..n {
        for b in (i as f32).to_le_bytes() {
            write!(hex, "{b:02X}").unwrap();
        }
    }
    let src = format!(
        "func.func @main() -> tensor<{n}xf32> {{\n  %cst = stablehlo.constant dense<\"0x{hex}\"> : tensor<{n}xf32>\n  return %cst : tensor<{n}xf32>\n}}\n"
    );
    assert!(src.len() > 10 << 20);
    let (values, elapsed) = constant_values(&src);
    eprintln!("hex constant, {} bytes: {elapsed:?}", src.len());
    assert_eq!(values.len(), n);
    assert_eq!(values[12345], 12345.0);
    assert_eq!(values[n - 1], (n - 1) as f64);
    assert!(elapsed < limit(), "{elapsed:?} for {} bytes", src.len());
}

#[test]
fn decimal_list_constant() {
    let n = 1 << 20;
    let mut list = String::with_capacity(n * 14);
    for i in 0..n {
        if i > 0 {
            list.push_str(", ");
        }
        write!(list, "{:e}", i as f32 * 0.5).unwrap();
    }
    let src = format!(
        "func.func @main() -> tensor<{n}xf32> {{\n  %cst = stablehlo.constant dense<[{list}]> : tensor<{n}xf32>\n  return %cst : tensor<{n}xf32>\n}}\n"
    );
    let (values, elapsed) = constant_values(&src);
    eprintln!("decimal constant, {} bytes: {elapsed:?}", src.len());
    assert_eq!(values[3], 1.5);
    assert_eq!(values[n - 1], (n - 1) as f64 * 0.5);
    assert!(elapsed < limit(), "{elapsed:?} for {} bytes", src.len());
}

#[test]
fn two_hundred_thousand_ops() {
    let n = 200_000;
    let mut src = String::with_capacity(n * 60);
    src.push_str("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n");
    src.push_str("  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n");
    for i in 1..n {
        writeln!(
            src,
            "  %{i} = stablehlo.multiply %{}, %arg0 : tensor<4xf32>",
            i - 1
        )
        .unwrap();
    }
    writeln!(src, "  return %{} : tensor<4xf32>\n}}", n - 1).unwrap();
    let start = Instant::now();
    let m = parse_module(&src, "ops.mlir").unwrap();
    let elapsed = start.elapsed();
    let ops = &m.funcs[0].body.blocks[0].ops;
    assert_eq!(ops.len(), n + 1);
    assert_eq!(ops[n - 1].operands[0], ops[n - 2].results[0]);
    assert!(elapsed < limit() * 2, "{elapsed:?} for {} bytes", src.len());
    eprintln!("{} ops, {} bytes: {elapsed:?}", n, src.len());
}

/// A whole module on one line: op spans are computed incrementally, not from the line start.
#[test]
fn one_long_line() {
    let n = 100_000;
    let mut src = String::from("func.func @main(%arg0: tensor<f32>) -> tensor<f32> { %0 = stablehlo.negate %arg0 : tensor<f32>");
    for i in 1..n {
        write!(src, " %{i} = stablehlo.negate %{} : tensor<f32>", i - 1).unwrap();
    }
    write!(src, " return %{} : tensor<f32> }}", n - 1).unwrap();
    let start = Instant::now();
    let m = parse_module(&src, "line.mlir").unwrap();
    let elapsed = start.elapsed();
    let ops = &m.funcs[0].body.blocks[0].ops;
    let last = ops[n - 1].span.unwrap();
    assert_eq!(last.line, 1);
    assert!(src[last.col as usize - 1..].starts_with(&format!("%{} = ", n - 1)));
    assert!(elapsed < limit(), "{elapsed:?} for {} bytes", src.len());
}
