//! `interpreter.run_parallel` and the collectives across processes: errors end every waiting
//! process with a message naming the op and the processes, instead of hanging.

use systolic_interp::run_check_source;

/// Runs the upstream tests of collectives and of the ops that talk to other processes or the
/// host, when they are in `upstream/interpret/` (git-ignored).
#[test]
fn upstream_collective_files_pass_when_present() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../upstream/interpret");
    for name in [
        "all_reduce.mlir",
        "all_gather.mlir",
        "reduce_scatter.mlir",
        "all_to_all.mlir",
        "collective_permute.mlir",
        "collective_broadcast.mlir",
        "replica_id.mlir",
        "partition_id.mlir",
        "infeed.mlir",
        "outfeed.mlir",
        "send_recv.mlir",
    ] {
        let Ok(src) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        let report = run_check_source(&src, name);
        assert!(report.all_passed(), "{report}");
        eprintln!("{name}: {} passed", report.passed());
    }
}

/// Runs `main` of a module and returns its error message, failing the test if it passes.
fn error_of(src: &str) -> String {
    let start = std::time::Instant::now();
    let report = run_check_source(src, "t.mlir");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    let main = report
        .functions
        .iter()
        .find(|f| f.name == "main")
        .unwrap_or_else(|| panic!("no main in {report}"));
    assert!(!main.passed, "main passed: {report}");
    main.messages.join("\n")
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for p in parts {
        assert!(message.contains(p), "{p:?} is not in:\n{message}");
    }
}

const SUM: &str = r#"({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })"#;

#[test]
fn participants_with_other_shapes_fail_together() {
    let src = format!(
        r#"
func.func private @two(%x: tensor<2xf32>) -> tensor<2xf32> {{
  %r = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}}
func.func private @three(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %r = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}}
func.func @main() {{
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  %b = stablehlo.constant dense<1.0> : tensor<3xf32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {{programs = [[@two], [@three]]}}
      : (tensor<2xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>)
  func.return
}}
"#
    );
    let e = error_of(&src);
    assert_mentions(
        &e,
        &[
            "2 of 2 processes failed",
            "process (0, 0)",
            "process (1, 0)",
            "stablehlo.all_reduce",
            "disagree",
            "tensor<2xf32>",
            "tensor<3xf32>",
        ],
    );
}

#[test]
fn other_ops_at_the_same_meeting_are_reported() {
    let src = format!(
        r#"
func.func private @reduce(%x: tensor<2xf32>) -> tensor<2xf32> {{
  %r = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}}
func.func private @gather(%x: tensor<2xf32>) -> tensor<4xf32> {{
  %r = "stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}}
func.func @main() {{
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  %r:2 = "interpreter.run_parallel"(%a, %a) {{programs = [[@reduce], [@gather]]}}
      : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>)
  func.return
}}
"#
    );
    let e = error_of(&src);
    assert_mentions(
        &e,
        &[
            "(0, 0) runs stablehlo.all_reduce",
            "(1, 0) runs stablehlo.all_gather",
            "2 of 2 processes failed",
        ],
    );
}

#[test]
fn a_process_that_fails_first_fails_those_waiting_for_it() {
    let src = format!(
        r#"
func.func private @wait(%x: tensor<f32>) -> tensor<f32> {{
  %r = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>}} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}}
func.func private @crash(%x: tensor<f32>) -> tensor<f32> {{
  %y = stablehlo.custom_call @no_such_kernel(%x) : (tensor<f32>) -> tensor<f32>
  %r = "stablehlo.all_reduce"(%y) {SUM} {{replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>}} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}}
func.func @main() {{
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %r:3 = "interpreter.run_parallel"(%a, %a, %a) {{programs = [[@wait], [@crash], [@wait]]}}
      : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  func.return
}}
"#
    );
    let e = error_of(&src);
    assert_mentions(
        &e,
        &[
            "3 of 3 processes failed",
            "process (1, 0): ",
            "no_such_kernel",
            "process (0, 0): ",
            "process (2, 0): ",
            "stablehlo.all_reduce",
            // Who waits for whom depends on which process arrived first.
            "wait here for",
            "(1, 0) failed before reaching this collective",
        ],
    );
}

#[test]
fn a_process_that_skips_the_collective_fails_those_waiting() {
    let src = format!(
        r#"
func.func private @wait(%x: tensor<f32>) -> tensor<f32> {{
  %r = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}}
func.func private @skip(%x: tensor<f32>) -> tensor<f32> {{
  return %x : tensor<f32>
}}
func.func @main() {{
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = "interpreter.run_parallel"(%a, %a) {{programs = [[@wait, @skip]]}}
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  func.return
}}
"#
    );
    // One replica of two partitions: cross_replica groups [[0, 1]] name replica 1, which does
    // not exist — an error on process (0, 0) alone, before any waiting.
    let e = error_of(&src);
    assert_mentions(
        &e,
        &["1 of 2 processes failed", "process (0, 0)", "replica 1"],
    );

    let two_replicas = src.replace("[[@wait, @skip]]", "[[@wait], [@skip]]");
    let e = error_of(&two_replicas);
    assert_mentions(
        &e,
        &[
            "1 of 2 processes failed",
            "process (0, 0): ",
            "stablehlo.all_reduce",
            "(1, 0) finished its program without reaching this collective",
        ],
    );
}

#[test]
fn inconsistent_groups_end_in_an_error_not_a_hang() {
    let program = |name: &str, groups: &str, shape: &str| {
        format!(
            r#"
func.func private @{name}(%x: tensor<f32>) -> tensor<f32> {{
  %r = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<{groups}> : tensor<{shape}xi64>}} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}}"#
        )
    };
    // Process 0 meets {0, 1}; the others meet {0, 1, 2, 3}: a deadlock.
    let src = format!(
        r#"{}{}
func.func @main() {{
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %r:4 = "interpreter.run_parallel"(%a, %a, %a, %a) {{programs = [[@pairs], [@all], [@all], [@all]]}}
      : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  func.return
}}
"#,
        program("pairs", "[[0, 1], [2, 3]]", "2x2"),
        program("all", "[[0, 1, 2, 3]]", "1x4"),
    );
    let e = error_of(&src);
    assert_mentions(
        &e,
        &[
            "4 of 4 processes failed",
            "stablehlo.all_reduce",
            // Which side finds the deadlock first depends on the threads' timing.
            "deadlock: processes",
            "waits at stablehlo.all_reduce over [(0, 0), (1, 0)",
        ],
    );

    // The same members in another order.
    let src = format!(
        r#"{}{}
func.func @main() {{
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = "interpreter.run_parallel"(%a, %a) {{programs = [[@forward], [@backward]]}}
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  func.return
}}
"#,
        program("forward", "[[0, 1]]", "1x2"),
        program("backward", "[[1, 0]]", "1x2"),
    );
    let e = error_of(&src);
    assert_mentions(
        &e,
        &[
            "2 of 2 processes failed",
            "stablehlo.all_reduce",
            "disagree on the group",
        ],
    );
}

#[test]
fn ids_outside_run_parallel_are_zero_and_groups_just_process_0() {
    let src = r#"
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  func.return
}
"#;
    let e = error_of(src);
    assert_mentions(
        &e,
        &[
            "replica 1",
            "needs the multi-device runtime or interpreter.run_parallel",
        ],
    );
}

#[test]
fn a_receive_that_nothing_can_answer_fails() {
    let src = r#"
func.func private @recv(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %r:2 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>
  } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %r#0, %r#1 : tensor<2xi64>, !stablehlo.token
}
func.func private @idle(%t: !stablehlo.token) -> !stablehlo.token {
  return %t : !stablehlo.token
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %r:3 = "interpreter.run_parallel"(%t, %t) {programs = [[@recv], [@idle]]}
      : (!stablehlo.token, !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token, !stablehlo.token)
  func.return
}
"#;
    let e = error_of(src);
    assert_mentions(
        &e,
        &[
            "1 of 2 processes failed",
            "stablehlo.recv",
            "deadlock: process (0, 0) waits to receive on channel 5",
            "(1, 0) has finished",
        ],
    );
}
