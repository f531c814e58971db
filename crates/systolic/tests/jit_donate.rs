//! `jit(f).donate_argnums(…)` (issue 18) with JAX 0.10.2's semantics: donated arguments that a
//! result of their type takes are deleted at the call (every later use is an error saying so),
//! their buffers move into the execution, which writes the results of their type into them;
//! unusable donations keep their data; the same array
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
fn the_update_is_written_into_the_donated_buffer() {
    // XLA's input_output_alias: `w - 0.1 * g` overwrites the donated w, so a training step
    // holds one copy of the parameters, not two.
    let n = 70_021usize;
    let g = Array::from_vec(vec![1.0f32; n], &[n as i64]);
    let w = Array::from_vec(vec![2.0f32; n], &[n as i64]);
    let at = w.unsafe_buffer_pointer().unwrap();
    // Not donated: the result is new memory and w keeps its own.
    let kept = jit(sgd).call(&(w.clone(), g.clone())).unwrap();
    assert_ne!(kept.unsafe_buffer_pointer().unwrap(), at);
    assert_eq!(w.unsafe_buffer_pointer().unwrap(), at);
    // Donated: the result is w's memory, step after step.
    let step = jit(sgd).donate_argnums(Arg::<0>);
    let mut w = step.call(&(w, g.clone())).unwrap();
    assert_eq!(w.unsafe_buffer_pointer().unwrap(), at);
    for _ in 0..3 {
        w = step.call(&(w, g.clone())).unwrap();
        assert_eq!(
            w.unsafe_buffer_pointer().unwrap(),
            at,
            "no new memory per step"
        );
    }
    assert!((vec_of(&w)[0] - 1.6).abs() < 1e-5);
    assert!(vec_of(&kept).iter().all(|&x| (x - 1.9).abs() < 1e-6));
    // A donated array another handle still reads (an eager op queued on it) is copied first:
    // the reader sees the old values.
    let w = Array::from_vec(vec![2.0f32; n], &[n as i64]);
    let doubled = &w * 2.0;
    let next = step.call(&(w, g.clone())).unwrap();
    assert!(vec_of(&doubled).iter().all(|&x| x == 4.0));
    assert!(vec_of(&next).iter().all(|&x| (x - 1.9).abs() < 1e-6));
}

#[test]
fn an_adam_update_writes_every_donated_state_in_place() {
    // Three donated states updated by one fused loop (w, m, v ← f(w, m, v, g)): each result
    // takes the buffer of the state of its type, as XLA aliases each parameter to its output.
    let n = 4096usize;
    let full = |x: f32| Array::from_vec(vec![x; n], &[n as i64]);
    let adam = |(w, m, v, g): &(Array, Array, Array, Array)| {
        let m2 = &(m * 0.9) + &(g * 0.1);
        let v2 = &(v * 0.999) + &(&(g * g) * 0.001);
        let w2 = w - &(&(&m2 * 0.01) / &(&np::sqrt(&v2) + 1e-8));
        (w2, m2, v2)
    };
    let step = jit(adam).donate_argnums((Arg::<0>, Arg::<1>, Arg::<2>));
    let (w, m, v, g) = (full(1.0), full(0.0), full(0.0), full(0.5));
    let before: Vec<usize> = [&w, &m, &v]
        .iter()
        .map(|a| a.unsafe_buffer_pointer().unwrap())
        .collect();
    let want = jit(adam)
        .call(&(w.clone(), m.clone(), v.clone(), g.clone()))
        .unwrap();
    // Done before the donating call, so that no execution still reads the states (a donated
    // buffer another execution reads is copied, as the test above shows).
    want.0.block_until_ready().unwrap();
    let (w2, m2, v2) = step.call(&(w, m, v, g)).unwrap();
    let after: Vec<usize> = [&w2, &m2, &v2]
        .iter()
        .map(|a| a.unsafe_buffer_pointer().unwrap())
        .collect();
    let mut sorted_before = before.clone();
    let mut sorted_after = after.clone();
    sorted_before.sort_unstable();
    sorted_after.sort_unstable();
    assert_eq!(
        sorted_after, sorted_before,
        "every result lives in a donated buffer"
    );
    assert_eq!(vec_of(&w2), vec_of(&want.0));
    assert_eq!(vec_of(&m2), vec_of(&want.1));
    assert_eq!(vec_of(&v2), vec_of(&want.2));
}
