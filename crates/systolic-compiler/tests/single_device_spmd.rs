//! The single-device collective rewrite: in a module for one replica and one partition the
//! device ids become constant 0 and the collectives of one participant become their operands
//! (zeros for a permute nobody sends to), with the interpreter's results bit for bit; modules
//! for several devices and collectives naming other processes are left as they were.

use crate::common;

use common::{assert_same_outputs, op_names, parse, random_inputs, run_pass};
use systolic_compiler::passes::single_device_spmd::is_single_device;
use systolic_compiler::passes::SingleDeviceSpmd;
use systolic_compiler::Pass;
use systolic_ir::text::print_module;
use systolic_ir::{Module, OpKind};

fn module(attrs: &str, body: &str, ty: &str) -> Module {
    parse(&format!(
        "module {attrs} {{
func.func public @main(%a: {ty}, %b: {ty}) -> ({ty}, tensor<ui32>) {{
{body}
}}
}}"
    ))
}

/// Rewrites, checks no collective or device id is left, and compares on random inputs.
fn rewrite_and_compare(m: &Module) -> Module {
    let out = run_pass(&SingleDeviceSpmd, m);
    for name in op_names(&out, "main") {
        assert!(
            !name.contains("all_")
                && !name.contains("collective")
                && !name.contains("reduce_scatter")
                && !name.ends_with("_id")
                && name != "stablehlo.custom_call",
            "{name} left:\n{}",
            print_module(&out)
        );
    }
    for seed in 0..4 {
        assert_same_outputs("single_device_spmd", m, &out, random_inputs(m, seed));
    }
    out
}

/// Runs the pass and asserts it changed nothing.
fn assert_untouched(m: &Module) {
    let mut out = m.clone();
    assert!(!SingleDeviceSpmd.run(&mut out).unwrap());
    assert_eq!(&out, m);
}

const ALL_REDUCE: &str = "  %s:2 = \"stablehlo.all_reduce\"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %z = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %z : tensor<f32>
  }) {GROUPS} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %i = stablehlo.add %r, %p : tensor<ui32>
  %m = stablehlo.multiply %s#0, %s#1 : tensor<2x3xf32>
  return %m, %i : tensor<2x3xf32>, tensor<ui32>";

fn all_reduce(attrs: &str, groups: &str) -> Module {
    module(
        attrs,
        &ALL_REDUCE.replace("GROUPS", groups),
        "tensor<2x3xf32>",
    )
}

#[test]
fn device_ids_and_all_reduce() {
    let single = [
        "",
        "attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}",
        "attributes {mhlo.num_replicas = 1 : i32}",
    ];
    let groups = [
        "replica_groups = dense<[[0]]> : tensor<1x1xi64>",
        "replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>",
        "replica_groups = dense<> : tensor<0x0xi64>",
        "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0]]> : tensor<1x1xi64>, use_global_device_ids",
    ];
    for attrs in single {
        for g in groups {
            let m = all_reduce(attrs, g);
            assert!(is_single_device(&m));
            let out = rewrite_and_compare(&m);
            assert_eq!(
                op_names(&out, "main"),
                [
                    "stablehlo.constant",
                    "stablehlo.constant",
                    "stablehlo.add",
                    "stablehlo.multiply",
                    "func.return"
                ]
            );
        }
    }
}

#[test]
fn gather_scatter_exchange_broadcast_and_shardings() {
    let body = "  %g = \"stablehlo.all_gather\"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %s = \"stablehlo.reduce_scatter\"(%g) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %z = stablehlo.maximum %x, %y : tensor<i32>
    stablehlo.return %z : tensor<i32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %t = \"stablehlo.all_to_all\"(%s) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 1 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %c = \"stablehlo.collective_broadcast\"(%t) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %h = stablehlo.custom_call @Sharding(%c) {backend_config = \"\", mhlo.sharding = \"{devices=[1,1]<=[1]}\"} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %f = stablehlo.custom_call @SPMDFullToShardShape(%h) {backend_config = \"\", mhlo.sharding = \"{manual}\"} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %u = stablehlo.custom_call @SPMDShardToFullShape(%f) {backend_config = \"\", mhlo.sharding = \"{devices=[1,1]<=[1]}\"} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  %v = stablehlo.add %u, %b : tensor<4x2xi32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %v, %r : tensor<4x2xi32>, tensor<ui32>";
    let out = rewrite_and_compare(&module("", body, "tensor<4x2xi32>"));
    assert_eq!(
        op_names(&out, "main"),
        ["stablehlo.add", "stablehlo.constant", "func.return"]
    );
}

#[test]
fn collective_permute_to_self_and_to_nobody() {
    let body = |pairs: &str| {
        format!(
            "  %p = \"stablehlo.collective_permute\"(%a) {{source_target_pairs = {pairs}}} : (tensor<3xf32>) -> tensor<3xf32>
  %q = stablehlo.add %p, %b : tensor<3xf32>
  %r = stablehlo.partition_id : tensor<ui32>
  return %q, %r : tensor<3xf32>, tensor<ui32>"
        )
    };
    let to_self = module(
        "",
        &body("dense<[[0, 0]]> : tensor<1x2xi64>"),
        "tensor<3xf32>",
    );
    let out = rewrite_and_compare(&to_self);
    let main = out.func("main").unwrap();
    let add = &main.body.blocks[0].ops[0];
    assert_eq!(add.kind.name(), "stablehlo.add");
    assert_eq!(
        add.operands[0],
        main.params()[0],
        "the permute is its operand"
    );

    let to_nobody = module("", &body("dense<> : tensor<0x2xi64>"), "tensor<3xf32>");
    let out = rewrite_and_compare(&to_nobody);
    let zeros = out.func("main").unwrap().body.blocks[0]
        .ops
        .iter()
        .find_map(|op| match &op.kind {
            OpKind::Constant(t) if t.dtype() == systolic_ir::DType::F32 => Some(t.clone()),
            _ => None,
        })
        .expect("a zero constant");
    assert_eq!(zeros.to_f64_vec(), [0.0]);
}

/// Several devices, or collectives that name other processes: nothing to do on one device.
#[test]
fn other_programs_are_left_alone() {
    let groups = "replica_groups = dense<[[0]]> : tensor<1x1xi64>";
    for attrs in [
        "attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}",
        "attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32}",
        "attributes {mhlo.num_partitions = \"1\", mhlo.num_replicas = 1 : i32}",
    ] {
        let m = all_reduce(attrs, groups);
        assert!(!is_single_device(&m), "{attrs}");
        assert_untouched(&m);
    }
    let two = all_reduce("", "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>");
    let out = run_pass(&SingleDeviceSpmd, &two);
    let names = op_names(&out, "main");
    assert!(names.contains(&"stablehlo.all_reduce".to_string()));
    assert!(!names.iter().any(|n| n.ends_with("_id")), "ids still fold");

    let permute = "  %p = \"stablehlo.collective_permute\"(%a) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %p, %r : tensor<3xf32>, tensor<ui32>";
    let out = run_pass(&SingleDeviceSpmd, &module("", permute, "tensor<3xf32>"));
    assert!(op_names(&out, "main").contains(&"stablehlo.collective_permute".to_string()));

    let split = "  %t = \"stablehlo.all_to_all\"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %t, %r : tensor<4xf32>, tensor<ui32>";
    let out = run_pass(&SingleDeviceSpmd, &module("", split, "tensor<4xf32>"));
    assert!(op_names(&out, "main").contains(&"stablehlo.all_to_all".to_string()));

    let other_target =
        "  %c = stablehlo.custom_call @MoveToHost(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %c, %r : tensor<4xf32>, tensor<ui32>";
    let out = run_pass(
        &SingleDeviceSpmd,
        &module("", other_target, "tensor<4xf32>"),
    );
    assert!(op_names(&out, "main").contains(&"stablehlo.custom_call".to_string()));
}

/// Every other program (the goldens, check files — including the collective ones — and
/// random programs) means the same after the pass, bit for bit.
#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&SingleDeviceSpmd, 20);
}

/// The CPU pipeline runs the pass among its expanders: after CHLO legalization, before the
/// simplification rounds (which clean up after it) and fusion.
#[test]
fn registered_in_the_cpu_pipeline_before_simplification() {
    let names = systolic_compiler::backend_pipeline::cpu_pipeline(Default::default()).pass_names();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    assert!(at("chlo_legalize") < at("single_device_spmd"), "{names:?}");
    assert!(at("single_device_spmd") < at("simplify"), "{names:?}");
    assert!(
        systolic_compiler::backend_pipeline::cpu_expander_pass_names()
            .contains(&"single_device_spmd")
    );
}
