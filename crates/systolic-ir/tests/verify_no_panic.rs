//! The verifier must answer every input with a result, never a panic: random op kinds with
//! random (often nonsensical) attributes, operand types, regions and declared results —
//! negative and huge sizes, out-of-range dimensions, mismatched list lengths.

use systolic_ir::verify::{infer_result_types, verify_module, RegionSignature};
use systolic_ir::*;

/// xorshift64*: a small deterministic generator, so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn coin(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A dimension number or size: mostly small, sometimes negative or extreme.
    fn int(&mut self) -> i64 {
        match self.below(20) {
            0 => i64::MAX,
            1 => i64::MIN,
            2 => -1,
            3 => 1 << 40,
            _ => self.below(5) as i64,
        }
    }

    fn list(&mut self) -> Vec<i64> {
        let n = self.below(4);
        (0..n).map(|_| self.int()).collect()
    }

    fn dtype(&mut self) -> DType {
        DType::ALL[self.below(DType::ALL.len() as u64) as usize]
    }

    fn tensor(&mut self) -> Type {
        let rank = self.below(4);
        let shape = (0..rank)
            .map(|_| {
                if self.coin(95) {
                    self.below(4) as i64
                } else {
                    self.int()
                }
            })
            .collect();
        Type::tensor(shape, self.dtype())
    }

    fn ty(&mut self) -> Type {
        match self.below(20) {
            0 => Type::Token,
            1 => Type::Tuple(vec![self.tensor(), Type::Token]),
            _ => self.tensor(),
        }
    }

    fn types(&mut self, max: u64) -> Vec<Type> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.ty()).collect()
    }

    fn pairs(&mut self) -> Option<Vec<(i64, i64)>> {
        self.coin(70).then(|| {
            let n = self.below(4);
            (0..n).map(|_| (self.int(), self.int())).collect()
        })
    }

    fn opt_list(&mut self) -> Option<Vec<i64>> {
        self.coin(70).then(|| self.list())
    }

    fn collective(&mut self) -> CollectiveAttrs {
        let rows = self.below(3);
        CollectiveAttrs {
            replica_groups: (0..rows).map(|_| self.list()).collect(),
            channel_handle: self.coin(50).then(|| ChannelHandle {
                handle: self.int(),
                kind: self.int(),
            }),
            use_global_device_ids: self.coin(30),
            has_dynamic_root: false,
        }
    }
}

fn random_kind(r: &mut Rng) -> OpKind {
    use OpKind::*;
    match r.below(40) {
        0 => Unary(UnaryOp::ALL[r.below(UnaryOp::ALL.len() as u64) as usize]),
        1 => Binary(BinaryOp::ALL[r.below(BinaryOp::ALL.len() as u64) as usize]),
        2 => Compare {
            direction: ComparisonDirection::Lt,
            compare_type: r.coin(50).then_some(ComparisonType::Signed),
        },
        3 => Select,
        4 => Clamp,
        5 => Convert,
        6 => BitcastConvert,
        7 => ReducePrecision {
            exponent_bits: r.int() as i32,
            mantissa_bits: r.int() as i32,
        },
        8 => Iota { dimension: r.int() },
        9 => BroadcastInDim {
            broadcast_dimensions: r.list(),
        },
        10 => Reshape,
        11 => Transpose {
            permutation: r.list(),
        },
        12 => Slice {
            start_indices: r.list(),
            limit_indices: r.list(),
            strides: r.list(),
        },
        13 => DynamicSlice {
            slice_sizes: r.list(),
        },
        14 => DynamicUpdateSlice,
        15 => Concatenate { dimension: r.int() },
        16 => Pad {
            edge_padding_low: r.list(),
            edge_padding_high: r.list(),
            interior_padding: r.list(),
        },
        17 => Reverse {
            dimensions: r.list(),
        },
        18 => Gather {
            dimension_numbers: GatherDimensionNumbers {
                offset_dims: r.list(),
                collapsed_slice_dims: r.list(),
                operand_batching_dims: r.list(),
                start_indices_batching_dims: r.list(),
                start_index_map: r.list(),
                index_vector_dim: r.int(),
            },
            slice_sizes: r.list(),
            indices_are_sorted: false,
        },
        19 => Scatter {
            dimension_numbers: ScatterDimensionNumbers {
                update_window_dims: r.list(),
                inserted_window_dims: r.list(),
                input_batching_dims: r.list(),
                scatter_indices_batching_dims: r.list(),
                scatter_dims_to_operand_dims: r.list(),
                index_vector_dim: r.int(),
            },
            indices_are_sorted: false,
            unique_indices: false,
        },
        20 => Reduce {
            dimensions: r.list(),
        },
        21 => ReduceWindow {
            window: Window {
                window_dimensions: r.list(),
                window_strides: r.opt_list(),
                base_dilations: r.opt_list(),
                window_dilations: r.opt_list(),
                padding: r.pairs(),
            },
        },
        22 => SelectAndScatter {
            window: Window {
                window_dimensions: r.list(),
                window_strides: r.opt_list(),
                padding: r.pairs(),
                ..Window::default()
            },
        },
        23 => Sort {
            dimension: r.int(),
            is_stable: false,
        },
        24 => Map {
            dimensions: r.list(),
        },
        25 => DotGeneral {
            dimension_numbers: DotDimensionNumbers {
                lhs_batching_dimensions: r.list(),
                rhs_batching_dimensions: r.list(),
                lhs_contracting_dimensions: r.list(),
                rhs_contracting_dimensions: r.list(),
            },
            precision_config: vec![],
            algorithm: None,
        },
        26 => Convolution(ConvAttrs {
            dimension_numbers: ConvDimensionNumbers {
                input_batch_dimension: r.int(),
                input_feature_dimension: r.int(),
                input_spatial_dimensions: r.list(),
                kernel_input_feature_dimension: r.int(),
                kernel_output_feature_dimension: r.int(),
                kernel_spatial_dimensions: r.list(),
                output_batch_dimension: r.int(),
                output_feature_dimension: r.int(),
                output_spatial_dimensions: r.list(),
            },
            window_strides: r.opt_list(),
            padding: r.pairs(),
            lhs_dilation: r.opt_list(),
            rhs_dilation: r.opt_list(),
            window_reversal: None,
            feature_group_count: r.int(),
            batch_group_count: r.int(),
            precision_config: vec![],
        }),
        27 => TriangularSolve {
            left_side: r.coin(50),
            lower: true,
            unit_diagonal: false,
            transpose_a: TransposeKind::NoTranspose,
        },
        28 => Cholesky { lower: true },
        29 => BatchNormTraining {
            epsilon: 0.0,
            feature_index: r.int(),
        },
        30 => While,
        31 => If,
        32 => Case,
        33 => GetTupleElement { index: r.int() },
        34 => AllGather {
            all_gather_dim: r.int(),
            collective: r.collective(),
        },
        35 => ReduceScatter {
            scatter_dimension: r.int(),
            collective: r.collective(),
        },
        36 => AllToAll {
            split_dimension: r.int(),
            concat_dimension: r.int(),
            split_count: r.int(),
            collective: r.collective(),
        },
        37 => TopK {
            k: r.int(),
            largest: true,
        },
        38 => Dot {
            precision_config: vec![],
        },
        _ => RngBitGenerator {
            algorithm: RngAlgorithm::ThreeFry,
        },
    }
}

#[test]
fn inference_never_panics_on_random_ops() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..60_000 {
        let kind = random_kind(&mut r);
        let operands = r.types(5);
        let regions: Vec<RegionSignature> = (0..r.below(3))
            .map(|_| RegionSignature::new(r.types(4), r.types(2)))
            .collect();
        let declared = r.coin(70).then(|| r.types(3));
        match infer_result_types(&kind, &operands, &regions, declared.as_deref()) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.is_empty());
                err += 1;
            }
        }
    }
    // The generator must reach both outcomes for the test to mean something.
    assert!(ok > 100 && err > 100, "ok = {ok}, err = {err}");
}

#[test]
fn module_verification_never_panics_on_scrambled_ids() {
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..3_000 {
        let mut f = Func::new("main");
        let x = f.new_value(Type::tensor(vec![2], DType::F32), None);
        let y = f.new_value(Type::tensor(vec![2], DType::F32), None);
        let mut ops = vec![
            Op::new(OpKind::Binary(BinaryOp::Add), vec![x, x], vec![y]),
            Op::new(OpKind::Return(ReturnKind::Func), vec![y], vec![]),
        ];
        for op in &mut ops {
            for v in op.operands.iter_mut().chain(op.results.iter_mut()) {
                if r.coin(30) {
                    *v = ValueId(r.below(5) as u32);
                }
            }
        }
        if r.coin(20) {
            ops.swap(0, 1);
        }
        if r.coin(10) {
            ops.pop();
        }
        f.body = Region::single(Block { args: vec![x], ops });
        f.result_types = vec![Type::tensor(vec![2], DType::F32)];
        let m = Module {
            funcs: vec![f],
            ..Default::default()
        };
        if let Err(diags) = verify_module(&m) {
            assert!(diags.iter().all(|d| !d.message.is_empty()));
        }
    }
}
