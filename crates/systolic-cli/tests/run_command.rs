//! `systolic run` on a working program: summaries, written outputs, timing and the JSON report.

use crate::common;

use common::{data_dir, systolic, texts};

fn while_loop_args(extra: &[&str]) -> Vec<String> {
    let dir = data_dir().join("while_loop");
    let mut args = vec![
        "run".to_string(),
        dir.join("module.mlir").display().to_string(),
        "--input".into(),
        dir.join("in0.npy").display().to_string(),
        "--input".into(),
        dir.join("in1.npy").display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn json_report_is_the_last_line() {
    let args = while_loop_args(&["--repeat", "3", "--json"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = systolic(&args);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let last = stdout.trim_end().lines().last().unwrap();
    let report: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(report["entry"], "main");
    assert_eq!(report["backend"], "cpu");
    assert_eq!(report["compile_source"], "compiled");
    // Two scalar results, each in a buffer of its own.
    assert!(
        report["peak_memory_bytes"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert!(report["compile_ms"].as_f64().unwrap() >= 0.0);
    assert!(report["first_run_ms"].as_f64().unwrap() >= 0.0);
    let run_ms = &report["run_ms"];
    assert_eq!(run_ms["count"], 3);
    let (min, median, max) = (
        run_ms["min"].as_f64().unwrap(),
        run_ms["median"].as_f64().unwrap(),
        run_ms["max"].as_f64().unwrap(),
    );
    assert!(min <= median && median <= max, "{run_ms}");
    // Start-up pairs compile + first run with the run right after it (the first timed one,
    // so at least the fastest).
    let first_total =
        report["compile_ms"].as_f64().unwrap() + report["first_run_ms"].as_f64().unwrap();
    let startup = report["startup_ms"].as_f64().unwrap();
    assert!(startup <= first_total - min + 1e-9, "{report}");
    // JAX: fori_loop(0, 7) of Newton steps from 3.0 gives f32 and the sum of i² for i < 7.
    assert_eq!(
        report["outputs"],
        serde_json::json!([{"shape": [], "dtype": "f32"}, {"shape": [], "dtype": "i32"}])
    );
    // The summaries come before the report: the i32 output is 0+1+4+…+36 = 91.
    assert!(
        stdout.contains("out1: tensor<i32> first [91] sum 91"),
        "{stdout}"
    );
}

#[test]
fn outputs_are_written_and_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("new").join("outs");
    let args = while_loop_args(&["--out-dir", out_dir.to_str().unwrap()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = systolic(&args);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("out0: tensor<f32>"), "{stdout}");
    assert!(stdout.contains("compile"), "{stdout}");
    let sum = systolic_npy::read(&out_dir.join("out1.npy"), None).unwrap();
    assert_eq!(sum.to_f64_vec(), vec![91.0]);
    // sqrt(2) after 7 Newton steps from 3, in f32.
    let x = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
    assert_eq!(x.to_f64_vec(), vec![f64::from(std::f32::consts::SQRT_2)]);
}

#[test]
fn entry_without_parameters_needs_no_inputs_and_writes_numpy_bool() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("consts.mlir");
    std::fs::write(
        &path,
        "func.func @main() -> (tensor<2xf32>, tensor<3xi1>) {
  %0 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  return %0, %1 : tensor<2xf32>, tensor<3xi1>
}
",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = systolic(&[
        "run",
        path.to_str().unwrap(),
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("out0: tensor<2xf32> first [1, 2.5] sum 3.5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("out1: tensor<3xi1> first [true, false, true] true 2"),
        "{stdout}"
    );
    // numpy's own bytes for np.save(f, np.array([True, False, True])).
    let mut numpy =
        b"\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }".to_vec();
    numpy.resize(127, b' ');
    numpy.push(b'\n');
    numpy.extend_from_slice(&[1, 0, 1]);
    assert_eq!(std::fs::read(out_dir.join("out1.npy")).unwrap(), numpy);
}

/// Runs the while_loop golden with `extra` arguments and returns the JSON report.
fn json_report(extra: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(extra);
    let args = while_loop_args(&all);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = systolic(&args);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    serde_json::from_str(stdout.trim_end().lines().last().unwrap()).unwrap()
}

#[test]
fn the_interpreter_stays_available_and_reports_no_compile_source() {
    let report = json_report(&["--backend", "interp"]);
    assert_eq!(report["backend"], "interp");
    assert!(report.get("compile_source").is_none(), "{report}");
}

#[test]
fn startup_trials_compile_again_in_the_same_process() {
    let plain = json_report(&[]);
    assert!(plain.get("warm_startup_ms").is_none(), "{plain}");
    assert!(plain.get("warm_startup_over_next_ms").is_none(), "{plain}");
    // Without --repeat there is no run after the first to pair it with.
    assert!(plain.get("startup_ms").is_none(), "{plain}");
    // A disk cache given for the main compile is not used by the trials: each compiles.
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let report = json_report(&[
        "--startup-trials",
        "2",
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    let warm = &report["warm_startup_ms"];
    assert_eq!(warm["count"], 2, "{report}");
    assert!(warm["min"].as_f64().unwrap() > 0.0, "{report}");
    // Each trial's start-up is its compile + first run less its own second run: positive or
    // not, it is below the compile + first run it came from.
    let over = &report["warm_startup_over_next_ms"];
    assert_eq!(over["count"], 2, "{report}");
    assert!(
        over["max"].as_f64().unwrap() < warm["max"].as_f64().unwrap(),
        "{report}"
    );
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
    for (args, wanted) in [
        (
            vec!["--startup-trials", "2", "--backend", "interp"],
            "cpu backend",
        ),
        (vec!["--startup-trials", "1001"], "from 0 to 1000"),
    ] {
        let mut all = while_loop_args(&args);
        all.push("--json".into());
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = systolic(&all);
        let (_, stderr) = texts(&out);
        assert!(!out.status.success() && stderr.contains(wanted), "{stderr}");
    }
}

#[test]
fn a_second_run_with_the_same_cache_dir_loads_the_compiled_program() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cache = cache.to_str().unwrap();
    let first = json_report(&["--cache-dir", cache]);
    assert_eq!(first["compile_source"], "compiled");
    let second = json_report(&["--cache-dir", cache]);
    assert_eq!(second["compile_source"], "disk cache");
    assert_eq!(first["outputs"], second["outputs"]);
    assert_eq!(std::fs::read_dir(cache).unwrap().count(), 1);
}

#[test]
fn dump_dir_receives_the_module_after_every_pass() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    json_report(&["--dump-dir", dumps.to_str().unwrap()]);
    let files: Vec<String> = std::fs::read_dir(&dumps)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!files.is_empty(), "no dumps in {}", dumps.display());
    // The interpreter runs no passes: asking it for dumps is an error, not silence.
    let args = while_loop_args(&["--backend", "interp", "--dump-dir", "x"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = systolic(&args);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--dump-dir needs a compiling backend"),
        "{stderr}"
    );
}

#[test]
fn profile_lists_where_the_time_went() {
    let dir = data_dir().join("mlp_forward");
    let mut args = vec![
        "run".to_string(),
        dir.join("module.mlir").display().to_string(),
    ];
    for i in 0..7 {
        args.push("--input".into());
        args.push(dir.join(format!("in{i}.npy")).display().to_string());
    }
    args.push("--profile".into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = systolic(&refs);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("profile: "), "{stdout}");
    // Without --repeat, the fewest rounds: each step's time is their median.
    assert!(stdout.contains("median of 3 rounds per step"), "{stdout}");
    assert!(
        stdout.contains("by op:") && stdout.contains("slowest steps:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("dot_general"),
        "the MLP's products: {stdout}"
    );
    let mut interp = refs.clone();
    interp.extend(["--backend", "interp"]);
    let out = systolic(&interp);
    let (_, stderr) = texts(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--profile needs a compiled backend"),
        "{stderr}"
    );
}
