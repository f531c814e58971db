//! Fuzz target: the command line. Argument lists built from the bytes — the real commands and
//! flags, values that are valid, edge (0, -1, 2^64-1, NaN, empty) or plain bytes, and paths
//! into a sandbox of small programs and `.npy` files (good, mistyped, missing, corrupt) — are
//! run in-process by `systolic_cli::main_with`, as the binary runs them. Whatever the
//! arguments, the command ends with an exit status (0, 1 or 2); a panic is a finding.
//!
//! Only paths inside the sandbox are generated, so no run writes outside it. Skipped as merely
//! slow, not wrong: `tour`, and `run` with more than 100 repeats (both are bounded by design:
//! `--repeat` is capped at 1000000).
//!
//! Standard output should go to /dev/null (`fuzz/run.sh` does that for this target): the
//! commands print their reports there.

#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use systolic_ir::tensor::Tensor;

const COMMANDS: &[&str] = &[
    "run", "check", "simulate", "chips", "help", "--help", "-V", "runn",
];

const FLAGS: &[&str] = &[
    "--entry",
    "--input",
    "--out-dir",
    "--backend",
    "--dump-dir",
    "--cache-dir",
    "--repeat",
    "--profile",
    "--timeout",
    "--json",
    "--chip",
    "--slice",
    "--cost-only",
    "--no-compile",
    "--ignore-hbm-capacity",
    "--top",
    "--help",
    "--",
    "-x",
    "--input=",
];

const VALUES: &[&str] = &[
    "0",
    "1",
    "3",
    "-1",
    "100",
    "1000001",
    "18446744073709551615",
    "18446744073709551616",
    "0.001",
    "1e9",
    "1e400",
    "nan",
    "inf",
    "",
    " ",
    "abc",
    "main",
    "nope",
    "cpu",
    "interp",
    "tpu",
    "tpu:v5e:0",
    "v2",
    "v4",
    "v5e",
    "v5p",
    "v6e",
    "tpu7x",
    "V5E",
    "v5p:2x2x2",
    "v5e:4x4",
    "v4:2x2x1",
    "v5e:0x4",
    "v5e:99999x99999",
    "v5p:2x2x2x2",
    "bogus:1x1",
    "\u{0}",
    "é",
];

/// Files of the sandbox, made once per process.
const FILES: &[&str] = &[
    "add.mlir",
    "check.mlir",
    "sharded.mlir",
    "bad.mlir",
    "empty.mlir",
    "a.npy",
    "b.npy",
    "ints.npy",
    "bad.npy",
    "missing.npy",
    "out",
    "a_file",
    "",
];

fn sandbox() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("systolic-fuzz-cli-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("out")).unwrap();
        let t = "tensor<4xf32>";
        std::fs::write(
            dir.join("add.mlir"),
            format!(
                "func.func @main(%a: {t}, %b: {t}) -> {t} {{\n  %0 = stablehlo.add %a, %b : {t}\n  return %0 : {t}\n}}\n"
            ),
        )
        .unwrap();
        std::fs::write(
            dir.join("check.mlir"),
            "func.func @ok() {\n  %0 = stablehlo.constant dense<2> : tensor<i32>\n  %1 = stablehlo.add %0, %0 : tensor<i32>\n  check.expect_eq_const %1, dense<4> : tensor<i32>\n  func.return\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("sharded.mlir"),
            format!(
                "module @m attributes {{mhlo.num_partitions = 2 : i32}} {{\n  func.func @main(%a: {t} {{mhlo.sharding = \"{{devices=[2]<=[2]}}\"}}) -> ({t} {{mhlo.sharding = \"{{devices=[2]<=[2]}}\"}}) {{\n    %0 = stablehlo.multiply %a, %a : {t}\n    return %0 : {t}\n  }}\n}}\n"
            ),
        )
        .unwrap();
        std::fs::write(dir.join("bad.mlir"), "func.func @main( {{ oops").unwrap();
        std::fs::write(dir.join("empty.mlir"), "").unwrap();
        let f = Tensor::from_f32(vec![4], vec![1.0, 2.0, 3.0, 4.0]);
        systolic_npy::write(&dir.join("a.npy"), &f).unwrap();
        systolic_npy::write(&dir.join("b.npy"), &f).unwrap();
        let i = Tensor::from_i64(vec![4], systolic_ir::DType::I32, vec![1, 2, 3, 4]).unwrap();
        systolic_npy::write(&dir.join("ints.npy"), &i).unwrap();
        std::fs::write(dir.join("bad.npy"), b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'").unwrap();
        std::fs::write(dir.join("a_file"), "not a directory").unwrap();
        dir
    })
}

fn path(u: &mut Unstructured) -> Result<String> {
    let name = *u.choose(FILES)?;
    Ok(sandbox().join(name).display().to_string())
}

fn value(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => (*u.choose(VALUES)?).to_string(),
        2 => path(u)?,
        _ => u.arbitrary::<String>()?,
    })
}

fn argv(u: &mut Unstructured) -> Result<Vec<String>> {
    let mut args = vec!["systolic".to_string()];
    args.push(if u.ratio(1, 16)? {
        u.arbitrary::<String>()?
    } else {
        (*u.choose(COMMANDS)?).to_string()
    });
    for _ in 0..u.int_in_range(0..=10u8)? {
        match u.int_in_range(0..=5u8)? {
            0 => args.push(path(u)?),
            1 => args.push(value(u)?),
            2 => {
                let flag = *u.choose(FLAGS)?;
                let v = value(u)?;
                args.push(format!("{flag}={v}"));
            }
            _ => {
                args.push((*u.choose(FLAGS)?).to_string());
                if u.arbitrary::<bool>()? {
                    args.push(value(u)?);
                }
            }
        }
    }
    Ok(args)
}

/// True for arguments that are slow by design rather than wrong.
fn merely_slow(args: &[String]) -> bool {
    if args.get(1).is_some_and(|c| c == "tour") {
        return true;
    }
    let too_many = |r: &str| r.trim().parse::<u64>().is_ok_and(|n| n > 100);
    args.windows(2)
        .any(|w| w[0] == "--repeat" && too_many(&w[1]))
        || args
            .iter()
            .any(|a| a.strip_prefix("--repeat=").is_some_and(too_many))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(args) = argv(&mut u) else {
        return;
    };
    if merely_slow(&args) {
        return;
    }
    let code = systolic_cli::main_with(args.into_iter().map(OsString::from));
    let _ = code;
});
