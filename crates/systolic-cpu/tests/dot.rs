//! DotPlan against the interpreter (the oracle) on random inputs: shapes with size-0/1
//! dimensions, transposed operands, batch dimensions anywhere, several contracting dimensions,
//! and every dtype path (gemm f32/f64, AVX512-BF16, VNNI, their portable twins, the converted
//! and wrapping paths).
//!
//! Tolerance for float results: the interpreter sums in f64 and rounds once; f32 accumulation
//! may differ by `2 · K · eps_f32 · Σ|a||b|` (the standard bound on a recursive sum), plus one
//! ulp of the result dtype for the final rounding. `Σ|a||b|` is computed exactly by the
//! interpreter on the absolute values. Integer and boolean results must be equal.

use systolic_cpu::kernels::dot::layout::DotGeometry;
use systolic_cpu::kernels::dot::packed::{amx, bf16::Bf16Kernel, int8::I8Kernel};
use systolic_cpu::kernels::dot::{DotPlan, DotRoute};
use systolic_cpu::CpuBuffer;
use systolic_interp::ops::linalg::dot::dot_general;
use systolic_ir::{DType, Data, DotDimensionNumbers, Tensor, TensorType};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// A random tensor of `dtype` covering its range (floats in [-2, 2), integers over all values).
fn random(rng: &mut Rng, shape: &[i64], dtype: DType) -> Tensor {
    let ty = TensorType::new(shape.to_vec(), dtype);
    let n = ty.num_elements();
    let data = if dtype.is_float() {
        Data::Float((0..n).map(|_| 2.0 * rng.unit()).collect())
    } else if dtype.is_signed_integer() {
        Data::Int((0..n).map(|_| rng.next() as i64).collect())
    } else if dtype.is_unsigned_integer() {
        Data::UInt((0..n).map(|_| rng.next()).collect())
    } else {
        Data::Bool((0..n).map(|_| rng.next() & 1 == 1).collect())
    };
    Tensor::new(ty, data).expect("random tensor")
}

fn abs(t: &Tensor) -> Tensor {
    let v = t.to_f64_vec().iter().map(|x| x.abs()).collect();
    Tensor::from_f64(t.shape().to_vec(), DType::F64, v).unwrap()
}

fn dims(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> DotDimensionNumbers {
    DotDimensionNumbers {
        lhs_batching_dimensions: lb.to_vec(),
        rhs_batching_dimensions: rb.to_vec(),
        lhs_contracting_dimensions: lc.to_vec(),
        rhs_contracting_dimensions: rc.to_vec(),
    }
}

/// Unit roundoff of the accumulation a route uses for float results.
fn accumulation_eps(out: DType, route: DotRoute) -> f64 {
    match (out, route) {
        (DType::F64, _) => f64::EPSILON / 2.0,
        _ => f32::EPSILON as f64 / 2.0,
    }
}

/// Runs the plan (optionally forced onto `route`) and compares with the interpreter.
fn check(
    seed: u64,
    lhs_shape: &[i64],
    rhs_shape: &[i64],
    dn: &DotDimensionNumbers,
    (lt, rt, ot): (DType, DType, DType),
    route: Option<DotRoute>,
) -> DotRoute {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let lhs = random(&mut rng, lhs_shape, lt);
    let rhs = random(&mut rng, rhs_shape, rt);
    let ltt = TensorType::new(lhs_shape.to_vec(), lt);
    let rtt = TensorType::new(rhs_shape.to_vec(), rt);
    let out_shape = DotGeometry::new(&ltt, &rtt, dn)
        .expect("geometry")
        .out_shape;
    let out_ty = TensorType::new(out_shape, ot);
    let mut plan = DotPlan::new(&ltt, &rtt, dn, &out_ty).expect("plan");
    if let Some(r) = route {
        plan = plan.with_route(r);
    }
    let mut out = CpuBuffer::zeros(out_ty.clone());
    plan.run(
        &CpuBuffer::from_tensor(&lhs),
        &CpuBuffer::from_tensor(&rhs),
        &mut out,
    )
    .expect("run");
    let want = dot_general(&lhs, &rhs, dn, &out_ty).expect("interpreter");
    let got = out.to_tensor();
    let k: i64 = dn
        .lhs_contracting_dimensions
        .iter()
        .map(|&d| lhs_shape[d as usize])
        .product();
    let ctx = format!(
        "{lt}{lhs_shape:?} x {rt}{rhs_shape:?} -> {out_ty} via {:?}",
        plan.route()
    );
    if ot.is_float() {
        let mag = dot_general(
            &abs(&lhs),
            &abs(&rhs),
            dn,
            &TensorType::new(out_ty.shape.clone(), DType::F64),
        )
        .unwrap()
        .to_f64_vec();
        let eps = accumulation_eps(ot, plan.route());
        let out_ulp = 2f64.powi(-(ot.mantissa_bits().unwrap() as i32));
        for (i, ((g, w), m)) in got
            .to_f64_vec()
            .iter()
            .zip(want.to_f64_vec())
            .zip(mag)
            .enumerate()
        {
            let acc = 2.0 * k as f64 * eps * m;
            let tol = acc + out_ulp * (w.abs() + acc) + 1e-30;
            assert!(
                (g - w).abs() <= tol,
                "{ctx}: element {i} is {g}, interpreter {w} (tolerance {tol})"
            );
        }
    } else {
        assert_eq!(got, want, "{ctx}");
    }
    plan.route()
}

const MATMUL: (&[i64], &[i64], &[i64], &[i64]) = (&[], &[], &[1], &[0]);

fn matmul_dims() -> DotDimensionNumbers {
    dims(MATMUL.0, MATMUL.1, MATMUL.2, MATMUL.3)
}

/// (M, K, N) including empty and unit dimensions and sizes around the tile edges.
const SHAPES: [(i64, i64, i64); 9] = [
    (1, 1, 1),
    (0, 3, 4),
    (3, 0, 4),
    (5, 7, 0),
    (1, 9, 33),
    (15, 1, 31),
    (17, 33, 65),
    (29, 130, 47),
    (64, 64, 64),
];

#[test]
fn dot_f32_matmul_shapes() {
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        let r = check(
            i as u64,
            &[m, k],
            &[k, n],
            &matmul_dims(),
            (DType::F32, DType::F32, DType::F32),
            None,
        );
        assert_eq!(r, DotRoute::F32);
    }
}

#[test]
fn dot_f64_matmul_shapes() {
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        let r = check(
            i as u64,
            &[m, k],
            &[k, n],
            &matmul_dims(),
            (DType::F64, DType::F64, DType::F64),
            None,
        );
        assert_eq!(r, DotRoute::F64);
    }
}

#[test]
fn dot_f32_transposed_operands() {
    // lhs [K, M] (contract 0), rhs [N, K] (contract 1): both transposed.
    let dn = dims(&[], &[], &[0], &[1]);
    check(
        1,
        &[37, 20],
        &[23, 37],
        &dn,
        (DType::F32, DType::F32, DType::F32),
        None,
    );
    let dn = dims(&[], &[], &[0], &[0]);
    check(
        2,
        &[37, 20],
        &[37, 23],
        &dn,
        (DType::F32, DType::F32, DType::F32),
        None,
    );
}

#[test]
fn dot_f32_batch_dimensions_anywhere() {
    // Batch last on lhs, first on rhs.
    let dn = dims(&[2], &[0], &[1], &[1]);
    check(
        3,
        &[6, 9, 4],
        &[4, 9, 5],
        &dn,
        (DType::F32, DType::F32, DType::F32),
        None,
    );
    // Two batch dims in swapped order, two contracting dims, split free dims (gathered).
    let dn = dims(&[0, 3], &[1, 0], &[2, 4], &[3, 2]);
    check(
        4,
        &[2, 5, 3, 4, 6],
        &[4, 2, 6, 3, 7],
        &dn,
        (DType::F32, DType::F32, DType::F32),
        None,
    );
    // Many small matrices (parallel over the batch).
    let dn = dims(&[0], &[0], &[2], &[1]);
    check(
        5,
        &[40, 8, 16],
        &[40, 16, 8],
        &dn,
        (DType::F32, DType::F32, DType::F32),
        None,
    );
    // Matrix-vector and vector-vector.
    check(
        6,
        &[7, 11],
        &[11],
        &matmul_dims(),
        (DType::F32, DType::F32, DType::F32),
        None,
    );
    check(
        7,
        &[11],
        &[11],
        &dims(&[], &[], &[0], &[0]),
        (DType::F32, DType::F32, DType::F32),
        None,
    );
}

#[test]
fn dot_bf16_to_f32_and_bf16() {
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        for out in [DType::F32, DType::BF16] {
            let r = check(
                10 + i as u64,
                &[m, k],
                &[k, n],
                &matmul_dims(),
                (DType::BF16, DType::BF16, out),
                None,
            );
            assert!(
                matches!(r, DotRoute::Bf16(_) | DotRoute::AmxBf16 | DotRoute::ViaF32),
                "{r:?}"
            );
        }
    }
    // Several K blocks, parallel row chunks and edge tiles, transposed and batched.
    check(
        30,
        &[200, 1001],
        &[1001, 150],
        &matmul_dims(),
        (DType::BF16, DType::BF16, DType::F32),
        None,
    );
    let dn = dims(&[1], &[0], &[0], &[2]);
    check(
        31,
        &[45, 3, 30],
        &[3, 33, 45],
        &dn,
        (DType::BF16, DType::BF16, DType::BF16),
        None,
    );
}

/// The bf16 routes this machine can run besides the default one.
fn bf16_routes() -> Vec<DotRoute> {
    let mut routes = vec![DotRoute::Bf16(Bf16Kernel::Scalar)];
    if Bf16Kernel::detect() != Bf16Kernel::Scalar {
        routes.push(DotRoute::Bf16(Bf16Kernel::detect()));
    }
    if amx::available() {
        routes.push(DotRoute::AmxBf16);
    }
    routes
}

#[test]
fn dot_bf16_every_kernel() {
    for route in bf16_routes() {
        for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
            check(
                40 + i as u64,
                &[m, k],
                &[k, n],
                &matmul_dims(),
                (DType::BF16, DType::BF16, DType::F32),
                Some(route),
            );
        }
        // Several K blocks (AMX: 2048 bf16 per block, the second one partial), N blocks and
        // edge tiles.
        check(
            49,
            &[70, 2100],
            &[2100, 300],
            &matmul_dims(),
            (DType::BF16, DType::BF16, DType::BF16),
            Some(route),
        );
        let dn = dims(&[1], &[0], &[0], &[2]);
        check(
            48,
            &[45, 3, 30],
            &[3, 33, 45],
            &dn,
            (DType::BF16, DType::BF16, DType::F32),
            Some(route),
        );
    }
}

/// A bf16 result is the f32 result rounded once (nearest even), bit for bit, on every bf16
/// route: AMX rounds each tile as it finishes (one K block) or a scratch matrix (several),
/// the other routes an f32 scratch; edge tiles, one and several K blocks, batches.
#[test]
fn dot_bf16_result_is_the_f32_result_rounded_once() {
    let cases: [(&[i64], &[i64], DotDimensionNumbers); 5] = [
        (&[17, 33], &[33, 65], matmul_dims()),
        (&[64, 64], &[64, 64], matmul_dims()),
        (&[300, 256], &[256, 130], matmul_dims()),
        (&[70, 2100], &[2100, 40], matmul_dims()),
        (&[3, 45, 70], &[3, 70, 33], dims(&[0], &[0], &[2], &[1])),
    ];
    for route in bf16_routes() {
        for (i, (ls, rs, dn)) in cases.iter().enumerate() {
            let mut rng = Rng(0x5eed + i as u64);
            let lhs = CpuBuffer::from_tensor(&random(&mut rng, ls, DType::BF16));
            let rhs = CpuBuffer::from_tensor(&random(&mut rng, rs, DType::BF16));
            let run = |out: DType| {
                let (lt, rt) = (lhs.ty().clone(), rhs.ty().clone());
                let shape = DotGeometry::new(&lt, &rt, dn).unwrap().out_shape;
                let plan = DotPlan::new(&lt, &rt, dn, &TensorType::new(shape.clone(), out))
                    .unwrap()
                    .with_route(route);
                let mut o = CpuBuffer::zeros(TensorType::new(shape, out));
                plan.run(&lhs, &rhs, &mut o).unwrap();
                o.to_tensor().to_f64_vec()
            };
            let (wide, narrow) = (run(DType::F32), run(DType::BF16));
            for (j, (w, n)) in wide.iter().zip(&narrow).enumerate() {
                let want = half::bf16::from_f32(*w as f32).to_f64();
                assert_eq!(
                    n.to_bits(),
                    want.to_bits(),
                    "{ls:?} x {rs:?} via {route:?}: element {j} is {n}, the f32 result {w} rounds to {want}"
                );
            }
        }
    }
}

/// AMX on both operands transposed, over several row chunks (the last one ragged, packed
/// rows read at a stride) and several K blocks.
#[test]
fn dot_amx_transposed_operands_several_chunks() {
    if !amx::available() {
        return;
    }
    let dn = dims(&[], &[], &[0], &[1]);
    for (seed, k, types, route) in [
        (
            80,
            2100,
            (DType::BF16, DType::BF16, DType::F32),
            DotRoute::AmxBf16,
        ),
        (
            81,
            4200,
            (DType::I8, DType::I8, DType::I32),
            DotRoute::AmxInt8,
        ),
        // Odd K: the last packed word holds one element.
        (
            82,
            333,
            (DType::BF16, DType::BF16, DType::BF16),
            DotRoute::AmxBf16,
        ),
    ] {
        check(seed, &[k, 300], &[40, k], &dn, types, Some(route));
    }
}

#[test]
fn dot_bf16_portable_kernel() {
    let scalar = Some(DotRoute::Bf16(Bf16Kernel::Scalar));
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        check(
            40 + i as u64,
            &[m, k],
            &[k, n],
            &matmul_dims(),
            (DType::BF16, DType::BF16, DType::F32),
            scalar,
        );
    }
    check(
        49,
        &[30, 801],
        &[801, 40],
        &matmul_dims(),
        (DType::BF16, DType::BF16, DType::BF16),
        scalar,
    );
}

#[test]
fn dot_int8_vnni_and_portable() {
    let mut routes = vec![
        DotRoute::Int8(I8Kernel::detect()),
        DotRoute::Int8(I8Kernel::Scalar),
    ];
    if amx::available() {
        routes.push(DotRoute::AmxInt8);
    }
    for route in routes {
        let route = Some(route);
        for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
            check(
                50 + i as u64,
                &[m, k],
                &[k, n],
                &matmul_dims(),
                (DType::I8, DType::I8, DType::I32),
                route,
            );
            check(
                60 + i as u64,
                &[m, k],
                &[k, n],
                &matmul_dims(),
                (DType::I8, DType::I8, DType::I8),
                route,
            );
        }
        check(
            70,
            &[100, 1003],
            &[1003, 90],
            &matmul_dims(),
            (DType::I8, DType::I8, DType::I32),
            route,
        );
        // Several AMX K blocks (4096 int8 per block).
        check(
            74,
            &[40, 4200],
            &[4200, 50],
            &matmul_dims(),
            (DType::I8, DType::I8, DType::I32),
            route,
        );
        let dn = dims(&[0], &[2], &[1], &[0]);
        check(
            71,
            &[3, 37, 21],
            &[37, 19, 3],
            &dn,
            (DType::I8, DType::I8, DType::I16),
            route,
        );
        check(
            72,
            &[9, 13],
            &[13, 5],
            &matmul_dims(),
            (DType::I8, DType::I8, DType::U32),
            route,
        );
    }
    let r = check(
        73,
        &[5, 6],
        &[6, 7],
        &matmul_dims(),
        (DType::I8, DType::I8, DType::I32),
        None,
    );
    assert!(matches!(r, DotRoute::Int8(_) | DotRoute::AmxInt8));
}

#[test]
fn dot_converted_float_paths() {
    let cases = [
        (DType::F16, DType::F16, DType::F16),
        (DType::F16, DType::F16, DType::F32),
        (DType::BF16, DType::F32, DType::F32),
        (DType::I8, DType::I8, DType::F32),
        (DType::F32, DType::F32, DType::BF16),
        (DType::F32, DType::F32, DType::F64),
        (DType::I16, DType::U8, DType::F64),
    ];
    for (i, &types) in cases.iter().enumerate() {
        let r = check(
            80 + i as u64,
            &[13, 27],
            &[27, 9],
            &matmul_dims(),
            types,
            None,
        );
        assert!(
            matches!(r, DotRoute::ViaF32 | DotRoute::ViaF64),
            "{types:?}: {r:?}"
        );
    }
}

/// Products converted to f32 whose long side exceeds one slab (`kernels::dot::slabs`: 2²¹
/// converted elements, at least 256 lines): cut by result rows (a long lhs) and by result
/// columns (a long rhs), each operand read in place or transposed, the last slab ragged, into
/// f32 (written in place) and narrower results (an accumulator per slab).
#[test]
fn dot_via_f32_in_slabs() {
    let (m, k) = (600, 8192);
    let cases = [
        // (lhs shape, rhs shape, dimension numbers)
        (vec![m, k], vec![k, 2], matmul_dims()),
        (vec![k, m], vec![2, k], dims(&[], &[], &[0], &[1])),
        (vec![2, k], vec![k, m], matmul_dims()),
        (vec![k, 2], vec![m, k], dims(&[], &[], &[0], &[1])),
    ];
    for (i, (l, r, dn)) in cases.iter().enumerate() {
        for types in [
            (DType::BF16, DType::BF16, DType::BF16),
            (DType::BF16, DType::BF16, DType::F32),
            (DType::F16, DType::F16, DType::F16),
            (DType::I8, DType::I8, DType::F32),
        ] {
            check(120 + i as u64, l, r, dn, types, Some(DotRoute::ViaF32));
        }
    }
}

#[test]
fn dot_wrapping_integer_and_bool_paths() {
    let cases = [
        (DType::I32, DType::I32, DType::I32),
        (DType::I64, DType::I64, DType::I64),
        (DType::U8, DType::U8, DType::U8),
        (DType::U16, DType::U16, DType::U32),
        (DType::I8, DType::I8, DType::I64),
        (DType::U64, DType::U64, DType::U64),
        (DType::F32, DType::F32, DType::I32),
        (DType::Bool, DType::Bool, DType::Bool),
    ];
    for (i, &types) in cases.iter().enumerate() {
        let dn = dims(&[0], &[0], &[2], &[1]);
        let r = check(90 + i as u64, &[2, 6, 11], &[2, 11, 4], &dn, types, None);
        assert!(
            matches!(r, DotRoute::Wrapping | DotRoute::Bool),
            "{types:?}: {r:?}"
        );
    }
}

#[test]
fn dot_bad_input_names_the_problem() {
    let l = TensorType::new(vec![3, 4], DType::F32);
    let r = TensorType::new(vec![4, 5], DType::F32);
    let wrong_out = TensorType::new(vec![3, 6], DType::F32);
    let e = DotPlan::new(&l, &r, &matmul_dims(), &wrong_out).unwrap_err();
    assert!(
        e.message.contains("tensor<3x6xf32>") && e.message.contains("[3, 5]"),
        "{e}"
    );
    let plan = DotPlan::new(
        &l,
        &r,
        &matmul_dims(),
        &TensorType::new(vec![3, 5], DType::F32),
    )
    .unwrap();
    let mut out = CpuBuffer::zeros(TensorType::new(vec![3, 5], DType::F32));
    let bad = CpuBuffer::zeros(TensorType::new(vec![4, 4], DType::F32));
    let e = plan.run(&bad, &bad, &mut out).unwrap_err();
    assert!(e.message.contains("lhs of type tensor<4x4xf32>"), "{e}");
}

#[test]
fn dot_known_values() {
    // [[1, 2], [3, 4]] · [[5, 6], [7, 8]] = [[19, 22], [43, 50]] on every float route.
    for dtype in [DType::F32, DType::F64, DType::BF16, DType::F16] {
        let ty = TensorType::new(vec![2, 2], dtype);
        let a = CpuBuffer::from_tensor(
            &Tensor::from_f64(vec![2, 2], dtype, vec![1., 2., 3., 4.]).unwrap(),
        );
        let b = CpuBuffer::from_tensor(
            &Tensor::from_f64(vec![2, 2], dtype, vec![5., 6., 7., 8.]).unwrap(),
        );
        let plan = DotPlan::new(&ty, &ty, &matmul_dims(), &ty).unwrap();
        let mut out = CpuBuffer::zeros(ty.clone());
        plan.run(&a, &b, &mut out).unwrap();
        assert_eq!(
            out.to_tensor().to_f64_vec(),
            vec![19., 22., 43., 50.],
            "{dtype}"
        );
    }
}

/// Attention's products read their operands in place with two batch levels: the heads
/// `[B, S, H, D]` have batch dimensions (0, 2), which are not adjacent. Checked on every
/// route, with batches large enough to run one product per task, size-1 and size-0 batch
/// dimensions, and odd sizes.
#[test]
fn dot_split_batch_dims_every_route() {
    use systolic_cpu::kernels::dot::layout::OperandAccess;
    let mut routes: Vec<(DType, DType, Option<DotRoute>)> = vec![
        (DType::F32, DType::F32, None),
        (DType::F64, DType::F64, None),
        (DType::F16, DType::F32, None),
        (DType::I32, DType::I32, None),
        (DType::Bool, DType::Bool, None),
        (
            DType::I8,
            DType::I32,
            Some(DotRoute::Int8(I8Kernel::detect())),
        ),
        (
            DType::I8,
            DType::I32,
            Some(DotRoute::Int8(I8Kernel::Scalar)),
        ),
    ];
    for r in bf16_routes() {
        routes.push((DType::BF16, DType::F32, Some(r)));
    }
    if amx::available() {
        routes.push((DType::I8, DType::I32, Some(DotRoute::AmxInt8)));
    }
    // (B, S, H, D): many heads, odd sizes, one batch level of size 1, an empty batch.
    let sizes: [(i64, i64, i64, i64); 5] = [
        (3, 17, 4, 9),
        (2, 33, 3, 40),
        (1, 5, 6, 7),
        (5, 4, 1, 3),
        (0, 4, 2, 3),
    ];
    for (seed, &(b, s, h, d)) in sizes.iter().enumerate() {
        let heads = [b, s, h, d];
        let scores = dims(&[0, 2], &[0, 2], &[3], &[3]);
        let heads_ty = TensorType::new(heads.to_vec(), DType::F32);
        let g = DotGeometry::new(&heads_ty, &heads_ty, &scores).unwrap();
        assert!(
            matches!(g.lhs, OperandAccess::Strided(_))
                && matches!(g.rhs, OperandAccess::Strided(_)),
            "{heads:?}: {g:?}"
        );
        // probabilities [B, H, S, S] × values [B, S, H, D] -> [B, H, S, D].
        let mix = dims(&[0, 1], &[0, 2], &[3], &[1]);
        for &(input, out, route) in &routes {
            let seed = 200 + 10 * seed as u64;
            check(seed, &heads, &heads, &scores, (input, input, out), route);
            check(
                seed + 1,
                &[b, h, s, s],
                &heads,
                &mix,
                (input, input, out),
                route,
            );
        }
    }
}
