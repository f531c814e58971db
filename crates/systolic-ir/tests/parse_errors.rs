//! Parse errors: each names what was expected, what was found and where (`file:line:col`), and
//! no input makes the parser panic.

use systolic_ir::text::parse_module;

/// The error message for `src`, which must fail to parse.
fn error(src: &str) -> String {
    match parse_module(src, "bad.mlir") {
        Ok(m) => panic!("expected an error, parsed {m:?}"),
        Err(e) => e.to_string(),
    }
}

fn func_with(body: &str) -> String {
    format!("func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {{\n{body}\n  return %x : tensor<2xf32>\n}}\n")
}

#[test]
fn unknown_op_names_the_op_and_place() {
    let e = error(&func_with("  %0 = stablehlo.foo %x : tensor<2xf32>"));
    assert_eq!(e, "bad.mlir:2:8: error: unknown op 'stablehlo.foo'");
    let e = error(&func_with(
        "  %0 = \"stablehlo.bar\"(%x) : (tensor<2xf32>) -> tensor<2xf32>",
    ));
    assert_eq!(e, "bad.mlir:2:8: error: unknown op 'stablehlo.bar'");
}

#[test]
fn dynamic_shapes_are_rejected() {
    let e = error("func.func @f(%x: tensor<?x2xf32>) {\n  return\n}");
    assert_eq!(
        e,
        "bad.mlir:1:25: error: dynamic shapes are not supported (found '?' or '*')"
    );
    let e = error("func.func @f(%x: tensor<*xf32>) {\n  return\n}");
    assert!(e.contains("dynamic shapes are not supported"), "{e}");
}

#[test]
fn unsupported_element_types_are_named() {
    let e = error("func.func @f(%x: tensor<2xcomplex<bf16>>) {\n  return\n}");
    assert_eq!(
        e,
        "bad.mlir:1:35: error: element type 'complex<bf16>' is not supported (complex numbers have f32 or f64 parts)"
    );
    let e = error("func.func @f(%x: tensor<2xcomplex<f8E4M3FN>>) {\n  return\n}");
    assert!(
        e.contains(
            "element type 'complex<f8E4M3FN>' is not supported (complex numbers have f32 or f64 parts)"
        ),
        "{e}"
    );
    // tf32 is only a precision of dot_general's algorithm, not an element type.
    let e = error("func.func @f(%x: tensor<2xtf32>) {\n  return\n}");
    assert_eq!(
        e,
        "bad.mlir:1:27: error: element type 'tf32' is not supported"
    );
    let e = error("func.func @f(%x: tensor<2xf8E9M9>) {\n  return\n}");
    assert_eq!(
        e,
        "bad.mlir:1:27: error: element type 'f8E9M9' is not supported"
    );
    // Quantized types are tensor element types only (and other quant kinds are unknown).
    let e = error("func.func @f(%x: tensor<2x!quant.any<i8:f32>>) {\n  return\n}");
    assert!(e.contains("is only supported as a tensor's"), "{e}");
}

#[test]
fn expected_and_found() {
    let e = error("func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %x, %x tensor<2xf32>\n}");
    assert_eq!(
        e,
        "bad.mlir:2:29: error: expected ':' and the op's types, found 'tensor'"
    );
    let e = error("func.func @f(%x: tensor<2xf32>) {\n  %0 = stablehlo.broadcast_in_dim %x, dimz = [0] : (tensor<2xf32>) -> tensor<2xf32>\n  return\n}");
    assert_eq!(e, "bad.mlir:2:37: error: expected ', dims =', found ','");
    let e = error("func.func @f() {\n  return");
    assert_eq!(e, "bad.mlir:2:9: error: expected '}', found end of input");
}

#[test]
fn undefined_and_redefined_values() {
    let e = error(&func_with("  %0 = stablehlo.add %x, %y : tensor<2xf32>"));
    assert_eq!(e, "bad.mlir:2:26: error: use of undefined value '%y'");
    let e = error(&func_with(
        "  %0 = stablehlo.add %x, %x : tensor<2xf32>\n  %0 = stablehlo.add %x, %x : tensor<2xf32>",
    ));
    assert_eq!(e, "bad.mlir:3:3: error: redefinition of '%0'");
    let e = error(&func_with(
        "  %0:2 = stablehlo.optimization_barrier %x, %x : tensor<2xf32>, tensor<2xf32>\n  %1 = stablehlo.add %0#2, %x : tensor<2xf32>",
    ));
    assert_eq!(e, "bad.mlir:3:22: error: '%0' has 2 results, no result #2");
}

#[test]
fn bad_attributes_name_the_op() {
    let e = error(&func_with(
        "  %0 = \"stablehlo.broadcast_in_dim\"(%x) : (tensor<2xf32>) -> tensor<2xf32>",
    ));
    assert_eq!(
        e,
        "bad.mlir:2:8: error: stablehlo.broadcast_in_dim: missing attribute 'broadcast_dimensions'"
    );
    let e = error(&func_with(
        "  %0 = stablehlo.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)",
    ));
    assert!(
        e.contains("1 result name(s) on the left of '=' but 2 result type(s)"),
        "{e}"
    );
}

#[test]
fn constants_that_do_not_fit() {
    let e = error(&func_with(
        "  %c = stablehlo.constant dense<300> : tensor<i8>",
    ));
    assert_eq!(e, "bad.mlir:2:27: error: integer 300 does not fit i8");
    let e = error(&func_with(
        "  %c = stablehlo.constant dense<[1, 2]> : tensor<3xi32>",
    ));
    assert!(
        e.contains("dense literal of shape [2] does not match its type tensor<3xi32>"),
        "{e}"
    );
    let e = error(&func_with(
        "  %c = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>",
    ));
    assert!(e.contains("ragged dense literal"), "{e}");
    let e = error(&func_with(
        "  %c = stablehlo.constant dense<\"0x0102\"> : tensor<3xi32>",
    ));
    assert!(
        e.contains("hex constant has 2 bytes; tensor<3xi32> needs 12"),
        "{e}"
    );
    let e = error(&func_with(
        "  %c = stablehlo.constant dense_resource<blob> : tensor<3xi32>",
    ));
    assert!(
        e.contains("dense_resource constants are not supported"),
        "{e}"
    );
}

#[test]
fn malformed_shardings() {
    let e = error(
        "func.func @f(%x: tensor<2xf32> {mhlo.sharding = \"{devices=[2]0}\"}) {\n  return\n}",
    );
    assert!(
        e.starts_with("bad.mlir:1:49: error: malformed mhlo.sharding"),
        "{e}"
    );
    assert!(
        e.contains("1 device ids for a [2] tiling of 2 tiles"),
        "{e}"
    );
    let e = error(
        "func.func @f(%x: tensor<2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\" \"y\"}]>}) {\n  return\n}",
    );
    assert!(
        e.starts_with("bad.mlir:1:48: error: malformed #sdy.sharding"),
        "{e}"
    );
    assert!(e.contains("expected ','"), "{e}");
}

#[test]
fn too_deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "func.func @f() attributes {{a = {}1{}}} {{\n  return\n}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(error(&deep).contains("nesting deeper than"));
    let mut regions = String::from("func.func @f(%p: tensor<i1>) {\n");
    for _ in 0..500 {
        regions.push_str("\"stablehlo.if\"(%p) ({\n");
    }
    assert!(error(&regions).contains("nesting deeper than"));
    let dense = format!(
        "func.func @f() {{\n %c = stablehlo.constant dense<{}1{}> : tensor<f32>\n}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(error(&dense).contains("nesting deeper than"));
    let deep_op = format!(
        "func.func @f() {{\n %c = stablehlo.constant {}dense<1> : tensor<f32>\n}}",
        "{a = [".repeat(5_000)
    );
    assert!(error(&deep_op).contains("nesting deeper than"));
}

/// Every prefix of a real module, and the module with bytes flipped, parse or fail cleanly.
#[test]
fn truncated_and_mutated_inputs_do_not_panic() {
    let path = format!(
        "{}/tests/data/jax_cumsum_argmax.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let bytes = text.as_bytes();
    for cut in (0..bytes.len()).step_by(7) {
        if text.is_char_boundary(cut) {
            let _ = parse_module(&text[..cut], "cut.mlir");
        }
    }
    // A deterministic xorshift picks positions and replacement bytes from MLIR's alphabet.
    let alphabet = b"%#@^!<>()[]{},:=-x0123456789\"?*fi. \n";
    let mut state: u64 = 0x9E3779B97F4A7C15;
    for _ in 0..3000 {
        let mut mutated = bytes.to_vec();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pos = (state % mutated.len() as u64) as usize;
            mutated[pos] = alphabet[(state >> 32) as usize % alphabet.len()];
        }
        if let Ok(s) = std::str::from_utf8(&mutated) {
            let _ = parse_module(s, "mutated.mlir");
        }
    }
}

#[test]
fn huge_splat_constants_are_refused() {
    let e = error(&func_with(
        "  %c = stablehlo.constant dense<0.0> : tensor<100000x100000x100000xf32>",
    ));
    assert!(e.contains("too large"), "{e}");
    let e = error(&func_with(
        "  %c = stablehlo.constant dense<1> : tensor<33554432xi8>",
    ));
    assert!(
        e.contains("splat constant of type tensor<33554432xi8> is too large"),
        "{e}"
    );
}

/// A longer mutation run over every fixture: `SYSTOLIC_FUZZ_ITERS=200000 cargo test --release
/// -p systolic-ir --test suite parse_errors:: -- --ignored`.
#[test]
#[ignore]
fn fuzz_all_fixtures() {
    let iters: usize = std::env::var("SYSTOLIC_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let mut texts: Vec<Vec<u8>> = vec![];
    for sub in ["", "parse_only"] {
        let dir = format!("{}/tests/data/{sub}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "mlir") {
                let text = std::fs::read(path).unwrap();
                if text.len() < 100_000 {
                    texts.push(text);
                }
            }
        }
    }
    texts.sort();
    let alphabet = b"%#@^!<>()[]{},:=-x0123456789\"?*fi. \nabcT";
    let mut state: u64 = 0x2545F4914F6CDD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..iters {
        let base = &texts[i % texts.len()];
        let mut m = base.clone();
        let edits = 1 + next() as usize % 4;
        for _ in 0..edits {
            let pos = next() as usize % m.len();
            match next() % 4 {
                0 => m[pos] = alphabet[next() as usize % alphabet.len()],
                1 => {
                    // A multi-byte character, to reach slicing code with non-ASCII text.
                    let chars = ["é", "∑", "\u{FEFF}", "😀"];
                    let c = chars[next() as usize % chars.len()];
                    m.splice(pos..pos, c.bytes());
                }
                2 => {
                    m.remove(pos);
                }
                _ => {
                    let len = (next() as usize % 40).min(m.len() - pos);
                    let chunk = m[pos..pos + len].to_vec();
                    let at = next() as usize % m.len();
                    m.splice(at..at, chunk);
                }
            }
        }
        if let Ok(s) = std::str::from_utf8(&m) {
            let _ = parse_module(s, "fuzz.mlir");
        }
    }
}

#[test]
fn unknown_keywords_are_named() {
    let e = error(&func_with(
        "  %0 = stablehlo.compare XX, %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>",
    ));
    assert_eq!(
        e,
        "bad.mlir:2:8: error: stablehlo.compare: unknown comparison_direction 'XX' in 'comparison_direction'"
    );
    let e = error(&func_with(
        "  %0 = stablehlo.dot_general %x, %x, contracting_dims = [0] x [0], precision = [FAST] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>",
    ));
    assert!(
        e.ends_with("unknown precision 'FAST' (expected DEFAULT, HIGH or HIGHEST)"),
        "{e}"
    );
    let e = error(&func_with(
        "  %0 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xi32>",
    ));
    assert!(e.ends_with("constant element 1.0 does not fit i32"), "{e}");
    let e = error(&func_with(
        "  %0 = stablehlo.convolution(%x, %x) dim_numbers = [b, 0, f]x[0, i, q]->[b, 0, f] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
    ));
    assert!(
        e.contains("expected 'i', 'o' or a spatial index in the kernel layout, found 'q'"),
        "{e}"
    );
}

#[test]
fn deeply_nested_pretty_regions_stop_at_the_limit() {
    // Nested while loops, each written in the pretty form, far beyond the nesting limit.
    let mut src = String::from("func.func @f(%x: tensor<i32>) {\n");
    for k in 0..300 {
        src.push_str(&format!(
            "%w{k} = stablehlo.while(%i{k} = %x) : tensor<i32> cond {{\n"
        ));
    }
    assert!(error(&src).contains("nesting deeper than"));
    let mut src = String::from("func.func @f(%x: tensor<f32>) {\n");
    for k in 0..300 {
        src.push_str(&format!(
            "%r{k} = stablehlo.reduce(%x init: %x) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>\n reducer(%a{k}: tensor<f32>, %b{k}: tensor<f32>) {{\n"
        ));
    }
    assert!(error(&src).contains("nesting deeper than"));
}

#[test]
fn columns_count_characters_not_bytes() {
    let e = error("func.func @f(%x: tensor<f32> {a = \"é∑\"}, %y: tensor<?xf32>) {\n  return\n}");
    assert_eq!(
        e,
        "bad.mlir:1:53: error: dynamic shapes are not supported (found '?' or '*')"
    );
    let e = error("func.func @f() {\n  return é\n}");
    assert_eq!(e, "bad.mlir:2:10: error: unexpected character 'é'");
}

/// Issue 20, item 12: a NUL byte (or another invisible character) was shown as `''`.
#[test]
fn invisible_characters_are_named_by_their_code_point() {
    let e = error("func.func @f() {\n  return \u{0}\n}");
    assert_eq!(
        e,
        "bad.mlir:2:10: error: unexpected character '\\u{0}' (U+0000)"
    );
    let e = error("func.func @f() {\n  return \u{200B}\n}");
    assert_eq!(
        e,
        "bad.mlir:2:10: error: unexpected character '\\u{200b}' (U+200B)"
    );
}

#[test]
fn unsupported_types_inside_attributes() {
    let e = error(&func_with(
        "  %0 = stablehlo.dot_general %x, %x, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = tf32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>",
    ));
    assert!(e.contains("element type 'tf32' is not supported"), "{e}");
    assert!(
        e.starts_with("bad.mlir:2:8: error: stablehlo.dot_general: "),
        "{e}"
    );
}

/// Issue 20, item 12: `tensor<4x2^62x0xf32>` was "too many elements" while `0x2^62x4` was
/// accepted. A zero dimension empties the shape wherever it is; without one the count must
/// fit in an i64 wherever the overflow happens.
#[test]
fn element_counts_do_not_depend_on_where_the_zero_dimension_is() {
    let with = |ty: &str| format!("func.func @f(%x: {ty}) -> {ty} {{\n  return %x : {ty}\n}}\n");
    for ty in [
        "tensor<0x4611686018427387904x4xf32>",
        "tensor<4x4611686018427387904x0xf32>",
        "tensor<4611686018427387904x4x0xf32>",
    ] {
        parse_module(&with(ty), "ok.mlir").unwrap_or_else(|e| panic!("{ty}: {e}"));
    }
    for ty in [
        "tensor<4x4611686018427387904xf32>",
        "tensor<4611686018427387904x4x1xf32>",
    ] {
        let e = error(&with(ty));
        assert!(e.contains("too many elements"), "{ty}: {e}");
    }
}

/// Issue 20, item 11: `dense<1e999> : tensor<f32>` silently became inf. A finite literal
/// that rounds to infinity in its type is refused, as MLIR refuses it; the largest finite
/// values and the `inf` spelling still parse.
#[test]
fn float_literals_too_large_for_their_type_are_refused() {
    for (lit, ty) in [
        ("1e999", "f32"),
        ("1e39", "f32"),
        ("-1e39", "f32"),
        ("70000.0", "f16"),
        ("70000", "f16"),
        ("1e999", "f64"),
        ("4e38", "bf16"),
    ] {
        let e = error(&func_with(&format!(
            "  %c = stablehlo.constant dense<{lit}> : tensor<{ty}>"
        )));
        assert!(e.contains("too large for"), "{lit} as {ty}: {e}");
    }
    for (lit, ty) in [
        ("3.4028234e38", "f32"),
        ("65504.0", "f16"),
        ("0x7F800000", "f32"),
        ("1.7976931348623157e308", "f64"),
    ] {
        let src = func_with(&format!(
            "  %c = stablehlo.constant dense<{lit}> : tensor<{ty}>"
        ));
        parse_module(&src, "ok.mlir").unwrap_or_else(|e| panic!("{lit} as {ty}: {e}"));
    }
}

/// Issue 20, item 11: type annotations on `return` and on operands that contradicted the
/// real types were ignored (MLIR rejects them). The error names the operand and both types.
#[test]
fn declared_operand_types_must_be_the_operands_types() {
    for (body, needles) in [
        (
            "  return %x : tensor<5xf64>",
            ["operand #0 (%x) has type tensor<2xf32>", "tensor<5xf64>"],
        ),
        (
            "  %0 = \"stablehlo.add\"(%x, %x) : (tensor<3xf32>, tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>",
            ["operand #0 (%x) has type tensor<2xf32>", "tensor<3xf32>"],
        ),
        (
            "  %0 = stablehlo.convert %x : (tensor<2xi32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>",
            ["operand #0 (%x) has type tensor<2xf32>", "tensor<2xi32>"],
        ),
    ] {
        let src = format!("func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {{\n{body}\n}}\n");
        let e = error(&src);
        for needle in needles {
            assert!(e.contains(needle), "{body}: {e}");
        }
    }
}

/// A function of one `tensor<3xf32>` parameter `%x` with `body` in front of its return.
fn dynamic_func(body: &str) -> String {
    format!("func.func @f(%x: tensor<3xf32>, %n: tensor<1xi32>) {{\n{body}\n  return\n}}\n")
}

#[test]
fn dynamic_ops_need_constants_the_result_type_does_not_fix() {
    let e = error(&dynamic_func(
        "  %v = stablehlo.constant dense<0.0> : tensor<f32>\n  \
         %z = stablehlo.constant dense<[0]> : tensor<1xi32>\n  \
         %r = stablehlo.dynamic_pad %x, %v, %n, %z, %z : (tensor<3xf32>, tensor<f32>, \
         tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xf32>",
    ));
    assert!(
        e.starts_with("bad.mlir:4:8: error: stablehlo.dynamic_pad: edge_padding_low (operand #2) must be an integer constant"),
        "{e}"
    );
}

#[test]
fn dynamic_shape_constants_must_agree_with_the_result_type() {
    let e = error(&dynamic_func(
        "  %s = stablehlo.constant dense<[2]> : tensor<1xi64>\n  \
         %r = stablehlo.dynamic_reshape %x, %s : (tensor<3xf32>, tensor<1xi64>) -> tensor<3xf32>",
    ));
    assert!(
        e.contains("dynamic_reshape: output_shape is [2] but the result type is tensor<3xf32>"),
        "{e}"
    );
    let e = error(&dynamic_func(
        "  %s = stablehlo.constant dense<[3, 1]> : tensor<2xi64>\n  \
         %r = stablehlo.dynamic_reshape %x, %s : (tensor<3xf32>, tensor<2xi64>) -> tensor<3xf32>",
    ));
    assert!(
        e.contains("output_shape (operand #1) must be a 1-D tensor of 1 value(s)"),
        "{e}"
    );
}

#[test]
fn broken_broadcast_hints_are_errors() {
    let e = error(&dynamic_func(
        "  %s = stablehlo.constant dense<[3]> : tensor<1xi64>\n  \
         %r = \"stablehlo.dynamic_broadcast_in_dim\"(%x, %s) {broadcast_dimensions = \
         array<i64: 0>, known_expanding_dimensions = array<i64: 0>} : (tensor<3xf32>, \
         tensor<1xi64>) -> tensor<3xf32>",
    ));
    assert!(
        e.contains("operand dimension 0 is known expanding but has size 3, not 1"),
        "{e}"
    );
}

#[test]
fn dynamic_ops_print_as_their_static_forms() {
    let src = dynamic_func(
        "  %s = stablehlo.constant dense<[3]> : tensor<1xi64>\n  \
         %r = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<3xf32>",
    );
    let m = parse_module(&src, "ok.mlir").expect("parses");
    let text = systolic_ir::text::print_module(&m);
    assert!(
        text.contains("stablehlo.iota dim = 0 : tensor<3xf32>"),
        "{text}"
    );
    assert!(!text.contains("dynamic_iota"), "{text}");
}
