//! Buffer assignment: hand-computed peaks on small programs, in-place and bitcast sharing,
//! liveness across control flow, and slab invariants on every JAX golden after fusion.

use crate::common;

use common::{parse, run_pass};
use systolic_compiler::passes::buffer_assignment::{
    assign_buffers, BufferAssignment, BufferAssignmentPass, Placement, ShareKind, PEAK_MEMORY_ATTR,
};
use systolic_compiler::passes::Fusion;
use systolic_compiler::Pass;
use systolic_ir::text::print_module;
use systolic_ir::{Attribute, Func, Module, ValueId};

/// The value named `%name` in `@main`.
fn value(f: &Func, name: &str) -> ValueId {
    let i = f
        .values
        .iter()
        .position(|d| d.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no value %{name}"));
    ValueId(i as u32)
}

fn assign(src: &str) -> (Module, BufferAssignment) {
    let m = parse(src);
    let a = assign_buffers(m.func("main").unwrap());
    (m, a)
}

// tensor<16xf32> is 64 bytes: one aligned buffer.

#[test]
fn chain_without_in_place_peaks_at_two_buffers() {
    let (_, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.reverse %a, dims = [0] : tensor<16xf32>
  %c = stablehlo.reverse %b, dims = [0] : tensor<16xf32>
  return %c : tensor<16xf32>
}
"#,
    );
    assert_eq!(a.peak_bytes, 128);
    assert_eq!(a.live_peak_bytes, 128);
    assert!(a.shares.is_empty());
}

#[test]
fn elementwise_chain_runs_in_place_in_one_buffer() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.exponential %a : tensor<16xf32>
  %c = stablehlo.negate %b : tensor<16xf32>
  %d = stablehlo.sqrt %c : tensor<16xf32>
  return %d : tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    assert_eq!(a.peak_bytes, 64);
    // The parameter is the caller's: never overwritten.
    assert_eq!(a.placement(value(f, "a")), Placement::Parameter(0));
    assert_eq!(a.in_place_of(value(f, "b")), None);
    assert_eq!(a.in_place_of(value(f, "c")), Some(value(f, "b")));
    assert_eq!(a.in_place_of(value(f, "d")), Some(value(f, "c")));
    assert_eq!(a.slots.len(), 1);
}

#[test]
fn an_operand_read_later_is_not_overwritten() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.exponential %a : tensor<16xf32>
  %c = stablehlo.negate %b : tensor<16xf32>
  %d = stablehlo.add %b, %c : tensor<16xf32>
  return %d : tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    assert_eq!(a.in_place_of(value(f, "c")), None, "b is read by d");
    assert_eq!(a.in_place_of(value(f, "d")), Some(value(f, "b")));
    assert_eq!(a.peak_bytes, 128);
}

#[test]
fn dead_buffers_are_reused() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.reverse %a, dims = [0] : tensor<16xf32>
  %c = stablehlo.reverse %b, dims = [0] : tensor<16xf32>
  %d = stablehlo.reverse %c, dims = [0] : tensor<16xf32>
  return %d : tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    assert_eq!(a.peak_bytes, 128);
    assert_eq!(a.offset_of(value(f, "b")), a.offset_of(value(f, "d")));
    assert_ne!(a.offset_of(value(f, "b")), a.offset_of(value(f, "c")));
}

#[test]
fn parameters_and_constants_are_not_in_the_slab_outputs_are() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %k = stablehlo.constant dense<2.0> : tensor<16xf32>
  %b = stablehlo.add %a, %k : tensor<16xf32>
  %w = stablehlo.constant dense<1.0> : tensor<1024xf32>
  return %b, %a : tensor<16xf32>, tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    assert_eq!(a.placement(value(f, "k")), Placement::Constant);
    assert_eq!(a.placement(value(f, "w")), Placement::Constant);
    assert!(matches!(a.placement(value(f, "b")), Placement::Slot(_)));
    assert_eq!(a.peak_bytes, 64);
}

#[test]
fn sizes_round_up_to_the_alignment_and_mixed_sizes_pack() {
    // b: 4 KiB live [1,3]; c: 12 bytes (→ 64) live [2,4]; d: 4 KiB live [3,4].
    // At position 3, b, c and d are live: 4096 + 64 + 4096.
    let (_, a) = assign(
        r#"
func.func public @main(%a: tensor<1024xf32>, %s: tensor<3xf32>) -> (tensor<3xf32>, tensor<1024xf32>) {
  %b = stablehlo.reverse %a, dims = [0] : tensor<1024xf32>
  %c = stablehlo.reverse %s, dims = [0] : tensor<3xf32>
  %d = stablehlo.reverse %b, dims = [0] : tensor<1024xf32>
  return %c, %d : tensor<3xf32>, tensor<1024xf32>
}
"#,
    );
    assert_eq!(a.live_peak_bytes, 4096 + 64 + 4096);
    assert_eq!(a.peak_bytes, 4096 + 64 + 4096);
}

#[test]
fn loop_fusions_write_in_place_only_when_they_read_elementwise() {
    let src = r#"
func.func public @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = stablehlo.reverse %a, dims = [0] : tensor<4x4xf32>
  %f = "systolic.fusion"(%t) ({
  ^bb0(%x: tensor<4x4xf32>):
    %y = BODY
    %e = stablehlo.exponential %y : tensor<4x4xf32>
    stablehlo.return %e : tensor<4x4xf32>
  }) {kind = "loop", name = "fusion.0"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %f : tensor<4x4xf32>
}
"#;
    let (m, a) = assign(&src.replace("BODY", "stablehlo.negate %x : tensor<4x4xf32>"));
    let f = m.func("main").unwrap();
    assert_eq!(a.in_place_of(value(f, "f")), Some(value(f, "t")));
    assert_eq!(a.peak_bytes, 64);
    assert_eq!(a.placement(value(f, "e")), Placement::Internal);

    let transposing =
        "stablehlo.transpose %x, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>";
    let (m, a) = assign(&src.replace("BODY", transposing));
    let f = m.func("main").unwrap();
    assert_eq!(a.in_place_of(value(f, "f")), None);
    assert_eq!(a.peak_bytes, 128);
}

#[test]
fn reshapes_share_their_operand_buffer() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> (tensor<4x4xf32>, tensor<16xf32>) {
  %b = stablehlo.reverse %a, dims = [0] : tensor<16xf32>
  %r = stablehlo.reshape %b : (tensor<16xf32>) -> tensor<4x4xf32>
  %c = stablehlo.negate %b : tensor<16xf32>
  return %r, %c : tensor<4x4xf32>, tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    let (b, r, c) = (value(f, "b"), value(f, "r"), value(f, "c"));
    assert_eq!(a.offset_of(b), a.offset_of(r));
    assert!(a
        .shares
        .iter()
        .any(|s| s.value == r && s.over == b && s.kind == ShareKind::Bitcast));
    // b's bytes are still read through r after c: c may not overwrite them.
    assert_eq!(a.in_place_of(c), None);
    assert_eq!(a.peak_bytes, 128);
}

#[test]
fn no_in_place_write_over_bytes_another_operand_reads_as_a_bitcast() {
    // %r is %t's bytes seen as 4x4; the fusion reads it transposed while writing its output:
    // overwriting %t would clobber elements %r has yet to give.
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %t = stablehlo.reverse %a, dims = [0] : tensor<16xf32>
  %r = stablehlo.reshape %t : (tensor<16xf32>) -> tensor<4x4xf32>
  %f = "systolic.fusion"(%t, %r) ({
  ^bb0(%x: tensor<16xf32>, %y: tensor<4x4xf32>):
    %yt = stablehlo.transpose %y, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %yf = stablehlo.reshape %yt : (tensor<4x4xf32>) -> tensor<16xf32>
    %s = stablehlo.add %x, %yf : tensor<16xf32>
    stablehlo.return %s : tensor<16xf32>
  }) {kind = "loop", name = "fusion.0"} : (tensor<16xf32>, tensor<4x4xf32>) -> tensor<16xf32>
  return %f : tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    assert_eq!(a.offset_of(value(f, "t")), a.offset_of(value(f, "r")));
    assert_eq!(a.in_place_of(value(f, "f")), None);
    assert_eq!(a.peak_bytes, 128);
}

#[test]
fn no_in_place_write_when_the_same_value_is_also_read_transposed() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = stablehlo.reverse %a, dims = [0] : tensor<4x4xf32>
  %f = "systolic.fusion"(%t, %t) ({
  ^bb0(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>):
    %yt = stablehlo.transpose %y, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = stablehlo.add %x, %yt : tensor<4x4xf32>
    stablehlo.return %s : tensor<4x4xf32>
  }) {kind = "loop", name = "fusion.0"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %f : tensor<4x4xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    assert_eq!(a.in_place_of(value(f, "f")), None);
    assert_eq!(a.peak_bytes, 128);
}

#[test]
fn values_read_in_a_loop_body_live_until_the_loop_ends() {
    let (m, a) = assign(
        r#"
func.func public @main(%a: tensor<16xf32>, %n: tensor<i32>) -> tensor<16xf32> {
  %b = stablehlo.reverse %a, dims = [0] : tensor<16xf32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %i0, %v = %a) : tensor<i32>, tensor<16xf32>
   cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %m = stablehlo.multiply %v, %v : tensor<16xf32>
    %m2 = stablehlo.add %m, %b : tensor<16xf32>
    stablehlo.return %i1, %m2 : tensor<i32>, tensor<16xf32>
  }
  %o = stablehlo.negate %w#1 : tensor<16xf32>
  return %o : tensor<16xf32>
}
"#,
    );
    let f = m.func("main").unwrap();
    let b = a.slot_of(value(f, "b")).unwrap();
    let m_slot = a.slot_of(value(f, "m")).unwrap();
    // Positions: b 1, i0 2, while 3, compare 4, return 5, one 6, i1 7, m 8, m2 9, return 10.
    assert_eq!((b.start, b.end), (1, 10));
    assert_ne!(b.offset, m_slot.offset);
    // The loop state %v is a block argument: never written in place.
    assert_eq!(a.in_place_of(value(f, "m")), None);
    // m dies at m2: m2 takes its buffer.
    assert_eq!(a.in_place_of(value(f, "m2")), Some(value(f, "m")));
    // The negate after the loop overwrites the while's second result.
    let while_results = &f.body.blocks[0].ops[2].results;
    assert_eq!(a.in_place_of(value(f, "o")), Some(while_results[1]));
}

#[test]
fn the_pass_records_the_peak_as_a_function_attribute() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.reverse %a, dims = [0] : tensor<16xf32>
  %c = stablehlo.reverse %b, dims = [0] : tensor<16xf32>
  return %c : tensor<16xf32>
}
"#,
    );
    let out = run_pass(&BufferAssignmentPass, &m);
    let attr = out.funcs[0]
        .attrs
        .iter()
        .find(|a| a.name == PEAK_MEMORY_ATTR)
        .expect("attribute written");
    assert_eq!(attr.value, Attribute::Int(128, None));
    let text = print_module(&out);
    assert!(text.contains("systolic.peak_memory_bytes = 128"), "{text}");
    let mut again = out.clone();
    assert!(!BufferAssignmentPass.run(&mut again).unwrap(), "idempotent");
}

/// On every golden, fused: live slots never overlap in the slab, every in-place share reads a
/// buffer that dies at that op, and the slab is at least the live peak.
#[test]
fn slab_invariants_hold_on_every_fused_golden() {
    for g in common::goldens() {
        let mut m = g.module.clone();
        Fusion.run(&mut m).unwrap();
        for f in &m.funcs {
            let a = assign_buffers(f);
            assert!(a.peak_bytes >= a.live_peak_bytes, "{} @{}", g.name, f.name);
            for (i, x) in a.slots.iter().enumerate() {
                assert_eq!(x.offset % 64, 0);
                for y in &a.slots[i + 1..] {
                    let live_together = x.start <= y.end && y.start <= x.end;
                    let apart = x.offset + x.size <= y.offset || y.offset + y.size <= x.offset;
                    assert!(
                        !live_together || apart,
                        "{} @{}: {x:?} and {y:?} overlap",
                        g.name,
                        f.name
                    );
                }
            }
            for s in &a.shares {
                assert_eq!(a.offset_of(s.value), a.offset_of(s.over), "{}", g.name);
            }
        }
    }
}
