//! `debug::print!` against `jax.debug.print` (tests/data/debug_print/lines.json, made by
//! scripts/debug_print_golden.py with `ordered=True`): the same programs print the same text,
//! line for line, eagerly, under `jit`, `vmap` (once per example, in order), `grad` (the primal
//! values only, once), `fori_loop` (once per iteration) and their compositions; 0-d values as
//! Python numbers. Also `debug::callback`, and errors: a failing callback's message reaches the
//! caller of `jit`, an argument that failed ends the trace with its error.

use std::sync::{Arc, Mutex};
use systolic::{debug, grad, jit, lax, numpy as np, value_and_grad, vmap, Array, Error};

/// The text JAX printed for `case`.
fn golden(case: &str) -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/debug_print/lines.json"
    );
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the goldens")).unwrap();
    cases
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == case)
        .unwrap_or_else(|| panic!("no golden case {case}"))["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A line cut into numbers and the text between them: `"sum 1.5 of [ 2. -1.]"` is
/// `["sum ", 1.5, " of [ ", 2., " ", -1., "]"]`.
fn pieces(line: &str) -> Vec<(bool, String)> {
    let b = line.as_bytes();
    let mut out: Vec<(bool, String)> = vec![];
    let mut i = 0;
    while i < b.len() {
        let starts_number =
            b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if starts_number {
            let start = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || b[i] == b'.'
                    || b[i] == b'e'
                    || ((b[i] == b'-' || b[i] == b'+') && b[i - 1] == b'e'))
            {
                i += 1;
            }
            out.push((true, line[start..i].to_string()));
        } else {
            match out.last_mut() {
                Some((false, text)) => text.push(b[i] as char),
                _ => out.push((false, (b[i] as char).to_string())),
            }
            i += 1;
        }
    }
    out
}

/// Our line against JAX's: the text exactly, each number as JAX wrote it or, where the
/// arithmetic differs in the last bits (`sin`, `tanh` and sums round differently from XLA's),
/// within two f32 ulps of it.
fn same_line(ours: &str, jax: &str) -> bool {
    let (a, b) = (pieces(ours), pieces(jax));
    a.len() == b.len()
        && a.iter().zip(&b).all(|((na, x), (nb, y))| {
            if x == y {
                return true;
            }
            let (Ok(x), Ok(y)) = (x.parse::<f64>(), y.parse::<f64>()) else {
                return false;
            };
            *na && *nb && (x - y).abs() <= 2.0 * f64::from(f32::EPSILON) * y.abs()
        })
}

/// Runs `f` with prints captured (waiting for the arrays it returns) and compares the text
/// with JAX's, line by line ([`same_line`]).
fn check(case: &str, f: impl FnOnce() -> Vec<Array>) {
    let (_, lines) = debug::capture_prints(|| {
        for a in f() {
            a.block_until_ready().unwrap();
        }
    });
    let ours: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let want = golden(case);
    let (ours, want): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), want.lines().collect());
    for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
        assert!(same_line(o, w), "{case}: line {i}\n ours: {o}\n  JAX: {w}");
    }
    assert_eq!(ours.len(), want.len(), "{case}: {ours:#?}\nJAX: {want:#?}");
}

fn x3() -> Array {
    Array::from_vec(vec![0.5f32, -1.0, 2.0], &[3])
}

fn x32() -> Array {
    Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])
}

fn prints_twice(x: &Array) -> Array {
    let y = &np::sin(x) * 2.0;
    debug::print!("y = {y}", y = &y);
    debug::print!("sum {} of {}", np::sum(&y, None, false), x);
    y
}

fn row(x: &Array) -> Array {
    debug::print!("row {} doubled {}", x, x * 2.0);
    np::sum(x, None, false)
}

fn loss(w: &Array) -> Array {
    debug::print!("w = {}", w);
    let l = np::sum(&np::square(&np::tanh(w)), None, false);
    debug::print!("loss = {}", &l);
    l
}

fn looped(x: &Array) -> Array {
    lax::fori_loop(
        0,
        3,
        |i, c: &Array| {
            debug::print!("i = {i}, c = {c}", i = i, c = c);
            &(c * 2.0) + 1.0
        },
        x,
    )
    .unwrap()
}

#[test]
fn lines_compare_text_exactly_and_numbers_to_the_last_bits() {
    assert!(same_line(
        "sum 1.0945038795471191 of [ 0.5 -1.   2. ]",
        "sum 1.0945039987564087 of [ 0.5 -1.   2. ]"
    ));
    assert!(!same_line(
        "sum 1.0945 of [ 0.5 -1.   2. ]",
        "sum 1.0945039987564087 of [ 0.5 -1.   2. ]"
    ));
    assert!(!same_line(
        "sum 1.0945039987564087 of [ 0.5 -1.  2. ]",
        "sum 1.0945039987564087 of [ 0.5 -1.   2. ]"
    ));
    assert!(!same_line("i = 1", "i = 2"));
    assert!(!same_line("x", "x 1"));
}

#[test]
fn eager_and_jit_print_what_jax_prints() {
    check("eager", || vec![prints_twice(&x3())]);
    check("jit", || vec![jit(prints_twice).call(&x3()).unwrap()]);
    let f = jit(prints_twice);
    check("jit_twice", || {
        vec![f.call(&x3()).unwrap(), f.call(&(&x3() + 1.0)).unwrap()]
    });
}

#[test]
fn vmap_prints_once_per_example_in_order() {
    check("vmap", || vec![vmap(row).call(&x32()).unwrap()]);
    check("jit_vmap", || vec![jit(vmap(row)).call(&x32()).unwrap()]);
    let scaled = |(x, s): &(Array, Array)| {
        debug::print!("x={x} s={s}", x = x, s = s);
        x * s
    };
    check("vmap_unbatched", || {
        vec![vmap(scaled)
            .in_axes((0, None))
            .call(&(x3(), Array::scalar(3.0f32)))
            .unwrap()]
    });
}

#[test]
fn grad_prints_the_primal_values_once() {
    check("grad", || vec![grad(loss).call(&x3()).unwrap()]);
    check("jit_grad", || vec![jit(grad(loss)).call(&x3()).unwrap()]);
    check("value_and_grad", || {
        let (v, g) = value_and_grad(loss).call(&x3()).unwrap();
        vec![v, g]
    });
    check("vmap_grad", || vec![vmap(grad(loss)).call(&x32()).unwrap()]);
}

#[test]
fn loops_print_every_iteration() {
    check("fori_loop", || vec![jit(looped).call(&x3()).unwrap()]);
    check("fori_loop_eager", || vec![looped(&x3())]);
    let total = |x: &Array| np::sum(&looped(x), None, false);
    check("grad_fori_loop", || {
        vec![jit(grad(total)).call(&x3()).unwrap()]
    });
    check("vmap_fori_loop", || {
        vec![jit(vmap(looped)).call(&x32()).unwrap()]
    });
}

#[test]
fn integers_booleans_matrices_and_scalars_format_as_jax_does() {
    let kinds = |x: &Array| {
        let ints = np::reshape(&np::arange(6), &[2, 3]);
        debug::print!(
            "ints {} bools {}",
            ints,
            np::greater(x, &Array::scalar(0.0f32))
        );
        debug::print!("matrix\n{}", &x32() / 3.0);
        let first = np::index(x, &[np::Idx::from(0i64)]);
        debug::print!(
            "scalars {} {} {} {}",
            Array::scalar(0.1f32),
            &np::sum(x, None, false) * 1e-6,
            Array::scalar(-3i32),
            np::greater(&first, &Array::scalar(0.0f32))
        );
        x.clone()
    };
    check("kinds", || vec![jit(kinds).call(&x3()).unwrap()]);
}

#[test]
fn a_callback_sees_the_values_and_its_error_reaches_the_caller_of_jit() {
    let seen: Arc<Mutex<Vec<Vec<f32>>>> = Arc::default();
    let log = seen.clone();
    let f = jit(move |x: &Array| {
        let log = log.clone();
        let y = np::square(x);
        debug::callback(
            move |v: &[Array]| {
                log.lock().unwrap().push(v[0].to_vec::<f32>()?);
                Ok(())
            },
            std::slice::from_ref(&y),
        )
        .unwrap();
        y
    });
    let out = vmap(f).call(&x32()).unwrap();
    out.block_until_ready().unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![vec![1.0f32, 4.0], vec![9.0, 16.0], vec![25.0, 36.0]]
    );

    let failing = jit(|x: &Array| {
        debug::callback(
            |_: &[Array]| {
                Err(Error::Op {
                    op: "my_check".into(),
                    message: "the value is out of range".into(),
                })
            },
            std::slice::from_ref(x),
        )
        .unwrap();
        x * 2.0
    });
    let err = failing
        .call(&x3())
        .unwrap()
        .to_vec::<f32>()
        .unwrap_err()
        .to_string();
    assert!(err.contains("the value is out of range"), "{err}");
    assert!(err.contains("debug.callback"), "{err}");

    // Outside a trace the callback runs at once and its error is returned.
    let now = debug::callback(
        |_: &[Array]| {
            Err(Error::Op {
                op: "now".into(),
                message: "at once".into(),
            })
        },
        &[x3()],
    );
    assert!(now.unwrap_err().to_string().contains("at once"));
}

#[test]
fn a_failed_argument_ends_the_trace_with_its_error() {
    let f = jit(|x: &Array| {
        let bad = np::reshape(x, &[7]);
        debug::print!("{}", bad);
        x.clone()
    });
    let Err(err) = f.call(&x3()) else {
        panic!("the trace fails")
    };
    let err = err.to_string();
    assert!(err.contains("reshape"), "{err}");
}
