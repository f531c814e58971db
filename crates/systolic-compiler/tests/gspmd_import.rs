//! `import_gspmd_shardings`: JAX's GSPMD exports (`mhlo.sharding`) of jit-with-shardings
//! programs, made beside their Shardy exports by `scripts/gspmd_goldens.py`. The import must
//! put every argument and result on the devices the Shardy form puts it on (whatever the axes
//! are called), and the partitioned program must compute what the program computes whole.

use crate::common::same_bits;
use crate::spmd_partitioner_check::run_spmd;
use systolic_compiler::passes::import_gspmd::{has_gspmd_shardings, import_gspmd_shardings};
use systolic_compiler::passes::per_device_program;
use systolic_interp::{Interpreter, Value};
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::{Attribute, Module, OpKind, SdySharding, ShardLayout, Tensor, Type};

const CASES: &[(&str, &str, &str)] = &[
    (
        "matmul_2x4",
        include_str!("data/gspmd/matmul_2x4.gspmd.mlir"),
        include_str!("data/gspmd/matmul_2x4.shardy.mlir"),
    ),
    (
        "mlp_interleaved",
        include_str!("data/gspmd/mlp_interleaved.gspmd.mlir"),
        include_str!("data/gspmd/mlp_interleaved.shardy.mlir"),
    ),
    (
        "reduce_2x2x2",
        include_str!("data/gspmd/reduce_2x2x2.gspmd.mlir"),
        include_str!("data/gspmd/reduce_2x2x2.shardy.mlir"),
    ),
    (
        "softmax_1d",
        include_str!("data/gspmd/softmax_1d.gspmd.mlir"),
        include_str!("data/gspmd/softmax_1d.shardy.mlir"),
    ),
];

fn parse(name: &str, text: &str) -> Module {
    parse_module(text, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Where each device's piece of every argument and result is, by the entry's `sdy.sharding`s.
fn layouts(m: &Module) -> Vec<ShardLayout> {
    let f = m.func("main").unwrap();
    let shape = |t: &Type| match t {
        Type::Tensor(t) => t.shape.clone(),
        _ => vec![],
    };
    let types: Vec<Type> = f
        .param_types()
        .into_iter()
        .chain(f.result_types.clone())
        .collect();
    f.arg_attrs
        .iter()
        .chain(&f.result_attrs)
        .zip(&types)
        .map(|(attrs, ty)| {
            let s: &SdySharding = attrs
                .iter()
                .find_map(|a| match &a.value {
                    Attribute::SdySharding(s) => Some(s),
                    _ => None,
                })
                .expect("every argument and result is annotated");
            let mesh = m.meshes.iter().find(|x| x.name == s.mesh).unwrap();
            ShardLayout::from_sdy(s, mesh, &shape(ty)).unwrap()
        })
        .collect()
}

#[test]
fn imported_shardings_place_pieces_as_the_shardy_export_does() {
    for (name, gspmd, shardy) in CASES {
        let gspmd = parse(name, gspmd);
        assert!(has_gspmd_shardings(&gspmd, "main"), "{name}");
        let imported = import_gspmd_shardings(&gspmd, "main").unwrap_or_else(|e| panic!("{e}"));
        let text = print_module(&imported);
        assert!(!text.contains("mhlo.sharding"), "{name}: {text}");
        assert!(!text.contains("@Sharding"), "{name}: {text}");
        assert_eq!(
            layouts(&imported),
            layouts(&parse(name, shardy)),
            "{name}:\n{text}"
        );
    }
}

#[test]
fn constraints_become_sharding_constraints() {
    let (name, gspmd, _) = CASES[0];
    let imported = import_gspmd_shardings(&parse(name, gspmd), "main").unwrap();
    let mut constraints = vec![];
    systolic_ir::walk::walk_ops(&imported.func("main").unwrap().body, &mut |op, _| {
        if let OpKind::ShardingConstraint(s) = &op.kind {
            constraints.push(s.clone());
        }
    });
    assert_eq!(constraints.len(), 1);
    // `P("y", None)` on the 2x4 mesh: rows over the minor axis of four.
    let mesh = &imported.meshes[0];
    let rows = &constraints[0].dims[0].axes;
    assert_eq!(rows.len(), 1);
    assert!(mesh
        .axes
        .iter()
        .any(|(a, size)| *a == rows[0].name && *size == 4));
    assert!(constraints[0].dims[1].axes.is_empty());
}

#[test]
fn gspmd_programs_partition_and_compute_what_they_compute_whole() {
    for (name, gspmd, _) in CASES {
        let m = parse(name, gspmd);
        let spmd = per_device_program(&m, "main")
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .expect("an 8-device program");
        assert_eq!(spmd.num_devices, 8, "{name}");
        for seed in 0..2 {
            let inputs = bounded_inputs(&m, seed);
            let imported = import_gspmd_shardings(&m, "main").unwrap();
            let want = Interpreter::new(&imported)
                .call("main", inputs.clone())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let tensors: Vec<Tensor> = inputs
                .iter()
                .map(|v| v.clone().into_tensor().unwrap())
                .collect();
            let got = run_spmd(&spmd, &tensors);
            for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                let w = w.clone().into_tensor().unwrap();
                let close = g.shape() == w.shape()
                    && g.to_f64_vec()
                        .iter()
                        .zip(w.to_f64_vec())
                        .all(|(g, w)| (g - w).abs() <= 1e-5 + 1e-5 * w.abs());
                assert!(
                    close || same_bits(&Value::Tensor(g.clone()), &Value::Tensor(w.clone())),
                    "{name} seed {seed} result {j}: {g:?}\nwant {w:?}"
                );
            }
        }
    }
}

/// Inputs in [-2, 2) for every parameter (sums and softmaxes stay finite).
fn bounded_inputs(m: &Module, seed: u32) -> Vec<Value> {
    m.func("main")
        .unwrap()
        .param_types()
        .iter()
        .enumerate()
        .map(|(p, ty)| {
            let Type::Tensor(t) = ty else {
                panic!("{ty:?}")
            };
            let n: i64 = t.shape.iter().product();
            let values = (0..n)
                .map(|i| {
                    let k = (i as u32)
                        .wrapping_mul(2654435761)
                        .wrapping_add((seed * 31 + p as u32) * 40503);
                    (k % 1000) as f32 / 250.0 - 2.0
                })
                .collect();
            Value::Tensor(Tensor::from_f32(t.shape.clone(), values))
        })
        .collect()
}

/// A module with one argument sharded as `sharding` on `devices` partitions.
fn one_arg(sharding: &str, shape: &str, devices: usize) -> Module {
    parse(
        "t.mlir",
        &format!(
            "module @m attributes {{mhlo.num_partitions = {devices} : i32, mhlo.num_replicas = 1 : i32}} {{\n  \
             func.func public @main(%a: tensor<{shape}xf32> {{mhlo.sharding = \"{sharding}\"}}) -> tensor<{shape}xf32> {{\n    \
             %0 = stablehlo.negate %a : tensor<{shape}xf32>\n    return %0 : tensor<{shape}xf32>\n  }}\n}}"
        ),
    )
}

#[test]
fn explicit_device_lists_in_runs_are_imported() {
    // Rows over ids 0,2,1,3: stride 2 × 2 inside stride 1 × 2, i.e. the minor axis first.
    let m = one_arg("{devices=[4,1]0,2,1,3}", "8x2", 4);
    let imported = import_gspmd_shardings(&m, "main").unwrap();
    let Some(Attribute::SdySharding(s)) = imported.func("main").unwrap().arg_attrs[0]
        .iter()
        .map(|a| &a.value)
        .next()
    else {
        panic!("not imported")
    };
    let layout = &ShardLayout::from_sdy(s, &imported.meshes[0], &[8, 2]).unwrap();
    let tiled = ShardLayout::from_hlo(
        &systolic_ir::text::parse_sharding::parse_hlo_sharding("{devices=[4,1]0,2,1,3}").unwrap(),
        &[8, 2],
        4,
    )
    .unwrap();
    assert_eq!(layout, &tiled);
}

#[test]
fn device_orders_no_mesh_expresses_are_refused_by_name() {
    let m = one_arg("{devices=[4,1]3,2,1,0}", "8x2", 4);
    let e = import_gspmd_shardings(&m, "main").unwrap_err();
    assert!(e.contains("argument 0"), "{e}");
    assert!(e.contains("{devices=[4,1]3,2,1,0}"), "{e}");
    assert!(e.contains("step backwards"), "{e}");
    let m = one_arg("{devices=[2,1]0,1}", "8x2", 4);
    let e = import_gspmd_shardings(&m, "main").unwrap_err();
    assert!(e.contains("runs on 4"), "{e}");
}

#[test]
fn replicated_and_unknown_shardings_have_the_tensors_rank() {
    for (sharding, closed) in [
        ("{replicated}", true),
        ("{maximal device=1}", true),
        ("{unknown}", false),
    ] {
        let m = one_arg(sharding, "8x2", 4);
        let imported = import_gspmd_shardings(&m, "main").unwrap();
        let attrs = &imported.func("main").unwrap().arg_attrs[0];
        let Some(Attribute::SdySharding(s)) = attrs.iter().map(|a| &a.value).next() else {
            panic!("{sharding}: {attrs:?}")
        };
        assert_eq!(s.dims.len(), 2, "{sharding}");
        assert!(
            s.dims
                .iter()
                .all(|d| d.axes.is_empty() && d.closed == closed),
            "{sharding}"
        );
    }
}
