//! `jit(f).donate_argnums(…)` (issue 18) with JAX 0.10.2's semantics: donated arguments that a
//! result of their type takes are deleted at the call (every later use is an error saying so),
//! their buffers move into the execution; unusable donations keep their data; the same array
//! twice is an error; nested calls ignore donation; sharded arguments keep their data; and
//! `lower()` prints `tf.aliasing_output` as JAX does.

use systolic::{
    device_put, jit, make_mesh, numpy as np, Arg, Array, DType, NamedSharding, PartitionSpec,
};

fn vec_of(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn sgd((w, g): &(Array, Array)) -> Array {
    w - &(g * 0.1)
}

#[test]
fn donated_arguments_are_deleted_and_the_values_are_unchanged() {
    let w0: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let g = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
    let plain = jit(sgd);
    let donating = jit(sgd).donate_argnums(Arg::<0>);
    let want = vec_of(
        &plain
            .call(&(Array::from_vec(w0.clone(), &[2, 3]), g.clone()))
            .unwrap(),
    );
    let w = Array::from_vec(w0.clone(), &[2, 3]);
    let alias = w.clone();
    let got = donating.call(&(w.clone(), g.clone())).unwrap();
    assert!(
        w.is_deleted() && alias.is_deleted(),
        "every clone is deleted"
    );
    assert!(!g.is_deleted() && !got.is_deleted());
    assert_eq!(vec_of(&got), want);
    // Every use of the donated array is an error naming the donation.
    let read = w.to_vec::<f32>().unwrap_err().to_string();
    assert!(
        read.contains("Array has been deleted") && read.contains("float32[2,3]"),
        "{read}"
    );
    assert!(
        read.contains("jit(main)") && read.contains("donate_argnums"),
        "{read}"
    );
    let op = (&w + 1.0).check().unwrap_err().to_string();
    assert!(op.contains("Array has been deleted"), "{op}");
    let again = donating.call(&(w, g.clone())).unwrap_err().to_string();
    assert!(again.contains("Array has been deleted"), "{again}");
    // A training loop: each step donates the previous parameters.
    let mut w = got;
    for _ in 0..3 {
        w = donating.call(&(w, g.clone())).unwrap();
    }
    let want: Vec<f32> = w0.iter().map(|x| x - 0.4).collect();
    for (a, b) in vec_of(&w).iter().zip(&want) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
    assert_eq!(donating.trace_count(), 1);
}

#[test]
fn ops_queued_before_the_donating_call_still_read_the_array() {
    let step = jit(sgd).donate_argnums(Arg::<0>);
    let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let doubled = &w * 2.0; // queued before the call: it reads w's data
    let next = step
        .call(&(w.clone(), Array::from_vec(vec![10.0f32, 10.0], &[2])))
        .unwrap();
    assert_eq!(vec_of(&doubled), vec![2.0, 4.0]);
    assert_eq!(vec_of(&next), vec![0.0, 1.0]);
    assert!(w.is_deleted());
}

#[test]
fn unusable_donations_keep_their_data_as_in_jax() {
    // No result has w's type (JAX: "Some donated buffers were not usable"): not deleted.
    let f = jit(|(w, g): &(Array, Array)| np::sum(&(w * g), None, false))
        .donate_argnums((Arg::<0>, Arg::<1>));
    let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let g = Array::from_vec(vec![3.0f32, 4.0], &[2]);
    assert_eq!(
        vec_of(&f.call(&(w.clone(), g.clone())).unwrap()),
        vec![11.0]
    );
    assert!(!w.is_deleted() && !g.is_deleted());
    // Two donated leaves of one type and one result of it: the first takes it.
    let f = jit(|(a, b): &(Array, Array)| a + b).donate_argnums((Arg::<0>, Arg::<1>));
    f.call(&(w.clone(), g.clone())).unwrap();
    assert!(w.is_deleted() && !g.is_deleted());
    // A dtype mismatch is no match either.
    let f = jit(|(n, x): &(Array, Array)| &np::astype(n, DType::F32) + x).donate_argnums(Arg::<0>);
    let n = Array::from_vec(vec![1i32, 2], &[2]);
    f.call(&(n.clone(), g.clone())).unwrap();
    assert!(!n.is_deleted());
}

#[test]
fn the_same_array_twice_is_an_error_and_nothing_is_donated() {
    let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let both = jit(|(a, b): &(Array, Array)| (a + b, a - b)).donate_argnums((Arg::<0>, Arg::<1>));
    let err = both.call(&(w.clone(), w.clone())).unwrap_err().to_string();
    assert!(
        err.contains("`args[0]`") && err.contains("`args[1]`"),
        "{err}"
    );
    assert!(err.contains("donated twice"), "{err}");
    assert!(!w.is_deleted());
    let one = jit(sgd).donate_argnums(Arg::<0>);
    let err = one.call(&(w.clone(), w.clone())).unwrap_err().to_string();
    assert!(err.contains("donated and also passed undonated"), "{err}");
    assert!(!w.is_deleted());
    assert_eq!(vec_of(&w), vec![1.0, 2.0]);
}

#[test]
fn nested_and_sharded_calls_do_not_donate() {
    // Under another trace the arguments are traced values: donation is ignored, as in JAX.
    let inner = jit(sgd).donate_argnums(Arg::<0>);
    let outer = jit(|a: &(Array, Array)| inner.call(a).unwrap());
    let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    let g = Array::from_vec(vec![10.0f32, 10.0], &[2]);
    assert_eq!(
        vec_of(&outer.call(&(w.clone(), g.clone())).unwrap()),
        vec![0.0, 1.0]
    );
    assert!(!w.is_deleted());
    // A sharded argument keeps its data (the mesh path does not donate).
    let mesh = make_mesh(&[1], &["i"]).unwrap();
    let ws = device_put(
        &w,
        NamedSharding::new(&mesh, PartitionSpec::replicated()).unwrap(),
    )
    .unwrap();
    let out = inner.call(&(ws.clone(), g)).unwrap();
    assert_eq!(vec_of(&out), vec![0.0, 1.0]);
    assert!(!ws.is_deleted());
    assert_eq!(vec_of(&ws), vec![1.0, 2.0]);
}

#[test]
fn lower_prints_the_aliasing_as_jax_does() {
    // JAX 0.10.2, jax.jit(lambda w, g: (w - 0.1 * g, jnp.sum(g)), donate_argnums=0)
    //   .lower(x, x).as_text() with x: float32[4]:
    // func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32},
    //   %arg1: tensor<4xf32>) -> (tensor<4xf32> {...}, tensor<f32> {...})
    let f = jit(|(w, g): &(Array, Array)| (w - &(g * 0.1), np::sum(g, None, false)))
        .donate_argnums(Arg::<0>);
    let x = Array::from_vec(vec![1.0f32; 4], &[4]);
    let text = f.lower(&(x.clone(), x.clone())).unwrap().as_text();
    assert!(
        text.contains(
            "@main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32>)"
        ),
        "{text}"
    );
    assert!(!x.is_deleted(), "lower reads no data and donates nothing");
    // Donating the second argument pairs it with the same result.
    let f = jit(|(w, g): &(Array, Array)| (w - &(g * 0.1), np::sum(g, None, false)))
        .donate_argnums(Arg::<1>);
    let text = f.lower(&(x.clone(), x.clone())).unwrap().as_text();
    assert!(
        text.contains(
            "(%arg0: tensor<4xf32>, %arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32})"
        ),
        "{text}"
    );
    // Without a result of its type nothing is printed (JAX warns instead).
    let f = jit(|(w, g): &(Array, Array)| np::sum(&(w * g), None, false)).donate_argnums(Arg::<0>);
    let text = f.lower(&(x.clone(), x)).unwrap().as_text();
    assert!(!text.contains("tf.aliasing_output"), "{text}");
}

#[test]
fn the_donated_buffer_is_released_to_the_execution() {
    // A length no other test uses, so the backend's storage pool count for it is ours.
    let n = 70_021usize;
    let pooled = || systolic_cpu::pool::pooled(DType::F32, n);
    let g = Array::from_vec(vec![1.0f32; n], &[n as i64]);
    let w = Array::from_vec(vec![2.0f32; n], &[n as i64]);
    // Not donated: the caller still holds w's memory after the call (the pool gets only the
    // execution's own temporaries, if any).
    let before = pooled();
    let kept = jit(sgd).call(&(w.clone(), g.clone())).unwrap();
    kept.block_until_ready().unwrap();
    let temporaries = pooled() - before;
    // Donated: w's storage moved into the execution and was freed for reuse at its last use
    // (the next allocation of its size takes it instead of new memory).
    let step = jit(sgd).donate_argnums(Arg::<0>);
    let before = pooled();
    let next = step.call(&(w.clone(), g.clone())).unwrap();
    next.block_until_ready().unwrap();
    assert!(w.is_deleted());
    assert_eq!(
        pooled() - before,
        temporaries + 1,
        "w's memory is free again"
    );
    // The next step's result takes that memory, and gives back its own donated input's: no
    // new memory per step.
    let before = pooled();
    let mut after = next;
    for _ in 0..3 {
        after = step.call(&(after, g.clone())).unwrap();
        after.block_until_ready().unwrap();
        assert_eq!(pooled(), before, "steady state: no new memory per step");
    }
    assert!((vec_of(&after)[0] - 1.6).abs() < 1e-5);
    drop(kept);
}
