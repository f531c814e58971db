//! Random modules survive print → parse: constants of every dtype with random bit patterns
//! (NaNs, infinities, subnormals, extreme integers; splats, empty and hex-sized tensors),
//! random attribute values of every kind, and random HLO/Shardy shardings; and printing the
//! re-parsed module gives the same text.

use crate::roundtrip_common;

use roundtrip_common::equivalent;
use systolic_ir::text::{parse_module, print_module};
use systolic_ir::*;

/// xorshift64*: small, deterministic, good enough to pick test cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

fn random_shape(rng: &mut Rng) -> Vec<i64> {
    match rng.below(6) {
        0 => vec![],
        1 => vec![0, 3],
        2 => vec![1 + rng.below(4) as i64],
        3 => vec![1 + rng.below(3) as i64, 1 + rng.below(3) as i64],
        4 => vec![101 + rng.below(50) as i64],
        _ => vec![2, 1, 1 + rng.below(3) as i64],
    }
}

/// Bit patterns biased towards the interesting ones (zeros, all-ones, sign bits, exponents);
/// up to 128 bits wide (a `complex<f64>`).
fn random_bits(rng: &mut Rng, width: u32) -> u128 {
    let mask = u128::MAX >> (128 - width);
    let wide = |rng: &mut Rng| (rng.next() as u128) << 64 | rng.next() as u128;
    let bits = match rng.below(5) {
        0 => 0,
        1 => mask,
        2 => 1u128 << (width - 1),
        3 => wide(rng) & (mask >> 1),
        _ => wide(rng),
    };
    bits & mask
}

fn random_tensor(rng: &mut Rng, dtype: DType) -> Tensor {
    let ty = TensorType::new(random_shape(rng), dtype);
    let n = ty.num_elements();
    let splat = rng.below(4) == 0;
    let first = random_bits(rng, dtype.bit_width());
    let bits: Vec<u128> = (0..n)
        .map(|_| {
            if splat {
                first
            } else {
                random_bits(rng, dtype.bit_width())
            }
        })
        .collect();
    Tensor::from_bits_wide(ty, &bits).expect("bits fit the type")
}

fn scalar_type(d: DType) -> Option<Type> {
    Some(Type::Tensor(TensorType::scalar(d)))
}

fn random_string(rng: &mut Rng) -> String {
    let pieces = ["a", "\"", "\\", "\n", "é", "x.y", " ", "{}", "\t", "ü∑"];
    (0..rng.below(6)).map(|_| *rng.pick(&pieces)).collect()
}

fn random_axis(rng: &mut Rng) -> AxisRef {
    AxisRef {
        name: rng.pick(&["x", "y", "z"]).to_string(),
        sub_axis: (rng.below(3) == 0).then_some((1, 2)),
    }
}

fn random_attr(rng: &mut Rng, depth: u32) -> Attribute {
    let int_types = [
        DType::I8,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U32,
        DType::Bool,
    ];
    match rng.below(if depth > 1 { 9 } else { 12 }) {
        0 => Attribute::Unit,
        1 => Attribute::Bool(rng.below(2) == 1),
        2 => {
            let d = *rng.pick(&int_types);
            let v = match d {
                DType::Bool => rng.below(2) as i64,
                DType::U8 => rng.below(256) as i64,
                DType::U32 => rng.below(1 << 32) as i64,
                DType::I8 => rng.below(256) as i64 - 128,
                DType::I32 => rng.next() as i32 as i64,
                _ => rng.next() as i64,
            };
            Attribute::Int(v, scalar_type(d))
        }
        3 => Attribute::Float(
            f64::from_bits(random_bits(rng, 64) as u64),
            scalar_type(DType::F64),
        ),
        4 => Attribute::String(random_string(rng)),
        5 => Attribute::SymbolRef(rng.pick(&["main", "a-b", "f.g"]).to_string()),
        6 => {
            let elem = rng.pick(&["i1", "i32", "i64"]).to_string();
            let n = rng.below(4);
            let values = (0..n)
                .map(|_| match elem.as_str() {
                    "i1" => rng.below(2) as i64,
                    "i32" => rng.next() as i32 as i64,
                    _ => rng.next() as i64,
                })
                .collect();
            Attribute::DenseArray(elem, values)
        }
        7 => {
            let dtype = *rng.pick(&DType::ALL);
            Attribute::Dense(random_tensor(rng, dtype))
        }
        8 => {
            let dtype = *rng.pick(&DType::ALL);
            Attribute::Type(Type::tensor(random_shape(rng), dtype))
        }
        9 => Attribute::Array(
            (0..rng.below(4))
                .map(|_| random_attr(rng, depth + 1))
                .collect(),
        ),
        10 => Attribute::Dict(
            (0..rng.below(4))
                .map(|i| NamedAttr::new(format!("k{i}"), random_attr(rng, depth + 1)))
                .collect(),
        ),
        _ => Attribute::SdySharding(SdySharding {
            mesh: "mesh".into(),
            dims: (0..rng.below(3))
                .map(|_| DimSharding {
                    axes: (0..rng.below(3)).map(|_| random_axis(rng)).collect(),
                    closed: rng.below(2) == 0,
                    priority: (rng.below(3) == 0).then(|| rng.below(4) as i64),
                })
                .collect(),
            replicated: (0..rng.below(2)).map(|_| random_axis(rng)).collect(),
            unreduced: vec![],
        }),
    }
}

fn random_hlo_sharding(rng: &mut Rng, depth: u32) -> HloSharding {
    match rng.below(if depth > 0 { 5 } else { 6 }) {
        0 => HloSharding::Replicated,
        1 => HloSharding::Manual,
        2 => HloSharding::Maximal {
            device: rng.below(8) as i64,
        },
        3 | 4 => {
            // A random permutation of 8 devices, or a transposed iota.
            let mut devices: Vec<i64> = (0..8).collect();
            if rng.below(2) == 0 {
                for i in (1..8).rev() {
                    devices.swap(i, rng.below(i as u64 + 1) as usize);
                }
            } else {
                devices = vec![0, 4, 1, 5, 2, 6, 3, 7];
            }
            let replicate = rng.below(2) == 0;
            HloSharding::Tiled {
                tile_dims: if replicate { vec![1, 4, 2] } else { vec![2, 4] },
                devices,
                last_tile_dim_replicate: replicate,
                last_tile_dims: vec![],
            }
        }
        _ => HloSharding::Tuple(
            (0..1 + rng.below(3))
                .map(|_| random_hlo_sharding(rng, depth + 1))
                .collect(),
        ),
    }
}

fn random_module(rng: &mut Rng) -> Module {
    let mut f = Func::new("main");
    let mut ops = Vec::new();
    let mut results = Vec::new();
    for i in 0..1 + rng.below(8) {
        let dtype = *rng.pick(&DType::ALL);
        let t = random_tensor(rng, dtype);
        let v = f.new_value(Type::Tensor(t.ty().clone()), None);
        let mut op = Op::new(OpKind::Constant(t), vec![], vec![v]);
        for k in 0..rng.below(3) {
            op.attrs.push(NamedAttr::new(
                format!("test.a{i}_{k}"),
                random_attr(rng, 0),
            ));
        }
        if rng.below(2) == 0 {
            // Only attributes with this name hold HLO shardings (elsewhere it is a string).
            let sharding = Attribute::HloSharding(random_hlo_sharding(rng, 0));
            op.attrs.push(NamedAttr::new("mhlo.sharding", sharding));
        }
        results.push(v);
        ops.push(op);
    }
    f.result_types = results.iter().map(|&v| f.value_type(v).clone()).collect();
    f.result_attrs = results
        .iter()
        .map(|_| vec![NamedAttr::new("test.r", random_attr(rng, 0))])
        .collect();
    ops.push(Op::new(OpKind::Return(ReturnKind::Func), results, vec![]));
    f.body = Region::single(Block { args: vec![], ops });
    f.attrs = vec![NamedAttr::new("test.f", random_attr(rng, 0))];
    Module {
        name: Some("random".into()),
        attrs: vec![NamedAttr::new("test.m", random_attr(rng, 0))],
        meshes: vec![SdyMesh {
            name: "mesh".into(),
            axes: vec![("x".into(), 2), ("y".into(), 2), ("z".into(), 2)],
            device_ids: None,
        }],
        funcs: vec![f],
        ..Module::default()
    }
}

#[test]
fn random_modules_round_trip() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    for case in 0..1000 {
        let module = random_module(&mut rng);
        let printed = print_module(&module);
        let reparsed = parse_module(&printed, "random")
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{printed}"));
        equivalent(&module, &reparsed).unwrap_or_else(|e| panic!("case {case}: {e}\n{printed}"));
        assert_eq!(print_module(&reparsed), printed, "case {case}: not stable");
    }
}
