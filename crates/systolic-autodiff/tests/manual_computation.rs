//! `sdy.manual_computation` (JAX's shard_map) differentiated in both modes, on global programs
//! over a 1D mesh of 4 and a 2 × 2 mesh whose bodies hold psums, pvarys, all_gathers and
//! collective_permutes. Each program (the original and its derivatives) is lowered to
//! per-device programs by `lower_manual_computations` and run on `systolic_interp::run_programs`
//! (and compiled with `compile_spmd`) on global arrays split and assembled by the lowered
//! entry's layouts. Forward mode is checked against central differences of the global
//! program, reverse mode by the dot-product test ⟨x̄, ẋ⟩ = ⟨ȳ, ẏ⟩ on global arrays. The
//! bodies follow JAX's `check_vma` typing: a result whose out-sharding leaves out an axis is a
//! psum over it (or computed from values invariant over it).

use crate::pairing::{dot, shifted};
use std::ops::Range;
use systolic_compiler::passes::lower_manual_computations::lower_manual_computations;
use systolic_cpu::{compile_spmd, CompileOptions, CpuBuffer};
use systolic_interp::{run_programs, Value};
use systolic_ir::text::parse_module;
use systolic_ir::walk::walk_ops;
use systolic_ir::{
    DType, Func, Module, OpKind, ProcessGrid, ShardLayout, Tensor, TensorType, Type,
};

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

/// The global array from the devices' pieces; copies must agree to `tol` (0: bit for bit).
fn assemble(pieces: &[Tensor], layout: &ShardLayout, shape: &[i64], tol: f64) -> Tensor {
    let n: usize = shape.iter().product::<i64>() as usize;
    let mut vals: Vec<Option<f64>> = vec![None; n];
    for (d, p) in pieces.iter().enumerate() {
        let ranges = layout.piece(d).unwrap();
        let pv = p.to_f64_vec();
        for (k, i) in block_indices(shape, ranges).into_iter().enumerate() {
            match vals[i] {
                None => vals[i] = Some(pv[k]),
                Some(v) => assert!(
                    (v - pv[k]).abs() <= tol * (1.0 + v.abs()),
                    "copies disagree at element {i} (device {d}): {v} vs {}",
                    pv[k]
                ),
            }
        }
    }
    let v = vals.into_iter().map(|v| v.expect("covered")).collect();
    Tensor::from_f64(shape.to_vec(), pieces[0].dtype(), v).unwrap()
}

/// `func` alone in a module with `m`'s meshes and attributes, as `@main`.
fn with(m: &Module, func: &Func) -> Module {
    let mut f = func.clone();
    f.name = "main".into();
    Module {
        funcs: vec![f],
        ..m.clone()
    }
}

/// `func` lowered to per-device programs and run on global `inputs`: on the interpreter, or
/// compiled with `compile_spmd`.
fn run(m: &Module, func: &Func, inputs: &[Tensor], compiled: bool) -> Vec<Tensor> {
    let module = with(m, func);
    let spmd = lower_manual_computations(&module, "main").unwrap_or_else(|e| panic!("{e}"));
    let n = spmd.num_devices;
    let args: Vec<Vec<Tensor>> = (0..n)
        .map(|d| {
            inputs
                .iter()
                .zip(&spmd.params)
                .map(|(x, l)| piece(x, l, d))
                .collect()
        })
        .collect();
    let results: Vec<Vec<Tensor>> = if compiled {
        let options = CompileOptions {
            entry: "main".into(),
            verify_each: true,
            ..CompileOptions::default()
        };
        let exe = compile_spmd(&spmd.module, ProcessGrid::new(1, n as u32), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let buffers = args
            .iter()
            .map(|a| a.iter().map(CpuBuffer::from_tensor).collect())
            .collect();
        exe.execute(buffers)
            .unwrap()
            .into_iter()
            .map(|r| r.iter().map(CpuBuffer::to_tensor).collect())
            .collect()
    } else {
        let programs = vec![vec!["main".to_string(); n]];
        let args = args
            .into_iter()
            .map(|a| a.into_iter().map(Value::Tensor).collect())
            .collect();
        run_programs(&spmd.module, &programs, args)
            .unwrap_or_else(|e| panic!("{e}\n{}", systolic_ir::text::print_module(&spmd.module)))
            .into_iter()
            .map(|r| r.into_iter().map(|v| v.into_tensor().unwrap()).collect())
            .collect()
    };
    (0..spmd.results.len())
        .map(|j| {
            let pieces: Vec<Tensor> = results.iter().map(|r| r[j].clone()).collect();
            let global = func.result_types[j].as_tensor().unwrap().shape.clone();
            // Compiled copies of an invariant value may differ in the last bits (sums folded
            // in another order on different devices).
            assemble(
                &pieces,
                &spmd.results[j],
                &global,
                if compiled { 1e-12 } else { 0.0 },
            )
        })
        .collect()
}

/// A deterministic pseudo-random f64 tensor in [-1, 1).
fn rand(t: &Type, seed: u64) -> Tensor {
    let Type::Tensor(t) = t else { panic!("{t}") };
    let n = t.num_elements();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d;
    let v = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect();
    Tensor::from_f64(t.shape.clone(), DType::F64, v).unwrap()
}

fn draw(types: &[Type], seed: u64) -> Vec<Tensor> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| rand(t, seed * 100 + i as u64))
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn assert_close(got: &[Tensor], want: &[Tensor], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: result count");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "{what}: result {k}");
        for (i, (a, b)) in g.to_f64_vec().iter().zip(w.to_f64_vec()).enumerate() {
            assert!(close(*a, b, tol), "{what}: result {k}[{i}]: {a} vs {b}");
        }
    }
}

/// How many manual computations `f` holds.
fn manual_computations(f: &Func) -> usize {
    let mut n = 0;
    walk_ops(&f.body, &mut |op, _| {
        n += usize::from(matches!(op.kind, OpKind::ManualComputation(_)))
    });
    n
}

/// Forward mode against central differences, reverse mode by the dot-product test, both on
/// the interpreter's per-device runs and compiled; returns the derivatives.
fn check(text: &str) -> (Module, Func, Func) {
    let m = parse_module(text, "manual").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let f = m.func("main").unwrap().clone();
    let params = f.param_types();
    let n = f.result_types.len();
    let x = draw(&params, 1);
    let xdot = draw(&params, 2);
    let ybar = draw(&f.result_types, 3);

    let jf = systolic_autodiff::jvp(&f).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(manual_computations(&jf), 1, "jvp: one manual computation");
    let jout = run(&m, &jf, &[x.clone(), xdot.clone()].concat(), false);
    let primal = run(&m, &f, &x, false);
    assert_close(&jout[..n], &primal, 0.0, "jvp primal results");
    let eps = 1e-6;
    let at =
        |e: f64| -> Vec<Tensor> { x.iter().zip(&xdot).map(|(a, t)| shifted(a, t, e)).collect() };
    let plus = run(&m, &f, &at(eps), false);
    let minus = run(&m, &f, &at(-eps), false);
    for k in 0..n {
        let got = jout[n + k].to_f64_vec();
        let (p, q) = (plus[k].to_f64_vec(), minus[k].to_f64_vec());
        for (i, g) in got.iter().enumerate() {
            let want = (p[i] - q[i]) / (2.0 * eps);
            assert!(
                close(*g, want, 1e-6),
                "tangent {k}[{i}]: jvp {g}, central difference {want}"
            );
        }
    }

    let wrt: Vec<usize> = (0..params.len()).collect();
    let vf = systolic_autodiff::vjp(&f, &wrt).unwrap_or_else(|e| panic!("{e}"));
    // The forward manual computation and the backward one.
    assert_eq!(manual_computations(&vf), 2, "vjp: forward and backward");
    let vout = run(&m, &vf, &[x.clone(), ybar.clone()].concat(), false);
    assert_close(&vout[..n], &primal, 0.0, "vjp primal results");
    let lhs: f64 = vout[n..].iter().zip(&xdot).map(|(a, b)| dot(a, b)).sum();
    let rhs: f64 = ybar.iter().zip(&jout[n..]).map(|(a, b)| dot(a, b)).sum();
    assert!(close(lhs, rhs, 1e-10), "⟨x̄, ẋ⟩ = {lhs}, ⟨ȳ, ẏ⟩ = {rhs}");
    assert!(lhs.abs() > 1e-3, "a vacuous dot-product test ({lhs})");

    // Compiled for the CPU, the same numbers.
    for (g, args) in [
        (&jf, [x.clone(), xdot.clone()].concat()),
        (&vf, [x.clone(), ybar.clone()].concat()),
    ] {
        let want = run(&m, g, &args, false);
        let got = run(&m, g, &args, true);
        assert_close(&got, &want, 1e-12, "compiled vs interpreted");
    }
    (m, jf, vf)
}

/// `replica_groups = …, channel_handle = …, use_global_device_ids` over `groups`.
fn over(groups: &str, shape: &str, channel: i64) -> String {
    format!(
        "replica_groups = dense<{groups}> : tensor<{shape}xi64>, \
         channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>, \
         use_global_device_ids"
    )
}

const SUM: &str =
    "({\n  ^bb0(%lhs: tensor<f64>, %rhs: tensor<f64>):\n    %sum = stablehlo.add %lhs, \
                   %rhs : tensor<f64>\n    stablehlo.return %sum : tensor<f64>\n  })";

fn pvary(x: &str, groups: &str, shape: &str, ty: &str) -> String {
    format!(
        "stablehlo.custom_call @systolic.pvary({x}) {{api_version = 4 : i32, backend_config = \
         {{replica_groups = dense<{groups}> : tensor<{shape}xi64>, use_global_device_ids = \
         true}}}} : ({ty}) -> {ty}"
    )
}

/// A mesh of 4 devices: rows of `x` split over "x", `w` replicated and made varying by a
/// pvary, a ring collective_permute, an all_gather feeding a psum'd reduction, and global ops
/// after the manual computation that read its results and the entry's parameters.
fn mesh_4() -> String {
    let all = "[[0, 1, 2, 3]]";
    format!(
        r#"module @m4 attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<8x3xf64>, %w: tensor<3xf64>) -> (tensor<8x3xf64>, tensor<3xf64>) {{
    %0:2 = sdy.manual_computation(%x, %w) in_shardings=[<@mesh, [{{"x"}}, {{}}]>, <@mesh, [{{}}]>] out_shardings=[<@mesh, [{{"x"}}, {{}}]>, <@mesh, [{{}}]>] manual_axes={{"x"}} (%a: tensor<2x3xf64>, %b: tensor<3xf64>) {{
      %bv = {pv}
      %bb = stablehlo.broadcast_in_dim %bv, dims = [1] : (tensor<3xf64>) -> tensor<2x3xf64>
      %m = stablehlo.multiply %a, %bb : tensor<2x3xf64>
      %s = stablehlo.sine %m : tensor<2x3xf64>
      %p = "stablehlo.collective_permute"(%s) {{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}} : (tensor<2x3xf64>) -> tensor<2x3xf64>
      %g = "stablehlo.all_gather"(%p) {{all_gather_dim = 0 : i64, {ag}}} : (tensor<2x3xf64>) -> tensor<8x3xf64>
      %g2 = stablehlo.multiply %g, %g : tensor<8x3xf64>
      %z = stablehlo.constant dense<0.0> : tensor<f64>
      %r = stablehlo.reduce(%g2 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x3xf64>, tensor<f64>) -> tensor<3xf64>
      %q = "stablehlo.all_reduce"(%r) {SUM} {{{ar}}} : (tensor<3xf64>) -> tensor<3xf64>
      %u = stablehlo.multiply %p, %a : tensor<2x3xf64>
      sdy.return %u, %q : tensor<2x3xf64>, tensor<3xf64>
    }} : (tensor<8x3xf64>, tensor<3xf64>) -> (tensor<8x3xf64>, tensor<3xf64>)
    %y = stablehlo.multiply %0#1, %w : tensor<3xf64>
    %c = stablehlo.cosine %0#0 : tensor<8x3xf64>
    return %c, %y : tensor<8x3xf64>, tensor<3xf64>
  }}
}}"#,
        pv = pvary("%b", all, "1x4", "tensor<3xf64>"),
        ag = over(all, "1x4", 2),
        ar = over(all, "1x4", 3),
    )
}

/// A 2 × 2 mesh ("a" major, "b" minor: device 2a + b): `x` split over both axes, `v` over "b"
/// only (made varying over "a" by a pvary), a psum over "b", an all_gather over "a", a
/// collective_permute within "b" and a psum over the whole mesh; results sharded over one
/// axis, both, and none.
fn mesh_2x2() -> String {
    let over_a = "[[0, 2], [1, 3]]";
    let over_b = "[[0, 1], [2, 3]]";
    format!(
        r#"module @m22 attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%x: tensor<4x4xf64>, %v: tensor<4xf64>) -> (tensor<4x2xf64>, tensor<2xf64>, tensor<4x4xf64>) {{
    %0:3 = sdy.manual_computation(%x, %v) in_shardings=[<@mesh, [{{"a"}}, {{"b"}}]>, <@mesh, [{{"b"}}]>] out_shardings=[<@mesh, [{{"a"}}, {{}}]>, <@mesh, [{{}}]>, <@mesh, [{{"a"}}, {{"b"}}]>] manual_axes={{"a", "b"}} (%xp: tensor<2x2xf64>, %vp: tensor<2xf64>) {{
      %vv = {pv}
      %vb = stablehlo.broadcast_in_dim %vv, dims = [1] : (tensor<2xf64>) -> tensor<2x2xf64>
      %m = stablehlo.multiply %xp, %vb : tensor<2x2xf64>
      %e = stablehlo.tanh %m : tensor<2x2xf64>
      %s1 = "stablehlo.all_reduce"(%e) {SUM} {{{psum_b}}} : (tensor<2x2xf64>) -> tensor<2x2xf64>
      %g = "stablehlo.all_gather"(%e) {{all_gather_dim = 1 : i64, {gather_a}}} : (tensor<2x2xf64>) -> tensor<2x4xf64>
      %p = "stablehlo.collective_permute"(%g) {{source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}} : (tensor<2x4xf64>) -> tensor<2x4xf64>
      %p2 = stablehlo.multiply %p, %g : tensor<2x4xf64>
      %z = stablehlo.constant dense<0.0> : tensor<f64>
      %r = stablehlo.reduce(%p2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf64>, tensor<f64>) -> tensor<2xf64>
      %t = "stablehlo.all_reduce"(%r) {SUM} {{{psum_ab}}} : (tensor<2xf64>) -> tensor<2xf64>
      %ee = stablehlo.multiply %e, %xp : tensor<2x2xf64>
      sdy.return %s1, %t, %ee : tensor<2x2xf64>, tensor<2xf64>, tensor<2x2xf64>
    }} : (tensor<4x4xf64>, tensor<4xf64>) -> (tensor<4x2xf64>, tensor<2xf64>, tensor<4x4xf64>)
    return %0#0, %0#1, %0#2 : tensor<4x2xf64>, tensor<2xf64>, tensor<4x4xf64>
  }}
}}"#,
        pv = pvary("%vp", over_a, "2x2", "tensor<2xf64>"),
        psum_b = over(over_b, "2x2", 1),
        gather_a = over(over_a, "2x2", 2),
        psum_ab = over("[[0, 1, 2, 3]]", "1x4", 4),
    )
}

#[test]
fn a_manual_computation_on_a_mesh_of_4_differentiates_in_both_modes() {
    let (_, _, vf) = check(&mesh_4());
    // pvary transposes to a psum in the backward body; nothing is added at the boundary.
    let mut all_reduce = 0;
    walk_ops(&vf.body, &mut |op, _| {
        all_reduce += usize::from(matches!(op.kind, OpKind::AllReduce { .. }))
    });
    // The forward body's psum and pvary's psum in the backward body (the psum's recomputation
    // there feeds only the primal result, which the backward body does not return, and goes).
    assert_eq!(all_reduce, 2);
}

#[test]
fn a_manual_computation_on_a_2x2_mesh_differentiates_in_both_modes() {
    check(&mesh_2x2());
}

#[test]
fn second_order_through_a_manual_computation() {
    // The vjp of the jvp (reverse over forward): its dot-product test against the jvp of the
    // jvp would need third programs; here it is checked against central differences of the
    // jvp's tangent output.
    let text = mesh_2x2();
    let m = parse_module(&text, "manual").unwrap();
    let f = m.func("main").unwrap().clone();
    let jf = systolic_autodiff::jvp(&f).unwrap();
    let np = jf.param_types().len();
    let nr = jf.result_types.len();
    let wrt: Vec<usize> = (0..np).collect();
    let vjf = systolic_autodiff::vjp(&jf, &wrt).unwrap_or_else(|e| panic!("{e}"));
    let x = draw(&jf.param_types(), 4);
    let xdot = draw(&jf.param_types(), 5);
    let ybar = draw(&jf.result_types, 6);
    let out = run(&m, &vjf, &[x.clone(), ybar.clone()].concat(), false);
    let eps = 1e-6;
    let at =
        |e: f64| -> Vec<Tensor> { x.iter().zip(&xdot).map(|(a, t)| shifted(a, t, e)).collect() };
    let plus = run(&m, &jf, &at(eps), false);
    let minus = run(&m, &jf, &at(-eps), false);
    let lhs: f64 = out[nr..].iter().zip(&xdot).map(|(a, b)| dot(a, b)).sum();
    let rhs: f64 = (0..nr)
        .map(|k| {
            let d: Vec<f64> = plus[k]
                .to_f64_vec()
                .iter()
                .zip(minus[k].to_f64_vec())
                .map(|(p, q)| (p - q) / (2.0 * eps))
                .collect();
            ybar[k]
                .to_f64_vec()
                .iter()
                .zip(d)
                .map(|(a, b)| a * b)
                .sum::<f64>()
        })
        .sum();
    assert!(
        close(lhs, rhs, 1e-6),
        "⟨x̄, ẋ⟩ = {lhs}, central ⟨ȳ, ẏ⟩ = {rhs}"
    );
    assert!(lhs.abs() > 1e-3, "a vacuous test ({lhs})");
}
