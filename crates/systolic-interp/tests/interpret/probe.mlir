// interpreter.probe records a value under a name; check.expect_serialized_eq compares a value
// with the record of an iteration (0 unless `iter` says otherwise).

func.func @a_probe_returns_its_operand_and_records_it() {
  %a = stablehlo.constant dense<[[1.5, -2.0], [0.0, 7.25]]> : tensor<2x2xf32>
  %b = stablehlo.multiply %a, %a : tensor<2x2xf32>
  %p = interpreter.probe %b, probe_id = "squares" : tensor<2x2xf32>
  check.expect_eq_const %p, dense<[[2.25, 4.0], [0.0, 52.5625]]> : tensor<2x2xf32>
  check.expect_serialized_eq %b, probe_id = "squares" : tensor<2x2xf32>
  func.return
}

// -----

func.func @every_loop_iteration_is_recorded() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %r = stablehlo.while(%i = %zero) : tensor<i64>
    cond {
      %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %n = stablehlo.add %i, %one : tensor<i64>
      %q = interpreter.probe %n, probe_id = "counter" : tensor<i64>
      stablehlo.return %q : tensor<i64>
    }
  %first = stablehlo.constant dense<1> : tensor<i64>
  %last = stablehlo.constant dense<3> : tensor<i64>
  check.expect_serialized_eq %first, probe_id = "counter" : tensor<i64>
  check.expect_serialized_eq %last, probe_id = "counter", iter = 2 : tensor<i64>
  check.expect_eq_const %r, dense<3> : tensor<i64>
  func.return
}

// -----

func.func @integer_and_boolean_probes() {
  %a = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %p = interpreter.probe %a, probe_id = "flags" : tensor<3xi1>
  %b = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  %q = interpreter.probe %b, probe_id = "bytes" : tensor<2xui8>
  check.expect_serialized_eq %p, probe_id = "flags" : tensor<3xi1>
  check.expect_serialized_eq %q, probe_id = "bytes" : tensor<2xui8>
  func.return
}
