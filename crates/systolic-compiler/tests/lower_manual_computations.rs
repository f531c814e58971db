//! `lower_manual_computations`: JAX's Shardy exports of shard_map programs (the CLI's
//! multi-device goldens) lowered to per-device programs and run on the interpreter, one
//! process per device, against JAX's outputs; hand-written modules whose conversions (pieces
//! gathered, whole values sliced, over two axes and a permuted device order) are checked
//! against the same program written without sharding, on one device.

use std::ops::Range;
use std::path::PathBuf;
use systolic_compiler::passes::lower_manual_computations;
use systolic_interp::{run_programs, Interpreter, Value};
use systolic_ir::text::parse_module;
use systolic_ir::{OpKind, ShardLayout, Tensor, TensorType};

fn golden_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../systolic-cli/tests/data/spmd/{name}"))
}

/// Row-major flat indices of the block `ranges` of an array of `shape`.
fn block_indices(shape: &[i64], ranges: &[Range<i64>]) -> Vec<usize> {
    let mut out = vec![0usize];
    for (d, r) in ranges.iter().enumerate() {
        let stride: i64 = shape[d + 1..].iter().product();
        out = out
            .iter()
            .flat_map(|&base| r.clone().map(move |i| base + (i * stride) as usize))
            .collect();
    }
    out
}

/// Device `d`'s piece of `global`.
fn piece(global: &Tensor, layout: &ShardLayout, d: usize) -> Tensor {
    let ranges = layout.piece(d).expect("every device holds a piece");
    let shape: Vec<i64> = ranges.iter().map(|r| r.end - r.start).collect();
    let data = global.data().gather(&block_indices(global.shape(), ranges));
    Tensor::new(TensorType::new(shape, global.dtype()), data).unwrap()
}

/// The global array from the devices' pieces, checking that copies agree bit for bit.
fn assemble(pieces: &[Tensor], layout: &ShardLayout, shape: &[i64]) -> Tensor {
    let n: usize = shape.iter().product::<i64>() as usize;
    let mut bits: Vec<Option<u64>> = vec![None; n];
    for (d, p) in pieces.iter().enumerate() {
        let ranges = layout.piece(d).unwrap();
        for (k, i) in block_indices(shape, ranges).into_iter().enumerate() {
            let b = p.bits(k);
            match bits[i] {
                None => bits[i] = Some(b),
                Some(v) => assert_eq!(v, b, "copies disagree at element {i} (device {d})"),
            }
        }
    }
    let bits: Vec<u64> = bits.into_iter().map(|v| v.expect("covered")).collect();
    Tensor::from_bits(TensorType::new(shape.to_vec(), pieces[0].dtype()), &bits).unwrap()
}

/// Runs `text` lowered on its devices with `inputs` (global arrays); the global results.
fn run_lowered(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let module = parse_module(text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
    let spmd = lower_manual_computations(&module, "main").unwrap_or_else(|e| panic!("{e}"));
    let n = spmd.num_devices;
    let args: Vec<Vec<Value>> = (0..n)
        .map(|d| {
            inputs
                .iter()
                .zip(&spmd.params)
                .map(|(x, l)| Value::Tensor(piece(x, l, d)))
                .collect()
        })
        .collect();
    let programs = vec![vec!["main".to_string(); n]];
    let results = run_programs(&spmd.module, &programs, args)
        .unwrap_or_else(|e| panic!("{e}\n{}", systolic_ir::text::print_module(&spmd.module)));
    let main = module.func("main").unwrap();
    (0..spmd.results.len())
        .map(|j| {
            let pieces: Vec<Tensor> = results
                .iter()
                .map(|r| r[j].clone().into_tensor().expect("a tensor"))
                .collect();
            let global = main.result_types[j].as_tensor().unwrap().shape.clone();
            assemble(&pieces, &spmd.results[j], &global)
        })
        .collect()
}

fn close(got: &Tensor, want: &Tensor, tol: f64) -> bool {
    got.shape() == want.shape()
        && got
            .to_f64_vec()
            .iter()
            .zip(want.to_f64_vec())
            .all(|(g, w)| (g - w).abs() <= tol + tol * w.abs() || g.is_nan() && w.is_nan())
}

#[test]
fn jax_shardy_goldens_match_on_the_interpreter() {
    for name in [
        "reductions_1d",
        "all_gather_2x4",
        "psum_scatter_4x2",
        "ppermute_1d",
        "all_to_all_2x4",
        "mesh_2x2x2",
        "fori_loop_1d",
        "mlp_dp_step",
    ] {
        let dir = golden_dir(name);
        let text = std::fs::read_to_string(dir.join("module_shardy.mlir")).unwrap();
        let read = |f: String| systolic_npy::read(&dir.join(f), None).unwrap();
        let mut inputs = vec![];
        while dir.join(format!("in{}.npy", inputs.len())).exists() {
            inputs.push(read(format!("in{}.npy", inputs.len())));
        }
        let got = run_lowered(&text, &inputs);
        for (j, g) in got.iter().enumerate() {
            let want = read(format!("out{j}.npy"));
            assert!(close(g, &want, 1e-5), "{name} out{j}: {g:?}\nwant {want:?}");
        }
    }
}

/// The whole program on one device.
fn run_reference(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let m = parse_module(text, "ref.mlir").unwrap_or_else(|e| panic!("{e}"));
    let args = inputs.iter().cloned().map(Value::Tensor).collect();
    Interpreter::new(&m)
        .call("main", args)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|v| v.into_tensor().unwrap())
        .collect()
}

fn iota(shape: Vec<i64>) -> Tensor {
    let n: i64 = shape.iter().product();
    Tensor::from_f32(shape, (0..n).map(|i| i as f32 * 0.5 - 3.0).collect())
}

/// An entry argument held whole, fed to a manual computation that takes it split over two
/// axes (and another split the other way round), on a mesh whose device order is permuted; a
/// manual result consumed by a global op, then returned split over other axes.
const CONVERSIONS: &str = r#"module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[3, 1, 7, 5, 0, 2, 4, 6]>
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>}, tensor<8x4xf32>, tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{}, {"y", "x"}]>] out_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{}, {"y", "x"}]>] manual_axes={"x", "y"} (%a: tensor<1x4xf32>, %b: tensor<4x1xf32>) {
      %c = stablehlo.constant dense<2.0> : tensor<1x4xf32>
      %1 = stablehlo.multiply %a, %c : tensor<1x4xf32>
      %2 = stablehlo.negate %b : tensor<4x1xf32>
      sdy.return %1, %2 : tensor<1x4xf32>, tensor<4x1xf32>
    } : (tensor<8x4xf32>, tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<4x8xf32>)
    %3 = sdy.sharding_constraint %0#0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
    %one = stablehlo.constant dense<1.0> : tensor<8x4xf32>
    %4 = stablehlo.add %3, %one : tensor<8x4xf32>
    return %4, %0#0, %0#1 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>
  }
}"#;

/// What [`CONVERSIONS`] computes, on one device.
const CONVERSIONS_REFERENCE: &str = r#"module {
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) {
    %c = stablehlo.constant dense<2.0> : tensor<8x4xf32>
    %1 = stablehlo.multiply %arg0, %c : tensor<8x4xf32>
    %2 = stablehlo.negate %arg1 : tensor<4x8xf32>
    %one = stablehlo.constant dense<1.0> : tensor<8x4xf32>
    %4 = stablehlo.add %1, %one : tensor<8x4xf32>
    return %4, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>
  }
}"#;

#[test]
fn whole_values_are_sliced_and_pieces_gathered_over_two_axes() {
    let inputs = [iota(vec![8, 4]), iota(vec![4, 8])];
    let got = run_lowered(CONVERSIONS, &inputs);
    let want = run_reference(CONVERSIONS_REFERENCE, &inputs);
    assert_eq!(got, want);
    // The lowered program holds the conversions: gathers for the global add and the
    // resharded results, dynamic slices for the whole argument and the split results.
    let m = parse_module(CONVERSIONS, "t.mlir").unwrap();
    let spmd = lower_manual_computations(&m, "main").unwrap();
    let main = spmd.module.func("main").unwrap();
    let count = |pred: fn(&OpKind) -> bool| {
        main.body.blocks[0]
            .ops
            .iter()
            .filter(|o| pred(&o.kind))
            .count()
    };
    assert!(count(|k| matches!(k, OpKind::AllGather { .. })) >= 2);
    assert!(count(|k| matches!(k, OpKind::DynamicSlice { .. })) >= 2);
    assert_eq!(count(|k| matches!(k, OpKind::ManualComputation(_))), 0);
    assert_eq!(count(|k| matches!(k, OpKind::ShardingConstraint(_))), 0);
    // Each all_gather has its own channel.
    let mut handles = vec![];
    systolic_ir::walk::walk_ops(&main.body, &mut |op, _| {
        if let OpKind::AllGather { collective, .. } = &op.kind {
            handles.push(collective.channel_handle.unwrap().handle);
        }
    });
    let before = handles.len();
    handles.sort();
    handles.dedup();
    assert_eq!(handles.len(), before);
    assert_eq!(main.param_types()[0].as_tensor().unwrap().shape, vec![8, 4]);
    assert_eq!(main.param_types()[1].as_tensor().unwrap().shape, vec![4, 4]);
    assert_eq!(main.result_types[0].as_tensor().unwrap().shape, vec![2, 2]);
}

#[test]
fn unsupported_forms_are_errors_naming_the_reason() {
    let lower = |text: &str| {
        let m = parse_module(text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
        lower_manual_computations(&m, "main").unwrap_err()
    };
    let free = CONVERSIONS
        .replace("manual_axes={\"x\", \"y\"}", "manual_axes={\"x\"}")
        .replace("%a: tensor<1x4xf32>", "%a: tensor<4x4xf32>")
        .replace("tensor<1x4xf32>", "tensor<4x4xf32>")
        .replace("{\"x\", \"y\"}, {}]>", "{\"x\"}, {}]>")
        .replace("[{}, {\"y\", \"x\"}]>", "[{}, {\"x\"}]>")
        .replace("%b: tensor<4x1xf32>", "%b: tensor<4x4xf32>")
        .replace("tensor<4x1xf32>", "tensor<4x4xf32>");
    let e = lower(&free);
    assert!(
        e.contains("\"y\"") && e.contains("automatic: this lowering takes"),
        "{e}"
    );
    let uneven = r#"module {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<6xf32> {
    return %arg0 : tensor<6xf32>
  }
}"#;
    let e = lower(uneven);
    assert!(
        e.contains("parameter 0") && e.contains("does not split evenly"),
        "{e}"
    );
}

#[test]
fn the_lowered_module_runs_on_as_many_partitions_as_the_mesh_has() {
    let m = parse_module(CONVERSIONS, "t.mlir").unwrap();
    let spmd = lower_manual_computations(&m, "main").unwrap();
    assert_eq!(spmd.num_devices, 8);
    let attr = systolic_ir::find_attr(&spmd.module.attrs, "mhlo.num_partitions");
    assert!(
        matches!(attr, Some(systolic_ir::Attribute::Int(8, _))),
        "{attr:?}"
    );
    systolic_ir::verify::verify_module(&spmd.module).unwrap();
}
