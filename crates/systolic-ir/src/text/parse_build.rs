//! Building an [`OpKind`] from an op name and its attribute dictionary, as the generic form
//! writes them (`"stablehlo.iota"() {iota_dimension = 1 : i64}`). The pretty-form parsers put
//! what they read into the same dictionary under the same names, so this is the one place that
//! knows each op's attributes. Attributes an op kind models are removed from the dictionary;
//! the rest stay on the op (`mhlo.sharding`, `operand_layouts`, …).

use super::parse_attrs::attr_int_list;
use super::parse_stablehlo_attrs::*;
use crate::attrs::*;
use crate::ops::*;
use crate::tensor::Tensor;
use crate::window::Window;

/// The attribute dictionary of one op being built, with typed accessors that name the
/// attribute in their errors.
pub(crate) struct Bag<'x> {
    pub attrs: &'x mut Vec<NamedAttr>,
}

impl Bag<'_> {
    /// Removes and returns an attribute.
    pub fn take(&mut self, name: &str) -> Option<Attribute> {
        let i = self.attrs.iter().position(|a| a.name == name)?;
        Some(self.attrs.remove(i).value)
    }

    fn required(&mut self, name: &str) -> Result<Attribute, String> {
        self.take(name)
            .ok_or_else(|| format!("missing attribute '{name}'"))
    }

    pub fn ints(&mut self, name: &str) -> Result<Vec<i64>, String> {
        let a = self.required(name)?;
        attr_int_list(&a).ok_or_else(|| format!("'{name}' must be a list of integers"))
    }

    pub fn opt_ints(&mut self, name: &str) -> Result<Option<Vec<i64>>, String> {
        match self.take(name) {
            None => Ok(None),
            Some(a) => attr_int_list(&a)
                .map(Some)
                .ok_or_else(|| format!("'{name}' must be a list of integers")),
        }
    }

    pub fn int(&mut self, name: &str) -> Result<i64, String> {
        match self.required(name)? {
            Attribute::Int(v, _) => Ok(v),
            _ => Err(format!("'{name}' must be an integer")),
        }
    }

    pub fn int_or(&mut self, name: &str, default: i64) -> Result<i64, String> {
        match self.take(name) {
            None => Ok(default),
            Some(Attribute::Int(v, _)) => Ok(v),
            Some(_) => Err(format!("'{name}' must be an integer")),
        }
    }

    pub fn flag(&mut self, name: &str) -> Result<bool, String> {
        match self.take(name) {
            None => Ok(false),
            Some(Attribute::Bool(b)) => Ok(b),
            Some(Attribute::Unit) => Ok(true),
            Some(_) => Err(format!("'{name}' must be true or false")),
        }
    }

    pub fn bool_or(&mut self, name: &str, default: bool) -> Result<bool, String> {
        if self.attrs.iter().any(|a| a.name == name) {
            self.flag(name)
        } else {
            Ok(default)
        }
    }

    pub fn float(&mut self, name: &str) -> Result<f64, String> {
        match self.required(name)? {
            Attribute::Float(v, _) => Ok(v),
            Attribute::Int(v, _) => Ok(v as f64),
            _ => Err(format!("'{name}' must be a number")),
        }
    }

    pub fn string_or(&mut self, name: &str, default: &str) -> Result<String, String> {
        match self.take(name) {
            None => Ok(default.to_string()),
            Some(Attribute::String(s)) => Ok(s),
            Some(_) => Err(format!("'{name}' must be a string")),
        }
    }

    pub fn symbol(&mut self, name: &str) -> Result<String, String> {
        match self.required(name)? {
            Attribute::SymbolRef(s) | Attribute::String(s) => Ok(s),
            _ => Err(format!("'{name}' must be a symbol '@name'")),
        }
    }

    pub fn enum_kw<T>(
        &mut self,
        name: &str,
        kind: &str,
        from: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, String> {
        let Some(a) = self.take(name) else {
            return Ok(None);
        };
        match enum_keyword(&a, kind) {
            Some(kw) => from(kw)
                .map(Some)
                .ok_or_else(|| format!("unknown {kind} '{kw}' in '{name}'")),
            None => Err(format!(
                "'{name}' must be #stablehlo<{kind} …>, found {}",
                describe_attr(&a)
            )),
        }
    }

    pub fn precisions(&mut self, name: &str) -> Result<Vec<Precision>, String> {
        match self.take(name) {
            None => Ok(vec![]),
            Some(Attribute::Array(items)) => items
                .iter()
                .map(|a| {
                    let kw = enum_keyword(a, "precision").unwrap_or("");
                    Precision::from_keyword(kw).ok_or_else(|| {
                        format!(
                            "unknown precision {} (expected DEFAULT, HIGH or HIGHEST)",
                            describe_attr(a)
                        )
                    })
                })
                .collect(),
            Some(_) => Err(format!("'{name}' must be a list of precisions")),
        }
    }

    pub fn padding(&mut self, name: &str) -> Result<Option<Vec<(i64, i64)>>, String> {
        match self.take(name) {
            None => Ok(None),
            Some(a) => padding_pairs(&a)
                .map(Some)
                .ok_or_else(|| format!("'{name}' must be an Nx2 list of (low, high) pairs")),
        }
    }

    /// The window attributes of reduce_window (with `dilations`) or select_and_scatter.
    pub fn window(&mut self, dilations: bool) -> Result<Window, String> {
        let window_dimensions = self.ints("window_dimensions")?;
        let window_strides = self.opt_ints("window_strides")?;
        let (base_dilations, window_dilations) = if dilations {
            (
                self.opt_ints("base_dilations")?,
                self.opt_ints("window_dilations")?,
            )
        } else {
            (None, None)
        };
        Ok(Window {
            window_dimensions,
            window_strides,
            base_dilations,
            window_dilations,
            padding: self.padding("padding")?,
        })
    }

    pub fn bools(&mut self, name: &str) -> Result<Option<Vec<bool>>, String> {
        match self.take(name) {
            None => Ok(None),
            Some(Attribute::DenseArray(_, v)) => Ok(Some(v.iter().map(|&x| x != 0).collect())),
            Some(Attribute::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Attribute::Bool(b) => Ok(*b),
                    _ => Err(format!("'{name}' must be a list of booleans")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(Attribute::Dense(t)) => {
                Ok(Some(t.to_f64_vec().iter().map(|&x| x != 0.0).collect()))
            }
            Some(_) => Err(format!("'{name}' must be a list of booleans")),
        }
    }

    pub fn tensor(&mut self, name: &str) -> Result<Tensor, String> {
        match self.required(name)? {
            Attribute::Dense(t) => Ok(t),
            _ => Err(format!("'{name}' must be a dense<…> constant")),
        }
    }

    pub fn channel(&mut self) -> Result<Option<ChannelHandle>, String> {
        match self.take("channel_handle") {
            None => Ok(None),
            Some(a) => channel_handle(&a).map(Some),
        }
    }

    pub fn collective(&mut self) -> Result<CollectiveAttrs, String> {
        let replica_groups = match self.take("replica_groups") {
            None => vec![],
            Some(Attribute::Dense(t)) => {
                let flat = attr_int_list(&Attribute::Dense(t.clone()))
                    .ok_or("'replica_groups' must hold integers")?;
                match t.shape() {
                    [_, w] if *w > 0 => flat.chunks(*w as usize).map(<[i64]>::to_vec).collect(),
                    [_, _] => vec![],
                    _ => return Err("'replica_groups' must be a 2-d tensor".to_string()),
                }
            }
            Some(Attribute::Array(rows)) => rows
                .iter()
                .map(|r| attr_int_list(r).ok_or("'replica_groups' rows must be integer lists"))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("'replica_groups' must be a dense<…> tensor".to_string()),
        };
        Ok(CollectiveAttrs {
            replica_groups,
            channel_handle: self.channel()?,
            use_global_device_ids: self.flag("use_global_device_ids")?,
            has_dynamic_root: self.flag("has_dynamic_root")?,
        })
    }
}

/// Builds the op kind for a full op name, taking the attributes it models out of `attrs`.
/// `Ok(None)` means the name is not a known op.
pub(crate) fn build_kind(name: &str, attrs: &mut Vec<NamedAttr>) -> Result<Option<OpKind>, String> {
    let mut b = Bag { attrs };
    let (dialect, short) = name.split_once('.').unwrap_or(("", name));
    let kind = match dialect {
        "stablehlo" | "mhlo" => build_stablehlo(short, &mut b)?,
        "chlo" => build_chlo(short, &mut b)?,
        "func" => match short {
            "return" => Some(OpKind::Return(ReturnKind::Func)),
            "call" => Some(OpKind::Call {
                callee: b.symbol("callee")?,
            }),
            _ => None,
        },
        "check" => build_check(short, &mut b)?,
        "interpreter" => build_interpreter(short, &mut b)?,
        "systolic" => build_systolic(short, &mut b)?,
        _ => None,
    };
    Ok(kind)
}

fn build_stablehlo(short: &str, b: &mut Bag) -> Result<Option<OpKind>, String> {
    if let Some(u) = UnaryOp::from_name(short) {
        return Ok(Some(OpKind::Unary(u)));
    }
    if let Some(op) = BinaryOp::from_name(short) {
        return Ok(Some(OpKind::Binary(op)));
    }
    use OpKind::*;
    let kind = match short {
        "return" => Return(ReturnKind::Stablehlo),
        "compare" => Compare {
            direction: b
                .enum_kw(
                    "comparison_direction",
                    "comparison_direction",
                    ComparisonDirection::from_keyword,
                )?
                .ok_or("missing attribute 'comparison_direction'")?,
            compare_type: b.enum_kw(
                "compare_type",
                "comparison_type",
                ComparisonType::from_keyword,
            )?,
        },
        "select" => Select,
        "clamp" => Clamp,
        "convert" => Convert,
        "bitcast_convert" => BitcastConvert,
        "reduce_precision" => ReducePrecision {
            exponent_bits: to_i32(b.int("exponent_bits")?, "exponent_bits")?,
            mantissa_bits: to_i32(b.int("mantissa_bits")?, "mantissa_bits")?,
        },
        "constant" => Constant(b.tensor("value")?),
        "iota" => Iota {
            dimension: b.int("iota_dimension")?,
        },
        "broadcast_in_dim" => BroadcastInDim {
            broadcast_dimensions: b.ints("broadcast_dimensions")?,
        },
        "broadcast" => Broadcast {
            broadcast_sizes: b.ints("broadcast_sizes")?,
        },
        "reshape" => Reshape,
        "transpose" => Transpose {
            permutation: b.ints("permutation")?,
        },
        "slice" => {
            let start_indices = b.ints("start_indices")?;
            let limit_indices = b.ints("limit_indices")?;
            let strides = b
                .opt_ints("strides")?
                .unwrap_or_else(|| vec![1; start_indices.len()]);
            Slice {
                start_indices,
                limit_indices,
                strides,
            }
        }
        "dynamic_slice" => DynamicSlice {
            slice_sizes: b.ints("slice_sizes")?,
        },
        "dynamic_update_slice" => DynamicUpdateSlice,
        "concatenate" => Concatenate {
            dimension: b.int("dimension")?,
        },
        "pad" => Pad {
            edge_padding_low: b.ints("edge_padding_low")?,
            edge_padding_high: b.ints("edge_padding_high")?,
            interior_padding: b.ints("interior_padding")?,
        },
        "reverse" => Reverse {
            dimensions: b.ints("dimensions")?,
        },
        "get_dimension_size" => GetDimensionSize {
            dimension: b.int("dimension")?,
        },
        "gather" => Gather {
            dimension_numbers: gather_dims(&b.required("dimension_numbers")?)?,
            slice_sizes: b.ints("slice_sizes")?,
            indices_are_sorted: b.flag("indices_are_sorted")?,
        },
        "scatter" => Scatter {
            dimension_numbers: scatter_dims(&b.required("scatter_dimension_numbers")?)?,
            indices_are_sorted: b.flag("indices_are_sorted")?,
            unique_indices: b.flag("unique_indices")?,
        },
        "reduce" => Reduce {
            dimensions: b.ints("dimensions")?,
        },
        "reduce_window" => ReduceWindow {
            window: b.window(true)?,
        },
        // No dilations in StableHLO: attributes of those names stay unknown attributes.
        "select_and_scatter" => SelectAndScatter {
            window: b.window(false)?,
        },
        "sort" => Sort {
            dimension: b.int_or("dimension", -1)?,
            is_stable: b.flag("is_stable")?,
        },
        "map" => Map {
            dimensions: b.ints("dimensions")?,
        },
        "dot_general" => DotGeneral {
            dimension_numbers: dot_dims(&b.required("dot_dimension_numbers")?)?,
            precision_config: b.precisions("precision_config")?,
            algorithm: match b.take("algorithm") {
                None => None,
                Some(a) => Some(dot_algorithm(&a)?),
            },
        },
        "dot" => Dot {
            precision_config: b.precisions("precision_config")?,
        },
        "convolution" => Convolution(ConvAttrs {
            dimension_numbers: conv_dims(&b.required("dimension_numbers")?)?,
            window_strides: b.opt_ints("window_strides")?,
            padding: b.padding("padding")?,
            lhs_dilation: b.opt_ints("lhs_dilation")?,
            rhs_dilation: b.opt_ints("rhs_dilation")?,
            window_reversal: b.bools("window_reversal")?,
            feature_group_count: b.int_or("feature_group_count", 1)?,
            batch_group_count: b.int_or("batch_group_count", 1)?,
            precision_config: b.precisions("precision_config")?,
        }),
        "triangular_solve" => TriangularSolve {
            left_side: b.flag("left_side")?,
            lower: b.flag("lower")?,
            unit_diagonal: b.flag("unit_diagonal")?,
            transpose_a: b
                .enum_kw("transpose_a", "transpose", TransposeKind::from_keyword)?
                .unwrap_or(TransposeKind::NoTranspose),
        },
        "cholesky" => Cholesky {
            lower: b.flag("lower")?,
        },
        "fft" => Fft {
            fft_type: b
                .enum_kw("fft_type", "fft_type", FftType::from_keyword)?
                .ok_or("missing attribute 'fft_type'")?,
            fft_length: b.ints("fft_length")?,
        },
        "batch_norm_inference" => BatchNormInference {
            epsilon: b.float("epsilon")?,
            feature_index: b.int("feature_index")?,
        },
        "batch_norm_training" => BatchNormTraining {
            epsilon: b.float("epsilon")?,
            feature_index: b.int("feature_index")?,
        },
        "batch_norm_grad" => BatchNormGrad {
            epsilon: b.float("epsilon")?,
            feature_index: b.int("feature_index")?,
        },
        "while" => While,
        "if" => If,
        "case" => Case,
        "optimization_barrier" => OptimizationBarrier,
        "tuple" => Tuple,
        "get_tuple_element" => GetTupleElement {
            index: b.int("index")?,
        },
        "after_all" => AfterAll,
        "create_token" => CreateToken,
        "rng_bit_generator" => RngBitGenerator {
            algorithm: b
                .enum_kw("rng_algorithm", "rng_algorithm", RngAlgorithm::from_keyword)?
                .unwrap_or(RngAlgorithm::Default),
        },
        "rng" => Rng {
            distribution: b
                .enum_kw(
                    "rng_distribution",
                    "rng_distribution",
                    RngDistribution::from_keyword,
                )?
                .ok_or("missing attribute 'rng_distribution'")?,
        },
        "composite" => Composite {
            name: match b.required("name")? {
                Attribute::String(s) => s,
                _ => return Err("'name' must be a string".into()),
            },
            decomposition: b.symbol("decomposition")?,
            composite_attributes: match b.take("composite_attributes") {
                None => vec![],
                Some(Attribute::Dict(d)) => d,
                Some(_) => return Err("'composite_attributes' must be a dictionary".into()),
            },
            version: b.int_or("version", 0)?,
        },
        "custom_call" => CustomCall {
            call_target_name: match b.required("call_target_name")? {
                Attribute::String(s) | Attribute::SymbolRef(s) => s,
                _ => return Err("'call_target_name' must be a string".into()),
            },
            has_side_effect: b.flag("has_side_effect")?,
            backend_config: b.take("backend_config"),
            api_version: match b.take("api_version") {
                None => 0,
                Some(Attribute::Int(v, _)) => v,
                Some(a) => match enum_keyword(&a, "custom_call_api_version") {
                    Some(kw) => api_version_number(kw)?,
                    None => return Err("'api_version' must be an integer".into()),
                },
            },
            called_computations: match b.take("called_computations") {
                None => vec![],
                Some(Attribute::Array(items)) => items
                    .into_iter()
                    .map(|a| match a {
                        Attribute::SymbolRef(s) => Ok(s),
                        _ => Err("'called_computations' must be a list of symbols".to_string()),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("'called_computations' must be a list of symbols".into()),
            },
        },
        "all_gather" => AllGather {
            all_gather_dim: b.int("all_gather_dim")?,
            collective: b.collective()?,
        },
        "all_reduce" => AllReduce {
            collective: b.collective()?,
        },
        "reduce_scatter" => ReduceScatter {
            scatter_dimension: b.int("scatter_dimension")?,
            collective: b.collective()?,
        },
        "all_to_all" => AllToAll {
            split_dimension: b.int("split_dimension")?,
            concat_dimension: b.int("concat_dimension")?,
            split_count: b.int("split_count")?,
            collective: b.collective()?,
        },
        "collective_permute" => CollectivePermute {
            source_target_pairs: {
                let a = b.take("source_target_pairs");
                match a.as_ref().and_then(padding_pairs) {
                    Some(p) => p,
                    None => return Err("'source_target_pairs' must be an Nx2 tensor".into()),
                }
            },
            channel_handle: b.channel()?,
        },
        "collective_broadcast" => CollectiveBroadcast {
            collective: b.collective()?,
        },
        "replica_id" => ReplicaId,
        "partition_id" => PartitionId,
        "send" => Send {
            channel_handle: b.channel()?.unwrap_or_default(),
            is_host_transfer: b.flag("is_host_transfer")?,
        },
        "recv" => Recv {
            channel_handle: b.channel()?.unwrap_or_default(),
            is_host_transfer: b.flag("is_host_transfer")?,
        },
        "infeed" => Infeed {
            infeed_config: b.string_or("infeed_config", "")?,
        },
        "outfeed" => Outfeed {
            outfeed_config: b.string_or("outfeed_config", "")?,
        },
        _ => return Ok(None),
    };
    Ok(Some(kind))
}

fn build_chlo(short: &str, b: &mut Bag) -> Result<Option<OpKind>, String> {
    if let Some(u) = ChloUnaryOp::from_name(short) {
        return Ok(Some(OpKind::ChloUnary(u)));
    }
    if let Some(op) = ChloBinaryOp::from_name(short) {
        return Ok(Some(OpKind::ChloBinary(op)));
    }
    Ok(match short {
        "top_k" => Some(OpKind::TopK {
            k: b.int("k")?,
            largest: b.bool_or("largest", true)?,
        }),
        _ => None,
    })
}

/// Systolic's own ops (`systolic.fusion`), written by the compiler in the generic form.
fn build_systolic(short: &str, b: &mut Bag) -> Result<Option<OpKind>, String> {
    Ok(match short {
        "fusion" => {
            let kind = b.string_or("kind", "loop")?;
            let kind = FusionKind::from_keyword(&kind).ok_or_else(|| {
                format!("unknown fusion kind \"{kind}\" (expected loop, reduction or product)")
            })?;
            Some(OpKind::Fusion {
                kind,
                name: b.string_or("name", "fusion")?,
            })
        }
        _ => None,
    })
}

/// The upstream interpreter tests' harness op: `"interpreter.run_parallel"() {programs = …}`.
fn build_interpreter(short: &str, b: &mut Bag) -> Result<Option<OpKind>, String> {
    let symbols = |a: &Attribute, what: &str| -> Result<Vec<String>, String> {
        let err = || format!("'{what}' must be a list of symbols [@f, …]");
        let Attribute::Array(items) = a else {
            return Err(err());
        };
        items
            .iter()
            .map(|i| match i {
                Attribute::SymbolRef(s) => Ok(s.clone()),
                _ => Err(err()),
            })
            .collect()
    };
    Ok(match short {
        "run_parallel" => {
            let programs = match b.take("programs") {
                Some(Attribute::Array(rows)) => rows
                    .iter()
                    .map(|r| symbols(r, "programs"))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| "'programs' must be a list of lists of symbols".to_string())?,
                Some(_) => return Err("'programs' must be a list of lists of symbols".into()),
                None => return Err("missing attribute 'programs'".into()),
            };
            let infeed = match b.take("infeed") {
                None => vec![],
                Some(a) => symbols(&a, "infeed")?,
            };
            if let Some(other) = b.attrs.first() {
                return Err(format!(
                    "unsupported attribute '{}' (run_parallel takes 'programs' and 'infeed')",
                    other.name
                ));
            }
            Some(OpKind::RunParallel { programs, infeed })
        }
        _ => None,
    })
}

fn build_check(short: &str, b: &mut Bag) -> Result<Option<OpKind>, String> {
    let tolerance = |b: &mut Bag| -> Result<Option<f64>, String> {
        match b.take("tolerance") {
            None => Ok(None),
            Some(Attribute::Float(v, _)) => Ok(Some(v)),
            Some(Attribute::Int(v, _)) => Ok(Some(v as f64)),
            Some(_) => Err("'tolerance' must be a number".to_string()),
        }
    };
    let ulps = |b: &mut Bag, name: &str, default: u64| -> Result<u64, String> {
        let v = b.int_or(name, default as i64)?;
        u64::try_from(v).map_err(|_| format!("'{name}' must not be negative"))
    };
    let check = match short {
        "expect_eq" => CheckOp::ExpectEq,
        "expect_eq_const" => CheckOp::ExpectEqConst(b.tensor("value")?),
        "expect_almost_eq" => CheckOp::ExpectAlmostEq {
            tolerance: tolerance(b)?,
        },
        "expect_almost_eq_const" => CheckOp::ExpectAlmostEqConst {
            expected: b.tensor("value")?,
            tolerance: tolerance(b)?,
        },
        "expect_close" => CheckOp::ExpectClose {
            max_ulp_difference: ulps(b, "max_ulp_difference", 0)?,
            min_ulp_difference: ulps(b, "min_ulp_difference", 0)?,
        },
        "expect_serialized_eq" => CheckOp::ExpectSerializedEq {
            probe_id: b.string_or("probe_id", "")?,
            iteration: ulps(b, "iter", 0)?,
        },
        _ => return Ok(None),
    };
    Ok(Some(OpKind::Check(check)))
}

fn to_i32(v: i64, name: &str) -> Result<i32, String> {
    i32::try_from(v).map_err(|_| format!("'{name}' = {v} does not fit i32"))
}

/// `API_VERSION_TYPED_FFI` and friends as numbers.
fn api_version_number(kw: &str) -> Result<i64, String> {
    Ok(match kw {
        "API_VERSION_UNSPECIFIED" => 0,
        "API_VERSION_ORIGINAL" => 1,
        "API_VERSION_STATUS_RETURNING" => 2,
        "API_VERSION_STATUS_RETURNING_UNIFIED" => 3,
        "API_VERSION_TYPED_FFI" => 4,
        _ => return Err(format!("unknown custom call API version '{kw}'")),
    })
}

/// An attribute as it reads in an error message: its text when kept verbatim, else its value.
fn describe_attr(a: &Attribute) -> String {
    match a {
        Attribute::Opaque(text) => match enum_keyword(a, "precision") {
            Some(kw) => format!("'{kw}'"),
            None => text.clone(),
        },
        Attribute::String(s) => format!("\"{s}\""),
        other => format!("{other:?}"),
    }
}
