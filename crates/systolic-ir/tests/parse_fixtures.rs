//! Every JAX-exported fixture in `tests/data` parses (they were written by
//! `scripts/export_ir_fixtures.py` with JAX 0.10.2), with spot checks of what comes out.

use systolic_ir::text::parse_module;
use systolic_ir::*;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse_fixture(name: &str) -> Module {
    parse_module(&fixture(name), name).unwrap_or_else(|e| panic!("{e}"))
}

/// Fixtures that use ops the IR does not model yet, with the parser's message (none at the
/// moment: the Shardy fixtures parse since `sdy.manual_computation` and
/// `sdy.sharding_constraint` are ops).
const UNSUPPORTED: &[(&str, &str)] = &[];

#[test]
fn every_fixture_parses() {
    let mut names = vec![];
    for sub in ["", "parse_only/"] {
        let dir = format!("{}/tests/data/{sub}", env!("CARGO_MANIFEST_DIR"));
        names.extend(
            std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| format!("{sub}{}", e.unwrap().file_name().into_string().unwrap()))
                .filter(|n| n.ends_with(".mlir")),
        );
    }
    names.sort();
    assert!(names.len() >= 20, "fixtures missing: {names:?}");
    let mut failures = vec![];
    for name in &names {
        let result = parse_module(&fixture(name), name);
        match UNSUPPORTED.iter().find(|(n, _)| n == name) {
            Some((_, msg)) => {
                let err = result.expect_err(name).to_string();
                assert!(err.contains(msg), "{name}: {err}");
            }
            None => {
                if let Err(e) = result {
                    failures.push(e.to_string());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn ops(f: &Func) -> &[Op] {
    &f.body.blocks[0].ops
}

fn names(f: &Func) -> Vec<String> {
    ops(f).iter().map(|o| o.kind.name()).collect()
}

#[test]
fn argmax_reduce_has_a_two_pair_reducer() {
    let m = parse_fixture("jax_cumsum_argmax.mlir");
    let argmax = m.func("argmax").expect("argmax func");
    assert_eq!(argmax.visibility, Visibility::Private);
    let reduce = ops(argmax)
        .iter()
        .find(|o| matches!(o.kind, OpKind::Reduce { .. }))
        .expect("a reduce");
    assert_eq!(
        reduce.kind,
        OpKind::Reduce {
            dimensions: vec![1]
        }
    );
    assert_eq!(reduce.operands.len(), 4);
    assert_eq!(reduce.results.len(), 2);
    // Block args: (acc f32, acc i32, x f32, x i32), named as written.
    let body = reduce.regions[0].entry().unwrap();
    let arg_names: Vec<_> = body
        .args
        .iter()
        .map(|v| argmax.values[v.index()].name.clone().unwrap())
        .collect();
    assert_eq!(arg_names, ["arg1", "arg2", "arg3", "arg4"]);
    assert_eq!(
        argmax.value_type(body.args[1]),
        &Type::tensor(vec![], DType::I32)
    );
    assert_eq!(
        body.ops.last().unwrap().kind,
        OpKind::Return(ReturnKind::Stablehlo)
    );
    // The func returns result #1 of the reduce.
    let ret = ops(argmax).last().unwrap();
    assert_eq!(ret.kind, OpKind::Return(ReturnKind::Func));
    assert_eq!(ret.operands, vec![reduce.results[1]]);
}

#[test]
fn mlp_structure() {
    let m = parse_fixture("jax_mlp.mlir");
    assert_eq!(m.name.as_deref(), Some("jit_mlp"));
    assert_eq!(m.source_name.as_deref(), Some("jax_mlp.mlir"));
    assert_eq!(
        find_attr(&m.attrs, "mhlo.num_partitions"),
        Some(&Attribute::Int(1, Some(Type::tensor(vec![], DType::I32))))
    );
    let main = m.func("main").unwrap();
    assert_eq!(main.param_types().len(), 5);
    assert_eq!(
        find_attr(&main.result_attrs[0], "jax.result_info"),
        Some(&Attribute::String("result".into()))
    );
    let dot = ops(main)
        .iter()
        .find(|o| matches!(o.kind, OpKind::DotGeneral { .. }))
        .unwrap();
    assert_eq!(
        dot.kind,
        OpKind::DotGeneral {
            dimension_numbers: DotDimensionNumbers {
                lhs_contracting_dimensions: vec![1],
                rhs_contracting_dimensions: vec![0],
                ..Default::default()
            },
            precision_config: vec![Precision::Default, Precision::Default],
            algorithm: None,
        }
    );
    assert_eq!(
        main.value_type(dot.results[0]),
        &Type::tensor(vec![2, 16], DType::F32)
    );
    // `applies stablehlo.add` builds a body: add of the two scalar block args, returned.
    let reduce = ops(main)
        .iter()
        .find(|o| matches!(o.kind, OpKind::Reduce { .. }))
        .unwrap();
    let body = reduce.regions[0].entry().unwrap();
    assert_eq!(body.args.len(), 2);
    assert_eq!(body.ops[0].kind, OpKind::Binary(BinaryOp::Add));
    assert_eq!(body.ops[0].operands, body.args);
    assert_eq!(body.ops[1].operands, body.ops[0].results);
}

#[test]
fn while_loop_regions_and_multi_results() {
    let m = parse_fixture("jax_scan.mlir");
    let main = m.func("main").unwrap();
    let w = ops(main).iter().find(|o| o.kind == OpKind::While).unwrap();
    assert_eq!(w.results.len(), 4);
    assert_eq!(w.regions.len(), 2);
    let cond = w.regions[0].entry().unwrap();
    assert_eq!(cond.args.len(), 4);
    assert_eq!(
        main.values[cond.args[1].index()].name.as_deref(),
        Some("iterArg_1")
    );
    assert_ne!(w.regions[0].blocks[0].args, w.regions[1].blocks[0].args);
    // `return %1#2, %1#3`.
    let ret = ops(main).last().unwrap();
    assert_eq!(ret.operands, vec![w.results[2], w.results[3]]);
    let body = w.regions[1].entry().unwrap();
    let call = &body.ops[0];
    assert_eq!(
        call.kind,
        OpKind::Call {
            callee: "dynamic_index_in_dim".into()
        }
    );
}

#[test]
fn sort_gather_scatter_and_case_generic_forms() {
    let m = parse_fixture("jax_sort_topk.mlir");
    let sort = m.func("sort").unwrap();
    assert_eq!(
        ops(sort)[0].kind,
        OpKind::Sort {
            dimension: 0,
            is_stable: true
        }
    );
    assert_eq!(ops(sort)[0].regions[0].blocks[0].args.len(), 2);
    let main = m.func("main").unwrap();
    assert!(names(main).contains(&"chlo.top_k".to_string()));
    let topk = ops(main)
        .iter()
        .find(|o| matches!(o.kind, OpKind::TopK { .. }))
        .unwrap();
    assert_eq!(
        topk.kind,
        OpKind::TopK {
            k: 3,
            largest: true
        }
    );
    assert_eq!(
        main.value_type(topk.results[1]),
        &Type::tensor(vec![3], DType::I32)
    );

    let m = parse_fixture("jax_gather_scatter.mlir");
    let main = m.func("main").unwrap();
    let gather = ops(main)
        .iter()
        .find(|o| matches!(o.kind, OpKind::Gather { .. }))
        .unwrap();
    assert_eq!(
        gather.kind,
        OpKind::Gather {
            dimension_numbers: GatherDimensionNumbers {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0],
                index_vector_dim: 1,
                ..Default::default()
            },
            slice_sizes: vec![1, 6],
            indices_are_sorted: false,
        }
    );
    let slice = ops(main)
        .iter()
        .find(|o| matches!(o.kind, OpKind::Slice { .. }))
        .unwrap();
    assert_eq!(
        slice.kind,
        OpKind::Slice {
            start_indices: vec![1, 0],
            limit_indices: vec![3, 6],
            strides: vec![1, 2]
        }
    );

    let m = parse_fixture("jax_switch.mlir");
    let main = m.func("main").unwrap();
    let case = ops(main).iter().find(|o| o.kind == OpKind::Case).unwrap();
    assert_eq!(case.regions.len(), 3);
}

#[test]
fn convolution_pretty_form() {
    let m = parse_fixture("jax_conv_grad.mlir");
    let main = m.func("main").unwrap();
    let OpKind::Convolution(c) = &ops(main)[2].kind else {
        panic!("expected a convolution, got {:?}", ops(main)[2].kind);
    };
    // dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]
    let d = &c.dimension_numbers;
    assert_eq!((d.input_batch_dimension, d.input_feature_dimension), (3, 0));
    assert_eq!(d.input_spatial_dimensions, vec![1, 2]);
    assert_eq!(
        (
            d.kernel_input_feature_dimension,
            d.kernel_output_feature_dimension
        ),
        (0, 3)
    );
    assert_eq!(
        (d.output_batch_dimension, d.output_feature_dimension),
        (2, 3)
    );
    assert_eq!(d.output_spatial_dimensions, vec![0, 1]);
    assert_eq!(c.padding, Some(vec![(1, 1), (1, 1)]));
    assert_eq!(c.window_strides, Some(vec![1, 1]));
    assert_eq!(c.window_reversal, Some(vec![false, false]));
    assert_eq!(c.precision_config, vec![Precision::Default; 2]);
    assert_eq!(c.feature_group_count, 1);
}

#[test]
fn reduce_window_and_select_and_scatter() {
    let m = parse_fixture("jax_max_pool_grad.mlir");
    let main = m.func("main").unwrap();
    let sas = ops(main)
        .iter()
        .find(|o| matches!(o.kind, OpKind::SelectAndScatter { .. }))
        .unwrap();
    assert_eq!(
        sas.kind,
        OpKind::SelectAndScatter {
            window: Window {
                window_dimensions: vec![1, 2, 2, 1],
                window_strides: Some(vec![1, 2, 2, 1]),
                padding: Some(vec![(0, 0); 4]),
                ..Window::default()
            }
        }
    );
    assert_eq!(sas.regions.len(), 2);
}

#[test]
fn constants_of_every_form() {
    let m = parse_fixture("jax_dtypes.mlir");
    let main = m.func("main").unwrap();
    let consts: Vec<&Tensor> = ops(main)
        .iter()
        .filter_map(|o| match &o.kind {
            OpKind::Constant(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(
        consts[0].to_f64_vec(),
        vec![f64::NEG_INFINITY, f64::INFINITY, 0.5]
    );
    assert_eq!(consts[1].dtype(), DType::BF16);
    assert_eq!(consts[1].to_f64_vec(), vec![2.0]);
    assert_eq!(consts[2].data(), &Data::Int(vec![-3]));
    assert_eq!(consts[3].data(), &Data::UInt(vec![4294967295]));
    assert!(consts[4].to_f64_vec()[0].is_nan());
    assert_eq!(consts[4].bits(0), 0x7FC00000);

    // A hex blob: arange(4096) as f32, little-endian.
    let m = parse_fixture("jax_big_constant.mlir");
    let OpKind::Constant(t) = &ops(m.func("main").unwrap())[0].kind else {
        panic!("expected a constant");
    };
    assert_eq!(t.shape(), &[64, 64]);
    let expect: Vec<f64> = (0..4096).map(f64::from).collect();
    assert_eq!(t.to_f64_vec(), expect);
}

#[test]
fn shardings_sdy_and_mhlo() {
    let m = parse_fixture("jax_sharded_jit.mlir");
    assert_eq!(
        m.meshes,
        vec![SdyMesh {
            name: "mesh".into(),
            axes: vec![("x".into(), 2), ("y".into(), 4)],
            device_ids: None,
        }]
    );
    let main = m.func("main").unwrap();
    let Some(Attribute::SdySharding(s)) = find_attr(&main.arg_attrs[0], "sdy.sharding") else {
        panic!("no sdy.sharding on arg 0");
    };
    assert_eq!(s.mesh, "mesh");
    assert_eq!(s.dims.len(), 2);
    assert_eq!(
        s.dims[0].axes,
        vec![AxisRef {
            name: "x".into(),
            sub_axis: None
        }]
    );
    assert!(s.dims[0].closed);
    let Some(Attribute::SdySharding(r)) = find_attr(&main.result_attrs[0], "sdy.sharding") else {
        panic!("no sdy.sharding on the result");
    };
    assert!(r.dims[1].axes.is_empty());

    let m = parse_fixture("jax_sharded_jit_mhlo.mlir");
    let main = m.func("main").unwrap();
    assert_eq!(
        find_attr(&main.arg_attrs[0], "mhlo.sharding"),
        Some(&Attribute::HloSharding(HloSharding::Tiled {
            tile_dims: vec![2, 4],
            devices: (0..8).collect(),
            last_tile_dim_replicate: false,
            last_tile_dims: vec![],
        }))
    );
    // `<=[2,4]T(1,0)` = iota(8) as 2x4, transposed: 0,4,1,5,2,6,3,7.
    assert_eq!(
        find_attr(&main.arg_attrs[1], "mhlo.sharding"),
        Some(&Attribute::HloSharding(HloSharding::Tiled {
            tile_dims: vec![1, 4, 2],
            devices: vec![0, 4, 1, 5, 2, 6, 3, 7],
            last_tile_dim_replicate: true,
            last_tile_dims: vec![],
        }))
    );
}

#[test]
fn debug_locations_and_aliases() {
    let m = parse_fixture("jax_scan_debug_locs.mlir");
    assert!(m.loc_aliases.len() > 30);
    assert_eq!(m.loc_aliases[0], ("loc".to_string(), Location::Unknown));
    assert!(m.loc_aliases.contains(&(
        "loc1".to_string(),
        Location::Name {
            name: "x".into(),
            child: None
        }
    )));
    let callsite = m
        .loc_aliases
        .iter()
        .find(|(n, _)| n == "loc25")
        .map(|(_, l)| l.clone())
        .unwrap();
    assert_eq!(
        callsite,
        Location::CallSite {
            callee: Box::new(Location::Alias("loc9".into())),
            caller: Box::new(Location::Alias("loc12".into())),
        }
    );
    let main = m.func("main").unwrap();
    assert_eq!(
        main.arg_locs,
        vec![Some(Location::Name {
            name: "x".into(),
            child: None
        })]
    );
    assert_eq!(
        m.func("closed_call").unwrap().arg_locs,
        vec![Some(Location::Unknown), Some(Location::Unknown)]
    );
    assert!(parse_fixture("jax_scan.mlir").funcs[0].arg_locs.is_empty());
    assert_eq!(ops(main)[0].loc, Some(Location::Alias("loc24".into())));
    // The op's span is where its first token is: line 5 (after four header lines), column 5.
    let first = ops(main)[0].span.unwrap();
    let text = fixture("jax_scan_debug_locs.mlir");
    let line = text.lines().nth(first.line as usize - 1).unwrap();
    assert_eq!(&line[first.col as usize - 1..][..4], "%cst");
}

#[test]
fn shard_map_with_mhlo_shardings() {
    let m = parse_fixture("jax_shard_map_mhlo.mlir");
    let main = m.func("main").unwrap();
    let to_shard = &ops(main)[1];
    assert_eq!(
        to_shard.kind,
        OpKind::CustomCall {
            call_target_name: "SPMDFullToShardShape".into(),
            has_side_effect: false,
            backend_config: Some(Attribute::String(String::new())),
            api_version: 0,
            called_computations: vec![],
        }
    );
    assert_eq!(
        find_attr(&to_shard.attrs, "mhlo.sharding"),
        Some(&Attribute::HloSharding(HloSharding::Manual))
    );
    let body = m.func("shmap_body").unwrap();
    let OpKind::AllGather {
        all_gather_dim,
        collective,
    } = &ops(body)[1].kind
    else {
        panic!("expected all_gather, got {:?}", ops(body)[1].kind);
    };
    assert_eq!(*all_gather_dim, 0);
    assert_eq!(
        collective.replica_groups,
        vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
    );
    assert!(collective.use_global_device_ids);
}

#[test]
fn lapack_custom_calls_keep_index_layouts_verbatim() {
    let m = parse_fixture("jax_linalg.mlir");
    let call = m
        .funcs
        .iter()
        .flat_map(|f| ops(f).iter())
        .find(|o| matches!(&o.kind, OpKind::CustomCall { call_target_name, .. } if call_target_name == "lapack_strsm_ffi"))
        .expect("the triangular solve custom call");
    assert_eq!(
        find_attr(&call.attrs, "result_layouts"),
        Some(&Attribute::Array(vec![Attribute::Opaque(
            "dense<[0, 1]> : tensor<2xindex>".into()
        )]))
    );
}

/// Parses every `*.mlir` in the directory named by `SYSTOLIC_PARSE_DIR` and lists the ones
/// that fail with their errors: `SYSTOLIC_PARSE_DIR=/tmp/mlir cargo test -p systolic-ir --test
/// parse_fixtures -- --ignored --nocapture`.
#[test]
#[ignore]
fn parse_directory_from_env() {
    let Ok(dir) = std::env::var("SYSTOLIC_PARSE_DIR") else {
        eprintln!("set SYSTOLIC_PARSE_DIR to a directory of .mlir files");
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    paths.sort();
    let mut failed = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Err(e) = parse_module(&text, &name) {
            failed += 1;
            eprintln!("{e}");
        }
    }
    eprintln!("{} of {} files parsed", paths.len() - failed, paths.len());
}

#[test]
fn tokens_and_callbacks() {
    let m = parse_fixture("parse_only/jax_io_callback.mlir");
    assert_eq!(
        m.meshes[0],
        SdyMesh {
            name: "maximal_mesh_0".into(),
            axes: vec![],
            device_ids: Some(vec![0])
        }
    );
    let main = m.func("main").unwrap();
    assert_eq!(main.param_types()[0], Type::Token);
    assert_eq!(main.result_types[0], Type::Token);
    assert_eq!(
        find_attr(&main.arg_attrs[0], "jax.token"),
        Some(&Attribute::Bool(true))
    );
    let call = &ops(main)[0];
    let OpKind::CustomCall {
        has_side_effect, ..
    } = &call.kind
    else {
        panic!("{:?}", call.kind);
    };
    assert!(has_side_effect);
    assert_eq!(main.value_type(call.results[0]), &Type::Token);
    assert_eq!(
        find_attr(&call.attrs, "mhlo.backend_config"),
        Some(&Attribute::Dict(vec![NamedAttr::new(
            "index",
            Attribute::Int(0, Some(Type::tensor(vec![], DType::U64)))
        )]))
    );
}

/// Counts ops by name in a function, regions included.
fn count_ops(f: &Func, name: &str) -> usize {
    fn walk(block: &Block, name: &str) -> usize {
        block
            .ops
            .iter()
            .map(|o| {
                (o.kind.name() == name) as usize
                    + o.regions
                        .iter()
                        .flat_map(|r| &r.blocks)
                        .map(|b| walk(b, name))
                        .sum::<usize>()
            })
            .sum()
    }
    f.body.blocks.iter().map(|b| walk(b, name)).sum()
}

#[test]
fn training_step_of_an_attention_block() {
    let m = parse_fixture("parse_only/jax_train_step.mlir");
    assert_eq!(m.funcs.len(), 10);
    let main = m.func("main").unwrap();
    // Parameters and momenta (7 tensors each) and the loss.
    assert_eq!(main.result_types.len(), 15);
    assert_eq!(main.result_types[14], Type::tensor(vec![], DType::F32));
    let total = |name: &str| m.funcs.iter().map(|f| count_ops(f, name)).sum::<usize>();
    assert_eq!(total("stablehlo.dot_general"), 18);
    assert_eq!(total("stablehlo.while"), 1);
    assert_eq!(total("stablehlo.reduce"), 27);
}
