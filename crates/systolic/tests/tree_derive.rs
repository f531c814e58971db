//! `#[derive(Tree)]` on structs (named, tuple, unit, generic), enums, static and skipped fields,
//! and the std containers' `Tree` impls, used through `jit`.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use systolic::{jit, numpy as np, tree_leaves, tree_map, Array, Static, Tree, TreeDef};

fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn v(values: &[f32]) -> Array {
    Array::from_slice(values, &[values.len() as i64])
}

#[derive(Tree, Clone, Debug)]
struct Layer {
    w: Array,
    b: Array,
}

#[derive(Tree, Clone, Debug)]
struct Mlp {
    layers: Vec<Layer>,
    #[tree(static)]
    activation: String,
    #[tree(skip)]
    calls: u64,
}

#[derive(Tree, Clone)]
struct Pair(Array, #[tree(static)] i32);

#[derive(Tree, Clone, Debug, PartialEq)]
struct Marker;

#[derive(Tree, Clone)]
struct Params<T> {
    w: T,
    b: T,
}

#[derive(Tree, Clone)]
struct Tagged<T, S> {
    value: T,
    #[tree(static)]
    tag: S,
}

#[derive(Tree, Clone)]
#[tree(bound = "T: Tree + Clone")]
struct Bounded<T> {
    items: Vec<T>,
}

#[derive(Tree, Clone)]
struct View<'a, const N: usize> {
    xs: [Array; N],
    #[tree(static)]
    name: &'a str,
}

#[derive(Tree, Clone)]
enum Activation {
    Relu,
    Scale(Array),
    Affine {
        a: Array,
        b: Array,
        #[tree(static)]
        clip: Option<i64>,
    },
}

#[derive(Tree, Clone)]
struct Recursive {
    value: Array,
    children: Vec<Recursive>,
}

fn mlp() -> Mlp {
    Mlp {
        layers: vec![
            Layer {
                w: v(&[1.0, 2.0]),
                b: v(&[0.5, 0.5]),
            },
            Layer {
                w: v(&[-1.0, 3.0]),
                b: v(&[0.0, 1.0]),
            },
        ],
        activation: "relu".into(),
        calls: 0,
    }
}

fn apply(m: &Mlp, x: &Array) -> Array {
    let mut h = x.clone();
    for l in &m.layers {
        h = &(&h * &l.w) + &l.b;
        if m.activation == "relu" {
            h = np::maximum(&h, &np::zeros_like(&h));
        }
    }
    h
}

#[test]
fn named_struct_leaves_structure_and_rebuild() {
    let m = mlp();
    let leaves = tree_leaves(&m);
    assert_eq!(leaves.len(), 4);
    assert_eq!(
        m.structure(),
        r#"Mlp{layers:[Layer{w:*,b:*},Layer{w:*,b:*}],activation:static "relu"}"#
    );
    assert_eq!(
        m.def().paths(),
        vec![
            ".layers[0].w",
            ".layers[0].b",
            ".layers[1].w",
            ".layers[1].b"
        ]
    );
    assert_eq!(
        m.def().statics(),
        vec![(".activation".to_string(), "\"relu\"".to_string())]
    );
    let mut counted = m.clone();
    counted.calls = 7;
    assert_eq!(counted.def(), m.def(), "skipped fields are not structure");
    let doubled = tree_map(&counted, |a| a * 2.0).unwrap();
    assert_eq!(f32s(&doubled.layers[1].w), vec![-2.0, 6.0]);
    assert_eq!(doubled.activation, "relu");
    assert_eq!(doubled.calls, 7, "skipped fields are cloned");
}

#[test]
fn derived_struct_under_jit_and_static_field_in_the_cache_key() {
    let f = jit(|(m, x): &(Mlp, Array)| apply(m, x)).explain_cache_misses(true);
    let x = v(&[1.0, -4.0]);
    let m = mlp();
    // relu((relu(x*w0+b0))*w1+b1): [1.5, 0] -> [-1.5, 1] -> [0, 1]
    assert_eq!(
        f32s(&f.call(&(m.clone(), x.clone())).unwrap()),
        vec![0.0, 1.0]
    );
    let mut skipped = m.clone();
    skipped.calls = 99;
    f.call(&(skipped, x.clone())).unwrap();
    assert_eq!(f.trace_count(), 1);
    let mut linear = m.clone();
    linear.activation = "none".into();
    // (x*w0+b0)*w1+b1: [1.5, -7.5] -> [-1.5, -21.5]
    assert_eq!(
        f32s(&f.call(&(linear, x.clone())).unwrap()),
        vec![-1.5, -21.5]
    );
    assert_eq!(f.trace_count(), 2);
    let why = f.last_cache_miss().unwrap();
    assert!(
        why.contains(r#"static value `args[0].activation` changed from "relu" to "none""#),
        "{why}"
    );
    // One layer fewer: a structure change, explained with the path.
    let mut short = m;
    short.layers.pop();
    f.call(&(short, x)).unwrap();
    let why = f.last_cache_miss().unwrap();
    assert!(why.contains("tree structure at `args[0].layers`"), "{why}");
}

#[test]
fn tuple_unit_and_generic_structs() {
    let p = Pair(v(&[1.0]), 3);
    assert_eq!(p.structure(), "Pair(*,static 3)");
    assert_eq!(p.def().paths(), vec![".0"]);
    assert_eq!(Marker.structure(), "Marker");
    assert_eq!(Marker.rebuild(&mut std::iter::empty()).unwrap(), Marker);
    assert!(tree_leaves(&Marker).is_empty());

    let params = Params {
        w: vec![v(&[1.0]), v(&[2.0])],
        b: vec![v(&[3.0]), v(&[4.0])],
    };
    assert_eq!(params.structure(), "Params{w:[*,*],b:[*,*]}");
    let f = jit(|p: &Params<Vec<Array>>| {
        p.w.iter()
            .zip(&p.b)
            .map(|(w, b)| w * b)
            .reduce(|a, b| &a + &b)
            .unwrap()
    });
    assert_eq!(f32s(&f.call(&params).unwrap()), vec![11.0]);

    // A type parameter used only in a static field needs Debug + Clone, not Tree.
    let t = Tagged {
        value: v(&[1.0]),
        tag: ('a', 2u8),
    };
    assert_eq!(t.structure(), "Tagged{value:*,tag:static ('a', 2)}");
    let g = jit(|t: &Tagged<Array, (char, u8)>| &t.value * f64::from(t.tag.1));
    assert_eq!(f32s(&g.call(&t).unwrap()), vec![2.0]);
}

#[test]
fn explicit_bounds_lifetimes_and_const_generics() {
    let b = Bounded {
        items: vec![(v(&[1.0]), Static(1))],
    };
    assert_eq!(b.structure(), "Bounded{items:[(*,static 1)]}");
    let name = String::from("pair");
    let view = View {
        xs: [v(&[1.0]), v(&[2.0])],
        name: &name,
    };
    assert_eq!(view.structure(), r#"View{xs:[*,*],name:static "pair"}"#);
    let f = jit(|w: &View<'_, 2>| &w.xs[0] - &w.xs[1]);
    assert_eq!(f32s(&f.call(&view).unwrap()), vec![-1.0]);
}

#[test]
fn enums_trace_per_variant() {
    let f = jit(|(act, x): &(Activation, Array)| match act {
        Activation::Relu => np::maximum(x, &np::zeros_like(x)),
        Activation::Scale(s) => x * s,
        Activation::Affine { a, b, clip } => {
            let y = &(x * a) + b;
            match clip {
                Some(c) => np::minimum(&y, &(&np::zeros_like(&y) + *c as f64)),
                None => y,
            }
        }
    })
    .explain_cache_misses(true);
    let x = v(&[-1.0, 2.0]);
    let relu = Activation::Relu;
    assert_eq!(relu.structure(), "Activation::Relu");
    assert_eq!(f32s(&f.call(&(relu, x.clone())).unwrap()), vec![0.0, 2.0]);
    let scale = Activation::Scale(v(&[3.0, 3.0]));
    assert_eq!(scale.structure(), "Activation::Scale(*)");
    assert_eq!(f32s(&f.call(&(scale, x.clone())).unwrap()), vec![-3.0, 6.0]);
    let affine = |clip| Activation::Affine {
        a: v(&[2.0, 2.0]),
        b: v(&[1.0, 1.0]),
        clip,
    };
    assert_eq!(
        affine(Some(4)).structure(),
        "Activation::Affine{a:*,b:*,clip:static Some(4)}"
    );
    assert_eq!(
        f32s(&f.call(&(affine(None), x.clone())).unwrap()),
        vec![-1.0, 5.0]
    );
    assert_eq!(
        f32s(&f.call(&(affine(Some(4)), x.clone())).unwrap()),
        vec![-1.0, 4.0]
    );
    let why = f.last_cache_miss().unwrap();
    assert!(
        why.contains("static value `args[0].clip` changed from None to Some(4)"),
        "{why}"
    );
    assert_eq!(f.trace_count(), 4);
    f.call(&(Activation::Relu, x)).unwrap();
    assert_eq!(f.trace_count(), 4);
}

#[test]
fn recursive_structs() {
    let leaf = |x: f32| Recursive {
        value: v(&[x]),
        children: vec![],
    };
    let t = Recursive {
        value: v(&[1.0]),
        children: vec![leaf(2.0), leaf(3.0)],
    };
    assert_eq!(
        t.structure(),
        "Recursive{value:*,children:[Recursive{value:*,children:[]},Recursive{value:*,children:[]}]}"
    );
    let f = jit(|t: &Recursive| {
        t.children
            .iter()
            .fold(t.value.clone(), |acc, c| &acc + &c.value)
    });
    assert_eq!(f32s(&f.call(&t).unwrap()), vec![6.0]);
}

#[test]
fn std_containers() {
    let a = || v(&[1.0]);
    // Fixed arrays, pointers, maps.
    let arr = [a(), a(), a()];
    assert_eq!(arr.structure(), "[*,*,*]");
    let rebuilt = tree_map(&arr, |x| x + 1.0).unwrap();
    assert_eq!(f32s(&rebuilt[2]), vec![2.0]);
    let boxed = (Box::new(a()), Rc::new(a()), Arc::new(vec![a()]));
    assert_eq!(boxed.structure(), "(*,*,[*])");
    assert_eq!(tree_map(&boxed, |x| x * 5.0).unwrap().2.len(), 1);

    let bt = BTreeMap::from([("w".to_string(), a()), ("b".to_string(), a())]);
    assert_eq!(bt.structure(), r#"{"b":*,"w":*}"#);
    assert_eq!(bt.def().paths(), vec![r#"["b"]"#, r#"["w"]"#]);

    let mut hm = HashMap::new();
    for (i, k) in ["z", "a", "m", "q", "c"].iter().enumerate() {
        hm.insert(*k, v(&[i as f32]));
    }
    assert_eq!(hm.structure(), r#"{"a":*,"c":*,"m":*,"q":*,"z":*}"#);
    let values: Vec<f32> = tree_leaves(&hm).iter().map(|x| f32s(x)[0]).collect();
    assert_eq!(values, vec![1.0, 4.0, 2.0, 3.0, 0.0], "sorted by key");
    let f = jit(|m: &HashMap<&'static str, Array>| &m["z"] - &m["c"]);
    assert_eq!(f32s(&f.call(&hm).unwrap()), vec![-4.0]);
    let g = jit(|m: &HashMap<&'static str, Array>| m.clone());
    let out = g.call(&hm).unwrap();
    assert_eq!(f32s(&out["q"]), vec![3.0]);

    // Twelve-element tuples.
    let t12 = (
        a(),
        a(),
        a(),
        a(),
        a(),
        a(),
        a(),
        a(),
        a(),
        a(),
        a(),
        Static(12),
    );
    assert_eq!(tree_leaves(&t12).len(), 11);
    let sum = jit(|t: &T12| {
        let all = [
            &t.0, &t.1, &t.2, &t.3, &t.4, &t.5, &t.6, &t.7, &t.8, &t.9, &t.10,
        ];
        all.iter().fold(np::zeros_like(&t.0), |acc, x| &acc + *x) * f64::from(t.11 .0)
    });
    assert_eq!(f32s(&sum.call(&t12).unwrap()), vec![132.0]);

    // Options and unit.
    assert_eq!(
        (None::<Array>, Some(a()), ()).structure(),
        "(None,Some(*),())"
    );
}

#[test]
fn tree_def_values() {
    let t = (a_scalar(), Static("x"), vec![a_scalar()]);
    let def = t.def();
    assert_eq!(def.num_leaves(), 2);
    assert_eq!(
        def,
        TreeDef::Tuple(
            String::new(),
            vec![
                TreeDef::Leaf,
                TreeDef::Static("\"x\"".into()),
                TreeDef::List(vec![TreeDef::Leaf])
            ]
        )
    );
    assert_eq!(def.paths(), vec!["[0]", "[2][0]"]);
    // Too few leaves to rebuild is an error, not a panic.
    assert!(t.rebuild(&mut std::iter::once(a_scalar())).is_err());
}

/// Eleven arrays and a static value: the longest tuple with a `Tree` impl.
type T12 = (
    Array,
    Array,
    Array,
    Array,
    Array,
    Array,
    Array,
    Array,
    Array,
    Array,
    Array,
    Static<i32>,
);

fn a_scalar() -> Array {
    Array::scalar(1.0f32)
}
