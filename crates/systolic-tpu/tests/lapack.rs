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
