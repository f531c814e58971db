//! The collectives' and pvary's rules on real multi-process runs: per-device programs of a
//! 2 × 4 mesh (8 partitions, device `4a + b`; groups over the `b` axis, the `a` axis or both)
//! run on `systolic_interp::run_programs` (and compiled with `compile_spmd`). Forward mode is
//! checked against central differences of the SPMD program, reverse mode by the dot-product
//! test ⟨x̄, ẋ⟩ = ⟨ȳ, ẏ⟩ summed over devices, under JAX's `check_vma` convention: a value
//! invariant over a group (a psum's result, a pvary's operand) has the same tangent and
//! cotangent on each device of the group and is counted once per group.

use crate::pairing::{dot, shifted};
use systolic_cpu::{compile_spmd, CompileOptions, CpuBuffer};
use systolic_interp::{run_programs, Value};
use systolic_ir::text::parse_module;
use systolic_ir::walk::walk_ops;
use systolic_ir::{DType, Func, Module, OpKind, ProcessGrid, Tensor, Type};

const DEVICES: usize = 8;
/// Groups over the mesh's `b` axis (size 4).
const B: &[&[usize]] = &[&[0, 1, 2, 3], &[4, 5, 6, 7]];
/// Groups over both axes.
const AB: &[&[usize]] = &[&[0, 1, 2, 3, 4, 5, 6, 7]];

/// How a parameter or result varies over the devices.
#[derive(Clone, Copy)]
enum Var {
    /// May differ on every device.
    Varying,
    /// The same on every device of each of these groups.
    Invariant(&'static [&'static [usize]]),
}

impl Var {
    /// The device whose value `device` shares, and the group's size.
    fn of(self, device: usize) -> (usize, usize) {
        match self {
            Var::Varying => (device, 1),
            Var::Invariant(groups) => {
                let g = groups.iter().find(|g| g.contains(&device)).unwrap();
                (*g.iter().min().unwrap(), g.len())
            }
        }
    }
}

/// `replica_groups = …, channel_handle = …, use_global_device_ids`, as JAX's shard_map writes
/// a collective over `groups` (flattened ids).
fn over(groups: &[&[usize]], channel: i64) -> String {
    let rows: Vec<String> = groups
        .iter()
        .map(|g| {
            let ids: Vec<String> = g.iter().map(ToString::to_string).collect();
            format!("[{}]", ids.join(", "))
        })
        .collect();
    format!(
        "replica_groups = dense<[{}]> : tensor<{}x{}xi64>, \
         channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>, \
         use_global_device_ids",
        rows.join(", "),
        groups.len(),
        groups[0].len()
    )
}

/// A sum region over f64 scalars.
const SUM: &str =
    "({\n  ^bb0(%lhs: tensor<f64>, %rhs: tensor<f64>):\n    %sum = stablehlo.add %lhs, \
                   %rhs : tensor<f64>\n    stablehlo.return %sum : tensor<f64>\n  })";

fn module(body: &str) -> Module {
    let text = format!(
        "module @spmd attributes {{mhlo.num_partitions = {DEVICES} : i32, \
         mhlo.num_replicas = 1 : i32}} {{\n{body}\n}}"
    );
    parse_module(&text, "collective").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `func` alone in a module with `m`'s attributes.
fn with(m: &Module, func: Func) -> Module {
    Module {
        funcs: vec![func],
        ..m.clone()
    }
}

/// Runs `func` on every device.
fn run(m: &Module, func: &Func, args: &[Vec<Tensor>]) -> Vec<Vec<Tensor>> {
    let m = with(m, func.clone());
    let programs = vec![vec![func.name.clone(); DEVICES]];
    let args = args
        .iter()
        .map(|a| a.iter().cloned().map(Value::Tensor).collect())
        .collect();
    run_programs(&m, &programs, args)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|r| r.into_iter().map(|v| v.into_tensor().unwrap()).collect())
        .collect()
}

/// The same, compiled for the CPU.
fn run_compiled(m: &Module, func: &Func, args: &[Vec<Tensor>]) -> Vec<Vec<Tensor>> {
    let m = with(m, func.clone());
    let options = CompileOptions {
        entry: func.name.clone(),
        verify_each: true,
        ..CompileOptions::default()
    };
    let exe = compile_spmd(&m, ProcessGrid::new(1, DEVICES as u32), &options).unwrap();
    // The pvary marker is erased, not run on the interpreter fallback.
    for p in exe.processes() {
        let custom = p
            .fallback_ops()
            .iter()
            .find(|f| f.op == "stablehlo.custom_call");
        assert!(custom.is_none(), "{custom:?}");
    }
    let buffers = args
        .iter()
        .map(|a| a.iter().map(CpuBuffer::from_tensor).collect())
        .collect();
    exe.execute(buffers)
        .unwrap()
        .into_iter()
        .map(|r| r.iter().map(CpuBuffer::to_tensor).collect())
        .collect()
}

/// A deterministic pseudo-random f64 tensor in [-1, 1).
fn rand(shape: &[i64], seed: u64) -> Tensor {
    let n: i64 = shape.iter().product();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d;
    let v = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect();
    Tensor::from_f64(shape.to_vec(), DType::F64, v).unwrap()
}

/// One value per device for each of `types`, varying as `vars` say; `seed` picks the draw.
fn draw(types: &[Type], vars: &[Var], seed: u64) -> Vec<Vec<Tensor>> {
    (0..DEVICES)
        .map(|d| {
            types
                .iter()
                .zip(vars)
                .enumerate()
                .map(|(i, (t, v))| {
                    let Type::Tensor(t) = t else { panic!("{t}") };
                    let (rep, _) = v.of(d);
                    rand(&t.shape, seed * 1000 + i as u64 * 100 + rep as u64)
                })
                .collect()
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Every channel handle of the collectives of `f`, which must be distinct.
fn assert_unique_channels(f: &Func, what: &str) {
    let mut handles = vec![];
    walk_ops(&f.body, &mut |op, _| {
        let h = match &op.kind {
            OpKind::AllGather { collective, .. }
            | OpKind::AllReduce { collective }
            | OpKind::ReduceScatter { collective, .. }
            | OpKind::AllToAll { collective, .. }
            | OpKind::CollectiveBroadcast { collective } => collective.channel_handle,
            OpKind::CollectivePermute { channel_handle, .. } => *channel_handle,
            _ => None,
        };
        handles.extend(h.map(|h| h.handle));
    });
    let mut sorted = handles.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        handles.len(),
        "{what}: channel handles {handles:?}"
    );
}

/// The checks of one per-device program `@main`: forward mode against central differences on
/// every device, reverse mode against forward mode by the dot-product test. Returns the
/// module and its forward- and reverse-mode functions for further checks.
fn check(body: &str, ins: &[Var], outs: &[Var]) -> (Module, Func, Func) {
    let m = module(body);
    let f = m.funcs[0].clone();
    let params = f.param_types();
    assert_eq!(params.len(), ins.len());
    assert_eq!(f.result_types.len(), outs.len());
    let x = draw(&params, ins, 1);
    let xdot = draw(&params, ins, 2);
    let ybar = draw(&f.result_types, outs, 3);

    // Forward mode against central differences of the whole SPMD program.
    let jf = systolic_autodiff::jvp(&f).unwrap();
    assert_unique_channels(&jf, "jvp");
    let jargs: Vec<Vec<Tensor>> = (0..DEVICES)
        .map(|d| [x[d].clone(), xdot[d].clone()].concat())
        .collect();
    let jout = run(&m, &jf, &jargs);
    let primal = run(&m, &f, &x);
    let eps = 1e-6;
    let at = |e: f64| -> Vec<Vec<Tensor>> {
        (0..DEVICES)
            .map(|d| {
                x[d].iter()
                    .zip(&xdot[d])
                    .map(|(a, t)| shifted(a, t, e))
                    .collect()
            })
            .collect()
    };
    let plus = run(&m, &f, &at(eps));
    let minus = run(&m, &f, &at(-eps));
    let n = outs.len();
    for d in 0..DEVICES {
        for k in 0..n {
            assert_eq!(
                jout[d][k], primal[d][k],
                "jvp primal result {k} on device {d}"
            );
            let got = jout[d][n + k].to_f64_vec();
            let (p, q) = (plus[d][k].to_f64_vec(), minus[d][k].to_f64_vec());
            for (i, g) in got.iter().enumerate() {
                let want = (p[i] - q[i]) / (2.0 * eps);
                assert!(
                    close(*g, want, 1e-6),
                    "tangent {k}[{i}] on device {d}: jvp {g}, central difference {want}"
                );
            }
        }
    }

    // Reverse mode: Σ_devices ⟨x̄, ẋ⟩ = Σ_devices ⟨ȳ, ẏ⟩, an invariant value counted once.
    let wrt: Vec<usize> = (0..ins.len()).collect();
    let vf = systolic_autodiff::vjp(&f, &wrt).unwrap();
    assert_unique_channels(&vf, "vjp");
    let vargs: Vec<Vec<Tensor>> = (0..DEVICES)
        .map(|d| [x[d].clone(), ybar[d].clone()].concat())
        .collect();
    let vout = run(&m, &vf, &vargs);
    let (mut lhs, mut rhs) = (0.0, 0.0);
    for d in 0..DEVICES {
        for (i, v) in ins.iter().enumerate() {
            let (rep, size) = v.of(d);
            let xbar = &vout[d][n + i];
            // The cotangent of an invariant value is invariant too.
            assert_eq!(
                xbar,
                &vout[rep][n + i],
                "x̄{i} differs on devices {d} and {rep}"
            );
            lhs += dot(xbar, &xdot[d][i]) / size as f64;
        }
        for (k, v) in outs.iter().enumerate() {
            let (rep, size) = v.of(d);
            assert_eq!(
                primal[d][k], primal[rep][k],
                "result {k} is not invariant on devices {d} and {rep}"
            );
            rhs += dot(&ybar[d][k], &jout[d][n + k]) / size as f64;
        }
    }
    assert!(close(lhs, rhs, 1e-10), "⟨x̄, ẋ⟩ = {lhs}, ⟨ȳ, ẏ⟩ = {rhs}");
    assert!(lhs.abs() > 1e-3, "a vacuous dot-product test ({lhs})");
    (m, jf, vf)
}

/// psum over the `b` axis of a nonlinear value, pvary of a parameter invariant over the whole
/// mesh, and a psum over the whole mesh of the product.
fn psum_pvary_body() -> String {
    format!(
        r#"func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {{
  %s = stablehlo.sine %x : tensor<4xf64>
  %p = "stablehlo.all_reduce"(%s) {SUM} {{{b}}} : (tensor<4xf64>) -> tensor<4xf64>
  %q = stablehlo.multiply %p, %p : tensor<4xf64>
  %v = stablehlo.custom_call @systolic.pvary(%w) {{api_version = 4 : i32, backend_config = {{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids = true}}}} : (tensor<4xf64>) -> tensor<4xf64>
  %h = stablehlo.multiply %v, %x : tensor<4xf64>
  %e = stablehlo.exponential %h : tensor<4xf64>
  %m = "stablehlo.all_reduce"(%e) {SUM} {{{ab}}} : (tensor<4xf64>) -> tensor<4xf64>
  return %q, %m : tensor<4xf64>, tensor<4xf64>
}}"#,
        b = over(B, 1),
        ab = over(AB, 2),
    )
}

#[test]
fn psum_and_pvary_match_differences_and_transpose_under_the_vma_convention() {
    let ins = [Var::Varying, Var::Invariant(AB)];
    let outs = [Var::Invariant(B), Var::Invariant(AB)];
    let (_, jf, vf) = check(&psum_pvary_body(), &ins, &outs);
    let count = |f: &Func, pred: &dyn Fn(&OpKind) -> bool| {
        let mut n = 0;
        walk_ops(&f.body, &mut |op, _| n += usize::from(pred(&op.kind)));
        n
    };
    let all_reduce = |k: &OpKind| matches!(k, OpKind::AllReduce { .. });
    // Forward mode: each psum's tangent is a psum, pvary's a pvary.
    assert_eq!(count(&jf, &all_reduce), 4);
    assert_eq!(count(&jf, &|k| systolic_ir::pvary::is_pvary(k)), 2);
    // Reverse mode: the psums transpose to nothing, the pvary to one psum.
    assert_eq!(count(&vf, &all_reduce), 3);
}

#[test]
fn compiled_spmd_runs_of_the_derivatives_equal_the_interpreter() {
    let ins = [Var::Varying, Var::Invariant(AB)];
    let outs = [Var::Invariant(B), Var::Invariant(AB)];
    let (m, jf, vf) = check(&psum_pvary_body(), &ins, &outs);
    let f = m.funcs[0].clone();
    for (g, vars) in [
        (&f, ins.to_vec()),
        (&jf, [ins, ins].concat()),
        (&vf, [ins.as_slice(), &outs].concat()),
    ] {
        let args = draw(&g.param_types(), &vars, 7);
        let want = run(&m, g, &args);
        let got = run_compiled(&m, g, &args);
        for d in 0..DEVICES {
            for (k, (w, c)) in want[d].iter().zip(&got[d]).enumerate() {
                for (a, b) in w.to_f64_vec().iter().zip(c.to_f64_vec()) {
                    assert!(close(*a, b, 1e-12), "result {k} on device {d}: {a} vs {b}");
                }
            }
        }
    }
}

#[test]
fn gather_scatter_all_to_all_and_permute() {
    let a = &[&[0usize, 4][..], &[1, 5], &[2, 6], &[3, 7]];
    let body = format!(
        r#"func.func @main(%x: tensor<8x2xf64>, %y: tensor<2x3xf64>) -> (tensor<2x2xf64>, tensor<4x4xf64>, tensor<8x2xf64>, tensor<4x3xf64>) {{
  %xx = stablehlo.multiply %x, %x : tensor<8x2xf64>
  %r = "stablehlo.reduce_scatter"(%xx) {SUM} {{scatter_dimension = 0 : i64, {b}}} : (tensor<8x2xf64>) -> tensor<2x2xf64>
  %s = stablehlo.sine %x : tensor<8x2xf64>
  %t = "stablehlo.all_to_all"(%s) {{split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}} : (tensor<8x2xf64>) -> tensor<4x4xf64>
  %e = stablehlo.exponential %x : tensor<8x2xf64>
  %c = "stablehlo.collective_permute"(%e) {{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 6], [6, 4]]> : tensor<6x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}} : (tensor<8x2xf64>) -> tensor<8x2xf64>
  %ce = stablehlo.multiply %c, %e : tensor<8x2xf64>
  %yy = stablehlo.tanh %y : tensor<2x3xf64>
  %g = "stablehlo.all_gather"(%yy) {{all_gather_dim = 0 : i64, {a}}} : (tensor<2x3xf64>) -> tensor<4x3xf64>
  %g2 = stablehlo.multiply %g, %g : tensor<4x3xf64>
  return %r, %t, %ce, %g2 : tensor<2x2xf64>, tensor<4x4xf64>, tensor<8x2xf64>, tensor<4x3xf64>
}}"#,
        b = over(B, 1),
        a = over(a, 4),
    );
    check(&body, &[Var::Varying, Var::Varying], &[Var::Varying; 4]);
}

#[test]
fn collective_broadcast_sends_the_group_sum_back_to_its_root() {
    // Roots 2 and 5 (the first of each group); the groups name partitions (a channel).
    let body = r#"func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = stablehlo.sine %x : tensor<3xf64>
  %b = "stablehlo.collective_broadcast"(%s) {replica_groups = dense<[[2, 0, 1, 3], [5, 4, 7, 6]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<3xf64>) -> tensor<3xf64>
  %m = stablehlo.multiply %b, %x : tensor<3xf64>
  return %m : tensor<3xf64>
}"#;
    check(body, &[Var::Varying], &[Var::Varying]);
}

#[test]
fn a_broadcast_with_dynamic_roots_transposes_to_each_results_root() {
    // Result 0 from the group's member 1, result 1 from member 3.
    let body = r#"func.func @main(%x: tensor<3xf64>, %y: tensor<2xf64>) -> (tensor<3xf64>, tensor<2xf64>) {
  %root = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  %s = stablehlo.sine %x : tensor<3xf64>
  %r:2 = "stablehlo.collective_broadcast"(%s, %y, %root) {replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, has_dynamic_root} : (tensor<3xf64>, tensor<2xf64>, tensor<2xi32>) -> (tensor<3xf64>, tensor<2xf64>)
  %m = stablehlo.multiply %r#0, %x : tensor<3xf64>
  %n = stablehlo.multiply %r#1, %r#1 : tensor<2xf64>
  return %m, %n : tensor<3xf64>, tensor<2xf64>
}"#;
    check(
        body,
        &[Var::Varying, Var::Varying],
        &[Var::Varying, Var::Varying],
    );
}

#[test]
fn max_reductions_are_not_differentiable_as_in_jax() {
    let body = r#"func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %s = stablehlo.maximum %a, %b : tensor<f64>
      stablehlo.return %s : tensor<f64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}"#;
    let m = module(body);
    for err in [
        systolic_autodiff::jvp(&m.funcs[0]).unwrap_err(),
        systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap_err(),
    ] {
        assert!(
            err.message.contains("stablehlo.all_reduce") && err.message.contains("maximum"),
            "{err}"
        );
    }
}

#[test]
fn a_broadcast_without_listed_groups_is_refused_in_reverse_mode() {
    let body = r#"func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %b = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<> : tensor<0x0xi64>} : (tensor<3xf64>) -> tensor<3xf64>
  return %b : tensor<3xf64>
}"#;
    let m = module(body);
    assert!(systolic_autodiff::jvp(&m.funcs[0]).is_ok());
    let err = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap_err();
    assert!(err.message.contains("without replica_groups"), "{err}");
}
