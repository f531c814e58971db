//! SPMD executables (`compile_spmd`, `compile_mpmd`) against the interpreter's
//! `interpreter.run_parallel` (`systolic_interp::run_programs`), bit for bit: the
//! interpreter's own multi-process test programs, random programs of elementwise ops around
//! collectives on 2, 4 and 8 processes, large operands (the cooperative all-reduce) with each
//! process's kernels on its own thread and on the pool, and errors (disagreeing, missing or
//! failing participants end in an error naming the op, never a hang).

use crate::support::random::{self, Rng};
use std::time::{Duration, Instant};
use systolic_cpu::spmd::KernelThreads;
use systolic_cpu::{compile_mpmd, compile_spmd, CompileOptions, CpuBuffer};
use systolic_interp::{run_programs, Value};
use systolic_ir::{DType, Module, OpKind, ProcessGrid, Tensor, TensorType, ValueId, Visibility};

fn options() -> CompileOptions {
    CompileOptions {
        verify_each: true,
        ..CompileOptions::default()
    }
}

fn bytes(t: &Tensor) -> Vec<u8> {
    CpuBuffer::from_tensor(t).to_le_bytes()
}

/// Runs `entries` (one per process, flat order) of `module` on the interpreter and compiled,
/// and compares: equal results bit for bit, or both failing. Returns the interpreter's error.
fn compare(
    module: &Module,
    grid: ProcessGrid,
    entries: &[String],
    args: Vec<Vec<Tensor>>,
    what: &str,
) -> Option<String> {
    compare_with(module, grid, entries, args, what, None)
}

/// As [`compare`], the processes' kernels placed by `kernels` (the default when `None`) and
/// the arguments borrowed one by one (`execute_refs`) when it is given.
fn compare_with(
    module: &Module,
    grid: ProcessGrid,
    entries: &[String],
    args: Vec<Vec<Tensor>>,
    what: &str,
    kernels: Option<KernelThreads>,
) -> Option<String> {
    let programs: Vec<Vec<String>> = entries
        .chunks(grid.partitions as usize)
        .map(<[String]>::to_vec)
        .collect();
    let values = args
        .iter()
        .map(|a| a.iter().cloned().map(Value::Tensor).collect())
        .collect();
    let want = run_programs(module, &programs, values);
    let got = compile_mpmd(module, grid, entries, &options()).and_then(|exe| {
        let buffers: Vec<Vec<CpuBuffer>> = args
            .iter()
            .map(|a| a.iter().map(CpuBuffer::from_tensor).collect())
            .collect();
        match kernels {
            None => exe.execute(buffers),
            Some(k) => {
                let refs: Vec<Vec<&CpuBuffer>> =
                    buffers.iter().map(|a| a.iter().collect()).collect();
                let out = exe.with_kernel_threads(k).execute_refs(&refs);
                for (a, b) in args.iter().flatten().zip(buffers.iter().flatten()) {
                    assert!(bytes(a) == b.to_le_bytes(), "{what}: an argument changed");
                }
                out
            }
        }
    });
    match (want, got) {
        (Ok(want), Ok(got)) => {
            assert_eq!(want.len(), got.len(), "{what}");
            for (p, (w, g)) in want.iter().zip(&got).enumerate() {
                assert_eq!(w.len(), g.len(), "{what}: process {p}");
                for (k, (w, g)) in w.iter().zip(g).enumerate() {
                    let Value::Tensor(w) = w else {
                        panic!("{what}: a non-tensor result")
                    };
                    let g = g.to_tensor();
                    assert_eq!(w.ty(), g.ty(), "{what}: process {p} result {k}");
                    assert!(
                        bytes(w) == bytes(&g),
                        "{what}: process {p} result {k}: compiled {g:?}, interpreter {w:?}"
                    );
                }
            }
            None
        }
        (Err(want), Err(_)) => Some(want.to_string()),
        (Ok(_), Err(e)) => panic!("{what}: the interpreter runs it, compiled fails: {e}"),
        (Err(e), Ok(_)) => panic!("{what}: the interpreter fails ({e}), compiled runs it"),
    }
}

/// The constant defining `v` in `func`'s body, if one does.
fn constant_of(module: &Module, func: &str, v: ValueId) -> Option<Tensor> {
    let f = module.func(func)?;
    f.body.blocks.iter().flat_map(|b| &b.ops).find_map(|op| {
        match (&op.kind, op.results.as_slice()) {
            (OpKind::Constant(t), [r]) if *r == v => Some(t.clone()),
            _ => None,
        }
    })
}

#[test]
fn the_interpreters_multi_process_programs_compiled_equal_the_interpreter() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../systolic-interp/tests/interpret/collective_parallel.mlir"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut ran = 0;
    for (i, piece) in text.split("// -----").enumerate() {
        // Send, recv, infeed and outfeed are not collectives the CPU backend runs yet.
        if ["send", "recv", "infeed", "outfeed"]
            .iter()
            .any(|op| piece.contains(&format!("stablehlo.{op}")))
        {
            continue;
        }
        let module = systolic_ir::text::parse_module(piece, "collective_parallel.mlir")
            .unwrap_or_else(|e| panic!("piece {i}: {e}"));
        for func in &module.funcs {
            for op in func.body.blocks.iter().flat_map(|b| &b.ops) {
                let OpKind::RunParallel { programs, infeed } = &op.kind else {
                    continue;
                };
                if !infeed.is_empty() {
                    continue;
                }
                let Some(flat) = op
                    .operands
                    .iter()
                    .map(|&v| constant_of(&module, &func.name, v))
                    .collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                let grid = ProcessGrid::new(programs.len() as u32, programs[0].len() as u32);
                let entries: Vec<String> = programs.iter().flatten().cloned().collect();
                // The processes' functions as the module's public entries; the harness
                // functions (with run_parallel and checks) left out.
                let mut m = module.clone();
                m.funcs.retain(|f| {
                    !f.body
                        .blocks
                        .iter()
                        .flat_map(|b| &b.ops)
                        .any(|o| matches!(o.kind, OpKind::RunParallel { .. }))
                });
                for f in &mut m.funcs {
                    if entries.contains(&f.name) {
                        f.visibility = Visibility::Public;
                    }
                }
                let mut flat = flat.into_iter();
                let args: Vec<Vec<Tensor>> = entries
                    .iter()
                    .map(|e| {
                        let n = m.func(e).map_or(0, |f| f.params().len());
                        flat.by_ref().take(n).collect()
                    })
                    .collect();
                let what = format!("piece {i}, @{} running {programs:?}", func.name);
                compare(&m, grid, &entries, args, &what);
                ran += 1;
            }
        }
    }
    assert!(ran >= 15, "only {ran} run_parallel ops compared");
}

/// The MLIR name of a dtype.
fn name(d: DType) -> String {
    TensorType::new(vec![], d).to_string()["tensor<".len()..]
        .trim_end_matches('>')
        .to_string()
}

/// `n` ids, shuffled, in `g` groups of equal size: `dense<[[..], ..]> : tensor<gxkxi64>`.
fn groups(rng: &mut Rng, n: u32, g: u32) -> String {
    let mut ids: Vec<u32> = (0..n).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let k = n / g;
    let rows: Vec<String> = ids
        .chunks(k as usize)
        .map(|c| {
            format!(
                "[{}]",
                c.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    format!("dense<[{}]> : tensor<{g}x{k}xi64>", rows.join(", "))
}

const CHANNEL: &str = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>";

/// A random program for `grid`: the operand scaled by a function of the process ids, one
/// collective, an elementwise op after it.
fn random_program(rng: &mut Rng, grid: ProcessGrid, d: DType) -> (String, TensorType) {
    let t = name(d);
    let n = grid.len() as u32;
    let float = d.is_float();
    let divisors: Vec<u32> = (1..=n).filter(|&g| n.is_multiple_of(g)).collect();
    let reducer = *rng.pick(&["add", "maximum", "multiply", "minimum"]);
    let region = format!(
        "({{\n  ^bb0(%u: tensor<{t}>, %v: tensor<{t}>):\n    %s = stablehlo.{reducer} %u, %v : \
         tensor<{t}>\n    stablehlo.return %s : tensor<{t}>\n  }})"
    );
    // Replicas or partitions, whichever are more, for the ops whose groups name one of them.
    let (line, line_attrs) = if grid.replicas >= grid.partitions {
        (grid.replicas, String::new())
    } else {
        (grid.partitions, format!(", {CHANNEL}"))
    };
    let line_divisors: Vec<u32> = (1..=line).filter(|&g| line.is_multiple_of(g)).collect();
    let op = *rng.pick(&[
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "all_to_all",
        "collective_permute",
        "collective_broadcast",
        "collective_reduce",
    ]);
    // Group size k: the operand's dimension 0 is 2k, so every split works.
    let (k, group_attrs) = match op {
        "all_reduce" | "all_gather" | "reduce_scatter" => {
            let g = *rng.pick(&divisors);
            if rng.below(3) == 0 && grid.partitions == 1 {
                let g = *rng.pick(&line_divisors);
                (
                    line / g,
                    format!("replica_groups = {}", groups(rng, line, g)),
                )
            } else {
                (
                    n / g,
                    format!(
                        "replica_groups = {}, {CHANNEL}, use_global_device_ids",
                        groups(rng, n, g)
                    ),
                )
            }
        }
        _ => {
            let g = *rng.pick(&line_divisors);
            (
                line / g,
                format!("replica_groups = {}{line_attrs}", groups(rng, line, g)),
            )
        }
    };
    let rows = 2 * k as i64;
    let operand = TensorType::new(vec![rows, 3], d);
    let (collective, result) = match op {
        "all_reduce" => (
            format!("\"stablehlo.all_reduce\"(%y) {region} {{{group_attrs}}}"),
            operand.clone(),
        ),
        "all_gather" => (
            format!("\"stablehlo.all_gather\"(%y) {{all_gather_dim = 1 : i64, {group_attrs}}}"),
            TensorType::new(vec![rows, 3 * k as i64], d),
        ),
        "reduce_scatter" => (
            format!(
                "\"stablehlo.reduce_scatter\"(%y) {region} {{scatter_dimension = 0 : i64, \
                 {group_attrs}}}"
            ),
            TensorType::new(vec![2, 3], d),
        ),
        "all_to_all" => (
            format!(
                "\"stablehlo.all_to_all\"(%y) {{split_dimension = 0 : i64, concat_dimension = \
                 1 : i64, split_count = {k} : i64, {group_attrs}}}"
            ),
            TensorType::new(vec![2, 3 * k as i64], d),
        ),
        "collective_permute" => {
            let mut targets: Vec<u32> = (0..line).collect();
            for i in (1..targets.len()).rev() {
                targets.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let pairs: Vec<String> = (0..line)
                .filter(|_| rng.below(4) != 0)
                .map(|s| format!("[{s}, {}]", targets[s as usize]))
                .collect();
            let m = pairs.len();
            let pairs = if m == 0 {
                "dense<> : tensor<0x2xi64>".to_string()
            } else {
                format!("dense<[{}]> : tensor<{m}x2xi64>", pairs.join(", "))
            };
            (
                format!(
                    "\"stablehlo.collective_permute\"(%y) {{source_target_pairs = \
                     {pairs}{line_attrs}}}"
                ),
                operand.clone(),
            )
        }
        "collective_reduce" => (
            format!("\"stablehlo.collective_reduce\"(%y) {region} {{{group_attrs}}}"),
            operand.clone(),
        ),
        _ => (
            format!("\"stablehlo.collective_broadcast\"(%y) {{{group_attrs}}}"),
            operand.clone(),
        ),
    };
    let scale = if float { "multiply" } else { "add" };
    let text = format!(
        "module attributes {{mhlo.num_replicas = {r} : i32, mhlo.num_partitions = {p} : i32}} {{
func.func @main(%x: {operand}) -> {result} {{
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %np = stablehlo.constant dense<{p}> : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %a = stablehlo.multiply %r, %np : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %c = stablehlo.add %b, %one : tensor<ui32>
  %e = stablehlo.convert %c : (tensor<ui32>) -> tensor<{t}>
  %f = stablehlo.broadcast_in_dim %e, dims = [] : (tensor<{t}>) -> {operand}
  %y = stablehlo.{scale} %x, %f : {operand}
  %z = {collective} : ({operand}) -> {result}
  %w = stablehlo.subtract %z, %x2 : {result}
  return %w : {result}
}}
}}",
        r = grid.replicas,
        p = grid.partitions,
    );
    // `%x2`: the collective's result minus something computed locally, of the result's shape.
    let text = text.replace(
        "  %w = stablehlo.subtract %z, %x2",
        &format!(
            "  %h = stablehlo.broadcast_in_dim %e, dims = [] : (tensor<{t}>) -> {result}\n  %w = \
             stablehlo.subtract %z, %h"
        ),
    );
    (text, operand)
}

#[test]
fn random_spmd_programs_compiled_equal_the_interpreter() {
    let mut rng = Rng::new(0x5eed_c011);
    let grids = [
        ProcessGrid::new(2, 1),
        ProcessGrid::new(1, 2),
        ProcessGrid::new(4, 1),
        ProcessGrid::new(2, 2),
        ProcessGrid::new(1, 4),
        ProcessGrid::new(8, 1),
        ProcessGrid::new(2, 4),
    ];
    let dtypes = [
        DType::F32,
        DType::BF16,
        DType::F16,
        DType::F64,
        DType::I32,
        DType::I8,
        DType::U16,
    ];
    for case in 0..60 {
        let grid = grids[case % grids.len()];
        let d = dtypes[(case / grids.len() + case) % dtypes.len()];
        let (text, operand) = random_program(&mut rng, grid, d);
        let module = systolic_ir::text::parse_module(&text, "random")
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        systolic_ir::verify::verify_module(&module).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let args: Vec<Vec<Tensor>> = (0..grid.len())
            .map(|_| vec![random::tensor(&mut rng, &operand)])
            .collect();
        let entries = vec!["main".to_string(); grid.len()];
        if let Some(e) = compare(
            &module,
            grid,
            &entries,
            args,
            &format!("case {case}:\n{text}"),
        ) {
            panic!("case {case}: the interpreter fails: {e}\n{text}");
        }
    }
}

/// Runs `f` on its own thread and fails the test if it takes longer than 20 s (a hang).
fn within_time<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the SPMD execution ended within 20 s")
}

const SUM_2X: &str = r#"
func.func @two(%x: tensor<2xf32>) -> tensor<2xf32> {
  %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}
func.func @three(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}
func.func @none(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
"#;

#[test]
fn mismatched_shapes_between_processes_end_in_an_error_naming_the_op() {
    let module = systolic_ir::text::parse_module(SUM_2X, "test").unwrap();
    let grid = ProcessGrid::new(2, 1);
    let exe = compile_mpmd(&module, grid, &["two".into(), "three".into()], &options()).unwrap();
    let start = Instant::now();
    let err = within_time(move || {
        exe.execute(vec![
            vec![CpuBuffer::from_f32(vec![2], vec![1.0, 2.0])],
            vec![CpuBuffer::from_f32(vec![3], vec![1.0, 2.0, 3.0])],
        ])
        .unwrap_err()
    });
    let text = err.to_string();
    assert_eq!(err.op.as_deref(), Some("stablehlo.all_reduce"), "{text}");
    assert!(text.contains("disagree"), "{text}");
    assert!(text.contains("(0, 0)") && text.contains("(1, 0)"), "{text}");
    assert!(text.contains("tensor<3xf32>"), "{text}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_process_that_never_reaches_the_collective_fails_its_partner() {
    let module = systolic_ir::text::parse_module(SUM_2X, "test").unwrap();
    let grid = ProcessGrid::new(2, 1);
    let exe = compile_mpmd(&module, grid, &["two".into(), "none".into()], &options()).unwrap();
    let err = within_time(move || {
        exe.execute(vec![
            vec![CpuBuffer::from_f32(vec![2], vec![1.0, 2.0])],
            vec![CpuBuffer::from_f32(vec![2], vec![1.0, 2.0])],
        ])
        .unwrap_err()
    });
    let text = err.to_string();
    assert!(text.contains("stablehlo.all_reduce"), "{text}");
    assert!(
        text.contains("(1, 0) finished its program without reaching this collective"),
        "{text}"
    );
}

#[test]
fn executions_repeat_and_run_concurrently_without_mixing() {
    let text = SUM_2X.replace("@two", "@main");
    let module = systolic_ir::text::parse_module(&text, "test").unwrap();
    let exe = compile_spmd(&module, ProcessGrid::new(2, 1), &options()).unwrap();
    let run = |k: f32| {
        exe.execute(vec![
            vec![CpuBuffer::from_f32(vec![2], vec![k, 1.0])],
            vec![CpuBuffer::from_f32(vec![2], vec![k, 2.0])],
        ])
        .unwrap()
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let run = &run;
                s.spawn(move || {
                    for i in 0..20 {
                        let k = (t * 100 + i) as f32;
                        let out = run(k);
                        for p in &out {
                            assert_eq!(p[0].as_f32().unwrap(), &[2.0 * k, 3.0]);
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
    // Wrong argument counts and types are errors before anything runs.
    assert!(exe.execute(vec![vec![]]).is_err());
    let err = exe
        .execute(vec![
            vec![CpuBuffer::from_f32(vec![3], vec![0.0; 3])],
            vec![CpuBuffer::from_f32(vec![2], vec![0.0; 2])],
        ])
        .unwrap_err();
    assert!(err.to_string().contains("process (0, 0)"), "{err}");
}

#[test]
fn a_module_for_another_grid_is_refused() {
    let module = systolic_ir::text::parse_module(
        "module attributes {mhlo.num_partitions = 4 : i32} {
           func.func @main(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }
         }",
        "test",
    )
    .unwrap();
    let err = compile_spmd(&module, ProcessGrid::new(1, 2), &options()).unwrap_err();
    assert!(err.to_string().contains("mhlo.num_partitions"), "{err}");
    assert!(compile_spmd(&module, ProcessGrid::new(1, 4), &options()).is_ok());
}

/// One collective on large operands (above the cooperative all-reduce's threshold, sizes that
/// do not divide by the group) on `grid`: `text` with `{op}` replaced.
fn large_program(grid: ProcessGrid, body: &str, params: &str, results: &str) -> Module {
    let text = format!(
        "module attributes {{mhlo.num_replicas = {} : i32, mhlo.num_partitions = {} : i32}} {{
func.func @main({params}) -> ({results}) {{
{body}
}}
}}",
        grid.replicas, grid.partitions
    );
    systolic_ir::text::parse_module(&text, "large").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const ADD_F32: &str = r#"({
    ^bb0(%u: tensor<f32>, %v: tensor<f32>):
      %s = stablehlo.add %u, %v : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })"#;

#[test]
fn large_collectives_equal_the_interpreter_bit_for_bit_wherever_kernels_run() {
    let mut rng = Rng::new(0x1a56e);
    let grid = ProcessGrid::new(1, 8);
    let all = "replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, \
               channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, \
               use_global_device_ids";
    // Two groups of four, not in id order: folds follow the group's order.
    let halves = "replica_groups = dense<[[6, 1, 3, 4], [0, 7, 5, 2]]> : tensor<2x4xi64>, \
                  channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, \
                  use_global_device_ids";
    let cases: Vec<(String, Vec<TensorType>, String)> = vec![
        // Variadic all-reduce, one operand 9×1031, one 4099 long (slices of uneven sizes).
        (
            format!(
                "  %r:2 = \"stablehlo.all_reduce\"(%x, %y) {ADD_F32} {{{all}}} : \
                 (tensor<9x1031xf32>, tensor<4099xf32>) -> (tensor<9x1031xf32>, tensor<4099xf32>)\n  \
                 return %r#0, %r#1 : tensor<9x1031xf32>, tensor<4099xf32>"
            ),
            vec![
                TensorType::new(vec![9, 1031], DType::F32),
                TensorType::new(vec![4099], DType::F32),
            ],
            "tensor<9x1031xf32>, tensor<4099xf32>".into(),
        ),
        (
            format!(
                "  %r = \"stablehlo.all_reduce\"(%x) {ADD_F32} {{{halves}}} : \
                 (tensor<3x5001xf32>) -> tensor<3x5001xf32>\n  return %r : tensor<3x5001xf32>"
            ),
            vec![TensorType::new(vec![3, 5001], DType::F32)],
            "tensor<3x5001xf32>".into(),
        ),
        // Reduce-scatter along an inner dimension: each part is 3 runs of 700 × 5.
        (
            format!(
                "  %r = \"stablehlo.reduce_scatter\"(%x) {ADD_F32} {{scatter_dimension = 1 : i64, \
                 {all}}} : (tensor<3x5600x5xf32>) -> tensor<3x700x5xf32>\n  \
                 return %r : tensor<3x700x5xf32>"
            ),
            vec![TensorType::new(vec![3, 5600, 5], DType::F32)],
            "tensor<3x700x5xf32>".into(),
        ),
        (
            format!(
                "  %r = \"stablehlo.all_gather\"(%x) {{all_gather_dim = 1 : i64, {halves}}} : \
                 (tensor<5x2000xf32>) -> tensor<5x8000xf32>\n  return %r : tensor<5x8000xf32>"
            ),
            vec![TensorType::new(vec![5, 2000], DType::F32)],
            "tensor<5x8000xf32>".into(),
        ),
        (
            format!(
                "  %r = \"stablehlo.all_to_all\"(%x) {{split_dimension = 0 : i64, \
                 concat_dimension = 1 : i64, split_count = 8 : i64, {all}}} : \
                 (tensor<64x900xf32>) -> tensor<8x7200xf32>\n  return %r : tensor<8x7200xf32>"
            ),
            vec![TensorType::new(vec![64, 900], DType::F32)],
            "tensor<8x7200xf32>".into(),
        ),
        (
            "  %r = \"stablehlo.collective_permute\"(%x) {source_target_pairs = \
             dense<[[0, 3], [3, 5], [5, 0], [7, 6]]> : tensor<4x2xi64>, channel_handle = \
             #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<7000xf32>) -> \
             tensor<7000xf32>\n  return %r : tensor<7000xf32>"
                .to_string(),
            vec![TensorType::new(vec![7000], DType::F32)],
            "tensor<7000xf32>".into(),
        ),
        (
            format!(
                "  %r = \"stablehlo.collective_broadcast\"(%x) {{{halves}}} : \
                 (tensor<7000xf32>) -> tensor<7000xf32>\n  return %r : tensor<7000xf32>"
            ),
            vec![TensorType::new(vec![7000], DType::F32)],
            "tensor<7000xf32>".into(),
        ),
    ];
    for (i, (body, operands, results)) in cases.iter().enumerate() {
        let params: Vec<String> = operands
            .iter()
            .zip(["%x", "%y"])
            .map(|(t, n)| format!("{n}: {t}"))
            .collect();
        let module = large_program(grid, body, &params.join(", "), results);
        let entries = vec!["main".to_string(); grid.len()];
        for kernels in [KernelThreads::Process, KernelThreads::Pool] {
            // Values of many magnitudes: a fold in another order would change the bits.
            let args: Vec<Vec<Tensor>> = (0..grid.len())
                .map(|p| {
                    operands
                        .iter()
                        .map(|t| {
                            let scale = 10f32.powi(p as i32 % 5 - 2);
                            let n = t.num_elements();
                            let v = (0..n)
                                .map(|_| (rng.below(2001) as f32 - 1000.0) * scale / 7.0)
                                .collect();
                            Tensor::from_f32(t.shape.clone(), v)
                        })
                        .collect()
                })
                .collect();
            let what = format!("case {i} ({kernels:?}):\n{body}");
            if let Some(e) = compare_with(&module, grid, &entries, args, &what, Some(kernels)) {
                panic!("{what}: the interpreter fails: {e}");
            }
        }
    }
}

/// Three processes: a broadcast from a root each chooses at run time, then an all-reduce.
const ROOT_THEN_SUM: &str = r#"
module attributes {mhlo.num_replicas = 3 : i32} {
func.func @main(%x: tensor<5000xf32>, %root: tensor<1xi32>) -> tensor<5000xf32> {
  %b = "stablehlo.collective_broadcast"(%x, %root) {
    replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>,
    has_dynamic_root
  } : (tensor<5000xf32>, tensor<1xi32>) -> tensor<5000xf32>
  %s = "stablehlo.all_reduce"(%b) ({
    ^bb0(%u: tensor<f32>, %v: tensor<f32>):
      %t = stablehlo.add %u, %v : tensor<f32>
      stablehlo.return %t : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<5000xf32>) -> tensor<5000xf32>
  return %s : tensor<5000xf32>
}
}
"#;

#[test]
fn a_failing_process_fails_every_member_and_the_executable_runs_again() {
    let module = systolic_ir::text::parse_module(ROOT_THEN_SUM, "test").unwrap();
    let args = |bad: i64| -> Vec<Vec<CpuBuffer>> {
        (0..3)
            .map(|p| {
                let root = if p == 1 { bad } else { 2 };
                vec![
                    CpuBuffer::from_f32(vec![5000], vec![p as f32 + 1.0; 5000]),
                    CpuBuffer::from_tensor(
                        &Tensor::from_i64(vec![1], DType::I32, vec![root]).unwrap(),
                    ),
                ]
            })
            .collect()
    };
    for kernels in [KernelThreads::Process, KernelThreads::Pool] {
        let exe = std::sync::Arc::new(
            compile_spmd(&module, ProcessGrid::new(3, 1), &options())
                .unwrap()
                .with_kernel_threads(kernels),
        );
        let shared = std::sync::Arc::clone(&exe);
        let bad = args(7);
        let err = within_time(move || shared.execute(bad).unwrap_err());
        let text = err.to_string();
        // Process 1 fails at the broadcast; 0 and 2 then wait for it at the all-reduce.
        assert!(
            text.contains("3 of 3 processes failed"),
            "{kernels:?}: {text}"
        );
        assert!(text.contains("root 7 of result 0"), "{kernels:?}: {text}");
        assert!(
            text.contains("(1, 0) failed before reaching this collective"),
            "{kernels:?}: {text}"
        );
        // The same executable (and its threads) runs the next call normally.
        let good = exe.execute(args(2)).unwrap();
        for out in &good {
            assert_eq!(out[0].as_f32().unwrap(), &[9.0; 5000][..]);
        }
    }
}

#[test]
fn large_executions_repeat_and_run_concurrently_without_mixing() {
    let module = large_program(
        ProcessGrid::new(4, 1),
        &format!(
            "  %r = \"stablehlo.all_reduce\"(%x) {ADD_F32} {{replica_groups = \
             dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}} : (tensor<20000xf32>) -> \
             tensor<20000xf32>\n  return %r : tensor<20000xf32>"
        ),
        "%x: tensor<20000xf32>",
        "tensor<20000xf32>",
    );
    for kernels in [KernelThreads::Process, KernelThreads::Pool] {
        let exe = compile_spmd(&module, ProcessGrid::new(4, 1), &options())
            .unwrap()
            .with_kernel_threads(kernels);
        std::thread::scope(|s| {
            for t in 0..3 {
                let exe = &exe;
                s.spawn(move || {
                    for i in 0..6 {
                        let k = (t * 10 + i) as f32;
                        let args: Vec<Vec<CpuBuffer>> = (0..4)
                            .map(|p| {
                                let v = (0..20000).map(|j| k + (p * j % 7) as f32).collect();
                                vec![CpuBuffer::from_f32(vec![20000], v)]
                            })
                            .collect();
                        let want: Vec<f32> = (0..20000)
                            .map(|j| (0..4).map(|p| k + (p * j % 7) as f32).sum())
                            .collect();
                        for out in exe.execute_borrowed(&args).unwrap() {
                            assert_eq!(out[0].as_f32().unwrap(), &want[..], "{kernels:?}");
                        }
                    }
                });
            }
        });
    }
}
