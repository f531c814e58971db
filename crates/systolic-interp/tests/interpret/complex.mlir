// Complex numbers and stablehlo.fft. Written by make_complex_checks.py (expected values from
// numpy in complex128); do not edit by hand.

func.func @exponential_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.exponential %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(-3.590476585567813, 2.6821660671324894), (0.41454064950578356, 0.22646458896647162), (-13.128783081462158, 15.200784463067954), (0.13427935232118765, -0.016872890355138965)]> : tensor<4xcomplex<f32>>, tolerance = 4.017e-05
  func.return
}

// -----

func.func @log_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.log %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(1.0700330817481354, 1.0303768265243125), (-0.10381968238912226, 2.5535900500422257), (1.6094379124341003, -0.9272952180016122), (0.6950965007677741, -3.079173843593836)]> : tensor<4xcomplex<f32>>, tolerance = 6.313e-06
  func.return
}

// -----

func.func @sqrt_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.sqrt %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(1.4858458781822983, 0.8412716408576514), (0.27512526135016874, 0.9086770105119854), (2.0, -1.0), (0.04417263143154747, -1.4149032551265077)]> : tensor<4xcomplex<f32>>, tolerance = 4.472e-06
  func.return
}

// -----

func.func @rsqrt_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.rsqrt %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.5096409316961854, -0.2885537922552081), (0.30522407291491205, -1.0080866320727055), (0.4, 0.2), (0.022043304349315118, 0.7060739210414216)]> : tensor<4xcomplex<f32>>, tolerance = 2.107e-06
  func.return
}

// -----

func.func @sine_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.sine %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(6.116928012369312, 0.42797453450615125), (-0.7686335646933926, 0.3812796346521782), (3.853738037919377, 27.016813258003932), (-0.9164105676434869, 0.052153924904408386)]> : tensor<4xcomplex<f32>>, tolerance = 5.458e-05
  func.return
}

// -----

func.func @cosine_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.cosine %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.43378099760770306, -6.035048637766573), (0.8250713669946073, 0.35519875789073846), (-27.034945603074224, 3.851153334811777), (-0.4194022191776395, -0.11395840494168002)]> : tensor<4xcomplex<f32>>, tolerance = 5.462e-05
  func.return
}

// -----

func.func @tan_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.tan %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.0019273435237456358, 1.0134287782038933), (-0.618096394806202, 0.7282118012804722), (-0.00018734620462947845, -0.9993559873814732), (2.0033447309700536, -0.6686943515558468)]> : tensor<4xcomplex<f32>>, tolerance = 4.224e-06
  func.return
}

// -----

func.func @tanh_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.tanh %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.9677868021527741, -0.0926378362684199), (-0.7360841705511909, 0.29089346182961806), (1.000709536067233, -0.0049082580674960595), (-0.9650874212512804, -0.008749255167012174)]> : tensor<4xcomplex<f32>>, tolerance = 2.001e-06
  func.return
}

// -----

func.func @negate_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.negate %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(-1.5, -2.5), (0.75, -0.5), (-3.0, 4.0), (2.0, 0.125)]> : tensor<4xcomplex<f32>>, tolerance = 1.000e-05
  func.return
}

// -----

func.func @sign_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.sign %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.5144957554275266, 0.8574929257125442), (-0.8320502943378436, 0.554700196225229), (0.6000000000000001, -0.8), (-0.9980525784828885, -0.06237828615518053)]> : tensor<4xcomplex<f32>>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @logistic_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.logistic %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(1.1863037852668916, 0.19289797630487535), (0.31072373502641987, 0.1103514883691212), (1.0320721995882685, 0.04019550765508409), (0.11857800412059653, -0.013111529062612846)]> : tensor<4xcomplex<f32>>, tolerance = 2.404e-06
  func.return
}

// -----

func.func @cbrt_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.cbrt %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(1.34514014992199, 0.4810670722742521), (0.6366651614857443, 0.7264883077893568), (1.6289371459221758, -0.5201745023045458), (0.6529488806822518, -1.0784818283816118)]> : tensor<4xcomplex<f32>>, tolerance = 3.420e-06
  func.return
}

// -----

func.func @log_plus_one_small_c64() {
  %a = stablehlo.constant dense<[(9.999999682655225e-21, 9.999999682655225e-21), (-3.000000026176508e-09, 1.999999943436137e-09), (0.5, 0.25), (-0.25, -0.5)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.log_plus_one %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.0, 9.999999682655225e-21), (-3.0000000306765083e-09, 1.999999949436137e-09), (0.41916459520222155, 0.16514867741462683), (-0.1038196823891223, -0.5880026035475675)]> : tensor<4xcomplex<f32>>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @exponential_minus_one_small_c64() {
  %a = stablehlo.constant dense<[(9.999999682655225e-21, 9.999999682655225e-21), (-3.000000026176508e-09, 1.999999943436137e-09), (0.5, 0.25), (-0.25, -0.5)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.exponential_minus_one %a : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(9.999999682655225e-21, 9.999999682655225e-21), (-3.0000000236765077e-09, 1.999999937436137e-09), (0.5974665191199127, 0.4079001700783598), (-0.31653801358996814, -0.37337698488938337)]> : tensor<4xcomplex<f32>>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @add_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.add %a, %b : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(2.0, 1.0), (1.25, 0.75), (2.0, -3.0), (-1.75, 2.875)]> : tensor<4xcomplex<f32>>, tolerance = 7.211e-06
  func.return
}

// -----

func.func @subtract_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.subtract %a, %b : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(1.0, 4.0), (-2.75, 0.25), (4.0, -5.0), (-2.25, -3.125)]> : tensor<4xcomplex<f32>>, tolerance = 1.281e-05
  func.return
}

// -----

func.func @multiply_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.multiply %a, %b : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(4.5, -1.0), (-1.625, 0.8125), (1.0, 7.0), (-0.125, -6.03125)]> : tensor<4xcomplex<f32>>, tolerance = 1.414e-05
  func.return
}

// -----

func.func @divide_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.divide %a, %b : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(-1.2, 1.3999999999999997), (-0.3384615384615385, 0.2923076923076923), (-3.5, 0.5), (-0.09655172413793102, 0.6586206896551724)]> : tensor<4xcomplex<f32>>, tolerance = 7.071e-06
  func.return
}

// -----

func.func @power_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.power %a, %b : tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(3.705089623453057, -7.100593497506979), (0.15470787989594179, -0.40025334997807627), (-0.41584203475119264, 0.2874693744033243), (3087.429295835802, 11829.435566038472)]> : tensor<4xcomplex<f32>>, tolerance = 2.445e-02
  func.return
}

// -----

func.func @real_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.real %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const %r, dense<[1.5, -0.75, 3.0, -2.0]> : tensor<4xf32>, tolerance = 6.000e-06
  func.return
}

// -----

func.func @imag_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.imag %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const %r, dense<[2.5, 0.5, -4.0, -0.125]> : tensor<4xf32>, tolerance = 8.000e-06
  func.return
}

// -----

func.func @abs_c64() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const %r, dense<[2.91547594742265, 0.9013878188659974, 5.0, 2.003902442735175]> : tensor<4xf32>, tolerance = 1.000e-05
  func.return
}

// -----

func.func @complex_c64() {
  %a = stablehlo.constant dense<[1.5, -0.75, 3.0, -2.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<[2.5, 0.5, -4.0, -0.125]> : tensor<4xf32>
  %r = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>
  check.expect_eq_const %r, dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  func.return
}

// -----

func.func @compare_lt_c64() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.compare LT, %a, %b, FLOAT : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[true, true, false, false]> : tensor<4xi1>
  func.return
}

// -----

func.func @compare_eq_c64() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[false, false, true, true]> : tensor<4xi1>
  func.return
}

// -----

func.func @compare_ge_c64() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.compare GE, %a, %b, FLOAT : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[false, false, true, true]> : tensor<4xi1>
  func.return
}

// -----

func.func @maximum_c64() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.maximum %a, %b : tensor<4xcomplex<f32>>
  check.expect_eq_const %r, dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f32>>
  func.return
}

// -----

func.func @convert_i32_to_c64() {
  %a = stablehlo.constant dense<[3, -7, 0, 100]> : tensor<4xi32>
  %r = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xcomplex<f32>>
  check.expect_eq_const %r, dense<[(3.0, 0.0), (-7.0, 0.0), (0.0, 0.0), (100.0, 0.0)]> : tensor<4xcomplex<f32>>
  func.return
}

// -----

func.func @convert_c64_to_i32() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.convert %a : (tensor<4xcomplex<f32>>) -> tensor<4xi32>
  check.expect_eq_const %r, dense<[1, 0, 3, -2]> : tensor<4xi32>
  func.return
}

// -----

func.func @dot_general_c64() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, -1.0), (0.0, 0.5)], [(-1.0, 0.0), (3.0, 2.0), (1.0, -1.0)]]> : tensor<2x3xcomplex<f32>>
  %b = stablehlo.constant dense<[[(2.0, 0.0), (0.0, 1.0)], [(1.0, -1.0), (-1.0, 0.5)], [(0.25, 0.0), (2.0, 2.0)]]> : tensor<3x2xcomplex<f32>>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(3.0, -0.875), (-3.5, 4.0)], [(3.25, -1.25), (0.0, -1.5)]]> : tensor<2x2xcomplex<f32>>, tolerance = 1.063e-05
  func.return
}

// -----

func.func @reduce_add_c64() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, -1.0), (0.0, 0.5)], [(-1.0, 0.0), (3.0, 2.0), (1.0, -1.0)]]> : tensor<2x3xcomplex<f32>>
  %b = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce(%a init: %b) applies stablehlo.add across dimensions = [1] : (tensor<2x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(3.0, 0.5), (3.0, 1.0)]> : tensor<2xcomplex<f32>>, tolerance = 6.325e-06
  func.return
}

// -----

func.func @exponential_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.exponential %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(-3.590476585567813, 2.6821660671324894), (0.41454064950578356, 0.22646458896647162), (-13.128783081462158, 15.200784463067954), (0.13427935232118765, -0.016872890355138965)]> : tensor<4xcomplex<f64>>, tolerance = 2.009e-11
  func.return
}

// -----

func.func @log_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.log %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(1.0700330817481354, 1.0303768265243125), (-0.10381968238912226, 2.5535900500422257), (1.6094379124341003, -0.9272952180016122), (0.6950965007677741, -3.079173843593836)]> : tensor<4xcomplex<f64>>, tolerance = 3.157e-12
  func.return
}

// -----

func.func @sqrt_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.sqrt %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(1.4858458781822983, 0.8412716408576514), (0.27512526135016874, 0.9086770105119854), (2.0, -1.0), (0.04417263143154747, -1.4149032551265077)]> : tensor<4xcomplex<f64>>, tolerance = 2.236e-12
  func.return
}

// -----

func.func @rsqrt_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.rsqrt %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.5096409316961854, -0.2885537922552081), (0.30522407291491205, -1.0080866320727055), (0.4, 0.2), (0.022043304349315118, 0.7060739210414216)]> : tensor<4xcomplex<f64>>, tolerance = 1.053e-12
  func.return
}

// -----

func.func @sine_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.sine %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(6.116928012369312, 0.42797453450615125), (-0.7686335646933926, 0.3812796346521782), (3.853738037919377, 27.016813258003932), (-0.9164105676434869, 0.052153924904408386)]> : tensor<4xcomplex<f64>>, tolerance = 2.729e-11
  func.return
}

// -----

func.func @cosine_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.cosine %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.43378099760770306, -6.035048637766573), (0.8250713669946073, 0.35519875789073846), (-27.034945603074224, 3.851153334811777), (-0.4194022191776395, -0.11395840494168002)]> : tensor<4xcomplex<f64>>, tolerance = 2.731e-11
  func.return
}

// -----

func.func @tan_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.tan %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.0019273435237456358, 1.0134287782038933), (-0.618096394806202, 0.7282118012804722), (-0.00018734620462947845, -0.9993559873814732), (2.0033447309700536, -0.6686943515558468)]> : tensor<4xcomplex<f64>>, tolerance = 2.112e-12
  func.return
}

// -----

func.func @tanh_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.tanh %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.9677868021527741, -0.0926378362684199), (-0.7360841705511909, 0.29089346182961806), (1.000709536067233, -0.0049082580674960595), (-0.9650874212512804, -0.008749255167012174)]> : tensor<4xcomplex<f64>>, tolerance = 1.001e-12
  func.return
}

// -----

func.func @negate_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.negate %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(-1.5, -2.5), (0.75, -0.5), (-3.0, 4.0), (2.0, 0.125)]> : tensor<4xcomplex<f64>>, tolerance = 5.000e-12
  func.return
}

// -----

func.func @sign_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.sign %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.5144957554275266, 0.8574929257125442), (-0.8320502943378436, 0.554700196225229), (0.6000000000000001, -0.8), (-0.9980525784828885, -0.06237828615518053)]> : tensor<4xcomplex<f64>>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @logistic_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.logistic %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(1.1863037852668916, 0.19289797630487535), (0.31072373502641987, 0.1103514883691212), (1.0320721995882685, 0.04019550765508409), (0.11857800412059653, -0.013111529062612846)]> : tensor<4xcomplex<f64>>, tolerance = 1.202e-12
  func.return
}

// -----

func.func @cbrt_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.cbrt %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(1.34514014992199, 0.4810670722742521), (0.6366651614857443, 0.7264883077893568), (1.6289371459221758, -0.5201745023045458), (0.6529488806822518, -1.0784818283816118)]> : tensor<4xcomplex<f64>>, tolerance = 1.710e-12
  func.return
}

// -----

func.func @log_plus_one_small_c128() {
  %a = stablehlo.constant dense<[(1e-20, 1e-20), (-3e-09, 2e-09), (0.5, 0.25), (-0.25, -0.5)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.log_plus_one %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.0, 1e-20), (-3.0000000306765083e-09, 2.000000006e-09), (0.41916459520222155, 0.16514867741462683), (-0.1038196823891223, -0.5880026035475675)]> : tensor<4xcomplex<f64>>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @exponential_minus_one_small_c128() {
  %a = stablehlo.constant dense<[(1e-20, 1e-20), (-3e-09, 2e-09), (0.5, 0.25), (-0.25, -0.5)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.exponential_minus_one %a : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(1e-20, 1e-20), (-2.9999999975e-09, 1.999999994e-09), (0.5974665191199127, 0.4079001700783598), (-0.31653801358996814, -0.37337698488938337)]> : tensor<4xcomplex<f64>>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @add_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.add %a, %b : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(2.0, 1.0), (1.25, 0.75), (2.0, -3.0), (-1.75, 2.875)]> : tensor<4xcomplex<f64>>, tolerance = 3.606e-12
  func.return
}

// -----

func.func @subtract_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.subtract %a, %b : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(1.0, 4.0), (-2.75, 0.25), (4.0, -5.0), (-2.25, -3.125)]> : tensor<4xcomplex<f64>>, tolerance = 6.403e-12
  func.return
}

// -----

func.func @multiply_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.multiply %a, %b : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(4.5, -1.0), (-1.625, 0.8125), (1.0, 7.0), (-0.125, -6.03125)]> : tensor<4xcomplex<f64>>, tolerance = 7.071e-12
  func.return
}

// -----

func.func @divide_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.divide %a, %b : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(-1.2, 1.3999999999999997), (-0.3384615384615385, 0.2923076923076923), (-3.5, 0.5), (-0.09655172413793102, 0.6586206896551724)]> : tensor<4xcomplex<f64>>, tolerance = 3.536e-12
  func.return
}

// -----

func.func @power_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(0.5, -1.5), (2.0, 0.25), (-1.0, 1.0), (0.25, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.power %a, %b : tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(3.705089623453057, -7.100593497506979), (0.15470787989594179, -0.40025334997807627), (-0.41584203475119264, 0.2874693744033243), (3087.429295835802, 11829.435566038472)]> : tensor<4xcomplex<f64>>, tolerance = 1.223e-08
  func.return
}

// -----

func.func @real_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.real %a : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
  check.expect_almost_eq_const %r, dense<[1.5, -0.75, 3.0, -2.0]> : tensor<4xf64>, tolerance = 3.000e-12
  func.return
}

// -----

func.func @imag_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.imag %a : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
  check.expect_almost_eq_const %r, dense<[2.5, 0.5, -4.0, -0.125]> : tensor<4xf64>, tolerance = 4.000e-12
  func.return
}

// -----

func.func @abs_c128() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.abs %a : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
  check.expect_almost_eq_const %r, dense<[2.91547594742265, 0.9013878188659974, 5.0, 2.003902442735175]> : tensor<4xf64>, tolerance = 5.000e-12
  func.return
}

// -----

func.func @complex_c128() {
  %a = stablehlo.constant dense<[1.5, -0.75, 3.0, -2.0]> : tensor<4xf64>
  %b = stablehlo.constant dense<[2.5, 0.5, -4.0, -0.125]> : tensor<4xf64>
  %r = stablehlo.complex %a, %b : tensor<4xcomplex<f64>>
  check.expect_eq_const %r, dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @compare_lt_c128() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.compare LT, %a, %b, FLOAT : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[true, true, false, false]> : tensor<4xi1>
  func.return
}

// -----

func.func @compare_eq_c128() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[false, false, true, true]> : tensor<4xi1>
  func.return
}

// -----

func.func @compare_ge_c128() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.compare GE, %a, %b, FLOAT : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[false, false, true, true]> : tensor<4xi1>
  func.return
}

// -----

func.func @maximum_c128() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 1.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.maximum %a, %b : tensor<4xcomplex<f64>>
  check.expect_eq_const %r, dense<[(2.0, 0.0), (1.0, 2.0), (2.0, 0.0), (0.0, 3.0)]> : tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @convert_i32_to_c128() {
  %a = stablehlo.constant dense<[3, -7, 0, 100]> : tensor<4xi32>
  %r = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xcomplex<f64>>
  check.expect_eq_const %r, dense<[(3.0, 0.0), (-7.0, 0.0), (0.0, 0.0), (100.0, 0.0)]> : tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @convert_c128_to_i32() {
  %a = stablehlo.constant dense<[(1.5, 2.5), (-0.75, 0.5), (3.0, -4.0), (-2.0, -0.125)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.convert %a : (tensor<4xcomplex<f64>>) -> tensor<4xi32>
  check.expect_eq_const %r, dense<[1, 0, 3, -2]> : tensor<4xi32>
  func.return
}

// -----

func.func @dot_general_c128() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, -1.0), (0.0, 0.5)], [(-1.0, 0.0), (3.0, 2.0), (1.0, -1.0)]]> : tensor<2x3xcomplex<f64>>
  %b = stablehlo.constant dense<[[(2.0, 0.0), (0.0, 1.0)], [(1.0, -1.0), (-1.0, 0.5)], [(0.25, 0.0), (2.0, 2.0)]]> : tensor<3x2xcomplex<f64>>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xcomplex<f64>>, tensor<3x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(3.0, -0.875), (-3.5, 4.0)], [(3.25, -1.25), (0.0, -1.5)]]> : tensor<2x2xcomplex<f64>>, tolerance = 5.315e-12
  func.return
}

// -----

func.func @reduce_add_c128() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, -1.0), (0.0, 0.5)], [(-1.0, 0.0), (3.0, 2.0), (1.0, -1.0)]]> : tensor<2x3xcomplex<f64>>
  %b = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f64>>
  %r = stablehlo.reduce(%a init: %b) applies stablehlo.add across dimensions = [1] : (tensor<2x3xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(3.0, 0.5), (3.0, 1.0)]> : tensor<2xcomplex<f64>>, tolerance = 3.162e-12
  func.return
}

// -----

func.func @fft_6_1d_c64() {
  %a = stablehlo.constant dense<[(0.5003818869590759, -1.9789388179779053), (1.5888551473617554, 1.2849136590957642), (1.1027427911758423, 1.1882777214050293), (-1.0991712808609009, -0.12826019525527954), (-0.7993348836898804, -0.7878702878952026), (1.4942138195037842, -0.8862975239753723)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.fft %a, type = FFT, length = [6] : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(2.7876874804496765, -1.3081754446029663), (6.581102116722283, -3.5807836524951915), (-2.123098167249154, -0.9414250053162354), (-1.1801078915596004, -1.848887324333191), (-2.4609574949059976, -4.071996589780353), (-0.602334721702752, -0.12236489133949446)]> : tensor<6xcomplex<f32>>, tolerance = 1.498e-05
  func.return
}

// -----

func.func @ifft_6_1d_c64() {
  %a = stablehlo.constant dense<[(0.5003818869590759, -1.9789388179779053), (1.5888551473617554, 1.2849136590957642), (1.1027427911758423, 1.1882777214050293), (-1.0991712808609009, -0.12826019525527954), (-0.7993348836898804, -0.7878702878952026), (1.4942138195037842, -0.8862975239753723)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.fft %a, type = IFFT, length = [6] : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.46461458007494605, -0.21802924076716104), (-0.10038912028379195, -0.020394148556582427), (-0.41015958248433293, -0.6786660982967254), (-0.1966846485932668, -0.3081478873888651), (-0.3538496945415256, -0.1569041675527059), (1.096850352787047, -0.5967972754158652)]> : tensor<6xcomplex<f32>>, tolerance = 2.497e-06
  func.return
}

// -----

func.func @rfft_6_1d_c64() {
  %a = stablehlo.constant dense<[0.5003818869590759, 1.5888551473617554, 1.1027427911758423, -1.0991712808609009, -0.7993348836898804, 1.4942138195037842]> : tensor<6xf32>
  %r = stablehlo.fft %a, type = RFFT, length = [6] : (tensor<6xf32>) -> tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(2.7876874804496765, 0.0), (2.989383697509765, -1.7292093805778486), (-2.2920278310775752, 1.5652857922320587), (-1.1801078915596008, 0.0)]> : tensor<4xcomplex<f32>>, tolerance = 6.907e-06
  func.return
}

// -----

func.func @irfft_6_1d_c64() {
  %a = stablehlo.constant dense<[(-0.9805216789245605, 1.9820011854171753), (-0.21969477832317352, 1.1706476211547852), (0.018193036317825317, 0.4887169301509857), (0.21398940682411194, 1.9558405876159668)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.fft %a, type = IRFFT, length = [6] : (tensor<4xcomplex<f32>>) -> tensor<6xf32>
  check.expect_almost_eq_const %r, dense<[-0.19492262601852417, -0.7177504352549998, -0.2910281890257056, -0.1197892427444458, 0.10268467899400546, 0.2402841351251094]> : tensor<6xf32>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @fft_3x5_1d_c64() {
  %a = stablehlo.constant dense<[[(-1.1387652158737183, -1.1975730657577515), (-1.359151840209961, -0.5218547582626343), (0.45015841722488403, -1.985063076019287), (-1.8242319822311401, 1.3201909065246582), (-1.8572789430618286, -1.3821556568145752)], [(0.059555280953645706, -0.9296028017997742), (-0.1351758986711502, 1.5213285684585571), (1.6686711311340332, 0.03916323930025101), (0.5169050097465515, 1.3886009454727173), (0.056470587849617004, 0.5588686466217041)], [(-0.012506258673965931, 0.9670838117599487), (-1.009940266609192, -1.6340175867080688), (-1.9528238773345947, 0.16457527875900269), (-1.2303913831710815, 0.031088944524526596), (0.7681284546852112, 1.4853575229644775)]]> : tensor<3x5xcomplex<f32>>
  %r = stablehlo.fft %a, type = FFT, length = [5] : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(-5.729269564151764, -3.76645565032959), (-2.14563289400189, -3.0586519191417443), (4.687925384727302, 2.007628963224113), (-2.61038565289614, -1.7329351271324571), (0.10353664695390075, 0.5625484045909213)], [(2.166426111012697, 2.5783585980534554), (-1.610760040350274, -1.936596500540777), (2.647720656756321, -0.9632726499722692), (-1.050501886779634, -3.3793559568205382), (-1.8551084358708818, -0.9471474997187426)], [(-3.437533331103623, 1.0140879712998867), (-0.40019570167368235, 2.878528653504581), (-2.7610197394805867, 1.505864340680978), (1.1599317282069936, 0.7897674591173458), (5.376285750681069, -1.3528293658030477)]]> : tensor<3x5xcomplex<f32>>, tolerance = 1.371e-05
  func.return
}

// -----

func.func @ifft_3x5_1d_c64() {
  %a = stablehlo.constant dense<[[(-1.1387652158737183, -1.1975730657577515), (-1.359151840209961, -0.5218547582626343), (0.45015841722488403, -1.985063076019287), (-1.8242319822311401, 1.3201909065246582), (-1.8572789430618286, -1.3821556568145752)], [(0.059555280953645706, -0.9296028017997742), (-0.1351758986711502, 1.5213285684585571), (1.6686711311340332, 0.03916323930025101), (0.5169050097465515, 1.3886009454727173), (0.056470587849617004, 0.5588686466217041)], [(-0.012506258673965931, 0.9670838117599487), (-1.009940266609192, -1.6340175867080688), (-1.9528238773345947, 0.16457527875900269), (-1.2303913831710815, 0.031088944524526596), (0.7681284546852112, 1.4853575229644775)]]> : tensor<3x5xcomplex<f32>>
  %r = stablehlo.fft %a, type = IFFT, length = [5] : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(-1.1458539128303529, -0.753291130065918), (0.02070732939078015, 0.11250968091818425), (-0.5220771305792281, -0.34658702542649145), (0.9375850769454606, 0.4015257926448226), (-0.42912657880037797, -0.6117303838283489)], [(0.43328522220253946, 0.5156717196106911), (-0.3710216871741764, -0.18942949994374852), (-0.21010037735592682, -0.6758711913641077), (0.5295441313512642, -0.19265452999445387), (-0.32215200807005484, -0.3873193001081554)], [(-0.6875066662207246, 0.20281759425997736), (1.0752571501362138, -0.27056587316060954), (0.23198634564139875, 0.15795349182346918), (-0.5522039478961174, 0.3011728681361956), (-0.08003914033473647, 0.5757057307009162)]]> : tensor<3x5xcomplex<f32>>, tolerance = 2.743e-06
  func.return
}

// -----

func.func @rfft_3x5_1d_c64() {
  %a = stablehlo.constant dense<[[-1.1387652158737183, -1.359151840209961, 0.45015841722488403, -1.8242319822311401, -1.8572789430618286], [0.059555280953645706, -0.1351758986711502, 1.6686711311340332, 0.5169050097465515, 0.056470587849617004], [-0.012506258673965931, -1.009940266609192, -1.9528238773345947, -1.2303913831710815, 0.7681284546852112]]> : tensor<3x5xf32>
  %r = stablehlo.fft %a, type = RFFT, length = [5] : (tensor<3x5xf32>) -> tensor<3x3xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(-5.729269564151764, 0.0), (-1.0210481235239945, -1.8106001618663328), (1.0387698659155808, 1.8702820451782851)], [(2.166426111012697, 0.0), (-1.732934238110578, -0.49472450041101723), (0.7986093849883436, 1.2080416534241345)], [(-3.437533331103623, 0.0), (2.488045024503693, 2.1156790096538143), (-0.8005440056367965, 0.3580484407818161)]]> : tensor<3x3xcomplex<f32>>, tolerance = 1.146e-05
  func.return
}

// -----

func.func @irfft_3x5_1d_c64() {
  %a = stablehlo.constant dense<[[(-0.5549437403678894, 0.35996678471565247), (0.3927362561225891, 0.42022502422332764), (-1.7629934549331665, 0.5519863367080688)], [(-0.4494727849960327, 0.7058009505271912), (-0.7078546285629272, -1.3968479633331299), (-1.3992010354995728, -0.23874613642692566)], [(1.2653523683547974, -1.0417441129684448), (-0.4822153151035309, -0.39000681042671204), (1.9149914979934692, -1.613183617591858)]]> : tensor<3x3xcomplex<f32>>
  %r = stablehlo.fft %a, type = IRFFT, length = [5] : (tensor<3x3xcomplex<f32>>) -> tensor<3x5xf32>
  check.expect_almost_eq_const %r, dense<[[-0.6590916275978089, 0.21842991899841097, -0.34481159347643303, -0.5671860979159373, 0.7977156596238788], [-0.9327168226242066, 0.8629258919321569, 0.203815478717135, -0.2713729722851624, -0.3121243607359556], [0.8261809468269349, 0.10141073960736416, 0.12382917839146704, 1.1678200104145693, -0.9538885068855383]]> : tensor<3x5xf32>, tolerance = 2.336e-06
  func.return
}

// -----

func.func @fft_4x6_2d_c64() {
  %a = stablehlo.constant dense<[[(1.8713122606277466, -0.12907913327217102), (-1.139983892440796, 0.19054079055786133), (0.6870606541633606, -0.7113467454910278), (-0.7983196973800659, 1.005299687385559), (1.4963080883026123, -1.8992124795913696), (0.6488589644432068, -0.5112589001655579)], [(-1.473536729812622, -1.8785988092422485), (1.380297303199768, -1.5084315538406372), (1.7797926664352417, 1.8685929775238037), (1.6156671047210693, 0.6310428977012634), (0.2788766026496887, -0.2871190011501312), (-1.4181602001190186, 0.09496042877435684)], [(-1.230146050453186, 1.4912368059158325), (1.711622714996338, -0.6231573224067688), (0.20930595695972443, 0.3611639440059662), (-1.2777899503707886, 0.7347375154495239), (1.5362275838851929, -0.5783448815345764), (0.5662868022918701, 0.07639394700527191)], [(0.2787770926952362, 1.060989499092102), (-0.49484866857528687, 1.6367172002792358), (-0.356178879737854, -1.395750880241394), (-1.0420430898666382, 1.733677625656128), (-1.8477708101272583, -1.9792845249176025), (1.5048751831054688, 1.0119099617004395)]]> : tensor<4x6xcomplex<f32>>
  %r = stablehlo.fft %a, type = FFT, length = [4, 6] : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(4.48649100959301, 0.3956790491938591), (3.8056400290621473, -1.9417628343766942), (-10.387512861712857, 7.38330060675031), (1.973565861582756, -8.549185506999493), (-0.2672153273978992, 6.168938610113799), (-2.9325292727841097, -0.18967974972069124)], [(-1.898082621395588, -7.637212708592415), (-8.06243713870262, 9.144996973442172), (-2.8916502675567823, 6.716497007611581), (13.010511793196201, -5.410786017775535), (3.405849472299691, -5.844734717014619), (-2.5929712213614087, 3.823226762247945)], [(4.07499586045742, -1.5817325934767723), (3.175409196744018, 7.960802521258808), (-1.8788873301205902, -0.06905583315107489), (7.745221242308617, 3.872909091413021), (-4.637531976276848, 6.316039413442346), (2.536348090639062, -3.4203607027234804)], [(4.397541262209415, 0.6030391305685043), (12.956921454202543, -6.121820938598429), (14.381750917518568, -1.269886809265433), (-1.352796383202076, -3.609817311167718), (4.090162621354627, -0.6662245068194297), (1.7726998444086215, -9.171068134892668)]]> : tensor<4x6xcomplex<f32>>, tolerance = 2.888e-05
  func.return
}

// -----

func.func @ifft_4x6_2d_c64() {
  %a = stablehlo.constant dense<[[(1.8713122606277466, -0.12907913327217102), (-1.139983892440796, 0.19054079055786133), (0.6870606541633606, -0.7113467454910278), (-0.7983196973800659, 1.005299687385559), (1.4963080883026123, -1.8992124795913696), (0.6488589644432068, -0.5112589001655579)], [(-1.473536729812622, -1.8785988092422485), (1.380297303199768, -1.5084315538406372), (1.7797926664352417, 1.8685929775238037), (1.6156671047210693, 0.6310428977012634), (0.2788766026496887, -0.2871190011501312), (-1.4181602001190186, 0.09496042877435684)], [(-1.230146050453186, 1.4912368059158325), (1.711622714996338, -0.6231573224067688), (0.20930595695972443, 0.3611639440059662), (-1.2777899503707886, 0.7347375154495239), (1.5362275838851929, -0.5783448815345764), (0.5662868022918701, 0.07639394700527191)], [(0.2787770926952362, 1.060989499092102), (-0.49484866857528687, 1.6367172002792358), (-0.356178879737854, -1.395750880241394), (-1.0420430898666382, 1.733677625656128), (-1.8477708101272583, -1.9792845249176025), (1.5048751831054688, 1.0119099617004395)]]> : tensor<4x6xcomplex<f32>>
  %r = stablehlo.fft %a, type = IFFT, length = [4, 6] : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(0.18693712539970875, 0.01648662704974413), (-0.12218871969933787, -0.007903322905028806), (-0.011133971974912477, 0.2570391087547417), (0.08223191089928153, -0.35621606279164547), (-0.4328130359047023, 0.30763752528126287), (0.15856833454425606, -0.0809067847656956)], [(0.18323088592539227, 0.025126630440354347), (0.0738624935170259, -0.3821278389538611), (0.1704234425564428, -0.02775935445080957), (-0.05636651596675313, -0.1504090546319882), (0.5992396215632737, -0.052911950386059725), (0.5398717272584392, -0.2550758724416012)], [(0.1697914941857258, -0.06590552472819886), (0.10568117044329423, -0.14251502928014503), (-0.1932304990115353, 0.2631683088934311), (0.322717551762859, 0.16137121214220923), (-0.07828697208835789, -0.002877326381294787), (0.13230871653100074, 0.3317001050524503)], [(-0.07908677589148282, -0.3182171961913506), (-0.10804046755672536, 0.15930111509366435), (0.14191039467915376, -0.24353061320894248), (0.5421046580498416, -0.22544941740731392), (-0.12048542781486596, 0.27985404198381586), (-0.3359348807792759, 0.3810415405600904)]]> : tensor<4x6xcomplex<f32>>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @rfft_4x6_2d_c64() {
  %a = stablehlo.constant dense<[[1.8713122606277466, -1.139983892440796, 0.6870606541633606, -0.7983196973800659, 1.4963080883026123, 0.6488589644432068], [-1.473536729812622, 1.380297303199768, 1.7797926664352417, 1.6156671047210693, 0.2788766026496887, -1.4181602001190186], [-1.230146050453186, 1.711622714996338, 0.20930595695972443, -1.2777899503707886, 1.5362275838851929, 0.5662868022918701], [0.2787770926952362, -0.49484866857528687, -0.356178879737854, -1.0420430898666382, -1.8477708101272583, 1.5048751831054688]]> : tensor<4x6xf32>
  %r = stablehlo.fft %a, type = RFFT, length = [4, 6] : (tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[(4.48649100959301, 0.0), (0.4365553781390188, -0.8760415423280019), (-5.327364094555378, 0.6071809983182557), (1.973565861582756, 0.0)], [(1.2497293204069138, -4.12012591958046), (-3.144868647146999, 9.15803255416742), (0.5992561768989226, 3.691360757215506), (5.828857704997063, -0.9004843533039093)], [(4.07499586045742, 0.0), (2.8558786436915398, 5.690581611991144), (-3.258209653198719, -3.192547623296711), (7.745221242308617, 0.0)], [(1.2497293204069138, 4.12012591958046), (5.181975116420566, -4.972523850423188), (8.89380019490913, 2.287423953874592), (5.828857704997063, 0.9004843533039093)]]> : tensor<4x4xcomplex<f32>>, tolerance = 1.937e-05
  func.return
}

// -----

func.func @irfft_4x6_2d_c64() {
  %a = stablehlo.constant dense<[[(1.2421072721481323, -0.6397277116775513), (-1.4529438018798828, -0.9139015078544617), (-0.324385404586792, 1.8081579208374023), (1.261025071144104, -0.22208715975284576)], [(-1.9429152011871338, 1.9215790033340454), (0.5138477683067322, 0.0620906762778759), (1.1720945835113525, 0.08466451615095139), (0.05201433226466179, 1.5861620903015137)], [(0.9033976793289185, 0.9710696935653687), (-1.0943061113357544, 0.3226114511489868), (-1.2059154510498047, -0.2934019863605499), (-0.5474922060966492, 1.5127514600753784)], [(-1.2823759317398071, -0.3534153997898102), (-0.615754246711731, 1.6910382509231567), (1.7924962043762207, -1.725138545036316), (0.2933308780193329, -0.2800125479698181)]]> : tensor<4x4xcomplex<f32>>
  %r = stablehlo.fft %a, type = IRFFT, length = [4, 6] : (tensor<4x4xcomplex<f32>>) -> tensor<4x6xf32>
  check.expect_almost_eq_const %r, dense<[[-0.10211004270240664, -0.3340301836505588, -0.043173155316742, 0.25117618295674515, 0.14266968475434355, -0.18447903140385383], [-0.05457785135755936, -0.08584628206508599, 0.01727656467231581, -0.26149138528853655, -0.21194148473165897, 0.11250923619436462], [-0.33922860072925687, 0.235324617775087, 0.9252037590818492, 0.03764633384222789, 0.1313978090433392, 0.35235510208775145], [0.3206621498490373, -0.26484377515441093, 0.5998939618084321, 0.3457020344212651, -0.13450662272557518, -0.21348174921298108]]> : tensor<4x6xf32>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @fft_2x3x4_3d_c64() {
  %a = stablehlo.constant dense<[[[(0.07805927842855453, 0.5409047603607178), (1.8037527799606323, -1.2644424438476562), (-0.9960030317306519, -1.7525383234024048), (1.2241566181182861, -0.3539327085018158)], [(0.7058848142623901, 1.0561203956604004), (0.8683435916900635, 1.2608871459960938), (0.5184887051582336, 0.9199569821357727), (1.8862428665161133, -1.54718017578125)], [(-0.6692741513252258, 1.6534194946289062), (-0.40689775347709656, 1.208146333694458), (-1.1883529424667358, 1.5107654333114624), (-1.7971837520599365, 0.09321661293506622)]], [[(-1.148367166519165, 1.6625417470932007), (1.6618576049804688, -1.813391089439392), (1.3606752157211304, -1.8788446187973022), (-1.5503770112991333, -1.919137716293335)], [(0.4151161015033722, -0.9889252781867981), (-0.08321402221918106, -1.005720853805542), (0.37873947620391846, -1.2499866485595703), (0.6371000409126282, 0.26822328567504883)], [(-0.7733620405197144, -1.8440566062927246), (1.8454034328460693, 0.3615514636039734), (-0.13663986325263977, -1.3359553813934326), (0.5124034285545349, 0.7114948630332947)]]]> : tensor<2x3x4xcomplex<f32>>
  %r = stablehlo.fft %a, type = FFT, length = [2, 3, 4] : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[[(5.146552219986916, -5.706883326172829), (0.16549567133188248, 1.0897036269307137), (-8.056623429059982, 2.2936872392892838), (-2.823197118937969, 10.64351051300764)], [(-2.0794868546603027, -14.191584764399472), (1.0819024428736004, 1.557879099608197), (0.989785825744387, 3.325024125782154), (-2.737005372772264, 9.48865211210391)], [(4.234197497653753, -0.438053087911662), (-7.966627655924443, 3.481413288056121), (-4.468239484265562, 6.1501912049377925), (3.6695516009426594, 8.747818058215168)]], [[(-1.0921181738376617, 12.35753034055233), (9.420553363859653, 2.150851719081402), (-2.2025999277830124, 6.770180717110634), (0.35929692536592484, -3.59502362459898)], [(1.5744033081196038, -11.550611391073737), (-1.224412120197118, -0.3947250987408917), (-7.005695427081269, -3.3862501360340445), (5.740330226738889, -0.8866862130440518)], [(4.87624587139862, 2.549549936658414), (-0.4955962530633804, 2.3979588965891168), (-2.9317464658406553, -12.71238361523911), (7.698456011693041, -7.160035372050878)]]]> : tensor<2x3x4xcomplex<f32>>, tolerance = 2.869e-05
  func.return
}

// -----

func.func @ifft_2x3x4_3d_c64() {
  %a = stablehlo.constant dense<[[[(0.07805927842855453, 0.5409047603607178), (1.8037527799606323, -1.2644424438476562), (-0.9960030317306519, -1.7525383234024048), (1.2241566181182861, -0.3539327085018158)], [(0.7058848142623901, 1.0561203956604004), (0.8683435916900635, 1.2608871459960938), (0.5184887051582336, 0.9199569821357727), (1.8862428665161133, -1.54718017578125)], [(-0.6692741513252258, 1.6534194946289062), (-0.40689775347709656, 1.208146333694458), (-1.1883529424667358, 1.5107654333114624), (-1.7971837520599365, 0.09321661293506622)]], [[(-1.148367166519165, 1.6625417470932007), (1.6618576049804688, -1.813391089439392), (1.3606752157211304, -1.8788446187973022), (-1.5503770112991333, -1.919137716293335)], [(0.4151161015033722, -0.9889252781867981), (-0.08321402221918106, -1.005720853805542), (0.37873947620391846, -1.2499866485595703), (0.6371000409126282, 0.26822328567504883)], [(-0.7733620405197144, -1.8440566062927246), (1.8454034328460693, 0.3615514636039734), (-0.13663986325263977, -1.3359553813934326), (0.5124034285545349, 0.7114948630332947)]]]> : tensor<2x3x4xcomplex<f32>>
  %r = stablehlo.fft %a, type = IFFT, length = [2, 3, 4] : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[[(0.2144396758327881, -0.2377868052572012), (-0.11763321328908204, 0.44347960470865166), (-0.3356926428774992, 0.09557030163705349), (0.00689565297216177, 0.045404317788779736)], [(0.17642489573557305, -0.018252211996319254), (0.15289798337261082, 0.3644924190922987), (-0.18617664517773175, 0.256257966872408), (-0.3319428189968518, 0.14505888700233838)], [(-0.08664528561084593, -0.5913160318499779), (-0.11404189053217767, 0.39536050467099626), (0.04124107607268279, 0.13854267190758973), (0.04507926845306668, 0.06491162915034154)]], [[(-0.04550492390990256, 0.5148970975230137), (0.014970705223580197, -0.1497926510249575), (-0.09177499699095884, 0.2820908632129431), (0.39252305682748556, 0.08961882162839174)], [(0.20317691130827578, 0.10623124736076724), (0.32076900048721, -0.2983348071687866), (-0.12215610274336064, -0.5296826506349629), (-0.02064984387764085, 0.09991495402454653)], [(0.06560013783831682, -0.48127547462807224), (0.23918042611412038, -0.0369452588768355), (-0.2919039761283862, -0.14109375566808519), (-0.05101717167487992, -0.016446879114203818)]]]> : tensor<2x3x4xcomplex<f32>>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @rfft_2x3x4_3d_c64() {
  %a = stablehlo.constant dense<[[[0.07805927842855453, 1.8037527799606323, -0.9960030317306519, 1.2241566181182861], [0.7058848142623901, 0.8683435916900635, 0.5184887051582336, 1.8862428665161133], [-0.6692741513252258, -0.40689775347709656, -1.1883529424667358, -1.7971837520599365]], [[-1.148367166519165, 1.6618576049804688, 1.3606752157211304, -1.5503770112991333], [0.4151161015033722, -0.08321402221918106, 0.37873947620391846, 0.6371000409126282], [-0.7733620405197144, 1.8454034328460693, -0.13663986325263977, 0.5124034285545349]]]> : tensor<2x3x4xf32>
  %r = stablehlo.fft %a, type = RFFT, length = [2, 3, 4] : (tensor<2x3x4xf32>) -> tensor<2x3x3xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[[(5.146552219986916, 0.0), (-1.3288507238030434, -4.776903443038464), (-8.056623429059982, 0.0)], [(1.077355321496725, -6.876765838243905), (2.37572702190813, -3.5949694793034856), (-1.7392268292605877, -1.41258353957782)], [(1.077355321496725, 6.876765838243905), (-5.351816514348354, -3.0036194120238955), (-1.7392268292605877, 1.41258353957782)]], [[(-1.0921181738376617, 0.0), (4.889925144612789, 2.872937671840191), (-2.2025999277830124, 0.0)], [(3.2253245897591114, -7.0500806638660745), (3.237021945747961, 3.382655136654993), (-4.968720946460962, 4.663066739602533)], [(3.2253245897591114, 7.0500806638660745), (2.6223669868377546, 1.6423225548165838), (-4.968720946460962, -4.663066739602533)]]]> : tensor<2x3x3xcomplex<f32>>, tolerance = 1.611e-05
  func.return
}

// -----

func.func @irfft_2x3x4_3d_c64() {
  %a = stablehlo.constant dense<[[[(-1.915698528289795, 1.1898326873779297), (-0.7577192187309265, -0.7451140880584717), (1.753365159034729, 1.4512369632720947)], [(0.1535855233669281, 1.1885076761245728), (1.246349573135376, -1.4834482669830322), (0.6321043372154236, 1.0674365758895874)], [(0.4430031478404999, 1.5304828882217407), (-1.2349892854690552, -1.2108696699142456), (0.29757899045944214, 0.29456472396850586)]], [[(-1.8412543535232544, 0.5549998879432678), (1.2066576480865479, 0.4373370409011841), (1.8402836322784424, -1.615017294883728)], [(1.4160362482070923, 0.6447658538818359), (-1.7971614599227905, 0.5278189182281494), (-0.6453596949577332, 1.2955420017242432)], [(-0.7279872298240662, 1.2140507698059082), (-1.549131989479065, -0.6913271546363831), (0.5064472556114197, 0.8881893157958984)]]]> : tensor<2x3x3xcomplex<f32>>
  %r = stablehlo.fft %a, type = IRFFT, length = [2, 3, 4] : (tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x4xf32>
  check.expect_almost_eq_const %r, dense<[[[-0.16082854072252906, -0.02189701795578003, 0.3201705813407898, -0.5494975546995798], [0.04830702785382679, -0.49569723457472525, -0.16780189377753335, 0.013509216117428141], [0.2043431088951229, -0.3242866948209503, -0.28501630621464646, -0.4597811323479477]], [[0.15009693801403046, 0.26162249346574146, -0.08211587369441986, -0.3572543114423751], [-0.2444166571153489, -0.17421320000816468, 0.14747205550754297, 0.23356280507937774], [-0.41694482860433185, 0.20976277609198377, 0.4055677038899637, -0.1703619885672699]]]> : tensor<2x3x4xf32>, tolerance = 2.000e-06
  func.return
}

// -----

func.func @fft_2x7x2x3_2d_c64() {
  %a = stablehlo.constant dense<[[[[(1.4690935611724854, 1.6778533458709717), (1.5717910528182983, -0.45027080178260803), (-1.3539507389068604, -1.4487353563308716)], [(-1.893190622329712, 1.0414931774139404), (0.6032297611236572, 1.9717954397201538), (-1.1412949562072754, -1.4080474376678467)]], [[(0.25483888387680054, 0.850702702999115), (1.779218077659607, 1.3012936115264893), (-0.4827215075492859, 1.6822878122329712)], [(-0.9889017939567566, -1.5064743757247925), (-0.17395980656147003, -1.6327604055404663), (0.6289756298065186, 1.951486349105835)]], [[(-1.5956041812896729, -1.5329740047454834), (-0.4776609539985657, -1.2927697896957397), (-1.4651151895523071, 0.2998117208480835)], [(0.6497848629951477, -0.21490785479545593), (1.3222100734710693, 1.0015687942504883), (-0.49258488416671753, -1.2377710342407227)]], [[(-0.5131042003631592, 1.6577110290527344), (0.1580866426229477, -1.1312205791473389), (-1.1397688388824463, 1.0764439105987549)], [(-1.010361671447754, -1.729585886001587), (-0.6805908679962158, -0.10638964921236038), (-0.17029720544815063, -1.8697667121887207)]], [[(-1.6738741397857666, -0.7447571754455566), (1.0109285116195679, -0.7510772943496704), (0.3162182867527008, 0.8789937496185303)], [(-0.8012245297431946, -0.17993006110191345), (-1.6898137331008911, -1.7729026079177856), (1.05272376537323, 1.981446623802185)]], [[(-1.4756840467453003, 1.5547971725463867), (-1.467173457145691, 1.6652957201004028), (-1.4772629737854004, -1.013697862625122)], [(-1.6749507188796997, -0.4235589802265167), (1.625569462776184, -1.0912820100784302), (-0.9230228066444397, -1.500374436378479)]], [[(-0.7743576765060425, -1.8679043054580688), (1.3311772346496582, 0.013345791958272457), (0.47969383001327515, -1.5074653625488281)], [(-1.2514264583587646, -1.2947825193405151), (-0.2607463598251343, 1.441902756690979), (1.5356898307800293, -0.06302892416715622)]]], [[[(-0.4985039234161377, -1.2651859521865845), (0.8435261845588684, 0.6794582605361938), (-1.6127691268920898, -0.9365404844284058)], [(0.9092991352081299, 0.10774879902601242), (1.1058940887451172, -0.8681885004043579), (1.3030670881271362, 0.06464474648237228)]], [[(0.6968039870262146, 0.5141343474388123), (-0.5170688033103943, 0.1448323130607605), (-1.7431520223617554, -0.4175835847854614)], [(0.07510493695735931, 1.163255214691162), (1.0298396348953247, 1.493749737739563), (-1.236647129058838, -1.2825149297714233)]], [[(-0.9350510835647583, -1.4547650814056396), (0.1444801688194275, -1.5472334623336792), (0.9933262467384338, 1.9183869361877441)], [(1.5863468647003174, 1.7663651704788208), (-1.497033953666687, -1.077331304550171), (-1.2629191875457764, 1.8796303272247314)]], [[(1.1981478929519653, -1.168729305267334), (0.5780864953994751, 0.025904064998030663), (0.8838911652565002, -0.010459823533892632)], [(1.9870846271514893, 1.6598236560821533), (1.7567198276519775, -1.837884545326233), (1.3721002340316772, -0.7385967373847961)]], [[(1.1084632873535156, 0.39989879727363586), (-0.4199231266975403, -1.7344070672988892), (0.5649164319038391, -1.053797721862793)], [(-1.262217402458191, -0.13974618911743164), (1.0379778146743774, 1.5234280824661255), (1.0307626724243164, 1.0438381433486938)]], [[(0.8851808309555054, 1.3159219026565552), (-0.220803901553154, 1.0442790985107422), (-0.48727867007255554, 0.8308830857276917)], [(-0.3209162652492523, 1.3987733125686646), (-1.8666430711746216, 0.7259067893028259), (1.3772804737091064, 0.9427322149276733)]], [[(0.16947950422763824, -0.7934219837188721), (-0.4499254524707794, -1.3294371366500854), (0.19211506843566895, 1.0260999202728271)], [(0.88656085729599, -1.3366508483886719), (-0.47415652871131897, 1.6778234243392944), (1.3225626945495605, 0.38657134771347046)]]]]> : tensor<2x7x2x3xcomplex<f32>>
  %r = stablehlo.fft %a, type = FFT, length = [2, 3] : (tensor<2x7x2x3xcomplex<f32>>) -> tensor<2x7x2x3xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[[[(-0.7443219423294067, 1.3840883672237396), (3.527740841063875, -0.6575938379707436), (-4.055710082206148, 7.4315450406017405)], [(4.118189692497253, -1.8263939917087555), (0.9219973054038766, 0.844773254730592), (5.046665552605462, 2.890701242349257)]], [[(1.0174494832754135, 2.6465356945991516), (-5.043818506219628, -3.570460013511207), (1.8241802927043462, -1.0433906992649769)], [(2.0852214246988297, 5.022032558917999), (3.597098390850187, -1.6295102894830968), (-1.951097782048345, 3.67900896673682)]], [[(-2.058970272541046, -2.97704216837883), (0.17086529228006597, -3.5601206941603047), (-0.9493529746225953, 1.2935172839163165)], [(-5.017790377140045, -2.0748219788074493), (-4.177729602765231, -0.22319015261117214), (2.459352847050814, -1.656186318431461)]], [[(-3.356036141514778, -2.1028078868985176), (-0.9919449351235883, 0.26154311575825245), (-0.22241653879437306, 1.6256402002937076)], [(0.3664633482694626, 5.308676607906818), (-2.8763683316490862, 0.8607039760466888), (4.001677396633408, 3.9925101612094567)]], [[(-1.7850418388843536, -0.5882267653942108), (-7.483171828249231, 0.6805529693824086), (1.8429176585467018, -2.866387913630608)], [(1.0915871560573578, -0.6454546749591827), (-0.015089117794335305, -3.501257181549395), (-3.694446868390739, 2.452230513477648)]], [[(-5.392524540424347, -0.8088203966617584), (0.6446710546621215, -0.11461594011810461), (-4.704050811112774, 4.317150913739473)], [(-3.4477164149284363, 5.221610456705093), (3.988550281209954, 2.5551368722918086), (0.05696615012168005, -1.841678870678192)]], [[(1.0600304007530212, -3.277932562865317), (-0.9483212419286708, -2.286710837739374), (-6.189061563418772, -3.923417073791061)], [(1.0129963755607605, -3.446115189231932), (0.22285701257743273, -1.4297907212181522), (0.19535295741997327, 3.1565405520974235)]]], [[[(2.050513446331024, -2.2180631309747696), (0.18257477084696028, -2.583581476761411), (-1.0007025818020079, 1.3293331482544644)], [(-4.586007177829742, -0.8264732211828232), (2.3886522559002126, -3.9441364815458253), (-2.026054253943273, 0.6518054490908578)]], [[(-1.695119395852089, 1.615873098373413), (4.896805268622139, -1.3165065357695136), (-0.8859591008193286, 4.732802123786024)], [(-1.4317142814397812, -1.1331069469451904), (-0.2688435588434368, 0.4938880726672803), (3.565654990489784, -1.3081437274791394)]], [[(-0.970850944519043, 1.4850525856018066), (-4.099750052163195, 0.6627454430512739), (7.024488340088915, -1.212997761433537)], [(1.376361608505249, -3.652275800704956), (-4.9107891405103885, -2.473184544955329), (-4.029766312790088, -3.5379304099930957)]], [[(7.776030242443085, -2.0699426904320717), (-0.03068545756512242, 1.7033571452619345), (1.8103527754324014, 1.8398685976145952)], [(-2.4557791352272034, -0.23662743717432022), (1.0279876853111403, -3.5265907718765463), (-0.9390187526825086, -4.722440674997595)]], [[(2.0599796772003174, 0.03921404480934143), (-1.4347089237828012, 1.2172694697498123), (-1.086533098731542, -0.4760256900905411)], [(0.4469335079193115, -4.815826028585434), (2.3277922268820186, 4.076525066760437), (4.3373163346337895, 2.358235920998199)]], [[(-0.6331806033849716, 6.258496403694153), (1.1600171916108046, 3.5213408997891515), (1.1659571088929261, -1.6357516578076452)], [(0.9873771220445633, 0.1236717700958252), (1.6880397781987766, -3.226207116725234), (0.9428743883709332, 2.8539811168930806)]], [[(1.6466361433267593, -0.36901527643203735), (-0.16095535918143677, -0.898573717769553), (1.6824403004255621, -5.1226295021210415)], [(-1.8232979029417038, -1.8245031237602234), (-3.322185110029923, 0.7271137694370235), (2.9942389537665717, 2.7270759483325993)]]]]> : tensor<2x7x2x3xcomplex<f32>>, tolerance = 1.693e-05
  func.return
}

// -----

func.func @ifft_2x7x2x3_2d_c64() {
  %a = stablehlo.constant dense<[[[[(1.4690935611724854, 1.6778533458709717), (1.5717910528182983, -0.45027080178260803), (-1.3539507389068604, -1.4487353563308716)], [(-1.893190622329712, 1.0414931774139404), (0.6032297611236572, 1.9717954397201538), (-1.1412949562072754, -1.4080474376678467)]], [[(0.25483888387680054, 0.850702702999115), (1.779218077659607, 1.3012936115264893), (-0.4827215075492859, 1.6822878122329712)], [(-0.9889017939567566, -1.5064743757247925), (-0.17395980656147003, -1.6327604055404663), (0.6289756298065186, 1.951486349105835)]], [[(-1.5956041812896729, -1.5329740047454834), (-0.4776609539985657, -1.2927697896957397), (-1.4651151895523071, 0.2998117208480835)], [(0.6497848629951477, -0.21490785479545593), (1.3222100734710693, 1.0015687942504883), (-0.49258488416671753, -1.2377710342407227)]], [[(-0.5131042003631592, 1.6577110290527344), (0.1580866426229477, -1.1312205791473389), (-1.1397688388824463, 1.0764439105987549)], [(-1.010361671447754, -1.729585886001587), (-0.6805908679962158, -0.10638964921236038), (-0.17029720544815063, -1.8697667121887207)]], [[(-1.6738741397857666, -0.7447571754455566), (1.0109285116195679, -0.7510772943496704), (0.3162182867527008, 0.8789937496185303)], [(-0.8012245297431946, -0.17993006110191345), (-1.6898137331008911, -1.7729026079177856), (1.05272376537323, 1.981446623802185)]], [[(-1.4756840467453003, 1.5547971725463867), (-1.467173457145691, 1.6652957201004028), (-1.4772629737854004, -1.013697862625122)], [(-1.6749507188796997, -0.4235589802265167), (1.625569462776184, -1.0912820100784302), (-0.9230228066444397, -1.500374436378479)]], [[(-0.7743576765060425, -1.8679043054580688), (1.3311772346496582, 0.013345791958272457), (0.47969383001327515, -1.5074653625488281)], [(-1.2514264583587646, -1.2947825193405151), (-0.2607463598251343, 1.441902756690979), (1.5356898307800293, -0.06302892416715622)]]], [[[(-0.4985039234161377, -1.2651859521865845), (0.8435261845588684, 0.6794582605361938), (-1.6127691268920898, -0.9365404844284058)], [(0.9092991352081299, 0.10774879902601242), (1.1058940887451172, -0.8681885004043579), (1.3030670881271362, 0.06464474648237228)]], [[(0.6968039870262146, 0.5141343474388123), (-0.5170688033103943, 0.1448323130607605), (-1.7431520223617554, -0.4175835847854614)], [(0.07510493695735931, 1.163255214691162), (1.0298396348953247, 1.493749737739563), (-1.236647129058838, -1.2825149297714233)]], [[(-0.9350510835647583, -1.4547650814056396), (0.1444801688194275, -1.5472334623336792), (0.9933262467384338, 1.9183869361877441)], [(1.5863468647003174, 1.7663651704788208), (-1.497033953666687, -1.077331304550171), (-1.2629191875457764, 1.8796303272247314)]], [[(1.1981478929519653, -1.168729305267334), (0.5780864953994751, 0.025904064998030663), (0.8838911652565002, -0.010459823533892632)], [(1.9870846271514893, 1.6598236560821533), (1.7567198276519775, -1.837884545326233), (1.3721002340316772, -0.7385967373847961)]], [[(1.1084632873535156, 0.39989879727363586), (-0.4199231266975403, -1.7344070672988892), (0.5649164319038391, -1.053797721862793)], [(-1.262217402458191, -0.13974618911743164), (1.0379778146743774, 1.5234280824661255), (1.0307626724243164, 1.0438381433486938)]], [[(0.8851808309555054, 1.3159219026565552), (-0.220803901553154, 1.0442790985107422), (-0.48727867007255554, 0.8308830857276917)], [(-0.3209162652492523, 1.3987733125686646), (-1.8666430711746216, 0.7259067893028259), (1.3772804737091064, 0.9427322149276733)]], [[(0.16947950422763824, -0.7934219837188721), (-0.4499254524707794, -1.3294371366500854), (0.19211506843566895, 1.0260999202728271)], [(0.88656085729599, -1.3366508483886719), (-0.47415652871131897, 1.6778234243392944), (1.3225626945495605, 0.38657134771347046)]]]]> : tensor<2x7x2x3xcomplex<f32>>
  %r = stablehlo.fft %a, type = IFFT, length = [2, 3] : (tensor<2x7x2x3xcomplex<f32>>) -> tensor<2x7x2x3xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[[[(-0.12405365705490112, 0.23068139453728992), (-0.6759516803676914, 1.23859084010029), (0.5879568068439791, -0.10959897299512392)], [(0.6863649487495422, -0.30439899861812586), (0.8411109254342436, 0.4817835403915428), (0.15366621756731275, 0.14079554245509865)]], [[(0.16957491387923557, 0.44108928243319195), (0.30403004878405765, -0.17389844987749614), (-0.8406364177032712, -0.5950766689185345)], [(0.3475369041164716, 0.8370054264863331), (-0.32518296367472416, 0.6131681611228034), (0.5995163984750311, -0.27158504824718277)]], [[(-0.3431617120901744, -0.496173694729805), (-0.15822549577043254, 0.21558621398605274), (0.02847754871334429, -0.5933534490267174)], [(-0.8362983961900075, -0.3458036631345749), (0.4098921411751356, -0.2760310530719101), (-0.6962882671275384, -0.03719835876852873)]], [[(-0.5593393569191296, -0.3504679811497529), (-0.03706942313239553, 0.27094003338228456), (-0.1653241558539314, 0.04359051929304208)], [(0.061077224711577116, 0.8847794346511364), (0.6669462327722346, 0.6654183602015761), (-0.4793947219415144, 0.14345066267444812)]], [[(-0.2975069731473923, -0.09803779423236846), (0.30715294309111696, -0.4777313189384346), (-1.2471953047082054, 0.1134254948970681)], [(0.1819311926762263, -0.10757577915986379), (-0.6157411447317898, 0.408705085579608), (-0.002514852965722514, -0.5835428635915658)]], [[(-0.8987540900707245, -0.1348033994436264), (-0.7840084685187957, 0.7195251522899121), (0.10744517577702029, -0.019102656686350777)], [(-0.5746194024880726, 0.8702684094508488), (0.009494358353613341, -0.30694647844636525), (0.664758380201659, 0.42585614538196814)]], [[(0.17667173345883688, -0.5463220938108861), (-1.0315102605697952, -0.6539028456318434), (-0.15805354032144514, -0.3811184729565623)], [(0.16883272926012674, -0.5743525315386553), (0.03255882623666223, 0.5260900920162372), (0.03714283542957212, -0.23829845353635867)]]], [[[(0.34175224105517066, -0.3696771884957949), (-0.16678376363366795, 0.2215555247090774), (0.03042912847449339, -0.4305969127935685)], [(-0.7643345296382903, -0.13774553686380386), (-0.33767570899054544, 0.10863424151514296), (0.39810870931670206, -0.6573560802576375)]], [[(-0.2825198993086815, 0.2693121830622355), (-0.14765985013655475, 0.7888003539643371), (0.8161342114370231, -0.21941775596158558)], [(-0.2386190469066302, -0.1888511578241984), (0.5942758317482972, -0.21802395457985652), (-0.044807259807239486, 0.08231467877788005)]], [[(-0.16180849075317383, 0.24750876426696775), (1.1707480566814858, -0.20216629357225613), (-0.6832916753605325, 0.11045757384187899)], [(0.2293936014175415, -0.6087126334508259), (-0.6716277187983479, -0.5896550683321826), (-0.8184648567517314, -0.4121974241592215)]], [[(1.2960050404071808, -0.34499044840534526), (0.3017254625720669, 0.3066447662690992), (-0.005114242927520399, 0.28389285754365573)], [(-0.4092965225378672, -0.03943790619572002), (-0.15650312544708478, -0.7870734458329325), (0.17133128088519, -0.587765128646091)]], [[(0.34332994620005286, 0.006535674134890257), (-0.1810888497885903, -0.07933761501509018), (-0.2391181539638002, 0.20287824495830203)], [(0.07448891798655191, -0.8026376714309056), (0.7228860557722983, 0.3930393201663665), (0.387965371147003, 0.6794208444600729)]], [[(-0.10553010056416193, 1.0430827339490254), (0.1943261848154877, -0.2726252763012742), (0.1933361986018008, 0.5868901499648586)], [(0.16456285367409387, 0.02061196168263746), (0.15714573139515553, 0.4756635194821801), (0.2813399630331294, -0.5377011861208724)]], [[(0.2744393572211265, -0.061502546072006226), (0.28040671673759365, -0.8537715836868401), (-0.026825893196906148, -0.1497622862949255)], [(-0.3038829838236173, -0.30408385396003723), (0.49903982562776195, 0.45451265805543317), (-0.5536975183383206, 0.12118562823950392)]]]]> : tensor<2x7x2x3xcomplex<f32>>, tolerance = 2.822e-06
  func.return
}

// -----

func.func @rfft_2x7x2x3_2d_c64() {
  %a = stablehlo.constant dense<[[[[1.4690935611724854, 1.5717910528182983, -1.3539507389068604], [-1.893190622329712, 0.6032297611236572, -1.1412949562072754]], [[0.25483888387680054, 1.779218077659607, -0.4827215075492859], [-0.9889017939567566, -0.17395980656147003, 0.6289756298065186]], [[-1.5956041812896729, -0.4776609539985657, -1.4651151895523071], [0.6497848629951477, 1.3222100734710693, -0.49258488416671753]], [[-0.5131042003631592, 0.1580866426229477, -1.1397688388824463], [-1.010361671447754, -0.6805908679962158, -0.17029720544815063]], [[-1.6738741397857666, 1.0109285116195679, 0.3162182867527008], [-0.8012245297431946, -1.6898137331008911, 1.05272376537323]], [[-1.4756840467453003, -1.467173457145691, -1.4772629737854004], [-1.6749507188796997, 1.625569462776184, -0.9230228066444397]], [[-0.7743576765060425, 1.3311772346496582, 0.47969383001327515], [-1.2514264583587646, -0.2607463598251343, 1.5356898307800293]]], [[[-0.4985039234161377, 0.8435261845588684, -1.6127691268920898], [0.9092991352081299, 1.1058940887451172, 1.3030670881271362]], [[0.6968039870262146, -0.5170688033103943, -1.7431520223617554], [0.07510493695735931, 1.0298396348953247, -1.236647129058838]], [[-0.9350510835647583, 0.1444801688194275, 0.9933262467384338], [1.5863468647003174, -1.497033953666687, -1.2629191875457764]], [[1.1981478929519653, 0.5780864953994751, 0.8838911652565002], [1.9870846271514893, 1.7567198276519775, 1.3721002340316772]], [[1.1084632873535156, -0.4199231266975403, 0.5649164319038391], [-1.262217402458191, 1.0379778146743774, 1.0307626724243164]], [[0.8851808309555054, -0.220803901553154, -0.48727867007255554], [-0.3209162652492523, -1.8666430711746216, 1.3772804737091064]], [[0.16947950422763824, -0.4499254524707794, 0.19211506843566895], [0.88656085729599, -0.47415652871131897, 1.3225626945495605]]]]> : tensor<2x7x2x3xf32>
  %r = stablehlo.fft %a, type = RFFT, length = [2, 3] : (tensor<2x7x2x3xf32>) -> tensor<2x7x2x2xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[[[[(-0.7443219423294067, 0.0), (-0.2639846205711365, -4.044569439286242)], [(4.118189692497253, 0.0), (2.984331429004669, -1.0229639938093327)]], [[(1.0174494832754135, 0.0), (-1.6098191067576408, -1.2635346571231152)], [(2.0852214246988297, 0.0), (0.8230003044009209, -2.6542596281099584)]], [[(-2.058970272541046, 0.0), (-0.38924384117126465, -2.4268189890383107)], [(-5.017790377140045, 0.0), (-0.8591883778572083, 0.7164980829101444)]], [[(-3.356036141514778, 0.0), (-0.6071807369589806, -0.6820485422677276)], [(0.3664633482694626, 0.0), (0.5626545324921608, -1.565903092581384)]], [[(-1.7850418388843536, 0.0), (-2.820127084851265, 1.7734704415065083)], [(1.0915871560573578, 0.0), (-1.854767993092537, -2.9767438475135215)]], [[(-5.392524540424347, 0.0), (-2.0296898782253265, -2.2158834269287886)], [(-3.4477164149284363, 0.0), (2.0227582156658173, 2.1984078714850006)]], [[(1.0600304007530212, 0.0), (-3.5686914026737213, 0.8183531180258433)], [(1.0129963755607605, 0.0), (0.209104984998703, -2.2931656366577875)]]], [[[(2.050513446331024, 0.0), (-0.4090639054775238, -1.9564573125079376)], [(-4.586007177829742, 0.0), (0.18129900097846985, -2.2979709653183416)]], [[(-1.695119395852089, 0.0), (2.0054230839014053, -3.0246543297777686)], [(-1.4317142814397812, 0.0), (1.6484057158231735, 0.9010159000732099)]], [[(-0.970850944519043, 0.0), (1.46236914396286, 0.9378716022424055)], [(1.376361608505249, 0.0), (-4.470277726650238, 0.5323729325188834)]], [[(7.776030242443085, 0.0), (0.8898336589336395, -0.06825572617633013)], [(-2.4557791352272034, 0.0), (0.044484466314315796, 0.5979249515605244)]], [[(2.0599796772003174, 0.0), (-1.2606210112571716, 0.8466475799201766)], [(0.4469335079193115, 0.0), (3.332554280757904, 0.8591445728811192)]], [[(-0.6331806033849716, 0.0), (1.1629871502518654, 2.5785462787983984)], [(0.9873771220445633, 0.0), (1.3154570832848549, -3.0400941168091573)]], [[(1.6466361433267593, 0.0), (0.7607424706220627, 2.1120278921757443)], [(-1.8232979029417038, 0.0), (-0.16397307813167572, -0.9999810894477879)]]]]> : tensor<2x7x2x2xcomplex<f32>>, tolerance = 1.555e-05
  func.return
}

// -----

func.func @irfft_2x7x2x3_2d_c64() {
  %a = stablehlo.constant dense<[[[[(-0.6822635531425476, 0.2332938313484192), (1.7465726137161255, -0.41566935181617737)], [(-1.379478931427002, 0.9771690368652344), (0.05786535143852234, -0.47827938199043274)]], [[(-1.6337836980819702, -0.1335153877735138), (1.861710786819458, 1.0218284130096436)], [(0.3015042543411255, 0.014623194001615047), (1.2146663665771484, -0.6478697061538696)]], [[(-0.8723103404045105, 1.3072757720947266), (1.2071864604949951, -0.47614961862564087)], [(0.8113678693771362, 1.3789163827896118), (0.574725866317749, 1.1409616470336914)]], [[(1.8022512197494507, -0.2108447104692459), (-0.26603463292121887, 0.8515637516975403)], [(-0.33964627981185913, -1.8624411821365356), (0.7684845328330994, -0.44080638885498047)]], [[(1.3402211666107178, 1.4413347244262695), (-0.6596959233283997, 0.318157434463501)], [(0.6786282062530518, 0.23130330443382263), (-1.1638504266738892, 0.6589555144309998)]], [[(0.20679989457130432, 0.7106865048408508), (1.0766868591308594, 0.3343929946422577)], [(-1.7387402057647705, -0.31748276948928833), (0.9113682508468628, -1.266065239906311)]], [[(-1.938270092010498, -0.8294318318367004), (1.8334001302719116, -0.8283112645149231)], [(-0.12532079219818115, -0.27702030539512634), (-0.36371657252311707, 1.9962350130081177)]]], [[[(0.8817785978317261, -0.5897922515869141), (0.09319548308849335, -0.2104828655719757)], [(0.9233953952789307, -0.5134897232055664), (-1.6609684228897095, 0.3257109522819519)]], [[(0.2511674761772156, 1.7915942668914795), (0.23243476450443268, 1.5562915802001953)], [(1.7284555435180664, -0.49144500494003296), (-1.8415776491165161, -0.9323954582214355)]], [[(-0.1887214332818985, 1.5375944375991821), (0.5242916345596313, -0.024666644632816315)], [(0.20298780500888824, 0.7421646118164062), (-1.7033555507659912, -1.706834316253662)]], [[(0.37291356921195984, 1.4662307500839233), (-1.1112124919891357, -0.7481393218040466)], [(-1.2178032398223877, -0.02189217135310173), (1.514763593673706, -1.2079156637191772)]], [[(-1.2086315155029297, -0.3190295100212097), (-0.18283699452877045, 1.3121956586837769)], [(1.0011475086212158, 1.310317039489746), (0.8292615413665771, -0.10531194508075714)]], [[(0.21383602917194366, 1.0716427564620972), (1.2281830310821533, -0.16773253679275513)], [(-0.13673530519008636, -0.5065746307373047), (0.4815417230129242, 0.18355590105056763)]], [[(1.27566659450531, -1.1946369409561157), (0.71236652135849, -0.7337539196014404)], [(0.5673134922981262, 0.826115071773529), (-0.3754850924015045, 1.082055926322937)]]]]> : tensor<2x7x2x2xcomplex<f32>>
  %r = stablehlo.fft %a, type = IRFFT, length = [2, 3] : (tensor<2x7x2x2xcomplex<f32>>) -> tensor<2x7x2x3xf32>
  check.expect_almost_eq_const %r, dense<[[[[0.25785557428995765, -0.38630263723488056, -0.9024241793398519], [0.6791049838066101, -0.1833226062197299, -0.14717468844465298]], [[0.8034124771753947, -0.8427286795574013, -0.6268235194884157], [-0.10686651865641275, -0.9123890580598006, 0.051611600504665546]], [[0.5838136970996857, -0.4990571680876309, -0.11522776452574186], [-0.06979283690452576, 0.08079667827584713, -0.8528429462621446]], [[0.4112507899602254, 0.04145040299989884, 0.2786012770086715], [0.012143194675445557, 0.1563276532822885, 0.9024779018229208]], [[-0.27137388785680133, 0.35833107510788853, 0.9224674991807975], [0.2783169945081075, 0.12461967443963426, -0.07214018876890876]], [[0.40736165146032965, -0.31771529272867927, -0.8556165143283835], [0.379362886150678, -0.16530891426300492, 0.7587160782803644]], [[0.1459627052148183, -0.9260296189523303, -0.25172852836682763], [0.4302140176296234, 0.14703194306535053, -1.4837206106011323]]], [[[-0.22172864774862924, 0.5288943387118736, 0.595421305592084], [0.5777851690848668, -0.14451096136634545, -0.4540826064421237]], [[-0.20644379158814746, 0.41802435373249397, 0.7782309477032945], [0.4451227933168411, -1.3103054792743638, 0.12653865228709726]], [[-0.39064357678095496, 0.6987296542571768, -0.300952891612727], [0.677264188726743, -0.9221593829522587, 0.049040575080122384]], [[-0.006297911206881205, 0.356590974171605, -0.7727378982699378], [-0.6102058937152226, 0.5700561517303371, 0.8355081465020593]], [[0.1808941811323166, -0.49071541075122604, 0.20607922617805255], [-0.7056626826524734, -0.6088126130106971, 0.20958578360109784]], [[0.5827583720286686, -0.2766718168257368, -0.2675361932120032], [0.30730899175008136, 0.03539657479148957, -0.16741989936055593]], [[0.4194571574529012, 0.15047031430443703, 0.3515625716443799], [0.4806760549545288, 0.46092939974533764, -0.5874289035962745]]]]> : tensor<2x7x2x3xf32>, tolerance = 2.967e-06
  func.return
}

// -----

func.func @fft_6_1d_c128() {
  %a = stablehlo.constant dense<[(-1.7731674588189819, -1.0153453614753105), (0.931304560210994, 0.573429315688879), (1.2697197427928497, -0.4935099637299838), (-0.2192257070069341, 0.5486540815515797), (-1.7501843485563873, -0.9674604796894148), (0.7316530217821962, -0.09385190970148649)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.fft %a, type = FFT, length = [6] : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(-0.8099001895962634, -1.448084317355737), (0.5061050216803915, -3.38194248260848), (-2.416210348241885, 2.4664155947092894), (-3.697363939568775, -3.5045472924336813), (-2.7510689596395994, -2.4184051171247445), (-1.4705663375477596, 2.19449144596149)]> : tensor<6xcomplex<f64>>, tolerance = 5.094e-12
  func.return
}

// -----

func.func @ifft_6_1d_c128() {
  %a = stablehlo.constant dense<[(-1.7731674588189819, -1.0153453614753105), (0.931304560210994, 0.573429315688879), (1.2697197427928497, -0.4935099637299838), (-0.2192257070069341, 0.5486540815515797), (-1.7501843485563873, -0.9674604796894148), (0.7316530217821962, -0.09385190970148649)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.fft %a, type = IFFT, length = [6] : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(-0.13498336493271057, -0.24134738622595614), (-0.2450943895912932, 0.3657485743269151), (-0.45851149327326657, -0.40306751952079073), (-0.6162273232614625, -0.5840912154056135), (-0.40270172470698085, 0.41106926578488157), (0.08435083694673187, -0.5636570804347466)]> : tensor<6xcomplex<f64>>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @rfft_6_1d_c128() {
  %a = stablehlo.constant dense<[-1.7731674588189819, 0.931304560210994, 1.2697197427928497, -0.2192257070069341, -1.7501843485563873, 0.7316530217821962]> : tensor<6xf64>
  %r = stablehlo.fft %a, type = RFFT, length = [6] : (tensor<6xf64>) -> tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(-0.8099001895962634, 0.0), (-0.4822306579336839, -2.788216964284985), (-2.5836396539407422, 2.442410355917017), (-3.6973639395687754, 0.0)]> : tensor<4xcomplex<f64>>, tolerance = 3.697e-12
  func.return
}

// -----

func.func @irfft_6_1d_c128() {
  %a = stablehlo.constant dense<[(0.09869895613795077, -0.8434476970265741), (0.5240527297231781, -0.7759194729300796), (-1.1873286336991793, -0.9747504673594163), (1.8482043008099631, -1.730094957727625)]> : tensor<4xcomplex<f64>>
  %r = stablehlo.fft %a, type = IRFFT, length = [6] : (tensor<4xcomplex<f64>>) -> tensor<6xf64>
  check.expect_almost_eq_const %r, dense<[0.10339190816598523, 0.4990208837692206, 0.3776322960754766, -0.8620446785861212, 0.4924274242324951, -0.5117288775191058]> : tensor<6xf64>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @fft_3x5_1d_c128() {
  %a = stablehlo.constant dense<[[(-0.3083083483939846, -0.24951444109727117), (1.0873452452668602, -0.043011276914752816), (0.838267746739394, -1.4331089183043235), (-1.2177101878387355, -0.23467121982621775), (-1.4522723898666694, 0.5592930235266498)], [(-0.7142882383937188, -1.4571419800660812), (1.073020613560291, -1.44784844776418), (-0.04768745659109852, -1.3051143499469129), (1.692736729762744, -0.8666743785669917), (0.6255350637077468, 1.8468370995177694)], [(0.483627122448536, -1.8968348296181539), (1.0707645041892886, -1.265043526875349), (1.0010329907718507, -1.3398086424911977), (-0.6246474999424256, -0.10260789938555082), (-0.9719663930892795, -1.9397088858783333)]]> : tensor<3x5xcomplex<f64>>
  %r = stablehlo.fft %a, type = FFT, length = [5] : (tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(-1.0526779340931354, -1.4010128326159155), (-1.3913510892317213, -2.3645055426556043), (0.655426147928751, -0.7199661339090055), (-0.9160866467104042, -1.6451689732014159), (1.1631477801365868, 4.883081276895585)], [(2.6293167120459646, -3.2299420568263963), (-4.911419194884477, 1.020577904784967), (-3.099686849049767, -4.369317375567064), (-0.060514081353065574, -0.5327830348334115), (1.870862221272751, -0.17424533788850005)], [(0.9588107243779702, -6.544003784248585), (0.12409169434903156, -4.6185218408529956), (2.0932134616093254, 0.5955600389414353), (-1.0531988922914601, -0.09529381762896932), (0.29521862419781275, 1.178085255698345)]]> : tensor<3x5xcomplex<f64>>, tolerance = 6.614e-12
  func.return
}

// -----

func.func @ifft_3x5_1d_c128() {
  %a = stablehlo.constant dense<[[(-0.3083083483939846, -0.24951444109727117), (1.0873452452668602, -0.043011276914752816), (0.838267746739394, -1.4331089183043235), (-1.2177101878387355, -0.23467121982621775), (-1.4522723898666694, 0.5592930235266498)], [(-0.7142882383937188, -1.4571419800660812), (1.073020613560291, -1.44784844776418), (-0.04768745659109852, -1.3051143499469129), (1.692736729762744, -0.8666743785669917), (0.6255350637077468, 1.8468370995177694)], [(0.483627122448536, -1.8968348296181539), (1.0707645041892886, -1.265043526875349), (1.0010329907718507, -1.3398086424911977), (-0.6246474999424256, -0.10260789938555082), (-0.9719663930892795, -1.9397088858783333)]]> : tensor<3x5xcomplex<f64>>
  %r = stablehlo.fft %a, type = IFFT, length = [5] : (tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(-0.21053558681862708, -0.2802025665231831), (0.23262955602731739, 0.9766162553791171), (-0.18321732934208085, -0.3290337946402832), (0.1310852295857502, -0.14399322678180113), (-0.27827021784634426, -0.4729011085311209)], [(0.525863342409193, -0.6459884113652793), (0.3741724442545502, -0.03484906757770001), (-0.012102816270613116, -0.1065566069666823), (-0.6199373698099535, -0.8738634751134129), (-0.9822838389768954, 0.20411558095699342)], [(0.19176214487559406, -1.308800756849717), (0.05904372483956255, 0.23561705113966902), (-0.21063977845829204, -0.019058763525793866), (0.41864269232186513, 0.11911200778828707), (0.024818338869806313, -0.9237043681705992)]]> : tensor<3x5xcomplex<f64>>, tolerance = 1.323e-12
  func.return
}

// -----

func.func @rfft_3x5_1d_c128() {
  %a = stablehlo.constant dense<[[-0.3083083483939846, 1.0873452452668602, 0.838267746739394, -1.2177101878387355, -1.4522723898666694], [-0.7142882383937188, 1.073020613560291, -0.04768745659109852, 1.692736729762744, 0.6255350637077468], [0.483627122448536, 1.0707645041892886, 1.0010329907718507, -0.6246474999424256, -0.9719663930892795]]> : tensor<3x5xf64>
  %r = stablehlo.fft %a, type = RFFT, length = [5] : (tensor<3x5xf64>) -> tensor<3x3xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(-1.0526779340931354, 0.0), (-0.11410165454756716, -3.623793409775595), (-0.1303302493908266, 0.46260141964620516)], [(2.6293167120459646, 0.0), (-1.520278486805863, 0.5974116213367335), (-1.5801004652014163, -1.9182671703668266)], [(0.9588107243779702, 0.0), (0.20965515927342215, -2.8983035482756705), (0.5200072846589328, 0.3454269282852023)]]> : tensor<3x3xcomplex<f64>>, tolerance = 3.626e-12
  func.return
}

// -----

func.func @irfft_3x5_1d_c128() {
  %a = stablehlo.constant dense<[[(-0.1673071178305121, -1.3563401832512514), (-1.3483102003460008, 1.6952409004883142), (-0.9214391093476642, 1.5739634290448405)], [(1.1697624230415906, 0.6732878513508149), (-1.2637311140923577, -1.8022107171535766), (0.46851533227585573, 0.6532341139639652)], [(-0.374750920434348, 0.4013907294560366), (-0.3296177230561206, 1.0888236345330844), (1.2673816703917402, -1.144673670692879)]]> : tensor<3x3xcomplex<f64>>
  %r = stablehlo.fft %a, type = IRFFT, length = [5] : (tensor<3x3xcomplex<f64>>) -> tensor<3x5xf64>
  check.expect_almost_eq_const %r, dense<[[-0.9413611474435684, -0.9169067288428032, 0.48916101519876887, 0.0887685550281152, 1.1130311882289754], [-0.08413382811828268, 0.45814912912519595, 1.3730463203033587, 0.028585966848931665, -0.6058851651176133], [0.3001553948473783, -0.6709107033572055, -0.5030841897508935, 0.8798308728651002, -0.38074229503872753]]> : tensor<3x5xf64>, tolerance = 1.373e-12
  func.return
}

// -----

func.func @fft_4x6_2d_c128() {
  %a = stablehlo.constant dense<[[(1.8134240415914222, -1.471107900684495), (1.5447885990563308, -1.2629110826607728), (-1.5425714383423226, -0.7843278839522458), (-0.739192565645483, -0.20993710311760383), (-1.8702232443441598, 1.7119863131603505), (1.3237888504322854, -0.8863284084816723)], [(1.6603789866717777, 1.5943426521724051), (1.9592370055036072, 0.7218487204262769), (0.4477000705669929, 1.413971660079743), (0.663942315395115, -0.38698642124790306), (0.7136221339844502, -1.9868930323454195), (0.2805937392517315, 1.1478694482626852)], [(1.8096916453904535, -1.0180965951233643), (0.4314449149139463, -1.4300791769499717), (-0.6570958432114393, 1.1979663931378348), (0.05150895973813574, 0.745314599991298), (-1.9253485004751778, -1.1503391966283454), (0.896505219298898, -0.9296727411178778)], [(0.7756843047781343, 1.7568793257318287), (-0.3157954350123289, -0.9258480996309317), (1.4059243618748671, 0.8096235121754258), (1.0221043834011976, -1.4817870134272382), (-0.653261606496335, 1.2601434768313293), (-1.6900081210507572, -1.5296399551294266)]]> : tensor<4x6xcomplex<f64>>
  %r = stablehlo.fft %a, type = FFT, length = [4, 6] : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(7.406842777271342, -3.0940085085280904), (11.138074039692924, -6.955626920980187), (3.850456912619322, 1.3425543078597768), (-3.450992953294014, 9.762305957638183), (9.915326524071594, 0.3373188335530968), (7.495366570229557, 3.7795612230354685)], [(2.538089627890057, -5.498545712924909), (1.8681614973329244, -5.216977477947649), (0.9744484622823819, 2.6655905672672264), (-9.80177558315156, 3.7658773050667698), (-3.076653721860654, -2.9714317220150974), (6.544904053356121, -0.7707488841749854)], [(-5.1334015004655615, -7.88105705632564), (5.899943032054576, -6.919276431011337), (2.556487423858879, 1.4704103748678967), (-8.310941681076658, -4.8429158731455155), (-0.9831196509084048, -3.8981799450320294), (13.093346749728951, -12.971539911625936)], [(-2.6914739337035436, 4.863107014832884), (-6.084974567748375, 5.99281706244315), (5.346932963671241, -9.39011957711444), (6.648688117769461, -1.422358898424806), (-7.813158173375383, 1.8818213779341424), (5.591600011948954, 0.6648332783241471)]]> : tensor<4x6xcomplex<f64>>, tolerance = 1.843e-11
  func.return
}

// -----

func.func @ifft_4x6_2d_c128() {
  %a = stablehlo.constant dense<[[(1.8134240415914222, -1.471107900684495), (1.5447885990563308, -1.2629110826607728), (-1.5425714383423226, -0.7843278839522458), (-0.739192565645483, -0.20993710311760383), (-1.8702232443441598, 1.7119863131603505), (1.3237888504322854, -0.8863284084816723)], [(1.6603789866717777, 1.5943426521724051), (1.9592370055036072, 0.7218487204262769), (0.4477000705669929, 1.413971660079743), (0.663942315395115, -0.38698642124790306), (0.7136221339844502, -1.9868930323454195), (0.2805937392517315, 1.1478694482626852)], [(1.8096916453904535, -1.0180965951233643), (0.4314449149139463, -1.4300791769499717), (-0.6570958432114393, 1.1979663931378348), (0.05150895973813574, 0.745314599991298), (-1.9253485004751778, -1.1503391966283454), (0.896505219298898, -0.9296727411178778)], [(0.7756843047781343, 1.7568793257318287), (-0.3157954350123289, -0.9258480996309317), (1.4059243618748671, 0.8096235121754258), (1.0221043834011976, -1.4817870134272382), (-0.653261606496335, 1.2601434768313293), (-1.6900081210507572, -1.5296399551294266)]]> : tensor<4x6xcomplex<f64>>
  %r = stablehlo.fft %a, type = IFFT, length = [4, 6] : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(0.3086184490529726, -0.12891702118867043), (0.31230694042623164, 0.15748171762647778), (0.41313860516964973, 0.014054951398045704), (-0.14379137305391726, 0.40676274823492437), (0.16043570469247176, 0.05593976282749069), (0.4640864183205385, -0.2898177883741745)], [(-0.11214474723764764, 0.20262945895137013), (0.2329833338312064, 0.027701386596839433), (-0.32554825722397424, 0.07840922408058927), (0.2770286715737275, -0.059264954101033544), (0.22278887348630172, -0.39125498237976836), (-0.25354060698951564, 0.24970071093513121)], [(-0.2138917291860651, -0.32837737734690164), (0.5455561145720397, -0.5404808296510806), (-0.04096331878785017, -0.16242416437633456), (-0.3462892367115274, -0.2017881613810631), (0.10652030932745328, 0.06126709895282903), (0.2458309596689407, -0.28830318462547233)], [(0.10575373449541903, -0.22910607137187117), (0.2727043355565051, -0.0321145368406244), (-0.1281939050775272, -0.1238096550839624), (-0.40840731596464835, 0.15691155437778204), (0.04060201926176592, 0.11106627363613447), (0.07784006238887184, -0.21737406158115205)]]> : tensor<4x6xcomplex<f64>>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @rfft_4x6_2d_c128() {
  %a = stablehlo.constant dense<[[1.8134240415914222, 1.5447885990563308, -1.5425714383423226, -0.739192565645483, -1.8702232443441598, 1.3237888504322854], [1.6603789866717777, 1.9592370055036072, 0.4477000705669929, 0.663942315395115, 0.7136221339844502, 0.2805937392517315], [1.8096916453904535, 0.4314449149139463, -0.6570958432114393, 0.05150895973813574, -1.9253485004751778, 0.896505219298898], [0.7756843047781343, -0.3157954350123289, 1.4059243618748671, 1.0221043834011976, -0.653261606496335, -1.6900081210507572]]> : tensor<4x6xf64>
  %r = stablehlo.fft %a, type = RFFT, length = [4, 6] : (tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[(7.406842777271342, 0.0), (9.316720304961242, -5.367594072007828), (6.8828917183454585, 0.5026177371533396), (-3.4509929532940156, 0.0)], [(-0.07669215290674325, -5.1808263638788965), (3.7298807546409405, -2.940905378135898), (-3.4193548555465, 0.39188459466654213), (-1.5765437326910496, 2.5941181017457877)], [(-5.1334015004655615, 0.0), (9.496644890891764, 3.026131740307299), (0.7866838864752377, 2.6842951599499627), (-8.31094168107666, 0.0)], [(-0.07669215290674325, 5.1808263638788965), (0.22996474280387336, 3.381782973309067), (1.1351396209052935, -3.2093439275496713), (-1.5765437326910496, -2.5941181017457877)]]> : tensor<4x4xcomplex<f64>>, tolerance = 1.075e-11
  func.return
}

// -----

func.func @irfft_4x6_2d_c128() {
  %a = stablehlo.constant dense<[[(0.06416450712304345, -0.4869535452028533), (-1.8591294937310812, 0.899684075721658), (0.20031418238937482, 0.793704386956883), (1.3864864559388432, -0.4500444315892862)], [(-1.6624059523418184, -1.8941910787284382), (-0.9029736824378363, 1.851653273520784), (1.058772253570925, 0.8544015843058737), (0.43239327782894543, -1.1810454062847993)], [(-0.7488123738117278, 0.9232288542256506), (0.5156155178164608, -0.8852665457047761), (-0.18115871831065533, -0.12285842852474493), (1.4494250628217915, 1.4395526424541814)], [(-0.8282403900084971, -0.207711588202371), (1.0309224126092857, -0.8479737086390178), (0.5426966202792856, -0.7780355535439458), (0.9617146432411166, -1.691930933381307)]]> : tensor<4x4xcomplex<f64>>
  %r = stablehlo.fft %a, type = IRFFT, length = [4, 6] : (tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64>
  check.expect_almost_eq_const %r, dense<[[0.07770180896513396, -0.5541295107188857, 0.0075199738546639725, -0.07220560339689563, 0.04661887102916416, -0.2993290919929307], [-0.44687667600970343, -0.12389786272503245, 0.4579313407649549, 0.44667066743980843, 0.22964936492992133, 0.061387258465260865], [-0.11915625659845491, 0.04828451038486492, 0.3768624889333081, 0.005937227941675672, 0.14826902683417234, -0.008697378580158288], [0.17716784703943678, -0.4227238834820204, -0.35466312540414924, 0.08569194191959684, 0.12430081719249543, 0.17185075033681663]]> : tensor<4x6xf64>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @fft_2x3x4_3d_c128() {
  %a = stablehlo.constant dense<[[[(-1.1219776814491773, -1.707124012748725), (-0.9155750827815972, -0.9402937513002607), (-1.3081235492740935, 1.2505711412886718), (-1.7477371415994574, -0.12177510985263984)], [(-0.13684334811148613, -0.18739871403316943), (-1.1424154756086797, 1.8742345923107444), (0.955082044337936, -0.7204373507050832), (1.6901110512116917, -1.8331117654185212)], [(-0.9080612011056384, -0.4311966637631719), (0.2889931631061424, -1.3865057537214773), (0.026902659379058225, -1.672432575209267), (-1.699565845051862, 0.2714414271248642)]], [[(-1.5005024705143208, 1.8143024642336014), (1.5391178316019407, 0.3176302971055147), (-0.1033918486688199, 0.5884581902287449), (1.2184396412241543, -0.705484553443112)], [(-1.7336770209033858, 0.2844914278142352), (0.3792525463210299, 1.008978054566064), (1.461247817099625, 0.3571394214071817), (1.4682643869434155, 1.2111134967499555)], [(-1.977110282506354, 0.201882721826816), (0.08688041799590174, -1.2074237741158758), (-0.5239810028729748, 0.3309050169391772), (1.0401681163961967, -0.036256611556666485)]]]> : tensor<2x3x4xcomplex<f64>>
  %r = stablehlo.fft %a, type = FFT, length = [2, 3, 4] : (tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[[(-4.664502274830754, -1.4382923842723985), (-7.0052153433502635, 1.5741801878695618), (-9.076369494348508, 1.656614518830422), (-8.766600905831922, -1.89267342910924)], [(1.5534757872617453, -4.258079962389331), (5.7212827028669775, -8.955441502016628), (-4.525330221911052, 3.183943927549236), (-2.5972593475555033, 7.207879234229601)], [(-8.708224416815106, 7.185226343197115), (-1.7351729942754504, -1.2728120735374957), (1.216977321205203, 5.347834255098714), (7.117177364022655, -7.052237697631041)]], [[(-7.373918539063572, -9.76976468778367), (5.785489644002466, -3.917410480019324), (11.142706003349229, -4.320630147457331), (2.6233530647429104, -0.4977787024185494)], [(-6.740756319608786, -1.0290191747221393), (0.11519325846603623, -10.26361064861147), (4.260394588600615, 0.4129896143896741), (-0.8941219599910055, -2.8244260995936052)], [(-4.626554967569482, 0.1981994702927019), (-6.675813909445994, 0.09595123918381321), (-1.6191122349487859, -2.647656230253632), (8.545438840248089, -7.6939618767943845)]]]> : tensor<2x3x4xcomplex<f64>>, tolerance = 1.224e-11
  func.return
}

// -----

func.func @ifft_2x3x4_3d_c128() {
  %a = stablehlo.constant dense<[[[(-1.1219776814491773, -1.707124012748725), (-0.9155750827815972, -0.9402937513002607), (-1.3081235492740935, 1.2505711412886718), (-1.7477371415994574, -0.12177510985263984)], [(-0.13684334811148613, -0.18739871403316943), (-1.1424154756086797, 1.8742345923107444), (0.955082044337936, -0.7204373507050832), (1.6901110512116917, -1.8331117654185212)], [(-0.9080612011056384, -0.4311966637631719), (0.2889931631061424, -1.3865057537214773), (0.026902659379058225, -1.672432575209267), (-1.699565845051862, 0.2714414271248642)]], [[(-1.5005024705143208, 1.8143024642336014), (1.5391178316019407, 0.3176302971055147), (-0.1033918486688199, 0.5884581902287449), (1.2184396412241543, -0.705484553443112)], [(-1.7336770209033858, 0.2844914278142352), (0.3792525463210299, 1.008978054566064), (1.461247817099625, 0.3571394214071817), (1.4682643869434155, 1.2111134967499555)], [(-1.977110282506354, 0.201882721826816), (0.08688041799590174, -1.2074237741158758), (-0.5239810028729748, 0.3309050169391772), (1.0401681163961967, -0.036256611556666485)]]]> : tensor<2x3x4xcomplex<f64>>
  %r = stablehlo.fft %a, type = IFFT, length = [2, 3, 4] : (tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[[(-0.19435426145128146, -0.05992884934468329), (-0.36527503774299674, -0.07886139287955166), (-0.3781820622645211, 0.06902560495126758), (-0.2918839726395943, 0.06559084116123173)], [(-0.3628426840339627, 0.29938443096654643), (0.2965490568342773, -0.29384323740129337), (0.05070738838355012, 0.22282642729577978), (-0.07229887476147709, -0.05303383639739566)], [(0.06472815780257271, -0.17741999843288878), (-0.10821913948147929, 0.30032830142623335), (-0.18855542591296048, 0.13266433031455147), (0.23838677928612403, -0.37314339591735946)]], [[(-0.3072466057943155, -0.40707352865765295), (0.10930637769762128, -0.020740779267439554), (0.46427941680621787, -0.18002625614405543), (0.2410620685001027, -0.16322543666747183)], [(-0.19277312364872842, 0.008258311262195894), (0.3560599516770037, -0.32058174486643265), (-0.06746300978953274, -0.11031900959390134), (-0.2781589128935831, 0.0039979682993255515)], [(-0.28086484665036604, -0.042875798946755805), (-0.0372550816662919, -0.11768442081640021), (0.1775164411916923, 0.017207900599569746), (0.00479971910275151, -0.42765044369214456)]]]> : tensor<2x3x4xcomplex<f64>>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @rfft_2x3x4_3d_c128() {
  %a = stablehlo.constant dense<[[[-1.1219776814491773, -0.9155750827815972, -1.3081235492740935, -1.7477371415994574], [-0.13684334811148613, -1.1424154756086797, 0.955082044337936, 1.6901110512116917], [-0.9080612011056384, 0.2889931631061424, 0.026902659379058225, -1.699565845051862]], [[-1.5005024705143208, 1.5391178316019407, -0.1033918486688199, 1.2184396412241543], [-1.7336770209033858, 0.3792525463210299, 1.461247817099625, 1.4682643869434155], [-1.977110282506354, 0.08688041799590174, -0.5239810028729748, 1.0401681163961967]]]> : tensor<2x3x4xf64>
  %r = stablehlo.fft %a, type = RFFT, length = [2, 3, 4] : (tensor<2x3x4xf64>) -> tensor<2x3x3xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[[(-4.664502274830754, 0.0), (-7.885908124591094, 1.733426808489401), (-9.076369494348508, 0.0)], [(-3.57737431477668, -5.721653152793223), (6.419230033444817, -0.9516019021927931), (-1.6541764503529242, -1.0819451637747397)], [(-3.57737431477668, 5.721653152793223), (-2.166216170915478, -4.240345653883548), (-1.6541764503529242, 1.0819451637747397)]], [[(-7.373918539063572, 0.0), (4.204421354372688, -1.7098158888003874), (11.142706003349229, 0.0)], [(-5.683655643589134, -0.6136093225074206), (4.330316049357064, -1.2848243859085433), (1.3206411768259143, 1.5303229223216532)], [(-5.683655643589134, 0.6136093225074206), (-3.7849679347185003, 1.4601886693887094), (1.3206411768259143, -1.5303229223216532)]]]> : tensor<2x3x3xcomplex<f64>>, tolerance = 1.114e-11
  func.return
}

// -----

func.func @irfft_2x3x4_3d_c128() {
  %a = stablehlo.constant dense<[[[(-1.3362578701400296, 1.3966206597199067), (0.4766634046419167, 1.6411148944713516), (1.2678421697417277, -1.8229049828798445)], [(-1.4596492260888412, -0.6703223441414909), (0.17978344655202294, -1.2300215478062708), (0.9347485311730859, -0.12186917244266349)], [(-0.38792961526986813, 1.686361709142402), (-0.9198150351530354, -1.7193070333988278), (-0.5108783573195588, -1.314883548033774)]], [[(0.16679407534843804, -0.051882874074514085), (0.7466414928517064, 0.09613877905123402), (0.23670088702306735, 0.9820051319767882)], [(-1.571899860029328, -0.24925584580988502), (1.2715455729790657, -1.4354529942418788), (1.695438856887248, -0.5855525127798016)], [(-1.5948286302327106, 1.928372473072792), (-1.0019221516474848, 1.0028885861508923), (-1.3052752467603486, -1.5346225138609082)]]]> : tensor<2x3x3xcomplex<f64>>
  %r = stablehlo.fft %a, type = IRFFT, length = [2, 3, 4] : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x4xf64>
  check.expect_almost_eq_const %r, dense<[[[-0.09830836771744722, -0.21721122231710666, -0.22379115608814582, -0.49131777494602324], [0.44999284986617616, -0.278192895271616, -0.07441399557152639, 0.7800339699784846], [-0.0039733500286727175, -0.27316015723647197, 0.034263835032916856, -0.18865363309636327]], [[-0.06993002693435904, 0.028951082181565106, 0.14334215608937148, -0.1330135941007673], [-0.24190141542597488, -0.2660042151852787, 0.14152358377297303, 0.03178872096238053], [0.1853480874616606, -0.46596504937720684, -0.27636005065612307, 0.1706947484675252]]]> : tensor<2x3x4xf64>, tolerance = 1.000e-12
  func.return
}

// -----

func.func @fft_2x7x2x3_2d_c128() {
  %a = stablehlo.constant dense<[[[[(1.2328367153559596, -0.8883654684738254), (-0.756294144074066, -0.7843000353935374), (1.125585928445425, 1.0427636713936024)], [(-1.9491142032199975, -0.5032736550194898), (1.4850806160670107, -0.7072445484818659), (-1.3507587047789293, 0.5452062797838928)]], [[(-0.17699761736918918, -1.2537179945196035), (0.6470223931633776, -1.5743193996552907), (0.03147827297850636, 0.7885329527705349)], [(-1.3384089297704174, 1.0257813280059929), (-1.4435259471657598, -0.8145415882524656), (-0.8618624283041476, 0.5441647074078593)]], [[(-1.7904329719291665, -1.863693728429618), (-1.1338209315598453, -0.382724077681766), (-1.479579934898982, 0.3118334514235066)], [(-0.14081194194950797, -0.9863258917479638), (-0.5739602826293031, -0.6071403923784482), (0.34732899480188495, 0.4381982552434578)]], [[(-0.8764845414706475, 0.3595913776683286), (-1.864355805905873, -1.383237050135028), (-0.6755593537732714, 0.8263275448497112)], [(1.0207228165186288, -1.6798828968924835), (-0.9766473595311504, 1.8788986965630654), (-0.3818062662941739, -1.1905521673055453)]], [[(1.0198975218715929, -0.9858074293236241), (-0.3732748638226666, -1.1987978147571194), (1.548496527797813, 1.9659958381103237)], [(1.6722740237941043, -0.8536203181383843), (-0.7578814473097775, 0.4211690979552678), (0.9438546123544391, 1.9625366097746593)]], [[(-0.9875320685137527, 1.800271423048104), (-1.4419065178868236, -1.8306006837724138), (-0.24847583475399926, 0.08473627530088779)], [(0.40988971600326485, 0.40521870542503136), (1.7423635682041279, 0.8095802462464232), (-1.416393923869561, -0.6563627400567138)]], [[(0.849450701305873, -0.6883655594767752), (-0.09814198052174028, -1.9828639375655395), (-1.4731628095249265, -1.8590531950959948)], [(1.8906321891989415, 0.20022867407601153), (0.7830757938292598, -1.6964515949146253), (-1.4845652969449548, -1.1900751537220082)]]], [[[(1.6230216744909778, -0.666912335118214), (-1.5876233577910615, -1.7181149660153174), (-1.629363061200547, -1.8765606400484187)], [(-0.6737960178223652, 1.7076817976527527), (1.7518366408041266, -0.2591654816852351), (-1.8679020740835819, -1.1804621574391851)]], [[(1.6728289643208094, 0.8338072053966705), (0.446446314780506, -1.962218634886447), (-1.7317934475189678, -1.0199310094166822)], [(0.27436690171404354, 1.8429985562217595), (-0.16483710992690437, 1.590760691699879), (0.2559381954720559, 0.54370100162043)]], [[(0.9488141643186885, -1.627188914524044), (0.7144763887362506, -0.7277966189447533), (1.9889101922687917, -1.888269799369224)], [(-1.3733237454645013, -1.1232359820620212), (1.2514216750109326, -1.8982635056679986), (-0.3556280523817077, -1.495345284129085)]], [[(1.133230084241637, 0.5328581646816359), (1.5671166951800322, -1.5982286229682128), (1.9679927519248106, -1.3769476970079686)], [(-0.9358326201442644, 1.6112319321521316), (-0.18824691584691955, -0.658190305877119), (1.7711170942539427, -0.6680123018815007)]], [[(1.7829535198375481, -1.65384211839975), (-0.5085046285084203, 1.183722087788599), (1.7608378179372255, 0.7055089618264563)], [(-0.37643537888485445, 0.18853120144105562), (-0.5009356040987685, 0.4716513675378078), (1.026477581092586, -1.5984772303842987)]], [[(-0.11515268023592151, -0.9587757326798609), (-0.20720617527919005, 0.3345660634632579), (-0.4555240252867008, 1.808927753691734)], [(-0.26878427236964075, 1.2685277683134832), (-1.4407294143581542, 0.5629054344418978), (-1.755851410188971, 0.075274315295208)]], [[(1.015972578741791, -1.9394712930495115), (0.25799979832369013, 1.5628650701815565), (0.6875625918327941, -1.7325836184377068)], [(1.2093418085706387, -1.4836757964084586), (-1.079575350035741, 0.7722869537537971), (-1.0649082870198416, 1.2485759237835494)]]]]> : tensor<2x7x2x3xcomplex<f64>>
  %r = stablehlo.fft %a, type = FFT, length = [2, 3] : (tensor<2x7x2x3xcomplex<f64>>) -> tensor<2x7x2x3xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[[[(-0.21266379220459752, -1.2952137561912234), (-3.635022154372992, -2.2660047503701737), (1.6988534829854758, -0.6136988639185486)], [(3.416920791659235, 0.035410091243702535), (2.566836631893101, 3.4903220767776197), (3.5620953321755358, -4.681007608384329)]], [[(-3.14229425646763, -1.2840999942429727), (-3.9249270233918727, 0.27080353590963546), (2.5210016384406826, 0.3294864587925054)], [(4.1453003540130196, -2.794908888565746), (-1.200149202673562, -3.058606768524567), (0.5390827858642269, -0.9849823104864764)]], [[(-4.77127706816492, -3.0898523835708316), (-2.018023125728708, -2.2316794004702194), (0.9955654522576041, -3.2285270764916945)], [(-4.036390608611068, -0.7793163258049232), (-0.15245088086062952, -2.0236895910885186), (-0.7600216004672784, 0.17090240684847946)]], [[(-3.7541305104564873, -1.1888544952519515), (2.8381060210190645, 0.15866539422351766), (1.3487393145813666, -2.9306854566440306)], [(-3.0786688918430962, 0.7942182400179751), (-5.878238085400132, 3.1764827213497453), (3.2652849032753997, 2.1477218623147154)]], [[(4.053366374685505, 1.311475983621123), (-2.064080991766767, -0.276830109388823), (6.087229254078354, -6.552929116618325)], [(0.33687199700797343, -1.7486947955619625), (-2.5529290307031056, 0.8666229182073872), (0.258927527927598, 0.48551054379885583)]], [[(-1.942055060816744, 0.6128432261913188), (-0.2846225950839347, 1.2997906363326495), (0.493750598369215, 4.703836522895438)], [(-3.413773781492407, -0.5040291970381627), (-3.3175201160321777, 6.11369919673277), (2.539028543973532, -1.424511846825389)]], [[(0.46728859734245276, -7.216580766698931), (3.330721926895193, -0.2785527046771017), (4.422238147276797, 6.030722815173742)], [(-1.9109967748240404, -1.843984617577687), (-0.27496223071685777, 0.3621327810860897), (-0.9375854581383067, -1.1839308641667623)]]], [[[(-2.383826195602451, -3.993533782653618), (3.550835887261634, 0.38698775947478214), (1.6806672783466552, 6.728854410782453)], [(-0.8041032933988101, -4.5296420997102835), (3.186629838376758, 1.8015678893544411), (4.507926531962081, -4.39570818795706)]], [[(0.7529498188415427, 1.8291178106356099), (2.6350541591904393, 1.578640871185774), (2.4535836200725774, 4.622658603033907)], [(0.022013844323152565, -6.125802688448527), (0.36386085953257563, -0.7016987554587459), (3.8095114839645694, 3.799927391432007)]], [[(3.1746706224884544, -8.760100104697127), (-1.5680378438051783, -0.03364113229661103), (-2.880161522120715, 0.5424665472355417)], [(4.129730868159007, 0.2735894390210838), (2.7722781007537405, 1.6027138201641142), (0.06440476043682186, -3.3881620565712662)]], [[(5.315377089609238, -2.1572888309010336), (-2.5447211538574117, 6.338807417619375), (-2.178463543459709, 2.2507517037829614)], [(4.0213019730837205, -2.7273474796880572), (0.8928020687268129, -1.603577070460101), (1.2930840713471703, 1.0958032477366708)]], [[(3.1843933073753163, -0.70290573019013), (2.7245092281489716, 1.4415733186162976), (-1.6893481126662069, -5.134600339302251)], [(2.8861801111573904, 1.1736835926207405), (0.4173540531100861, -2.70787218801434), (3.1746325318997313, -3.9929313641288164)]], [[(-4.243247977718578, 3.09142560252572), (0.691184818703392, -1.569037967812806), (2.4002523011984995, -0.593131527812047)], [(2.6874822161149536, -0.721989433575458), (-2.8124293348181912, -2.922106447341184), (0.5858418951043953, -3.0378146220633906)]], [[(1.0263931404133313, -1.5720027601767739), (5.266238944386284, -3.9640049132283988), (0.3833110771376731, -4.733433594968737)], [(2.8966767973832193, -2.6463769224345497), (1.5280283853656054, 0.9988054587845125), (-5.004812872235368, 0.280184973726878)]]]]> : tensor<2x7x2x3xcomplex<f64>>, tolerance = 9.318e-12
  func.return
}

// -----

func.func @ifft_2x7x2x3_2d_c128() {
  %a = stablehlo.constant dense<[[[[(1.2328367153559596, -0.8883654684738254), (-0.756294144074066, -0.7843000353935374), (1.125585928445425, 1.0427636713936024)], [(-1.9491142032199975, -0.5032736550194898), (1.4850806160670107, -0.7072445484818659), (-1.3507587047789293, 0.5452062797838928)]], [[(-0.17699761736918918, -1.2537179945196035), (0.6470223931633776, -1.5743193996552907), (0.03147827297850636, 0.7885329527705349)], [(-1.3384089297704174, 1.0257813280059929), (-1.4435259471657598, -0.8145415882524656), (-0.8618624283041476, 0.5441647074078593)]], [[(-1.7904329719291665, -1.863693728429618), (-1.1338209315598453, -0.382724077681766), (-1.479579934898982, 0.3118334514235066)], [(-0.14081194194950797, -0.9863258917479638), (-0.5739602826293031, -0.6071403923784482), (0.34732899480188495, 0.4381982552434578)]], [[(-0.8764845414706475, 0.3595913776683286), (-1.864355805905873, -1.383237050135028), (-0.6755593537732714, 0.8263275448497112)], [(1.0207228165186288, -1.6798828968924835), (-0.9766473595311504, 1.8788986965630654), (-0.3818062662941739, -1.1905521673055453)]], [[(1.0198975218715929, -0.9858074293236241), (-0.3732748638226666, -1.1987978147571194), (1.548496527797813, 1.9659958381103237)], [(1.6722740237941043, -0.8536203181383843), (-0.7578814473097775, 0.4211690979552678), (0.9438546123544391, 1.9625366097746593)]], [[(-0.9875320685137527, 1.800271423048104), (-1.4419065178868236, -1.8306006837724138), (-0.24847583475399926, 0.08473627530088779)], [(0.40988971600326485, 0.40521870542503136), (1.7423635682041279, 0.8095802462464232), (-1.416393923869561, -0.6563627400567138)]], [[(0.849450701305873, -0.6883655594767752), (-0.09814198052174028, -1.9828639375655395), (-1.4731628095249265, -1.8590531950959948)], [(1.8906321891989415, 0.20022867407601153), (0.7830757938292598, -1.6964515949146253), (-1.4845652969449548, -1.1900751537220082)]]], [[[(1.6230216744909778, -0.666912335118214), (-1.5876233577910615, -1.7181149660153174), (-1.629363061200547, -1.8765606400484187)], [(-0.6737960178223652, 1.7076817976527527), (1.7518366408041266, -0.2591654816852351), (-1.8679020740835819, -1.1804621574391851)]], [[(1.6728289643208094, 0.8338072053966705), (0.446446314780506, -1.962218634886447), (-1.7317934475189678, -1.0199310094166822)], [(0.27436690171404354, 1.8429985562217595), (-0.16483710992690437, 1.590760691699879), (0.2559381954720559, 0.54370100162043)]], [[(0.9488141643186885, -1.627188914524044), (0.7144763887362506, -0.7277966189447533), (1.9889101922687917, -1.888269799369224)], [(-1.3733237454645013, -1.1232359820620212), (1.2514216750109326, -1.8982635056679986), (-0.3556280523817077, -1.495345284129085)]], [[(1.133230084241637, 0.5328581646816359), (1.5671166951800322, -1.5982286229682128), (1.9679927519248106, -1.3769476970079686)], [(-0.9358326201442644, 1.6112319321521316), (-0.18824691584691955, -0.658190305877119), (1.7711170942539427, -0.6680123018815007)]], [[(1.7829535198375481, -1.65384211839975), (-0.5085046285084203, 1.183722087788599), (1.7608378179372255, 0.7055089618264563)], [(-0.37643537888485445, 0.18853120144105562), (-0.5009356040987685, 0.4716513675378078), (1.026477581092586, -1.5984772303842987)]], [[(-0.11515268023592151, -0.9587757326798609), (-0.20720617527919005, 0.3345660634632579), (-0.4555240252867008, 1.808927753691734)], [(-0.26878427236964075, 1.2685277683134832), (-1.4407294143581542, 0.5629054344418978), (-1.755851410188971, 0.075274315295208)]], [[(1.015972578741791, -1.9394712930495115), (0.25799979832369013, 1.5628650701815565), (0.6875625918327941, -1.7325836184377068)], [(1.2093418085706387, -1.4836757964084586), (-1.079575350035741, 0.7722869537537971), (-1.0649082870198416, 1.2485759237835494)]]]]> : tensor<2x7x2x3xcomplex<f64>>
  %r = stablehlo.fft %a, type = IFFT, length = [2, 3] : (tensor<2x7x2x3xcomplex<f64>>) -> tensor<2x7x2x3xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[[[(-0.03544396536743294, -0.2158689593652039), (0.28314224716424596, -0.1022831439864248), (-0.605837025728832, -0.37766745839502897)], [(0.5694867986098724, 0.005901681873950418), (0.5936825553625893, -0.7801679347307214), (0.42780610531551677, 0.5817203461296033)]], [[(-0.5237157094112715, -0.2140166657071621), (0.42016693974011377, 0.054914409798750896), (-0.6541545038986454, 0.0451339226516059)], [(0.6908833923355032, -0.46581814809429095), (0.08984713097737115, -0.16416371841441274), (-0.20002486711226036, -0.5097677947540945)]], [[(-0.7952128446941534, -0.5149753972618052), (0.16592757537626734, -0.5380878460819489), (-0.33633718762145126, -0.3719465667450365)], [(-0.6727317681018447, -0.1298860543008205), (-0.1266702667445464, 0.028483734474746558), (-0.025408480143438245, -0.3372815985147531)]], [[(-0.6256884184094145, -0.19814241587532522), (0.22478988576356113, -0.48844757610733835), (0.4730176701698441, 0.026444232370586296)], [(-0.5131114819738494, 0.13236970666966252), (0.5442141505458999, 0.3579536437191193), (-0.9797063475666885, 0.5294137868916242)]], [[(0.6755610624475842, 0.21857933060352047), (1.0145382090130588, -1.0921548527697207), (-0.34401349862779446, -0.04613835156480384)], [(0.056145332834662276, -0.2914491325936604), (0.043154587987932924, 0.08091842396647597), (-0.42548817178385095, 0.14443715303456453)]], [[(-0.3236758434694573, 0.10214053769855312), (0.08229176639486918, 0.7839727538159064), (-0.047437099180655806, 0.2166317727221082)], [(-0.5689622969154011, -0.08400486617302712), (0.42317142399558866, -0.23741864113756483), (-0.5529200193386963, 1.0189498661221283)]], [[(0.07788143289040879, -1.2027634611164886), (0.7370396912127994, 1.0051204691956235), (0.5551203211491988, -0.046425450779516944)], [(-0.3184994624706734, -0.30733076959628114), (-0.15626424302305114, -0.19732181069446042), (-0.045827038452809665, 0.060355463514348284)]]], [[[(-0.3973043659337418, -0.665588963775603), (0.2801112130577758, 1.1214757351304088), (0.5918059812102723, 0.06449795991246368)], [(-0.13401721556646834, -0.7549403499517138), (0.7513210886603467, -0.7326180313261765), (0.531104973062793, 0.3002613148924068)]], [[(0.12549163647359043, 0.3048529684392683), (0.40893060334542947, 0.7704431005056511), (0.43917569319840655, 0.26310681186429563)], [(0.003668974053858763, -1.0209671147414212), (0.6349185806607616, 0.6333212319053345), (0.060643476588762596, -0.11694979257645764)]], [[(0.5291117704147424, -1.4600166841161877), (-0.4800269203534524, 0.09041109120592358), (-0.26133964063419635, -0.005606855382768505)], [(0.6882884780265012, 0.0455982398368473), (0.010734126739470301, -0.5646936760952109), (0.46204635012562334, 0.26711897002735235)]], [[(0.8858961816015396, -0.3595481384835056), (-0.3630772572432849, 0.3751252839638268), (-0.42412019230956854, 1.0564679029365625)], [(0.6702169955139534, -0.4545579132813428), (0.21551401189119504, 0.18263387462277844), (0.14880034478780213, -0.2672628450766835)]], [[(0.530732217895886, -0.11715095503168832), (-0.28155801877770115, -0.8557667232170417), (0.4540848713581619, 0.24026221976938292)], [(0.4810300185262317, 0.19561393210345673), (0.5291054219832885, -0.6654885606881361), (0.06955900885168098, -0.4513120313357234)]], [[(-0.7072079962864297, 0.5152376004209533), (0.4000420501997499, -0.09885525463534117), (0.11519746978389866, -0.261506327968801)], [(0.4479137026858256, -0.12033157226257632), (0.09764031585073255, -0.5063024370105651), (-0.46873822246969854, -0.4870177412235306)]], [[(0.17106552340222186, -0.2620004600294623), (0.06388517952294553, -0.7889055991614562), (0.8777064907310472, -0.6606674855380664)], [(0.4827794662305365, -0.4410628204057583), (-0.8341354787058946, 0.046697495621146334), (0.2546713975609342, 0.1664675764640854)]]]]> : tensor<2x7x2x3xcomplex<f64>>, tolerance = 1.553e-12
  func.return
}

// -----

func.func @rfft_2x7x2x3_2d_c128() {
  %a = stablehlo.constant dense<[[[[1.2328367153559596, -0.756294144074066, 1.125585928445425], [-1.9491142032199975, 1.4850806160670107, -1.3507587047789293]], [[-0.17699761736918918, 0.6470223931633776, 0.03147827297850636], [-1.3384089297704174, -1.4435259471657598, -0.8618624283041476]], [[-1.7904329719291665, -1.1338209315598453, -1.479579934898982], [-0.14081194194950797, -0.5739602826293031, 0.34732899480188495]], [[-0.8764845414706475, -1.864355805905873, -0.6755593537732714], [1.0207228165186288, -0.9766473595311504, -0.3818062662941739]], [[1.0198975218715929, -0.3732748638226666, 1.548496527797813], [1.6722740237941043, -0.7578814473097775, 0.9438546123544391]], [[-0.9875320685137527, -1.4419065178868236, -0.24847583475399926], [0.40988971600326485, 1.7423635682041279, -1.416393923869561]], [[0.849450701305873, -0.09814198052174028, -1.4731628095249265], [1.8906321891989415, 0.7830757938292598, -1.4845652969449548]]], [[[1.6230216744909778, -1.5876233577910615, -1.629363061200547], [-0.6737960178223652, 1.7518366408041266, -1.8679020740835819]], [[1.6728289643208094, 0.446446314780506, -1.7317934475189678], [0.27436690171404354, -0.16483710992690437, 0.2559381954720559]], [[0.9488141643186885, 0.7144763887362506, 1.9889101922687917], [-1.3733237454645013, 1.2514216750109326, -0.3556280523817077]], [[1.133230084241637, 1.5671166951800322, 1.9679927519248106], [-0.9358326201442644, -0.18824691584691955, 1.7711170942539427]], [[1.7829535198375481, -0.5085046285084203, 1.7608378179372255], [-0.37643537888485445, -0.5009356040987685, 1.026477581092586]], [[-0.11515268023592151, -0.20720617527919005, -0.4555240252867008], [-0.26878427236964075, -1.4407294143581542, -1.755851410188971]], [[1.015972578741791, 0.25799979832369013, 0.6875625918327941], [1.2093418085706387, -1.079575350035741, -1.0649082870198416]]]]> : tensor<2x7x2x3xf64>
  %r = stablehlo.fft %a, type = RFFT, length = [2, 3] : (tensor<2x7x2x3xf64>) -> tensor<2x7x2x2xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[[[[(-0.21266379220459752, 0.0), (-0.9680843356937581, -0.8261529432258126)], [(3.416920791659235, 0.0), (3.064465982034318, 4.085664842580974)]], [[(-3.14229425646763, 0.0), (-0.7019626924755948, -0.029341461441435013)], [(4.1453003540130196, 0.0), (-0.3305332084046675, -1.0368122290190454)]], [[(-4.77127706816492, 0.0), (-0.5112288367355518, 0.4984238380107375)], [(-4.036390608611068, 0.0), (-0.45623624066395396, -1.0972959989684992)]], [[(-3.7541305104564873, 0.0), (2.0934226678002155, 1.5446754254337738)], [(-3.0786688918430962, 0.0), (-1.3064765910623664, 0.5143804295175148)]], [[(4.053366374685505, 0.0), (2.0115741311557933, 3.1380495036147513)], [(0.33687199700797343, 0.0), (-1.1470007513877538, 0.1905561872042656)]], [[(-1.942055060816744, 0.0), (0.10456400164264013, -1.7020229432813945)], [(-3.413773781492407, 0.0), (-0.3892457860293228, 3.769105521779079)]], [[(0.46728859734245276, 0.0), (3.876480037085995, -3.154637759925422)], [(-1.9109967748240404, 0.0), (-0.6062738444275824, 0.7730318226264261)]]], [[[(-2.383826195602451, 0.0), (2.615751582804145, -3.170933325653835)], [(-0.8041032933988101, 0.0), (3.8472781851694196, 3.0986380386557504)]], [[(0.7529498188415427, 0.0), (2.544318889631508, -1.5220088659240663)], [(0.022013844323152565, 0.0), (2.0866861717485725, -2.2508130734453764)]], [[(3.1746706224884544, 0.0), (-2.2240996829629465, -0.28805383976607635)], [(4.129730868159007, 0.0), (1.418341430595281, 2.49543793836769)]], [[(5.315377089609238, 0.0), (-2.3615923486585606, 2.0440278569182064)], [(4.0213019730837205, 0.0), (1.0929430700369915, -1.3496901590983859)]], [[(3.1843933073753163, 0.0), (0.5175805577413823, 3.2880868289592744)], [(2.8861801111573904, 0.0), (1.7959932925049087, 0.6425295880572379)]], [[(-4.243247977718578, 0.0), (1.5457185599509458, -0.4879532200003795)], [(2.6874822161149536, 0.0), (-1.113293719856898, 0.05785408736110326)]], [[(1.0263931404133313, 0.0), (2.8247750107619787, 0.38471434087016926)], [(2.8966767973832193, 0.0), (-1.738392243434881, 0.3593102425288171)]]]]> : tensor<2x7x2x2xcomplex<f64>>, tolerance = 5.315e-12
  func.return
}

// -----

func.func @irfft_2x7x2x3_2d_c128() {
  %a = stablehlo.constant dense<[[[[(1.1462026554704816, -0.8166527366288334), (-0.19038351880003068, 0.6272280550156082)], [(-1.2917768893320782, -1.3076553783142044), (-1.8587911336803784, 1.6266080956099662)]], [[(1.4055184407391765, 1.8403258204875175), (1.9107898523274702, -0.02802537105296521)], [(-1.0234579808643143, -0.13843949630071695), (1.4643053104362678, 1.4384668233406517)]], [[(-0.38987633214984774, -0.8406488096893092), (-0.7546249600989707, 1.2124227216277084)], [(0.020617348473411123, -0.8507695630363776), (-1.9673272731141447, 0.8798591780959009)]], [[(-0.2291421231644586, -0.6639546326966719), (-1.2017801256688156, 0.4104066850270329)], [(0.8498287743207071, 1.7034729851538257), (0.010285518782634284, -1.7827008584569848)]], [[(1.4754105197283192, 1.229018510571028), (1.5865927635497936, 0.16738227633131686)], [(-0.7329642809996604, -0.4837294784426964), (-0.8784647772116818, -0.5988981715009714)]], [[(1.756521534983222, -1.7223519069783606), (0.01599023718331294, -0.9664852101973218)], [(-1.6139378947040863, 0.4925480991809503), (-1.8164594758322057, -1.6096401623753813)]], [[(1.961702096648283, 0.6776293614690143), (0.3166545161111989, 1.8490133565493694)], [(-1.782028107224638, 1.923104414192764), (0.0450217934845365, 1.5569648697379623)]]], [[[(0.016418011965585677, 1.2264434170393415), (-0.25844863274650276, -1.2881867552101096)], [(1.8051215940361591, 1.8806238148063765), (1.7950881229353532, -1.1891071894833347)]], [[(-1.5001292869048144, 1.476199028669762), (-1.3931171915971055, 1.5114946731121575)], [(-0.37004557687806505, 0.4876332637522731), (1.336105884692937, 0.08522692916503649)]], [[(0.49501038053341606, -1.198299254657678), (0.9193205115978884, 0.07787348241501846)], [(0.30423352948749294, -0.8375204187320446), (-1.1597722544167954, -1.496477164738288)]], [[(1.2710617151237775, -1.487235279433261), (-1.9439160717516022, 1.2046838524867591)], [(0.7939370315825975, 1.689613520078053), (-1.2226415369748644, -1.4325248415306766)]], [[(-0.11563408066512526, -1.9469558373786926), (1.9005328216483086, -0.9454691808020708)], [(0.15614343006066855, -1.4622440349831494), (-1.772204715524377, -1.2454938916786387)]], [[(-0.2848806805978512, 0.3333075976577513), (0.6410684233276869, -0.3108235083054596)], [(-1.7731732303923162, -0.28308361944299865), (-0.989385093995161, -1.1775493773702905)]], [[(-1.9266554482954898, 0.6583551168090693), (0.16027300503914654, -0.8419591240885693)], [(-0.47408968328455847, -0.4034124857037269), (0.014760066645315373, -0.14634383847726262)]]]]> : tensor<2x7x2x2xcomplex<f64>>
  %r = stablehlo.fft %a, type = IRFFT, length = [2, 3] : (tensor<2x7x2x2xcomplex<f64>>) -> tensor<2x7x2x3xf64>
  check.expect_almost_eq_const %r, dense<[[[[-0.7073205898037358, -0.33335971770002387, 0.9678931905729613], [0.9624657957605425, 0.41675815605031447, -0.16023417940957713]], [[1.188708464233723, -0.905998493225397, -0.09167974107089472], [0.5536575842309825, 0.7537551448842011, -0.09292451831343847]], [[-0.9688605750171112, -0.2118742174235572, 0.9961053006024502], [0.3358184909011815, -0.36653549129677787, -0.17452983991603302]], [[-0.29371709376935234, 0.6981774148923071, -0.09411699554483051], [-0.5838503643980109, -0.6109131574684341, 0.6552780731238622]], [[0.3597837019008137, 0.13028761784965898, -0.11884820038614333], [1.1897483137084883, -0.26398656808760856, 0.17842565474310995]], [[-0.5763924728364416, 1.0675054851485424, -0.41982119217253283], [1.172559809286391, 0.07067211039330985, 0.4419977951639534]], [[0.15050443476918596, -1.0135549429291792, 0.9528875028718158], [0.7144992748543741, 0.4943757773025488, 0.6629900497795373]]], [[[0.8158030977299076, 0.7626165155507773, -0.6676498102798126], [-0.9826295155723808, 0.07274066924031944, 0.015537055296774741]], [[-0.330699579598536, -0.7631277495942659, 0.15873989730136234], [-1.0980883104344723, -0.14520480524162638, 0.678251260662724]], [[0.05305673739718249, 0.5827982177380029, -0.23623300012473095], [0.7248270638458818, -0.7691952041278715, 0.13975656580495133]], [[-0.7113527451244264, 0.937698087417275, 0.8061540310603388], [-0.16090406433538257, -0.5615633716471076, 0.9610297777530802]], [[0.049527593607234424, 0.6178401003859021, -0.6471130192953649], [1.1789495939365962, -0.7440288484438096, -0.5708095008556835]], [[-0.4591145420541859, 0.14470003637926832, -0.714612449820166], [0.7915332640733601, -0.27389570149716, 0.22650871232103242]], [[-0.34177983136852075, -0.14399787647160783, -0.7145948579498955], [-0.19358998137054484, -0.06553961436740725, -0.46715328676751355]]]]> : tensor<2x7x2x3xf64>, tolerance = 1.190e-12
  func.return
}
