// Collectives across the processes of "interpreter.run_parallel" (programs = rows of replicas,
// each a list of partitions). Most programs derive their operand from their own ids through
// @val, so that every process starts from a different, recognisable value: 10 * replica +
// partition (+ 1 in @val1, where 0 must differ from "received nothing").

// -----

func.func private @ids() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  return %b : tensor<ui32>
}
func.func @ids_on_a_2x4_grid() {
  %r:8 = "interpreter.run_parallel"() {
    programs = [[@ids, @ids, @ids, @ids], [@ids, @ids, @ids, @ids]]
  } : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
             tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
  check.expect_eq_const %r#0, dense<0> : tensor<ui32>
  check.expect_eq_const %r#1, dense<1> : tensor<ui32>
  check.expect_eq_const %r#3, dense<3> : tensor<ui32>
  check.expect_eq_const %r#4, dense<10> : tensor<ui32>
  check.expect_eq_const %r#7, dense<13> : tensor<ui32>
  func.return
}

// -----

func.func private @val() -> tensor<i64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %c = stablehlo.convert %b : (tensor<ui32>) -> tensor<i64>
  return %c : tensor<i64>
}
// Two processes, then eight: one group of all replicas (no channel: cross_replica).
func.func @sum(%x: tensor<i64>) -> tensor<i64> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func private @sum_all() -> tensor<i64> {
  %x = func.call @val() : () -> tensor<i64>
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func @all_reduce_over_2_and_8_replicas() {
  %a = stablehlo.constant dense<5> : tensor<i64>
  %b = stablehlo.constant dense<-7> : tensor<i64>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@sum], [@sum]]}
      : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<-2> : tensor<i64>
  check.expect_eq_const %r#1, dense<-2> : tensor<i64>
  %s:8 = "interpreter.run_parallel"() {
    programs = [[@sum_all], [@sum_all], [@sum_all], [@sum_all], [@sum_all], [@sum_all], [@sum_all], [@sum_all]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>,
             tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  // 0 + 10 + ... + 70
  check.expect_eq_const %s#0, dense<280> : tensor<i64>
  check.expect_eq_const %s#5, dense<280> : tensor<i64>
  check.expect_eq_const %s#7, dense<280> : tensor<i64>
  func.return
}

// -----

func.func private @val() -> tensor<i64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %c = stablehlo.convert %b : (tensor<ui32>) -> tensor<i64>
  return %c : tensor<i64>
}
// cross_replica on a 4x2 grid: one group of the four replicas per partition.
func.func private @cross_replica() -> tensor<i64> {
  %x = func.call @val() : () -> tensor<i64>
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func @all_reduce_cross_replica_on_a_4x2_grid() {
  %r:8 = "interpreter.run_parallel"() {
    programs = [[@cross_replica, @cross_replica], [@cross_replica, @cross_replica],
                [@cross_replica, @cross_replica], [@cross_replica, @cross_replica]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>,
             tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  // partition 0: 0 + 10 + 20 + 30; partition 1: 1 + 11 + 21 + 31
  check.expect_eq_const %r#0, dense<60> : tensor<i64>
  check.expect_eq_const %r#1, dense<64> : tensor<i64>
  check.expect_eq_const %r#6, dense<60> : tensor<i64>
  check.expect_eq_const %r#7, dense<64> : tensor<i64>
  func.return
}

// -----

func.func private @val() -> tensor<i64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %c = stablehlo.convert %b : (tensor<ui32>) -> tensor<i64>
  return %c : tensor<i64>
}
// cross_replica_and_partition (a channel, no global ids) on a 2x2 grid: groups of replicas
// times every partition. [[0], [1]] gives {(0,0), (0,1)} and {(1,0), (1,1)}; [[0, 1]] all four.
func.func private @per_replica_sum() -> tensor<i64> {
  %x = func.call @val() : () -> tensor<i64>
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func private @everyone_max() -> tensor<i64> {
  %x = func.call @val() : () -> tensor<i64>
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.maximum %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func @all_reduce_cross_replica_and_partition() {
  %r:4 = "interpreter.run_parallel"() {
    programs = [[@per_replica_sum, @per_replica_sum], [@per_replica_sum, @per_replica_sum]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<1> : tensor<i64>
  check.expect_eq_const %r#1, dense<1> : tensor<i64>
  check.expect_eq_const %r#2, dense<21> : tensor<i64>
  check.expect_eq_const %r#3, dense<21> : tensor<i64>
  %m:4 = "interpreter.run_parallel"() {
    programs = [[@everyone_max, @everyone_max], [@everyone_max, @everyone_max]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %m#0, dense<11> : tensor<i64>
  check.expect_eq_const %m#3, dense<11> : tensor<i64>
  func.return
}

// -----

// all_reduce with other regions: multiply, minimum, and "and" on booleans; variadic.
func.func @products(%x: tensor<2xi32>, %b: tensor<2xi1>) -> (tensor<2xi32>, tensor<2xi1>) {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %s = stablehlo.multiply %a, %c : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xi32>) -> tensor<2xi32>
  %q = "stablehlo.all_reduce"(%b) ({
    ^bb0(%a: tensor<i1>, %c: tensor<i1>):
      %s = stablehlo.and %a, %c : tensor<i1>
      stablehlo.return %s : tensor<i1>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xi1>) -> tensor<2xi1>
  return %r, %q : tensor<2xi32>, tensor<2xi1>
}
func.func @minimums(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r:2 = "stablehlo.all_reduce"(%x, %y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %s = stablehlo.minimum %a, %c : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
}
func.func @all_reduce_with_other_regions() {
  %x0 = stablehlo.constant dense<[1, -1]> : tensor<2xi32>
  %x1 = stablehlo.constant dense<[2, 5]> : tensor<2xi32>
  %x2 = stablehlo.constant dense<[3, 7]> : tensor<2xi32>
  %x3 = stablehlo.constant dense<[4, 2]> : tensor<2xi32>
  %t = stablehlo.constant dense<[true, true]> : tensor<2xi1>
  %f = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %r:8 = "interpreter.run_parallel"(%x0, %t, %x1, %t, %x2, %f, %x3, %t) {
    programs = [[@products], [@products], [@products], [@products]]
  } : (tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi1>,
       tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi1>)
    -> (tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi1>,
        tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi1>)
  check.expect_eq_const %r#0, dense<[24, -70]> : tensor<2xi32>
  check.expect_eq_const %r#1, dense<[true, false]> : tensor<2xi1>
  check.expect_eq_const %r#6, dense<[24, -70]> : tensor<2xi32>
  check.expect_eq_const %r#7, dense<[true, false]> : tensor<2xi1>
  %a = stablehlo.constant dense<[1.5, -0.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[-2.0, 0.0]> : tensor<2xf32>
  %m:4 = "interpreter.run_parallel"(%a, %b, %b, %a) {programs = [[@minimums], [@minimums]]}
      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %m#0, dense<[-2.0, -0.0]> : tensor<2xf32>
  check.expect_eq_const %m#1, dense<[-2.0, -0.0]> : tensor<2xf32>
  check.expect_eq_const %m#3, dense<[-2.0, -0.0]> : tensor<2xf32>
  func.return
}

// -----

// f32 sums depend on the order of the group: 1e8 + 1 rounds back to 1e8 in f32. Over
// [0, 1, 2, 3]: ((1e8 + 1) + -1e8) + 1 = 1; over [3, 2, 1, 0]: ((1 + -1e8) + 1) + 1e8 = 0.
func.func @forward(%x: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @backward(%x: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[3, 2, 1, 0]]> : tensor<1x4xi64>} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @f32_sums_follow_the_group_order() {
  %big = stablehlo.constant dense<1.0e+08> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %neg = stablehlo.constant dense<-1.0e+08> : tensor<f32>
  %f:4 = "interpreter.run_parallel"(%big, %one, %neg, %one) {
    programs = [[@forward], [@forward], [@forward], [@forward]]
  } : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  check.expect_eq_const %f#0, dense<1.0> : tensor<f32>
  check.expect_eq_const %f#3, dense<1.0> : tensor<f32>
  %b:4 = "interpreter.run_parallel"(%big, %one, %neg, %one) {
    programs = [[@backward], [@backward], [@backward], [@backward]]
  } : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  check.expect_eq_const %b#0, dense<0.0> : tensor<f32>
  check.expect_eq_const %b#2, dense<0.0> : tensor<f32>
  func.return
}

// -----

func.func private @val() -> tensor<1xi64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %c = stablehlo.convert %b : (tensor<ui32>) -> tensor<i64>
  %d = stablehlo.reshape %c : (tensor<i64>) -> tensor<1xi64>
  return %d : tensor<1xi64>
}
// flattened_ids on a 2x4 grid: flattened id = replica * 4 + partition.
func.func private @gather_flat() -> tensor<4xi64> {
  %x = func.call @val() : () -> tensor<1xi64>
  %r = "stablehlo.all_gather"(%x) {
    all_gather_dim = 0 : i64,
    replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
    use_global_device_ids
  } : (tensor<1xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}
// cross_replica with two groups of replicas on a 4x1 grid, gathering a 2-d operand.
func.func @gather_pairs(%x: tensor<1x2xi64>) -> tensor<1x4xi64> {
  %r = "stablehlo.all_gather"(%x) {
    all_gather_dim = 1 : i64,
    replica_groups = dense<[[0, 3], [2, 1]]> : tensor<2x2xi64>
  } : (tensor<1x2xi64>) -> tensor<1x4xi64>
  return %r : tensor<1x4xi64>
}
func.func @all_gather_flattened_and_in_two_groups() {
  %r:8 = "interpreter.run_parallel"() {
    programs = [[@gather_flat, @gather_flat, @gather_flat, @gather_flat],
                [@gather_flat, @gather_flat, @gather_flat, @gather_flat]]
  } : () -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>,
             tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
  check.expect_eq_const %r#0, dense<[0, 2, 10, 12]> : tensor<4xi64>
  check.expect_eq_const %r#1, dense<[1, 3, 11, 13]> : tensor<4xi64>
  check.expect_eq_const %r#6, dense<[0, 2, 10, 12]> : tensor<4xi64>
  check.expect_eq_const %r#7, dense<[1, 3, 11, 13]> : tensor<4xi64>
  %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %b = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
  %c = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
  %d = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %g:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
    programs = [[@gather_pairs], [@gather_pairs], [@gather_pairs], [@gather_pairs]]
  } : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
    -> (tensor<1x4xi64>, tensor<1x4xi64>, tensor<1x4xi64>, tensor<1x4xi64>)
  check.expect_eq_const %g#0, dense<[[1, 2, 7, 8]]> : tensor<1x4xi64>
  check.expect_eq_const %g#1, dense<[[5, 6, 3, 4]]> : tensor<1x4xi64>
  check.expect_eq_const %g#2, dense<[[5, 6, 3, 4]]> : tensor<1x4xi64>
  check.expect_eq_const %g#3, dense<[[1, 2, 7, 8]]> : tensor<1x4xi64>
  func.return
}

// -----

// reduce_scatter in two groups of two replicas.
func.func @scatter(%x: tensor<4xi64>) -> tensor<2xi64> {
  %r = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    scatter_dimension = 0 : i64,
    replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>
  } : (tensor<4xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
// reduce_scatter over all four processes of a 2x2 grid (a channel: cross_replica_and_partition),
// along the second dimension.
func.func @scatter_grid(%x: tensor<1x4xf32>) -> tensor<1x1xf32> {
  %r = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {
    scatter_dimension = 1 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
  } : (tensor<1x4xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
func.func @reduce_scatter_in_groups() {
  %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %b = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
  %c = stablehlo.constant dense<[100, 200, 300, 400]> : tensor<4xi64>
  %d = stablehlo.constant dense<[1000, 2000, 3000, 4000]> : tensor<4xi64>
  %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
    programs = [[@scatter], [@scatter], [@scatter], [@scatter]]
  } : (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
    -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %r#0, dense<[11, 22]> : tensor<2xi64>
  check.expect_eq_const %r#1, dense<[33, 44]> : tensor<2xi64>
  check.expect_eq_const %r#2, dense<[1100, 2200]> : tensor<2xi64>
  check.expect_eq_const %r#3, dense<[3300, 4400]> : tensor<2xi64>
  %e = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %s:4 = "interpreter.run_parallel"(%e, %e, %e, %e) {
    programs = [[@scatter_grid, @scatter_grid], [@scatter_grid, @scatter_grid]]
  } : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>)
    -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  // The group is (0,0), (1,0), (0,1), (1,1): process (0, 1) is third and gets part 2.
  check.expect_eq_const %s#0, dense<[[4.0]]> : tensor<1x1xf32>
  check.expect_eq_const %s#1, dense<[[12.0]]> : tensor<1x1xf32>
  check.expect_eq_const %s#2, dense<[[8.0]]> : tensor<1x1xf32>
  check.expect_eq_const %s#3, dense<[[16.0]]> : tensor<1x1xf32>
  func.return
}

// -----

func.func private @row() -> tensor<4xi64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %c = stablehlo.convert %b : (tensor<ui32>) -> tensor<i64>
  %d = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4xi64>
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %h = stablehlo.constant dense<100> : tensor<4xi64>
  %j = stablehlo.multiply %i, %h : tensor<4xi64>
  %e = stablehlo.add %d, %j : tensor<4xi64>
  return %e : tensor<4xi64>
}
// all_to_all across the four partitions of a 1x4 grid (a channel: cross_partition); the
// operand of process (0, p) is [p, 100 + p, 200 + p, 300 + p].
func.func private @transpose4() -> tensor<4xi64> {
  %x = func.call @row() : () -> tensor<4xi64>
  %r = "stablehlo.all_to_all"(%x) {
    split_dimension = 0 : i64,
    concat_dimension = 0 : i64,
    split_count = 4 : i64,
    replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
  } : (tensor<4xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}
// all_to_all across replicas on a 2x2 grid (no channel: cross_replica), splitting the columns
// and stacking the rows.
func.func @swap(%x: tensor<1x2xi64>) -> tensor<2x1xi64> {
  %r = "stablehlo.all_to_all"(%x) {
    split_dimension = 1 : i64,
    concat_dimension = 0 : i64,
    split_count = 2 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
  } : (tensor<1x2xi64>) -> tensor<2x1xi64>
  return %r : tensor<2x1xi64>
}
func.func @all_to_all_across_partitions_and_replicas() {
  %r:4 = "interpreter.run_parallel"() {
    programs = [[@transpose4, @transpose4, @transpose4, @transpose4]]
  } : () -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
  check.expect_eq_const %r#0, dense<[0, 1, 2, 3]> : tensor<4xi64>
  check.expect_eq_const %r#2, dense<[200, 201, 202, 203]> : tensor<4xi64>
  check.expect_eq_const %r#3, dense<[300, 301, 302, 303]> : tensor<4xi64>
  %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %b = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
  %c = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
  %d = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %s:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
    programs = [[@swap, @swap], [@swap, @swap]]
  } : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
    -> (tensor<2x1xi64>, tensor<2x1xi64>, tensor<2x1xi64>, tensor<2x1xi64>)
  // (0, 0) meets (1, 0): it gets the first columns of both; (1, 0) the second ones.
  check.expect_eq_const %s#0, dense<[[1], [5]]> : tensor<2x1xi64>
  check.expect_eq_const %s#1, dense<[[3], [7]]> : tensor<2x1xi64>
  check.expect_eq_const %s#2, dense<[[2], [6]]> : tensor<2x1xi64>
  check.expect_eq_const %s#3, dense<[[4], [8]]> : tensor<2x1xi64>
  func.return
}

// -----

func.func private @val1() -> tensor<i64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %b1 = stablehlo.add %b, %one : tensor<ui32>
  %c = stablehlo.convert %b1 : (tensor<ui32>) -> tensor<i64>
  return %c : tensor<i64>
}
// A ring over 8 replicas: replica r receives from r - 1.
func.func private @ring() -> tensor<i64> {
  %x = func.call @val1() : () -> tensor<i64>
  %r = "stablehlo.collective_permute"(%x) {
    source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
// Across partitions on a 2x2 grid: partition 1 receives from partition 0, which gets zeros.
func.func private @shift() -> tensor<i64> {
  %x = func.call @val1() : () -> tensor<i64>
  %r = "stablehlo.collective_permute"(%x) {
    source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func @collective_permute_ring_and_shift() {
  %r:8 = "interpreter.run_parallel"() {
    programs = [[@ring], [@ring], [@ring], [@ring], [@ring], [@ring], [@ring], [@ring]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>,
             tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<71> : tensor<i64>
  check.expect_eq_const %r#1, dense<1> : tensor<i64>
  check.expect_eq_const %r#4, dense<31> : tensor<i64>
  check.expect_eq_const %r#7, dense<61> : tensor<i64>
  %s:4 = "interpreter.run_parallel"() {
    programs = [[@shift, @shift], [@shift, @shift]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %s#0, dense<0> : tensor<i64>
  check.expect_eq_const %s#1, dense<1> : tensor<i64>
  check.expect_eq_const %s#2, dense<0> : tensor<i64>
  check.expect_eq_const %s#3, dense<11> : tensor<i64>
  func.return
}

// -----

func.func private @val1() -> tensor<i64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %b1 = stablehlo.add %b, %one : tensor<ui32>
  %c = stablehlo.convert %b1 : (tensor<ui32>) -> tensor<i64>
  return %c : tensor<i64>
}
// Across partitions on a 2x2 grid: partition 1 is the root of each replica's group.
func.func private @from_partition_1() -> tensor<i64> {
  %x = func.call @val1() : () -> tensor<i64>
  %r = "stablehlo.collective_broadcast"(%x) {
    replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
// Across replicas on a 4x1 grid: replicas 0 and 3 are in no group and get zeros.
func.func private @from_replica_2() -> tensor<i64> {
  %x = func.call @val1() : () -> tensor<i64>
  %r = "stablehlo.collective_broadcast"(%x) {
    replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>
  } : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
// The root chosen at run time: the last operand gives, per result, the index in the group.
func.func @dynamic(%root: tensor<2xi32>) -> (tensor<i64>, tensor<i64>) {
  %x = func.call @val1() : () -> tensor<i64>
  %y = stablehlo.negate %x : tensor<i64>
  %r:2 = "stablehlo.collective_broadcast"(%x, %y, %root) {
    replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>,
    has_dynamic_root
  } : (tensor<i64>, tensor<i64>, tensor<2xi32>) -> (tensor<i64>, tensor<i64>)
  return %r#0, %r#1 : tensor<i64>, tensor<i64>
}
func.func @collective_broadcast_modes() {
  %r:4 = "interpreter.run_parallel"() {
    programs = [[@from_partition_1, @from_partition_1], [@from_partition_1, @from_partition_1]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<2> : tensor<i64>
  check.expect_eq_const %r#1, dense<2> : tensor<i64>
  check.expect_eq_const %r#2, dense<12> : tensor<i64>
  check.expect_eq_const %r#3, dense<12> : tensor<i64>
  %s:4 = "interpreter.run_parallel"() {
    programs = [[@from_replica_2], [@from_replica_2], [@from_replica_2], [@from_replica_2]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %s#0, dense<0> : tensor<i64>
  check.expect_eq_const %s#1, dense<21> : tensor<i64>
  check.expect_eq_const %s#2, dense<21> : tensor<i64>
  check.expect_eq_const %s#3, dense<0> : tensor<i64>
  %roots = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
  %d:6 = "interpreter.run_parallel"(%roots, %roots, %roots) {
    programs = [[@dynamic], [@dynamic], [@dynamic]]
  } : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %d#0, dense<21> : tensor<i64>
  check.expect_eq_const %d#1, dense<-1> : tensor<i64>
  check.expect_eq_const %d#4, dense<21> : tensor<i64>
  check.expect_eq_const %d#5, dense<-1> : tensor<i64>
  func.return
}

// -----

// Collectives inside a while loop: three rounds of x <- (x + partner's x) + partner's x.
func.func @rounds(%x: tensor<i64>) -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %i, %v = stablehlo.while(%arg0 = %zero, %arg1 = %x) : tensor<i64>, tensor<i64>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i64>
    %c = stablehlo.compare LT, %arg0, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %n = stablehlo.add %arg0, %one : tensor<i64>
    %s = "stablehlo.all_reduce"(%arg1) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %t = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %t : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
    %m = "stablehlo.collective_permute"(%arg1) {
      source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>
    } : (tensor<i64>) -> tensor<i64>
    %g = stablehlo.add %s, %m : tensor<i64>
    stablehlo.return %n, %g : tensor<i64>, tensor<i64>
  }
  return %v : tensor<i64>
}
func.func @collectives_in_a_while_loop() {
  %a = stablehlo.constant dense<1> : tensor<i64>
  %b = stablehlo.constant dense<2> : tensor<i64>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@rounds], [@rounds]]}
      : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  // (1, 2) -> (3 + 2, 3 + 1) = (5, 4) -> (9 + 4, 9 + 5) = (13, 14) -> (27 + 14, 27 + 13)
  check.expect_eq_const %r#0, dense<41> : tensor<i64>
  check.expect_eq_const %r#1, dense<40> : tensor<i64>
  func.return
}

// -----

// infeed reads the run's infeed functions, one per infeed op, in order.
func.func @two_reads(%t: !stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>) {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return %a#0, %b#0 : tensor<2xi32>, tensor<2xi32>
}
func.func private @first() -> tensor<2xi32> {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  return %c : tensor<2xi32>
}
func.func private @second() -> tensor<2xi32> {
  %c = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  return %c : tensor<2xi32>
}
func.func @infeed_from_functions() {
  %t = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%t) {infeed = [@first, @second], programs = [[@two_reads]]}
      : (!stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>)
  check.expect_eq_const %r#0, dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %r#1, dense<[3, 4]> : tensor<2xi32>
  func.return
}

// -----

// send/recv through a channel: messages arrive in the order they were sent; a process may
// receive before the sender has sent. outfeed under run_parallel just gives a token.
func.func private @sender(%x: tensor<2xi32>, %t: !stablehlo.token) -> !stablehlo.token {
  %a = "stablehlo.send"(%x, %t) {
    channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>
  } : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  %y = stablehlo.add %x, %x : tensor<2xi32>
  %b = "stablehlo.send"(%y, %a) {
    channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>
  } : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  %c = "stablehlo.outfeed"(%y, %b) : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  return %c : !stablehlo.token
}
func.func private @receiver(%t: !stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>) {
  %a:2 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>
  } : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  %b:2 = "stablehlo.recv"(%a#1) {
    channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>
  } : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return %a#0, %b#0 : tensor<2xi32>, tensor<2xi32>
}
func.func @send_and_recv_on_a_channel() {
  %x = stablehlo.constant dense<[3, -4]> : tensor<2xi32>
  %t = stablehlo.after_all : !stablehlo.token
  %r:3 = "interpreter.run_parallel"(%t, %x, %t) {programs = [[@receiver, @sender]]}
      : (!stablehlo.token, tensor<2xi32>, !stablehlo.token)
      -> (tensor<2xi32>, tensor<2xi32>, !stablehlo.token)
  check.expect_eq_const %r#0, dense<[3, -4]> : tensor<2xi32>
  check.expect_eq_const %r#1, dense<[6, -8]> : tensor<2xi32>
  func.return
}

// -----

// collective_reduce: each group's first process (or the one the roots operand names) gets the
// group's reduction, every other process zeros. Values: 10 * replica + partition + 1.
func.func private @val1() -> tensor<i64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ten = stablehlo.constant dense<10> : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %a = stablehlo.multiply %r, %ten : tensor<ui32>
  %b = stablehlo.add %a, %p : tensor<ui32>
  %b1 = stablehlo.add %b, %one : tensor<ui32>
  %c = stablehlo.convert %b1 : (tensor<ui32>) -> tensor<i64>
  return %c : tensor<i64>
}
// Two groups over 4 replicas; the first listed is the root.
func.func private @sum_to_first() -> tensor<i64> {
  %x = func.call @val1() : () -> tensor<i64>
  %r = "stablehlo.collective_reduce"(%x) ({
  ^bb0(%u: tensor<i64>, %v: tensor<i64>):
    %s = stablehlo.add %u, %v : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[1, 0], [2, 3]]> : tensor<2x2xi64>} : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
// Replicas 0 and 3 are in no group.
func.func private @outside_gets_zero() -> tensor<i64> {
  %x = func.call @val1() : () -> tensor<i64>
  %r = "stablehlo.collective_reduce"(%x) ({
  ^bb0(%u: tensor<i64>, %v: tensor<i64>):
    %s = stablehlo.add %u, %v : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
// The roots chosen at run time, per result; a maximum.
func.func @max_to_dynamic_roots(%root: tensor<2xi32>) -> (tensor<i64>, tensor<i64>) {
  %x = func.call @val1() : () -> tensor<i64>
  %y = stablehlo.negate %x : tensor<i64>
  %r:2 = "stablehlo.collective_reduce"(%x, %y, %root) ({
  ^bb0(%u: tensor<i64>, %v: tensor<i64>):
    %s = stablehlo.maximum %u, %v : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>, has_dynamic_root} : (tensor<i64>, tensor<i64>, tensor<2xi32>) -> (tensor<i64>, tensor<i64>)
  return %r#0, %r#1 : tensor<i64>, tensor<i64>
}
func.func @collective_reduce_modes() {
  %a:4 = "interpreter.run_parallel"() {
    programs = [[@sum_to_first], [@sum_to_first], [@sum_to_first], [@sum_to_first]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %a#0, dense<0> : tensor<i64>
  check.expect_eq_const %a#1, dense<12> : tensor<i64>
  check.expect_eq_const %a#2, dense<52> : tensor<i64>
  check.expect_eq_const %a#3, dense<0> : tensor<i64>
  %b:4 = "interpreter.run_parallel"() {
    programs = [[@outside_gets_zero], [@outside_gets_zero], [@outside_gets_zero], [@outside_gets_zero]]
  } : () -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %b#0, dense<0> : tensor<i64>
  check.expect_eq_const %b#1, dense<0> : tensor<i64>
  check.expect_eq_const %b#2, dense<32> : tensor<i64>
  check.expect_eq_const %b#3, dense<0> : tensor<i64>
  %roots = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
  %d:6 = "interpreter.run_parallel"(%roots, %roots, %roots) {
    programs = [[@max_to_dynamic_roots], [@max_to_dynamic_roots], [@max_to_dynamic_roots]]
  } : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %d#0, dense<0> : tensor<i64>
  check.expect_eq_const %d#1, dense<-1> : tensor<i64>
  check.expect_eq_const %d#2, dense<0> : tensor<i64>
  check.expect_eq_const %d#3, dense<0> : tensor<i64>
  check.expect_eq_const %d#4, dense<21> : tensor<i64>
  check.expect_eq_const %d#5, dense<0> : tensor<i64>
  func.return
}
