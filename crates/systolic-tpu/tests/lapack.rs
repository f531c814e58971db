//! JAX's CPU LAPACK custom calls are costed by their operation counts, not as opaque calls.

use systolic_ir::text::parse_module;
use systolic_tpu::{chip, simulate, SimOptions};

#[test]
fn lapack_calls_cost_their_flops() {
    let m = parse_module(
        "func.func @main(%a: tensor<4x512x512xf32>) -> (tensor<4x512x512xf32>, tensor<4x512xf32>) {
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<4x512x512xf32>) -> (tensor<4x512x512xf32>, tensor<4x512xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<4x512x512xf32>, tensor<4x512xf32>
}",
        "eigh.mlir",
    )
    .unwrap();
    let report = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap();
    // syevd with vectors: 9·n³ per matrix.
    let want = 4.0 * 9.0 * 512f64.powi(3);
    assert!(
        (report.flops - want).abs() <= 1e-9 * want,
        "{} vs {want}",
        report.flops
    );
    assert!(
        !report
            .assumptions
            .iter()
            .any(|a| a.contains("memory traffic only")),
        "{:?}",
        report.assumptions
    );
    assert!(report.time_s > 0.0);
}

/// XLA's own targets, which a program lowered for TPUs holds (`Qr`,
/// `ProductOfElementaryHouseholderReflectors`, `Eigh`, `LuDecomposition`), are costed the
/// same way, complex ones at four real operations per complex one.
#[test]
fn xla_tpu_targets_cost_their_flops() {
    let m = parse_module(
        "func.func @main(%a: tensor<2x256x256xf32>, %c: tensor<256x256xcomplex<f32>>) -> (tensor<2x256x256xf32>, tensor<2x256xi32>, tensor<256x256xcomplex<f32>>) {
  %0:3 = stablehlo.custom_call @LuDecomposition(%a) {api_version = 2 : i32, backend_config = \"\"} : (tensor<2x256x256xf32>) -> (tensor<2x256x256xf32>, tensor<2x256xi32>, tensor<2x256xi32>)
  %1:2 = stablehlo.custom_call @Eigh(%c) {backend_config = \"1,1,100,1e-6\"} : (tensor<256x256xcomplex<f32>>) -> (tensor<256x256xcomplex<f32>>, tensor<256xf32>)
  return %0#0, %0#1, %1#0 : tensor<2x256x256xf32>, tensor<2x256xi32>, tensor<256x256xcomplex<f32>>
}",
        "tpu_linalg.mlir",
    )
    .unwrap();
    let report = simulate(&m, &chip("v5e").unwrap(), &SimOptions::default()).unwrap();
    let n = 256f64;
    // LU: n³ − n³/3 per matrix; the Hermitian eigensolver with vectors: 9·n³, ×4 for complex.
    let want = 2.0 * (n.powi(3) - n.powi(3) / 3.0) + 4.0 * 9.0 * n.powi(3);
    assert!(
        (report.flops - want).abs() <= 1e-9 * want,
        "{} vs {want}",
        report.flops
    );
}
