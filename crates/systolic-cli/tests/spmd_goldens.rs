//! The multi-device JAX goldens (exported by `scripts/export_spmd_goldens.py`: shard_map
//! programs on 1D, 2D and 3D meshes of 8 host devices) run through `systolic run` on 8 devices,
//! compiled and on the interpreter, and match JAX's global outputs within the tolerance their
//! meta.json gives. Each golden holds both forms JAX exports: `module.mlir` (GSPMD: custom calls
//! at the shard_map boundary) and `module_shardy.mlir` (Shardy: `sdy.manual_computation`,
//! lowered to the per-device program by the compiler's `lower_manual_computations`); both run
//! compiled and interpreted.

use crate::common;

macro_rules! spmd_goldens {
    ($($name:ident),* $(,)?) => {
        /// Compiled for the CPU, one program per device.
        mod cpu {
            $(
                #[test]
                fn $name() {
                    super::common::check_golden(concat!("spmd/", stringify!($name)));
                }
            )*
        }
        /// On the reference interpreter, one interpreter per device.
        mod interp {
            $(
                #[test]
                fn $name() {
                    super::common::check_golden_on(
                        concat!("spmd/", stringify!($name)),
                        &["--backend", "interp"],
                    );
                }
            )*
        }
        /// JAX's default (Shardy) export of the same program, compiled.
        mod shardy {
            $(
                #[test]
                fn $name() {
                    super::common::check_golden_module(
                        concat!("spmd/", stringify!($name)),
                        "module_shardy.mlir",
                        &[],
                    );
                }
            )*
        }
        /// The Shardy export on the interpreter.
        mod shardy_interp {
            $(
                #[test]
                fn $name() {
                    super::common::check_golden_module(
                        concat!("spmd/", stringify!($name)),
                        "module_shardy.mlir",
                        &["--backend", "interp"],
                    );
                }
            )*
        }
    };
}

spmd_goldens!(
    reductions_1d,
    all_gather_2x4,
    psum_scatter_4x2,
    ppermute_1d,
    all_to_all_2x4,
    mesh_2x2x2,
    fori_loop_1d,
    mlp_dp_step,
);

/// Every folder under tests/data/spmd is listed above.
#[test]
fn every_spmd_golden_is_tested() {
    let mut listed = vec![
        "reductions_1d",
        "all_gather_2x4",
        "psum_scatter_4x2",
        "ppermute_1d",
        "all_to_all_2x4",
        "mesh_2x2x2",
        "fori_loop_1d",
        "mlp_dp_step",
    ];
    listed.sort();
    let mut on_disk: Vec<String> = std::fs::read_dir(common::data_dir().join("spmd"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, listed);
}

/// A Shardy shard_map that leaves a mesh axis automatic (manual over "x" only) runs: the
/// compiler partitions the free axis, and the result is the program's meaning on both
/// backends.
#[test]
fn shardy_form_with_automatic_axes_runs_partitioned() {
    let tmp = tempfile::tempdir().unwrap();
    let module = write_module(
        &tmp,
        "auto.mlir",
        r#"module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<4x4xf32>) {
      %1 = stablehlo.negate %a : tensor<4x4xf32>
      sdy.return %1 : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}"#,
    );
    let input = tmp.path().join("x.npy");
    let x: Vec<f32> = (0..32).map(|i| i as f32 - 10.0).collect();
    systolic_npy::write(
        &input,
        &systolic_ir::Tensor::from_f32(vec![8, 4], x.clone()),
    )
    .unwrap();
    let negated: Vec<f32> = x.iter().map(|v| -v).collect();
    for backend in ["cpu", "interp"] {
        let out_dir = tmp.path().join(backend);
        let out = run_on(&module, &input, backend, &out_dir);
        let (stdout, stderr) = common::texts(&out);
        assert!(out.status.success(), "{backend}: {stderr}");
        assert!(stdout.contains("running on 8 "), "{backend}: {stdout}");
        let got = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
        assert_eq!(
            got,
            systolic_ir::Tensor::from_f32(vec![8, 4], negated.clone()),
            "{backend}"
        );
    }
}

/// Writes `text` as `name` in `tmp`; its path.
fn write_module(tmp: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let path = tmp.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `systolic run FILE --input INPUT --backend BACKEND --out-dir OUT_DIR`.
fn run_on(
    file: &std::path::Path,
    input: &std::path::Path,
    backend: &str,
    out_dir: &std::path::Path,
) -> std::process::Output {
    common::systolic(&[
        "run",
        &file.display().to_string(),
        "--input",
        &input.display().to_string(),
        "--backend",
        backend,
        "--out-dir",
        &out_dir.display().to_string(),
    ])
}

/// A hand-written Shardy program whose layouts differ between the entry, the shard_map and a
/// global op: an argument held whole enters a manual computation split over two axes (on a
/// mesh with a permuted device order), a manual result feeds a global op and leaves split over
/// other axes. Compiled and interpreted on 8 devices, the outputs are the program's meaning,
/// computed here from the input.
#[test]
fn shardy_layout_conversions_run_on_both_backends() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_module(
        &tmp,
        "conversions.mlir",
        r#"module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[3, 1, 7, 5, 0, 2, 4, 6]>
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>}, tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", "y"}, {}]>] out_shardings=[<@mesh, [{"x", "y"}, {}]>] manual_axes={"x", "y"} (%a: tensor<1x4xf32>) {
      %s = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %r = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %1 = stablehlo.add %a, %s : tensor<1x4xf32>
      sdy.return %1 : tensor<1x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %c = stablehlo.constant dense<2.0> : tensor<8x4xf32>
    %2 = stablehlo.multiply %0, %c : tensor<8x4xf32>
    return %2, %0 : tensor<8x4xf32>, tensor<8x4xf32>
  }
}"#,
    );
    let input = tmp.path().join("x.npy");
    let x: Vec<f32> = (0..32).map(|i| (i as f32) * 0.25 - 1.0).collect();
    systolic_npy::write(
        &input,
        &systolic_ir::Tensor::from_f32(vec![8, 4], x.clone()),
    )
    .unwrap();
    // Row r of the result: x[r] + the sum of all rows (each device holds one row).
    let column_sums: Vec<f32> = (0..4).map(|c| (0..8).map(|r| x[r * 4 + c]).sum()).collect();
    let y: Vec<f32> = (0..32).map(|i| x[i] + column_sums[i % 4]).collect();
    let doubled: Vec<f32> = y.iter().map(|v| v * 2.0).collect();
    for backend in ["cpu", "interp"] {
        let out_dir = tmp.path().join(backend);
        let out = run_on(&file, &input, backend, &out_dir);
        let (stdout, stderr) = common::texts(&out);
        assert!(out.status.success(), "{backend}: {stderr}");
        assert!(stdout.contains("running on 8 "), "{backend}: {stdout}");
        let read = |f: &str| {
            systolic_npy::read(&out_dir.join(f), None)
                .unwrap()
                .to_f64_vec()
        };
        let close = |got: Vec<f64>, want: &[f32]| {
            got.len() == want.len()
                && got
                    .iter()
                    .zip(want)
                    .all(|(g, w)| (g - f64::from(*w)).abs() <= 1e-5 * (1.0 + f64::from(w.abs())))
        };
        assert!(close(read("out0.npy"), &doubled), "{backend}: out0");
        assert!(close(read("out1.npy"), &y), "{backend}: out1");
    }
}

/// `--json` reports the devices and the most memory one device holds.
#[test]
fn json_reports_devices_and_device_memory() {
    let dir = common::data_dir().join("spmd").join("mlp_dp_step");
    let module = dir.join("module.mlir").display().to_string();
    let mut args = vec!["run".to_string(), module, "--json".to_string()];
    for i in 0..6 {
        args.push("--input".into());
        args.push(dir.join(format!("in{i}.npy")).display().to_string());
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = common::systolic(&arg_refs);
    let (stdout, stderr) = common::texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("running on 8 host CPU devices (1 replicas × 8 partitions)"));
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["devices"], 8);
    // Each device's arguments: the replicated parameters (6·16 + 16 + 16·4 + 4 floats) and a
    // batch of 4 of x (4·6) and labels (4·4); temporaries and results come on top.
    let args_bytes = 4 * (6 * 16 + 16 + 16 * 4 + 4 + 4 * 6 + 4 * 4);
    let device = report["device_memory_bytes"].as_u64().unwrap();
    let peak = report["peak_memory_bytes"].as_u64().unwrap();
    assert_eq!(device, args_bytes + peak, "{report}");
    assert_eq!(report["outputs"][0]["shape"], serde_json::json!([6, 16]));
}

/// A global program in the GSPMD form (`mhlo.sharding`s, no shard_map, no collectives) is
/// imported and partitioned: it runs on 4 devices, each adding its piece.
#[test]
fn global_gspmd_program_runs_partitioned() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_module(
        &tmp,
        "global.mlir",
        r#"module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) {
    %0 = stablehlo.add %x, %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}"#,
    );
    let input = tmp.path().join("x.npy");
    let x: Vec<f32> = (0..8).map(|i| i as f32).collect();
    systolic_npy::write(&input, &systolic_ir::Tensor::from_f32(vec![8], x.clone())).unwrap();
    let doubled: Vec<f32> = x.iter().map(|v| v * 2.0).collect();
    for backend in ["cpu", "interp"] {
        let out_dir = tmp.path().join(backend);
        let out = run_on(&file, &input, backend, &out_dir);
        let (stdout, stderr) = common::texts(&out);
        assert!(out.status.success(), "{backend}: {stderr}");
        assert!(stdout.contains("running on 4 "), "{backend}: {stdout}");
        let got = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
        assert_eq!(
            got,
            systolic_ir::Tensor::from_f32(vec![8], doubled.clone()),
            "{backend}"
        );
    }
}

/// A per-device program (its entry takes each device's piece) runs on 4 devices: the global
/// input is split by the argument's sharding and the result assembled by the result's.
#[test]
fn per_device_program_splits_and_assembles() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_module(
        &tmp,
        "local.mlir",
        r#"module attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<2x3xf32> {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<2x3xf32> {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}, tensor<4x3xf32> {mhlo.sharding = "{replicated}"}) {
    %p = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %g = stablehlo.multiply %f, %zero : tensor<f32>
    %b = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %y = stablehlo.add %x, %b : tensor<2x3xf32>
    %all = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2x3xf32>) -> tensor<4x3xf32>
    return %y, %all : tensor<2x3xf32>, tensor<4x3xf32>
  }
}"#,
    );
    let input = tmp.path().join("x.npy");
    let x = systolic_ir::Tensor::from_f32(vec![4, 3], (0..12).map(|i| i as f32).collect());
    systolic_npy::write(&input, &x).unwrap();
    for backend in ["cpu", "interp"] {
        let out_dir = tmp.path().join(backend);
        let out = run_on(&file, &input, backend, &out_dir);
        let (stdout, stderr) = common::texts(&out);
        assert!(out.status.success(), "{backend}: {stderr}");
        // <=[2,2]T(1,0): devices 0 and 2 hold rows 0..2, devices 1 and 3 rows 2..4, so the
        // gather over {0, 1} and {2, 3} rebuilds the whole array on every device.
        let y = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
        assert_eq!(y, x, "{backend}: {stdout}");
        let all = systolic_npy::read(&out_dir.join("out1.npy"), None).unwrap();
        assert_eq!(all, x, "{backend}: {stdout}");
    }
}

/// On a mesh of one device a manual computation is its body and a sharding constraint an
/// identity: both run on the single-device path, compiled and interpreted.
#[test]
fn shardy_ops_on_one_device_run_as_their_body() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_module(
        &tmp,
        "one.mlir",
        r#"module {
  sdy.mesh @mesh = <["x"=1]>
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %c = sdy.sharding_constraint %arg0 <@mesh, [{"x"}]> : tensor<4xf32>
    %0 = sdy.manual_computation(%c) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<4xf32>) {
      %1 = stablehlo.multiply %a, %a : tensor<4xf32>
      sdy.return %1 : tensor<4xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"#,
    );
    let input = tmp.path().join("x.npy");
    let x = vec![1.0f32, -2.0, 3.0, 0.5];
    systolic_npy::write(&input, &systolic_ir::Tensor::from_f32(vec![4], x.clone())).unwrap();
    for backend in ["cpu", "interp"] {
        let out_dir = tmp.path().join(backend);
        let out = run_on(&file, &input, backend, &out_dir);
        let (_, stderr) = common::texts(&out);
        assert!(out.status.success(), "{backend}: {stderr}");
        let got = systolic_npy::read(&out_dir.join("out0.npy"), None).unwrap();
        let want: Vec<f32> = x.iter().map(|v| v * v).collect();
        assert_eq!(
            got,
            systolic_ir::Tensor::from_f32(vec![4], want),
            "{backend}"
        );
    }
}
