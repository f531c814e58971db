//! Bad input to the CLI: each case gives one clear line on stderr naming what and where, and a
//! non-zero exit status (1 for failures, 2 for bad usage), never a panic.

use crate::common;

use common::{data_dir, systolic, texts};
use std::path::Path;
use systolic_ir::{DType, Tensor};

/// Asserts a failure with exit `code` whose single stderr line contains every `needle`.
fn assert_fails(args: &[&str], code: i32, needles: &[&str]) {
    let out = systolic(args);
    let (stdout, stderr) = texts(&out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "one line on stderr: {stderr}"
    );
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{args:?}: stderr lacks {needle:?}: {stderr}"
        );
    }
}

fn xent_file(name: &str) -> String {
    data_dir()
        .join("softmax_xent")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn missing_program_file() {
    assert_fails(
        &["run", "no/such/file.mlir"],
        1,
        &["cannot read no/such/file.mlir"],
    );
}

#[test]
fn malformed_program_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.mlir");
    std::fs::write(&path, "module {\n  func.func @main( {\n}\n").unwrap();
    let p = path.display().to_string();
    assert_fails(&["run", &p], 1, &[&format!("{p}:2:"), "error:"]);
}

#[test]
fn wrong_input_count() {
    let module = xent_file("module.mlir");
    let in0 = xent_file("in0.npy");
    assert_fails(
        &["run", &module, "--input", &in0],
        1,
        &["@main takes 2 inputs (tensor<8x10xf32>, tensor<8xi32>), got 1"],
    );
    assert_fails(&["run", &module], 1, &["got 0", "--input"]);
}

#[test]
fn wrong_input_shape() {
    let module = xent_file("module.mlir");
    let (in0, in1) = (xent_file("in0.npy"), xent_file("in1.npy"));
    assert_fails(
        &["run", &module, "--input", &in1, "--input", &in0],
        1,
        &[
            "input 0",
            "in1.npy",
            "expects tensor<8x10xf32>, got tensor<8xi32>",
        ],
    );
}

#[test]
fn wrong_input_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let ints = dir.path().join("ints.npy");
    let t = Tensor::from_i64(vec![8, 10], DType::I32, vec![1; 80]).unwrap();
    systolic_npy::write(&ints, &t).unwrap();
    let module = xent_file("module.mlir");
    let in1 = xent_file("in1.npy");
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            ints.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &[
            "input 0",
            "ints.npy",
            "expects tensor<8x10xf32>, got tensor<8x10xi32>",
        ],
    );
}

#[test]
fn unknown_entry_lists_the_functions() {
    let module = xent_file("module.mlir");
    assert_fails(
        &["run", &module, "--entry", "nope"],
        1,
        &["no function @nope", "@main"],
    );
}

#[test]
fn malformed_npy_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let module = xent_file("module.mlir");
    let in1 = xent_file("in1.npy");
    let garbage = dir.path().join("garbage.npy");
    std::fs::write(&garbage, b"this is not numpy").unwrap();
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            garbage.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["input 0: ", "garbage.npy", "not a .npy file"],
    );
    // A real file cut short inside its data.
    let bytes = std::fs::read(xent_file("in0.npy")).unwrap();
    let cut = dir.path().join("cut.npy");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            cut.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["cut.npy", "promises 320 bytes", "has 310"],
    );
    let missing = Path::new("no_such_input.npy");
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            missing.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["no_such_input.npy", "cannot read"],
    );
}

#[test]
fn backends_that_do_not_exist_yet() {
    let module = xent_file("module.mlir");
    assert_fails(
        &["run", &module, "--backend", "tpu"],
        1,
        &["backend 'tpu': TPUs are simulated", "systolic simulate"],
    );
    assert_fails(
        &["run", &module, "--backend", "gpu"],
        1,
        &["backend 'gpu' is not available yet (available: cpu, interp)"],
    );
    assert_fails(
        &["run", &module, "--backend", "fpga"],
        1,
        &["unknown backend 'fpga'"],
    );
}

#[test]
fn bad_usage_exits_with_2() {
    assert_fails(&[], 2, &["a command is needed"]);
    assert_fails(&["run"], 2, &["error:", "<FILE>"]);
    assert_fails(&["frobnicate"], 2, &["frobnicate"]);
    assert_fails(&["run", "x.mlir", "--repeat", "many"], 2, &["many"]);
    assert_fails(&["check"], 2, &["error:"]);
}

#[test]
fn runtime_errors_name_the_file_line_and_op() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.mlir");
    std::fs::write(
        &path,
        "func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
  %1 = stablehlo.custom_call @my_kernel(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
",
    )
    .unwrap();
    let p = path.display().to_string();
    assert_fails(
        &["run", &p],
        1,
        &[&format!("{p}:3:"), "stablehlo.custom_call", "my_kernel"],
    );
}

#[test]
fn raw_npy_elements_of_the_wrong_width() {
    // A bf16 file ('<V2') given for an f32 parameter.
    let module = xent_file("module.mlir");
    let bf16 = data_dir().join("bf16_matmul").join("in0.npy");
    let in1 = xent_file("in1.npy");
    assert_fails(
        &[
            "run",
            &module,
            "--input",
            bf16.to_str().unwrap(),
            "--input",
            &in1,
        ],
        1,
        &["input 0: ", "in0.npy", "'<V2'", "cannot be read as float32"],
    );
}

/// Writes `text` as `prog.mlir` in a fresh directory; returns the directory and the path.
fn program_file(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prog.mlir");
    std::fs::write(&path, text).unwrap();
    let p = path.display().to_string();
    (dir, p)
}

/// Writes the f32 scalar `value` as `x.npy` in `dir`; returns its path.
fn scalar_input(dir: &tempfile::TempDir, value: f32) -> String {
    let x = dir.path().join("x.npy");
    systolic_npy::write(&x, &Tensor::from_f32(vec![], vec![value])).unwrap();
    x.display().to_string()
}

/// Issue 20, item 1: a type whose size in bytes overflows (2^62 f32 elements are 2^64
/// bytes) was costed as 0 B of HBM and passed the fit check; a 3037000499² f32 product
/// reported 905 GiB and an MFU of 280%. Such types are now rejected where the program is
/// verified, by every command, naming the type.
#[test]
fn types_whose_byte_size_overflows_are_rejected_not_costed_as_small() {
    for (ty, body) in [
        (
            "tensor<4611686018427387904xf32>",
            "%0 = stablehlo.iota dim = 0 : tensor<4611686018427387904xf32>\n    return %0 : tensor<4611686018427387904xf32>",
        ),
        (
            "tensor<3037000499x3037000499xf32>",
            "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0] : (tensor<3037000499x3037000499xf32>, tensor<3037000499x3037000499xf32>) -> tensor<3037000499x3037000499xf32>\n    return %0 : tensor<3037000499x3037000499xf32>",
        ),
    ] {
        let args = if body.contains("%arg0") {
            format!("%arg0: {ty}")
        } else {
            String::new()
        };
        let (_dir, p) = program_file(&format!(
            "func.func @main({args}) -> {ty} {{\n    {body}\n}}\n"
        ));
        for command in [
            vec!["simulate", &p, "--chip", "v5e", "--cost-only"],
            vec!["run", &p],
        ] {
            assert_fails(&command, 1, &[ty, "too large"]);
        }
    }
}

/// Padding to TPU tiles can overflow where the dense size fits (3037000499² i8 is 9.2e18
/// bytes; padded to (32, 128) tiles it is more than 2^64): the padded size saturates, so the
/// program does not fit any chip's HBM instead of fitting as a wrapped-around small one.
#[test]
fn tile_padding_that_overflows_does_not_fit_hbm() {
    let ty = "tensor<3037000499x3037000499xi8>";
    let (_dir, p) = program_file(&format!(
        "func.func @main() -> {ty} {{\n    %0 = stablehlo.iota dim = 0 : {ty}\n    return %0 : {ty}\n}}\n"
    ));
    let out = systolic(&["simulate", &p, "--chip", "v5e", "--cost-only", "--json"]);
    let (stdout, stderr) = texts(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("RESOURCE_EXHAUSTED") || stderr.contains("HBM"),
        "{stdout}\n{stderr}"
    );
}

/// Issue 20, item 2: an iota with no elements but a huge counted dimension
/// (`0x2^62x4`, counting along the 2^62) panicked "capacity overflow" in the CPU kernel,
/// which built the whole count first; the interpreter was right. Both give the empty array.
#[test]
fn an_empty_iota_with_a_huge_counted_dimension_runs_on_every_backend() {
    let ty = "tensor<0x4611686018427387904x4xf32>";
    let (dir, p) = program_file(&format!(
        "func.func @main() -> {ty} {{\n    %0 = stablehlo.iota dim = 1 : {ty}\n    return %0 : {ty}\n}}\n"
    ));
    for backend in ["cpu", "interp"] {
        let out_dir = dir.path().join(backend).display().to_string();
        let out = systolic(&["run", &p, "--backend", backend, "--out-dir", &out_dir]);
        let (stdout, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(0), "{backend}: {stdout}\n{stderr}");
        let got = systolic_npy::read(&dir.path().join(backend).join("out0.npy"), None).unwrap();
        assert_eq!(got.shape(), &[0, 4611686018427387904, 4], "{backend}");
    }
}

/// Issue 20, items 7 and 9: `--repeat 18446744073709551615` panicked and `--repeat
/// 2000000000` aborted allocating 16 GB; a full standard output panicked "failed printing
/// to stdout". Now a usage error (exit 2) and a one-line error (exit 1).
#[test]
fn absurd_repeat_counts_and_a_full_stdout_are_clear_errors() {
    let (dir, p) = program_file(
        "func.func @main() -> tensor<2xf32> {\n    %0 = stablehlo.iota dim = 0 : tensor<2xf32>\n    return %0 : tensor<2xf32>\n}\n",
    );
    let out_dir = dir.path().join("out").display().to_string();
    for n in ["18446744073709551615", "2000000000", "many"] {
        assert_fails(
            &["run", &p, "--out-dir", &out_dir, "--repeat", n],
            2,
            &["--repeat"],
        );
    }
    if std::path::Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_systolic"))
            .args(["run", &p, "--out-dir", &out_dir])
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{stderr}"
        );
    }
}

/// Issue 20, item 6: outputs were written in place (a failed write destroyed the previous
/// `out0.npy` and left a truncated file), a symlinked `out0.npy` was followed, outputs of an
/// earlier run with more outputs stayed beside the new ones, and an unwritable `--out-dir`
/// was found only after the run. Now outputs are renamed into place together, a symlink is
/// replaced (its target untouched), stale `outN.npy` files go, and the directory is checked
/// first.
#[test]
fn outputs_are_written_whole_in_place_of_symlinks_without_stale_files() {
    let two = "func.func @main() -> (tensor<2xf32>, tensor<3xi32>) {\n    %0 = stablehlo.iota dim = 0 : tensor<2xf32>\n    %1 = stablehlo.iota dim = 0 : tensor<3xi32>\n    return %0, %1 : tensor<2xf32>, tensor<3xi32>\n}\n";
    let one = "func.func @main() -> tensor<4xf32> {\n    %0 = stablehlo.iota dim = 0 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n}\n";
    let (dir, two_p) = program_file(two);
    let one_p = dir.path().join("one.mlir");
    std::fs::write(&one_p, one).unwrap();
    let out = dir.path().join("out");
    let out_s = out.display().to_string();
    let run = |p: &str| systolic(&["run", p, "--out-dir", &out_s]);
    assert_eq!(run(&two_p).status.code(), Some(0));
    assert!(out.join("out1.npy").exists());
    // A symlink where out0.npy goes: replaced, its target left as it was.
    let target = dir.path().join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    std::fs::remove_file(out.join("out0.npy")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&target, out.join("out0.npy")).unwrap();
    let r = run(&one_p.display().to_string());
    assert_eq!(r.status.code(), Some(0), "{:?}", texts(&r));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    let got = systolic_npy::read(&out.join("out0.npy"), None).unwrap();
    assert_eq!(got.shape(), &[4]);
    assert!(
        !out.join("out1.npy").exists(),
        "the earlier run's out1.npy is stale"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // An --out-dir that cannot be made is an error before the run.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let bad = blocker.join("sub").display().to_string();
    assert_fails(
        &["run", &one_p.display().to_string(), "--out-dir", &bad],
        1,
        &["cannot write outputs to", "sub"],
    );
}

/// Issue 20, item 12: unclear or inconsistent answers — `--cache-dir FILE` said "File
/// exists", `simulate --cost-only` ignored `--input`/`--out-dir`, the interpreter ignored
/// `--cache-dir` but refused `--dump-dir`, and invalid UTF-8 had no position.
#[test]
fn unclear_option_combinations_and_encodings_get_clear_errors() {
    let (dir, p) = program_file(
        "func.func @main() -> tensor<2xf32> {\n    %0 = stablehlo.iota dim = 0 : tensor<2xf32>\n    return %0 : tensor<2xf32>\n}\n",
    );
    assert_fails(
        &["run", &p, "--cache-dir", &p],
        1,
        &["--cache-dir", "is not a directory"],
    );
    let out = dir.path().join("out").display().to_string();
    assert_fails(
        &[
            "simulate",
            &p,
            "--chip",
            "v5e",
            "--cost-only",
            "--out-dir",
            &out,
        ],
        2,
        &["--cost-only", "--out-dir"],
    );
    let cache = dir.path().join("cache").display().to_string();
    assert_fails(
        &["run", &p, "--backend", "interp", "--cache-dir", &cache],
        1,
        &["--cache-dir needs a compiling backend"],
    );
    let bad = dir.path().join("latin1.mlir");
    std::fs::write(&bad, b"func.func @main() {\n  return \xff\n}\n").unwrap();
    let bad = bad.display().to_string();
    for command in ["run", "check"] {
        assert_fails(
            &[command, &bad],
            1,
            &[&format!("{bad}:2:10:"), "not UTF-8", "0xFF"],
        );
    }
}

/// Issue 20, item 5: a call DAG where each function calls the next twice inlined
/// exponentially (out of memory), and `simulate --cost-only --no-compile` hung walking it.
/// Both now refuse it at once, saying calls repeat their callees.
#[test]
fn a_call_dag_that_doubles_per_level_is_refused_not_expanded() {
    let depth = 40;
    let mut text = String::from(
        "module {\n  func.func @main(%x: tensor<f32>) -> tensor<f32> {\n    %0 = func.call @f0(%x) : (tensor<f32>) -> tensor<f32>\n    return %0 : tensor<f32>\n  }\n",
    );
    for k in 0..depth {
        if k + 1 < depth {
            text += &format!(
                "  func.func private @f{k}(%x: tensor<f32>) -> tensor<f32> {{\n    %0 = func.call @f{n}(%x) : (tensor<f32>) -> tensor<f32>\n    %1 = func.call @f{n}(%0) : (tensor<f32>) -> tensor<f32>\n    return %1 : tensor<f32>\n  }}\n",
                n = k + 1
            );
        } else {
            text += &format!(
                "  func.func private @f{k}(%x: tensor<f32>) -> tensor<f32> {{\n    %0 = stablehlo.negate %x : tensor<f32>\n    return %0 : tensor<f32>\n  }}\n"
            );
        }
    }
    text += "}\n";
    let (_dir, p) = program_file(&text);
    assert_fails(
        &["simulate", &p, "--chip", "v5e", "--cost-only"],
        1,
        &["inline", "repeat their callees"],
    );
    assert_fails(
        &[
            "simulate",
            &p,
            "--chip",
            "v5e",
            "--cost-only",
            "--no-compile",
        ],
        1,
        &["calls expanded", "repeat their callees"],
    );
}

/// Issue 20, item 10: a `while` that never ends ran until Ctrl-C. `--timeout SECONDS` stops
/// the run (on the compiled CPU program and on the interpreter) with an error that names the
/// limit and how many iterations the loop had run; a limit that is not a positive number of
/// seconds is a usage error.
#[test]
fn timeout_stops_an_endless_while_loop_and_says_how_far_it_got() {
    let (dir, p) = program_file(
        "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.while(%i = %x) : tensor<f32>\n  cond {\n    %t = stablehlo.constant dense<true> : tensor<i1>\n    stablehlo.return %t : tensor<i1>\n  } do {\n    %one = stablehlo.constant dense<1.0> : tensor<f32>\n    %n = stablehlo.add %i, %one : tensor<f32>\n    stablehlo.return %n : tensor<f32>\n  }\n  return %0 : tensor<f32>\n}\n",
    );
    let x = scalar_input(&dir, 0.0);
    for backend in ["cpu", "interp"] {
        let started = std::time::Instant::now();
        let out = systolic(&[
            "run",
            &p,
            "--input",
            &x,
            "--backend",
            backend,
            "--timeout",
            "0.5",
        ]);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(1), "{backend}: {stderr}");
        assert!(
            stderr.contains("time limit of 500 ms") && stderr.contains("iterations"),
            "{backend}: {stderr}"
        );
        assert!(stderr.contains("stablehlo.while"), "{backend}: {stderr}");
        // It stopped (a generous bound: the limit is half a second).
        assert!(started.elapsed().as_secs() < 60, "{backend}");
    }
    for bad in [
        "--timeout=0",
        "--timeout=-1",
        "--timeout=soon",
        "--timeout=1e12",
    ] {
        assert_fails(&["run", &p, "--input", &x, bad], 2, &["--timeout"]);
    }
}

/// Issue 20, item 4: an iota of 10^12 f32 aborted the process ("memory allocation … failed")
/// on the CPU and grew without bound in the interpreter. Both now refuse it before allocating,
/// with a RESOURCE_EXHAUSTED error naming the op, the type and the bytes against the host
/// memory budget, which `SYSTOLIC_MEMORY_LIMIT` sets.
#[test]
fn a_program_larger_than_the_memory_budget_is_refused_before_it_allocates() {
    let (_dir, p) = program_file(
        "func.func @main() -> tensor<1000000000000xf32> {\n  %0 = stablehlo.iota dim = 0 : tensor<1000000000000xf32>\n  return %0 : tensor<1000000000000xf32>\n}\n",
    );
    for backend in ["cpu", "interp"] {
        let out = systolic(&["run", &p, "--backend", backend]);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(1), "{backend}: {stderr}");
        for part in [
            "RESOURCE_EXHAUSTED",
            "stablehlo.iota",
            "tensor<1000000000000xf32>",
            "3.64 TiB",
        ] {
            assert!(stderr.contains(part), "{backend}: {part}: {stderr}");
        }
    }
    // A 4 KiB program under a 1 KiB budget is refused; under 1 MiB it runs.
    let (_dir, small) = program_file(
        "func.func @main() -> tensor<1024xf32> {\n  %0 = stablehlo.iota dim = 0 : tensor<1024xf32>\n  return %0 : tensor<1024xf32>\n}\n",
    );
    let run = |limit: &str, backend: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_systolic"))
            .args(["run", &small, "--backend", backend])
            .env("SYSTOLIC_MEMORY_LIMIT", limit)
            .output()
            .unwrap()
    };
    for backend in ["cpu", "interp"] {
        let out = run("1K", backend);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{backend}: {stderr}");
        assert!(
            stderr.contains(
                "needs 4.00 KiB but the memory budget is 1.00 KiB (SYSTOLIC_MEMORY_LIMIT)"
            ),
            "{backend}: {stderr}"
        );
        assert!(run("1M", backend).status.success(), "{backend}");
    }
}

/// Issue 20, item 5 (the interpreter's part): a 5000-deep chain of calls was refused as
/// "calls nested deeper than 256 (recursion?)". The interpreter now runs any acyclic chain
/// (growing its stack as it goes) and names the cycle of a real recursion.
#[test]
fn the_interpreter_runs_deep_call_chains_and_names_recursion() {
    let n = 5000;
    let mut text = String::new();
    for i in 0..n {
        let (vis, name) = if i == 0 {
            ("", "main".to_string())
        } else {
            ("private ", format!("f{i}"))
        };
        let body = if i + 1 < n {
            format!(
                "%0 = func.call @f{}(%x) : (tensor<f32>) -> tensor<f32>",
                i + 1
            )
        } else {
            "%0 = stablehlo.negate %x : tensor<f32>".to_string()
        };
        text += &format!(
            "func.func {vis}@{name}(%x: tensor<f32>) -> tensor<f32> {{\n  {body}\n  return %0 : tensor<f32>\n}}\n"
        );
    }
    let (dir, p) = program_file(&text);
    let x = scalar_input(&dir, 2.0);
    let out_dir = dir.path().join("out").display().to_string();
    let out = systolic(&[
        "run",
        &p,
        "--input",
        &x,
        "--backend",
        "interp",
        "--out-dir",
        &out_dir,
    ]);
    let (_, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let got = systolic_npy::read(&dir.path().join("out").join("out0.npy"), None).unwrap();
    assert_eq!(got, Tensor::from_f32(vec![], vec![-2.0]));

    let (_dir, rec) = program_file(
        "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @a(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\nfunc.func private @a(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @b(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\nfunc.func private @b(%x: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @a(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n",
    );
    assert_fails(
        &["run", &rec, "--input", &x, "--backend", "interp"],
        1,
        &["recursion: @a → @b → @a"],
    );
}

/// Issue 20, item 12: `check` of a file with no functions said "0 passed, 0 failed" and
/// exited 0, as if it had checked something.
#[test]
fn check_of_a_file_without_functions_fails() {
    let (_dir, empty) = program_file("");
    let out = systolic(&["check", &empty]);
    let (stdout, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("no functions, so nothing was checked")
            && stdout.contains("0 passed, 1 failed"),
        "{stdout}"
    );
}
