//! The collectives' and pvary's batching rules on real multi-process runs: a per-device program
//! of a 2 × 4 mesh (8 partitions, device `4a + b`) with every collective, batched with
//! `vmap` and run on `systolic_interp::run_programs`, equals the per-example program run on
//! each example (on all devices) and stacked.

use crate::common::{random, stack, Rng};
use systolic_interp::{run_programs, Value};
use systolic_ir::text::parse_module;
use systolic_ir::{Func, Module, Tensor, Type};

const DEVICES: usize = 8;
const BATCH: usize = 3;

/// Groups and a channel as JAX's shard_map writes them (flattened ids).
fn over(rows: &str, shape: &str, channel: i64) -> String {
    format!(
        "replica_groups = dense<{rows}> : tensor<{shape}xi64>, \
         channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>, \
         use_global_device_ids"
    )
}

const SUM: &str =
    "({\n  ^bb0(%lhs: tensor<f32>, %rhs: tensor<f32>):\n    %sum = stablehlo.add %lhs, \
                   %rhs : tensor<f32>\n    stablehlo.return %sum : tensor<f32>\n  })";

fn program() -> Module {
    let b = over("[[0, 1, 2, 3], [4, 5, 6, 7]]", "2x4", 1);
    let a = over("[[0, 4], [1, 5], [2, 6], [3, 7]]", "4x2", 2);
    let text = format!(
        r#"module @spmd attributes {{mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}} {{
func.func @main(%x: tensor<8x2xf32>, %w: tensor<2xf32>) -> (tensor<8x2xf32>, tensor<2xf32>, tensor<8x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<2xf32>, tensor<2xf32>) {{
  %root = stablehlo.constant dense<[2]> : tensor<1xi32>
  %p:2 = "stablehlo.all_reduce"(%x, %w) {SUM} {{{b}}} : (tensor<8x2xf32>, tensor<2xf32>) -> (tensor<8x2xf32>, tensor<2xf32>)
  %g = "stablehlo.all_gather"(%x) {{all_gather_dim = 1 : i64, {a}}} : (tensor<8x2xf32>) -> tensor<8x4xf32>
  %r = "stablehlo.reduce_scatter"(%x) {SUM} {{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids}} : (tensor<8x2xf32>) -> tensor<2x2xf32>
  %t = "stablehlo.all_to_all"(%x) {{split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>}} : (tensor<8x2xf32>) -> tensor<4x4xf32>
  %c = "stablehlo.collective_permute"(%x) {{source_target_pairs = dense<[[0, 1], [1, 2], [2, 0], [4, 6]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>}} : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %k = "stablehlo.collective_broadcast"(%x) {{replica_groups = dense<[[3, 2, 1, 0], [7, 6, 5, 4]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 6, type = 1>}} : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %pid = stablehlo.partition_id : tensor<ui32>
  %pf = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
  %wp = stablehlo.broadcast_in_dim %pf, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %w2 = stablehlo.add %w, %wp : tensor<2xf32>
  %d = "stablehlo.collective_broadcast"(%w2, %root) {{replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>, has_dynamic_root}} : (tensor<2xf32>, tensor<1xi32>) -> tensor<2xf32>
  %v = stablehlo.custom_call @systolic.pvary(%w) {{api_version = 4 : i32, backend_config = {{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids = true}}}} : (tensor<2xf32>) -> tensor<2xf32>
  return %p#0, %p#1, %g, %r, %t, %c, %k, %d, %v : tensor<8x2xf32>, tensor<2xf32>, tensor<8x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<2xf32>, tensor<2xf32>
}}
}}"#
    );
    parse_module(&text, "collective").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn run(m: &Module, f: &Func, args: Vec<Vec<Tensor>>) -> Vec<Vec<Tensor>> {
    let m = Module {
        funcs: vec![f.clone()],
        ..m.clone()
    };
    let programs = vec![vec![f.name.clone(); DEVICES]];
    let args = args
        .into_iter()
        .map(|a| a.into_iter().map(Value::Tensor).collect())
        .collect();
    run_programs(&m, &programs, args)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|r| r.into_iter().map(|v| v.into_tensor().unwrap()).collect())
        .collect()
}

/// Batches `@main` with `in_axes` and checks it against the per-example runs.
fn check(in_axes: &[Option<usize>]) {
    let m = program();
    let f = &m.funcs[0];
    let batched = systolic_vmap::vmap(f, in_axes, BATCH, &[Some(0)]).unwrap();
    let params = f.param_types();
    let mut rng = Rng::new(11);
    // examples[device][example][param]; an unmapped parameter is the same for every example.
    let examples: Vec<Vec<Vec<Tensor>>> = (0..DEVICES)
        .map(|_| {
            let shared: Vec<Tensor> = params
                .iter()
                .map(|t| {
                    let Type::Tensor(t) = t else { panic!() };
                    random(t, &mut rng)
                })
                .collect();
            (0..BATCH)
                .map(|_| {
                    params
                        .iter()
                        .zip(in_axes)
                        .zip(&shared)
                        .map(|((t, axis), s)| {
                            let Type::Tensor(t) = t else { panic!() };
                            match axis {
                                Some(_) => random(t, &mut rng),
                                None => s.clone(),
                            }
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let batched_args: Vec<Vec<Tensor>> = examples
        .iter()
        .map(|per| {
            params
                .iter()
                .zip(in_axes)
                .enumerate()
                .map(|(i, (t, axis))| {
                    let Type::Tensor(t) = t else { panic!() };
                    match axis {
                        Some(a) => {
                            let parts: Vec<Tensor> = per.iter().map(|e| e[i].clone()).collect();
                            stack(&parts, t, *a)
                        }
                        None => per[0][i].clone(),
                    }
                })
                .collect()
        })
        .collect();
    let got = run(&m, &batched, batched_args);
    let per_example: Vec<Vec<Vec<Tensor>>> = (0..BATCH)
        .map(|e| run(&m, f, examples.iter().map(|per| per[e].clone()).collect()))
        .collect();
    for d in 0..DEVICES {
        for (k, ty) in f.result_types.iter().enumerate() {
            let Type::Tensor(ty) = ty else { panic!() };
            let parts: Vec<Tensor> = per_example.iter().map(|r| r[d][k].clone()).collect();
            let want = stack(&parts, ty, 0);
            assert_eq!(
                got[d][k], want,
                "in_axes {in_axes:?}: result {k} on device {d}"
            );
        }
    }
}

#[test]
fn batched_collectives_equal_per_example_runs() {
    check(&[Some(0), Some(0)]);
    check(&[Some(1), None]);
    check(&[Some(2), Some(1)]);
}

#[test]
fn batched_roots_of_a_broadcast_are_refused() {
    let text = r#"func.func @main(%x: tensor<2xf32>, %root: tensor<1xi32>) -> tensor<2xf32> {
  %d = "stablehlo.collective_broadcast"(%x, %root) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<2xf32>, tensor<1xi32>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}"#;
    let m = parse_module(text, "roots").unwrap();
    let err = systolic_vmap::vmap(&m.funcs[0], &[None, Some(0)], 2, &[Some(0)]).unwrap_err();
    assert_eq!(err.op, "stablehlo.collective_broadcast");
    assert!(err.message.contains("roots operand is batched"), "{err}");
}
