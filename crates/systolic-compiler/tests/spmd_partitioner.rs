//! `partition`: hand-written global programs with automatic shardings on 8 devices (mesh
//! data=4 × model=2), partitioned and run one process per device on the interpreter (and one
//! on the CPU backend), inputs split and outputs assembled by their layouts, against the same
//! program run whole on one device.

use systolic_compiler::passes::partition;
use systolic_cpu::{shards, CompileOptions, CpuBuffer};
use systolic_interp::{run_programs, Interpreter, Value};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::{OpKind, ProcessGrid, Tensor};

const MESH: &str = r#"sdy.mesh @mesh = <["data"=4, "model"=2]>"#;

/// `body` (a `func.func @main …`) in a module on the mesh.
fn module(body: &str) -> String {
    format!("module @m {{\n  {MESH}\n  {body}\n}}")
}

/// The program run whole on one device.
fn reference(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let m = parse_module(text, "ref.mlir").unwrap_or_else(|e| panic!("{e}"));
    let args = inputs.iter().cloned().map(Value::Tensor).collect();
    Interpreter::new(&m)
        .call("main", args)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|v| v.into_tensor().unwrap())
        .collect()
}

/// The partitioned program's per-device inputs (global arrays split by their layouts).
fn split(spmd: &systolic_compiler::passes::SpmdModule, inputs: &[Tensor]) -> Vec<Vec<CpuBuffer>> {
    let per_input: Vec<Vec<CpuBuffer>> = inputs
        .iter()
        .zip(&spmd.params)
        .map(|(x, l)| shards::split(&CpuBuffer::from_tensor(x), l).unwrap())
        .collect();
    (0..spmd.num_devices)
        .map(|d| per_input.iter().map(|p| p[d].clone()).collect())
        .collect()
}

/// The global results from each device's pieces, checking that copies agree.
fn assemble(
    spmd: &systolic_compiler::passes::SpmdModule,
    outputs: Vec<Vec<CpuBuffer>>,
) -> Vec<Tensor> {
    (0..spmd.results.len())
        .map(|j| {
            let pieces: Vec<CpuBuffer> = outputs.iter().map(|o| o[j].clone()).collect();
            let (global, differing) = shards::assemble(&pieces, &spmd.results[j]).unwrap();
            assert!(
                differing.is_empty(),
                "result {j}: copies differ: {differing:?}"
            );
            global.to_tensor()
        })
        .collect()
}

/// Partitions `text` and runs it on 8 interpreter processes.
fn run_partitioned(text: &str, inputs: &[Tensor]) -> (Vec<Tensor>, String) {
    let m = parse_module(text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
    let spmd = partition(&m, "main").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(spmd.num_devices, 8);
    let printed = print_module(&spmd.module);
    let args: Vec<Vec<Value>> = split(&spmd, inputs)
        .into_iter()
        .map(|a| a.iter().map(|b| Value::Tensor(b.to_tensor())).collect())
        .collect();
    let programs = vec![vec!["main".to_string(); spmd.num_devices]];
    let results =
        run_programs(&spmd.module, &programs, args).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    let outputs = results
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| CpuBuffer::from_tensor(&v.into_tensor().unwrap()))
                .collect()
        })
        .collect();
    (assemble(&spmd, outputs), printed)
}

fn close(got: &Tensor, want: &Tensor) -> bool {
    got.shape() == want.shape()
        && got
            .to_f64_vec()
            .iter()
            .zip(want.to_f64_vec())
            .all(|(g, w)| (g - w).abs() <= 1e-4 + 1e-4 * w.abs())
}

fn check(text: &str, inputs: &[Tensor]) -> String {
    let want = reference(text, inputs);
    let (got, printed) = run_partitioned(text, inputs);
    assert_eq!(got.len(), want.len());
    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(close(g, w), "result {j}: {g:?}\nwant {w:?}\n{printed}");
    }
    printed
}

fn data(shape: Vec<i64>, seed: u32) -> Tensor {
    let n: i64 = shape.iter().product();
    let values = (0..n)
        .map(|i| {
            let k = (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(seed * 40503);
            (k % 1000) as f32 / 250.0 - 2.0
        })
        .collect();
    Tensor::from_f32(shape, values)
}

/// Ops of the per-device entry of kind `pred`.
fn count(text: &str, pred: fn(&OpKind) -> bool) -> usize {
    let m = parse_module(text, "t.mlir").unwrap();
    let spmd = partition(&m, "main").unwrap();
    let mut n = 0;
    systolic_ir::walk::walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        n += usize::from(pred(&op.kind))
    });
    n
}

const ELEMENTWISE: &str = r#"func.func public @main(%x: tensor<16x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %y: tensor<16x6xf32>) -> (tensor<16x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
    %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<6xf32>) -> tensor<16x6xf32>
    %i = stablehlo.iota dim = 0 : tensor<16x6xf32>
    %0 = stablehlo.exponential %x : tensor<16x6xf32>
    %1 = stablehlo.multiply %0, %y : tensor<16x6xf32>
    %2 = stablehlo.add %1, %b : tensor<16x6xf32>
    %3 = stablehlo.subtract %2, %i : tensor<16x6xf32>
    %4 = stablehlo.tanh %3 : tensor<16x6xf32>
    return %4 : tensor<16x6xf32>
  }"#;

#[test]
fn an_elementwise_chain_runs_on_pieces() {
    let text = module(ELEMENTWISE);
    check(&text, &[data(vec![16, 6], 1), data(vec![16, 6], 2)]);
    // Nothing is gathered: every operand arrives as the chain needs it.
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 0);
}

/// x[B@data, D] · w1[D, H@model] → relu → · w2[H@model, D]: the second product sums over
/// "model" on each device, completed by an all-reduce.
fn mlp(out_sharding: &str) -> String {
    module(&format!(
        r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}]>}}, %w1: tensor<8x12xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{"model"}}]>}}, %w2: tensor<12x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"model"}}, {{}}]>}}) -> (tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {out_sharding}>}}) {{
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x12xf32>) -> tensor<16x12xf32>
    %z = stablehlo.constant dense<0.0> : tensor<16x12xf32>
    %r = stablehlo.maximum %h, %z : tensor<16x12xf32>
    %o = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<16x12xf32>, tensor<12x8xf32>) -> tensor<16x8xf32>
    return %o : tensor<16x8xf32>
  }}"#
    ))
}

#[test]
fn an_mlp_sums_its_sharded_contraction() {
    let inputs = [
        data(vec![16, 8], 3),
        data(vec![8, 12], 4),
        data(vec![12, 8], 5),
    ];
    for out in [r#"[{"data"}, {}]"#, "[{}, {}]"] {
        let text = mlp(out);
        check(&text, &inputs);
        assert_eq!(
            count(&text, |k| matches!(k, OpKind::AllReduce { .. })),
            1,
            "{out}"
        );
    }
}

/// As [`check`], the partitioned program compiled for 8 CPU processes.
fn check_cpu(text: &str, inputs: &[Tensor]) {
    let want = reference(text, inputs);
    let m = parse_module(text, "t.mlir").unwrap();
    let spmd = partition(&m, "main").unwrap();
    let exe = systolic_cpu::compile_spmd(
        &spmd.module,
        ProcessGrid::new(1, spmd.num_devices as u32),
        &CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let outputs = exe.execute(split(&spmd, inputs)).unwrap();
    let got = assemble(&spmd, outputs);
    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(close(g, w), "result {j}: {g:?}\nwant {w:?}");
    }
}

#[test]
fn the_mlp_runs_on_the_cpu_backend() {
    let inputs = [
        data(vec![16, 8], 6),
        data(vec![8, 12], 7),
        data(vec![12, 8], 8),
    ];
    check_cpu(&mlp(r#"[{"data"}, {}]"#), &inputs);
    check_cpu(&mlp("[{}, {}]"), &inputs);
}

#[test]
fn dots_under_other_shardings() {
    // Batched: batch split over "data", the contraction over "model" (summed across it).
    let batched = module(
        r#"func.func public @main(%a: tensor<4x8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {"model"}]>}, %b: tensor<4x6x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}, {}]>}) -> (tensor<4x8x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}) {
    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x6xf32>, tensor<4x6x10xf32>) -> tensor<4x8x10xf32>
    return %0 : tensor<4x8x10xf32>
  }"#,
    );
    check(
        &batched,
        &[data(vec![4, 8, 6], 14), data(vec![4, 6, 10], 15)],
    );
    assert_eq!(
        count(&batched, |k| matches!(k, OpKind::AllReduce { .. })),
        1
    );
    // The result claims "model" for its columns, so the contraction cannot use it: the
    // operands' contracted dimension is gathered instead, and nothing is summed.
    let claimed = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %w: tensor<8x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x12xf32>) -> tensor<16x12xf32>
    return %0 : tensor<16x12xf32>
  }"#,
    );
    check(&claimed, &[data(vec![16, 8], 16), data(vec![8, 12], 17)]);
    assert_eq!(
        count(&claimed, |k| matches!(k, OpKind::AllReduce { .. })),
        0
    );
}

/// Every sharding of a 2-D array on the mesh: each dimension over none, one or both axes, no
/// axis twice.
fn two_dim_shardings() -> Vec<String> {
    let dims = ["{}", r#"{"data"}"#, r#"{"model"}"#, r#"{"data", "model"}"#];
    let mut shardings = vec![];
    for (i, a) in dims.iter().enumerate() {
        for (j, b) in dims.iter().enumerate() {
            // Index bit 0: "data", bit 1: "model".
            if i & j != 0 {
                continue;
            }
            shardings.push(format!("[{a}, {b}]"));
        }
    }
    assert_eq!(shardings.len(), 9);
    shardings
}

#[test]
fn reductions_under_every_sharding_of_their_operand() {
    let inputs = [data(vec![16, 8], 31)];
    for sx in two_dim_shardings() {
        for (dims, ty) in [
            ("[0]", "tensor<8xf32>"),
            ("[1]", "tensor<16xf32>"),
            ("[0, 1]", "tensor<f32>"),
        ] {
            for (init, reducer) in [("0.0", "add"), ("0xFF800000", "maximum")] {
                let text = module(&format!(
                    r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}) -> {ty} {{
    %i = stablehlo.constant dense<{init}> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{reducer} across dimensions = {dims} : (tensor<16x8xf32>, tensor<f32>) -> {ty}
    return %0 : {ty}
  }}"#
                ));
                let want = reference(&text, &inputs);
                let (got, printed) = run_partitioned(&text, &inputs);
                assert!(close(&got[0], &want[0]), "{sx} {reducer} {dims}\n{printed}");
            }
        }
    }
}

#[test]
fn reshapes_and_transposes_under_every_sharding_of_their_operand() {
    let inputs = [data(vec![16, 8], 32)];
    for sx in two_dim_shardings() {
        let text = module(&format!(
            r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}) -> (tensor<4x4x8xf32>, tensor<128xf32>, tensor<8x16xf32>, tensor<2x8x8xf32>) {{
    %0 = stablehlo.reshape %x : (tensor<16x8xf32>) -> tensor<4x4x8xf32>
    %1 = stablehlo.reshape %x : (tensor<16x8xf32>) -> tensor<128xf32>
    %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %3 = stablehlo.reshape %2 : (tensor<8x16xf32>) -> tensor<2x8x8xf32>
    %4 = stablehlo.negate %3 : tensor<2x8x8xf32>
    return %0, %1, %2, %4 : tensor<4x4x8xf32>, tensor<128xf32>, tensor<8x16xf32>, tensor<2x8x8xf32>
  }}"#
        ));
        let want = reference(&text, &inputs);
        let (got, printed) = run_partitioned(&text, &inputs);
        for (j, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(g, w), "{sx} result {j}\n{printed}");
        }
    }
}

#[test]
fn a_matmul_under_every_sharding_of_operands_and_result() {
    // 9 shardings per array, 729 programs.
    let shardings = two_dim_shardings();
    let inputs = [data(vec![16, 8], 29), data(vec![8, 16], 30)];
    let mut want = None;
    for sx in &shardings {
        for sw in &shardings {
            for so in &shardings {
                let text = module(&format!(
                    r#"func.func public @main(%x: tensor<16x8xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}, %w: tensor<8x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sw}>}}) -> (tensor<16x16xf32> {{sdy.sharding = #sdy.sharding<@mesh, {so}>}}) {{
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }}"#
                ));
                let want = want.get_or_insert_with(|| reference(&text, &inputs));
                let (got, printed) = run_partitioned(&text, &inputs);
                assert!(
                    close(&got[0], &want[0]),
                    "x {sx}, w {sw}, out {so}\n{printed}"
                );
            }
        }
    }
}

#[test]
fn reductions_over_sharded_dims_are_completed_across_devices() {
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<8xf32>, tensor<16xf32>, tensor<f32>) {
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32>
    %t = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    return %s, %m, %t : tensor<8xf32>, tensor<16xf32>, tensor<f32>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 9)]);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllReduce { .. })), 3);
}

#[test]
fn softmax_along_a_sharded_axis() {
    let text = module(
        r#"func.func public @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %d = stablehlo.subtract %x, %mb : tensor<8x16xf32>
    %e = stablehlo.exponential %d : tensor<8x16xf32>
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %y = stablehlo.divide %e, %sb : tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }"#,
    );
    check(&text, &[data(vec![8, 16], 20)]);
    check_cpu(&text, &[data(vec![8, 16], 27)]);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllReduce { .. })), 2);
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 0);
}

#[test]
fn fsdp_style_weights_are_gathered_where_the_plan_says() {
    // The weight's rows are split over "data" like the batch: the product cannot use "data"
    // twice, so one of them is converted; the answer must not change.
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %w: tensor<8x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x12xf32>) -> tensor<16x12xf32>
    %1 = stablehlo.tanh %0 : tensor<16x12xf32>
    return %1 : tensor<16x12xf32>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 21), data(vec![8, 12], 22)]);
}

#[test]
fn a_reduce_whose_init_would_count_per_device_is_refused() {
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8xf32> {
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %one) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    return %s : tensor<8xf32>
  }"#,
    );
    let m = parse_module(&text, "t.mlir").unwrap();
    let err = partition(&m, "main").unwrap_err();
    assert!(
        err.contains("does not handle stablehlo.reduce") && err.contains("init value"),
        "{err}"
    );
}

#[test]
fn values_move_between_shardings() {
    // Argument split over rows by "data" and columns by "model"; result split the other way
    // round; a constraint in between that replicates the rows.
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {"data"}]>}, tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}) {
    %0 = stablehlo.negate %x : tensor<16x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"model"}]> : tensor<16x8xf32>
    %2 = stablehlo.exponential %1 : tensor<16x8xf32>
    %3 = stablehlo.sine %x : tensor<16x8xf32>
    return %2, %3 : tensor<16x8xf32>, tensor<16x8xf32>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 10)]);
    assert!(count(&text, |k| matches!(k, OpKind::AllGather { .. })) >= 2);
    // A value two ops need whole is gathered once.
    let twice = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
    %0 = stablehlo.reverse %x, dims = [0] : tensor<16x8xf32>
    %1 = "stablehlo.sort"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 0 : i64} : (tensor<16x8xf32>) -> tensor<16x8xf32>
    return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
  }"#,
    );
    check(&twice, &[data(vec![16, 8], 23)]);
    assert_eq!(count(&twice, |k| matches!(k, OpKind::AllGather { .. })), 1);
}

#[test]
fn minor_axes_are_gathered_or_sliced_alone() {
    // Rows over {"data", "model"} → over {"data"}: only "model" is gathered; and the other
    // way: only a slice of each device's piece, no collective.
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}, %y: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>}) {
    return %x, %y : tensor<16x8xf32>, tensor<16x8xf32>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 18), data(vec![16, 8], 19)]);
    let pairs = |k: &OpKind| {
        matches!(k, OpKind::AllGather { collective, .. }
            if collective.replica_groups.iter().all(|g| g.len() == 2))
    };
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 1);
    assert_eq!(count(&text, pairs), 1);
}

#[test]
fn an_axis_that_changes_dimension_moves_by_all_to_all() {
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {"data"}]>}) {
    %0 = stablehlo.negate %x : tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 24)]);
    let one = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}) {
    %0 = stablehlo.negate %x : tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }"#,
    );
    check(&one, &[data(vec![16, 8], 25)]);
    check_cpu(&one, &[data(vec![16, 8], 26)]);
    assert_eq!(count(&one, |k| matches!(k, OpKind::AllToAll { .. })), 1);
    assert_eq!(count(&one, |k| matches!(k, OpKind::AllGather { .. })), 0);
}

#[test]
fn ops_along_whole_dimensions_keep_the_others_split() {
    // Rows split over "data"; every op below works along columns (or moves rows whole).
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x4xf32>, tensor<16x11xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<16x2x4xf32>, tensor<16x8xf32>) {
    %s = stablehlo.slice %x [0:16, 2:6] : (tensor<16x8xf32>) -> tensor<16x4xf32>
    %z = stablehlo.constant dense<0.5> : tensor<f32>
    %p = stablehlo.pad %x, %z, low = [0, 1], high = [0, 2], interior = [0, 0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x11xf32>
    %c = stablehlo.concatenate %x, %x, dim = 1 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
    %o = "stablehlo.sort"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 1 : i64} : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %r = stablehlo.reshape %x : (tensor<16x8xf32>) -> tensor<16x2x4xf32>
    %v = stablehlo.reverse %x, dims = [1] : tensor<16x8xf32>
    %w = stablehlo.reverse %v, dims = [0] : tensor<16x8xf32>
    return %s, %p, %c, %o, %t, %r, %w : tensor<16x4xf32>, tensor<16x11xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<16x2x4xf32>, tensor<16x8xf32>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 11)]);
    // The rows stay split throughout, except into the reverse along them: one gather.
    assert_eq!(count(&text, |k| matches!(k, OpKind::AllGather { .. })), 1);
}

#[test]
fn a_splat_constant_is_made_at_the_pieces_shape() {
    let text = module(ELEMENTWISE.replace(
        "dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>\n    %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<6xf32>) -> tensor<16x6xf32>",
        "dense<1.5> : tensor<16x6xf32>\n    %b = stablehlo.negate %c : tensor<16x6xf32>",
    ).as_str());
    assert!(text.contains("dense<1.5>"));
    check(&text, &[data(vec![16, 6], 12), data(vec![16, 6], 13)]);
    let big = |k: &OpKind| matches!(k, OpKind::Constant(t) if t.shape() == [16, 6]);
    assert_eq!(count(&text, big), 0);
}

#[test]
fn iotas_count_from_each_devices_offset() {
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data", "model"}]>}) {
    %0 = stablehlo.iota dim = 0 : tensor<16x8xf32>
    %1 = stablehlo.iota dim = 1 : tensor<16x8xi32>
    %2 = stablehlo.convert %1 : (tensor<16x8xi32>) -> tensor<16x8xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<16x8xf32>
    %4 = stablehlo.add %3, %x : tensor<16x8xf32>
    %5 = stablehlo.iota dim = 1 : tensor<16x8xbf16>
    return %4, %5 : tensor<16x8xf32>, tensor<16x8xbf16>
  }"#,
    );
    check(&text, &[data(vec![16, 8], 28)]);
    let whole =
        |k: &OpKind| matches!(k, OpKind::DynamicSlice { slice_sizes } if slice_sizes.len() == 2);
    assert_eq!(count(&text, whole), 0);
}

#[test]
fn ops_it_cannot_partition_yet_are_named() {
    let text = module(
        r#"func.func public @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<16x8xf32> {
    %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }"#,
    );
    let m = parse_module(&text, "t.mlir").unwrap();
    let err = partition(&m, "main").unwrap_err();
    assert!(
        err.contains("the partitioner does not handle stablehlo.custom_call yet"),
        "{err}"
    );
}
