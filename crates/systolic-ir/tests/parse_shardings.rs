//! Sharding annotations: HLO sharding strings, `#sdy.sharding`, `#sdy.sharding_per_value` and
//! `sdy.mesh`, parsed into typed values (or rejected with the reason).

use systolic_ir::text::parse_module;
use systolic_ir::text::parse_sharding::parse_hlo_sharding;
use systolic_ir::*;

fn tiled(tile_dims: &[i64], devices: &[i64], replicate: bool, last: &[&str]) -> HloSharding {
    HloSharding::Tiled {
        tile_dims: tile_dims.to_vec(),
        devices: devices.to_vec(),
        last_tile_dim_replicate: replicate,
        last_tile_dims: last.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn hlo_sharding_strings() {
    assert_eq!(
        parse_hlo_sharding("{replicated}"),
        Ok(HloSharding::Replicated)
    );
    assert_eq!(parse_hlo_sharding("{manual}"), Ok(HloSharding::Manual));
    assert_eq!(parse_hlo_sharding("{unknown}"), Ok(HloSharding::Unknown));
    assert_eq!(
        parse_hlo_sharding("{maximal device=3}"),
        Ok(HloSharding::Maximal { device: 3 })
    );
    assert_eq!(
        parse_hlo_sharding("{devices=[2,1]1,0}"),
        Ok(tiled(&[2, 1], &[1, 0], false, &[]))
    );
    assert_eq!(
        parse_hlo_sharding("{devices=[2,2]<=[4]}"),
        Ok(tiled(&[2, 2], &[0, 1, 2, 3], false, &[]))
    );
    // iota(8) as 2x2x2, transposed (2,0,1): element [i,j,k] = 4*j + 2*k + i.
    assert_eq!(
        parse_hlo_sharding("{devices=[4,2]<=[2,2,2]T(2,0,1)}"),
        Ok(tiled(&[4, 2], &[0, 2, 4, 6, 1, 3, 5, 7], false, &[]))
    );
    assert_eq!(
        parse_hlo_sharding("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"),
        Ok(tiled(&[2, 1, 2], &[0, 1, 2, 3], true, &[]))
    );
    assert_eq!(
        parse_hlo_sharding("{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}"),
        Ok(tiled(
            &[1, 2, 2],
            &[0, 1, 2, 3],
            false,
            &["manual", "replicated"]
        ))
    );
    assert_eq!(
        parse_hlo_sharding("{{replicated}, {maximal device=0}, {devices=[2]0,1}}"),
        Ok(HloSharding::Tuple(vec![
            HloSharding::Replicated,
            HloSharding::Maximal { device: 0 },
            tiled(&[2], &[0, 1], false, &[]),
        ]))
    );
    assert_eq!(
        parse_hlo_sharding("{replicated metadata={op_name=\"a\"}}"),
        Ok(HloSharding::Replicated)
    );
}

#[test]
fn malformed_hlo_shardings() {
    for (text, why) in [
        (
            "{devices=[2,2]<=[8]}",
            "iota reshape [8] has 8 devices; the tiling needs 4",
        ),
        ("{devices=[2,2]<=[2,2]T(0,0)}", "is not a permutation"),
        ("{devices=[0]}", "tile dimensions must be positive"),
        ("{tiled}", "unknown sharding kind 'tiled'"),
        ("{replicated", "expected '}'"),
        ("{replicated} x", "after the sharding"),
        ("{maximal}", "expected 'device='"),
    ] {
        let err = parse_hlo_sharding(text).expect_err(text);
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn sdy_shardings_meshes_and_per_value() {
    let m = parse_module(
        r#"module {
  sdy.mesh @mesh = <["a"=2, "b"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
  sdy.mesh @maximal = <[], device_ids=[0]>
  func.func @main(%x: tensor<8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {"b":(1)2}p0, {?}], replicated={"b":(2)2}>}) -> tensor<8x8x8xf32> {
    %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}, {}]>]>} : tensor<8x8x8xf32>
    return %0 : tensor<8x8x8xf32>
  }
}"#,
        "s.mlir",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.meshes[0].axes, vec![("a".into(), 2), ("b".into(), 4)]);
    assert_eq!(m.meshes[0].device_ids, Some(vec![7, 6, 5, 4, 3, 2, 1, 0]));
    assert_eq!(m.meshes[1].axes, vec![]);
    assert_eq!(m.meshes[1].device_ids, Some(vec![0]));
    let f = &m.funcs[0];
    let Some(Attribute::SdySharding(s)) = find_attr(&f.arg_attrs[0], "sdy.sharding") else {
        panic!("no sharding");
    };
    let axis = |name: &str, sub: Option<(i64, i64)>| AxisRef {
        name: name.into(),
        sub_axis: sub,
    };
    assert_eq!(
        s,
        &SdySharding {
            mesh: "mesh".into(),
            dims: vec![
                DimSharding {
                    axes: vec![axis("a", None)],
                    closed: false,
                    priority: None
                },
                DimSharding {
                    axes: vec![axis("b", Some((1, 2)))],
                    closed: true,
                    priority: Some(0)
                },
                DimSharding {
                    axes: vec![],
                    closed: false,
                    priority: None
                },
            ],
            replicated: vec![axis("b", Some((2, 2)))],
            unreduced: vec![],
        }
    );
    let op = &f.body.blocks[0].ops[0];
    assert_eq!(
        find_attr(&op.attrs, "sdy.sharding"),
        Some(&Attribute::Opaque(
            "#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {}, {}]>]>".into()
        ))
    );
}

#[test]
fn malformed_sdy_annotations() {
    let cases = [
        (
            "func.func @f(%x: tensor<2xf32> {sdy.sharding = #sdy.sharding<mesh, [{}]>}) {\n  return\n}",
            "expected '@mesh' or an inline mesh",
        ),
        (
            "func.func @f(%x: tensor<2xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\"}], bogus={}>}) {\n  return\n}",
            "unknown sharding field 'bogus'",
        ),
        (
            "func.func @f(%x: tensor<2xf32>) {\n  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@m, [{\"a\" }, {x}]>]>} : tensor<2xf32>\n  return\n}",
            "malformed #sdy.sharding_per_value",
        ),
        ("module {\n  sdy.mesh @m = <[\"a\"=0]>\n}", "axis \"a\" has size 0"),
    ];
    for (src, why) in cases {
        let err = parse_module(src, "s.mlir").expect_err(src).to_string();
        assert!(err.contains(why), "{src}\n{err}");
    }
}

/// Axis names are MLIR strings: escapes decode when parsed, so a name the printer escapes (a
/// NUL byte, a backslash, a quote) reads back as itself. The round-trip fuzzer found names
/// kept raw, which doubled every backslash on each round trip.
#[test]
fn escaped_axis_names_round_trip() {
    let text = r#"module {
  sdy.mesh @mesh = <["a\00b"=2, "c\\d"=2, "e\22f"=1]>
  func.func @main(%x: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a\00b"}, {"c\\d"}]>}) -> tensor<4x4xf32> {
    return %x : tensor<4x4xf32>
  }
}"#;
    let module = parse_module(text, "t").unwrap();
    let printed = systolic_ir::text::print_module(&module);
    let again = parse_module(&printed, "printed").unwrap();
    assert_eq!(systolic_ir::text::print_module(&again), printed);
    assert!(printed.contains(r#""a\00b""#), "{printed}");
    assert!(printed.contains(r#""c\\d""#), "{printed}");
}
