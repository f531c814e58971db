//! Shape inference against JAX on random configurations of the ops whose shape rules are the
//! easiest to get wrong: convolution (layouts, strides, negative padding, both dilations,
//! feature and batch groups), reduce_window, dot_general (batch and contracting dimensions in
//! any position) and pad (negative edges, interior padding; what JAX rejects must be an error).
//! The cases and JAX's result shapes are in `tests/verify_data/shapes_jax.txt`, made by
//! `tests/verify_data/export_shapes.py`.

use std::collections::HashMap;
use systolic_ir::verify::{infer_result_types, RegionSignature};
use systolic_ir::{
    ConvAttrs, ConvDimensionNumbers, DType, DotDimensionNumbers, OpKind, Type, Window,
};

/// One line: its kind and `key=value` fields.
struct Case<'a> {
    kind: &'a str,
    fields: HashMap<&'a str, &'a str>,
    line: usize,
}

impl Case<'_> {
    fn ints(&self, key: &str) -> Vec<i64> {
        let v = self.fields[key];
        if v.is_empty() {
            return vec![];
        }
        v.split(',')
            .map(|x| x.parse().expect("an integer"))
            .collect()
    }

    fn int(&self, key: &str) -> i64 {
        self.fields[key].parse().expect("an integer")
    }

    fn pairs(&self, key: &str) -> Vec<(i64, i64)> {
        self.fields[key]
            .split(';')
            .map(|p| {
                let (lo, hi) = p.split_once(',').expect("lo,hi");
                (lo.parse().unwrap(), hi.parse().unwrap())
            })
            .collect()
    }
}

fn cases(text: &str) -> Vec<Case<'_>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let mut words = l.split_whitespace();
            let kind = words.next().expect("a kind");
            let fields = words
                .map(|w| w.split_once('=').expect("key=value"))
                .collect();
            Case {
                kind,
                fields,
                line: i + 1,
            }
        })
        .collect()
}

fn f32t(shape: Vec<i64>) -> Type {
    Type::tensor(shape, DType::F32)
}

fn conv(case: &Case) -> Result<Vec<Type>, String> {
    let (lhs, rhs, out) = (
        case.ints("lhs_spec"),
        case.ints("rhs_spec"),
        case.ints("out_spec"),
    );
    let attrs = ConvAttrs {
        dimension_numbers: ConvDimensionNumbers {
            input_batch_dimension: lhs[0],
            input_feature_dimension: lhs[1],
            input_spatial_dimensions: lhs[2..].to_vec(),
            kernel_output_feature_dimension: rhs[0],
            kernel_input_feature_dimension: rhs[1],
            kernel_spatial_dimensions: rhs[2..].to_vec(),
            output_batch_dimension: out[0],
            output_feature_dimension: out[1],
            output_spatial_dimensions: out[2..].to_vec(),
        },
        window_strides: Some(case.ints("strides")),
        padding: Some(case.pairs("padding")),
        lhs_dilation: Some(case.ints("lhs_dilation")),
        rhs_dilation: Some(case.ints("rhs_dilation")),
        window_reversal: None,
        feature_group_count: case.int("fgc"),
        batch_group_count: case.int("bgc"),
        precision_config: vec![],
    };
    let operands = [f32t(case.ints("lhs")), f32t(case.ints("rhs"))];
    infer_result_types(&OpKind::Convolution(attrs), &operands, &[], None)
}

fn reduce_window(case: &Case) -> Result<Vec<Type>, String> {
    let kind = OpKind::ReduceWindow {
        window: Window {
            window_dimensions: case.ints("window"),
            window_strides: Some(case.ints("strides")),
            base_dilations: Some(case.ints("base_dilation")),
            window_dilations: Some(case.ints("window_dilation")),
            padding: Some(case.pairs("padding")),
        },
    };
    let s = Type::tensor(vec![], DType::F32);
    let body = RegionSignature::new(vec![s.clone(), s.clone()], vec![s.clone()]);
    infer_result_types(&kind, &[f32t(case.ints("operand")), s], &[body], None)
}

fn dot_general(case: &Case) -> Result<Vec<Type>, String> {
    let kind = OpKind::DotGeneral {
        dimension_numbers: DotDimensionNumbers {
            lhs_batching_dimensions: case.ints("lhs_batch"),
            rhs_batching_dimensions: case.ints("rhs_batch"),
            lhs_contracting_dimensions: case.ints("lhs_contract"),
            rhs_contracting_dimensions: case.ints("rhs_contract"),
        },
        precision_config: vec![],
        algorithm: None,
    };
    let operands = [f32t(case.ints("lhs")), f32t(case.ints("rhs"))];
    infer_result_types(&kind, &operands, &[], None)
}

fn pad(case: &Case) -> Result<Vec<Type>, String> {
    let kind = OpKind::Pad {
        edge_padding_low: case.ints("low"),
        edge_padding_high: case.ints("high"),
        interior_padding: case.ints("interior"),
    };
    let operands = [f32t(case.ints("operand")), f32t(vec![])];
    infer_result_types(&kind, &operands, &[], None)
}

#[test]
fn shapes_match_jax() {
    let text = include_str!("verify_data/shapes_jax.txt");
    let all = cases(text);
    let mut counts = HashMap::new();
    for case in &all {
        let got = match case.kind {
            "conv" => conv(case),
            "reduce_window" => reduce_window(case),
            "dot_general" => dot_general(case),
            "pad" => pad(case),
            other => panic!("line {}: unknown case kind {other}", case.line),
        };
        if case.fields["out"] == "invalid" {
            assert!(
                got.is_err(),
                "line {} of shapes_jax.txt: {got:?}",
                case.line
            );
            *counts.entry("rejected").or_insert(0) += 1;
        } else {
            let want = vec![f32t(case.ints("out"))];
            assert_eq!(got, Ok(want), "line {} of shapes_jax.txt", case.line);
        }
        *counts.entry(case.kind).or_insert(0) += 1;
    }
    assert!(
        counts["conv"] >= 100 && counts["reduce_window"] >= 100,
        "{counts:?}"
    );
}
