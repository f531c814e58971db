//! Ahead-of-time compilation: `jit(f).lower(args)?.compile()?`, serialised, and loaded as a
//! fresh object in this process and in a child process — this test binary run again with one
//! ignored test selected and the file's path in the environment — which has no access to `f`
//! and compiles nothing; the child's results come back through a checkpoint file and must
//! equal this process's bit for bit.

use std::path::Path;
use std::process::Command;
use systolic::{checkpoint, jit, numpy as np, value_and_grad, Array, Compiled, Static, Tree};
use systolic_ir::DType;

/// Set in the child: the serialised executable to load, and where to write its results.
const EXE_ENV: &str = "SYSTOLIC_AOT_TEST_EXECUTABLE";
const OUT_ENV: &str = "SYSTOLIC_AOT_TEST_OUTPUT";

#[derive(Tree, Clone)]
struct Params {
    w: Array,
    b: Array,
}

type Args = (Params, Array, Array, Static<f32>);
type Out = (Params, Array);

/// One SGD step of a linear model on a squared error: the function compiled ahead of time.
fn sgd_step((p, x, y, lr): &Args) -> Out {
    let loss = |p: &Params| {
        let err = &(&np::matmul(x, &p.w) + &p.b) - y;
        np::mean(&(&err * &err), None, false)
    };
    let (value, grads) = value_and_grad(loss).call(p).unwrap();
    let lr = f64::from(lr.0);
    let next = Params {
        w: &p.w - &(&grads.w * lr),
        b: &p.b - &(&grads.b * lr),
    };
    (next, value)
}

/// The arguments both processes build.
fn inputs() -> Args {
    let x: Vec<f32> = (0..24).map(|i| ((i * 7 % 11) as f32 - 5.0) / 4.0).collect();
    let y: Vec<f32> = (0..8).map(|i| (i as f32 * 0.3).cos()).collect();
    let params = Params {
        w: Array::from_vec(vec![0.5f32, -0.25, 1.0], &[3, 1]),
        b: Array::from_vec(vec![0.1f32], &[1]),
    };
    (
        params,
        Array::from_vec(x, &[8, 3]),
        Array::from_vec(y, &[8, 1]),
        Static(0.05),
    )
}

/// A value shaped like the result, for loading (its leaves are not read).
fn result_like() -> Out {
    let z = || Array::scalar(0.0f32);
    (Params { w: z(), b: z() }, z())
}

fn bits(a: &Array) -> Vec<u8> {
    a.buffer().unwrap().to_cpu_buffer().unwrap().to_le_bytes()
}

fn assert_same(a: &Out, b: &Out) {
    assert_eq!(a.structure(), b.structure());
    for (x, y) in systolic::tree_leaves(a)
        .iter()
        .zip(systolic::tree_leaves(b))
    {
        assert_eq!(x.ty(), y.ty());
        assert_eq!(bits(x), bits(&y));
    }
}

fn compiled() -> Compiled<Out> {
    jit(sgd_step)
        .named("sgd_step")
        .lower(&inputs())
        .unwrap()
        .compile()
        .unwrap()
}

#[test]
fn a_compiled_function_equals_jit_and_loads_as_a_fresh_object() {
    let compiled = compiled();
    assert_eq!(compiled.name(), "sgd_step");
    let want = jit(sgd_step).call(&inputs()).unwrap();
    assert_same(&compiled.call(&inputs()).unwrap(), &want);
    let loss = want.1.to_vec::<f32>().unwrap()[0];
    assert!(loss > 0.1, "a real loss: {loss}");

    let bytes = compiled.serialize();
    assert_eq!(bytes, compiled.serialize(), "deterministic");
    let loaded = Compiled::deserialize(&bytes, &result_like()).unwrap();
    assert_eq!(loaded.name(), "sgd_step");
    assert_eq!(loaded.args_structure(), compiled.args_structure());
    assert_eq!(loaded.as_text(), compiled.as_text());
    assert_same(&loaded.call(&inputs()).unwrap(), &want);
}

#[test]
fn a_compiled_function_runs_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let exe_path = dir.path().join("sgd_step.sxe");
    let out_path = dir.path().join("child_result.safetensors");
    compiled().save(&exe_path).unwrap();

    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_loads_and_runs_the_serialised_step",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(EXE_ENV, &exe_path)
        .env(OUT_ENV, &out_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(
        child.status.success() && stdout.contains("1 passed"),
        "the child failed:\n{stdout}\n{stderr}"
    );
    let theirs = checkpoint::restore(&out_path, &result_like_with_types()).unwrap();
    assert_same(&theirs, &jit(sgd_step).call(&inputs()).unwrap());
}

/// [`result_like`] with the result's real types (a checkpoint template checks them).
fn result_like_with_types() -> Out {
    (
        Params {
            w: np::zeros(&[3, 1], DType::F32),
            b: np::zeros(&[1], DType::F32),
        },
        np::zeros(&[], DType::F32),
    )
}

/// Run only by [`a_compiled_function_runs_in_another_process`], in a child process.
#[test]
#[ignore = "the child half of a_compiled_function_runs_in_another_process"]
fn child_loads_and_runs_the_serialised_step() {
    let exe = std::env::var_os(EXE_ENV).expect("run by the parent test, which sets the path");
    let out = std::env::var_os(OUT_ENV).expect("run by the parent test");
    let loaded = Compiled::load(Path::new(&exe), &result_like()).unwrap();
    let result = loaded.call(&inputs()).unwrap();
    checkpoint::save(Path::new(&out), &result).unwrap();
    // This process never had the function: nothing was traced or compiled, only lowered.
    assert_eq!(systolic::client().cache_stats().compiles, 0);
}

#[test]
fn calls_with_other_arguments_are_refused_naming_them() {
    let compiled = compiled();
    let (p, x, y, lr) = inputs();
    let e = compiled
        .call(&(p.clone(), x.clone(), y.clone(), Static(0.1f32)))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("jit(sgd_step)") && e.contains("static 0.05"),
        "{e}"
    );
    let wide = np::zeros(&[8, 4], DType::F32);
    let e = compiled
        .call(&(p.clone(), wide, y.clone(), lr))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("`args[1]` is float32[8,4]; it was compiled for float32[8,3]"),
        "{e}"
    );
    let e = compiled
        .call(&(p, np::astype(&x, DType::BF16), y, lr))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("`args[1]` is bfloat16[8,3]"), "{e}");
}

#[test]
fn loading_refuses_another_build_a_damaged_file_or_another_result_tree() {
    let bytes = compiled().serialize();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let build_line = text.lines().nth(1).unwrap();
    assert!(build_line.starts_with("build "), "{build_line}");
    let other_build = text.replacen(build_line, "build 00000000000000000000000000000000", 1);
    let e = Compiled::deserialize(other_build.as_bytes(), &result_like())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("another build of Systolic"), "{e}");
    let e = Compiled::deserialize(&bytes[..bytes.len() - 1], &result_like())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    let e = Compiled::deserialize(&bytes, &(result_like().1, result_like().0))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("it returns (Params{w:*,b:*},*)"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let e = Compiled::load(dir.path().join("missing.sxe"), &result_like())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cannot read"), "{e}");
}
