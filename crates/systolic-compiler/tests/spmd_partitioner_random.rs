//! Property-style: one small program mixing a product, a constraint, an embedding lookup, a
//! loop and reductions, on odd shapes (10, 6, 7, 12: most splits uneven), under random
//! shardings of its arguments, results and constraint on 1-D and 2-D meshes, against the
//! one-device interpreter.

use super::spmd_partitioner_check::{check, data, module, random_sharding, Rng};
use systolic_ir::{DType, Tensor};

fn program(mesh: &str, s: &[String]) -> String {
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<10x6xf32> {{sdy.sharding = #sdy.sharding<@mesh, {}>}}, %w: tensor<6x7xf32> {{sdy.sharding = #sdy.sharding<@mesh, {}>}}, %t: tensor<12x7xf32> {{sdy.sharding = #sdy.sharding<@mesh, {}>}}, %ids: tensor<10x1xi32>) -> (tensor<10x7xf32> {{sdy.sharding = #sdy.sharding<@mesh, {}>}}, tensor<10xf32>, tensor<7xf32>) {{
    %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<10x6xf32>, tensor<6x7xf32>) -> tensor<10x7xf32>
    %h = stablehlo.tanh %p : tensor<10x7xf32>
    %c = sdy.sharding_constraint %h <@mesh, {}> : tensor<10x7xf32>
    %e = "stablehlo.gather"(%t, %ids) {{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 7>}} : (tensor<12x7xf32>, tensor<10x1xi32>) -> tensor<10x7xf32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %i0, %v = %c) : tensor<i32>, tensor<10x7xf32>
    cond {{
      %n = stablehlo.constant dense<2> : tensor<i32>
      %k = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %k : tensor<i1>
    }} do {{
      %m = stablehlo.multiply %v, %e : tensor<10x7xf32>
      %a = stablehlo.add %m, %h : tensor<10x7xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %a : tensor<i32>, tensor<10x7xf32>
    }}
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %ex = stablehlo.exponential %r#1 : tensor<10x7xf32>
    %sum = stablehlo.reduce(%ex init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<10x7xf32>, tensor<f32>) -> tensor<10xf32>
    %max = stablehlo.reduce(%ex init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10x7xf32>, tensor<f32>) -> tensor<7xf32>
    return %r#1, %sum, %max : tensor<10x7xf32>, tensor<10xf32>, tensor<7xf32>
  }}"#,
            s[0], s[1], s[2], s[3], s[4]
        ),
    )
}

#[test]
fn a_mixed_program_on_odd_shapes_under_random_shardings() {
    let mut rng = Rng::new(7);
    let ids = Tensor::from_i64(
        vec![10, 1],
        DType::I32,
        vec![0, 11, 5, 6, 3, 12, -1, 7, 2, 9],
    )
    .unwrap();
    for (mesh, axes) in [
        (r#""data"=4, "model"=2"#, &["data", "model"][..]),
        (r#""x"=8"#, &["x"][..]),
        (r#""a"=2, "b"=2, "c"=2"#, &["a", "b", "c"][..]),
    ] {
        for case in 0..20 {
            let s: Vec<String> = (0..5).map(|_| random_sharding(&mut rng, 2, axes)).collect();
            let text = program(mesh, &s);
            let inputs = [
                data(vec![10, 6], 60 + case),
                data(vec![6, 7], 80 + case),
                data(vec![12, 7], 100 + case),
                ids.clone(),
            ];
            check(&text, &inputs);
        }
    }
}
