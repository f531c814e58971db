//! `partition`'s involuntary full rematerialization warnings: a sharded array larger than
//! 1 MiB gathered whole on every device is named with the op that needed it and where it is;
//! small arrays, arrays that stay split and programs without such gathers warn nothing.

use super::spmd_partitioner_check::{module, spmd};

const MESH: &str = r#""data"=4, "model"=2"#;

/// x[rows, 256] f32 split by rows, reversed along them into a result held whole (which
/// needs the rows whole; one held split would be a permute of reversed pieces), and negated
/// (which does not).
fn program(rows: i64) -> String {
    module(
        MESH,
        &format!(
            r#"func.func public @main(%x: tensor<{rows}x256xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}]>}}) -> (tensor<{rows}x256xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}]>}}, tensor<{rows}x256xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{}}]>}}) {{
    %0 = stablehlo.negate %x : tensor<{rows}x256xf32>
    %1 = stablehlo.reverse %x, dims = [0] : tensor<{rows}x256xf32>
    return %0, %1 : tensor<{rows}x256xf32>, tensor<{rows}x256xf32>
  }}"#
        ),
    )
}

#[test]
fn a_large_array_gathered_whole_is_named_with_its_op() {
    // 2048 x 256 f32: 2 MiB.
    let warnings = spmd(&program(2048)).warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    assert!(w.contains("involuntary full rematerialization"), "{w}");
    assert!(w.contains("stablehlo.reverse at 5:"), "{w}");
    assert!(w.contains("tensor<2048x256xf32>"), "{w}");
    assert!(w.contains(r#"[{"data"}, {}]"#), "{w}");
}

#[test]
fn small_or_split_arrays_warn_nothing() {
    // 64 x 256 f32: 64 KiB, gathered, below the threshold.
    assert!(spmd(&program(64)).warnings.is_empty());
    // 2 MiB, but nothing needs it whole: every op keeps the rows split.
    let split = module(
        MESH,
        r#"func.func public @main(%x: tensor<2048x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<2048x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.negate %x : tensor<2048x256xf32>
    %1 = stablehlo.reverse %0, dims = [1] : tensor<2048x256xf32>
    return %1 : tensor<2048x256xf32>
  }"#,
    );
    assert!(spmd(&split).warnings.is_empty());
}

#[test]
fn a_large_result_returned_whole_is_named_as_the_return() {
    let text = module(
        MESH,
        r#"func.func public @main(%x: tensor<2048x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<2048x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.negate %x : tensor<2048x256xf32>
    return %0 : tensor<2048x256xf32>
  }"#,
    );
    let warnings = spmd(&text).warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("the return of @main"), "{warnings:?}");
}
