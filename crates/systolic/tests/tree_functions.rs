//! `jax.tree`'s functions over Rust pytrees: multi-tree maps and their structure errors, key
//! paths as JAX prints them, unflatten from a `TreeDef`, transpose, reduce, and that their
//! results pass through `jit`.

use std::collections::BTreeMap;
use systolic::{jit, numpy as np, tree, Array, DynTree, PathKey, Static, Tree};

#[derive(Tree, Clone, Debug)]
struct Layer {
    w: Array,
    b: Array,
    #[tree(static)]
    act: &'static str,
}

fn layer(x: f32) -> Layer {
    Layer {
        w: Array::from_vec(vec![x, 2.0 * x], &[2]),
        b: Array::scalar(-x),
        act: "relu",
    }
}

fn values(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

#[test]
fn map2_map3_and_map_n_agree_leaf_by_leaf() {
    let (a, b, c) = (vec![layer(1.0)], vec![layer(2.0)], vec![layer(3.0)]);
    let two = tree::map2(&a, &b, |x, y| x + y).unwrap();
    let three = tree::map3(&a, &b, &c, |x, y, z| &(x + y) + z).unwrap();
    let n = tree::map_n(&[&a, &b, &c], |xs| &(&xs[0] + &xs[1]) + &xs[2]).unwrap();
    assert_eq!(values(&two[0].w), vec![3.0, 6.0]);
    assert_eq!(values(&three[0].w), vec![6.0, 12.0]);
    assert_eq!(values(&n[0].w), values(&three[0].w));
    assert_eq!(values(&n[0].b), vec![-6.0]);
    // Static parts are kept from the first tree.
    assert_eq!(n[0].act, "relu");
}

#[test]
fn trees_of_different_structure_are_an_error_naming_both() {
    let a = vec![layer(1.0)];
    let b = vec![layer(1.0), layer(2.0)];
    let err = tree::map2(&a, &b, |x, _| x.clone())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(r#"tree 1 has structure [Layer{w:*,b:*,act:static "relu"},Layer"#),
        "{err}"
    );
    assert!(
        err.contains(r#"tree 0 has [Layer{w:*,b:*,act:static "relu"}]"#),
        "{err}"
    );
    // A different static value is a different structure too (as JAX's aux data).
    let mut other = layer(1.0);
    other.act = "gelu";
    let err = tree::map2(&a, &vec![other], |x, _| x.clone())
        .unwrap_err()
        .to_string();
    assert!(err.contains("tree[0].act"), "{err}");
    let err = tree::map_n::<Vec<Layer>>(&[], |xs| xs[0].clone())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no trees"), "{err}");
    let err = tree::map3(&a, &a, &b, |x, _, _| x.clone())
        .unwrap_err()
        .to_string();
    assert!(err.contains("tree 2 has structure"), "{err}");
}

#[test]
fn key_paths_print_as_jax_keystr() {
    let mut m = BTreeMap::new();
    m.insert("dense", vec![layer(1.0)]);
    m.insert("emb", vec![]);
    let t = (
        m,
        Array::scalar(0.0f32),
        Static(3),
        Some(Array::scalar(1.0f32)),
    );
    let (pairs, def) = tree::flatten_with_path(&t);
    let paths: Vec<String> = pairs.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(
        paths,
        // `Some(x)` is `x` in the path, as an optional value is in JAX.
        ["[0]['dense'][0].w", "[0]['dense'][0].b", "[1]", "[3]"]
    );
    assert_eq!(def.num_leaves(), 4);
    assert_eq!(
        pairs[0].0 .0,
        vec![
            PathKey::Index(0),
            PathKey::Key("\"dense\"".into()),
            PathKey::Index(0),
            PathKey::Field("w".into()),
        ]
    );
    // map_with_path sees the same paths.
    let mut seen = vec![];
    tree::map_with_path(&t, |p, x| {
        seen.push(p.to_string());
        x.clone()
    })
    .unwrap();
    assert_eq!(seen, paths);
}

#[test]
fn unflatten_rebuilds_the_structure_and_passes_through_jit() {
    let t = (vec![layer(1.0)], Array::scalar(5.0f32));
    let (leaves, def) = tree::flatten(&t);
    assert_eq!(tree::structure(&t), def);
    let d = tree::unflatten(&def, leaves.clone()).unwrap();
    assert_eq!(d.def(), def);
    let w = d.get("[0][0].w").and_then(DynTree::as_leaf).unwrap();
    assert_eq!(values(w), vec![1.0, 2.0]);
    assert!(d.get("[0][0].nope").is_none());
    // Wrong leaf counts are errors naming the structure.
    let err = tree::unflatten(&def, leaves[..2].to_vec())
        .unwrap_err()
        .to_string();
    assert!(err.contains("has 3 leaves, 2 were given"), "{err}");
    let typed = tree::unflatten_as(&t, leaves.iter().map(|x| x * 2.0).collect()).unwrap();
    assert_eq!(values(&typed.1), vec![10.0]);
    assert!(tree::unflatten_as(&t, vec![]).is_err());
    // A DynTree is a pytree like any other: jit traces it and keeps its structure.
    let f = jit(|d: &DynTree| tree::map(d, |x| x * 3.0).unwrap());
    let out = f.call(&d).unwrap();
    assert_eq!(out.structure(), d.structure());
    let b = out.get("[0][0].b").and_then(DynTree::as_leaf).unwrap();
    assert_eq!(values(b), vec![-3.0]);
}

#[test]
fn transpose_swaps_outer_and_inner_levels() {
    let rows: Vec<(Array, Array)> = (0..3)
        .map(|i| (Array::scalar(i as f32), Array::scalar(10.0 * i as f32)))
        .collect();
    let outer = tree::structure(&vec![Array::scalar(0.0f32); 3]);
    let inner = tree::structure(&(Array::scalar(0.0f32), Array::scalar(0.0f32)));
    let cols = tree::transpose(&outer, &inner, &rows).unwrap();
    assert_eq!(cols.structure(), "([*,*,*],[*,*,*])");
    let tens: Vec<f32> = (0..3)
        .map(|i| {
            let leaf = cols
                .get(&format!("[1][{i}]"))
                .and_then(DynTree::as_leaf)
                .unwrap();
            values(leaf)[0]
        })
        .collect();
    assert_eq!(tens, [0.0, 10.0, 20.0]);
    // Transposing back gives the rows again.
    let back = tree::transpose(&inner, &outer, &cols).unwrap();
    assert_eq!(back.structure(), "[(*,*),(*,*),(*,*)]");
    // A tree that is not outer∘inner is refused, naming the structures.
    let err = tree::transpose(&inner, &inner, &rows)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not ((*,*),(*,*))"), "{err}");
}

#[test]
fn reduce_folds_leaves_in_order() {
    let t = vec![layer(1.0), layer(2.0)];
    let total = tree::reduce(&t, Array::scalar(0.0f32), |acc, x| {
        &acc + &np::sum(x, None, false)
    });
    assert_eq!(values(&total), vec![6.0]); // (1 + 2 - 1) + (2 + 4 - 2)
    let order = tree::reduce(&t, vec![], |mut v, x| {
        v.push(x.shape().len());
        v
    });
    assert_eq!(order, [1, 0, 1, 0]);
    // JAX's long names are the same functions.
    assert_eq!(systolic::tree_leaves(&t).len(), tree::leaves(&t).len());
}
