//! `partition` on a reduce of several inputs over a split dimension (JAX's argmax and
//! argmin: values with their iota indices, ties to the lowest index): partial results
//! gathered and reduced again; values with many ties, even and uneven pieces, random
//! shardings on 1-D and 2-D meshes, against the one-device interpreter.

use super::spmd_partitioner_check::{check, count, module, random_sharding, Rng};
use systolic_ir::{OpKind, Tensor};

const MESH_2D: &str = r#""data"=4, "model"=2"#;
const MESH_1D: &str = r#""x"=8"#;

/// argmax over dimension 1 and argmin over dimension 0 of x[r, c] held as `sx`.
fn arg_extrema(mesh: &str, r: i64, c: i64, sx: &str) -> String {
    let body = |cmp: &str, init: &str, dim: i64, out: i64| {
        format!(
            r#"%i{dim} = stablehlo.iota dim = {dim} : tensor<{r}x{c}xi32>
    %v{dim} = stablehlo.constant dense<{init}> : tensor<f32>
    %z{dim} = stablehlo.constant dense<0> : tensor<i32>
    %a{dim}:2 = stablehlo.reduce(%x init: %v{dim}), (%i{dim} init: %z{dim}) across dimensions = [{dim}] : (tensor<{r}x{c}xf32>, tensor<{r}x{c}xi32>, tensor<f32>, tensor<i32>) -> (tensor<{out}xf32>, tensor<{out}xi32>)
     reducer(%p1: tensor<f32>, %p3: tensor<f32>) (%p2: tensor<i32>, %p4: tensor<i32>)  {{
      %q2 = stablehlo.compare {cmp}, %p1, %p3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %q3 = stablehlo.compare NE, %p1, %p1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %q4 = stablehlo.or %q2, %q3 : tensor<i1>
      %q5 = stablehlo.compare EQ, %p1, %p3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %q6 = stablehlo.compare LT, %p2, %p4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %q7 = stablehlo.and %q5, %q6 : tensor<i1>
      %q8 = stablehlo.or %q4, %q7 : tensor<i1>
      %q9 = stablehlo.select %q4, %p1, %p3 : tensor<i1>, tensor<f32>
      %q10 = stablehlo.select %q8, %p2, %p4 : tensor<i1>, tensor<i32>
      stablehlo.return %q9, %q10 : tensor<f32>, tensor<i32>
    }}"#
        )
    };
    module(
        mesh,
        &format!(
            r#"func.func public @main(%x: tensor<{r}x{c}xf32> {{sdy.sharding = #sdy.sharding<@mesh, {sx}>}}) -> (tensor<{r}xi32>, tensor<{c}xi32>, tensor<{r}xf32>) {{
    {}
    {}
    return %a1#1, %a0#1, %a1#0 : tensor<{r}xi32>, tensor<{c}xi32>, tensor<{r}xf32>
  }}"#,
            body("GT", "0xFF800000", 1, r),
            body("LT", "0x7F800000", 0, c),
        ),
    )
}

/// Values in {0, …, 4}: every row and column has ties.
fn tied(r: i64, c: i64, seed: i64) -> Tensor {
    let v = (0..r * c).map(|i| ((i * 7 + seed) % 5) as f32).collect();
    Tensor::from_f32(vec![r, c], v)
}

#[test]
fn argmax_and_argmin_over_split_dimensions() {
    for sx in [
        r#"[{}, {"data"}]"#,
        r#"[{"data"}, {"model"}]"#,
        r#"[{"model"}, {"data"}]"#,
        r#"[{}, {"data", "model"}]"#,
    ] {
        let text = arg_extrema(MESH_2D, 8, 16, sx);
        check(&text, &[tied(8, 16, 1)]);
        assert!(count(&text, |k| matches!(k, OpKind::AllGather { .. })) >= 1);
    }
    // Uneven: 10 x 6 (pieces of 3, 3, 3, 1 and 2, 2, 2, 0), padding masked with the inits.
    for sx in [r#"[{"data"}, {"model"}]"#, r#"[{"model"}, {"data"}]"#] {
        check(&arg_extrema(MESH_2D, 10, 6, sx), &[tied(10, 6, 2)]);
    }
}

#[test]
fn arg_extrema_under_random_shardings() {
    let mut rng = Rng::new(6);
    for (mesh, axes) in [(MESH_2D, &["data", "model"][..]), (MESH_1D, &["x"][..])] {
        for case in 0..10 {
            let sx = random_sharding(&mut rng, 2, axes);
            check(&arg_extrema(mesh, 8, 16, &sx), &[tied(8, 16, case)]);
            check(&arg_extrema(mesh, 10, 6, &sx), &[tied(10, 6, case)]);
        }
    }
}
