//! Compiled reduce_window and select_and_scatter against the reference interpreter, bit for
//! bit: max/sum/min/mul pooling with strides, base and window dilations, positive and negative
//! padding, 0- and 1-size dimensions, every element type, NaN and ±0; the max-pool gradient
//! (GE + add) and the min-pool one (LE + add).

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::{self, Rng};
use systolic_ir::{DType, TensorType};

fn ty(shape: &[i64], dtype: DType) -> TensorType {
    TensorType::new(shape.to_vec(), dtype)
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Output size of one dimension (the spec's formula).
fn out_size(n: i64, w: i64, s: i64, b: i64, wd: i64, lo: i64, hi: i64) -> i64 {
    let dilated = if n == 0 { 0 } else { (n - 1) * b + 1 };
    let padded = dilated + lo + hi;
    let extent = (w - 1) * wd + 1;
    if padded < extent {
        0
    } else {
        (padded - extent) / s + 1
    }
}

struct Geometry {
    shape: Vec<i64>,
    window: Vec<i64>,
    strides: Vec<i64>,
    base: Vec<i64>,
    wdil: Vec<i64>,
    pad: Vec<(i64, i64)>,
}

impl Geometry {
    fn random(rng: &mut Rng, rank: usize, dilate: bool) -> Geometry {
        let mut g = Geometry {
            shape: random::shape(rng, rank),
            window: vec![],
            strides: vec![],
            base: vec![],
            wdil: vec![],
            pad: vec![],
        };
        for _ in 0..rank {
            g.window.push(1 + rng.below(3) as i64);
            g.strides.push(1 + rng.below(3) as i64);
            g.base
                .push(if dilate { 1 + rng.below(2) as i64 } else { 1 });
            g.wdil
                .push(if dilate { 1 + rng.below(2) as i64 } else { 1 });
            g.pad.push((rng.below(4) as i64 - 1, rng.below(3) as i64));
        }
        g
    }

    fn out_shape(&self) -> Vec<i64> {
        (0..self.shape.len())
            .map(|d| {
                out_size(
                    self.shape[d],
                    self.window[d],
                    self.strides[d],
                    self.base[d],
                    self.wdil[d],
                    self.pad[d].0,
                    self.pad[d].1,
                )
            })
            .collect()
    }

    fn padding_attr(&self) -> String {
        let pairs: Vec<String> = self
            .pad
            .iter()
            .map(|(l, h)| format!("[{l}, {h}]"))
            .collect();
        format!(
            "dense<[{}]> : tensor<{}x2xi64>",
            pairs.join(", "),
            self.pad.len()
        )
    }
}

fn reduce_window_case(rng: &mut Rng, g: &Geometry, dtype: DType, op: &str) -> Case {
    let input = ty(&g.shape, dtype);
    let s = ty(&[], dtype);
    let out = ty(&g.out_shape(), dtype);
    let inputs = vec![random::tensor_no_huge(rng, &input), random::tensor(rng, &s)];
    let ops = format!(
        "  %r0 = \"stablehlo.reduce_window\"(%a0, %a1) ({{\n  ^bb0(%x: {s}, %y: {s}):\n    %z = stablehlo.{op} %x, %y : {s}\n    stablehlo.return %z : {s}\n  }}) {{window_dimensions = array<i64: {}>, window_strides = array<i64: {}>, base_dilations = array<i64: {}>, window_dilations = array<i64: {}>, padding = {}}} : ({input}, {s}) -> {out}",
        list(&g.window),
        list(&g.strides),
        list(&g.base),
        list(&g.wdil),
        g.padding_attr()
    );
    Case::with_inputs(inputs, &ops, &[out])
}

#[test]
fn reduce_window_random_geometry_every_dtype() {
    let mut rng = Rng::new(41);
    let dtypes = [
        DType::F32,
        DType::F64,
        DType::BF16,
        DType::F16,
        DType::I32,
        DType::U8,
        DType::I64,
        DType::Bool,
    ];
    for i in 0..120 {
        let dtype = dtypes[i % dtypes.len()];
        let op = *rng.pick(&["add", "maximum", "minimum", "multiply"]);
        let rank = 1 + rng.below(3) as usize;
        let g = Geometry::random(&mut rng, rank, i % 2 == 0);
        check(
            &reduce_window_case(&mut rng, &g, dtype, op),
            Tolerance::Exact,
            Expect::Native,
        );
    }
}

#[test]
fn max_and_avg_pool_nhwc() {
    let mut rng = Rng::new(42);
    for op in ["maximum", "add"] {
        let g = Geometry {
            shape: vec![2, 17, 15, 3],
            window: vec![1, 3, 3, 1],
            strides: vec![1, 2, 2, 1],
            base: vec![1; 4],
            wdil: vec![1; 4],
            pad: vec![(0, 0), (1, 1), (1, 1), (0, 0)],
        };
        check(
            &reduce_window_case(&mut rng, &g, DType::F32, op),
            Tolerance::Exact,
            Expect::Native,
        );
    }
}

fn select_and_scatter_case(rng: &mut Rng, g: &Geometry, dtype: DType, dir: &str) -> Case {
    let operand = ty(&g.shape, dtype);
    let s = ty(&[], dtype);
    let source = ty(&g.out_shape(), dtype);
    let inputs = vec![
        random::tensor(rng, &operand),
        random::tensor_no_huge(rng, &source),
        random::tensor(rng, &s),
    ];
    let ops = format!(
        "  %r0 = \"stablehlo.select_and_scatter\"(%a0, %a1, %a2) ({{\n  ^bb0(%x: {s}, %y: {s}):\n    %c = stablehlo.compare {dir}, %x, %y : ({s}, {s}) -> tensor<i1>\n    stablehlo.return %c : tensor<i1>\n  }}, {{\n  ^bb0(%x: {s}, %y: {s}):\n    %z = stablehlo.add %x, %y : {s}\n    stablehlo.return %z : {s}\n  }}) {{window_dimensions = array<i64: {}>, window_strides = array<i64: {}>, padding = {}}} : ({operand}, {source}, {s}) -> {operand}",
        list(&g.window),
        list(&g.strides),
        g.padding_attr()
    );
    Case::with_inputs(inputs, &ops, &[operand])
}

#[test]
fn select_and_scatter_pool_gradients() {
    let mut rng = Rng::new(43);
    let dtypes = [DType::F32, DType::BF16, DType::F64, DType::I32, DType::F16];
    for i in 0..80 {
        let dtype = dtypes[i % dtypes.len()];
        let dir = *rng.pick(&["GE", "LE", "GT"]);
        let rank = 1 + rng.below(3) as usize;
        let g = Geometry::random(&mut rng, rank, false);
        check(
            &select_and_scatter_case(&mut rng, &g, dtype, dir),
            Tolerance::Exact,
            Expect::Native,
        );
    }
}

/// Windows that leave the trailing dimensions alone (NHWC pooling with 8 or more channels,
/// or a window over the leading dimension only) take the kernels' contiguous-run paths;
/// padding holes, strides, overlapping windows and ties (integers, `GT`) included.
#[test]
fn pooling_over_contiguous_channels_matches_exactly() {
    let mut rng = Rng::new(45);
    let geometries = [
        (
            vec![2, 9, 11, 16],
            vec![1, 3, 3, 1],
            vec![1, 2, 2, 1],
            (1, 1),
        ),
        (vec![1, 8, 8, 9], vec![1, 2, 2, 1], vec![1, 2, 2, 1], (0, 0)),
        (
            vec![3, 6, 7, 33],
            vec![1, 3, 2, 1],
            vec![1, 1, 2, 1],
            (2, 0),
        ),
        (vec![20, 3, 5], vec![4, 1, 1], vec![3, 1, 1], (1, 2)),
    ];
    let dtypes = [DType::F32, DType::BF16, DType::I32, DType::F64, DType::U8];
    for (i, (shape, window, strides, (lo, hi))) in geometries.into_iter().enumerate() {
        let rank = shape.len();
        let mut pad = vec![(0, 0); rank];
        // Pad the windowed dimensions only: the trailing ones must stay untouched.
        for d in 0..rank {
            if window[d] > 1 {
                pad[d] = (lo, hi);
            }
        }
        let g = Geometry {
            shape,
            window,
            strides,
            base: vec![1; rank],
            wdil: vec![1; rank],
            pad,
        };
        for (k, &dtype) in dtypes.iter().enumerate() {
            let op = ["maximum", "add", "minimum", "multiply"][(i + k) % 4];
            check(
                &reduce_window_case(&mut rng, &g, dtype, op),
                Tolerance::Exact,
                Expect::Native,
            );
            if dtype != DType::U8 {
                let dir = ["GE", "GT", "LE"][(i + k) % 3];
                check(
                    &select_and_scatter_case(&mut rng, &g, dtype, dir),
                    Tolerance::Exact,
                    Expect::Native,
                );
            }
        }
    }
}

/// The ops of the CLI's JAX golden `name` that run on the interpreter fallback when compiled.
fn golden_fallbacks(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../systolic-cli/tests/data")
        .join(name)
        .join("module.mlir");
    let module = support::parse(&std::fs::read_to_string(path).unwrap());
    let exe = support::compile_main(&module);
    exe.fallback_ops().iter().map(|f| f.op.clone()).collect()
}

#[test]
fn jax_window_goldens_run_natively() {
    for golden in ["maxpool", "cumsum"] {
        let fallbacks = golden_fallbacks(golden);
        assert!(
            !fallbacks
                .iter()
                .any(|op| op.contains("window") || op.contains("select_and_scatter")),
            "{golden}: {fallbacks:?}"
        );
    }
}

#[test]
fn cumulative_reductions_take_the_prefix_path_exactly() {
    let mut rng = Rng::new(44);
    let dtypes = [
        DType::F32,
        DType::BF16,
        DType::F16,
        DType::F64,
        DType::I32,
        DType::U8,
    ];
    for dtype in dtypes {
        for op in ["add", "maximum", "minimum", "multiply"] {
            for (shape, d) in [
                (vec![7], 0),
                (vec![3, 7], 1),
                (vec![5, 4, 3], 1),
                (vec![2, 9], 0),
                (vec![40, 33], 1),
                (vec![0, 4], 1),
            ] {
                let n = shape[d];
                let rank = shape.len();
                let mut window = vec![1; rank];
                window[d] = n;
                let mut pad = vec![(0, 0); rank];
                pad[d] = (n - 1, 0);
                let g = Geometry {
                    shape: shape.clone(),
                    window,
                    strides: vec![1; rank],
                    base: vec![1; rank],
                    wdil: vec![1; rank],
                    pad,
                };
                for _ in 0..3 {
                    check(
                        &reduce_window_case(&mut rng, &g, dtype, op),
                        Tolerance::Exact,
                        Expect::Native,
                    );
                }
            }
        }
    }
}
