// chlo.scan: the body threads carries along one dimension; expected values by hand.

// Two inputs, one output, two carries (running sum and running count of positives), along
// dimension 1 of a 2x3 input: each row is scanned on its own.
func.func @scan_two_inputs_one_output_two_carries() {
  %x = stablehlo.constant dense<[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %w = stablehlo.constant dense<[[1.0, 1.0, 2.0], [0.5, 1.0, 1.0]]> : tensor<2x3xf32>
  %s0 = stablehlo.constant dense<0.0> : tensor<2xf32>
  %n0 = stablehlo.constant dense<0> : tensor<2xi32>
  %r:3 = chlo.scan(%x, %w) inits(%s0, %n0) dimension = 1 {
  ^bb0(%xi: tensor<2xf32>, %wi: tensor<2xf32>, %s: tensor<2xf32>, %n: tensor<2xi32>):
    %p = stablehlo.multiply %xi, %wi : tensor<2xf32>
    %s1 = stablehlo.add %s, %p : tensor<2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<2xf32>
    %pos = stablehlo.compare GT, %xi, %zero : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %one = stablehlo.convert %pos : (tensor<2xi1>) -> tensor<2xi32>
    %n1 = stablehlo.add %n, %one : tensor<2xi32>
    stablehlo.return %s1, %s1, %n1 : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>
  } : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>)
  // Row 0: 1, 1 - 2 = -1, -1 + 6 = 5; row 1: 2, 2 + 5 = 7, 7 - 6 = 1.
  check.expect_eq_const %r#0, dense<[[1.0, -1.0, 5.0], [2.0, 7.0, 1.0]]> : tensor<2x3xf32>
  check.expect_eq_const %r#1, dense<[5.0, 1.0]> : tensor<2xf32>
  check.expect_eq_const %r#2, dense<[2, 2]> : tensor<2xi32>
  func.return
}

// -----

// Reverse, with an output of another shape than the input slices (each step emits a pair),
// in the generic form with the segment sizes.
func.func @reverse_scan_with_wider_outputs() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %c0 = stablehlo.constant dense<10> : tensor<i64>
  %r:2 = "chlo.scan"(%x, %c0) <{dimension = 0 : i64, is_reverse = true,
      operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%xi: tensor<i64>, %c: tensor<i64>):
    %m = stablehlo.multiply %c, %xi : tensor<i64>
    %pair = stablehlo.broadcast_in_dim %m, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %i = stablehlo.iota dim = 0 : tensor<2xi64>
    %o = stablehlo.add %pair, %i : tensor<2xi64>
    stablehlo.return %o, %m : tensor<2xi64>, tensor<i64>
  }) : (tensor<3xi64>, tensor<i64>) -> (tensor<3x2xi64>, tensor<i64>)
  // From the end: 10*3 = 30, 30*2 = 60, 60*1 = 60; outputs at their own positions.
  check.expect_eq_const %r#0, dense<[[60, 61], [60, 61], [30, 31]]> : tensor<3x2xi64>
  check.expect_eq_const %r#1, dense<60> : tensor<i64>
  func.return
}

// -----

// A scan over an empty dimension returns the inits and empty outputs.
func.func @empty_scan_returns_the_inits() {
  %x = stablehlo.constant dense<> : tensor<0x2xf32>
  %c0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r:2 = chlo.scan(%x) inits(%c0) dimension = 0 {
  ^bb0(%xi: tensor<2xf32>, %c: tensor<2xf32>):
    %s = stablehlo.add %c, %xi : tensor<2xf32>
    stablehlo.return %s, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<0x2xf32>, tensor<2xf32>) -> (tensor<0x2xf32>, tensor<2xf32>)
  check.expect_eq_const %r#0, dense<> : tensor<0x2xf32>
  check.expect_eq_const %r#1, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}
